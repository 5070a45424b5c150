/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring through raw syscalls (no liburing), and io_uring agents
 * (ia_agent.h): as a given uid with a given RLIMIT_MEMLOCK, they register
 * io_uring buffers on command, so tests can drive the per-uid pot step by step.
 */
#ifndef IA_URING_H
#define IA_URING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ia_agent.h"

int ring_setup(unsigned int entries);
/* A sparse buffer table of @nr slots (charges nothing). 0 or -errno. */
int ring_sparse_buffers(int fd, unsigned int nr);
/* Put a @len-byte buffer into @slot: the kernel charges its pages. 0 or -errno. */
int ring_set_buffer(int fd, unsigned int slot, size_t len);
/* Drop every registered buffer (synchronous unaccount). 0 or -errno. */
int ring_unregister_buffers(int fd);
/*
 * @nbuf one-page buffers registered (each its own page, not a THP: one
 * charge record each), IORING_MAX_REG_BUFFERS a ring, on rings opened for
 * them and kept, with their memory, for the process's life. 0 or -errno.
 */
int ring_hold_pages(long nbuf);
/*
 * An agent of @uid with no RLIMIT_MEMLOCK (as DPDK's and KubeVirt's jobs
 * run) holding @nbuf one-page buffers (ring_hold_pages()) until
 * agent_stop(): 0, the kernel's answer, or -errno.
 */
int agent_hold_pages(struct agent *a, uid_t uid, long nbuf);

/* Fork a child that becomes @uid (no capabilities) with RLIMIT_MEMLOCK
 * soft = hard = @memlock, opens one ring with a sparse table, then obeys. */
int agent_start(struct agent *a, uid_t uid, uint64_t memlock);
/* Register one more buffer of @len bytes; the kernel's answer (0 / -errno). */
int agent_register(struct agent *a, size_t len);
int agent_unregister(struct agent *a);
/*
 * Take a copy of the agent's ring fd with pidfd_getfd(2). (An io_uring fd
 * cannot be sent over SCM_RIGHTS: the kernel answers EINVAL.)
 */
int agent_take_ring(struct agent *a);

#endif
