#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# analyze --threads 1 and --threads 2 on one file, alternating and nothing
# else in between (bench/threads.sh runs them among trace-cmd and the
# listings).  Prints each one's median wall and CPU time and the ratio,
# and checks that both print the same.
#
#   bench/threads-pair.sh [FILE] [ROUNDS]     O=build by default
#
# Without FILE: a 5,000,000-event file from tests/tools/mkrpt bench.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkrpt
rounds=${2:-15}
[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/threads-pair.sh: build $ft and $mk first" >&2; exit 2; }
work=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
f=${1:-}
if [ -z "$f" ]; then
	f=$work/b.dat
	"$mk" bench "$f" 5000000 >/dev/null
fi
"$ft" analyze --threads 1 "$f" >"$work/o1" 2>&1 || true
"$ft" analyze --threads 2 "$f" >"$work/o2" 2>&1 || true
cmp -s "$work/o1" "$work/o2" || { echo "bench/threads-pair.sh: outputs differ" >&2; exit 1; }
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$rounds"); do
	for t in 1 2; do
		/usr/bin/time -f '%e %U %S' -o "$work/t" "$ft" analyze --threads $t "$f" >/dev/null 2>&1 || true
		awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/t" >>"$work/r$t"
	done
done
med() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
w1=$(cut -d' ' -f1 "$work/r1" | med); c1=$(cut -d' ' -f2 "$work/r1" | med)
w2=$(cut -d' ' -f1 "$work/r2" | med); c2=$(cut -d' ' -f2 "$work/r2" | med)
echo "$(basename "$f"): $rounds alternating rounds, medians; load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo "| command | wall s | CPU s | ratio (wall / CPU) |"
echo "|---|---:|---:|---:|"
awk -v w1="$w1" -v c1="$c1" -v w2="$w2" -v c2="$c2" 'BEGIN {
	printf "| analyze --threads 1 | %.3f | %.3f | 1.00x |\n", w1, c1
	printf "| analyze --threads 2 | %.3f | %.3f | %.2fx / %.2fx of --threads 1 |\n", w2, c2, w1 / w2, c1 / c2
}'
