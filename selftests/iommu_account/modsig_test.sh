#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module signatures enforced (a boot with module.sig_enforce=1, the harness
# loading nothing): the kernel refuses iommu_account.ko, and the tools say
# why and what to do, with exit status 7. KTAP output. Cases, each the
# kernel's own refusal first:
#   - the installed module unsigned (as built: scripts/vm/run installs it);
#   - signed with a key the kernel does not trust, that key's certificate
#     at /var/lib/dkms/mok.pub (DKMS's MOK, not enrolled): "enroll it";
#   - the same without that certificate: "a key it does not trust";
#   - no module for the running kernel, with and without DKMS's source
#     tree: exit 2, "install the headers" or "install the package";
#   - iommu-accountd: logs the diagnosis once, reports the source down, and
#     tries again backing off (each try is a module load the kernel logs).
# Needs /opt/ia/iommu_account-untrusted.ko (signed with a throwaway key) and
# /opt/ia/ia-untrusted-cert.der (that key's certificate), made by
# scripts/check (scripts/vm/sign-module).
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
dpid=""
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
echo "TAP version 13"

krel=$(uname -r)
ko=$(sed -n 's|^\([^:]*/iommu_account\.ko\):.*|\1|p' "/lib/modules/$krel/modules.dep")
ko=/lib/modules/$krel/$ko
# The kernel's autoload (a genl family lookup) runs /sbin/modprobe; busybox's is in /bin.
echo /bin/modprobe >/proc/sys/kernel/modprobe

check "signatures are enforced (sig_enforce: $(cat /sys/module/module/parameters/sig_enforce))" \
	grep -qx Y /sys/module/module/parameters/sig_enforce
refused() {	# the kernel's own answer to loading the installed module
	modprobe iommu_account 2>"$tmp/mp"
	mrc=$?
	echo "# modprobe: $(cat "$tmp/mp")"
	[ $mrc != 0 ] && grep -q 'Key was rejected by service' "$tmp/mp" &&
		! grep -q '^iommu_account ' /proc/modules
}
status() {	# iommu-accountctl status as uid $1: its exit status in rc, stderr in $tmp/err
	if [ "$1" = 0 ]; then
		iommu-accountctl status >/dev/null 2>"$tmp/err"
	else
		runas "$1" iommu-accountctl status >/dev/null 2>"$tmp/err"
	fi
	rc=$?
	echo "# uid $1: exit $rc: $(cat "$tmp/err")"
}

# --- unsigned ---------------------------------------------------------------
check "unsigned: the kernel refuses it (EKEYREJECTED)" refused
for u in 0 1000; do
	status $u
	check "unsigned, uid $u: exit 7 (signatures)" [ "$rc" = 7 ]
	check "unsigned, uid $u: the cause: signatures enforced, $ko unsigned" \
		grep -qF "accepts only signed modules (module.sig_enforce=1) and $ko is unsigned" "$tmp/err"
	check "unsigned, uid $u: what to do (DKMS signs; make sign)" \
		grep -qF 'make sign KEY=... CERT=...' "$tmp/err"
done

# --- iommu-accountd with the module refused -----------------------------------
port=$((20000 + $$ % 10000))
cat >"$tmp/d.conf" <<EOF
[daemon]
interval = 1
[exporter]
listen = 127.0.0.1:$port
EOF
rejections() { dmesg | grep -c 'Loading of unsigned module is rejected'; }
# One lookup of the family (an autoload): how many refusals the kernel logs for it.
r0=$(rejections)
iommu-accountctl status >/dev/null 2>&1
per=$(($(rejections) - r0))
check "an autoload (a family lookup) makes the kernel refuse the module ($per refusals logged)" \
	[ "$per" -ge 1 ]
[ "$per" -ge 1 ] || per=1
ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null
r0=$(rejections)
t0=$(cut -d' ' -f1 /proc/uptime)
iommu-accountd -f -c "$tmp/d.conf" 2>"$tmp/d.err" &
dpid=$!
said() { grep -c 'is not loaded: the kernel accepts only signed modules' "$tmp/d.err"; }
check "daemon: logs the diagnosis" until_ok 400 sh -c "[ \$(grep -c 'is not loaded: the kernel accepts only signed modules' '$tmp/d.err') -ge 1 ]"
metric_up() { wget -q -O - "http://127.0.0.1:$port/metrics" 2>/dev/null | grep -qx 'iommu_account_up 0'; }
check "daemon: the exporter says source down (iommu_account_up 0)" until_ok 200 metric_up
# Every try asks the kernel to load the module, which it refuses and logs:
# five tries, then compare with the time they took.
check "daemon: tries again (5 tries in the kernel log)" \
	until_ok $((20 * 60)) sh -c "[ \$(( (\$(dmesg | grep -c 'Loading of unsigned module is rejected') - $r0) / $per )) -ge 5 ]"
tries=$((($(rejections) - r0) / per))
t1=$(cut -d' ' -f1 /proc/uptime)
el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a }')
# Backing off from 1 s, doubling: within T seconds at most log2(T + 1) + 2
# tries (a try each second would be T).
bound=2 x=$((el + 1))
while [ "$x" -gt 1 ]; do x=$((x / 2)); bound=$((bound + 1)); done
check "daemon: backs off ($tries tries in $el s, at most $bound)" [ "$tries" -le "$bound" ]
check "daemon: said it once ($(said))" [ "$(said)" = 1 ]
check "daemon: still running" kill -0 "$dpid"
kill "$dpid"
wait "$dpid" 2>/dev/null
dpid=""

# --- signed with DKMS's key, not enrolled ---------------------------------------
cp "$ko" "$tmp/unsigned.ko"
cp /opt/ia/iommu_account-untrusted.ko "$ko"
mkdir -p /var/lib/dkms
cp /opt/ia/ia-untrusted-cert.der /var/lib/dkms/mok.pub
check "DKMS's key: the kernel refuses it" refused
status 1000
check "DKMS's key: exit 7" [ "$rc" = 7 ]
check "DKMS's key: the cause: $ko signed with DKMS's key, not trusted" \
	grep -qF "and $ko is signed with DKMS's key, which it does not trust" "$tmp/err"
check "DKMS's key: what to do: enroll it with mokutil, reboot" \
	grep -qF 'enroll it with `mokutil --import /var/lib/dkms/mok.pub`, reboot' "$tmp/err"
rm /var/lib/dkms/mok.pub
status 1000
check "another key: exit 7, a key it does not trust (not DKMS's)" \
	sh -c "[ $rc = 7 ] && grep -qF 'is signed with a key it does not trust (not DKMS' '$tmp/err'"

# --- no module for the running kernel ---------------------------------------------
cp "/lib/modules/$krel/modules.dep" "$tmp/modules.dep"
grep -v 'iommu_account\.ko:' "$tmp/modules.dep" >"/lib/modules/$krel/modules.dep"
status 1000
check "not installed: exit 2" [ "$rc" = 2 ]
check "not installed: install the package, or build it" \
	grep -qF "no iommu_account module for the running kernel $krel: install the iommu-account-dkms package" "$tmp/err"
mkdir -p /var/lib/dkms/iommu-account/0.2.0
status 1000
check "DKMS holds the source, no headers: exit 2, install linux-headers-$krel" \
	sh -c "[ $rc = 2 ] && grep -qF 'cannot build it without the kernel'\''s headers; run \`apt-get install linux-headers-$krel\`' '$tmp/err'"
cp "$tmp/modules.dep" "/lib/modules/$krel/modules.dep"
cp "$tmp/unsigned.ko" "$ko"
rm -rf /var/lib/dkms

ktap_finish
