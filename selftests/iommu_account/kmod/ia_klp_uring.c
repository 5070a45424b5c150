// SPDX-License-Identifier: GPL-2.0
/*
 * ia_klp_uring: a livepatch of __io_account_mem, the io_uring charge that
 * iommu_account wraps (livepatch_test.sh), and on 7.x of io_account_mem
 * too, into which 7.x inlines __io_account_mem for registered buffers. The
 * replacements are the functions' own bodies (the charge of nr_pages
 * against the uid's pot, refused above RLIMIT_MEMLOCK; on 7.x the process's
 * pinned_vm as well), so what the kernel charges does not change and the
 * module's counts are checked against it with the patch on. The charges
 * are counted in the parameter "calls", which shows that the patched
 * functions are the ones that run.
 * A test module: never installed or packaged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm_types.h>
#include <linux/version.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>

static atomic_long_t ia_klp_calls = ATOMIC_LONG_INIT(0);

static int ia_klp_calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&ia_klp_calls));
}

static const struct kernel_param_ops ia_klp_calls_ops = {
	.get = ia_klp_calls_get,
};

module_param_cb(calls, &ia_klp_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "calls of the patched __io_account_mem");

static int ia_klp_io_account_mem(struct user_struct *user, unsigned long nr_pages)
{
	unsigned long page_limit, cur_pages, new_pages;

	atomic_long_inc(&ia_klp_calls);
	if (!nr_pages)
		return 0;
	/* Don't allow more pages than we can safely lock */
	page_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	cur_pages = atomic_long_read(&user->locked_vm);
	do {
		new_pages = cur_pages + nr_pages;
		if (new_pages > page_limit)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur_pages, new_pages));
	return 0;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
/* 7.x: io_account_mem(user, mm_account, nr_pages), global (zcrx uses it). */
static int ia_klp_account_mem(struct user_struct *user, struct mm_struct *mm_account,
			      unsigned long nr_pages)
{
	int ret;

	if (user) {
		ret = ia_klp_io_account_mem(user, nr_pages);
		if (ret)
			return ret;
	}
	if (mm_account)
		atomic64_add(nr_pages, &mm_account->pinned_vm);
	return 0;
}
#endif

static struct klp_func ia_klp_funcs[] = {
	{
		.old_name = "__io_account_mem",
		.new_func = ia_klp_io_account_mem,
	},
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
	{
		.old_name = "io_account_mem",
		.new_func = ia_klp_account_mem,
	},
#endif
	{ }
};

static struct klp_object ia_klp_objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = ia_klp_funcs,
	},
	{ }
};

static struct klp_patch ia_klp_patch = {
	.mod = THIS_MODULE,
	.objs = ia_klp_objs,
};

static int __init ia_klp_init(void)
{
	return klp_enable_patch(&ia_klp_patch);
}

static void __exit ia_klp_exit(void)
{
}

module_init(ia_klp_init);
module_exit(ia_klp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iommu-account test: a livepatch of __io_account_mem");
MODULE_INFO(livepatch, "Y");
