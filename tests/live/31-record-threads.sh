#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The recorder with several capture threads and compression threads on
# this 2-CPU machine, the thread count forced above the CPU count: the file
# verifies (chunk checksums, the digest fed while writing, time order per
# CPU), trace-cmd reads it whole, and per CPU its events are the kernel's
# own count; a flight dump and a rotation made that way verify too.  Bad
# counts are usage errors.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
ncpu=$(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l)
cd "$TMP"
export FLYTRAP_TEST_DIGEST=check

for bad in "--threads 0" "--threads 257" "--capture-threads x" "--capture-threads -1"; do
	# shellcheck disable=SC2086
	"$FLYTRAP" record $bad -o bad.dat -- true >/dev/null 2>bad.err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <bad.err)" = 1 ] && ! [ -e bad.dat ] &&
		ok "record $bad: exit 2, one line" || fail "record $bad: exit $rc: $(head -c 200 bad.err)"
done

# per-CPU "CPU COUNT" of the events trace-cmd prints
tc_percpu() {
	trace-cmd report -i "$1" 2>/dev/null | sed -nE 's/^ *.+ \[0*([0-9]+)\] +[0-9]+\.[0-9]+: .*/\1/p' |
		sort -n | uniq -c | awk '{ print $2, $1 }'
}

want=$((ncpu * 2 + 1))
"$FLYTRAP" -v record -e raw_syscalls --capture-threads $want --threads 3 -o t.dat -- \
	"$STORM" 200000 2 >/dev/null 2>rec.err
rc=$?
[ $rc = 0 ] && ok "record --capture-threads $want --threads 3: exit 0" || { fail "exit $rc"; tail rec.err; }
nthr=$(grep -c 'capture thread [0-9]*: CPUs' rec.err)
[ "$nthr" = "$ncpu" ] && ok "$want capture threads asked, one per CPU ($ncpu) started" ||
	fail "$nthr capture threads reported for $ncpu CPUs"
grep -q '^flytrap: 3 compression threads' rec.err && ok "three compression threads" ||
	fail "no 'three compression threads' line"
"$FLYTRAP" verify t.dat >v.out 2>&1 && grep -q 'whole-file digest' v.out && ok "verify passes (digest checked)" ||
	fail "verify: $(head -c 300 v.out)"
tc_percpu t.dat >tc.cnt
sed -nE 's/^flytrap: +([0-9]+) +([0-9]+) +[0-9.]+ [kMG]?B +([0-9]+)$/\1 \2/p' rec.err | awk '$2 > 0' >kernel.cnt
[ -s tc.cnt ] && cmp -s tc.cnt kernel.cnt &&
	ok "per CPU, trace-cmd's events = the kernel's count: $(tr '\n' ' ' <tc.cnt)" ||
	fail "per-CPU counts: trace-cmd [$(tr '\n' ' ' <tc.cnt)] kernel [$(tr '\n' ' ' <kernel.cnt)]"
total=$(awk '{ s += $2 } END { print s + 0 }' tc.cnt)
# a loaded machine may make the kernel overwrite pages: then they are counted as lost
lost=$(sed -nE 's/^flytrap: +[0-9]+ +[0-9]+ +[0-9.]+ [kMG]?B +([0-9]+)$/\1/p' rec.err | awk '{ s += $1 } END { print s + 0 }')
[ $((total + lost)) -ge 800000 ] && ok "$total events + $lost counted lost (2 x 200000 calls x 2 events)" ||
	fail "only $total events + $lost lost"
n_ft=$("$FLYTRAP" report t.dat 2>/dev/null | wc -l)
n_tc=$(trace-cmd report -i t.dat 2>/dev/null | wc -l)
[ "$n_ft" = "$n_tc" ] && ok "flytrap report and trace-cmd print $n_ft lines" || fail "flytrap $n_ft lines, trace-cmd $n_tc"

# flight mode: a dump by SIGUSR1 while both capture threads run; a storm pinned to each CPU
# (left to the scheduler, a busy machine can run both threads on one CPU and leave the other
# without an event of the recorded task)
pinned=""
for c in $(seq 0 $((ncpu - 1))); do pinned="$pinned taskset -c $c $STORM 50000 1 >/dev/null &"; done
"$FLYTRAP" -v record -e raw_syscalls --capture-threads 2 --threads 2 --flight 60s --after 0 -o fl.dat -- \
	sh -c "$pinned wait; kill -USR1 \$PPID; sleep 1; $STORM 20000 1 >/dev/null" 2>fl.err
rc=$?
dump=$(ls fl-*.dat 2>/dev/null | head -n 1)
if [ $rc = 0 ] && [ -n "$dump" ] && "$FLYTRAP" verify "$dump" >fv.out 2>&1 && [ "$(tc_percpu "$dump" | wc -l)" = "$ncpu" ]; then
	ok "flight dump $dump with two capture threads verifies, events of every CPU"
else
	fail "flight (exit $rc, dump '${dump:-none}'): $(grep -v 'info: \(event\|format\)' fl.err | tail -n 3 | head -c 300) $(head -c 200 fv.out 2>/dev/null)"
fi
grep -c 'capture thread [0-9]*: CPUs' fl.err | grep -qx 2 && ok "flight: two capture threads" || fail "flight: capture threads not reported"

# rotation: every segment verifies, and together they hold every event the kernel counted
"$FLYTRAP" record -e raw_syscalls --capture-threads 2 --threads 2 --rotate 1M -o rot.dat -- \
	"$STORM" 300000 2 >/dev/null 2>rot.err
rc=$?
nseg=0 bad=0
for f in rot-*.dat; do
	[ -e "$f" ] || continue
	nseg=$((nseg + 1))
	"$FLYTRAP" verify "$f" >/dev/null 2>&1 || bad=$((bad + 1))
done
[ $rc = 0 ] && [ $nseg -ge 2 ] && [ $bad = 0 ] && ok "rotation: $nseg segments, each verifies" ||
	fail "rotation: exit $rc, $nseg segments, $bad failing verify: $(tail -n 2 rot.err | head -c 200)"
seg_events=0
for f in rot-*.dat; do
	[ -e "$f" ] && seg_events=$((seg_events + $(trace-cmd report -i "$f" 2>/dev/null | grep -c 'sys_e')))
done
kern=$(sed -nE 's/^flytrap: +[0-9]+ +([0-9]+) +[0-9.]+ [kMG]?B +[0-9]+$/\1/p' rot.err | awk '{ s += $1 } END { print s + 0 }')
[ "$seg_events" -gt 0 ] && [ "$seg_events" = "$kern" ] && ok "rotation: the segments hold the kernel's $kern events" ||
	fail "rotation: segments hold $seg_events events, the kernel counted $kern"
finish
