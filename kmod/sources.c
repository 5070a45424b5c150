// SPDX-License-Identifier: GPL-2.0
/*
 * The table of sources (source.h): the only place that names them all.
 * Sources do not depend on one another; each records its features
 * (core.c) and may queue events, which events.c drops while no sink is
 * registered. The memlock ledger brings up its consumers (its parts),
 * each of which declares itself in its own file.
 */
#include <linux/kernel.h>

#include "source.h"

static const struct ia_source ia_uid_source = {
	.name = "uid",
	.init = ia_uid_init,
	.exit = ia_uid_exit,
	.kind = &ia_uid_pot_kind,
};

static const struct ia_source *const ia_memlock_parts[] = {
	&ia_ml_uring_source, &ia_ml_xdp_source, &ia_ml_iommufd_source, NULL,
};

static const struct ia_source ia_memlock_source = {
	.name = "memlock",
	.init = ia_memlock_init,
	.exit = ia_memlock_exit,
	.probes_missed = ia_memlock_probes_missed,
	.parts = ia_memlock_parts,
};

static const struct ia_source ia_vfio_source = {
	.name = "vfio",
	.init = ia_vfio_init,
	.exit = ia_vfio_exit,
	.kind = &ia_vfio_container_kind,
	.probes_missed = ia_vfio_probes_missed,
};

static const struct ia_source ia_pub_source = {
	.name = "published",
	.init = ia_pub_init,
	.exit = ia_pub_exit,
	.kind = &ia_qpair_kind,
};

static const struct ia_source ia_reset_source = {
	.name = "reset",
	.init = ia_reset_init,
};

const struct ia_source *const ia_sources[] = {
	&ia_uid_source, &ia_memlock_source, &ia_vfio_source, &ia_pub_source,
	&ia_reset_source, NULL,
};

static const struct ia_quota_kind *ia_kind_in(const struct ia_source *s, u32 id)
{
	const struct ia_source *const *p;

	if (s->kind && s->kind->id == id)
		return s->kind;
	for (p = s->parts; p && *p; p++)
		if ((*p)->kind && (*p)->kind->id == id)
			return (*p)->kind;
	return NULL;
}

const struct ia_quota_kind *ia_kind_of(u32 id)
{
	const struct ia_source *const *s;
	const struct ia_quota_kind *k;

	for (s = ia_sources; *s; s++) {
		k = ia_kind_in(*s, id);
		if (k)
			return k;
	}
	return NULL;
}

int ia_sources_init(void)
{
	const struct ia_source *const *s;
	int ret;

	for (s = ia_sources; *s; s++) {
		ret = (*s)->init ? (*s)->init(*s) : 0;
		if (ret) {
			pr_err("iommu_account: source %s: %d\n", (*s)->name, ret);
			while (s-- != ia_sources)
				if ((*s)->exit)
					(*s)->exit(*s);
			return ret;
		}
	}
	return 0;
}

void ia_sources_exit(void)
{
	const struct ia_source *const *s = ia_sources;

	while (*s)
		s++;
	while (s-- != ia_sources)
		if ((*s)->exit)
			(*s)->exit(*s);
}

u64 ia_sources_probes_missed(void)
{
	const struct ia_source *const *s;
	u64 n = 0;

	for (s = ia_sources; *s; s++)
		if ((*s)->probes_missed)
			n += (*s)->probes_missed();
	return n;
}
