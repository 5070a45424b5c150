// SPDX-License-Identifier: GPL-2.0
/*
 * The one rule for every string a user picks: a comm (PR_SET_NAME takes any
 * bytes), a cgroup name or path (a delegated subtree names its own), a unit,
 * container or pod name taken from a path, a command line, a file name.
 * Such a string is a run of bytes: nothing says it is UTF-8 or printable.
 * Every output of iommu-accountctl and iommu-accountd writes it through one
 * of the forms below (Documentation/ctl.md, "Names are bytes"):
 *
 *  - text (ia_esc_text, ia_tx, ia_fput_text): the terminal, and the
 *    names inside the log's sentences. Valid UTF-8 characters that
 *    are not controls stand as they are; a backslash is written "\\", tab,
 *    newline and carriage return "\t", "\n", "\r"; every other byte of a
 *    control character (C0, DEL, C1, the line and paragraph separators, the
 *    bidirectional overrides and isolates) and every byte that begins no
 *    valid UTF-8 sequence (stray continuation bytes, overlong forms,
 *    surrogates, beyond U+10FFFF, a sequence cut short) is written "\xHH".
 *    The result is valid UTF-8 with no control character, and one name has
 *    one text form and back: nothing is lost and no row or line can be
 *    forged.
 *  - a Prometheus label value (ia_fput_label): the text form, except that a
 *    backslash stands for itself, so that a valid path (systemd's "\x2d")
 *    is its own label value, the one cAdvisor's series carry; then escaped
 *    as the exposition format requires ("\\", "\"").
 *  - a sentence (ia_esc_sentence): the daemon's log lines and reasons, which
 *    it composed itself with the names in them already in the text form.
 *    What is left (a name that went in raw, a path from the configuration,
 *    an error text) is written as in the text form, except that a backslash
 *    stands for itself: one line of valid UTF-8, names never escaped twice.
 *  - JSON (ia_fput_json_string, used by libia's JSON writer): valid
 *    characters as they are, controls as \uXXXX, each byte of an invalid
 *    sequence as U+FFFD; the writer then adds a sibling member KEY_hex with
 *    every byte of the original in lowercase hex, so the document stays
 *    valid UTF-8 and the name can still be told apart and recovered.
 */
#include <stdlib.h>
#include <string.h>

#include "ia.h"

int ia_utf8_next(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c, min;
	int len, i;

	if (!n)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;	/* a continuation byte, C0/C1 (overlong), F5-FF */
	}
	if ((size_t)len > n)
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

bool ia_utf8_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

bool ia_utf8_valid(const char *s)
{
	size_t n = strlen(s);
	uint32_t cp;
	int l;

	while (n) {
		l = ia_utf8_next(s, n, &cp);
		if (!l)
			return false;
		s += l;
		n -= l;
	}
	return true;
}

/* The three forms of one rule (ia.h). */
enum form { TEXT, LABEL, SENTENCE };

/*
 * The text form, written through @put (a byte string and its length); in
 * the LABEL and SENTENCE forms a backslash stands for itself, and only the
 * SENTENCE form keeps the short escapes of tab, newline and return.
 */
static void text_form(const char *s, enum form form,
		      void (*put)(void *arg, const char *p, size_t n), void *arg)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(s);
	char e[4] = { '\\', 'x' };
	bool self = form != TEXT;
	uint32_t cp;
	int l, i;

	while (n) {
		l = ia_utf8_next(s, n, &cp);
		if (l && !ia_utf8_control(cp) && (cp != '\\' || self)) {
			put(arg, s, l);
		} else if (cp == '\\' && l) {
			put(arg, "\\\\", 2);
		} else if (l == 1 && form != LABEL && (cp == '\t' || cp == '\n' || cp == '\r')) {
			put(arg, cp == '\t' ? "\\t" : cp == '\n' ? "\\n" : "\\r", 2);
		} else {
			if (!l)
				l = 1;	/* a byte that begins nothing valid: that byte alone */
			for (i = 0; i < l; i++) {
				e[2] = hex[(unsigned char)s[i] >> 4];
				e[3] = hex[(unsigned char)s[i] & 15];
				put(arg, e, 4);
			}
		}
		s += l;
		n -= l;
	}
}

struct sbuf {
	char *buf;
	size_t len, off;	/* the buffer; the length the whole form needs */
	size_t wrote, safe;	/* bytes in it; the last boundary with room for "..." */
	bool cut;
};

/* Whole items (a character or an escape) only: a cut never splits one. */
static void put_sbuf(void *arg, const char *p, size_t n)
{
	struct sbuf *b = arg;

	b->off += n;
	if (b->cut || !b->len)
		return;
	if (b->wrote + n + 1 > b->len) {
		/* Too small: end at the last whole item that leaves room for "...". */
		b->cut = true;
		if (b->len >= 4)
			memcpy(b->buf + b->safe, "...", 4);
		return;
	}
	memcpy(b->buf + b->wrote, p, n);
	b->wrote += n;
	b->buf[b->wrote] = 0;
	if (b->wrote + 4 <= b->len)
		b->safe = b->wrote;
}

/* @s in @form into @buf (cut at a whole item, "..."): the length it needs. */
static size_t esc_buf(const char *s, enum form form, char *buf, size_t len)
{
	struct sbuf b = { .buf = buf, .len = len };

	if (len)
		buf[0] = 0;
	text_form(s ? s : "", form, put_sbuf, &b);
	return b.off;
}

size_t ia_esc_text(const char *s, char *buf, size_t len)
{
	return esc_buf(s, TEXT, buf, len);
}

size_t ia_esc_sentence(const char *s, char *buf, size_t len)
{
	return esc_buf(s, SENTENCE, buf, len);
}

static void put_file(void *arg, const char *p, size_t n)
{
	fwrite(p, 1, n, arg);
}

void ia_fput_text(FILE *f, const char *s)
{
	text_form(s ? s : "", TEXT, put_file, f);
}

/*
 * The text form in a buffer of this thread's that lasts for the next seven
 * calls: for printf("%s", ia_tx(name)). Never cut (grown to fit); "?" when
 * memory runs out.
 */
static const char *ring_form(const char *s, size_t (*form)(const char *, char *, size_t))
{
	static __thread char *ring[8];
	static __thread size_t cap[8];
	static __thread unsigned int next;
	unsigned int i = next++ % 8;
	size_t need = form(s, NULL, 0) + 1;

	if (need > cap[i]) {
		char *nb = realloc(ring[i], need);

		if (!nb)
			return "?";
		ring[i] = nb;
		cap[i] = need;
	}
	form(s, ring[i], cap[i]);
	return ring[i];
}

const char *ia_tx(const char *s)
{
	return ring_form(s, ia_esc_text);
}

/* The sentence form, as ia_tx's buffers (the eight are shared). */
const char *ia_sx(const char *s)
{
	return ring_form(s, ia_esc_sentence);
}

static void put_label(void *arg, const char *p, size_t n)
{
	FILE *f = arg;
	size_t i;

	/* The text form has no newline; its backslashes and quotes are escaped. */
	for (i = 0; i < n; i++) {
		if (p[i] == '\\' || p[i] == '"')
			fputc('\\', f);
		fputc(p[i], f);
	}
}

void ia_fput_label(FILE *f, const char *s)
{
	text_form(s ? s : "", LABEL, put_label, f);
}

bool ia_fput_json_string(FILE *f, const char *s)
{
	size_t n = strlen(s);
	bool lossy = false;
	uint32_t cp;
	int l;

	fputc('"', f);
	while (n) {
		l = ia_utf8_next(s, n, &cp);
		if (!l) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			lossy = true;
			l = 1;
		} else if (cp == '"' || cp == '\\') {
			fputc('\\', f);
			fputc((int)cp, f);
		} else if (cp == '\n') {
			fputs("\\n", f);
		} else if (cp == '\t') {
			fputs("\\t", f);
		} else if (ia_utf8_control(cp)) {
			fprintf(f, "\\u%04x", cp);
		} else {
			fwrite(s, 1, l, f);
		}
		s += l;
		n -= l;
	}
	fputc('"', f);
	return lossy;
}

void ia_fput_hex(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fprintf(f, "%02x", (unsigned char)*s);
	fputc('"', f);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *ia_unesc_text(char *s)
{
	char *r = s, *w = s;
	int hi, lo;

	while (*r) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r++;
			continue;
		}
		switch (r[1]) {
		case 't': *w++ = '\t'; r += 2; break;
		case 'n': *w++ = '\n'; r += 2; break;
		case 'r': *w++ = '\r'; r += 2; break;
		case 'x':
			hi = r[2] ? hexval(r[2]) : -1;
			lo = hi >= 0 && r[3] ? hexval(r[3]) : -1;
			if (lo >= 0 && (hi || lo)) {
				*w++ = (char)(hi << 4 | lo);
				r += 4;
				break;
			}
			*w++ = *r++;	/* not an escape of the text form: as it is */
			break;
		default:
			*w++ = r[1];
			r += 2;
		}
	}
	*w = 0;
	return s;
}

const char *ia_metric_unit(const char *unit, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return buf;
	for (i = 0; unit[i] && i + 1 < len; i++) {
		char c = unit[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		buf[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
	}
	buf[i] = 0;
	if (!i)
		snprintf(buf, len, "units");
	return buf;
}
