#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Abuse that must hold on every change (issue 13's standing tests, in the
# VM as root, KTAP output; an oops or WARN fails the boot: panic_on_warn):
#   - reload under load: 20 rmmod/modprobe cycles of iommu_account and 5 of
#     vfio_iommu_type1 while uid 1000 registers io_uring buffers in a loop, a
#     VFIO mapper maps and unmaps (a new container each round), dumps run and
#     an events listener follows; after the last load a fresh container and a
#     fresh pot are counted exactly;
#     (every other load with hooks=kprobes, the fallback mechanism);
#   - the fallback: loaded with hooks=kprobes the module says so (VFIO and
#     io_uring) and a fresh container and a fresh pot are counted exactly; a
#     bad hooks= value is refused;
#   - event flood: a listener stopped while 20,000 events are raised; on
#     resume it reports exactly the missing sequence numbers and keeps going.
# Waits are bounded polls of conditions, never sleeps.
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
hold="" evp=""
cleanup() {
	touch "$tmp/stop"
	[ -n "$hold" ] && exec 3>&- && wait "$hold" 2>/dev/null
	[ -n "$evp" ] && kill "$evp" 2>/dev/null
	wait 2>/dev/null
	echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
echo "TAP version 13"
modprobe vfio_iommu_type1 && modprobe vfio_pci
ip link set lo up

# --- reload under load -----------------------------------------------------------
( while [ ! -e "$tmp/stop" ]; do runas 1000 uring_bench register 200 >/dev/null 2>&1; done ) &
( while [ ! -e "$tmp/stop" ]; do vfio_tool bench 200 >/dev/null 2>&1; done ) &
( while [ ! -e "$tmp/stop" ]; do
	iommu-accountctl -j uids >/dev/null 2>&1
	iommu-accountctl -j quotas >/dev/null 2>&1
	iommu-accountctl -j containers >/dev/null 2>&1
done ) &
# The listener follows for 3 s at a time (it rejoins after each reload).
( while [ ! -e "$tmp/stop" ]; do timeout 3 iommu-accountctl events >/dev/null 2>&1; done ) &
# IA_RELOAD_ROUNDS (default 20): fewer on the debug kernel (scripts/check).
rounds=${IA_RELOAD_ROUNDS:-20}
ok_ia=0
for i in $(seq "$rounds"); do
	until_ok 200 rmmod iommu_account || break
	if [ $((i % 2)) = 1 ]; then
		modprobe iommu_account hooks=kprobes || break
	else
		modprobe iommu_account || break
	fi
	ok_ia=$((ok_ia + 1))
done
check "reload under load: $rounds rmmod/modprobe cycles of iommu_account ($ok_ia)" [ "$ok_ia" = "$rounds" ]
# vfio_iommu_type1 goes only between two containers of the mapper loop.
ok_t1=0
for i in 1 2 3 4 5; do
	until_ok 400 rmmod vfio_iommu_type1 || break
	modprobe vfio_iommu_type1 || break
	ok_t1=$((ok_t1 + 1))
done
check "reload under load: 5 rmmod/modprobe cycles of vfio_iommu_type1 ($ok_t1)" [ "$ok_t1" = 5 ]
touch "$tmp/stop"
wait
rm -f "$tmp/stop"
check "after the reloads: STATUS answers" sh -c 'iommu-accountctl status >/dev/null'

fresh_container "after the reloads"
fresh_pot "after the reloads"

# --- the fallback mechanism ------------------------------------------------------
check "after the reloads: hooks on ftrace, MAP_DMA wrapped" \
	sh -c "iommu-accountctl -j status | grep -q 'ftrace hooks (MAP_DMA wrapped) on vfio_iommu_type1'"
check "after the reloads: io_uring hooks on ftrace" \
	sh -c "iommu-accountctl -j status | grep -q 'io_uring_release; hooks: ftrace\"'"
rmmod iommu_account
check "hooks=bogus is refused" sh -c '! modprobe iommu_account hooks=bogus 2>/dev/null'
check "hooks=bogus leaves the module unloaded" sh -c '! grep -q "^iommu_account " /proc/modules'
modprobe iommu_account hooks=kprobes
check "hooks=kprobes: the feature says kprobes, and why" \
	sh -c "iommu-accountctl -j status | grep -q 'kprobes on vfio_iommu_type1 (ftrace: hooks=kprobes)'"
fresh_container "hooks=kprobes"
# The detail counts each mechanism (wrapper/hook.c): none is ftrace here.
check "hooks=kprobes: io_uring hooks are kretprobes and kprobes, and why" \
	jqt '.features[] | select(.name == "memlock-io_uring") | .detail |
	     test("; hooks: [1-9][0-9]* kretprobes, [1-9][0-9]* kprobes [(]hooks=kprobes[)]$")' \
	"$(iommu-accountctl -j status)"
fresh_pot "hooks=kprobes"
rmmod iommu_account
modprobe iommu_account

# --- event flood: a stopped listener, 20,000 events -------------------------------
# The listener's own loss is under test: no coalescing and no budget here
# (fairness_test.sh tests those).
p=/sys/module/iommu_account/parameters
rate0=$(cat $p/event_rate) iv0=$(cat $p/event_interval_ms)
echo 0 >$p/event_rate
echo 0 >$p/event_interval_ms
seq_now() { iommu-accountctl -j status | jq .events_seq; }
iommu-accountctl -j events >"$tmp/ev.json" 2>&1 &
evp=$!
check "flood: listener subscribed" until_ok 200 subscribed "$evp"
s0=$(seq_now)
kill -STOP "$evp"
# 1,000 qpairs at 60 %: 10 rounds of thresholds below and above them raise
# 2 x 1,000 x 10 events, and the 1,000 objects going away 1,000 more.
qpair_flood 1000 10 >"$tmp/flood.txt" 2>&1
s1=$(seq_now)
kill -CONT "$evp"
# Two more events after the flood, so the gap shows and following goes on.
qpair_flood 1 1 >>"$tmp/flood.txt" 2>&1
s2=$(seq_now)
check "flood: 20,000 events raised while the listener was stopped ($((s1 - s0)))" \
	[ $((s1 - s0)) -ge 20000 ]
seen_last() { jqt ".seq == $s2" "$(tail -n 1 "$tmp/ev.json")"; }
check "flood: the listener follows again (it printed event $s2)" until_ok 400 seen_last
got=$(jq -R -c 'fromjson? | select(has("seq"))' "$tmp/ev.json" | wc -l)
lost=$(jq -R -c 'fromjson? | select(has("lost")) | .lost' "$tmp/ev.json" | awk '{s += $1} END {print s + 0}')
check "flood: received + reported lost = every sequence number ($got + $lost = $((s2 - s0)))" \
	[ $((got + lost)) = $((s2 - s0)) ]
kill "$evp"
wait "$evp" 2>/dev/null
evp=""
echo "$rate0" >$p/event_rate
echo "$iv0" >$p/event_interval_ms

ktap_finish
