#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every BPF program loads and attaches on this kernel (one recording per
# skeleton, each must produce its events), trace-cmd prints those events
# (no [UNKNOWN EVENT]), and no flytrap BPF program, map or link is left
# behind after: a normal end, SIGINT, SIGTERM, a failing program, and the
# end of the traced command.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd trace-cmd
need_cmd jq
cd "$TMP"
busy_start	# system-wide recordings below need syscalls of others
before=$(bpf_orphans)

check_run() {	# NAME SPEC EVENT [ -- cmd ]
	local name=$1 spec=$2 event=$3
	shift 3
	"$FLYTRAP" record -q --bpf "$spec" -o "$name.dat" "$@" >"$name.out" 2>"$name.err"
	local rc=$?
	if [ $rc != 0 ] || grep -q "BPF programs not loaded" "$name.err"; then
		fail "$name: record exited $rc: $(head -3 "$name.err")"
		return
	fi
	trace-cmd report -i "$name.dat" >"$name.tc" 2>"$name.tce" || fail "$name: trace-cmd report failed"
	local n
	n=$(grep -c "^ *flytrap-bpf: .* $event: " "$name.tc")
	[ "$n" -gt 0 ] && ok "$name: loads, $n $event events printed by trace-cmd" ||
		fail "$name: no $event events in trace-cmd's listing"
	grep -q "UNKNOWN EVENT" "$name.tc" && fail "$name: [UNKNOWN EVENT] in trace-cmd's listing"
	"$DUMP" "$name.dat" --no-events >"$name.meta" || fail "$name: bpf_dump found damage"
	[ "$(meta "$name.meta" bpf_enabled)" = "${spec%%[=,]*}" ] && ok "$name: bpf_enabled recorded" ||
		fail "$name: bpf_enabled='$(meta "$name.meta" bpf_enabled)'"
	# the helper programs: exit-time maps (where sched_process_exit precedes
	# exit_mm, marked by its group_dead field), fork following (with a command)
	local em
	em=$(meta "$name.meta" bpf_exitmaps)
	if grep -q group_dead "$TRACEFS/events/sched/sched_process_exit/format" 2>/dev/null; then
		[ "$em" = on ] && ok "$name: exitmaps loaded" || fail "$name: exitmaps '$em'"
	fi
	if [ "${1:-}" = -- ]; then
		[ -n "$(meta "$name.meta" bpf_follow_mapfull)" ] && ok "$name: fork following loaded" ||
			fail "$name: fork following not loaded"
	fi
}

# a bad list is a usage error: exit 2, one line naming the problem
for bad in bogus profile=0 ufunc=/bin/true offcpu=soon syscalls=sometimes ringbuf=1; do
	"$FLYTRAP" record --bpf "$bad" -o bad.dat -d 1 >/dev/null 2>usage.err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <usage.err)" = 1 ] && ok "--bpf $bad: usage error: $(cat usage.err)" ||
		fail "--bpf $bad: exit $rc, $(wc -l <usage.err) lines: $(head -2 usage.err)"
done

check_run syscalls syscalls syscall -d 1
check_run agg syscalls=agg syscall_hist -d 1
check_run offcpu offcpu offcpu -d 1
check_run profile profile=499 profile -- "$WORKLOAD" burn 500
check_run ufunc "ufunc=$WORKLOAD:bw_*" ufunc_exit -- "$WORKLOAD" calls 10

# signals: the recorder is stopped while its programs are attached
for sig in INT TERM; do
	"$FLYTRAP" record -q --bpf syscalls,offcpu,profile -o sig.dat -d 30 >/dev/null 2>sig.err &
	pid=$!
	# wait until its programs are attached (they list its pid)
	for _ in $(seq 50); do
		bpftool -j prog show 2>/dev/null | jq -e --argjson p $pid \
			'[.[] | select((.name // "") | startswith("ft_")) | select(any(.pids[]?; .pid == $p))] | length >= 3' \
			>/dev/null && break
		sleep 0.1
	done
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc = 0 ] && ok "SIG$sig: recorder exited 0" || fail "SIG$sig: recorder exited $rc: $(head -2 sig.err)"
	trace-cmd report -i sig.dat 2>/dev/null | grep -q "flytrap-bpf:" && ok "SIG$sig: BPF events kept" ||
		fail "SIG$sig: no BPF events in the file"
done

# SIGKILL: no clean-up code runs at all; the kernel must still free every
# program, map and link (they hang on the recorder's file descriptors, none
# is pinned).  `flytrap reset` then removes its tracefs instance.
"$FLYTRAP" record -q --bpf syscalls,offcpu,profile -o kill.dat -d 30 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do
	bpftool -j prog show 2>/dev/null | jq -e --argjson p $pid \
		'[.[] | select((.name // "") | startswith("ft_")) | select(any(.pids[]?; .pid == $p))] | length >= 3' \
		>/dev/null && break
	sleep 0.1
done
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.2
held=$(bpftool -j prog show 2>/dev/null | jq --argjson p $pid '[.[] | select(any(.pids[]?; .pid == $p))] | length')
[ "$held" = 0 ] && ok "SIGKILL: nothing held by the dead recorder" || fail "SIGKILL: $held programs still list pid $pid"
"$FLYTRAP" reset >/dev/null 2>&1 || true
# as reset says: recover the killed recording, which also ends its run note
"$FLYTRAP" recover kill.dat >/dev/null 2>&1 || true
[ -e /run/flytrap/record-$pid ] &&
	fail "the killed recorder's run note stays after reset and recover" || ok "reset and recover leave no run note"

# a program that cannot attach (no such binary): nothing of it may stay
"$FLYTRAP" record -q --bpf syscalls,ufunc=/nonexistent/bin:main -o bad.dat -d 1 >/dev/null 2>bad.err
grep -q "nonexistent" bad.err && ok "failing ufunc reported: $(grep -m1 nonexistent bad.err)" ||
	fail "failing ufunc not reported"

# only objects that were not already orphaned before count, and only if they
# stay: the kernel frees a dead process's BPF objects a moment after it exits
# (deferred fput, RCU), and other recorders come and go
for _ in $(seq 50); do
	new=$(comm -13 <(echo "$before") <(bpf_orphans) | tr '\n' ' ')
	[ -z "${new// /}" ] && break
	sleep 0.2
done
if [ -z "${new// /}" ]; then ok "no flytrap BPF program, map or link left behind"
else fail "left behind: $new"; fi
finish
