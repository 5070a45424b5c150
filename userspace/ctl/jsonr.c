// SPDX-License-Identifier: GPL-2.0
/*
 * A strict, small JSON reader for the documents iommu-accountd serves
 * (/alerts): RFC 8259 values into a tree. Strings are decoded to their
 * bytes (\uXXXX and surrogate pairs to UTF-8; a lone surrogate is an
 * error), numbers kept as their text. Depth is bounded; anything else,
 * trailing bytes included, is an error with its offset.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

struct rd {
	const char *p, *start;
	int depth;
	const char *why;
};

static void ws(struct rd *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static bool fail(struct rd *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return false;
}

static int hex4(const char *p)
{
	int v = 0, i, c;

	for (i = 0; i < 4; i++) {
		c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at r->p (on its quote) into malloc'ed bytes (*len of them). */
static char *string(struct rd *r, size_t *len)
{
	const char *p = r->p + 1;
	char *o, *out = malloc(strlen(p) + 1);
	int cp, lo;

	if (!out)
		return fail(r, "out of memory"), NULL;
	for (o = out; *p != '"'; ) {
		if ((unsigned char)*p < 0x20) {
			free(out);
			return fail(r, *p ? "a control character in a string" : "a string not ended"),
			       NULL;
		}
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		p++;
		switch (*p) {
		case '"': case '\\': case '/':
			*o++ = *p++;
			break;
		case 'b': *o++ = '\b'; p++; break;
		case 'f': *o++ = '\f'; p++; break;
		case 'n': *o++ = '\n'; p++; break;
		case 'r': *o++ = '\r'; p++; break;
		case 't': *o++ = '\t'; p++; break;
		case 'u':
			cp = hex4(p + 1);
			p += 5;
			if (cp >= 0xd800 && cp < 0xdc00 && p[0] == '\\' && p[1] == 'u' &&
			    (lo = hex4(p + 2)) >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			} else if (cp < 0 || (cp >= 0xd800 && cp < 0xe000)) {
				free(out);
				return fail(r, "a bad \\u escape"), NULL;
			}
			o += put_utf8(o, (unsigned int)cp);
			break;
		default:
			free(out);
			return fail(r, "a bad escape"), NULL;
		}
	}
	*o = 0;
	*len = (size_t)(o - out);
	r->p = p + 1;
	return out;
}

static bool number(struct rd *r, struct ia_jv *v)
{
	const char *p = r->p;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return fail(r, "not a value");
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			return fail(r, "a bad number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return fail(r, "a bad number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	v->t = IA_JV_NUM;
	v->s = strndup(r->p, p - r->p);
	v->n = p - r->p;
	r->p = p;
	return v->s || fail(r, "out of memory");
}

static bool value(struct rd *r, struct ia_jv *v);

/* An array's or an object's members (@obj: "key": value pairs). */
static bool members(struct rd *r, struct ia_jv *v, bool obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0, klen;
	void *nb;

	if (++r->depth > 32)
		return fail(r, "nested too deep");
	v->t = obj ? IA_JV_OBJ : IA_JV_ARR;
	r->p++;
	ws(r);
	if (*r->p == close) {
		r->p++;
		r->depth--;
		return true;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? cap * 2 : 8;
			nb = realloc(v->a, cap * sizeof(*v->a));
			if (!nb)
				return fail(r, "out of memory");
			v->a = nb;
			nb = realloc(v->k, cap * sizeof(*v->k));
			if (!nb)
				return fail(r, "out of memory");
			v->k = nb;
		}
		memset(&v->a[v->n], 0, sizeof(v->a[v->n]));
		v->k[v->n] = NULL;
		v->n++;
		if (obj) {
			ws(r);
			if (*r->p != '"')
				return fail(r, "a member's name is not a string");
			v->k[v->n - 1] = string(r, &klen);
			if (!v->k[v->n - 1])
				return false;
			ws(r);
			if (*r->p++ != ':')
				return fail(r, "no ':' after a member's name");
		}
		if (!value(r, &v->a[v->n - 1]))
			return false;
		ws(r);
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (*r->p++ != close)
			return fail(r, obj ? "no ',' or '}'" : "no ',' or ']'");
		r->depth--;
		return true;
	}
}

static bool value(struct rd *r, struct ia_jv *v)
{
	ws(r);
	switch (*r->p) {
	case '{':
		return members(r, v, true);
	case '[':
		return members(r, v, false);
	case '"':
		v->t = IA_JV_STR;
		v->s = string(r, &v->n);
		return v->s != NULL;
	case 't':
	case 'f':
	case 'n':
		if (!strncmp(r->p, "true", 4) || !strncmp(r->p, "null", 4)) {
			v->t = r->p[0] == 'n' ? IA_JV_NULL : IA_JV_BOOL;
			v->b = r->p[0] == 't';
			r->p += 4;
			return true;
		}
		if (!strncmp(r->p, "false", 5)) {
			v->t = IA_JV_BOOL;
			r->p += 5;
			return true;
		}
		return fail(r, "not a value");
	default:
		return number(r, v);
	}
}

void ia_jv_free(struct ia_jv *v)
{
	size_t i;

	for (i = 0; i < v->n && (v->t == IA_JV_ARR || v->t == IA_JV_OBJ); i++) {
		ia_jv_free(&v->a[i]);
		free(v->k[i]);
	}
	if (v->t == IA_JV_ARR || v->t == IA_JV_OBJ) {
		free(v->a);
		free(v->k);
	} else {
		free(v->s);
	}
	memset(v, 0, sizeof(*v));
}

int ia_jv_parse(const char *doc, struct ia_jv *v, char *err, size_t errlen)
{
	struct rd r = { .p = doc, .start = doc };

	memset(v, 0, sizeof(*v));
	if (value(&r, v)) {
		ws(&r);
		if (!*r.p)
			return 0;
		fail(&r, "bytes after the document");
	}
	snprintf(err, errlen, "%s at byte %zu", r.why ? r.why : "not JSON", (size_t)(r.p - r.start));
	ia_jv_free(v);
	return -1;
}

const struct ia_jv *ia_jv_get(const struct ia_jv *obj, const char *key)
{
	size_t i;

	if (!obj || obj->t != IA_JV_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (obj->k[i] && !strcmp(obj->k[i], key))
			return &obj->a[i];
	return NULL;
}
