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
# Times are CPU seconds (user + sys, children included, best of 3) so that
# other load on the machine does not distort the ratio; wall times are shown
# too.  Prints a markdown table for docs/benchmarks.md.
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

cpu_time() {	# best user+sys and wall of 3 runs of "$@" > /dev/null
	local best=999999 bestw=0 i t
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S %e' -o "$work/t" "$@" > /dev/null 2>&1 || true
		t=$(tail -1 "$work/t" | awk '{printf "%.3f %.3f", $1 + $2, $3}')
		if awk -v a="${t% *}" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=${t% *}; bestw=${t#* }; fi
	done
	echo "$best $bestw"
}

trace-cmd report -i "$file" > "$work/tc.txt" 2>/dev/null
"$ft" report "$file" > "$work/ft.txt"
cmp -s "$work/tc.txt" "$work/ft.txt" || { echo "bench/report.sh: the listings differ" >&2; exit 1; }
# trace-cmd 3.1.6 crashes in tracecmd_close() after a filtered listing of
# some files, losing what stdio still buffered: line-buffered for the cmp
stdbuf -oL trace-cmd report -F "$filter" -i "$file" > "$work/tc.txt" 2>/dev/null || true
"$ft" report -F "$filter" "$file" > "$work/ft.txt"
cmp -s "$work/tc.txt" "$work/ft.txt" || { echo "bench/report.sh: the -F listings differ" >&2; exit 1; }
shown=$(($(wc -l < "$work/ft.txt") - 1))
rm -f "$work/tc.txt" "$work/ft.txt"

events=$("$ft" info --json "$file" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
read -r tc tcw < <(cpu_time trace-cmd report -i "$file")
read -r fr frw < <(cpu_time "$ft" report "$file")
read -r fd fdw < <(cpu_time "$dec" "$file")
read -r tcf tcfw < <(cpu_time trace-cmd report -F "$filter" -i "$file")
read -r frf frfw < <(cpu_time "$ft" report -F "$filter" "$file")
decode=$("$dec" "$file")

echo "file: $file ($events events, $(stat -c %s "$file") bytes; -F shows $shown)"
echo
echo "| command | CPU s | wall s | events/CPU s | vs trace-cmd report |"
echo "|---|---:|---:|---:|---:|"
awk -v n="$events" -v tc="$tc" -v tcw="$tcw" -v fr="$fr" -v frw="$frw" -v fd="$fd" -v fdw="$fdw" \
    -v tcf="$tcf" -v tcfw="$tcfw" -v frf="$frf" -v frfw="$frfw" -v flt="$filter" 'BEGIN {
	printf "| trace-cmd report | %.3f | %.3f | %.0f | 1.00x |\n", tc, tcw, n / tc
	printf "| flytrap report | %.3f | %.3f | %.0f | %.2fx faster |\n", fr, frw, n / fr, tc / fr
	printf "| decode only (tests/tools/decode_bench) | %.3f | %.3f | %.0f | %.2fx faster |\n", fd, fdw, n / fd, tc / fd
	printf "| trace-cmd report -F | %.3f | %.3f | %.0f | 1.00x |\n", tcf, tcfw, n / tcf
	printf "| flytrap report -F | %.3f | %.3f | %.0f | %.2fx faster |\n", frf, frfw, n / frf, tcf / frf
	printf "\n-F \"%s\": the speed-up with the filter is %.0f%% of the plain listing\x27s\n", flt, 100 * (tcf / frf) / (tc / fr)
}'
echo
echo "decode_bench: $decode"
