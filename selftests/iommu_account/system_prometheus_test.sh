#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# system_prometheus_test.sh: the system lane (scripts/vm/run --system) with
# Debian's Prometheus and Alertmanager on the packaged daemon. Prometheus
# runs the configuration and the rules the tools package installs
# (/usr/share/doc/iommu-account-tools/examples: the target set to the port
# the daemon listens on, the intervals 5 s instead of 15 s for the lane);
# Alertmanager sends to a webhook receiver in the guest. A real refusal (fio
# registering io_uring buffers past its RLIMIT_MEMLOCK in the uid's shared
# pot) must make the shipped alert IommuAccountQuotaRefused fire in
# Prometheus (/api/v1/alerts) and reach the webhook within the rule's for:
# (none) plus two scrape intervals, one evaluation and Alertmanager's
# group_wait; the latency from the kernel's refusal (its own time, the
# daemon's KERNEL_TIME_NS) is reported beside the daemon's own alert's.
# Runs after system_test.sh, in the same boot. KTAP; root in the guest only.
. "$(dirname "$0")/ktap_lib.sh"
[ -n "${IA_SYSTEM:-}" ] || { echo "1..0 # SKIP: only in the system lane (scripts/vm/run --system)"; exit 0; }

tmp=$(mktemp -d)
diag() { echo "# $*"; }
ex=/usr/share/doc/iommu-account-tools/examples
jqes() { jq -e -s "$1" "$2" >/dev/null; }	# FILTER FILE: holds over FILE's lines as one array
get() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1" 2>/dev/null; }
# A PromQL query's result vector, as JSON.
query() { python3 -c 'import sys, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": sys.argv[1]})
print(urllib.request.urlopen("http://127.0.0.1:9090/api/v1/query?" + q, timeout=5).read().decode())' "$1" 2>/dev/null |
	jq -c '.data.result'; }
cleanup() {
	systemctl stop ia-prometheus ia-alertmanager ia-webhook 2>/dev/null
	[ -n "${fpid:-}" ] && kill "$fpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

check "Debian's prometheus and prometheus-alertmanager are installed" \
	eval 'command -v prometheus >/dev/null && command -v prometheus-alertmanager >/dev/null'
check "the tools package installed the Prometheus configuration and rules ($ex)" \
	eval '[ -f "$ex/prometheus.yml" ] && [ -f "$ex/iommu-account.rules.yml" ]'
listen=$(sed -n 's/^listen *= *//p' /etc/iommu-account/iommu-accountd.conf | tail -n 1)
listen=${listen:-127.0.0.1:9847}
mkdir -p "$tmp/prom"
cp "$ex/iommu-account.rules.yml" "$tmp/prom/"
sed -e "s/127\.0\.0\.1:9847/$listen/" -e 's/^\(  [a-z_]*_interval:\) 15s$/\1 5s/' \
	"$ex/prometheus.yml" >"$tmp/prom/prometheus.yml"
diag "prometheus.yml: the shipped one with: $(diff "$ex/prometheus.yml" "$tmp/prom/prometheus.yml" | grep '^>' | tr -s ' ' | tr '\n' ';')"
# Alertmanager: every alert to the guest's webhook, at once (group_wait 1s).
cat >"$tmp/am.yml" <<EOF
route:
  receiver: lane
  group_by: [alertname, instance, kind, object]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: lane
    webhook_configs:
      - url: http://127.0.0.1:9099/hook
        send_resolved: false
EOF
# The webhook receiver: each notification, with when it came, one per line.
cat >"$tmp/webhook.py" <<'EOF'
import http.server, json, sys, time
out = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        t = time.time()
        with open(out, "a") as f:
            f.write(json.dumps({"received": t, "body": json.loads(body)}) + "\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", 9099), H).serve_forever()
EOF
: >"$tmp/hooks"
systemd-run -q --unit=ia-webhook python3 "$tmp/webhook.py" "$tmp/hooks"
systemd-run -q --unit=ia-alertmanager prometheus-alertmanager --config.file="$tmp/am.yml" \
	--storage.path="$tmp/am" --web.listen-address=127.0.0.1:9093 --cluster.listen-address=
systemd-run -q --unit=ia-prometheus prometheus --config.file="$tmp/prom/prometheus.yml" \
	--storage.tsdb.path="$tmp/tsdb" --web.listen-address=127.0.0.1:9090
nrules=$(grep -c -- '- alert:' "$ex/iommu-account.rules.yml")
check "Prometheus is ready and has loaded the shipped rules ($nrules, group iommu-account)" \
	until_ok 1200 eval 'get http://127.0.0.1:9090/api/v1/rules | jq -e "[.data.groups[] | select(.name == \"iommu-account\") | .rules[]] | length == $nrules" >/dev/null'
check "Prometheus scrapes the daemon ($listen): the target is up" \
	until_ok 1200 eval 'get http://127.0.0.1:9090/api/v1/targets | jq -e "any(.data.activeTargets[]; .labels.job == \"iommu-accountd\" and .health == \"up\")" >/dev/null'
check "Alertmanager is ready" until_ok 1200 eval 'get http://127.0.0.1:9093/-/ready >/dev/null'

# The refusal: uid ia-prom's pot under a 300 KiB RLIMIT_MEMLOCK, fio a holds
# 256 KiB of it, fio b asks 256 KiB more and is refused (ENOMEM).
useradd -r -M -s /usr/sbin/nologin ia-prom 2>/dev/null
puid=$(id -u ia-prom)
fio_run() {	# NAME: fio as ia-prom in a scope, 256 KiB of registered buffers
	systemd-run -q --scope --unit="ia-prom-$1" --uid=ia-prom \
		prlimit --memlock=307200:307200 fio --name="$1" --thread --ioengine=io_uring --fixedbufs=1 \
		--registerfiles=1 --filename=/dev/zero --rw=read --bs=64k --iodepth=4 --size=1G --time_based \
		--runtime=3600 --rate_iops=10 --iomem_align=4k >"$tmp/fio-$1.out" 2>&1 &
	fpid=$!
}
pot_held() { iommu-accountctl -j uids | jq -e ".[] | select(.uid == $puid) | .locked_bytes > 0" >/dev/null; }
fio_run a
apid=$fpid
check "fio a holds part of uid ia-prom's pot" until_ok 1200 pot_held
# The refusal counter must be in Prometheus before the refusal (increase()
# needs the sample before it).
refusals="iommu_account_quota_refusals_total{kind=\"uid-pot\",object=\"$puid\"}"
check "Prometheus has uid $puid's pot and its refusals counter at 0" \
	until_ok 1200 eval '[ "$(query "$refusals" | jq -r ".[0].value[1]")" = 0 ] &&
		[ "$(query "iommu_account_quota_used_bytes{kind=\"uid-pot\",object=\"$puid\"}" | jq -r ".[0].value[1]")" -gt 0 ]'
cur=$(journalctl -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p')
fio_run b
bpid=$fpid
until_ok 1200 eval '! kill -0 $bpid 2>/dev/null'
check "fio b is refused by the kernel (fio's own error: Cannot allocate memory)" \
	grep -q "Cannot allocate memory" "$tmp/fio-b.out"
fpid=$apid
# The daemon's FAILURE: the kernel's time of the refusal (KERNEL_TIME_NS,
# CLOCK_REALTIME) and when the daemon logged it.
fail_rec() {
	journalctl -u iommu-accountd -o json --after-cursor="$cur" -q |
		jq -c "select(.IOMMU_ACCOUNT_ALERT == \"FAILURE\" and .QUOTA_KIND == \"uid-pot\" and .OBJECT == \"$puid\")" | head -n 1
}
check "the daemon's FAILURE for uid $puid's pot (its journal entry)" until_ok 1200 eval '[ -n "$(fail_rec)" ]'
fail_rec >"$tmp/fail.json"
t_kernel=$(jq -r '(.KERNEL_TIME_NS | tonumber) / 1e9' "$tmp/fail.json")
t_daemon=$(jq -r '(.__REALTIME_TIMESTAMP | tonumber) / 1e6' "$tmp/fail.json")

firing() {
	get http://127.0.0.1:9090/api/v1/alerts |
		jq -e ".data.alerts[] | select(.labels.alertname == \"IommuAccountQuotaRefused\" and
			.labels.kind == \"uid-pot\" and .labels.object == \"$puid\" and .state == \"firing\")" >/dev/null
}
check "Prometheus: the shipped IommuAccountQuotaRefused fires for uid-pot $puid (/api/v1/alerts)" \
	until_ok 1800 firing
hooked() {
	jq -e -s "map(select(.body.alerts[] | .labels.alertname == \"IommuAccountQuotaRefused\" and
		.labels.object == \"$puid\" and .status == \"firing\")) | length > 0" "$tmp/hooks" >/dev/null
}
check "Alertmanager delivered it to the guest's webhook" until_ok 1800 hooked
t_hook=$(jq -s -r "map(select(.body.alerts[] | .labels.alertname == \"IommuAccountQuotaRefused\" and
	.labels.object == \"$puid\")) | first | .received" "$tmp/hooks")
lat_hook=$(echo "$t_hook $t_kernel" | awk '{ printf "%.1f", $1 - $2 }')
lat_daemon=$(echo "$t_daemon $t_kernel" | awk '{ printf "%.2f", $1 - $2 }')
diag "latency from the kernel's refusal: the daemon's FAILURE in the journal $lat_daemon s;" \
	"Prometheus -> Alertmanager -> webhook $lat_hook s (scrape and evaluation every 5 s, group_wait 1 s)"
# for: none; two scrape intervals (the one that sees the refusal may start
# just before it), one evaluation, group_wait, and a second of slack.
check "the webhook got it within the rule's for: (none) + 2 scrapes + 1 evaluation + group_wait ($lat_hook s <= 17 s)" \
	awk -v l="$lat_hook" 'BEGIN { exit !(l > 0 && l <= 17) }'
check "the notification's summary is the rule's, with the instance ($listen)" \
	jqes "any(.[].body.alerts[]; .labels.object == \"$puid\" and
		(.annotations.summary | test(\"refused uid-pot $puid on $listen\")))" "$tmp/hooks"

kill "$apid" 2>/dev/null
wait "$apid" 2>/dev/null
fpid=""
ktap_finish
