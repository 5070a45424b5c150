#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iommu-accountctl against the real module: output, --json, exit codes and
# the message when the module is absent. KTAP output. Runs as root in the VM.
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }

echo "TAP version 13"
out=$(iommu-accountctl status); rc=$?
check "status exits 0" [ $rc = 0 ]
check "status names the running kernel" sh -c "echo \"\$1\" | grep -q \"kernel release  \$(uname -r)\"" _ "$out"

json=$(iommu-accountctl --json uids --uid 0); rc=$?
check "uids --uid 0 --json exits 0" [ $rc = 0 ]
check "uids --json has the stable keys" sh -c "echo \"\$1\" | grep -q '^\[{\"uid\":0,\"locked_bytes\":[0-9]*,\"tasks\":[0-9]*,\"memlock_min\":'" _ "$json"

iommu-accountctl uids --uid 3999999999 2>/tmp/err; rc=$?
check "unknown uid exits 4 with the kernel's reason" sh -c "[ $rc = 4 ] && grep -q 'no such user' /tmp/err"

iommu-accountctl uids --uid abc 2>/dev/null; rc=$?
check "bad argument exits 1" [ $rc = 1 ]

modprobe -r iommu_account
iommu-accountctl status 2>/tmp/err; rc=$?
check "module absent exits 2" [ $rc = 2 ]
check "module absent says what to run" grep -q 'run `modprobe iommu_account`' /tmp/err
modprobe iommu_account
iommu-accountctl status >/dev/null; rc=$?
check "works again after modprobe" [ $rc = 0 ]

# VFIO: a mapper that leaks entries until the kernel refuses at the limit.
lim=/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
echo 100 >$lim
iommu-accountctl --json events --count 3 >/tmp/ev.json 2>&1 &
evpid=$!
sleep 1
(sleep 60 | vfio_tool leak 0 >/tmp/leak.txt 2>&1) &
for i in $(seq 1 100); do grep -q "vfio_tool:" /tmp/leak.txt 2>/dev/null && break; sleep 0.2; done
check "the kernel refuses entry 101 with ENOSPC" grep -q "MAP_DMA #101 failed: No space left on device" /tmp/leak.txt

json=$(iommu-accountctl --json containers); rc=$?
check "containers --json exits 0" [ $rc = 0 ]
check "containers --json: 100/100 and one ENOSPC" sh -c "echo \"\$1\" | grep -q '\"entries\":100,\"limit\":100,.*\"fail_enospc\":1,'" _ "$json"
id=$(echo "$json" | sed -n 's/^\[{"id":\([0-9]*\).*/\1/p')
grp=$(echo "$json" | sed -n 's/^\[{"id":[0-9]*,"groups":\[\([0-9]*\).*/\1/p')
gj=$(iommu-accountctl --json groups --id "$grp"); rc=$?
check "groups --id: attached to the container, vfio-pci device" sh -c "[ $rc = 0 ] && echo \"\$1\" | grep -q '\"backend\":\"vfio-container\",\"container\":$id,.*\"driver\":\"vfio-pci\"'" _ "$gj"
iommu-accountctl containers >/tmp/table.txt; rc=$?
check "containers table: 100/100 at 100%, owner vfio_tool" sh -c "[ $rc = 0 ] && grep -q ' 100/100  100.0% .* vfio_tool\[[0-9]*\] uid 0$' /tmp/table.txt"

for i in $(seq 1 50); do kill -0 $evpid 2>/dev/null || break; sleep 0.2; done
check "events: warn, crit, then the ENOSPC failure" sh -c '
	sed -n 1p /tmp/ev.json | grep -q "\"type\":\"threshold\".*\"entries\":80,.*\"level\":\"warn\"" &&
	sed -n 2p /tmp/ev.json | grep -q "\"type\":\"threshold\".*\"entries\":95,.*\"level\":\"crit\"" &&
	sed -n 3p /tmp/ev.json | grep -q "\"type\":\"failure\".*\"entries\":100,\"limit\":100,.*\"errno\":28"'
kill $evpid 2>/dev/null

iommu-accountctl thresholds 900 900 2>/tmp/err; rc=$?
check "thresholds warn >= crit: exit 6 with the kernel's reason" sh -c "[ $rc = 6 ] && grep -q 'warn must be below crit' /tmp/err"
iommu-accountctl --json thresholds >/tmp/th.json; rc=$?
check "thresholds unchanged after the refusal" sh -c "[ $rc = 0 ] && grep -q '{\"warn\":800,\"crit\":950}' /tmp/th.json"
iommu-accountctl containers --id 999999 2>/dev/null; rc=$?
check "unknown container exits 4" [ $rc = 4 ]

pkill -f "vfio_tool leak" 2>/dev/null
pkill -f "sleep 60" 2>/dev/null
echo 65535 >$lim

echo "1..$n"
echo "# Totals: pass:$((n - fail)) fail:$fail"
[ $fail = 0 ]
