// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountctl top [--daemon ADDR:PORT] [--count N]: a live view of
 * every quota object iommu-accountd follows - a utilisation bar, the rate,
 * the predicted time to exhaustion and the alert state - sorted by nearest
 * exhaustion, refreshed every second. The figures and states are the
 * daemon's (GET /alerts), so top agrees with what it alerts on.
 *
 * On a terminal: full screen, states coloured, q or Ctrl-C quits. Not on a
 * terminal: plain text, one frame (or --count N frames, a second apart).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

/* A row of /alerts with its figures as numbers, for sorting. */
struct row {
	const char *const *f;			/* its fields (IA_AL_*), into the document */
	double used, limit, util, rate, eta;	/* limit/util/eta < 0: none */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double num(const char *s)
{
	return strcmp(s, "-") ? strtod(s, NULL) : -1;
}

/* Nearest exhaustion first; without an ETA, the fullest first. */
static int cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if ((x->eta >= 0) != (y->eta >= 0))
		return x->eta >= 0 ? -1 : 1;
	if (x->eta >= 0 && x->eta != y->eta)
		return x->eta < y->eta ? -1 : 1;
	if (x->util != y->util)
		return x->util > y->util ? -1 : 1;
	if (strcmp(x->f[IA_AL_KIND], y->f[IA_AL_KIND]))
		return strcmp(x->f[IA_AL_KIND], y->f[IA_AL_KIND]);
	return strcmp(x->f[IA_AL_OBJECT], y->f[IA_AL_OBJECT]);
}

static const char *colour(const char *state)
{
	if (!strcmp(state, "FAILURE"))
		return "\033[1;37;41m";
	if (!strcmp(state, "CRITICAL"))
		return "\033[1;31m";
	if (!strcmp(state, "WARNING"))
		return "\033[33m";
	return "\033[32m";
}

static void amount(const struct row *r, double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		ia_amount(r->f[IA_AL_UNIT], v, buf, len);
}

static bool frame(const char *addr, bool tty, int height)
{
	char used[32], limit[32], rate[48], eta[32], bar[32], now[32];
	const char **f;
	struct ia_alert_rows ar;
	struct row *rows;
	time_t t = time(NULL);
	int n, i, w;

	strftime(now, sizeof(now), "%H:%M:%S", localtime(&t));
	if (tty)
		fputs("\033[H\033[2J", stdout);
	if (ia_ctl_alerts_get(addr, &ar)) {
		printf("iommu-accountctl top  %s  iommu-accountd at %s does not answer\n", now, addr);
		fflush(stdout);
		return false;
	}
	rows = calloc(ar.n ? ar.n : 1, sizeof(*rows));
	if (!rows) {
		ia_ctl_alerts_free(&ar);
		return false;
	}
	for (n = 0; n < (int)ar.n; n++) {
		f = ar.f[n];
		rows[n] = (struct row){
			.f = f, .used = num(f[IA_AL_USED]), .limit = num(f[IA_AL_LIMIT]),
			.util = num(f[IA_AL_UTIL]), .rate = num(f[IA_AL_RATE]), .eta = num(f[IA_AL_ETA]),
		};
	}
	qsort(rows, n, sizeof(*rows), cmp);
	printf("iommu-accountctl top  %s  %d object(s)  module %s  (sorted by time to exhaustion%s)\n\n",
	       now, n, ar.up ? "up" : "DOWN", tty ? "; q quits" : "");
	printf("%-9s %-15s %8s  %-22s %6s %11s %11s %16s %11s\n", "STATE", "KIND", "OBJECT",
	       "UTILISATION", "", "USED", "LIMIT", "RATE", "FULL IN");
	for (i = 0; i < n && (!tty || i < height - 4); i++) {
		const struct row *r = &rows[i];

		w = r->util >= 0 ? (int)lround(fmin(r->util, 1) * 20) : 0;
		memset(bar, '#', w);
		memset(bar + w, '.', 20 - w);
		bar[20] = 0;
		amount(r, r->used, used, sizeof(used));
		amount(r, r->limit, limit, sizeof(limit));
		ia_rate_str(ia_tx(r->f[IA_AL_UNIT]), r->rate, rate, sizeof(rate));
		ia_ctl_full_in(r->f, eta, sizeof(eta));
		printf("%s%-9s%s %-15s %8s  [%s] %5.1f%% %11s %11s %16s %11s\n",
		       tty ? colour(r->f[IA_AL_STATE]) : "", ia_tx(r->f[IA_AL_STATE]),
		       tty ? "\033[0m" : "", ia_tx(r->f[IA_AL_KIND]), ia_tx(r->f[IA_AL_OBJECT]), bar,
		       r->util >= 0 ? r->util * 100 : 0.0, used, limit, rate, eta);
	}
	fflush(stdout);
	free(rows);
	ia_ctl_alerts_free(&ar);
	return true;
}

static int cmd_top(struct ia_ctx *ctx)
{
	const char *addr = ctx->daemon ? ctx->daemon : "127.0.0.1:9847";
	bool tty = isatty(STDOUT_FILENO);
	struct termios old, raw;
	bool restore = false;
	struct winsize ws;
	unsigned int frames = 0;
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	bool ok = true;
	char c;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (tty && isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &old)) {
		raw = old;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		restore = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		fputs("\033[?25l", stdout);	/* hide the cursor */
	}
	while (!stop) {
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_row)
			ws.ws_row = 24;
		ok = frame(addr, tty, ws.ws_row);
		frames++;
		if (ctx->count ? frames >= ctx->count : !tty)
			break;
		if (poll(restore ? &p : NULL, restore, 1000) > 0 &&
		    read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
			break;
	}
	if (restore) {
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
		fputs("\033[?25h\n", stdout);
	}
	return ok ? IA_EXIT_OK : IA_EXIT_FAIL;
}

const struct ia_ctl_cmd ia_cmd_top = {
	.name = "top",
	.fn = cmd_top,
	.opts = IA_CTL_OPTS(&ia_opt_daemon, &ia_opt_count),
	.no_netlink = true,
	.synopsis = "[--daemon ADDR:PORT] [--count N]",
	.help = "live view: utilisation, rate, time to exhaustion, state",
	.no_json = true,
	.example = "iommu-accountctl top",
};
