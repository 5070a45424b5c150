# SPDX-License-Identifier: GPL-2.0
#
#   make                 module (against KDIR) + userspace + selftests
#   make install         the module (install-module: /lib/modules/KVER/updates,
#                        depmod) and the tools (install-tools: iommu-accountctl,
#                        iommu-accountd, its unit, configuration, man pages)
#   make check-one TEST=memlock_test [KERNEL=6.12]
#                        one selftest in a VM, in the boot it belongs to
#   make check-quick [KERNEL=6.12]
#                        host checks and the core selftests on one kernel
#   make check           host checks, the packages (make deb, DKMS in fresh roots of
#                        6.1 and 7.3), the selftests in QEMU on every kernel of the matrix
#   make sign KEY= CERT= sign the built module with a key the kernel trusts
#                        (Secure Boot: an enrolled MOK), then make install-module
#   make deb             Debian packages in build/deb (lintian-checked)
#   make demo            the per-uid pot filling up and refusing, in a VM
#   make bench           benchmarks (VM): hooks, daemon, qpair publishing, real clients

KDIR ?= /lib/modules/$(shell uname -r)/build
# The release modules_install uses (Debian: kernel.release says 6.1.192,
# the modules live under 6.1.0-57-amd64, as UTS_RELEASE says).
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
KERNELS ?= 6.1 6.12 7.3 6.12-debug
VERSION := $(shell cat $(CURDIR)/VERSION)
DKMS_SRC = $(DESTDIR)/usr/src/iommu-account-$(VERSION)
DEMO_KERNEL ?= 6.12

.PHONY: all module userspace selftests install install-module install-tools clean check check-one check-quick demo bench image \
	dkms-source dkms-install dkms-remove deb check-packages sign

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

# Sign iommu_account.ko with the kernel's own sign-file (linux-headers):
# KEY the private key (PEM), CERT its certificate (DER or PEM), e.g. DKMS's
# MOK: make sign KEY=/var/lib/dkms/mok.key CERT=/var/lib/dkms/mok.pub (as
# root: the key is root's). Secure Boot loads it once that certificate is
# enrolled (mokutil --import CERT, reboot). Then make install-module.
SIGN_FILE ?= $(KDIR)/scripts/sign-file
sign: module
	@test -n "$(KEY)" && test -n "$(CERT)" || { echo "make sign: give KEY=private key (PEM) and CERT=its certificate (DER or PEM), e.g. KEY=/var/lib/dkms/mok.key CERT=/var/lib/dkms/mok.pub" >&2; exit 1; }
	@test -r "$(KEY)" || { echo "make sign: cannot read KEY=$(KEY) (DKMS's is root's: run as root)" >&2; exit 1; }
	@test -r "$(CERT)" || { echo "make sign: cannot read CERT=$(CERT)" >&2; exit 1; }
	@test -x "$(SIGN_FILE)" || { echo "make sign: no $(SIGN_FILE): install linux-headers-$$(uname -r) or set KDIR" >&2; exit 1; }
	@if tail -c 28 iommu_account.ko | grep -q '~Module signature appended~'; then \
		echo "make sign: iommu_account.ko is signed already (rebuild it: make clean module)" >&2; exit 1; fi
	$(SIGN_FILE) sha256 "$(KEY)" "$(CERT)" iommu_account.ko
	@echo "iommu_account.ko signed by: $$(modinfo -F signer iommu_account.ko 2>/dev/null)"

# The module's sources as DKMS wants them: /usr/src/iommu-account-VERSION
# with dkms.conf (the version put in) and the project's own Kbuild.
dkms-source:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/kmod/wrapper $(DKMS_SRC)/kmod/conftest $(DKMS_SRC)/include/uapi/linux
	install -m 0644 Kbuild VERSION $(DKMS_SRC)/
	install -m 0644 kmod/*.c kmod/*.h $(DKMS_SRC)/kmod/
	install -m 0644 kmod/conftest/*.c kmod/conftest/exports $(DKMS_SRC)/kmod/conftest/
	install -m 0644 kmod/wrapper/*.c kmod/wrapper/*.h $(DKMS_SRC)/kmod/wrapper/
	install -m 0644 include/uapi/linux/*.h $(DKMS_SRC)/include/uapi/linux/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf

# From a checkout, on this host (root): add, build and install for the
# running kernel (DKMS_KERNEL=KVER for another); DKMS then rebuilds it for
# every new kernel.
dkms-install: dkms-source
	dkms add -m iommu-account -v $(VERSION)
	dkms install -m iommu-account -v $(VERSION) $(if $(DKMS_KERNEL),-k $(DKMS_KERNEL))

dkms-remove:
	dkms remove -m iommu-account -v $(VERSION) --all
	rm -rf /usr/src/iommu-account-$(VERSION)

# Debian packages (iommu-account-dkms, iommu-account-tools) in build/deb/,
# built from the files git tracks, checked with lintian (LINTIAN=true skips
# it: the package test's second build, the same files at another version).
LINTIAN ?= lintian
deb:
	scripts/deps --packaging
	rm -rf build/deb
	mkdir -p build/deb/iommu-account-$(VERSION)
	git ls-files -z | tar --null -T - -cf - | tar -C build/deb/iommu-account-$(VERSION) -xf -
	printf 'iommu-account (%s) unstable; urgency=medium\n\n  * Built from the iommu-account repository, commit %s.\n\n -- iommu-account developers <iommu-account@example.org>  %s\n' \
		"$(VERSION)" "$$(git rev-parse --short HEAD)" "$$(git log -1 --format=%aD)" \
		>build/deb/iommu-account-$(VERSION)/debian/changelog
	cd build/deb/iommu-account-$(VERSION) && dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
		{ tail -n 40 ../build.log; exit 1; }
	$(LINTIAN) --fail-on error,warning --info build/deb/iommu-account_$(VERSION)_*.changes
	@ls build/deb/*.deb

# The container image (Containerfile) from the tools package: buildah, in
# the lab over a debootstrapped trixie base (scripts/image).
image: deb
	scripts/deps --image
	scripts/image build/deb

# Not kbuild's clean: it deletes every *.ko and *.[aios] below M=, which
# includes the cached kernels and the trixie root under .cache/.
clean:
	rm -f kmod/*.o kmod/.*.cmd kmod/wrapper/*.o kmod/wrapper/.*.cmd \
		*.o *.ko *.mod *.mod.c .*.cmd modules.order Module.symvers
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests/iommu_account clean

# One selftest in the VM of one kernel (or several: KERNEL="6.1 7.3"), no host
# checks: the inner loop. The module build is incremental.
KERNEL ?= 6.12
check-one:
	@test -n "$(TEST)" || { echo "usage: make check-one TEST=NAME [KERNEL=6.12] (NAME: a file of selftests/iommu_account)"; exit 2; }
	ONLY=$(TEST) scripts/check $(KERNEL)

check:
	scripts/deps --image
	scripts/check $(KERNELS)

# The host checks (no packages) and the core selftests on one plain kernel,
# side by side: a few minutes warm (Documentation/testing.md, "Levels").
check-quick:
	QUICK=1 PACKAGE_KERNELS= SYSTEM_KERNELS= scripts/check $(KERNEL)

# Only the packaged path: make deb, fresh roots, DKMS, modprobe in the VM.
check-packages:
	scripts/deps
	scripts/package-test $(PACKAGE_KERNELS)

demo:
	scripts/deps
	$(MAKE) userspace
	scripts/vm/demo --kernel $(DEMO_KERNEL)

bench:
	scripts/deps
	scripts/bench --scale "1000 16384 131072 1048576 512x2048" --no-doc
	scripts/bench
	scripts/bench-daemon
	scripts/bench-daemon --cardinality "1 100 1000 5000 100x8"
	scripts/bench-daemon --scale "1000x10x10 10000x10x10"
	scripts/bench-qpair
	scripts/bench-clients --doc
