#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --cpu-budget far too small for the load: the recorder sheds its costliest
# event (raw_syscalls here, not the rare sched_process_exec), records the shed
# window in the file, and drops reports it as loss of kind shed.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
cd "$TMP"
"$FLYTRAP" record -q --cpu-budget 0.1 -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
	-e sched:sched_process_exec -o b.dat -- "$STORM" 800000 1 100000 >/dev/null 2>rec.err
rc=$?
[ $rc = 0 ] || { cat rec.err; fail "record exited $rc"; finish; }
"$FLYTRAP" info b.dat >info.txt 2>&1
grep -q '^  shed=[0-9]*,[0-9]*,raw_syscalls:sys_e[a-z]*,recorder at' info.txt &&
	ok "info shows the shed window of a raw_syscalls event" || { fail "no shed line in info"; grep -i shed info.txt; }
grep -q 'shed=[0-9]*,[0-9]*,sched:sched_process_exec' info.txt && fail "the rare event was shed first" ||
	ok "the costliest events went first"
"$FLYTRAP" drops b.dat >drops.txt 2>&1
grep -q '^  shed: raw_syscalls:sys_e' drops.txt && ok "drops reports the shed window" || { fail "drops: no shed"; head drops.txt; }
"$FLYTRAP" drops --json b.dat | grep -q '"kind":"shed"' && ok "drops --json lists it" || fail "drops --json: no shed"
trace-cmd report -i b.dat >/dev/null 2>&1 && ok "trace-cmd reads the file" || fail "trace-cmd cannot read it"
finish
