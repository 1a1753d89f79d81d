#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap report vs trace-cmd report on the same file of >= 1M events, plain
# and with the same -F filter (libtraceevent's filter engine in both), and
# the decode-only pass (the analyzers' path), in one run.  The outputs of
# each pair are compared (cmp) before anything is timed.
#
#   bench/report.sh [FILE [FILTER]]  (without FILE, as root: records one with
#                               a private tracefs instance and trace-cmd extract;
#                               FILTER default '.*:common_pid != 0')
#
# Times are CPU seconds (user + sys, children included) so that other load
# on the machine distorts the ratio less: on a shared machine (2 cores, other
# jobs) one command's CPU time still moves 20-30% from run to run (caches,
# frequency, the sibling hyperthread), hence the rounds below.  Wall times are
# shown too.  Prints a markdown table for docs/benchmarks.md.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
dec=$PWD/$O/tests/tools/decode_bench
work=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
file=${1:-}
filter=${2:-'.*:common_pid != 0'}

if [ -z "$file" ]; then
	[ "$(id -u)" = 0 ] || { echo "bench/report.sh: give a FILE, or run as root to record one" >&2; exit 2; }
	T=/sys/kernel/tracing; I=$T/instances/flytrap-bench-$$
	mkdir "$I"
	echo 131072 > "$I/buffer_size_kb"
	echo 1 > "$I/events/raw_syscalls/enable"
	echo 1 > "$I/events/sched/sched_switch/enable"
	python3 -c 'import os,time
t=time.time()
while time.time()-t < 2.5: os.getppid()'
	echo 0 > "$I/tracing_on"
	trace-cmd extract -B "flytrap-bench-$$" -o "$work/bench.dat" > /dev/null 2>&1
	[ -d "$I" ] && rmdir "$I"
	file=$work/bench.dat
fi

# The five commands are timed round-robin, ROUNDS times (default 7), so a
# burst of load from other work falls on all of them alike; each figure is
# the command's least CPU time (the run least disturbed) and its median.
timed() {	# timed NAME CMD...: one run, "cpu wall" appended to $work/NAME
	local name=$1
	shift
	/usr/bin/time -f '%U %S %e' -o "$work/t" "$@" > /dev/null 2>&1 || true
	# a crashed trace-cmd's time file starts with "Command terminated by signal"
	tail -1 "$work/t" | awk '{printf "%.3f %.3f\n", $1 + $2, $3}' >> "$work/$name"
}
best() {	# best NAME: least CPU time, its wall time, median CPU time
	sort -n "$work/$1" | awk '{c[NR] = $1; w[NR] = $2} END {
		m = NR % 2 ? c[(NR + 1) / 2] : (c[NR / 2] + c[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f\n", c[1], w[1], m }'
}

trace-cmd report -i "$file" > "$work/tc.txt" 2>/dev/null
"$ft" report "$file" > "$work/ft.txt"
cmp -s "$work/tc.txt" "$work/ft.txt" || { echo "bench/report.sh: the listings differ" >&2; exit 1; }
# trace-cmd 3.1.6 crashes in tracecmd_close() after a filtered listing of
# some files, losing what stdio still buffered: line-buffered for the cmp
(stdbuf -oL trace-cmd report -F "$filter" -i "$file" > "$work/tc.txt"; :) 2>/dev/null || true
"$ft" report -F "$filter" "$file" > "$work/ft.txt"
cmp -s "$work/tc.txt" "$work/ft.txt" || { echo "bench/report.sh: the -F listings differ" >&2; exit 1; }
shown=$(($(wc -l < "$work/ft.txt") - 1))
rm -f "$work/tc.txt" "$work/ft.txt"

events=$("$ft" info --json "$file" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
rounds=${ROUNDS:-7}
for i in $(seq "$rounds"); do
	timed tc trace-cmd report -i "$file"
	timed fr "$ft" report "$file"
	timed fd "$dec" "$file"
	timed tcf trace-cmd report -F "$filter" -i "$file"
	timed frf "$ft" report -F "$filter" "$file"
done
read -r tc tcw tcm < <(best tc)
read -r fr frw frm < <(best fr)
read -r fd fdw fdm < <(best fd)
read -r tcf tcfw tcfm < <(best tcf)
read -r frf frfw frfm < <(best frf)
decode=$("$dec" "$file")

echo "file: $file ($events events, $(stat -c %s "$file") bytes; -F shows $shown); $rounds rounds"
echo
echo "| command | CPU s (least) | wall s | CPU s (median) | events/CPU s | vs trace-cmd report (least / median) |"
echo "|---|---:|---:|---:|---:|---:|"
awk -v n="$events" -v tc="$tc" -v tcw="$tcw" -v tcm="$tcm" -v fr="$fr" -v frw="$frw" -v frm="$frm" \
    -v fd="$fd" -v fdw="$fdw" -v fdm="$fdm" -v tcf="$tcf" -v tcfw="$tcfw" -v tcfm="$tcfm" \
    -v frf="$frf" -v frfw="$frfw" -v frfm="$frfm" -v flt="$filter" 'BEGIN {
	f = "| %s | %.3f | %.3f | %.3f | %.0f | %s |\n"
	printf f, "trace-cmd report", tc, tcw, tcm, n / tc, "1.00x"
	printf f, "flytrap report", fr, frw, frm, n / fr, sprintf("%.2fx / %.2fx faster", tc / fr, tcm / frm)
	printf f, "decode only (tests/tools/decode_bench)", fd, fdw, fdm, n / fd,
		sprintf("%.2fx / %.2fx faster", tc / fd, tcm / fdm)
	printf f, "trace-cmd report -F", tcf, tcfw, tcfm, n / tcf, "1.00x"
	printf f, "flytrap report -F", frf, frfw, frfm, n / frf,
		sprintf("%.2fx / %.2fx faster", tcf / frf, tcfm / frfm)
	printf "\n-F \"%s\": the speed-up with the filter is %.0f%% (least CPU times) / %.0f%% (medians) of the plain listing\x27s\n",
		flt, 100 * (tcf / frf) / (tc / fr), 100 * (tcfm / frfm) / (tcm / frm)
}'
echo
echo "decode_bench: $decode"
