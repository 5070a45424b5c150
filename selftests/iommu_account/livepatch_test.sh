#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A livepatch is never refused because iommu_account is loaded (issue 43),
# in the VM as root, KTAP output (an oops or WARN fails the boot; the debug
# lane checks kmemleak after it). ia_klp_uring (selftests/iommu_account/kmod,
# added to the boot at /opt/ia) livepatches __io_account_mem (and on 7.x
# io_account_mem), functions the module wraps, with their own bodies:
#   - applied while the module is loaded: the module has the function
#     wrapped (an IPMODIFY ftrace_ops, which made klp_enable_patch fail with
#     EBUSY), insmod succeeds, the patch is enabled and its transition ends;
#     at the livepatch's arrival every wrapped hook of every set went to a
#     kretprobe, and each set's feature says to which livepatch;
#   - the counts stay exact, against the kernel: a uid registering buffers
#     in a loop through the handover has its pot counted to the byte after
#     it, memlock_test passes, a fresh container is counted to the entry
#     where the kernel refuses, a fresh pot to the byte; the patched
#     function is the one that charged;
#   - removed in either order: the module unloaded and loaded again while
#     the patch is on (the patched function falls back to a kretprobe, the
#     rest are wrapped), then the patch disabled and removed under the
#     module, counts exact at each step; the module loaded after it wraps
#     every function again; and the module unloaded first, the patch second.
# On PREEMPT_RT no kprobe may take over (their handlers would sleep with
# preemption off: kmod/wrapper/hook.c): the livepatch is applied all the
# same, every set with a wrapped hook is taken down and says so, what they
# followed is forgotten (a pot held through it is the kernel's figure, all
# of it unattributed; no container is listed), and a load under the patch
# hooks what ftrace can and says why the rest is off (rt_livepatch below).
# Waits are bounded polls of conditions, never sleeps.
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
hold=""
ko=/opt/ia/ia_klp_uring.ko
klp=/sys/kernel/livepatch/ia_klp_uring
cleanup() {
	[ -n "$hold" ] && { exec 3>&-; kill "$hold" 2>/dev/null; wait "$hold" 2>/dev/null; }
	if [ -d "$klp" ]; then
		echo 0 >"$klp/enabled" 2>/dev/null
		until_ok 600 test ! -d "$klp"
	fi
	rmmod ia_klp_uring 2>/dev/null
	grep -q '^iommu_account ' /proc/modules || modprobe iommu_account
	echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
echo "TAP version 13"
if [ ! -d /sys/kernel/livepatch ] || [ ! -f "$ko" ]; then
	echo "1..0 # SKIP: no livepatch here (CONFIG_LIVEPATCH and $ko, from scripts/vm/run --add, are both needed)"
	exit 0
fi
modprobe vfio_iommu_type1 && modprobe vfio_pci

# The detail of feature NAME, from the module's STATUS.
detail() {
	iommu-accountctl -j status | jq -r ".features[] | select(.name == \"$1\") | .detail"
}
active() {
	jqt "any(.features[]; .name == \"$1\" and .state == \"active\")" "$(iommu-accountctl -j status)"
}
# The patch applied and every task switched to it.
applied() { [ "$(cat "$klp/enabled" 2>/dev/null)" = 1 ] && [ "$(cat "$klp/transition")" = 0 ]; }
calls() { cat /sys/module/ia_klp_uring/parameters/calls; }
# exact LABEL: the module's counts against what the kernel did.
exact() {
	memlock_test >"$tmp/ml.out" 2>&1
	rc=$?
	check "$1: memlock_test passes (io_uring and AF_XDP charges exact)" [ $rc = 0 ] ||
		grep -E '^not ok|^# [a-z_]+\.c:[0-9]+:' "$tmp/ml.out" | sed 's/^/# /'
	fresh_container "$1"
	fresh_pot "$1"
}
# klp_on: the livepatch inserted and applied.
klp_on() {
	insmod "$ko" 2>"$tmp/insmod.err" && until_ok 600 applied
}
# klp_off: the livepatch disabled, its transition over, the module removed.
klp_off() {
	echo 0 >"$klp/enabled" && until_ok 600 test ! -d "$klp" && rmmod ia_klp_uring
}

# --- PREEMPT_RT: the sets taken down, nothing followed that is not seen ------
rt_livepatch() {
	local why="taken down for livepatch ia_klp_uring (PREEMPT_RT: no kprobes"
	rm -f "$tmp/h.txt"
	runas 1000 uring_bench hold 1048576 >"$tmp/h.txt" 2>&1 &
	hold=$!
	until_ok 200 grep -q '^hold 0' "$tmp/h.txt"
	check "rt: before: uid 1000's 1 MiB is io_uring buffers" \
		jqt 'any(.[]; .locked_bytes == 1048576 and .consumers["io_uring-buffers"] == 1048576)' \
		"$(iommu-accountctl -j uids --uid 1000)"
	check "rt: a livepatch of __io_account_mem is applied while the module is loaded (insmod: 0, enabled, transition done)" \
		klp_on || shows insmod="$tmp/insmod.err"
	check "rt: the kernel did not refuse the livepatch's ftrace handler (no -16 in its log)" \
		eval '! dmesg | grep -q "failed to register ftrace handler"'
	for f in memlock-io_uring vfio-type1 memlock-xdp; do
		check "rt: $f is unavailable: $why...)" \
			eval "! active $f && detail $f | grep -qF '$why'" || echo "# detail: $(detail $f)"
	done
	check "rt: uid 1000's pot held through it is the kernel's 1 MiB, all of it unattributed" \
		jqt 'any(.[]; .locked_bytes == 1048576 and .unattributed_bytes == 1048576 and
			(.consumers | length == 0))' "$(iommu-accountctl -j uids --uid 1000)" ||
		echo "# uids: $(iommu-accountctl -j uids --uid 1000)"
	kill "$hold"
	wait "$hold" 2>/dev/null
	hold=""
	check "rt: released: the kernel's figure is back at 0" \
		until_ok 400 eval '! jqt "any(.[]; .locked_bytes > 0)" "$(iommu-accountctl -j uids --uid 1000 2>/dev/null)"'
	rm -f "$tmp/hold3"
	mkfifo "$tmp/hold3"
	vfio_tool leak 0 3 >"$tmp/leak3.txt" 2>&1 <"$tmp/hold3" &
	hold=$!
	exec 4>"$tmp/hold3"
	until_ok 200 grep -q "3 mappings held" "$tmp/leak3.txt"
	check "rt: a container that maps 3 entries after it is not listed (type1 not followed)" \
		eval 'grep -q "3 mappings held" "$tmp/leak3.txt" && jqt "length == 0" "$(iommu-accountctl -j containers)"' ||
		shows mapper="$tmp/leak3.txt"
	exec 4>&-
	wait "$hold"
	hold=""
	check "rt: rmmod and modprobe iommu_account under the patch" eval 'rmmod iommu_account && modprobe iommu_account'
	check "rt: loaded under the patch: __io_account_mem off (ftrace refused; no kprobes on PREEMPT_RT)" \
		eval '! active memlock-io_uring && detail memlock-io_uring | grep -q "no hook on __io_account_mem: ftrace: ftrace refused; PREEMPT_RT: no kprobes"' ||
		echo "# detail: $(detail memlock-io_uring)"
	check "rt: loaded under the patch: vfio_iommu_type1 wrapped on ftrace" active vfio-type1
	fresh_container "rt: loaded under the patch"
	check "rt: the patch disabled and removed" klp_off
	check "rt: rmmod and modprobe iommu_account after the patch: every io_uring hook on ftrace" \
		eval 'rmmod iommu_account && modprobe iommu_account && detail memlock-io_uring | grep -q "; hooks: ftrace$"'
	exact "rt: after the patch"
}
if uname -v | grep -q PREEMPT_RT; then
	rt_livepatch
	ktap_finish
	exit
fi

# --- applied while the module is loaded -------------------------------------
# The module's hooks as loaded: every io_uring hook on ftrace, return hooks
# wrapped (the premise: without the handover the insmod below is refused).
check "before: every io_uring hook is on ftrace (__io_account_mem wrapped)" \
	eval 'detail memlock-io_uring | grep -q "; hooks: ftrace$"' || echo "# detail: $(detail memlock-io_uring)"
dmesg -c >/dev/null
# uid 1000 registers buffers in a loop through the handover: a charge seen
# twice or lost there would stay in its pot's figures (checked below).
( while [ ! -e "$tmp/stop" ]; do runas 1000 uring_bench register 200 >/dev/null 2>&1; done ) &
churn=$!
check "a livepatch of __io_account_mem is applied while the module is loaded (insmod: 0, enabled, transition done)" \
	klp_on || shows insmod="$tmp/insmod.err"
touch "$tmp/stop"
wait "$churn"
rm -f "$tmp/stop"
check "the kernel did not refuse the livepatch's ftrace handler (no -16 in its log)" \
	eval '! dmesg | grep -q "failed to register ftrace handler"'
check "io_uring's feature: its wrapped hooks went to kretprobes, for livepatch ia_klp_uring" \
	eval 'detail memlock-io_uring | grep -Eq "hooks: ftrace, [1-9][0-9]* kretprobes \([1-9][0-9]* handed to livepatch ia_klp_uring\)$"' ||
	echo "# detail: $(detail memlock-io_uring)"
check "vfio_iommu_type1's feature: its wrapped hooks went to kretprobes, for the livepatch" \
	eval 'detail vfio-type1 | grep -q "handed to livepatch ia_klp_uring"' ||
	echo "# detail: $(detail vfio-type1)"
if active memlock-xdp; then
	check "AF_XDP's feature: its wrapped hook went to a kretprobe, for the livepatch" \
		eval 'detail memlock-xdp | grep -q "handed to livepatch ia_klp_uring"' ||
		echo "# detail: $(detail memlock-xdp)"
fi
if active iommufd; then
	check "iommufd's feature: its wrapped hooks went to kretprobes, for the livepatch" \
		eval 'detail iommufd | grep -q "handed to livepatch ia_klp_uring"' ||
		echo "# detail: $(detail iommufd)"
fi
until_ok 400 eval '! jqt "any(.[]; .locked_bytes > 0)" "$(iommu-accountctl -j uids --uid 1000 2>/dev/null)"'
fresh_pot "registering through the handover, then" 1000
c0=$(calls)
exact "patched under the module"
c1=$(calls)
check "the patched charge is the one that ran ($c0 -> $c1 calls)" [ "$c1" -gt "$c0" ]

# --- the module out and in under the patch, then the patch out ----------------
check "rmmod iommu_account while the patch is on" rmmod iommu_account
check "modprobe iommu_account while the patch is on" modprobe iommu_account
check "loaded under the patch: the patched functions fall back to kretprobes (ftrace refused), the rest wrapped" \
	eval 'detail memlock-io_uring | grep -Eq "hooks: ftrace, [12] kretprobes \(ftrace refused\)$"' ||
	echo "# detail: $(detail memlock-io_uring)"
exact "module loaded again under the patch"
check "the patch disabled and removed while the module is loaded" klp_off
exact "patch removed under the module"
check "rmmod and modprobe iommu_account after the patch" \
	eval 'rmmod iommu_account && modprobe iommu_account'
check "loaded after the patch: every io_uring hook is on ftrace again" \
	eval 'detail memlock-io_uring | grep -q "; hooks: ftrace$"' || echo "# detail: $(detail memlock-io_uring)"

# --- the other order: the module out first, the patch second --------------------
check "applied again while the module is loaded" klp_on || shows insmod="$tmp/insmod.err"
check "rmmod iommu_account while the patch is on (its kretprobes taken down)" rmmod iommu_account
check "the patch disabled and removed with the module out" klp_off
check "modprobe iommu_account after both: every io_uring hook is on ftrace" \
	eval 'modprobe iommu_account && detail memlock-io_uring | grep -q "; hooks: ftrace$"'
exact "after both removals"
ktap_finish
