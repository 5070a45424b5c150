#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lockdown_test.sh LEVEL: iommu_account under kernel lockdown, on the debug
# kernel, which trusts its build's own key (certs/signing_key.pem: it signed
# /opt/ia/iommu_account-trusted.ko). KTAP output.
#   integrity: the boot's own level (lockdown=integrity);
#   confidentiality: raised at run time (a level can only rise), the module
#     unloaded first and loaded again under it.
# At each level: the unsigned module and one signed with a key the kernel
# does not trust are refused (EPERM), and the tools' diagnosis names
# lockdown; the trusted one loads without the unsigned-module taint; every
# feature STATUS reports is active, or says why not (the table is printed).
# The caller then runs memlock_test and vfio_test: counts exact at the level.
# Needs /opt/ia/iommu_account-{unsigned,untrusted,trusted}.ko (scripts/check).
. "$(dirname "$0")/ktap_lib.sh"
level=${1:?usage: lockdown_test.sh integrity|confidentiality}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"

krel=$(uname -r)
ko=/lib/modules/$krel/$(sed -n 's|^\([^:]*/iommu_account\.ko\):.*|\1|p' "/lib/modules/$krel/modules.dep")
lk=/sys/kernel/security/lockdown
grep -q ' securityfs ' /proc/mounts || mount -t securityfs securityfs /sys/kernel/security
if [ "$level" = confidentiality ]; then
	if grep -q '^iommu_account ' /proc/modules; then
		check "unloaded before the level rises" rmmod iommu_account
	fi
	echo confidentiality >$lk
fi
check "lockdown: $(cat $lk)" grep -q "\[$level\]" $lk

# The kernel's answer to insmod FILE: refused with EPERM (lockdown), not loaded.
refused() {
	insmod "$1" 2>"$tmp/ins"
	irc=$?
	echo "# insmod $(basename "$1"): $(cat "$tmp/ins")"
	[ $irc != 0 ] && grep -q 'Operation not permitted' "$tmp/ins" &&
		! grep -q '^iommu_account ' /proc/modules
}
said() { dmesg | grep -c 'Lockdown: insmod: unsigned module loading is restricted'; }
n0=$(said)
check "unsigned: refused (EPERM)" refused /opt/ia/iommu_account-unsigned.ko
check "unsigned: the kernel logs that lockdown restricts it" [ "$(said)" -gt "$n0" ]
check "signed with a key the kernel does not trust: refused (EPERM)" \
	refused /opt/ia/iommu_account-untrusted.ko
cp /opt/ia/iommu_account-unsigned.ko "$ko"
runas 1000 iommu-accountctl status >/dev/null 2>"$tmp/err"
rc=$?
echo "# uid 1000: exit $rc: $(cat "$tmp/err")"
check "the tools: exit 7, lockdown=$level and the unsigned module named" \
	sh -c "[ $rc = 7 ] && grep -qF 'accepts only signed modules (lockdown=$level) and $ko is unsigned' '$tmp/err'"

cp /opt/ia/iommu_account-trusted.ko "$ko"
modprobe iommu_account 2>"$tmp/mp"
rc=$?
echo "# modprobe (the build key's signature): $(cat "$tmp/mp")"
check "signed with the kernel's key: loads" sh -c "[ $rc = 0 ] && grep -q '^iommu_account ' /proc/modules"
check "no unsigned-module taint (E): taint '$(cat /sys/module/iommu_account/taint)'" \
	sh -c "! grep -q E /sys/module/iommu_account/taint"
modprobe vfio_iommu_type1 && modprobe vfio_pci
iommu-accountctl status >"$tmp/st" 2>&1
sed -n '/^features:/,/^quota kinds/p' "$tmp/st" | sed "s/^/# $level: /"
# Every feature, iommufd included (the debug kernel has CONFIG_IOMMUFD).
for f in uid-tasks uid-orphans vfio-type1 vfio-groups iommufd events memlock-io_uring \
	memlock-xdp published-quotas reset-scope; do
	line=$(grep "^  $f " "$tmp/st")
	check "$level: feature $f active" sh -c "echo '$line' | grep -qE '^  $f +active '"
done

ktap_finish
