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

status_num() { iommu-accountctl -j status | grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# The listener's events of one kind and uid (pot: its uid; qpair: the owner in the quota nest).
pot_events() { grep "\"kind\":\"uid-pot\",\"uid\":$1," "$tmp/ev.json"; }
qpair_events() { grep "\"kind\":\"qpair\"" "$tmp/ev.json" | grep "\"id\":$1,"; }
# The sum of "count" over the threshold events of qpair ID at LEVEL.
crossings() {
	qpair_events "$1" | grep "\"type\":\"threshold\"" | grep "\"level\":\"$2\"" |
		grep -o '"count":[0-9]*' | cut -d: -f2 | awk '{s += $1} END {print s + 0}'
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
	until_ok 200 sh -c "grep '\"kind\":\"uid-pot\",\"uid\":4100,' '$tmp/ev.json' | grep '\"type\":\"threshold\"' | grep -q '\"level\":\"crit\"'"
fl=$(pot_events 4100 | grep '"type":"failure"' | head -n 1)
pid=$(echo "$fl" | grep -o '"owner":{"pid":[0-9]*' | grep -o '[0-9]*$')
echo "# uid 4100's failure: $fl"
check "uid 4100: its FAILURE reached the listener, with the pid of a uid-4100 process ($pid)" \
	sh -c "[ -n '$pid' ] && grep -q '^Uid:[[:space:]]*4100[[:space:]]' /proc/$pid/status &&
		echo '$fl' | grep -q '\"comm\":\"pot_leak\"'"
q=$(iommu-accountctl -j quotas --kind uid-pot --uid 4100)
check "uid 4100: GET_QUOTA keeps its last refusal: ENOMEM, 128 KiB, that pid" \
	sh -c "echo '$q' | grep -q '\"last_failure\":{\"time_ns\":[0-9]*,\"errno\":12,\"iova\":0,\"size\":131072,\"owner\":{\"pid\":$pid,\"uid\":4100,\"comm\":\"pot_leak\"}'"
# Held crossings leave at the end of their interval: wait for them, then count.
crossings_are() { [ "$(crossings "$qid" "$1")" = "$2" ]; }
check "flooder: its warn events' counts add up to its $rounds rounds" \
	until_ok 200 crossings_are warn "$rounds"
check "flooder: its crit events' counts add up to its $rounds rounds" \
	until_ok 200 crossings_are crit "$rounds"
echo "# flooder's events: warn $(crossings "$qid" warn), crit $(crossings "$qid" crit) crossings"
n=$(qpair_events "$qid" | grep -c '"type":"threshold"')
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
before=$(grep -c '"kind":"qpair"' "$tmp/ev.json")
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
	until_ok 200 sh -c "grep '\"kind\":\"uid-pot\",\"uid\":4101,' '$tmp/ev.json' | grep -q '\"type\":\"failure\"'"
sup=$(iommu-accountctl -j status | grep -o '"budget":\[.*' | grep -o '{"uid":0,"suppressed":[0-9]*' | grep -o '[0-9]*$')
check "STATUS: root's events over its budget are counted against it (${sup:-none})" \
	[ "${sup:-0}" -gt 0 ]
check "STATUS: uid 4101 has nothing over its budget" \
	sh -c "! iommu-accountctl -j status | grep -q '{\"uid\":4101,'"
exec 4>&-
wait "$lp"
lp=""
after=$(grep -c '"kind":"qpair"' "$tmp/ev.json")
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
	until_ok 200 sh -c "grep '\"kind\":\"uid-pot\",\"uid\":4102,' '$tmp/ev.json' | grep -q '\"type\":\"failure\"'"
# The container vfio_tool owns (one object per line; its own "id" is its only one).
ct=$(iommu-accountctl -j containers | sed 's/},{"/}\n{"/g' | grep "\"owner\":{\"pid\":$bp," |
	grep -o '"id":[0-9]*' | head -n 1 | cut -d: -f2)
fails() {
	grep "\"type\":\"failure\"" "$tmp/ev.json" | grep "\"container\":$ct," |
		grep -o '"count":[0-9]*' | cut -d: -f2 | awk '{s += $1} END {print s + 0}'
}
fails_are() { [ "$(fails)" = 20001 ]; }
check "vfio: the container's failure events add up to its 20,001 refusals (container ${ct:-?})" \
	until_ok 200 fails_are
n=$(grep "\"type\":\"failure\"" "$tmp/ev.json" | grep -c "\"container\":$ct,")
check "vfio: in a few events, at most one per second ($n)" [ "$n" -le 12 ]
exec 3>&- 4>&-
wait "$bp" "$lp"
bp="" lp=""
echo 65535 >$lim

# --- the listener's loss: exact, and no failure among it -------------------------
s2=$(status_num events_seq)
seen_last() { grep -q "\"seq\":$s2," "$tmp/ev.json"; }
check "the listener has the last event ($s2)" until_ok 400 seen_last
got=$(grep -c '"seq":' "$tmp/ev.json")
lost=$(sed -n 's/^{"lost":\([0-9]*\)}$/\1/p' "$tmp/ev.json" | awk '{s += $1} END {print s + 0}')
check "received + reported lost = every sequence number ($got + $lost = $((s2 - s0)))" \
	[ $((got + lost)) = $((s2 - s0)) ]
check "STATUS: no failure was lost to a full queue" [ "$(status_num failures_dropped)" = 0 ]
# Every source stamps its events with the wall clock (CLOCK_REALTIME), qpairs too.
wall1=$(date +%s)
bad=$(sed -n 's/.*"time_ns":\([0-9]*\).*"kind":"\([a-z0-9-]*\)".*/\2 \1/p' "$tmp/ev.json" |
	awk -v a="$wall0" -v b="$wall1" '{ s = substr($2, 1, length($2) - 9) + 0; if (s < a - 1 || s > b + 1) print $1 }' | sort | uniq -c | tr '\n' ' ')
kinds=$(grep -o '"kind":"[a-z-]*"' "$tmp/ev.json" | sort -u | tr -d '"' | sed 's/kind://' | tr '\n' ' ')
check "every event's time_ns is wall-clock time within the run (kinds: $kinds; off: ${bad:-none})" \
	sh -c "[ -z '$bad' ] && echo '$kinds' | grep -q qpair && echo '$kinds' | grep -q uid-pot"
# Budgets of 100 per uid, and libia's listener asks for an 8 MiB buffer (root: SO_RCVBUFFORCE).
check "the listener lost nothing to the floods (lost $lost)" [ "$lost" = 0 ]
kill "$evp"
wait "$evp" 2>/dev/null
evp=""

ktap_finish
