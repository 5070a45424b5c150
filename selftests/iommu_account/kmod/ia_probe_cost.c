// SPDX-License-Identifier: GPL-2.0
/*
 * ia_probe_cost: the cost of one hit of each probe kind iommu_account can use,
 * measured on a function of this module's own, on the running kernel.
 *
 *   echo N > /sys/module/ia_probe_cost/parameters/run
 *   cat /sys/module/ia_probe_cost/parameters/result
 *
 * For each kind: N calls of ia_pc_target() with nothing attached, then N with
 * one probe of that kind attached (its handler does nothing but count), the
 * two alternating five times; the result line gives the median ns per call
 * of each side and the difference, which is the cost of one hit, and the
 * handler's own count (it must equal the calls made, or the line says so).
 * Kinds: ftrace_ops (a callback of our own, arguments only, called directly
 * by the trampoline, as iommu_account's entry hooks are), ftrace_ops+recursion
 * (the same through ftrace_ops_assist_func, FTRACE_OPS_FL_RECURSION),
 * ftrace-wrap (IPMODIFY: the call redirected to a wrapper that calls the
 * original, whose own entry the callback then lets through, as iommu_account
 * wraps MAP_DMA), kprobe (on the function's ftrace location), kretprobe
 * (entry and return handlers), kretprobe-declined (its entry handler returns
 * 1, as iommu_account's fallback does for calls it does not follow), and
 * fprobe entry / entry+exit where the kernel has CONFIG_FPROBE. A test
 * module: never installed or packaged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sort.h>
#ifdef CONFIG_FPROBE
#include <linux/fprobe.h>
#endif

static noinline unsigned long ia_pc_target(unsigned long a, unsigned long b)
{
	asm volatile ("" : "+r" (a));
	return a + b;
}

static atomic_long_t ia_pc_hits;
static unsigned long ia_pc_sink;

/* --- the handlers: count, read the first argument, nothing else ------------------- */

static void notrace ia_pc_ftrace(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_long_inc(&ia_pc_hits);
}

static struct ftrace_ops ia_pc_ops = {
	.func = ia_pc_ftrace,
};

static struct ftrace_ops ia_pc_ops_rec = {
	.func = ia_pc_ftrace,
	.flags = FTRACE_OPS_FL_RECURSION,
};

typedef unsigned long (*ia_pc_fn)(unsigned long a, unsigned long b);

static noinline notrace unsigned long ia_pc_wrapper(unsigned long a, unsigned long b)
{
	unsigned long r;

	/* Work after the call: a tail call would enter the original from elsewhere. */
	r = ((ia_pc_fn)ia_pc_target)(a, b);
	atomic_long_inc(&ia_pc_hits);
	return r;
}

#ifdef ftrace_regs_set_instruction_pointer
#define ia_pc_set_ip(f, ip) ftrace_regs_set_instruction_pointer(f, ip)
#else
#define ia_pc_set_ip(f, ip) ftrace_instruction_pointer_set(f, ip)
#endif

static void notrace ia_pc_wrap_cb(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	/* iommu_account tests within_module(); here the caller is this module too. */
	if (parent_ip - (unsigned long)ia_pc_wrapper < 128)
		return;
	ia_pc_set_ip(fregs, (unsigned long)ia_pc_wrapper);
}

static struct ftrace_ops ia_pc_ops_wrap = {
	.func = ia_pc_wrap_cb,
	.flags = FTRACE_OPS_FL_IPMODIFY,
};

static int ia_pc_kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&ia_pc_hits);
	return 0;
}

static int ia_pc_krp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static int ia_pc_krp_decline(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&ia_pc_hits);
	return 1;
}

static int ia_pc_krp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&ia_pc_hits);
	return 0;
}

#ifdef CONFIG_FPROBE
#ifdef FPROBE_DATA_SIZE_BITS	/* fgraph-based fprobe (6.15+): ftrace_regs */
static int ia_pc_fp_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			  struct ftrace_regs *regs, void *data)
{
	atomic_long_inc(&ia_pc_hits);
	return 0;
}

static void ia_pc_fp_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			  struct ftrace_regs *regs, void *data)
{
}
#else
static int ia_pc_fp_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			  struct pt_regs *regs, void *data)
{
	atomic_long_inc(&ia_pc_hits);
	return 0;
}

static void ia_pc_fp_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			  struct pt_regs *regs, void *data)
{
}
#endif
#endif /* CONFIG_FPROBE */

/* --- one kind ---------------------------------------------------------------------- */

enum ia_pc_kind {
	IA_PC_FTRACE,
	IA_PC_FTRACE_REC,
	IA_PC_FTRACE_WRAP,
	IA_PC_KPROBE,
	IA_PC_KRETPROBE,
	IA_PC_KRETPROBE_DECLINED,
	IA_PC_FPROBE_ENTRY,
	IA_PC_FPROBE_EXIT,
	IA_PC_KINDS,
};

static const char *const ia_pc_names[IA_PC_KINDS] = {
	"ftrace_ops", "ftrace_ops+recursion", "ftrace-wrap", "kprobe", "kretprobe",
	"kretprobe-declined", "fprobe-entry", "fprobe-entry+exit",
};

static struct kprobe ia_pc_kp;
static struct kretprobe ia_pc_krp;
#ifdef CONFIG_FPROBE
static struct fprobe ia_pc_fp;
#endif

static struct ftrace_ops *ia_pc_kind_ops(enum ia_pc_kind k)
{
	return k == IA_PC_FTRACE ? &ia_pc_ops : k == IA_PC_FTRACE_REC ? &ia_pc_ops_rec :
	       &ia_pc_ops_wrap;
}

static int ia_pc_attach(enum ia_pc_kind k)
{
	unsigned long addr = (unsigned long)ia_pc_target;
	struct ftrace_ops *ops;
	int ret;

	switch (k) {
	case IA_PC_FTRACE:
	case IA_PC_FTRACE_REC:
	case IA_PC_FTRACE_WRAP:
		ops = ia_pc_kind_ops(k);
		/*
		 * Before 6.13 ftrace_free_filter() leaves the freed hashes in
		 * the ops: start every registration from a clean ops.
		 */
		{
			ftrace_func_t func = ops->func;
			unsigned long flags = ops->flags & (FTRACE_OPS_FL_RECURSION |
							    FTRACE_OPS_FL_IPMODIFY);

			memset(ops, 0, sizeof(*ops));
			ops->func = func;
			ops->flags = flags;
		}
		ret = ftrace_set_filter_ip(ops, addr, 0, 1);
		return ret ?: register_ftrace_function(ops);
	case IA_PC_KPROBE:
		memset(&ia_pc_kp, 0, sizeof(ia_pc_kp));
		ia_pc_kp.addr = (kprobe_opcode_t *)addr;
		ia_pc_kp.pre_handler = ia_pc_kp_pre;
		return register_kprobe(&ia_pc_kp);
	case IA_PC_KRETPROBE:
	case IA_PC_KRETPROBE_DECLINED:
		memset(&ia_pc_krp, 0, sizeof(ia_pc_krp));
		ia_pc_krp.kp.addr = (kprobe_opcode_t *)addr;
		ia_pc_krp.entry_handler = k == IA_PC_KRETPROBE ? ia_pc_krp_entry :
								 ia_pc_krp_decline;
		ia_pc_krp.handler = ia_pc_krp_ret;
		ia_pc_krp.maxactive = 16;
		return register_kretprobe(&ia_pc_krp);
#ifdef CONFIG_FPROBE
	case IA_PC_FPROBE_ENTRY:
	case IA_PC_FPROBE_EXIT:
		memset(&ia_pc_fp, 0, sizeof(ia_pc_fp));
		ia_pc_fp.entry_handler = ia_pc_fp_entry;
		if (k == IA_PC_FPROBE_EXIT)
			ia_pc_fp.exit_handler = ia_pc_fp_exit;
		return register_fprobe_ips(&ia_pc_fp, &addr, 1);
#endif
	default:
		return -EOPNOTSUPP;
	}
}

static void ia_pc_detach(enum ia_pc_kind k)
{
	switch (k) {
	case IA_PC_FTRACE:
	case IA_PC_FTRACE_REC:
	case IA_PC_FTRACE_WRAP:
		unregister_ftrace_function(ia_pc_kind_ops(k));
		ftrace_free_filter(ia_pc_kind_ops(k));
		break;
	case IA_PC_KPROBE:
		unregister_kprobe(&ia_pc_kp);
		break;
	case IA_PC_KRETPROBE:
	case IA_PC_KRETPROBE_DECLINED:
		unregister_kretprobe(&ia_pc_krp);
		break;
#ifdef CONFIG_FPROBE
	case IA_PC_FPROBE_ENTRY:
	case IA_PC_FPROBE_EXIT:
		unregister_fprobe(&ia_pc_fp);
		break;
#endif
	default:
		break;
	}
}

/* ns per call of @n calls. */
static u64 ia_pc_loop(unsigned long n)
{
	unsigned long i, s = 0;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++)
		s += ia_pc_target(i, s);
	ia_pc_sink = s;
	return div64_u64((ktime_get_ns() - t0) * 1000, n);	/* picoseconds */
}

static int ia_pc_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

#define IA_PC_ROUNDS 5
static DEFINE_MUTEX(ia_pc_mutex);
static char ia_pc_result[PAGE_SIZE];

static int ia_pc_measure(enum ia_pc_kind k, unsigned long n, char *buf, size_t len)
{
	u64 without[IA_PC_ROUNDS], with[IA_PC_ROUNDS];
	long hits = 0;
	int i, ret;

	for (i = 0; i < IA_PC_ROUNDS; i++) {
		without[i] = ia_pc_loop(n);
		ret = ia_pc_attach(k);
		if (ret)
			return scnprintf(buf, len, "%s unavailable %d\n", ia_pc_names[k], ret);
		atomic_long_set(&ia_pc_hits, 0);
		with[i] = ia_pc_loop(n);
		hits += atomic_long_read(&ia_pc_hits);
		ia_pc_detach(k);
		cond_resched();
	}
	sort(without, IA_PC_ROUNDS, sizeof(u64), ia_pc_cmp, NULL);
	sort(with, IA_PC_ROUNDS, sizeof(u64), ia_pc_cmp, NULL);
	/* picoseconds → ns with one decimal */
	return scnprintf(buf, len,
			 "%s without_ps %llu with_ps %llu hit_ps %lld hits %ld of %lu%s\n",
			 ia_pc_names[k], without[IA_PC_ROUNDS / 2], with[IA_PC_ROUNDS / 2],
			 (s64)(with[IA_PC_ROUNDS / 2] - without[IA_PC_ROUNDS / 2]),
			 hits, n * IA_PC_ROUNDS,
			 hits == (long)(n * IA_PC_ROUNDS) ? "" : " MISCOUNTED");
}

static int ia_pc_run_set(const char *val, const struct kernel_param *kp)
{
	unsigned long n;
	size_t off = 0;
	int k, ret;

	ret = kstrtoul(val, 0, &n);
	if (ret || !n || n > 100000000)
		return -EINVAL;
	mutex_lock(&ia_pc_mutex);
	for (k = 0; k < IA_PC_KINDS; k++)
		off += ia_pc_measure(k, n, ia_pc_result + off, sizeof(ia_pc_result) - off);
	mutex_unlock(&ia_pc_mutex);
	return 0;
}

static const struct kernel_param_ops ia_pc_run_ops = {
	.set = ia_pc_run_set,
};
module_param_cb(run, &ia_pc_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "write N: measure every probe kind over N calls");

static int ia_pc_result_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&ia_pc_mutex);
	n = scnprintf(buf, PAGE_SIZE, "%s", ia_pc_result);
	mutex_unlock(&ia_pc_mutex);
	return n;
}

static const struct kernel_param_ops ia_pc_result_ops = {
	.get = ia_pc_result_get,
};
module_param_cb(result, &ia_pc_result_ops, NULL, 0444);
MODULE_PARM_DESC(result, "the last measurement, a line per probe kind");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iommu_account test: the cost of one probe hit of each kind");
