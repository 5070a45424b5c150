/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IA_HARNESS_MAIN: kselftest_harness.h's main, with every test's time limit
 * multiplied by $IA_TIMEOUT_SCALE (a whole number, 1 to 20; default 1). The
 * VM harness sets it on debug kernels (KASAN, lockdep and kmemleak under TCG
 * run the same tests three to five times slower); the limits stay what they
 * are for: a bound on a hung test, never a measure of speed. The waits
 * inside the tests scale by the same factor (ia_timeout_scale(), ia_nl.c).
 */
#ifndef IA_HARNESS_H
#define IA_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

static inline void ia_scale_timeouts(void)
{
	const char *s = getenv("IA_TIMEOUT_SCALE");
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	char *end;
	long k;

	if (!s || !*s)
		return;
	k = strtol(s, &end, 10);
	if (*end || k < 1 || k > 20) {
		fprintf(stderr, "# IA_TIMEOUT_SCALE='%s' is not a whole number from 1 to 20: ignored\n", s);
		return;
	}
	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout *= k;
	if (k > 1)
		fprintf(stderr, "# time limits x%ld (IA_TIMEOUT_SCALE)\n", k);
}

#define IA_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		ia_scale_timeouts(); \
		return test_harness_run(argc, argv); \
	}

#endif
