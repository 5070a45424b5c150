// SPDX-License-Identifier: GPL-2.0
/*
 * The kinds of quota the module announces (STATUS): their names, units and
 * the configured thresholds of each. A leaf: every part of the daemon reads
 * these, and it calls none of them.
 */
#include <stdio.h>

#include "iad.h"

const char *iad_kind_name(const struct iad *d, uint32_t kind, char *buf, size_t len)
{
	const struct ia_quota_kind *k = ia_quota_kind_find(&d->st, kind);

	if (k && k->name[0])
		return k->name;
	snprintf(buf, len, "kind-%u", kind);
	return buf;
}

const char *iad_kind_unit(const struct iad *d, uint32_t kind)
{
	const struct ia_quota_kind *k = ia_quota_kind_find(&d->st, kind);

	return k ? k->unit : "";
}

void iad_thr_of(const struct iad *d, uint32_t kind, struct iad_thr *thr)
{
	char b[24];

	iad_config_thr(&d->cfg, iad_kind_name(d, kind, b, sizeof(b)), thr);
}
