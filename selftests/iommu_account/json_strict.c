// SPDX-License-Identifier: GPL-2.0
/*
 * json_strict [--text] [--lines] < INPUT: a strict parser for what the VM
 * tests read (the VM has no Python; jq takes invalid UTF-8 and turns it into
 * U+FFFD without a word, so it cannot tell).
 *   (default)  one JSON document, RFC 8259: valid UTF-8 (no overlong form,
 *              no surrogate, nothing beyond U+10FFFF), no raw control
 *              character in a string, no lone surrogate escape, no NaN or
 *              Infinity, nothing but white space after it
 *   --lines    one such document per line (the exec hook's log, events -j)
 *   --text     terminal text: valid UTF-8 and no control character but the
 *              newline (C0, DEL, C1, U+2028/9, bidi overrides and isolates)
 * Exit 0 when it holds; 1 with the byte offset, the reason and the line it is
 * in (every byte outside printable ASCII as \xHH) on stderr.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char *p, *start, *end;
static const char *why;

static bool fail(const char *w)
{
	if (!why)
		why = w;
	return false;
}

/* The UTF-8 sequence at p: its length and code point, 0 when invalid. */
static int utf8(const unsigned char *s, const unsigned char *e, uint32_t *cp)
{
	uint32_t c = s[0], min;
	int len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if (e - s < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static bool control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

static void ws(void)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
}

static bool value(int depth);

static bool hex4(unsigned int *u)
{
	int i;

	*u = 0;
	for (i = 0; i < 4; i++, p++) {
		if (p >= end)
			return fail("\\u cut short");
		if (*p >= '0' && *p <= '9')
			*u = *u << 4 | (*p - '0');
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			*u = *u << 4 | ((*p | 0x20) - 'a' + 10);
		else
			return fail("\\u without four hex digits");
	}
	return true;
}

static bool string(void)
{
	unsigned int u, lo;
	uint32_t cp;
	int l;

	p++;	/* the quote */
	while (p < end && *p != '"') {
		if (*p < 0x20)
			return fail("a raw control character in a string");
		if (*p == '\\') {
			p++;
			if (p >= end)
				return fail("a string cut short");
			if (strchr("\"\\/bfnrt", *p) && *p) {
				p++;
				continue;
			}
			if (*p != 'u')
				return fail("an unknown escape");
			p++;
			if (!hex4(&u))
				return false;
			if (u >= 0xdc00 && u <= 0xdfff)
				return fail("a lone low surrogate escape");
			if (u >= 0xd800 && u <= 0xdbff) {
				if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
					return fail("a lone high surrogate escape");
				p += 2;
				if (!hex4(&lo) || lo < 0xdc00 || lo > 0xdfff)
					return fail("a high surrogate without its low one");
			}
			continue;
		}
		l = utf8(p, end, &cp);
		if (!l)
			return fail("not UTF-8");
		p += l;
	}
	if (p >= end)
		return fail("a string cut short");
	p++;
	return true;
}

static bool number(void)
{
	const unsigned char *s = p;

	if (*p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (p < end && *p >= '1' && *p <= '9')
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	else
		return fail("not a value (NaN, Infinity or garbage)");
	if (p < end && *p == '.') {
		p++;
		if (p >= end || *p < '0' || *p > '9')
			return fail("a fraction without digits");
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return fail("an exponent without digits");
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	return p > s;
}

static bool word(const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - p) < n || memcmp(p, w, n))
		return fail("not a value (NaN, Infinity or garbage)");
	p += n;
	return true;
}

static bool container(int depth, char close)
{
	bool first = true;

	if (depth > 64)
		return fail("nested too deep");
	p++;
	ws();
	if (p < end && *p == close) {
		p++;
		return true;
	}
	for (;;) {
		if (!first) {
			ws();
			if (p < end && *p == close) {
				p++;
				return true;
			}
			if (p >= end || *p != ',')
				return fail("expected ',' or the end of an object or array");
			p++;
		}
		first = false;
		ws();
		if (close == '}') {
			if (p >= end || *p != '"')
				return fail("a key that is not a string");
			if (!string())
				return false;
			ws();
			if (p >= end || *p != ':')
				return fail("expected ':'");
			p++;
			ws();
		}
		if (!value(depth + 1))
			return false;
	}
}

static bool value(int depth)
{
	ws();
	if (p >= end)
		return fail("no value");
	switch (*p) {
	case '{': return container(depth, '}');
	case '[': return container(depth, ']');
	case '"': return string();
	case 't': return word("true");
	case 'f': return word("false");
	case 'n': return word("null");
	default: return number();
	}
}

static bool document(void)
{
	if (!value(0))
		return false;
	ws();
	return p == end || fail("something after the document");
}

static bool text(void)
{
	uint32_t cp;
	int l;

	while (p < end) {
		l = utf8(p, end, &cp);
		if (!l)
			return fail("not UTF-8");
		if (control(cp) && cp != '\n')
			return fail("a control character");
		p += l;
	}
	return true;
}

int main(int argc, char **argv)
{
	bool as_text = argc > 1 && !strcmp(argv[1], "--text");
	bool lines = argc > 1 && !strcmp(argv[1], "--lines");
	size_t len = 0, cap = 1 << 16, n;
	unsigned char *buf = malloc(cap), *nl;
	bool ok = true;

	if (!buf)
		return 2;
	while ((n = fread(buf + len, 1, cap - len, stdin)) > 0) {
		len += n;
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap *= 2);

			if (!nb)
				return 2;
			buf = nb;
		}
	}
	start = p = buf;
	end = buf + len;
	if (as_text) {
		ok = text();
	} else if (lines) {
		while (ok && p < end) {
			const unsigned char *e = end;

			nl = memchr(p, '\n', end - p);
			end = nl ? nl : e;
			ok = document();
			p = end + (nl != NULL);
			if (ok)
				end = e;
		}
	} else {
		ok = len && document();
		if (!len)
			why = "empty";
	}
	if (!ok) {
		const unsigned char *l = p, *e = p;

		fprintf(stderr, "json_strict: %s at byte %ld, in the line: ", why ? why : "invalid",
			(long)(p - start));
		while (l > start && l[-1] != '\n')
			l--;
		while (e < buf + len && *e != '\n')
			e++;
		for (; l < e; l++)
			fprintf(stderr, *l >= 0x20 && *l < 0x7f && *l != '\\' ? "%c" : "\\x%02x", *l);
		fputc('\n', stderr);
		return 1;
	}
	return 0;
}
