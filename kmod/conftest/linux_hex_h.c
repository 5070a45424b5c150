// SPDX-License-Identifier: GPL-2.0
/* hex_to_bin() in a header of its own (linux/hex.h; Debian's 6.1 has it in kernel.h). */
#include <linux/hex.h>

static inline int ia_conftest(char c)
{
	return hex_to_bin(c);
}
