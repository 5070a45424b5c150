#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# system_test.sh: the system lane (scripts/vm/run --system). A Debian trixie
# guest with systemd as PID 1, the project installed from its packages, the
# daemon started by its packaged unit, the module loaded by nobody but its
# genl alias; real clients from Debian's packages: QEMU (a VMM mapping guest
# RAM through vfio-pci), fio (io_uring fixed buffers) and DPDK's testpmd.
# Every figure is compared with the kernel's own answer: VFIO_IOMMU_GET_INFO's
# DMA_AVAIL and UNMAP_DMA's returned size on the client's own container
# (taken with pidfd_getfd), /proc's VmLck, hugetlb's pages in use, and the
# point where the kernel refuses a charge under a given RLIMIT_MEMLOCK.
# KTAP. Runs as root inside that guest only.
. "$(dirname "$0")/ktap_lib.sh"
. "$(dirname "$0")/system_lib.sh"
[ -n "${IA_SYSTEM:-}" ] || { echo "1..0 # SKIP: only in the system lane (scripts/vm/run --system)"; exit 0; }

tmp=$(mktemp -d)
PMDS=$(ls -d /usr/lib/x86_64-linux-gnu/dpdk/pmds-* 2>/dev/null | head -n1)
diag() { echo "# $*"; }
jqe() { jq -e "$1" "$2" >/dev/null; }	# jqe FILTER FILE: the filter holds
jqs() { jq -e -s "$1" "$2" >/dev/null; }	# the same over FILE's lines as one array
# jq over a command's JSON: J FILTER CMD...
J() { f=$1; shift; "$@" | jq -r "$f"; }
ctr_of() { J "[.[] | select(.owner.pid == $1)] | first // empty | $2" iommu-accountctl -j containers; }
daemon_pid() { systemctl show -p MainPID --value iommu-accountd; }
# The daemon's journal since a cursor, as JSON lines.
cursor() { journalctl -u iommu-accountd -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p'; }
jlog() { journalctl -u iommu-accountd -o json --after-cursor="$1" -q; }
alerts() { jlog "$1" | jq -c 'select(.IOMMU_ACCOUNT_ALERT != null)'; }
dma_limit() { cat /sys/module/vfio_iommu_type1/parameters/dma_entry_limit; }
vmlck_kb() { sed -n 's/^VmLck:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }

# --- the installation -------------------------------------------------------
check "systemd is PID 1" [ "$(cat /proc/1/comm)" = systemd ]
check "iommu-account-tools and -dkms installed by dpkg" \
	sh -c 'dpkg-query -W -f "\${Status}\n" iommu-account-tools iommu-account-dkms | grep -c "install ok installed" | grep -qx 2'
check "the packaged unit is enabled and active (Type=notify: it said READY)" \
	eval '[ "$(systemctl is-enabled iommu-accountd)" = enabled ] && until_ok 600 systemctl -q is-active iommu-accountd'
check "the unit loads no module itself (no ExecStartPre)" \
	sh -c '! systemctl cat iommu-accountd | grep -q "^ExecStartPre"'
check "the module was loaded by the daemon's first request (genl alias): iommu_account is in" \
	until_ok 600 grep -q '^iommu_account ' /proc/modules
check "the module is the one installed in updates/dkms" \
	sh -c 'modinfo -n iommu_account | grep -q "/updates/dkms/iommu_account.ko"'
score=$(systemd-analyze security iommu-accountd 2>/dev/null | sed -n 's/.*Overall exposure level for iommu-accountd.service: \([0-9.]*\).*/\1/p')
diag "systemd-analyze security iommu-accountd: exposure ${score:-?} (0 safest, 10 exposed)"
check "systemd-analyze security: exposure ${score:-?} is below 3 (OK)" \
	awk -v s="${score:-99}" 'BEGIN { exit !(s < 3) }'

# Autoload as an unprivileged user: the module out, `status` as nobody.
systemctl stop iommu-accountd
rmmod iommu_account
check "autoload: nobody's iommu-accountctl status brings the module back (genl alias, no modprobe)" \
	sh -c '! grep -q "^iommu_account " /proc/modules &&
		setpriv --reuid=65534 --regid=65534 --clear-groups iommu-accountctl status >/dev/null &&
		grep -q "^iommu_account " /proc/modules'
systemctl start iommu-accountd
until_ok 600 systemctl -q is-active iommu-accountd

# --- QEMU: a VMM with a vfio-pci device ---------------------------------------
modprobe vfio-pci
edu=$(first_edu)
check "edu $edu bound to vfio-pci" bind_vfio "$edu"
group=$(basename "$(readlink "/sys/bus/pci/devices/$edu/iommu_group")")

QEMU="qemu-system-x86_64 -nodefaults -display none -accel tcg,tb-size=32 -M pc"

# (1) As root, 256 MiB of guest RAM: the container equals what the kernel has.
$QEMU -m 256 -S -device "vfio-pci,host=$edu" -qmp "unix:$tmp/qmp1,server=on,wait=off" \
	>"$tmp/qemu1.out" 2>&1 &
qpid=$!
st=$(qmp "$tmp/qmp1" query-status)
check "QEMU up with vfio-pci,host=$edu (QMP: prelaunch)" eval 'printf "%s\n" "$st" | grep -q prelaunch'
kill -STOP $qpid
entries=$(ctr_of $qpid .entries) mapped=$(ctr_of $qpid .mapped_bytes) pinned=$(ctr_of $qpid .pinned_pages)
owner=$(ctr_of $qpid .owner.comm)
avail=$(vfio_tool peek $qpid | sed -n 's/.* avail //p' | head -n1)
diag "QEMU: container entries $entries, mapped $mapped B, pinned $pinned pages; DMA_AVAIL $avail of $(dma_limit); VmLck $(vmlck_kb $qpid) kB"
check "QEMU: the container's owner is qemu's pid ($qpid, $owner)" [ -n "$entries" ]
check "QEMU: entries ($entries) = dma_entry_limit - DMA_AVAIL ($(dma_limit) - $avail)" \
	[ "$entries" = "$(($(dma_limit) - ${avail:-0}))" ]
check "QEMU: pinned pages ($pinned) = its VmLck ($(vmlck_kb $qpid) kB: type1 charges mm->locked_vm)" \
	[ "$((pinned * 4))" = "$(vmlck_kb $qpid)" ]
check "QEMU: at least its 256 MiB of RAM is pinned" [ "$pinned" -ge 65536 ]
unmapped=$(vfio_tool peek $qpid unmap-all | sed -n 's/.* unmapped //p' | head -n1)
check "QEMU: mapped bytes ($mapped) = what UNMAP_DMA(ALL) on its container returned ($unmapped)" \
	[ "$mapped" = "$unmapped" ]
check "QEMU: after that unmap, its container has 0 entries, 0 pinned, and VmLck is 0" \
	eval '[ "$(ctr_of $qpid .entries)" = 0 ] && [ "$(ctr_of $qpid .pinned_pages)" = 0 ] && [ "$(vmlck_kb $qpid)" = 0 ]'
kill -KILL $qpid
wait $qpid 2>/dev/null
check "QEMU killed: its container is gone" eval '[ -z "$(ctr_of $qpid .id)" ]'

# (2) As an unprivileged user whose LimitMEMLOCK (1 MiB) is too small.
useradd -r -M -s /usr/sbin/nologin ia-qemu 2>/dev/null
chown ia-qemu "/dev/vfio/$group"
c=$(cursor)
systemd-run -q --wait --pipe --unit=ia-qemu-small --uid=ia-qemu -p LimitMEMLOCK=1M -p RemainAfterExit=no \
	$QEMU -m 64 -S -device "vfio-pci,host=$edu" >"$tmp/qemu2.out" 2>&1
qrc=$?
q2pid=$(systemctl show -p ExecMainPID --value ia-qemu-small)
systemctl reset-failed ia-qemu-small 2>/dev/null
diag "QEMU as ia-qemu, LimitMEMLOCK=1M: exit $qrc: $(grep -m1 -e 'Cannot allocate' -e 'dma_map' "$tmp/qemu2.out")"
check "QEMU as ia-qemu with LimitMEMLOCK=1M fails with its own message (Cannot allocate memory)" \
	sh -c "[ $qrc != 0 ] && grep -q 'Cannot allocate memory' '$tmp/qemu2.out'"
fail_of() {	# CURSOR PID: the daemon's FAILURE for PID, as JSON
	alerts "$1" | jq -c "select(.IOMMU_ACCOUNT_ALERT == \"FAILURE\" and .PID == \"$2\")" | head -n1
}
until_ok 400 eval '[ -n "$(fail_of "$c" $q2pid)" ]'
f=$(fail_of "$c" "$q2pid")
printf '%s\n' "$f" >"$tmp/f2.json"
diag "journal: $(jq -r .MESSAGE "$tmp/f2.json")"
check "journal: a FAILURE naming qemu-system-x86 [$q2pid], uid ia-qemu, QUOTA_KIND vfio-container" \
	jqe ".COMM == \"qemu-system-x86\" and .UID == \"$(id -u ia-qemu)\" and .QUOTA_KIND == \"vfio-container\"" "$tmp/f2.json"
check "journal: that FAILURE says the mapper's RLIMIT_MEMLOCK (1 MiB) refused, not dma_entry_limit" \
	jqe '.REFUSED_BY == "RLIMIT_MEMLOCK" and .MEMLOCK_LIMIT == "1048576" and (.MESSAGE | test("RLIMIT_MEMLOCK"))' "$tmp/f2.json"
# CGROUP: the daemon resolves the id the kernel sent when it logs; QEMU
# exits on the error and systemd removes its unit's cgroup, so a daemon that
# comes second logs the id (documented in daemon.md), never nothing.
diag "journal: CGROUP=$(jq -r .CGROUP "$tmp/f2.json")"
check "journal: its structured fields (PRIORITY err, CGROUP the unit's or its id, SEQ, KERNEL_TIME_NS)" \
	jqe '.PRIORITY == "3" and (.CGROUP | test("ia-qemu-small.service$") or test("^[0-9]+$")) and (.SEQ | tonumber > 0) and (.KERNEL_TIME_NS | tonumber > 0)' "$tmp/f2.json"
# journalctl -x: the packaged catalog (installed by dpkg, compiled by
# systemd's trigger) explains the FAILURE with the entry's own fields.
vfio_fail_id=b02ab295d8be45cb943835e4ce9c099e
check "journal: the VFIO FAILURE has the catalog's MESSAGE_ID ($vfio_fail_id)" \
	jqe ".MESSAGE_ID == \"$vfio_fail_id\"" "$tmp/f2.json"
journalctl -x -q --no-pager -u iommu-accountd MESSAGE_ID="$vfio_fail_id" PID="$q2pid" \
	--after-cursor="$c" -n 1 >"$tmp/f2.x" 2>&1
sed 's/^/# journalctl -x: /' "$tmp/f2.x" | head -n 8
check "journalctl -x explains it: the catalog's subject with QEMU's pid and container $(jq -r .OBJECT "$tmp/f2.json")" \
	grep -qF "Subject: The kernel refused qemu-system-x86 [$q2pid] a DMA mapping: VFIO container $(jq -r .OBJECT "$tmp/f2.json") is full" "$tmp/f2.x"

# (3) Guest RAM in many regions (12 DIMMs besides the base RAM) with
# dma_entry_limit below what QEMU needs: an alert, then QEMU's ENOSPC.
dimms=""
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
	dimms="$dimms -object memory-backend-ram,id=ia$i,size=8M -device pc-dimm,memdev=ia$i"
done
echo 12 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
c=$(cursor)
# shellcheck disable=SC2086
$QEMU -m 64,slots=12,maxmem=1G -S -device "vfio-pci,host=$edu" $dimms >"$tmp/qemu3.out" 2>&1 &
q3pid=$!
wait $q3pid
q3rc=$?
diag "QEMU with 12 DIMMs, dma_entry_limit 12: exit $q3rc: $(grep -m1 -i 'space' "$tmp/qemu3.out")"
check "QEMU with 12 DIMMs under dma_entry_limit 12 fails: its message says No space left on device" \
	sh -c "[ $q3rc != 0 ] && grep -q 'No space left on device' '$tmp/qemu3.out'"
until_ok 400 eval '[ -n "$(fail_of "$c" $q3pid)" ]'
# Its container's alerts: the object the FAILURE names.
q3obj=$(fail_of "$c" $q3pid | jq -r .OBJECT)
alerts "$c" | jq -c "select(.QUOTA_KIND == \"vfio-container\" and .OBJECT == \"$q3obj\")" >"$tmp/q3.alerts"
diag "alerts: $(jq -r '.IOMMU_ACCOUNT_ALERT' "$tmp/q3.alerts" | tr '\n' ' ')"
check "journal: a WARNING (or CRITICAL) for QEMU's container came before its FAILURE" \
	sh -c "jq -r .IOMMU_ACCOUNT_ALERT '$tmp/q3.alerts' | sed -n '1p' | grep -qE '^(WARNING|CRITICAL)$' &&
		jq -r .IOMMU_ACCOUNT_ALERT '$tmp/q3.alerts' | grep -q '^FAILURE$'"
check "journal: the FAILURE says dma_entry_limit (12) refused" \
	jqs '[.[] | select(.IOMMU_ACCOUNT_ALERT == "FAILURE")] | first | .REFUSED_BY == "dma_entry_limit" and (.MESSAGE | test("dma_entry_limit"))' "$tmp/q3.alerts"
echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit

# --- the unit: reload, the watchdog, the module going and coming back --------
metrics() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "http://$1/metrics" 2>/dev/null; }
conf=/etc/iommu-account/iommu-accountd.conf
cp "$conf" "$tmp/conf.orig"
printf '[exporter]\nlisten = 127.0.0.1:9848\n' >"$conf"
c=$(cursor)
systemctl reload iommu-accountd
check "systemctl reload: the daemon says it reloaded $conf" \
	until_ok 200 eval 'jlog "$c" | jq -r .MESSAGE | grep -q "^reloaded $conf"'
check "systemctl reload: the new [exporter] listen applies (metrics on 127.0.0.1:9848, iommu_account_up 1)" \
	until_ok 200 eval 'metrics 127.0.0.1:9848 | grep -q "^iommu_account_up 1"'
printf '[exporter]\nlisten = 127.0.0.1:9848\nno_such_key = 1\n' >"$conf"
c=$(cursor)
systemctl reload iommu-accountd
until_ok 200 eval 'jlog "$c" | jq -r .MESSAGE | grep -q "keeping the running configuration"'
check "systemctl reload of a bad file: the line and why, the running configuration kept, still serving" \
	eval 'jlog "$c" | jq -r .MESSAGE | grep "keeping the running configuration" | grep -q "no_such_key" &&
		systemctl -q is-active iommu-accountd && metrics 127.0.0.1:9848 | grep -q "^iommu_account_up 1"'
printf '[exporter]\nlisten = 127.0.0.1:9848\n' >"$conf"
systemctl reload iommu-accountd

# The module removed under the running daemon, then loaded by a request.
c=$(cursor)
rmmod iommu_account
check "rmmod under the daemon: it stays active and exports iommu_account_up 0" \
	until_ok 400 eval 'systemctl -q is-active iommu-accountd && metrics 127.0.0.1:9848 | grep -q "^iommu_account_up 0"'
setpriv --reuid=65534 --regid=65534 --clear-groups iommu-accountctl status >/dev/null
check "module back (autoload by nobody's request): the daemon is up again (iommu_account_up 1)" \
	until_ok 400 eval 'metrics 127.0.0.1:9848 | grep -q "^iommu_account_up 1"'
# (The fio part below needs its events: a FAILURE after this proves them.)

# The watchdog: WatchdogSec lowered to 3 s for the test (a drop-in); the
# daemon stopped with SIGSTOP misses its pings and systemd restarts it.
mkdir -p /run/systemd/system/iommu-accountd.service.d
printf '[Service]\nWatchdogSec=3s\n' >/run/systemd/system/iommu-accountd.service.d/ia-test.conf
systemctl daemon-reload
systemctl restart iommu-accountd
until_ok 600 systemctl -q is-active iommu-accountd
p0=$(daemon_pid) n0=$(systemctl show -p NRestarts --value iommu-accountd)
c=$(cursor)
kill -STOP "$p0"
check "watchdog: the stopped daemon ($p0) is killed and restarted by systemd" \
	until_ok 1200 eval '[ "$(daemon_pid)" != "$p0" ] && [ "$(daemon_pid)" != 0 ] &&
		[ "$(systemctl show -p NRestarts --value iommu-accountd)" -gt "$n0" ]'
# PID 1's line reaches journald on its own socket: the restart can be seen
# before journald has written it, so it is waited for too.
check "watchdog: systemd logged the watchdog timeout" \
	until_ok 600 eval 'jlog "$c" | jq -r .MESSAGE | grep -qi "watchdog timeout"'
rm -rf /run/systemd/system/iommu-accountd.service.d
systemctl daemon-reload
systemctl restart iommu-accountd
until_ok 600 systemctl -q is-active iommu-accountd

# --- fio: io_uring fixed buffers, one uid, two scopes --------------------------
useradd -r -M -s /usr/sbin/nologin ia-fio 2>/dev/null
fuid=$(id -u ia-fio)
echo 48 >/proc/sys/vm/nr_hugepages
pot() { J ".[] | select(.uid == $fuid) | .locked_bytes" iommu-accountctl -j uids; }
charged() { J '[.[] | select(.pid == '"$1"') | .charged | to_entries[] | .value] | add // 0' iommu-accountctl -j procs --uid "$fuid"; }
# fio_start NAME LIMIT FIO-ARGS...: fio as ia-fio in a scope of its own
# (ia-fio-NAME.scope) with that RLIMIT_MEMLOCK; its pid in $fpid.
fio_start() {
	local n=$1 l=$2
	shift 2
	# (A scope has no LimitMEMLOCK=: prlimit sets it as ia-fio, below the default.)
	systemd-run -q --scope --unit="ia-fio-$n" --uid=ia-fio \
		prlimit --memlock="$l:$l" fio --name="$n" --thread --ioengine=io_uring --fixedbufs=1 --registerfiles=1 \
		--filename=/dev/zero --rw=read --bs=64k --iodepth=4 --size=1G --time_based \
		--runtime=3600 --rate_iops=10 "$@" >"$tmp/fio-$n.out" 2>&1 &
	fpid=$!
}
# fio_wait: until fio's buffers are charged (0) or fio has exited (1).
fio_wait() { until_ok 1200 eval '[ "$(charged $fpid)" -gt 0 ] || ! kill -0 $fpid 2>/dev/null'; kill -0 $fpid 2>/dev/null; }
fio_stop() { kill "$fpid" 2>/dev/null; wait "$fpid" 2>/dev/null; until_ok 1200 eval '[ "$(pot)" = 0 ] || [ -z "$(pot)" ]'; }
# exact NAME BYTES FIO-ARGS...: fio registers under LimitMEMLOCK=BYTES and
# procs attributes BYTES to it; under BYTES - 4 KiB the kernel refuses it.
exact() {
	local n=$1 b=$2 got
	shift 2
	fio_start "$n" "$b" "$@"
	fio_wait
	got=$(charged $fpid)
	diag "fio $n under LimitMEMLOCK=$b: charged $got"
	[ "$got" = "$b" ] || sed 's/^/# fio: /' "$tmp/fio-$n.out"
	check "fio $n: registered under LimitMEMLOCK=$b, procs attributes exactly $b B to it" [ "$got" = "$b" ]
	fio_stop
	fio_start "$n-1" "$((b - 4096))" "$@"
	fio_wait
	check "fio $n: under LimitMEMLOCK=$((b - 4096)) the kernel refuses it (fio: Cannot allocate memory)" \
		eval '! kill -0 $fpid 2>/dev/null && grep -q "Cannot allocate memory" "$tmp/fio-$n-1.out"'
	fio_stop
}
# 4 x 64 KiB page-aligned buffers: 16 pages each.
exact aligned $((4 * 16 * 4096)) --iomem_align=4k
# malloc'd (fio's default): each 64 KiB buffer starts off a page boundary and
# spans 17 pages; the kernel charges every page an iovec spans.
exact unaligned $((4 * 17 * 4096))
# In a 2 MiB hugetlb page: the kernel charges the huge page whole, once.
mkdir -p /dev/hugepages/ia-fio && chown ia-fio /dev/hugepages/ia-fio
exact huge $((2 * 1024 * 1024)) --iomem=mmaphuge:/dev/hugepages/ia-fio/huge

# The shared pot: scope a holds 256 KiB of uid ia-fio's 300 KiB (85 %: a
# WARNING); scope b's 256 KiB is refused (fio's ENOMEM; a FAILURE naming it).
# The runs above left the pot's episode open (CRITICAL, then FAILURE): the
# cursor is taken once the daemon has closed it (state OK, or the pot gone),
# so what follows is this episode's alerts alone.
pot_closed() {
	local m s
	m=$(metrics 127.0.0.1:9848) && [ -n "$m" ] || return 1
	s=$(echo "$m" | sed -n "s/^iommu_account_quota_state{kind=\"uid-pot\",object=\"$fuid\",[^}]*,state=\"OK\"} //p")
	[ -z "$s" ] || [ "$s" = 1 ]
}
until_ok 1200 pot_closed
c=$(cursor)
fio_start a 307200 --iomem_align=4k
fio_wait
apid=$fpid
check "shared pot: fio a holds 256 KiB of ia-fio's pot (the kernel's pot: 256 KiB)" [ "$(pot)" = 262144 ]
fio_start b 307200 --iomem_align=4k
fio_wait
bpid=$fpid
check "shared pot: fio b in another scope is refused (fio's own error: Cannot allocate memory)" \
	grep -q "Cannot allocate memory" "$tmp/fio-b.out"
until_ok 400 eval '[ -n "$(fail_of "$c" $bpid)" ]'
alerts "$c" | jq -c "select(.QUOTA_KIND == \"uid-pot\" and .OBJECT == \"$fuid\")" >"$tmp/pot.alerts"
diag "pot alerts: $(jq -r '.IOMMU_ACCOUNT_ALERT + " (" + .MESSAGE + ")"' "$tmp/pot.alerts" | tr '\n' ' ')"
check "journal: the uid's pot WARNING came before the FAILURE" \
	eval 'jq -r .IOMMU_ACCOUNT_ALERT "$tmp/pot.alerts" | sed -n 1p | grep -qx WARNING'
fail_of "$c" "$bpid" >"$tmp/fb.json"
check "journal: the FAILURE names fio [$bpid], uid ia-fio, its scope, RLIMIT_MEMLOCK 300 KiB" \
	jqe '.COMM == "fio" and .UID == "'"$fuid"'" and (.CGROUP | test("ia-fio-b.scope")) and .REFUSED_BY == "RLIMIT_MEMLOCK" and .MEMLOCK_LIMIT == "307200"' "$tmp/fb.json"
pot_fail_id=2f39fb8a4b6140d3acefdb38e3b86146
journalctl -x -q --no-pager MESSAGE_ID="$pot_fail_id" PID="$bpid" --after-cursor="$c" -n 1 >"$tmp/fb.x" 2>&1
sed 's/^/# journalctl -x: /' "$tmp/fb.x" | head -n 8
check "journalctl -x explains the pot's FAILURE: fio [$bpid], uid $fuid's pot, the limit 307200 is the process's own" \
	eval 'grep -qF "Subject: The kernel refused fio [$bpid] locked memory: uid $fuid'"'"'s pot is full" "$tmp/fb.x" &&
		grep -qF "the limit is each process'"'"'s own (307200 bytes for this one)" "$tmp/fb.x"'
iommu-accountctl explain uid "$fuid" >"$tmp/explain.txt"
sed 's/^/# explain: /' "$tmp/explain.txt"
check "explain uid ia-fio names both scopes (the holder's and the refused one's)" \
	eval 'grep -q "ia-fio-a.scope" "$tmp/explain.txt" && grep -q "ia-fio-b.scope" "$tmp/explain.txt"'
# Who, as a unit: fio a's scope in procs and holders, and in the FAILURE's
# flight record (fio a holds on, so its scope is there to be named).
check "procs: fio a is named by its scope (unit ia-fio-a.scope)" \
	eval 'iommu-accountctl -j procs --uid "$fuid" | jq -e "any(.[]; .pid == $apid and
		.identity.kind == \"unit\" and .identity.unit == \"ia-fio-a.scope\")" >/dev/null'
check "holders: ia-fio-a.scope holds ia-fio's 256 KiB, named as the unit" \
	eval 'iommu-accountctl -j holders --uid "$fuid" | jq -e "any(.[]; .identity.unit == \"ia-fio-a.scope\" and
		.held_bytes == 262144 and .pot == [{uid: $fuid, held_bytes: 262144}])" >/dev/null'
check "journal: the FAILURE's flight record names the holder's scope as a unit" \
	jqe '.HOLDERS | test("ia-fio-a.scope \\[unit ia-fio-a.scope\\]")' "$tmp/fb.json"
fpid=$apid
fio_stop
# A transient service (not a scope) holding: named by its unit too.
systemd-run -q --unit=ia-fio-svc --uid=ia-fio -p LimitMEMLOCK=307200 fio --name=svc --thread \
	--ioengine=io_uring --fixedbufs=1 --registerfiles=1 --filename=/dev/zero --rw=read --bs=64k \
	--iodepth=4 --size=1G --time_based --runtime=3600 --rate_iops=10 --iomem_align=4k
fpid=$(systemctl show -p MainPID --value ia-fio-svc)
fio_wait
check "a service: holders names ia-fio-svc.service, 256 KiB, its process fio" \
	eval 'iommu-accountctl -j holders --uid "$fuid" | jq -e "any(.[]; .identity.unit == \"ia-fio-svc.service\" and
		.held_bytes == 262144 and .processes == 1)" >/dev/null'
systemctl stop ia-fio-svc
until_ok 1200 eval '[ "$(pot)" = 0 ] || [ -z "$(pot)" ]'
systemctl reset-failed ia-fio-svc 2>/dev/null

# --- DPDK: testpmd on QEMU's e1000, bound to vfio-pci, with hugepages ---------
nic=""
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x8086 ] && [ "$(cat "$d/device")" = 0x100e ] && { nic=${d##*/}; break; }
done
check "e1000 $nic bound to vfio-pci" bind_vfio "$nic"
huse() { awk '/^HugePages_Total/ {t=$2} /^HugePages_Free/ {f=$2} END {print (t - f) * 2097152}' /proc/meminfo; }
h0=$(huse)
mkfifo "$tmp/tp.in"
# Line-buffered: into a file, testpmd's stdio would hold "Press enter to
# exit" in its buffer until it exits.
stdbuf -oL dpdk-testpmd -l 0-1 -n 1 -a "$nic" --iova-mode=va -m 64 --file-prefix=ia-lane -- \
	--total-num-mbufs=2048 --nb-cores=1 <"$tmp/tp.in" >"$tmp/tp.out" 2>&1 &
tpid=$!
exec 8>"$tmp/tp.in"
until_ok 3000 eval 'grep -q "Press enter to exit" "$tmp/tp.out" || ! kill -0 $tpid 2>/dev/null'
grep -q "Press enter to exit" "$tmp/tp.out" || sed 's/^/# testpmd: /' "$tmp/tp.out" | tail -n 20
check "testpmd started on $nic (Press enter to exit)" grep -q "Press enter to exit" "$tmp/tp.out"
kill -STOP $tpid
hb=$(($(huse) - h0))
entries=$(ctr_of $tpid .entries) mapped=$(ctr_of $tpid .mapped_bytes) pinned=$(ctr_of $tpid .pinned_pages)
avail=$(vfio_tool peek $tpid | sed -n 's/.* avail //p' | head -n1)
diag "testpmd: container entries $entries, mapped $mapped B, pinned $pinned; DMA_AVAIL $avail; hugetlb in use $hb B"
check "testpmd: entries ($entries) = dma_entry_limit - DMA_AVAIL" [ "$entries" = "$(($(dma_limit) - ${avail:-0}))" ]
check "testpmd: mapped bytes ($mapped) = the hugetlb pages it took ($hb)" [ "$mapped" = "$hb" ]
check "testpmd: pinned pages ($pinned) = those bytes / 4 KiB" [ "$((pinned * 4096))" = "$hb" ]
kill -CONT $tpid
echo >&8
exec 8>&-
wait $tpid
check "testpmd exited: its container is gone, nothing left mapped or pinned by it" \
	eval '[ -z "$(ctr_of $tpid .id)" ]'

# A failure: dma_entry_limit 0, testpmd's first map refused.
echo 0 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
c=$(cursor)
# testpmd itself in the background (not under timeout(1), whose pid the
# journal would not name); a testpmd that does not give up is killed.
dpdk-testpmd -l 0-1 -n 1 -a "$nic" --iova-mode=va -m 64 --file-prefix=ia-lane2 -- \
	--total-num-mbufs=2048 --nb-cores=1 </dev/null >"$tmp/tp2.out" 2>&1 &
t2pid=$!
until_ok 3000 eval '! kill -0 $t2pid 2>/dev/null' || kill -KILL $t2pid
wait $t2pid
echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
diag "testpmd under dma_entry_limit 0: $(grep -m1 -iE 'DMA|No space' "$tmp/tp2.out")"
until_ok 400 eval '[ -n "$(fail_of "$c" $t2pid)" ]'
fail_of "$c" "$t2pid" >"$tmp/ft.json"
check "testpmd refused (dma_entry_limit 0): the journal's FAILURE names dpdk-testpmd and dma_entry_limit" \
	jqe '(.COMM | startswith("dpdk")) and .REFUSED_BY == "dma_entry_limit"' "$tmp/ft.json"

# Who the packaged daemon is, and who reads its history: the system user
# and group the package made (sysusers.d); a member of the group reads the
# file with iommu-accountctl, another user is refused by the kernel.
mainpid=$(systemctl show -p MainPID --value iommu-accountd)
# (Effective ids from /proc/PID/status: ps cuts names over 8 characters.)
ids=$(awk '/^Uid:/ { u = $3 } /^Gid:/ { g = $3 } END { print u ":" g }' "/proc/$mainpid/status")
check "the daemon runs as the package's user iommu-accountd, group iommu-account ($ids)" \
	eval '[ "$ids" = "$(id -u iommu-accountd):$(getent group iommu-account | cut -d: -f3)" ]'
hist=/var/lib/iommu-accountd/history
diag "history: $(stat -c '%U:%G %a %s bytes' "$hist" 2>&1); its directory $(stat -c '%U:%G %a' "${hist%/*}" 2>&1)"
check "history: the file is iommu-accountd:iommu-account 0640, its directory 0750 (not /var/lib/private)" \
	eval '[ "$(stat -c "%U:%G %a" "$hist")" = "iommu-accountd:iommu-account 640" ] &&
		[ "$(stat -c "%U:%G %a" "${hist%/*}")" = "iommu-accountd:iommu-account 750" ] && [ ! -L "${hist%/*}" ]'
useradd -r -M -s /usr/sbin/nologin -G iommu-account ia-reader 2>/dev/null
rrc=0
setpriv --reuid=ia-reader --regid=ia-reader --init-groups iommu-accountctl -j history --list >"$tmp/hlist.json" \
	2>"$tmp/hlist.err" || rrc=$?
check "history: ia-reader, in group iommu-account, lists what the daemon kept (uid-pot $fuid among it)" \
	rc_jqt "$rrc" "any(.[]; .kind == \"uid-pot\" and .object == $fuid and .samples >= 1)" "$(cat "$tmp/hlist.json")"
nrc=0
setpriv --reuid=ia-qemu --regid=ia-qemu --init-groups iommu-accountctl history --list >/dev/null 2>"$tmp/hno.err" || nrc=$?
check "history: ia-qemu, not in the group, is refused (exit 6, Permission denied)" \
	eval '[ "$nrc" = 6 ] && grep -q "Permission denied" "$tmp/hno.err"'

ktap_finish
