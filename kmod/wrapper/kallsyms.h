/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms_lookup_name() is not exported since Linux 5.7. Find it through a
 * kprobe, once, and refuse to call it where an indirect call would fault
 * (IBT sealed its ENDBR). Every user must handle 0 ("symbol unavailable").
 */
#ifndef _IA_WRAPPER_KALLSYMS_H
#define _IA_WRAPPER_KALLSYMS_H

/*
 * Find it: once, from main.c, before any source starts. Never fatal: a
 * failure leaves every lookup 0, and ia_kallsyms_unavailable() says why.
 */
void ia_kallsyms_init(void);
/* NULL when lookups work, else why they cannot (for a feature's reason). */
const char *ia_kallsyms_unavailable(void);
/* Address of a kernel symbol (text or data), or 0. */
unsigned long ia_kallsyms_lookup_name(const char *name);
/* May @entry (a function's first byte) be called indirectly? (IBT: ENDBR) */
bool ia_kallsyms_callable(unsigned long entry);
/*
 * Size of the symbol at @addr according to kallsyms, or 0: the distance to the
 * next symbol, so an upper bound of an object's size (alignment padding, KASAN
 * redzones), never a count of its elements. @name NULL: whatever symbol
 * starts at @addr (a function of ours, say).
 */
unsigned long ia_kallsyms_symbol_size(unsigned long addr, const char *name);

#endif
