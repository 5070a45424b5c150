// SPDX-License-Identifier: GPL-2.0
/*
 * Why iommu_account is not loaded: what the system itself shows, read
 * without privileges where it can be, and the one thing to do about it.
 *
 * In order: a kernel without modules; the module loaded but its family
 * absent; no module for the running kernel (and whether DKMS holds a source
 * it could build, and the headers it would need); signatures enforced (the
 * sig_enforce parameter, lockdown, Secure Boot) while the installed module
 * is unsigned or signed by a key the kernel evidently does not trust (most
 * often DKMS's own MOK, not enrolled); else the module is there and nothing
 * here explains the refusal (the kernel log does).
 *
 * The signer is recognised without a crypto library: a module signature is
 * a PKCS#7 blob whose SignerInfo names the signing certificate by issuer
 * and serial number; DKMS's certificate (/var/lib/dkms/mok.pub, DER) gives
 * the serial to look for.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ia.h"

#define MODSIG_MAGIC "~Module signature appended~\n"
#define DKMS_CERT "/var/lib/dkms/mok.pub"
#define DKMS_TREE "/var/lib/dkms/iommu-account"
#define EFI_SECUREBOOT \
	"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e6a66d36c3d7"

/* snprintf, truncating quietly: every text here fits, a path that does not is cut. */
__attribute__((format(printf, 3, 4)))
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return (int)n;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* iommu_account in /proc/modules. */
static bool module_listed(void)
{
	char line[256];
	bool found = false;
	FILE *f;

	f = fopen("/proc/modules", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "iommu_account ", 14);
	fclose(f);
	return found;
}

/* The module's path for @krel, from modules.dep ("" when none). */
static void module_path(const char *krel, char *out, size_t len)
{
	char p[512], line[1024], *colon, *base;
	FILE *f;

	out[0] = '\0';
	say(p, sizeof(p), "/lib/modules/%s/modules.dep", krel);
	f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (strncmp(base, "iommu_account.ko", 16))
			continue;
		if (line[0] == '/')
			say(out, len, "%s", line);
		else
			say(out, len, "/lib/modules/%s/%s", krel, line);
		break;
	}
	fclose(f);
}

/* A DER length at @p (of @end); the header's size in @hl. -1 when malformed. */
static long der_len(const unsigned char *p, const unsigned char *end, size_t *hl)
{
	unsigned int n, i;
	long l = 0;

	if (end - p < 2)
		return -1;
	if (!(p[1] & 0x80)) {
		*hl = 2;
		return p[1];
	}
	n = p[1] & 0x7f;
	if (!n || n > 3 || end - p < 2 + (long)n)
		return -1;
	for (i = 0; i < n; i++)
		l = l << 8 | p[2 + i];
	*hl = 2 + n;
	return l;
}

/*
 * The serial number of a DER certificate, as its INTEGER's encoding (tag,
 * length, value): Certificate { tbsCertificate { [0] version, serial, ... } }.
 */
static size_t cert_serial(const unsigned char *c, size_t len, unsigned char *out, size_t olen)
{
	const unsigned char *p = c, *end = c + len;
	size_t hl;
	long l;
	int i;

	for (i = 0; i < 2; i++) {	/* into Certificate, then tbsCertificate */
		if (p >= end || *p != 0x30 || der_len(p, end, &hl) < 0)
			return 0;
		p += hl;
	}
	if (p < end && *p == 0xa0) {	/* the version */
		l = der_len(p, end, &hl);
		if (l < 0)
			return 0;
		p += hl + l;
	}
	if (p >= end || *p != 0x02)
		return 0;
	l = der_len(p, end, &hl);
	if (l < 0 || (size_t)l + hl > olen || p + hl + l > end)
		return 0;
	memcpy(out, p, hl + l);
	return hl + l;
}

static bool memfind(const unsigned char *h, size_t hlen, const unsigned char *n, size_t nlen)
{
	size_t i;

	for (i = 0; nlen && i + nlen <= hlen; i++)
		if (!memcmp(h + i, n, nlen))
			return true;
	return false;
}

/*
 * The module file's signature: d->sig (IA_SIG_*), and whether DKMS's
 * certificate's serial is in it.
 */
static void module_signature(struct ia_module_diag *d)
{
	unsigned char tail[12 + sizeof(MODSIG_MAGIC) - 1], *sig = NULL, cert[4096], serial[64];
	const size_t ml = sizeof(MODSIG_MAGIC) - 1;
	size_t slen, clen;
	uint32_t siglen;
	struct stat st;
	int fd;
	ssize_t n;

	d->sig = IA_SIG_UNKNOWN;
	if (!d->path[0])
		return;
	if (strstr(d->path, ".ko.")) {
		d->sig = IA_SIG_COMPRESSED;	/* the signature is inside the compressed data */
		return;
	}
	fd = open(d->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(tail) ||
	    pread(fd, tail, sizeof(tail), st.st_size - sizeof(tail)) != (ssize_t)sizeof(tail))
		goto out;
	if (memcmp(tail + 12, MODSIG_MAGIC, ml)) {
		d->sig = IA_SIG_NONE;
		goto out;
	}
	d->sig = IA_SIG_OTHER;
	/* struct module_signature: ..., __be32 sig_len, then the magic. */
	siglen = (uint32_t)tail[8] << 24 | tail[9] << 16 | tail[10] << 8 | tail[11];
	if (!siglen || siglen > 65536 || siglen + sizeof(tail) > (uint64_t)st.st_size)
		goto out;
	sig = malloc(siglen);
	if (!sig || pread(fd, sig, siglen, st.st_size - sizeof(tail) - siglen) != (ssize_t)siglen)
		goto out;
	n = read_small(DKMS_CERT, (char *)cert, sizeof(cert));
	if (n <= 0)
		goto out;
	clen = (size_t)n;
	slen = cert_serial(cert, clen, serial, sizeof(serial));
	if (slen && memfind(sig, siglen, serial, slen))
		d->sig = IA_SIG_DKMS;
out:
	free(sig);
	close(fd);
}

/* Lockdown at integrity or above (which enforces module signatures). */
static bool locked_down(const struct ia_module_diag *d)
{
	return d->lockdown[0] && strcmp(d->lockdown, "none");
}

/* Signatures enforced, and by what. */
static void enforcement(struct ia_module_diag *d)
{
	char buf[128], *a, *b;
	unsigned char sb[8];
	int n;

	d->sig_enforce = read_small("/sys/module/module/parameters/sig_enforce", buf,
				    sizeof(buf)) > 0 && buf[0] == 'Y';
	d->lockdown[0] = '\0';
	if (read_small("/sys/kernel/security/lockdown", buf, sizeof(buf)) > 0) {
		a = strchr(buf, '[');
		b = a ? strchr(a, ']') : NULL;
		if (a && b && b - a - 1 < (long)sizeof(d->lockdown))
			say(d->lockdown, sizeof(d->lockdown), "%.*s", (int)(b - a - 1), a + 1);
	}
	d->secure_boot = -1;
	n = read_small(EFI_SECUREBOOT, (char *)sb, sizeof(sb));
	if (n >= 5)
		d->secure_boot = sb[4] == 1;	/* 4 bytes of attributes, then the value */
	else if (exists("/sys/firmware/efi"))
		d->secure_boot = n == -ENOENT ? 0 : -1;
	d->enforced = d->sig_enforce || locked_down(d);
}

/* DKMS: the newest version directory it holds for us ("" when none). */
static void dkms_version(char *out, size_t len)
{
	struct dirent *e;
	DIR *dir;

	out[0] = '\0';
	dir = opendir(DKMS_TREE);
	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && strcmp(e->d_name, out) > 0)
			say(out, len, "%s", e->d_name);
	closedir(dir);
}

static const char *enforced_by(const struct ia_module_diag *d, char *buf, size_t len)
{
	bool ld = locked_down(d);

	say(buf, len, "%s%s%s%s%s", d->sig_enforce ? "module.sig_enforce=1" : "",
	    d->sig_enforce && ld ? ", " : "", ld ? "lockdown=" : "", ld ? d->lockdown : "",
	    d->secure_boot == 1 ? " (Secure Boot is on)" : "");
	return buf;
}

enum ia_module_cause ia_module_diagnose(struct ia_module_diag *d)
{
	char ver[64], by[96], hdr[300];
	struct utsname u;

	memset(d, 0, sizeof(*d));
	if (uname(&u))
		say(u.release, sizeof(u.release), "?");
	say(d->krel, sizeof(d->krel), "%s", u.release);
	enforcement(d);
	if (!exists("/proc/modules")) {
		d->cause = IA_MOD_NO_MODULES;
		say(d->text, sizeof(d->text), "this kernel (%s) cannot load modules "
			 "(no /proc/modules: built without CONFIG_MODULES); iommu_account "
			 "cannot run on it", d->krel);
		return d->cause;
	}
	if (module_listed()) {
		d->cause = IA_MOD_NO_FAMILY;
		say(d->text, sizeof(d->text), "iommu_account is loaded but its netlink "
			 "family is not registered (its initialisation failed): see the kernel "
			 "log (`dmesg | grep iommu_account`)");
		return d->cause;
	}
	if (read_small("/proc/sys/kernel/modules_disabled", ver, sizeof(ver)) > 0 &&
	    ver[0] == '1') {
		d->cause = IA_MOD_DISABLED;
		say(d->text, sizeof(d->text), "module loading is disabled until the next "
			 "boot (kernel.modules_disabled=1): load iommu_account before whatever "
			 "sets it, or leave it unset");
		return d->cause;
	}
	module_path(d->krel, d->path, sizeof(d->path));
	if (!d->path[0]) {
		d->cause = IA_MOD_NOT_INSTALLED;
		dkms_version(ver, sizeof(ver));
		say(hdr, sizeof(hdr), "/lib/modules/%s/build", d->krel);
		if (ver[0] && !exists(hdr))
			say(d->text, sizeof(d->text), "no iommu_account module for the running "
				 "kernel %s: DKMS holds iommu-account %s but cannot build it without "
				 "the kernel's headers; run `apt-get install linux-headers-%s`, then "
				 "`dkms autoinstall -k %s`", d->krel, ver, d->krel, d->krel);
		else if (ver[0])
			say(d->text, sizeof(d->text), "no iommu_account module for the running "
				 "kernel %s: DKMS holds iommu-account %s and the headers are "
				 "installed; run `dkms autoinstall -k %s` (its log: %s/%s/build/"
				 "make.log)", d->krel, ver, d->krel, DKMS_TREE, ver);
		else
			say(d->text, sizeof(d->text), "no iommu_account module for the running "
				 "kernel %s: install the iommu-account-dkms package, or build and "
				 "install it from a checkout (`make && sudo make install`)", d->krel);
		return d->cause;
	}
	module_signature(d);
	if (d->enforced && d->sig != IA_SIG_UNKNOWN) {
		d->cause = IA_MOD_SIGNATURE;
		enforced_by(d, by, sizeof(by));
		if (d->sig == IA_SIG_NONE)
			say(d->text, sizeof(d->text), "the kernel accepts only signed modules "
				 "(%s) and %s is unsigned: reinstall iommu-account-dkms (DKMS signs "
				 "with its key) and enroll that key, or sign it with a key the kernel "
				 "trusts (`make sign KEY=... CERT=...` from a checkout)", by, d->path);
		else if (d->sig == IA_SIG_COMPRESSED)
			say(d->text, sizeof(d->text), "the kernel accepts only signed modules "
			    "(%s) and did not load %s (compressed: its signature is not read "
			    "here). Built by DKMS, it is signed with DKMS's key: enroll it with "
			    "`mokutil --import %s`, reboot and confirm the enrollment in the MOK "
			    "manager (`mokutil --test-key %s` tells whether it is enrolled)", by,
			    d->path, DKMS_CERT, DKMS_CERT);
		else if (d->sig == IA_SIG_DKMS)
			say(d->text, sizeof(d->text), "the kernel accepts only signed modules "
				 "(%s) and %s is signed with DKMS's key, which it does not trust: "
				 "enroll it with `mokutil --import %s`, reboot and confirm the "
				 "enrollment in the MOK manager (`mokutil --test-key %s` tells "
				 "whether it is enrolled)", by, d->path, DKMS_CERT, DKMS_CERT);
		else
			say(d->text, sizeof(d->text), "the kernel accepts only signed modules "
				 "(%s) and %s is signed with a key it does not trust (not DKMS's "
				 "%s): enroll that key's certificate (`mokutil --import CERT`, then "
				 "reboot), or sign the module with a trusted key", by, d->path,
				 DKMS_CERT);
		return d->cause;
	}
	d->cause = IA_MOD_NOT_LOADED;
	say(d->text, sizeof(d->text), "iommu_account is installed (%s) but not loaded: "
		 "run `modprobe iommu_account` as root; if that fails, the kernel log says why "
		 "(`dmesg | tail`)", d->path);
	return d->cause;
}

int ia_module_exit_status(const struct ia_module_diag *d)
{
	return d->cause == IA_MOD_SIGNATURE ? IA_EXIT_SIGNATURE : IA_EXIT_NOMODULE;
}
