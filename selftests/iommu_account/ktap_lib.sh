# SPDX-License-Identifier: GPL-2.0
# Shared by the shell selftests (sourced, not run; executable only so that
# scripts/vm/run copies it into the VM beside them): KTAP results and a
# bounded wait on a condition.
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }

# until_ok TRIES CMD...: run CMD every 50 ms until it succeeds, at most TRIES times.
until_ok() {
	t=$1; shift
	while [ "$t" -gt 0 ]; do
		"$@" && return 0
		t=$((t - 1))
		usleep 50000
	done
	return 1
}

# The plan and the totals; the exit status.
ktap_finish() {
	echo "1..$n"
	echo "# Totals: pass:$((n - fail)) fail:$fail"
	[ $fail = 0 ]
}
