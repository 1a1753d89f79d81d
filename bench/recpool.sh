#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The recorder beyond two CPUs: what one compression thread and one capture
# thread sustain, measured here, and the CPU count at which the old design
# (one thread drains every CPU, one compresses) starts to lose events at
# RATE events/s per CPU, against the new one (--threads: one compression
# thread per 8 CPUs, --capture-threads: one capture thread per 16), as a
# model from those two figures.  Prints a markdown section for
# docs/benchmarks.md.
#
#   bench/recpool.sh [FILE]      (root without FILE; O=build, SECS=1, RATE=500000)
#
# 1. Compression: tests/tools/zstd_bench on the ring-buffer pages of FILE, or
#    of a fresh recording of the default events (scheduler, syscalls, IRQs)
#    while `find /usr` runs: chunks of 10 pages, levels 1, 3, 6, SECS of one
#    thread's CPU time each.
# 2. Capture: `flytrap record -v --capture-threads 2` of a getppid storm
#    (raw_syscalls); each capture thread prints its pages and its CPU time.
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
FLYTRAP=$PWD/$O/flytrap
ZB=$PWD/$O/tests/tools/zstd_bench
STORM=$PWD/$O/tests/tools/syscall_storm
SECS=${SECS:-1}
RATE=${RATE:-500000}
TMP=$(mktemp -d /tmp/flytrap-recpool.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -x "$FLYTRAP" ] && [ -x "$ZB" ] || { echo "build first: make O=$O" >&2; exit 1; }
FILE=${1:-}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -z "$FILE" ]; then
	[ "$(id -u)" = 0 ] || { echo "needs root (or give FILE)" >&2; exit 1; }
	FILE=$TMP/mix.dat
	"$FLYTRAP" record -q -d 3 -o "$FILE" -- sh -c 'for i in 1 2 3; do find /usr -xdev >/dev/null 2>&1; done' ||
		{ echo "recording failed" >&2; exit 1; }
	what="a 3-s recording of the default events (scheduler, syscalls, IRQs) during \`find /usr\`"
else
	what="\`$FILE\`"
fi
"$ZB" "$FILE" "$SECS" 1 3 6 >"$TMP/z" || exit 1
epp=$(awk '/^pages/ { print $6 }' "$TMP/z")

cap_pps="" cap_line=""
if [ "$(id -u)" = 0 ] && [ -x "$STORM" ]; then
	"$FLYTRAP" -v record -e raw_syscalls --capture-threads 2 -o "$TMP/s.dat" -- "$STORM" 400000 2 \
		>/dev/null 2>"$TMP/cap" || { cat "$TMP/cap" >&2; exit 1; }
	# "capture thread I: CPUs A-B, P pages in W wakeups, S s CPU"
	read -r cpages ccpu < <(sed -nE 's/.*capture thread [0-9]+: .*, ([0-9]+) pages in [0-9]+ wakeups, ([0-9.]+) s CPU/\1 \2/p' \
		"$TMP/cap" | awk '{ p += $1; c += $2 } END { print p, c }')
	sevents=$(sed -nE 's/.*wrote .*, ([0-9]+) events in.*/\1/p' "$TMP/cap")
	if [ -n "${cpages:-}" ] && awk -v c="$ccpu" 'BEGIN { exit !(c > 0) }'; then
		cap_pps=$(awk -v p="$cpages" -v c="$ccpu" 'BEGIN { printf "%.0f", p / c }')
		cap_line="| capture thread (splice, page checks, copy into the chunk; storm file, $sevents events) | $(awk -v p="$cap_pps" 'BEGIN { printf "%.0f", p * 4096 / 1e6 }') | $cap_pps | $(awk -v p="$cap_pps" -v e="$epp" 'BEGIN { printf "%.2f", p * e / 1e6 }') | |"
	fi
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "Measured $(date -u '+%Y-%m-%d %H:%M') UTC on $(uname -r), $(nproc) CPUs, load average $load0 before, $load1 after."
echo "Command: \`bench/recpool.sh${1:+ $1}\` (SECS=$SECS). Pages of $what: $epp events per 4 KiB page."
echo
echo "| one thread | raw MB per CPU s | pages per CPU s | M events per CPU s | ratio |"
echo "|---|---:|---:|---:|---:|"
awk '/^level/ { printf "| compression, zstd level %s (chunks of 10 pages) | %.0f | %.0f | %.2f | %.1fx |\n", $2, $6, $8, $10 / 1e6, $12 }' "$TMP/z"
[ -n "$cap_line" ] && echo "$cap_line"
echo
z3=$(awk '/^level 3 / { print $8 }' "$TMP/z")
[ -n "$cap_pps" ] || cap_pps=0
awk -v z="$z3" -v c="$cap_pps" -v epp="$epp" -v rate="$RATE" 'BEGIN {
	need = rate / epp		# pages/s per CPU
	printf "Model at %d events/s per CPU (%.0f pages/s per CPU), zstd level 3 (the default):\n\n", rate, need
	if (c > 0) {
		old = (z < c ? z : c)
		printf "- old design: one capture thread (%.0f pages/s) and one compression thread (%.0f pages/s) keep up with %.0f pages/s in all: **%d CPUs** at that rate; the %dth loses events (%s bound)\n", c, z, old, int(old / need), int(old / need) + 1, z < c ? "compression" : "capture"
	}
	printf "\n| CPUs | compression threads | capture threads | old: events/s per CPU | new: events/s per CPU |\n|---:|---:|---:|---:|---:|\n"
	for (n = 2; n <= 512; n *= 2) {
		tz = int(n / 8); if (tz < 1) tz = 1
		tc = int((n + 15) / 16)
		o = (c > 0 ? (z < c ? z : c) : z) / n * epp
		nz = tz * z; nc = tc * c
		nw = (c > 0 ? (nz < nc ? nz : nc) : nz) / n * epp
		printf "| %d | %d | %d | %.2fM%s | %.2fM%s |\n", n, tz, tc, o / 1e6, o < rate ? " (loses)" : "", nw / 1e6, nw < rate ? " (loses)" : ""
	}
}'
