// SPDX-License-Identifier: GPL-2.0
/*
 * A page charged to a memory cgroup (__GFP_ACCOUNT) marked with the Kmemcg
 * page type (before 5.13): the type shares its word with _mapcount, so
 * vm_insert_page() refuses such a page (EINVAL) and it cannot be mapped by
 * reference; its frame can (remap_pfn_range()).
 */
#include <linux/page-flags.h>

static inline bool ia_conftest(struct page *page)
{
	return PageKmemcg(page);
}
