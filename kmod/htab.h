/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hash table that grows with what it holds, for tables whose every use is
 * under one spinlock taken with interrupts off (the hooks run in kprobe and
 * ftrace context): lookups, additions and removals cost the same at a
 * thousand entries and at millions, and no section under the lock does
 * unbounded work.
 *
 * Why not rhashtable: its bucket locks disable bottom halves on the older
 * kernels of the matrix, which must not be done with interrupts off; and its
 * lookups would not need our lock, which the ledger needs anyway.
 *
 * How: the nodes are hlist_nodes; a table of 2^bits buckets. When it holds
 * more than two entries a bucket, a work item allocates one four times the
 * size (GFP_KERNEL, outside the lock), installs it as the current one with
 * the old one beside it, and moves the old buckets over, IA_HTAB_BATCH
 * buckets per hold of the lock. Until it is done a lookup reads the bucket
 * of both tables; additions go to the new one. A table never shrinks (its
 * largest size is what it once held). An allocation that fails leaves the
 * table as it is: longer chains, nothing lost.
 *
 * Every function below but ia_htab_init() and ia_htab_destroy() runs under
 * the table's lock.
 */
#ifndef _IA_HTAB_H
#define _IA_HTAB_H

#include <linux/hash.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

/* Largest table: 2^24 buckets (128 MiB of heads), past which chains grow. */
#define IA_HTAB_MAX_BITS 24

/* Buckets moved per hold of the lock while a table grows. */
#define IA_HTAB_BATCH 64

struct ia_htab {
	struct hlist_head *cur, *old;
	unsigned int cur_bits, old_bits;
	unsigned int moved;		/* old buckets already moved */
	unsigned long nr;		/* entries */
	unsigned long gen;		/* changes when entries move between buckets */
	spinlock_t *lock;		/* the user's lock, irqsave */
	/* The hash of an entry's key, from its node (to move it). */
	unsigned long (*hash_of)(const struct hlist_node *n);
	struct work_struct grow;
	bool growing;			/* the work is queued or running */
	bool dead;			/* being destroyed: no growing */
};

/* A table of 2^@bits buckets to begin with; 0 or -ENOMEM. */
int ia_htab_init(struct ia_htab *t, unsigned int bits, spinlock_t *lock,
		 unsigned long (*hash_of)(const struct hlist_node *n));
/* The table goes (its entries must be gone); may sleep, without the lock. */
void ia_htab_destroy(struct ia_htab *t);
void ia_htab_add(struct ia_htab *t, struct hlist_node *n, unsigned long hash);
void ia_htab_del(struct ia_htab *t, struct hlist_node *n);

static inline struct hlist_head *ia_htab_bucket(struct hlist_head *b, unsigned int bits,
						unsigned long hash)
{
	return &b[hash_long(hash, bits)];
}

/*
 * The chains an entry of @hash may be on: @which 0, the current table's;
 * 1, the old one's while the table grows; NULL past them. A lookup:
 *
 *	for (i = 0; (head = ia_htab_chain(t, hash, i)); i++)
 *		hlist_for_each_entry(obj, head, member)
 *			if (obj->key == key)
 *				return obj;
 */
static inline struct hlist_head *ia_htab_chain(const struct ia_htab *t, unsigned long hash,
					       int which)
{
	if (!which)
		return ia_htab_bucket(t->cur, t->cur_bits, hash);
	if (which == 1 && t->old)
		return ia_htab_bucket(t->old, t->old_bits, hash);
	return NULL;
}

/*
 * Bucket @i of the whole table: the current one's, then the old one's. A
 * walk in batches (the lock dropped between them) starts again from bucket
 * 0 when @gen changed: entries moved meanwhile.
 */
static inline unsigned int ia_htab_buckets(const struct ia_htab *t)
{
	return (1u << t->cur_bits) + (t->old ? 1u << t->old_bits : 0);
}

static inline struct hlist_head *ia_htab_bucket_at(const struct ia_htab *t, unsigned int i)
{
	return i < 1u << t->cur_bits ? &t->cur[i] : &t->old[i - (1u << t->cur_bits)];
}

#endif
