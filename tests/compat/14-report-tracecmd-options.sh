#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# trace-cmd report's options through flytrap report print what trace-cmd
# 3.1.6 prints, byte for byte: every option and the usual combinations on
# every fixture recorded by other people and on the test files of
# tests/data, then several -i files merged (with --ts-offset, per-file -F,
# --align-ts), and the usage errors a trace-cmd habit runs into.
#
# Differences left on purpose (docs/man/flytrap-report.1, COMPATIBILITY):
# trace-cmd 3.1.6 ignores -F and --ts-offset given after a single -i (so
# the filters here come before -i), applies --cpu to its handle slots (an
# instance's CPUs count after the top buffer's, so `--cpu 1` hides the
# instance's CPU 1: skipped on files with several buffers), and crashes at
# its end after some filtered listings (compared line-buffered, counted).
. "$TOP/tests/lib.sh"
need_cmd trace-cmd
need_fixtures

files=()
for f in "$FIXTURES"/*.dat "$TOP"/tests/data/*.dat; do
	# trace-cmd 3.1.6 cannot read zlib files nor print a file without data
	[ -n "$(trace-cmd report -i "$f" 2>/dev/null | head -2 | sed -n 2p)" ] && files+=("$f")
done
[ ${#files[@]} -ge 10 ] || fail "only ${#files[@]} files that trace-cmd can list"

# trace-cmd 3.1.6 reads a v6 file's empty TRACECLOCK option from
# uninitialised memory and now and then prints raw nanoseconds instead of
# seconds (about 1 run in 40): a difference counts only if it persists.
tc_run() {	# tc_run ARGS...: trace-cmd report into tc.txt, its exit code in tc_rc
	trace-cmd report "$@" > "$TMP/tc.txt" 2>"$TMP/tc.err"
	tc_rc=$?
}
crashed=0 compared=0 lines=0
compare() {	# compare LABEL ARGS...
	local label=$1 k ft_rc n crashed_now=0
	shift
	tc_run "$@"
	[ $tc_rc -ge 128 ] && crashed_now=1
	if [ $tc_rc -ge 128 ]; then
		# trace-cmd 3.1.6 crashes in tracecmd_close() after some filtered
		# listings, losing what stdio buffered: the lines it printed count
		crashed=$((crashed + 1))
		stdbuf -oL trace-cmd report "$@" > "$TMP/tc.txt" 2>"$TMP/tc.err"
		tc_rc=0
	fi
	"$FLYTRAP" report "$@" > "$TMP/ft.txt" 2>"$TMP/ft.err"
	ft_rc=$?
	for k in 1 2; do
		cmp -s "$TMP/tc.txt" "$TMP/ft.txt" && break
		[ $crashed_now = 1 ] && break
		tc_run "$@"
	done
	n=$(wc -l < "$TMP/tc.txt")
	if ! cmp -s "$TMP/tc.txt" "$TMP/ft.txt"; then
		fail "$label: flytrap report $* differs from trace-cmd (exit $tc_rc/$ft_rc, $(diff "$TMP/tc.txt" "$TMP/ft.txt" | grep -c '^[<>]') lines of $n): $(head -c 200 "$TMP/ft.err")"
		diff "$TMP/tc.txt" "$TMP/ft.txt" | head -4
	elif [ $tc_rc = 0 ] && [ $ft_rc != 0 ]; then
		fail "$label: flytrap report $* printed the same but exited $ft_rc: $(head -c 200 "$TMP/ft.err")"
	else
		compared=$((compared + 1))
		lines=$((lines + n))
	fi
}

# option sets as typed (filters before -i: see above); every file gets the
# first list, a few files that hold what the options act on (irqs,
# softirqs, stacks, wakeups, lost events, graph calls, BPF instances, v6
# with 4-byte longs and without options) the second too
opts=(
	"-R" "-l" "-t --ts-diff" "-w" "-I -S" "--raw-ts" "--stat" "--first-event --last-event -t"
	"-r 'sched.*'" "-F 'sched.*'" "-F '.*' -v -F '.*:common_pid==0'" "-T -F '.*:common_pid>10'"
)
more_opts=(
	"-l -R" "-t" "--ts-diff" "-l --ts-diff" "-N" "-L" "-I" "-S" "--nodate" "--align-ts"
	"--ts2secs 1000000000" "--ts2secs 2000000000 -t" "--uname" "--version" "--cpus" "-E"
	"-r '.*'" "-n sched_switch" "-N -R" "-O ftrace:parent=0" "-O ftrace:indent=1"
	"-F '.*:common_pid!=0'" "-F '.*:common_pid>10&&common_pid<2000'"
	"-F '.*:COMM~\"b*\"'" "-F '.*:!(common_pid==0)'"
	"-F sched_switch,sched_wakeup -v -F sched_wakeup" "-F 'irq.*:irq==16||vec==1'"
	"-F '.*:common_pid==0' -w" "-T -F sched_switch:prev_state==0 -v -F '.*:COMM==\"bash\"'"
)
more_files=" hebel23+driver__trace.dat TGVM+tutorial3LabSisop__trace.dat ARM-software+lisa__external_trappy_tests_trace_idle.dat rpt-sched.dat rpt-stacks.dat rpt-drops.dat rpt-bpf.dat lab-function-graph.dat "
for f in "${files[@]}"; do
	name=$(basename "$f")
	set -- "${opts[@]}"
	case "$more_files" in *" $name "*) set -- "$@" "${more_opts[@]}" ;; esac
	for o in "$@"; do
		eval "set -- $o"
		compare "$name" "$@" -i "$f"
	done
	nbuf=$("$FLYTRAP" info --json "$f" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["buffers"]))')
	if [ "$nbuf" = 1 ]; then
		compare "$name" -R --cpu 1 -i "$f"
		compare "$name" --cpu 0 -F '.*:common_pid!=0' -i "$f"
	fi
	# flytrap's --pid next to a filter: trace-cmd says it with a filter
	pid=$("$FLYTRAP" report --json "$f" 2>/dev/null | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if d.get("pid"):
        print(d["pid"]); break')
	if [ -n "$pid" ]; then
		trace-cmd report -F ".*:common_pid==$pid" -i "$f" > "$TMP/tc.txt" 2>/dev/null
		"$FLYTRAP" report -F '.*' --pid "$pid" -i "$f" > "$TMP/ft.txt" 2>/dev/null
		cmp -s "$TMP/tc.txt" "$TMP/ft.txt" || fail "$name: -F .* --pid $pid differs from trace-cmd's common_pid filter"
	fi
	# --check-events: success exactly where trace-cmd succeeds
	trace-cmd report --check-events -i "$f" > /dev/null 2>&1; a=$?
	"$FLYTRAP" report --check-events -i "$f" > /dev/null 2>&1; b=$?
	{ [ $a = 0 ] && [ $b = 0 ]; } || { [ $a != 0 ] && [ $b = 1 ]; } ||
		fail "$name: --check-events exit $b, trace-cmd $a"
	# trace-cmd report's -e and -P are --endian and --printk here
	trace-cmd report -e -i "$f" > "$TMP/tc.txt" 2>/dev/null
	"$FLYTRAP" report --endian -i "$f" > "$TMP/ft.txt" 2>/dev/null
	cmp -s "$TMP/tc.txt" "$TMP/ft.txt" || fail "$name: --endian differs from trace-cmd -e"
	trace-cmd report -P -i "$f" > "$TMP/tc.txt" 2>/dev/null
	"$FLYTRAP" report --printk -i "$f" > "$TMP/ft.txt" 2>/dev/null
	cmp -s "$TMP/tc.txt" "$TMP/ft.txt" || fail "$name: --printk differs from trace-cmd -P"
	trace-cmd report -f -i "$f" > "$TMP/tc.txt" 2>/dev/null
	"$FLYTRAP" report -f -i "$f" > "$TMP/ft.txt" 2>/dev/null
	cmp -s "$TMP/tc.txt" "$TMP/ft.txt" || fail "$name: -f differs from trace-cmd"
done
ok "single files: $compared runs identical ($lines lines), $crashed of them where trace-cmd crashed at its end"

# several -i: merged in time order with the per-file prefixes; --ts-offset
# and -F belong to the -i before them (trace-cmd drops them after the first)
D=$TOP/tests/data
H=$FIXTURES/hebel23+driver__trace.dat
compared=0 lines=0 crashed=0
compare multi -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat"
compare multi -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --ts-offset 5000000
compare multi -i "$D/rpt-sched.dat" -i "$D/sample.dat" --ts-offset -1000
compare multi -i "$D/sample.dat" -i "$D/rpt-sched.dat" --ts-offset 1598705000000000
compare multi -i "$H" -i "$D/rpt-sched.dat" --ts-offset 1454200000000 -F sched_switch
compare multi -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" -F sched_switch -v -F 'sched_switch:next_pid==0'
compare multi -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --align-ts
compare multi -i "$H" -i "$D/rpt-graph.dat" -i "$D/rpt-stacks.dat" --ts-offset 1454000000000 --ts-diff
compare multi -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" -t -l
compare multi -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --stat
compare multi -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --uname
compare multi -i "$D/rpt-sched.dat" -i "$D/lab-kfunc.dat" --first-event --last-event
compare multi -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --ts2secs 2000000000
ok "several -i: $compared runs identical ($lines lines), $crashed of them where trace-cmd crashed at its end"
# flytrap's --from/--to take the times as printed, after the offsets
"$FLYTRAP" report -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --ts-offset 5000000 > "$TMP/all.txt"
"$FLYTRAP" report -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --ts-offset 5000000 --from 10.015 --to 10.05 > "$TMP/win.txt"
awk 'NR == 1 || (/\[[0-9]+\]/ && $0 ~ /: *[0-9]+\.[0-9]+:/) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (t >= 10.015 && t <= 10.05) print; break } if (NR == 1) print }' "$TMP/all.txt" > "$TMP/want.txt"
cmp -s "$TMP/want.txt" "$TMP/win.txt" && [ "$(wc -l < "$TMP/win.txt")" -gt 2 ] &&
	ok "--from/--to select the merged lines by the times they show ($(($(wc -l < "$TMP/win.txt") - 2)) lines)" ||
	fail "--from/--to on merged files: $(diff "$TMP/want.txt" "$TMP/win.txt" | head -3)"

# usage: a trace-cmd habit gets one line that says what to type
usage() {	# usage WANT_SUBSTRING ARGS...
	local want=$1 rc
	shift
	"$FLYTRAP" report "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q -- "$want" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		ok "report $*: exit 2, '$(cut -c1-90 "$TMP/err")'"
	else
		fail "report $*: exit $rc, stderr '$(head -c 300 "$TMP/err")'"
	fi
}
usage "use --endian" -e -i "$H"
usage "use --endian" -i "$H" -e
usage "use --printk" -P -i "$H"
usage "not the option '-i'" --event -i "$H"
usage "not the option '-i'" -F -i "$H"
usage "flytrap overhead" --profile -i "$H"
usage "flytrap overhead" -G -i "$H"
usage "flytrap overhead" -H 'sched_wakeup,pid,sched_switch,next_pid' -i "$H"
usage "flytrap overhead" --by-comm -i "$H"
usage "only one -v" -F sched_switch -v -v -F irq.* -i "$H"
usage "no event found" -F nosuchevent -i "$H"
usage "after the -i" --ts-offset 5 -i "$H"
usage "one input file" -w -i "$H" -i "$D/rpt-sched.dat"
usage "needs nanoseconds" -i "$H" --ts-offset 5x
usage "needs a clock frequency" -i "$H" --ts2secs 0
"$FLYTRAP" report -i "$H" --ts-offset -5 > /dev/null 2>&1 && ok "--ts-offset takes a negative number" ||
	fail "--ts-offset -5 refused"
"$FLYTRAP" report --help | grep -q -- "--endian" && "$FLYTRAP" report --help | grep -q -- "--printk" &&
	ok "--help names --endian and --printk" || fail "--help lacks --endian/--printk"
finish
