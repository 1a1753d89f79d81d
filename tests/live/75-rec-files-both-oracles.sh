#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every kind of file the recorder writes on this machine is read whole by both
# trace-cmd versions people run (issue 32, item 2): Debian 13's 3.3.1 (from
# the cached Debian 13 root of tests/tc33.sh; SKIP when it cannot be had) and
# Debian 12's 3.1.6 (installed).  tests/compat/15 covers what convert, slice,
# merge and redact write from shipped files; this covers what `record` writes:
#  - a plain recording (-e sched -e raw_syscalls -d 1),
#  - one with BPF and symbols (the demo's --bpf syscalls,offcpu,profile --symbols),
#  - a flight recorder's dump (--flight 16M, `flytrap trigger PID`, then Ctrl-C),
#    of -e sched -e irq (the system calls of the others would only add bulk),
#  - every segment of a rotation (--rotate 1M under tests/tools/syscall_storm),
#  - what `flytrap recover` makes after a kill -9 (with the pages reset saved:
#    the first is marked as following lost events), -e sched -e irq too.
# For each file and each of the default listing and -R: trace-cmd 3.3.1 exits 0,
# prints no error line, lists every event the file holds (flytrap info's count)
# and prints exactly `flytrap report F`; trace-cmd 3.1.6 the same against
# `FLYTRAP_REPORT_COMPAT=3.1 flytrap report F`.
#
# libtraceevent prints some events of live recordings from uninitialised memory
# now and then: each oracle's listing is taken once two runs agree
# (stable_report, tests/lib.sh).  Found with this test: flytrap's offcpu and
# profile events print ucopy_len with __get_dynamic_array_len(), which the
# compiled formats did not take, so the default listing printed their stacks
# as libtraceevent 1.7 does (decimal) where 3.3.1 prints {0x..}.
#
# A file an oracle disagrees on is kept, with both listings and their diff, in
# $O/test-logs/75-rec-files-both-oracles/ (named in the failure message).
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
need_cmd python3
. "$TOP/tests/tc33.sh"
tc33_need
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
KEEP=$TOP/$O/test-logs/75-rec-files-both-oracles
rm -rf "$KEEP"
cd "$TMP" || exit 1

recs=() storm=
storm_stop() {
	[ -n "$storm" ] || return 0
	pkill -P "$storm"
	kill "$storm"
	wait "$storm"
	storm=
} 2>/dev/null
# a recorder this test started and still running ends as Ctrl-C ends it
recs_stop() {
	local p
	for p in "${recs[@]}"; do
		kill -0 "$p" 2>/dev/null || continue
		kill -INT "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	recs=()
}
trap 'recs_stop; storm_stop; busy_stop; rm -rf "$TMP"' EXIT


# keep NAME FILE...: keep what explains a failure past the test's end
keep() {
	local name=$1
	shift
	mkdir -p "$KEEP/$name" && cp -p "$@" "$KEEP/$name/" 2>/dev/null
}

# ---- comparing one file with both oracles ------------------------------------------
# tc33_err and tc31_err: the oracles with every run's stderr added to $TMP/oracle.err
tc33_err() { tc33 "$@" 2>>"$TMP/oracle.err"; }
tc31_err() { trace-cmd "$@" 2>>"$TMP/oracle.err"; }

files=0 listings=0 want=
# event lines of a listing: "TASK-PID [CPU] " ("[CPU]-0x0 " under -R of 3.3.1, the
# flags raw)
count_events() { grep -cE -- '-[0-9]+ +\[[0-9]{3}\]( |-0x)' "$1"; }
# agree LABEL FILE VERSION [-R]: trace-cmd VERSION (3.3.1 or 3.1.6) reads FILE
# whole and prints what flytrap's listing for that version prints.  A first
# run of the oracle that prints flytrap's listing byte for byte is that
# listing; one that differs is run again until two runs agree (stable_report),
# so that what libtraceevent printed from uninitialised memory once does not count
agree() {
	local label=$1 f=$2 v=$3 raw=("${@:4}") o rc n name tc=tc31_err
	o=$TMP/cmp
	: >"$TMP/oracle.err"
	if [ "$v" = 3.3.1 ]; then
		tc=tc33_err
		env -u FLYTRAP_REPORT_COMPAT "$FLYTRAP" report "${raw[@]}" "$f" >"$o.ft" 2>"$o.fterr"
	else
		FLYTRAP_REPORT_COMPAT=3.1 "$FLYTRAP" report "${raw[@]}" "$f" >"$o.ft" 2>"$o.fterr"
	fi
	rc=$?
	"$tc" report "${raw[@]}" -i "$f" >"$o.tc"
	[ $? = 0 ] && cmp -s "$o.tc" "$o.ft" || stable_report "$o.tc" "$tc" "${raw[@]}" -i "$f"
	local tcrc=$? what="$label${raw[*]:+ ${raw[*]}}: trace-cmd $v"
	name=$(basename "$f" .dat)-$v${raw[*]:+-raw}
	n=$(count_events "$o.tc")
	if [ $rc != 0 ]; then
		fail "$what: flytrap report exits $rc: $(head -c 200 "$o.fterr")"
	elif [ $tcrc != 0 ] || [ -s "$TMP/oracle.err" ]; then
		keep "$name" "$f" "$TMP/oracle.err"
		fail "$what exits $tcrc: $(head -n 3 "$TMP/oracle.err" | cut -c1-200 | tr '\n' ' ')" \
			"(kept in $KEEP/$name)"
	elif [ "$n" != "${want:-?}" ]; then
		keep "$name" "$f" "$o.tc"
		fail "$what lists $n events of the ${want:-?} the file holds (kept in $KEEP/$name)"
	elif ! cmp -s "$o.tc" "$o.ft"; then
		diff "$o.tc" "$o.ft" >"$o.diff"
		keep "$name" "$f" "$o.tc" "$o.ft" "$o.diff"
		fail "$what and flytrap differ on $(grep -c '^[<>]' "$o.diff") lines of" \
			"$(wc -l <"$o.tc") (kept in $KEEP/$name):"
		head -n 6 "$o.diff" | cut -c1-240
	else
		listings=$((listings + 1))
		return 0
	fi
	return 1
}

# both LABEL FILE: FILE against both oracles, the default listing and -R
both() {
	local label=$1 f=$2 ok=1 v
	files=$((files + 1))
	if [ ! -s "$f" ]; then
		fail "$label: no file $f"
		return
	fi
	want=$("$FLYTRAP" info --json "$f" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])' 2>/dev/null)
	for v in 3.3.1 3.1.6; do
		agree "$label" "$f" $v || ok=0
		agree "$label" "$f" $v -R || ok=0
	done
	[ $ok = 1 ] && ok "$label ($(basename "$f"), $want events): trace-cmd 3.3.1 and 3.1.6" \
		"read it whole, listings and -R equal"
}

# ---- a dead recorder's leftovers -------------------------------------------------
# flytrap reset handles every dead recorder's leftovers, those of another test
# running beside this one too (other worktrees' live tests share the kernel):
# it runs once its dry run lists what recorder PID left and nothing else
# (waiting up to 10 s for another test to finish its own reset).  Where others'
# stay, PID's instance and output lock are removed here instead (its kernel
# pages are then lost to recover, which still finishes the file).
reset_own() {
	local pid=$1 others l
	for _ in $(seq 20); do
		"$FLYTRAP" reset -n >reset-n.out 2>&1
		others=$(grep -vE "flytrap[-_]$pid([/ ]|$)|recorder $pid |'$TMP/" reset-n.out)
		[ -z "$others" ] && break
		sleep 0.5
	done
	if [ -n "$others" ]; then
		echo "note: another recorder's leftovers are there, so no reset: $others"
		echo 0 >"$TRACEFS/instances/flytrap-$pid/tracing_on" 2>/dev/null
		rmdir "$TRACEFS/instances/flytrap-$pid" 2>/dev/null
		for l in /run/flytrap/lock-*; do
			grep -qsx "pid=$pid" "$l" && rm -f "$l"
		done
		return 0
	fi
	"$FLYTRAP" reset >reset.out 2>&1 || fail "reset failed: $(cat reset.out)"
	grep -q "^saved [0-9]* pages\? left in instance flytrap-$pid " reset.out ||
		echo "note: reset saved no pages of flytrap-$pid: $(cat reset.out)"
}

# rec_done PID STATUS: a recorder of this test ended; one that did not end well
# (killed, or a sanitizer's report) leaves nothing behind: its instance, output
# lock and run note go (recover finishes its file, which drops the note)
rec_done() {
	local pid=$1 out
	recs=()
	[ "$2" = 0 ] && return 0
	[ -e "$TRACEFS/instances/flytrap-$pid" ] || [ -e "/run/flytrap/record-$pid" ] || return 0
	out=$(sed -n 's/^output=//p' "/run/flytrap/record-$pid" 2>/dev/null)
	reset_own "$pid"
	[ -z "$out" ] || "$FLYTRAP" recover "$out" >/dev/null 2>&1
	[ ! -e "/run/flytrap/record-$pid" ] || rm -f "/run/flytrap/record-$pid"
	return 0
}

# record_fg ERR ARGS...: `flytrap record ARGS` (stderr in ERR), its exit status
record_fg() {
	local err=$1 pid rc
	shift
	"$FLYTRAP" record "$@" >/dev/null 2>"$err" &
	pid=$!
	recs+=("$pid")
	wait "$pid"
	rc=$?
	rec_done "$pid" $rc
	return $rc
}

busy_start	# a quiet machine (a CI container) still has events to record

# ---- a plain recording -------------------------------------------------------------
if record_fg plain.err -e sched -e raw_syscalls -d 1 -o plain.dat; then
	both "plain recording" plain.dat
else
	fail "record -e sched -e raw_syscalls failed: $(tail -n 2 plain.err)"
fi

# ---- BPF and symbols (the README's demo) -------------------------------------------
# a kernel that refuses the programs gets a recording without them (a warning); a
# recorder that fails (a sanitizer's report, say) is a failure
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "note: no kernel BTF (/sys/kernel/btf/vmlinux): the BPF recording is left out"
elif record_fg bpf.err --bpf syscalls,offcpu,profile --symbols -d 1 -o bpf.dat; then
	grep -q 'BPF programs not loaded' bpf.err &&
		echo "note: the kernel refuses the BPF programs: $(grep -m1 'not loaded' bpf.err)"
	both "BPF recording with symbols" bpf.dat
	# the events that sent the default listing to libtraceevent 1.7 before
	line=$(env -u FLYTRAP_REPORT_COMPAT "$FLYTRAP" report bpf.dat 2>/dev/null |
		grep -m1 ' offcpu: .* kstack=')
	if [ -z "$line" ]; then
		echo "note: no offcpu event was recorded"
	elif [[ $line = *" kstack={0x"* ]]; then
		ok "the default listing prints offcpu's stacks as 3.3.1 does ({0x..})"
	else
		fail "offcpu's stack is not printed {0x..}: $(cut -c1-200 <<<"$line")"
	fi
else
	fail "record --bpf syscalls,offcpu,profile --symbols failed: $(tail -n 2 bpf.err)"
fi

# ---- a flight recorder's dump ------------------------------------------------------
# sched and irq: every event kind of the plain recording but its bulk, the system
# calls, which the plain and rotation files list already
"$FLYTRAP" record --flight 16M -e sched -e irq -o fl.dat 2>fl.err &
rec=$!
recs+=("$rec")
if ! wait_line fl.err '^flytrap: recording'; then
	fail "the flight recorder did not start: $(tail -n 2 fl.err)"
else
	sleep 1
	"$FLYTRAP" trigger "$rec" >trig.out 2>&1 || fail "flytrap trigger $rec: $(cat trig.out)"
	wait_line fl.err "wrote 'fl-0001.dat'" || fail "no dump after the trigger: $(tail -n 2 fl.err)"
fi
kill -INT "$rec"
wait "$rec"
rc=$?
rec_done "$rec" $rc
[ $rc = 0 ] || fail "the flight recorder exits $rc after Ctrl-C: $(tail -n 2 fl.err)"
[ -e fl-0001.dat ] && both "flight recorder dump" fl-0001.dat

# ---- rotation under a syscall load -------------------------------------------------
# the load is paced: its calls compress well, and on a busy machine (this one is
# shared) an unpaced one writes dozens of files.  The recording stops once the
# first file is written, so there are two: a full one and the rest at Ctrl-C.
"$STORM" 100000000 1 40000 >/dev/null &
storm=$!
"$FLYTRAP" record -e sched -e raw_syscalls --rotate 1M -o rot.dat >/dev/null 2>rot.err &
rec=$!
recs+=("$rec")
wait_line rot.err "wrote 'rot-0001.dat'" || fail "no rotation in 20 s: $(tail -n 2 rot.err)"
kill -INT "$rec"
wait "$rec"
rc=$?
rec_done "$rec" $rc
storm_stop
[ $rc = 0 ] || fail "the rotating recorder exits $rc after Ctrl-C: $(tail -n 2 rot.err)"
segs=(rot-[0-9]*.dat)
[ -e "${segs[0]}" ] || segs=()
[ ${#segs[@]} -ge 2 ] && ok "rotation wrote ${#segs[@]} files" ||
	fail "rotation wrote ${#segs[@]} file(s): $(tail -n 2 rot.err)"
for f in "${segs[@]}"; do
	both "rotation segment" "$f"
done

# ---- recover after kill -9 ---------------------------------------------------------
"$FLYTRAP" record -e sched -e irq -o killed.dat 2>killed.err &
rec=$!
recs+=("$rec")
if wait_line killed.err '^flytrap: recording'; then
	# longer than the recorder's 250 ms flush: the spools hold chunks it read
	sleep 1
	kill -9 "$rec"
	wait "$rec" 2>/dev/null
	recs=()
	reset_own "$rec"
	[ ! -e "$TRACEFS/instances/flytrap-$rec" ] || fail "reset left instance flytrap-$rec"
	if "$FLYTRAP" recover killed.dat >recover.out 2>&1; then
		both "recovered after kill -9" killed.dat
	else
		fail "recover failed: $(cat recover.out)"
	fi
else
	fail "the recorder to kill did not start: $(tail -n 2 killed.err)"
	kill -INT "$rec"
	wait "$rec"
	rec_done "$rec" $?
fi
busy_stop

echo "files read by both trace-cmd versions: $files; listings equal: $listings; $SECONDS s"
finish
