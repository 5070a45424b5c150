// SPDX-License-Identifier: GPL-2.0
/*
 * The module at scale, on the debug kernel (lockdep, KASAN, and
 * CONFIG_LOCK_STAT for the hold times of its locks): one uid with no
 * RLIMIT_MEMLOCK holds 131,072 one-page registered buffers (as many live
 * charge records; IA_STRESS_RECORDS changes the count), two processes, one
 * on each CPU, charge and release buffers of the same uid in a loop, and
 * meanwhile the test's threads dump GET_PROC (the uid's), GET_UID and
 * GET_QUOTA without pause (what the daemon's polls and `holders` ask).
 *
 * It fails on: a lockdep report or a WARN (the harness: panic_on_warn), a
 * soft lockup or an RCU stall (set to panic here), a count that is not the
 * kernel's (the pot against what the buffers are), and a spinlock of the
 * module held longer than IA_HOLD_BOUND_US (50 ms): a bound on a section that
 * walks what grows with the records (the walk this test was written
 * against held ia_ml_lock for seconds at 65,536 records), not a measure
 * of speed: the bounded sections it allows took at most 3.7 ms under
 * KASAN and TCG, the other vCPU's run included, and 428.6 k guest
 * instructions on one vCPU under -icount (Documentation/bench.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/io_uring.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "ia_uring.h"
#include "ia_vfio.h"

#define UID 42081
#define CHARGERS 2
#define ROUNDS 300		/* of each charger: register 16 buffers, unregister */
/*
 * The longest hold of one of the module's spinlocks allowed, in
 * microseconds. Measured 5,696 us on the debug kernel under TCG
 * (2026-12-07): a hold there includes the other vCPU's run whenever TCG,
 * which runs both on one host thread, switches to it mid-section (at the
 * other's next exit, a timer tick or I/O: a few ms). A walk of the 131,072
 * records would hold it for seconds.
 */
#define IA_HOLD_BOUND_US 50000.0

static int records(void)
{
	const char *e = getenv("IA_STRESS_RECORDS");
	long n = e ? strtol(e, NULL, 10) : 131072;

	return n > 0 && n <= 1 << 22 ? (int)n : 131072;
}

/* A charger on CPU @cpu: ROUNDS x (16 buffers registered, unregistered); 0 or the errno. */
static pid_t charger(int cpu)
{
	pid_t pid = fork();
	struct iovec iov[16];
	cpu_set_t set;
	int r, k, ring;
	char *mem;

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* one CPU has none: both share it */
	mem = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || become_user(UID, RLIM_INFINITY))
		_exit(100);
	for (k = 0; k < 16; k++) {
		iov[k].iov_base = mem + k * 4096;
		iov[k].iov_len = 4096;
		mem[k * 4096] = 1;
	}
	ring = ring_setup(8);
	if (ring < 0)
		_exit(101);
	for (r = 0; r < ROUNDS; r++) {
		if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, iov, 16) < 0)
			_exit(errno);
		if (syscall(__NR_io_uring_register, ring, IORING_UNREGISTER_BUFFERS, NULL, 0) < 0)
			_exit(errno);
	}
	_exit(0);
}

struct dumper {
	volatile int stop;
	int what;		/* 0 procs of UID, 1 uids, 2 quotas */
	long dumps, errors;
};

static void *dump_fn(void *arg)
{
	struct dumper *d = arg;
	ia_uid_t *u = calloc(4096, sizeof(*u));
	ia_proc_t *p = calloc(256, sizeof(*p));
	ia_quota_t *q = calloc(4096, sizeof(*q));
	struct ia_nl nl;
	int n;

	if (!u || !p || !q || ia_nl_open(&nl)) {
		d->errors++;
		goto out;
	}
	while (!d->stop) {
		if (d->what == 0) {
			n = ia_dump_procs(&nl, true, UID, p, 256);
			ia_nl_free_n(p, n);
		} else if (d->what == 1) {
			n = ia_dump_uids(&nl, u, 4096);
			ia_nl_free_n(u, n);
		} else {
			n = ia_dump_quotas(&nl, -1, -1, -1, q, 4096);
			ia_nl_free_n(q, n);
		}
		if (n < 0)
			d->errors++;
		else
			d->dumps++;
	}
	ia_nl_close(&nl);
out:
	free(u);
	free(p);
	free(q);
	return NULL;
}

/*
 * The module's spinlocks (taken with interrupts off; its mutexes may sleep
 * and are not bounded here), as lockdep names their classes.
 */
static const char *const ia_spinlocks[] = {
	"ia_ml_part:", "ia_ml_recs:", "ia_ml_holders:", "ia_ml_rings:", "ia_ml_list_lock:",
	"ia_ml_pend_lock:", "ia_ml_thr_lock:", "ia_ml_cg_lock:", "ia_calls:", "ia_fd_lock:",
	"ia_evq_lock:", "ia_vfio_lock:", "ia_feat_lock:", "ia_fd_dev_lock:",
};

static bool ia_spinlock(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(ia_spinlocks) / sizeof(ia_spinlocks[0]); i++)
		if (!strcmp(name, ia_spinlocks[i]))
			return true;
	return false;
}

/* The longest hold (µs) of the module's spinlocks in /proc/lock_stat, -1 if none is listed. */
static double module_hold_max(char *worst, size_t len)
{
	FILE *f = fopen("/proc/lock_stat", "r");
	char line[1024], name[256];
	double v[12], max = -1;
	int col = -1;

	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		char *at = strstr(line, "holdtime-max");

		if (at && col < 0) {
			/* Columns after the class name: count the headers before it. */
			char *h = strstr(line, "class name");
			int k = 0;

			for (h = h ? h + strlen("class name") : line; h < at; h++)
				if (h[0] != ' ' && (h[-1] == ' '))
					k++;
			col = k;
			continue;
		}
		if (col < 0 || sscanf(line, " %255s %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
				      name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
				      &v[7], &v[8], &v[9], &v[10], &v[11]) != 13)
			continue;
		if (!ia_spinlock(name))
			continue;
		if (col < 12 && v[col] > max) {
			max = v[col];
			snprintf(worst, len, "%s", name);
		}
	}
	fclose(f);
	return max;
}

FIXTURE(stress) {
	struct ia_nl nl;
};

FIXTURE_SETUP(stress)
{
	ASSERT_EQ(0, ia_nl_open(&self->nl));
}

FIXTURE_TEARDOWN(stress)
{
	ia_nl_close(&self->nl);
}

TEST_F_TIMEOUT(stress, charges_and_dumps_at_128k_records, 1500)
{
	const int nbuf = records();
	struct dumper dump[3] = { { .what = 0 }, { .what = 1 }, { .what = 2 } };
	int i, st;
	pthread_t th[3];
	pid_t c[CHARGERS];
	struct agent h;
	ia_uid_t u = {};
	char worst[256] = "";
	double hold_us;
	int64_t base;

	/* A soft lockup or an RCU stall is a failure: the kernel panics, the harness says so. */
	ASSERT_EQ(0, write_file("/proc/sys/kernel/softlockup_panic", "1"));
	if (access("/proc/sys/kernel/panic_on_rcu_stall", F_OK) == 0)
		ASSERT_EQ(0, write_file("/proc/sys/kernel/panic_on_rcu_stall", "1"));
	ASSERT_EQ(0, access("/proc/lock_stat", F_OK))
		TH_LOG("no /proc/lock_stat: the hold times need CONFIG_LOCK_STAT (the debug kernel)");
	ASSERT_EQ(0, write_file("/proc/sys/kernel/lock_stat", "1"));

	base = ia_locked(&self->nl, UID);
	if (base < 0)
		base = 0;
	ASSERT_EQ(0, agent_hold_pages(&h, UID, nbuf)) TH_LOG("registering %d buffers", nbuf);
	TH_LOG("%d buffers held by uid %d", nbuf, UID);

	/* From here the hold times count: the charges, releases and dumps at scale. */
	ASSERT_EQ(0, write_file("/proc/lock_stat", "0"));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, dump_fn, &dump[i]));
	for (i = 0; i < CHARGERS; i++) {
		c[i] = charger(i);
		ASSERT_LT(0, c[i]);
	}
	for (i = 0; i < CHARGERS; i++) {
		ASSERT_EQ(c[i], waitpid(c[i], &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
			TH_LOG("charger %d: status %#x (the exit code is the errno)", i, st);
	}
	for (i = 0; i < 3; i++) {
		dump[i].stop = 1;
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, dump[i].errors);
		EXPECT_LT(0, dump[i].dumps);
	}
	TH_LOG("%d x %d rounds of 16 buffers; dumps: %ld procs, %ld uids, %ld quotas",
	       CHARGERS, ROUNDS, dump[0].dumps, dump[1].dumps, dump[2].dumps);
	hold_us = module_hold_max(worst, sizeof(worst));

	/* The kernel's count: the held buffers' pages, every one attributed. */
	ASSERT_EQ(0, ia_get_uid(&self->nl, UID, &u));
	EXPECT_EQ(base + (int64_t)nbuf * 4096, (int64_t)u.locked_bytes);
	EXPECT_EQ((uint64_t)nbuf * 4096, IA_CONSUMER(&u, IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS));
	EXPECT_EQ(0, u.unattributed_bytes);
	EXPECT_EQ(0, u.inexact);
	ia_nl_free(&u);

	TH_LOG("longest hold of the module's locks: %.2f us (%s)", hold_us, worst);
	EXPECT_LE(0, hold_us) TH_LOG("no lock class of the module in /proc/lock_stat");
	EXPECT_GT(IA_HOLD_BOUND_US, hold_us);

	agent_stop(&h);
	/* The rings' teardown is deferred: the pot drains (bounded wait). */
	for (i = 0; i < 600 * ia_timeout_scale() && ia_locked(&self->nl, UID) > base; i++)
		usleep(100000);
	EXPECT_GE(base, ia_locked(&self->nl, UID));
	write_file("/proc/sys/kernel/lock_stat", "0");
}

IA_HARNESS_MAIN
