// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroups, read from cgroup v2's files: the limit that applies to a
 * cgroup (the least room along its path to the root) and the cgroup's
 * memory.events, the kernel's own count of reaching memory.max and of OOM
 * kills. Used by plan (will the workload's memory fit) and explain (did the
 * memcg refuse, rather than a locked-memory limit).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ia.h"

#define CGROOT "/sys/fs/cgroup"

/* A cgroup file's number; "max" is UINT64_MAX. -1 when unreadable. */
static int read_num(const char *dir, const char *file, uint64_t *v)
{
	char path[sizeof(CGROOT) + IA_CGROUP_MAX + 32], buf[64];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		*v = strncmp(buf, "max", 3) ? strtoull(buf, NULL, 10) : UINT64_MAX;
		ret = 0;
	}
	fclose(f);
	return ret;
}

int ia_memcg_read(const char *path, struct ia_memcg *m)
{
	char dir[sizeof(CGROOT) - 1 + IA_CGROUP_MAX], file[sizeof(dir) + 32], line[128], *slash;
	uint64_t max, cur, room, best = UINT64_MAX;
	unsigned long long v;
	FILE *f;

	memset(m, 0, sizeof(*m));
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s", CGROOT, !strcmp(path, "/") ? "" : path) >=
	    sizeof(dir))
		return -ENAMETOOLONG;
	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	if (access(file, F_OK))
		return errno == ENAMETOOLONG ? -ENAMETOOLONG : -ENOENT;
	snprintf(file, sizeof(file), "%s/memory.events", dir);
	f = fopen(file, "r");
	if (f) {
		m->has_events = true;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "max %llu", &v) == 1)
				m->ev_max = v;
			else if (sscanf(line, "oom %llu", &v) == 1)
				m->ev_oom = v;
			else if (sscanf(line, "oom_kill %llu", &v) == 1)
				m->ev_oom_kill = v;
		}
		fclose(f);
	}
	/* Up to the root (which has no memory.max): the level with least room. */
	while (strlen(dir) > strlen(CGROOT)) {
		if (!read_num(dir, "memory.max", &max) && max != UINT64_MAX &&
		    !read_num(dir, "memory.current", &cur)) {
			room = max > cur ? max - cur : 0;
			if (room < best) {
				best = room;
				m->limited = true;
				m->max = max;
				m->current = cur;
				snprintf(m->path, sizeof(m->path), "%s", dir + strlen(CGROOT));
			}
		}
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = 0;
	}
	return 0;
}

const char *ia_self_cgroup(char *buf, size_t len)
{
	char line[IA_CGROUP_MAX + 8];
	const char *ret = NULL;
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			/* Whole or not at all. */
			if ((size_t)snprintf(buf, len, "%s", line + 3) < len)
				ret = buf;
		}
	fclose(f);
	return ret;
}
