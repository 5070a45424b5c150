/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source interface: what each source of the module declares, and the
 * one table (sources.c) that main.c, the netlink layer (GET_QUOTA, STATUS,
 * thresholds) and the memlock ledger walk. A source never names another:
 * a new quota kind is its own file, its struct ia_quota_kind, and a line of the
 * table.
 */
#ifndef _IA_SOURCE_H
#define _IA_SOURCE_H

#include "ia.h"

struct sk_buff;
struct ia_hook_set;

/*
 * What a GET_QUOTA request lets a kind's snapshot take: @asked, as the
 * request put it; @seen, the objects of owners the caller may see (its own
 * uid, unless CAP_SYS_ADMIN); @ns, the caller's user namespace.
 */
struct ia_quota_query {
	s64 kind;			/* -1: every kind */
	struct ia_filter asked;
	struct ia_filter seen;
	struct user_namespace *ns;
};

/* One quota kind, as the source that serves it declares it. */
struct ia_quota_kind {
	u32 id;				/* enum ia_kind */
	const char *name;		/* the spec's quota-kind name */
	const char *unit;
	enum ia_feature needs;		/* the feature that must be active */
	bool (*followed)(void);		/* and what of it must have taken (NULL: all) */
	/* The objects @q lets through, sorted by id; free with ia_quota_list_free(). */
	struct ia_quota_list *(*snapshot)(const struct ia_quota_query *q);
	/* The kind's own attributes of a GET_QUOTA record (NULL: none). */
	int (*put)(struct sk_buff *msg, const struct ia_quota_rec *q);
	/* Thresholds of the kind (NULL: none, @no_thresholds says why). */
	void (*thr_get)(struct ia_thresholds *t, u32 *margin);
	/* @margin NULL: the kind keeps a margin that fits @t. */
	void (*thr_set)(const struct ia_thresholds *t, const u32 *margin);
	bool has_margin;
	const char *no_thresholds;
};

/*
 * A source: a part of the module with its own hooks and state. The table's
 * sources are initialised in its order and exited in reverse; a source's
 * parts (the memlock ledger's consumers: io_uring, AF_XDP, iommufd) have the
 * same shape, and their owner brings them up: @init chooses the hooks,
 * @hooks are registered by the owner, @start switches on what took (again
 * after a livepatch changed them), @exit forgets what was in flight.
 */
struct ia_source {
	const char *name;
	int (*init)(const struct ia_source *self);
	void (*exit)(const struct ia_source *self);
	const struct ia_quota_kind *kind;	/* the quota kind it serves, if any */
	u64 (*probes_missed)(void);	/* calls its hooks did not see (NULL: none) */
	enum ia_feature feature;	/* a part's feature */
	struct ia_hook_set *hooks;
	void (*start)(void);
	const struct ia_source *const *parts;	/* NULL-terminated */
};

/* What the table names, each declared where it is defined. */
extern const struct ia_quota_kind ia_uid_pot_kind;		/* nl_uid.c */
extern const struct ia_quota_kind ia_vfio_container_kind;	/* nl_vfio.c */
extern const struct ia_quota_kind ia_qpair_kind;		/* pub.c */
extern const struct ia_source ia_ml_uring_source;		/* memlock_uring.c */
extern const struct ia_source ia_ml_xdp_source;			/* memlock_xdp.c */
extern const struct ia_source ia_ml_iommufd_source;		/* memlock_iommufd.c */

/* The table (sources.c), NULL-terminated, in the order of initialisation. */
extern const struct ia_source *const ia_sources[];

/* The quota kind @id as its source or part declares it; NULL: none serves it. */
const struct ia_quota_kind *ia_kind_of(u32 id);

int ia_sources_init(void);
void ia_sources_exit(void);
u64 ia_sources_probes_missed(void);

#endif
