#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The always-on modes against a normal recording on the same load (root):
#  1. the recorder's CPU while recording: normal vs --flight vs --rotate, on a
#     paced getppid storm with raw_syscalls enter/exit (best of RUNS);
#  2. time from a trigger to the finished dump (the recorder's own measure,
#     printed on its "wrote" line), --after 0;
#  3. the window held per MB of store at the default level (end summary).
# Usage: bench/flight.sh [CALLS [RATE [RUNS]]]   (default 600000 60000 3)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
F=$TOP/$O/flytrap
STORM=$TOP/$O/tests/tools/syscall_storm
N=${1:-600000} RATE=${2:-60000} RUNS=${3:-3}
TMP=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
EV=(-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit)

cpu_of() { sed -n 's/^flytrap: recorder cost: \([0-9.]*\) s CPU while recording.*/\1/p' "$1"; }
best() { sort -g | head -1; }

run_mode() {	# name, extra options...
	local name=$1 i
	shift
	for i in $(seq "$RUNS"); do
		rm -f ./*.dat
		"$F" record "${EV[@]}" "$@" -o m.dat -- "$STORM" "$N" 1 "$RATE" >/dev/null 2>"$name.$i.err"
		cpu_of "$name.$i.err"
	done | best
}
normal=$(run_mode normal)
flight=$(run_mode flight --flight 60s)
rotate=$(run_mode rotate --rotate 8M)
echo "| mode | recorder CPU s (best of $RUNS) | vs normal |"
echo "|---|---:|---:|"
for m in normal flight rotate; do
	v=${!m}
	echo "| $m | $v | $(awk -v a="$v" -v b="$normal" 'BEGIN { printf "%.2fx", a / b }') |"
done
grep -h 'flight recorder: held' flight.*.err | head -1

# trigger -> finished file, with 30 s of this load in the window
rm -f ./*.dat
"$F" record "${EV[@]}" --flight 60s --after 0 -o t.dat 2>trig.err &
rp=$!
sleep 1
"$STORM" $((RATE * 30)) 1 "$RATE" >/dev/null
for i in 1 2 3; do kill -USR1 $rp; sleep 3; done
kill -INT $rp
wait $rp
echo
echo "trigger to finished file (ms), 3 dumps of a 30 s window:"
sed -n "s/^flytrap: wrote '\(.*\)': \(.*\) of data, \(.*\) MB;.*(\([0-9]*\) ms)$/  \1: \2, \3 MB, \4 ms/p" trig.err
