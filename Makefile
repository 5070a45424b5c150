# SPDX-License-Identifier: GPL-2.0
#
#   make                 module (against KDIR) + userspace + selftests
#   make install         the module (install-module: /lib/modules/KVER/updates,
#                        depmod) and the tools (install-tools: iommu-accountctl,
#                        iommu-accountd, its unit, configuration, man pages)
#   make check           host checks + the selftests in QEMU on every kernel of the matrix
#   make demo            the per-uid pot filling up and refusing, in a VM
#   make bench           benchmarks (VM)

KDIR ?= /lib/modules/$(shell uname -r)/build
# The release modules_install uses (Debian: kernel.release says 6.1.192,
# the modules live under 6.1.0-57-amd64, as UTS_RELEASE says).
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
KERNELS ?= 6.1 6.12 7.3
DEMO_KERNEL ?= 6.12

.PHONY: all module userspace selftests install install-module install-tools clean check check-host demo bench

all: module userspace selftests

module:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): install linux-headers-$$(uname -r) or set KDIR"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

selftests:
	$(MAKE) -C selftests/iommu_account

install: install-module install-tools

install-tools:
	$(MAKE) -C userspace install

install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER)

# Not kbuild's clean: it deletes every *.ko and *.[aios] below M=, which
# includes the cached kernels and the trixie root under .cache/.
clean:
	rm -f kmod/*.o kmod/.*.cmd kmod/wrapper/*.o kmod/wrapper/.*.cmd \
		*.o *.ko *.mod *.mod.c .*.cmd modules.order Module.symvers
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests/iommu_account clean

check:
	scripts/deps
	scripts/check $(KERNELS)

demo:
	scripts/deps
	$(MAKE) userspace
	scripts/vm/demo --kernel $(DEMO_KERNEL)

bench:
	scripts/deps
	scripts/bench
	scripts/bench-daemon
