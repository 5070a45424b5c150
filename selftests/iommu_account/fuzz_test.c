// SPDX-License-Identifier: GPL-2.0
/*
 * A generic netlink fuzzer for the iommu_account family: random and mutated
 * messages - every command id and some beyond, random flags (DUMP on do-only
 * commands included), random, nested, truncated and oversized attributes,
 * several messages per datagram, sockets closed in the middle of a dump - as
 * root and as an unprivileged uid. Afterwards STATUS answers, the objects and
 * counters are those of before (thresholds restored to their defaults after
 * the root run; untouched by the unprivileged one), a dump left unread
 * holds nothing but netlink's reference on the module (rmmod waits for its
 * reader to close), and the module unloads and loads again. Nothing checks the replies beyond that: the kernel's
 * panic_on_warn and oops=panic in the VM are the other half of the test.
 *
 * IA_FUZZ_SEED=N replays a run (the seed is printed); IA_FUZZ_COUNT=N
 * messages per uid (default 25,000: 50,000 per kernel).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include "ia_harness.h"
#include <uapi/linux/iommu_account.h>
#include "ia_nl.h"

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static uint64_t run_seed;

/* Chosen once, before the harness forks a process per test. */
__attribute__((constructor)) static void choose_seed(void)
{
	const char *e = getenv("IA_FUZZ_SEED");

	run_seed = e ? strtoull(e, NULL, 0) : ((uint64_t)time(NULL) << 16) ^ (uint64_t)getpid();
	if (!run_seed)
		run_seed = 1;
}

static uint64_t seed_of_run(void)
{
	return run_seed;
}

static unsigned long count_of_run(void)
{
	const char *e = getenv("IA_FUZZ_COUNT");

	return e ? strtoul(e, NULL, 0) : 25000;
}

/* Random attributes into @p (at most @room bytes); returns the bytes written. */
static size_t gen_attrs(char *p, size_t room, int depth)
{
	size_t used = 0;
	unsigned int n = rnd() % 6, i;

	for (i = 0; i < n; i++) {
		struct nlattr *a = (struct nlattr *)(p + used);
		size_t len, pay;

		if (room - used < NLA_HDRLEN + 8)
			break;
		a->nla_type = (uint16_t)(rnd() % 24);
		switch (rnd() % 8) {
		case 0:
			pay = 1;
			break;
		case 1:
			pay = 2;
			break;
		case 2:
			pay = 4;
			break;
		case 3:
			pay = 8;
			break;
		case 4:		/* a nest */
			if (depth < 3) {
				a->nla_type |= NLA_F_NESTED;
				pay = gen_attrs(p + used + NLA_HDRLEN, room - used - NLA_HDRLEN,
						depth + 1);
				goto sized;
			}
			pay = 4;
			break;
		case 5:		/* a string, NUL-terminated or not */
			pay = 1 + rnd() % 40;
			break;
		default:	/* random bytes, sometimes large */
			pay = rnd() % 8 ? rnd() % 64 : rnd() % 1500;
			break;
		}
		if (pay > room - used - NLA_HDRLEN)
			pay = room - used - NLA_HDRLEN;
		for (len = 0; len < pay; len++)
			p[used + NLA_HDRLEN + len] = rnd() % 5 ? (char)('0' + rnd() % 60) : (char)rnd();
		if (!(rnd() % 3) && pay)
			p[used + NLA_HDRLEN + pay - 1] = 0;
sized:
		a->nla_len = (uint16_t)(NLA_HDRLEN + pay);
		/* A length that lies: past the end, or shorter than the header. */
		if (!(rnd() % 16))
			a->nla_len = rnd() % 2 ? (uint16_t)rnd() : (uint16_t)(rnd() % NLA_HDRLEN);
		used += NLA_ALIGN(NLA_HDRLEN + pay);
	}
	return used;
}

/* A valid request to mutate: GET_QUOTA, GET_RESET_SCOPE, SET_THRESHOLDS, ... */
static size_t gen_template(char *p, uint8_t *cmd)
{
	struct nlattr *a = (struct nlattr *)p;

	switch (rnd() % 4) {
	case 0:
		*cmd = IOMMU_ACCOUNT_CMD_GET_QUOTA;
		a->nla_type = IOMMU_ACCOUNT_A_QUOTA_KIND;
		a->nla_len = NLA_HDRLEN + 4;
		*(uint32_t *)(p + NLA_HDRLEN) = rnd() % 4;
		return NLA_HDRLEN + 4;
	case 1:
		*cmd = IOMMU_ACCOUNT_CMD_GET_RESET_SCOPE;
		a->nla_type = IOMMU_ACCOUNT_A_RESET_ADDRESS;
		a->nla_len = NLA_HDRLEN + 13;
		memcpy(p + NLA_HDRLEN, "0000:00:03.0\0\0\0", 16);
		return NLA_HDRLEN + 16;
	case 2:
		*cmd = IOMMU_ACCOUNT_CMD_SET_THRESHOLDS;
		a->nla_type = IOMMU_ACCOUNT_A_THRESHOLDS_WARN;
		a->nla_len = NLA_HDRLEN + 4;
		*(uint32_t *)(p + NLA_HDRLEN) = rnd() % 1100;
		a = (struct nlattr *)(p + 8);
		a->nla_type = IOMMU_ACCOUNT_A_THRESHOLDS_CRIT;
		a->nla_len = NLA_HDRLEN + 4;
		*(uint32_t *)(p + 8 + NLA_HDRLEN) = rnd() % 1100;
		return 16;
	default:
		*cmd = IOMMU_ACCOUNT_CMD_GET_PROC;
		a->nla_type = IOMMU_ACCOUNT_A_PROC_UID;
		a->nla_len = NLA_HDRLEN + 4;
		*(uint32_t *)(p + NLA_HDRLEN) = rnd() % 3 ? 0 : rnd();
		return NLA_HDRLEN + 4;
	}
}

/* One message at @p: returns its aligned length. */
static size_t gen_msg(char *p, size_t room, uint16_t family)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)p;
	struct genlmsghdr *g = (struct genlmsghdr *)(p + NLMSG_HDRLEN);
	char *attrs = p + NLMSG_HDRLEN + GENL_HDRLEN;
	size_t len, i;
	uint8_t cmd;

	memset(p, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_type = rnd() % 32 ? family : (uint16_t)(rnd() % 3 ? GENL_ID_CTRL : rnd());
	nlh->nlmsg_flags = NLM_F_REQUEST;
	if (rnd() % 2)
		nlh->nlmsg_flags |= NLM_F_ACK;
	if (rnd() % 3 == 0)
		nlh->nlmsg_flags |= NLM_F_DUMP;
	if (rnd() % 16 == 0)
		nlh->nlmsg_flags |= (uint16_t)rnd();
	nlh->nlmsg_seq = rnd();
	g->version = rnd() % 4 ? 1 : (uint8_t)rnd();
	if (rnd() % 4 == 0) {
		len = gen_template(attrs, &cmd);
		for (i = rnd() % 3; i; i--)
			attrs[rnd() % len] ^= (char)(1 << (rnd() % 8));
	} else {
		cmd = (uint8_t)(rnd() % (IOMMU_ACCOUNT_CMD_MAX + 4));
		len = gen_attrs(attrs, room - NLMSG_HDRLEN - GENL_HDRLEN - 64, 0);
	}
	g->cmd = rnd() % 64 ? cmd : (uint8_t)rnd();
	nlh->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + GENL_HDRLEN + len);
	/* A message length that lies, now and then. */
	if (!(rnd() % 24))
		nlh->nlmsg_len = rnd() % 2 ? rnd() % (nlh->nlmsg_len + 1) : nlh->nlmsg_len + rnd() % 512;
	return NLMSG_ALIGN(NLMSG_HDRLEN + GENL_HDRLEN + len);
}

static int open_sock(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void drain(int fd)
{
	static char buf[65536];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* @count datagrams of 1-3 messages; 0, or -1 when a socket could not be made. */
static int fuzz(uint16_t family, unsigned long count)
{
	static char buf[8192];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	unsigned long i;
	size_t len;
	int fd = open_sock(), k;

	if (fd < 0)
		return -1;
	for (i = 0; i < count; i++) {
		len = 0;
		for (k = 1 + rnd() % 3; k && len < sizeof(buf) - 3000; k--)
			len += gen_msg(buf + len, sizeof(buf) - len, family);
		sendto(fd, buf, len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
		if (i % 7 == 0)
			drain(fd);
		/* Close a socket in the middle of a dump now and then. */
		if (i % 997 == 996) {
			close(fd);
			fd = open_sock();
			if (fd < 0)
				return -1;
		}
	}
	drain(fd);
	close(fd);
	return 0;
}

struct before {
	int uids, containers, quotas;
	int64_t root_pot;
	uint32_t warn, crit, pwarn, pcrit, pmargin;
};

static void take(struct __test_metadata *_metadata, struct ia_nl *nl, struct before *b)
{
	static ia_uid_t u[4096];
	static ia_container_t c[256];
	static ia_quota_t q[256];

	b->uids = ia_dump_uids(nl, u, 4096);
	ia_nl_free_n(u, b->uids);
	b->containers = ia_dump_containers(nl, c, 256);
	ia_nl_free_n(c, b->containers);
	b->quotas = ia_dump_quotas(nl, -1, -1, -1, q, 256);
	ia_nl_free_n(q, b->quotas);
	b->root_pot = ia_locked(nl, 0);
	ASSERT_EQ(0, ia_get_thresholds(nl, &b->warn, &b->crit));
	ASSERT_EQ(0, ia_get_pot_thresholds(nl, &b->pwarn, &b->pcrit, &b->pmargin));
	ASSERT_LE(0, b->uids);
}

static void same(struct __test_metadata *_metadata, const struct before *a,
		 const struct before *b, bool thresholds)
{
	EXPECT_EQ(a->uids, b->uids);
	EXPECT_EQ(a->containers, b->containers);
	EXPECT_EQ(a->quotas, b->quotas);
	EXPECT_EQ(a->root_pot, b->root_pot);
	if (thresholds) {
		EXPECT_EQ(a->warn, b->warn);
		EXPECT_EQ(a->crit, b->crit);
		EXPECT_EQ(a->pwarn, b->pwarn);
		EXPECT_EQ(a->pcrit, b->pcrit);
		EXPECT_EQ(a->pmargin, b->pmargin);
	}
}

TEST(fuzz_as_root)
{
	struct before b0, b1;
	ia_status_t st = {};
	struct ia_nl nl;
	unsigned long n = count_of_run();

	rng = seed_of_run();
	TH_LOG("seed %llu, %lu datagrams as root (replay: IA_FUZZ_SEED=%llu fuzz_test)",
	       (unsigned long long)seed_of_run(), n, (unsigned long long)seed_of_run());
	ASSERT_EQ(0, ia_nl_open(&nl));
	take(_metadata, &nl, &b0);
	ASSERT_EQ(0, fuzz(nl.family, n));
	/* The root run may have set thresholds: back to the defaults. */
	ASSERT_EQ(0, ia_set_thresholds(&nl, 800, 950));
	ASSERT_EQ(0, ia_set_pot_thresholds(&nl, 800, 950, 50));
	ASSERT_EQ(0, ia_set_qpair_thresholds(&nl, 800, 950, 50));
	ASSERT_EQ(0, ia_get_status(&nl, &st));
	ia_nl_free(&st);
	take(_metadata, &nl, &b1);
	same(_metadata, &b0, &b1, false);
	ia_nl_close(&nl);
}

TEST(fuzz_as_unprivileged_changes_nothing)
{
	struct before b0, b1;
	struct ia_nl nl;
	unsigned long n = count_of_run();
	uint16_t family;
	pid_t pid;
	int st;

	ASSERT_EQ(0, ia_nl_open(&nl));
	family = nl.family;
	take(_metadata, &nl, &b0);
	TH_LOG("seed %llu + 1, %lu datagrams as uid 42301 (replay: IA_FUZZ_SEED=%llu fuzz_test)",
	       (unsigned long long)seed_of_run(), n, (unsigned long long)seed_of_run());
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		rng = seed_of_run() + 1;
		if (setresgid(42301, 42301, 42301) || setresuid(42301, 42301, 42301))
			_exit(2);
		_exit(fuzz(family, n) ? 3 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/*
	 * Its sockets' credentials are freed after an RCU grace period, and
	 * its user_struct with them: wait (bounded) until the uid is gone.
	 */
	for (st = 0; st < 200 * ia_timeout_scale() && ia_locked(&nl, 42301) >= 0; st++)
		usleep(25000);
	EXPECT_GT(200 * ia_timeout_scale(), st);
	take(_metadata, &nl, &b1);
	/* Its own uid came and went; nothing else moved, not even a threshold. */
	same(_metadata, &b0, &b1, true);
	ia_nl_close(&nl);
}

/* Whether /proc/net/netlink shows a generic netlink socket of @portid with a dump running. */
static int dump_running(uint32_t portid)
{
	FILE *f = fopen("/proc/net/netlink", "r");
	char line[256];
	unsigned int eth, pid, dump;
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		/* sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode */
		if (sscanf(line, "%*s %u %u %*s %*s %*s %u", &eth, &pid, &dump) == 3 &&
		    eth == NETLINK_GENERIC && pid == portid)
			found = (int)dump;
	fclose(f);
	return found;
}

/*
 * A reader that asks for a dump and never reads it (issue 67): between
 * two messages of a dump the module holds nothing, so another process's
 * charge and another socket's requests go through; the only thing held is
 * netlink's own reference on the module, which every netlink family's
 * dump takes: rmmod says "in use" (EWOULDBLOCK) while the dump waits, the
 * admin finds its socket in /proc/net/netlink (Dump 1, its Pid), and once
 * the reader closes it the module unloads.
 */
TEST(dump_left_unread_holds_only_its_reader)
{
	char req[NLMSG_HDRLEN + GENL_HDRLEN] = { 0 };
	struct nlmsghdr *h = (struct nlmsghdr *)req;
	struct genlmsghdr *g = (struct genlmsghdr *)(req + NLMSG_HDRLEN);
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK }, me;
	socklen_t mlen = sizeof(me);
	pid_t kids[200];
	ia_status_t st = {};
	struct ia_nl nl;
	int fd, i, tries, ready[2];
	char c;

	ASSERT_EQ(0, ia_nl_open(&nl));
	/* Enough uids (a process each) that GET_UID's dump takes more than one message. */
	ASSERT_EQ(0, pipe(ready));
	for (i = 0; i < 200; i++) {
		kids[i] = fork();
		if (!kids[i]) {
			if (setresuid(43000 + i, 43000 + i, 43000 + i) || write(ready[1], "", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		ASSERT_LT(0, kids[i]);
	}
	for (i = 0; i < 200; i++)
		ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	close(ready[1]);
	fd = open_sock();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&me, &mlen));
	h->nlmsg_len = sizeof(req);
	h->nlmsg_type = nl.family;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	h->nlmsg_seq = 1;
	g->cmd = IOMMU_ACCOUNT_CMD_GET_UID;
	g->version = IOMMU_ACCOUNT_FAMILY_VERSION;
	ASSERT_EQ((ssize_t)sizeof(req), sendto(fd, req, sizeof(req), 0,
					       (struct sockaddr *)&kernel, sizeof(kernel)));
	/* Its first message is queued, the rest waits for a read that never comes. */
	EXPECT_EQ(1, dump_running(me.nl_pid)) TH_LOG("no dump running on port %u", me.nl_pid);
	/* Nothing of the module is held: another socket is answered. */
	EXPECT_EQ(0, ia_get_status(&nl, &st));
	ia_nl_free(&st);
	EXPECT_LE(0, ia_locked(&nl, 0));
	/* Netlink's reference: the module is in use until the reader goes. */
	EXPECT_EQ(-1, syscall(SYS_delete_module, "iommu_account", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	ia_nl_close(&nl);
	close(fd);
	for (i = 0; i < 200; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	/* The socket is freed after an RCU grace period: bounded retries. */
	for (tries = 0; tries < 200 * ia_timeout_scale(); tries++) {
		if (!syscall(SYS_delete_module, "iommu_account", O_NONBLOCK))
			break;
		usleep(25000);
	}
	EXPECT_GT(200 * ia_timeout_scale(), tries) TH_LOG("rmmod still refused: %s", strerror(errno));
	ASSERT_EQ(0, system("modprobe iommu_account"));
}

TEST(after_fuzz_module_unloads_and_loads)
{
	ia_status_t st = {};
	struct ia_nl nl;

	ASSERT_EQ(0, syscall(SYS_delete_module, "iommu_account", O_NONBLOCK));
	EXPECT_EQ(-1, access("/sys/module/iommu_account", F_OK));
	ASSERT_EQ(0, system("modprobe iommu_account"));
	ASSERT_EQ(0, ia_nl_open(&nl));
	EXPECT_EQ(0, ia_get_status(&nl, &st));
	ia_nl_free(&st);
	ia_nl_close(&nl);
}

IA_HARNESS_MAIN
