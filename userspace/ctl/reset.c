// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl reset-scope [BDF] [--uid N]: what a VFIO hot reset of a
 * device would reach (the kernel's own slot-or-bus decision and walk, from
 * the module), who holds each affected IOMMU group, and the verdict: could
 * uid N (default: the owner of the device's group, else the caller) reset
 * it now, or the exact reason it would fail and which group fds a caller
 * must present. Without BDF: every device bound to vfio-pci. The function
 * reset methods are the kernel's own list (sysfs reset_method).
 *
 * Also used by `groups`: whether each device's hot reset stays in its group.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uapi/linux/iommu_account.h>

#include "ctl.h"

/* The driver of @addr from sysfs ("" when none). */
static void sysfs_driver(const char *addr, char *buf, size_t len)
{
	char path[128], link[PATH_MAX];
	const char *p;
	ssize_t n;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", addr);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = 0;
	p = strrchr(link, '/');
	p = p ? p + 1 : link;
	if (strlen(p) < len)
		memcpy(buf, p, strlen(p) + 1);
}

/* The kernel's function reset methods of @addr ("" when none or unknown). */
static void reset_methods(const char *addr, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset_method", addr);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

struct rs_state {
	struct ia_ctx *ctx;
	bool one;
	unsigned int n;
};

/* The uid the verdict is for: --uid, else the owner of the device's group, else us. */
static uint32_t verdict_uid(const struct ia_ctx *ctx, const struct ia_reset *r)
{
	unsigned int i;

	if (ctx->have_key)
		return ctx->key;
	for (i = 0; i < r->naffected; i++)
		if (r->has_group && r->affected[i].has_group &&
		    r->affected[i].group == r->group && r->affected[i].owner.present)
			return r->affected[i].owner.uid;
	return (uint32_t)getuid();
}

static void holder_str(const struct ia_reset_dev *d, char *buf, size_t len)
{
	char b[96];

	if (d->holder == IOMMU_ACCOUNT_RESET_HOLDER_NONE)
		snprintf(buf, len, "-");
	else if (d->owner.present && d->has_container)
		snprintf(buf, len, "container %u, %s", d->container,
			 ia_owner_str(&d->owner, b, sizeof(b)));
	else if (d->owner.present)
		snprintf(buf, len, "iommufd, %s", ia_owner_str(&d->owner, b, sizeof(b)));
	else
		snprintf(buf, len, "another user");
}

static void print_json(struct ia_ctx *ctx, const struct ia_reset *r, uint32_t uid,
		       const struct ia_verdict *v, const char *driver, const char *methods)
{
	struct ia_json *j = &ctx->j;
	const struct ia_reset_dev *d;
	char vd[8], m[128], *tok, *save = NULL;
	unsigned int i;

	ia_json_obj_open(j, NULL);
	ia_json_str(j, "address", r->address);
	ia_json_u64_if(j, "group", r->has_group, r->group);
	ia_json_str_or_null(j, "driver", driver);
	ia_json_str(j, "scope", ia_reset_scope_name(r->scope));
	ia_json_str_or_null(j, "reset_set",
			    r->has_set_kind ? ia_reset_set_kind_name(r->set_kind) : NULL);
	ia_json_bool(j, "vfio_device", r->vfio);
	ia_json_arr_open(j, "function_reset");
	snprintf(m, sizeof(m), "%s", methods);
	for (tok = strtok_r(m, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		ia_json_str(j, NULL, tok);
	ia_json_arr_close(j);
	ia_json_u64(j, "uid", uid);
	ia_json_str(j, "verdict", ia_verdict_name(v->kind));
	ia_json_str(j, "reason", v->reason);
	ia_json_str_or_null(j, "errno", v->errno_name);
	ia_json_u32_array(j, "groups_needed", v->groups, v->ngroups);
	ia_json_bool(j, "in_own_group", v->in_own_group);
	ia_json_arr_open(j, "affected");
	for (i = 0; i < r->naffected; i++) {
		d = &r->affected[i];
		ia_json_obj_open(j, NULL);
		ia_json_str(j, "address", d->dev.address);
		snprintf(vd, sizeof(vd), "%04x", d->dev.vendor);
		ia_json_str(j, "vendor", vd);
		snprintf(vd, sizeof(vd), "%04x", d->dev.device);
		ia_json_str(j, "device", vd);
		ia_json_str_or_null(j, "driver", d->dev.driver);
		ia_json_u64_if(j, "group", d->has_group, d->group);
		ia_json_str(j, "holder", d->holder == IOMMU_ACCOUNT_RESET_HOLDER_CALLER ? "caller" :
					 d->holder == IOMMU_ACCOUNT_RESET_HOLDER_OTHER ? "other" : "none");
		if (d->has_container)
			ia_json_u64(j, "container", d->container);
		ia_json_owner(j, "owner", &d->owner);
		ia_json_str_or_null(j, "reset_set", d->has_set ? ia_reset_set_name(d->set) : NULL);
		ia_json_bool(j, "vfio_device", d->vfio);
		ia_json_bool(j, "virtfn", d->virtfn);
		ia_json_obj_close(j);
	}
	ia_json_arr_close(j);
	ia_json_obj_close(j);
}

static void print_one(const struct ia_reset *r, uint32_t uid, const struct ia_verdict *v,
		      const char *driver, const char *methods)
{
	const struct ia_reset_dev *d;
	char grp[16], held[128];
	unsigned int i;

	if (r->has_group)
		snprintf(grp, sizeof(grp), "%u", r->group);
	else
		snprintf(grp, sizeof(grp), "none");
	printf("%s (group %s, %s): ", r->address, grp, driver[0] ? driver : "no driver");
	if (r->scope == IOMMU_ACCOUNT_RESET_SCOPE_NONE)
		printf("no hot reset (neither a slot nor a bus reset)\n");
	else
		printf("%s reset of %u device(s); vfio-pci's reset set: %s%s\n",
		       ia_reset_scope_name(r->scope), r->naffected,
		       r->has_set_kind ? ia_reset_set_kind_name(r->set_kind) : "unknown",
		       r->vfio ? "" : " (if bound to vfio-pci)");
	if (r->naffected)
		printf("  %-14s %-9s %-14s %-6s %-6s %s\n", "DEVICE", "ID", "DRIVER", "GROUP",
		       "SET", "HELD BY");
	for (i = 0; i < r->naffected; i++) {
		d = &r->affected[i];
		if (d->has_group)
			snprintf(grp, sizeof(grp), "%u", d->group);
		else
			snprintf(grp, sizeof(grp), "none");
		holder_str(d, held, sizeof(held));
		printf("  %-14s %04x:%04x %-14s %-6s %-6s %s\n", d->dev.address, d->dev.vendor,
		       d->dev.device, d->dev.driver[0] ? d->dev.driver : "-", grp,
		       d->has_set ? ia_reset_set_name(d->set) : "?", held);
	}
	printf("function reset: %s\n", methods[0] ? methods : "none");
	printf("verdict for uid %u: %s: %s\n", uid, ia_verdict_name(v->kind), v->reason);
	if (v->ngroups) {
		printf("group fds to present:");
		for (i = 0; i < v->ngroups; i++)
			printf(" %u", v->groups[i]);
		printf("\n");
	}
}

static int reset_cb(const struct ia_reset *r, void *arg)
{
	struct rs_state *s = arg;
	struct ia_ctx *ctx = s->ctx;
	char driver[64], methods[128];
	struct ia_verdict v;
	uint32_t uid = verdict_uid(ctx, r);

	sysfs_driver(r->address, driver, sizeof(driver));
	if (!s->one && !ia_driver_is_vfio(driver))
		return 0;
	reset_methods(r->address, methods, sizeof(methods));
	ia_reset_verdict(r, uid, uid == (uint32_t)getuid(), &v);
	if (ctx->json) {
		print_json(ctx, r, uid, &v, driver, methods);
	} else if (s->one) {
		print_one(r, uid, &v, driver, methods);
	} else {
		if (!s->n)
			printf("%-14s %6s %-5s %7s %-14s %s\n", "DEVICE", "GROUP", "SCOPE",
			       "DEVICES", "VERDICT", "REASON");
		printf("%-14s %6u %-5s %7u %-14s %s\n", r->address, r->group,
		       ia_reset_scope_name(r->scope), r->naffected, ia_verdict_name(v.kind),
		       v.kind == IA_VERDICT_OK ? "-" : v.reason);
	}
	s->n++;
	return 0;
}

/* DDDD:BB:DD.F or BB:DD.F as the kernel writes them (hex digits), in range. */
static bool valid_address(const char *a)
{
	const char *shape = strlen(a) == 12 ? "xxxx:xx:xx.x" : "xx:xx.x";
	size_t i;

	if (strlen(a) != strlen(shape))
		return false;
	for (i = 0; shape[i]; i++)
		if (shape[i] == 'x' ? !isxdigit((unsigned char)a[i]) : a[i] != shape[i])
			return false;
	/* The device number (5 bits) and the function (3 bits). */
	return strtoul(a + strlen(a) - 4, NULL, 16) < 0x20 && a[strlen(a) - 1] < '8';
}

static int cmd_reset_scope(struct ia_ctx *ctx)
{
	struct rs_state s = { .ctx = ctx, .one = ctx->nargs == 1 };
	const char *addr = ctx->nargs ? ctx->args[0] : NULL;
	int err;

	if (addr && !valid_address(addr)) {
		fprintf(stderr, "iommu-accountctl: reset-scope: '%s' is not a PCI address "
			"(DDDD:BB:DD.F)\n", addr);
		return IA_EXIT_USAGE;
	}
	if (!s.one)
		ia_ctl_list_open(ctx);
	err = ia_get_resets(&ctx->cl, addr, reset_cb, &s);
	if (!s.one)
		ia_ctl_list_close(ctx);
	if (err == -ENODEV) {
		fprintf(stderr, "iommu-accountctl: reset-scope: no PCI device %s\n", addr);
		return IA_EXIT_NOENT;
	}
	if (err)
		return ia_ctl_error(ctx, "reset-scope", err);
	if (!ctx->json && !s.one && !s.n)
		printf("no device is bound to vfio-pci\n");
	return IA_EXIT_OK;
}

/* --- for `groups`: does each device's hot reset stay in its group? ----------- */

static int collect_cb(const struct ia_reset *r, void *arg)
{
	struct ia_reset_brief **list = arg;
	struct ia_reset_brief *b = calloc(1, sizeof(*b));
	struct ia_verdict v;

	if (!b)
		return -ENOMEM;
	ia_reset_verdict(r, 0, false, &v);
	snprintf(b->address, sizeof(b->address), "%s", r->address);
	b->scope = r->scope;
	b->in_own_group = v.in_own_group;
	b->refused = v.kind == IA_VERDICT_NOT_IN_SET;
	b->unknown = v.kind == IA_VERDICT_UNKNOWN;
	b->next = *list;
	*list = b;
	return 0;
}

struct ia_reset_brief *ia_ctl_reset_briefs(struct ia_ctx *ctx)
{
	struct ia_reset_brief *list = NULL;

	/* A module without the command: no column, not an error. */
	if (ia_get_resets(&ctx->cl, NULL, collect_cb, &list)) {
		ia_ctl_reset_briefs_free(list);
		return NULL;
	}
	return list;
}

const struct ia_reset_brief *ia_ctl_reset_brief(const struct ia_reset_brief *l,
						const char *address)
{
	for (; l; l = l->next)
		if (!strcmp(l->address, address))
			return l;
	return NULL;
}

void ia_ctl_reset_briefs_free(struct ia_reset_brief *l)
{
	while (l) {
		struct ia_reset_brief *n = l->next;

		free(l);
		l = n;
	}
}

const struct ia_ctl_cmd ia_cmd_reset_scope = {
	.name = "reset-scope",
	.fn = cmd_reset_scope,
	.opts = IA_CTL_OPTS(&ia_opt_uid),
	.max_args = 1,
	.synopsis = "[BDF] [--uid N]",
	.help = "what a VFIO hot reset would reach, who holds it, could uid N do it",
	.example = "iommu-accountctl reset-scope 0000:00:03.0 --uid 1000",
};
