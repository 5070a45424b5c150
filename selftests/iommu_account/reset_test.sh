#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hot-reset scopes (GET_RESET_SCOPE, iommu-accountctl reset-scope, groups)
# against the kernel's own answers, in a VM booted with (scripts/check):
#   --edu 3          an edu below a PCIe root port of its own (case i), and
#                    the harness's two edus on the root bus (case ii)
#   an NVMe controller with SR-IOV (QEMU's nvme, sriov_max_vfs=2) below a
#                    root port: its two VFs share the PF's bus but have IOMMU
#                    groups of their own, so a reset of the PF reaches two
#                    other groups (case iii)
# Ground truth: reset_tool asks VFIO_DEVICE_GET_PCI_HOT_RESET_INFO and does
# VFIO_DEVICE_PCI_HOT_RESET as an unprivileged owner. KTAP output, as root.
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
h1="" h2=""
cleanup() {
	[ -n "$h1" ] && exec 3>&- && wait "$h1" 2>/dev/null
	[ -n "$h2" ] && exec 4>&- && wait "$h2" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
echo "TAP version 13"

dev_of() {	# VENDOR DEVICE [bus filter: root|below]: the first matching BDF
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = "$1" ] && [ "$(cat "$d/device")" = "$2" ] || continue
		b=${d##*/}
		case $3 in
		root) [ "${b#0000:00:}" != "$b" ] || continue ;;
		below) [ "${b#0000:00:}" = "$b" ] || continue ;;
		esac
		echo "$b"
		return
	done
}
group_of() { basename "$(readlink "/sys/bus/pci/devices/$1/iommu_group")"; }
to_vfio() {
	echo vfio-pci >"/sys/bus/pci/devices/$1/driver_override"
	[ -e "/sys/bus/pci/devices/$1/driver" ] && echo "$1" >"/sys/bus/pci/devices/$1/driver/unbind"
	echo "$1" >/sys/bus/pci/drivers_probe
}
# "GROUP BDF" lines of the module's affected set, sorted.
module_set() {
	iommu-accountctl -j reset-scope "$1" | sed 's/.*"affected":\[//; s/},{/}\n{/g' |
		sed -n 's/.*"address":"\([^"]*\)".*"group":\([0-9]*\).*/\2 \1/p' | sort
}
verdict() {	# BDF UID: the verdict's name
	iommu-accountctl -j reset-scope "$1" --uid "$2" | sed -n 's/.*"verdict":"\([^"]*\)".*/\1/p'
}

modprobe vfio_iommu_type1
modprobe -r vfio_pci 2>/dev/null
modprobe vfio_pci enable_sriov=1
e0=$(dev_of 0x1234 0x11e8 root)
e1=$(dev_of 0x1234 0x11e8 below)
pf=$(dev_of 0x1b36 0x0010)
for d in $e0 $e1 $pf; do to_vfio "$d"; done
echo 2 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
vf1=$(ls -d "/sys/bus/pci/devices/$pf/virtfn0" >/dev/null 2>&1 && basename "$(readlink "/sys/bus/pci/devices/$pf/virtfn0")")
vf2=$(basename "$(readlink "/sys/bus/pci/devices/$pf/virtfn1")" 2>/dev/null)
echo "# root-bus edu $e0, edu below a root port $e1, NVMe PF $pf with VFs $vf1 $vf2"
check "topology: the devices are there, bound to vfio-pci" \
	sh -c "[ -n '$e0' ] && [ -n '$e1' ] && [ -n '$vf1' ] && [ -n '$vf2' ] &&
		[ \"\$(basename \$(readlink /sys/bus/pci/devices/$vf1/driver))\" = vfio-pci ]"
g0=$(group_of "$e0") g1=$(group_of "$e1") gp=$(group_of "$pf")
gv1=$(group_of "$vf1") gv2=$(group_of "$vf2")
check "topology: the PF and each VF in an IOMMU group of its own ($gp, $gv1, $gv2)" \
	sh -c "[ '$gp' != '$gv1' ] && [ '$gp' != '$gv2' ] && [ '$gv1' != '$gv2' ]"

# --- (i) an edu alone below its own root port -------------------------------
reset_tool info "$e1" | sort >"$tmp/k1"
module_set "$e1" >"$tmp/m1"
check "(i) the module's affected set equals the kernel's hot-reset info ($(tr '\n' ' ' <"$tmp/k1"))" \
	sh -c "[ -s '$tmp/k1' ] && cmp -s '$tmp/k1' '$tmp/m1'"
check "(i) scope: the device alone" [ "$(wc -l <"$tmp/m1")" = 1 ]
scope=$(iommu-accountctl -j reset-scope "$e1" | sed -n 's/.*"scope":"\([a-z]*\)".*/\1/p')
check "(i) scope is the kernel's slot or bus reset ($scope)" sh -c "[ '$scope' = slot ] || [ '$scope' = bus ]"
chown 1000 "/dev/vfio/$g1"
mkfifo "$tmp/hold1"
runas 1000 reset_tool hold "$g1" <"$tmp/hold1" >"$tmp/hold1.out" 2>&1 &
h1=$!
exec 3>"$tmp/hold1"
until_ok 200 grep -q holding "$tmp/hold1.out"
check "(i) verdict for its owner (uid 1000, holding the group): ok" [ "$(verdict "$e1" 1000)" = ok ]
check "(i) verdict for uid 1001: foreign-group" [ "$(verdict "$e1" 1001)" = foreign-group ]
out=$(runas 1000 iommu-accountctl reset-scope "$e1")
check "(i) the owner itself sees its own container and an ok verdict" \
	sh -c "echo \"\$1\" | grep -q 'verdict for uid 1000: ok' && echo \"\$1\" | grep -q 'container [0-9]*, reset_tool\['" _ "$out"
exec 3>&-
wait "$h1"
h1=""
out=$(runas 1000 reset_tool reset "$e1")
check "(i) the kernel: VFIO_DEVICE_PCI_HOT_RESET by the unprivileged owner succeeds" [ "$out" = ok ]

# --- (ii) an edu on the root bus: no reset -------------------------------
out=$(reset_tool info "$e0")
check "(ii) the kernel: no hot reset for a root-bus device ($out)" [ "$out" = "error ENODEV" ]
check "(ii) the module: scope none, verdict no-reset" \
	sh -c "iommu-accountctl -j reset-scope '$e0' | grep -q '\"scope\":\"none\".*\"verdict\":\"no-reset\"'"
check "(ii) no function reset either (the kernel's reset_method is empty)" \
	sh -c "iommu-accountctl -j reset-scope '$e0' | grep -q '\"function_reset\":\[\]'"
out=$(reset_tool reset "$e0")
check "(ii) the kernel refuses the reset itself (ENODEV), as the verdict said" [ "$out" = "error ENODEV" ]

# --- (iii) the SR-IOV PF: a reset reaching the VFs' groups -----------------
chown 1000 "/dev/vfio/$gp"
chown 2000 "/dev/vfio/$gv1" "/dev/vfio/$gv2"
mkfifo "$tmp/hold2" "$tmp/hold3"
runas 2000 reset_tool hold "$gv1" <"$tmp/hold2" >"$tmp/hold2.out" 2>&1 &
h1=$!
exec 3>"$tmp/hold2"
runas 2000 reset_tool hold "$gv2" <"$tmp/hold3" >"$tmp/hold3.out" 2>&1 &
h2=$!
exec 4>"$tmp/hold3"
until_ok 200 grep -q holding "$tmp/hold2.out"
until_ok 200 grep -q holding "$tmp/hold3.out"
runas 1000 reset_tool info "$pf" | sort >"$tmp/k3"
module_set "$pf" >"$tmp/m3"
check "(iii) the module's affected set equals the kernel's hot-reset info ($(tr '\n' ' ' <"$tmp/k3"))" \
	sh -c "[ -s '$tmp/k3' ] && cmp -s '$tmp/k3' '$tmp/m3'"
check "(iii) the reset reaches three groups: the PF's and the two VFs'" \
	[ "$(cut -d' ' -f1 "$tmp/m3" | sort -u | wc -l)" = 3 ]
iommu-accountctl reset-scope "$pf" --uid 1000 >"$tmp/v3"
check "(iii) verdict for uid 1000: foreign-group, naming a VF's group and its holder (uid 2000)" \
	grep -Eq "verdict for uid 1000: foreign-group: $vf1: group $gv1 is held by uid 2000 \(container [0-9]+, reset_tool\[$h1\]\)" "$tmp/v3"
check "(iii) the group fds a caller would have to present: $gp $gv1 $gv2" \
	grep -q "group fds to present: $gp $gv1 $gv2\$" "$tmp/v3"
out=$(runas 1000 iommu-accountctl reset-scope "$pf")
check "(iii) as uid 1000 itself: foreign-group, the holder not named" \
	sh -c "echo \"\$1\" | grep -q 'foreign-group: $vf1: group $gv1 is held by another user'" _ "$out"
out=$(runas 1000 reset_tool reset "$pf")
check "(iii) the kernel refuses uid 1000's reset with EINVAL, as the verdict predicted" [ "$out" = "error EINVAL" ]
exec 3>&- 4>&-
wait "$h1" "$h2"
h1="" h2=""

# --- groups: does each device's reset stay in its group? -----------------
# One device per line (a line also holds the next group's header, never its devices).
iommu-accountctl -j groups | sed 's/{"address"/\n{"address"/g' >"$tmp/g"
hr() { grep "\"address\":\"$1\"" "$tmp/g" | sed -n 's/.*"hot_reset":"\([a-z-]*\)".*/\1/p'; }
check "groups: $e1's reset stays in its group" [ "$(hr "$e1")" = in-group ]
check "groups: $e0 has no reset" [ "$(hr "$e0")" = none ]
check "groups: $pf's reset reaches other groups" [ "$(hr "$pf")" = other-groups ]
iommu-accountctl groups --id "$gp" >"$tmp/gt"
check "groups table: the PF's line says its reset reaches other groups" \
	grep -q "$pf .*hot reset: reaches other groups" "$tmp/gt"

# --- every vfio-pci device at once, and bad input -------------------------
iommu-accountctl reset-scope >"$tmp/all"; rc=$?
check "reset-scope without BDF: every vfio-pci device, one line each" \
	sh -c "[ $rc = 0 ] && [ \$(grep -cE '^0000:' '$tmp/all') = 5 ]"
iommu-accountctl reset-scope zz:1 2>"$tmp/err"; rc=$?
check "reset-scope zz:1: exit 1, says what an address is" \
	sh -c "[ $rc = 1 ] && grep -q 'not a PCI address (DDDD:BB:DD.F)' '$tmp/err'"
iommu-accountctl reset-scope 0000:7f:1f.7 2>"$tmp/err"; rc=$?
check "reset-scope of a device that does not exist: exit 4" \
	sh -c "[ $rc = 4 ] && grep -q 'no PCI device 0000:7f:1f.7' '$tmp/err'"
root_port=$(basename "$(dirname "$(readlink -f "/sys/bus/pci/devices/$e1")")")
iommu-accountctl reset-scope "$root_port" 2>"$tmp/err"; rc=$?
check "reset-scope of a bridge ($root_port): the kernel's reason" \
	sh -c "[ $rc = 6 ] && grep -q 'vfio-pci resets header type 0 devices only' '$tmp/err'"

# --- devices removed and added while surveyed: no oops, answers go on -------
( for i in 1 2 3 4 5 6 7 8 9 10; do
	echo 0 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
	echo 2 >"/sys/bus/pci/devices/$pf/sriov_numvfs"
done ) &
churn=$!
ok=0
for i in $(seq 30); do iommu-accountctl -j reset-scope >/dev/null && ok=$((ok + 1)); done
wait "$churn"
check "30 surveys while VFs come and go 10 times: every one answered ($ok)" [ "$ok" = 30 ]
check "after the churn: the PF's scope is whole again" \
	sh -c "[ \$(iommu-accountctl -j reset-scope $pf | grep -o '\"address\"' | wc -l) = 4 ]"

ktap_finish
