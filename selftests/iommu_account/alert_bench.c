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
 *
 * alert_bench scale N PER BUFS UID0: N uids UID0..UID0+N-1 with PER
 * processes each, every process holding BUFS one-page io_uring buffers of
 * its uid's pot on a ring of its own: N*PER processes and N*PER*BUFS live
 * charge records (the daemon at scale: 10,000 uids, 100,000 processes,
 * 1,000,000 records). The processes share this one's memory
 * (clone(CLONE_VM): real processes, each its own pid, credentials and
 * ring) and the same BUFS pages: io_uring charges a page once per ring, so
 * every ring charges them anew, and a process costs its kernel objects,
 * its ring and one page of stack, not a copy of an address space. Prints
 * "scale N PER BUFS ready R refused F failed X" as holders does and stays
 * until stdin closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/io_uring.h>

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

/* What the holders said: 'y' ready, 'r' refused by the kernel, else failed. */
struct tally {
	long ready, refused, other;
};

/* One more holder's byte: how many have said. */
static long tally_add(struct tally *t, char c)
{
	if (c == 'y')
		t->ready++;
	else if (c == 'r')
		t->refused++;
	else
		t->other++;
	return t->ready + t->refused + t->other;
}

/* "... ready R refused F failed X": X, the failed and the @total - @made never made. */
static void tally_print(const struct tally *t, long made, long total)
{
	printf(" ready %ld refused %ld failed %ld\n", t->ready, t->refused,
	       t->other + total - made);
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
	int total = n * per, i, p[2];
	struct tally t = { 0 };
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
	while (read(p[0], &c, 1) == 1)
		if (tally_add(&t, c) == i)
			break;
	printf("holders %d %d", n, per);
	tally_print(&t, i, total);
	release_at_eof(pids, total);
	for (i = 0; i < total; i++) {
		snprintf(dir, sizeof(dir), "%s/h%d", root, i);
		rmdir(dir);
	}
	rmdir(root);
	return t.ready == total ? 0 : 1;
}

/* One process of scale(): what it is told, where it says how it went. */
struct scale_one {
	uid_t uid;
	int bufs, wfd;
	struct iovec *iov;
};

#define SCALE_STACK 16384
#define SCALE_MAX_BUFS 1024

/*
 * In a process that shares its parent's memory and thread pointer: raw
 * system calls only (glibc's setresuid would signal the parent's threads);
 * the parent waits for its byte before it makes the next one, so the
 * errno they share is never written by two at once.
 */
static int scale_child(void *arg)
{
	const struct scale_one *a = arg;
	char c = 'y';
	long ring;

	if (syscall(SYS_setresgid, a->uid, a->uid, a->uid) ||
	    syscall(SYS_setresuid, a->uid, a->uid, a->uid)) {
		c = 'u';
	} else {
		ring = ring_setup(1);
		if (ring < 0 || syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS,
					a->iov, a->bufs) < 0)
			c = 'r';
	}
	if (write(a->wfd, &c, 1) != 1)
		return 2;
	for (;;)
		pause();
}

static int scale(int n, int per, int bufs, int uid0)
{
	long total = (long)n * per, i;
	struct tally t = { 0 };
	pid_t *pids = calloc(total > 0 ? total : 1, sizeof(*pids));
	struct iovec *iov = calloc(bufs > 0 ? bufs : 1, sizeof(*iov));
	char *mem, *stacks, c;
	struct scale_one one;
	int p[2], k;

	if (n <= 0 || per <= 0 || bufs <= 0 || bufs > SCALE_MAX_BUFS || !pids || !iov || pipe(p)) {
		fprintf(stderr, "alert_bench scale: N, PER > 0 and BUFS 1..%d\n", SCALE_MAX_BUFS);
		return 1;
	}
	mem = mmap(NULL, (size_t)bufs * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stacks = mmap(NULL, (size_t)total * SCALE_STACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED || stacks == MAP_FAILED) {
		perror("alert_bench scale: mmap");
		return 1;
	}
	madvise(mem, (size_t)bufs * 4096, MADV_NOHUGEPAGE);
	for (k = 0; k < bufs; k++) {
		iov[k].iov_base = mem + (size_t)k * 4096;
		iov[k].iov_len = 4096;
		mem[(size_t)k * 4096] = 1;
	}
	one = (struct scale_one){ .bufs = bufs, .wfd = p[1], .iov = iov };
	for (i = 0; i < total; i++) {
		one.uid = uid0 + i / per;
		pids[i] = clone(scale_child, stacks + (i + 1) * SCALE_STACK, CLONE_VM | SIGCHLD,
				&one);
		if (pids[i] < 0) {
			perror("alert_bench scale: clone");
			break;
		}
		if (read(p[0], &c, 1) != 1)
			c = '?';
		tally_add(&t, c);
	}
	printf("scale %d %d %d", n, per, bufs);
	tally_print(&t, i, total);
	release_at_eof(pids, total);
	return t.ready == total ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "latency"))
		return latency(atoi(argv[2]), atoi(argv[3]), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "uids"))
		return uids(atoi(argv[2]), atoi(argv[3]));
	if (argc == 6 && !strcmp(argv[1], "scale"))
		return scale(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (argc == 6 && !strcmp(argv[1], "holders"))
		return holders(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
	fprintf(stderr, "usage: alert_bench latency ROUNDS UID0 SOCKET | uids N UID0 |"
		" holders N PER UID0 CGROUP | scale N PER BUFS UID0\n");
	return 2;
}
