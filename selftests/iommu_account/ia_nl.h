/* SPDX-License-Identifier: GPL-2.0 */
/* A small generic netlink client on libmnl, for the selftests only. */
#ifndef IA_NL_H
#define IA_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

struct ia_nl {
	struct mnl_socket *nl;
	uint16_t family;
	uint32_t seq;
	char extack[256];	/* extack message of the last error, if any */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE of the last error, or -1 */
	int batches;		/* recv() calls that carried data in the last request */
};

struct ia_uid {
	uint32_t uid;
	uint64_t locked;
	uint32_t tasks;
	bool has_min, has_max, has_headroom;
	uint64_t min, max;
	int64_t headroom;
};

struct ia_feature {
	char name[32];
	uint32_t state;
	char detail[96];
};

struct ia_status {
	char version[64];
	char release[128];
	uint32_t page_size;
	int nfeat;
	struct ia_feature feat[16];
};

/* 0, or -ENOENT when the family is not registered, or -errno. */
int ia_nl_open(struct ia_nl *s);
void ia_nl_close(struct ia_nl *s);
int ia_get_status(struct ia_nl *s, struct ia_status *st);
int ia_get_uid(struct ia_nl *s, uint32_t uid, struct ia_uid *out);
/* Dump into @out (room for @max); returns the count or -errno. */
int ia_dump_uids(struct ia_nl *s, struct ia_uid *out, int max);
/* Send the first @len bytes of a hand-made message as one message of that
 * length (type, seq and flags are filled in); 0 or -errno. */
int ia_raw(struct ia_nl *s, char *buf, size_t len);
/* Convenience: the pot of @uid, or -1 if it has no user_struct. */
int64_t ia_locked(struct ia_nl *s, uint32_t uid);

#endif
