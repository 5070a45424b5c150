/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of an SPDK NVMe queue pair's request descriptors, publishing
 * through libiommu-account exactly as an SPDK application would (see
 * Documentation/qpair.md). The qpair itself is simulated - there is no NVMe
 * device here - : a pool of @capacity descriptors; a submission takes one
 * or, when none is free, is refused with -ENOMEM as spdk_nvme_ns_cmd_read()
 * would refuse it. With @defer the application keeps refused operations in
 * a FIFO and resubmits them after processing completions (the fix from the
 * report); without, it fails them to its caller (the old behaviour).
 *
 * Every operation has an id; the model counts the completions of each, so
 * a run can prove every operation completed exactly once.
 */
#ifndef QPAIR_MODEL_H
#define QPAIR_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iommu-account.h"

struct qp_model {
	struct iaq *q;
	unsigned int capacity, free;
	bool defer;
	uint32_t *inflight, ninflight;		/* op ids holding a descriptor */
	uint32_t *fifo, fhead, flen;		/* deferred op ids (ring of ops) */
	uint8_t *done;				/* completions of each op id */
	uint32_t nops, maxops;
	/* what the application itself saw */
	uint64_t rejected, deferred, completed, twice;
};

static inline int qp_init(struct qp_model *m, struct iaq *q, unsigned int capacity,
			  bool defer, uint32_t maxops)
{
	memset(m, 0, sizeof(*m));
	m->q = q;
	m->capacity = m->free = capacity;
	m->defer = defer;
	m->maxops = maxops;
	m->inflight = calloc(capacity, sizeof(*m->inflight));
	m->fifo = calloc(maxops, sizeof(*m->fifo));
	m->done = calloc(maxops, 1);
	return m->inflight && m->fifo && m->done ? 0 : -1;
}

static inline void qp_fini(struct qp_model *m)
{
	free(m->inflight);
	free(m->fifo);
	free(m->done);
}

/* One submission of op @id: a descriptor, or -ENOMEM (deferred or failed). */
static inline void qp_submit(struct qp_model *m, uint32_t id, bool retry)
{
	if (m->free) {
		m->free--;
		m->inflight[m->ninflight++] = id;
		iaq_acquire(m->q, 1);
		return;
	}
	if (m->defer) {
		/* A resubmission that fails again goes back to the queue's head. */
		if (retry)
			m->fhead = (m->fhead + m->maxops - 1) % m->maxops;
		m->fifo[(m->fhead + (retry ? 0 : m->flen)) % m->maxops] = id;
		m->flen++;
		if (!retry)
			m->deferred++;
		iaq_deferred(m->q, +1);
		return;
	}
	m->rejected++;
	iaq_rejected(m->q, 1);
}

/* Process every completion, then resubmit deferred operations while descriptors last. */
static inline void qp_poll(struct qp_model *m)
{
	uint32_t i, id;

	for (i = 0; i < m->ninflight; i++) {
		id = m->inflight[i];
		if (m->done[id]++)
			m->twice++;
		m->completed++;
		m->free++;
		iaq_release(m->q, 1);
	}
	m->ninflight = 0;
	while (m->flen && m->free) {
		id = m->fifo[m->fhead];
		m->fhead = (m->fhead + 1) % m->maxops;
		m->flen--;
		iaq_deferred(m->q, -1);
		qp_submit(m, id, true);
	}
}

/* @n new operations submitted back to back (no polling in between). */
static inline void qp_burst(struct qp_model *m, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && m->nops < m->maxops; i++)
		qp_submit(m, m->nops++, false);
}

/* Poll until nothing is in flight or deferred. */
static inline void qp_drain(struct qp_model *m)
{
	while (m->ninflight || m->flen)
		qp_poll(m);
}

/* Operations that never completed, or completed more than once. */
static inline uint64_t qp_not_exactly_once(const struct qp_model *m)
{
	uint64_t bad = 0;
	uint32_t i;

	for (i = 0; i < m->nops; i++)
		bad += m->done[i] != 1;
	return bad;
}

#endif
