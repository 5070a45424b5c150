// SPDX-License-Identifier: GPL-2.0
/*
 * The two systemd protocols the daemon speaks, written to their published
 * interface documents instead of linking libsystemd (issue 31: libsystemd
 * brought libgcrypt, libgpg-error, liblz4, libzstd, liblzma and libcap,
 * ~1 MiB resident, for two datagrams):
 *   - the service notification protocol, sd_notify(3) / systemd's
 *     NOTIFY_SOCKET: "READY=1", "WATCHDOG=1", "STATUS=...", "STOPPING=1" in
 *     one datagram to $NOTIFY_SOCKET (a path, or "@" for the abstract
 *     namespace); the watchdog from $WATCHDOG_USEC and $WATCHDOG_PID, as
 *     sd_watchdog_enabled(3) reads them;
 *   - the journal's native protocol (systemd.io/JOURNAL_NATIVE_PROTOCOL):
 *     one datagram to /run/systemd/journal/socket, a field per line
 *     "NAME=value", or "NAME\n" + its length as 64-bit little endian + the
 *     value + "\n" where the value holds a newline; a datagram the socket
 *     refuses as too large goes as a sealed memfd passed with SCM_RIGHTS.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "iad.h"

const char *iad_journal_socket = "/run/systemd/journal/socket";

/* A unix datagram socket's address for @path ("@name": abstract); its length, or 0. */
static socklen_t unix_addr(struct sockaddr_un *sa, const char *path)
{
	size_t n = strlen(path);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (!n || n >= sizeof(sa->sun_path) || (path[0] != '/' && path[0] != '@'))
		return 0;
	memcpy(sa->sun_path, path, n);
	if (path[0] == '@')
		sa->sun_path[0] = 0;
	return offsetof(struct sockaddr_un, sun_path) + n + (path[0] == '/');
}

int iad_notify(const char *fmt, ...)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t salen;
	char msg[512];
	va_list ap;
	ssize_t w;
	int fd, n;

	if (!path)
		return 0;		/* not run by systemd with Type=notify */
	salen = unix_addr(&sa, path);
	if (!salen)
		return -EINVAL;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -EMSGSIZE;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	w = sendto(fd, msg, n, MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	n = w < 0 ? -errno : 1;
	close(fd);
	return n;
}

bool iad_watchdog_usec(uint64_t *usec)
{
	const char *u = getenv("WATCHDOG_USEC"), *p = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (!u)
		return false;
	if (p && strtol(p, NULL, 10) != (long)getpid())
		return false;		/* meant for another process */
	errno = 0;
	v = strtoull(u, &end, 10);
	if (errno || *end || !v)
		return false;
	*usec = v;
	return true;
}

/* The journal's socket, connected once (a datagram socket: no state to lose). */
static int journal_fd = -1;

static int journal_socket(void)
{
	struct sockaddr_un sa;
	socklen_t salen = unix_addr(&sa, iad_journal_socket);
	int fd;

	if (journal_fd >= 0)
		return journal_fd;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, salen)) {
		close(fd);
		return -1;
	}
	journal_fd = fd;
	return fd;
}

/* A datagram too large for the socket: in a sealed memfd, its fd passed. */
static int journal_memfd(int sock, const char *buf, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct msghdr mh = { .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	size_t off = 0;
	ssize_t w;
	int mfd, ret = 0;

	mfd = memfd_create("iommu-accountd-journal", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0)
		return -errno;
	while (off < len) {
		w = write(mfd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = -errno;
			goto out;
		}
		off += w;
	}
	if (fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)) {
		ret = -errno;
		goto out;
	}
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &mfd, sizeof(int));
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		ret = -errno;
out:
	close(mfd);
	return ret;
}

int iad_journal_send(char *const *fields, size_t n)
{
	size_t i, len = 0, off = 0;
	char *buf;
	int fd, ret = 0;

	for (i = 0; i < n; i++)
		len += strlen(fields[i]) + 1 + 8 + 1;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *f = fields[i], *eq = strchr(f, '=');
		size_t flen = strlen(f);

		if (!eq) {
			continue;		/* not NAME=value */
		} else if (!strchr(eq + 1, '\n')) {
			memcpy(buf + off, f, flen);
			off += flen;
			buf[off++] = '\n';
		} else {
			/* NAME, newline, the value's length (le64), the value, newline. */
			uint64_t vl = htole64(flen - (eq + 1 - f));

			memcpy(buf + off, f, eq - f);
			off += eq - f;
			buf[off++] = '\n';
			memcpy(buf + off, &vl, 8);
			off += 8;
			memcpy(buf + off, eq + 1, flen - (eq + 1 - f));
			off += flen - (eq + 1 - f);
			buf[off++] = '\n';
		}
	}
	for (i = 0; i < 2; i++) {
		fd = journal_socket();
		if (fd < 0) {
			ret = -errno;
			break;
		}
		if (send(fd, buf, off, MSG_NOSIGNAL) >= 0) {
			ret = 0;
			break;
		}
		ret = -errno;
		if (errno == EMSGSIZE || errno == ENOBUFS) {
			ret = journal_memfd(fd, buf, off);
			break;
		}
		/* journald restarted: connect again, once. */
		close(journal_fd);
		journal_fd = -1;
	}
	free(buf);
	return ret;
}
