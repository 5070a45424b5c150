// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "ia_uring.h"

int ring_setup(unsigned int entries)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, entries, &p);
	return fd < 0 ? -errno : (int)fd;
}

static int ring_register(int fd, unsigned int op, void *arg, unsigned int nr)
{
	long ret = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return ret < 0 ? -errno : 0;
}

int ring_sparse_buffers(int fd, unsigned int nr)
{
	struct io_uring_rsrc_register r;

	memset(&r, 0, sizeof(r));
	r.nr = nr;
	r.flags = IORING_RSRC_REGISTER_SPARSE;
	return ring_register(fd, IORING_REGISTER_BUFFERS2, &r, sizeof(r));
}

int ring_set_buffer(int fd, unsigned int slot, size_t len)
{
	struct io_uring_rsrc_update2 up;
	struct iovec iov;
	void *buf;

	/* Small pages only: a THP would be charged once per compound page. */
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -errno;
	madvise(buf, len, MADV_NOHUGEPAGE);
	memset(buf, 0x5a, len);
	iov.iov_base = buf;
	iov.iov_len = len;
	memset(&up, 0, sizeof(up));
	up.offset = slot;
	up.data = (uint64_t)(uintptr_t)&iov;
	up.nr = 1;
	/* Returns the number of slots updated. */
	if (syscall(__NR_io_uring_register, fd, IORING_REGISTER_BUFFERS_UPDATE,
		    &up, sizeof(up)) < 0) {
		int err = -errno;

		munmap(buf, len);
		return err;
	}
	return 0;
}

int ring_unregister_buffers(int fd)
{
	return ring_register(fd, IORING_UNREGISTER_BUFFERS, NULL, 0);
}

/* Agent protocol: one byte of command, an 8-byte argument; an int back. */
enum { A_REG = 'r', A_UNREG = 'u', A_RING = 'f', A_EXIT = 'x' };

/* pidfd_getfd(2): a copy of another process's fd (needs ptrace rights). */
static int take_fd(pid_t pid, int fd)
{
	long pidfd, ret;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	ret = syscall(SYS_pidfd_getfd, (int)pidfd, fd, 0);
	if (ret < 0)
		ret = -errno;
	close((int)pidfd);
	return (int)ret;
}

static void agent_main(int cmd, int res, uid_t uid, uint64_t memlock)
{
	struct rlimit rl = { memlock, memlock };
	unsigned int slot = 0;
	int ring, ret;
	char op;
	uint64_t arg;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		_exit(2);
	ring = ring_setup(8);
	ret = ring < 0 ? ring : ring_sparse_buffers(ring, 256);
	if (write(res, &ret, sizeof(ret)) != sizeof(ret) || ret)
		_exit(3);
	while (read(cmd, &op, 1) == 1 && read(cmd, &arg, sizeof(arg)) == sizeof(arg)) {
		switch (op) {
		case A_REG:
			ret = slot < 256 ? ring_set_buffer(ring, slot, arg) : -ENOSPC;
			if (!ret)
				slot++;
			break;
		case A_UNREG:
			ret = ring_unregister_buffers(ring);
			if (!ret)
				ret = ring_sparse_buffers(ring, 256);
			slot = 0;
			break;
		case A_RING:
			ret = ring;
			break;
		case A_EXIT:
		default:
			_exit(0);
		}
		if (write(res, &ret, sizeof(ret)) != sizeof(ret))
			_exit(4);
	}
	_exit(0);
}

int agent_start(struct agent *a, uid_t uid, uint64_t memlock)
{
	int c[2], r[2], ret;

	if (pipe(c) || pipe(r))
		return -errno;
	a->pid = fork();
	if (a->pid < 0)
		return -errno;
	if (!a->pid) {
		close(c[1]);
		close(r[0]);
		agent_main(c[0], r[1], uid, memlock);
	}
	close(c[0]);
	close(r[1]);
	a->cmd = c[1];
	a->res = r[0];
	if (read(a->res, &ret, sizeof(ret)) != sizeof(ret))
		return -EPIPE;
	return ret;
}

static int agent_do(struct agent *a, char op, uint64_t arg)
{
	int ret;

	if (write(a->cmd, &op, 1) != 1 || write(a->cmd, &arg, sizeof(arg)) != sizeof(arg))
		return -EPIPE;
	if (read(a->res, &ret, sizeof(ret)) != sizeof(ret))
		return -EPIPE;
	return ret;
}

int agent_register(struct agent *a, size_t len)
{
	return agent_do(a, A_REG, len);
}

int agent_unregister(struct agent *a)
{
	return agent_do(a, A_UNREG, 0);
}

int agent_take_ring(struct agent *a)
{
	int ring = agent_do(a, A_RING, 0);

	return ring < 0 ? ring : take_fd(a->pid, ring);
}

void agent_stop(struct agent *a)
{
	char op = A_EXIT;
	uint64_t arg = 0;

	if (a->pid <= 0)
		return;
	if (write(a->cmd, &op, 1) != 1 || write(a->cmd, &arg, sizeof(arg)) != sizeof(arg))
		kill(a->pid, SIGKILL);
	waitpid(a->pid, NULL, 0);
	close(a->cmd);
	close(a->res);
	a->pid = 0;
}
