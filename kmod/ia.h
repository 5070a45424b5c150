/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iommu_account: the core shared by every quota source.
 *
 *   main.c     the order of initialisation
 *   core.c     features (the state of each data source, locked), owners,
 *              filters and the snapshot idiom
 *   events.c   the event queue: sequence numbers, per-object coalescing of
 *              failures, threshold levels, one sink (registered by the
 *              netlink layer, so no source ever calls netlink)
 *   uid.c      source: the per-uid locked-memory pot (task list, uid hash)
 *   memlock.c  source: the pot's charge paths (ledger, events, init), with
 *              memlock_uring.c and memlock_xdp.c, one per consumer
 *   proc.c     source: processes and what they hold
 *   vfio.c     source: VFIO type1 containers (vfio_attach.c: following
 *              vfio_iommu_type1 as it comes and goes)
 *   groups.c   source: IOMMU groups with PCI devices
 *   pub.c      source: quotas applications publish (/dev/iommu-account)
 *   reset.c    source: the hot-reset scope of PCI devices (as vfio-pci decides)
 *   nl*.c      the generic netlink family (nl.c: family, status,
 *              thresholds, the event sink; nl-gen.c: policies and
 *              operations, generated from the YNL spec; nl_uid.c,
 *              nl_proc.c, nl_vfio.c: each source's attributes; nl_quota.c:
 *              every kind in one shape; nl_util.c: permissions, dumps)
 *
 *   wrapper/   kallsyms.c (symbol lookups), hook.c (every hook: sources
 *              declare them, it places them)
 *
 * Sources depend on this header, wrapper/ and their own private header.
 */
#ifndef _IA_H
#define _IA_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/limits.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <uapi/linux/iommu_account.h>
#include <uapi/linux/iommu_account_dev.h>

struct ia_source;		/* source.h */

struct cgroup;
struct cgroup_namespace;

#ifndef IA_VERSION
#error "IA_VERSION comes from the top-level VERSION file (Kbuild)"
#endif

/* --- features ------------------------------------------------------------ */

/* Data sources whose availability depends on the running kernel. */
enum ia_feature {
	IA_FEAT_UID_TASKS,
	IA_FEAT_UID_ORPHANS,
	IA_FEAT_VFIO_TYPE1,
	IA_FEAT_VFIO_GROUPS,
	IA_FEAT_IOMMUFD,
	IA_FEAT_EVENTS,
	IA_FEAT_MEMLOCK_URING,
	IA_FEAT_MEMLOCK_XDP,
	IA_FEAT_PUBLISHED,
	IA_FEAT_RESET_SCOPE,
	IA_FEAT_COUNT,
};

#define IA_FEAT_DETAIL_LEN 384

struct ia_feature_info {
	const char *name;
	bool active;
	char detail[IA_FEAT_DETAIL_LEN];
};

__printf(3, 4)
void ia_feature_set(enum ia_feature f, bool active, const char *fmt, ...);
/* A consistent copy of every feature (callers may race with the setters). */
void ia_features_copy(struct ia_feature_info out[IA_FEAT_COUNT]);
bool ia_feature_active(enum ia_feature f);

/* --- owners -------------------------------------------------------------- */

/* A process as seen when it acted. */
struct ia_owner {
	pid_t pid;		/* tgid in the initial pid namespace */
	kuid_t uid;		/* real uid */
	char comm[TASK_COMM_LEN];
	u64 cgroup_id;		/* its cgroup v2 id then; 0: unknown */
};

void ia_owner_current(struct ia_owner *o);

/*
 * Which objects a source's snapshot takes (zeroed, IA_FILTER_ALL: all):
 * @by_id: the one with @id; @by_uid: those of @uid (a pot's uid, an object
 * owner's real uid); @pid: those whose owner is that process (0: any). The
 * netlink layer fills it from the request and the caller's permissions.
 */
struct ia_filter {
	bool by_id;
	u32 id;
	bool by_uid;
	kuid_t uid;
	pid_t pid;
};

#define IA_FILTER_ALL (&(const struct ia_filter){ })

static inline bool ia_filter_pass(const struct ia_filter *f, u32 id, kuid_t uid, pid_t pid)
{
	return (!f->by_id || id == f->id) && (!f->by_uid || uid_eq(uid, f->uid)) &&
	       (!f->pid || pid == f->pid);
}

/*
 * Collect at most @cap elements into the snapshot @buf and return how many
 * there are; more than @cap (cap + 1 when the total is unknown): nothing is
 * kept, the snapshot is taken again, bigger.
 */
typedef unsigned int (*ia_snap_fill_t)(void *buf, unsigned int cap, void *arg);

/*
 * The snapshot idiom, once (core.c): a zeroed buffer of @hdr bytes (the
 * offset of its flexible array) and @cap elements of @elem bytes, filled by
 * @fill in process context; while it needed more, grown to that and a
 * quarter more, four tries at most (-EAGAIN: the set kept outgrowing it).
 * *@nr: the elements filled. kvfree() it.
 */
void *ia_snapshot_take(size_t hdr, size_t elem, unsigned int cap, ia_snap_fill_t fill,
		       void *arg, unsigned int *nr);

/*
 * A cgroup v2 path, whole up to PATH_MAX - 1 bytes. A longer one (a deep
 * tree can make one) keeps its beginning, cut before a character, and is
 * marked truncated. Immutable once made, shared by reference: a refusal's
 * record and every snapshot that shows it (uid.c).
 */
struct ia_cgpath {
	refcount_t ref;
	bool truncated;
	char path[];
};

/* The scratch buffer a path is built in: one byte more than kept, to see a cut. */
#define IA_CGPATH_BUF (PATH_MAX + 1)

/* A refusal: when, why, what, by whom. */
struct ia_failure {
	u64 time_ns;
	int err;		/* positive errno */
	u64 iova, size;
	struct ia_owner who;
	u64 cgroup_id;		/* the refused process's cgroup v2 id, 0: unknown */
	u32 ioas;		/* iommufd: the IOAS being mapped into, 0: unknown */
};

/* --- thresholds ---------------------------------------------------------- */

/* Per mille of a quota's limit. */
struct ia_thresholds {
	u32 warn, crit;
};

enum ia_level {
	IA_LEVEL_WARN,
	IA_LEVEL_CRIT,
	IA_LEVEL_COUNT,
};

/* --- events -------------------------------------------------------------- */

#define IA_EV_MAX_GROUPS 16

enum ia_event_type {
	IA_EV_FAILURE,
	IA_EV_THRESHOLD,
	IA_EV_GONE,
};

enum ia_kind {
	IA_KIND_VFIO_CONTAINER = IOMMU_ACCOUNT_QUOTA_KIND_VFIO_CONTAINER,
	IA_KIND_UID_POT = IOMMU_ACCOUNT_QUOTA_KIND_UID_POT,
	IA_KIND_QPAIR = IOMMU_ACCOUNT_QUOTA_KIND_QPAIR,
	IA_KIND_IOMMUFD_CTX = IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX,
	IA_KIND_MAX = IA_KIND_IOMMUFD_CTX,
};

/* One IOAS of an iommufd context, as a snapshot gives it (memlock_iommufd.c). */
struct ia_ioas_info {
	u32 id, areas;
	u64 bytes, pinned;
};

/* A pot's own figure (kind uid-pot: nl_uid.c). */
struct ia_quota_pot {
	bool has_limit_min;
	u64 limit_min;			/* the smallest RLIMIT_MEMLOCK of the uid's processes */
};

/* A published object's own figures (kind qpair: pub.c). */
struct ia_quota_pub {
	char name[IOMMU_ACCOUNT_QUOTA_NAME_LEN];
	u64 cgroup_id;
	u64 peak, submitted, completed, deferred_now, deferred_total;
	u32 warn, crit;			/* per mille */
};

/* An iommufd context's own figures (kind iommufd-ctx: memlock_iommufd.c). */
struct ia_quota_fd {
	u32 mode;			/* IOMMU_ACCOUNT_IOMMUFD_MODE_* */
	u32 mappings, devices;
};

/*
 * One quota object of any kind, in the shape GET_QUOTA replies with (and
 * qpair events carry): what is used of what limit, and whose it is; then
 * the kind's own figures, which its struct ia_quota_kind puts (source.h).
 */
struct ia_quota_rec {
	u32 kind, id;
	u64 used, limit;
	bool has_limit, has_owner;
	kuid_t uid;
	struct ia_owner owner;
	u64 refusals;
	u32 flags;			/* IOMMU_ACCOUNT_QUOTA_FLAGS_* (the kind's) */
	/* the last refusal (pot: with the refused process's cgroup) */
	bool has_last;
	struct ia_failure last;
	struct ia_cgpath *last_cgpath;	/* pot: its path (a reference); put with the record */
	/* the kind's array (iommufd-ctx: its IOAS), kvmalloc'd; freed with the record */
	void *extra;
	u32 nr_extra;
	union {				/* by kind */
		struct ia_quota_pot pot;
		struct ia_quota_pub pub;
		struct ia_quota_fd fd;
	};
};

/* What charged the per-uid pot (the spec's consumer enum). */
enum ia_consumer {
	IA_CONS_URING_BUFFERS = IOMMU_ACCOUNT_CONSUMER_IO_URING_BUFFERS,
	IA_CONS_URING_RINGS = IOMMU_ACCOUNT_CONSUMER_IO_URING_RINGS,
	IA_CONS_URING_ZC = IOMMU_ACCOUNT_CONSUMER_IO_URING_ZEROCOPY,
	IA_CONS_URING_OTHER = IOMMU_ACCOUNT_CONSUMER_IO_URING_OTHER,
	IA_CONS_XDP_UMEM = IOMMU_ACCOUNT_CONSUMER_XDP_UMEM,
	IA_CONS_IOMMUFD = IOMMU_ACCOUNT_CONSUMER_IOMMUFD,
	IA_CONS_COUNT,
};

/* One event of any source: what every kind has, then the kind's own (a union, by kind). */
struct ia_event {
	u64 seq;
	u64 time_ns;			/* CLOCK_REALTIME, every source */
	enum ia_kind kind;		/* which member of the union is filled */
	enum ia_event_type type;
	struct ia_owner who;
	u64 cgroup_id;
	/* failure */
	int err;
	u64 iova, size;
	u32 ioas;			/* iommufd: the IOAS being mapped into, 0: unknown */
	u64 locked_bytes, memlock;
	u32 count;			/* failure: refusals; threshold: crossings (>= 1) */
	/* threshold */
	enum ia_level level;
	u32 threshold;			/* per mille */
	union {
		struct {			/* IA_KIND_UID_POT */
			kuid_t uid;
			enum ia_consumer consumer;
		} pot;
		struct {			/* IA_KIND_VFIO_CONTAINER */
			u32 id;
			unsigned int ngroups;		/* listed in groups[] */
			unsigned int group_count;	/* attached; > ngroups when cut */
			u32 groups[IA_EV_MAX_GROUPS];
			u32 entries, limit;
		} vfio;
		struct ia_quota_rec q;		/* published kinds: the object at that moment */
	};
};

/*
 * The sink receives events in process context, in sequence order; it
 * returns true when someone listens (so sources can skip building events).
 */
struct ia_event_sink {
	void (*deliver)(const struct ia_event *ev);
	bool (*listening)(void);
};

void ia_events_set_sink(const struct ia_event_sink *sink);
/* True when a sink is set and someone listens: build events only then. */
bool ia_events_wanted(void);
/* Give @ev its sequence number and queue it; any context, never sleeps. */
void ia_event_queue(struct ia_event *ev);
u64 ia_events_dropped(void);
/*
 * Per kind, the refusals since load of every object, those gone included
 * (STATUS's quota-kind refusals): each source adds its refusals where it
 * counts them in its object, so the total outlives the object. Any context.
 */
void ia_kind_refused(enum ia_kind kind, u64 n);
u64 ia_kind_refusals(enum ia_kind kind);
/* The sequence number of the last event sent (0: none yet). */
u64 ia_events_sent(void);
void ia_events_exit(void);

struct ia_events_stats {
	u64 coalesced;			/* threshold crossings folded into a later event's count */
	u64 suppressed;			/* over a uid's budget: threshold and gone events */
	u64 suppressed_failures;	/* over a uid's budget: failures */
	u64 dropped_failures;		/* failures lost to a full ring (of events-dropped) */
};

/* A uid with events over its budget, and how many. */
struct ia_budget_rec {
	kuid_t uid;
	u64 suppressed, suppressed_failures;
};

/* The uids with events over their budget STATUS lists, at most. */
#define IA_STATUS_BUDGETS 64

/* The totals, and up to @max uids with events over their budget. */
void ia_events_budget(struct ia_events_stats *st, struct ia_budget_rec *rec, unsigned int max,
		      unsigned int *n);

/*
 * Coalescing of repeated failures of one object: the first refusal is
 * reported at once; further ones within the interval are counted, and
 * reported as one event ("count" refusals) when the interval ends, by the
 * object's source calling ia_coalesce_flush() from its flush work.
 */
struct ia_coalesce {
	u64 last_ns;		/* when the last event of this object left */
	u32 pending;		/* refusals not reported yet */
};

/* A refusal happened at @now: true to report it now, with *count refusals. */
bool ia_coalesce_fail(struct ia_coalesce *co, u64 now, u32 *count);
/* Pending refusals to report at @now (interval over), 0 if none or not yet. */
u32 ia_coalesce_due(struct ia_coalesce *co, u64 now);
/* The interval, in ns (module parameter event_interval_ms). */
u64 ia_coalesce_interval_ns(void);
/*
 * Run a source's flush @work when the interval is over, unless *@armed says
 * it is already due; the caller holds the lock that guards *@armed, and the
 * work clears it when it runs.
 */
void ia_coalesce_schedule(struct delayed_work *work, bool *armed);

/*
 * Records given back, kept for the next one: records that come and go in
 * pairs (io_uring buffers in memlock.c, VFIO mappings in vfio.c) otherwise
 * cost an allocation and a free per pair. Under the owner's lock; the
 * records hold nothing. Off under KASAN (max 0), which must see every free
 * to catch a record used after it went. The owner frees what is left at
 * exit, then ia_spare_reset().
 */
struct ia_spare {
	struct hlist_head head;
	unsigned int n, max;
};

#define IA_SPARE_INIT(m) { .max = IS_ENABLED(CONFIG_KASAN) ? 0 : (m) }

/* A record given back (its node, out of the list), or NULL. */
static inline struct hlist_node *ia_spare_get(struct ia_spare *s)
{
	struct hlist_node *n = s->head.first;

	if (!n)
		return NULL;
	hlist_del(n);
	s->n--;
	return n;
}

/* Keep @n for the next ia_spare_get() if there is room: true if kept. */
static inline bool ia_spare_put(struct ia_spare *s, struct hlist_node *n)
{
	if (s->n >= s->max)
		return false;
	hlist_add_head(n, &s->head);
	s->n++;
	return true;
}

static inline void ia_spare_reset(struct ia_spare *s)
{
	INIT_HLIST_HEAD(&s->head);
	s->n = 0;
}

/*
 * Threshold levels of one object, for every source that raises them from a
 * count it keeps (memlock.c, vfio.c; pub.c publishes the same lines to its
 * applications, which raise them in their state page). A level is raised
 * once when the count reaches it, and re-armed when the count falls more
 * than @margin per mille below it. Values are per mille of the object's
 * limit (ia_per_mille()); the caller holds the lock guarding @lv.
 */
struct ia_levels {
	u8 raised;		/* BIT(level): raised, not re-armed since */
};

/*
 * Where an object's levels change, in the units of the count it keeps: a
 * count below raise_at reaches no armed level, and one at or above
 * rearm_below re-arms no raised one, so the level code can be skipped.
 */
struct ia_level_bounds {
	u64 raise_at;		/* the count from which a level is raised */
	u64 rearm_below;	/* the count below which one is re-armed */
};

/* floor(@value * 1000 / @limit), without overflow; @limit not 0. */
u64 ia_per_mille(u64 value, u64 limit);
/*
 * @b for @lv's levels, a count of x being ia_per_mille(x << @shift, @limit)
 * per mille (@shift: PAGE_SHIFT for pages against bytes); re-arming
 * @margin points below a line. @limit 0: no level ever changes.
 */
void ia_levels_bounds(struct ia_level_bounds *b, const struct ia_levels *lv,
		      const struct ia_thresholds *t, u32 margin, u64 limit, unsigned int shift);
/* Re-arm the levels @pm is more than @margin below. */
void ia_levels_rearm(struct ia_levels *lv, const struct ia_thresholds *t, u32 margin, u64 pm);
/*
 * Raise the armed levels @pm reached; returns them as BIT(level). @highest:
 * only the highest is returned, and the ones below it are raised with it
 * (one event says it all); else each is returned.
 */
unsigned int ia_levels_raise(struct ia_levels *lv, const struct ia_thresholds *t, u64 pm,
			     bool highest);
/* The per mille line of @level. */
static inline u32 ia_level_line(const struct ia_thresholds *t, unsigned int level)
{
	return level == IA_LEVEL_WARN ? t->warn : t->crit;
}

struct ia_memlock_uids;

/* --- source: the per-uid pot (uid.c) ---------------------------------------- */

/* One user and its pot, as found by a snapshot. */
struct ia_uid_rec {
	kuid_t uid;
	u32 tasks;
	u64 locked_pages;
	u64 rlim_min;	/* bytes; U64_MAX: unlimited; meaningless when !tasks */
	u64 rlim_max;
	u64 cgid;	/* while collecting: the task's cgroup v2 id */
	u32 cgroups;	/* distinct cgroups of the tasks */
};

struct ia_uid_snap {
	unsigned int nr;
	struct ia_memlock_uids *ml;	/* the breakdown, set by the netlink layer */
	struct ia_uid_rec rec[];
};

int ia_uid_init(const struct ia_source *self);
/* Thread groups alive now (a hint for sizing a snapshot; more may come). */
unsigned int ia_count_processes(void);
/* The cgroup v2 id of @task (its directory's inode number), 0 without cgroups. */
u64 ia_task_cgroup_id(struct task_struct *task);
/*
 * @task's cgroup v2 path from the hierarchy's root, built in @scratch
 * (IA_CGPATH_BUF bytes); any context. @old, when it is the same path, is
 * returned with a reference instead of a copy. NULL: unknown (no cgroups, no
 * memory).
 */
struct ia_cgpath *ia_task_cgpath(struct task_struct *task, char *scratch,
				 struct ia_cgpath *old, gfp_t gfp);
/* @cgrp's path as @ns sees it (process context: takes cgroup_mutex). */
struct ia_cgpath *ia_cgroup_cgpath_ns(struct cgroup *cgrp, struct cgroup_namespace *ns,
				      char *scratch);
struct ia_cgpath *ia_cgpath_get(struct ia_cgpath *p);
void ia_cgpath_put(struct ia_cgpath *p);
void ia_uid_exit(const struct ia_source *self);
/* Snapshot of every user (@f: by_uid alone applies), sorted by uid; kvfree() it. */
struct ia_uid_snap *ia_uid_snapshot(const struct ia_filter *f);

/* --- source: VFIO type1 (vfio.c) ------------------------------------------- */

enum ia_fail {
	IA_FAIL_ENOSPC,
	IA_FAIL_ENOMEM,
	IA_FAIL_EINVAL,
	IA_FAIL_OTHER,
	IA_FAIL_COUNT,
};

/* Why a container's figures may be inexact (bits of ia_container_info.inexact). */
#define IA_INEXACT_PROBE_MISSED IOMMU_ACCOUNT_INEXACT_PROBE_MISSED
#define IA_INEXACT_NO_MEMORY IOMMU_ACCOUNT_INEXACT_NO_MEMORY
#define IA_INEXACT_PINNED IOMMU_ACCOUNT_INEXACT_PINNED
#define IA_INEXACT_UNPINNED IOMMU_ACCOUNT_INEXACT_UNPINNED

/* A copy of one VFIO type1 container's state, for replies. */
struct ia_container_info {
	u32 id;
	u32 entries, limit;
	u64 mapped_bytes;
	u64 pinned_pages;
	kuid_t pinned_uid;
	bool has_pinned_uid;
	struct ia_owner owner;
	u64 map_ops, unmap_ops;
	u64 fail[IA_FAIL_COUNT];
	u32 inexact;
	bool has_last;
	struct ia_failure last;
	unsigned int ngroups;
	u32 *groups;			/* ngroups, in the snapshot's buffer */
	struct ia_owner *group_owner;	/* ngroups, likewise */
};

struct ia_container_snap {
	unsigned int nr;
	struct ia_container_info *c;	/* nr, sorted by id */
};

/* One PCI device in an IOMMU group. */
struct ia_group_dev {
	u32 group;
	char address[32];
	u16 vendor, device;
	char driver[32];
	bool fd_bound;			/* bound to an iommufd context (VFIO cdev) */
	struct ia_owner fd_owner;	/* by whom */
};

/* The process that bound PCI device @name to an iommufd context, if one did. */
bool ia_iommufd_dev_owner(const char *name, struct ia_owner *o);

/* Its quota kind, iommufd-ctx, is its part's in the table of sources (source.h). */

struct ia_group_snap {
	unsigned int ndev;
	struct ia_group_dev *dev;	/* sorted by group, then address */
	struct ia_container_snap *containers;
};

struct pci_dev;

int ia_vfio_init(const struct ia_source *self);
void ia_vfio_exit(const struct ia_source *self);
/* The containers @f passes (id, owner), sorted by id; free with ia_container_snap_free(). */
struct ia_container_snap *ia_container_snapshot(const struct ia_filter *f);
void ia_container_snap_free(struct ia_container_snap *s);
/* groups.c */
struct ia_group_snap *ia_group_snapshot(void);
/* @pdev as a group lists it; false (group left 0) when it has no IOMMU group. */
bool ia_group_dev_fill(struct ia_group_dev *d, struct pci_dev *pdev);
void ia_group_snap_free(struct ia_group_snap *g);
void ia_vfio_thresholds_get(struct ia_thresholds *t);
void ia_vfio_thresholds_set(const struct ia_thresholds *t);
u64 ia_vfio_probes_missed(void);
/* Live type1 containers this module does not follow (opened before it loaded). */
u32 ia_vfio_untracked(void);

/* --- source: hot-reset scopes (reset.c) ------------------------------------ */

/* One device a reset would reach (its group only when has_group). */
struct ia_reset_dev {
	struct ia_group_dev d;
	bool has_group;
	bool vfio;			/* a registered VFIO device */
	bool virtfn;
	u32 set;			/* IOMMU_ACCOUNT_RESET_SET_* */
};

struct ia_reset_info {
	char address[32];
	u32 scope;			/* IOMMU_ACCOUNT_RESET_SCOPE_* */
	bool has_group;
	bool vfio;			/* the device is a registered VFIO device */
	u32 set_kind;			/* IOMMU_ACCOUNT_RESET_SET_KIND_* */
	u32 group;
	unsigned int ndev;
	struct ia_reset_dev *dev;	/* in the kernel's walk order */
};

struct ia_reset_snap {
	unsigned int nr;
	struct ia_reset_info *r;
};

int ia_reset_init(const struct ia_source *self);
/*
 * "DDDD:BB:DD.F" or "BB:DD.F": the device, referenced; ERR_PTR -EINVAL,
 * -ENODEV, or -EOPNOTSUPP for a bridge.
 */
struct pci_dev *ia_reset_lookup(const char *addr);
/* The scope of @only, or (NULL) of every header-type-0 device. */
struct ia_reset_snap *ia_reset_snapshot(struct pci_dev *only);
void ia_reset_snap_free(struct ia_reset_snap *s);

/* --- source: the charge paths of the per-uid pot (memlock.c) -------------- */

/* A uid's pot as this module followed it since it loaded. */
struct ia_memlock_uid {
	kuid_t uid;
	u64 pages[IA_CONS_COUNT];	/* attributed, still charged */
	u64 pending_pages;		/* of those: waiting for deferred release */
	u64 iommufd_mm_pages;		/* pinned by iommufd, charged to mm->locked_vm */
	u64 iommufd_exempt_pages;	/* pinned by iommufd with CAP_IPC_LOCK */
	u64 charges, refusals;
	u32 inexact;			/* IOMMU_ACCOUNT_UID_INEXACT_* */
	bool has_charger_limit;		/* a charge seen since load: */
	u64 charger_limit;		/* its process's RLIMIT_MEMLOCK (RLIM_INFINITY: none) */
	bool has_last;			/* the last refusal */
	struct ia_failure last;
	struct ia_cgpath *last_cgpath;	/* its cgroup's path then (NULL: unknown), a reference */
};

struct ia_memlock_uids {
	unsigned int nr;
	bool probe_missed;
	bool iommufd;			/* iommufd is followed: its two counts mean something */
	struct ia_memlock_uid u[];	/* sorted by uid */
};

/* What one process still holds of the pots. */
struct ia_memlock_proc {
	pid_t pid;			/* initial pid namespace */
	u64 pages[IA_CONS_COUNT];
	u32 rings;
	bool holds;			/* anything at all */
};

int ia_memlock_init(const struct ia_source *self);
void ia_memlock_exit(const struct ia_source *self);
/* Snapshots; ia_memlock_uids_free() and kvfree() them. */
struct ia_memlock_uids *ia_memlock_uids(void);
void ia_memlock_uids_free(struct ia_memlock_uids *s);
const struct ia_memlock_uid *ia_memlock_uid_find(const struct ia_memlock_uids *s, kuid_t uid);
/* @uid charged when its ledger entry could not be allocated (it has none yet). */
bool ia_memlock_uid_lost(kuid_t uid);
/*
 * What process @pid (its thread group) holds of the pots, into @out: true
 * if anything. A lookup, its cost independent of how much is followed.
 */
bool ia_memlock_proc_of(struct pid *pid, struct ia_memlock_proc *out);
void ia_memlock_thresholds_get(struct ia_thresholds *t, u32 *margin);
void ia_memlock_thresholds_set(const struct ia_thresholds *t, u32 margin);
u64 ia_memlock_probes_missed(void);

/* --- source: processes and what they hold (proc.c) ----------------------- */

struct ia_proc_info {
	pid_t pid;
	kuid_t uid;
	char comm[TASK_COMM_LEN];
	u64 cgid;
	struct cgroup *cgrp;		/* a reference while collecting, then NULL */
	struct ia_cgpath *cgpath;	/* NULL when unknown; put by ia_proc_snap_free() */
	u64 soft, hard;			/* bytes, U64_MAX: unlimited */
	u64 locked_vm, pinned_vm;	/* pages */
	u64 pages[IA_CONS_COUNT];
	u32 rings;
	u32 uring_fds;			/* U32_MAX: unknown */
};

struct ia_proc_snap {
	unsigned int nr;
	struct ia_proc_info p[];	/* sorted by pid */
};

/* Who the request is about: a pid, a uid, or (nothing) the charging ones. */
struct ia_proc_scope {
	bool by_pid, by_uid;
	bool all_of_uid;	/* every process of uid, not only charging ones */
	pid_t pid;		/* in @pidns */
	kuid_t uid;
	/* The caller's: pids are asked and answered in it, and whom it cannot see is left out. */
	struct pid_namespace *pidns;
};

/*
 * The processes @sc asks for, sorted by pid; -EAGAIN when processes kept
 * appearing faster than the snapshot could grow. Free with ia_proc_snap_free().
 */
struct ia_proc_snap *ia_proc_snapshot(const struct ia_proc_scope *sc);
void ia_proc_snap_free(void *snap);

/* Quota objects of one kind, as a source's snapshot gives them. */
struct ia_quota_list {
	unsigned int nr;
	struct ia_quota_rec rec[];	/* sorted by id */
};

/*
 * A list and what its records hold (their extra arrays, their cgroup paths'
 * references); NULL: none (core.c).
 */
void ia_quota_list_free(struct ia_quota_list *l);

/* --- source: quotas published by applications (pub.c) --------------------- */

int ia_pub_init(const struct ia_source *self);
void ia_pub_exit(const struct ia_source *self);
/* Its quota kind, qpair (ia_qpair_kind), is declared in source.h. */

/* --- netlink (nl.c) ---------------------------------------------------------- */

int ia_netlink_init(void);
void ia_netlink_exit(void);

#endif /* _IA_H */
