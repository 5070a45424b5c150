#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# system_iommufd_test.sh: the system lane (scripts/vm/run --system) on a
# kernel with CONFIG_IOMMUFD and the VFIO cdev: QEMU from Debian's package
# as a VMM with `-object iommufd` (QEMU 8.2 and later; trixie has 10), an
# edu passed through its VFIO cdev, run by systemd as an unprivileged user
# whose pins go to its pot. Its context and IOAS are compared with the
# kernel's own answers: the pot's counter, and IOMMU_IOAS_UNMAP's returned
# length on QEMU's own /dev/iommu (taken with pidfd_getfd). Debian's kernels
# have no iommufd: there the whole test is skipped, saying so. KTAP. Runs
# as root inside that guest only.
. "$(dirname "$0")/ktap_lib.sh"
. "$(dirname "$0")/system_lib.sh"
[ -n "${IA_SYSTEM:-}" ] || { echo "1..0 # SKIP: only in the system lane (scripts/vm/run --system)"; exit 0; }
[ -e /dev/iommu ] || { echo "1..0 # SKIP: no /dev/iommu: this kernel has no CONFIG_IOMMUFD"; exit 0; }

tmp=$(mktemp -d)
diag() { echo "# $*"; }
J() { f=$1; shift; "$@" | jq -r "$f"; }
# The iommufd context QEMU (pid $1) owns, one field of it ($2).
ctx_of() { J "[.[] | select(.owner.pid == $1)] | first // empty | $2" iommu-accountctl -j quotas --kind iommufd-ctx; }
# What uid $1's pot holds of iommufd, and the kernel's counter.
pot_fd() { J "[.[] | select(.uid == $1)] | first | .consumers.iommufd // 0" iommu-accountctl -j uids; }
pot_locked() { J "[.[] | select(.uid == $1)] | first | .locked_bytes" iommu-accountctl -j uids; }

modprobe vfio-pci
edu=$(first_edu)
check "edu $edu bound to vfio-pci" bind_vfio "$edu"
cdev=/dev/vfio/devices/$(ls "/sys/bus/pci/devices/$edu/vfio-dev" 2>/dev/null | head -n1)
check "edu $edu has a VFIO cdev ($cdev)" [ -c "$cdev" ]
check "the module follows iommufd contexts and their IOAS" \
	sh -c 'iommu-accountctl status | grep "^  iommufd " | grep -q "contexts and their IOAS"'

useradd -r -M -s /usr/sbin/nologin ia-qemu 2>/dev/null
chown ia-qemu /dev/iommu "$cdev"
quid=$(id -u ia-qemu)

# QEMU as ia-qemu with room in its pot (LimitMEMLOCK=1G), stopped before the
# guest runs (-S: guest RAM is mapped once the machine is set up).
systemd-run -q --unit=ia-qemu-fd --uid=ia-qemu -p LimitMEMLOCK=1G -p RuntimeDirectory=ia-qemu-fd \
	qemu-system-x86_64 -nodefaults -display none -accel tcg,tb-size=32 -M pc -m 256 -S \
	-object iommufd,id=iafd -device "vfio-pci,host=$edu,iommufd=iafd" \
	-qmp unix:/run/ia-qemu-fd/qmp,server=on,wait=off
until_ok 1200 test -S /run/ia-qemu-fd/qmp
st=$(qmp /run/ia-qemu-fd/qmp query-status)
check "QEMU up with -object iommufd and vfio-pci,host=$edu (QMP: prelaunch)" \
	eval 'printf "%s\n" "$st" | grep -q prelaunch'
qpid=$(systemctl show -p MainPID --value ia-qemu-fd)
kill -STOP "$qpid"
used=$(ctx_of "$qpid" .used) mode=$(ctx_of "$qpid" .iommufd_mode) devs=$(ctx_of "$qpid" .devices)
nioas=$(ctx_of "$qpid" '.ioas | length') ioas=$(ctx_of "$qpid" '.ioas[0].id')
bytes=$(ctx_of "$qpid" '.ioas[0].bytes') areas=$(ctx_of "$qpid" '.ioas[0].areas')
pinned=$(ctx_of "$qpid" '.ioas[0].pinned')
diag "QEMU (pid $qpid, uid $quid): context used $used B, mode $mode, $devs device(s); IOAS $ioas: $areas areas, $bytes B mapped, $pinned B pinned; the pot: iommufd $(pot_fd "$quid") B of $(pot_locked "$quid") B"
check "QEMU's context: owner qemu ($qpid), mode user, 1 device, 1 IOAS" \
	eval '[ "$mode" = user ] && [ "$devs" = 1 ] && [ "$nioas" = 1 ]'
check "QEMU's context: at least its 256 MiB of guest RAM pinned ($used B)" [ "${used:-0}" -ge 268435456 ]
check "QEMU's IOAS: pinned ($pinned) = the context's used ($used) = the pot's iommufd part" \
	eval '[ "$pinned" = "$used" ] && [ "$used" = "$(pot_fd "$quid")" ]'
check "the pot's parts: iommufd is all of uid ia-qemu's locked_vm ($(pot_locked "$quid") B)" \
	[ "$used" = "$(pot_locked "$quid")" ]
unmapped=$(iommufd_tool unmap-all "$qpid" "$ioas" | sed -n 's/^unmapped //p')
check "QEMU's IOAS: bytes mapped ($bytes) = what IOMMU_IOAS_UNMAP of all of it returned ($unmapped)" \
	eval '[ -n "$bytes" ] && [ "$bytes" = "$unmapped" ]'
check "after that unmap: the IOAS has 0 areas, 0 bytes, 0 pinned; the context and the pot 0" \
	eval '[ "$(ctx_of "$qpid" ".ioas[0].areas")" = 0 ] && [ "$(ctx_of "$qpid" ".ioas[0].bytes")" = 0 ] &&
		[ "$(ctx_of "$qpid" ".ioas[0].pinned")" = 0 ] && [ "$(ctx_of "$qpid" .used)" = 0 ] &&
		[ "$(pot_fd "$quid")" = 0 ]'
systemctl kill -s KILL ia-qemu-fd
until_ok 1200 eval '! systemctl -q is-active ia-qemu-fd'
systemctl reset-failed ia-qemu-fd 2>/dev/null
check "QEMU killed: its context is gone" until_ok 1200 eval '[ -z "$(ctx_of "$qpid" .id)" ]'
chown root /dev/iommu "$cdev"
rm -rf "$tmp"
ktap_finish
