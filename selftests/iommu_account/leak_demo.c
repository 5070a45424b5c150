// SPDX-License-Identifier: GPL-2.0
/*
 * leak_demo: two tests for the harness's leak check (ia_harness.h), run by
 * netlink_test's leak_check_fails_a_leaking_test (not a test of its own):
 * each reads STATUS and frees the reply or not as IA_LEAK_DEMO says
 * ("leak" or "free"), one a plain TEST, one a TEST_F (which runs in a fork
 * of its own). Leaked, both must fail; freed, both must pass.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include "ia_nl.h"

static void leak_demo(struct __test_metadata *_metadata, struct ia_nl *nl)
{
	const char *how = getenv("IA_LEAK_DEMO");
	ia_status_t st = {};

	ASSERT_NE(NULL, how) TH_LOG("IA_LEAK_DEMO=leak or free");
	ASSERT_EQ(0, ia_get_status(nl, &st));
	ASSERT_LT(0, ia_nl_live_blocks());
	if (!strcmp(how, "free"))
		ia_nl_free(&st);
}

TEST(leak_demo_plain)
{
	struct ia_nl nl;

	ASSERT_EQ(0, ia_nl_open(&nl));
	leak_demo(_metadata, &nl);
	ia_nl_close(&nl);
}

FIXTURE(demo) {
	struct ia_nl nl;
};

FIXTURE_SETUP(demo)
{
	ASSERT_EQ(0, ia_nl_open(&self->nl));
}

FIXTURE_TEARDOWN(demo)
{
	ia_nl_close(&self->nl);
}

TEST_F(demo, leak_demo_in_a_fixture)
{
	leak_demo(_metadata, &self->nl);
}

IA_HARNESS_MAIN
