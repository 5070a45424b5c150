// SPDX-License-Identifier: GPL-2.0
/*
 * uring_bench: the io_uring paths iommu_account hooks, timed (for
 * scripts/bench; a benchmark, not a test).
 *
 *   uring_bench register N   N x (IORING_REGISTER_BUFFERS of one 4 KiB buffer
 *                            + IORING_UNREGISTER_BUFFERS) on one ring, or as
 *                            many as fit in 5 s (6.1 waits ~15 ms in each
 *                            unregister); print "register ns_per_op X"
 *   uring_bench register-only N  the same, timing the register calls alone;
 *                            print "register-only ns_per_op X"
 *   uring_bench setup N      N x (io_uring_setup(8) + close), at most 5 s;
 *                            print "setup ns_per_op X"
 *   uring_bench hold BYTES   register one buffer of BYTES on a ring, print
 *                            "hold 0" or "hold -ERRNO", then wait for a signal
 *                            (a holder of the pot for the CLI tests)
 *   uring_bench hold-many N  register N one-page buffers (each its own page,
 *                            16,384 a ring), print "hold-many N 0" or
 *                            "hold-many N -ERRNO", then wait for a signal: N
 *                            live charges for the scale bench (needs an
 *                            RLIMIT_MEMLOCK of N pages, e.g. ulimit -l unlimited)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/io_uring.h>

#include "ia_uring.h"

/* A run stops after this long, whatever N says. */
#define BUDGET_NS 5e9

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * @only: time the IORING_REGISTER_BUFFERS calls alone (the charge and the
 * registration), not the unregister, which on 6.1 waits for an RCU grace
 * period that drowns everything else.
 */
static int bench_register(long n, int only)
{
	struct iovec iov;
	double t0, t1, in_reg = 0, r0;
	int ring;
	long i;

	ring = ring_setup(8);
	if (ring < 0) {
		fprintf(stderr, "uring_bench: io_uring_setup: %s\n", strerror(-ring));
		return 1;
	}
	iov.iov_len = 4096;
	iov.iov_base = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (iov.iov_base == MAP_FAILED)
		return 1;
	t0 = now_ns();
	for (i = 0; i < n && now_ns() - t0 < BUDGET_NS; i++) {
		r0 = now_ns();
		if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, &iov, 1)) {
			fprintf(stderr, "uring_bench: op %ld: register: %s\n", i, strerror(errno));
			return 1;
		}
		in_reg += now_ns() - r0;
		if (syscall(__NR_io_uring_register, ring, IORING_UNREGISTER_BUFFERS, NULL, 0)) {
			fprintf(stderr, "uring_bench: op %ld: unregister: %s\n", i, strerror(errno));
			return 1;
		}
	}
	t1 = now_ns();
	if (only)
		printf("register-only ns_per_op %.0f\n", in_reg / i);
	else
		printf("register ns_per_op %.0f\n", (t1 - t0) / i);
	close(ring);
	return 0;
}

static int bench_setup(long n)
{
	double t0, t1;
	long i;
	int ring;

	t0 = now_ns();
	for (i = 0; i < n && now_ns() - t0 < BUDGET_NS; i++) {
		ring = ring_setup(8);
		if (ring < 0) {
			fprintf(stderr, "uring_bench: setup %ld: %s\n", i, strerror(-ring));
			return 1;
		}
		close(ring);
	}
	t1 = now_ns();
	printf("setup ns_per_op %.0f\n", (t1 - t0) / i);
	return 0;
}

static int hold(size_t len)
{
	struct iovec iov;
	int ring, ret = 0;

	ring = ring_setup(8);
	if (ring < 0)
		return 1;
	iov.iov_len = len;
	iov.iov_base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (iov.iov_base == MAP_FAILED)
		return 1;
	madvise(iov.iov_base, len, MADV_NOHUGEPAGE);
	memset(iov.iov_base, 1, len);
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, &iov, 1))
		ret = -errno;
	printf("hold %d\n", ret);
	fflush(stdout);
	pause();
	return 0;
}

static int hold_many(long n)
{
	int ret = ring_hold_pages(n);

	printf("hold-many %ld %d\n", n, ret);
	fflush(stdout);
	pause();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "hold-many"))
		return hold_many(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(strtoul(argv[2], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "register"))
		return bench_register(atol(argv[2]), 0);
	if (argc == 3 && !strcmp(argv[1], "register-only"))
		return bench_register(atol(argv[2]), 1);
	if (argc == 3 && !strcmp(argv[1], "setup"))
		return bench_setup(atol(argv[2]));
	fprintf(stderr, "usage: uring_bench register|register-only|setup|hold-many N | hold BYTES\n");
	return 2;
}
