#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What slice --from/--to costs, with the time index and without it.
#
#   bench/slice.sh [N] [ROUNDS]      O=build by default; N events (5,000,000)
#
# On an N-event file from tests/tools/mkrpt names without call records
# (MKRPT_NO_CALLS=1: tasks that change names and pids, losses), converted
# by flytrap (so it has the index's facts and state records): slice of a
# 1% window at 60% of the span skipping the chunks before it, the same read
# from the start (FLYTRAP_WINDOW_READ=full, slice before the index was
# used), and trace-cmd split of that window (the nearest peer, when
# trace-cmd is installed); medians of ROUNDS (5) alternating runs, wall
# and CPU.  The two slices must be the same bytes, and the skipping one
# must skip.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkrpt
n=${1:-5000000}
rounds=${2:-5}
[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/slice.sh: build $ft and $mk first" >&2; exit 2; }
work=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
MKRPT_NO_CALLS=1 "$mk" names "$work/raw.dat" "$n" >/dev/null
"$ft" convert "$work/raw.dat" -o "$work/names.dat" 2>/dev/null
f=$work/names.dat
read -r a z < <("$ft" info --json "$f" | python3 -c 'import json, sys
d = json.load(sys.stdin); print(d["first_ts"], d["last_ts"])')
read -r from to < <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
print('%.6f %.6f' % ((a + (z - a) * 0.60) / 1e9, (a + (z - a) * 0.61) / 1e9))" "$a" "$z")

FLYTRAP_WINDOW_READ=full "$ft" slice --from "$from" --to "$to" "$f" -o "$work/full.dat" 2>/dev/null
skip=$(FLYTRAP_WINDOW_READ=say "$ft" slice --from "$from" --to "$to" "$f" -o "$work/skip.dat" 2>&1 |
	sed -n 's/^slice: //p')
cmp -s "$work/full.dat" "$work/skip.dat" || { echo "bench/slice.sh: the slices differ" >&2; exit 1; }
case $skip in *"chunks skipped"*) ;; *) echo "bench/slice.sh: nothing skipped: $skip" >&2; exit 1 ;; esac
tc=$(command -v trace-cmd || true)

. bench/_time.sh
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$rounds"); do
	run skip -- "$ft" slice --from "$from" --to "$to" "$f" -o "$work/o1.dat"
	run full FLYTRAP_WINDOW_READ=full -- "$ft" slice --from "$from" --to "$to" "$f" -o "$work/o2.dat"
	[ -z "$tc" ] || run split -- "$tc" split -i "$f" -o "$work/o3.dat" "$from" "$to"
done
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.2fx", (x > 0 ? y / x : 0) }'; }
echo "$(basename "$f"): $n events, $(stat -c %s "$f") bytes, window $from .. $to (1% at 60%): $skip"
echo "$rounds alternating rounds, medians; load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo "| slice of the window | wall s | CPU s | skipping is faster (wall / CPU) |"
echo "|---|---:|---:|---:|"
echo "| flytrap slice, chunks before the cut skipped | $(w skip) | $(c skip) | 1x |"
echo "| flytrap slice, read from the start | $(w full) | $(c full) |" \
	"$(ratio "$(w skip)" "$(w full)") / $(ratio "$(c skip)" "$(c full)") |"
[ -z "$tc" ] || echo "| trace-cmd split | $(w split) | $(c split) |" \
	"$(ratio "$(w skip)" "$(w split)") / $(ratio "$(c skip)" "$(c split)") |"
