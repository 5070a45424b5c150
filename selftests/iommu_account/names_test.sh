#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hostile names through every output, in the VM, as root. KTAP output.
#
# A process of uid 43301 names itself with bytes that are not UTF-8, an
# escape sequence, a tab and a newline (prctl), runs in a cgroup whose name
# holds the same kind of bytes, and fills its pot until the kernel refuses
# it. Then every verb of iommu-accountctl, in text and in JSON, the daemon's
# /metrics, /alerts (JSON), journal, exec hook and history, must hold the one rule
# (userspace/lib/esc.c): JSON parses strictly (json_strict: UTF-8, no raw
# control, no NaN) and carries the raw bytes in KEY_hex; text has no control
# character and shows the bytes as \xHH; /metrics passes promtool (the
# host's, reached over the share: scripts/check puts it in
# .cache/vm-tools/); no row or line is forged. Waits are bounded polls.
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
port=9849
dpid="" hold="" hold2="" evt="" evj="" jpid=""
comm=$(printf 'ev\377\033[2J\tl\nOK')
comm_hex=6576ff1b5b324a096c0a4f4b
comm_text='ev\xff\x1b[2J\tl\nOK'
# The kernel refuses a newline in a cgroup's name (its paths are lines of
# /proc/PID/cgroup); everything else goes.
cgname=$(printf 'ia-names-%s-\377\033]0;pwn\007\tx' $$)
cg=/sys/fs/cgroup/$cgname
# A path longer than PATH_MAX - 1 (a tenant's deep tree): 4094 ASCII bytes,
# then e-acute (two bytes) from byte 4094 on, where the module must cut
# before the character and flag it.
longtop=ia-names-long-$$
# reps STR N: STR N times (any bytes: tr would take a byte, not a character).
reps() { _r=0; while [ $_r -lt "$2" ]; do printf %s "$1"; _r=$((_r + 1)); done; }
cleanup() {
	[ -n "$hold" ] && exec 3>&- && wait "$hold" 2>/dev/null
	[ -n "$hold2" ] && exec 4>&- && wait "$hold2" 2>/dev/null
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	[ -n "$evt" ] && kill "$evt" 2>/dev/null
	[ -n "$evj" ] && kill "$evj" 2>/dev/null
	[ -n "$jpid" ] && kill "$jpid" 2>/dev/null
	rmdir "$cg" 2>/dev/null
	# The long path's directories, deepest first, by relative names.
	[ -n "$d199" ] && [ -d "/sys/fs/cgroup/$longtop" ] && (
		cd "/sys/fs/cgroup/$longtop/$pad" 2>/dev/null || exit 0
		i=0
		while [ $i -lt 19 ] && cd "$d199" 2>/dev/null; do i=$((i + 1)); done
		rmdir "$leaf" 2>/dev/null
		while [ $i -gt 0 ]; do cd .. && rmdir "$d199"; i=$((i - 1)); done
		cd .. && rmdir "$pad"; cd .. && rmdir "$longtop"
	) 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# hex FILE: its bytes in lowercase hex, no separator.
hex() { od -An -v -tx1 | tr -d ' \n'; }
# strict_json DESC FILE, strict_text DESC FILE: the rule's two promises.
strict_json() { check "$1: strict JSON" sh -c "json_strict <'$2' 2>'$tmp/why' || { cat '$tmp/why'; false; }"; }
strict_text() { check "$1: no control character, valid UTF-8" sh -c "json_strict --text <'$2' 2>'$tmp/why' || { cat '$tmp/why'; false; }"; }

echo "TAP version 13"
ip link set lo up
# The daemon's log goes to the journal's socket, where journal_catch stands
# (one field per line): the structured fields are where names go raw.
journal_start "$tmp/journal.txt"
cat >"$tmp/hook.sh" <<EOF
#!/bin/sh
cat >>$tmp/hook.log
EOF
chmod +x "$tmp/hook.sh"
cat >"$tmp/d.conf" <<EOF
[daemon]
interval = 0.25
idle_interval = 1
window = 10
log = journal
[exec]
program = $tmp/hook.sh
[exporter]
listen = 127.0.0.1:$port
[history]
path = $tmp/hist/history
EOF
mkdir -m 0700 "$tmp/hist"
iommu-accountd -f -c "$tmp/d.conf" 2>"$tmp/d.err" &
dpid=$!
check "daemon up" until_ok 200 grep -q 'MESSAGE=source up' "$tmp/journal.txt"
iommu-accountctl events --count 3 >"$tmp/ev.txt" 2>&1 &
evt=$!
iommu-accountctl -j events --count 3 >"$tmp/ev.json" 2>&1 &
evj=$!
both_subscribed() { subscribed "$evt" && subscribed "$evj"; }
check "events listeners (text and JSON) subscribed" until_ok 200 both_subscribed

# The hostile holder: 4 buffers of 256 KiB under 1 MiB, the 5th refused.
mkdir "$cg"
check "a cgroup named with a tab, escapes, a bell and a byte that is not UTF-8" test -d "$cg"
# A memory.max there, so that explain and plan name it as the memcg that limits.
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
check "the hostile cgroup has a memory.max of 1 GiB" sh -c "echo 1073741824 >'$cg/memory.max'"
mkfifo "$tmp/hold"
POT_LEAK_COMM=$comm sh -c 'echo $$ >"$1/cgroup.procs"; exec pot_leak 43301 1048576 262144 0' _ "$cg" \
	<"$tmp/hold" >"$tmp/pot.txt" 2>&1 &
hold=$!
exec 3>"$tmp/hold"
check "the holder is refused by the kernel (5th buffer)" until_ok 400 grep -q 'buffer #5 refused' "$tmp/pot.txt"
# The agent that holds the buffers: pot_leak's child, of uid 43301.
agent=$(grep -l "^PPid:[[:space:]]*$hold\$" /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3)
got=$(head -c 12 "/proc/$agent/comm" | hex)
check "the kernel has its name: the agent's /proc/PID/comm is the hostile bytes ($got)" \
	[ "$got" = "$comm_hex" ]

# The long path: /$longtop/PAD, 19 directories of 199 bytes (3999 bytes),
# then 94 x's and 40 e-acutes. Made with relative mkdir and cd (no PATH_MAX).
pad=$(reps a $((199 - ${#longtop} - 2)))
d199=$(reps d 199)
leaf="$(reps x 94)$(reps 'é' 40)"
longexp=/$longtop/$pad
i=0
while [ $i -lt 19 ]; do longexp=$longexp/$d199; i=$((i + 1)); done
longexp=$longexp/$(reps x 94)
check "the long path's expected prefix is 4094 bytes" [ "$(printf %s "$longexp" | wc -c)" = 4094 ]
mkfifo "$tmp/hold2"
# Without the first holder's fifo (3): its end is its stdin closing.
(
	cd /sys/fs/cgroup && mkdir "$longtop" && cd "$longtop" && mkdir "$pad" && cd "$pad" || exit 1
	i=0
	while [ $i -lt 19 ]; do mkdir "$d199" && cd "$d199" || exit 1; i=$((i + 1)); done
	# Not cd: the shell's $PWD would pass PATH_MAX; a relative name does not.
	mkdir "$leaf" || exit 1
	exec sh -c 'echo $$ >"$1/cgroup.procs" && exec pot_leak 43302 1048576 262144 0' _ "$leaf"
) <"$tmp/hold2" >"$tmp/pot2.txt" 2>&1 3>&- &
hold2=$!
exec 4>"$tmp/hold2"
check "a holder in a cgroup whose path is 4174 bytes is refused by the kernel" \
	until_ok 400 grep -q 'buffer #5 refused' "$tmp/pot2.txt"
agent2=$(grep -l "^PPid:[[:space:]]*$hold2\$" /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3)
[ -n "$agent2" ] || sed 's/^/# the long holder: /' "$tmp/pot2.txt"
longid=$(cd "/sys/fs/cgroup/$longtop" && cd "$pad" && i=0 &&
	while [ $i -lt 19 ]; do cd "$d199"; i=$((i + 1)); done && stat -c %i "$leaf")

# --- every verb, text and JSON -------------------------------------------
for v in status uids procs holders quotas containers groups "explain uid 43301" \
	"plan --pid $agent uring,entries=8,buffers=1,size=4096"; do
	f=$tmp/$(echo "$v" | tr ' ' _)
	# shellcheck disable=SC2086
	iommu-accountctl $v >"$f.txt" 2>&1
	strict_text "$v (text)" "$f.txt"
	# shellcheck disable=SC2086
	iommu-accountctl -j $v >"$f.json" 2>&1
	strict_json "$v -j" "$f.json"
done
check "procs (text): the comm shown with visible escapes" grep -qF "$comm_text" "$tmp/procs.txt"
cg_text=$(printf '/ia-names-%s-\\xff\\x1b]0;pwn\\x07\\tx' $$)
check "procs (text): the cgroup shown with visible escapes" grep -qF "$cg_text" "$tmp/procs.txt"
check "procs -j: comm_hex is the kernel's bytes, comm has U+FFFD for the byte" \
	jqt "any(.[]; .pid == $agent and .comm_hex == \"$comm_hex\" and .comm == \"ev\ufffd\u001b[2J\tl\nOK\")" \
	"$(cat "$tmp/procs.json")"
cg_hex=$(printf '/%s' "$cgname" | hex)
check "procs -j: cgroup_hex is the whole path's bytes" \
	jqt "any(.[]; .pid == $agent and .cgroup_hex == \"$cg_hex\")" "$(cat "$tmp/procs.json")"
check "holders -j: the cgroup with its raw bytes beside it" \
	jqt "any(.. | objects; .cgroup_hex? == \"$cg_hex\")" "$(cat "$tmp/holders.json")"
check "explain uid 43301 (text): names the holder with visible escapes" grep -qF "$comm_text" "$tmp/explain_uid_43301.txt"
check "explain uid 43301 (text): the memcg that limits, with visible escapes" \
	grep -qF "of memory.max 1.0 GiB ($cg_text)" "$tmp/explain_uid_43301.txt"
planf=$tmp/plan_--pid_${agent}_uring,entries=8,buffers=1,size=4096
check "plan --pid (text): the memcg's row with visible escapes" grep -qF "memcg $cg_text " "$planf.txt"
check "plan --pid (text): the memcg's rule with visible escapes" \
	grep -qF "  - memcg $cg_text: what the workload" "$planf.txt"
check "procs -j: the long path cut before the character at byte 4094, flagged" \
	jqt "any(.[]; .pid == $agent2 and .cgroup == \"$longexp\" and .cgroup_truncated == true and
		.cgroup_id == $longid)" "$(cat "$tmp/procs.json")"
check "procs (text): the long path shown with its cut marked" \
	grep -qF "$longexp…(truncated)" "$tmp/procs.txt"
iommu-accountctl -j quotas --kind uid-pot --uid 43302 >"$tmp/q2.json" 2>&1
check "quotas -j uid-pot 43302: the refusal's cgroup is the same prefix, flagged" \
	jqt "any(.[]; .last_failure.cgroup == \"$longexp\" and .last_failure.cgroup_truncated == true)" \
	"$(cat "$tmp/q2.json")"

# --- events ---------------------------------------------------------------
check "events (text): the FAILURE arrived" until_ok 200 grep -q FAILURE "$tmp/ev.txt"
check "events -j: the FAILURE arrived" until_ok 200 grep -q '"type":"failure"' "$tmp/ev.json"
kill "$evt" "$evj" 2>/dev/null
wait "$evt" "$evj" 2>/dev/null
evt="" evj=""
strict_text "events (text)" "$tmp/ev.txt"
check "events (text): one line per event, none forged" sh -c "! grep -v '^#[0-9]* ' '$tmp/ev.txt'"
check "events -j: one strict document per line" sh -c "json_strict --lines <'$tmp/ev.json'"

# --- the daemon -----------------------------------------------------------
check "daemon: FAILURE of uid 43301 through the exec hook" \
	until_ok 400 grep -q '"alert":"FAILURE","previous":"[A-Z]*","kind":"uid-pot","object":43301' "$tmp/hook.log"
check "exec hook: every document strict JSON, one per line" sh -c "json_strict --lines <'$tmp/hook.log'"
check "exec hook: the FAILURE's comm_hex is the kernel's bytes" \
	sh -c "grep '\"object\":43301' '$tmp/hook.log' | grep -q '\"comm_hex\":\"$comm_hex\"'"
wget -q -O "$tmp/metrics" "http://127.0.0.1:$port/metrics"
strict_text "/metrics" "$tmp/metrics"
# In a label value a backslash is written \\: \xff becomes \\xff.
cg_label=$(printf '/ia-names-%s-\\\\xff\\\\x1b]0;pwn\\\\x07\\\\x09x' $$)
check "/metrics: the holder's cgroup is a label, its bytes as \\\\xHH ($cg_label)" \
	grep -qF "cgroup=\"$cg_label\"" "$tmp/metrics"
check "/metrics: the long path's holder series, marked, with its cgroup_id" \
	until_ok 200 sh -c "wget -q -O - http://127.0.0.1:$port/metrics | grep -qF 'cgroup=\"$longexp…(truncated)\",cgroup_id=\"$longid\"'"
wget -q -O "$tmp/metrics" "http://127.0.0.1:$port/metrics"
promtool=$PWD/.cache/vm-tools/promtool
if [ -x "$promtool" ]; then
	check "/metrics: promtool check metrics passes" \
		sh -c "'$promtool' check metrics <'$tmp/metrics' >'$tmp/promtool.out' 2>&1 || { cat '$tmp/promtool.out'; false; }"
else
	nok "/metrics: promtool check metrics passes (no promtool at $promtool: scripts/check puts it there)"
fi
wget -q -O "$tmp/alerts" "http://127.0.0.1:$port/alerts"
strict_json "/alerts" "$tmp/alerts"
check "/alerts: one entry per line, each a whole object" \
	sh -c "[ \$(grep -c '^{\"kind\":' '$tmp/alerts') = \$(jq '.alerts | length' '$tmp/alerts') ]"
check "/alerts: uid 43301's FAILURE carries the comm's bytes (its holders' comm_hex, the reason's bytes)" \
	jqt "any(.alerts[]; .object == 43301 and .state == \"FAILURE\" and
		any(.holders[]; .comm_hex == \"$comm_hex\") and (.reason_hex | contains(\"$comm_hex\")))" \
	"$(cat "$tmp/alerts")"
iommu-accountctl -j alerts --daemon "127.0.0.1:$port" >"$tmp/alerts.json"
strict_json "alerts -j" "$tmp/alerts.json"
check "alerts -j: the holder's comm read back to its bytes (comm_hex)" \
	jqt "any(.[]; .object == 43301 and any(.holders[]?; .comm_hex == \"$comm_hex\"))" "$(cat "$tmp/alerts.json")"
iommu-accountctl alerts --daemon "127.0.0.1:$port" >"$tmp/alerts.txt"
strict_text "alerts (text)" "$tmp/alerts.txt"
iommu-accountctl top --daemon "127.0.0.1:$port" --count 1 >"$tmp/top.txt"
strict_text "top (not a terminal)" "$tmp/top.txt"
check "history -j uid-pot:43301: strict JSON" \
	until_ok 200 sh -c "iommu-accountctl -j history uid-pot:43301 --file '$tmp/hist/history' >'$tmp/h.json' && json_strict <'$tmp/h.json' && grep -q used '$tmp/h.json'"
kill "$dpid"
wait "$dpid" 2>/dev/null
dpid=""
strict_text "daemon's journal fields" "$tmp/journal.txt"
check "daemon's journal: no line starts with the name's injected text" sh -c "! grep -q '^OK' '$tmp/journal.txt'"
check "daemon's journal: the FAILURE's MESSAGE names the comm in its text form" \
	sh -c "grep '^MESSAGE=FAILURE uid-pot 43301' '$tmp/journal.txt' | grep -qF '$comm_text'"
check "daemon's journal: COMM= is the comm's text form, whole" grep -qxF "COMM=$comm_text" "$tmp/journal.txt"
check "daemon's journal: nothing on stderr" [ ! -s "$tmp/d.err" ]
# The stderr form (and a configuration error quoting a file's bytes): an
# exec program named with an escape sequence and a byte that is not UTF-8.
printf '[exec]\nprogram = rel\033]0;pwn\007\377\n' >"$tmp/bad.conf"
iommu-accountd -t -c "$tmp/bad.conf" 2>"$tmp/t.err"
rc=$?
check "iommu-accountd -t: a hostile path in the file is refused (exit 1)" [ "$rc" = 1 ]
strict_text "iommu-accountd -t's error" "$tmp/t.err"
check "iommu-accountd -t: the line's bytes shown as \\xHH" \
	grep -qF ":2: program: 'rel\x1b]0;pwn\x07\xff' is not an absolute path" "$tmp/t.err"

exec 3>&-
wait "$hold"
hold=""
exec 4>&-
wait "$hold2"
hold2=""
ktap_finish
