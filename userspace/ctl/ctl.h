/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IA_CTL_H
#define IA_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <netlink/genl/genl.h>

/* Exit codes (documented in Documentation/ctl.md). */
enum {
	IA_EXIT_OK = 0,
	IA_EXIT_USAGE = 1,	/* bad command line */
	IA_EXIT_NOMODULE = 2,	/* iommu_account is not loaded */
	IA_EXIT_PERM = 3,	/* permission denied */
	IA_EXIT_NOENT = 4,	/* the object asked for does not exist */
	IA_EXIT_UNSUPP = 5,	/* the loaded module or kernel lacks it */
	IA_EXIT_FAIL = 6,	/* any other failure */
};

#define IA_CTL_VERSION "0.2.0"

struct ia_ctx {
	struct nl_sock *sk;
	int family;
	bool json;
	/* The parsed command line (main.c checks it before connecting). */
	const char *cmd;
	char **args;
	int nargs;
	bool have_key;		/* --uid N or --id N */
	uint32_t key;
	uint32_t count;		/* --count N, 0: none */
	uint32_t warn, crit;	/* thresholds WARN CRIT */
	/* Set by the error handler of the last request. */
	int err;
	char extack[256];
};

typedef int (*ia_msg_cb)(struct ia_ctx *ctx, struct nlmsghdr *nlh,
			 struct nlattr **tb, void *arg);

int ia_open(struct ia_ctx *ctx);
void ia_close(struct ia_ctx *ctx);
/* Send @msg (do or dump), call @cb per reply with attributes parsed to
 * @maxattr. Returns an IA_EXIT_* code and prints the error. */
int ia_request(struct ia_ctx *ctx, struct nl_msg *msg, int maxattr,
	       ia_msg_cb cb, void *arg, const char *what);
struct nl_msg *ia_msg(struct ia_ctx *ctx, uint8_t cmd, bool dump);
/*
 * A dump of @cmd, or (with --uid/--id) a do for the object whose @key_attr
 * is that number; with --json the output is an array either way.
 */
int ia_get_objects(struct ia_ctx *ctx, uint8_t cmd, int key_attr, int maxattr,
		   ia_msg_cb cb, void *arg);
/* errno's symbolic name ("ENOSPC"), portable (no strerrorname_np). */
const char *ia_errno_name(int err);

/* Output helpers. */
const char *ia_human_bytes(uint64_t v, char *buf, size_t len);
void ia_json_str(FILE *f, const char *s);

/* Owner nest: "pid uid comm" or JSON object {"pid":..,"uid":..,"comm":..}. */
void ia_print_owner(struct ia_ctx *ctx, struct nlattr *nest, const char *key);
const char *ia_owner_str(struct nlattr *nest, char *buf, size_t len);
int ia_parse_u32(const char *s, uint32_t *v);
const char *ia_u32_list(struct nlmsghdr *nlh, int attr, char *buf, size_t len);

int cmd_status(struct ia_ctx *ctx);
int cmd_uids(struct ia_ctx *ctx);
int cmd_groups(struct ia_ctx *ctx);
int cmd_containers(struct ia_ctx *ctx);
int cmd_events(struct ia_ctx *ctx);
int cmd_thresholds(struct ia_ctx *ctx);

#endif
