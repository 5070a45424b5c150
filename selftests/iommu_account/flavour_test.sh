#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A Debian kernel flavour users run (scripts/check's flavour lanes: -rt-amd64,
# PREEMPT_RT; -cloud-amd64, the cloud images' kernel), in the VM as root,
# KTAP output, with the module DKMS built for it on the host loaded.
#   flavour_test.sh        the module loaded is DKMS's build (its srcversion,
#                          IA_DKMS_SRCVERSION); STATUS names this kernel, and
#                          each feature is active or unavailable as the
#                          kernel's own configuration has it (IA_KCONFIG:
#                          "NAME=y|m|" for PREEMPT_RT VFIO_IOMMU_TYPE1
#                          INTEL_IOMMU IOMMUFD XDP_SOCKETS IO_URING, from the
#                          headers' .config), with the reason where not;
#                          every hook on ftrace.
#   flavour_test.sh kprobes
#                          the fallback forced: on PREEMPT_RT `modprobe
#                          iommu_account hooks=kprobes` is refused (EINVAL,
#                          the log says why: kmod/wrapper/hook.c) and the
#                          module loads again without it; elsewhere it loads
#                          and STATUS says every hook is a kprobe, and the
#                          module stays so for the tests that follow.
# The kernel's log is checked by scripts/vm/run after the command (BUG:,
# WARNING:, RCU stalls, hung tasks).
. "$(dirname "$0")/ktap_lib.sh"
echo "TAP version 13"

kc() {	# kc NAME: y, m or empty, as the kernel is configured
	for ktap_kv in $IA_KCONFIG; do
		[ "${ktap_kv%%=*}" = "$1" ] && { echo "${ktap_kv#*=}"; return; }
	done
}
status() { iommu-accountctl -j status; }
feature() {	# feature NAME FIELD
	status | jq -r ".features[] | select(.name == \"$1\") | .$2"
}
rt=0
[ "$(kc PREEMPT_RT)" = y ] && rt=1

if [ "${1:-}" = kprobes ]; then
	check "rmmod iommu_account" rmmod iommu_account
	dmesg -c >/dev/null
	if [ $rt = 1 ]; then
		check "PREEMPT_RT: modprobe iommu_account hooks=kprobes is refused" \
			sh -c '! modprobe iommu_account hooks=kprobes 2>/dev/null'
		check "PREEMPT_RT: the log says why (no kprobes: their handlers would sleep)" \
			eval 'dmesg | grep -q "hooks=kprobes: PREEMPT_RT: no kprobes"' ||
			echo "# dmesg: $(dmesg | tail -n 3)"
		check "PREEMPT_RT: nothing stays loaded after the refusal" \
			sh -c '! grep -q "^iommu_account " /proc/modules'
		check "PREEMPT_RT: modprobe iommu_account (hooks=auto) again" modprobe iommu_account
		check "PREEMPT_RT: every io_uring hook on ftrace again" \
			eval 'feature memlock-io_uring detail | grep -q "; hooks: ftrace$"'
	else
		check "modprobe iommu_account hooks=kprobes" modprobe iommu_account hooks=kprobes
		check "hooks=kprobes: vfio_iommu_type1 on kprobes, and why" \
			eval 'feature vfio-type1 detail | grep -q "^kprobes on vfio_iommu_type1 (ftrace: hooks=kprobes)"' ||
			echo "# detail: $(feature vfio-type1 detail)"
		check "hooks=kprobes: io_uring's hooks are kretprobes and kprobes" \
			eval 'feature memlock-io_uring detail | grep -Eq "hooks: [1-9][0-9]* kretprobes, [1-9][0-9]* kprobes \(hooks=kprobes\)$"' ||
			echo "# detail: $(feature memlock-io_uring detail)"
	fi
	ktap_finish
	exit
fi

check "the module loaded is DKMS's build (srcversion ${IA_DKMS_SRCVERSION:-unknown})" \
	[ -n "${IA_DKMS_SRCVERSION:-}" ] && [ "$(cat /sys/module/iommu_account/srcversion)" = "$IA_DKMS_SRCVERSION" ]
check "STATUS names this kernel ($(uname -r))" \
	jqt ".kernel_release == \"$(uname -r)\"" "$(status)" || echo "# status: $(status | head -c 300)"
check "the kernel is the flavour its name says (PREEMPT_RT: $rt)" \
	eval '[ $rt = 1 ] && uname -v | grep -q PREEMPT_RT || { [ $rt = 0 ] && ! uname -v | grep -q PREEMPT_RT; }'

# expect FEATURE CONDITION REASON: active where the kernel has what it
# needs, else unavailable with REASON in its detail.
expect() {
	if [ "$2" = 1 ]; then
		check "$1 is active (the kernel has what it needs)" eval "[ \"\$(feature $1 state)\" = active ]" ||
			echo "# $1: $(feature "$1" state): $(feature "$1" detail)"
	else
		check "$1 is unavailable and says why ($3)" \
			eval "[ \"\$(feature $1 state)\" != active ] && feature $1 detail | grep -qF \"$3\"" ||
			echo "# $1: $(feature "$1" state): $(feature "$1" detail)"
	fi
}
have() { [ -n "$(kc "$1")" ] && echo 1 || echo 0; }
expect vfio-type1 "$(have VFIO_IOMMU_TYPE1)" "vfio_iommu_type1 not loaded"
expect vfio-groups 1 ""
if [ -n "$(kc INTEL_IOMMU)" ]; then
	check "the IOMMU driver made groups (intel-iommu: $(ls /sys/kernel/iommu_groups | wc -l))" \
		[ -n "$(ls /sys/kernel/iommu_groups 2>/dev/null)" ]
fi
expect iommufd "$(have IOMMUFD)" "CONFIG_IOMMUFD is not set in this kernel"
expect memlock-xdp "$(have XDP_SOCKETS)" "CONFIG_XDP_SOCKETS is not set in this kernel"
expect memlock-io_uring "$(have IO_URING)" "io_uring"
check "every io_uring hook on ftrace (hooks=auto)" \
	eval 'feature memlock-io_uring detail | grep -q "; hooks: ftrace$"' ||
	echo "# detail: $(feature memlock-io_uring detail)"
if [ "$(have VFIO_IOMMU_TYPE1)" = 1 ]; then
	check "vfio_iommu_type1 wrapped on ftrace" \
		eval 'feature vfio-type1 detail | grep -q "^ftrace hooks (MAP_DMA wrapped) on vfio_iommu_type1"' ||
		echo "# detail: $(feature vfio-type1 detail)"
fi
ktap_finish
