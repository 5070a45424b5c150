// SPDX-License-Identifier: GPL-2.0
/*
 * The history file iommu-accountd keeps and iommu-accountctl history reads:
 * a ring of fixed-size samples behind a header, so its size is bounded by
 * construction (header + capacity × record) and the oldest samples go
 * first. The writer writes the records, then the header that makes them
 * visible, with pwrite; a reader that meets a header whose counts do not
 * fit the file refuses it. Host byte order: the file is the host's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ia.h"

#define IA_HIST_MAGIC "IAHIST01"

struct ia_hist_hdr {
	char magic[8];
	uint32_t version, rec_size;
	uint64_t cap;			/* records the ring holds */
	uint64_t head;			/* the next record written goes there */
	uint64_t count;			/* records in the ring (at most cap) */
	uint64_t written;		/* records ever written */
	double keep_s;			/* readers skip records older than this */
	char kinds[IA_HIST_KINDS][16];	/* the kinds' names, by number ("" unknown) */
	char units[IA_HIST_KINDS][16];	/* and their units */
	char pad[1024 - 56 - 2 * IA_HIST_KINDS * 16];
};

_Static_assert(sizeof(struct ia_hist_hdr) == 1024, "history header size");
_Static_assert(sizeof(struct ia_hist_rec) == 40, "history record size");

static int hist_err(char *err, size_t len, int e, const char *fmt, const char *path)
{
	snprintf(err, len, fmt, path, strerror(e));
	return -e;
}

int ia_hist_open(struct ia_hist *h, const char *path, uint64_t max_bytes, double keep_s,
		 char *err, size_t errlen)
{
	struct ia_hist_hdr *hd;
	uint64_t cap = max_bytes > sizeof(*hd) ? (max_bytes - sizeof(*hd)) /
						  sizeof(struct ia_hist_rec) : 0;
	ssize_t n;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	if (cap < 16) {
		snprintf(err, errlen, "%s: a history of %llu bytes holds no sample", path,
			 (unsigned long long)max_bytes);
		return -EINVAL;
	}
	hd = calloc(1, sizeof(*hd));
	if (!hd)
		return -ENOMEM;
	h->hdr = hd;
	h->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (h->fd < 0) {
		free(hd);
		h->hdr = NULL;
		return hist_err(err, errlen, errno, "%s: %s", path);
	}
	n = pread(h->fd, hd, sizeof(*hd), 0);
	/* A file of another size or version starts anew: its samples are dropped. */
	if (n != sizeof(*hd) || memcmp(hd->magic, IA_HIST_MAGIC, 8) || hd->cap != cap ||
	    hd->rec_size != sizeof(struct ia_hist_rec) || hd->head >= cap || hd->count > cap) {
		h->restarted = n > 0;
		memset(hd, 0, sizeof(*hd));
		memcpy(hd->magic, IA_HIST_MAGIC, 8);
		hd->version = 1;
		hd->rec_size = sizeof(struct ia_hist_rec);
		hd->cap = cap;
		if (ftruncate(h->fd, 0) || ftruncate(h->fd, sizeof(*hd))) {
			int e = errno;

			ia_hist_close(h);
			return hist_err(err, errlen, e, "%s: %s", path);
		}
	}
	hd->keep_s = keep_s;
	/* Readable at once, empty or not. */
	if (pwrite(h->fd, hd, sizeof(*hd), 0) != sizeof(*hd)) {
		int e = errno ? errno : EIO;

		ia_hist_close(h);
		return hist_err(err, errlen, e, "%s: %s", path);
	}
	return 0;
}

void ia_hist_set_kind(struct ia_hist *h, uint32_t kind, const char *name, const char *unit)
{
	struct ia_hist_hdr *hd = h->hdr;

	if (!hd || kind >= IA_HIST_KINDS)
		return;
	snprintf(hd->kinds[kind], sizeof(hd->kinds[kind]), "%s", name);
	snprintf(hd->units[kind], sizeof(hd->units[kind]), "%s", unit);
}

int ia_hist_append(struct ia_hist *h, const struct ia_hist_rec *r, size_t n)
{
	struct ia_hist_hdr *hd = h->hdr;
	size_t chunk, done = 0;

	if (h->fd < 0 || !hd)
		return -EBADF;
	/* More than the ring holds: only the newest fit. */
	if (n > hd->cap) {
		r += n - hd->cap;
		n = hd->cap;
	}
	while (done < n) {
		chunk = n - done;
		if (chunk > hd->cap - hd->head)
			chunk = hd->cap - hd->head;
		if (pwrite(h->fd, r + done, chunk * sizeof(*r),
			   sizeof(*hd) + hd->head * sizeof(*r)) != (ssize_t)(chunk * sizeof(*r)))
			return -(errno ? errno : EIO);
		hd->head = (hd->head + chunk) % hd->cap;
		done += chunk;
	}
	hd->count = hd->count + n > hd->cap ? hd->cap : hd->count + n;
	hd->written += n;
	if (pwrite(h->fd, hd, sizeof(*hd), 0) != sizeof(*hd))
		return -(errno ? errno : EIO);
	return 0;
}

void ia_hist_close(struct ia_hist *h)
{
	if (h->fd >= 0)
		close(h->fd);
	free(h->hdr);
	h->fd = -1;
	h->hdr = NULL;
}

int ia_hist_read(const char *path, struct ia_hist_info *info,
		 int (*cb)(const struct ia_hist_rec *r, void *arg), void *arg, char *err,
		 size_t errlen)
{
	struct ia_hist_hdr hd;
	struct ia_hist_rec rec;
	uint64_t i, start;
	struct stat st;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hist_err(err, errlen, errno, "%s: %s", path);
	if (fstat(fd, &st) || pread(fd, &hd, sizeof(hd), 0) != sizeof(hd) ||
	    memcmp(hd.magic, IA_HIST_MAGIC, 8) || hd.rec_size != sizeof(rec) ||
	    hd.head >= hd.cap || hd.count > hd.cap ||
	    (uint64_t)st.st_size > sizeof(hd) + hd.cap * sizeof(rec)) {
		close(fd);
		snprintf(err, errlen, "%s: not an iommu-accountd history file (or damaged)",
			 path);
		return -EINVAL;
	}
	memset(info, 0, sizeof(*info));
	info->cap = hd.cap;
	info->count = hd.count;
	info->written = hd.written;
	info->keep_s = hd.keep_s;
	info->bytes = (uint64_t)st.st_size;
	for (i = 0; i < IA_HIST_KINDS; i++) {
		snprintf(info->kinds[i], sizeof(info->kinds[i]), "%.15s", hd.kinds[i]);
		snprintf(info->units[i], sizeof(info->units[i]), "%.15s", hd.units[i]);
	}
	/* Oldest first: from head when the ring is full, else from 0. */
	start = hd.count == hd.cap ? hd.head : 0;
	for (i = 0; cb && i < hd.count && !ret; i++) {
		uint64_t at = (start + i) % hd.cap;

		if (pread(fd, &rec, sizeof(rec), sizeof(hd) + at * sizeof(rec)) != sizeof(rec)) {
			ret = -EIO;
			snprintf(err, errlen, "%s: shorter than its header says", path);
			break;
		}
		ret = cb(&rec, arg);
	}
	close(fd);
	return ret < 0 ? ret : 0;
}
