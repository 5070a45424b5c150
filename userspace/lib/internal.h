/* SPDX-License-Identifier: GPL-2.0 */
/* libia internals shared by its files; not installed. */
#ifndef IA_LIB_INTERNAL_H
#define IA_LIB_INTERNAL_H

#include <netlink/genl/genl.h>

#include "ia.h"

#define IA_MAX_ATTRS 64

/* Record @err and its message (@fmt with one %s, @arg) in @c; returns @err. */
int ia_fail(struct ia_client *c, int err, const char *fmt, const char *arg);

/* Called per reply with its attributes parsed up to the request's maxattr. */
typedef int (*ia_msg_fn)(struct nlmsghdr *nlh, struct nlattr **tb, void *arg);

struct nl_msg *ia_msg(struct ia_client *c, uint8_t cmd, bool dump);
/* Send @msg (consumed, may be NULL on allocation failure) and receive. */
int ia_request(struct ia_client *c, struct nl_msg *msg, int maxattr, ia_msg_fn fn, void *arg);
/* A dump of @cmd, or with @key a do for the object whose @key_attr it is. */
int ia_request_key(struct ia_client *c, uint8_t cmd, int key_attr, const uint32_t *key,
		   int maxattr, ia_msg_fn fn, void *arg);

int ia_parse_event(struct nlmsghdr *nlh, struct nlattr **tb, struct ia_event *ev);
void ia_free_event(struct ia_event *ev);

#endif
