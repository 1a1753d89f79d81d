#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --trigger 'syscall>100ms' decided in the kernel by the BPF syscalls program:
# a command making 1000 fast syscalls, one 200 ms sleep and 1000 more gets
# one dump by itself, holding the sleep's syscall record and the fast calls
# before it, with what fired in its metadata.  An EVENT trigger with a filter
# ('sched:sched_process_exit if ...') fires without changing what the
# recording keeps.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd trace-cmd
case $(uname -m) in
x86_64) NR=110 ;;
aarch64) NR=173 ;;
*) skip "getppid syscall number unknown for $(uname -m)" ;;
esac
cd "$TMP"

"$FLYTRAP" record -q --flight 60s --bpf syscalls --trigger 'syscall>100ms' -o t.dat -- \
	sh -c "'$WORKLOAD' sys 1000 0 0; sleep 0.2; '$WORKLOAD' sys 1000 0 0" >w.out 2>rec.err
rc=$?
[ $rc = 0 ] || { cat rec.err; fail "record exited $rc"; finish; }
ls t-*.dat >files.txt 2>/dev/null
[ "$(cat files.txt)" = "t-0001.dat" ] && ok "one dump, t-0001.dat" || { fail "dumps: $(cat files.txt)"; cat rec.err; }
trace-cmd report -i t-0001.dat >r.txt 2>r.err || fail "trace-cmd cannot read the dump"
slow=$(awk '/ syscall: / { for (i = 1; i <= NF; i++) if ($i ~ /^duration=/) { split($i, a, "="); if (a[2] >= 200000000) n++ } } END { print n + 0 }' r.txt)
[ "$slow" -ge 1 ] && ok "the dump holds the 200 ms call ($slow record(s) of 200 ms or more)" ||
	fail "no syscall record of 200 ms or more in the dump"
first=$(awk '/ syscall: / && /duration=/ { for (i = 1; i <= NF; i++) if ($i ~ /^duration=/) { split($i, a, "="); if (a[2] >= 200000000) { print NR; exit } } }' r.txt)
before=$(head -n "${first:-0}" r.txt | grep -c " nr=$NR ")
[ "$before" -ge 1000 ] && ok "$before getppid records before it" || fail "$before getppid records before the slow call"
"$FLYTRAP" info t-0001.dat >info.txt 2>&1
grep -q '^  trigger=syscall>100ms: syscall .* took' info.txt && ok "info says which syscall fired" ||
	{ fail "info: no trigger line"; grep trigger info.txt; }

# an EVENT trigger, filtered, and the recording still keeps every exit
"$FLYTRAP" record -q --trigger 'sched:sched_process_exit if comm == "true"' --after 0 \
	-e sched:sched_process_exit -o e.dat -- sh -c 'sleep 0.3; true; /bin/true; sleep 5' >/dev/null 2>e.err
rc=$?
[ $rc = 0 ] || { cat e.err; fail "event trigger: record exited $rc"; }
"$FLYTRAP" info e.dat >einfo.txt 2>&1
grep -q '^  trigger=sched:sched_process_exit if' einfo.txt && ok "an EVENT trigger ends a normal recording" ||
	{ fail "event trigger did not fire"; cat e.err; }
n=$(trace-cmd report -i e.dat 2>/dev/null | grep -c 'sched_process_exit:')
[ "$n" -ge 2 ] && ok "the recording kept the unfiltered exits ($n)" || fail "only $n exits recorded"
ls "$TRACEFS/instances" | grep -q -- '-trigger$' && fail "trigger instance left behind" ||
	ok "no trigger instance left"
finish
