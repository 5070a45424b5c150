// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>

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

/* io_uring's most registered buffers a ring (IORING_MAX_REG_BUFFERS). */
#define RING_MAX_BUFFERS 16384

int ring_hold_pages(long nbuf)
{
	struct iovec *iov = calloc(RING_MAX_BUFFERS, sizeof(*iov));
	char *mem = mmap(NULL, (size_t)nbuf * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i, k, n;
	int ret = 0;

	if (!iov || mem == MAP_FAILED) {
		free(iov);
		return -ENOMEM;
	}
	madvise(mem, (size_t)nbuf * 4096, MADV_NOHUGEPAGE);
	for (i = 0; !ret && i < nbuf; i += n) {
		int ring = ring_setup(8);

		n = nbuf - i < RING_MAX_BUFFERS ? nbuf - i : RING_MAX_BUFFERS;
		for (k = 0; k < n; k++) {
			iov[k].iov_base = mem + (size_t)(i + k) * 4096;
			iov[k].iov_len = 4096;
			mem[(size_t)(i + k) * 4096] = 1;
		}
		if (ring < 0)
			ret = ring;
		else if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, iov, n) < 0)
			ret = -errno;
	}
	free(iov);
	return ret;
}

/* The io_uring agent's commands (ia_agent.h: agent_call(a, op, len, 0, 0)). */
enum { A_REG = 1, A_UNREG, A_RING };

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

struct uring_agent {
	uid_t uid;
	uint64_t memlock;
	int ring;
	unsigned int slot;
};

static int64_t uring_setup(void *priv)
{
	struct uring_agent *u = priv;
	int ret = become_user(u->uid, u->memlock);

	if (ret)
		return ret;
	u->ring = ring_setup(8);
	return u->ring < 0 ? u->ring : ring_sparse_buffers(u->ring, 256);
}

static int64_t uring_run(void *priv, const struct agent_cmd *c)
{
	struct uring_agent *u = priv;
	int ret;

	switch (c->op) {
	case A_REG:
		ret = u->slot < 256 ? ring_set_buffer(u->ring, u->slot, c->a) : -ENOSPC;
		u->slot += !ret;
		return ret;
	case A_UNREG:
		ret = ring_unregister_buffers(u->ring);
		u->slot = 0;
		return ret ? ret : ring_sparse_buffers(u->ring, 256);
	case A_RING:
		return u->ring;
	}
	return -EINVAL;
}

int agent_start(struct agent *a, uid_t uid, uint64_t memlock)
{
	struct uring_agent u = { .uid = uid, .memlock = memlock };

	return agent_fork(a, uring_setup, uring_run, &u);
}

struct pages_agent {
	uid_t uid;
	long nbuf;
};

static int64_t pages_setup(void *priv)
{
	struct pages_agent *p = priv;
	int ret = become_user(p->uid, RLIM_INFINITY);

	return ret ? ret : ring_hold_pages(p->nbuf);
}

static int64_t pages_run(void *priv, const struct agent_cmd *c)
{
	return -EINVAL;		/* it only holds */
}

int agent_hold_pages(struct agent *a, uid_t uid, long nbuf)
{
	struct pages_agent p = { .uid = uid, .nbuf = nbuf };

	return agent_fork(a, pages_setup, pages_run, &p);
}

int agent_register(struct agent *a, size_t len)
{
	return (int)agent_call(a, A_REG, len, 0, 0);
}

int agent_unregister(struct agent *a)
{
	return (int)agent_call(a, A_UNREG, 0, 0, 0);
}

int agent_take_ring(struct agent *a)
{
	int ring = (int)agent_call(a, A_RING, 0, 0, 0);

	return ring < 0 ? ring : take_fd(a->pid, ring);
}
