// SPDX-License-Identifier: GPL-2.0
/*
 * iommu-accountd: follows every quota the iommu_account module exports and
 * alerts before one runs out (WARNING from the level or the trend,
 * CRITICAL, FAILURE at a refusal, CLEARED), through journald/syslog/stderr,
 * an exec hook and a Prometheus exporter. See Documentation/daemon.md.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "iad.h"


static void usage(FILE *f)
{
	fprintf(f, "usage: iommu-accountd [-f|--foreground] [-d|--debug] [-c|--config PATH]\n"
		   "       iommu-accountd -t|--check-config [-c PATH]\n"
		   "       iommu-accountd -h|--help | -V|--version\n\n"
		   "  -f  stay in the foreground (default under systemd: it has NOTIFY_SOCKET)\n"
		   "  -d  debug messages\n"
		   "  -c  configuration file (default " IAD_CONFIG_PATH "; missing: defaults)\n"
		   "  -t  check the configuration file and exit (0 good, 1 bad)\n");
}

/*
 * A reload's new [exporter] listen: served once it is bound, and only then
 * is the old address let go, so that no other process can take it between
 * the two; one that cannot be bound keeps the old one served (and the
 * configuration's listen says it). The exporter that was off is tried again.
 */
static void relisten_to(struct iad *d, const char *old)
{
	struct iad_http *was = d->http;
	char want[sizeof(d->cfg.listen)];
	int err;

	d->http = NULL;
	err = iad_exporter_start(d);
	if (!err) {
		iad_http_free(was);
		return;
	}
	/* The same port on another address of this host can need the old one gone first. */
	if (was && err == -EADDRINUSE) {
		iad_http_free(was);
		was = NULL;
		if (!iad_exporter_start(d))
			return;
	}
	if (was) {
		d->http = was;
		iad_log(d, LOG_ERR, "reload: exporter: still serving %s, not %s", old, d->cfg.listen);
		snprintf(d->cfg.listen, sizeof(d->cfg.listen), "%s", old);
		return;
	}
	/* Nothing served now: the old address back if it can be, else off, and said. */
	snprintf(want, sizeof(want), "%s", d->cfg.listen);
	snprintf(d->cfg.listen, sizeof(d->cfg.listen), "%s", old);
	if (old[0] && !iad_exporter_start(d)) {
		iad_log(d, LOG_ERR, "reload: exporter: still serving %s, not %s", old, want);
		return;
	}
	iad_log(d, LOG_ERR, "reload: exporter: serving nothing (%s cannot be bound%s%s)", want,
		old[0] ? ", nor " : "", old);
	d->cfg.listen[0] = 0;
}

static void reload(struct iad *d)
{
	static char err[IAD_CONFIG_ERR_LEN];
	char *line, *save;
	struct iad_config n;
	char old_listen[sizeof(n.listen)];
	bool relisten;

	/* systemd's reload protocol (Type=notify-reload): reloading, then ready again. */
	iad_notify("RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long)(ia_mono() * 1e6));
	if (iad_config_load(&n, d->cfg_path, true, err, sizeof(err))) {
		/* Each error a record of its own, each with its line. */
		for (line = strtok_r(err, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			iad_log(d, LOG_ERR, "reload: %s; keeping the running configuration", line);
		iad_notify("READY=1");
		return;
	}
	relisten = strcmp(n.listen, d->cfg.listen) || !d->http;
	/* Socket activation: the socket is systemd's, kept whatever listen says. */
	if (d->activated && strcmp(n.listen, d->cfg.listen))
		iad_log(d, LOG_NOTICE, "reload: [exporter] listen %s not bound: the exporter "
			"serves the socket systemd passed, %s", ia_sx(n.listen), ia_sx(d->act_name));
	if (d->activated)
		relisten = false;
	snprintf(old_listen, sizeof(old_listen), "%s", d->cfg.listen);
	d->cfg = n;
	d->exec.warned_missing = false;
	d->hist_said = false;
	iad_history_open(d);
	if (d->cfg.log != IAD_LOG_SYSLOG)
		closelog();
	iad_log_open(d);
	if (relisten)
		relisten_to(d, old_listen);
	d->next_poll = 0;
	iad_log(d, LOG_NOTICE, "reloaded %s", d->cfg_path);
	iad_notify("READY=1");
}

static int signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGCHLD);
	sigprocmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void daemonize(void)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("iommu-accountd: fork");
		exit(1);
	}
	if (pid)
		exit(0);
	setsid();
	if (chdir("/"))
		exit(1);
	if (!freopen("/dev/null", "r", stdin) || !freopen("/dev/null", "w", stdout) ||
	    !freopen("/dev/null", "w", stderr))
		exit(1);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct iad d;
	struct pollfd pfd[4];
	bool check = false, stop = false, explicit_cfg = false;
	double wait_s, wd_next = 0, wd_every = 0;
	uint64_t wd_usec = 0;
	static char cerr[IAD_CONFIG_ERR_LEN];
	char *line, *save;
	sigset_t set;
	int c, sfd, n;

	d.cfg_path = IAD_CONFIG_PATH;
	while ((c = getopt_long(argc, argv, "fdc:thV", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			d.foreground = true;
			break;
		case 'd':
			d.debug = true;
			break;
		case 'c':
			d.cfg_path = optarg;
			explicit_cfg = true;
			break;
		case 't':
			check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("iommu-accountd %s\n", IA_VERSION);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "iommu-accountd: unexpected argument '%s'\n", argv[optind]);
		return 1;
	}
	/* The default file may be absent (defaults); one named with -c must exist. */
	if (iad_config_load(&d.cfg, d.cfg_path, !explicit_cfg, cerr, sizeof(cerr))) {
		for (line = strtok_r(cerr, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "iommu-accountd: %s\n", line);
		return 1;
	}
	if (check) {
		printf("%s: good\n", d.cfg_path);
		return 0;
	}
	if (getenv("NOTIFY_SOCKET"))
		d.foreground = true;
	iad_log_open(&d);
	/* Where alerts go: the log, then the exec hook (the exporter reads the model). */
	iad_sink_add(&d, iad_log_alert);
	iad_sink_add(&d, iad_exec_alert);
	sfd = signals(&set);
	if (sfd < 0) {
		iad_log(&d, LOG_ERR, "signalfd: %s", strerror(errno));
		return 1;
	}
	d.now = ia_mono();
	iad_source_init(&d);
	/*
	 * An exporter address that cannot be bound ends the start (as
	 * node_exporter's does): another process answering there would speak
	 * for this daemon (iommu_account_up 1, no alert) to every scrape.
	 * Before the fork, so that the status says it.
	 */
	if (iad_exporter_start(&d)) {
		iad_log(&d, LOG_ERR, "not starting: the exporter must serve %s (set [exporter] "
			"listen to an address of its own, or off)",
			d.activated ? "the socket systemd passed" : d.cfg.listen);
		return 1;
	}
	if (!d.foreground)
		daemonize();
	if (iad_watchdog_usec(&wd_usec))
		wd_every = (double)wd_usec / 2e6;
	iad_log(&d, LOG_NOTICE, "started: interval %g s, window %g s, horizon %g s, "
		"warn %g%%, crit %g%%", d.cfg.interval_s, d.cfg.window_s, d.cfg.thr.horizon_s,
		d.cfg.thr.warn * 100, d.cfg.thr.crit * 100);
	iad_notify("READY=1\nSTATUS=starting");

	while (!stop) {
		d.now = ia_mono();
		wait_s = iad_source_tick(&d);
		iad_exec_tick(&d);
		iad_exporter_run(&d);
		if (wd_every > 0 && d.now >= wd_next) {
			iad_notify("WATCHDOG=1\nSTATUS=%s, %zu object(s), %llu alert(s)",
				   d.up ? "source up" : "waiting for iommu_account", d.objs.n,
				   (unsigned long long)(d.alerts[1] + d.alerts[2] + d.alerts[3]));
			wd_next = d.now + wd_every;
		}
		if (wd_every > 0 && wait_s > wd_every)
			wait_s = wd_every;
		/* Running hooks are checked against their timeout at least 10 times a second. */
		if (d.exec.nrun && wait_s > 0.1)
			wait_s = 0.1;
		wait_s = iad_exporter_wait(&d, wait_s);
		if (d.resync)
			wait_s = 0;
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = iad_source_event_fd(&d), .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = iad_source_ctrl_fd(&d), .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = iad_exporter_fd(&d), .events = POLLIN };
		if (poll(pfd, n, (int)ceil(wait_s * 1000)) < 0 && errno != EINTR) {
			iad_log(&d, LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		d.now = ia_mono();
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP)
					reload(&d);
				else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
					stop = true;
			}
		}
		if (pfd[1].revents)
			iad_source_events(&d);
		if (pfd[2].revents)
			iad_source_ctrl(&d);
		if (pfd[3].revents)
			iad_exporter_run(&d);
	}
	iad_notify("STOPPING=1");
	iad_log(&d, LOG_NOTICE, "stopping");
	/* Hooks still running are left to finish; their group is not ours to kill. */
	iad_exporter_stop(&d);
	iad_source_fini(&d);
	iad_exec_fini(&d);
	iad_history_close(&d);
	iad_objs_free(&d.objs);
	close(sfd);
	return 0;
}
