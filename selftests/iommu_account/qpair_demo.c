// SPDX-License-Identifier: GPL-2.0
/*
 * qpair_demo [--defer] [--pause]: the report's reproduction, publishing through
 * libiommu-account: two qpairs of 512 descriptors (simulated: there is no
 * NVMe device here), 1,024 submissions to each per round without polling,
 * four rounds. Without --defer a refused submission fails to its caller;
 * with it, it waits in a FIFO and is resubmitted after completions.
 * Prints what the application saw per round; `iommu-accountctl quotas`
 * and `events` show what the module saw. --pause: after the first round's
 * submissions, print "paused" and wait for a line on stdin (so a monitor can
 * look at the full qpairs).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "iommu-account.h"
#include "qpair_model.h"

int main(int argc, char **argv)
{
	bool defer = false, pause = false;
	char line[8];
	struct qp_model m[2];
	uint64_t rej0 = 0, def0 = 0;
	int r, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--defer")) {
			defer = true;
		} else if (!strcmp(argv[i], "--pause")) {
			pause = true;
		} else {
			fprintf(stderr, "usage: qpair_demo [--defer] [--pause]\n");
			return 2;
		}
	}
	for (i = 0; i < 2; i++) {
		char name[32];
		struct iaq *q;

		snprintf(name, sizeof(name), "%s-qp%d", defer ? "deferring" : "failing", i);
		q = iaq_open(name, 512);
		if (!q) {
			fprintf(stderr, "qpair_demo: %s\n", iaq_strerror(errno));
			return 1;
		}
		if (qp_init(&m[i], q, 512, defer, 4096))
			return 1;
	}
	for (r = 1; r <= 4; r++) {
		uint64_t rej = 0, def = 0;

		for (i = 0; i < 2; i++)
			qp_burst(&m[i], 1024);
		if (pause && r == 1) {
			printf("paused\n");
			fflush(stdout);
			if (!fgets(line, sizeof(line), stdin))
				return 1;
		}
		for (i = 0; i < 2; i++) {
			rej += m[i].rejected;
			def += m[i].deferred;
			qp_drain(&m[i]);
		}
		printf("round %d: 2048 submitted, %llu rejected (ENOMEM), %llu deferred\n", r,
		       (unsigned long long)(rej - rej0), (unsigned long long)(def - def0));
		rej0 = rej;
		def0 = def;
	}
	for (i = 0; i < 2; i++) {
		printf("%s: %u operations, %llu completed, %llu rejected, %llu completed twice\n",
		       i ? "qp1" : "qp0", m[i].nops, (unsigned long long)m[i].completed,
		       (unsigned long long)m[i].rejected, (unsigned long long)m[i].twice);
		iaq_close(m[i].q);
		qp_fini(&m[i]);
	}
	return 0;
}
