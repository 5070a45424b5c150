// SPDX-License-Identifier: GPL-2.0
/* A hash table that grows with what it holds (htab.h says how and why). */
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "htab.h"

static struct hlist_head *ia_htab_alloc(unsigned int bits, gfp_t gfp)
{
	struct hlist_head *b = kvmalloc_array(1u << bits, sizeof(*b), gfp);
	unsigned int i;

	if (!b)
		return NULL;
	for (i = 0; i < 1u << bits; i++)
		INIT_HLIST_HEAD(&b[i]);
	return b;
}

/* Under the lock: up to @max old buckets more moved; true when none is left. */
static bool ia_htab_move(struct ia_htab *t, unsigned int max)
{
	struct hlist_node *n, *tmp;

	t->gen++;
	while (t->old && max--) {
		hlist_for_each_safe(n, tmp, &t->old[t->moved]) {
			hlist_del(n);
			hlist_add_head(n, ia_htab_bucket(t->cur, t->cur_bits, t->hash_of(n)));
		}
		if (++t->moved == 1u << t->old_bits)
			return true;
	}
	return !t->old;
}

static void ia_htab_grow_fn(struct work_struct *w)
{
	struct ia_htab *t = container_of(w, struct ia_htab, grow);
	struct hlist_head *b, *done = NULL;
	unsigned long flags;
	unsigned int bits;
	bool finished;

	spin_lock_irqsave(t->lock, flags);
	bits = min(t->cur_bits + 2, (unsigned int)IA_HTAB_MAX_BITS);
	spin_unlock_irqrestore(t->lock, flags);
	b = ia_htab_alloc(bits, GFP_KERNEL | __GFP_NOWARN);

	spin_lock_irqsave(t->lock, flags);
	if (!b || t->dead) {
		t->growing = false;
		spin_unlock_irqrestore(t->lock, flags);
		kvfree(b);
		return;
	}
	t->gen++;
	t->old = t->cur;
	t->old_bits = t->cur_bits;
	t->moved = 0;
	t->cur = b;
	t->cur_bits = bits;
	spin_unlock_irqrestore(t->lock, flags);

	/* The old buckets, a batch per hold of the lock. */
	do {
		cond_resched();
		spin_lock_irqsave(t->lock, flags);
		finished = ia_htab_move(t, IA_HTAB_BATCH);
		if (finished && t->old) {
			done = t->old;
			t->gen++;
			t->old = NULL;
			t->old_bits = 0;
			t->growing = false;
		}
		spin_unlock_irqrestore(t->lock, flags);
	} while (!finished);
	kvfree(done);
}

int ia_htab_init(struct ia_htab *t, unsigned int bits, spinlock_t *lock,
		 unsigned long (*hash_of)(const struct hlist_node *n))
{
	memset(t, 0, sizeof(*t));
	t->cur = ia_htab_alloc(bits, GFP_KERNEL);
	if (!t->cur)
		return -ENOMEM;
	t->cur_bits = bits;
	t->lock = lock;
	t->hash_of = hash_of;
	INIT_WORK(&t->grow, ia_htab_grow_fn);
	return 0;
}

void ia_htab_destroy(struct ia_htab *t)
{
	unsigned long flags;

	if (!t->cur)
		return;		/* never made, or gone already */
	spin_lock_irqsave(t->lock, flags);
	t->dead = true;
	spin_unlock_irqrestore(t->lock, flags);
	/* A growth under way finishes (its moves are bounded); none starts. */
	cancel_work_sync(&t->grow);
	if (t->old) {
		/* Cancelled between batches: the rest moves now (no user is left). */
		spin_lock_irqsave(t->lock, flags);
		ia_htab_move(t, UINT_MAX);
		spin_unlock_irqrestore(t->lock, flags);
		kvfree(t->old);
		t->old = NULL;
	}
	kvfree(t->cur);
	t->cur = NULL;
}

void ia_htab_add(struct ia_htab *t, struct hlist_node *n, unsigned long hash)
{
	lockdep_assert_held(t->lock);
	hlist_add_head(n, ia_htab_bucket(t->cur, t->cur_bits, hash));
	t->nr++;
	if (t->nr > 2ul << t->cur_bits && !t->growing && !t->dead &&
	    t->cur_bits < IA_HTAB_MAX_BITS) {
		t->growing = true;
		queue_work(system_unbound_wq, &t->grow);
	}
}

void ia_htab_del(struct ia_htab *t, struct hlist_node *n)
{
	lockdep_assert_held(t->lock);
	hlist_del_init(n);
	t->nr--;
}
