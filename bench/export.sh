#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap export on a file of at least a million events, against the
# nearest peer doing the same job in one run: `trace-cmd report -t`
# piped into bench/tc2chrome.py, which writes the same Chrome JSON
# (syscall slices, function_graph slices, per-CPU sched runs, loss
# markers).  Also `export --html` (which runs the callgraph, overhead and
# drops analyzers in the same pass).
#
#   bench/export.sh [FILE...]     O=build by default
#
# Without FILE: a synthetic 2.6M-event trace (tests/tools/mkexport --scale
# 100000: sched_switch, raw_syscalls, function_graph and BPF syscall
# records on 2 CPUs).  Give a real recording too, e.g.
#   flytrap record -e sched:sched_switch -e raw_syscalls -b 65536 -o big.dat \
#       -- build/tests/tools/syscall_storm 300000 2
# Times are CPU seconds (user + sys of every process of the pipeline, best
# of RUNS=3) so other load on the machine does not distort the ratio; wall
# times are shown too.  Prints a markdown table for docs/benchmarks.md.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
RUNS=${RUNS:-3}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkexport
peer=$PWD/bench/tc2chrome.py
work=$(mktemp -d /tmp/flytrap-ebench.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$ft" ] || { echo "bench/export.sh: build first (make O=$O)" >&2; exit 2; }
command -v trace-cmd >/dev/null || { echo "bench/export.sh: trace-cmd is needed for the peer" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/export.sh: GNU time (/usr/bin/time) is needed" >&2; exit 2; }

files=("$@")
if [ ${#files[@]} = 0 ]; then
	[ -x "$mk" ] || { echo "bench/export.sh: $mk is not built" >&2; exit 2; }
	"$mk" "$work/synthetic.dat" --scale 100000 >/dev/null
	files=("$work/synthetic.dat")
fi

cpu_time() {	# "user+sys wall maxrss" best of $2 runs of the shell command $1
	local best=999999 bestw=0 rss=0 i t
	for ((i = 0; i < $2; i++)); do
		/usr/bin/time -f '%U %S %e %M' -o "$work/t" bash -c "$1" >/dev/null 2>&1 || true
		t=$(awk '{ printf "%.3f %.3f %d", $1 + $2, $3, $4 }' "$work/t")
		read -r c w r <<<"$t"
		if awk -v a="$c" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$c; bestw=$w; rss=$r; fi
	done
	echo "$best $bestw $rss"
}

echo "| file | events | flytrap export CPU s | events/s | wall s | peak RSS | peer CPU s | peer wall s | speed-up (CPU) | --html CPU s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
	"$ft" export "$f" -o "$work/out.json"
	nev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["otherData"]["events"])' "$work/out.json")
	read -r fc fw frss <<<"$(cpu_time "'$ft' export '$f' -o '$work/out.json'" "$RUNS")"
	read -r pc pw _ <<<"$(cpu_time "trace-cmd report -t -i '$f' 2>/dev/null | python3 '$peer' > '$work/peer.json'" "${PEER_RUNS:-1}")"
	read -r hc _ _ <<<"$(cpu_time "'$ft' export --html '$f' -o '$work/out.html'" "$RUNS")"
	eps=$(awk -v n="$nev" -v t="$fc" 'BEGIN { printf "%.2fM", n / t / 1e6 }')
	ratio=$(awk -v a="$pc" -v b="$fc" 'BEGIN { printf "%.1fx", a / b }')
	echo "| $(basename "$f") | $nev | $fc | $eps | $fw | $((frss / 1024)) MiB | $pc | $pw | $ratio | $hc |"
done
