#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every task that ran is named (issue 31): the kernel's saved_cmdlines keeps
# 128 names and /proc forgets a task once it has ended, but the recording
# saw the names (sched_switch, sched_process_fork/exec).  300 short-lived
# processes: no line of trace-cmd's listing nor of flytrap report is a
# "<...>", and the processes are named after what they ran.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
cd "$TMP"

"$FLYTRAP" record -q -e sched:sched_switch -e sched:sched_process_fork -e sched:sched_process_exec \
	-o n.dat -- sh -c 'for i in $(seq 300); do /bin/true; done' 2>rec.err ||
	{ cat rec.err; fail "record failed"; finish; }
trace-cmd report -i n.dat >tc.txt 2>/dev/null || fail "trace-cmd report failed"
"$FLYTRAP" report n.dat >ft.txt 2>/dev/null || fail "flytrap report failed"
pids=$(grep -oE 'child_pid=[0-9]+' tc.txt | sort -u | wc -l)
[ "$pids" -gt 128 ] && ok "$pids processes forked (more than saved_cmdlines' 128)" ||
	fail "only $pids forks recorded"
n=$(grep -c '<\.\.\.>' tc.txt)
[ "$n" = 0 ] && ok "trace-cmd names every task ($(wc -l <tc.txt) lines)" ||
	{ fail "trace-cmd: $n lines of <...>"; grep '<\.\.\.>' tc.txt | head -3; }
n=$(grep -c '<\.\.\.>' ft.txt)
[ "$n" = 0 ] && ok "flytrap report names every task" ||
	{ fail "flytrap report: $n lines of <...>"; grep '<\.\.\.>' ft.txt | head -3; }
# a process that has exited by the end is named by its last name: "true", after its exec
t=$(grep -cE '^ *true-[0-9]+ ' tc.txt)
[ "$t" -ge 300 ] && ok "$t lines of the short-lived processes named 'true'" ||
	fail "$t lines named true-PID (expected at least 300)"
finish
