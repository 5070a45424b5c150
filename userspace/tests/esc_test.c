// SPDX-License-Identifier: GPL-2.0
/*
 * The one rule for names (lib/esc.c), on the host: every control
 * character, overlong and invalid UTF-8, surrogates, sequences cut short,
 * and random bytes, through the text form, the label form and the JSON
 * writer. Each form is checked by what it promises (valid UTF-8, no control
 * character, the original recovered from it), not by a copy of its output.
 * ESC_TEST_OUT=DIR leaves a JSON document and an exposition of hostile
 * names there for a strict parser and promtool (scripts/check).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ia.h"

/* Strict UTF-8 with no control character (the promise of text and label forms). */
static int clean_utf8(const char *s)
{
	size_t n = strlen(s);
	uint32_t cp;
	int l;

	while (n) {
		l = ia_utf8_next(s, n, &cp);
		if (!l || ia_utf8_control(cp))
			return 0;
		s += l;
		n -= l;
	}
	return 1;
}

static int hexv(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* The text form read back (label: a backslash stands for itself unless "\xHH"). */
static size_t unescape_text(const char *t, char *out, int label)
{
	size_t o = 0;

	while (*t) {
		if (*t == '\\' && t[1] == 'x' && t[2] && t[3]) {
			out[o++] = (char)(hexv(t[2]) << 4 | hexv(t[3]));
			t += 4;
		} else if (!label && *t == '\\') {
			out[o++] = t[1] == 't' ? '\t' : t[1] == 'n' ? '\n' : t[1] == 'r' ? '\r' : t[1];
			t += 2;
		} else {
			out[o++] = *t++;
		}
	}
	out[o] = 0;
	return o;
}

/* A JSON string's content read back: its escapes, U+FFFD kept as bytes. */
static int unescape_json(const char *j, char *out)
{
	size_t o = 0;
	unsigned int u;

	if (*j++ != '"')
		return -1;
	while (*j != '"') {
		if (!*j || (unsigned char)*j < 0x20)
			return -1;	/* a raw control: not JSON */
		if (*j != '\\') {
			out[o++] = *j++;
			continue;
		}
		j++;
		switch (*j) {
		case '"': case '\\': case '/': out[o++] = *j++; break;
		case 'n': out[o++] = '\n'; j++; break;
		case 't': out[o++] = '\t'; j++; break;
		case 'u':
			if (sscanf(j + 1, "%4x", &u) != 1)
				return -1;
			if (u >= 0xd800 && u <= 0xdfff)
				return -1;	/* never a lone surrogate */
			if (u < 0x80) {
				out[o++] = (char)u;
			} else if (u < 0x800) {
				out[o++] = (char)(0xc0 | u >> 6);
				out[o++] = (char)(0x80 | (u & 0x3f));
			} else {
				out[o++] = (char)(0xe0 | u >> 12);
				out[o++] = (char)(0x80 | ((u >> 6) & 0x3f));
				out[o++] = (char)(0x80 | (u & 0x3f));
			}
			j += 5;
			break;
		default:
			return -1;
		}
	}
	out[o] = 0;
	return j[1] == 0 ? 0 : -1;
}

/* What JSON should hold: @s with each byte of an invalid sequence as U+FFFD. */
static void replaced(const char *s, char *out)
{
	size_t n = strlen(s), o = 0;
	uint32_t cp;
	int l;

	while (n) {
		l = ia_utf8_next(s, n, &cp);
		if (!l) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			l = 1;
		} else {
			memcpy(out + o, s, l);
			o += l;
		}
		s += l;
		n -= l;
	}
	out[o] = 0;
}

static char *in_memory(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	fn(f, s);
	fclose(f);
	return buf;
}

static void json_one(FILE *f, const char *s)
{
	ia_fput_json_string(f, s);
}

/* Every check of every form on one name. */
static void check_name(const char *s)
{
	char back[4096], want[4096], *t, *j;
	const char *tx = ia_tx(s);

	assert_true(clean_utf8(tx));
	unescape_text(tx, back, 0);
	assert_string_equal(back, s);
	snprintf(want, sizeof(want), "%s", tx);
	assert_string_equal(ia_unesc_text(want), s);
	t = in_memory(ia_fput_text, s);
	assert_string_equal(t, tx);
	free(t);

	t = in_memory(ia_fput_label, s);
	/* The exposition's own escapes undone, then the label form's. */
	{
		char lab[4096];
		size_t o = 0, i;

		for (i = 0; t[i]; i++) {
			assert_true(t[i] != '\n');
			if (t[i] == '\\') {
				i++;
				assert_true(t[i] == '\\' || t[i] == '"');
			} else {
				assert_true(t[i] != '"');
			}
			lab[o++] = t[i];
		}
		lab[o] = 0;
		assert_true(clean_utf8(lab));
		/* Whole and unambiguous unless the name itself holds "\x". */
		if (!strstr(s, "\\x")) {
			unescape_text(lab, back, 1);
			assert_string_equal(back, s);
		}
	}
	free(t);

	/*
	 * The sentence form: one clean line whatever went in raw, and a name
	 * already in the text form is left as it is (never escaped twice).
	 */
	{
		char sent[4096];
		size_t need = ia_esc_sentence(s, sent, sizeof(sent));

		assert_true(need < sizeof(sent));
		assert_true(clean_utf8(sent));
		assert_true(strchr(sent, '\n') == NULL);
		assert_int_equal(ia_esc_sentence(tx, sent, sizeof(sent)), strlen(tx));
		assert_string_equal(sent, tx);
	}

	j = in_memory(json_one, s);
	assert_true(ia_utf8_valid(j));
	assert_int_equal(unescape_json(j, back), 0);
	replaced(s, want);
	assert_string_equal(back, want);
	free(j);
}

static void every_control_character_escaped_visibly(void **state)
{
	char s[8];
	unsigned int c;

	(void)state;
	for (c = 1; c < 0x20; c++) {
		snprintf(s, sizeof(s), "a%cb", c);
		check_name(s);
		assert_null(strchr(ia_tx(s), c));
	}
	check_name("a\x7f" "b");
	assert_string_equal(ia_tx("a\x7f" "b"), "a\\x7fb");
	assert_string_equal(ia_tx("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
	assert_string_equal(ia_tx("x\ty\nz\r"), "x\\ty\\nz\\r");
	assert_string_equal(ia_tx("a\\b"), "a\\\\b");
	/* C1 (U+009B, the 8-bit CSI), separators and bidi overrides. */
	assert_string_equal(ia_tx("\xc2\x9b" "31m"), "\\xc2\\x9b31m");
	assert_string_equal(ia_tx("\xe2\x80\xae" "gpj.exe"), "\\xe2\\x80\\xaegpj.exe");
	assert_string_equal(ia_tx("l\xe2\x80\xa8" "l"), "l\\xe2\\x80\\xa8l");
	check_name("\xc2\x9b" "31m");
	check_name("\xe2\x80\xae" "gpj.exe");
}

static void valid_utf8_stands_as_it_is(void **state)
{
	static const char *const ok[] = {
		"nginx", "/user.slice/user-1000.slice/session-2.scope", "caf\xc3\xa9",
		"\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x90\xa7 tux", "\xef\xbf\xbd",
		"\xf4\x8f\xbf\xbf", "/system.slice/var-lib-docker\\x2dfoo.mount",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		check_name(ok[i]);
		assert_true(ia_utf8_valid(ok[i]));
		if (!strchr(ok[i], '\\'))
			assert_string_equal(ia_tx(ok[i]), ok[i]);
	}
}

static void invalid_utf8_escaped_byte_by_byte(void **state)
{
	static const struct { const char *in, *text; } cases[] = {
		{ "\xff", "\\xff" },
		{ "a\x80" "b", "a\\x80b" },			/* lone continuation */
		{ "\xc0\x80", "\\xc0\\x80" },			/* overlong NUL */
		{ "\xc1\xbf", "\\xc1\\xbf" },			/* overlong */
		{ "\xe0\x80\xaf", "\\xe0\\x80\\xaf" },		/* overlong '/' */
		{ "\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf" },	/* overlong '/' */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },		/* lone high surrogate */
		{ "\xed\xbf\xbf", "\\xed\\xbf\\xbf" },		/* lone low surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	/* beyond U+10FFFF */
		{ "\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80" },	/* 5-byte form */
		{ "ab\xe2\x82", "ab\\xe2\\x82" },		/* cut inside a character */
		{ "\xe2\x82" "c", "\\xe2\\x82c" },
		{ "\xfe\xff", "\\xfe\\xff" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_false(ia_utf8_valid(cases[i].in));
		assert_string_equal(ia_tx(cases[i].in), cases[i].text);
		check_name(cases[i].in);
	}
}

static void random_bytes_hold_every_promise(void **state)
{
	char s[64];
	unsigned int seed = 20261204, i, n, k;

	(void)state;
	for (i = 0; i < 200000; i++) {
		n = 1 + rand_r(&seed) % 40;
		for (k = 0; k < n; k++) {
			/* Biased to the interesting bytes: high bytes and controls. */
			unsigned int r = rand_r(&seed);

			s[k] = (char)(r % 3 ? 0x80 + (r >> 8) % 0x80 : 1 + (r >> 8) % 0xff);
		}
		s[n] = 0;
		check_name(s);
	}
}

static void a_short_buffer_cuts_at_a_whole_character_and_says_so(void **state)
{
	char b[12];
	size_t need;

	(void)state;
	need = ia_esc_text("\x1b\x1b\x1b\x1b\x1b", b, sizeof(b));
	assert_int_equal(need, 20);
	assert_string_equal(b, "\\x1b\\x1b...");
	need = ia_esc_text("\xe6\x97\xa5\xe6\x9c\xac\xe6\x97\xa5\xe6\x9c\xac", b, sizeof(b));
	assert_int_equal(need, 12);
	assert_true(ia_utf8_valid(b));
	assert_string_equal(b, "\xe6\x97\xa5\xe6\x9c\xac...");
	assert_int_equal(ia_esc_text("abc", b, sizeof(b)), 3);
	assert_string_equal(b, "abc");
}

/* The JSON writer: the sibling KEY_hex carries the bytes a U+FFFD stands for. */
static void json_writer_keeps_raw_bytes_beside_replacement(void **state)
{
	char *buf = NULL, *out = getenv("ESC_TEST_OUT"), path[512];
	struct ia_owner o = { .present = true, .pid = 42, .uid = 1000 };
	struct ia_json j;
	size_t len;
	FILE *f;

	(void)state;
	memcpy(o.comm, "x\xff\x1b[2J\n", 8);
	f = open_memstream(&buf, &len);
	ia_json_init(&j, f);
	ia_json_obj_open(&j, NULL);
	ia_json_owner(&j, "owner", &o);
	ia_json_str(&j, "cgroup", "/a\xc0\x80/b\"c\\");
	ia_json_str(&j, "ok", "caf\xc3\xa9");
	ia_json_obj_close(&j);
	fclose(f);
	assert_true(ia_utf8_valid(buf));
	assert_string_equal(buf, "{\"owner\":{\"pid\":42,\"uid\":1000,"
		"\"comm\":\"x\xef\xbf\xbd\\u001b[2J\\n\",\"comm_hex\":\"78ff1b5b324a0a\"},"
		"\"cgroup\":\"/a\xef\xbf\xbd\xef\xbf\xbd/b\\\"c\\\\\",\"cgroup_hex\":\"2f61c0802f6222635c\","
		"\"ok\":\"caf\xc3\xa9\"}");
	if (out) {
		snprintf(path, sizeof(path), "%s/names.json", out);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(buf, f);
		fclose(f);
	}
	free(buf);
}

/* A unit as a metric name's part: only [a-z0-9_], whatever the module said. */
static void metric_unit_is_a_name_part(void **state)
{
	char b[16];
	int c;

	(void)state;
	assert_string_equal(ia_metric_unit("bytes", b, sizeof(b)), "bytes");
	assert_string_equal(ia_metric_unit("Entries", b, sizeof(b)), "entries");
	assert_string_equal(ia_metric_unit("a\"}{\n\xff" "2", b, sizeof(b)), "a_____2");
	assert_string_equal(ia_metric_unit("", b, sizeof(b)), "units");
	/* Cut to the buffer, still a name's part. */
	assert_string_equal(ia_metric_unit("descriptorsdescriptors", b, sizeof(b)), "descriptorsdesc");
	for (c = 1; c < 256; c++) {
		char u[2] = { (char)c, 0 };

		ia_metric_unit(u, b, sizeof(b));
		assert_int_equal(strlen(b), 1);
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz0123456789_", b[0]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_control_character_escaped_visibly),
		cmocka_unit_test(valid_utf8_stands_as_it_is),
		cmocka_unit_test(invalid_utf8_escaped_byte_by_byte),
		cmocka_unit_test(random_bytes_hold_every_promise),
		cmocka_unit_test(a_short_buffer_cuts_at_a_whole_character_and_says_so),
		cmocka_unit_test(json_writer_keeps_raw_bytes_beside_replacement),
		cmocka_unit_test(metric_unit_is_a_name_part),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
