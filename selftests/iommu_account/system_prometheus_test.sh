#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# system_prometheus_test.sh: the system lane (scripts/vm/run --system) with
# Debian's Prometheus and Alertmanager on the packaged daemon. Prometheus
# runs the configuration and the rules the tools package installs
# (/usr/share/doc/iommu-account-tools/examples: the target set to the port
# the daemon listens on, the intervals 5 s instead of 15 s for the lane);
# Alertmanager sends to a webhook receiver in the guest. Two real refusals
# must each make the shipped alert IommuAccountQuotaRefused fire in
# Prometheus (/api/v1/alerts) and reach the webhook within the rule's for:
# (none) plus two scrape intervals, one evaluation and Alertmanager's
# group_wait:
#  - fio registering io_uring buffers past its RLIMIT_MEMLOCK in the uid's
#    shared pot (the pot stays: the alert names it);
#  - QEMU refused a VFIO map past dma_entry_limit at start (12 DIMMs, limit
#    12): its container is gone within milliseconds, before any scrape; the
#    alert comes from the daemon's count of the refusal's event, which
#    names the limit that refused (cause dma_entry_limit).
# The latency from the kernel's refusal (its own time, the daemon's
# KERNEL_TIME_NS) is reported beside the daemon's own alert's. Runs after
# system_test.sh, in the same boot, on each system kernel. KTAP; root in the
# guest only.
. "$(dirname "$0")/ktap_lib.sh"
. "$(dirname "$0")/system_lib.sh"
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
	systemctl stop ia-prometheus ia-alertmanager ia-webhook ia-scraper 2>/dev/null
	[ -n "${fpid:-}" ] && kill "$fpid" 2>/dev/null
	lim=/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
	[ -w "$lim" ] && echo 65535 >"$lim"
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
# The daemon restarted first: its count of refusals by cause is its own,
# since it started, and system_test.sh's refusals minutes before in this
# boot would otherwise keep IommuAccountQuotaRefused firing (it fires for
# 10 min after the last, with no new notification for a refusal of the
# same kind, cause and consumer): the alerts waited for below must be this
# test's refusals'.
systemctl restart iommu-accountd
until_ok 600 systemctl -q is-active iommu-accountd
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

# A saw-tooth: uid ia-saw's jobs (fio, 6 MiB of registered buffers under an
# 8 MiB RLIMIT_MEMLOCK: 75 % at their peak) run 12 s and stop, 8 times. The
# shipped rules must stay quiet: no alert of the uid pending or firing at
# any evaluation (Prometheus' own ALERTS series), and no forecast published
# by the daemon for it.
useradd -r -M -s /usr/sbin/nologin ia-saw 2>/dev/null
suid=$(id -u ia-saw)
i=0
while [ $i -lt 8 ]; do
	systemd-run -q --scope --unit="ia-saw-$i" --uid=ia-saw \
		prlimit --memlock=8388608:8388608 fio --name="saw$i" --thread --ioengine=io_uring \
		--fixedbufs=1 --filename=/dev/zero --rw=read --bs=1m --iodepth=6 --size=1G \
		--time_based --runtime=12 --rate_iops=10 >>"$tmp/fio-saw.out" 2>&1
	i=$((i + 1))
	# The pot back to nothing between two jobs (the ring's release is deferred).
	until_ok 400 eval 'iommu-accountctl -j uids --uid "$suid" | jq -e "all(.[]; .locked_bytes == 0)" >/dev/null'
	usleep 8000000 2>/dev/null || sleep 8
done
check "saw-tooth: 8 fio jobs of uid ia-saw ran to their end (6 MiB registered of 8 MiB)" \
	sh -c "[ \$(grep -c 'saw[0-9]: (groupid=0' '$tmp/fio-saw.out') = 8 ] && ! grep -q 'Cannot allocate memory' '$tmp/fio-saw.out'"
check "saw-tooth: Prometheus has uid ia-saw's pot at its peak (6 MiB) in the last 3 min" \
	until_ok 200 eval '[ "$(query "max_over_time(iommu_account_quota_used_bytes{kind=\"uid-pot\",object=\"$suid\"}[3m])" | jq -r ".[0].value[1] // 0")" -ge 6291456 ]'
check "saw-tooth: no alert of uid ia-saw was pending or firing at any evaluation (ALERTS)" \
	eval '[ "$(query "count_over_time(ALERTS{uid=\"$suid\"}[10m])")" = "[]" ]'
check "saw-tooth: the daemon published no forecast for it (no _exhaustion_seconds sample)" \
	eval '[ "$(query "count_over_time(iommu_account_quota_exhaustion_seconds{object=\"$suid\"}[10m])")" = "[]" ]'

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
# The kind's refusal count (the kernel's, what the alert is on) must be in
# Prometheus before the refusal (increase() needs the sample before it), and
# equal to what the module says now.
kref() { query "iommu_account_kind_refusals_total{kind=\"$1\"}" | jq -r '.[0].value[1] // empty'; }
kref_module() { iommu-accountctl -j status | jq -r ".quota_kinds[] | select(.name == \"$1\") | .refusals"; }
check "Prometheus has uid $puid's pot, and uid-pot's refusal count equal to the module's" \
	until_ok 1200 eval '[ "$(kref uid-pot)" = "$(kref_module uid-pot)" ] &&
		[ "$(query "iommu_account_quota_used_bytes{kind=\"uid-pot\",object=\"$puid\"}" | jq -r ".[0].value[1]")" -gt 0 ]'
check "no IommuAccountQuotaRefused pending or firing before this test's refusals" \
	eval '[ "$(query "ALERTS{alertname=\"IommuAccountQuotaRefused\"}")" = "[]" ]'
cur=$(journalctl -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p')
fio_run b
bpid=$fpid
until_ok 1200 eval '! kill -0 $bpid 2>/dev/null'
check "fio b is refused by the kernel (fio's own error: Cannot allocate memory)" \
	grep -q "Cannot allocate memory" "$tmp/fio-b.out"
fpid=$apid
# The daemon's FAILURE: the kernel's time of the refusal (KERNEL_TIME_NS,
# CLOCK_REALTIME) and when the daemon logged it.
fail_rec() {	# KIND OBJECT: the daemon's first FAILURE of it since $cur
	journalctl -u iommu-accountd -o json --after-cursor="$cur" -q |
		jq -c "select(.IOMMU_ACCOUNT_ALERT == \"FAILURE\" and .QUOTA_KIND == \"$1\" and .OBJECT == \"$2\")" | head -n 1
}
check "the daemon's FAILURE for uid $puid's pot (its journal entry)" until_ok 1200 eval '[ -n "$(fail_rec uid-pot $puid)" ]'

firing() {	# KIND
	get http://127.0.0.1:9090/api/v1/alerts |
		jq -e ".data.alerts[] | select(.labels.alertname == \"IommuAccountQuotaRefused\" and
			.labels.kind == \"$1\" and .state == \"firing\")" >/dev/null
}
hook_of() {	# KIND: the first notification of the alert for KIND
	jq -c -s "map(select(any(.body.alerts[]; .labels.alertname == \"IommuAccountQuotaRefused\" and
		.labels.kind == \"$1\" and .status == \"firing\"))) | first // empty" "$tmp/hooks"
}
# KIND FAILURE-JSON CAUSE [CONSUMER]: fired, delivered, in time, with the
# limit that refused and the consumer; the latencies from the kernel's refusal.
alert_path() {
	# (Not $1 inside an eval: until_ok's own arguments are there.)
	ak=$1
	check "Prometheus: the shipped IommuAccountQuotaRefused fires for $1 (/api/v1/alerts)" \
		until_ok 1800 firing "$1"
	check "Alertmanager delivered $1's to the guest's webhook" until_ok 1800 eval '[ -n "$(hook_of "$ak")" ]'
	hook_of "$1" >"$tmp/hook-$1.json"
	t_kernel=$(jq -r '(.KERNEL_TIME_NS | tonumber) / 1e9' "$2")
	t_daemon=$(jq -r '(.__REALTIME_TIMESTAMP | tonumber) / 1e6' "$2")
	t_hook=$(jq -r .received "$tmp/hook-$1.json")
	lat_hook=$(echo "$t_hook $t_kernel" | awk '{ printf "%.1f", $1 - $2 }')
	lat_daemon=$(echo "$t_daemon $t_kernel" | awk '{ printf "%.2f", $1 - $2 }')
	diag "$1: latency from the kernel's refusal: the daemon's FAILURE in the journal $lat_daemon s;" \
		"Prometheus -> Alertmanager -> webhook $lat_hook s (scrape and evaluation every 5 s, group_wait 1 s)"
	# for: none; two scrape intervals (the one that sees the refusal may
	# start just before it), one evaluation, group_wait, and a second of slack.
	check "$1: the webhook got it within the rule's for: (none) + 2 scrapes + 1 evaluation + group_wait ($lat_hook s <= 17 s)" \
		awk -v l="$lat_hook" 'BEGIN { exit !(l > 0 && l <= 17) }'
	cc="$3${4:+, $4}"
	check "$1: the notification's summary is the rule's, with the instance ($listen) and the cause ($cc)" \
		jq -e ".body.alerts[0].annotations.summary == \"the kernel refused $1 quota on $listen ($cc)\"" "$tmp/hook-$1.json"
	check "$1: its labels say cause $3${4:+, consumer $4}, not expected" \
		jq -e ".body.alerts[0].labels | .cause == \"$3\" and (.consumer // \"\") == \"${4:-}\" and .expected == \"false\"" \
		"$tmp/hook-$1.json"
}
fail_rec uid-pot "$puid" >"$tmp/fail-pot.json"
alert_path uid-pot "$tmp/fail-pot.json" rlimit_memlock io_uring-buffers
check "its description names the pot, still there: uid-pot $puid (uid $puid)" \
	jq -e ".body.alerts[0].annotations.description | test(\"still there: uid-pot $puid \\\\(uid $puid\\\\)\")" \
	"$tmp/hook-uid-pot.json"

kill "$apid" 2>/dev/null
wait "$apid" 2>/dev/null
fpid=""

# --- a VM that cannot start: QEMU refused past dma_entry_limit ---------------
# 12 DIMMs besides the base RAM need more than 12 mappings: QEMU's MAP_DMA is
# refused (ENOSPC), it exits, and its container goes with it.
modprobe vfio-pci
modprobe vfio_iommu_type1
edu=$(first_edu)
check "edu $edu bound to vfio-pci" bind_vfio "$edu"
check "Prometheus has vfio-container's refusal count, equal to the module's" \
	until_ok 1200 eval '[ -n "$(kref vfio-container)" ] && [ "$(kref vfio-container)" = "$(kref_module vfio-container)" ]'
k0=$(kref_module vfio-container)
dimms=""
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
	dimms="$dimms -object memory-backend-ram,id=ia$i,size=8M -device pc-dimm,memdev=ia$i"
done
echo 12 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
cur=$(journalctl -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p')
# shellcheck disable=SC2086
qemu-system-x86_64 -nodefaults -display none -accel tcg,tb-size=32 -M pc -m 64,slots=12,maxmem=1G -S \
	-device "vfio-pci,host=$edu" $dimms >"$tmp/qemu.out" 2>&1 &
qpid=$!
wait $qpid
qrc=$?
echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
check "QEMU fails to start: No space left on device (exit $qrc)" \
	sh -c "[ $qrc != 0 ] && grep -q 'No space left on device' '$tmp/qemu.out'"
k1=$(kref_module vfio-container)
check "the module counted QEMU's refusal(s) in vfio-container's refusals ($k0 -> $k1)" [ "$k1" -gt "$k0" ]
qfail() {
	journalctl -u iommu-accountd -o json --after-cursor="$cur" -q |
		jq -c "select(.IOMMU_ACCOUNT_ALERT == \"FAILURE\" and .QUOTA_KIND == \"vfio-container\" and .PID == \"$qpid\")" | head -n 1
}
check "the daemon's FAILURE for QEMU's container (its journal entry)" until_ok 1200 eval '[ -n "$(qfail)" ]'
qfail >"$tmp/fail-vfio.json"
qobj=$(jq -r .OBJECT "$tmp/fail-vfio.json")
check "QEMU's container $qobj is gone (the module no longer has it)" \
	eval '! iommu-accountctl -j quotas --kind vfio-container | jq -e "any(.[]; .id == $qobj)" >/dev/null'
alert_path vfio-container "$tmp/fail-vfio.json" dma_entry_limit
check "Prometheus' vfio-container refusal count is the module's ($k1)" \
	until_ok 1200 eval '[ "$(kref vfio-container)" = "$k1" ]'
seen=$(query "count_over_time(iommu_account_quota_used_entries{kind=\"vfio-container\",object=\"$qobj\"}[10m])" |
	jq -r '.[0].value[1] // 0')
diag "samples Prometheus ever got of container $qobj's own series: $seen (its refusal was counted by the kind's all the same)"
check "its description says the refused objects are gone" \
	jq -e '.body.alerts[0].annotations.description | startswith("The refused objects are gone")' \
	"$tmp/hook-vfio-container.json"

# --- scrapes across a daemon restart ----------------------------------------
# A client scraping /metrics over and over while systemd restarts the daemon:
# each scrape is refused, unanswered, or a whole exposition (Content-Length
# bytes, every line a comment or a sample, the exposition's last family
# there); never part of one, which Prometheus could store as if whole.
cat >"$tmp/scraper.py" <<'EOF'
import http.client, json, os, re, sys, time
host, port = sys.argv[1].rsplit(":", 1)
stop, out = sys.argv[2], sys.argv[3]
line_ok = re.compile(r'^(#.*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [^ ]+)$')
n = {"whole": 0, "up0": 0, "refused": 0, "unanswered": 0, "partial": 0}
first_whole = last_whole = None
why = []
while not os.path.exists(stop):
    got_status = False
    try:
        c = http.client.HTTPConnection(host, int(port), timeout=5)
        c.request("GET", "/metrics")
        r = c.getresponse()
        got_status = True
        body = r.read()
        cl = r.getheader("Content-Length")
        txt = body.decode("utf-8")
        lines = txt.split("\n")
        if (r.status != 200 or cl is None or int(cl) != len(body) or lines[-1] != "" or
                not all(line_ok.match(l) for l in lines[:-1]) or
                "\niommu_account_exporter_series " not in txt):
            n["partial"] += 1
            why.append("status %d, %d of Content-Length %s" % (r.status, len(body), cl))
        elif "\niommu_account_up 0\n" in txt:
            n["up0"] += 1
        else:
            n["whole"] += 1
            last_whole = time.time()
            if first_whole is None:
                first_whole = last_whole
                open(out + ".started", "w").close()
        c.close()
    except ConnectionRefusedError:
        n["refused"] += 1
    except (http.client.HTTPException, ConnectionError, TimeoutError, UnicodeDecodeError) as e:
        # Closed before any answer: a failed scrape. After the status line: part of one.
        if got_status:
            n["partial"] += 1
            why.append(repr(e))
        else:
            n["unanswered"] += 1
with open(out + ".new", "w") as f:
    json.dump({"n": n, "why": why[:5], "first_whole": first_whole, "last_whole": last_whole}, f)
os.rename(out + ".new", out)
EOF
opid=$(systemctl show -P MainPID iommu-accountd)
systemd-run -q --unit=ia-scraper python3 "$tmp/scraper.py" "$listen" "$tmp/scraper.stop" "$tmp/scraper.json"
# The scraper has had a whole answer from the daemon before the restart.
until_ok 1200 test -e "$tmp/scraper.json.started"
systemctl restart iommu-accountd
check "the daemon restarted (main pid $opid -> $(systemctl show -P MainPID iommu-accountd))" \
	eval '[ "$(systemctl show -P MainPID iommu-accountd)" != "$opid" ]'
t_restart=$(date +%s.%N)
# Until the new daemon has answered a whole exposition.
until_ok 1200 eval 'get "http://$listen/metrics" | grep -q "^iommu_account_up 1$"'
touch "$tmp/scraper.stop"
until_ok 1200 eval '[ -s "$tmp/scraper.json" ]'
diag "scrapes across the restart: $(jq -c .n "$tmp/scraper.json"); $(jq -c .why "$tmp/scraper.json")"
check "no scrape across the restart got part of an exposition" \
	jq -e '.n.partial == 0' "$tmp/scraper.json"
check "whole expositions before and after the restart (the scraper ran across it)" \
	jq -e --argjson t "$t_restart" '.first_whole < $t and .last_whole > $t' "$tmp/scraper.json"
check "Prometheus scrapes the restarted daemon: the target is up" \
	until_ok 1200 eval '[ "$(query "iommu_account_up" | jq -r ".[0].value[1]")" = 1 ]'
ktap_finish
