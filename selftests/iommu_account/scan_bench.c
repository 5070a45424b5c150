// SPDX-License-Identifier: GPL-2.0
/*
 * scan_bench: what a query costs against what a user would otherwise run.
 *
 *   scan_bench procs N UIDS REPS
 *       fork N idle processes spread over UIDS uids (60000..), then time, REPS
 *       times each and alternating: one GET_UID dump of iommu_account, and a
 *       scan of /proc that reads every /proc/PID/status and /proc/PID/limits
 *       (Uid, VmLck, VmPin, Max locked memory: the closest a user gets to the
 *       per-uid pot without the module). Both must see all N processes and
 *       UIDS uids, or nothing is printed. Prints the medians:
 *       "procs N uids U dump_ns X scan_ns Y ratio R dump_per_proc_ns P"
 *   scan_bench containers REPS
 *       open a container with one 4 KiB mapping on every edu group, then time
 *       REPS GET_CONTAINER dumps; prints "containers N dump_ns X per_container_ns P"
 *   scan_bench mdev-containers N REPS
 *       the same with N containers, each on an ia_mdev mediated device of
 *       its own (selftests/iommu_account/kmod/ia_mdev.ko in /opt/ia)
 *
 * Needs root (setuid, vfio). Exit 1 with a message when a check fails.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ia_nl.h"
#include "ia_vfio.h"

#define UID_BASE 60000

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long median(long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ll);
	return v[n / 2];
}

static pid_t *farm;
static int nfarm;

static void farm_stop(void)
{
	int i;

	for (i = 0; i < nfarm; i++)
		kill(farm[i], SIGKILL);
	for (i = 0; i < nfarm; i++)
		waitpid(farm[i], NULL, 0);
	nfarm = 0;
}

/* N children, child i as uid UID_BASE + i % uids, each idle until killed. */
static int farm_start(int n, int uids)
{
	int p[2], i, got = 0;
	char buf[256];

	farm = calloc(n, sizeof(*farm));
	if (!farm || pipe(p))
		return -1;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "scan_bench: fork %d: %s\n", i, strerror(errno));
			farm_stop();
			return -1;
		}
		if (!pid) {
			uid_t u = UID_BASE + i % uids;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(p[0]);
			if (setgid(u) || setuid(u))
				_exit(1);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
			close(p[1]);
			for (;;)
				pause();
		}
		farm[nfarm++] = pid;
	}
	close(p[1]);
	while (got < n) {
		ssize_t r = read(p[0], buf, sizeof(buf));

		if (r <= 0)
			break;
		got += r;
	}
	close(p[0]);
	if (got < n) {
		fprintf(stderr, "scan_bench: %d of %d processes started\n", got, n);
		farm_stop();
		return -1;
	}
	return 0;
}

/* One uids dump; the number of our uids and of their tasks. */
static int dump_uids(struct ia_nl *s, ia_uid_t *out, int max, int *ours, long *tasks)
{
	int n = ia_dump_uids(s, out, max), i;

	*ours = 0;
	*tasks = 0;
	for (i = 0; i < n; i++) {
		if (out[i].uid < UID_BASE || out[i].uid >= UID_BASE + 100000)
			continue;
		(*ours)++;
		*tasks += out[i].tasks;
	}
	ia_nl_free_n(out, n);
	return n;
}

struct scan_uid {
	unsigned long long lck_kb, pin_kb, procs;
	char memlock[32];
};

static char *read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/*
 * What a user without the module runs: every process's status and limits,
 * summed by uid. Returns the processes of our uids found.
 */
static long scan_proc(struct scan_uid *by, int uids)
{
	char path[300], status[4096], limits[4096];
	struct dirent *e;
	long found = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return -1;
	memset(by, 0, uids * sizeof(*by));
	while ((e = readdir(d))) {
		unsigned long long lck = 0, pin = 0;
		unsigned int uid = ~0u;
		char *l;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		if (!read_file(path, status, sizeof(status)))
			continue;	/* gone meanwhile */
		snprintf(path, sizeof(path), "/proc/%s/limits", e->d_name);
		if (!read_file(path, limits, sizeof(limits)))
			continue;
		l = strstr(status, "\nUid:");
		if (l)
			sscanf(l + 5, "%u", &uid);
		l = strstr(status, "\nVmLck:");
		if (l)
			sscanf(l + 7, "%llu", &lck);
		l = strstr(status, "\nVmPin:");
		if (l)
			sscanf(l + 7, "%llu", &pin);
		if (uid < UID_BASE || uid >= UID_BASE + (unsigned int)uids)
			continue;
		by[uid - UID_BASE].lck_kb += lck;
		by[uid - UID_BASE].pin_kb += pin;
		by[uid - UID_BASE].procs++;
		l = strstr(limits, "Max locked memory");
		if (l)
			sscanf(l + 17, "%31s", by[uid - UID_BASE].memlock);
		found++;
	}
	closedir(d);
	return found;
}

static int procs(int n, int uids, int reps)
{
	long long *td = calloc(reps, sizeof(*td)), *ts = calloc(reps, sizeof(*ts));
	struct scan_uid *by = calloc(uids, sizeof(*by));
	int max = uids + 4096, ours, r;
	ia_uid_t *out = calloc(max, sizeof(*out));
	struct ia_nl s;
	long tasks, found;
	long long t0, d, sc;

	if (!td || !ts || !by || !out || ia_nl_open(&s)) {
		fprintf(stderr, "scan_bench: setup failed (is iommu_account loaded?)\n");
		return 1;
	}
	if (farm_start(n, uids))
		return 1;
	for (r = 0; r < reps; r++) {
		t0 = now_ns();
		dump_uids(&s, out, max, &ours, &tasks);
		td[r] = now_ns() - t0;
		if (ours != uids || tasks != n) {
			fprintf(stderr, "scan_bench: the dump saw %d uids and %ld tasks of %d and %d\n",
				ours, tasks, uids, n);
			farm_stop();
			return 1;
		}
		t0 = now_ns();
		found = scan_proc(by, uids);
		ts[r] = now_ns() - t0;
		if (found != n) {
			fprintf(stderr, "scan_bench: the /proc scan found %ld of %d processes\n",
				found, n);
			farm_stop();
			return 1;
		}
	}
	farm_stop();
	d = median(td, reps);
	sc = median(ts, reps);
	printf("procs %d uids %d dump_ns %lld scan_ns %lld ratio %.1f dump_per_proc_ns %lld\n",
	       n, uids, d, sc, (double)sc / d, d / n);
	ia_nl_close(&s);
	return 0;
}

/*
 * @reps GET_CONTAINER dumps with the @n containers of @c live (each must be
 * listed), the median printed; the containers are closed after.
 */
static int dump_timed(struct ia_nl *s, struct vfio_ctr *c, int n, int reps,
		      ia_container_t *out, int max)
{
	long long *t = calloc(reps, sizeof(*t)), t0, d;
	int i, r, got, ret = 0;

	for (r = 0; t && r < reps; r++) {
		t0 = now_ns();
		got = ia_dump_containers(s, out, max);
		t[r] = now_ns() - t0;
		ia_nl_free_n(out, got);
		if (got < n) {
			fprintf(stderr, "scan_bench: the dump listed %d of %d containers\n", got, n);
			ret = 1;
			break;
		}
	}
	if (!t) {
		ret = 1;
	} else if (!ret) {
		d = median(t, reps);
		printf("containers %d dump_ns %lld per_container_ns %lld\n", n, d, d / n);
	}
	for (i = 0; i < n; i++)
		vfio_ctr_close(&c[i]);
	free(t);
	return ret;
}

static int containers(int reps)
{
	int groups[64], n, i, ret;
	struct vfio_ctr c[64];
	ia_container_t *out = calloc(4096, sizeof(*out));
	struct ia_nl s;

	n = vfio_edu_groups(groups, 64);
	if (n < 1 || !out || ia_nl_open(&s)) {
		fprintf(stderr, "scan_bench: no edu groups or no iommu_account\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (vfio_ctr_open(&c[i], groups[i]) || vfio_map(&c[i], 0x100000, 4096)) {
			fprintf(stderr, "scan_bench: container on group %d failed\n", groups[i]);
			return 1;
		}
	}
	ret = dump_timed(&s, c, n, reps, out, 4096);
	ia_nl_close(&s);
	return ret;
}

/*
 * @n containers, each on a mediated device of its own (ia_mdev) with one
 * mapping: the dump's cost at the scale of a host running many VMs.
 */
static int mdev_containers(int n, int reps)
{
	ia_container_t *out = calloc(n + 64, sizeof(*out));
	struct vfio_ctr *c = calloc(n, sizeof(*c));
	int *groups = calloc(n, sizeof(*groups));
	struct rlimit rl = { 2 * n + 256, 2 * n + 256 };
	char why[256];
	struct ia_nl s;
	int i, ret;

	if (!out || !c || !groups || setrlimit(RLIMIT_NOFILE, &rl) || ia_nl_open(&s)) {
		fprintf(stderr, "scan_bench: no memory, no file descriptors or no iommu_account\n");
		return 1;
	}
	if (vfio_mdev_groups(groups, n, why, sizeof(why)) != n) {
		fprintf(stderr, "scan_bench: %s\n", why);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (vfio_ctr_open_buf(&c[i], groups[i], 4096) || vfio_map(&c[i], 0x100000, 4096)) {
			fprintf(stderr, "scan_bench: container %d on group %d failed\n", i, groups[i]);
			return 1;
		}
	}
	ret = dump_timed(&s, c, n, reps, out, n + 64);
	vfio_mdev_cleanup();
	ia_nl_close(&s);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "procs"))
		return procs(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "containers"))
		return containers(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "mdev-containers")) {
		if (atoi(argv[2]) < 1) {
			fprintf(stderr, "scan_bench: mdev-containers takes N of 1 or more, not '%s'\n",
				argv[2]);
			return 2;
		}
		return mdev_containers(atoi(argv[2]), atoi(argv[3]));
	}
	fprintf(stderr, "usage: scan_bench procs N UIDS REPS | containers REPS | mdev-containers N REPS\n");
	return 2;
}
