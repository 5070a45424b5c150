// SPDX-License-Identifier: GPL-2.0
/*
 * A process as /proc shows it to anybody: its parent, comm and
 * RLIMIT_MEMLOCK soft limit; and where that limit comes from. explain and
 * the daemon's diagnosis read it; nothing here needs privileges.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ia.h"

int ia_pinfo_read(int pid, struct ia_pinfo *pi)
{
	char path[64], line[512], *p;
	FILE *f;

	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	/* pid (comm) state ppid ...: comm may hold spaces and parentheses. */
	p = strrchr(line, ')');
	if (!p || sscanf(p + 2, "%*c %d", &pi->ppid) != 1)
		return -EIO;
	*p = 0;
	snprintf(pi->comm, sizeof(pi->comm), "%s", strchr(line, '(') + 1);
	snprintf(path, sizeof(path), "/proc/%d/limits", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	pi->memlock = 0;
	while (fgets(line, sizeof(line), f)) {
		char soft[32];

		if (strncmp(line, "Max locked memory", 17))
			continue;
		if (sscanf(line + 17, "%31s", soft) == 1)
			pi->memlock = strcmp(soft, "unlimited") ? strtoull(soft, NULL, 10) :
								    UINT64_MAX;
	}
	fclose(f);
	return 0;
}

int ia_pinfo_limit_origin(int pid, struct ia_pinfo *origin, struct ia_pinfo *parent)
{
	struct ia_pinfo cur, up;
	int hops;

	if (ia_pinfo_read(pid, &cur))
		return -1;
	memset(parent, 0, sizeof(*parent));
	for (hops = 0; hops < 256; hops++) {
		if (cur.ppid <= 0 || ia_pinfo_read(cur.ppid, &up))
			break;
		if (up.memlock != cur.memlock) {
			*parent = up;
			break;
		}
		cur = up;
	}
	*origin = cur;
	return 0;
}
