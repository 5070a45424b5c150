// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
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
