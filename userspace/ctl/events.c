// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl events [--count N]: follow the events group, like
 * `ip monitor`. One line (or one JSON object per line) per event; a gap in
 * the sequence numbers is reported as lost events.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <netlink/genl/ctrl.h>
#include <uapi/linux/iommu_account.h>

#include "ctl.h"

struct follow {
	struct ia_ctx *ctx;
	uint64_t last_seq;
	uint32_t left;		/* 0: forever */
	bool counted;
	bool overrun;		/* ENOBUFS since the last event */
};

static uint64_t u64a(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static uint32_t u32a(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

/* " 240 times" for a coalesced failure event, "" for a single refusal. */
static const char *count_str(struct nlattr **tb, char *buf, size_t len)
{
	uint32_t n = tb[IOMMU_ACCOUNT_A_EVENT_COUNT] ? u32a(tb, IOMMU_ACCOUNT_A_EVENT_COUNT) : 1;

	if (n <= 1)
		return "";
	snprintf(buf, len, " %u times", n);
	return buf;
}

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct follow *f = arg;
	struct ia_ctx *ctx = f->ctx;
	struct nlattr *tb[IOMMU_ACCOUNT_A_EVENT_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	uint64_t seq;
	uint32_t type;
	char groups[128], b[96], b2[48];

	if (genlmsg_parse(nlh, 0, tb, IOMMU_ACCOUNT_A_EVENT_MAX, NULL))
		return NL_SKIP;
	seq = u64a(tb, IOMMU_ACCOUNT_A_EVENT_SEQ);
	type = u32a(tb, IOMMU_ACCOUNT_A_EVENT_TYPE);
	/* A gap: events dropped by the module's queue or by our socket. */
	if (f->last_seq && seq > f->last_seq + 1) {
		if (ctx->json)
			printf("{\"lost\":%" PRIu64 "}\n", seq - f->last_seq - 1);
		else
			printf("!! %" PRIu64 " events lost%s\n", seq - f->last_seq - 1,
			       f->overrun ? " (socket overrun: read too slowly)" : "");
	}
	f->overrun = false;
	f->last_seq = seq;
	ia_u32_list(nlh, IOMMU_ACCOUNT_A_EVENT_GROUP, groups, sizeof(groups));
	if (ctx->json) {
		printf("{\"seq\":%" PRIu64 ",\"type\":\"%s\",\"time_ns\":%" PRIu64
		       ",\"container\":%u,\"groups\":[%s],\"entries\":%u,\"limit\":%u", seq,
		       type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE ? "failure" : "threshold",
		       u64a(tb, IOMMU_ACCOUNT_A_EVENT_TIME_NS),
		       u32a(tb, IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID), groups,
		       u32a(tb, IOMMU_ACCOUNT_A_EVENT_ENTRIES), u32a(tb, IOMMU_ACCOUNT_A_EVENT_LIMIT));
		ia_print_owner(ctx, tb[IOMMU_ACCOUNT_A_EVENT_OWNER], "owner");
		if (type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE)
			printf(",\"errno\":%u,\"iova\":%" PRIu64 ",\"size\":%" PRIu64
			       ",\"locked_bytes\":%" PRIu64 ",\"memlock_limit\":%" PRIu64
			       ",\"count\":%u",
			       u32a(tb, IOMMU_ACCOUNT_A_EVENT_ERRNO),
			       u64a(tb, IOMMU_ACCOUNT_A_EVENT_IOVA), u64a(tb, IOMMU_ACCOUNT_A_EVENT_SIZE),
			       u64a(tb, IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES),
			       u64a(tb, IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT),
			       tb[IOMMU_ACCOUNT_A_EVENT_COUNT] ?
			       u32a(tb, IOMMU_ACCOUNT_A_EVENT_COUNT) : 1);
		else
			printf(",\"level\":\"%s\",\"threshold\":%u",
			       u32a(tb, IOMMU_ACCOUNT_A_EVENT_LEVEL) ==
			       IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT ? "crit" : "warn",
			       u32a(tb, IOMMU_ACCOUNT_A_EVENT_THRESHOLD));
		printf("}\n");
	} else if (type == IOMMU_ACCOUNT_EVENT_TYPE_FAILURE) {
		uint32_t err = u32a(tb, IOMMU_ACCOUNT_A_EVENT_ERRNO);

		printf("#%" PRIu64 " FAILURE container %u (groups %s): MAP_DMA refused%s, %s (%s), "
		       "entries %u/%u, iova 0x%" PRIx64 " size %" PRIu64 ", by %s",
		       seq, u32a(tb, IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID), groups,
		       count_str(tb, b2, sizeof(b2)), ia_errno_name((int)err),
		       strerror((int)err), u32a(tb, IOMMU_ACCOUNT_A_EVENT_ENTRIES),
		       u32a(tb, IOMMU_ACCOUNT_A_EVENT_LIMIT), u64a(tb, IOMMU_ACCOUNT_A_EVENT_IOVA),
		       u64a(tb, IOMMU_ACCOUNT_A_EVENT_SIZE),
		       ia_owner_str(tb[IOMMU_ACCOUNT_A_EVENT_OWNER], b, sizeof(b)));
		if (err == ENOMEM)
			printf(", locked %" PRIu64 " of RLIMIT_MEMLOCK %" PRIu64,
			       u64a(tb, IOMMU_ACCOUNT_A_EVENT_LOCKED_BYTES),
			       u64a(tb, IOMMU_ACCOUNT_A_EVENT_MEMLOCK_LIMIT));
		printf("\n");
	} else {
		printf("#%" PRIu64 " %s container %u (groups %s): %u of %u entries used "
		       "(threshold %.1f%%), by %s\n", seq,
		       u32a(tb, IOMMU_ACCOUNT_A_EVENT_LEVEL) == IOMMU_ACCOUNT_THRESHOLD_LEVEL_CRIT ?
		       "CRIT" : "WARN", u32a(tb, IOMMU_ACCOUNT_A_EVENT_CONTAINER_ID), groups,
		       u32a(tb, IOMMU_ACCOUNT_A_EVENT_ENTRIES), u32a(tb, IOMMU_ACCOUNT_A_EVENT_LIMIT),
		       u32a(tb, IOMMU_ACCOUNT_A_EVENT_THRESHOLD) / 10.0,
		       ia_owner_str(tb[IOMMU_ACCOUNT_A_EVENT_OWNER], b, sizeof(b)));
	}
	fflush(stdout);
	if (f->counted && !--f->left)
		return NL_STOP;
	return NL_OK;
}

/* Events are multicast in the initial network namespace only. */
static bool in_initial_netns(void)
{
	struct stat self, init;

	if (stat("/proc/self/ns/net", &self) || stat("/proc/1/ns/net", &init))
		return true;	/* cannot tell: say nothing */
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}

int cmd_events(struct ia_ctx *ctx)
{
	struct follow f = { .ctx = ctx, .left = ctx->count, .counted = ctx->count > 0 };
	int grp, ret;

	if (!in_initial_netns())
		fprintf(stderr, "iommu-accountctl: events: this process is not in the initial "
			"network namespace; iommu_account sends events only there, so none "
			"will arrive\n");
	grp = genl_ctrl_resolve_grp(ctx->sk, IOMMU_ACCOUNT_FAMILY_NAME, IOMMU_ACCOUNT_MCGRP_EVENTS);
	if (grp < 0) {
		fprintf(stderr, "iommu-accountctl: events: the loaded iommu_account offers no "
			"events group (see `iommu-accountctl status`, feature \"events\")\n");
		return IA_EXIT_UNSUPP;
	}
	ret = nl_socket_add_membership(ctx->sk, grp);
	if (ret) {
		fprintf(stderr, "iommu-accountctl: events: cannot join the events group: %s%s\n",
			nl_geterror(ret), ret == -NLE_PERM ? " (needs CAP_SYS_ADMIN)" : "");
		return ret == -NLE_PERM ? IA_EXIT_PERM : IA_EXIT_FAIL;
	}
	nl_socket_disable_seq_check(ctx->sk);
	nl_socket_modify_cb(ctx->sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, &f);
	for (;;) {
		ret = nl_recvmsgs_default(ctx->sk);
		if (f.counted && !f.left)
			return IA_EXIT_OK;
		/*
		 * The socket overran (ENOBUFS, which libnl reports as
		 * NLE_NOMEM): events were lost; the next event's sequence
		 * number tells how many. Keep following.
		 */
		if (ret == -NLE_NOMEM && errno == ENOBUFS) {
			f.overrun = true;
			continue;
		}
		if (ret < 0 && ret != -NLE_INTR) {
			fprintf(stderr, "iommu-accountctl: events: %s\n", nl_geterror(ret));
			return IA_EXIT_FAIL;
		}
	}
}
