# SPDX-License-Identifier: GPL-2.0
# Shared by the system lane's tests (sourced, not run; executable only so
# that scripts/vm/run copies it into the VM beside them): the first edu
# device, vfio-pci, and QEMU's QMP.

# The first edu device (1234:11e8), as a PCI address.
first_edu() {
	for sl_d in /sys/bus/pci/devices/*; do
		[ "$(cat "$sl_d/vendor")" = 0x1234 ] && [ "$(cat "$sl_d/device")" = 0x11e8 ] &&
			{ echo "${sl_d##*/}"; return 0; }
	done
	return 1
}

bind_vfio() {	# BDF
	[ -e "/sys/bus/pci/devices/$1/driver" ] && echo "$1" >"/sys/bus/pci/devices/$1/driver/unbind"
	echo vfio-pci >"/sys/bus/pci/devices/$1/driver_override"
	echo "$1" >/sys/bus/pci/drivers_probe
	[ "$(basename "$(readlink "/sys/bus/pci/devices/$1/driver")")" = vfio-pci ]
}

# qmp SOCKET COMMAND: QEMU's answer (QEMU serves QMP only once the machine,
# its devices and their DMA mappings are set up).
qmp() {
	python3 - "$1" "$2" <<'EOF'
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX)
for _ in range(1200):
    try:
        s.connect(sys.argv[1])
        break
    except OSError:
        time.sleep(0.1)
f = s.makefile("rw")
json.loads(f.readline())
for cmd in ("qmp_capabilities", sys.argv[2]):
    f.write(json.dumps({"execute": cmd}) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            break
print(json.dumps(r))
EOF
}
