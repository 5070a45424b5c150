#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No uid drowns another's events, in the VM, as root. KTAP output.
#   - a legitimate bursty publisher (uid 5000: a qpair of 32 filled and
#     drained at full speed for 10 s, crossing warn and crit and re-arming
#     both every round) while uid 4100 fills its pot until io_uring refuses:
#     uid 4100's CRIT and FAILURE (with its pid) reach a listener; the
#     flooder's crossings arrive coalesced, at most one event per object and
#     level per interval, and their counts add up to its rounds exactly
#   - 1,000 qpairs of one uid (root) oscillating: over its budget, counted
#     against it in STATUS, while uid 4101's FAILURE still arrives
#   - a VFIO container refused 20,000 times in a loop (root): its failure
#     events add up to its refusals, in a few events, while uid 4102's
#     FAILURE arrives
#   - every sequence number is received or counted lost; none of what a
#     listener lost was a failure; a root listener (libia's 8 MiB buffer,
#     budgets of 100 per uid) lost nothing
# Waits are bounded polls of files, never sleeps.
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
evp="" bp="" lp=""
cleanup() {
	[ -n "$bp" ] && exec 3>&- && wait "$bp" 2>/dev/null
	[ -n "$lp" ] && exec 4>&- && wait "$lp" 2>/dev/null
	[ -n "$evp" ] && kill "$evp" 2>/dev/null && wait "$evp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
echo "TAP version 13"

status_num() { iommu-accountctl -j status | jq ".$1"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# The listener's events (one JSON document a line; a line that is not one is
# skipped) that FILTER selects, one a line.
events() { jq -R -c "fromjson? | select($1)" "$tmp/ev.json"; }
# Of uid-pot UID; of qpair ID (its id in the quota nest).
pot_events() { events ".kind == \"uid-pot\" and .uid == $1"; }
qpair_events() { events ".kind == \"qpair\" and .quota.id == $1"; }
# The sum of "count" over the threshold events of qpair ID at LEVEL.
crossings() {
	qpair_events "$1" | jq -s "[.[] | select(.type == \"threshold\" and .level == \"$2\") | .count] | add // 0"
}

wall0=$(date +%s)
iommu-accountctl -j events >"$tmp/ev.json" 2>&1 &
evp=$!
check "listener subscribed" until_ok 200 subscribed "$evp"
s0=$(status_num events_seq)
co0=$(status_num events_coalesced)
check "STATUS reports coalescing and budgets" [ -n "$co0" ]

# --- a bursty publisher beside a pot that fills up -------------------------------
mkfifo "$tmp/burst.in" "$tmp/leak.in"
runas 5000 qpair_bench burst 10 32 <"$tmp/burst.in" >"$tmp/burst.out" 2>&1 &
bp=$!
exec 3>"$tmp/burst.in"
check "flooder: its first events arrive" until_ok 400 grep -q '"kind":"qpair"' "$tmp/ev.json"
pot_leak 4100 1048576 131072 100 <"$tmp/leak.in" >"$tmp/leak.out" 2>&1 &
lp=$!
exec 4>"$tmp/leak.in"
check "uid 4100: the kernel refuses its buffer (ENOMEM) during the flood" \
	until_ok 400 grep -q 'refused: Cannot allocate memory' "$tmp/leak.out"
check "flooder: 10 s at full speed" until_ok $((200 * 10)) grep -q '^burst id' "$tmp/burst.out"
set -- $(cat "$tmp/burst.out")
qid=$3 rounds=$5 notifies=$7 rate=$9
echo "# flooder: qpair $qid, $rounds rounds, $notifies NOTIFY calls ($rate per second)"
check "flooder: it made rounds and NOTIFY calls ($rounds, $notifies)" \
	sh -c "[ '${rounds:-0}' -gt 10 ] && [ '${notifies:-0}' -ge '${rounds:-0}' ]"
check "uid 4100: its CRIT reached the listener" \
	until_ok 200 eval '[ -n "$(events ".kind == \"uid-pot\" and .uid == 4100 and .type == \"threshold\" and .level == \"crit\"")" ]'
fl=$(pot_events 4100 | jq -c 'select(.type == "failure")' | head -n 1)
pid=$(echo "$fl" | jq '.owner.pid // empty')
echo "# uid 4100's failure: $fl"
check "uid 4100: its FAILURE reached the listener, with the pid of a uid-4100 process ($pid)" \
	eval '[ -n "$pid" ] && grep -q "^Uid:[[:space:]]*4100[[:space:]]" /proc/$pid/status &&
		jqt ".owner.comm == \"pot_leak\"" "$fl"'
q=$(iommu-accountctl -j quotas --kind uid-pot --uid 4100)
check "uid 4100: GET_QUOTA keeps its last refusal: ENOMEM, 128 KiB, that pid" \
	jqt "any(.[]; .last_failure | (.time_ns | type) == \"number\" and .errno == 12 and .iova == 0 and .size == 131072 and
		(.owner | {pid, uid, comm}) == {\"pid\": $pid, \"uid\": 4100, \"comm\": \"pot_leak\"} and
		.owner.cgroup_id == .cgroup_id)" "$q"
# Held crossings leave at the end of their interval: wait for them, then count.
crossings_are() { [ "$(crossings "$qid" "$1")" = "$2" ]; }
check "flooder: its warn events' counts add up to its $rounds rounds" \
	until_ok 200 crossings_are warn "$rounds"
check "flooder: its crit events' counts add up to its $rounds rounds" \
	until_ok 200 crossings_are crit "$rounds"
echo "# flooder's events: warn $(crossings "$qid" warn), crit $(crossings "$qid" crit) crossings"
n=$(qpair_events "$qid" | jq -s '[.[] | select(.type == "threshold")] | length')
check "flooder: $((2 * rounds)) crossings in $n events, at most one per level and second (<= 26)" \
	[ "$n" -le 26 ]
co1=$(status_num events_coalesced)
check "STATUS: the crossings held back are counted ($((co1 - co0)) >= $((2 * rounds - n)))" \
	[ $((co1 - co0)) -ge $((2 * rounds - n)) ]
exec 3>&- 4>&-
wait "$bp" "$lp"
bp="" lp=""

# --- 1,000 objects of one uid oscillating, over its budget ------------------------
rate=$(cat /sys/module/iommu_account/parameters/event_rate)
burst=$(cat /sys/module/iommu_account/parameters/event_burst)
mkfifo "$tmp/leak2.in"
before=$(events '.kind == "qpair"' | wc -l)
t0=$(uptime_s)
qpair_flood 1000 10 >"$tmp/flood.txt" 2>&1 &
fp=$!
pot_leak 4101 1048576 131072 100 <"$tmp/leak2.in" >"$tmp/leak2.out" 2>&1 &
lp=$!
exec 4>"$tmp/leak2.in"
check "uid 4101: the kernel refuses its buffer (ENOMEM) during the flood" \
	until_ok 400 grep -q 'refused: Cannot allocate memory' "$tmp/leak2.out"
wait "$fp"
t1=$(uptime_s)
check "uid 4101: its FAILURE reached the listener" \
	until_ok 200 eval '[ -n "$(events ".kind == \"uid-pot\" and .uid == 4101 and .type == \"failure\"")" ]'
sup=$(iommu-accountctl -j status | jq '[.budget[] | select(.uid == 0) | .suppressed] | add // empty')
check "STATUS: root's events over its budget are counted against it (${sup:-none})" \
	[ "${sup:-0}" -gt 0 ]
check "STATUS: uid 4101 has nothing over its budget" \
	jqt 'all(.budget[]; .uid != 4101)' "$(iommu-accountctl -j status)"
exec 4>&-
wait "$lp"
lp=""
after=$(events '.kind == "qpair"' | wc -l)
bound=$(awk -v b="$burst" -v r="$rate" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", b + r * (t1 - t0 + 2) }')
echo "# 1,000 qpairs: $((after - before)) events in $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s (budget $burst + $rate/s)"
check "root's flood: within its budget ($((after - before)) <= $bound)" \
	[ $((after - before)) -le "$bound" ]

# --- a VFIO container refused in a loop (root), beside uid 4102's refusal --------
lim=/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
modprobe vfio_iommu_type1 && modprobe vfio_pci
echo 1 >$lim
mkfifo "$tmp/vfio.in" "$tmp/leak3.in"
vfio_tool refuse 20000 <"$tmp/vfio.in" >"$tmp/vfio.txt" 2>&1 &
bp=$!
exec 3>"$tmp/vfio.in"
pot_leak 4102 1048576 131072 100 <"$tmp/leak3.in" >"$tmp/leak3.out" 2>&1 &
lp=$!
exec 4>"$tmp/leak3.in"
check "vfio: the kernel refuses the container 20,001 times (ENOSPC)" \
	until_ok $((200 * 10)) grep -q '^refused 20001$' "$tmp/vfio.txt"
check "uid 4102: the kernel refuses its buffer (ENOMEM) meanwhile" \
	until_ok 400 grep -q 'refused: Cannot allocate memory' "$tmp/leak3.out"
check "uid 4102: its FAILURE reached the listener" \
	until_ok 200 eval '[ -n "$(events ".kind == \"uid-pot\" and .uid == 4102 and .type == \"failure\"")" ]'
# The container vfio_tool owns.
ct=$(iommu-accountctl -j containers | jq "[.[] | select(.owner.pid == $bp) | .id] | first // empty")
fails() { events ".type == \"failure\" and .container == ${ct:-0}" | jq -s '[.[].count] | add // 0'; }
fails_are() { [ "$(fails)" = 20001 ]; }
check "vfio: the container's failure events add up to its 20,001 refusals (container ${ct:-?})" \
	until_ok 200 fails_are
n=$(events ".type == \"failure\" and .container == ${ct:-0}" | wc -l)
check "vfio: in a few events, at most one per second ($n)" [ "$n" -le 12 ]
exec 3>&- 4>&-
wait "$bp" "$lp"
bp="" lp=""
echo 65535 >$lim

# --- the listener's loss: exact, and no failure among it -------------------------
s2=$(status_num events_seq)
seen_last() { [ -n "$(events ".seq == $s2")" ]; }
check "the listener has the last event ($s2)" until_ok 400 seen_last
got=$(events 'has("seq")' | wc -l)
lost=$(events 'has("lost")' | jq -s '[.[].lost] | add // 0')
check "received + reported lost = every sequence number ($got + $lost = $((s2 - s0)))" \
	[ $((got + lost)) = $((s2 - s0)) ]
check "STATUS: no failure was lost to a full queue" [ "$(status_num failures_dropped)" = 0 ]
# Every source stamps its events with the wall clock (CLOCK_REALTIME), qpairs too.
wall1=$(date +%s)
bad=$(events 'has("time_ns")' | jq -r --argjson a "$wall0" --argjson b "$wall1" \
	'(.time_ns / 1000000000 | floor) as $s | select($s < $a - 1 or $s > $b + 1) | .kind' | sort | uniq -c | tr '\n' ' ')
kinds=$(events 'has("kind")' | jq -r .kind | sort -u | tr '\n' ' ')
check "every event's time_ns is wall-clock time within the run (kinds: $kinds; off: ${bad:-none})" \
	sh -c "[ -z '$bad' ] && echo '$kinds' | grep -q qpair && echo '$kinds' | grep -q uid-pot"
# Budgets of 100 per uid, and libia's listener asks for an 8 MiB buffer (root: SO_RCVBUFFORCE).
check "the listener lost nothing to the floods (lost $lost)" [ "$lost" = 0 ]
kill "$evp"
wait "$evp" 2>/dev/null
evp=""

ktap_finish
