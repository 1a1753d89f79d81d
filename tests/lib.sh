# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the scripted tests.  Source it: . "$TOP/tests/lib.sh"
set -u
: "${O:=build}"
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${FLYTRAP:=$TOP/$O/flytrap}"
# flytrap report prints trace-cmd 3.3.1's listing by default (the flags
# column); the tests written against Debian 12's trace-cmd 3.1.6, the one on
# this machine, compare its listing.  tests/compat runs both (tests/tc33.sh).
export FLYTRAP_REPORT_COMPAT=${FLYTRAP_REPORT_COMPAT:-3.1}
FIXTURES=${FIXTURES:-$TOP/../shared/fixtures}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
TMP=$(mktemp -d /tmp/flytrap-test.XXXXXX)
BUSY_PIDS=
trap 'busy_stop; rm -rf "$TMP"' EXIT

# Background activity on every CPU: a loop of 10 ms sleeps per CPU gives
# context switches and syscalls all the time, so that a system-wide
# recording of a quiet machine (a CI container is one) is never empty.
# Stopped by busy_stop, or at exit; and each loop ends by itself once the
# test that started it is gone, so a test that replaces the EXIT trap or is
# killed leaves none of them running (tests/run fails a test that does).
busy_start() {
	local c n
	n=$(getconf _NPROCESSORS_ONLN)
	for c in $(seq 0 $((n - 1))); do
		taskset -c "$c" bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 0.01; done' busy "$$" \
			>/dev/null 2>&1 &
		BUSY_PIDS="$BUSY_PIDS $!"
	done
}
busy_stop() {
	[ -n "$BUSY_PIDS" ] || return 0
	# shellcheck disable=SC2086
	kill $BUSY_PIDS 2>/dev/null
	# shellcheck disable=SC2086
	wait $BUSY_PIDS 2>/dev/null
	BUSY_PIDS=
	return 0
}

fails=0
skip() { echo "SKIP: $*"; exit 77; }
# light: true in the sanitizer run (FLYTRAP_TEST_LIGHT=1, set by check-offline with SAN=1), where
# every process costs some 3x: tests that repeat one check over many files or windows do fewer
# rounds there, each code path still once.
light() { [ "${FLYTRAP_TEST_LIGHT:-0}" = 1 ]; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# wait_line FILE PATTERN [TENTHS]: wait (default 20 s) until FILE has a line matching PATTERN
wait_line() {
	local i
	for i in $(seq "${3:-200}"); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
# end of a test script: exit non-zero if any check failed
finish() { if [ "$fails" -gt 0 ]; then echo "$fails check(s) failed"; exit 1; fi; echo "all checks passed"; exit 0; }

need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "'$1' is not installed"; }
need_tracefs() {
	need_root
	if [ ! -e "$TRACEFS/instances" ]; then
		mount -t tracefs nodev "$TRACEFS" 2>/dev/null || skip "tracefs is not mounted and cannot be mounted at $TRACEFS"
	fi
	[ -e "$TRACEFS/instances" ] || skip "no tracefs instances at $TRACEFS"
}
# tc_stable OUT ARGS...: `trace-cmd report ARGS` into OUT, a listing two
# runs agree on.  trace-cmd 3.1.6 reads the empty TRACECLOCK option of old
# v6 writers from uninitialised memory and now and then (about 1 run in 40)
# prints raw nanoseconds instead of seconds; an oracle that flips makes a
# test flaky, so a listing counts once it comes out the same twice (at most
# 5 runs).  The exit status is trace-cmd's.
tc_stable() { stable_report "$1" trace-cmd "${@:2}"; }
# stable_report OUT CMD ARGS...: `CMD report ARGS` into OUT, run again until two runs agree
# (at most 5); its exit status.  CMD is trace-cmd, or tc33 (tests/tc33.sh) for 3.3.1.
stable_report() {
	local out=$1 cmd=$2 k rc
	shift 2
	"$cmd" report "$@" > "$out" 2>/dev/null
	rc=$?
	for k in 1 2 3 4; do
		"$cmd" report "$@" > "$out.again" 2>/dev/null
		rc=$?
		if cmp -s "$out" "$out.again"; then break; fi
		mv "$out.again" "$out"
	done
	rm -f "$out.again"
	return $rc
}
# trace-cmd extract switches the top level's tracing_on off and back on
# around its read, even with -B.  Two at once (the offline tests run in
# parallel) can leave it off: the second saves the 0 the first wrote and
# restores that.  A lock on the tracefs directory makes them take turns.
tc_extract() { flock "$TRACEFS" trace-cmd extract "$@"; }
# cg_json_total FILE NAME [UNDER]: the summed weight (total) of the nodes named NAME in the tree
# of callgraph --json's FILE, only those under a node named UNDER when given (needs jq)
cg_json_total() {
	if [ -n "${3:-}" ]; then
		jq --arg n "$2" --arg u "$3" '[.tree | .. | objects | select(.name? == $u)
			| .. | objects | select(.name? == $n) | .total] | add // 0' "$1"
	else
		jq --arg n "$2" '[.tree | .. | objects | select(.name? == $n) | .total] | add // 0' "$1"
	fi
}
need_fixtures() { [ -d "$FIXTURES" ] || skip "fixtures folder $FIXTURES is missing"; }
# chunk1_copies DIR FILE...: each FILE that exists converted to one page per chunk (many chunks
# to seek in and cut at) as DIR/its name; prints how many were
chunk1_copies() {
	local dir=$1 f n=0
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		"$FLYTRAP" convert --chunk 1 "$f" -o "$dir/$(basename "$f")" 2>/dev/null && n=$((n + 1))
	done
	echo $n
}
# window_files DIR MKRPT: the files the window and range tests read, in DIR: mkrpt's names
# (200,000 events: tasks renamed, pids reused, losses on both CPUs) and bench (300,000), a
# big-endian names file with one page per chunk (names-be-c1.dat), and the shipped files and
# fixtures with one page per chunk; prints how many of those were converted
window_files() {
	local dir=$1 mk=$2
	mkdir -p "$dir"
	"$mk" names "$dir/names.dat" 200000 >/dev/null || fail "mkrpt names"
	"$mk" bench "$dir/bench.dat" 300000 >/dev/null || fail "mkrpt bench"
	MKRPT_BIG_ENDIAN=1 "$mk" names "$TMP/names-be.dat" 40000 >/dev/null || fail "mkrpt names (big-endian)"
	"$FLYTRAP" convert --chunk 1 "$TMP/names-be.dat" -o "$dir/names-be-c1.dat" 2>/dev/null ||
		fail "convert --chunk 1 names-be.dat"
	chunk1_copies "$dir" "$TOP"/tests/data/*.dat "${FIXTURES:-$TOP/../shared/fixtures}"/*.dat
}

# What a recorder may touch in tracefs, as text, for before/after comparisons.
tracefs_snapshot() {
	local t=$TRACEFS f
	echo "instances: $(ls "$t/instances" 2>/dev/null | tr '\n' ' ')"
	for f in set_event uprobe_events kprobe_events dynamic_events tracing_on trace_clock \
		buffer_size_kb current_tracer set_ftrace_filter set_ftrace_notrace set_graph_function \
		trace_options tracing_cpumask set_event_pid; do
		[ -r "$t/$f" ] && { echo "== $f"; cat "$t/$f" 2>/dev/null | head -200; }
	done
	echo "== enabled events"
	grep -l 1 "$t"/events/*/enable 2>/dev/null
	grep -lv '^none' "$t"/events/*/*/filter 2>/dev/null | head -50
	true
}
