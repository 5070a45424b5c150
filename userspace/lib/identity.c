// SPDX-License-Identifier: GPL-2.0
/*
 * Who a cgroup v2 path belongs to, as an operator names it: a systemd unit,
 * a container of a runtime, a Kubernetes pod. Only the path is read (the
 * names each runtime gives its cgroups, documented by them); a path that
 * matches no rule is the path itself, never a guess. Runtimes' APIs are not
 * asked here: names from them are an enrichment for later.
 *
 * The shapes, leaf last:
 *   systemd              /system.slice/nginx.service, .../user@1000.service/app.slice/x.scope
 *   Docker               /system.slice/docker-ID.scope; cgroupfs /docker/ID
 *   containerd (no CRI)  /system.slice/nerdctl-ID.scope; cgroupfs /default/ID (its default
 *                        namespace; another namespace's name is not told from any directory's)
 *   Podman               /machine.slice/libpod-ID.scope; rootless
 *                        /user.slice/user-U.slice/user@U.service/user.slice/libpod-ID.scope;
 *                        cgroupfs /libpod_parent/libpod-ID
 *   Kubernetes, systemd  /kubepods.slice/kubepods-QOS.slice/kubepods-QOS-podUID.slice/
 *                        {cri-containerd,crio,docker}-ID.scope (UID with '_' for '-';
 *                        guaranteed pods have no QOS level)
 *   Kubernetes, cgroupfs /kubepods/QOS/podUID/ID (containerd: the runtime is
 *                        not in the path), /kubepods/QOS/podUID/crio-ID (CRI-O;
 *                        its conmon's crio-conmon-ID is the pod's, no container)
 *   LXC, LXD             /lxc.payload.NAME (LXC 4+, LXD), /lxc/NAME (older LXC)
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ia.h"

/* A container id: 64 hex digits (Docker, containerd, CRI-O, Podman). */
static bool is_cid(const char *s, size_t n)
{
	size_t i;

	if (n != 64)
		return false;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

static void copy(char *dst, size_t len, const char *s, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* The path's components: up to @max, as pointers into @s with lengths. */
static unsigned int split(const char *s, const char **c, size_t *l, unsigned int max)
{
	unsigned int n = 0;
	const char *e;

	while (*s && n < max) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		c[n] = s;
		l[n] = e ? (size_t)(e - s) : strlen(s);
		s += l[n];
		n++;
	}
	return n;
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && !memcmp(s, p, k);
}

static bool has_suffix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && !memcmp(s + n - k, p, k);
}

/* "pod" UID in a kubepods component (slice or cgroupfs), '_' made '-'. */
static bool pod_uid(const char *s, size_t n, char *out, size_t len)
{
	const char *p = NULL;
	size_t i, k;

	for (i = 0; i + 3 <= n; i++)
		if (!memcmp(s + i, "pod", 3) && (i == 0 || s[i - 1] == '-'))
			p = s + i + 3;
	if (!p)
		return false;
	k = n - (size_t)(p - s);
	if (has_suffix(p, k, ".slice"))
		k -= 6;
	if (k < 32 || k >= len)
		return false;
	for (i = 0; i < k; i++)
		out[i] = p[i] == '_' ? '-' : p[i];
	out[k] = 0;
	return true;
}

/* A runtime's scope "PREFIX-ID.scope" (systemd driver). */
static bool scope_of(const char *s, size_t n, const char *prefix, char *cid, size_t len)
{
	size_t k = strlen(prefix);

	if (!has_prefix(s, n, prefix) || !has_suffix(s, n, ".scope"))
		return false;
	if (!is_cid(s + k, n - k - 6))
		return false;
	copy(cid, len, s + k, n - k - 6);
	return true;
}

void ia_identity_of(const char *path, struct ia_identity *id)
{
	static const struct { const char *prefix, *runtime; } scopes[] = {
		{ "cri-containerd-", "containerd" }, { "crio-", "cri-o" },
		{ "docker-", "docker" }, { "libpod-", "podman" }, { "nerdctl-", "containerd" },
	};
	const char *c[32];
	size_t l[32];
	unsigned int n, i, k;

	memset(id, 0, sizeof(*id));
	snprintf(id->path, sizeof(id->path), "%s", path ? path : "");
	n = split(id->path, c, l, 32);
	if (!n)
		return;
	/* Kubernetes: a kubepods root, a pod, perhaps a container. */
	if ((l[0] == 8 && !memcmp(c[0], "kubepods", 8)) || has_prefix(c[0], l[0], "kubepods.slice")) {
		bool sd = l[0] != 8;

		for (i = 1; i < n; i++) {
			if (!id->pod_uid[0] && pod_uid(c[i], l[i], id->pod_uid, sizeof(id->pod_uid))) {
				/* QoS: the level above the pod, or none (guaranteed). */
				if (i >= 2 && (has_suffix(c[i - 1], l[i - 1], "burstable") ||
					       has_suffix(c[i - 1], l[i - 1], "burstable.slice")))
					snprintf(id->qos, sizeof(id->qos), "burstable");
				else if (i >= 2 && (has_suffix(c[i - 1], l[i - 1], "besteffort") ||
						    has_suffix(c[i - 1], l[i - 1], "besteffort.slice")))
					snprintf(id->qos, sizeof(id->qos), "besteffort");
				else
					snprintf(id->qos, sizeof(id->qos), "guaranteed");
				continue;
			}
			if (!id->pod_uid[0])
				continue;
			for (k = 0; sd && k < sizeof(scopes) / sizeof(scopes[0]); k++)
				if (scope_of(c[i], l[i], scopes[k].prefix, id->container_id,
					     sizeof(id->container_id))) {
					snprintf(id->runtime, sizeof(id->runtime), "%s",
						 scopes[k].runtime);
					break;
				}
			if (!sd && is_cid(c[i], l[i]))
				copy(id->container_id, sizeof(id->container_id), c[i], l[i]);
			if (!sd && has_prefix(c[i], l[i], "crio-") && is_cid(c[i] + 5, l[i] - 5)) {
				copy(id->container_id, sizeof(id->container_id), c[i] + 5, l[i] - 5);
				snprintf(id->runtime, sizeof(id->runtime), "cri-o");
			}
		}
		if (id->pod_uid[0]) {
			snprintf(id->kind, sizeof(id->kind), "kubernetes");
			if (!id->runtime[0] && id->container_id[0])
				snprintf(id->runtime, sizeof(id->runtime), "cri");
		}
		return;
	}
	/* LXC and LXD. */
	if (has_prefix(c[0], l[0], "lxc.payload.") && l[0] > 12) {
		snprintf(id->kind, sizeof(id->kind), "container");
		snprintf(id->runtime, sizeof(id->runtime), "lxc");
		copy(id->name, sizeof(id->name), c[0] + 12, l[0] - 12);
		return;
	}
	if (n >= 2 && l[0] == 3 && !memcmp(c[0], "lxc", 3)) {
		snprintf(id->kind, sizeof(id->kind), "container");
		snprintf(id->runtime, sizeof(id->runtime), "lxc");
		copy(id->name, sizeof(id->name), c[1], l[1]);
		return;
	}
	/*
	 * cgroupfs drivers: /docker/ID, /libpod_parent/libpod-ID, and
	 * containerd's /NAMESPACE/ID for its default namespace only (another
	 * name could be anything's: not guessed).
	 */
	if (n == 2 && is_cid(c[1], l[1]) &&
	    ((l[0] == 6 && !memcmp(c[0], "docker", 6)) ||
	     (l[0] == 7 && !memcmp(c[0], "default", 7)))) {
		snprintf(id->kind, sizeof(id->kind), "container");
		snprintf(id->runtime, sizeof(id->runtime), "%s",
			 c[0][1] == 'o' ? "docker" : "containerd");
		copy(id->container_id, sizeof(id->container_id), c[1], l[1]);
		return;
	}
	if (n == 2 && l[0] == 13 && !memcmp(c[0], "libpod_parent", 13) &&
	    has_prefix(c[1], l[1], "libpod-") && is_cid(c[1] + 7, l[1] - 7)) {
		snprintf(id->kind, sizeof(id->kind), "container");
		snprintf(id->runtime, sizeof(id->runtime), "podman");
		copy(id->container_id, sizeof(id->container_id), c[1] + 7, l[1] - 7);
		return;
	}
	/* systemd: a runtime's scope anywhere (rootless Podman's is under user@U), else the leaf unit. */
	for (i = 0; i < n; i++)
		for (k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++)
			if (scope_of(c[i], l[i], scopes[k].prefix, id->container_id,
				     sizeof(id->container_id))) {
				snprintf(id->kind, sizeof(id->kind), "container");
				snprintf(id->runtime, sizeof(id->runtime), "%s", scopes[k].runtime);
				return;
			}
	for (i = n; i-- > 0;)
		if (has_suffix(c[i], l[i], ".service") || has_suffix(c[i], l[i], ".scope")) {
			snprintf(id->kind, sizeof(id->kind), "unit");
			copy(id->unit, sizeof(id->unit), c[i], l[i]);
			return;
		}
}

const char *ia_identity_str(const struct ia_identity *id, char *buf, size_t len)
{
	/* Names from the path in their text form (esc.c): a sentence, never raw bytes. */
	if (!strcmp(id->kind, "kubernetes"))
		snprintf(buf, len, "pod %.8s…%s%.12s%s (%s%s%s)", ia_tx(id->pod_uid),
			 id->container_id[0] ? "/container " : "", ia_tx(id->container_id),
			 id->container_id[0] ? "…" : "", ia_tx(id->qos),
			 id->runtime[0] ? ", " : "", ia_tx(id->runtime));
	else if (!strcmp(id->kind, "container") && id->name[0])
		snprintf(buf, len, "container %s (%s)", ia_tx(id->name), ia_tx(id->runtime));
	else if (!strcmp(id->kind, "container"))
		snprintf(buf, len, "container %.12s… (%s)", ia_tx(id->container_id),
			 ia_tx(id->runtime));
	else if (!strcmp(id->kind, "unit"))
		snprintf(buf, len, "unit %s", ia_tx(id->unit));
	else
		snprintf(buf, len, "%s", id->path[0] ? ia_tx(id->path) : "?");
	return buf;
}

void ia_json_identity(struct ia_json *j, const char *key, const struct ia_identity *id)
{
	if (!id->kind[0])
		return;
	ia_json_obj_open(j, key);
	char buf[1100];

	ia_json_str(j, "kind", id->kind);
#define F(f) do { if (id->f[0]) ia_json_str(j, #f, id->f); } while (0)
	F(runtime);
	F(unit);
	F(container_id);
	F(pod_uid);
	F(qos);
	F(name);
#undef F
	ia_json_str(j, "text", ia_identity_str(id, buf, sizeof(buf)));
	ia_json_obj_close(j);
}

bool ia_identity_of_cgroup(uint64_t cgroup_id, struct ia_identity *id)
{
	char path[256];

	memset(id, 0, sizeof(*id));
	if (!cgroup_id || !ia_cgroup_path(cgroup_id, path, sizeof(path)))
		return false;
	ia_identity_of(path, id);
	return id->kind[0] != 0;
}
