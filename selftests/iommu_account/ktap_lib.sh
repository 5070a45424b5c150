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

# jqt FILTER JSON: jq's FILTER holds on the document JSON, parsed (key order
# and spacing do not matter; a number is a number).
jqt() { printf '%s' "$2" | jq -e "$1" >/dev/null 2>&1; }
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
