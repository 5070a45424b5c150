/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the memlock source: memlock.c (the ledger: users, records,
 * thresholds and refusals, snapshots, init and exit), and its consumers,
 * its parts in the table of sources (source.h): memlock_uring.c (io_uring's
 * charges and releases), memlock_xdp.c (AF_XDP umems) and memlock_iommufd.c
 * (iommufd's pinned pages). Consumers call the ledger; the ledger knows
 * them only through their struct ia_source and their records' ops.
 *
 * Locking: the ledger is split by uid. A uid's entry and everything of it
 * (its holders, records, rings and links, its levels and refusals) is
 * guarded by its part's lock: one of IA_ML_PARTS, chosen by a hash of the
 * uid (ia_ml_part_of()). The tables that find a record by its key, an open
 * ring by its context and a holder by its process are split in stripes,
 * each with its own lock, a leaf held for one lookup, addition or removal:
 * release hooks know a buffer, a ring or a umem, not its uid, so they find
 * the entry under its stripe, read its uid, then take that uid's part and
 * find it again (memlock.c's ia_ml_rec_lock()). Two uids share a lock
 * only when their hashes meet; nothing of the ledger is global but the
 * list of users (taken when a uid is first seen and, a user at a time, by
 * snapshots), the list of users holding a refusal report, the thresholds'
 * lines, and the scratch buffer of a refusal's cgroup path.
 *
 * Order: iommufd's ia_fd_lock (its records' ops need it), a part, then
 * leaves: a stripe, ia_ml_list_lock, ia_ml_pend_lock, ia_ml_thr_lock,
 * ia_ml_cg_lock (with the kernel's kernfs lock inside cgroup_path()),
 * ia_evq_lock. All are taken irqsave: kprobe handlers run with interrupts
 * off, where disabling bottom halves is not allowed, and AF_XDP's
 * xdp_put_umem() may run from an RCU callback (a socket freed after a
 * grace period): the one primitive valid in both. Each hold is bounded:
 * a lookup and an update, or a batch of IA_HTAB_BATCH. Nothing that
 * sleeps, allocates other than GFP_ATOMIC or calls into netlink runs
 * under them. The ledger's functions below need
 * the part of the uid (or record) they are given held, unless they say
 * they take it themselves.
 */
#ifndef _IA_MEMLOCK_H
#define _IA_MEMLOCK_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/spinlock.h>

#include "htab.h"
#include "ia.h"
#include "wrapper/hook.h"

/* The parts of the ledger: what a lock guards is the uids that hash to it. */
#define IA_ML_PART_BITS 6
#define IA_ML_PARTS BIT(IA_ML_PART_BITS)

#define IA_ML_LOST 8

struct ia_ml_part {
	spinlock_t lock;		/* its uids' entries and all they hold */
	struct ia_htab users;		/* struct ia_ml_user of its uids, by uid */
	/* Idle rings and holders kept (struct ia_ml_ring says why). */
	struct list_head idle_holders, idle_rings;
	unsigned int nidle_holders, nidle_rings;
	/* Records, holders, rings and links given back (ia.h: struct ia_spare). */
	struct ia_spare spare, spare_h, spare_r, spare_l;
	/*
	 * Uids of the part whose entry could not be allocated when they
	 * charged (GFP_ATOMIC failed): their charge went unrecorded, so their
	 * figures are flagged inexact (no-memory) from then on, entry or not.
	 * More than IA_ML_LOST: every uid of the part that has no entry yet.
	 */
	kuid_t lost[IA_ML_LOST];
	unsigned int nlost;
	bool lost_more;
} ____cacheline_aligned_in_smp;

struct ia_ml_part *ia_ml_part_of(kuid_t uid);

#define ia_ml_lock_uid(uid, flags) spin_lock_irqsave(&ia_ml_part_of(uid)->lock, flags)
#define ia_ml_unlock_uid(uid, flags) spin_unlock_irqrestore(&ia_ml_part_of(uid)->lock, flags)

/*
 * Set (under every part's lock) before the hooks go: from then on no
 * handler changes the ledger. (The calls in flight are killed with their
 * hook sets: wrapper/hook.h.)
 */
extern bool ia_ml_exiting;

/*
 * One uid that charged since the module loaded (kept until exit). What the
 * ledger keeps, so that nothing needs a walk over every record: a record's
 * pages are added to its uid (by consumer), to its holder (the charging
 * process, with that uid) and to its link (the holder's part of one ring);
 * a ring's close moves its links' pages into their holders' closed pages.
 * A uid's pages waiting for release are then its holders' closed pages,
 * or all of a holder's pages once its process is gone; a process's rings
 * are its links with pages.
 */
struct ia_ml_user {
	struct hlist_node hnode;	/* its part's users, by uid */
	struct list_head all;		/* ia_ml_all_users, in the order they came */
	struct ia_ml_part *part;	/* whose lock guards it */
	struct list_head holders;	/* its holders (struct ia_ml_holder) */
	struct list_head pend;		/* on ia_ml_pend_users: a refusal report is held */
	kuid_t uid;
	u64 pages[IA_CONS_COUNT];	/* attributed, still charged */
	u64 iommufd_mm_pages, iommufd_exempt_pages;	/* pinned, not in the pot */
	u64 charges, refusals;
	u32 inexact;
	struct ia_levels levels;
	/*
	 * Where the levels change, in pages of the pot, for a process whose
	 * limit is bnd_limit: a charge that leaves the pot below raise_at,
	 * after a pot at or above rearm_below, changes none (ia_ml_thresholds()
	 * skips the level code); raise_at 0 makes the next charge recompute.
	 */
	struct ia_level_bounds bnd;
	u64 bnd_limit;
	/*
	 * The RLIMIT_MEMLOCK (bytes, RLIM_INFINITY: none) the kernel compared
	 * the uid's last successful charge with: its charging process's. The
	 * limit the pot's quota reports (nl_uid.c), not the smallest among
	 * the uid's processes, of which an idle one would make a job with a
	 * larger limit look full.
	 */
	u64 charger_limit;
	bool has_charger_limit;
	u32 thr_gen;			/* ia_ml_thr_gen when its levels were last re-armed */
	struct ia_coalesce co;
	struct ia_event pending_ev;	/* the last refusal, for a coalesced report */
	bool has_last;
	struct ia_failure last;		/* the last refusal, for GET_QUOTA */
	struct ia_cgpath *last_cgpath;	/* its cgroup's path at the last refusal (NULL: unknown) */
};

/* A process (its thread group) holding pages of one uid's pot. */
struct ia_ml_holder {
	struct hlist_node hnode;	/* a stripe of ia_ml_holders, by pid */
	struct list_head unode;		/* its user's holders */
	struct pid *pid;		/* a reference */
	struct ia_ml_user *u;
	u64 pages[IA_CONS_COUNT];	/* in the pot (IA_ML_POT records) */
	u64 total;			/* the sum of @pages */
	u64 closed_pages;		/* of @total: in rings that were closed */
	u32 rings;			/* its links with pages */
	u32 refs;			/* records and links that name it */
	struct list_head idle;		/* on its part's idle holders while @refs is 0 */
};

/*
 * A ring (io_uring context) with records, until it is closed. A ring, a
 * link or a holder left with no record is kept a while, on a short list of
 * idle ones (the oldest go past IA_ML_IDLE): a ring whose buffers are
 * registered and unregistered in turn makes them once, not per buffer.
 */
struct ia_ml_ring {
	struct hlist_node hnode;	/* a stripe of ia_ml_rings, by ctx, while open */
	const void *ctx;
	struct ia_ml_user *u;		/* the uid its records are charged to */
	bool closed;
	u32 busy;			/* its links with records */
	struct list_head links;		/* one per holder of its records */
	struct list_head idle;		/* on its part's idle rings while @busy is 0 */
};

/* The records of one holder on one ring. */
struct ia_ml_link {
	struct hlist_node snode;	/* on the spare list, when it is one */
	struct list_head rnode;		/* its ring's links */
	struct ia_ml_ring *ring;
	struct ia_ml_holder *h;
	u64 pages;			/* in the pot */
	u32 nrec;			/* its records (0: idle, kept with its ring) */
};

/* Where a record's pages are charged (iommufd decides per object). */
enum ia_ml_mode {
	IA_ML_POT,		/* the uid's pot (user_struct->locked_vm) */
	IA_ML_MM,		/* the mapping process's mm->locked_vm */
	IA_ML_EXEMPT,		/* nowhere: CAP_IPC_LOCK */
};

struct ia_ml_rec;

/* What a consumer's records are, for the ledger (one per consumer, static). */
struct ia_ml_rec_ops {
	struct ia_hook_set *hooks;	/* the consumer's hooks, which make them */
	size_t size;			/* a record of its own that embeds one; 0: none */
	/* Held around a release the ledger starts (the callbacks below need it). */
	spinlock_t *outer;
	/*
	 * Under its part (and @outer): @pages of @r were released; @r goes
	 * (NULL: nothing).
	 */
	void (*unpinned)(struct ia_ml_rec *r, u64 pages);
	void (*del)(struct ia_ml_rec *r);
};

/*
 * Pages charged to @uid's pot and held by one object (a buffer, a ring, a
 * umem, an iommufd pages object).
 */
struct ia_ml_rec {
	struct hlist_node hnode;	/* in ia_ml_recs by key, or on a spare list */
	const void *key;		/* the buffer, the ring in per-ring mode, the umem */
	const void *ctx;		/* the ring (NULL: a umem) */
	kuid_t uid;
	enum ia_consumer consumer;
	u64 pages;
	struct pid *pid;		/* the charging process (tgid): @h's */
	struct ia_ml_user *acct;	/* @uid's entry once looked up (entries live until exit) */
	struct ia_ml_holder *h;		/* @pid's holding of @uid's pot */
	struct ia_ml_link *link;	/* its part of ring @ctx (NULL: no ring) */
	bool keep;			/* kept at 0 pages until its object goes */
	enum ia_ml_mode mode;		/* where its pages are charged */
	const struct ia_ml_rec_ops *ops;
};

/* The ledger (memlock.c), every function under the part of the uid it is given. */
struct ia_ml_user *ia_ml_user_get(kuid_t uid);
/*
 * @u's record of @key made by @ops' consumer, or NULL; *@other (if not
 * NULL) says whether another uid has one there too (an object at the
 * address of one whose release was not seen: ia_ml_release_other(), with
 * the part dropped).
 */
struct ia_ml_rec *ia_ml_rec_of(struct ia_ml_user *u, const void *key,
			       const struct ia_ml_rec_ops *ops, bool *other);
/*
 * The record of @key made by @ops' consumer, whatever its uid, for a
 * consumer with an outer lock, held: every change to its records is made
 * under it too, so what it finds stays, and its figures can be read.
 */
struct ia_ml_rec *ia_ml_rec_outer(const void *key, const struct ia_ml_rec_ops *ops);

/*
 * A new record of @consumer (made as @ops say) under @key for @u, charged
 * by the current process; NULL when there is no memory for it.
 */
struct ia_ml_rec *ia_ml_rec_new(struct ia_ml_user *u, const void *key, const void *ctx,
				enum ia_consumer consumer, const struct ia_ml_rec_ops *ops);
/* @pages more charged to @r, where its mode says (@u: @r's uid's entry). */
void ia_ml_charged(struct ia_ml_rec *r, struct ia_ml_user *u, u64 pages);
/* @r's pages are charged to @mode from now on (what it holds moves with it). */
void ia_ml_set_mode(struct ia_ml_rec *r, enum ia_ml_mode mode);
/* @r's ring was closed: its pages wait for their release. */
static inline bool ia_ml_rec_closed(const struct ia_ml_rec *r)
{
	return r->link && r->link->ring->closed;
}

/*
 * Take @pages off @r (and its uid, where @r's mode charged them); the record
 * goes when it is empty, unless it is kept for its object.
 */
void ia_ml_release(struct ia_ml_rec *r, u64 pages);
/*
 * The whole record of @key (of @ops' consumer) goes, if there is one; with
 * no part held (takes @ops' outer lock, then the record's part).
 */
void ia_ml_release_key(const void *key, const struct ia_ml_rec_ops *ops);
/* @pages of that record go (the record, when it is empty and not kept). */
void ia_ml_release_key_pages(const void *key, const struct ia_ml_rec_ops *ops, u64 pages);
/* Every record of ring @ctx waits for its deferred release (no part held). */
void ia_ml_ring_closed(const void *ctx);
/*
 * A record of @key (of @ops' consumer) of a uid other than @uid goes, if
 * there is one: an object at the address of one whose release was not
 * seen (flagged on its uid). With no part held; takes @ops' outer lock.
 */
void ia_ml_release_other(const void *key, const struct ia_ml_rec_ops *ops, kuid_t uid);
/* @uid's figures may be wrong (@bit says why): with no part held. */
void ia_ml_flag(kuid_t uid, u32 bit);
/* ia_ml_thresholds() past @u's bounds (or with none for @limit). */
void ia_ml_thresholds_cross(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages,
			    u64 pot, u64 limit);

/*
 * A charge of @pages succeeded: the pot is @pot pages against the charging
 * process's @limit (bytes). Re-arms and raises the uid's levels: two
 * comparisons, unless a level changes.
 */
/* Changes when the pot's thresholds are set: every user's levels re-arm. */
extern u32 ia_ml_thr_gen;

static inline void ia_ml_thresholds(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages,
				    u64 pot, u64 limit)
{
	u32 gen = READ_ONCE(ia_ml_thr_gen);

	u->charger_limit = limit;
	u->has_charger_limit = true;
	if (unlikely(u->thr_gen != gen)) {
		u->thr_gen = gen;
		u->levels.raised = 0;
		u->bnd.raise_at = 0;	/* the bounds, at this charge */
	}
	if (limit == u->bnd_limit && pot < u->bnd.raise_at &&
	    pot - min(pot, pages) >= u->bnd.rearm_below)
		return;
	ia_ml_thresholds_cross(u, consumer, pages, pot, limit);
}

/* A charge of @pages was refused with @err (iommufd: while mapping into IOAS @ioas). */
void ia_ml_refused_in(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages, u64 pot,
		      u64 limit, int err, u32 ioas);

static inline void ia_ml_refused(struct ia_ml_user *u, enum ia_consumer consumer, u64 pages,
				 u64 pot, u64 limit, int err)
{
	ia_ml_refused_in(u, consumer, pages, pot, limit, err, 0);
}

/* Set (memlock_iommufd.c) while iommufd's pins are followed. */
extern bool ia_ml_iommufd_on;

#endif
