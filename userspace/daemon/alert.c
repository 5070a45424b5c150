// SPDX-License-Identifier: GPL-2.0
/*
 * Alerts leave the daemon here. The model decides a transition; the source
 * calls iad_raise(), which stamps the alert with the kernel's sequence number
 * and time of the event being handled, counts it, and hands it to each sink
 * registered (main.c: the log, the exec hook; a test: its own). The exporter
 * reads the model's state instead. A leaf: it knows no sink by name.
 */
#include <stdlib.h>

#include "iad.h"

void iad_sink_add(struct iad *d, iad_sink_fn sink)
{
	if (d->nsinks >= IAD_SINKS)
		abort();	/* a programming error: IAD_SINKS is too small */
	d->sinks[d->nsinks++] = sink;
}

void iad_raise(struct iad *d, const struct iad_alert *alert)
{
	struct iad_alert a = *alert;
	unsigned int i;

	/* Raised while an event is handled (the event path): the kernel's when. */
	if (d->cur_event) {
		if (!a.seq)
			a.seq = d->cur_event->seq;
		a.kernel_time_ns = d->cur_event->time_ns;
	}
	d->alerts[a.state]++;
	for (i = 0; i < d->nsinks; i++)
		d->sinks[i](d, &a);
}
