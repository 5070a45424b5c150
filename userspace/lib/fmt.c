// SPDX-License-Identifier: GPL-2.0
/* libia formatting: numbers, owners and a JSON writer. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ia.h"

const char *ia_human_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = (double)v;
	int u = 0;

	if (v == UINT64_MAX) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", v);
	else
		snprintf(buf, len, "%.1f %s", d, unit[u]);
	return buf;
}

const char *ia_amount(const char *unit, double v, char *buf, size_t len)
{
	if (!strcmp(unit, "bytes") && v >= 0)
		return ia_human_bytes((uint64_t)v, buf, len);
	if (!strcmp(unit, "bytes") && len > 1) {
		buf[0] = '-';
		ia_human_bytes((uint64_t)-v, buf + 1, len - 1);
		return buf;
	}
	snprintf(buf, len, "%.0f", v);
	return buf;
}

double ia_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double ia_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *ia_duration_str(double s, char *buf, size_t len)
{
	if (s < 90)
		snprintf(buf, len, "%.0f s", s < 0 ? 0 : s);
	else if (s < 90 * 60)
		snprintf(buf, len, "%.0f min", s / 60);
	else if (s < 48 * 3600)
		snprintf(buf, len, "%.1f h", s / 3600);
	else
		snprintf(buf, len, "%.1f days", s / 86400);
	return buf;
}

const char *ia_rate_str(const char *unit, double per_s, char *buf, size_t len)
{
	char b[32];

	if (!(per_s == per_s))		/* NaN: no trend known */
		snprintf(buf, len, "-");
	else if (!strcmp(unit, "bytes"))
		snprintf(buf, len, "%s/s", ia_amount(unit, round(per_s), b, sizeof(b)));
	else if (fabs(per_s) >= 10 || per_s == 0)
		snprintf(buf, len, "%.0f %s/s", per_s, unit[0] ? unit : "units");
	else
		snprintf(buf, len, "%.2g %s/s", per_s, unit[0] ? unit : "units");
	return buf;
}

const char *ia_fill_str(double eta_s, char *buf, size_t len)
{
	char b[32];

	if (eta_s < 0 || !(eta_s == eta_s))
		snprintf(buf, len, "not filling");
	else
		snprintf(buf, len, "full in %s", ia_duration_str(eta_s, b, sizeof(b)));
	return buf;
}

int ia_parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

const char *ia_owner_str(const struct ia_owner *o, char *buf, size_t len)
{
	if (!o->present)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s[%u] uid %u", ia_tx(o->comm), o->pid, o->uid);
	return buf;
}

const char *ia_u32_list_str(const uint32_t *v, unsigned int n, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;
	int w;

	buf[0] = 0;
	for (i = 0; i < n; i++) {
		w = snprintf(buf + off, len - off, "%s%u", i ? "," : "", v[i]);
		if (w < 0 || (size_t)w >= len - off) {
			/* Cut at the last whole number and say so. */
			buf[off] = 0;
			if (len - off > 4)
				strcat(buf, ",...");
			break;
		}
		off += w;
	}
	return buf;
}

/* --- JSON --------------------------------------------------------------- */

void ia_json_init(struct ia_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* The comma and key before a value at the current depth. */
static void lead(struct ia_json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		ia_fput_json_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_(struct ia_json *j, const char *key, char c)
{
	lead(j, key);
	fputc(c, j->f);
	if (j->depth < 15)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_(struct ia_json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void ia_json_obj_open(struct ia_json *j, const char *key)
{
	open_(j, key, '{');
}

void ia_json_obj_close(struct ia_json *j)
{
	close_(j, '}');
}

void ia_json_arr_open(struct ia_json *j, const char *key)
{
	open_(j, key, '[');
}

void ia_json_arr_close(struct ia_json *j)
{
	close_(j, ']');
}

void ia_json_u64(struct ia_json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void ia_json_i64(struct ia_json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void ia_json_str(struct ia_json *j, const char *key, const char *s)
{
	char *hexkey;

	lead(j, key);
	if (!ia_fput_json_string(j->f, s) || !key)
		return;
	/* Not UTF-8: the raw bytes beside it, so nothing is lost. */
	if (asprintf(&hexkey, "%s_hex", key) < 0)
		return;
	lead(j, hexkey);
	ia_fput_hex(j->f, s);
	free(hexkey);
}

void ia_json_double(struct ia_json *j, const char *key, const char *fmt, double v)
{
	lead(j, key);
	/* JSON has no NaN or infinity: such a figure is unknown, null. */
	if (!isfinite(v)) {
		fputs("null", j->f);
		return;
	}
	fprintf(j->f, fmt, v);
}

void ia_json_null(struct ia_json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->f);
}

void ia_json_bool(struct ia_json *j, const char *key, bool v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void ia_json_u64_if(struct ia_json *j, const char *key, bool has, uint64_t v)
{
	if (has)
		ia_json_u64(j, key, v);
	else
		ia_json_null(j, key);
}

void ia_json_u64_or_null(struct ia_json *j, const char *key, uint64_t v)
{
	ia_json_u64_if(j, key, v != UINT64_MAX, v);
}

void ia_json_str_or_null(struct ia_json *j, const char *key, const char *s)
{
	if (s && s[0])
		ia_json_str(j, key, s);
	else
		ia_json_null(j, key);
}

void ia_json_owner(struct ia_json *j, const char *key, const struct ia_owner *o)
{
	if (!o->present)
		return;
	ia_json_obj_open(j, key);
	ia_json_u64(j, "pid", o->pid);
	ia_json_u64(j, "uid", o->uid);
	ia_json_str(j, "comm", o->comm);
	if (o->cgroup_id)
		ia_json_u64(j, "cgroup_id", o->cgroup_id);
	ia_json_obj_close(j);
}

void ia_json_failure(struct ia_json *j, const char *key, const struct ia_failure *f)
{
	if (!f->present)
		return;
	ia_json_obj_open(j, key);
	ia_json_u64(j, "time_ns", f->time_ns);
	ia_json_u64(j, "errno", f->err);
	ia_json_u64(j, "iova", f->iova);
	ia_json_u64(j, "size", f->size);
	ia_json_owner(j, "owner", &f->owner);
	if (f->cgroup_id)
		ia_json_u64(j, "cgroup_id", f->cgroup_id);
	if (f->cgroup[0])
		ia_json_str(j, "cgroup", f->cgroup);
	if (f->cgroup[0] && f->cgroup_truncated)
		ia_json_bool(j, "cgroup_truncated", true);
	if (f->ioas)
		ia_json_u64(j, "ioas", f->ioas);
	ia_json_obj_close(j);
}

void ia_json_u32_array(struct ia_json *j, const char *key, const uint32_t *v, unsigned int n)
{
	unsigned int i;

	ia_json_arr_open(j, key);
	for (i = 0; i < n; i++)
		ia_json_u64(j, NULL, v[i]);
	ia_json_arr_close(j);
}

/* --- cgroups ------------------------------------------------------------ */

#define CGROOT "/sys/fs/cgroup"

static uint64_t cg_want;
static char *cg_buf;
static size_t cg_len;
static bool cg_found;

static int cg_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || st->st_ino != cg_want)
		return 0;
	/* Whole or not at all (NULL): a path is never cut here. */
	cg_found = (size_t)snprintf(cg_buf, cg_len, "%s",
				    path[strlen(CGROOT)] ? path + strlen(CGROOT) : "/") < cg_len;
	return 1;	/* stop the walk */
}

const char *ia_cut_mark(bool truncated)
{
	return truncated ? IA_CUT_MARK : "";
}

/*
 * Of @pid's /proc cgroup file, the cgroup v2 path when its directory is
 * cgroup @id (the process may have moved, or the pid been reused: the
 * inode says whether the path is still that cgroup's).
 */
static const char *cg_of_pid(uint64_t id, uint32_t pid, char *buf, size_t len)
{
	char file[64], line[IA_CGROUP_MAX + 8], dir[IA_CGROUP_MAX + 32];
	struct stat st;
	bool found = false;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%u/cgroup", pid);
	f = fopen(file, "re");
	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "0::", 3);
	fclose(f);
	if (!found)
		return NULL;
	line[strcspn(line, "\n")] = 0;
	if ((size_t)snprintf(dir, sizeof(dir), CGROOT "%s", line + 3) >= sizeof(dir) ||
	    stat(dir, &st) || (uint64_t)st.st_ino != id ||
	    (size_t)snprintf(buf, len, "%s", line + 3) >= len)
		return NULL;
	return buf;
}

const char *ia_cgroup_path_hint(uint64_t id, uint32_t pid, char *buf, size_t len)
{
	if (!id)
		return NULL;
	return (pid ? cg_of_pid(id, pid, buf, len) : NULL) ?: ia_cgroup_path(id, buf, len);
}

const char *ia_cgroup_path(uint64_t id, char *buf, size_t len)
{
	if (!id)
		return NULL;
	cg_want = id;
	cg_buf = buf;
	cg_len = len;
	cg_found = false;
	nftw(CGROOT, cg_visit, 16, FTW_PHYS | FTW_MOUNT);
	return cg_found ? buf : NULL;
}
