#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iommu-accountctl against the real module: output, --json, exit codes, the
# message when the module is absent, options in any position, and the event
# stream of a real mapper refused at dma_entry_limit. KTAP output. Runs as
# root in the VM. Waits are on conditions the kernel exposes, bounded.
. "$(dirname "$0")/ktap_lib.sh"
tmp=$(mktemp -d)
holder=""
cleanup() {
	[ -n "$holder" ] && exec 3>&-
	[ -n "$holder" ] && wait "$holder" 2>/dev/null
	echo 65535 >/sys/module/vfio_iommu_type1/parameters/dma_entry_limit 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT


echo "TAP version 13"
out=$(iommu-accountctl status); rc=$?
check "status exits 0" [ $rc = 0 ]
check "status names the running kernel" sh -c "echo \"\$1\" | grep -q \"kernel release  \$(uname -r)\"" _ "$out"

for args in "uids --json --uid 0" "--json uids --uid 0" "uids --uid 0 --json" "uids -j --uid=0"; do
	# shellcheck disable=SC2086
	json=$(iommu-accountctl $args); rc=$?
	check "$args: exits 0 with uid 0's pot, its tasks and limits" rc_jqt $rc '.[0] | .uid == 0 and (.locked_bytes | type) == "number" and
			(.tasks | type) == "number" and has("memlock_min")' "$json"
done

iommu-accountctl uids --uid 3999999999 2>"$tmp/err"; rc=$?
check "uids --uid 3999999999: exit 4 with the kernel's reason" sh -c "[ $rc = 4 ] && grep -q 'no such user' '$tmp/err'"

iommu-accountctl uids --uid abc 2>/dev/null; rc=$?
check "uids --uid abc: exit 1" [ $rc = 1 ]
# The hook contract against this kernel's BTF: the host check (hook-check)
# verified this kernel's packages against it, so nothing differs here.
series=$(uname -r | cut -d. -f1,2)
json=$(iommu-accountctl status -j); rc=$?
if [ -e /sys/kernel/btf/vmlinux ]; then
	check "status -j: the hook contract read from /sys/kernel/btf, nothing differing for $series" \
		rc_jqt $rc '.hook_contract.series == "'"$series"'" and .hook_contract.series_recorded and
			.hook_contract.differ == [] and .hook_contract.checked > 0 and
			.hook_contract.checked <= .hook_contract.hooks' "$json"
	check "status: says the hooked functions are as the contract records for $series" \
		sh -c "echo \"\$1\" | grep -q '^hook contract   [0-9]* hooked functions as the contract records for $series ([0-9]* read from /sys/kernel/btf'" _ "$out"
else
	check "status -j: hook_contract null without BTF" rc_jqt $rc '.hook_contract == null' "$json"
	check "status: says the contract is not checked without BTF" \
		sh -c "echo \"\$1\" | grep -q '^hook contract   not checked: this kernel has no BTF'" _ "$out"
fi
iommu-accountctl status --count 3 2>"$tmp/err"; rc=$?
check "status --count 3: exit 1, names the option" sh -c "[ $rc = 1 ] && grep -q 'does not take --count' '$tmp/err'"
json=$(iommu-accountctl status -j); rc=$?
# iommufd contexts are a kind exactly where the kernel has iommufd.
if [ -e /dev/iommu ]; then
	kinds_json=', {"name": "iommufd-ctx", "unit": "bytes"}' kinds_words=" iommufd-ctx"
else
	kinds_json="" kinds_words=""
fi
check "status -j: JSON with features, vfio_untracked, quota kinds (with their refusals), events_seq and the budgets" \
	rc_jqt $rc '(.features[0].name | type) == "string" and .vfio_untracked == 0 and
		(.events_seq | type) == "number" and (.events_suppressed | type) == "number" and
		(.failures_dropped | type) == "number" and (.budget | type) == "array" and
		[.quota_kinds[] | {name, unit}] == [{"name": "vfio-container", "unit": "entries"},
			{"name": "uid-pot", "unit": "bytes"}, {"name": "qpair", "unit": "descriptors"}'"$kinds_json"'] and
		all(.quota_kinds[]; (.refusals | type) == "number")' "$json"

iommu-accountctl quotas --kind nosuch 2>"$tmp/err"; rc=$?
check "quotas --kind nosuch: exit 4, names the kinds' source" sh -c "[ $rc = 4 ] && grep -q \"follows no kind 'nosuch'\" '$tmp/err'"
iommu-accountctl quotas --margin 5 2>"$tmp/err"; rc=$?
check "quotas --margin 5: exit 1 (thresholds only)" sh -c "[ $rc = 1 ] && grep -q 'does not take --margin' '$tmp/err'"
json=$(iommu-accountctl -j quotas --kind uid-pot); rc=$?
check "quotas --kind uid-pot -j: uid 0's pot in the generic shape" rc_jqt $rc 'any(.[]; .kind == "uid-pot" and .id == 0 and .unit == "bytes" and (.used | type) == "number" and
		(.limit | type) == "number" and .uid == 0 and (.refusals | type) == "number")' "$json"
# A qpair publisher (qpair_demo, held after its first round: both qpairs
# full, 512 rejected each) and the events it raised.
iommu-accountctl events --count 6 >"$tmp/qev.txt" 2>&1 &
qev=$!
check "events listener subscribed (qpair)" until_ok 100 subscribed "$qev"
mkfifo "$tmp/qhold"
qpair_demo --pause <"$tmp/qhold" >"$tmp/qp.txt" 2>&1 &
qpid=$!
exec 4>"$tmp/qhold"
until_ok 200 grep -q paused "$tmp/qp.txt"
iommu-accountctl quotas --kind qpair >"$tmp/qt.txt"; rc=$?
cnt=$(grep -cE "^qpair +[0-9]+ failing-qp[01] +512 +512 +100.0% +512 +0 +qpair_demo\[$qpid\] uid 0 +512 0/0\$" "$tmp/qt.txt")
check "quotas --kind qpair: both qpairs full, named, with owner, peak and rejections" test "$rc" = 0 -a "$cnt" = 2
cnt=$(iommu-accountctl -j quotas --pid "$qpid" | jq '[.[] | select(.kind == "qpair" and .unit == "descriptors" and
	.used == 512 and .limit == 512 and .uid == 0 and .refusals == 512 and (.name | test("^failing-qp[01]$")) and
	(.cgroup_id | type) == "number" and .peak == 512 and .submitted == 512 and .completed == 0 and
	.deferred_now == 0 and .deferred_total == 0 and .warn == 800 and .crit == 950 and .inconsistent == false)] | length')
check "quotas --pid: the publisher's two, with the published figures in JSON" [ "$cnt" = 2 ]
out=$(iommu-accountctl -j quotas --kind qpair --uid 4242); rc=$?
check "quotas --kind qpair --uid 4242: none of that uid" test "$rc" = 0 -a "$out" = "[]"
# explain qpair N: the pool refused, not memory, with the published figures.
qid=$(iommu-accountctl -j quotas --pid "$qpid" | jq '[.[] | select(.kind == "qpair")][0].id')
json=$(iommu-accountctl -j explain qpair "$qid"); rc=$?
check "explain qpair $qid -j: refused by the qpair pool, 512 of 512, 512 rejections, fix io_queue_requests" \
	rc_jqt $rc '.kind == "qpair" and .refused_by == "qpair pool" and .refused and .used == 512 and
		.limit == 512 and .refusals == 512 and any(.fixes[]; test("io_queue_requests"))' "$json"
iommu-accountctl explain qpair "$qid" >"$tmp/xq.txt"; rc=$?
check "explain qpair $qid: says the application's own descriptors, not memory" sh -c "[ $rc = 0 ] &&
	grep -q '^Refused by qpair pool: the application.s own request descriptors, not memory' '$tmp/xq.txt'"
echo >&4
exec 4>&-
wait "$qpid"
wait "$qev"; rc=$?
check "events: a qpair's warn, crit and first rejection, in words" sh -c "[ $rc = 0 ] &&
	grep -q 'WARN qpair [0-9]* .failing-qp0.: 410 of 512 descriptors in use (threshold 80.0%)' '$tmp/qev.txt' &&
	grep -q 'CRIT qpair [0-9]* .failing-qp0.: 487 of 512' '$tmp/qev.txt' &&
	grep -q 'FAILURE qpair [0-9]* .failing-qp0.: submissions rejected (ENOMEM), 512 of 512 descriptors in use' '$tmp/qev.txt'"
out=$(iommu-accountctl -j quotas --kind qpair)
check "quotas --kind qpair: gone when the publisher exits" [ "$out" = "[]" ]

# Bash completion, with ids from the live module.
comp() {
	bash -c '. userspace/completion/iommu-accountctl
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _iommu_accountctl; echo "${COMPREPLY[*]}"' _ "$@"
}
if command -v bash >/dev/null; then
	c=$(comp iommu-accountctl uids --uid "")
	check "completion: uids --uid offers the live uids (0 among them)" sh -c 'echo " $1 " | grep -q " 0 "' _ "$c"
	c=$(comp iommu-accountctl quotas --kind "")
	check "completion: quotas --kind offers the module's kinds" [ "$c" = "vfio-container uid-pot qpair$kinds_words" ]
	c=$(comp iommu-accountctl procs --pid "")
	check "completion: procs --pid offers our own pid among them" sh -c 'echo " $1 " | grep -q " $2 "' _ "$c" $$
else
	nok "completion: bash is not in the VM"
fi
iommu-accountctl alerts --daemon 127.0.0.1:1 2>"$tmp/err"; rc=$?
check "alerts without a daemon: exit 6, says it cannot reach it" sh -c "[ $rc = 6 ] && grep -q 'cannot reach iommu-accountd at 127.0.0.1:1' '$tmp/err'"

iommu-accountctl -j status >"$tmp/st_loaded.json"
modprobe -r iommu_account
iommu-accountctl status >"$tmp/st_absent.txt" 2>"$tmp/err"; rc=$?
check "status with the module absent: exit 2" [ $rc = 2 ]
check "status with the module absent: says what to run" grep -q 'run `modprobe iommu_account`' "$tmp/err"
check "status with the module absent: the pre-install check (this kernel, the hook contract, each feature)" \
	sh -c "grep -qx 'kernel release  $(uname -r)' '$tmp/st_absent.txt' && grep -q '^hook contract ' '$tmp/st_absent.txt' &&
		grep -q '^features, if it were loaded' '$tmp/st_absent.txt'" || shows status="$tmp/st_absent.txt"
iommu-accountctl -j status >"$tmp/st_absent.json" 2>/dev/null; rc=$?
# What the contract says of each feature, against what the module said of
# it loaded: a feature it ran is not "absent" (nor differs), and one the
# contract has absent from this kernel the module did not run.
check "status -j with the module absent: exit 2; each feature's verdict agrees with the loaded module's state" \
	sh -c "[ $rc = 2 ] && jq -e --slurpfile l '$tmp/st_loaded.json' '
		.module_loaded == false and .kernel_release == \"$(uname -r)\" and .hook_contract.series_recorded and
		(.features | length) > 0 and
		all(.features[]; . as \$f | (\$l[0].features | map(select(.name == \$f.name)) | .[0].state) as \$s |
			if \$s == \"active\" then (\$f.state == \"as_recorded\" or \$f.state == \"not_read\")
			elif \$f.state == \"absent\" then \$s == \"unavailable\" else true end)' '$tmp/st_absent.json' >/dev/null" ||
	shows absent="$tmp/st_absent.json"
iommu-accountctl uids --uid abc 2>/dev/null; rc=$?
check "uids --uid abc with the module absent: exit 1 (checked before connecting)" [ $rc = 1 ]
iommu-accountctl procs --help >"$tmp/help" 2>&1; rc=$?
check "procs --help with the module absent: exit 0, its own usage, options and an example" \
	sh -c "[ $rc = 0 ] && head -n 1 '$tmp/help' | grep -qxF 'usage: iommu-accountctl [-j] procs [--uid N|--pid N]' &&
		grep -q '^  --pid N ' '$tmp/help' && grep -q '^  iommu-accountctl procs ' '$tmp/help' &&
		! grep -q '^commands:' '$tmp/help'"
iommu-accountctl -j top 2>"$tmp/err"; rc=$?
check "-j top: exit 1, top prints text only" sh -c "[ $rc = 1 ] && grep -q 'top prints text only' '$tmp/err'"
qpair_demo 2>"$tmp/err" >/dev/null; rc=$?
check "a publisher with the module absent: libiommu-account says what to run" \
	sh -c "[ $rc = 1 ] && grep -q 'load the module (modprobe iommu_account)' '$tmp/err'"
modprobe iommu_account
iommu-accountctl status >/dev/null; rc=$?
check "status works again after modprobe" [ $rc = 0 ]

# Autoload: the module carries the genetlink family alias, so the kernel's
# lookup of the family runs modprobe (the VM has no /sbin/modprobe, which is
# what the tests above rely on; here the kernel is pointed at busybox's).
check "the module declares its family alias" \
	grep -q 'alias net-pf-16-proto-16-family-iommu_account iommu_account' "/lib/modules/$(uname -r)/modules.alias"
modprobe -r iommu_account
oldmp=$(cat /proc/sys/kernel/modprobe)
echo /bin/modprobe >/proc/sys/kernel/modprobe
iommu-accountctl status >/dev/null 2>"$tmp/err"; rc=$?
echo "$oldmp" >/proc/sys/kernel/modprobe
check "autoload: the first request loads the module (status exits 0)" \
	sh -c "[ $rc = 0 ] && grep -q '^iommu_account ' /proc/modules"

# VFIO: a mapper that leaks entries until the kernel refuses at the limit.
lim=/sys/module/vfio_iommu_type1/parameters/dma_entry_limit
echo 100 >$lim
iommu-accountctl --json events --count 3 >"$tmp/ev.json" 2>&1 &
evpid=$!
check "events listener subscribed" until_ok 100 subscribed "$evpid"
mkfifo "$tmp/hold"
vfio_tool leak 0 <"$tmp/hold" >"$tmp/leak.txt" 2>&1 &
holder=$!
exec 3>"$tmp/hold"
check "vfio_tool: the kernel refuses entry 101 with ENOSPC" \
	until_ok 200 grep -q "MAP_DMA #101 failed: No space left on device" "$tmp/leak.txt"

json=$(iommu-accountctl --json containers); rc=$?
check "containers --json exits 0" [ $rc = 0 ]
check "containers --json: 100/100, one ENOSPC, exact" \
	jqt 'any(.[]; .entries == 100 and .limit == 100 and .fail_enospc == 1 and .inexact == 0)' "$json"
id=$(echo "$json" | jq '.[0].id')
grp=$(echo "$json" | jq '.[0].groups[0]')
gj=$(iommu-accountctl groups --json --id "$grp"); rc=$?
check "groups --json --id: attached to the container, vfio-pci device" rc_jqt $rc "any(.[]; .backend == \"vfio-container\" and .container == $id and
		any(.devices[]; .driver == \"vfio-pci\"))" "$gj"
iommu-accountctl containers >"$tmp/table.txt"; rc=$?
check "containers table: 100/100 at 100%, owner vfio_tool" sh -c "[ $rc = 0 ] && grep -q ' 100/100  100.0% .* vfio_tool\[[0-9]*\] uid 0$' '$tmp/table.txt'"
# explain container N: dma_entry_limit refused it (ENOSPC), with its figures and the fix.
json=$(iommu-accountctl -j explain container "$id"); rc=$?
check "explain container $id -j: refused by dma_entry_limit, 100 of 100, one refusal, fix the module parameter" \
	rc_jqt $rc '.kind == "vfio-container" and .refused_by == "dma_entry_limit" and .refused and
		.used == 100 and .limit == 100 and .refusals == 1 and .last_failure.errno == 28 and
		.owner.comm == "vfio_tool" and any(.fixes[]; test("dma_entry_limit"))' "$json"
iommu-accountctl explain container "$id" >"$tmp/xc.txt"; rc=$?
check "explain container $id: names the limit with its figures, in words" sh -c "[ $rc = 0 ] &&
	grep -q '^Refused by dma_entry_limit: dma_entry_limit: 100 of 100 mapping entries live (100.0%)' '$tmp/xc.txt'"
iommu-accountctl explain container 999999 2>"$tmp/err"; rc=$?
check "explain container 999999: exit 4, says there is none" sh -c "[ $rc = 4 ] && grep -q 'no container 999999' '$tmp/err'"

wait $evpid; rc=$?
check "events --count 3 exits 0 after three events" [ $rc = 0 ]
check "events: warn, crit, then the ENOSPC failure" jq -e -s '
	(.[0] | .type == "threshold" and .entries == 80 and .level == "warn") and
	(.[1] | .type == "threshold" and .entries == 95 and .level == "crit") and
	(.[2] | .type == "failure" and .entries == 100 and .limit == 100 and .errno == 28 and .count == 1)' "$tmp/ev.json"

iommu-accountctl thresholds 900 900 2>"$tmp/err"; rc=$?
check "thresholds 900 900: exit 6 with the kernel's reason" sh -c "[ $rc = 6 ] && grep -q 'warn must be below crit' '$tmp/err'"
iommu-accountctl --json thresholds >"$tmp/th.json"; rc=$?
check "thresholds unchanged after the refusal" rc_jqt $rc '. == {"warn": 800, "crit": 950}' "$(cat "$tmp/th.json")"
iommu-accountctl containers --id 999999 2>/dev/null; rc=$?
check "containers --id 999999: exit 4" [ $rc = 4 ]

exec 3>&-
wait "$holder"; rc=$?
holder=""
check "vfio_tool exits when its stdin closes" [ $rc = 0 ]

# The pot's own thresholds, processes, the breakdown keys.
iommu-accountctl thresholds --kind uid-pot --margin 40 700 900 >/dev/null; rc=$?
json=$(iommu-accountctl -j thresholds --kind uid-pot)
check "thresholds --kind uid-pot --margin 40 700 900: set, read back" \
	rc_jqt $rc '. == {"kind": "uid-pot", "warn": 700, "crit": 900, "margin": 40}' "$json"
json=$(iommu-accountctl -j thresholds)
check "thresholds of VFIO untouched by the pot's" jqt '. == {"warn": 800, "crit": 950}' "$json"
iommu-accountctl thresholds --kind uid-pot 800 950 --margin 50 >/dev/null
iommu-accountctl thresholds --kind bogus 2>"$tmp/err"; rc=$?
check "thresholds --kind bogus: exit 1, says what it takes" sh -c "[ $rc = 1 ] && grep -q 'vfio, uid-pot or qpair' '$tmp/err'"
iommu-accountctl procs --uid 0 --pid 1 2>/dev/null; rc=$?
check "procs --uid 0 --pid 1: exit 1" [ $rc = 1 ]
json=$(iommu-accountctl procs --pid 1 -j); rc=$?
check "procs --pid 1 -j: pid 1 with limits and cgroup id" rc_jqt $rc '. | length == 1 and (.[0] | .pid == 1 and .uid == 0 and .comm == "init" and
		(.cgroup_id | type) == "number" and .cgroup == "/" and has("memlock_soft"))' "$json"
iommu-accountctl procs --pid 4000000 2>"$tmp/err"; rc=$?
check "procs --pid 4000000: exit 4, no such process" sh -c "[ $rc = 4 ] && grep -q 'no such process' '$tmp/err'"
json=$(iommu-accountctl uids --uid 0 -j)
check "uids --uid 0 -j: the breakdown keys" jqt '.[0] | (.consumers | type) == "object" and
	(.unattributed_bytes | type) == "number" and (.pending_bytes | type) == "number" and
	(.cgroups | type) == "number" and (.charges | type) == "number" and
	(.refusals | type) == "number" and .inexact == 0' "$json"

# explain: the ancestor that set the limit, the processes of each cgroup.
# A shell sets 4 MiB (ours has the default) and starts two processes of uid
# 43001 that inherit it; one of them moves to a cgroup of its own. The
# first holds 3 MiB of io_uring buffers; the second asks for 2 MiB and is
# refused (the pot is shared).
sh -c "ulimit -l 4096; runas 43001 uring_bench hold 3145728 >'$tmp/h1' &
	n=0; until grep -q hold '$tmp/h1' || [ \$n -gt 250 ]; do usleep 20000; n=\$((n + 1)); done
	runas 43001 uring_bench hold 2097152 >'$tmp/h2' & wait" &
setter=$!
two_procs() { [ "$(iommu-accountctl procs --uid 43001 -j | jq length)" = 2 ]; }
check "explain: two processes of uid 43001 running" until_ok 100 two_procs
pids=$(iommu-accountctl procs --uid 43001 -j | jq '.[].pid')
cg=/sys/fs/cgroup/ia-ctl-$$
mkdir "$cg" && echo "$pids" | tail -n 1 >"$cg/cgroup.procs"
json=$(iommu-accountctl explain uid 43001 -j); rc=$?
check "explain uid 43001 -j: 2 processes in 2 cgroups, one each" rc_jqt $rc ".processes == 2 and (.cgroups | length) == 2 and all(.cgroups[]; .processes == 1) and
		any(.cgroups[]; .cgroup == \"/ia-ctl-$$\")" "$json"
check "explain uid 43001 -j: limit 4 MiB set by the shell (pid $setter), whose parent has 8 MiB" \
	jqt ".limits[0] | .memlock == 4194304 and .processes == 2 and
		.origin == {\"pid\": $setter, \"comm\": \"sh\"} and
		.origin_parent.pid == $$ and .origin_parent.memlock == 8388608" "$json"
check "explain: the second holder was refused with ENOMEM" until_ok 100 grep -q 'hold -12' "$tmp/h2"
iommu-accountctl explain uid 43001 >"$tmp/explain.txt"; rc=$?
check "explain uid 43001: names the ancestor in plain words" sh -c "[ $rc = 0 ] &&
	grep -q 'shared by 2 processes in 2 cgroups' '$tmp/explain.txt' &&
	grep -q '2 processes with 4.0 MiB: inherited from sh (pid $setter), which has 4.0 MiB' '$tmp/explain.txt' &&
	grep -q 'refused 1 charge' '$tmp/explain.txt' &&
	grep -q 'distinct uids or in user namespaces' '$tmp/explain.txt' &&
	grep -q 'CAP_IPC_LOCK' '$tmp/explain.txt'"
# shellcheck disable=SC2086
kill $pids
wait $setter
rmdir "$cg"

# Who a cgroup belongs to, from its path: holders of uid 43200 in cgroups
# named exactly as Docker (systemd driver), containerd under Kubernetes
# (a burstable pod, systemd driver) and LXC name theirs. procs and explain
# name the container and the pod; the fixtures' ids come back whole.
CID=4f1c2b3a4d5e6f708192a3b4c5d6e7f80123456789abcdef0123456789abcdef
CID2=9a8b7c6d5e4f30211203f4e5d6c7b8a90fedcba9876543210fedcba987654321
POD=7c1e9f2a-3b4c-4d5e-8f6a-0b1c2d3e4f5a
r=/sys/fs/cgroup
cgd=$r/system.slice/docker-$CID.scope
cgk=$r/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(echo $POD | tr - _).slice/cri-containerd-$CID2.scope
cgl=$r/lxc.payload.ia-web01
# And as the other runtimes name theirs: CRI-O in a best-effort pod
# (systemd driver), Podman (rootful), Docker and Kubernetes with the
# cgroupfs driver, containerd's default namespace.
CID3=1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809
POD2=0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
cgc=$r/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$(echo $POD2 | tr - _).slice/crio-$CID3.scope
cgp=$r/machine.slice/libpod-$CID3.scope
cgdf=$r/docker/$CID3
cgkf=$r/kubepods/burstable/pod$POD2/$CID3
cgcd=$r/default/$CID3
idpids=""
for c in "$cgd" "$cgk" "$cgl" "$cgc" "$cgp" "$cgdf" "$cgkf" "$cgcd"; do
	mkdir -p "$c"
	sh -c "echo \$\$ >'$c/cgroup.procs'; exec runas 43200 uring_bench hold 262144" >"$tmp/id.$(basename "$c")" &
	idpids="$idpids $!"
	until_ok 250 grep -q '^hold 0' "$tmp/id.$(basename "$c")"
done
json=$(iommu-accountctl -j procs --uid 43200)
check "procs -j: the Docker container, by its id, from its cgroup's name" jqt "any(.[];
	.identity == {kind: \"container\", runtime: \"docker\", container_id: \"$CID\",
		text: \"container 4f1c2b3a4d5e… (docker)\"})" "$json"
check "procs -j: the Kubernetes pod (burstable) and its containerd container" jqt "any(.[];
	.identity.kind == \"kubernetes\" and .identity.pod_uid == \"$POD\" and .identity.qos == \"burstable\" and
	.identity.runtime == \"containerd\" and .identity.container_id == \"$CID2\")" "$json"
check "procs -j: the LXC container by name" jqt "any(.[]; .identity.runtime == \"lxc\" and .identity.name == \"ia-web01\")" "$json"
iommu-accountctl explain uid 43200 >"$tmp/explain-id.txt"; rc=$?
check "explain uid 43200: each cgroup with its container or pod" sh -c "[ $rc = 0 ] &&
	grep -q '\[container 4f1c2b3a4d5e… (docker)\]: 1 process holding 256.0 KiB' '$tmp/explain-id.txt' &&
	grep -q '\[pod 7c1e9f2a…/container 9a8b7c6d5e4f… (burstable, containerd)\]: 1 process' '$tmp/explain-id.txt' &&
	grep -q '\[container ia-web01 (lxc)\]: 1 process' '$tmp/explain-id.txt'"
# holders: the same three, each with its pot bytes; a qpair publisher in
# the Docker container's cgroup makes it own those qpairs.
json=$(iommu-accountctl -j holders --uid 43200); rc=$?
check "holders --uid 43200 -j: eight holders, each 256 KiB of uid 43200's pot, named" rc_jqt $rc "length == 8 and
	all(.[]; .held_bytes == 262144 and .processes == 1 and .pot == [{uid: 43200, held_bytes: 262144}]) and
	any(.[]; .identity.runtime == \"docker\" and .identity.container_id == \"$CID\" and
		.cgroup == \"/system.slice/docker-$CID.scope\") and
	any(.[]; .identity.pod_uid == \"$POD\" and .identity.container_id == \"$CID2\") and
	any(.[]; .identity.name == \"ia-web01\")" "$json"
check "holders: CRI-O, Podman, Docker and Kubernetes (cgroupfs), containerd: each named as its runtime" jqt "
	any(.[]; .identity == {kind: \"kubernetes\", runtime: \"cri-o\", container_id: \"$CID3\", pod_uid: \"$POD2\",
		qos: \"besteffort\", text: .identity.text}) and
	any(.[]; .cgroup == \"/machine.slice/libpod-$CID3.scope\" and .identity.runtime == \"podman\" and
		.identity.container_id == \"$CID3\") and
	any(.[]; .cgroup == \"/docker/$CID3\" and .identity.runtime == \"docker\" and .identity.container_id == \"$CID3\") and
	any(.[]; .cgroup == \"/kubepods/burstable/pod$POD2/$CID3\" and .identity.kind == \"kubernetes\" and
		.identity.pod_uid == \"$POD2\" and .identity.qos == \"burstable\" and .identity.container_id == \"$CID3\") and
	any(.[]; .cgroup == \"/default/$CID3\" and .identity.runtime == \"containerd\" and .identity.container_id == \"$CID3\")" "$json"
mkfifo "$tmp/hqhold"
sh -c "echo \$\$ >'$cgd/cgroup.procs'; exec qpair_demo --pause" <"$tmp/hqhold" >"$tmp/hqp.txt" 2>&1 &
hqpid=$!
exec 6>"$tmp/hqhold"
until_ok 200 grep -q paused "$tmp/hqp.txt"
qids=$(iommu-accountctl -j quotas --kind qpair --pid "$hqpid" | jq -c '[.[].id] | sort')
json=$(iommu-accountctl -j holders)
out=$(iommu-accountctl holders)
exec 6>&-
wait "$hqpid"
check "holders -j: the Docker container owns the publisher's two qpairs $qids" jqt "any(.[];
	.identity.container_id == \"$CID\" and (.qpairs | sort) == $qids and (.qpairs | length) == 2)" "$json"
line=$(printf '%s\n' "$out" | grep -F 'container 4f1c2b3a4d5e… (docker)')
check "holders: the container by name, its pot and its qpairs on one line ($line)" sh -c "printf '%s' \"\$1\" |
	grep -qE '256.0 KiB +1  43200: 256.0 KiB  qpair [0-9]+,[0-9]+\$'" _ "$line"
# shellcheck disable=SC2086
kill $idpids
for p in $idpids; do wait "$p"; done
rmdir "$cgd" "$r/system.slice" 2>/dev/null
rmdir "$cgc" "$(dirname "$cgc")" "$(dirname "$(dirname "$cgc")")" 2>/dev/null
rmdir "$cgk" "$(dirname "$cgk")" "$(dirname "$(dirname "$cgk")")" "$r/kubepods.slice" "$cgl" 2>/dev/null
rmdir "$cgp" "$r/machine.slice" "$cgdf" "$r/docker" "$cgkf" "$(dirname "$cgkf")" "$r/kubepods/burstable" \
	"$r/kubepods" "$cgcd" "$r/default" 2>/dev/null

# The last refusal names the refused process's cgroup as the kernel saw it
# then, though the process and its cgroup are gone (a transient scope, a
# container that exited): a holder of 3 MiB in the root cgroup, a process
# refused 2 MiB in a cgroup of its own, which is then removed.
sh -c "ulimit -l 4096; exec runas 43001 uring_bench hold 3145728" >"$tmp/h3" &
h3=$!
until_ok 250 grep -q '^hold 0' "$tmp/h3"
cg2=/sys/fs/cgroup/ia-ctl-refused-$$
mkdir "$cg2"
sh -c "echo \$\$ >'$cg2/cgroup.procs'; ulimit -l 4096; exec runas 43001 uring_bench hold 2097152" >"$tmp/h4" &
h4=$!
until_ok 250 grep -q '^hold ' "$tmp/h4"
kill $h4
wait $h4
rmdir "$cg2"
check "explain: the refused process (in $cg2) got ENOMEM and is gone with its cgroup" \
	sh -c "grep -q 'hold -12' '$tmp/h4' && [ ! -d '$cg2' ]"
json=$(iommu-accountctl explain uid 43001 -j)
check "explain uid 43001 -j: last_failure names the refused pid and its removed cgroup /ia-ctl-refused-$$" \
	jqt ".last_failure | (.time_ns | type) == \"number\" and .errno == 12 and .iova == 0 and .size == 2097152 and
		(.owner | {pid, uid, comm}) == {\"pid\": $h4, \"uid\": 43001, \"comm\": \"uring_bench\"} and
		.owner.cgroup_id == .cgroup_id and
		(.cgroup_id | type) == \"number\" and .cgroup == \"/ia-ctl-refused-$$\"" "$json"
iommu-accountctl explain uid 43001 >"$tmp/explain.txt"
check "explain uid 43001: the last refusal in plain words, its cgroup holding none of the pot, the pot shared" \
	sh -c "grep -q 'The last refusal: uring_bench\[$h4\] (uid 43001) in /ia-ctl-refused-$$, a charge of 2.0 MiB (ENOMEM), [0-9]* s ago: that cgroup holds none of the pot now' '$tmp/explain.txt' &&
		grep -q 'distinct uids or in user namespaces' '$tmp/explain.txt'"
kill $h3
wait $h3
out=$(iommu-accountctl explain uid 43999); rc=$?
check "explain uid 43999 (nothing there): says so, exit 0" sh -c "[ $rc = 0 ] && echo \"\$1\" | grep -q 'nothing to explain'" _ "$out"
iommu-accountctl explain pid 1 2>/dev/null; rc=$?
check "explain pid 1: exit 1 (explain takes uid N)" [ $rc = 1 ]

# A listener that reads too slowly: its socket overruns (ENOBUFS). When it
# resumes it says how many events were lost and keeps following.
echo 1 >$lim
IA_EVENTS_RCVBUF=abc iommu-accountctl events --count 1 2>"$tmp/rb.err"; rc=$?
check "events with a bad IA_EVENTS_RCVBUF: exit 6, says what it takes" \
	sh -c "[ $rc = 6 ] && grep -q 'IA_EVENTS_RCVBUF=.abc. is not a number of bytes' '$tmp/rb.err'"
# The kernel's default buffer (rmem_default: about 170 events), not libia's 8 MiB.
IA_EVENTS_RCVBUF=0 iommu-accountctl events >"$tmp/ov.txt" 2>&1 &
evpid=$!
check "overrun: listener subscribed" until_ok 100 subscribed "$evpid"
kill -STOP $evpid
# 100 containers x (warn, crit, ENOSPC): far more than its socket holds.
vfio_tool churn 100 >"$tmp/churn.txt" 2>&1
kill -CONT $evpid
vfio_tool churn 1 >>"$tmp/churn.txt" 2>&1
check "overrun: 101 containers refused at dma_entry_limit 1" \
	sh -c "[ \"\$(cat '$tmp/churn.txt' | tr '\n' ' ')\" = 'refused 100 refused 1 ' ]"
check "overrun: says how many events were lost" \
	until_ok 200 grep -q '^!! [0-9]* events lost (socket overrun' "$tmp/ov.txt"
# The gap is reported before the event that follows it, which is printed.
check "overrun: keeps following (the event after the gap is printed)" \
	until_ok 200 sh -c "sed -n '/events lost/,\$p' '$tmp/ov.txt' | grep -q '^#[0-9]* FAILURE container'"
check "overrun: still running, no error" sh -c "kill -0 $evpid && ! grep -qi 'out of memory\\|error' '$tmp/ov.txt'"
kill $evpid
wait $evpid 2>/dev/null

# Events are sent in the initial network namespace only; elsewhere the tool says so.
unshare -n iommu-accountctl events >/dev/null 2>"$tmp/ns.err" &
nspid=$!
check "events in another network namespace: says events are sent only in the initial one" \
	until_ok 100 grep -q 'not in the initial network namespace' "$tmp/ns.err"
kill $nspid
wait $nspid 2>/dev/null

ktap_finish
