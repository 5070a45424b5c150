// SPDX-License-Identifier: GPL-2.0
/* libia transport: family discovery, requests, the kernel's errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

int ia_fail(struct ia_client *c, int err, const char *fmt, const char *arg)
{
	c->err = err;
	snprintf(c->errmsg, sizeof(c->errmsg), fmt, arg);
	return err;
}

/*
 * The kernel's extack message out of libynl's sentence ("Kernel error:
 * 'MSG'" and, when the kernel pointed at one, " (bad attribute: ...)").
 */
static void extack_of(struct ia_client *c, const char *msg)
{
	static const char pfx[] = "Kernel error: '";
	const char *end;

	c->extack[0] = 0;
	if (strncmp(msg, pfx, sizeof(pfx) - 1))
		return;
	msg += sizeof(pfx) - 1;
	end = strrchr(msg, '\'');
	if (end)
		snprintf(c->extack, sizeof(c->extack), "%.*s", (int)(end - msg), msg);
}

int ia_ynl_fail(struct ia_client *c)
{
	const struct ynl_error *e = &c->ys->err;

	if (e->code > 0 && e->code < __YNL_ERRNO_END) {
		extack_of(c, e->msg);
		c->err = -e->code;
		snprintf(c->errmsg, sizeof(c->errmsg), "%s",
			 c->extack[0] ? c->extack : strerror(e->code));
		return c->err;
	}
	/* libynl's own: a reply it could not parse, or none. */
	c->extack[0] = 0;
	return ia_fail(c, -EIO, "netlink: %s", e->msg[0] ? e->msg : "no answer");
}

int ia_client_open(struct ia_client *c)
{
	struct ynl_error yerr = { 0 };

	memset(c, 0, sizeof(*c));
	/*
	 * libynl resolves the family (and its multicast groups) here, with
	 * extended ACKs on. Its receive buffer holds any message whole: an
	 * element with a cgroup path of PATH_MAX is over 4 KiB.
	 */
	c->ys = ynl_sock_create(&ynl_iommu_account_family, &yerr);
	if (c->ys) {
		/* libynl's socket is not close-on-exec: the daemon's exec hooks must not inherit it. */
		fcntl(ynl_socket_get_fd(c->ys), F_SETFD, FD_CLOEXEC);
		return 0;
	}
	if (yerr.code == ENOENT) {
		struct ia_module_diag d;

		ia_module_diagnose(&d);
		c->nomodule_exit = ia_module_exit_status(&d);
		return ia_fail(c, -ENOENT, "iommu_account is not loaded: %s", d.text);
	}
	return ia_fail(c, -EIO, "cannot open a generic netlink socket: %s", yerr.msg);
}

void ia_client_close(struct ia_client *c)
{
	if (c->ys)
		ynl_sock_destroy(c->ys);
	c->ys = NULL;
}

int ia_client_fd(const struct ia_client *c)
{
	return ynl_socket_get_fd(c->ys);
}

int ia_client_nonblocking(struct ia_client *c)
{
	int fd = ynl_socket_get_fd(c->ys), fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ? -errno : 0;
}

int ia_exit_status(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return IA_EXIT_OK;
	case EPERM:
	case EACCES:
		return IA_EXIT_PERM;
	case ENOENT:
		return IA_EXIT_NOENT;
	case EOPNOTSUPP:
		return IA_EXIT_UNSUPP;
	default:
		return IA_EXIT_FAIL;
	}
}

const char *ia_errno_name(int err)
{
	static const struct { int err; const char *name; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" }, { EIO, "EIO" }, { E2BIG, "E2BIG" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
		{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" },
		{ ERANGE, "ERANGE" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EMSGSIZE, "EMSGSIZE" }, { ENOBUFS, "ENOBUFS" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return "?";
}

bool ia_in_initial_netns(void)
{
	struct stat self, init;

	if (stat("/proc/self/ns/net", &self) || stat("/proc/1/ns/net", &init))
		return true;	/* cannot tell: say nothing */
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}
