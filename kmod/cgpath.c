// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup v2 paths, carried whole. A path is the kernel's own (kernfs), built
 * into a scratch buffer of PATH_MAX + 1 bytes and copied into a shared,
 * immutable, reference-counted string of its own length.
 *
 * Kernels disagree on what kernfs_path_from_node() says when the buffer is
 * too small: 6.1 returns the full length (strlcpy), 6.12 the bytes written
 * (scnprintf: buflen - 1 at most), later ones may return -E2BIG. With one
 * byte more than is kept, a length of PATH_MAX or more, or either error,
 * means the path did not fit: what was written is kept up to PATH_MAX - 1
 * bytes, cut before a character (never inside one), and marked truncated.
 * Nothing is cut without saying so.
 */
#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ia.h"

/* Longest kept: a path that fits in PATH_MAX with its NUL. */
#define IA_CGPATH_KEEP (PATH_MAX - 1)

/* A UTF-8 continuation byte (10xxxxxx): not where a character starts. */
static bool ia_utf8_cont(u8 c)
{
	return (c & 0xc0) == 0x80;
}

/*
 * The length to keep of @buf (NUL-terminated, possibly cut by the kernel):
 * at most IA_CGPATH_KEEP, and never ending inside a character. A character
 * is four bytes at most, so the cut moves back three bytes at most (bytes
 * that are not UTF-8 are cut where they fall).
 */
static size_t ia_cgpath_keep(const char *buf)
{
	size_t n = strnlen(buf, IA_CGPATH_KEEP);
	unsigned int back;

	if (!buf[n])
		return n;
	for (back = 0; back < 3 && n > 0 && ia_utf8_cont(buf[n]); back++)
		n--;
	return ia_utf8_cont(buf[n]) ? n + back : n;
}

/*
 * A path from @buf and what the kernel returned building it into
 * IA_CGPATH_BUF bytes; @old reused when it is the same.
 */
static struct ia_cgpath *ia_cgpath_make(const char *buf, int ret, struct ia_cgpath *old,
					gfp_t gfp)
{
	bool truncated = false;
	struct ia_cgpath *p;
	size_t len;

	if (ret == -E2BIG || ret == -ENAMETOOLONG || ret >= IA_CGPATH_BUF - 1)
		truncated = true;
	else if (ret < 0)
		return NULL;
	len = truncated ? ia_cgpath_keep(buf) : strnlen(buf, IA_CGPATH_KEEP);
	if (!len)
		return NULL;
	if (old && old->truncated == truncated && !strncmp(old->path, buf, len) &&
	    !old->path[len])
		return ia_cgpath_get(old);
	p = kmalloc(struct_size(p, path, len + 1), gfp);
	if (!p)
		return NULL;
	refcount_set(&p->ref, 1);
	p->truncated = truncated;
	memcpy(p->path, buf, len);
	p->path[len] = 0;
	return p;
}

struct ia_cgpath *ia_task_cgpath(struct task_struct *task, char *scratch,
				 struct ia_cgpath *old, gfp_t gfp)
{
	int ret = -ENOENT;

	scratch[0] = 0;
#ifdef CONFIG_CGROUPS
	/* kernfs_path takes only kernfs_rename_lock: fine in atomic context. */
	rcu_read_lock();
	ret = cgroup_path(task_dfl_cgroup(task), scratch, IA_CGPATH_BUF);
	rcu_read_unlock();
#endif
	return ia_cgpath_make(scratch, ret, old, gfp);
}

struct ia_cgpath *ia_cgroup_cgpath_ns(struct cgroup *cgrp, struct cgroup_namespace *ns,
				      char *scratch)
{
	int ret = -ENOENT;

	scratch[0] = 0;
#ifdef CONFIG_CGROUPS
	ret = cgroup_path_ns(cgrp, scratch, IA_CGPATH_BUF, ns);
#endif
	return ia_cgpath_make(scratch, ret, NULL, GFP_KERNEL);
}

struct ia_cgpath *ia_cgpath_get(struct ia_cgpath *p)
{
	if (p)
		refcount_inc(&p->ref);
	return p;
}

/* Any context: the last reference frees it. */
void ia_cgpath_put(struct ia_cgpath *p)
{
	if (p && refcount_dec_and_test(&p->ref))
		kfree(p);
}
