/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of the netlink layer: nl.c holds the family and the
 * event sink; nl_util.c (a leaf) the permission rules and the dump/reply
 * machinery; nl_uid.c, nl_quota.c, nl_proc.c and nl_vfio.c the attributes
 * of each source. Calls go one way: nl.c -> nl_<source>.c -> nl_util.c.
 * The handlers' prototypes and the operation table are generated from the
 * YNL spec (nl-gen.h, nl-gen.c).
 */
#ifndef _IA_NL_H
#define _IA_NL_H

#include <net/genetlink.h>

#include "ia.h"
#include "nl-gen.h"

/* nl_util.c */
/* The family replies and dumps are sent as (before it is registered). */
void ia_nl_util_init(const struct genl_family *family);
/* Seeing what belongs to other uids needs CAP_SYS_ADMIN (see nl.c). */
bool ia_nl_admin(const struct sk_buff *skb);
/*
 * The uid a request sees: @a's (a uid attribute, or NULL), mapped in the
 * caller's user namespace and refused (-EPERM, extack) if it is another
 * uid's and the caller is not CAP_SYS_ADMIN; with no @a, the caller's own
 * uid unless it is CAP_SYS_ADMIN (*by_uid false: every uid).
 */
int ia_nl_uid_scope(const struct sk_buff *skb, const struct nlattr *a,
		    struct netlink_ext_ack *extack, bool *by_uid, kuid_t *uid);
/* The caller's cgroup namespace is rooted at the cgroup hierarchy's root. */
bool ia_nl_init_cgroup_ns(void);

/* Put element @i of @snap into @skb. */
typedef int (*ia_put_elem_t)(struct sk_buff *skb, const void *snap,
			     unsigned int i, struct user_namespace *ns);

/*
 * Dumps of snapshots: .start takes one point-in-time snapshot (and, with it,
 * who the caller is), .dumpit emits its elements from an index cursor over
 * as many messages as needed, .done frees it.
 */
struct ia_snap_dump {
	void *snap;
	void (*free)(void *snap);
	struct user_namespace *ns;	/* of the dumper */
	unsigned int nr;
	unsigned int next;
};

struct ia_snap_dump *ia_snap_dump_ctx(struct netlink_callback *cb);
void ia_snap_dump_init(struct netlink_callback *cb, void *snap, unsigned int nr,
		       void (*free)(void *snap));
int ia_snap_dumpit(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		   ia_put_elem_t put);
/* Start a dump message (NLM_F_MULTI) of @cmd. */
void *ia_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd);
/* An element that does not fit an empty message: end the dump with an error. */
int ia_dump_too_big(struct sk_buff *skb, struct netlink_callback *cb);

/* Reply to a do with element @i of @snap, in a message as large as it needs. */
int ia_reply_elem(struct genl_info *info, u8 cmd, ia_put_elem_t put,
		  const void *snap, unsigned int i);

/*
 * A dump of elements that carry @p: its messages get room for the longest
 * (netlink allocates NLMSG_GOODSIZE, under 4 KiB, unless told; a reader
 * with a smaller buffer than that gets MSG_TRUNC, not a cut element). Call
 * from the dump's start for each such string.
 */
void ia_dump_room_for(struct netlink_callback *cb, const struct ia_cgpath *p);

int ia_put_owner(struct sk_buff *msg, int attr, const struct ia_owner *o,
		 struct user_namespace *ns);
/*
 * @f as a failure nest at @attr (its cgroup_id 0: none). @cgpath: the
 * refused process's cgroup path from the hierarchy's root, or NULL; sent
 * only to a reader in the initial cgroup namespace.
 */
int ia_put_failure(struct sk_buff *msg, int attr, const struct ia_failure *f,
		   const struct ia_cgpath *cgpath, struct user_namespace *ns);

/* nl_uid.c */
/* One nest of consumer-bytes per consumer with pages, as @attr. */
int ia_put_consumers(struct sk_buff *msg, int attr, const u64 *pages);

/* nl_quota.c */
/* @q as a nest @attr: the same attributes as a GET_QUOTA reply. */
int ia_nl_put_quota_nest(struct sk_buff *msg, int attr, const struct ia_quota_rec *q,
			 struct user_namespace *ns);
int ia_nl_put_quota_kinds(struct sk_buff *msg, const struct ia_feature_info *feat);

/* nl_vfio.c */
int ia_nl_put_vfio_event(struct sk_buff *msg, const struct ia_event *ev);

/* nl.c */
int ia_nl_put_event(struct sk_buff *msg, const struct ia_event *ev);

#endif
