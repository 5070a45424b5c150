#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iommu-accountctl against the real module: output, --json, exit codes and
# the message when the module is absent. KTAP output. Runs as root in the VM.
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }

echo "TAP version 13"
echo "1..9"
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
echo "# Totals: pass:$((n - fail)) fail:$fail"
[ $fail = 0 ]
