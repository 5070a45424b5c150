// SPDX-License-Identifier: GPL-2.0
/*
 * The history file iommu-accountd keeps and iommu-accountctl history reads:
 * a ring of fixed-size samples behind a header, so its size is bounded by
 * construction (header + capacity x record) and the oldest samples go
 * first. The writer writes the records, then the header that makes them
 * visible, with pwrite; the header and every record carry a CRC-32, so
 * damage (a torn write, a bad block, a hand-edit) is found and counted by
 * whoever reads the file next, the daemon at its next start included, and
 * a file cut short says how many samples it lost. Host byte order: the file
 * is the host's own.
 *
 * Kept as a careful root daemon keeps its files (systemd's StateDirectory,
 * journald): its directory is owned by root (or the daemon's user) and
 * writable by no one else, the file is opened with O_NOFOLLOW and must be a
 * regular file with one link, and an exclusive flock says a second daemon
 * is there. The whole ring is allocated when opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ia.h"

/*
 * Format 3 adds holder records (state IA_HIST_HOLDER) to format 2's: a
 * format 2 file is read as it is, and the daemon takes it over by writing
 * format 3's header on it (its samples are format 3's).
 */
#define IA_HIST_MAGIC "IAHIST03"
#define IA_HIST_MAGIC_V2 "IAHIST02"
#define IA_HIST_MAGIC_V1 "IAHIST01"

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
	uint32_t crc;			/* of the header with this field 0 */
	char pad[1024 - 60 - 2 * IA_HIST_KINDS * 16];
};

_Static_assert(sizeof(struct ia_hist_hdr) == 1024, "history header size");
_Static_assert(sizeof(struct ia_hist_rec) == 40, "history record size");
_Static_assert(offsetof(struct ia_hist_rec, crc) == 36, "the record's checksum is last");

uint32_t ia_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

static uint32_t hdr_crc(const struct ia_hist_hdr *hd)
{
	struct ia_hist_hdr c = *hd;

	c.crc = 0;
	return ia_crc32(0, &c, sizeof(c));
}

static uint32_t rec_crc(const struct ia_hist_rec *r)
{
	return ia_crc32(0, r, offsetof(struct ia_hist_rec, crc));
}

/* A record as written: its checksum matches, its time is a time, its kind one of the header's. */
static bool rec_ok(const struct ia_hist_rec *r)
{
	/* (Readers index the header's tables by the kind.) */
	return r->crc == rec_crc(r) && isfinite(r->t) && r->t >= 0 && r->kind < IA_HIST_KINDS &&
	       r->state <= IA_HIST_HOLDER;
}

static bool magic_ok(const struct ia_hist_hdr *hd)
{
	return !memcmp(hd->magic, IA_HIST_MAGIC, 8) || !memcmp(hd->magic, IA_HIST_MAGIC_V2, 8);
}

/* The most records a ring holds: its size arithmetic never overflows below it. */
#define IA_HIST_MAX_RECS ((IA_HIST_MAX_BYTES - sizeof(struct ia_hist_hdr)) / \
			  sizeof(struct ia_hist_rec))

/* A header that can be trusted, for a ring of @cap (0: any). */
static bool hdr_ok(const struct ia_hist_hdr *hd, uint64_t cap)
{
	return magic_ok(hd) && hd->crc == hdr_crc(hd) &&
	       hd->rec_size == sizeof(struct ia_hist_rec) && hd->cap &&
	       hd->cap <= IA_HIST_MAX_RECS && (!cap || hd->cap == cap) &&
	       hd->head < hd->cap && hd->count <= hd->cap && isfinite(hd->keep_s);
}

/* The ring a file of @size bytes is, whole: its capacity, or 0. */
static uint64_t whole_ring(uint64_t size)
{
	uint64_t cap;

	if (size <= sizeof(struct ia_hist_hdr) ||
	    (size - sizeof(struct ia_hist_hdr)) % sizeof(struct ia_hist_rec))
		return 0;
	cap = (size - sizeof(struct ia_hist_hdr)) / sizeof(struct ia_hist_rec);
	return cap >= 16 && cap <= IA_HIST_MAX_RECS ? cap : 0;
}

/*
 * A damaged header (its checksum) rebuilt from the ring of @cap behind it,
 * losing only the samples that are damaged themselves. The writer fills
 * the ring from slot 0 and then around, so the samples run oldest to
 * newest from the head, their times never falling but where the newest
 * meet the oldest; a ring not yet full ends in slots never written (zero).
 * The kinds' names and the count ever written are lost (the daemon sets
 * its kinds again; readers show kinds by number); @keep_s is the header's.
 * 0 or -errno.
 */
static int hdr_rebuild(int fd, uint64_t cap, double keep_s, struct ia_hist_hdr *hd,
		       uint64_t *damaged)
{
	static const struct ia_hist_rec zero;
	struct ia_hist_rec *buf;
	uint64_t i, k, n, last = UINT64_MAX, oldest = UINT64_MAX, good = 0, head, count;
	bool full = false;
	double prev = -1;
	ssize_t got;

	buf = malloc(1024 * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < cap; i += n) {
		n = cap - i < 1024 ? cap - i : 1024;
		got = pread(fd, buf, n * sizeof(*buf), sizeof(*hd) + i * sizeof(*buf));
		if (got != (ssize_t)(n * sizeof(*buf))) {
			free(buf);
			return got < 0 ? -errno : -EIO;
		}
		for (k = 0; k < n; k++) {
			if (i + k == cap - 1)
				full = memcmp(&buf[k], &zero, sizeof(zero)) != 0;
			if (!rec_ok(&buf[k]))
				continue;
			if (buf[k].t < prev && oldest == UINT64_MAX)
				oldest = i + k;
			prev = buf[k].t;
			last = i + k;
			good++;
		}
	}
	free(buf);
	if (full) {
		count = cap;
		head = oldest == UINT64_MAX ? 0 : oldest;
	} else {
		count = last == UINT64_MAX ? 0 : last + 1;
		head = count % cap;
	}
	memset(hd, 0, sizeof(*hd));
	memcpy(hd->magic, IA_HIST_MAGIC, 8);
	hd->version = 3;
	hd->rec_size = sizeof(struct ia_hist_rec);
	hd->cap = cap;
	hd->head = head;
	hd->count = count;
	hd->written = count;
	hd->keep_s = keep_s;
	/* Samples before the first good one of a ring not full are not damaged: unwritten. */
	*damaged = count - good;
	hd->crc = hdr_crc(hd);
	return 0;
}

static int hist_err(char *err, size_t len, int e, const char *fmt, const char *path)
{
	snprintf(err, len, fmt, path, strerror(e));
	return -e;
}

/* @path's directory as a root daemon trusts one: an fd on it, or -errno and why. */
static int trusted_dir(const char *path, char *err, size_t errlen)
{
	char *copy = strdup(path), *dir;
	struct stat st;
	int fd, e;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		free(copy);
		return -e;
	}
	if (fstat(fd, &st) || (st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen, "%s: refused: a directory for this daemon's files must be "
			 "owned by root or uid %u and writable by no one else (it is uid %u, mode "
			 "%04o)", dir, (unsigned int)geteuid(), (unsigned int)st.st_uid,
			 (unsigned int)(st.st_mode & 07777));
		close(fd);
		free(copy);
		return -EPERM;
	}
	free(copy);
	return fd;
}

/* Each record of a trusted header: how many fail their checksum. */
static uint64_t count_damaged(int fd, const struct ia_hist_hdr *hd)
{
	uint64_t i, bad = 0, start = hd->count == hd->cap ? hd->head : 0;
	struct ia_hist_rec r;

	for (i = 0; i < hd->count; i++) {
		uint64_t at = (start + i) % hd->cap;

		if (pread(fd, &r, sizeof(r), sizeof(*hd) + at * sizeof(r)) != sizeof(r) ||
		    !rec_ok(&r))
			bad++;
	}
	return bad;
}

int ia_hist_open(struct ia_hist *h, const char *path, uint64_t max_bytes, double keep_s,
		 char *err, size_t errlen)
{
	struct ia_hist_hdr *hd;
	uint64_t cap = max_bytes > sizeof(*hd) ? (max_bytes - sizeof(*hd)) /
						  sizeof(struct ia_hist_rec) : 0;
	const char *base = strrchr(path, '/');
	struct stat st;
	int dfd, e;
	ssize_t n;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	if (cap < 16) {
		snprintf(err, errlen, "%s: a history of %llu bytes holds no sample", path,
			 (unsigned long long)max_bytes);
		return -EINVAL;
	}
	dfd = trusted_dir(path, err, errlen);
	if (dfd < 0)
		return dfd;
	hd = calloc(1, sizeof(*hd));
	if (!hd) {
		close(dfd);
		return -ENOMEM;
	}
	h->hdr = hd;
	/* Never through a symlink: one put there would have root write its target. */
	h->fd = openat(dfd, base ? base + 1 : path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		       0640);
	e = errno;
	close(dfd);
	if (h->fd < 0) {
		ia_hist_close(h);
		if (e == ELOOP) {
			snprintf(err, errlen, "%s: refused: it is a symbolic link", path);
			return -ELOOP;
		}
		return hist_err(err, errlen, e, "%s: %s", path);
	}
	if (fstat(h->fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		snprintf(err, errlen, "%s: refused: not a regular file of one link", path);
		ia_hist_close(h);
		return -EPERM;
	}
	/*
	 * Readable by the daemon's group (the package's iommu-account), whatever
	 * the umask or the mode an older version left: on the fd just checked.
	 */
	if (st.st_uid == geteuid() && (st.st_mode & 07777) != 0640 && fchmod(h->fd, 0640)) {
		hist_err(err, errlen, errno, "%s: chmod 0640: %s", path);
		ia_hist_close(h);
		return -EPERM;
	}
	if (flock(h->fd, LOCK_EX | LOCK_NB)) {
		e = errno;
		if (e == EWOULDBLOCK)
			snprintf(err, errlen, "%s: held by another writer (another iommu-accountd "
				 "has it locked)", path);
		else
			hist_err(err, errlen, e, "%s: lock: %s", path);
		ia_hist_close(h);
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	n = pread(h->fd, hd, sizeof(*hd), 0);
	/*
	 * A damaged header on a ring of this size: rebuilt from the records
	 * (every sample keeps its own checksum). One of another size or
	 * version, or that cannot be rebuilt, starts anew.
	 */
	if (n == sizeof(*hd) && magic_ok(hd) && hd->crc != hdr_crc(hd) &&
	    whole_ring((uint64_t)st.st_size) == cap) {
		e = hdr_rebuild(h->fd, cap, keep_s, hd, &h->damaged);
		if (e) {
			ia_hist_close(h);
			return hist_err(err, errlen, -e, "%s: %s", path);
		}
		h->rebuilt = true;
		snprintf(h->why, sizeof(h->why), "its header was damaged (checksum): rebuilt from "
			 "the samples' own checksums");
	} else if (n != sizeof(*hd) || !hdr_ok(hd, cap)) {
		h->restarted = n > 0;
		snprintf(h->why, sizeof(h->why), "%s",
			 n != sizeof(*hd) ? "shorter than a header" :
			 !memcmp(hd->magic, IA_HIST_MAGIC_V1, 8) ? "an older format, without checksums" :
			 !magic_ok(hd) ? "not a history file" :
			 hd->crc != hdr_crc(hd) ? "its header is damaged (checksum)" :
			 hd->cap != cap ? "another size (max_size)" : "its header is inconsistent");
		memset(hd, 0, sizeof(*hd));
		hd->rec_size = sizeof(struct ia_hist_rec);
		hd->cap = cap;
		if (ftruncate(h->fd, 0)) {
			e = errno;
			ia_hist_close(h);
			return hist_err(err, errlen, e, "%s: %s", path);
		}
	} else {
		h->damaged = count_damaged(h->fd, hd);
		/* Bytes past the ring are no samples: a reader would refuse the file. */
		if ((uint64_t)st.st_size > sizeof(*hd) + cap * sizeof(struct ia_hist_rec) &&
		    ftruncate(h->fd, (off_t)(sizeof(*hd) + cap * sizeof(struct ia_hist_rec)))) {
			e = errno;
			ia_hist_close(h);
			return hist_err(err, errlen, e, "%s: %s", path);
		}
	}
	/* Room for the whole ring now: a full filesystem is said here, truly. */
	e = posix_fallocate(h->fd, 0, (off_t)(sizeof(*hd) + cap * sizeof(struct ia_hist_rec)));
	if (e && e != EOPNOTSUPP && e != EINVAL) {
		ia_hist_close(h);
		snprintf(err, errlen, "%s: cannot allocate its %llu bytes: %s", path,
			 (unsigned long long)(sizeof(*hd) + cap * sizeof(struct ia_hist_rec)),
			 strerror(e));
		return -e;
	}
	/* Format 3 from now on, a format 2 file's samples kept (they are format 3's). */
	memcpy(hd->magic, IA_HIST_MAGIC, 8);
	hd->version = 3;
	hd->keep_s = keep_s;
	hd->crc = hdr_crc(hd);
	/* Readable at once, empty or not. */
	errno = 0;
	if (pwrite(h->fd, hd, sizeof(*hd), 0) != sizeof(*hd)) {
		e = errno ? errno : ENOSPC;
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
	size_t chunk, done = 0, i;
	struct ia_hist_rec *w;
	ssize_t got;

	if (h->fd < 0 || !hd)
		return -EBADF;
	/* More than the ring holds: only the newest fit. */
	if (n > hd->cap) {
		r += n - hd->cap;
		n = hd->cap;
	}
	w = malloc(n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		w[i] = r[i];
		w[i].pad = 0;
		w[i].crc = rec_crc(&w[i]);
	}
	while (done < n) {
		chunk = n - done;
		if (chunk > hd->cap - hd->head)
			chunk = hd->cap - hd->head;
		errno = 0;
		got = pwrite(h->fd, w + done, chunk * sizeof(*w),
			     sizeof(*hd) + hd->head * sizeof(*w));
		if (got != (ssize_t)(chunk * sizeof(*w))) {
			/* A short write sets no errno: the filesystem is full. */
			int e = got < 0 && errno ? errno : ENOSPC;

			free(w);
			return -e;
		}
		hd->head = (hd->head + chunk) % hd->cap;
		done += chunk;
	}
	free(w);
	hd->count = hd->count + n > hd->cap ? hd->cap : hd->count + n;
	hd->written += n;
	hd->crc = hdr_crc(hd);
	errno = 0;
	got = pwrite(h->fd, hd, sizeof(*hd), 0);
	if (got != sizeof(*hd))
		return -(got < 0 && errno ? errno : ENOSPC);
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
	uint64_t i, start, have, damaged = 0;
	struct stat st = { 0 };
	struct ia_hist_hdr hd;
	struct ia_hist_rec rec;
	bool rebuilt = false;
	ssize_t got;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hist_err(err, errlen, errno, "%s: %s", path);
	memset(&hd, 0, sizeof(hd));
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && pread(fd, &hd, sizeof(hd), 0) == sizeof(hd) &&
	    magic_ok(&hd) && hd.crc != hdr_crc(&hd) && whole_ring((uint64_t)st.st_size)) {
		/* Its keep is lost: the longest the daemon keeps. */
		ret = hdr_rebuild(fd, whole_ring((uint64_t)st.st_size), 30 * 86400, &hd, &damaged);
		if (ret) {
			close(fd);
			return hist_err(err, errlen, -ret, "%s: %s", path);
		}
		rebuilt = true;
	}
	/* The sizes hold together: cap bounded (no overflow below), the file no longer than its ring. */
	if (!S_ISREG(st.st_mode) || !hdr_ok(&hd, 0) ||
	    (uint64_t)st.st_size > sizeof(hd) + hd.cap * sizeof(rec)) {
		close(fd);
		snprintf(err, errlen, "%s: %s", path,
			 !memcmp(hd.magic, IA_HIST_MAGIC_V1, 8) ?
			 "an iommu-accountd history of an older format (the daemon starts it anew)" :
			 magic_ok(&hd) && hd.crc != hdr_crc(&hd) ?
			 "an iommu-accountd history whose header is damaged (checksum) and whose "
			 "ring is cut short: unreadable" :
			 magic_ok(&hd) ?
			 "an iommu-accountd history whose header does not hold together (its "
			 "capacity, count or size): unreadable" :
			 "not an iommu-accountd history file (or damaged)");
		return -EINVAL;
	}
	memset(info, 0, sizeof(*info));
	info->rebuilt = rebuilt;
	info->damaged = damaged;
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
	have = ((uint64_t)st.st_size - sizeof(hd)) / sizeof(rec);
	for (i = 0; i < hd.count && !ret; i++) {
		uint64_t at = (start + i) % hd.cap;

		if (at >= have || (got = pread(fd, &rec, sizeof(rec), sizeof(hd) + at * sizeof(rec))) !=
		    sizeof(rec)) {
			info->missing++;	/* the file ends before it: cut short */
			continue;
		}
		if (!rec_ok(&rec)) {
			if (!rebuilt)	/* (counted by the rebuild) */
				info->damaged++;
			continue;
		}
		if (cb)
			ret = cb(&rec, arg);
	}
	close(fd);
	return ret < 0 ? ret : 0;
}
