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

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ia_nl.h"

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

/*
 * The leak check: a test whose own process ends with a parsed reply not
 * freed fails (ia_nl.c counts the generated parsers' blocks; its _exit
 * wrapper, -Wl,--wrap=_exit, does the check). A TEST_F runs in a process
 * its wrapper forks (setup, test, teardown, then _exit(0)): that fork is
 * marked, and no fork the test itself makes (agents, mappers). A TEST runs
 * in the harness's child, after whose return it is checked here.
 */
typedef void (*ia_test_fn)(struct __test_metadata *, struct __fixture_variant_metadata *);
#define IA_MAX_TESTS 1024
static struct { struct __test_metadata *t; ia_test_fn fn; } ia_tests[IA_MAX_TESTS];
static int ia_fork_is_test;

static void ia_atfork_child(void)
{
	ia_nl_exit_checked = ia_fork_is_test;
	ia_fork_is_test = 0;
}

static void ia_leak_checked(struct __test_metadata *t, struct __fixture_variant_metadata *v)
{
	long n;
	int i;

	for (i = 0; i < IA_MAX_TESTS && ia_tests[i].t != t; i++)
		;
	if (i == IA_MAX_TESTS)
		abort();
	if (t->fixture != &_fixture_global) {
		ia_fork_is_test = 1;
		pthread_atfork(NULL, NULL, ia_atfork_child);
		ia_tests[i].fn(t, v);
		return;
	}
	ia_tests[i].fn(t, v);
	n = ia_nl_live_blocks();
	if (n) {
		fprintf(stderr, "# leak: %ld block%s of parsed replies never freed (ia_nl_free)\n",
			n, n == 1 ? "" : "s");
		if (t->exit_code == KSFT_PASS)
			t->exit_code = KSFT_FAIL;
	}
}

static inline void ia_check_leaks(void)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	int n = 0;

	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next) {
			if (n == IA_MAX_TESTS) {
				fprintf(stderr, "# more than %d tests: raise IA_MAX_TESTS\n", IA_MAX_TESTS);
				exit(KSFT_FAIL);
			}
			ia_tests[n].t = t;
			ia_tests[n++].fn = t->fn;
			t->fn = ia_leak_checked;
		}
}

#define IA_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		ia_scale_timeouts(); \
		ia_check_leaks(); \
		return test_harness_run(argc, argv); \
	}

#endif
