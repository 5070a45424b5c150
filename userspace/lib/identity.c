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
 *   systemd-nspawn       /machine.slice/systemd-nspawn@NAME.service, or machined's
 *                        /machine.slice/machine-NAME.scope (NAME unit-escaped)
 *   libvirt              /machine.slice/machine-qemu\x2dN\x2dNAME.scope (a VM; lxc-N-NAME)
 *   nested               any of these inside another: kind's nodes are Docker
 *                        containers holding kubelet.slice/kubelet-kubepods.slice/...
 *                        (or /kubelet/kubepods/... with cgroupfs); the innermost is
 *                        the identity, the outermost container around it outer_*
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

/* systemd's unit-name escaping undone ("\x2d" is '-'), into @out. */
static void unescape(char *out, size_t len, const char *s, size_t n)
{
	size_t i, k = 0;
	unsigned int b;

	for (i = 0; i < n && k + 1 < len; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' &&
		    sscanf(s + i + 2, "%2x", &b) == 1 && isxdigit((unsigned char)s[i + 3])) {
			out[k++] = (char)b;
			i += 3;
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = 0;
}

/*
 * A container (or a machine) whose cgroup is component @i, told from it and
 * the one above it; its runtime and id or name into @id. Every rule needs a
 * runtime's own mark: a 64-hex id under the runtime's scope prefix or
 * cgroupfs parent, LXC's payload prefix, nspawn's unit, machined's scope.
 */
static bool container_at(const char *const *c, const size_t *l, unsigned int i,
			 struct ia_identity *id)
{
	static const struct { const char *prefix, *runtime; } scopes[] = {
		{ "cri-containerd-", "containerd" }, { "crio-", "cri-o" },
		{ "docker-", "docker" }, { "libpod-", "podman" }, { "nerdctl-", "containerd" },
	};
	const char *up = i ? c[i - 1] : "";
	size_t upl = i ? l[i - 1] : 0, k;

	for (k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++)
		if (scope_of(c[i], l[i], scopes[k].prefix, id->container_id,
			     sizeof(id->container_id))) {
			snprintf(id->runtime, sizeof(id->runtime), "%s", scopes[k].runtime);
			goto container;
		}
	/*
	 * cgroupfs drivers: /docker/ID, /libpod_parent/libpod-ID, and
	 * containerd's /NAMESPACE/ID for its default namespace only (another
	 * name could be anything's: not guessed).
	 */
	if (is_cid(c[i], l[i]) && ((upl == 6 && !memcmp(up, "docker", 6)) ||
				   (upl == 7 && !memcmp(up, "default", 7)))) {
		snprintf(id->runtime, sizeof(id->runtime), "%s",
			 up[1] == 'o' ? "docker" : "containerd");
		copy(id->container_id, sizeof(id->container_id), c[i], l[i]);
		goto container;
	}
	if (upl == 13 && !memcmp(up, "libpod_parent", 13) && has_prefix(c[i], l[i], "libpod-") &&
	    is_cid(c[i] + 7, l[i] - 7)) {
		snprintf(id->runtime, sizeof(id->runtime), "podman");
		copy(id->container_id, sizeof(id->container_id), c[i] + 7, l[i] - 7);
		goto container;
	}
	/* LXC 4+ and LXD: lxc.payload.NAME; older LXC: /lxc/NAME at the top. */
	if (has_prefix(c[i], l[i], "lxc.payload.") && l[i] > 12) {
		snprintf(id->runtime, sizeof(id->runtime), "lxc");
		copy(id->name, sizeof(id->name), c[i] + 12, l[i] - 12);
		goto container;
	}
	if (i == 1 && upl == 3 && !memcmp(up, "lxc", 3)) {
		snprintf(id->runtime, sizeof(id->runtime), "lxc");
		copy(id->name, sizeof(id->name), c[i], l[i]);
		goto container;
	}
	/* systemd-nspawn: its template unit, or the scope machined makes. */
	if (has_prefix(c[i], l[i], "systemd-nspawn@") && has_suffix(c[i], l[i], ".service") &&
	    l[i] > 23) {
		snprintf(id->runtime, sizeof(id->runtime), "systemd-nspawn");
		unescape(id->name, sizeof(id->name), c[i] + 15, l[i] - 23);
		goto container;
	}
	if (upl == 13 && !memcmp(up, "machine.slice", 13) && has_prefix(c[i], l[i], "machine-") &&
	    has_suffix(c[i], l[i], ".scope") && l[i] > 14) {
		char name[sizeof(id->name)], *e;

		unescape(name, sizeof(name), c[i] + 8, l[i] - 14);
		/* libvirt's machines: qemu-N-NAME (a VM), lxc-N-NAME. */
		if ((!strncmp(name, "qemu-", 5) || !strncmp(name, "lxc-", 4)) &&
		    (e = strchr(strchr(name, '-') + 1, '-')) && e[1]) {
			snprintf(id->runtime, sizeof(id->runtime), "libvirt");
			snprintf(id->name, sizeof(id->name), "%s", e + 1);
			snprintf(id->kind, sizeof(id->kind), name[0] == 'q' ? "vm" : "container");
			return true;
		}
		snprintf(id->runtime, sizeof(id->runtime), "systemd-nspawn");
		snprintf(id->name, sizeof(id->name), "%s", name);
		goto container;
	}
	return false;
container:
	snprintf(id->kind, sizeof(id->kind), "container");
	return true;
}

/* The Kubernetes root: kubepods (cgroupfs), kubepods.slice or kind's kubelet-kubepods.slice. */
static bool kubepods_at(const char *s, size_t n)
{
	return (n == 8 && !memcmp(s, "kubepods", 8)) || has_suffix(s, n, "kubepods.slice");
}

/* The outermost container the innermost runs in (a kind node, Docker in Docker). */
static void outer_of(const char *const *c, const size_t *l, unsigned int below,
		     struct ia_identity *id)
{
	struct ia_identity o;
	unsigned int i;

	for (i = below; i-- > 0;) {
		memset(&o, 0, sizeof(o));
		if (container_at(c, l, i, &o)) {
			snprintf(id->outer_runtime, sizeof(id->outer_runtime), "%s", o.runtime);
			snprintf(id->outer_container_id, sizeof(id->outer_container_id), "%s",
				 o.container_id);
			snprintf(id->outer_name, sizeof(id->outer_name), "%s", o.name);
		}
	}
}

/*
 * The innermost identity wins: a pod inside a kind node's container is the
 * pod (the node kept as outer_*), a container in a container the inner one.
 * Every component is read, however deep the path.
 */
void ia_identity_of(const char *path, struct ia_identity *id)
{
	const char *c[IA_CGROUP_MAX / 2];
	size_t l[IA_CGROUP_MAX / 2];
	unsigned int n, i, a, pod = 0;
	bool k8s = false;

	memset(id, 0, sizeof(*id));
	snprintf(id->path, sizeof(id->path), "%s", path ? path : "");
	n = split(id->path, c, l, IA_CGROUP_MAX / 2);
	if (!n)
		return;
	/* Kubernetes: the innermost kubepods root, then a pod, perhaps a container. */
	for (a = n; a-- > 0;)
		if (kubepods_at(c[a], l[a]))
			break;
	for (i = a + 1; a < n && i < n; i++)
		if (pod_uid(c[i], l[i], id->pod_uid, sizeof(id->pod_uid))) {
			k8s = true;
			pod = i;
			break;
		}
	/* A container inside the pod's container, or anywhere when there is no pod. */
	for (i = n; i-- > (k8s ? pod + 2 : 0);)
		if (container_at(c, l, i, id)) {
			outer_of(c, l, i, id);
			return;
		}
	if (k8s) {
		struct ia_identity ct;

		snprintf(id->kind, sizeof(id->kind), "kubernetes");
		/* QoS: the level above the pod, or none (guaranteed). */
		if (pod > a + 1 && (has_suffix(c[pod - 1], l[pod - 1], "burstable") ||
				    has_suffix(c[pod - 1], l[pod - 1], "burstable.slice")))
			snprintf(id->qos, sizeof(id->qos), "burstable");
		else if (pod > a + 1 && (has_suffix(c[pod - 1], l[pod - 1], "besteffort") ||
					 has_suffix(c[pod - 1], l[pod - 1], "besteffort.slice")))
			snprintf(id->qos, sizeof(id->qos), "besteffort");
		else
			snprintf(id->qos, sizeof(id->qos), "guaranteed");
		/* The container: a runtime's scope, crio-ID, or a bare id (cri). */
		memset(&ct, 0, sizeof(ct));
		if (pod + 1 < n && container_at(c, l, pod + 1, &ct) && ct.container_id[0]) {
			snprintf(id->container_id, sizeof(id->container_id), "%s", ct.container_id);
			snprintf(id->runtime, sizeof(id->runtime), "%s", ct.runtime);
		} else if (pod + 1 < n && is_cid(c[pod + 1], l[pod + 1])) {
			copy(id->container_id, sizeof(id->container_id), c[pod + 1], l[pod + 1]);
			snprintf(id->runtime, sizeof(id->runtime), "cri");
		} else if (pod + 1 < n && has_prefix(c[pod + 1], l[pod + 1], "crio-") &&
			   is_cid(c[pod + 1] + 5, l[pod + 1] - 5)) {
			copy(id->container_id, sizeof(id->container_id), c[pod + 1] + 5,
			     l[pod + 1] - 5);
			snprintf(id->runtime, sizeof(id->runtime), "cri-o");
		}
		outer_of(c, l, a, id);
		return;
	}
	/* systemd: the leaf unit. */
	for (i = n; i-- > 0;)
		if (has_suffix(c[i], l[i], ".service") || has_suffix(c[i], l[i], ".scope")) {
			snprintf(id->kind, sizeof(id->kind), "unit");
			copy(id->unit, sizeof(id->unit), c[i], l[i]);
			return;
		}
}

const char *ia_identity_str(const struct ia_identity *id, char *buf, size_t len)
{
	size_t n;

	/* Names from the path in their text form (esc.c): a sentence, never raw bytes. */
	if (!strcmp(id->kind, "kubernetes"))
		n = snprintf(buf, len, "pod %.8s…%s%.12s%s (%s%s%s)", ia_tx(id->pod_uid),
			     id->container_id[0] ? "/container " : "", ia_tx(id->container_id),
			     id->container_id[0] ? "…" : "", ia_tx(id->qos),
			     id->runtime[0] ? ", " : "", ia_tx(id->runtime));
	else if ((!strcmp(id->kind, "container") || !strcmp(id->kind, "vm")) && id->name[0])
		n = snprintf(buf, len, "%s %s (%s)", id->kind, ia_tx(id->name), ia_tx(id->runtime));
	else if (!strcmp(id->kind, "container"))
		n = snprintf(buf, len, "container %.12s… (%s)", ia_tx(id->container_id),
			     ia_tx(id->runtime));
	else if (!strcmp(id->kind, "unit"))
		n = snprintf(buf, len, "unit %s", ia_tx(id->unit));
	else
		n = snprintf(buf, len, "%s", id->path[0] ? ia_tx(id->path) : "?");
	if (strcmp(id->kind, "kubernetes") && id->pod_uid[0] && n < len)
		n += snprintf(buf + n, len - n, " in pod %.8s…", ia_tx(id->pod_uid));
	if (id->outer_runtime[0] && n < len) {
		if (id->outer_name[0])
			snprintf(buf + n, len - n, " in container %s (%s)", ia_tx(id->outer_name),
				 ia_tx(id->outer_runtime));
		else
			snprintf(buf + n, len - n, " in container %.12s… (%s)",
				 ia_tx(id->outer_container_id), ia_tx(id->outer_runtime));
	}
	return buf;
}

void ia_json_identity(struct ia_json *j, const char *key, const struct ia_identity *id)
{
	if (!id->kind[0])
		return;
	ia_json_obj_open(j, key);
	char buf[IA_IDENTITY_TEXT];

	ia_json_str(j, "kind", id->kind);
#define F(f) do { if (id->f[0]) ia_json_str(j, #f, id->f); } while (0)
	F(runtime);
	F(unit);
	F(container_id);
	F(pod_uid);
	F(qos);
	F(name);
	F(outer_runtime);
	F(outer_container_id);
	F(outer_name);
#undef F
	ia_json_str(j, "text", ia_identity_str(id, buf, sizeof(buf)));
	ia_json_obj_close(j);
}

bool ia_identity_of_cgroup(uint64_t cgroup_id, struct ia_identity *id)
{
	char path[IA_CGROUP_MAX];

	memset(id, 0, sizeof(*id));
	if (!cgroup_id || !ia_cgroup_path(cgroup_id, path, sizeof(path)))
		return false;
	ia_identity_of(path, id);
	return id->kind[0] != 0;
}
