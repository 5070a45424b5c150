#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iommu-accountd beside real workloads, in the VM, as root. KTAP output.
#
# The daemon logs to "journald": journal_catch stands at journald's socket
# and records what libsystemd sends (journald does not run in the VM). Its
# exec hook appends each alert (JSON) with the time it ran (/proc/uptime).
#   - started without the module: waits and says so; up when it loads
#   - per-uid pot filled by a process of uid 1000: WARNING (trend) before the
#     kernel's first refusal, then FAILURE with who and what, and its flight
#     record (who held the pot then) equal to GET_PROC's, and the on-disk
#     history of the pot read back by iommu-accountctl history; a hook that
#     hangs (on CRITICAL) is killed at its timeout, alerting goes on
#   - VFIO mapping leak to dma_entry_limit: the same
#   - the exporter's figures equal `iommu-accountctl --json quotas`
#   - a flood read slowly: one logged overrun and resync, figures exact
#   - rmmod/modprobe under the daemon: down, up, no false FAILURE
#   - the trend, live: a saw-tooth raises nothing (defaults and a short
#     configuration), a leak is predicted before the kernel refuses it
# Waits are bounded polls of files and the exporter, never sleeps.
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
dpid="" jpid="" hold1="" hold2="" idle=""
lim=/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
port=9847
cleanup() {
	[ -n "$hold1" ] && exec 3>&- && wait "$hold1" 2>/dev/null
	[ -n "$hold2" ] && exec 4>&- && wait "$hold2" 2>/dev/null
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	[ -n "$jpid" ] && kill "$jpid" 2>/dev/null
	[ -n "$idle" ] && kill "$idle" 2>/dev/null
	echo 65535 >$lim 2>/dev/null
	rmdir "$dockcg" "$(dirname "$dockcg")" 2>/dev/null
	[ -n "${vfcg:-}" ] && rmdir "$vfcg" "$(dirname "$vfcg")" "$(dirname "$(dirname "$vfcg")")" \
		/sys/fs/cgroup/kubepods.slice 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

metrics() { wget -q -O - "http://127.0.0.1:$port/metrics"; }
metric() { metrics | awk -v m="$1" '$1 == m {print $2}'; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }
metric_gt() { v=$(metric "$1"); [ -n "$v" ] && [ "$v" -gt "$2" ]; }
# KIND OBJECT UID STATE: the exporter's state set says STATE (1), and 0 for the three others.
state_is() {
	_sp="iommu_account_quota_state{kind=\"$1\",object=\"$2\",uid=\"$3\",state="
	_m=$(metrics) || return 1
	[ "$(echo "$_m" | grep -cF "$_sp\"$4\"} 1")" = 1 ] &&
		[ "$(echo "$_m" | grep -F "$_sp" | grep -c '} 0$')" = 3 ]
}
journal_count() { grep -c "$1" "$tmp/journal.txt"; }
hook_count() { hook_lines "$@" | wc -l; }
journal_has() { grep -q "$1" "$tmp/journal.txt" 2>/dev/null; }
# The hook's lines ("UPTIME DOC") for one alert of one object: ALERT KIND
# [OBJECT], chosen by the document's parsed fields.
hook_lines() {
	jq -R -r --arg a "$1" --arg k "$2" --arg o "${3:-}" '
		(index(" ")) as $i | (.[$i + 1:] | fromjson? // {}) as $j |
		select($j.alert == $a and $j.kind == $k and ($o == "" or ($j.object | tostring) == $o))' \
		"$tmp/hook.log" 2>/dev/null
}
# The document of a hook line.
hook_doc() { printf '%s' "${1#* }"; }
hook_has() { [ -n "$(hook_lines "$@")" ]; }
# The uptime at which the hook ran for the first ALERT KIND [OBJECT].
hook_time() { hook_lines "$@" | head -n 1 | cut -d' ' -f1; }
# "kind id unit used limit" per quota object, from ctl and from the
# exporter (the unit there: the last part of the name, one unit per name).
ctl_figures() {
	iommu-accountctl -j quotas | sed 's/},{/}\n{/g' |
		sed -n 's/.*"kind":"\([^"]*\)","id":\([0-9]*\),"unit":"\([^"]*\)","used":\([0-9]*\),"limit":\([0-9a-z]*\).*/\1 \2 \3 \4 \5/p' |
		sed 's/ null$/ -/' | sort
}
exporter_figures() {
	metrics | awk '
		/^iommu_account_quota_(used|limit)_[a-z0-9_]+\{/ {
			match($1, /kind="[^"]*"/); k = substr($1, RSTART + 6, RLENGTH - 7)
			match($1, /object="[^"]*"/); o = substr($1, RSTART + 8, RLENGTH - 9)
			match($1, /^iommu_account_quota_(used|limit)_[a-z0-9_]+/)
			n = substr($1, 1, RLENGTH); sub(/^iommu_account_quota_(used|limit)_/, "", n)
			key = k " " o " " n
			if ($1 ~ /^iommu_account_quota_used_/) used[key] = $2; else limit[key] = $2
		}
		END { for (key in used) print key, used[key], (key in limit) ? limit[key] : "-" }' | sort
}
figures_equal() {
	ctl_figures >"$tmp/ctl.fig"
	exporter_figures >"$tmp/exp.fig"
	[ -s "$tmp/ctl.fig" ] && cmp -s "$tmp/ctl.fig" "$tmp/exp.fig"
}

echo "TAP version 13"
ip link set lo up

# The journal and the hook.
journal_start "$tmp/journal.txt"
cat >"$tmp/hook.sh" <<EOF
#!/bin/sh
read -r up rest </proc/uptime
doc=\$(cat)
echo "\$up \$doc" >>$tmp/hook.log
# What the hook inherited of the daemon's sockets (netlink, exporter, journal): none.
ls -l /proc/\$\$/fd 2>/dev/null | grep -c 'socket:' >>$tmp/hook.sockets
# A hook that hangs on CRITICAL alerts: the daemon must kill it.
case \$doc in *'"alert":"CRITICAL"'*) sleep 600 ;; esac
exit 0
EOF
chmod +x "$tmp/hook.sh"
# The hooks' time limit: 2 s, longer on a debug kernel, where starting the
# hook's shell alone can take a second.
hook_timeout=$((2 * ${IA_TIMEOUT_SCALE:-1}))
cat >"$tmp/d.conf" <<EOF
# the daemon under test
[daemon]
interval = 0.25
idle_interval = 1
window = 10
log = journal
[thresholds]
horizon = 600
[exec]
program = $tmp/hook.sh
timeout = $hook_timeout
[exporter]
listen = 127.0.0.1:$port
[history]
path = $tmp/hist
max_size = 262144
[refusals]
# root's refusals (vfio_tool's, below) are a test's on purpose
expected_uids = 0
[thresholds.qpair]
# a qpair's saturation alerts when it lasts (30 s by default; 3 s here)
sustain = 3
EOF

check "iommu-accountd -t accepts the test configuration" sh -c "iommu-accountd -t -c '$tmp/d.conf' >/dev/null"
printf '[daemon]\ninterval = 1\nwindow = 60\nbogus = 1\n' >"$tmp/bad.conf"
iommu-accountd -f -c "$tmp/bad.conf" 2>"$tmp/bad.err"; rc=$?
check "a bad configuration: exit 1 naming the line and the reason" \
	sh -c "[ $rc = 1 ] && grep -q 'bad.conf:4: unknown key .bogus. in \[daemon\]' '$tmp/bad.err'"

modprobe -r iommu_account
# The kernel's default events buffer (not libia's 8 MiB): the flood below overruns it.
IA_EVENTS_RCVBUF=0 iommu-accountd -f -c "$tmp/d.conf" 2>"$tmp/d.err" &
dpid=$!
daemon_gone() {	# why the daemon is gone: its exit status and its stderr
	wait "$dpid"
	echo "# the daemon (pid $dpid) is gone: exit status $?"
	sed 's/^/# /' "$tmp/d.err"
	grep '^MESSAGE=' "$tmp/journal.txt" | tail -n 5 | sed 's/^/# /'
}
check "started without the module: says it waits for it" \
	until_ok 200 journal_has 'MESSAGE=iommu_account is not loaded.*waiting for it'
check "started without the module: exporter says source down (iommu_account_up 0)" \
	until_ok 100 metric_is iommu_account_up 0
modprobe iommu_account
check "module loaded: source up, events followed" \
	until_ok 200 journal_has 'MESSAGE=source up: iommu_account .*events followed'
check "module loaded: iommu_account_up 1" until_ok 100 metric_is iommu_account_up 1

# --- the per-uid pot: uid 1000 with RLIMIT_MEMLOCK 8 MiB, +256 KiB every 100 ms.
# It runs in a cgroup named as Docker names a container's (systemd driver):
# the alerts name the container.
CID=4f1c2b3a4d5e6f708192a3b4c5d6e7f80123456789abcdef0123456789abcdef
dockcg=/sys/fs/cgroup/system.slice/docker-$CID.scope
mkdir -p "$dockcg"
mkfifo "$tmp/hold1"
# pot_leak itself unlimited: its agent's 8 MiB is the agent's own (the
# FAILURE's cause says where a limit comes from).
sh -c 'echo $$ >"$1/cgroup.procs"; shift; ulimit -l unlimited; exec "$@"' _ "$dockcg" \
	pot_leak 1000 8388608 262144 100 <"$tmp/hold1" >"$tmp/pot.txt" 2>&1 &
hold1=$!
exec 3>"$tmp/hold1"
# An idle shell of uid 1000 with a 1 MiB limit beside it, which never
# charges, started once the pot's first charge is seen: from then on the
# pot's limit is its charger's 8 MiB, the 1 MiB its own series (an idle
# process must not make a job look full). (Before any charge the limit is
# the smallest of the uid's processes, flagged: uid_test checks that.)
until_ok 200 eval 'iommu-accountctl -j quotas --kind uid-pot --uid 1000 |
	jq -e "any(.[]; .limit_of == \"last_charger\")" >/dev/null'
runas 1000 sh -c 'ulimit -l 1024 && exec sleep 100000' &
idle=$!
check "pot: the kernel refuses a buffer of uid 1000 with ENOMEM" \
	until_ok 1200 grep -q 'refused: Cannot allocate memory at boottime' "$tmp/pot.txt"
refused=$(sed -n 's/.* at boottime \([0-9.]*\)$/\1/p' "$tmp/pot.txt")
nbuf=$(sed -n 's/.*buffer #\([0-9]*\) refused.*/\1/p' "$tmp/pot.txt")
# GET_QUOTA against what the kernel did: buffers 1..N-1 of 256 KiB were charged.
q=$(iommu-accountctl -j quotas --kind uid-pot)
check "GET_QUOTA: uid 1000's pot holds the $((nbuf - 1)) accepted buffers, limit 8 MiB" \
	jqt "any(.[]; .id == 1000 and .used == $(((nbuf - 1) * 262144)) and .limit == 8388608 and .uid == 1000)" "$q"
check "GET_QUOTA: the limit is the charger's 8 MiB, the idle shell's 1 MiB the smallest" \
	jqt 'any(.[]; .id == 1000 and .limit_of == "last_charger" and .limit == 8388608 and .limit_min == 1048576)' "$q"
check "exporter: uid 1000's limit 8 MiB, its smallest 1 MiB, utilisation against the 8 MiB" \
	until_ok 100 sh -c 'm=$(wget -q -O - "http://127.0.0.1:$1/metrics") &&
		echo "$m" | grep -q "^iommu_account_quota_limit_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 8388608\$" &&
		echo "$m" | grep -q "^iommu_account_uid_pot_smallest_limit_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 1048576\$" &&
		echo "$m" | awk -v want="$2" '"'"'$1 == "iommu_account_quota_utilization_ratio{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"}" { f = 1; if ($2 + 0 < want - 1e-5 || $2 + 0 > want + 1e-5) exit 1 } END { exit !f }'"'"'' \
	_ "$port" "$(awk -v u=$(((nbuf - 1) * 262144)) 'BEGIN { printf "%.6f", u / 8388608 }')"
q=$(runas 1000 iommu-accountctl -j quotas)
check "GET_QUOTA unprivileged (uid 1000): its own pot only" \
	jqt 'length == 1 and .[0].kind == "uid-pot" and .[0].id == 1000' "$q"
check "pot: FAILURE relayed to the hook" until_ok 200 hook_has FAILURE uid-pot 1000
check "hooks inherit none of the daemon's sockets (netlink, exporter, journal)" \
	until_ok 100 sh -c '[ -s "$1" ] && ! grep -qv "^0$" "$1"' _ "$tmp/hook.sockets"
warned=$(hook_time WARNING uid-pot 1000)
echo "# pot: WARNING ran at ${warned:-never}, the kernel refused at $refused (uptime, s)"
check "pot: WARNING (from the trend) ran before the kernel's first refusal" \
	awk -v w="$warned" -v r="$refused" 'BEGIN { exit !(w != "" && w + 0 < r + 0) }'
c=$(hook_count WARNING uid-pot 1000)
check "pot: WARNING said once (no repeats while it holds)" [ "$c" = 1 ]
fl=$(hook_lines FAILURE uid-pot 1000 | head -n 1)
check "pot: FAILURE says who: comm pot_leak, uid 1000, ENOMEM, the size asked" \
	jqt '.uid == 1000 and (.pid | type) == "number" and .comm == "pot_leak" and .errno == "ENOMEM" and
		.size == 262144' "$(hook_doc "$fl")"
check "pot: FAILURE names the Docker container pot_leak runs in, and so does its flight record" \
	jqt ".identity.runtime == \"docker\" and .identity.container_id == \"$CID\" and
		.holders[0].identity.container_id == \"$CID\"" "$(hook_doc "$fl")"
# The pot's cause, as explain uid diagnoses it. Who shares the pot: the
# same diagnosis asked now (pot_leak holds still). Where the refused
# process's RLIMIT_MEMLOCK comes from: walked up /proc here, to the highest
# ancestor with the same limit, and that one's parent.
memlock_of() { awk '/^Max locked memory/ { print $4 }' "/proc/$1/limits"; }
limit_origin() {
	o=$1; l=$(memlock_of "$o")
	while pp=$(awk '/^PPid:/ { print $2 }' "/proc/$o/status") && [ "$pp" -gt 0 ] &&
		[ "$(memlock_of "$pp")" = "$l" ]; do o=$pp; done
	echo "$o $pp"
}
fdoc=$(hook_doc "$fl")
fpid=$(echo "$fdoc" | jq .pid)
read -r forig fpar <<EOF_ORIGIN
$(limit_origin "$fpid")
EOF_ORIGIN
ex=$(iommu-accountctl -j explain uid 1000)
echo "# pot: FAILURE reason: $(echo "$fdoc" | jq -r .reason); origin $forig, its parent $fpar"
check "pot: FAILURE says the pot is shared by the processes and cgroups explain uid counts" \
	jqt '.reason | contains("; the pot is one counter for uid 1000, shared by \($e.processes) process" +
		(if $e.processes == 1 then "" else "es" end) + " in \($e.cgroups | length) cgroup")' "$fdoc" --argjson e "$ex"
if [ "$forig" = "$fpid" ]; then want_origin="is its own"; else want_origin="comes from .*\\[$forig\\]"; fi
[ "$fpar" -gt 0 ] && want_origin="$want_origin, whose parent .*\\[$fpar\\] has"
check "pot: FAILURE says where pot_leak's RLIMIT_MEMLOCK comes from ($want_origin), as /proc's chain has it" \
	jqt '.reason | test($re)' "$fdoc" --arg re "; its RLIMIT_MEMLOCK 8.0 MiB $want_origin"
check "pot: FAILURE carries explain uid's fixes, raising RLIMIT_MEMLOCK among them (the kernel refused)" \
	jqt '.fixes == $e.fixes and any(.fixes[]; startswith("raise RLIMIT_MEMLOCK"))' "$fdoc" --argjson e "$ex"
# The flight record against the kernel's own attribution: pot_leak holds
# still after the refusal, so GET_PROC now is GET_PROC at the refusal.
holders_of_procs() {
	iommu-accountctl -j procs --uid 1000 |
		jq -c '[.[] | {pid, held: ([.charged[]] | add // 0)} | select(.held > 0)] | sort_by(-.held)'
}
fr_want=$(holders_of_procs)
fr_got=$(hook_doc "$fl" | jq -c '[.holders[]? | {pid, held}]')
echo "# pot: flight record $fr_got; GET_PROC $fr_want"
check "pot: FAILURE's flight record names the processes GET_PROC says hold the pot, with their bytes" \
	sh -c '[ "$1" = "$2" ] && [ "$1" != "[]" ]' _ "$fr_got" "$fr_want"
fr_alerts=$(iommu-accountctl -j alerts | jq -c '.[] | select(.kind == "uid-pot" and .object == 1000) |
	[.holders[] | {pid, held}]')
check "pot: /alerts (iommu-accountctl -j alerts) keeps that flight record" [ "$fr_alerts" = "$fr_got" ]
# The exporter's holder series: pot_leak's bytes (GET_PROC's) under its container's labels.
potheld=$(echo "$fr_got" | jq '.[0].held')
holder_series_ok() {
	metrics | grep -q "^iommu_account_holder_pot_bytes{uid=\"1000\",cgroup=\"/system.slice/docker-$CID.scope\",cgroup_id=\"$(stat -c %i "$dockcg")\",container_id=\"$CID\",pod_uid=\"\",runtime=\"docker\",unit=\"\"} $potheld\$"
}
check "exporter: uid 1000's holder series names the Docker container, with the $potheld bytes GET_PROC gives" \
	until_ok 100 holder_series_ok
check "pot: iommu-accountctl alerts names the holder's container" sh -c "iommu-accountctl alerts |
	grep -q 'held by pot_leak\[[0-9]*\] [0-9.]* [KM]iB (container 4f1c2b3a4d5e… (docker))'"
check "pot: FAILURE carries the kernel's event sequence number and time" \
	jqt '.seq >= 1 and .kernel_time_ns >= 1000000000000000000 and .kernel_time_ns < 2000000000000000000' \
		"$(hook_doc "$fl")"
# One record (fields, then an empty line) per alert of ALERT KIND.
journal_record() {
	awk -v a="IOMMU_ACCOUNT_ALERT=$1" -v k="QUOTA_KIND=$2" 'BEGIN { RS = "" }
		index($0, a "\n") && index($0, k "\n") { print; exit }' "$tmp/journal.txt"
}
journal_failure_fields() {
	r=$(journal_record FAILURE uid-pot)
	hp=$(echo "$fr_got" | jq -r 'map(.pid | tostring) | join(" ")')
	for f in PRIORITY=3 'MESSAGE_ID=2f39fb8a4b6140d3acefdb38e3b86146$' OBJECT=1000 UID=1000 COMM=pot_leak \
		LIMIT=8388608 'PID=[1-9]' \
		'USED=[0-9]' 'SEQ=[1-9]' 'RATE=' 'ETA_S=' 'CGROUP=' 'MESSAGE=FAILURE uid-pot 1000: ' \
		"HOLDER_PIDS=$hp\$" 'FIXES=raise RLIMIT_MEMLOCK' 'HOLDERS=pot_leak\[[0-9]*\] uid 1000 in /system.slice/docker-' \
		"CONTAINER_ID=$CID\$" 'RUNTIME=docker$' 'IDENTITY=container 4f1c2b3a4d5e… (docker)$' \
		'MESSAGE=FAILURE uid-pot 1000: .* in container 4f1c2b3a4d5e… (docker)$'; do
		echo "$r" | grep -q "^$f" || { echo "# journal: no $f in the FAILURE record"; return 1; }
	done
}
check "pot: journald got the FAILURE with its structured fields" until_ok 100 journal_failure_fields
# The on-disk history: what the daemon kept of uid 1000's pot, read back
# without the daemon, against the kernel's figures above.
potused=$(((nbuf - 1) * 262144))
history_reached_failure() {
	iommu-accountctl -j history uid-pot:1000 --file "$tmp/hist" >"$tmp/hist.json" &&
		jq -e ".[-1].state == \"FAILURE\" and .[-1].used == $potused" "$tmp/hist.json" >/dev/null
}
check "history: uid 1000's last sample is the kernel's pot ($potused bytes) in FAILURE" \
	until_ok 100 history_reached_failure
check "history: samples in time order, rising to that figure, with the 8 MiB limit" \
	jqt "length >= 3 and (map(.time) | . == sort) and (map(.used) | max) == $potused and
		.[0].used < $potused and all(.[]; .limit == 8388608 and .unit == \"bytes\" and .uid == 1000)" \
		"$(cat "$tmp/hist.json")"
om=$(iommu-accountctl history uid-pot:1000 --file "$tmp/hist" --openmetrics)
check "history --openmetrics: the used series ends at the pot, then the limit series, # EOF" \
	sh -c 'echo "$1" | grep -q "^iommu_account_quota_used_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} $2 [0-9.]*$" &&
		echo "$1" | grep -q "^iommu_account_quota_limit_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\"} 8388608 " &&
		[ "$(echo "$1" | tail -n 1)" = "# EOF" ]' _ "$om" "$potused"
kill "$idle"; wait "$idle" 2>/dev/null; idle=""
# The FAILURE's flight record in the history: its holders (pid, bytes) are
# the flight record's, GET_PROC's above; each one's cgroup id is the
# cgroup v2 directory's own (its inode), as the live holder series say.
hist_holders() { jq -c '[.[] | select(.state == "FAILURE" and .holders) | .holders[] | {pid, held}]' "$tmp/hist.json"; }
check "history: the FAILURE carries its holders, as the flight record ($fr_got): $(hist_holders)" \
	sh -c '[ "$1" = "$2" ]' _ "$(hist_holders)" "$fr_got"
check "history: each holder's cgroup_id is its cgroup's ($(stat -c %i "$dockcg"), the Docker scope's)" \
	jq -e "[.[] | select(.state == \"FAILURE\" and .holders) | .holders[].cgroup_id] | length > 0 and
		all(. == $(stat -c %i "$dockcg"))" "$tmp/hist.json"
om_holder="iommu_account_failure_holder_bytes{kind=\"uid-pot\",object=\"1000\",uid=\"1000\",pid=\"$(echo "$fr_got" | jq '.[0].pid')\",cgroup_id=\"$(stat -c %i "$dockcg")\"} $potheld "
check "history --openmetrics: the FAILURE's holder as iommu_account_failure_holder_bytes (cgroup_id joins the live holder series)" \
	sh -c 'echo "$1" | grep -qF "$2"' _ "$om" "$om_holder"
# A backfill joins the live series: the same name and the same labels.
live_series() { metrics | sed -n 's/^\(iommu_account_quota_used_[a-z_]*{kind="uid-pot",object="1000",[^}]*}\) .*/\1/p'; }
check "history --openmetrics: its series is the exporter's own (name and labels: $(live_series))" \
	sh -c '[ -n "$2" ] && echo "$1" | grep -qF "$2 "' _ "$om" "$(live_series)"
# --list and --until: the objects the file holds, to a fixed time (the
# daemon goes on appending), against the samples history itself shows.
# (The times are shown to the millisecond: until is the last one's, plus one.)
t_until=$(jq -r '.[-1].time' "$tmp/hist.json" | awk '{ printf "%.3f", $1 + 0.001 }')
n_until=$(iommu-accountctl -j history uid-pot:1000 --file "$tmp/hist" --until "@$t_until" | jq length)
check "history --list --until: uid-pot:1000 with the $n_until samples history shows up to then, last FAILURE" \
	jqt "any(.[]; .kind == \"uid-pot\" and .object == 1000 and .unit == \"bytes\" and .uid == 1000 and
		.samples == $n_until and .samples >= 3 and .state == \"FAILURE\")" \
	"$(iommu-accountctl -j history --list --file "$tmp/hist" --until "@$t_until")"
check "history --until before the first sample: none, said so" \
	sh -c 'iommu-accountctl history --list --file "$1" --until @1000 | grep -q "^no sample in "' _ "$tmp/hist"
check "history: the file stays within max_size (262144 bytes)" \
	sh -c '[ "$(stat -c %s "$1")" -le 262144 ]' _ "$tmp/hist"
out=$(iommu-accountctl history uid-pot:1000 --file "$tmp/hist" --since @4000000000)
check "history --since after the last sample: none, said so" \
	sh -c 'echo "$1" | grep -q "^no sample of uid-pot:1000 in "' _ "$out"
iommu-accountctl history uid-pot:1000 --file "$tmp/nohist" 2>"$tmp/err"; rc=$?
check "history of a missing file: exit 4, names it and where the daemon writes" \
	sh -c "[ $rc = 4 ] && grep -q 'nohist: No such file or directory (iommu-accountd writes it where \[history\] path says' '$tmp/err'"
check "pot: the CRITICAL hook hung and was killed at its $hook_timeout s timeout" \
	until_ok 200 journal_has "MESSAGE=exec hook for CRITICAL uid-pot 1000 still running after $hook_timeout s: killed"
check "pot: exporter counts the timeout (iommu_account_exec_timeouts_total 1)" \
	until_ok 100 metric_is iommu_account_exec_timeouts_total 1
check "pot: exporter state FAILURE for uid 1000 (the state set: FAILURE 1, the other three 0)" \
	until_ok 100 state_is uid-pot 1000 1000 FAILURE
check "pot: the exporter's figures equal iommu-accountctl --json quotas" until_ok 200 figures_equal
check "alerts: iommu-accountctl alerts shows uid 1000 in FAILURE" \
	sh -c "iommu-accountctl alerts | grep -q '^uid-pot  *1000  *FAILURE'"

# iommu-accountctl top, driven in tmux (a 120x30 terminal), screen read back.
# tmux needs a UTF-8 locale (the VM has glibc's C.UTF-8).
tm() { LC_ALL=C.UTF-8 tmux "$@"; }
top_screen() { tm capture-pane -p -e -t top >"$tmp/top.txt" 2>/dev/null; }
top_shows_pot_failure() {
	top_screen && grep -q 'module up' "$tmp/top.txt" &&
		grep 'uid-pot  *1000  \[####################\] 100.0%  *8.0 MiB  *8.0 MiB' "$tmp/top.txt" |
		grep -q "$(printf '\033')\[41mFAILURE"
}
if command -v tmux >/dev/null; then
	tm new-session -d -s top -x 120 -y 30 "TERM=screen iommu-accountctl top"
	# tmux re-encodes the colour as separate sequences: red background 41.
	check "top (tmux): uid 1000's pot full, FAILURE on red, with its bar" until_ok 200 top_shows_pot_failure
	tm send-keys -t top q
	check "top (tmux): q quits" until_ok 100 sh -c '! LC_ALL=C.UTF-8 tmux has-session -t top 2>/dev/null'
	tm kill-server 2>/dev/null
else
	nok "top (tmux): tmux is not in the VM"
fi
out=$(iommu-accountctl top | cat)
check "top not on a terminal: one plain frame, no escape codes" \
	sh -c 'echo "$1" | grep -q "^FAILURE  *uid-pot  *1000  *\[####################\]" && ! echo "$1" | grep -q "$(printf "\033")"' _ "$out"

# A process names itself with a tab and a newline (prctl): it can forge no
# entry of /alerts and no line of the log, and the exec hook's JSON carries it
# whole, escaped as JSON escapes it (names_test.sh tries every output).
POT_LEAK_COMM="$(printf 'ev\til\nOK')" pot_leak 1001 1048576 262144 20 </dev/null >"$tmp/evil.txt" 2>&1
check "hostile comm: its FAILURE names it whole, JSON-escaped, in the hook's document" \
	until_ok 200 eval 'l=$(hook_lines FAILURE uid-pot 1001 | head -n 1) && [ -n "$l" ] &&
		jqt ".comm == \"ev\\til\\nOK\"" "$(hook_doc "$l")"'
wget -q -O "$tmp/alerts.json" "http://127.0.0.1:$port/alerts"
check "hostile comm: /alerts is strict JSON" sh -c "json_strict <'$tmp/alerts.json' || { head -c 1500 '$tmp/alerts.json' | sed 's/^/# /'; false; }"
check "hostile comm: /alerts has one line per entry, none forged" \
	sh -c "[ \$(grep -c '^{\"kind\":' '$tmp/alerts.json') = \$(jq '.alerts | length' '$tmp/alerts.json') ]"
check "hostile comm: no log line starts with the injected text" sh -c "! grep -q '^OK' '$tmp/journal.txt'"

# --- VFIO: a mapper leaking 4 KiB entries every 40 ms up to dma_entry_limit 100.
echo 100 >$lim
# Beside it, a daemon that polls only (events = no): it must see the refusal
# from the kernel's own count.
printf '[daemon]\ninterval = 0.25\nwindow = 10\nevents = no\nlog = stderr\n[exporter]\nlisten = off\n' >"$tmp/p.conf"
iommu-accountd -f -c "$tmp/p.conf" 2>"$tmp/p.err" &
ppid=$!
until_ok 200 grep -q 'source up' "$tmp/p.err"
mkfifo "$tmp/hold2"
# The mapper runs in a cgroup named as the kubelet (systemd driver) and
# containerd name a pod's container: its container's series carry the pod's
# uid and the container's id, to join kube_pod_info on. (No kubelet here:
# the cgroup is real, the names are what they would be.)
VPOD=0b7c3f52-9a41-4c2e-8d6f-3e5a7b9c1d20
VCID=9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d
vfcg=/sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$(echo $VPOD | tr - _).slice/cri-containerd-$VCID.scope
mkdir -p "$vfcg"
sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' _ "$vfcg" \
	vfio_tool leak 40 <"$tmp/hold2" >"$tmp/vfio.txt" 2>&1 &
hold2=$!
exec 4>"$tmp/hold2"
check "vfio: the kernel refuses entry 101 with ENOSPC" \
	until_ok 1200 grep -q 'MAP_DMA #101 failed: No space left on device at boottime' "$tmp/vfio.txt"
refused=$(sed -n 's/.* at boottime \([0-9.]*\)$/\1/p' "$tmp/vfio.txt")
q=$(iommu-accountctl -j quotas --kind vfio)
# The refused mapper's cgroup (v2 id: the inode of its directory).
cgid=$(stat -c %i "/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$hold2/cgroup")")
check "GET_QUOTA: the container holds 100 of 100 entries, owned by vfio_tool, 1 refusal (its record: ENOSPC, 4 KiB, vfio_tool's cgroup $cgid)" \
	jqt "any(.[]; .kind == \"vfio-container\" and (.id | type) == \"number\" and .unit == \"entries\" and
		.used == 100 and .limit == 100 and .uid == 0 and (.owner.pid | type) == \"number\" and
		.owner.uid == 0 and .owner.comm == \"vfio_tool\" and .refusals == 1 and
		(.last_failure | (.time_ns | type) == \"number\" and .errno == 28 and (.iova | type) == \"number\" and
			.size == 4096 and (.owner.pid | type) == \"number\" and .owner.uid == 0 and
			.owner.comm == \"vfio_tool\" and .cgroup_id == $cgid))" "$q"
check "vfio: FAILURE relayed to the hook" until_ok 200 hook_has FAILURE vfio-container
warned=$(hook_time WARNING vfio-container)
echo "# vfio: WARNING ran at ${warned:-never}, the kernel refused at $refused (uptime, s)"
check "vfio: WARNING ran before the kernel's refusal" \
	awk -v w="$warned" -v r="$refused" 'BEGIN { exit !(w != "" && w + 0 < r + 0) }'
fl=$(hook_lines FAILURE vfio-container | head -n 1)
check "vfio: FAILURE says ENOSPC by vfio_tool" \
	jqt '.comm == "vfio_tool" and .errno == "ENOSPC"' "$(hook_doc "$fl")"
check "vfio: the exporter's figures equal iommu-accountctl --json quotas" until_ok 200 figures_equal
# Each refusal under the limit that refused and its consumer: the pot's
# by RLIMIT_MEMLOCK for io_uring's buffers, the container's by
# dma_entry_limit, root's expected ([refusals] expected_uids = 0).
check "exporter: uid 1000's refusal counted as rlimit_memlock, io_uring-buffers, not expected" \
	until_ok 100 eval 'metrics | grep -q "^iommu_account_refusals_total{kind=\"uid-pot\",cause=\"rlimit_memlock\",consumer=\"io_uring-buffers\",expected=\"false\"} [1-9]"'
check "exporter: the container's refusal counted as dma_entry_limit, expected (root), 1" \
	until_ok 100 eval 'metrics | grep -q "^iommu_account_refusals_total{kind=\"vfio-container\",cause=\"dma_entry_limit\",consumer=\"\",expected=\"true\"} 1\$"'
ktime=$(iommu-accountctl -j quotas --kind vfio | jq '[.[] | select(.kind == "vfio-container") | .last_failure.time_ns][0] / 1e9')
check "exporter: its last refusal's time is the kernel's ($ktime)" \
	eval 'metrics | awk -v t="$ktime" '"'"'$1 == "iommu_account_refusal_last_timestamp_seconds{kind=\"vfio-container\",cause=\"dma_entry_limit\",consumer=\"\",expected=\"true\"}" { f = 1; if ($2 - t > 0.002 || t - $2 > 0.002) exit 1 } END { exit !f }'"'"''
vid=$(echo "$q" | jq '.[] | select(.kind == "vfio-container") | .id' | head -n 1)
check "vfio: the container's series carry its mapper's pod uid and container id (cgroup $cgid)" \
	until_ok 100 eval 'metrics | grep -qF "iommu_account_quota_used_entries{kind=\"vfio-container\",object=\"$vid\",uid=\"0\",container_id=\"$VCID\",pod_uid=\"$VPOD\"} 100"'
check "GET_QUOTA: the container's owner carries the cgroup it set the container up in ($cgid)" \
	jqt "any(.[]; .kind == \"vfio-container\" and .owner.cgroup_id == $cgid)" "$q"
check "vfio, polling only: FAILURE from the kernel's refusal count" \
	until_ok 200 grep -q 'FAILURE vfio-container [0-9]*: the kernel refused 1 time(s) since the last poll (no event came)' "$tmp/p.err"
check "vfio, polling only: the FAILURE names who and what from the module's last-failure record" \
	grep -q 'FAILURE vfio-container [0-9]*: the kernel refused 1 time(s) since the last poll (no event came); the last: ENOSPC of 4.0 KiB by vfio_tool\[[0-9]*\] uid 0' "$tmp/p.err"
check "vfio, polling only: WARNING before it" \
	sh -c "sed -n '1,/FAILURE vfio-container/p' '$tmp/p.err' | grep -q 'WARNING vfio-container'"
kill "$ppid"; wait "$ppid"

# Both workloads leave: their objects are CLEARED.
exec 3>&- 4>&-
wait "$hold1" "$hold2"
hold1="" hold2=""
check "vfio: container gone: CLEARED" until_ok 200 hook_has CLEARED vfio-container
check "pot: released: CLEARED for uid 1000" until_ok 400 hook_has CLEARED uid-pot 1000

# The daemon's words, line by line, for the two leaks above and make
# demo's pot run (a mapper leaking entries to dma_entry_limit, a pot filled
# by registrations, a pot that jumps from 5 to 8 MiB): no line raised while
# the object filled says "not
# filling" (the trend is then rising, filling, or too early to tell), and
# no FAILURE carries a forecast. Each line is shown.
alert_lines() {	# KIND OBJECT-RE: the daemon's WARNING, CRITICAL and FAILURE lines of it
	sed -n "s/^MESSAGE=\(\(WARNING\|CRITICAL\|FAILURE\) $1 $2: .*\)/\1/p" "$tmp/journal.txt"
}
pot_demo >"$tmp/potdemo.txt" 2>&1
check "make demo's pot run (pot_demo): the kernel refused uid 2000's pot" \
	until_ok 200 eval 'grep -q "MESSAGE=FAILURE uid-pot 2000" "$tmp/journal.txt"'
for o in "vfio-container [0-9]*" "uid-pot 1000" "uid-pot 2000"; do
	alert_lines "${o% *}" "${o#* }" | sed 's/^/# line: /'
	check "words ($o): every WARNING and CRITICAL while it filled says how it fills, none 'not filling'" \
		sh -c '[ -n "$1" ] && ! echo "$1" | grep -v "^FAILURE" | grep -q "not filling"' _ \
		"$(alert_lines "${o% *}" "${o#* }")"
	check "words ($o): a FAILURE carries no forecast (no trend, no time to full)" \
		sh -c 'echo "$1" | grep -q "^FAILURE" &&
			! echo "$1" | grep "^FAILURE" | grep -Eq "not filling|too early to tell|floor rising|full in"' _ \
		"$(alert_lines "${o% *}" "${o#* }")"
done

# --- qpairs published by an application (simulated NVMe): the same daemon,
# no code of its own for the kind. Held full after the first round.
mkfifo "$tmp/hold3"
qpair_demo --pause <"$tmp/hold3" >"$tmp/qp.txt" 2>&1 &
qpid=$!
exec 5>"$tmp/hold3"
check "qpair: the application filled both qpairs" until_ok 200 grep -q paused "$tmp/qp.txt"
check "qpair: FAILURE alert for the rejections, through the hook" until_ok 200 hook_has FAILURE qpair
check "qpair: the FAILURE log names the qpair, its owner and the count" \
	until_ok 100 journal_has "MESSAGE=FAILURE qpair [0-9]*: 'failing-qp[01]' of qpair_demo\[$qpid\] reported 1 rejection(s) (ENOMEM) with 512 of 512 in use"
# Full for a moment before its first rejection: not a saturation that
# lasts ([thresholds.qpair] sustain): the rejections are the alert.
check "qpair: no CRITICAL before the FAILURE (full for a moment, then rejecting)" \
	sh -c "f=\$(grep -n 'MESSAGE=FAILURE qpair' '$tmp/journal.txt' | head -n 1 | cut -d: -f1); [ -n \"\$f\" ] && ! head -n \"\$f\" '$tmp/journal.txt' | grep -q 'MESSAGE=CRITICAL qpair'"
check "qpair: the exporter's figures equal iommu-accountctl --json quotas" until_ok 200 figures_equal
echo >&5
exec 5>&-
wait "$qpid"
check "qpair: the application saw 1024 of 2048 rejected in each round" \
	sh -c "[ \$(grep -c '2048 submitted, 1024 rejected' '$tmp/qp.txt') = 4 ]"
check "qpair: gone, said once each with what was outstanding" \
	until_ok 200 sh -c "[ \$(grep -c \"MESSAGE=qpair [0-9]* 'failing-qp[01]' of qpair_demo\[$qpid\] (uid 0) is gone with 0 in use and 0 deferred (2048 submitted, 2048 rejected, peak 512 of 512)\" '$tmp/journal.txt') = 2 ]"
check "qpair: gone: CLEARED" until_ok 200 hook_has CLEARED qpair

# A queue pair that defers by design: four rounds of bursts that fill it,
# each drained (no rejection reaches a caller): no alert at all. Then one
# held full (paused after its first round): saturation that lasts 3 s is
# CRITICAL, saying for how long.
qpair_demo --defer >"$tmp/qpd.txt" 2>&1 &
qdpid=$!
wait "$qdpid"
check "qpair --defer: all 2048 of each round completed, none failed" \
	sh -c "[ \$(grep -c '2048 submitted, 0 rejected' '$tmp/qpd.txt') = 4 ]"
check "qpair --defer: its queues gone, and no WARNING or CRITICAL was raised for them" \
	until_ok 200 eval 'journal_has "MESSAGE=qpair [0-9]* .deferring-qp1. of qpair_demo\[$qdpid\] .*is gone" &&
		! grep -q "MESSAGE=\(WARNING\|CRITICAL\) qpair .*qpair_demo\[$qdpid\]" "$tmp/journal.txt"'
mkfifo "$tmp/hold6"
qpair_demo --defer --pause <"$tmp/hold6" >"$tmp/qpp.txt" 2>&1 &
qpid=$!
exec 5>"$tmp/hold6"
check "qpair --defer held full: CRITICAL once it lasted 3 s, saying so" \
	until_ok 400 eval 'grep -q "MESSAGE=CRITICAL qpair [0-9]*: utilisation [0-9.]*% >= critical 95% for [3-9] s; .*qpair_demo\[$qpid\]" "$tmp/journal.txt"'
echo >&5
exec 5>&-
wait "$qpid"

# --- a flood read slowly: the daemon stopped while 100 containers fill up.
echo 1 >$lim
resyncs=$(journal_count 'MESSAGE=events socket overran')
kill -STOP "$dpid"
vfio_tool churn 100 >"$tmp/churn.txt" 2>&1
kill -CONT "$dpid"
vfio_tool churn 1 >>"$tmp/churn.txt" 2>&1
check "flood: overrun logged with a resync" \
	until_ok 200 journal_has 'MESSAGE=events socket overran (ENOBUFS): events lost, resynchronising'
if until_ok 600 metric_gt iommu_account_events_lost_total 0; then
	ok "flood: exporter counts lost events (iommu_account_events_lost_total > 0)"
else
	nok "flood: exporter counts lost events (iommu_account_events_lost_total > 0)"
	metrics | grep -E '^iommu_account_(events|resyncs|exec)' | sed 's/^/# /'
	grep '^MESSAGE=' "$tmp/journal.txt" | tail -n 15 | sed 's/^/# /'
fi
c=$(journal_count 'MESSAGE=events socket overran')
check "flood: one overrun message, not one per lost event" [ "$c" = $((resyncs + 1)) ]
# Exact: every event the module sent since it loaded is either received or
# counted lost (the daemon was subscribed before the first one).
kseq() { iommu-accountctl -j status | sed -n 's/.*"events_seq":\([0-9]*\).*/\1/p'; }
accounted() {
	k=$(kseq) m=$(metrics)
	last=$(echo "$m" | awk '$1 == "iommu_account_events_last_seq" {print $2}')
	seen=$(echo "$m" | awk '$1 == "iommu_account_events_total" {print $2}')
	lost=$(echo "$m" | awk '$1 == "iommu_account_events_lost_total" {print $2}')
	[ -n "$k" ] && [ "$last" = "$k" ] && [ $((seen + lost)) = "$k" ]
}
kill -0 "$dpid" 2>/dev/null || daemon_gone
if until_ok 200 accounted; then
	ok "flood: received + lost = the module's events-seq ($seen + $lost = $k)"
else
	nok "flood: received + lost = the module's events-seq ($seen + $lost, last $last, module $k)"
fi
check "flood: figures equal a fresh dump afterwards" until_ok 200 figures_equal
echo 65535 >$lim

# --- rmmod and modprobe under the daemon.
# The daemon's own count of FAILUREs raised: the hook log lags behind it
# while hooks are queued (on the debug kernel one more FAILURE reached it
# after this point).
failures=$(metric 'iommu_account_alerts_total{alert="FAILURE"}')
# rmmod can answer EAGAIN while a request still holds the module (seen on
# the debug kernel): try again, bounded; the check is the daemon's notice.
# The daemon hears of it from nlctrl ("was unloaded: source down"), or first
# from a poll that fails while the family goes ("poll failed (...): source
# down"), after which the notification finds it down already: either is a
# notice, counted from here.
downs=$(journal_count 'MESSAGE=.*source down')
until_ok 100 modprobe -r iommu_account 2>/dev/null || echo "# modprobe -r iommu_account kept failing"
source_down_again() { [ "$(journal_count 'MESSAGE=.*source down')" -gt "$downs" ]; }
check "rmmod: the daemon reports the source down" until_ok 200 source_down_again
check "rmmod: iommu_account_up 0" until_ok 100 metric_is iommu_account_up 0
modprobe iommu_account
source_up_twice() { [ "$(journal_count 'MESSAGE=source up')" = 2 ]; }
check "modprobe: source up again" until_ok 200 source_up_twice
kill -0 "$dpid" 2>/dev/null || daemon_gone
check "modprobe: iommu_account_up 1" until_ok 100 metric_is iommu_account_up 1
c=$(metric 'iommu_account_alerts_total{alert="FAILURE"}')
check "reload: no false FAILURE ($failures raised before, $c after)" [ -n "$c" -a "$c" = "$failures" ]
check "reload: figures equal iommu-accountctl --json quotas" until_ok 200 figures_equal

# Idle (nothing changes, events followed): polls back off to idle_interval.
check "idle: the poll interval backs off to idle_interval (1 s)" \
	until_ok 200 metric_is iommu_account_poll_interval_seconds 1

# --- SIGHUP: a bad file is refused, the running configuration stays.
cp "$tmp/d.conf" "$tmp/d.good"
printf '[thresholds]\nwarn = 99\ncrit = 98\n' >>"$tmp/d.conf"
kill -HUP "$dpid"
check "SIGHUP with a bad file: says why, keeps the running configuration" \
	until_ok 100 journal_has 'MESSAGE=reload: .*warn (99%) must be above 0 and below crit (98%); keeping the running configuration'
sed 's/^max_size = 262144$/max_size = 131072/' "$tmp/d.good" >"$tmp/d.conf"
kill -HUP "$dpid"
check "SIGHUP with a good file: reloaded" until_ok 100 journal_has 'MESSAGE=reloaded '
check "SIGHUP with another [history] max_size: the ring starts anew at that size" \
	until_ok 100 journal_has 'MESSAGE=history: .*/hist started anew: another size (max_size)' ||
	grep -E 'MESSAGE=(history|reload)' "$tmp/journal.txt" | sed 's/^/# journal: /'
check "history: within the new max_size (131072 bytes) after the reload" \
	sh -c '[ "$(stat -c %s "$1")" -le 131072 ]' _ "$tmp/hist"

kill -TERM "$dpid"
wait "$dpid"; rc=$?
dpid=""
check "SIGTERM: exits 0 (exit status $rc)" [ $rc = 0 ]
check "nothing on the daemon's stderr (log = journal)" [ ! -s "$tmp/d.err" ]
# A daemon that died or complained says how, in the output.
sed 's/^/# d.err: /' "$tmp/d.err" | head -n 20

# --- The trend: a job cycling without growing raises nothing; a leak is
# predicted before the kernel refuses it. Two daemons watch one live run:
# the defaults, and a short configuration (window 2 s, horizon 20 s).
# uid 4600 holds 2 MiB and registers 4 MiB more for 3 s, then releases it,
# 12 times (a saw-tooth of 2 to 6 MiB of 8 MiB: 75 % at most). uid 4601
# leaks 64 KiB every 470 ms into its 8 MiB pot: full after 60 s, 80 % at
# 48 s, one horizon (20 s) before the refusal at 40 s.
printf '[daemon]\nlog = stderr\n[exporter]\nlisten = off\n' >"$tmp/def.conf"
printf '[daemon]\ninterval = 0.25\nidle_interval = 0.25\nwindow = 2\nlog = stderr\n[thresholds]\nhorizon = 20\n[exporter]\nlisten = off\n' >"$tmp/short.conf"
iommu-accountd -f -c "$tmp/def.conf" 2>"$tmp/def.err" &
dpid=$!
iommu-accountd -f -c "$tmp/short.conf" 2>"$tmp/short.err" &
spid=$!
until_ok 200 grep -q 'source up' "$tmp/def.err"
until_ok 200 grep -q 'source up' "$tmp/short.err"
mkfifo "$tmp/hold5"
pot_leak 4601 8388608 65536 470 <"$tmp/hold5" >"$tmp/leak.txt" 2>&1 &
hold1=$!
exec 3>"$tmp/hold5"
(
	ulimit -l 8192
	runas 4600 uring_bench hold 2097152 >"$tmp/base.out" 2>&1 &
	b=$!
	i=0
	while [ $i -lt 12 ]; do
		runas 4600 uring_bench hold 4194304 >>"$tmp/saw.out" 2>&1 &
		h=$!
		# The tooth: held 3 s from when the holder says it holds (it was a
		# fixed 3 s from its start, and on the debug kernel beside other
		# boots one round was killed before it had registered).
		until_ok 400 eval '[ "$(grep -c "^hold " "$tmp/saw.out")" -gt $i ]'
		usleep 3000000
		kill $h; wait $h
		# The next round starts from the 2 MiB base: the ring's teardown is
		# deferred (on the debug kernel two of the 12 rounds were not held,
		# most likely the round before's 4 MiB still charged after 2 s).
		until_ok 400 eval 'jqt ".[0].locked_bytes == 2097152" "$(iommu-accountctl -j uids --uid 4600)"'
		usleep 2000000
		i=$((i + 1))
	done
	kill $b; wait $b
) 2>/dev/null &
saw=$!
check "live leak: the kernel refuses uid 4601's buffer with ENOMEM" \
	until_ok $((200 * 10)) grep -q 'refused: Cannot allocate memory' "$tmp/leak.txt"
check "live leak (short configuration): FAILURE for uid 4601" \
	until_ok 200 grep -q 'FAILURE uid-pot 4601' "$tmp/short.err"
w=$(grep -m1 'WARNING uid-pot 4601' "$tmp/short.err")
echo "# leak: $w"
check "live leak: the trend's WARNING came before the refusal, below 80 %, saying why" \
	sh -c "sed -n '1,/FAILURE uid-pot 4601/p' '$tmp/short.err' | grep 'WARNING uid-pot 4601' |
		grep -q 'the floor rose [0-9.]* [KM]iB in [0-9]* s; full in about [0-9]* s (horizon 20 s), utilisation [1-7][0-9]\.[0-9]%'"
wait $saw
n=$(grep -c '^hold 0$' "$tmp/saw.out")
check "live saw-tooth: 12 registrations of 4 MiB over 2 MiB held ($n)" [ "$n" = 12 ]
check "live saw-tooth (uid 4600): no WARNING under the defaults" \
	sh -c "! grep -q 'uid-pot 4600' '$tmp/def.err'"
check "live saw-tooth (uid 4600): no WARNING under window 2 s, horizon 20 s" \
	sh -c "! grep -q 'uid-pot 4600' '$tmp/short.err'"
exec 3>&-
wait "$hold1"
hold1=""
kill "$dpid" "$spid"; wait "$dpid" "$spid"
dpid=""

ktap_finish
