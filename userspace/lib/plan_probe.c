// SPDX-License-Identifier: GPL-2.0
/*
 * plan's behaviour probe of the running kernel: does io_uring charge ring
 * memory to the pot, and how much for a ring of N entries? Found by what
 * the kernel does, never by its version (see ia.h). Checked against the
 * kernel's own refusal point by tests/plan_test.c on the host that runs it.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ia.h"

/* The probe (ia.h says what it answers). */
int ia_plan_probe_ring(unsigned int entries, uint64_t *pages)
{
	struct { int ret; uint64_t pages; } res = { -EIO, 0 };
	int pfd[2], st;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		struct io_uring_params p = { 0 };
		struct rlimit rl, zero;
		uint64_t rings, sqes, ps = (uint64_t)sysconf(_SC_PAGESIZE);
		int fd;

		close(pfd[0]);
		if (!syscall(SYS_capget, &h, d)) {
			d[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
			syscall(SYS_capset, &h, d);
		}
		getrlimit(RLIMIT_MEMLOCK, &rl);
		zero = rl;
		zero.rlim_cur = 0;
		setrlimit(RLIMIT_MEMLOCK, &zero);
		fd = (int)syscall(__NR_io_uring_setup, entries, &p);
		if (fd >= 0) {
			res.ret = 0;
		} else if (errno != ENOMEM) {
			res.ret = -errno;
		} else {
			setrlimit(RLIMIT_MEMLOCK, &rl);
			memset(&p, 0, sizeof(p));
			fd = (int)syscall(__NR_io_uring_setup, entries, &p);
			if (fd < 0) {
				res.ret = -EAGAIN;	/* charged; its size not measurable now */
			} else {
				rings = p.cq_off.cqes + (uint64_t)p.cq_entries * 16;
				if (p.sq_off.array + (uint64_t)p.sq_entries * 4 > rings)
					rings = p.sq_off.array + (uint64_t)p.sq_entries * 4;
				sqes = (uint64_t)p.sq_entries * 64;
				res.ret = 1;
				res.pages = (rings + ps - 1) / ps + (sqes + ps - 1) / ps;
			}
		}
		if (write(pfd[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &res, sizeof(res)) != sizeof(res))
		res.ret = -EIO;
	close(pfd[0]);
	waitpid(pid, &st, 0);
	*pages = res.pages;
	return res.ret;
}
