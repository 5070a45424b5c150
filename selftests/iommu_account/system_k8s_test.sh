#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# system_k8s_test.sh: the system lane (scripts/vm/run --system) runs the
# shipped DaemonSet (Documentation/kubernetes/daemonset-modprobe.yaml) with
# Debian's podman (`podman kube play`, crun), from the image `make image`
# built from this run's packages (its OCI archive): scripts/check adds both
# to the lane. The packaged daemon is stopped and the module unloaded
# first, so that what runs is the pod's:
#   - its init container loads the module (CAP_SYS_MODULE);
#   - the daemon runs with the shipped securityContext, read from the
#     kernel (/proc/PID/status, mountinfo, the namespaces): as uid 65532
#     with CAP_SYS_ADMIN alone (ambient; the container's SYS_PTRACE, SETUID,
#     SETGID and SETPCAP dropped by setpriv), no new privileges, seccomp
#     filtering, a read-only root, the host's pid, network and cgroup
#     namespaces; its history directory (the host's) is uid 65532's;
#   - its probes (the manifest's commands, on the daemon's Unix socket)
#     answer: liveness as podman's healthcheck, readiness (podman has none)
#     by podman exec of the probe's command;
#   - the daemon serves no port of the node (nothing listens on 9847): a
#     Unix socket in the pod's emptyDir; the tls-proxy container (stunnel,
#     nobody, no capability) serves the node's port 9848 with TLS, to a
#     client whose certificate the Secret's CA signed only: one without a
#     certificate, a stranger's, and another pod's are refused;
#   - on the socket each peer sees what the module would show its uid: a
#     process of the charging uid its pot, one of another uid nothing of it;
#   - /metrics, scraped from outside the pod, shows a real charge (a 4 KiB
#     io_uring buffer of a uid, in a cgroup of the host) as the kernel
#     counts it, and the cgroup as the host names it; Debian's Prometheus,
#     with the shipped scrape-config.yaml's tls_config and the client's
#     certificate, scrapes the same figure through the proxy;
#   - on a node without the module (hidden, as on a kernel outside the
#     supported range), the init container says so and the pod stays up:
#     not ready, iommu_account_up 0, no restart.
# The pod's memory (its cgroup's memory.current, the daemon's RSS) is
# reported: the DaemonSet's requests and limits come from it. Runs last in
# the boot (it stops the packaged daemon, then starts it again). KTAP; root
# in the guest only.
. "$(dirname "$0")/ktap_lib.sh"
[ -n "${IA_SYSTEM:-}" ] || { echo "1..0 # SKIP: only in the system lane (scripts/vm/run --system)"; exit 0; }

diag() { echo "# $*"; }
lib=/usr/local/lib/ia
tmp=$(mktemp -d)
ds=$lib/daemonset-modprobe.yaml
img=$(ls "$lib"/iommu-account-[0-9]*.oci.tar 2>/dev/null | head -n 1)
pimg=$(ls "$lib"/iommu-account-proxy-[0-9]*.oci.tar 2>/dev/null | head -n 1)
kver=$(uname -r)
ko_dir=/usr/lib/modules/$kver/updates/dkms
pod=iommu-accountd-pod
daemon=$pod-iommu-accountd
init=$pod-modprobe
proxy=$pod-tls-proxy
cleanup() {
	exec 3>&- 2>/dev/null
	systemctl stop ia-k8s-prometheus 2>/dev/null
	[ -n "${hpid:-}" ] && wait "$hpid" 2>/dev/null
	podman kube play --down "$ds" >/dev/null 2>&1
	podman kube play --down "$tmp/secret.yaml" >/dev/null 2>&1
	if [ -n "$(ls "$tmp"/iommu_account.ko* 2>/dev/null)" ]; then
		mv "$tmp"/iommu_account.ko* "$ko_dir/" && depmod "$kver"
	fi
	rmdir /sys/fs/cgroup/ia-k8s/h0 /sys/fs/cgroup/ia-k8s 2>/dev/null
	modprobe iommu_account
	systemctl start iommu-accountd
	rm -rf "$tmp"
}
trap cleanup EXIT

check "the lane has the images' OCI archives and the shipped manifest (scripts/check adds them)" \
	eval '[ -f "$img" ] && [ -f "$pimg" ] && [ -f "$ds" ]' || { ktap_finish; exit; }
check "Debian's podman and crun are installed" eval 'command -v podman >/dev/null && command -v crun >/dev/null'
systemctl stop iommu-accountd
modprobe -r iommu_account
check "the packaged daemon is stopped and the module unloaded (the pod's own start follows)" \
	eval '[ ! -e /sys/module/iommu_account ]'
# The containers' storage in memory: overlay over the 9p root is refused.
mkdir -p /var/lib/containers /etc/containers
mount -t tmpfs -o size=1g ia-containers /var/lib/containers
printf '[storage]\ndriver = "overlay"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n' \
	>/etc/containers/storage.conf
t0=$(date +%s)
check "podman loads the images built from the packages ($(basename "$img"), $(basename "$pimg"))" \
	eval 'podman load -q -i "$img" >"$tmp/load.out" 2>&1 && podman load -q -i "$pimg" >>"$tmp/load.out" 2>&1'
diag "podman load: $(($(date +%s) - t0)) s under TCG; $(tr '\n' ' ' <"$tmp/load.out");" \
	"$(podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep iommu-account | tr '\n' ' ')"

# The proxy's certificates, as a user makes them: a CA, the proxy's
# certificate (named iommu-accountd), a client's the CA signed, and a
# stranger's (self-signed); the Secret the DaemonSet names, played first.
pki=$tmp/pki
mkdir -p "$pki"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$pki/$1.key" 2>/dev/null; }
signed() {	# NAME CN EXT: a certificate for NAME's key, signed by the CA
	key "$1"
	openssl req -new -key "$pki/$1.key" -subj "/CN=$2" -out "$pki/$1.csr" 2>/dev/null &&
		printf '%s\n' "$3" "authorityKeyIdentifier=keyid" "subjectKeyIdentifier=hash" >"$pki/$1.ext" &&
		openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
			-days 2 -extfile "$pki/$1.ext" -out "$pki/$1.crt" 2>/dev/null
}
key ca
# A CA by RFC 5280 (Python's ssl, strict since 3.13, wants its key usage).
openssl req -x509 -new -key "$pki/ca.key" -subj /CN=ia-lane-ca -days 2 \
	-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
	-out "$pki/ca.crt" 2>/dev/null
signed tls iommu-accountd "subjectAltName=DNS:iommu-accountd
extendedKeyUsage=serverAuth"
signed client prometheus "extendedKeyUsage=clientAuth"
key stranger
openssl req -x509 -new -key "$pki/stranger.key" -subj /CN=prometheus -days 2 -out "$pki/stranger.crt" 2>/dev/null
b64() { base64 -w0 "$pki/$1"; }
cat >"$tmp/secret.yaml" <<EOF
apiVersion: v1
kind: Secret
metadata:
  name: iommu-accountd-tls
  namespace: iommu-account
type: Opaque
data:
  tls.crt: $(b64 tls.crt)
  tls.key: $(b64 tls.key)
  ca.crt: $(b64 ca.crt)
EOF
check "the proxy's certificates and the Secret iommu-accountd-tls (openssl; podman kube play)" \
	eval 'openssl verify -CAfile "$pki/ca.crt" "$pki/tls.crt" "$pki/client.crt" >/dev/null &&
		podman kube play "$tmp/secret.yaml" >"$tmp/secret.out" 2>&1' || shows secret="$tmp/secret.out"
# tls_get CERT|-: GET /metrics through the proxy on port 9848, as Prometheus
# does (the server's name iommu-accountd, the lane's CA), with the client
# certificate CERT (its key beside it) or none; the answer, or why not.
tls_get() {
	python3 - "$pki" "$1" <<'EOF'
import socket, ssl, sys
pki, who = sys.argv[1], sys.argv[2]
ctx = ssl.create_default_context(cafile=f"{pki}/ca.crt")
if who != "-":
    ctx.load_cert_chain(f"{pki}/{who}.crt", f"{pki}/{who}.key")
try:
    with socket.create_connection(("127.0.0.1", 9848), timeout=10) as s:
        with ctx.wrap_socket(s, server_hostname="iommu-accountd") as t:
            t.sendall(b"GET /metrics HTTP/1.0\r\nHost: iommu-accountd\r\n\r\n")
            data = b""
            while True:
                b = t.recv(65536)
                if not b:
                    break
                data += b
except (OSError, ssl.SSLError) as e:
    print(f"refused: {type(e).__name__}: {e}")
    sys.exit(1)
if not data:
    print("refused: closed without an answer")
    sys.exit(1)
sys.stdout.write(data.decode())
EOF
}

# --- the pod on a node with the module
check "podman kube play of the shipped DaemonSet" eval 'podman kube play "$ds" >"$tmp/play.out" 2>&1' ||
	shows play="$tmp/play.out"
state() { podman inspect --format '{{.State.Status}} {{.State.ExitCode}} {{.RestartCount}}' "$1" 2>/dev/null; }
# An init container of kube play runs once and is removed: what it did is the
# module in the kernel, and the pod's containers started (podman starts them
# only after their init containers succeeded); what it said is in its log
# (podman's journald driver keeps it).
init_log() { podman logs $init 2>/dev/null || journalctl -q -o cat CONTAINER_NAME=$init; }
check "its init container loaded the module, and the daemon's container runs after it" \
	until_ok 1200 eval '[ -e /sys/module/iommu_account ] && [ "$(state $daemon | cut -d" " -f1)" = running ]' ||
	shows init="$(init_log >"$tmp/init.log" 2>&1; echo "$tmp/init.log")"
dpid=$(podman inspect --format '{{.State.Pid}}' $daemon)
# A daemon that is not running (pid 0): what it said, and the rest cannot run.
if [ "${dpid:-0}" = 0 ]; then
	diag "the daemon's container is not running: $(state $daemon); its last words:"
	podman logs --tail 30 $daemon 2>&1 | sed 's/^/#   /'
	journalctl -q -o cat CONTAINER_NAME=$daemon 2>/dev/null | tail -n 30 | sed 's/^/#   /'
	check "the daemon's container runs" false
	ktap_finish
	exit
fi
st=/proc/$dpid/status
check "pid $dpid is iommu-accountd (nsenter executed it)" eval '[ "$(cat /proc/$dpid/comm)" = iommu-accountd ]'
# CAP_SYS_ADMIN (21): 0x200000, in every set but the inheritable's too.
check "it runs as uid 65532 with CAP_SYS_ADMIN alone (effective, permitted, bounding, ambient)" \
	eval 'grep -q "^Uid:[[:space:]]*65532[[:space:]]65532[[:space:]]65532[[:space:]]65532$" $st &&
		[ "$(awk "/^Cap(Eff|Prm|Bnd|Amb):/ {print \$2}" $st | sort -u)" = 0000000000200000 ]' ||
	shows status="$st"
check "its history directory, the host's /var/lib/iommu-accountd, is uid 65532's (chown before setpriv)" \
	eval '[ "$(stat -c %u /var/lib/iommu-accountd)" = 65532 ]'
sock=/run/iommu-accountd/daemon/exporter.sock
check "no new privileges, seccomp filtering (RuntimeDefault)" \
	eval 'grep -q "^NoNewPrivs:[[:space:]]*1$" $st && grep -q "^Seccomp:[[:space:]]*2$" $st'
check "its root is mounted read-only" \
	eval 'awk "\$5 == \"/\" {print \$6}" /proc/$dpid/mountinfo | grep -q "^ro"'
same_ns() { [ "$(readlink /proc/$dpid/ns/$1)" = "$(readlink /proc/1/ns/$1)" ]; }
check "the host's pid, network and cgroup namespaces (hostPID, hostNetwork, nsenter --cgroup)" \
	eval 'same_ns pid && same_ns net && same_ns cgroup'
check "liveness: podman's healthcheck (the manifest's probe command) is healthy" \
	until_ok 1200 eval 'podman healthcheck run $daemon >/dev/null 2>&1'
check "readiness: the probe's command answers ready: iommu_account on $kver" \
	until_ok 1200 eval 'podman exec $daemon iommu-accountctl probe ready --daemon=unix:$sock 2>&1 |
		grep -q "^ready: iommu_account .* on $kver$"'

# --- the node's address: TLS and client certificates only
# Listening sockets from the kernel (/proc/net/tcp, state 0A): nothing on
# 9847 (0x2677), the daemon's old port, the proxy's 9848 (0x2678) on every
# address; the daemon's Unix socket in /proc/net/unix (state 01, listening).
listening() { awk -v a="$1" '$4 == "0A" && $2 == a {f=1} END {exit !f}' /proc/net/tcp /proc/net/tcp6; }
any_on_9847() { awk '$4 == "0A" && $2 ~ /:2677$/ {f=1} END {exit !f}' /proc/net/tcp /proc/net/tcp6; }
check "the daemon serves no port of the node (nothing listens on 9847); its Unix socket $sock listens" \
	eval '! any_on_9847 && awk -v p="$sock" "\$NF == p && \$4 == \"00010000\" {f=1} END {exit !f}" /proc/$dpid/net/unix'
check "the tls-proxy container runs, stunnel on port 9848 of every address" \
	until_ok 1200 eval '[ "$(state $proxy | cut -d" " -f1)" = running ] &&
		{ listening 00000000:2678 || listening 00000000000000000000000000000000:2678; }' ||
	shows proxy="$(podman logs $proxy >"$tmp/proxy.log" 2>&1; echo "$tmp/proxy.log")"
ppid_=$(podman inspect --format '{{.State.Pid}}' $proxy)
check "stunnel runs as nobody (65534) with no capability" \
	eval 'grep -q "^Uid:[[:space:]]*65534[[:space:]]" /proc/$ppid_/status &&
		grep -q "^CapEff:[[:space:]]*0000000000000000$" /proc/$ppid_/status'
check "a scrape with the client certificate the CA signed: 200, iommu_account_up 1 (as Prometheus)" \
	until_ok 600 eval 'tls_get client >"$tmp/tls.out" 2>&1 && grep -q "^HTTP/1.1 200 OK" "$tmp/tls.out" &&
		grep -q "^iommu_account_up 1" "$tmp/tls.out"' || shows tls="$tmp/tls.out"
check "a scrape without a client certificate is refused (no HTTP answer)" \
	eval '! tls_get - >"$tmp/tls0.out" 2>&1 && ! grep -q "^HTTP/" "$tmp/tls0.out"' || shows tls="$tmp/tls0.out"
check "a scrape with a certificate the CA did not sign is refused" \
	eval '! tls_get stranger >"$tmp/tls1.out" 2>&1 && ! grep -q "^HTTP/" "$tmp/tls1.out"' || shows tls="$tmp/tls1.out"
# Another pod (the proxy's image has openssl): TLS without a certificate,
# its request sent; the proxy never passes it to the daemon.
printf 'GET /metrics HTTP/1.0\r\n\r\n' >"$tmp/req"
ptag=$(podman image ls --format "{{.Tag}}" localhost/iommu-account-proxy | head -n 1)
another_pod() {
	podman run --rm -i --network host -v "$pki/ca.crt:/ca.crt:ro" --entrypoint openssl \
		"localhost/iommu-account-proxy:$ptag" s_client -connect 127.0.0.1:9848 \
		-servername iommu-accountd -CAfile /ca.crt -quiet <"$tmp/req" >"$tmp/pod.out" 2>&1
}
check "another pod's unauthenticated scrape (openssl s_client, no certificate) is refused" \
	eval 'another_pod; ! grep -q "^HTTP/" "$tmp/pod.out" && grep -qi "alert\|error" "$tmp/pod.out"' ||
	shows pod="$tmp/pod.out"

# A real charge: one 4 KiB io_uring buffer of uid 20301, in a cgroup of the host.
huid=20301
mkfifo "$tmp/hold"
alert_bench holders 1 1 $huid /sys/fs/cgroup/ia-k8s <"$tmp/hold" >"$tmp/holders.out" 2>&1 &
hpid=$!
exec 3>"$tmp/hold"
check "a process of uid $huid holds a 4 KiB io_uring buffer (the kernel: 4096 in its pot)" \
	until_ok 1200 eval 'grep -q "ready 1 refused 0" "$tmp/holders.out" &&
		iommu-accountctl -j uids | jq -e ".[] | select(.uid == $huid) | .locked_bytes == 4096" >/dev/null' ||
	shows holders="$tmp/holders.out"
series="iommu_account_quota_used_bytes{kind=\"uid-pot\",object=\"$huid\",uid=\"$huid\"} 4096"
check "the pod's /metrics (through the proxy, as Prometheus) has it: $series" \
	until_ok 1200 eval 'tls_get client >"$tmp/m.txt" && grep -qxF "$series" "$tmp/m.txt"'
# Debian's Prometheus scrapes the proxy as a fleet's would: the tls_config
# of the shipped scrape-config.yaml (the CA, the client's certificate and
# key, server_name iommu-accountd), the node as a static target for the
# Kubernetes API the lane has not.
sed -n '/^scrape_configs:/,/server_name:/p' "$lib/scrape-config.yaml" |
	sed -e "s#/etc/prometheus/iommu-account/#$pki/#" -e 's/^  - job_name: .*/  - job_name: k8s-lane/' \
	>"$tmp/prom.yml"
printf '    scrape_interval: 2s\n    static_configs:\n      - targets: [127.0.0.1:9848]\n' >>"$tmp/prom.yml"
systemd-run -q --unit=ia-k8s-prometheus prometheus --config.file="$tmp/prom.yml" \
	--storage.tsdb.path="$tmp/tsdb" --web.listen-address=127.0.0.1:9095 >/dev/null 2>&1
promq() { python3 -c 'import sys, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": sys.argv[1]})
print(urllib.request.urlopen("http://127.0.0.1:9095/api/v1/query?" + q, timeout=5).read().decode())' "$1" 2>/dev/null |
	jq -r '.data.result[0].value[1] // empty'; }
check "Debian's Prometheus scrapes it through TLS with the client certificate: uid $huid's pot 4096" \
	until_ok 1200 eval '[ "$(promq "iommu_account_quota_used_bytes{job=\"k8s-lane\",kind=\"uid-pot\",object=\"$huid\"}")" = 4096 ] &&
		[ "$(promq "up{job=\"k8s-lane\"}")" = 1 ]' ||
	shows prom.yml="$tmp/prom.yml" prom="$(journalctl -u ia-k8s-prometheus -n 20 --no-pager >"$tmp/prom.log" 2>&1; echo "$tmp/prom.log")"
systemctl stop ia-k8s-prometheus 2>/dev/null
check "and its holder by the host's cgroup path (/ia-k8s/h0): the host's cgroup namespace entered" \
	until_ok 1200 eval 'tls_get client >"$tmp/m.txt" &&
		grep -q "^iommu_account_holder_pot_bytes{uid=\"$huid\",cgroup=\"/ia-k8s/h0\",.*} 4096$" "$tmp/m.txt"' ||
	shows holder="$(grep "holder_pot" "$tmp/m.txt" >"$tmp/h.txt"; echo "$tmp/h.txt")"
# The socket, asked by processes of two uids in the daemon's container.
as_uid() { podman exec --user "$1" $daemon iommu-accountctl -j alerts --daemon "unix:$sock"; }
check "on the socket, a process of uid $huid sees its own pot (as the module would show it)" \
	eval 'as_uid $huid >"$tmp/u1.json" 2>&1 && jq -e "any(.[]; .object == $huid)" "$tmp/u1.json" >/dev/null' ||
	shows alerts="$tmp/u1.json"
check "and a process of uid 1000 sees nothing of uid $huid's" \
	eval 'as_uid 1000 >"$tmp/u2.json" 2>&1 && jq -e "all(.[]; .uid != $huid)" "$tmp/u2.json" >/dev/null &&
		! grep -q "$huid" "$tmp/u2.json"' || shows alerts="$tmp/u2.json"
exec 3>&-
wait "$hpid"
hpid=""
# The footprint, for the manifest's requests and limits.
cg=$(sed -n 's/^0:://p' /proc/$dpid/cgroup)
diag "the pod's footprint: the daemon's container's cgroup memory.current" \
	"$(($(cat /sys/fs/cgroup$cg/memory.current 2>/dev/null || echo 0) / 1024)) KiB," \
	"memory.peak $(($(cat /sys/fs/cgroup$cg/memory.peak 2>/dev/null || echo 0) / 1024)) KiB;" \
	"iommu-accountd $(awk '/^VmRSS/ {print $2, $3}' $st) RSS; the proxy (stunnel)" \
	"$(awk '/^VmRSS/ {print $2, $3}' /proc/$ppid_/status) RSS"
check "podman kube play --down removes the pod" eval 'podman kube play --down "$ds" >/dev/null 2>&1'

# --- the pod on a node without the module (as on a kernel outside the range)
modprobe -r iommu_account
mv "$ko_dir"/iommu_account.ko* "$tmp/" && depmod "$kver"
check "the module is unloaded and gone from this kernel's modules" \
	eval '[ ! -e /sys/module/iommu_account ] && ! modinfo iommu_account >/dev/null 2>&1'
check "podman kube play of the same DaemonSet" eval 'podman kube play "$ds" >"$tmp/play2.out" 2>&1' ||
	shows play="$tmp/play2.out"
check "its init container says there is no module for $kver, and the daemon's container runs after it" \
	until_ok 1200 eval '[ "$(state $daemon | cut -d" " -f1)" = running ] &&
		init_log 2>&1 | grep -q "no iommu_account module for $kver"' ||
	shows init="$(init_log >"$tmp/init.log" 2>&1; echo "$tmp/init.log")"
check "the daemon runs, reporting iommu_account_up 0 (through the proxy)" \
	until_ok 1200 eval 'tls_get client | grep -q "^iommu_account_up 0"'
check "readiness says not ready and why (the module is not loaded)" \
	eval '! podman exec $daemon iommu-accountctl probe ready --daemon=unix:$sock >"$tmp/ready.out" 2>&1 &&
		grep -q "^not ready: .*iommu_account" "$tmp/ready.out"' || shows ready="$tmp/ready.out"
check "liveness stays healthy (a restart would not bring the module)" \
	eval 'podman healthcheck run $daemon >/dev/null 2>&1'
check "the daemon was never restarted (running, restart count 0)" \
	eval '[ "$(state $daemon | cut -d" " -f1,3)" = "running 0" ]' ||
	shows state="$(podman inspect --format '{{.State.Status}} exit {{.State.ExitCode}} restarts {{.RestartCount}} started {{.State.StartedAt}} health {{json .State.Health}}' $daemon >"$tmp/state" 2>&1
		podman logs --tail 20 $daemon >>"$tmp/state" 2>&1; echo "$tmp/state")"
ktap_finish
