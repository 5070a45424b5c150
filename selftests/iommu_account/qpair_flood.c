// SPDX-License-Identifier: GPL-2.0
/*
 * qpair_flood N ROUNDS: exactly 2 x N x ROUNDS events, fast. N qpairs of 100
 * descriptors hold 60 each; every round sets the qpair thresholds to 500/550
 * (both levels of every object are past: raised at once, 2 events each) and
 * then to 900/950 (re-armed, no event); the defaults (800/950) at the end.
 * For the event flood test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "iommu-account.h"

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[1]) : 0, rounds = argc == 3 ? atoi(argv[2]) : 0, i;
	struct rlimit rl = { 4096, 4096 };
	struct iaq **q;
	struct ia_nl nl;

	if (n < 1 || rounds < 1) {
		fprintf(stderr, "usage: qpair_flood N ROUNDS\n");
		return 2;
	}
	q = calloc(n, sizeof(*q));
	if (!q || setrlimit(RLIMIT_NOFILE, &rl) || ia_nl_open(&nl)) {
		perror("qpair_flood");
		return 1;
	}
	if (ia_set_qpair_thresholds(&nl, 800, 950, 50))
		return 1;
	for (i = 0; i < n; i++) {
		q[i] = iaq_open("flood", 100);
		if (!q[i]) {
			fprintf(stderr, "qpair_flood: %s\n", iaq_strerror(errno));
			return 1;
		}
		iaq_acquire(q[i], 60);
	}
	for (i = 0; i < rounds; i++)
		if (ia_set_qpair_thresholds(&nl, 500, 550, 50) ||
		    ia_set_qpair_thresholds(&nl, 900, 950, 50))
			return 1;
	if (ia_set_qpair_thresholds(&nl, 800, 950, 50))
		return 1;
	printf("raised %d\n", 2 * n * rounds);
	for (i = 0; i < n; i++)
		iaq_close(q[i]);
	return 0;
}
