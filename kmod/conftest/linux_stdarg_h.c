// SPDX-License-Identifier: GPL-2.0
/* The kernel's own stdarg.h (upstream 5.15); before, the compiler's <stdarg.h>. */
#include <linux/stdarg.h>

static inline int ia_conftest(int n, ...)
{
	va_list ap;
	int v;

	va_start(ap, n);
	v = va_arg(ap, int);
	va_end(ap);
	return v;
}
