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
# A filter that names no event stored in the file makes trace-cmd die
# (exit 255, nothing on stdout) and flytrap exit 2 with one line: compared
# as a refusal by both.  flytrap's own --pid and --from/--to have no
# trace-cmd spelling: --pid is compared with trace-cmd's common_pid filter,
# --from/--to with the lines of trace-cmd's listing whose times fall in.
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
# a signal (bash's 128+N); trace-cmd's die() exits 255, which is a refusal
by_signal() { [ "$1" -gt 128 ] && [ "$1" -lt 192 ]; }
crashed=0 compared=0 lines=0 refused=0
# compare_as LABEL: trace-cmd report "${tca[@]}" against flytrap report
# "${fta[@]}"; the same output, and flytrap fails exactly where trace-cmd
# refuses (a filter naming no event of the file: trace-cmd dies, exit 255,
# nothing on stdout; flytrap says so in one line, exit 2)
compare_as() {
	local label=$1 k ft_rc n crashed_now=0
	tc_run "${tca[@]}"
	if by_signal $tc_rc; then
		# trace-cmd 3.1.6 crashes in tracecmd_close() after some filtered
		# listings, losing what stdio buffered: the lines it printed count
		crashed=$((crashed + 1)) crashed_now=1
		stdbuf -oL trace-cmd report "${tca[@]}" > "$TMP/tc.txt" 2>"$TMP/tc.err"
		tc_rc=0
	fi
	"$FLYTRAP" report "${fta[@]}" > "$TMP/ft.txt" 2>"$TMP/ft.err"
	ft_rc=$?
	for k in 1 2; do
		cmp -s "$TMP/tc.txt" "$TMP/ft.txt" && break
		[ $crashed_now = 1 ] && break
		tc_run "${tca[@]}"
	done
	n=$(wc -l < "$TMP/tc.txt")
	if ! cmp -s "$TMP/tc.txt" "$TMP/ft.txt"; then
		fail "$label: flytrap report ${fta[*]} differs from trace-cmd report ${tca[*]} (exit $tc_rc/$ft_rc, $(diff "$TMP/tc.txt" "$TMP/ft.txt" | grep -c '^[<>]') lines of $n): $(head -c 200 "$TMP/ft.err")"
		diff "$TMP/tc.txt" "$TMP/ft.txt" | head -4
	elif [ $tc_rc = 0 ] && [ $ft_rc != 0 ]; then
		fail "$label: flytrap report ${fta[*]} printed the same but exited $ft_rc: $(head -c 200 "$TMP/ft.err")"
	elif [ $tc_rc != 0 ] && [ $ft_rc = 0 ]; then
		fail "$label: trace-cmd report ${tca[*]} refused (exit $tc_rc: $(head -c 100 "$TMP/tc.err")), flytrap exited 0"
	elif [ $tc_rc != 0 ] && { [ $ft_rc != 2 ] || [ "$(wc -l < "$TMP/ft.err")" != 1 ]; }; then
		fail "$label: flytrap report ${fta[*]} refused with exit $ft_rc (want 2 and one line): $(head -c 200 "$TMP/ft.err")"
	else
		compared=$((compared + 1))
		lines=$((lines + n))
		[ $tc_rc != 0 ] && refused=$((refused + 1))
	fi
	return 0
}
compare() {	# compare LABEL ARGS...: the same arguments to both
	local label=$1
	shift
	tca=("$@") fta=("$@")
	compare_as "$label"
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
	# light (the sanitizer run): three of more_files (stacks, drops, graph calls) take every
	# option and the --cpu and --pid runs below, the others -R and one filter
	more=$more_files all=1
	light && set -- "-R" "-F '.*' -v -F '.*:common_pid==0'" &&
		more=" rpt-stacks.dat rpt-drops.dat lab-function-graph.dat " all=0
	case "$more" in *" $name "*) set -- "${opts[@]}" "${more_opts[@]}"; all=1 ;; esac
	for o in "$@"; do
		eval "set -- $o"
		compare "$name" "$@" -i "$f"
	done
	nbuf=$("$FLYTRAP" info --json "$f" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["buffers"]))')
	if [ "$nbuf" = 1 ] && [ $all = 1 ]; then
		compare "$name" -R --cpu 1 -i "$f"
		compare "$name" --cpu 0 -F '.*:common_pid!=0' -i "$f"
		# repeated, the lists add up (flytrap kept only the last one before)
		case "$more_files" in *" $name "*) compare "$name" --cpu 1 --cpu 0 -i "$f" ;; esac
	fi
	# flytrap's --pid keeps, after the -F filters, the events whose
	# common_pid is one of its pids: trace-cmd says that in the filter
	pids=
	[ $all = 1 ] && pids=$("$FLYTRAP" report --json "$f" 2>/dev/null | python3 -c '
import json, sys
seen = []
for l in sys.stdin:
    p = json.loads(l).get("pid")
    if p and p not in seen:
        seen.append(p)
        if len(seen) == 2: break
print(*seen)')
	if [ -n "$pids" ] && [ $all = 1 ]; then
		set -- $pids
		p=$1 q=${2:-$1}
		tca=(-F ".*:common_pid==$p" -i "$f") fta=(--pid "$p" -i "$f")
		compare_as "$name"
		tca=(-F ".*:common_pid==$p||common_pid==$q" -i "$f") fta=(-F '.*' --pid "$p,$q" -i "$f")
		compare_as "$name"
		tca=(-F "sched_switch:common_pid==$p" -i "$f") fta=(-F sched_switch -P "$p" -i "$f")
		compare_as "$name"
		tca=(-F ".*:common_pid==$p" -v -F sched_switch -i "$f")
		fta=(-F '.*' -v -F sched_switch --pid "$p" -i "$f")
		compare_as "$name"
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
ok "single files: $compared runs identical ($lines lines), $crashed of them where trace-cmd crashed at its end, $refused where both refused the filter"

# several -i: merged in time order with the per-file prefixes; --ts-offset
# and -F belong to the -i before them (trace-cmd drops them after the first)
D=$TOP/tests/data
H=$FIXTURES/hebel23+driver__trace.dat
compared=0 lines=0 crashed=0 refused=0
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
ok "several -i: $compared runs identical ($lines lines), $crashed of them where trace-cmd crashed at its end, $refused where both refused the filter"
# flytrap's --from/--to take the times as printed, after the offsets: the
# offset here moves rpt-drops.dat's events (20.000 s on) in between
# rpt-sched.dat's (10.000 s on), and the window is cut from trace-cmd's
# merged listing by the times its lines show (a loss marker line goes with
# the event line after it)
window() {	# window FROM TO [-t]: flytrap's window against trace-cmd's lines
	local from=$1 to=$2
	shift 2
	trace-cmd report -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --ts-offset -9980000000 "$@" |
	python3 -c '
import re, sys
lo, hi = float(sys.argv[1]), float(sys.argv[2])
held = ""
for line in sys.stdin:
    if line.endswith("EVENTS DROPPED]\n"):
        held = line
        continue
    m = re.search(r"\] +([0-9]+\.[0-9]+): ", line)
    if m is None or lo <= float(m.group(1)) <= hi:
        sys.stdout.write(held + line)
    held = ""' "$from" "$to" > "$TMP/want.txt"
	"$FLYTRAP" report -i "$D/rpt-sched.dat" -i "$D/rpt-drops.dat" --ts-offset -9980000000 "$@" \
		--from "$from" --to "$to" > "$TMP/win.txt"
	if cmp -s "$TMP/want.txt" "$TMP/win.txt" && grep -q '^rpt-sched.dat: .*\]' "$TMP/win.txt" &&
		grep -q '^rpt-drops.dat: .*\]' "$TMP/win.txt"; then
		ok "--from $from --to $to${*:+ $*} selects the merged lines by the times they show ($(($(wc -l < "$TMP/win.txt") - 2)) lines of both files)"
	else
		fail "--from $from --to $to${*:+ $*} on merged files: $(diff "$TMP/want.txt" "$TMP/win.txt" | head -3)"
	fi
}
window 10.015 10.05
window 10.1 10.2
window 10.020000001 10.121 -t

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
usage "no event 'nosuchevent' in" -F nosuchevent -i "$H"
usage "no event 'sched_wakeup' in" -F 'sched_switch, sched_wakeup:prev_pid==1' -i "$D/rpt-sched.dat"
usage "syntax error (read up to '==')" -F 'sched_switch:==1' -i "$D/rpt-sched.dat"
usage "RegEx '\[' did not compute" -F 'sched_switch:prev_comm=~"["' -i "$D/rpt-sched.dat"
# libtraceevent 1.7.1's parser dereferences NULL on these (trace-cmd dies of it)
usage "filter parser crashes on it" -F 'sched_switch:prev_pid==' -i "$D/rpt-sched.dat"
usage "filter parser crashes on it" -F '.*:common_pid==1||' -i "$D/rpt-sched.dat"
usage "after the -i" --ts-offset 5 -i "$H"
usage "one input file" -w -i "$H" -i "$D/rpt-sched.dat"
usage "needs nanoseconds" -i "$H" --ts-offset 5x
usage "needs a clock frequency" -i "$H" --ts2secs 0
"$FLYTRAP" report -i "$H" --ts-offset -5 > /dev/null 2>&1 && ok "--ts-offset takes a negative number" ||
	fail "--ts-offset -5 refused"
"$FLYTRAP" report --help | grep -q -- "--endian" && "$FLYTRAP" report --help | grep -q -- "--printk" &&
	ok "--help names --endian and --printk" || fail "--help lacks --endian/--printk"
finish
