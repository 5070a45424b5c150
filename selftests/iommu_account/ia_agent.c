// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "ia_agent.h"

int agent_fork(struct agent *a, int64_t (*setup)(void *priv),
	       int64_t (*run)(void *priv, const struct agent_cmd *c), void *priv)
{
	int cmd[2], res[2];
	int64_t r;

	if (pipe(cmd))
		return -errno;
	if (pipe(res)) {
		close(cmd[0]);
		close(cmd[1]);
		return -errno;
	}
	a->pid = fork();
	if (a->pid < 0) {
		r = -errno;
		close(cmd[0]);
		close(cmd[1]);
		close(res[0]);
		close(res[1]);
		return (int)r;
	}
	if (!a->pid) {
		struct agent_cmd c;

		close(cmd[1]);
		close(res[0]);
		r = setup(priv);
		/* After: a change of uid clears it (commit_creds). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (write(res[1], &r, sizeof(r)) != sizeof(r) || r)
			_exit(1);
		while (read(cmd[0], &c, sizeof(c)) == sizeof(c) && c.op != AGENT_EXIT) {
			r = run(priv, &c);
			if (write(res[1], &r, sizeof(r)) != sizeof(r))
				break;
		}
		_exit(0);
	}
	close(cmd[0]);
	close(res[1]);
	a->cmd = cmd[1];
	a->res = res[0];
	if (read(a->res, &r, sizeof(r)) != sizeof(r))
		r = -EPIPE;
	if (!r)
		return 0;
	/* The set-up failed: it has exited, or will; no command to write (SIGPIPE). */
	waitpid(a->pid, NULL, 0);
	close(a->cmd);
	close(a->res);
	a->pid = 0;
	return (int)r;
}

int64_t agent_call(struct agent *a, int op, uint64_t x, uint64_t y, uint64_t z)
{
	struct agent_cmd c = { op, x, y, z };
	int64_t r;

	if (write(a->cmd, &c, sizeof(c)) != sizeof(c) || read(a->res, &r, sizeof(r)) != sizeof(r))
		return -EPIPE;
	return r;
}

void agent_stop(struct agent *a)
{
	struct agent_cmd c = { AGENT_EXIT };

	if (a->pid <= 0)
		return;
	if (write(a->cmd, &c, sizeof(c)) != sizeof(c))
		kill(a->pid, SIGKILL);
	waitpid(a->pid, NULL, 0);
	close(a->cmd);
	close(a->res);
	a->pid = 0;
}

int become_user(uid_t uid, uint64_t memlock)
{
	struct rlimit rl = { memlock, memlock };

	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}
