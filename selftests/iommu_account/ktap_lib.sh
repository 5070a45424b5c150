# SPDX-License-Identifier: GPL-2.0
# Shared by the shell selftests (sourced, not run; executable only so that
# scripts/vm/run copies it into the VM beside them): KTAP results and a
# bounded wait on a condition.
# The counters have names no test would use for its own variables.
ktap_n=0 ktap_fail=0
ok() { ktap_n=$((ktap_n + 1)); echo "ok $ktap_n $1"; }
nok() { ktap_n=$((ktap_n + 1)); ktap_fail=$((ktap_fail + 1)); echo "not ok $ktap_n $1"; }
# check DESC CMD...: ok or not ok, by CMD's status; returns 1 when not ok.
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; return 1; fi; }
# shows LABEL=FILE...: what a failed check read, as KTAP diagnostics.
shows() { for ktap_p in "$@"; do echo "# ${ktap_p%%=*}: $(cat "${ktap_p#*=}" 2>&1)"; done; }

# until_ok TRIES CMD...: run CMD every 50 ms until it succeeds, at most TRIES
# times ($IA_TIMEOUT_SCALE times as many on a debug kernel: a bound on a hung
# wait, not a measure of speed).
until_ok() {
	ktap_t=$(($1 * ${IA_TIMEOUT_SCALE:-1})); shift
	while [ "$ktap_t" -gt 0 ]; do
		"$@" && return 0
		ktap_t=$((ktap_t - 1))
		usleep 50000 2>/dev/null || sleep 0.05	# busybox; Debian has no usleep
	done
	return 1
}

# jqt FILTER JSON [JQ-ARGS...]: jq's FILTER holds on the document JSON, parsed
# (key order and spacing do not matter; a number is a number); JQ-ARGS give
# it variables (--arg, --argjson).
jqt() { ktap_f=$1 ktap_j=$2; shift 2; printf '%s' "$ktap_j" | jq -e "$@" "$ktap_f" >/dev/null 2>&1; }
# rc_jqt RC FILTER JSON: a command's exit status RC is 0 and FILTER holds on
# its output JSON.
rc_jqt() { [ "$1" = 0 ] && jqt "$2" "$3"; }

# subscribed PID: one of PID's sockets is generic netlink (protocol 16) with a
# multicast group bit set (/proc/net/netlink: Eth, Groups and Inode columns).
subscribed() {
	ktap_ino=$(ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\].*/\1/p' | tr '\n' ' ')
	[ -n "$ktap_ino" ] && awk -v ino=" $ktap_ino" '$2 == 16 && $4 != "00000000" && index(ino, " " $10 " ") {f=1} END {exit !f}' /proc/net/netlink
}

# The plan and the totals; the exit status.
ktap_finish() {
	echo "1..$ktap_n"
	echo "# Totals: pass:$((ktap_n - ktap_fail)) fail:$ktap_fail"
	[ $ktap_fail = 0 ]
}

# journal_start FILE: journal_catch at journald's socket (journald does not
# run in the VM), recording what is sent there into FILE; its pid in jpid.
journal_start() {
	mkdir -p /run/systemd/journal
	journal_catch /run/systemd/journal/socket "$1" >"$1.out" 2>&1 &
	jpid=$!
	until_ok 100 grep -q ready "$1.out" || echo "# journal_catch did not start"
}

# Exactness against the kernel after the module's hooks changed (reload_test.sh,
# livepatch_test.sh); they use $tmp and leave $hold empty.
# fresh_container LABEL: a fresh container of 100 entries mapped until the
# kernel refuses (ENOSPC): the module counts exactly that. The entry limit
# is Debian's default again when it returns.
fresh_container() {
	echo 100 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
	# A new output file, created before the mapper blocks on its FIFO: the
	# wait below never reads the previous call's "No space left" (a
	# redirection from the FIFO first held the truncation back until the
	# parent opened it, and CI read the count before the container existed).
	rm -f "$tmp/hold" "$tmp/leak.txt"
	mkfifo "$tmp/hold"
	vfio_tool leak 0 >"$tmp/leak.txt" 2>&1 <"$tmp/hold" &
	hold=$!
	exec 3>"$tmp/hold"
	until_ok 400 grep -q 'failed: No space left on device' "$tmp/leak.txt"
	iommu-accountctl -j containers >"$tmp/ctr.json" 2>&1
	check "$1: a fresh container counts 100/100 with 1 ENOSPC, exactly" \
		jqt 'any(.[]; .entries == 100 and .limit == 100 and .fail_enospc == 1)' "$(cat "$tmp/ctr.json")" ||
		{ iommu-accountctl -j status >"$tmp/status.json" 2>&1
		  shows read="$tmp/ctr.json" mapper="$tmp/leak.txt" status="$tmp/status.json"; }
	exec 3>&-
	wait "$hold"
	hold=""
	echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
}
# fresh_pot LABEL [UID]: UID (1001) holds one 1 MiB buffer; the parts add up
# to the kernel's counter, which is back at zero when it returns.
fresh_pot() {
	ktap_u=${2:-1001}
	# Removed first, as in fresh_container: the job truncates it only once
	# it runs, and the wait must not read the first call's "hold 0".
	rm -f "$tmp/h.txt"
	runas "$ktap_u" uring_bench hold 1048576 >"$tmp/h.txt" 2>&1 &
	hold=$!
	until_ok 200 grep -q '^hold 0' "$tmp/h.txt"
	iommu-accountctl -j uids --uid "$ktap_u" >"$tmp/pot.json" 2>&1
	check "$1: uid $ktap_u's pot is 1 MiB, all of it io_uring buffers" \
		grep -q '"locked_bytes":1048576,.*"io_uring-buffers":1048576' "$tmp/pot.json" ||
		shows read="$tmp/pot.json" holder="$tmp/h.txt"
	kill "$hold"
	wait "$hold" 2>/dev/null
	hold=""
	# The ring's teardown is deferred: the next step (an rmmod) starts once
	# the kernel's own figure for uid 1001 is back at zero, so no charge from
	# this holder is released under the next load (CI on 6.1 once read the
	# hooks=kprobes pot while the previous 1 MiB was most likely still there).
	until_ok 400 eval '! jqt "any(.[]; .locked_bytes > 0)" "$(iommu-accountctl -j uids --uid "$ktap_u")"'
}
