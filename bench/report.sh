#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap report vs trace-cmd report on the same file of >= 1M events, in one
# run: the listing with the default threads and with --threads 1, with the
# same -F filter (libtraceevent's filter engine in both), and the
# decode-only pass (the analyzers' path).  The outputs of each pair are
# compared (cmp) before anything is timed.
#
#   bench/report.sh [FILE [FILTER]]  (without FILE: as root, records one with
#                               a private tracefs instance and trace-cmd extract;
#                               otherwise writes a 1,200,000-event file with
#                               tests/tools/mkrpt bench; FILTER default
#                               '.*:common_pid != 0')
#
# The commands run alternately, ROUNDS times (default 5), output to
# /dev/null; each figure is the median wall time and the median CPU time
# (user + sys, children included), and the ratios are trace-cmd's median
# over flytrap's.  The load average before and after is printed: on a
# shared machine wall times follow the load, CPU times much less.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
dec=$PWD/$O/tests/tools/decode_bench
mk=$PWD/$O/tests/tools/mkrpt
work=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
file=${1:-}
filter=${2:-'.*:common_pid != 0'}

if [ -z "$file" ] && [ "$(id -u)" != 0 ]; then
	[ -x "$mk" ] || { echo "bench/report.sh: give a FILE, or build $mk" >&2; exit 2; }
	"$mk" bench "$work/bench.dat" 1200000 >/dev/null
	file=$work/bench.dat
fi
if [ -z "$file" ]; then
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

# the listing of the trace-cmd installed here: 3.1.x prints what --compat 3.1 does
ftc=
case "$(trace-cmd -h 2>&1 | sed -n 's/^trace-cmd version \([0-9]*\.[0-9]*\).*/\1/p')" in
3.1|3.0|2.*) ftc=--compat=3.1 ;;
esac

timed() {	# timed NAME CMD...: one run, "cpu wall" appended to $work/NAME
	local name=$1
	shift
	/usr/bin/time -f '%U %S %e' -o "$work/t" "$@" > /dev/null 2>&1 || true
	# a crashed trace-cmd's time file starts with "Command terminated by signal"
	tail -1 "$work/t" | awk '{printf "%.3f %.3f\n", $1 + $2, $3}' >> "$work/$name"
}
med() {	# med NAME: median CPU time, median wall time
	local c w
	c=$(cut -d' ' -f1 "$work/$1" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	w=$(cut -d' ' -f2 "$work/$1" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	echo "$c $w"
}

trace-cmd report -i "$file" > "$work/tc.txt" 2>/dev/null
"$ft" report $ftc "$file" > "$work/ft.txt"
cmp -s "$work/tc.txt" "$work/ft.txt" || { echo "bench/report.sh: the listings differ" >&2; exit 1; }
"$ft" report $ftc --threads 1 "$file" > "$work/ft.txt"
cmp -s "$work/tc.txt" "$work/ft.txt" || { echo "bench/report.sh: the --threads 1 listing differs" >&2; exit 1; }
# trace-cmd 3.1.6 crashes in tracecmd_close() after a filtered listing of
# some files, losing what stdio still buffered: line-buffered for the cmp
(stdbuf -oL trace-cmd report -F "$filter" -i "$file" > "$work/tc.txt"; :) 2>/dev/null || true
"$ft" report $ftc -F "$filter" "$file" > "$work/ft.txt"
cmp -s "$work/tc.txt" "$work/ft.txt" || { echo "bench/report.sh: the -F listings differ" >&2; exit 1; }
shown=$(($(wc -l < "$work/ft.txt") - 1))
rm -f "$work/tc.txt" "$work/ft.txt"

events=$("$ft" info --json "$file" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
rounds=${ROUNDS:-5}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$rounds"); do
	timed tc trace-cmd report -i "$file"
	timed fr "$ft" report $ftc "$file"
	timed f1 "$ft" report $ftc --threads 1 "$file"
	timed fd "$dec" "$file"
	timed tcf trace-cmd report -F "$filter" -i "$file"
	timed frf "$ft" report $ftc -F "$filter" "$file"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
read -r tc tcw < <(med tc)
read -r fr frw < <(med fr)
read -r f1 f1w < <(med f1)
read -r fd fdw < <(med fd)
read -r tcf tcfw < <(med tcf)
read -r frf frfw < <(med frf)
decode=$("$dec" "$file")

echo "file: $file ($events events, $(stat -c %s "$file") bytes; -F shows $shown); $rounds alternating" \
	"rounds, medians, output to /dev/null; $(nproc) CPUs; load average $load0 before, $load1 after"
echo
echo "| command | wall s | CPU s | events/CPU s | trace-cmd / this (wall, CPU) |"
echo "|---|---:|---:|---:|---:|"
awk -v n="$events" -v tc="$tc" -v tcw="$tcw" -v fr="$fr" -v frw="$frw" -v f1="$f1" -v f1w="$f1w" \
    -v fd="$fd" -v fdw="$fdw" -v tcf="$tcf" -v tcfw="$tcfw" -v frf="$frf" -v frfw="$frfw" -v flt="$filter" 'BEGIN {
	f = "| %s | %.3f | %.3f | %.0f | %s |\n"
	r = "%.2fx wall, %.2fx CPU"
	printf f, "trace-cmd report", tcw, tc, n / tc, "1.00x"
	printf f, "flytrap report (default threads)", frw, fr, n / fr, sprintf(r, tcw / frw, tc / fr)
	printf f, "flytrap report --threads 1", f1w, f1, n / f1, sprintf(r, tcw / f1w, tc / f1)
	printf f, "decode only (tests/tools/decode_bench)", fdw, fd, n / fd, sprintf(r, tcw / fdw, tc / fd)
	printf f, "trace-cmd report -F", tcfw, tcf, n / tcf, "1.00x"
	printf f, "flytrap report -F", frfw, frf, n / frf, sprintf(r, tcfw / frfw, tcf / frf)
	printf "\n-F \"%s\": the same filter in both\n", flt
}'
echo
echo "decode_bench: $decode"
