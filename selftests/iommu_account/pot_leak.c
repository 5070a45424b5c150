// SPDX-License-Identifier: GPL-2.0
/*
 * pot_leak UID MEMLOCK STEP DELAY_MS: a process of UID with RLIMIT_MEMLOCK
 * = MEMLOCK bytes registers one more io_uring buffer of STEP bytes every
 * DELAY_MS until the kernel refuses the charge; prints the refusal with the
 * time it came back (CLOCK_BOOTTIME, as /proc/uptime), then holds the pot
 * until stdin closes. The growing per-uid pot of the daemon's tests.
 * POT_LEAK_COMM sets the process name (prctl), hostile ones included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ia_uring.h"

int main(int argc, char **argv)
{
	struct agent a;
	struct timespec ts;
	int i, ret = 0;
	char ch;

	if (argc != 5) {
		fprintf(stderr, "usage: pot_leak UID MEMLOCK STEP DELAY_MS\n");
		return 2;
	}
	/* POT_LEAK_COMM: the name the process gives itself (any bytes). */
	if (getenv("POT_LEAK_COMM"))
		prctl(PR_SET_NAME, getenv("POT_LEAK_COMM"), 0, 0, 0);
	if (agent_start(&a, atoi(argv[1]), strtoull(argv[2], NULL, 0))) {
		fprintf(stderr, "pot_leak: cannot start the agent\n");
		return 1;
	}
	for (i = 0; i < 100000; i++) {
		ret = agent_register(&a, strtoull(argv[3], NULL, 0));
		if (ret)
			break;
		usleep(atoi(argv[4]) * 1000);
	}
	clock_gettime(CLOCK_BOOTTIME, &ts);
	printf("pot_leak: buffer #%d refused: %s at boottime %ld.%03ld\n", i + 1,
	       strerror(-ret), (long)ts.tv_sec, ts.tv_nsec / 1000000);
	fflush(stdout);
	while (read(0, &ch, 1) > 0)
		;
	agent_stop(&a);
	return 0;
}
