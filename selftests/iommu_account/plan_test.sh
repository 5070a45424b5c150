#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iommu-accountctl plan against the kernel: for each workload of the table,
# plan's verdict and figures first, then plan_run runs the same workload and
# the kernel answers: whether it fits, or which call refused it with which
# errno (and at which map or request: io_uring does not say which buffer of
# a registration, so there the pot is compared instead); then the counters
# as the kernel left them - the uid's pot (the module's reading of
# user_struct->locked_vm), the process's VmLck (mm->locked_vm), each
# container's entries in use (dma_entry_limit minus VFIO's DMA_AVAIL), the
# hugetlb pages mapped, each qpair's descriptors in use - must equal plan's
# figure at the refusal, or after the whole workload. The qpair is a
# simulated SPDK one (no NVMe here). Runs as root in the VM, KTAP output.
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
hold=""
nr_huge=$(cat /proc/sys/vm/nr_hugepages)
khp=/sys/kernel/mm/transparent_hugepage/khugepaged/defrag
khp_was=$(cat $khp 2>/dev/null)
cleanup() {
	[ -n "$khp_was" ] && echo "$khp_was" >$khp
	[ -n "$thp_was" ] && echo "$thp_was" >/sys/kernel/mm/transparent_hugepage/enabled
	[ -n "$hold" ] && { exec 5>&-; wait "$hold" 2>/dev/null; }
	echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit 2>/dev/null
	echo "$nr_huge" >/proc/sys/vm/nr_hugepages
	rm -rf "$tmp"
}
trap cleanup EXIT

# runner_line OUT: the line a runner (plan_run --hold, its stdout on the FIFO
# OUT) prints once its workload has run, waited for by reading it: no time
# bound of its own (a 20 s poll was most likely outrun on 6.1 in a full run,
# where this test took 182 s instead of 71 after the boot's other tests:
# the pot read 0, before the workload), an empty line if the runner died
# first; a hung runner meets the VM harness's time limit.
runner_line() {
	IFS= read -r runner_l <"$1"
	printf '%s\n' "$runner_l"
}

echo "TAP version 13"
modprobe vfio_iommu_type1 && modprobe vfio_pci
# Earlier tests of the boot fragment memory: compact it, so that huge pages
# (hugetlb's pool, THP) can be had. The THP rows are about faults
# (MADV_HUGEPAGE), not about khugepaged: it is kept from compacting while
# this test runs, because once compaction has left free huge pages it
# collapses every process's memory, and on the debug kernel under TCG one
# such allocation, compacting in khugepaged, ran 22 s without a schedule
# point (a soft lockup, CI at 18df045).
[ -n "$khp_was" ] && echo 0 >$khp
sync
echo 3 >/proc/sys/vm/drop_caches
echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
echo 8 >/proc/sys/vm/nr_hugepages
huge=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
echo "# hugetlb 2 MiB pages free: $huge; THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"

# What plan predicts against what the kernel did: [] when they agree, else
# the counters that differ; and the verdict. Refused, each counter is as
# plan holds it at its first refusal; run through, each is within plan's
# bounds [after_min, after] (one figure where plan is exact: min = max).
agree='$p[0] as $p | $r[0] as $r |
	def want($i): if $r.failed and $p.first_refusal then [$p.first_refusal.held[$i], $p.first_refusal.held[$i]]
		else [$p.counters[$i].after_min, $p.counters[$i].after] end;
	[$p.counters | to_entries[] | .key as $i | .value as $c |
	 {name: $c.name, want: want($i),
	  got: (if $c.counter == "uid-pot" then $pot
		elif $c.counter == "mm-locked-vm" then $r.vmlck
		elif $c.counter == "hugetlb-2m" then $r.huge_2m
		else ([$r.items[] | select(.line == $c.line) | .used] | first) end)} |
	 select(.got == null or .got < .want[0] or .got > .want[1])]'
# Refused for certain, the kernel refuses; fits for certain, it runs; "may
# be refused" (huge pages may back the memory, or not), either; a refusal
# is plan's first, by call, errno, item and step (io_uring's registration
# does not say which buffer).
verdict='$p[0] as $p | $r[0] as $r |
	(if $p.fits then $r.failed == null elif $p.may_fit then true else $r.failed != null end) and
	($r.failed == null or
	 ($p.first_refusal.item == $r.failed.item and $p.first_refusal.errno == $r.failed.errno and
	  $p.first_refusal.call == $r.failed.call and
	  ($r.failed.call == "io_uring_register" or $p.first_refusal.step == $r.failed.step)))'

# workload NAME UID MEMLOCK CAP(yes|no) ITEM...: plan it, run it, compare
# (plan_run takes $runflags too).
runflags=""
workload() {
	name=$1 uid=$2 memlock=$3 cap=$4
	shift 4
	iommu-accountctl -j plan --uid "$uid" "$@" "process memlock=$memlock cap_ipc_lock=$cap" \
		>"$tmp/plan.json" 2>"$tmp/plan.err"
	prc=$?
	capopt=""
	[ "$cap" = yes ] && capopt=--cap-ipc-lock
	rm -f "$tmp/run.json" "$tmp/fifo" "$tmp/out"
	mkfifo "$tmp/fifo" "$tmp/out"
	# shellcheck disable=SC2086
	plan_run --uid "$uid" --memlock "$memlock" $capopt $runflags --hold "$@" <"$tmp/fifo" \
		>"$tmp/out" 2>"$tmp/run.err" &
	run=$!
	exec 4>"$tmp/fifo"
	runner_line "$tmp/out" >"$tmp/run.json"
	pot=$(iommu-accountctl -j uids --uid "$uid" 2>/dev/null | jq '.[0].locked_bytes')
	exec 4>&-
	wait "$run"
	# Everything compared, from one jq (under TCG each process started
	# costs a tenth of a second or more; this was six): plan's verdict
	# in words, whether the kernel agreed (never when the runner died
	# before its result line), the counters that differ, how THP backed
	# the buffers, plan's bounds of the pot, plan's exit status.
	fits="" vok="" diff="" thp="" bound="" want_rc=""
	if jq -rn --slurpfile p "$tmp/plan.json" --slurpfile r "$tmp/run.json" \
		--argjson pot "${pot:-null}" "
		(\$p[0] | if .fits then \"fits\" else \"refused: \" + .first_refusal.call + \" \" +
			.first_refusal.errno + \" at line \" + (.first_refusal.line | tostring) +
			\" step \" + (.first_refusal.step | tostring) end),
		(if (\$r | length) == 1 and (\$r[0] | type) == \"object\" then ($verdict) | tostring
			else \"the runner printed no result\" end),
		(($agree) | tojson),
		(\$r[0] | if .failed != null or .thp_eligible == 0 then \"\" elif .thp_backed == 0 then
			\"none\" elif .thp_backed == .thp_eligible then \"all\" else \"part\" end),
		(first((\$p[0].counters[] | select(.counter == \"uid-pot\")), null) |
			if . == null or .after_min == .after then \"\" else \"\\(.after_min) \\(.after)\" end),
		(\$p[0] | if .fits then 0 else 8 end)" >"$tmp/cmp" 2>"$tmp/cmp.err"; then
		{ read -r fits; read -r vok; read -r diff; read -r thp; read -r bound; read -r want_rc; } <"$tmp/cmp"
	else
		diff=$(cat "$tmp/cmp.err")
	fi
	echo "# $name: plan says ${fits:-nothing (exit $prc: $(cat "$tmp/plan.err"))}; run: $(cat "$tmp/run.json")"
	# plan exits 0 when it fits, 8 when it would be refused.
	check "$name: plan's verdict is the kernel's ($fits)" [ "$prc" = "$want_rc" -a "$vok" = true ]
	check "$name: every counter as plan predicted (${diff:-none compared})" [ "$diff" = "[]" ]
	# Where huge pages could back the buffers, which bound the kernel met:
	# THP in every 2 MiB range it could fill (smaps), the most; none, the
	# least; in part, only the bracket above.
	case "$thp:$bound" in
	all:?*)
		check "$name: THP backed every huge page it could: the pot is plan's most (${bound#* })" \
			[ "$pot" = "${bound#* }" ] ;;
	none:?*)
		check "$name: no THP backed it: the pot is plan's least (${bound% *})" \
			[ "$pot" = "${bound% *}" ] ;;
	part:?*)
		echo "# $name: THP backed part of what it could ($(jq -c '[.thp_backed, .thp_eligible]' "$tmp/run.json")): bracketed only" ;;
	esac
}

# A uid of its own per workload (the pots do not meet), except where the
# pot is shared on purpose.
workload "io_uring 4 x 1 MiB under 64 MiB" 4101 64M no "uring entries=8 buffers=4 size=1M"
workload "io_uring 16 x 1 MiB under 8 MiB: the 9th buffer" 4102 8M no \
	"uring entries=8 buffers=16 size=1M"
workload "io_uring 64 buffers of 12289 B: 4 pages each, exactly 1 MiB" 4103 1M no \
	"uring entries=8 buffers=64 size=12289"
workload "io_uring 65 buffers of 12289 B: one page set over 1 MiB" 4104 1M no \
	"uring entries=8 buffers=65 size=12289"
workload "io_uring ring of 4096 entries, no buffers, RLIMIT_MEMLOCK 0" 4105 0 no \
	"uring entries=4096"
if [ "$huge" -ge 4 ]; then
	workload "io_uring 2 x 1 MiB in hugetlb 2 MiB pages: charged whole" 4106 16M no \
		"uring entries=8 buffers=2 size=1M page=2m"
	workload "io_uring 2 x 4 KiB in hugetlb 2 MiB pages under 3 MiB" 4107 3M no \
		"uring entries=8 buffers=2 size=4096 page=2m"
	workload "io_uring $((huge + 2)) hugetlb buffers of 2 MiB: the pool runs out" 4108 unlimited no \
		"uring entries=8 buffers=$((huge + 2)) size=2M page=2m"
else
	ok "io_uring in hugetlb pages # SKIP only $huge free 2 MiB pages, even after compaction"
fi
echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
workload "io_uring 3 x 1 MiB under MADV_HUGEPAGE: 1 to 2 MiB each" 4109 64M no \
	"uring entries=8 buffers=3 size=1M page=thp"
workload "io_uring 3 x 1 MiB under MADV_HUGEPAGE, 5 MiB: may be refused (4 KiB pages fit)" 4110 5M no \
	"uring entries=8 buffers=3 size=1M page=thp"
workload "io_uring with CAP_IPC_LOCK under RLIMIT_MEMLOCK 0" 4111 0 yes \
	"uring entries=8 buffers=4 size=1M"
# Root's pot is every root process's: wait until nothing of it waits for release.
until_ok 400 sh -c "iommu-accountctl -j uids --uid 0 | jq -e '.[0].pending_bytes == 0' >/dev/null"
workload "io_uring as root without CAP_IPC_LOCK, 2 x 1 MiB under 64 MiB" 0 64M no \
	"uring entries=8 buffers=2 size=1M"

# Where buffers start, and how they lie (issue 46): the pages a buffer
# spans, a page shared by two buffers paid by each, a page shared by two
# rings paid by each ring.
workload "io_uring 8 x 64 KiB 100 bytes into a page under 512 KiB: 17 pages each, the 8th" \
	4140 512K no "uring entries=8 buffers=8 size=64K offset=100"
workload "io_uring 8 x 64 KiB 100 bytes in under 544 KiB: exactly" 4141 544K no \
	"uring entries=8 buffers=8 size=64K offset=100"
workload "io_uring 8 x 64 KiB packed in one arena from byte 100 under 512 KiB: straddled pages paid twice" \
	4142 512K no "uring entries=8 buffers=8 size=64K offset=100 layout=arena"
workload "io_uring 16 x 1 KiB packed in 4 pages under 56 KiB: each pays for its page, the 15th" \
	4143 56K no "uring entries=8 buffers=16 size=1K layout=arena"
runflags=--share-memory
workload "two rings registering the same 1 MiB under 1.5 MiB: each ring pays, the second refused" \
	4144 1536K no "uring entries=8 buffers=1 size=1M" "uring entries=8 buffers=1 size=1M"
runflags=""
if [ "$huge" -ge 4 ]; then
	workload "io_uring a 2 MiB buffer 4 KiB into hugetlb 2 MiB pages: two huge pages" 4150 64M no \
		"uring entries=8 buffers=1 size=2M offset=4K page=2m"
	workload "io_uring 4 x 512 KiB packed in one hugetlb page: charged once" 4151 64M no \
		"uring entries=8 buffers=4 size=512K page=2m layout=arena"
fi

# Transparent huge pages as the host has them set: plain memory under
# `always`, MADV_HUGEPAGE's under `madvise` too, neither under `never`.
# Each mode set here in turn, the host's put back after.
thp_sys=/sys/kernel/mm/transparent_hugepage/enabled
thp_was=$(sed 's/.*\[\(.*\)\].*/\1/' $thp_sys 2>/dev/null)
if [ -n "$thp_was" ]; then
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	echo always >$thp_sys
	workload "THP always: 3 x 1 MiB plain in a 4 MiB arena: 3 to 4 MiB" 4145 64M no \
		"uring entries=8 buffers=3 size=1M arena=4M"
	workload "THP always: the same under 3.5 MiB: may be refused" 4146 3584K no \
		"uring entries=8 buffers=3 size=1M arena=4M"
	workload "THP always: 3 x 1 MiB each in its own 1 MiB mapping: no huge page fits, exact" 4147 3M no \
		"uring entries=8 buffers=3 size=1M"
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	echo madvise >$thp_sys
	workload "THP madvise: plain memory in a 4 MiB arena: 4 KiB pages, exact" 4148 3M no \
		"uring entries=8 buffers=3 size=1M arena=4M"
	workload "THP madvise: MADV_HUGEPAGE on the 4 MiB arena: 3 to 4 MiB" 4149 64M no \
		"uring entries=8 buffers=3 size=1M arena=4M page=thp"
	[ "$huge" -ge 4 ] && workload "THP madvise beside hugetlb: a 2 MiB page, then the advised arena" \
		4153 64M no "uring entries=8 buffers=1 size=1M page=2m" \
		"uring entries=8 buffers=3 size=1M arena=4M page=thp"
	echo never >$thp_sys
	workload "THP never: MADV_HUGEPAGE changes nothing, exact" 4152 3M no \
		"uring entries=8 buffers=3 size=1M arena=4M page=thp"
	echo "$thp_was" >$thp_sys
else
	ok "THP modes # SKIP no $thp_sys on this kernel"
fi

# The shared pot: uid 4112 holds 6 MiB in another process.
mkfifo "$tmp/hold" "$tmp/hold.out"
plan_run --uid 4112 --memlock 16M --hold "uring entries=8 buffers=6 size=1M" <"$tmp/hold" \
	>"$tmp/hold.out" 2>"$tmp/holder.err" &
hold=$!
exec 5>"$tmp/hold"
runner_line "$tmp/hold.out" >"$tmp/holder.json"
check "holder: uid 4112 holds 6 MiB" jqt '.failed == null' "$(cat "$tmp/holder.json")"
workload "shared pot: 3 x 1 MiB more under 8 MiB while 6 MiB are held" 4112 8M no \
	"uring entries=8 buffers=3 size=1M"
workload "shared pot: 3 x 1 MiB more under 16 MiB" 4112 16M no "uring entries=8 buffers=3 size=1M"
workload "another uid beside it: 3 x 1 MiB under 8 MiB" 4113 8M no "uring entries=8 buffers=3 size=1M"
# Offline (no module asked): the same spec with the same pot and
# dma_entry_limit stated gives the same figures as the live plan, whose pot
# is the module's reading of the 6 MiB held.
offline_same() {
	name=$1
	shift
	iommu-accountctl -j plan --uid 4112 "$@" "process memlock=8M" >"$tmp/live.json"
	lrc=$?
	livepot=$(jq '.counters[0].now' "$tmp/live.json")
	iommu-accountctl -j plan --offline --uid 4112 --pot "$livepot" --dma-entry-limit \
		"$(cat /sys/module/vfio_iommu_type1/parameters/dma_entry_limit)" "$@" \
		"process memlock=8M" >"$tmp/off.json" 2>"$tmp/off.err"
	orc=$?
	check "offline, $name: the live plan's figures and verdict (pot $livepot stated; exit $lrc, $orc)" sh -c '
		[ "$1" = "$2" ] && [ "$3" = 6291456 ] && jq -en --slurpfile a "$4" --slurpfile b "$5" "
			(\$a[0] | {counters, fits, may_fit, first_refusal, fixes}) ==
			(\$b[0] | {counters, fits, may_fit, first_refusal, fixes}) and
			\$b[0].offline and (\$b[0].unread | length) == 0" >/dev/null' _ "$lrc" "$orc" \
		"$livepot" "$tmp/live.json" "$tmp/off.json"
}
offline_same "3 x 1 MiB more" "uring entries=8 buffers=3 size=1M"
offline_same "8 x 64 KiB 100 bytes in, and 3 maps of 1 MiB" \
	"uring entries=8 buffers=8 size=64K offset=100" "vfio maps=3 size=1M"
iommu-accountctl -j plan --offline --uid 4112 "uring entries=8 buffers=1 size=1M" \
	"process memlock=8M" >"$tmp/off.json" 2>"$tmp/off.err"; orc=$?
check "offline without --pot: exit 9, the pot named as not read (held: 6 MiB, taken as 0)" \
	sh -c "[ $orc = 9 ] && jq -e '.fits and (.unread | length == 1) and (.unread[0] | test(\"pot\"))' '$tmp/off.json' >/dev/null"
exec 5>&-
wait "$hold"
hold=""

# --limit-for: the least RLIMIT_MEMLOCK; the workload run under it fits,
# and one page below it is refused (by the counter that sets it).
limit_for() {
	name=$1 uid=$2
	shift 2
	lim=$(iommu-accountctl plan --uid "$uid" --limit-for "$@" 2>"$tmp/lf.err")
	lfrc=$?
	plan_run --uid "$uid" --memlock "$lim" "$@" >"$tmp/lf-at.json" 2>&1
	plan_run --uid "$uid" --memlock "$((lim - 4096))" "$@" >"$tmp/lf-below.json" 2>&1
	echo "# --limit-for $name: $lim (exit $lfrc); at it: $(cat "$tmp/lf-at.json"); a page below: $(cat "$tmp/lf-below.json")"
	check "--limit-for, $name: $lim bytes fits, $((lim - 4096)) is refused" sh -c '
		[ "$1" = 0 ] && [ "$2" -gt 4096 ] && jq -e ".failed == null" "$3" >/dev/null &&
		jq -e ".failed.errno == \"ENOMEM\"" "$4" >/dev/null' _ "$lfrc" "${lim:-0}" \
		"$tmp/lf-at.json" "$tmp/lf-below.json"
}
limit_for "8 x 64 KiB 100 bytes in" 4160 "uring entries=8 buffers=8 size=64K offset=100"
limit_for "io_uring 2 MiB and 3 maps of 1 MiB: the maps set it" 4161 \
	"uring entries=8 buffers=2 size=1M" "vfio maps=3 size=1M"
limit_for "16 x 1 KiB packed" 4162 "uring entries=8 buffers=16 size=1K layout=arena"

workload "VFIO 4 maps of the same 1 MiB: charged 4 times" 4114 64M no "vfio maps=4 size=1M"
workload "VFIO 4 maps of 1 MiB under 3 MiB: the 4th map" 4115 3M no "vfio maps=4 size=1M"
workload "VFIO with CAP_IPC_LOCK under RLIMIT_MEMLOCK 0" 4116 0 yes "vfio maps=4 size=1M"
echo 10 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
workload "VFIO 12 maps against dma_entry_limit=10" 4117 unlimited no "vfio maps=12 size=4096"
workload "VFIO 11 maps, dma_entry_limit=10 and 40 KiB: the entry refuses first" 4118 40K no \
	"vfio maps=11 size=4096"
workload "VFIO two containers of 6 maps each, dma_entry_limit=10" 4119 unlimited no \
	"vfio maps=6 size=4096" "vfio maps=6 size=4096"
echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
workload "qpair of 64 descriptors, depth 64" 4120 64M no "qpair capacity=64 depth=64"
workload "qpair of 64 descriptors, depth 100: request 65" 4121 64M no "qpair capacity=64 depth=100"
workload "io_uring 4 MiB and VFIO 3 MiB under 6 MiB: two counters, one limit" 4122 6M no \
	"uring entries=8 buffers=4 size=1M" "vfio maps=3 size=1M"
workload "io_uring 4 MiB then VFIO 7 MiB under 6 MiB: the 7th map" 4123 6M no \
	"uring entries=8 buffers=4 size=1M" "vfio maps=7 size=1M"
workload "VFIO 2 MiB, io_uring 2 MiB, qpair over its pool: the qpair" 4124 8M no \
	"vfio maps=2 size=1M" "uring entries=8 buffers=2 size=1M" "qpair capacity=8 depth=9"

# memcg: the workload's memory against its cgroup's memory.max. Pinning
# past it is not an ENOMEM: the kernel's memcg OOM-kills the mapper (its
# report, expected, is bracketed for scripts/vm/run's check of dmesg).
cgname=ia-plan-$$
cg=/sys/fs/cgroup/$cgname
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir "$cg" && echo 16M >"$cg/memory.max" && { echo 0 >"$cg/memory.swap.max" 2>/dev/null || :; }
incg() { sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' _ "$cg" "$@"; }
kills() { awk '$1 == "oom_kill" {print $2}' "$cg/memory.events"; }
out=$(iommu-accountctl -j plan --uid 4130 "vfio maps=1 size=64M" "process memlock=unlimited cgroup=/$cgname"); prc=$?
echo "# memcg 16 MiB: plan: $(printf '%s' "$out" | jq -c '.first_refusal')"
k0=$(kills)
echo "ia-expect-report: begin (plan_test: a memcg OOM kill)" >/dev/kmsg
incg plan_run --uid 4130 --memlock unlimited "vfio maps=1 size=64M" >"$tmp/cg.json" 2>&1; rrc=$?
echo "ia-expect-report: end" >/dev/kmsg
k1=$(kills)
check "memcg of 16 MiB, a 64 MiB map: plan says the memcg kills it (exit 8, SIGKILL at map 1)" \
	sh -c "[ $prc = 8 ] && printf '%s' \"\$1\" | jq -e '.first_refusal | .counter == \"memcg\" and
		.errno == \"SIGKILL\" and .item == 1 and .step == 1' >/dev/null" _ "$out"
check "and the kernel's memcg OOM-killed the mapper (exit $rrc, memory.events oom_kill $k0 -> $k1)" \
	[ "$rrc" = 137 -a "$((k1 - k0))" = 1 ]
echo 256M >"$cg/memory.max"
out=$(iommu-accountctl -j plan --uid 4131 "vfio maps=1 size=64M" "process memlock=unlimited cgroup=/$cgname"); prc=$?
incg plan_run --uid 4131 --memlock unlimited "vfio maps=1 size=64M" >"$tmp/cg.json" 2>&1; rrc=$?
check "memcg of 256 MiB: plan says it fits, and it ran, 64 MiB pinned" sh -c "[ $prc = 0 ] && [ $rrc = 0 ] &&
	printf '%s' \"\$1\" | jq -e 'any(.counters[]; .counter == \"memcg\" and .limit == 268435456 and
		.estimate)' >/dev/null && jq -e '.failed == null and .vmlck == 67108864' '$tmp/cg.json' >/dev/null" _ "$out"
# explain uid names the memcg and the kernel's OOM kill in it.
mkfifo "$tmp/cghold" "$tmp/cghold.out"
incg plan_run --uid 4131 --memlock 8M --hold "uring entries=8 buffers=1 size=1M" <"$tmp/cghold" \
	>"$tmp/cghold.out" 2>"$tmp/cgh.err" &
hold=$!
exec 5>"$tmp/cghold"
runner_line "$tmp/cghold.out" >"$tmp/cgh.json"
json=$(iommu-accountctl -j explain uid 4131)
text=$(iommu-accountctl explain uid 4131)
exec 5>&-
wait "$hold"
hold=""
check "explain uid: the holder's cgroup with its memory.max and the OOM kill memory.events counted" \
	jqt "any(.cgroups[]; .cgroup == \"/$cgname\" and .memcg.max == 268435456 and .memcg.oom_kill == 1 and
		.memcg.limited_by == \"/$cgname\")" "$json"
check "explain uid, text: 1 OOM kill, killed not refused" sh -c "printf '%s' \"\$1\" |
	grep -q 'of memory.max 256.0 MiB (/$cgname); reached memory.max [0-9]* times, 1 OOM kill (memory.events)'" _ "$text"
rmdir "$cg"

# Bad input and what this kernel cannot do.
iommu-accountctl plan "uring entries=8 buffers=2 size=1X" 2>"$tmp/err"; rc=$?
check "a malformed item: exit 1, the word and why" sh -c "[ $rc = 1 ] && grep -q \"size='1X' is not a size\" '$tmp/err'"
printf 'uring entries=8\n# a comment\nvfio maps=2 size=5000\n' >"$tmp/spec"
iommu-accountctl plan --file "$tmp/spec" 2>"$tmp/err"; rc=$?
check "a spec whose line 3 is bad: exit 1, names line 3" sh -c "[ $rc = 1 ] && grep -q ':3: vfio: size= must be a multiple' '$tmp/err'"
if [ -e /dev/iommu ]; then
	check "iommufd items are planned where /dev/iommu exists" sh -c \
		"iommu-accountctl plan --uid 4125 'iommufd maps=1 size=1M' 'process memlock=8M' >/dev/null"
else
	iommu-accountctl plan "iommufd maps=1 size=1M" 2>"$tmp/err"; rc=$?
	check "iommufd on a kernel without it: exit 5, not on this kernel" sh -c "[ $rc = 5 ] && grep -q 'iommufd is not on this kernel' '$tmp/err'"
fi
out=$(iommu-accountctl plan --uid 4126 "vfio maps=4 size=1M" "process memlock=2M"); rc=$?
echo "$out" | sed 's/^/# /'
check "text: the refusal, its figures and the setting that fits" sh -c "[ $rc = 8 ] &&
	echo \"\$1\" | grep -q 'First: line 1 (vfio), map 3 of it: VFIO_IOMMU_MAP_DMA fails with ENOMEM' &&
	echo \"\$1\" | grep -q 'LimitMEMLOCK=4194304'" _ "$out"
# Everything the workloads held is given back: io_uring frees a ring's
# buffers from a workqueue after its process exits, so a uid's pot can
# outlive it for a while; the tests after this one must find none of it.
plan_uids_gone() {
	[ "$(iommu-accountctl -j uids | jq '[.[] | select(.uid >= 4100 and .uid <= 4199)] | length')" = 0 ]
}
check "every workload's pot released: uids 4100-4199 gone from the module's list" \
	until_ok 1200 plan_uids_gone
ktap_finish
