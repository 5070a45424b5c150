/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Agents: child processes that set themselves up (as root: open what they
 * need, then become a uid of their own with an RLIMIT_MEMLOCK of their own)
 * and then do what the test asks, one command at a time, answering with the
 * kernel's own return value, so a test drives a quota step by step as
 * another user. An agent exits holding what it holds: the kernel tears it
 * down, as it would a crashed client's. It dies with the test (PDEATHSIG).
 */
#ifndef IA_AGENT_H
#define IA_AGENT_H

#include <stdint.h>
#include <sys/types.h>

struct agent {
	pid_t pid;
	int cmd;	/* write end: commands */
	int res;	/* read end: answers */
};

struct agent_cmd {
	int op;		/* AGENT_EXIT, or one of the agent's own (> 0) */
	uint64_t a, b, c;
};

#define AGENT_EXIT 0

/*
 * Fork an agent: in the child, @setup(@priv) (0 or -errno, returned here),
 * then @run(@priv, command) for each agent_call() until agent_stop(). The
 * child works on its own copy of *@priv. 0, the set-up's error, or -errno.
 */
int agent_fork(struct agent *a, int64_t (*setup)(void *priv),
	       int64_t (*run)(void *priv, const struct agent_cmd *c), void *priv);
/* Command @op: the agent's answer; -EPIPE when the agent is gone. */
int64_t agent_call(struct agent *a, int op, uint64_t x, uint64_t y, uint64_t z);
/* The agent exits (holding what it holds); we reap it. */
void agent_stop(struct agent *a);
/*
 * Become another user, as an agent's set-up does once it has opened what
 * needs root: RLIMIT_MEMLOCK @memlock (soft and hard), no supplementary
 * groups, gid and uid @uid. 0 or -errno.
 */
int become_user(uid_t uid, uint64_t memlock);

#endif
