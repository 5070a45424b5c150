/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/iommu_account.yaml */
/* YNL-GEN user header */

#ifndef _LINUX_IOMMU_ACCOUNT_GEN_H
#define _LINUX_IOMMU_ACCOUNT_GEN_H

#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/iommu_account.h>

struct ynl_sock;

extern const struct ynl_family ynl_iommu_account_family;

/* Enums */
const char *iommu_account_op_str(int op);
const char *
iommu_account_feature_state_str(enum iommu_account_feature_state value);
const char *
iommu_account_group_backend_str(enum iommu_account_group_backend value);
const char *iommu_account_event_type_str(enum iommu_account_event_type value);
const char *
iommu_account_threshold_level_str(enum iommu_account_threshold_level value);
const char *iommu_account_inexact_str(enum iommu_account_inexact value);
const char *iommu_account_quota_kind_str(enum iommu_account_quota_kind value);
const char *
iommu_account_reset_scope_str(enum iommu_account_reset_scope value);
const char *
iommu_account_reset_holder_str(enum iommu_account_reset_holder value);
const char *iommu_account_reset_set_str(enum iommu_account_reset_set value);
const char *
iommu_account_reset_set_kind_str(enum iommu_account_reset_set_kind value);
const char *
iommu_account_quota_flags_str(enum iommu_account_quota_flags value);
const char *
iommu_account_iommufd_mode_str(enum iommu_account_iommufd_mode value);
const char *iommu_account_consumer_str(enum iommu_account_consumer value);
const char *
iommu_account_uid_inexact_str(enum iommu_account_uid_inexact value);

/* Common nested types */
struct iommu_account_feature {
	struct {
		__u32 name_len;
		__u32 state:1;
		__u32 detail_len;
	} _present;

	char *name;
	enum iommu_account_feature_state state;
	char *detail;
};

struct iommu_account_quota_kind_info {
	struct {
		__u32 kind:1;
		__u32 name_len;
		__u32 unit_len;
		__u32 refusals:1;
	} _present;

	enum iommu_account_quota_kind kind;
	char *name;
	char *unit;
	__u64 refusals;
};

struct iommu_account_event_budget {
	struct {
		__u32 uid:1;
		__u32 suppressed:1;
		__u32 failures_suppressed:1;
	} _present;

	__u32 uid;
	__u64 suppressed;
	__u64 failures_suppressed;
};

struct iommu_account_consumer_bytes {
	struct {
		__u32 consumer:1;
		__u32 bytes:1;
	} _present;

	enum iommu_account_consumer consumer;
	__u64 bytes;
};

struct iommu_account_device {
	struct {
		__u32 address_len;
		__u32 vendor:1;
		__u32 device:1;
		__u32 driver_len;
	} _present;

	char *address;
	__u16 vendor;
	__u16 device;
	char *driver;
};

struct iommu_account_owner {
	struct {
		__u32 pid:1;
		__u32 uid:1;
		__u32 comm_len;
		__u32 cgroup_id:1;
	} _present;

	__u32 pid;
	__u32 uid;
	char *comm;
	__u64 cgroup_id;
};

struct iommu_account_failure {
	struct {
		__u32 time_ns:1;
		__u32 errno_:1;
		__u32 iova:1;
		__u32 size:1;
		__u32 owner:1;
		__u32 cgroup_id:1;
		__u32 cgroup_len;
		__u32 ioas:1;
		__u32 cgroup_truncated:1;
	} _present;

	__u64 time_ns;
	__u32 errno_;
	__u64 iova;
	__u64 size;
	struct iommu_account_owner owner;
	__u64 cgroup_id;
	char *cgroup;
	__u32 ioas;
};

struct iommu_account_quota_info {
	struct {
		__u32 kind:1;
		__u32 id:1;
		__u32 used:1;
		__u32 limit:1;
		__u32 uid:1;
		__u32 owner:1;
		__u32 refusals:1;
		__u32 name_len;
		__u32 cgroup_id:1;
		__u32 peak:1;
		__u32 submitted:1;
		__u32 completed:1;
		__u32 deferred_now:1;
		__u32 deferred_total:1;
		__u32 warn:1;
		__u32 crit:1;
		__u32 flags:1;
		__u32 iommufd_mode:1;
		__u32 mappings:1;
		__u32 devices:1;
		__u32 last_failure:1;
		__u32 limit_min:1;
	} _present;

	enum iommu_account_quota_kind kind;
	__u32 id;
	__u64 used;
	__u64 limit;
	__u32 uid;
	struct iommu_account_owner owner;
	__u64 refusals;
	char *name;
	__u64 cgroup_id;
	__u64 peak;
	__u64 submitted;
	__u64 completed;
	__u64 deferred_now;
	__u64 deferred_total;
	__u32 warn;
	__u32 crit;
	__u32 flags;
	enum iommu_account_iommufd_mode iommufd_mode;
	__u32 mappings;
	__u32 devices;
	struct iommu_account_failure last_failure;
	__u64 limit_min;
};

struct iommu_account_ioas {
	struct {
		__u32 id:1;
		__u32 areas:1;
		__u32 bytes:1;
		__u32 pinned:1;
	} _present;

	__u32 id;
	__u32 areas;
	__u64 bytes;
	__u64 pinned;
};

struct iommu_account_reset_device {
	struct {
		__u32 address_len;
		__u32 vendor:1;
		__u32 device:1;
		__u32 driver_len;
		__u32 group:1;
		__u32 holder:1;
		__u32 container_id:1;
		__u32 owner:1;
		__u32 reset_set:1;
		__u32 vfio_device:1;
		__u32 virtfn:1;
	} _present;

	char *address;
	__u16 vendor;
	__u16 device;
	char *driver;
	__u32 group;
	enum iommu_account_reset_holder holder;
	__u32 container_id;
	struct iommu_account_owner owner;
	enum iommu_account_reset_set reset_set;
};

/* ============== IOMMU_ACCOUNT_CMD_GET_STATUS ============== */
/* IOMMU_ACCOUNT_CMD_GET_STATUS - do */

struct iommu_account_get_status_rsp {
	struct {
		__u32 module_version_len;
		__u32 kernel_release_len;
		__u32 page_size:1;
		__u32 events_dropped:1;
		__u32 probes_missed:1;
		__u32 vfio_untracked:1;
		__u32 events_seq:1;
		__u32 events_coalesced:1;
		__u32 events_suppressed:1;
		__u32 failures_suppressed:1;
		__u32 failures_dropped:1;
	} _present;

	char *module_version;
	char *kernel_release;
	__u32 page_size;
	unsigned int n_feature;
	struct iommu_account_feature *feature;
	__u64 events_dropped;
	__u64 probes_missed;
	__u32 vfio_untracked;
	unsigned int n_quota_kind;
	struct iommu_account_quota_kind_info *quota_kind;
	__u64 events_seq;
	__u64 events_coalesced;
	__u64 events_suppressed;
	__u64 failures_suppressed;
	__u64 failures_dropped;
	unsigned int n_budget;
	struct iommu_account_event_budget *budget;
};

void
iommu_account_get_status_rsp_free(struct iommu_account_get_status_rsp *rsp);

/*
 * Module version, kernel release and the state of every feature. Open
to every caller. Takes no attributes.

 */
struct iommu_account_get_status_rsp *
iommu_account_get_status(struct ynl_sock *ys);

/* ============== IOMMU_ACCOUNT_CMD_GET_UID ============== */
/* IOMMU_ACCOUNT_CMD_GET_UID - do */
struct iommu_account_get_uid_req {
	struct {
		__u32 uid:1;
	} _present;

	__u32 uid;
};

static inline struct iommu_account_get_uid_req *
iommu_account_get_uid_req_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_uid_req));
}
void iommu_account_get_uid_req_free(struct iommu_account_get_uid_req *req);

static inline void
iommu_account_get_uid_req_set_uid(struct iommu_account_get_uid_req *req,
				  __u32 uid)
{
	req->_present.uid = 1;
	req->uid = uid;
}

struct iommu_account_get_uid_rsp {
	struct {
		__u32 uid:1;
		__u32 locked_bytes:1;
		__u32 tasks:1;
		__u32 memlock_min:1;
		__u32 memlock_max:1;
		__u32 headroom:1;
		__u32 unattributed_bytes:1;
		__u32 pending_bytes:1;
		__u32 cgroups:1;
		__u32 charges:1;
		__u32 refusals:1;
		__u32 inexact:1;
		__u32 iommufd_mm_bytes:1;
		__u32 iommufd_exempt_bytes:1;
	} _present;

	__u32 uid;
	__u64 locked_bytes;
	__u32 tasks;
	__u64 memlock_min;
	__u64 memlock_max;
	__s64 headroom;
	unsigned int n_consumer;
	struct iommu_account_consumer_bytes *consumer;
	__u64 unattributed_bytes;
	__u64 pending_bytes;
	__u32 cgroups;
	__u64 charges;
	__u64 refusals;
	__u32 inexact;
	__u64 iommufd_mm_bytes;
	__u64 iommufd_exempt_bytes;
};

void iommu_account_get_uid_rsp_free(struct iommu_account_get_uid_rsp *rsp);

/*
 * Per-uid locked-memory pot. do: the uid named by the uid attribute
(ENOENT when that user has no user_struct). dump: every user with a
live user_struct, sorted by uid, from one point-in-time snapshot; a
uid attribute in the dump request filters to that uid. A caller
without CAP_SYS_ADMIN in the initial user namespace sees its own
real uid only (do on another uid: EPERM).

 */
struct iommu_account_get_uid_rsp *
iommu_account_get_uid(struct ynl_sock *ys,
		      struct iommu_account_get_uid_req *req);

/* IOMMU_ACCOUNT_CMD_GET_UID - dump */
struct iommu_account_get_uid_req_dump {
	struct {
		__u32 uid:1;
	} _present;

	__u32 uid;
};

static inline struct iommu_account_get_uid_req_dump *
iommu_account_get_uid_req_dump_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_uid_req_dump));
}
void
iommu_account_get_uid_req_dump_free(struct iommu_account_get_uid_req_dump *req);

static inline void
iommu_account_get_uid_req_dump_set_uid(struct iommu_account_get_uid_req_dump *req,
				       __u32 uid)
{
	req->_present.uid = 1;
	req->uid = uid;
}

struct iommu_account_get_uid_list {
	struct iommu_account_get_uid_list *next;
	struct iommu_account_get_uid_rsp obj __attribute__((aligned(8)));
};

void iommu_account_get_uid_list_free(struct iommu_account_get_uid_list *rsp);

struct iommu_account_get_uid_list *
iommu_account_get_uid_dump(struct ynl_sock *ys,
			   struct iommu_account_get_uid_req_dump *req);

/* ============== IOMMU_ACCOUNT_CMD_GET_GROUP ============== */
/* IOMMU_ACCOUNT_CMD_GET_GROUP - do */
struct iommu_account_get_group_req {
	struct {
		__u32 id:1;
	} _present;

	__u32 id;
};

static inline struct iommu_account_get_group_req *
iommu_account_get_group_req_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_group_req));
}
void iommu_account_get_group_req_free(struct iommu_account_get_group_req *req);

static inline void
iommu_account_get_group_req_set_id(struct iommu_account_get_group_req *req,
				   __u32 id)
{
	req->_present.id = 1;
	req->id = id;
}

struct iommu_account_get_group_rsp {
	struct {
		__u32 id:1;
		__u32 backend:1;
		__u32 container_id:1;
		__u32 owner:1;
	} _present;

	__u32 id;
	unsigned int n_device;
	struct iommu_account_device *device;
	enum iommu_account_group_backend backend;
	__u32 container_id;
	struct iommu_account_owner owner;
};

void iommu_account_get_group_rsp_free(struct iommu_account_get_group_rsp *rsp);

/*
 * IOMMU groups with PCI devices. do: by id (ENOENT if none); dump: all,
sorted by id. A caller without CAP_SYS_ADMIN sees the groups it
attached only.

 */
struct iommu_account_get_group_rsp *
iommu_account_get_group(struct ynl_sock *ys,
			struct iommu_account_get_group_req *req);

/* IOMMU_ACCOUNT_CMD_GET_GROUP - dump */
struct iommu_account_get_group_list {
	struct iommu_account_get_group_list *next;
	struct iommu_account_get_group_rsp obj __attribute__((aligned(8)));
};

void
iommu_account_get_group_list_free(struct iommu_account_get_group_list *rsp);

struct iommu_account_get_group_list *
iommu_account_get_group_dump(struct ynl_sock *ys);

/* ============== IOMMU_ACCOUNT_CMD_GET_CONTAINER ============== */
/* IOMMU_ACCOUNT_CMD_GET_CONTAINER - do */
struct iommu_account_get_container_req {
	struct {
		__u32 id:1;
	} _present;

	__u32 id;
};

static inline struct iommu_account_get_container_req *
iommu_account_get_container_req_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_container_req));
}
void
iommu_account_get_container_req_free(struct iommu_account_get_container_req *req);

static inline void
iommu_account_get_container_req_set_id(struct iommu_account_get_container_req *req,
				       __u32 id)
{
	req->_present.id = 1;
	req->id = id;
}

struct iommu_account_get_container_rsp {
	struct {
		__u32 id:1;
		__u32 entries:1;
		__u32 limit:1;
		__u32 mapped_bytes:1;
		__u32 pinned_pages:1;
		__u32 pinned_uid:1;
		__u32 owner:1;
		__u32 map_ops:1;
		__u32 unmap_ops:1;
		__u32 fail_enospc:1;
		__u32 fail_enomem:1;
		__u32 fail_einval:1;
		__u32 fail_other:1;
		__u32 last_failure:1;
		__u32 inexact:1;
	} _present;

	__u32 id;
	unsigned int n_group;
	__u32 *group;
	__u32 entries;
	__u32 limit;
	__u64 mapped_bytes;
	__u64 pinned_pages;
	__u32 pinned_uid;
	struct iommu_account_owner owner;
	__u64 map_ops;
	__u64 unmap_ops;
	__u64 fail_enospc;
	__u64 fail_enomem;
	__u64 fail_einval;
	__u64 fail_other;
	struct iommu_account_failure last_failure;
	__u32 inexact;
};

void
iommu_account_get_container_rsp_free(struct iommu_account_get_container_rsp *rsp);

/*
 * VFIO type1 containers. do: by id (ENOENT if none); dump: all, sorted
by id. A caller without CAP_SYS_ADMIN sees the containers whose
owner has its real uid only.

 */
struct iommu_account_get_container_rsp *
iommu_account_get_container(struct ynl_sock *ys,
			    struct iommu_account_get_container_req *req);

/* IOMMU_ACCOUNT_CMD_GET_CONTAINER - dump */
struct iommu_account_get_container_list {
	struct iommu_account_get_container_list *next;
	struct iommu_account_get_container_rsp obj __attribute__((aligned(8)));
};

void
iommu_account_get_container_list_free(struct iommu_account_get_container_list *rsp);

struct iommu_account_get_container_list *
iommu_account_get_container_dump(struct ynl_sock *ys);

/* ============== IOMMU_ACCOUNT_CMD_GET_THRESHOLDS ============== */
/* IOMMU_ACCOUNT_CMD_GET_THRESHOLDS - do */
struct iommu_account_get_thresholds_req {
	struct {
		__u32 kind:1;
	} _present;

	enum iommu_account_quota_kind kind;
};

static inline struct iommu_account_get_thresholds_req *
iommu_account_get_thresholds_req_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_thresholds_req));
}
void
iommu_account_get_thresholds_req_free(struct iommu_account_get_thresholds_req *req);

static inline void
iommu_account_get_thresholds_req_set_kind(struct iommu_account_get_thresholds_req *req,
					  enum iommu_account_quota_kind kind)
{
	req->_present.kind = 1;
	req->kind = kind;
}

struct iommu_account_get_thresholds_rsp {
	struct {
		__u32 warn:1;
		__u32 crit:1;
		__u32 kind:1;
		__u32 margin:1;
	} _present;

	__u32 warn;
	__u32 crit;
	enum iommu_account_quota_kind kind;
	__u32 margin;
};

void
iommu_account_get_thresholds_rsp_free(struct iommu_account_get_thresholds_rsp *rsp);

/*
 * The fractions that raise threshold events.
 */
struct iommu_account_get_thresholds_rsp *
iommu_account_get_thresholds(struct ynl_sock *ys,
			     struct iommu_account_get_thresholds_req *req);

/* ============== IOMMU_ACCOUNT_CMD_SET_THRESHOLDS ============== */
/* IOMMU_ACCOUNT_CMD_SET_THRESHOLDS - do */
struct iommu_account_set_thresholds_req {
	struct {
		__u32 warn:1;
		__u32 crit:1;
		__u32 kind:1;
		__u32 margin:1;
	} _present;

	__u32 warn;
	__u32 crit;
	enum iommu_account_quota_kind kind;
	__u32 margin;
};

static inline struct iommu_account_set_thresholds_req *
iommu_account_set_thresholds_req_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_set_thresholds_req));
}
void
iommu_account_set_thresholds_req_free(struct iommu_account_set_thresholds_req *req);

static inline void
iommu_account_set_thresholds_req_set_warn(struct iommu_account_set_thresholds_req *req,
					  __u32 warn)
{
	req->_present.warn = 1;
	req->warn = warn;
}
static inline void
iommu_account_set_thresholds_req_set_crit(struct iommu_account_set_thresholds_req *req,
					  __u32 crit)
{
	req->_present.crit = 1;
	req->crit = crit;
}
static inline void
iommu_account_set_thresholds_req_set_kind(struct iommu_account_set_thresholds_req *req,
					  enum iommu_account_quota_kind kind)
{
	req->_present.kind = 1;
	req->kind = kind;
}
static inline void
iommu_account_set_thresholds_req_set_margin(struct iommu_account_set_thresholds_req *req,
					    __u32 margin)
{
	req->_present.margin = 1;
	req->margin = margin;
}

struct iommu_account_set_thresholds_rsp {
	struct {
		__u32 warn:1;
		__u32 crit:1;
		__u32 kind:1;
		__u32 margin:1;
	} _present;

	__u32 warn;
	__u32 crit;
	enum iommu_account_quota_kind kind;
	__u32 margin;
};

void
iommu_account_set_thresholds_rsp_free(struct iommu_account_set_thresholds_rsp *rsp);

/*
 * Change the fractions (CAP_SYS_ADMIN in the initial user namespace;
CAP_NET_ADMIN is not enough: EPERM). Both must be given; out of
range or warn >= crit: EINVAL and the old values stay. The new
fractions apply to the present counts at once: a level a container
is already past is raised now, a level above its count re-arms.

 */
struct iommu_account_set_thresholds_rsp *
iommu_account_set_thresholds(struct ynl_sock *ys,
			     struct iommu_account_set_thresholds_req *req);

/* ============== IOMMU_ACCOUNT_CMD_GET_PROC ============== */
/* IOMMU_ACCOUNT_CMD_GET_PROC - do */
struct iommu_account_get_proc_req {
	struct {
		__u32 pid:1;
	} _present;

	__u32 pid;
};

static inline struct iommu_account_get_proc_req *
iommu_account_get_proc_req_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_proc_req));
}
void iommu_account_get_proc_req_free(struct iommu_account_get_proc_req *req);

static inline void
iommu_account_get_proc_req_set_pid(struct iommu_account_get_proc_req *req,
				   __u32 pid)
{
	req->_present.pid = 1;
	req->pid = pid;
}

struct iommu_account_get_proc_rsp {
	struct {
		__u32 pid:1;
		__u32 uid:1;
		__u32 comm_len;
		__u32 cgroup_id:1;
		__u32 memlock_soft:1;
		__u32 memlock_hard:1;
		__u32 locked_vm_bytes:1;
		__u32 pinned_vm_bytes:1;
		__u32 rings:1;
		__u32 cgroup_len;
		__u32 cgroup_truncated:1;
		__u32 uring_fds:1;
	} _present;

	__u32 pid;
	__u32 uid;
	char *comm;
	__u64 cgroup_id;
	__u64 memlock_soft;
	__u64 memlock_hard;
	unsigned int n_consumer;
	struct iommu_account_consumer_bytes *consumer;
	__u64 locked_vm_bytes;
	__u64 pinned_vm_bytes;
	__u32 rings;
	char *cgroup;
	__u32 uring_fds;
};

void iommu_account_get_proc_rsp_free(struct iommu_account_get_proc_rsp *rsp);

/*
 * Processes and what they hold of their uid's pot. do: the process
named by pid (ENOENT if none). dump: every process that holds
charges this module attributed, plus, with a uid attribute, every
live process of that uid; sorted by pid. Pids are the caller's pid
namespace's, asked and answered in it; a process it cannot see is
left out. A caller without CAP_SYS_ADMIN sees processes of its own
real uid only: a do on another uid's process answers ENOENT, "no
such process", as for none (no oracle of who runs).

 */
struct iommu_account_get_proc_rsp *
iommu_account_get_proc(struct ynl_sock *ys,
		       struct iommu_account_get_proc_req *req);

/* IOMMU_ACCOUNT_CMD_GET_PROC - dump */
struct iommu_account_get_proc_req_dump {
	struct {
		__u32 uid:1;
	} _present;

	__u32 uid;
};

static inline struct iommu_account_get_proc_req_dump *
iommu_account_get_proc_req_dump_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_proc_req_dump));
}
void
iommu_account_get_proc_req_dump_free(struct iommu_account_get_proc_req_dump *req);

static inline void
iommu_account_get_proc_req_dump_set_uid(struct iommu_account_get_proc_req_dump *req,
					__u32 uid)
{
	req->_present.uid = 1;
	req->uid = uid;
}

struct iommu_account_get_proc_list {
	struct iommu_account_get_proc_list *next;
	struct iommu_account_get_proc_rsp obj __attribute__((aligned(8)));
};

void iommu_account_get_proc_list_free(struct iommu_account_get_proc_list *rsp);

struct iommu_account_get_proc_list *
iommu_account_get_proc_dump(struct ynl_sock *ys,
			    struct iommu_account_get_proc_req_dump *req);

/* ============== IOMMU_ACCOUNT_CMD_GET_QUOTA ============== */
/* IOMMU_ACCOUNT_CMD_GET_QUOTA - do */
struct iommu_account_get_quota_req {
	struct {
		__u32 kind:1;
		__u32 id:1;
	} _present;

	enum iommu_account_quota_kind kind;
	__u32 id;
};

static inline struct iommu_account_get_quota_req *
iommu_account_get_quota_req_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_quota_req));
}
void iommu_account_get_quota_req_free(struct iommu_account_get_quota_req *req);

static inline void
iommu_account_get_quota_req_set_kind(struct iommu_account_get_quota_req *req,
				     enum iommu_account_quota_kind kind)
{
	req->_present.kind = 1;
	req->kind = kind;
}
static inline void
iommu_account_get_quota_req_set_id(struct iommu_account_get_quota_req *req,
				   __u32 id)
{
	req->_present.id = 1;
	req->id = id;
}

struct iommu_account_get_quota_rsp {
	struct {
		__u32 kind:1;
		__u32 id:1;
		__u32 used:1;
		__u32 limit:1;
		__u32 uid:1;
		__u32 owner:1;
		__u32 refusals:1;
		__u32 name_len;
		__u32 cgroup_id:1;
		__u32 peak:1;
		__u32 submitted:1;
		__u32 completed:1;
		__u32 deferred_now:1;
		__u32 deferred_total:1;
		__u32 warn:1;
		__u32 crit:1;
		__u32 flags:1;
		__u32 last_failure:1;
		__u32 iommufd_mode:1;
		__u32 mappings:1;
		__u32 devices:1;
		__u32 limit_min:1;
	} _present;

	enum iommu_account_quota_kind kind;
	__u32 id;
	__u64 used;
	__u64 limit;
	__u32 uid;
	struct iommu_account_owner owner;
	__u64 refusals;
	char *name;
	__u64 cgroup_id;
	__u64 peak;
	__u64 submitted;
	__u64 completed;
	__u64 deferred_now;
	__u64 deferred_total;
	__u32 warn;
	__u32 crit;
	__u32 flags;
	struct iommu_account_failure last_failure;
	enum iommu_account_iommufd_mode iommufd_mode;
	__u32 mappings;
	__u32 devices;
	unsigned int n_ioas;
	struct iommu_account_ioas *ioas;
	__u64 limit_min;
};

void iommu_account_get_quota_rsp_free(struct iommu_account_get_quota_rsp *rsp);

/*
 * Every quota object of every kind in one shape, for monitors that
must follow kinds added later without knowing them. do: the object
named by kind and id (ENOENT if none). dump: all, by kind then id,
from one snapshot per kind; kind, uid and pid attributes in the
request filter (pid - the owner's; a uid pot has no owner). Permissions
are those of the kind's own object (without CAP_SYS_ADMIN - the
caller's own uid, containers and qpairs).

 */
struct iommu_account_get_quota_rsp *
iommu_account_get_quota(struct ynl_sock *ys,
			struct iommu_account_get_quota_req *req);

/* IOMMU_ACCOUNT_CMD_GET_QUOTA - dump */
struct iommu_account_get_quota_req_dump {
	struct {
		__u32 kind:1;
		__u32 uid:1;
		__u32 pid:1;
	} _present;

	enum iommu_account_quota_kind kind;
	__u32 uid;
	__u32 pid;
};

static inline struct iommu_account_get_quota_req_dump *
iommu_account_get_quota_req_dump_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_quota_req_dump));
}
void
iommu_account_get_quota_req_dump_free(struct iommu_account_get_quota_req_dump *req);

static inline void
iommu_account_get_quota_req_dump_set_kind(struct iommu_account_get_quota_req_dump *req,
					  enum iommu_account_quota_kind kind)
{
	req->_present.kind = 1;
	req->kind = kind;
}
static inline void
iommu_account_get_quota_req_dump_set_uid(struct iommu_account_get_quota_req_dump *req,
					 __u32 uid)
{
	req->_present.uid = 1;
	req->uid = uid;
}
static inline void
iommu_account_get_quota_req_dump_set_pid(struct iommu_account_get_quota_req_dump *req,
					 __u32 pid)
{
	req->_present.pid = 1;
	req->pid = pid;
}

struct iommu_account_get_quota_list {
	struct iommu_account_get_quota_list *next;
	struct iommu_account_get_quota_rsp obj __attribute__((aligned(8)));
};

void
iommu_account_get_quota_list_free(struct iommu_account_get_quota_list *rsp);

struct iommu_account_get_quota_list *
iommu_account_get_quota_dump(struct ynl_sock *ys,
			     struct iommu_account_get_quota_req_dump *req);

/* ============== IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE ============== */
/* IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE - do */
struct iommu_account_get_reset_scope_req {
	struct {
		__u32 address_len;
	} _present;

	char *address;
};

static inline struct iommu_account_get_reset_scope_req *
iommu_account_get_reset_scope_req_alloc(void)
{
	return calloc(1, sizeof(struct iommu_account_get_reset_scope_req));
}
void
iommu_account_get_reset_scope_req_free(struct iommu_account_get_reset_scope_req *req);

static inline void
iommu_account_get_reset_scope_req_set_address(struct iommu_account_get_reset_scope_req *req,
					      const char *address)
{
	free(req->address);
	req->_present.address_len = strlen(address);
	req->address = malloc(req->_present.address_len + 1);
	memcpy(req->address, address, req->_present.address_len);
	req->address[req->_present.address_len] = 0;
}

struct iommu_account_get_reset_scope_rsp {
	struct {
		__u32 address_len;
		__u32 scope:1;
		__u32 group:1;
		__u32 set_kind:1;
		__u32 vfio_device:1;
	} _present;

	char *address;
	enum iommu_account_reset_scope scope;
	__u32 group;
	unsigned int n_affected;
	struct iommu_account_reset_device *affected;
	enum iommu_account_reset_set_kind set_kind;
};

void
iommu_account_get_reset_scope_rsp_free(struct iommu_account_get_reset_scope_rsp *rsp);

/*
 * Hot-reset scopes. do: the device named by address (EINVAL for an
address that is not DDDD:BB:DD.F, ENODEV for no such device, EINVAL
for a bridge); dump: every PCI device of header type 0, in the
kernel's device order. Open to every caller (the topology is in
sysfs); owners and containers of groups held by other uids are shown
only with CAP_SYS_ADMIN.

 */
struct iommu_account_get_reset_scope_rsp *
iommu_account_get_reset_scope(struct ynl_sock *ys,
			      struct iommu_account_get_reset_scope_req *req);

/* IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE - dump */
struct iommu_account_get_reset_scope_list {
	struct iommu_account_get_reset_scope_list *next;
	struct iommu_account_get_reset_scope_rsp obj __attribute__((aligned(8)));
};

void
iommu_account_get_reset_scope_list_free(struct iommu_account_get_reset_scope_list *rsp);

struct iommu_account_get_reset_scope_list *
iommu_account_get_reset_scope_dump(struct ynl_sock *ys);

/* ============== IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS ============== */
/* IOMMU_ACCOUNT_CMD_SUBSCRIBE_EVENTS - do */

/*
 * Send the events to this socket, unicast, until it closes: for a
kernel that cannot restrict a multicast group to CAP_SYS_ADMIN
(before 6.8 and its stable backports, e.g. 5.10), where the events
group is not offered, and on every kernel for a client that asks.
Needs CAP_SYS_ADMIN in the initial user namespace and a socket of
the initial network namespace (EPERM otherwise); at most 64
sockets at once (ENOSPC); a socket already subscribed stays so,
once. Takes no attributes. A socket that falls behind loses events
as a group member does: ENOBUFS on its next read, the events'
sequence numbers saying how many.

 */
int iommu_account_subscribe_events(struct ynl_sock *ys);

/* IOMMU_ACCOUNT_CMD_EVENT - event */
struct iommu_account_event_rsp {
	struct {
		__u32 seq:1;
		__u32 type:1;
		__u32 time_ns:1;
		__u32 container_id:1;
		__u32 entries:1;
		__u32 limit:1;
		__u32 owner:1;
		__u32 errno_:1;
		__u32 iova:1;
		__u32 size:1;
		__u32 locked_bytes:1;
		__u32 memlock_limit:1;
		__u32 level:1;
		__u32 threshold:1;
		__u32 count:1;
		__u32 group_count:1;
		__u32 kind:1;
		__u32 uid:1;
		__u32 consumer:1;
		__u32 cgroup_id:1;
		__u32 quota:1;
		__u32 ioas:1;
	} _present;

	__u64 seq;
	enum iommu_account_event_type type;
	__u64 time_ns;
	__u32 container_id;
	unsigned int n_group;
	__u32 *group;
	__u32 entries;
	__u32 limit;
	struct iommu_account_owner owner;
	__u32 errno_;
	__u64 iova;
	__u64 size;
	__u64 locked_bytes;
	__u64 memlock_limit;
	enum iommu_account_threshold_level level;
	__u32 threshold;
	__u32 count;
	__u32 group_count;
	enum iommu_account_quota_kind kind;
	__u32 uid;
	enum iommu_account_consumer consumer;
	__u64 cgroup_id;
	struct iommu_account_quota_info quota;
	__u32 ioas;
};

struct iommu_account_event {
	__u16 family;
	__u8 cmd;
	struct ynl_ntf_base_type *next;
	void (*free)(struct iommu_account_event *ntf);
	struct iommu_account_event_rsp obj __attribute__((aligned(8)));
};

void iommu_account_event_free(struct iommu_account_event *rsp);

#endif /* _LINUX_IOMMU_ACCOUNT_GEN_H */
