// SPDX-License-Identifier: GPL-2.0
/*
 * alert_bench latency ROUNDS UID0 SOCKET: how long from the moment a uid's
 * pot crosses the warn level (the io_uring_register that crosses it) to
 * iommu-accountd's WARNING reaching its log sink. Stands at SOCKET (where
 * journald listens; the daemon runs with log = journal) and times each
 * datagram. Each round: a new process of uid UID0+r with RLIMIT_MEMLOCK
 * 1 MiB registers 704 KiB (69 %), waits 1.5 s (the daemon has sampled it),
 * then 224 KiB more (91 %: above warn 80 %, below crit 95 %). Prints per
 * round the latency, then median, p99 and max (CLOCK_REALTIME, ms).
 *
 * alert_bench uids N UID0: N processes, one per uid UID0..UID0+N-1, that
 * stay until stdin closes (the daemon's footprint with N tracked uids).
 *
 * alert_bench holders N PER UID0 CGROUP: N uids UID0..UID0+N-1 with PER
 * processes each, every process in a cgroup of its own below CGROUP (a
 * cgroup v2 directory, made and removed here) and holding one 4 KiB
 * io_uring buffer of its uid's pot; prints "holders N PER ready R refused
 * F failed X" (F: registrations the kernel refused; X: holders that could
 * not be made or set up otherwise) and stays until stdin closes
 * (the exporter's cardinality: uids, their cgroups and processes).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ia_uring.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int latency(int rounds, int uid0, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 16];
	double *lat = calloc(rounds, sizeof(*lat)), t0, end;
	char want[64];
	int fd, r, n = 0, missing = 0;
	struct agent a;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (!lat || fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("alert_bench");
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		if (agent_start(&a, uid0 + r, 1 << 20) || agent_register(&a, 704 << 10)) {
			fprintf(stderr, "alert_bench: round %d: cannot charge 704 KiB\n", r);
			return 1;
		}
		usleep(1500000);
		while (recv(fd, buf, sizeof(buf), 0) > 0)
			;	/* what came before the crossing */
		snprintf(want, sizeof(want), "MESSAGE=WARNING uid-pot %d:", uid0 + r);
		t0 = now_ms();
		if (agent_register(&a, 224 << 10)) {
			fprintf(stderr, "alert_bench: round %d: 224 KiB more refused\n", r);
			return 1;
		}
		for (end = t0 + 5000; now_ms() < end;) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t len;

			if (poll(&p, 1, 100) <= 0)
				continue;
			len = recv(fd, buf, sizeof(buf) - 1, 0);
			if (len <= 0)
				continue;
			buf[len] = 0;
			if (strstr(buf, want)) {
				lat[n++] = now_ms() - t0;
				printf("round %d: %.2f ms\n", r, lat[n - 1]);
				break;
			}
		}
		if (now_ms() >= end) {
			missing++;
			printf("round %d: no WARNING within 5 s\n", r);
		}
		agent_stop(&a);
	}
	qsort(lat, n, sizeof(*lat), cmp);
	if (n)
		printf("latency rounds %d median %.2f p99 %.2f max %.2f missing %d\n", n,
		       lat[(n - 1) / 2], lat[(int)((n - 1) * 0.99 + 0.5)], lat[n - 1], missing);
	else
		printf("latency rounds 0 missing %d\n", missing);
	unlink(path);
	return missing ? 1 : 0;
}

/*
 * What was printed goes out; then, once stdin closes, the @n children in
 * @pids (0 or less: never forked; @pids NULL: none known) are killed and
 * every child is reaped.
 */
static void release_at_eof(const pid_t *pids, int n)
{
	char c;
	int i;

	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	for (i = 0; i < n && pids; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
}

static int uids(int n, int uid0)
{
	pid_t *pids = calloc(n, sizeof(*pids));
	int i;

	for (i = 0; i < n && pids; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			if (setresgid(uid0 + i, uid0 + i, uid0 + i) ||
			    setresuid(uid0 + i, uid0 + i, uid0 + i))
				_exit(1);
			pause();
			_exit(0);
		}
	}
	printf("uids %d ready\n", i);
	release_at_eof(pids, n);
	return 0;
}

/* One holder: into cgroup @dir, then uid @uid, one 4 KiB buffer registered. */
static char hold_one(const char *dir, uid_t uid)
{
	struct rlimit rl = { 1 << 20, 1 << 20 };
	char path[600];
	int fd, ring;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "0", 1) != 1)
		return 'c';
	close(fd);
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return 'u';
	ring = ring_setup(4);
	if (ring < 0 || ring_sparse_buffers(ring, 1) || ring_set_buffer(ring, 0, 4096))
		return 'r';
	return 'y';
}

static int holders(int n, int per, int uid0, const char *root)
{
	int total = n * per, i, ready = 0, refused = 0, other = 0, p[2];
	pid_t *pids = calloc(total, sizeof(*pids));
	char dir[512], c;

	if (!pids || total <= 0 || pipe(p) || (mkdir(root, 0755) && errno != EEXIST)) {
		perror("alert_bench holders");
		return 1;
	}
	for (i = 0; i < total; i++) {
		snprintf(dir, sizeof(dir), "%s/h%d", root, i);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			perror(dir);
			break;
		}
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			break;
		}
		if (!pids[i]) {
			close(p[0]);
			c = hold_one(dir, uid0 + i / per);
			if (write(p[1], &c, 1) != 1)
				_exit(2);
			close(p[1]);
			pause();
			_exit(0);
		}
	}
	close(p[1]);
	while (read(p[0], &c, 1) == 1) {
		if (c == 'y')
			ready++;
		else if (c == 'r')
			refused++;
		else
			other++;
		if (ready + refused + other == i)
			break;
	}
	printf("holders %d %d ready %d refused %d failed %d\n", n, per, ready, refused,
	       other + total - i);
	release_at_eof(pids, total);
	for (i = 0; i < total; i++) {
		snprintf(dir, sizeof(dir), "%s/h%d", root, i);
		rmdir(dir);
	}
	rmdir(root);
	return ready == total ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "latency"))
		return latency(atoi(argv[2]), atoi(argv[3]), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "uids"))
		return uids(atoi(argv[2]), atoi(argv[3]));
	if (argc == 6 && !strcmp(argv[1], "holders"))
		return holders(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
	fprintf(stderr, "usage: alert_bench latency ROUNDS UID0 SOCKET | uids N UID0 |"
		" holders N PER UID0 CGROUP\n");
	return 2;
}
