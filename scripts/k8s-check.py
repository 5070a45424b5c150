#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""k8s-check: the Kubernetes examples in Documentation/kubernetes/ hold.

No Kubernetes schema validator is packaged in Debian (kubeconform, kubeval:
none), so the manifests are checked with what is: yamllint for the YAML;
promtool for the scrape configuration (`check config`) and the
PrometheusRule's rules (`check rules`, and they must equal
Documentation/prometheus/iommu-account.rules.yml, which `promtool test
rules` tests; Debian's promtool has no Kubernetes discovery, so that block
is held to the keys and meta labels Prometheus documents); iommu-accountd --check-config for the ConfigMap's
configuration; and here, the structure Kubernetes requires of a DaemonSet
(apps/v1, a selector that matches the template's labels, every volume mount
backed by a volume) and what this project promises of it (hostPID and
hostNetwork, the host's cgroup namespace entered, then the daemon as uid
65532 with CAP_SYS_ADMIN alone (setpriv: the container's SYS_PTRACE,
SETUID, SETGID and SETPCAP dropped before it starts), seccomp
RuntimeDefault, the namespace's Pod Security labels, no service account
token, the daemon on a Unix socket in an emptyDir shared with the proxy
alone (no port of the node), the proxy in the group that sees every uid,
the probes asking that socket, the daemon's two directories given to uid
65532 before, the image of this VERSION; the modprobe
variant the same but for its init container with CAP_SYS_MODULE alone,
whose failure is said and not fatal).

Prints "ok - NAME" or "not ok - NAME: why" per check; exits 1 on any failure."""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

root = sys.argv[1] if len(sys.argv) > 1 else "."
kd = f"{root}/Documentation/kubernetes"
kps = f"{kd}/kube-prometheus-stack"
dashboard = f"{root}/Documentation/grafana/iommu-account.json"
results = []


def check(name, fn):
    try:
        why = fn()
    except Exception as e:  # a malformed document is a failure, said
        why = f"{type(e).__name__}: {e}"
    results.append((name, why))
    print(f"ok - {name}" if not why else f"not ok - {name}: {why}")


def docs(name):
    with open(f"{kd}/{name}") as f:
        return {d["kind"]: d for d in yaml.safe_load_all(f) if d}


def yamllint():
    files = [f"{d}/{n}" for d in (kd, kps) for n in sorted(os.listdir(d)) if n.endswith(".yaml")]
    r = subprocess.run(["yamllint", "-d", "{extends: default, rules: {line-length: {max: 200},"
                        " document-start: disable, indentation: {indent-sequences: whatever}}}"]
                       + files, capture_output=True, text=True)
    return r.stdout.strip() if r.returncode else None


version = open(f"{root}/VERSION").read().strip()


def daemonset(name):
    def fn():
        d = docs(name)
        ds, cm = d["DaemonSet"], d["ConfigMap"]
        if ds["apiVersion"] != "apps/v1":
            return "DaemonSet is not apps/v1"
        sel = ds["spec"]["selector"]["matchLabels"]
        tl = ds["spec"]["template"]["metadata"]["labels"]
        if any(tl.get(k) != v for k, v in sel.items()):
            return "the selector does not match the template's labels"
        ps = ds["spec"]["template"]["spec"]
        if not (ps.get("hostPID") and ps.get("hostNetwork")):
            return "hostPID and hostNetwork are both needed"
        if ps.get("automountServiceAccountToken") is not False:
            return "a service account token is mounted (no RBAC is needed)"
        vols = {v["name"] for v in ps["volumes"]}
        for c in ps.get("initContainers", []) + ps["containers"]:
            for m in c.get("volumeMounts", []):
                if m["name"] not in vols:
                    return f"{c['name']}: mount {m['name']} has no volume"
            want = f"iommu-account-proxy:{version}" if c["name"] == "tls-proxy" \
                else f"iommu-account:{version}"
            if c["image"] != want:
                return f"{c['name']}: image {c['image']}, {want} wanted (VERSION)"
            sc = c["securityContext"]
            if sc.get("privileged") or sc.get("allowPrivilegeEscalation") is not False:
                return f"{c['name']}: privileged or may escalate"
        main, proxy = ps["containers"]
        if (main["name"], proxy["name"]) != ("iommu-accountd", "tls-proxy"):
            return "the containers are not iommu-accountd and tls-proxy"
        caps = main["securityContext"]["capabilities"]
        if caps.get("add") != ["SYS_ADMIN", "SYS_PTRACE", "SETUID", "SETGID", "SETPCAP", "CHOWN"] or \
           caps.get("drop") != ["ALL"]:
            return f"the daemon's container's capabilities: {caps} (SYS_ADMIN, and for the " \
                "start alone SYS_PTRACE, SETUID, SETGID, SETPCAP, CHOWN)"
        if ps.get("securityContext", {}).get("seccompProfile", {}).get("type") != "RuntimeDefault":
            return "the pod's seccompProfile is not RuntimeDefault"
        ns = d["Namespace"]["metadata"].get("labels", {})
        if ns.get("pod-security.kubernetes.io/enforce") != "privileged":
            return "the namespace has no Pod Security enforce label (privileged: hostPID, hostNetwork)"
        # sh -c: the chown, then exec of nsenter, of setpriv, of the daemon.
        sh = main["command"]
        start = ("chown 0:0 /run/iommu-accountd && mkdir -p /run/iommu-accountd/daemon && "
                 "chown 65532:65532 /var/lib/iommu-accountd /run/iommu-accountd/daemon && "
                 "exec nsenter --cgroup=/proc/1/ns/cgroup -- "
                 "setpriv --reuid=65532 --regid=65532 --clear-groups "
                 "--inh-caps=-all,+sys_admin --ambient-caps=-all,+sys_admin "
                 "--bounding-set=-all,+sys_admin -- iommu-accountd --foreground --config=")
        if sh[:2] != ["/bin/sh", "-c"] or len(sh) != 3 or not sh[2].startswith(start):
            return "the daemon is not started as uid 65532 with SYS_ADMIN alone, in the host's " \
                f"cgroup namespace (sh -c '{start}...')"
        cmd = sh[2].split()
        conf_path = [a for a in cmd if a.startswith("--config=")][0].split("=", 1)[1]
        mount = [m for m in main["volumeMounts"] if m["name"] == "config"][0]["mountPath"]
        key = os.path.relpath(conf_path, mount)
        conf = cm["data"][key]
        def key_of(k):
            v = [ln.split("=", 1)[1].strip() for ln in conf.splitlines()
                 if ln.strip().split("=", 1)[0].strip() == k]
            return v[0] if v else None
        listen = key_of("listen") or ""
        sock = listen[len("unix:"):]
        run = [v for v in ps["volumes"] if v["name"] == "run"]
        if not listen.startswith("unix:/run/iommu-accountd/daemon/") or main.get("ports") or \
           len(run) != 1 or run[0].get("emptyDir") is None:
            return f"the daemon listens on {listen}, not a Unix socket in the emptyDir run"
        for c in (main, proxy):
            if not any(m["name"] == "run" and m["mountPath"] == "/run/iommu-accountd"
                       for m in c.get("volumeMounts", [])):
                return f"{c['name']}: the emptyDir run is not at /run/iommu-accountd"
        # The proxy: TLS on its declared port, to the daemon's loopback, a
        # client certificate required and verified, nobody, no capability.
        st = {}
        for ln in cm["data"]["stunnel.conf"].splitlines():
            if "=" in ln and not ln.lstrip().startswith(";"):
                k, v = (x.strip() for x in ln.split("=", 1))
                st[k] = v
        psc = proxy["securityContext"]
        if st.get("connect") != sock or st.get("requireCert") != "yes" or \
           st.get("verifyChain") != "yes" or not st.get("CAfile") or \
           int(st.get("accept", "0")) != proxy["ports"][0]["containerPort"] or \
           proxy["ports"][0]["name"] != "https-metrics":
            return f"stunnel.conf: {st} (to {listen}, client certificates required, on https-metrics)"
        if psc.get("runAsUser") != 65534 or psc.get("capabilities") != {"drop": ["ALL"]} or \
           not psc.get("readOnlyRootFilesystem"):
            return f"tls-proxy: {psc} (nobody, no capability, read-only root)"
        # The proxy authenticated its client: it sees every uid (the group nogroup, 65534).
        if psc.get("runAsGroup") != 65534 or key_of("group") != "nogroup":
            return "tls-proxy: not in the group the daemon shows every uid to (nogroup, 65534)"
        tls = [v for v in ps["volumes"] if v["name"] == "tls"][0]
        if tls["secret"]["secretName"] != "iommu-accountd-tls":
            return "tls-proxy: its certificates are not the Secret iommu-accountd-tls"
        for probe, word in (("livenessProbe", "live"), ("readinessProbe", "ready")):
            pc = main[probe]["exec"]["command"]
            if pc[:3] != ["iommu-accountctl", "probe", word] or \
               pc[3:] != [f"--daemon={listen}"]:
                return f"{probe}: {pc} (iommu-accountctl probe {word} on {listen})"
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
            f.write(conf)
            f.flush()
            r = subprocess.run([f"{root}/userspace/iommu-accountd", "--check-config", "-c", f.name],
                               capture_output=True, text=True)
            if r.returncode:
                return "iommu-accountd --check-config: " + (r.stderr or r.stdout).strip()
        return None
    return fn


def modprobe_variant():
    a, b = docs("daemonset.yaml"), docs("daemonset-modprobe.yaml")
    ps = copy.deepcopy(b["DaemonSet"]["spec"]["template"]["spec"])
    (init,) = ps.pop("initContainers")
    caps = init["securityContext"]["capabilities"]
    cmd = " ".join(init["command"])
    if caps != {"drop": ["ALL"], "add": ["SYS_MODULE"]} or \
       not cmd.startswith("/bin/sh -c modprobe iommu_account ||"):
        return f"the init container: {init['command']}, {caps} (modprobe, its failure said, not fatal)"
    ps["volumes"] = [v for v in ps["volumes"] if v["name"] != "modules"]
    b["DaemonSet"]["spec"]["template"]["spec"] = ps
    return None if a == b else "it differs from daemonset.yaml beyond its init container"


def prometheusrule():
    pr = docs("prometheusrule.yaml")["PrometheusRule"]
    with open(f"{root}/Documentation/prometheus/iommu-account.rules.yml") as f:
        rules = yaml.safe_load(f)
    if pr["apiVersion"] != "monitoring.coreos.com/v1" or pr["spec"] != rules:
        return "its groups are not iommu-account.rules.yml's"
    with tempfile.TemporaryDirectory() as t:
        with open(f"{t}/r.yml", "w") as f:
            yaml.safe_dump(pr["spec"], f)
        r = subprocess.run(["promtool", "check", "rules", f"{t}/r.yml"], capture_output=True,
                           text=True)
        return (r.stdout + r.stderr).strip() if r.returncode else None


# Debian's Prometheus is built without Kubernetes discovery, so its promtool
# refuses kubernetes_sd_configs: the discovery block is held to the keys and
# the meta labels Prometheus documents for role "pod", and the rest (global,
# rule_files, relabelling) to promtool with the discovery swapped for a
# static target.
SD_KEYS = {"role", "namespaces", "selectors", "api_server", "kubeconfig_file",
           "attach_metadata", "follow_redirects", "enable_http2", "tls_config",
           "authorization", "basic_auth", "oauth2", "proxy_url"}
POD_META = ("__meta_kubernetes_namespace", "__meta_kubernetes_pod_name",
            "__meta_kubernetes_pod_label_", "__meta_kubernetes_pod_container_port_name",
            "__meta_kubernetes_pod_container_port_number", "__meta_kubernetes_pod_node_name",
            "__meta_kubernetes_pod_container_name", "__meta_kubernetes_pod_ip")


def scrape_config():
    with open(f"{kd}/scrape-config.yaml") as f:
        conf = yaml.safe_load(f)
    for job in conf["scrape_configs"]:
        for sd in job.pop("kubernetes_sd_configs", []):
            if set(sd) - SD_KEYS or sd.get("role") != "pod":
                return f"kubernetes_sd_configs: {sorted(set(sd) - SD_KEYS)} or role {sd.get('role')}"
            for rc in job.get("relabel_configs", []):
                for lab in rc.get("source_labels", []):
                    if not lab.startswith(POD_META):
                        return f"{lab} is not a meta label of role pod"
            job["static_configs"] = [{"targets": ["node.example:9848"]}]
        tc = job.get("tls_config", {})
        if job.get("scheme") != "https" or not all(tc.get(k) for k in ("ca_file", "cert_file", "key_file")):
            return "the scrape is not https with a client certificate"
    with tempfile.TemporaryDirectory() as t:
        # promtool wants the client's files to exist: empty ones, here.
        for job in conf["scrape_configs"]:
            for k in ("ca_file", "cert_file", "key_file"):
                if k in job.get("tls_config", {}):
                    job["tls_config"][k] = f"{t}/{k}"
                    open(f"{t}/{k}", "w").close()
        with open(f"{t}/prometheus.yml", "w") as f:
            yaml.safe_dump(conf, f)
        shutil.copy(f"{root}/Documentation/prometheus/iommu-account.rules.yml", t)
        r = subprocess.run(["promtool", "check", "config", f"{t}/prometheus.yml"],
                           capture_output=True, text=True)
        return (r.stdout + r.stderr).strip() if r.returncode else None


def podmonitor():
    pm = docs("podmonitor.yaml")["PodMonitor"]
    ds = docs("daemonset.yaml")["DaemonSet"]
    tl = ds["spec"]["template"]["metadata"]["labels"]
    if pm["apiVersion"] != "monitoring.coreos.com/v1" or \
       any(tl.get(k) != v for k, v in pm["spec"]["selector"]["matchLabels"].items()):
        return "not a monitoring.coreos.com/v1 PodMonitor selecting the DaemonSet's pods"
    ports = {p["name"] for c in ds["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])}
    for ep in pm["spec"]["podMetricsEndpoints"]:
        tc = ep.get("tlsConfig", {})
        if ep["port"] not in ports or ep.get("scheme") != "https" or \
           not all(k in tc for k in ("ca", "cert", "keySecret")):
            return f"{ep['port']}: not a port of the pods ({ports}), or not https with a client certificate"
    return None


def kustomization():
    with open(f"{kd}/kustomization.yaml") as f:
        k = yaml.safe_load(f)
    if k.get("kind") != "Kustomization" or not k.get("resources"):
        return "not a Kustomization with resources"
    for r in k["resources"]:
        if not os.path.isfile(f"{kd}/{r}"):
            return f"resource {r}: no such file here"
        docs(r)  # each parses, every document has a kind
    return None


GRAFANA_CM_HEAD = """\
# The Grafana dashboard (Documentation/grafana/iommu-account.json) for the
# kube-prometheus-stack chart's Grafana sidecar, which loads ConfigMaps
# labelled grafana_dashboard: "1". Generated: python3 scripts/k8s-check.py
# . --write (make check fails when it differs from the dashboard).
"""


def grafana_cm():
    """The dashboard's ConfigMap, as the component ships it."""
    with open(dashboard) as f:
        text = f.read()
    # The JSON as a literal block, its lines as they are in the file.
    return (GRAFANA_CM_HEAD + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
            "  name: iommu-account-dashboard\n  namespace: iommu-account\n"
            "  labels:\n    grafana_dashboard: \"1\"\ndata:\n  iommu-account.json: |\n" +
            "".join(f"    {line}" if line.strip() else "\n" for line in text.splitlines(True)))


def kube_prometheus_stack():
    """Each of the component's patches applied (RFC 6902, as kustomize applies
    an inline list of operations) to the base object it targets."""
    import jsonpatch
    with open(f"{kps}/kustomization.yaml") as f:
        comp = yaml.safe_load(f)
    if comp.get("apiVersion") != "kustomize.config.k8s.io/v1alpha1" or comp.get("kind") != "Component":
        return "not a kustomize Component"
    base = {}
    with open(f"{kd}/kustomization.yaml") as f:
        for r in yaml.safe_load(f)["resources"]:
            with open(f"{kd}/{r}") as g:
                for d in yaml.safe_load_all(g):
                    if d:
                        base[(d["kind"], d["metadata"]["name"])] = d
    out = {}
    for p in comp.get("patches", []):
        key = (p["target"]["kind"], p["target"]["name"])
        if key not in base:
            return f"a patch targets {key}, which the base does not have"
        out[key] = jsonpatch.apply_patch(out.get(key, base[key]), yaml.safe_load(p["patch"]))
    for key in (("PodMonitor", "iommu-accountd"), ("PrometheusRule", "iommu-account")):
        got = out.get(key, base.get(key, {}))
        if got.get("metadata", {}).get("labels", {}).get("release") != "kube-prometheus-stack":
            return f"{key}: no release label"
        if got["metadata"]["labels"].get("app.kubernetes.io/name") != "iommu-accountd":
            return f"{key}: its own labels lost"
    ds = out.get(("DaemonSet", "iommu-accountd"))
    if not ds:
        return "the DaemonSet is not patched"
    ps = ds["spec"]["template"]["spec"]
    terms = ps["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    if terms != [{"matchExpressions": [{"key": "iommu-account.io/module", "operator": "In",
                                        "values": ["dkms"]}]}]:
        return f"the DaemonSet's node affinity: {terms}"
    want = copy.deepcopy(base[("DaemonSet", "iommu-accountd")])
    del ps["affinity"]
    if ds != want:
        return "the DaemonSet changed beyond its affinity"
    if comp.get("resources") != ["grafana-dashboard.yaml"]:
        return f"resources: {comp.get('resources')}"
    with open(f"{kps}/grafana-dashboard.yaml") as f:
        shipped = f.read()
    cm = yaml.safe_load(shipped)
    with open(dashboard) as f:
        if json.loads(cm["data"]["iommu-account.json"]) != json.load(f):
            return "grafana-dashboard.yaml is not the dashboard: python3 scripts/k8s-check.py . --write"
    if cm["metadata"]["labels"] != {"grafana_dashboard": "1"} or shipped != grafana_cm():
        return "grafana-dashboard.yaml is not as generated: python3 scripts/k8s-check.py . --write"
    return None


if len(sys.argv) > 2 and sys.argv[2] == "--write":
    with open(f"{kps}/grafana-dashboard.yaml", "w") as f:
        f.write(grafana_cm())
    sys.exit(0)

check("yamllint of every manifest", yamllint)
check("daemonset.yaml: a DaemonSet as promised, its configuration accepted", daemonset("daemonset.yaml"))
check("daemonset-modprobe.yaml: the same, its configuration accepted",
      daemonset("daemonset-modprobe.yaml"))
check("daemonset-modprobe.yaml: only the modprobe init container (CAP_SYS_MODULE) added",
      modprobe_variant)
check("prometheusrule.yaml: the tested rules, promtool check rules", prometheusrule)
check("scrape-config.yaml: Kubernetes discovery of role pod, https with a client certificate, "
      "the rest by promtool check config", scrape_config)
check("podmonitor.yaml: the DaemonSet's pods, port https-metrics, TLS with a client certificate",
      podmonitor)
check("kustomization.yaml: its resources are the files here, each parsed", kustomization)
check("kube-prometheus-stack/: the release label, the node affinity, the dashboard's ConfigMap",
      kube_prometheus_stack)
sys.exit(1 if any(w for _, w in results) else 0)
