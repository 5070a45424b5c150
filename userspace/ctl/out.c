// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <uapi/linux/iommu_account.h>
#include "ctl.h"

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

void ia_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int ia_parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || !*s || *end || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static void owner_parse(struct nlattr *nest, uint32_t *pid, uint32_t *uid, const char **comm)
{
	struct nlattr *tb[IOMMU_ACCOUNT_A_OWNER_MAX + 1];

	*pid = *uid = 0;
	*comm = "";
	if (!nest || nla_parse_nested(tb, IOMMU_ACCOUNT_A_OWNER_MAX, nest, NULL))
		return;
	if (tb[IOMMU_ACCOUNT_A_OWNER_PID])
		*pid = nla_get_u32(tb[IOMMU_ACCOUNT_A_OWNER_PID]);
	if (tb[IOMMU_ACCOUNT_A_OWNER_UID])
		*uid = nla_get_u32(tb[IOMMU_ACCOUNT_A_OWNER_UID]);
	if (tb[IOMMU_ACCOUNT_A_OWNER_COMM])
		*comm = nla_get_string(tb[IOMMU_ACCOUNT_A_OWNER_COMM]);
}

const char *ia_owner_str(struct nlattr *nest, char *buf, size_t len)
{
	uint32_t pid, uid;
	const char *comm;

	if (!nest) {
		snprintf(buf, len, "-");
		return buf;
	}
	owner_parse(nest, &pid, &uid, &comm);
	snprintf(buf, len, "%s[%u] uid %u", comm, pid, uid);
	return buf;
}

void ia_print_owner(struct ia_ctx *ctx, struct nlattr *nest, const char *key)
{
	uint32_t pid, uid;
	const char *comm;
	char b[96];

	if (!nest)
		return;
	if (!ctx->json) {
		printf(" %s %s", key, ia_owner_str(nest, b, sizeof(b)));
		return;
	}
	owner_parse(nest, &pid, &uid, &comm);
	printf(",\"%s\":{\"pid\":%u,\"uid\":%u,\"comm\":", key, pid, uid);
	ia_json_str(stdout, comm);
	printf("}");
}
