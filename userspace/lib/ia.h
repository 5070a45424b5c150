/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libia: the client side of the iommu_account generic netlink family,
 * shared by iommu-accountctl and iommu-accountd.
 *
 *  - transport: family discovery, do/dump requests, the kernel's errno and
 *    extack message, the events group (with overrun and sequence-gap loss);
 *  - typed parsers: one struct per object kind, filled from a message;
 *    attributes this library does not know are ignored (newer module);
 *  - errno -> exit status, errno names, byte formatting, a JSON writer.
 *
 * Nothing here prints: errors are returned as -errno with a message in
 * struct ia_client.errmsg, and the front ends decide what to say.
 */
#ifndef IA_LIB_H
#define IA_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ynl_sock;

/* Exit status of the front ends (documented in Documentation/ctl.md). */
enum {
	IA_EXIT_OK = 0,
	IA_EXIT_USAGE = 1,	/* bad command line */
	IA_EXIT_NOMODULE = 2,	/* iommu_account is not loaded */
	IA_EXIT_PERM = 3,	/* permission denied */
	IA_EXIT_NOENT = 4,	/* the object asked for does not exist */
	IA_EXIT_UNSUPP = 5,	/* the loaded module or kernel lacks it */
	IA_EXIT_FAIL = 6,	/* any other failure */
	IA_EXIT_SIGNATURE = 7,	/* the kernel refuses the module: signatures are enforced */
	IA_EXIT_WONTFIT = 8,	/* plan: the workload would be refused */
	IA_EXIT_UNREAD = 9,	/* plan: the verdict rests on figures it could not read */
};

#ifndef IA_VERSION
#error "IA_VERSION comes from the top-level VERSION file (userspace/Makefile)"
#endif

struct ia_client {
	struct ynl_sock *ys;	/* libynl's socket, the family resolved */
	/* The last failure: -errno, the kernel's extack text, a sentence. */
	int err;
	char extack[256];
	char errmsg[1100];
	/* After -ENOENT from ia_client_open: IA_EXIT_NOMODULE or IA_EXIT_SIGNATURE. */
	int nomodule_exit;
};

/*
 * Open a socket and resolve the family. Returns 0, -ENOENT when the module
 * is not loaded (errmsg: why, from ia_module_diagnose(), and what to do;
 * nomodule_exit: the exit status that says it), or another -errno.
 */
int ia_client_open(struct ia_client *c);
void ia_client_close(struct ia_client *c);
/*
 * Why the module is not loaded (after ia_client_open's -ENOENT): read from
 * /proc, /sys, modules.dep and DKMS's tree, without privileges; text is the
 * cause and the one thing to do. See diag.c.
 */
enum ia_module_cause {
	IA_MOD_NO_MODULES,	/* the kernel has no module support */
	IA_MOD_NO_FAMILY,	/* loaded, but its family is not registered */
	IA_MOD_DISABLED,	/* kernel.modules_disabled=1 */
	IA_MOD_NOT_INSTALLED,	/* no module for the running kernel */
	IA_MOD_SIGNATURE,	/* signatures enforced, the module's not trusted */
	IA_MOD_NOT_LOADED,	/* installed; nothing here explains it */
};

enum ia_module_sig {
	IA_SIG_UNKNOWN,		/* unreadable */
	IA_SIG_NONE,		/* no signature appended */
	IA_SIG_DKMS,		/* signed with DKMS's key (/var/lib/dkms/mok.pub) */
	IA_SIG_OTHER,		/* signed with another key */
	IA_SIG_COMPRESSED,	/* compressed: not looked into */
};

struct ia_module_diag {
	enum ia_module_cause cause;
	char krel[65];		/* uname -r */
	char path[384];		/* the installed module ("" when none) */
	enum ia_module_sig sig;
	bool sig_enforce;	/* module.sig_enforce */
	bool enforced;		/* sig_enforce, or lockdown other than none */
	char lockdown[24];	/* "none", "integrity", "confidentiality", "" unknown */
	int secure_boot;	/* 1, 0, -1 unknown (no EFI variables) */
	char text[1024];
};

enum ia_module_cause ia_module_diagnose(struct ia_module_diag *d);
/* IA_EXIT_SIGNATURE for a signature refusal, else IA_EXIT_NOMODULE. */
int ia_module_exit_status(const struct ia_module_diag *d);

/* The exit status for a -errno returned by this library. */
int ia_exit_status(int err);
/* errno's symbolic name ("ENOSPC"), portable (no strerrorname_np). */
const char *ia_errno_name(int err);

/* --- objects -------------------------------------------------------- */

struct ia_owner {
	bool present;
	uint32_t pid, uid;
	char comm[16];
	uint64_t cgroup_id;		/* its cgroup v2 id when it acted; 0: unknown */
};

struct ia_feature {
	char name[32];
	bool active;
	char detail[384];
};

#define IA_MAX_FEATURES 32
#define IA_MAX_QUOTA_KINDS 16

/* A kind of quota the module follows (STATUS' quota-kind nests). */
struct ia_quota_kind {
	uint32_t kind;			/* IOMMU_ACCOUNT_QUOTA_KIND_* */
	char name[32];			/* "uid-pot" */
	char unit[16];			/* "bytes", "entries" */
	bool has_refusals;		/* false: a module without them */
	uint64_t refusals;		/* since load, every object's, gone ones included */
};

/* The uids with events over their budget STATUS lists, at most. */
#define IA_MAX_BUDGETS 64

struct ia_status {
	char module_version[32];
	char kernel_release[65];
	uint32_t page_size;
	unsigned int nfeatures;
	struct ia_feature features[IA_MAX_FEATURES];
	uint64_t events_dropped;
	uint64_t probes_missed;
	uint32_t vfio_untracked;
	unsigned int nkinds;
	struct ia_quota_kind kinds[IA_MAX_QUOTA_KINDS];
	bool has_events_seq;
	uint64_t events_seq;		/* the last event sent */
	/* event budgets (a module without them: has_budget false) */
	bool has_budget;
	uint64_t events_coalesced, events_suppressed, failures_suppressed, failures_dropped;
	unsigned int nbudget;
	struct ia_event_budget {
		uint32_t uid;
		uint64_t suppressed, failures_suppressed;
	} budget[IA_MAX_BUDGETS];
};

/*
 * Room for a cgroup path: PATH_MAX, the module's bound. A longer path comes
 * from the module cut before a character with its truncated flag set.
 */
#define IA_CGROUP_MAX 4096

/* A refusal the kernel made (a container's mapping, a pot's charge). */
struct ia_failure {
	bool present;
	uint64_t time_ns;
	uint32_t err;
	uint64_t iova, size;
	struct ia_owner owner;
	uint64_t cgroup_id;		/* pot: the refused process's cgroup; 0: unknown */
	char cgroup[IA_CGROUP_MAX];	/* pot: its path, taken at the refusal; "": unknown */
	bool cgroup_truncated;		/* longer than that: its beginning only */
	uint32_t ioas;			/* iommufd: the IOAS being mapped into; 0: unknown */
};

/* One IOAS of an iommufd context (GET_QUOTA's ioas nests). */
struct ia_ioas {
	bool has_id;			/* absent: the compat container's, its id not seen */
	uint32_t id, areas;
	uint64_t bytes, pinned;
};

/* One quota object of any kind (GET_QUOTA). */
struct ia_quota {
	uint32_t kind, id;
	uint64_t used;
	bool has_limit;			/* absent: no limit known */
	uint64_t limit;			/* uid-pot: the last charger's (flag LIMIT_SMALLEST: limit_min) */
	bool has_limit_min;		/* uid-pot: the smallest RLIMIT_MEMLOCK of the uid's processes */
	uint64_t limit_min;
	uint32_t uid;
	struct ia_owner owner;
	uint64_t refusals;
	/* kinds published by applications (qpair): present when has_pub */
	bool has_pub;
	char name[64];
	uint64_t cgroup_id;
	uint64_t peak, submitted, completed, deferred_now, deferred_total;
	uint32_t warn, crit;		/* per mille */
	uint32_t flags;			/* IOMMU_ACCOUNT_QUOTA_FLAGS_* */
	struct ia_failure last_failure;	/* the kernel's last refusal of it */
	/* an iommufd context: present when has_iommufd */
	bool has_iommufd;
	uint32_t iommufd_mode;		/* IOMMU_ACCOUNT_IOMMUFD_MODE_* */
	uint32_t mappings, devices;
	/* its IOAS (GET_QUOTA replies, not events): valid during the callback only */
	bool ioas_listed;		/* a reply, where the IOAS are listed */
	unsigned int nioas;
	const struct ia_ioas *ioas;
};

#define IA_NCONSUMERS 6		/* consumers this library knows */

struct ia_uid_breakdown {
	bool present;			/* the module reports it */
	uint64_t consumer[IA_NCONSUMERS];	/* bytes by IOMMU_ACCOUNT_CONSUMER_* */
	uint64_t unattributed, pending;
	uint32_t cgroups;
	uint64_t charges, refusals;
	uint32_t inexact;		/* IOMMU_ACCOUNT_UID_INEXACT_* bits */
	/* iommufd's pins of the uid outside the pot (present when followed) */
	bool has_iommufd;
	uint64_t iommufd_mm, iommufd_exempt;
};

struct ia_uid {
	uint32_t uid;
	uint64_t locked_bytes;
	uint32_t tasks;
	/* Absent when no live task; UINT64_MAX = unlimited. */
	bool has_memlock;
	uint64_t memlock_min, memlock_max;
	bool has_headroom;
	int64_t headroom;
	struct ia_uid_breakdown b;
};

/* Lists (groups, devices) are allocated per message, every element kept. */
struct ia_container {
	uint32_t id;
	unsigned int ngroups;
	uint32_t *groups;
	uint32_t entries, limit;
	uint64_t mapped_bytes, pinned_pages;
	bool has_pinned_uid;
	uint32_t pinned_uid;
	struct ia_owner owner;
	uint64_t map_ops, unmap_ops;
	uint64_t fail_enospc, fail_enomem, fail_einval, fail_other;
	uint32_t inexact;		/* IOMMU_ACCOUNT_INEXACT_* bits */
	struct ia_failure last_failure;
};

struct ia_device {
	char address[32];
	uint16_t vendor, device;
	char driver[64];		/* "" when unbound */
};

struct ia_group {
	uint32_t id;
	uint32_t backend;		/* IOMMU_ACCOUNT_GROUP_BACKEND_* */
	bool has_container;
	uint32_t container;
	struct ia_owner owner;
	unsigned int ndevices;
	struct ia_device *devices;
};

/* One device a hot reset would reach (GET_RESET_SCOPE). */
struct ia_reset_dev {
	struct ia_device dev;
	bool has_group;
	uint32_t group;
	uint32_t holder;		/* IOMMU_ACCOUNT_RESET_HOLDER_* */
	bool has_container;		/* container and owner: when the caller may see them */
	uint32_t container;
	struct ia_owner owner;
	bool has_set;			/* false: a module that does not report reset sets */
	uint32_t set;			/* IOMMU_ACCOUNT_RESET_SET_* */
	bool vfio;			/* a registered VFIO device */
	bool virtfn;			/* an SR-IOV VF */
};

struct ia_reset {
	char address[32];
	uint32_t scope;			/* IOMMU_ACCOUNT_RESET_SCOPE_* */
	bool has_group;
	uint32_t group;
	bool has_set_kind;
	uint32_t set_kind;		/* IOMMU_ACCOUNT_RESET_SET_KIND_* */
	bool vfio;			/* the device is a registered VFIO device */
	unsigned int naffected;
	struct ia_reset_dev *affected;
};

/*
 * Why a hot reset would fail, worst first; IA_VERDICT_OK when it would not.
 * vfio-pci's rule: every device the reset reaches must be a VFIO device of
 * the caller's reset set, and the caller must present a group fd for each.
 */
enum ia_verdict_kind {
	IA_VERDICT_OK,
	IA_VERDICT_NO_RESET,		/* no slot or bus reset: ENODEV */
	IA_VERDICT_UNKNOWN,		/* the reset set cannot be derived */
	IA_VERDICT_NOT_IN_SET,		/* a device in another reset set or none: refused whoever holds what */
	IA_VERDICT_NO_GROUP,		/* an affected device without IOMMU group */
	IA_VERDICT_HOST_DRIVER,		/* an affected device in use by a host driver */
	IA_VERDICT_UNBOUND,		/* an affected device bound to no driver */
	IA_VERDICT_FOREIGN,		/* a group held by another uid or container */
	IA_VERDICT_NOT_HELD,		/* a group nobody holds: the caller must open it */
};

#define IA_VERDICT_MAX_GROUPS 64

struct ia_verdict {
	enum ia_verdict_kind kind;
	const struct ia_reset_dev *culprit;	/* the device the reason names */
	char reason[512];
	unsigned int ngroups;			/* the group fds a caller must present */
	uint32_t groups[IA_VERDICT_MAX_GROUPS];
	bool in_own_group;			/* every affected device is in the device's group */
	const char *errno_name;			/* what the kernel answers; NULL for ok or unknown */
};

/*
 * Could @uid hot-reset @r's device now? From the module's facts only: the
 * scope, each affected device's group, driver and holder (uid of the owner
 * when visible; a group held by the caller counts as @uid's when the caller
 * is @uid). The kernel's own check is VFIO_DEVICE_PCI_HOT_RESET.
 */
void ia_reset_verdict(const struct ia_reset *r, uint32_t uid, bool caller_is_uid,
		      struct ia_verdict *v);
const char *ia_verdict_name(enum ia_verdict_kind k);
/* vfio-pci or one of its variant drivers (mlx5_vfio_pci, ...). */
bool ia_driver_is_vfio(const char *drv);
const char *ia_reset_scope_name(uint32_t scope);
const char *ia_reset_set_kind_name(uint32_t kind);	/* device, slot, bus */
const char *ia_reset_set_name(uint32_t set);		/* same, other, never */

struct ia_proc {
	uint32_t pid, uid;
	char comm[16];
	uint64_t cgroup_id;
	uint64_t memlock_soft, memlock_hard;	/* UINT64_MAX: unlimited */
	uint64_t consumer[IA_NCONSUMERS];
	uint64_t locked_vm, pinned_vm;	/* bytes */
	uint32_t rings;
	char cgroup[IA_CGROUP_MAX];	/* the kernel's path ("" when absent) */
	bool cgroup_truncated;		/* longer than that: its beginning only */
	bool has_uring_fds;
	uint32_t uring_fds;		/* io_uring fds it has open */
};

/* "io_uring-buffers", ... */
const char *ia_consumer_name(unsigned int c);
/* --- who a cgroup belongs to (identity.c) --- */

/*
 * From a cgroup v2 path alone: kind "unit" (systemd), "container" (a
 * runtime's), "kubernetes" (a pod, perhaps one of its containers), "vm" (a
 * libvirt machine), or "" (no rule matched: the path stands for itself).
 * The innermost wins; the outermost container around it is outer_*, and a
 * container inside a pod's container keeps that pod's pod_uid.
 */
struct ia_identity {
	char kind[16];
	char runtime[16];		/* docker, containerd, cri-o, podman, lxc; cri: a
					 * Kubernetes cgroupfs path, whose runtime it does not say */
	char unit[256];			/* kind unit: the leaf .service or .scope */
	char container_id[65];
	char pod_uid[40];
	char qos[16];			/* guaranteed, burstable, besteffort */
	char name[256];			/* lxc, systemd-nspawn, libvirt: the machine's name */
	/* nested: the outermost container it runs in (a kind node, Docker in Docker) */
	char outer_runtime[16];
	char outer_container_id[65];
	char outer_name[256];
	char path[IA_CGROUP_MAX];
};

void ia_identity_of(const char *path, struct ia_identity *id);
/* Room for ia_identity_str() of any identity, whole (its path, escaped, at worst). */
#define IA_IDENTITY_TEXT (4 * IA_CGROUP_MAX + 1024)
/* Of cgroup v2 @cgroup_id, found under /sys/fs/cgroup now: true when it has a kind. */
bool ia_identity_of_cgroup(uint64_t cgroup_id, struct ia_identity *id);
struct ia_json;
/* @id's fields as a JSON object under @key (only those it has), when it has a kind. */
void ia_json_identity(struct ia_json *j, const char *key, const struct ia_identity *id);
/* "pod 7c1e2f3a…/container 4f1c…(burstable, containerd)", "unit nginx.service", or the path. */
const char *ia_identity_str(const struct ia_identity *id, char *buf, size_t len);

/* --- the history file (history.c): iommu-accountd writes, iommu-accountctl reads --- */

#define IA_HIST_KINDS 16
/* The largest history file ([history] max_size): a header claiming more is not one. */
#define IA_HIST_MAX_BYTES (1ULL << 30)

/* A record's state: the object's alert state, or a holder at a FAILURE. */
enum { IA_HIST_OK, IA_HIST_WARNING, IA_HIST_CRITICAL, IA_HIST_FAILURE, IA_HIST_HOLDER };

/*
 * One sample of one object; or (state IA_HIST_HOLDER, format 3) one holder
 * of the object at the FAILURE sample written just before it, with the same
 * time, kind and id: what the process held in the kind's unit, its cgroup v2
 * id and its pid (its uid is the object's: a pot's holders are its uid's
 * processes, another kind's holder is its owner).
 */
struct ia_hist_rec {
	double t;			/* CLOCK_REALTIME, seconds */
	union {
		uint64_t used;
		uint64_t held;		/* a holder */
	};
	union {
		uint64_t limit;		/* valid when has_limit */
		uint64_t cgroup_id;	/* a holder */
	};
	uint32_t id;
	union {
		uint32_t uid;
		uint32_t pid;		/* a holder */
	};
	uint8_t kind;			/* < IA_HIST_KINDS */
	uint8_t state;			/* IA_HIST_OK .. IA_HIST_FAILURE (the daemon's), IA_HIST_HOLDER */
	uint8_t has_limit;
	uint8_t pad;
	uint32_t crc;			/* written and checked by history.c */
};

struct ia_hist {
	int fd;
	void *hdr;
	bool restarted;			/* an unusable file was found and started anew */
	bool rebuilt;			/* its damaged header was rebuilt from the records */
	char why[96];			/* why it was (another size, a damaged header...) */
	uint64_t damaged;		/* samples found damaged when it was opened */
};

struct ia_hist_info {
	uint64_t cap, count, written, bytes;
	double keep_s;
	/* Samples of the ring a reader could not take: their checksum does not
	 * match, or their time is not a number (damaged); the file ends before
	 * them (missing: cut short). */
	uint64_t damaged, missing;
	/* The header was damaged and was rebuilt from the records (no names, no keep). */
	bool rebuilt;
	char kinds[IA_HIST_KINDS][16], units[IA_HIST_KINDS][16];
};

/*
 * Open (create) @path as a ring of at most @max_bytes, whose readers skip
 * samples older than @keep_s, as a root daemon keeps a file: its directory
 * must be a directory owned by this user or root and writable by no one
 * else (-EPERM); @path itself is never followed as a symlink (-ELOOP) and
 * must be a regular file of one link; it is locked (flock), so a second
 * writer gets -EBUSY; its whole size is allocated at once (-ENOSPC says so
 * now, not at some later sample). A file of another capacity or format
 * starts anew (h->restarted, h->why); one whose header is damaged (its
 * checksum) but whose size is the ring's keeps every intact sample, the
 * header rebuilt from the records' own checksums and order (h->rebuilt);
 * samples whose checksum fails are counted in h->damaged. 0, or -errno with
 * the path and reason in @err.
 */
int ia_hist_open(struct ia_hist *h, const char *path, uint64_t max_bytes, double keep_s,
		 char *err, size_t errlen);
/* The name and unit of a kind, kept in the file for readers without the module. */
void ia_hist_set_kind(struct ia_hist *h, uint32_t kind, const char *name, const char *unit);
/* Append @n samples (the oldest go when the ring is full); 0 or -errno (a short write: -ENOSPC). */
int ia_hist_append(struct ia_hist *h, const struct ia_hist_rec *r, size_t n);
void ia_hist_close(struct ia_hist *h);
/*
 * Every sample of @path, oldest first, to @cb (which stops by returning < 0;
 * NULL: @info only); a damaged or missing sample is counted in @info and
 * skipped, the others are given. A header whose sizes do not hold together
 * (a capacity past IA_HIST_MAX_BYTES, a file longer than its ring) is
 * refused; a damaged one (its checksum) on a whole ring is rebuilt from the
 * records (@info->rebuilt).
 */
int ia_hist_read(const char *path, struct ia_hist_info *info,
		 int (*cb)(const struct ia_hist_rec *r, void *arg), void *arg, char *err,
		 size_t errlen);
/* CRC-32 (IEEE 802.3, as zlib's crc32()) of @len bytes, continuing from @crc (0 to start). */
uint32_t ia_crc32(uint32_t crc, const void *buf, size_t len);

/* An iommufd context's accounting mode: user (the pot), mm, none, unknown. */
const char *ia_iommufd_mode_name(uint32_t mode);
/* The bytes of every consumer together. */
uint64_t ia_consumers_total(const uint64_t consumer[IA_NCONSUMERS]);

struct ia_thresholds {
	uint32_t warn, crit;		/* per mille */
	uint32_t kind;			/* IOMMU_ACCOUNT_QUOTA_KIND_* */
	uint32_t margin;		/* uid-pot only */
};

struct ia_event {
	uint64_t seq;
	uint32_t type;			/* IOMMU_ACCOUNT_EVENT_TYPE_* */
	uint32_t kind;			/* IOMMU_ACCOUNT_QUOTA_KIND_* */
	uint64_t time_ns;
	/* uid-pot: size is the request, locked_bytes the pot, memlock_limit
	 * the charging process's limit */
	uint32_t uid, consumer;
	uint64_t cgroup_id;
	uint32_t container;
	unsigned int ngroups;		/* attached when it happened */
	uint32_t *groups;		/* those listed (all, or the first ones) */
	uint32_t group_count;		/* the kernel's count of attached groups */
	uint32_t entries, limit;
	struct ia_owner owner;
	/* failure */
	uint32_t err;
	uint64_t iova, size, locked_bytes, memlock_limit;
	uint32_t count;			/* refusals this event stands for, >= 1 */
	uint32_t ioas;			/* iommufd: the IOAS being mapped into; 0: unknown */
	/* threshold */
	uint32_t level;			/* IOMMU_ACCOUNT_THRESHOLD_LEVEL_* */
	uint32_t threshold;		/* per mille */
	/* published kinds (qpair): the object at that moment */
	bool has_quota;
	struct ia_quota quota;
};

/* --- requests ------------------------------------------------------- */

/*
 * Each returns 0 or -errno (the kernel's, with c->extack; or the
 * transport's). The callbacks get objects that live only during the call;
 * a non-zero return from a callback stops and is returned as is.
 * @key NULL: dump every object the caller may see; else a do for that one.
 */
int ia_get_status(struct ia_client *c, struct ia_status *st);
int ia_get_uids(struct ia_client *c, const uint32_t *key,
		int (*cb)(const struct ia_uid *u, void *arg), void *arg);
int ia_get_containers(struct ia_client *c, const uint32_t *key,
		      int (*cb)(const struct ia_container *ct, void *arg), void *arg);
int ia_get_groups(struct ia_client *c, const uint32_t *key,
		  int (*cb)(const struct ia_group *g, void *arg), void *arg);
/* @t->kind says which; filled with the module's values. */
int ia_get_thresholds(struct ia_client *c, struct ia_thresholds *t);
/* @address NULL: dump every header-type-0 PCI device; else a do for that one. */
int ia_get_resets(struct ia_client *c, const char *address,
		  int (*cb)(const struct ia_reset *r, void *arg), void *arg);
/* @pid NULL: dump (of @uid when given, else the processes holding charges). */
int ia_get_procs(struct ia_client *c, const uint32_t *pid, const uint32_t *uid,
		 int (*cb)(const struct ia_proc *p, void *arg), void *arg);
/*
 * Quota objects of every kind (@kind NULL) or of one; with @id (and @kind)
 * a do for that one object.
 */
int ia_get_quotas(struct ia_client *c, const uint32_t *kind, const uint32_t *id,
		  int (*cb)(const struct ia_quota *q, void *arg), void *arg);
/* A dump filtered by kind, owner uid and owner pid (each NULL: any). */
int ia_dump_quotas(struct ia_client *c, const uint32_t *kind, const uint32_t *uid,
		   const uint32_t *pid, int (*cb)(const struct ia_quota *q, void *arg),
		   void *arg);
/* The kind's entry of @st, or NULL. */
const struct ia_quota_kind *ia_quota_kind_find(const struct ia_status *st, uint32_t kind);
/* Set, then @t holds what the module now uses (its reply). */
int ia_set_thresholds(struct ia_client *c, struct ia_thresholds *t);

/* --- events --------------------------------------------------------- */

/*
 * Join the events group: -EOPNOTSUPP when the module offers none, -EPERM
 * without the capability it asks for.
 */
int ia_events_subscribe(struct ia_client *c);
/* Whether this process is in the initial network namespace (events are
 * sent only there); true when it cannot tell. */
bool ia_in_initial_netns(void);

struct ia_events_cb {
	/* @lost: events missing before this one (sequence gap); @overrun:
	 * whether our socket overran (ENOBUFS) since the last gap. */
	int (*event)(const struct ia_event *ev, uint64_t lost, bool overrun, void *arg);
	void *arg;
	uint64_t last_seq;		/* state, zero-initialise */
	bool overrun;
};

/*
 * Receive what is queued (blocking when the socket is), calling @cb per
 * event. Returns 0, a callback's non-zero value, or -errno. A socket
 * overrun is not an error: it is remembered and reported with the next
 * event (whose sequence number tells how many were lost).
 */
int ia_events_recv(struct ia_client *c, struct ia_events_cb *cb);
int ia_client_fd(const struct ia_client *c);
/* Make the client's socket non-blocking (events then come as they are read); 0 or -errno. */
int ia_client_nonblocking(struct ia_client *c);

/* --- formatting ----------------------------------------------------- */

/* The path of cgroup v2 @id under /sys/fs/cgroup ("/a/b"), or NULL (none, or longer than @len). */
const char *ia_cgroup_path(uint64_t id, char *buf, size_t len);
/*
 * The same, tried first from process @pid's /proc cgroup file (checked
 * against @id by the directory's inode): one file and one stat instead of
 * a walk of the hierarchy, while the process is still in that cgroup.
 */
const char *ia_cgroup_path_hint(uint64_t id, uint32_t pid, char *buf, size_t len);
/*
 * What follows a path the module cut (a flag it set) in text: IA_CUT_MARK,
 * else "". JSON says it as "cgroup_truncated": true, the exposition with the
 * mark in the label value and the cgroup_id label.
 */
#define IA_CUT_MARK "…(truncated)"
const char *ia_cut_mark(bool truncated);
/* "12.0 MiB", "4096 B", "unlimited" (UINT64_MAX). */
const char *ia_human_bytes(uint64_t v, char *buf, size_t len);
/* An amount in a quota kind's unit: "12.0 MiB" for "bytes" (v >= 0), else "%.0f". */
const char *ia_amount(const char *unit, double v, char *buf, size_t len);
/* CLOCK_MONOTONIC in seconds. */
double ia_mono(void);
/* CLOCK_REALTIME in seconds (the kernel's event times are on it). */
double ia_realtime(void);
/* A duration a person reads: "45 s", "3 min", "2.5 h", "3.1 days". */
const char *ia_duration_str(double s, char *buf, size_t len);
/*
 * A rate of a kind's unit: "2.8 MiB/s" (bytes), "33 entries/s", "0.5
 * descriptors/s", "0 entries/s"; negative when falling; "-" for NaN.
 */
const char *ia_rate_str(const char *unit, double per_s, char *buf, size_t len);
/* When it fills: "full in 3 min", or "not filling" (@eta_s < 0: flat or falling). */
const char *ia_fill_str(double eta_s, char *buf, size_t len);
/* Decimal u32, whole string; 0 or -1. */
int ia_parse_u32(const char *s, uint32_t *v);
/* "comm[pid] uid U", or "-" when absent. */
const char *ia_owner_str(const struct ia_owner *o, char *buf, size_t len);
/* "a,b,c" of @n numbers ("" when none; cut short at @len). */
const char *ia_u32_list_str(const uint32_t *v, unsigned int n, char *buf, size_t len);

/* --- names: the one rule for a string a user picks (esc.c) ---------- */

/*
 * The UTF-8 sequence at @s (at most @n bytes): its length (1-4) and code
 * point in @cp, or 0 when the byte at @s begins no valid sequence
 * (continuation byte, overlong form, surrogate, beyond U+10FFFF, cut short).
 */
int ia_utf8_next(const char *s, size_t n, uint32_t *cp);
/* C0, DEL, C1, U+2028/2029 and the bidirectional marks, overrides and isolates. */
bool ia_utf8_control(uint32_t cp);
bool ia_utf8_valid(const char *s);
/*
 * The text form of @s (esc.c says it whole): valid UTF-8, no control
 * character, backslash escapes ("\\", "\t", "\n", "\r", "\xHH") for the
 * rest; one name, one form. ia_esc_text returns the length the whole form
 * needs (as snprintf); a smaller @len ends it in "..." at a whole character.
 * ia_tx: the whole form in one of eight rotating buffers of this thread.
 */
size_t ia_esc_text(const char *s, char *buf, size_t len);
void ia_fput_text(FILE *f, const char *s);
const char *ia_tx(const char *s);
/*
 * A sentence the daemon composed (names in it already in the text form):
 * whatever control or invalid byte is left as in the text form ("\t", "\n",
 * "\r", "\xHH"), a backslash as itself.
 * One line, valid UTF-8; cut as ia_esc_text.
 */
size_t ia_esc_sentence(const char *s, char *buf, size_t len);
/* The sentence form of @s in one of ia_tx's rotating buffers. */
const char *ia_sx(const char *s);
/* The text form read back, in place (a NUL is never made): @s. */
char *ia_unesc_text(char *s);
/* A Prometheus label value: the text form with a backslash as itself, then escaped as the format wants. */
void ia_fput_label(FILE *f, const char *s);
/*
 * A quota kind's unit as the last part of a metric name (one unit per name:
 * iommu_account_quota_used_bytes): [a-z0-9_], lower case, whatever the
 * module or a history file says; "units" when it says none. @buf.
 */
const char *ia_metric_unit(const char *unit, char *buf, size_t len);
/* A JSON string of @s: invalid bytes as U+FFFD (returns true then), controls as \uXXXX. */
bool ia_fput_json_string(FILE *f, const char *s);
/* @s's bytes in lowercase hex, as a JSON string. */
void ia_fput_hex(FILE *f, const char *s);

/*
 * A JSON writer that places commas itself: objects and arrays nest up to
 * 16 deep; @key is NULL inside arrays and at the top.
 */
struct ia_json {
	FILE *f;
	int depth;
	bool need_comma[16];
};

void ia_json_init(struct ia_json *j, FILE *f);
void ia_json_obj_open(struct ia_json *j, const char *key);
void ia_json_obj_close(struct ia_json *j);
void ia_json_arr_open(struct ia_json *j, const char *key);
void ia_json_arr_close(struct ia_json *j);
void ia_json_u64(struct ia_json *j, const char *key, uint64_t v);
void ia_json_i64(struct ia_json *j, const char *key, int64_t v);
/*
 * A string member: a name whose bytes are not all valid UTF-8 is written
 * with U+FFFD for each invalid byte and followed by a sibling KEY_hex, every
 * byte of it in hex (esc.c). Inside an array (@key NULL) there is no
 * sibling: only sentences built from text forms go there.
 */
void ia_json_str(struct ia_json *j, const char *key, const char *s);
void ia_json_null(struct ia_json *j, const char *key);
/* @v with printf format @fmt ("%.6g"), or null when it is NaN or infinite. */
void ia_json_double(struct ia_json *j, const char *key, const char *fmt, double v);
void ia_json_bool(struct ia_json *j, const char *key, bool v);
/* An owner object under @key, nothing when absent. */
void ia_json_owner(struct ia_json *j, const char *key, const struct ia_owner *o);
/* A failure record as an object at @key (nothing when absent). */
void ia_json_failure(struct ia_json *j, const char *key, const struct ia_failure *f);
/* u64 or null for UINT64_MAX ("unlimited"); u64 when @has, else null. */
void ia_json_u64_or_null(struct ia_json *j, const char *key, uint64_t v);
void ia_json_u64_if(struct ia_json *j, const char *key, bool has, uint64_t v);
/* A string member, or null when @s is NULL or empty. */
void ia_json_str_or_null(struct ia_json *j, const char *key, const char *s);
void ia_json_u32_array(struct ia_json *j, const char *key, const uint32_t *v,
		       unsigned int n);

/* --- processes as /proc shows them (procinfo.c) --------------------------- */

/* A process's parent, comm and RLIMIT_MEMLOCK soft limit. */
struct ia_pinfo {
	int pid, ppid;
	char comm[64];
	uint64_t memlock;	/* UINT64_MAX: unlimited */
};

/* 0, or -errno (-EIO: unreadable). */
int ia_pinfo_read(int pid, struct ia_pinfo *pi);
/*
 * Where @pid's limit comes from: the highest ancestor in its chain that has
 * the same limit (the one whose parent's differs, or the top). @parent gets
 * that ancestor's parent (pid 0 when there is none). 0, or -1.
 */
int ia_pinfo_limit_origin(int pid, struct ia_pinfo *origin, struct ia_pinfo *parent);

/* --- who is at the other end of a socket (peer.c) ------------------------ */
/*
 * The uid of the process at the other end of connected stream socket @fd,
 * as the kernel says it: a Unix socket's peer credentials; for TCP the
 * owner of the other end's socket, found through sock_diag when it is in
 * this network namespace (a connection from another host or namespace:
 * -ENOENT; a socket its process closed, whose owner inet_diag no longer
 * says: -ENOTCONN; no sock_diag for TCP: -EPROTONOSUPPORT). 0, or -errno.
 */
int ia_sock_peer_uid(int fd, uint32_t *uid);
/* The user the packages run iommu-accountd as (its sysusers.d file). */
#define IA_DAEMON_USER "iommu-accountd"

/* --- memory cgroups (memcg.c) ---------------------------------------- */

/*
 * A cgroup v2 path's memory limit as the kernel applies it: of it and its
 * ancestors, the level with the least room (memory.max - memory.current),
 * and the cgroup's own memory.events (hierarchical: its descendants too).
 * Pinning past memory.max does not fail with ENOMEM: the memcg OOM-kills
 * (vfio_pin_pages_remote and io_uring's page faults charge it).
 */
struct ia_memcg {
	bool limited;			/* some level has a memory.max */
	char path[IA_CGROUP_MAX];	/* that level ("/a/b") */
	uint64_t max, current;		/* its memory.max and memory.current */
	bool has_events;
	uint64_t ev_max, ev_oom, ev_oom_kill;	/* @path's memory.events */
};

/* @path under /sys/fs/cgroup ("/" or ""), read now: 0, or -errno (no such cgroup). */
int ia_memcg_read(const char *path, struct ia_memcg *m);

/* --- why a uid's pot refuses: the diagnosis explain renders (explain.c) ----- */

enum ia_pot_fix {
	IA_FIX_RAISE_LIMIT,		/* tight: where RLIMIT_MEMLOCK is set */
	IA_FIX_SPLIT_UIDS,		/* tight and shared: a pot per uid */
	IA_FIX_CAP_IPC_LOCK,		/* tight with io_uring buffers or refusals */
	IA_FIX_WAIT_DEFERRED,		/* bytes wait for deferred release */
	IA_FIX_NOTHING,			/* none of the above */
	IA_FIX_COUNT,
};

const char *ia_pot_fix_text(enum ia_pot_fix f);
/* What @p holds of the pot, every consumer. */
uint64_t ia_proc_held(const struct ia_proc *p);

#define IA_POT_CGROUPS 64
#define IA_POT_LIMITS 16

/* A cgroup the pot's processes run in. */
struct ia_pot_cgroup {
	uint64_t id;
	char path[IA_CGROUP_MAX];	/* the kernel's, from one of its processes, else now */
	bool cut;			/* the kernel cut it (longer than PATH_MAX - 1) */
	struct ia_identity ident;
	bool has_memcg;			/* memcg read (not for a cut path) */
	struct ia_memcg memcg;
	unsigned int procs;
	uint64_t bytes;			/* held by its processes */
};

/* A RLIMIT_MEMLOCK soft limit the pot's processes have, and who set it. */
struct ia_pot_limit {
	uint64_t memlock;		/* UINT64_MAX: unlimited */
	unsigned int procs;
	int rep;			/* the first process (by bytes held) that has it */
	bool has_origin;		/* /proc was readable up its chain */
	struct ia_pinfo origin;		/* the highest ancestor with the same limit */
	struct ia_pinfo parent;		/* its parent (pid 0: none) */
};

struct ia_pot_diag {
	uint32_t uid;
	bool exists;			/* false: no process, no pot */
	struct ia_uid u;
	struct ia_proc *procs;		/* sorted by bytes held, most first */
	unsigned int nprocs;
	bool procs_cut;			/* more than 4096: the rest not read */
	struct ia_pot_cgroup cg[IA_POT_CGROUPS];
	unsigned int ncg;
	struct ia_pot_limit lim[IA_POT_LIMITS];
	unsigned int nlim;
	struct ia_failure last;		/* the kernel's last refusal (present: there is one) */
	int last_err;			/* reading it failed (-errno) */
	char last_cgroup[IA_CGROUP_MAX];	/* its cgroup in words */
	bool last_elsewhere;		/* its cgroup holds none of the pot now */
	bool buffers;			/* io_uring registered buffers hold some */
	bool shared;			/* more than one process or cgroup */
	bool tight;			/* refused, or at 80 % of the smallest limit */
	unsigned int fixes;		/* 1 << IA_FIX_* */
};

/* Diagnose uid @uid's pot through @cl: 0 (d->exists false: none), or -errno. */
int ia_pot_diagnose(struct ia_client *cl, uint32_t uid, struct ia_pot_diag *d);
void ia_pot_diag_free(struct ia_pot_diag *d);

/* --- which limit refuses one object: its cause (cause.c) ------------------ */

/* What explain says of one object; printed as text or JSON by one function. */
struct ia_cause {
	const char *kind, *unit;
	uint32_t id;
	uint64_t used, limit;
	bool has_limit;
	struct ia_owner owner;
	uint64_t refusals;
	const char *refused_by;		/* the limit that refused (or is nearest); NULL: none */
	bool refused;			/* the kernel did refuse (not only nearest) */
	char cause[512];		/* the limit with its figures, in words */
	const char *fixes[6];
	unsigned int nfixes;
	struct ia_failure last;
};

/*
 * The cause that refuses (or would) object @id of @kind ("container", "vfio-container", "qpair",
 * "iommufd-ctx") through @cl: 0, -ENOENT (none, or not the caller's), -errno.
 */
int ia_object_cause(struct ia_client *cl, const char *kind, uint32_t id, struct ia_cause *v);
/* This process's cgroup v2 path ("/user.slice/..."), or NULL. */
const char *ia_self_cgroup(char *buf, size_t len);

/* --- plan: will a workload fit (plan.c) ----------------------------- */

/*
 * A workload, item by item in the order it starts, and the launching
 * process. Parsed from spec lines ("uring entries=256 buffers=16 size=1M
 * page=4k"; see Documentation/ctl.md), which the rules below evaluate
 * against the running kernel's facts and the uid's current state.
 */
enum ia_plan_kind { IA_PLAN_URING = 1, IA_PLAN_VFIO, IA_PLAN_IOMMUFD, IA_PLAN_VM, IA_PLAN_QPAIR };
enum ia_plan_page { IA_PAGE_4K, IA_PAGE_THP, IA_PAGE_2M, IA_PAGE_1G };

struct ia_plan_item {
	enum ia_plan_kind kind;
	unsigned int line;		/* in the spec (or the argument's number) */
	uint32_t count;			/* uring: buffers; vfio, iommufd: maps */
	uint64_t size;			/* uring: each buffer; vfio, iommufd: each map; vm: RAM */
	enum ia_plan_page page;		/* uring: 4k plain memory, thp MADV_HUGEPAGE, 2m/1g hugetlb */
	uint64_t offset;		/* uring: where the (first) buffer starts in its mapping */
	bool arena;			/* uring: layout=arena, all buffers packed in one mapping */
	uint64_t arena_size;		/* uring: that mapping's length (0: just what they need) */
	uint32_t entries;		/* uring: the ring's (SQ) entries */
	uint32_t devices;		/* vm: passthrough devices */
	bool viommu;			/* vm */
	bool iommufd;			/* vm: backend iommufd (else type1) */
	bool mm_mode;			/* iommufd: IOMMU_OPTION_RLIMIT_MODE 1 */
	uint32_t capacity, depth;	/* qpair */
};

#define IA_PLAN_MAX_ITEMS 32

struct ia_plan_spec {
	unsigned int n;
	struct ia_plan_item items[IA_PLAN_MAX_ITEMS];
	bool has_memlock;		/* process memlock=: the limit it will run under */
	uint64_t memlock;		/* bytes; UINT64_MAX: unlimited */
	int cap_ipc_lock;		/* process cap_ipc_lock=: -1 not said, 0, 1 */
	char cgroup[IA_CGROUP_MAX];	/* process cgroup=: where it will run ("" not said) */
};

/*
 * One item or process line (@text: "KIND key=value ...", words separated by
 * blanks or commas, "KIND:" accepted). 0, or -1 with @err saying which word
 * and why (the caller adds the line).
 */
int ia_plan_parse_line(struct ia_plan_spec *s, const char *text, unsigned int line,
		       char *err, size_t len);
/* A spec file: '#' comments, blank lines; -1 with @err "NAME:LINE: why". */
int ia_plan_parse_file(struct ia_plan_spec *s, FILE *f, const char *name, char *err,
		       size_t len);

/* What the running kernel does, found by feature and behaviour (ctl/plan.c). */
struct ia_plan_facts {
	uint32_t page_size;
	char krel[65];
	int uring;			/* 1: io_uring_setup works here; 0: not (uring_why) */
	char uring_why[128];
	int ring_charged;		/* probe: 1 ring memory charged, 0 not, -1 unknown */
	uint64_t ring_pages[IA_PLAN_MAX_ITEMS];	/* per uring item: its probe ring's charge */
	char thp[16];			/* THP "always", "madvise", "never"; "" unknown */
	char thp_defrag[32];		/* its defrag setting ("" unknown) */
	/* Anonymous folio orders the kernel may use (bit o: page_size << o, up to
	 * the PMD's): for plain memory, and for memory under MADV_HUGEPAGE. */
	uint32_t thp_plain, thp_advised;
	int64_t huge_free[2];		/* hugetlb 2 MiB, 1 GiB: pages free; -1 no such pool */
	bool type1;			/* vfio_iommu_type1 loaded */
	uint32_t dma_entry_limit;
	bool iommufd;			/* /dev/iommu */
};

/* The uid's and the launching process's figures now. */
struct ia_plan_state {
	uint32_t uid;
	uint64_t pot;			/* the uid's user_struct->locked_vm, bytes */
	uint64_t memlock;		/* RLIMIT_MEMLOCK soft; UINT64_MAX unlimited */
	char memlock_from[64];		/* where that came from */
	char pot_from[96];		/* where @pot came from */
	bool cap_ipc_lock;
	uint64_t mm_locked;		/* the process's mm->locked_vm (0: a new one) */
	char cgroup[IA_CGROUP_MAX];	/* where it runs ("" unknown) */
	struct ia_memcg memcg;		/* its memory limit there (limited false: none) */
	char who[64];			/* "a new process of uid 1000", "pid 42 (qemu)" */
};

/* Counters a workload draws on. */
enum ia_plan_counter { IA_PC_POT, IA_PC_MM, IA_PC_ENTRIES, IA_PC_HUGE_2M, IA_PC_HUGE_1G,
		       IA_PC_QPAIR, IA_PC_MEMCG, IA_PC_N };

#define IA_PLAN_MAX_ROWS 48
#define IA_PLAN_MAX_NOTES 16
#define IA_PLAN_MAX_ASSUME 16

struct ia_plan_row {
	enum ia_plan_counter counter;
	char name[128];			/* "uid 1000 pot", "container of line 3" */
	const char *unit;		/* "bytes", "entries", "pages", "descriptors" */
	uint64_t now, add, limit;	/* limit UINT64_MAX: none */
	uint64_t add_min;		/* the least it can take: add unless huge pages may back it */
	unsigned int item;		/* its key: the item's index (+100 per VM container); 0: shared */
	unsigned int line;		/* the spec line of the item it belongs to; 0: shared */
	bool estimate;			/* depends on what the guest or VMM does */
};

struct ia_plan_result {
	unsigned int nrows;
	struct ia_plan_row rows[IA_PLAN_MAX_ROWS];
	/* The first refusal, running the items in order, in the worse case
	 * where figures have bounds (rows' add against add_min). */
	bool refused;
	bool may_fit;			/* refused, but not in the better case */
	unsigned int item;		/* 1-based index into the spec's items */
	unsigned int row;		/* the counter that refuses; >= nrows: none (a bound) */
	unsigned int step;		/* which buffer, map or request of the item (1-based) */
	const char *call;		/* "io_uring_register", "VFIO_IOMMU_MAP_DMA", ... */
	int err;			/* the errno the kernel (or pool) returns; IA_PLAN_KILLED */
	uint64_t held[IA_PLAN_MAX_ROWS];	/* each row's value when it refuses */
	/* Fixes: the smallest settings that make the whole workload fit. */
	uint64_t need_memlock;		/* 0: the limit is not what refuses */
	uint64_t min_memlock;		/* the least RLIMIT_MEMLOCK it fits under (0: none checked) */
	uint64_t need_entries, need_requests;
	uint64_t need_huge[2];		/* pages */
	uint64_t need_memcg;		/* memory.max that holds it */
	bool exact;			/* no estimate, no rule in doubt */
	char unknown[256];		/* a rule this kernel leaves unknown: no verdict */
	unsigned int nnotes;
	char notes[IA_PLAN_MAX_NOTES][256];	/* the rules applied, in words */
	unsigned int nassume;
	char assume[IA_PLAN_MAX_ASSUME][256];	/* what the figures rest on, read or taken */
};

/*
 * Run @s's items in order against @f and @st. 0; -EOPNOTSUPP with @why
 * when an item cannot exist on this kernel ("not on this kernel").
 */
int ia_plan_eval(const struct ia_plan_spec *s, const struct ia_plan_facts *f,
		 const struct ia_plan_state *st, struct ia_plan_result *r, char *why,
		 size_t len);
/*
 * Whether io_uring charges a ring of @entries to the pot: a child without
 * CAP_IPC_LOCK (as the kernel tests it at the ring's creation) and with
 * RLIMIT_MEMLOCK 0 makes one; any charge is then refused (ENOMEM), and
 * nothing is charged either way. When charged, a second ring under the
 * real limit gives its layout (offsets and entries io_uring_setup
 * reports), hence @pages: the rings and the SQE array, each rounded to
 * pages. Returns 0 (not charged), 1 (charged, @pages), -EAGAIN (charged,
 * no room to measure it), or io_uring_setup's -errno.
 */
int ia_plan_probe_ring(unsigned int entries, uint64_t *pages);
/* "uring", "vfio", ... */
const char *ia_plan_kind_name(enum ia_plan_kind k);
/* The refusal's err when the kernel kills instead (the memcg's OOM killer). */
#define IA_PLAN_KILLED (-9)
/* "ENOMEM", or "SIGKILL" for IA_PLAN_KILLED. */
const char *ia_plan_err_name(int err);
/* Parse "64M", "1G", "4096", "unlimited" (UINT64_MAX): 1024-based suffixes. */
int ia_parse_size(const char *s, uint64_t *v);

/* --- the hook contract against the running kernel's BTF (btf.c, contract.c) - */

struct ia_btf;
/* @path's BTF (split BTF on @base: a module's); NULL with *err -errno. */
struct ia_btf *ia_btf_open(const char *path, const struct ia_btf *base, int *err);
void ia_btf_close(struct ia_btf *b);
/* Function @name's prototype among @b's own types, as C: 1, 0 (absent), -errno. */
int ia_btf_proto(const struct ia_btf *b, const char *name, char *buf, size_t len);

/* A line of kmod/hooks.contract (contract-gen.c, made from it at build time). */
struct ia_contract_row {
	const char *sym, *mod, *feature, *kernels, *proto;
	unsigned int line;
};

extern const struct ia_contract_row ia_contract[];
extern const unsigned int ia_contract_n;

#define IA_CONTRACT_PROTO 512
#define IA_CONTRACT_DIFFS 64
#define IA_CONTRACT_MODULES 8

struct ia_contract_diff {
	char function[64], feature[32];
	char kernel[IA_CONTRACT_PROTO];		/* the prototype here, or "absent" */
	char contract[IA_CONTRACT_PROTO];	/* what the contract says */
	unsigned int line;			/* its line (0: the series has none) */
};

struct ia_contract_result {
	char series[16];		/* of the release: "6.12" */
	bool has_btf;			/* false: no vmlinux BTF (CONFIG_DEBUG_INFO_BTF), not checked */
	bool named;			/* the contract names this series */
	unsigned int nhooks, nchecked;
	unsigned int ndiff;
	bool diffs_cut;
	struct ia_contract_diff diff[IA_CONTRACT_DIFFS];
	unsigned int nunchecked;	/* modules not loaded: their functions not read */
	char unchecked[IA_CONTRACT_MODULES][64];
};

/*
 * The contract for kernel @release against the BTF in @btf_dir: 0, or -errno.
 * @all_modules: @btf_dir holds every module of that kernel (a module without
 * a file there is not built), not only the loaded ones (/sys/kernel/btf).
 */
int ia_contract_check(const char *release, const char *btf_dir, bool all_modules,
		      struct ia_contract_result *r);
/* Whether a row's @kernels ("6.1 6.12 7.3") name @series. */
bool ia_contract_names(const char *kernels, const char *series);

#endif
