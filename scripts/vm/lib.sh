# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the VM harness. Sourced, not run.
#
# Two places:
#  - $IA_CACHE, the machine's cache of what is immutable for its inputs:
#    Debian's kernel packages by version, the debug kernel by source version,
#    config and build script, the trixie build root, the system root and the
#    package test's roots by their package lists, the kernel source extract,
#    the private apt lists, module builds (one directory per checkout).
#    Shared by every checkout on the machine, so a machine that has run the
#    checks before starts warm: /var/cache/iommu-account where it can be
#    written (root, as CI runs), else ~/.cache/iommu-account. Each entry is
#    made under a lock, checked by a stamp of its inputs before use and
#    marked ready last, so an interrupted build is never used.
#  - $IA_WORK, this checkout's own (default .cache/ in the repository,
#    git-ignored): logs, initramfs images, packages, benchmark results.
# The apt mirror is taken from this machine's own apt sources; a private apt
# state directory is used so the host's apt configuration is never touched.

IA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -z "${IA_CACHE:-}" ]; then
	if [ -w /var/cache ] || [ -w /var/cache/iommu-account ]; then
		IA_CACHE=/var/cache/iommu-account
	else
		IA_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/iommu-account
	fi
fi
IA_WORK=${IA_WORK:-$IA_ROOT/.cache}
export IA_CACHE IA_WORK
mkdir -p "$IA_CACHE" "$IA_WORK/logs"
IA_APT=$IA_CACHE/apt

# cache_note ENTRY hit|built [SECONDS]: what a cache entry was this time, for
# scripts/check's summary ($IA_WORK/logs/cache.log).
cache_note() {
	echo "$1 $2 ${3:-0}" >>"$IA_WORK/logs/cache.log"
}

die() { echo "vm: $*" >&2; exit 125; }
step() { echo "vm: $*" >&2; }

# put_file FILE TEXT: FILE holds TEXT (and a newline) afterwards, its
# mtime now; replaced by a rename and only when it differs, so a reader that
# does not hold the writer's lock (build-module reading kernels/KVER/build
# while a boot beside it runs fetch) sees the old content or the new, never
# an empty file.
put_file() {
	local f=$1 t=$2
	[ -f "$f" ] && [ "$(cat "$f")" = "$t" ] && { touch "$f"; return 0; }
	printf '%s\n' "$t" >"$f.tmp.$$" && mv -f "$f.tmp.$$" "$f"
}

# The first Debian archive URI of the host's apt sources (deb822 or one-line).
host_mirror() {
	local uri
	uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '{print $2}' | grep -v -- '-security' | head -n1)
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(grep -hE '^deb ' /etc/apt/sources.list |
			awk '{print $2}' | grep -v -- '-security' | head -n1)
	fi
	[ -n "$uri" ] || die "no Debian mirror found in /etc/apt/sources.list(.d): cannot fetch kernels"
	echo "${uri%/}"
}

host_security_mirror() {
	local uri
	uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '{print $2}' | grep -- '-security' | head -n1)
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(grep -hE '^deb ' /etc/apt/sources.list |
			awk '{print $2}' | grep -- '-security' | head -n1)
	fi
	echo "${uri%/}"
}

# apt-get / apt-cache with the private state under $IA_APT.
apt_priv_opts() {
	echo "-o Dir::State=$IA_APT/state -o Dir::State::Lists=$IA_APT/lists" \
	     "-o Dir::Cache=$IA_APT/cache -o Dir::Etc::sourcelist=$IA_APT/sources.list" \
	     "-o Dir::Etc::sourceparts=/nonexistent -o Dir::Etc::preferencesparts=/nonexistent" \
	     "-o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1"
}

# Build (once per 12 hours) the private package lists: bullseye (+security,
# for 5.10), bookworm (+updates, +security) and trixie (+backports,
# +security), all from the host's mirror.
apt_priv_update() {
	local m s stamp=$IA_APT/updated list
	mkdir -p "$IA_APT"
	exec 6>"$IA_APT/.lock"
	flock 6
	m=$(host_mirror)
	s=$(host_security_mirror)
	list=$({
		echo "deb $m bullseye main"
		echo "deb $m bookworm main"
		echo "deb $m bookworm-updates main"
		echo "deb $m trixie main"
		echo "deb $m trixie-updates main"
		echo "deb $m trixie-backports main"
		if [ -n "$s" ]; then
			echo "deb $s bullseye-security main"
			echo "deb $s bookworm-security main"
			echo "deb $s trixie-security main"
		fi
	})
	# Fresh (12 hours) and made from these sources: nothing to do.
	if [ -f "$stamp" ] && [ -z "$(find "$stamp" -mmin +720)" ] &&
		[ "$(cat "$IA_APT/sources.list" 2>/dev/null)" = "$list" ]; then
		exec 6>&-
		return 0
	fi
	mkdir -p "$IA_APT/state" "$IA_APT/lists/partial" "$IA_APT/cache/archives/partial"
	printf '%s\n' "$list" >"$IA_APT/sources.list"
	step "refreshing private package lists from $m"
	# shellcheck disable=SC2046
	apt-get $(apt_priv_opts) update >"$IA_APT/update.log" 2>&1 ||
		die "apt-get update (private lists) failed: see $IA_APT/update.log"
	touch "$stamp"
	exec 6>&-
}

# Newest package name matching an extended regex, sorted by version in the name.
newest_pkg() {
	# shellcheck disable=SC2046
	apt-cache $(apt_priv_opts) pkgnames 2>/dev/null | grep -E "^$1\$" | sort -V | tail -n1
}

# Resolve a kernel (5.10, 6.1, 6.12, 7.2, 7.3; a flavour of one: 6.12-rt,
# 6.12-cloud) to the newest ABI name that has both headers and an image
# published, e.g. 5.10.0-44-amd64, 6.1.0-57-amd64, 7.3.4+deb13-amd64 or
# 6.12.118+deb12-rt-amd64.
resolve_kver() {
	local series flavour re name abi
	series=$(series_of "$1")
	flavour=$(flavour_of "$1")
	case $series in
	5.10) re='linux-headers-5\.10\.0-[0-9]+' ;;
	6.1) re='linux-headers-6\.1\.0-[0-9]+' ;;
	6.12) re='linux-headers-6\.12\.[0-9]+\+deb12' ;;
	7.*) re="linux-headers-${series//./\\.}\\.[0-9]+\\+deb13" ;;
	*) die "unknown kernel series '$series' (known: 5.10 6.1 6.12 7.2 7.3)" ;;
	esac
	re="$re-${flavour:+$flavour-}amd64"
	apt_priv_update
	# Walk from newest to oldest until one has an image too, skipping
	# those whose download failed (listed but not on the mirror: seen for
	# 5.10.0-46-rt-amd64) in the last 12 hours.
	local bad=$IA_CACHE/kernels/unfetchable
	[ -f "$bad" ] && [ -n "$(find "$bad" -mmin +720)" ] && rm -f "$bad"
	# shellcheck disable=SC2046
	for name in $(apt-cache $(apt_priv_opts) pkgnames 2>/dev/null | grep -E "^$re\$" | sort -rV); do
		abi=${name#linux-headers-}
		grep -qxF "$abi" "$bad" 2>/dev/null && continue
		if [ -n "$(image_pkgs "$abi")" ]; then
			echo "$abi"
			return 0
		fi
	done
	die "no kernel package found for $1 (looked for /$re/ in the private lists)"
}

# Packages holding the kernel image and its modules for an ABI name.
image_pkgs() {
	local abi=$1 p out=""
	# shellcheck disable=SC2046
	for p in "linux-image-$abi-unsigned" "linux-binary-$abi" "linux-modules-$abi"; do
		if apt-cache $(apt_priv_opts) show "$p" >/dev/null 2>&1; then
			out="$out $p"
		fi
	done
	case $out in
	*unsigned*|*binary*) echo "$out" ;;
	esac
}

series_of() {
	case $1 in
	5.10|5.10-*|5.10.*) echo 5.10 ;;
	6.1|6.1-*|6.1.*) echo 6.1 ;;
	6.12|6.12-*|6.12.*) echo 6.12 ;;
	7.*) echo "$1" | cut -d. -f1,2 | cut -d- -f1 ;;
	*) die "unknown kernel '$1'" ;;
	esac
}

# The Debian flavour of a kernel name or release: rt (PREEMPT_RT), cloud,
# or nothing (the generic amd64). 6.12-rt, 6.12.118+deb12-rt-amd64: rt.
flavour_of() {
	case $1 in
	*-rt|*-rt-amd64) echo rt ;;
	*-cloud|*-cloud-amd64) echo cloud ;;
	esac
}

# The Debian release whose root builds a kernel's modules, when the host's
# (bookworm) cannot: its headers depend on that release's gcc and libc
# (5.10: bullseye's gcc-10; 7.x: trixie's gcc-14). Nothing for 6.1 and 6.12.
build_suite() {
	case $(series_of "$1") in
	5.10) echo bullseye ;;
	7.*) echo trixie ;;
	esac
}

