// SPDX-License-Identifier: GPL-2.0
/*
 * nstime CMD [ARGS...]: run CMD, its output to /dev/null, and print
 * "NS STATUS": its wall time in ns (CLOCK_MONOTONIC; under -icount, guest
 * instructions) and its exit status. For the benches (busybox's date has
 * no %N).
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long t0;
	pid_t pid;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: nstime CMD [ARGS...]\n");
		return 2;
	}
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	printf("%lld %d\n", now_ns() - t0, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
