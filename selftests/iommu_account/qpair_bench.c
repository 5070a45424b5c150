// SPDX-License-Identifier: GPL-2.0
/*
 * qpair_bench: what publishing costs, against the module in this kernel.
 *
 *   qpair_bench ops N      iaq_acquire(1) + iaq_release(1) (the header's
 *                          inline operations, and the library's functions
 *                          as a foreign-function caller gets them) vs a bare
 *                          atomic add/sub pair in this program, N pairs a
 *                          run, 5 + 5 (+ 5) runs alternating; the module's
 *                          count of NOTIFY calls made meanwhile
 *   qpair_bench native N   the same three loops over two plain memory pages
 *                          laid out as the module's (no module: for hosts
 *                          without one, to see the CPU cost of the same
 *                          instructions on hardware; not the module's pages)
 *   qpair_bench loop N     N library pairs and nothing else (run it under
 *                          strace -c -f to count system calls)
 *   qpair_bench dump N     N objects; GET_QUOTA dumps of the qpair kind,
 *                          median of 5, per dump and per object
 *   qpair_bench burst S C  a bursty publisher: a qpair of C descriptors
 *                          filled one at a time and drained, for S seconds
 *                          (every round crosses warn and crit and re-arms);
 *                          prints the rounds and the NOTIFY calls, then holds
 *                          the qpair until stdin closes
 *
 * A benchmark, not a test: under TCG absolute numbers mean little.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "iommu-account.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t bare_counter;

static double run_bare(uint64_t n)
{
	uint64_t t0 = now_ns(), i;

	for (i = 0; i < n; i++) {
		__atomic_add_fetch(&bare_counter, 1, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&bare_counter, 1, __ATOMIC_RELAXED);
	}
	return (double)(now_ns() - t0) / (double)n;
}

static double run_lib(struct iaq *q, uint64_t n)
{
	uint64_t t0 = now_ns(), i;

	for (i = 0; i < n; i++) {
		iaq_acquire(q, 1);
		iaq_release(q, 1);
	}
	return (double)(now_ns() - t0) / (double)n;
}

/* The library's functions (the names in parentheses are not the inline macros). */
static double run_call(struct iaq *q, uint64_t n)
{
	uint64_t t0 = now_ns(), i;

	for (i = 0; i < n; i++) {
		(iaq_acquire)(q, 1);
		(iaq_release)(q, 1);
	}
	return (double)(now_ns() - t0) / (double)n;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* 5 alternating runs of each loop; prints medians, spreads and ratios. */
static void compare(const char *what, struct iaq *q, uint64_t n)
{
	double bare[5], lib[5], call[5];
	int i;

	run_bare(n / 10);
	run_lib(q, n / 10);
	run_call(q, n / 10);
	for (i = 0; i < 5; i++) {
		bare[i] = run_bare(n);
		lib[i] = run_lib(q, n);
		call[i] = run_call(q, n);
	}
	qsort(bare, 5, sizeof(double), cmp_d);
	qsort(lib, 5, sizeof(double), cmp_d);
	qsort(call, 5, sizeof(double), cmp_d);
	printf("%-9s bare %6.1f ns (%.1f-%.1f)  inline %6.1f ns (%.1f-%.1f)  ratio %.3f  "
	       "function %6.1f ns (%.1f-%.1f)  ratio %.3f\n", what, bare[2], bare[0], bare[4],
	       lib[2], lib[0], lib[4], lib[2] / bare[2], call[2], call[0], call[4],
	       call[2] / bare[2]);
}

static int bench_ops(uint64_t n)
{
	struct iaq *q = iaq_open("bench", 1024);
	struct iaq_counters c0, c1;

	if (!q) {
		fprintf(stderr, "qpair_bench: %s\n", iaq_strerror(errno));
		return 1;
	}
	iaq_read(q, &c0);
	compare("pair", q, n);
	iaq_read(q, &c1);
	printf("notifies  %llu NOTIFY ioctls in %llu library pairs (the module's count)\n",
	       (unsigned long long)(c1.notifies - c0.notifies), (unsigned long long)(15 * n));
	iaq_close(q);
	return 0;
}

/* Plain pages laid out as the module's, thresholds out of reach: CPU cost only. */
static int bench_native(uint64_t n)
{
	static struct iaq_page_counters c __attribute__((aligned(4096)));
	static struct iaq_page_state s __attribute__((aligned(4096)));
	struct iaq q = { .c = &c, .s = &s, .fd = -1 };

	s.capacity = 1024;
	s.warn_at = s.crit_at = UINT64_MAX;
	compare("native", &q, n);
	return 0;
}

static int bench_loop(uint64_t n)
{
	struct iaq *q = iaq_open("strace", 1024);

	if (!q)
		return 1;
	run_lib(q, n);
	iaq_close(q);
	return 0;
}

static int bench_dump(unsigned int n)
{
	struct rlimit rl = { n + 64, n + 64 };
	ia_quota_t *out = calloc(n + 1, sizeof(*out));
	struct iaq **q = calloc(n, sizeof(*q));
	double t[5];
	uint64_t t0;
	struct ia_nl nl;
	unsigned int i;
	int got = 0;

	if (!out || !q || setrlimit(RLIMIT_NOFILE, &rl) || ia_nl_open(&nl)) {
		perror("qpair_bench dump");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		q[i] = iaq_open("dump", 512);
		if (!q[i]) {
			fprintf(stderr, "qpair_bench: object %u: %s\n", i, iaq_strerror(errno));
			return 1;
		}
		iaq_acquire(q[i], i % 512);
	}
	printf("create    %u objects in %.1f ms (%.1f us each)\n", n,
	       (double)(now_ns() - t0) / 1e6, (double)(now_ns() - t0) / 1e3 / n);
	for (i = 0; i < 5; i++) {
		t0 = now_ns();
		got = ia_dump_quotas(&nl, IOMMU_ACCOUNT_QUOTA_KIND_QPAIR, -1, -1, out, (int)n + 1);
		t[i] = (double)(now_ns() - t0);
		ia_nl_free_n(out, got);
	}
	qsort(t, 5, sizeof(double), cmp_d);
	printf("dump      %d objects: %.1f ms per dump (%.1f-%.1f), %.2f us per object\n", got,
	       t[2] / 1e6, t[0] / 1e6, t[4] / 1e6, t[2] / 1e3 / (got > 0 ? got : 1));
	for (i = 0; i < n; i++)
		iaq_close(q[i]);
	ia_nl_close(&nl);
	return got == (int)n ? 0 : 1;
}

/*
 * A bursty, legitimate publisher: a qpair of @cap descriptors filled one at
 * a time and drained, over and over, for @secs seconds. Every round crosses
 * warn and crit and re-arms both. Prints the id, the rounds, the NOTIFY
 * calls and their rate.
 */
static int bench_burst(unsigned int secs, uint64_t cap)
{
	struct iaq *q = iaq_open("burst", cap);
	uint64_t t0 = now_ns(), rounds = 0, i, ns;
	struct iaq_counters c0, c1;

	if (!q) {
		fprintf(stderr, "qpair_bench: %s\n", iaq_strerror(errno));
		return 1;
	}
	iaq_read(q, &c0);
	do {
		for (i = 0; i < cap; i++)
			iaq_acquire(q, 1);
		for (i = 0; i < cap; i++)
			iaq_release(q, 1);
		rounds++;
	} while (now_ns() - t0 < secs * 1000000000ULL);
	ns = now_ns() - t0;
	iaq_read(q, &c1);
	printf("burst id %u rounds %llu notifies %llu per_s %.0f\n", iaq_id(q),
	       (unsigned long long)rounds, (unsigned long long)(c1.notifies - c0.notifies),
	       (double)(c1.notifies - c0.notifies) * 1e9 / (double)ns);
	fflush(stdout);
	/* Held until stdin closes: the listener gets the last coalesced events first. */
	while (getchar() != EOF)
		;
	iaq_close(q);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;

	if (argc == 3 && !strcmp(argv[1], "ops") && n)
		return bench_ops(n);
	if (argc == 3 && !strcmp(argv[1], "native") && n)
		return bench_native(n);
	if (argc == 3 && !strcmp(argv[1], "loop") && n)
		return bench_loop(n);
	if (argc == 3 && !strcmp(argv[1], "dump") && n)
		return bench_dump((unsigned int)n);
	if (argc == 4 && !strcmp(argv[1], "burst") && n && strtoull(argv[3], NULL, 10))
		return bench_burst((unsigned int)n, strtoull(argv[3], NULL, 10));
	fprintf(stderr, "usage: qpair_bench ops N | native N | loop N | dump N | "
		"burst SECONDS CAPACITY\n");
	return 2;
}
