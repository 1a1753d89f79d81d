#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Cost per sample of user stacks that name every frame (issue 15), on one
# load in one run: a -O2 program without frame pointers (main -> chain_a1
# -> leaf, main -> chain_b1 -> chain_b2 -> leaf, a fixed amount of work)
# profiled at HZ with
#   fp      flytrap record --bpf profile=HZ --user-stack fp
#   cfi     ... --user-stack cfi    (512-byte stack copy, the default)
#   dwarf   ... --user-stack dwarf  (8192-byte stack copy)
#   perf    perf record -e cpu-clock -F HZ --call-graph dwarf  (8192 bytes)
# and for each: samples; the workload's CPU time (user + system, which is
# charged the sampling and stack-copy time in the kernel) above the
# untraced run, per sample; the BPF program's own run time per sample
# (kernel.bpf_stats_enabled, flytrap only); file bytes per sample; and
# the offline cost per sample of turning the file into call chains:
# `flytrap callgraph --folded` (the unwind from the copies, fp: none) and
# `perf script` (perf's libdw unwind) -- CPU seconds, best of 3.
#
#   bench/ustack.sh [HZ] [WORK]      (root; default 997 Hz, 60 units of work)
#
# Issue 35, the binaries people run: `bench/ustack.sh distro [HZ...]` runs
# Debian's xz -9 -T1, gzip -9, sort --parallel=1 and a pure-Python loop
# (/usr/bin/python3) untraced, under `flytrap record --bpf profile=HZ` with
# the default user stacks (dwarf, 8192 bytes), with --user-stack cfi (512
# bytes) and fp, and under `perf record -F HZ --call-graph dwarf`, one
# after the other on the same input; per run: the workload's wall and CPU
# seconds (slowdown against the untraced run), samples, the share reaching
# __libc_start_main, and file bytes per sample.  Default HZ: 99 999.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
F=$PWD/$O/flytrap
if [ "${1:-}" = distro ]; then
	shift
	[ "$(id -u)" = 0 ] || { echo "bench/ustack.sh: needs root" >&2; exit 1; }
	[ -x "$F" ] || { echo "bench/ustack.sh: build first (make)" >&2; exit 1; }
	command -v perf > /dev/null || { echo "bench/ustack.sh: no perf" >&2; exit 1; }
	T=$(mktemp -d /tmp/flytrap-ustack.XXXXXX)
	trap 'rm -rf "$T"' EXIT
	cp "$F" "$T/flytrap" && F=$T/flytrap
	head -c 24000000 /dev/urandom | base64 > "$T/big.txt"
	head -c 2500000 "$T/big.txt" > "$T/small.txt"
	printf 'def work(n):\n    s = 0\n    for i in range(n):\n        s += i * i\n    return s\nfor k in range(120):\n    work(200000)\n' > "$T/loop.py"
	tm() {	# OUT command... -> "wall cpu" of the command (its children included)
		local out=$1
		shift
		/usr/bin/time -f '%e %U %S' -o "$T/tm" "$@" > /dev/null 2>> "$T/err" || return 1
		awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$T/tm" > "$out"
	}
	mainpct() {	# folded -> "samples share%"
		awk '{ t += $NF; if ($0 ~ /__libc_start_main/) m += $NF }
			END { printf "%d %.1f", t, t ? 100 * m / t : 0 }' "$1"
	}
	printf '| workload | Hz | mode | wall s | CPU s | samples | reach main | bytes / sample |\n'
	printf '|---|---:|---|---:|---:|---:|---:|---:|\n'
	for w in xz gzip sort python3; do
		case $w in
		xz) cmd=(/usr/bin/xz -9 -T1 -c "$T/small.txt") ;;
		gzip) cmd=(/usr/bin/gzip -9 -c "$T/big.txt") ;;
		sort) cmd=(/usr/bin/sort --parallel=1 "$T/big.txt" "$T/big.txt") ;;
		python3) cmd=(/usr/bin/python3 "$T/loop.py") ;;
		esac
		tm "$T/base" "${cmd[@]}" || continue
		read -r bw bc < "$T/base"
		printf '| %s | - | untraced | %s | %s | - | - | - |\n' "$w" "$bw" "$bc"
		for hz in ${@:-99 999}; do
			for mode in dwarf cfi fp perf; do
				rm -f "$T/x.dat" "$T/p.data"
				if [ $mode = perf ]; then
					perf record -q -F "$hz" --call-graph dwarf -o "$T/p.data" -- \
						/usr/bin/time -f '%e %U %S' -o "$T/tm" "${cmd[@]}" > /dev/null 2>> "$T/err" || continue
					perf script -i "$T/p.data" --comm $w -F ip,sym,dso 2> /dev/null | awk '
						NF == 0 { if (s) { t++; m += hit }; s = 0; hit = 0; next }
						{ s = 1 } /__libc_start_(main|call_main)/ { hit = 1 }
						END { if (s) { t++; m += hit }; printf "%d %.1f", t, t ? 100 * m / t : 0 }' > "$T/mp"
					bytes=$(stat -c %s "$T/p.data")
				else
					"$F" record -q --bpf "profile=$hz" --user-stack $mode -o "$T/x.dat" -- \
						/usr/bin/time -f '%e %U %S' -o "$T/tm" "${cmd[@]}" > /dev/null 2>> "$T/err" || continue
					"$F" callgraph --folded --comm $w "$T/x.dat" > "$T/x.fold" 2>> "$T/err"
					mainpct "$T/x.fold" > "$T/mp"
					bytes=$(stat -c %s "$T/x.dat")
				fi
				read -r n mp < "$T/mp"
				awk -v w=$w -v hz="$hz" -v m=$mode -v n="$n" -v mp="$mp" -v by="$bytes" \
					-v bw="$bw" -v bc="$bc" '{ wall = $1; cpu = $2 + $3
					printf "| %s | %s | %s | %.2f (%+.0f%%) | %.2f (%+.0f%%) | %d | %.1f%% | %.0f |\n",
						w, hz, m, wall, (bw > 0 ? 100 * (wall - bw) / bw : 0), cpu,
						(bc > 0 ? 100 * (cpu - bc) / bc : 0), n, mp, (n ? by / n : 0) }' "$T/tm"
			done
		done
	done
	exit 0
fi
HZ=${1:-997}
WORK=${2:-60}
[ "$(id -u)" = 0 ] || { echo "bench/ustack.sh: needs root" >&2; exit 1; }
[ -x "$F" ] || { echo "bench/ustack.sh: build first (make)" >&2; exit 1; }
command -v perf > /dev/null || { echo "bench/ustack.sh: no perf" >&2; exit 1; }
T=$(mktemp -d /tmp/flytrap-ustack.XXXXXX)
trap 'sysctl -q -w kernel.bpf_stats_enabled="$stats0" 2> /dev/null; rm -rf "$T"' EXIT
stats0=$(sysctl -n kernel.bpf_stats_enabled 2> /dev/null || echo 0)
cp "$F" "$T/flytrap" && F=$T/flytrap
cat > "$T/p.c" <<'C'
#include <stdlib.h>
volatile double sink;
volatile long step = 1;
__attribute__((noinline)) double leaf(long n) { double s = 0; for (long i = 1; i < n; i += step) s += 1.0 / (double)i; return s; }
__attribute__((noinline)) double chain_b2(long n) { return leaf(n) * 2; }
__attribute__((noinline)) double chain_b1(long n) { return chain_b2(n) + 1; }
__attribute__((noinline)) double chain_a1(long n) { return leaf(n) + 3; }
int main(int argc, char **argv)
{
	long work = argc > 1 ? atol(argv[1]) : 60, n = 1000000;
	for (long k = 0; k < work * 10; k++) {
		sink += chain_a1(n);
		sink += chain_b1(2 * n);
	}
	return 0;
}
C
gcc -O2 -o "$T/p" "$T/p.c" || exit 1
P=$T/p

cpu() {	# command... -> "user+sys seconds" of the command and its children
	/usr/bin/time -f '%U %S' -o "$T/time" "$@" > /dev/null 2>> "$T/err" || return 1
	awk '{ printf "%.3f", $1 + $2 }' "$T/time"
}
best3() {	# command... -> the lowest of 3 CPU times
	local b="" t i
	for i in 1 2 3; do
		t=$(cpu "$@") || return 1
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$t; fi
	done
	echo "$b"
}
runtime_ns() {	# sum run_time_ns, run_cnt of the ft_profile programs loaded now
	bpftool -j prog show 2> /dev/null | python3 -c '
import json, sys
t = c = 0
for p in json.load(sys.stdin):
    if p.get("name") == "ft_profile":
        t += p.get("run_time_ns", 0); c += p.get("run_cnt", 0)
print(t, c)'
}

base=$(best3 "$P" "$WORK") || exit 1
sysctl -q -w kernel.bpf_stats_enabled=1 || echo "(no bpf_stats: program run time unknown)" >&2
printf '| mode | samples | workload CPU / sample | BPF program / sample | file bytes / sample | offline CPU / sample |\n'
printf '|---|---:|---:|---:|---:|---:|\n'
for mode in fp cfi dwarf perf; do
	rm -f "$T/x.dat" "$T/perf.data"
	if [ "$mode" = perf ]; then
		perf record -q -e cpu-clock -F "$HZ" --call-graph dwarf -o "$T/perf.data" -- \
			/usr/bin/time -f '%U %S' -o "$T/wl" "$P" "$WORK" > /dev/null 2>> "$T/err" || { echo "perf failed" >&2; continue; }
		n=$(perf script -i "$T/perf.data" -F ip 2> /dev/null | awk 'NF == 0 { if (s) n++; s = 0; next } { s = 1 } END { print n + s }')
		bytes=$(stat -c %s "$T/perf.data")
		off=$(best3 sh -c "perf script -i '$T/perf.data' > /dev/null 2>&1")
		prog="-"
	else
		(
			sleep 1
			runtime_ns > "$T/rt0"
			sleep 2
			runtime_ns > "$T/rt1"
		) &
		"$F" record -q --bpf "profile=$HZ" --user-stack "$mode" -o "$T/x.dat" -- \
			/usr/bin/time -f '%U %S' -o "$T/wl" "$P" "$WORK" > /dev/null 2>> "$T/err" || { echo "record $mode failed" >&2; continue; }
		wait
		n=$("$F" callgraph --json "$T/x.dat" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
		bytes=$(stat -c %s "$T/x.dat")
		off=$(best3 sh -c "'$F' callgraph --folded '$T/x.dat' > /dev/null")
		prog=$(paste "$T/rt0" "$T/rt1" 2> /dev/null | awk '{ c = $4 - $2; if (c > 0) printf "%.2f us", ($3 - $1) / c / 1000; else print "?" }')
	fi
	w=$(awk '{ printf "%.3f", $1 + $2 }' "$T/wl")
	awk -v m="$mode" -v n="$n" -v w="$w" -v b="$base" -v p="$prog" -v by="$bytes" -v o="$off" 'BEGIN {
		if (n <= 0) n = 1
		printf "| %s | %d | %.1f us | %s | %.0f | %.1f us |\n", m, n, (w - b) * 1e6 / n, p, by / n, o * 1e6 / n }'
done
echo
echo "untraced workload: $base s CPU (best of 3); HZ=$HZ, WORK=$WORK"
