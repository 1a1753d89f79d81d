#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What an analyzer window costs, and what the index's facts cost the writer.
#
#   bench/window.sh [N] [ROUNDS]      O=build by default; N events (5,000,000)
#
# On an N-event file from tests/tools/mkrpt names (tasks that change names
# and pids, losses): callgraph, export, drops, overhead and analyze over the
# whole file, over a 1% window that skips the chunks around it (overhead,
# and analyze which runs it, from the skipped chunks' state records), and
# over the same window read whole (FLYTRAP_WINDOW_READ=full, the read before
# the facts and state records); medians of ROUNDS (5) alternating runs,
# wall and CPU, and each window's cost as a share of the whole file's; the
# outputs of the two window reads must be the same, and each window read
# must skip chunks.  Then convert of that file with and without the facts
# and state records (FLYTRAP_WRITER_FACTS=0 leaves out both): what the
# writer's walk of every page costs.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkrpt
n=${1:-5000000}
rounds=${2:-5}
cmds="callgraph export drops overhead analyze"
[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/window.sh: build $ft and $mk first" >&2; exit 2; }
work=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
f=$work/names.dat
"$mk" names "$f" "$n" >/dev/null
read -r a z < <("$ft" info --json "$f" | python3 -c 'import json, sys
d = json.load(sys.stdin); print(d["first_ts"], d["last_ts"])')
read -r from to < <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
print('%.9f %.9f' % ((a + (z - a) * 0.60) / 1e9, (a + (z - a) * 0.61) / 1e9))" "$a" "$z")

. bench/_time.sh

for cmd in $cmds; do
	FLYTRAP_WINDOW_READ=full "$ft" $cmd --from "$from" --to "$to" "$f" >"$work/o.full" 2>&1 || true
	"$ft" $cmd --from "$from" --to "$to" "$f" >"$work/o.skip" 2>&1 || true
	cmp -s "$work/o.full" "$work/o.skip" ||
		{ echo "bench/window.sh: $cmd: the window's outputs differ" >&2; exit 1; }
	FLYTRAP_WINDOW_READ=say "$ft" $cmd --from "$from" --to "$to" "$f" 2>&1 >/dev/null |
		grep -q "chunks skipped" ||
		{ echo "bench/window.sh: $cmd: the window read skipped nothing" >&2; exit 1; }
done
skip=$(FLYTRAP_WINDOW_READ=say "$ft" callgraph --from "$from" --to "$to" "$f" 2>&1 >/dev/null |
	sed -n 's/^window read: //p')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$rounds"); do
	for cmd in $cmds; do
		run "$cmd.all" -- "$ft" $cmd "$f"
		run "$cmd.win" -- "$ft" $cmd --from "$from" --to "$to" "$f"
		run "$cmd.winfull" FLYTRAP_WINDOW_READ=full -- "$ft" $cmd --from "$from" --to "$to" "$f"
	done
	run conv.facts -- "$ft" convert "$f" -o "$work/c1.dat"
	run conv.nofacts FLYTRAP_WRITER_FACTS=0 -- "$ft" convert "$f" -o "$work/c2.dat"
done
pct() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.1f%%", (y > 0 ? 100 * x / y : 0) }'; }
echo "$(basename "$f"): $n events, window $from .. $to (1% of the span): $skip"
echo "$rounds alternating rounds, medians; load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo "| command | wall s | CPU s | share of the whole file (wall / CPU) |"
echo "|---|---:|---:|---:|"
for cmd in $cmds; do
	echo "| $cmd, whole file | $(w $cmd.all) | $(c $cmd.all) | 100% |"
	echo "| $cmd, 1% window, chunks skipped | $(w $cmd.win) | $(c $cmd.win) |" \
		"$(pct "$(w $cmd.win)" "$(w $cmd.all)") / $(pct "$(c $cmd.win)" "$(c $cmd.all)") |"
	echo "| $cmd, 1% window, read whole | $(w $cmd.winfull) | $(c $cmd.winfull) |" \
		"$(pct "$(w $cmd.winfull)" "$(w $cmd.all)") / $(pct "$(c $cmd.winfull)" "$(c $cmd.all)") |"
done
s1=$(stat -c %s "$work/c1.dat") s2=$(stat -c %s "$work/c2.dat")
echo
echo "| convert | wall s | CPU s | bytes |"
echo "|---|---:|---:|---:|"
echo "| without the facts and state records | $(w conv.nofacts) | $(c conv.nofacts) | $s2 |"
echo "| with them | $(w conv.facts) | $(c conv.facts) | $s1 (+$(pct $((s1 - s2)) "$s2")) |"
