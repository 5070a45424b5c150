// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve kallsyms_lookup_name() with a kprobe. On x86 with IBT, kprobes place
 * the probe after the function's ENDBR, so the probe address is not the entry:
 * the entry is found from sprint_symbol()'s offset, and the call is refused
 * when the CPU enforces IBT and the entry carries no ENDBR.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#endif

#include "kallsyms.h"

typedef unsigned long (*ia_lookup_fn)(const char *name);
static ia_lookup_fn ia_lookup;

/* Parse "name+0xOFF/0xSIZE [mod]"; true when @name (if not NULL) matches. */
static bool ia_parse_symbol(const char *buf, const char *name,
			    unsigned long *off, unsigned long *size)
{
	const char *p;

	if (name) {
		size_t n = strlen(name);

		if (strncmp(buf, name, n) || buf[n] != '+')
			return false;
		p = buf + n + 1;
	} else {
		p = strchr(buf, '+');
		if (!p++)
			return false;
	}
	if (sscanf(p, "0x%lx/0x%lx", off, size) != 2)
		return false;
	return true;
}

static bool ia_ibt_forbids_call(unsigned long entry)
{
#if defined(CONFIG_X86) && defined(CONFIG_X86_KERNEL_IBT)
	u32 insn;

	if (!cpu_feature_enabled(X86_FEATURE_IBT))
		return false;
	if (copy_from_kernel_nofault(&insn, (void *)entry, sizeof(insn)))
		return true;
	return insn != 0xfa1e0ff3;	/* endbr64 */
#else
	return false;
#endif
}

static char ia_lookup_why[80] = "kallsyms lookups not initialised";

static int ia_kallsyms_find(char *why, size_t len)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	char buf[KSYM_SYMBOL_LEN];
	unsigned long addr, off, size;
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		snprintf(why, len, "kprobe on kallsyms_lookup_name failed (%d)", ret);
		return ret;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	sprint_symbol(buf, addr);
	if (!ia_parse_symbol(buf, "kallsyms_lookup_name", &off, &size) || off >= size) {
		snprintf(why, len, "kallsyms_lookup_name resolved to %s", buf);
		return -ENOENT;
	}
	addr -= off;
	if (ia_ibt_forbids_call(addr)) {
		snprintf(why, len, "kallsyms_lookup_name has no ENDBR under IBT");
		return -EPERM;
	}
	ia_lookup = (ia_lookup_fn)addr;
	return 0;
}

void ia_kallsyms_init(void)
{
	if (!ia_lookup && !ia_kallsyms_find(ia_lookup_why, sizeof(ia_lookup_why)))
		ia_lookup_why[0] = 0;
}

const char *ia_kallsyms_unavailable(void)
{
	return ia_lookup ? NULL : ia_lookup_why;
}

bool ia_kallsyms_callable(unsigned long entry)
{
	return !ia_ibt_forbids_call(entry);
}

unsigned long ia_kallsyms_lookup_name(const char *name)
{
	return ia_lookup ? ia_lookup(name) : 0;
}

unsigned long ia_kallsyms_symbol_size(unsigned long addr, const char *name)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off, size;

	sprint_symbol(buf, addr);
	if (!ia_parse_symbol(buf, name, &off, &size) || off)
		return 0;
	return size;
}
