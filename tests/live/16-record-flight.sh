#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The flight recorder: a command makes 3000 getpid calls, SIGUSR1 a second
# later gives trace-0001.dat with exactly those calls for it; 2000 more and
# `flytrap trigger` give trace-0002.dat; the recorder keeps running, the
# numbering continues after the highest file present, and tracefs is as
# found after Ctrl-C.  Bad values exit 2 before tracefs is touched.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
[ -e "$TRACEFS/events/syscalls/sys_enter_getpid" ] || skip "no syscalls:sys_enter_getpid event"
. "$(dirname "$0")/_record.sh"
[ -x "$LOOP" ] || skip "getpid_loop not built"
read -r EXTRA_P EXTRA_C < <(runtime_getpids)
cd "$TMP"
rp=0
trap '[ "$rp" != 0 ] && kill -INT $rp 2>/dev/null && wait $rp; busy_stop; rm -rf "$TMP"' EXIT

# other recorders and tests may run at the same time: what a recorder of ours
# could leave is named after it (flytrap-<pid>, flytrap_<pid>)
snap() { tracefs_snapshot | grep -v '^instances: ' | grep flytrap; }

# wait until FILE has a line matching RE (at most 20 s)

# FILE PID: sys_enter_getpid lines of that pid after its exec (the shell's forked
# copy makes a getpid call of its own before it), as trace-cmd prints them
count_pid() {
	trace-cmd report -i "$1" 2>/dev/null | awk -v p="$2" '
		$0 ~ ("-" p " +\\[") && / sched_process_exec: / { on = 1 }
		on && $0 ~ ("-" p " +\\[") && / sys_enter_getpid: / { n++ }
		END { print n + 0 }'
}

# ---- usage errors, before anything is changed -----------------------------------
snap >before.txt
bad() {
	"$FLYTRAP" record "$@" -o bad.dat >/dev/null 2>bad.err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <bad.err)" = 1 ] && ok "usage error: $* (exit 2, one line)" ||
		{ fail "usage error: $*: exit $rc"; cat bad.err; }
}
bad --flight 0
bad --flight 10s,10s
bad --flight 60s --rotate 1M
bad --flight 60s --max-size 10M
bad --rotate 1M --keep 0
bad --keep 3
bad --after 1s
bad --trigger 'nosuch:event_xyz'
bad --trigger 'syscall>100ms'
bad --trigger 'syscall:no_such_call>1ms' --bpf syscalls
bad --trigger 'syscall>0'
bad --cpu-budget 0
snap >after.txt
cmp -s before.txt after.txt && ok "usage errors leave tracefs as it was" || { fail "tracefs changed"; diff before.txt after.txt | head; }

# ---- two dumps -------------------------------------------------------------------------
touch trace-0007.dat		# an earlier dump: never replaced, numbering goes on after it
snap >before.txt
"$FLYTRAP" record --flight 60s -e syscalls:sys_enter_getpid -e sched:sched_process_exec \
	-o trace.dat 2>rec.err &
rp=$!
if ! wait_line rec.err '^flytrap: recording'; then
	fail "the recorder did not start"; cat rec.err; kill -9 $rp; wait $rp; finish
fi
[ ! -e trace.dat ] && ok "nothing written before a trigger" || fail "trace.dat exists"
"${TOOLENV[@]}" "$LOOP" 3000 0 >p1.txt
p1=$(awk '{print $2}' p1.txt)
sleep 1
kill -USR1 $rp
wait_line rec.err "wrote 'trace-0008.dat'" && ok "SIGUSR1 gives trace-0008.dat (after the 0007 there)" ||
	{ fail "no first dump"; cat rec.err; }
[ -s trace-0007.dat ] && fail "trace-0007.dat was replaced" || ok "trace-0007.dat left alone"
got=$(count_pid trace-0008.dat "$p1")
[ "$got" = $((3000 + EXTRA_P)) ] && ok "first dump: $got getpid events of pid $p1" ||
	fail "first dump: $got getpid events of pid $p1, expected $((3000 + EXTRA_P))"
"$FLYTRAP" info trace-0008.dat >info1.txt 2>&1 && grep -q '^  trigger=signal (SIGUSR1)' info1.txt &&
	grep -q 'cpu_data_start=' info1.txt && ok "info shows what fired and where the data starts" ||
	{ fail "info: no trigger metadata"; tail -20 info1.txt; }
"$FLYTRAP" report trace-0008.dat >/dev/null 2>rep.err && ok "flytrap report reads the dump" ||
	{ fail "flytrap report failed"; head -3 rep.err; }
# report --json marks it too: one line of its own, in time order among the events
"$FLYTRAP" report --json trace-0008.dat >dump.jsonl 2>/dev/null
python3 - dump.jsonl <<'EOF' && ok "report --json marks the trigger, in time order" || fail "report --json: no trigger mark"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
marks = [i for i, r in enumerate(rows) if r.get("mark") == "trigger"]
assert len(marks) == 1 and rows[marks[0]]["trigger"] == "signal (SIGUSR1)", marks
ts = [int(r["ts"]) for r in rows]
assert ts == sorted(ts), "not in time order"
EOF
# export marks the trigger: one instant across every track, and the summary names it
"$FLYTRAP" export trace-0008.dat -o dump.json 2>exp.err
python3 - dump.json <<'EOF' && ok "export marks the trigger (a global instant, and in otherData)" ||
import json, sys
d = json.load(open(sys.argv[1]))
marks = [e for e in d["traceEvents"] if e.get("cat") == "trigger"]
assert len(marks) == 1 and marks[0]["ph"] == "i" and marks[0]["s"] == "g", marks
assert marks[0]["args"]["trigger"] == "signal (SIGUSR1)", marks
assert d["otherData"]["trigger"] == "signal (SIGUSR1)", d["otherData"]
assert abs(d["otherData"]["trigger_ts_us"] - marks[0]["ts"]) < 1, (d["otherData"], marks)
EOF
	{ fail "export: no trigger mark"; head -3 exp.err; }

"${TOOLENV[@]}" "$LOOP" 2000 0 >p2.txt
p2=$(awk '{print $2}' p2.txt)
sleep 1
"$FLYTRAP" trigger >trig.out 2>&1 && ok "flytrap trigger finds the recorder" ||
	{ fail "flytrap trigger failed"; cat trig.out; }
wait_line rec.err "wrote 'trace-0009.dat'" && ok "flytrap trigger gives trace-0009.dat" ||
	{ fail "no second dump"; cat rec.err; }
got=$(count_pid trace-0009.dat "$p2")
[ "$got" = $((2000 + EXTRA_P)) ] && ok "second dump: $got getpid events of pid $p2" ||
	fail "second dump: $got getpid events of pid $p2, expected $((2000 + EXTRA_P))"
kill -0 $rp 2>/dev/null && ok "the recorder keeps running" || fail "the recorder is gone"

# a pid that is not a recorder is never signalled
sleep 30 &
sp=$!
"$FLYTRAP" trigger $sp >t2.out 2>&1
rc=$?
kill -0 $sp 2>/dev/null && [ $rc = 1 ] && ok "trigger refuses a pid that is not a recorder" ||
	fail "trigger on a plain process: exit $rc"
kill $sp; wait $sp 2>/dev/null

kill -INT $rp
wait $rp
rc=$?
rp=0
[ $rc = 0 ] && ok "Ctrl-C ends the flight recording with exit 0" || { fail "exit $rc"; cat rec.err; }
ls -a | grep -q '\.flight-' && fail "store files left behind" || ok "no store files left"
[ ! -e trace.dat ] && ok "no trace.dat at the end" || fail "trace.dat written at the end"
grep -q 'flight recorder: held' rec.err && ok "end summary of the mode" || fail "no flight summary"
[ ! -e "$TRACEFS/instances/flytrap-$rp" ] || fail "instance flytrap-$rp left behind"
snap >after.txt
cmp -s before.txt after.txt && ok "tracefs as found after Ctrl-C" || { fail "tracefs changed"; diff before.txt after.txt | head; }

# ---- a trigger still pending at the end is written at once -----------------------------
"$FLYTRAP" record --flight 60s --after 30s -e syscalls:sys_enter_getpid -o p.dat 2>p.err &
rp=$!
if wait_line p.err '^flytrap: recording'; then
	"${TOOLENV[@]}" "$LOOP" 100 0 >/dev/null
	kill -USR1 $rp
	sleep 0.5
	kill -INT $rp
	wait $rp
	rp=0
	[ -s p-0001.dat ] && trace-cmd report -i p-0001.dat >/dev/null 2>&1 &&
		ok "a pending trigger is written when the recording stops" || { fail "no pending dump"; cat p.err; }
else
	fail "the second recorder did not start"; kill -9 $rp; wait $rp
fi
finish
