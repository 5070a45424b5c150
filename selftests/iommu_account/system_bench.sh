#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# system_bench.sh ROUNDS: what the module costs real clients, in the system
# lane (scripts/bench-clients boots it). ROUNDS times, alternating, without
# the module (rmmod) and with it (modprobe; the daemon stopped on both
# sides, so only the module's hooks differ), after one warm-up of each:
#   fio-iops   fio, io_uring with fixed buffers and registered files, 4 KiB
#              reads of /dev/zero at iodepth 8 for 3 s, as an unprivileged
#              user (its buffers charged to its pot): IOPS. The I/O path
#              passes no hook of the module.
#   qemu-start QEMU with -device vfio-pci and 256 MiB of guest RAM, from
#              exec to the guest's first instruction: the firmware's first
#              instruction writes to isa-debug-exit, which ends QEMU (exit
#              status 1 proves the guest ran). Includes QEMU's exit, which
#              unmaps the guest RAM. The CPU time of all its threads.
#   testpmd    dpdk-testpmd on the e1000 bound to vfio-pci with 64 MiB of
#              hugepages, from exec to its exit, with the newline it waits
#              for already on its stdin: EAL and port start-up (mapping its
#              segments), then the teardown. The CPU time of all its threads.
# One line per measurement: "SIDE CLIENT VALUE" (IOPS, or ns of CPU time),
# and "SIDE CLIENT-wall NS" (wall time, see runner below).
# A benchmark, not a test: it asserts no time; a client that fails to run
# prints "error CLIENT ..." and the run stops.
rounds=${1:-5}
tmp=$(mktemp -d)
die() { echo "error $*"; exit 1; }

modprobe vfio-pci || die setup "modprobe vfio-pci"
# udev may still be loading the e1000 driver (70 s into an -icount boot):
# while it probes, its driver directory has no unbind file yet.
udevadm settle --timeout=600 || die setup "udevadm settle"
bind_vfio() {	# VENDOR DEVICE: the first such device, bound to vfio-pci; its BDF
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = "$1" ] && [ "$(cat "$d/device")" = "$2" ] || continue
		[ -e "$d/driver" ] && echo "${d##*/}" >"$d/driver/unbind"
		echo vfio-pci >"$d/driver_override"
		echo "${d##*/}" >/sys/bus/pci/drivers_probe
		echo "${d##*/}"
		return 0
	done
	return 1
}
edu=$(bind_vfio 0x1234 0x11e8) || die setup "no edu device"
nic=$(bind_vfio 0x8086 0x100e) || die setup "no e1000"
echo 64 >/proc/sys/vm/nr_hugepages
useradd -r -M -s /usr/sbin/nologin ia-bench 2>/dev/null
# A 64 KiB firmware whose reset vector is: mov al, 0; out 0xf4, al; hlt.
python3 -c 'import sys; b = bytearray(65536); b[-16:-11] = bytes([0xb0, 0, 0xe6, 0xf4, 0xf4]); open(sys.argv[1], "wb").write(b)' \
	"$tmp/fw.bin" || die setup "firmware"
systemctl stop iommu-accountd

fio_iops() {
	setpriv --reuid=ia-bench --regid=ia-bench --clear-groups sh -c 'ulimit -l 1024 && exec fio \
		--name=b --thread --ioengine=io_uring --fixedbufs=1 --registerfiles=1 \
		--filename=/dev/zero --rw=read --bs=4k --iodepth=8 --size=1G --time_based \
		--runtime=3 --output-format=json' >"$tmp/fio.json" 2>"$tmp/fio.err" ||
		die fio "$(head -n3 "$tmp/fio.err")"
	jq -r '.jobs[0].read.iops | floor' "$tmp/fio.json"
}
# runner OUT CMD...: run CMD, then write "WALL_NS CPU_NS EXIT" to OUT. CPU_NS
# is the user and system time of all its threads and waited-for children,
# from wait4's rusage (the kernel's sum_exec_runtime; under -icount, guest
# instructions on a CPU). Wall time also counts what the client waited for:
# its binaries and libraries read over 9p from the host, timers; under
# -icount with sleep=off that waiting is not instructions and moves from run
# to run by several times, so the ratio is taken on CPU time.
cat >"$tmp/runner.py" <<'PYEOF'
import os, sys, time
t0 = time.monotonic_ns()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, st, ru = os.wait4(pid, 0)
t1 = time.monotonic_ns()
with open(sys.argv[1], "w") as f:
    print(t1 - t0, round((ru.ru_utime + ru.ru_stime) * 1e9), os.waitstatus_to_exitcode(st), file=f)
PYEOF
qemu_start() {
	python3 "$tmp/runner.py" "$tmp/r" qemu-system-x86_64 -nodefaults -display none -accel tcg -M pc \
		-m 256 -bios "$tmp/fw.bin" -device isa-debug-exit,iobase=0xf4,iosize=4 \
		-device "vfio-pci,host=$edu" >"$tmp/qemu.out" 2>&1
	read -r wall cpu rc <"$tmp/r"
	[ "$rc" = 1 ] || die qemu "exit $rc, not the firmware's: $(head -n3 "$tmp/qemu.out")"
	echo "$cpu $wall"
}
testpmd_run() {
	# Two lcores on CPU 0 (the boot has one vCPU): the main one, one forwarding.
	echo | python3 "$tmp/runner.py" "$tmp/r" dpdk-testpmd --lcores=0@0,1@0 -n 1 -a "$nic" \
		--iova-mode=va -m 64 --file-prefix=ia-bench -- --total-num-mbufs=2048 --nb-cores=1 \
		>"$tmp/tp.out" 2>&1
	read -r wall cpu rc <"$tmp/r"
	grep -q "Press enter to exit" "$tmp/tp.out" && [ "$rc" = 0 ] ||
		die testpmd "exit $rc: $(grep -m3 -iE 'error|fail|cannot' "$tmp/tp.out")"
	echo "$cpu $wall"
}
# measure SIDE NAME FUNCTION: one line ("SIDE NAME VALUE" and, for the
# clients timed, "SIDE NAME-wall WALL"), or the function's error and the end.
measure() {
	v=$($3) || { echo "$v"; exit 1; }
	set -- "$1" "$2" $v
	echo "$1 $2 $3"
	[ -z "${4:-}" ] || echo "$1 $2-wall $4"
}
side() {
	measure "$1" fio-iops fio_iops
	measure "$1" qemu-start qemu_start
	measure "$1" testpmd testpmd_run
}
without() {
	grep -q '^iommu_account ' /proc/modules && { rmmod iommu_account || die rmmod; }
	side "$@"
}
with() {
	modprobe iommu_account || die modprobe
	side "$@"
	rmmod iommu_account || die rmmod
}

without warmup | grep '^error' && exit 1
with warmup | grep '^error' && exit 1
i=0
while [ $i -lt "$rounds" ]; do
	without without
	with with
	i=$((i + 1))
done
