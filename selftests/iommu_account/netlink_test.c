// SPDX-License-Identifier: GPL-2.0
/*
 * The iommu_account generic netlink family: module lifecycle and STATUS
 * checked against the kernel's own sources of truth (/sys/module, uname,
 * sysconf), and malformed requests, which must fail with an extack message
 * and change nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void check_status(struct __test_metadata *_metadata, struct ia_nl *nl)
{
	static const char *const known[] = {
		"uid-tasks", "uid-orphans", "vfio-type1", "vfio-groups", "iommufd", "events",
		"memlock-io_uring", "memlock-xdp", "published-quotas", "reset-scope",
	};
	ia_status_t st = {};
	struct utsname un;
	char ver[64], *want, *tok, *save;
	int i;

	ASSERT_EQ(0, ia_get_status(nl, &st));
	ASSERT_EQ(0, read_file("/sys/module/iommu_account/version", ver, sizeof(ver)));
	EXPECT_STREQ(ver, st.module_version);
	ASSERT_EQ(0, uname(&un));
	EXPECT_STREQ(un.release, st.kernel_release);
	EXPECT_EQ(sysconf(_SC_PAGESIZE), st.page_size);
	/* Exactly the features the module declares, each once, with a detail. */
	ASSERT_EQ(sizeof(known) / sizeof(known[0]), st.n_feature);
	for (i = 0; i < st.n_feature; i++) {
		TH_LOG("feature %s: %s (%s)", st.feature[i].name,
		       st.feature[i].state == IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE ?
		       "active" : "unavailable", st.feature[i].detail);
		EXPECT_STREQ(known[i], st.feature[i].name);
		EXPECT_NE(0, st.feature[i].detail[0]);
		/* Not cut: the module keeps 191 characters of a detail. */
		EXPECT_GT(191, strlen(st.feature[i].detail));
		EXPECT_GE(IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE, st.feature[i].state);
		/* iommufd is followed exactly where the kernel has it (/dev/iommu). */
		if (strcmp(st.feature[i].name, "iommufd"))
			continue;
		if (access("/dev/iommu", F_OK) == 0) {
			EXPECT_EQ(IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE, st.feature[i].state);
		} else {
			EXPECT_EQ(IOMMU_ACCOUNT_FEATURE_STATE_UNAVAILABLE, st.feature[i].state);
			EXPECT_NE(NULL, strstr(st.feature[i].detail, "CONFIG_IOMMUFD is not set"));
		}
	}
	/* Features that must be active on this kernel (set by scripts/check). */
	want = getenv("IA_EXPECT_FEATURES");
	want = strdup(want ? want : "");
	for (tok = strtok_r(want, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const struct iommu_account_feature *f = ia_nl_feature(&st, tok);

		EXPECT_TRUE(f && f->state == IOMMU_ACCOUNT_FEATURE_STATE_ACTIVE)
			TH_LOG("feature %s is not active", tok);
	}
	free(want);
	ia_nl_free(&st);
}

/* (a) load, STATUS sane, unload, reload. */
TEST(lifecycle)
{
	struct ia_nl nl;
	struct stat sb;

	ASSERT_EQ(0, ia_nl_open(&nl)) TH_LOG("module not loaded at start");
	check_status(_metadata, &nl);
	ia_nl_close(&nl);

	ASSERT_EQ(0, system("modprobe -r iommu_account"));
	EXPECT_EQ(-ENOENT, ia_nl_open(&nl));
	EXPECT_NE(0, stat("/sys/module/iommu_account", &sb));

	ASSERT_EQ(0, system("modprobe iommu_account"));
	ASSERT_EQ(0, ia_nl_open(&nl));
	check_status(_metadata, &nl);
	ia_nl_close(&nl);
}

FIXTURE(bad) {
	struct ia_nl nl;
	char buf[512];
	struct nlmsghdr *nlh;
	int64_t root_before;
};

FIXTURE_SETUP(bad)
{
	ASSERT_EQ(0, ia_nl_open(&self->nl));
	self->root_before = ia_locked(&self->nl, 0);
	ASSERT_LE(0, self->root_before);
	memset(self->buf, 0, sizeof(self->buf));
	self->nlh = mnl_nlmsg_put_header(self->buf);
}

/* Nothing changed: the family still answers the same. */
FIXTURE_TEARDOWN(bad)
{
	ia_status_t st = {};

	EXPECT_EQ(0, ia_get_status(&self->nl, &st));
	ia_nl_free(&st);
	EXPECT_EQ(self->root_before, ia_locked(&self->nl, 0));
	ia_nl_close(&self->nl);
}

/*
 * The kernel names the missing attribute (extack MISS_TYPE, 6.0 on); before
 * (5.10), the module says it in words, which only that build of it writes.
 */
#define EXPECT_MISSING(nl, attr) do {						\
	if ((nl)->miss_type == -1) {						\
		EXPECT_NE(NULL, strstr((nl)->extack, "a required attribute is missing")) \
			TH_LOG("no MISS_TYPE, extack \"%s\"", (nl)->extack);	\
	} else {								\
		EXPECT_EQ(attr, (nl)->miss_type);				\
	}									\
} while (0)

static struct nlmsghdr *genl_msg(char *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

TEST_F(bad, uid_wrong_type)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_UID);
	uint8_t v = 0;

	mnl_attr_put(nlh, IOMMU_ACCOUNT_A_UID_UID, 1, &v);	/* u8, not u32 */
	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(bad, unknown_attribute)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_UID);

	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_UID_UID, 0);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_UID_MAX + 7, 1);
	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(bad, attribute_on_status)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_STATUS);

	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_STATUS_PAGE_SIZE, 4096);
	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(bad, truncated_attribute)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_UID);

	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_UID_UID, 0);
	/* Cut the message in the middle of the attribute's payload. */
	nlh->nlmsg_len -= 2;
	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(bad, truncated_genl_header)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_STATUS);

	/* The core rejects this before the family sees it: no extack there. */
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
}

TEST_F(bad, missing_uid)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_UID);

	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_MISSING(&self->nl, IOMMU_ACCOUNT_A_UID_UID);
}

TEST_F(bad, unknown_uid)
{
	ia_uid_t u = {};

	EXPECT_EQ(-ENOENT, ia_get_uid(&self->nl, 3999999999u, &u));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(bad, unknown_command)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_MAX + 20);

	EXPECT_EQ(-EOPNOTSUPP, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
}

/* Requests that reach the module's own handlers, not only the genl core. */
TEST_F(bad, set_thresholds_missing_crit)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_SET_THRESHOLDS);
	uint32_t warn, crit, w2, c2;

	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &warn, &crit));
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, 100);
	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_MISSING(&self->nl, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT);
	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &w2, &c2));
	EXPECT_EQ(warn, w2);
	EXPECT_EQ(crit, c2);
}

TEST_F(bad, set_thresholds_out_of_range)
{
	uint32_t warn, crit, w2, c2;

	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &warn, &crit));
	EXPECT_EQ(-EINVAL, ia_set_thresholds(&self->nl, 10, 1001));
	EXPECT_NE(NULL, strstr(self->nl.extack, "per mille"));
	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &w2, &c2));
	EXPECT_EQ(warn, w2);
	EXPECT_EQ(crit, c2);
}

/*
 * iommufd contexts have no thresholds of their own: asking for or setting
 * them is EOPNOTSUPP with the reason, on every kernel, and no kind's
 * thresholds change.
 */
TEST_F(bad, thresholds_of_iommufd_ctx)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_SET_THRESHOLDS);
	uint32_t warn, crit, w2, c2;

	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &warn, &crit));
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_WARN, 100);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_CRIT, 200);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_KIND,
			 IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX);
	EXPECT_EQ(-EOPNOTSUPP, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_NE(NULL, strstr(self->nl.extack, "iommufd-ctx has no thresholds"))
		TH_LOG("extack: %s", self->nl.extack);
	nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_THRESHOLDS);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_THRESHOLDS_KIND,
			 IOMMU_ACCOUNT_QUOTA_KIND_IOMMUFD_CTX);
	EXPECT_EQ(-EOPNOTSUPP, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	ASSERT_EQ(0, ia_get_thresholds(&self->nl, &w2, &c2));
	EXPECT_EQ(warn, w2);
	EXPECT_EQ(crit, c2);
}

TEST_F(bad, get_container_missing_id)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_CONTAINER);

	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_MISSING(&self->nl, IOMMU_ACCOUNT_A_CONTAINER_ID);
}

/* GET_QUOTA: a do names its object by kind and id; bad ones change nothing. */
TEST_F(bad, get_quota_missing_kind)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_QUOTA);

	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_ID, 0);
	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_MISSING(&self->nl, IOMMU_ACCOUNT_A_QUOTA_KIND);
}

TEST_F(bad, get_quota_kind_out_of_range)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_QUOTA);

	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_KIND, 77);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_ID, 0);
	EXPECT_EQ(-ERANGE, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(bad, get_reset_scope_missing_address)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE);

	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_MISSING(&self->nl, IOMMU_ACCOUNT_A_RESET_ADDRESS);
}

/* Malformed addresses: EINVAL and the kernel's reason; no such device: ENODEV. */
TEST_F(bad, get_reset_scope_bad_addresses)
{
	static const char *const bad[] = {
		"", "zz", "0000:00:00", "0000:00:20.0", "0000:00:00.8", "10000:00:00.0",
		"0000:100:00.0", "0000:00:00.0x", "00:00.0:1", "0x00:00:00.0", "0000:00:0g.0",
		"0000:00:00:0", "00:00.0 ",
	};
	struct nlmsghdr *nlh;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE);
		mnl_attr_put_strz(nlh, IOMMU_ACCOUNT_A_RESET_ADDRESS, bad[i]);
		EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len))
			TH_LOG("address '%s'", bad[i]);
		EXPECT_STREQ("not a PCI address (DDDD:BB:DD.F)", self->nl.extack);
	}
	nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE);
	mnl_attr_put_strz(nlh, IOMMU_ACCOUNT_A_RESET_ADDRESS, "0000:7f:1f.7");
	EXPECT_EQ(-ENODEV, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_STREQ("no such PCI device", self->nl.extack);
	/* Longer than any address: refused by the policy (no NUL within 32 bytes). */
	nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE);
	mnl_attr_put_strz(nlh, IOMMU_ACCOUNT_A_RESET_ADDRESS,
			  "0000:00:00.0 and a great deal more than that");
	EXPECT_EQ(-EINVAL, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_NE(0, self->nl.extack[0]);
}

TEST_F(bad, get_quota_unknown_object)
{
	struct nlmsghdr *nlh = genl_msg(self->buf, IOMMU_ACCOUNT_CMD_GET_QUOTA);

	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_KIND, IOMMU_ACCOUNT_QUOTA_KIND_UID_POT);
	mnl_attr_put_u32(nlh, IOMMU_ACCOUNT_A_QUOTA_ID, 3999999999u);
	EXPECT_EQ(-ENOENT, ia_raw(&self->nl, self->buf, nlh->nlmsg_len));
	EXPECT_NE(NULL, strstr(self->nl.extack, "no such quota object"));
}

/*
 * The harness's leak check (ia_harness.h) fails a test whose process ends
 * with a parsed reply not freed: leak_demo's two tests (a TEST and a
 * TEST_F) as IA_LEAK_DEMO=@how ("leak" or "free"): its exit status; @out
 * its output.
 */
static int run_leak_demos(const char *how, char *out, size_t len)
{
	char cmd[128];
	size_t got;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "IA_LEAK_DEMO=%s leak_demo 2>&1", how);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	got = fread(out, 1, len - 1, p);
	out[got] = 0;
	return pclose(p);
}

/* The demos' output as comments: their result lines are not this program's. */
static void log_lines(const char *out)
{
	const char *nl;

	for (; *out; out = *nl ? nl + 1 : nl) {
		nl = strchrnul(out, '\n');
		fprintf(stderr, "#   | %.*s\n", (int)(nl - out), out);
	}
}

/* A KTAP line "not ok N @name" in @out. */
static bool failed(const char *out, const char *name)
{
	const char *at;

	for (at = strstr(out, "not ok "); at; at = strstr(at + 1, "not ok ")) {
		at += strspn(at + 7, "0123456789") + 7;
		if (*at == ' ' && !strncmp(at + 1, name, strlen(name)) &&
		    (at[1 + strlen(name)] == '\n' || at[1 + strlen(name)] == ' '))
			return true;
	}
	return false;
}

TEST(leak_check_fails_a_leaking_test)
{
	static char out[16384];
	const char *at;
	int st, leaks = 0;

	st = run_leak_demos("leak", out, sizeof(out));
	log_lines(out);
	ASSERT_NE(-1, st);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) != 0);
	for (at = out; (at = strstr(at, "# leak: ")); at++)
		leaks++;
	EXPECT_EQ(2, leaks);
	EXPECT_TRUE(failed(out, "global.leak_demo_plain"));
	EXPECT_TRUE(failed(out, "demo.leak_demo_in_a_fixture"));
	/* The same tests that free what they read pass. */
	st = run_leak_demos("free", out, sizeof(out));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	log_lines(out);
	EXPECT_EQ(NULL, strstr(out, "# leak: "));
}

IA_HARNESS_MAIN
