// SPDX-License-Identifier: GPL-2.0
/*
 * pot_demo: what `make demo` shows. Two processes ("containers") of uid 2000
 * with RLIMIT_MEMLOCK = 8 MiB register io_uring buffers; the shared per-uid
 * pot fills, the kernel refuses with ENOMEM while memory is plentiful.
 * iommu-accountctl shows every step, then who holds the pot and why it
 * refused (procs, explain).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ia_uring.h"

#define MiB (1024UL * 1024)

static void show(const char *what)
{
	printf("\n### %s\n$ iommu-accountctl uids\n", what);
	fflush(stdout);
	if (system("iommu-accountctl uids"))
		printf("(iommu-accountctl failed)\n");
	fflush(stdout);
}

static long mem_free_mib(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb / 1024;
}

int main(void)
{
	struct agent a, b;
	int i, ret, got = 0;

	if (agent_start(&a, 2000, 8 * MiB) || agent_start(&b, 2000, 8 * MiB)) {
		fprintf(stderr, "pot_demo: cannot start the workload processes\n");
		return 1;
	}
	show("two processes of uid 2000, RLIMIT_MEMLOCK 8 MiB each, nothing registered");

	/* A buffer every 0.3 s: slow enough for iommu-accountd's trend to show. */
	for (i = 0; i < 5; i++) {
		if (agent_register(&a, MiB))
			break;
		usleep(300000);
	}
	show("process 1 registered 5 x 1 MiB io_uring buffers");

	for (;;) {
		ret = agent_register(&b, MiB);
		if (ret)
			break;
		got++;
		usleep(300000);
	}
	printf("\nprocess 2: %d x 1 MiB registered, then io_uring_register: %s "
	       "(%s), with %ld MiB of memory available\n", got, strerror(-ret),
	       ret == -ENOMEM ? "ENOMEM" : "?", mem_free_mib());
	show("the pot is full: process 2 was refused although it holds only its own share");
	printf("\n$ iommu-accountctl procs --uid 2000\n");
	fflush(stdout);
	if (system("iommu-accountctl procs --uid 2000"))
		printf("(iommu-accountctl failed)\n");
	/* What iommu-accountd says of it, when the demo runs one. */
	printf("\n$ iommu-accountctl alerts\n");
	fflush(stdout);
	if (system("iommu-accountctl alerts 2>&1"))
		printf("(no iommu-accountd)\n");
	printf("\n$ iommu-accountctl explain uid 2000\n");
	fflush(stdout);
	if (system("iommu-accountctl explain uid 2000"))
		printf("(iommu-accountctl failed)\n");
	fflush(stdout);
	agent_stop(&a);
	agent_stop(&b);
	return ret == -ENOMEM ? 0 : 1;
}
