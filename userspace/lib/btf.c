// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's BTF (/sys/kernel/btf/vmlinux, and a module's split
 * BTF on top of it), read enough to render a function's prototype as C:
 * "int(struct user_struct *, long unsigned int)"; scripts/hook-check runs it
 * (userspace/tests/contract_test) on the BTF of each kernel's packages. The
 * format is the kernel's (include/uapi/linux/btf.h, Documentation/bpf/btf.rst);
 * no library is needed for this much.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ia.h"

#define BTF_MAGIC 0xeb9f
enum {
	K_INT = 1, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD, K_TYPEDEF, K_VOLATILE,
	K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO, K_VAR, K_DATASEC, K_FLOAT, K_DECL_TAG,
	K_TYPE_TAG, K_ENUM64,
};

struct ia_btf {
	const struct ia_btf *base;
	unsigned char *raw;
	size_t len;
	const char *strs;
	uint32_t slen;
	uint32_t str_base;		/* the base's string bytes (split BTF numbers after them) */
	uint32_t first;			/* the id of types[0] */
	uint32_t n;
	const unsigned char **types;	/* each type's record */
};

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The size of a type record: 12 bytes and what its kind adds; 0: unknown kind. */
static size_t rec_size(const unsigned char *t)
{
	uint32_t info = u32_at(t + 4), vlen = info & 0xffff;

	switch ((info >> 24) & 0x1f) {
	case K_INT: case K_VAR: case K_DECL_TAG:
		return 16;
	case K_ARRAY:
		return 24;
	case K_STRUCT: case K_UNION: case K_DATASEC: case K_ENUM64:
		return 12 + 12 * (size_t)vlen;
	case K_ENUM: case K_FUNC_PROTO:
		return 12 + 8 * (size_t)vlen;
	case K_PTR: case K_FWD: case K_TYPEDEF: case K_VOLATILE: case K_CONST: case K_RESTRICT:
	case K_FUNC: case K_FLOAT: case K_TYPE_TAG:
		return 12;
	}
	return 0;
}

void ia_btf_close(struct ia_btf *b)
{
	if (!b)
		return;
	free(b->types);
	free(b->raw);
	free(b);
}

struct ia_btf *ia_btf_open(const char *path, const struct ia_btf *base, int *err)
{
	struct ia_btf *b = calloc(1, sizeof(*b));
	uint32_t hlen, toff, tlen, soff, slen;
	size_t cap = 1 << 20, o, sz;
	FILE *f = NULL;

	*err = -ENOMEM;
	if (!b)
		return NULL;
	b->raw = malloc(cap);
	if (!b->raw)
		goto fail;
	f = fopen(path, "rb");
	if (!f) {
		*err = -errno;
		goto fail;
	}
	/* sysfs gives no size: read until the end. */
	while ((sz = fread(b->raw + b->len, 1, cap - b->len, f)) > 0) {
		unsigned char *n;

		b->len += sz;
		if (b->len < cap)
			continue;
		n = realloc(b->raw, cap * 2);
		if (!n)
			goto fail;
		b->raw = n;
		cap *= 2;
	}
	fclose(f);
	f = NULL;
	*err = -EINVAL;
	if (b->len < 24 || (b->raw[0] | b->raw[1] << 8) != BTF_MAGIC)
		goto fail;
	hlen = u32_at(b->raw + 4);
	toff = u32_at(b->raw + 8);
	tlen = u32_at(b->raw + 12);
	soff = u32_at(b->raw + 16);
	slen = u32_at(b->raw + 20);
	if ((uint64_t)hlen + toff + tlen > b->len || (uint64_t)hlen + soff + slen > b->len ||
	    !slen || b->raw[hlen + soff + slen - 1])
		goto fail;
	b->base = base;
	b->strs = (const char *)b->raw + hlen + soff;
	b->slen = slen;
	b->str_base = base ? base->str_base + base->slen : 0;
	b->first = base ? base->first + base->n : 1;
	for (o = 0; o < tlen; o += sz) {
		sz = o + 12 <= tlen ? rec_size(b->raw + hlen + toff + o) : 0;
		if (!sz || o + sz > tlen)
			goto fail;
		if (!(b->n & (b->n + 1))) {
			const unsigned char **n = realloc(b->types, (b->n * 2 + 1) * sizeof(*n));

			if (!n) {
				*err = -ENOMEM;
				goto fail;
			}
			b->types = n;
		}
		b->types[b->n++] = b->raw + hlen + toff + o;
	}
	*err = 0;
	return b;
fail:
	if (f)
		fclose(f);
	ia_btf_close(b);
	return NULL;
}

static const char *name_at(const struct ia_btf *b, uint32_t off)
{
	while (b->base && off < b->str_base)
		b = b->base;
	off -= b->str_base;
	return off < b->slen ? b->strs + off : "?";
}

static const unsigned char *type_at(const struct ia_btf *b, uint32_t id)
{
	while (b->base && id < b->first)
		b = b->base;
	return id >= b->first && id - b->first < b->n ? b->types[id - b->first] : NULL;
}

/* Append @s to @buf (of @len), as far as it goes. */
static void put(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s", s);
}

static void render(const struct ia_btf *b, uint32_t id, char *buf, size_t len, int depth)
{
	const unsigned char *t = id ? type_at(b, id) : NULL;
	uint32_t info, kind;
	const char *n;

	if (!id) {
		put(buf, len, "void");
		return;
	}
	if (!t || depth > 32) {
		put(buf, len, "?");
		return;
	}
	info = u32_at(t + 4);
	kind = (info >> 24) & 0x1f;
	n = name_at(b, u32_at(t));
	switch (kind) {
	case K_INT: case K_TYPEDEF: case K_FLOAT:
		put(buf, len, n);
		return;
	case K_PTR:
		render(b, u32_at(t + 8), buf, len, depth + 1);
		put(buf, len, " *");
		return;
	case K_CONST:
		put(buf, len, "const ");
		render(b, u32_at(t + 8), buf, len, depth + 1);
		return;
	case K_VOLATILE: case K_RESTRICT: case K_TYPE_TAG:
		render(b, u32_at(t + 8), buf, len, depth + 1);
		return;
	case K_STRUCT: case K_UNION: case K_FWD:
		/* A forward declaration's kind flag says union. */
		put(buf, len, kind == K_UNION || (kind == K_FWD && info >> 31) ? "union " : "struct ");
		put(buf, len, n);
		return;
	case K_ENUM: case K_ENUM64:
		put(buf, len, "enum ");
		put(buf, len, n);
		return;
	case K_FUNC_PROTO:
		put(buf, len, "fn");
		return;
	case K_ARRAY:
		put(buf, len, "array");
		return;
	}
	put(buf, len, "?");
}

/* The first FUNC named @name among @b's own types (a module's, not its base's). */
static const unsigned char *find_func(const struct ia_btf *b, const char *name)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		if (((u32_at(b->types[i] + 4) >> 24) & 0x1f) == K_FUNC &&
		    !strcmp(name_at(b, u32_at(b->types[i])), name))
			return b->types[i];
	return NULL;
}

int ia_btf_proto(const struct ia_btf *b, const char *name, char *buf, size_t len)
{
	const unsigned char *f = find_func(b, name), *p;
	uint32_t i, vlen;

	if (!len)
		return -EINVAL;
	buf[0] = 0;
	if (!f)
		return 0;
	p = type_at(b, u32_at(f + 8));
	if (!p || ((u32_at(p + 4) >> 24) & 0x1f) != K_FUNC_PROTO)
		return -EINVAL;
	vlen = u32_at(p + 4) & 0xffff;
	render(b, u32_at(p + 8), buf, len, 0);
	put(buf, len, "(");
	for (i = 0; i < vlen; i++) {
		if (i)
			put(buf, len, ", ");
		render(b, u32_at(p + 12 + 8 * i + 4), buf, len, 0);
	}
	put(buf, len, ")");
	return 1;
}
