// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency (issue 13, part): 16 threads mapping and unmapping on one VFIO
 * container, and 16 processes of one uid registering io_uring buffers, while
 * dumps run; at the end the module's counters equal what the kernel
 * accepted, exactly.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"
#include "ia_uring.h"
#include "ia_vfio.h"

#define NTHREADS 16
#define ROUNDS 200
#define KiB 1024ULL

static volatile int stop_dumps;

static void *dumper(void *arg)
{
	static ia_container_t c[64];
	static ia_uid_t u[512];
	struct ia_nl nl;

	(void)arg;
	if (ia_nl_open(&nl))
		return NULL;
	while (!stop_dumps) {
		int n = ia_dump_containers(&nl, c, 64);

		ia_nl_free_n(c, n);
		n = ia_dump_uids(&nl, u, 512);
		ia_nl_free_n(u, n);
	}
	ia_nl_close(&nl);
	return NULL;
}

struct mapper {
	struct vfio_ctr *c;
	int t;
	long maps, unmaps, kept;
	int err;
};

/* Thread t maps and unmaps in its own IOVA window, and keeps t + 1 mappings. */
static void *mapper(void *arg)
{
	struct mapper *m = arg;
	uint64_t base = 0x10000000ULL * (m->t + 1);
	int i, k;

	for (i = 0; i < ROUNDS; i++) {
		for (k = 0; k < 4; k++) {
			if (vfio_map(m->c, base + k * 4096, 4096)) {
				m->err = 1;
				return NULL;
			}
			m->maps++;
		}
		for (k = 0; k < 4; k++) {
			if (vfio_unmap(m->c, base + k * 4096, 4096)) {
				m->err = 2;
				return NULL;
			}
			m->unmaps++;
		}
	}
	for (k = 0; k <= m->t; k++) {
		if (vfio_map(m->c, base + k * 4096, 4096)) {
			m->err = 3;
			return NULL;
		}
		m->maps++;
		m->kept++;
	}
	return NULL;
}

TEST(vfio_16_threads_one_container_exact)
{
	struct mapper m[NTHREADS];
	pthread_t th[NTHREADS], d;
	ia_container_t ct = {};
	struct vfio_ctr c;
	int groups[4], i, n;
	long maps = 0, unmaps = 0, kept = 0;
	struct ia_nl nl;

	n = vfio_edu_groups(groups, 4);
	ASSERT_LT(0, n);
	ASSERT_EQ(0, vfio_ctr_open(&c, groups[0]));
	ASSERT_EQ(0, ia_nl_open(&nl));
	stop_dumps = 0;
	ASSERT_EQ(0, pthread_create(&d, NULL, dumper, NULL));
	for (i = 0; i < NTHREADS; i++) {
		m[i] = (struct mapper){ .c = &c, .t = i };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, mapper, &m[i]));
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, m[i].err);
		maps += m[i].maps;
		unmaps += m[i].unmaps;
		kept += m[i].kept;
	}
	stop_dumps = 1;
	pthread_join(d, NULL);
	ASSERT_EQ(0, ia_container_of_pid(&nl, getpid(), &ct));
	EXPECT_EQ(kept, ct.entries);
	EXPECT_EQ(kept * 4096, ct.mapped_bytes);
	EXPECT_EQ(maps, ct.map_ops);
	EXPECT_EQ(unmaps, ct.unmap_ops);
	EXPECT_EQ(0, ct.fail_enospc + ct.fail_enomem + ct.fail_einval + ct.fail_other);
	EXPECT_EQ(0, ct.inexact);
	TH_LOG("%ld maps, %ld unmaps by %d threads; %ld kept", maps, unmaps, NTHREADS, kept);
	ia_nl_free(&ct);
	vfio_ctr_close(&c);
	ia_nl_close(&nl);
}

struct driver {
	struct agent a;
	int t;
	long held;		/* bytes the kernel accepted and still holds */
	int err;
};

/* Agent t: register/unregister rounds, then keep t % 4 + 1 buffers of 64 KiB. */
static void *drive(void *arg)
{
	struct driver *dr = arg;
	int i, k;

	for (i = 0; i < ROUNDS / 10; i++) {
		for (k = 0; k < 3; k++)
			if (agent_register(&dr->a, 64 * KiB)) {
				dr->err = 1;
				return NULL;
			}
		if (agent_unregister(&dr->a)) {
			dr->err = 2;
			return NULL;
		}
	}
	for (k = 0; k <= dr->t % 4; k++) {
		if (agent_register(&dr->a, 64 * KiB)) {
			dr->err = 3;
			return NULL;
		}
		dr->held += 64 * KiB;
	}
	return NULL;
}

TEST(uring_16_processes_one_uid_exact)
{
	const uid_t uid = 42401;
	struct driver dr[NTHREADS];
	pthread_t th[NTHREADS], d;
	ia_uid_t u = {};
	struct ia_nl nl;
	long held = 0;
	int i;

	ASSERT_EQ(0, ia_nl_open(&nl));
	for (i = 0; i < NTHREADS; i++) {
		dr[i] = (struct driver){ .t = i };
		ASSERT_EQ(0, agent_start(&dr[i].a, uid, 64ULL << 20));
	}
	stop_dumps = 0;
	ASSERT_EQ(0, pthread_create(&d, NULL, dumper, NULL));
	for (i = 0; i < NTHREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, drive, &dr[i]));
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, dr[i].err);
		held += dr[i].held;
	}
	stop_dumps = 1;
	pthread_join(d, NULL);
	ASSERT_EQ(0, ia_get_uid(&nl, uid, &u));
	/* The kernel's counter is what the agents hold, and all of it is attributed. */
	EXPECT_EQ(held, u.locked_bytes);
	EXPECT_TRUE(!!u._present.unattributed_bytes);
	EXPECT_EQ(held, IA_CONSUMER(&u, IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS));
	EXPECT_EQ(0, u.unattributed_bytes);
	EXPECT_EQ(0, u.refusals);
	EXPECT_EQ(NTHREADS, u.tasks);
	TH_LOG("uid %u holds %ld bytes over %d processes", uid, held, NTHREADS);
	ia_nl_free(&u);
	for (i = 0; i < NTHREADS; i++)
		agent_stop(&dr[i].a);
	ia_nl_close(&nl);
}

IA_HARNESS_MAIN
