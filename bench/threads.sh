#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Reader threads and the stored time index, in one run:
#  - `flytrap report` --threads 1 and --threads 2 against `trace-cmd report`
#    on a file of N1 events (default 1,200,000);
#  - `flytrap analyze` --threads 1 and --threads 2 on a file of N2 events
#    (default 5,000,000);
#  - on the N2 file, `report --from A --to B` over 1% of the span (the stored
#    index) against the full listing.
# Both files are written by tests/tools/mkrpt bench (flytrap's writer: zstd,
# two CPUs, with the time index).  Every pair of outputs is compared (cmp)
# before anything is timed.  The commands of a group run alternately, ROUNDS
# times (default 5); each figure is the median wall and CPU (user + sys)
# time.  The load average is printed: on the shared 2-core machine other
# jobs take cores from the second thread.
#
#   bench/threads.sh [N1 [N2]]
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
ft=$PWD/$O/flytrap
mk=$PWD/$O/tests/tools/mkrpt
n1=${1:-1200000}
n2=${2:-5000000}
rounds=${ROUNDS:-5}
work=$(mktemp -d /tmp/flytrap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$ft" ] && [ -x "$mk" ] || { echo "bench/threads.sh: build $ft and $mk first" >&2; exit 2; }

"$mk" bench "$work/a.dat" "$n1" >/dev/null
"$mk" bench "$work/b.dat" "$n2" >/dev/null

same() {	# same CMD1 -- CMD2: identical stdout or exit 1
	local a=() b=()
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	"${a[@]}" >"$work/o1" 2>/dev/null || true
	"${b[@]}" >"$work/o2" 2>/dev/null || true
	cmp -s "$work/o1" "$work/o2" || { echo "bench/threads.sh: outputs differ: ${a[*]} / ${b[*]}" >&2; exit 1; }
	rm -f "$work/o1" "$work/o2"
}
same trace-cmd report -i "$work/a.dat" -- "$ft" report --threads 1 "$work/a.dat"
same "$ft" report --threads 1 "$work/a.dat" -- "$ft" report --threads 2 "$work/a.dat"
same "$ft" analyze --threads 1 "$work/b.dat" -- "$ft" analyze --threads 2 "$work/b.dat"

# the 1% window in the middle of b.dat, in seconds as report prints them
read -r t0 t1 < <("$ft" info --json "$work/b.dat" | python3 -c '
import json, sys
j = json.load(sys.stdin)
a, b = j["first_ts"], j["last_ts"]
lo = a + (b - a) * 0.50
print("%.6f %.6f" % (lo / 1e9, (lo + (b - a) * 0.01) / 1e9))')
FLYTRAP_NO_SEEK=1 "$ft" report --from "$t0" --to "$t1" "$work/b.dat" >"$work/w1"
"$ft" report --from "$t0" --to "$t1" "$work/b.dat" >"$work/w2"
cmp -s "$work/w1" "$work/w2" || { echo "bench/threads.sh: the window differs with the index" >&2; exit 1; }
wlines=$(($(wc -l <"$work/w2") - 1))

timed() {	# timed NAME CMD...: "wall cpu" of one run appended to $work/NAME
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$work/t" "$@" >/dev/null 2>&1 || true
	tail -1 "$work/t" | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' >>"$work/$name"
}
med() {	# med NAME: median wall, median CPU
	local w c
	w=$(cut -d' ' -f1 "$work/$1" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	c=$(cut -d' ' -f2 "$work/$1" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	echo "$w $c"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$rounds"); do
	timed tc trace-cmd report -i "$work/a.dat"
	timed r1 "$ft" report --threads 1 "$work/a.dat"
	timed r2 "$ft" report --threads 2 "$work/a.dat"
	timed a1 "$ft" analyze --threads 1 "$work/b.dat"
	timed a2 "$ft" analyze --threads 2 "$work/b.dat"
	timed full "$ft" report "$work/b.dat"
	timed win "$ft" report --from "$t0" --to "$t1" "$work/b.dat"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
read -r tcw tcc < <(med tc)
read -r r1w r1c < <(med r1)
read -r r2w r2c < <(med r2)
read -r a1w a1c < <(med a1)
read -r a2w a2c < <(med a2)
read -r fw fc < <(med full)
read -r ww wc < <(med win)

echo "files: $n1 events ($(stat -c %s "$work/a.dat") bytes), $n2 events ($(stat -c %s "$work/b.dat") bytes);" \
	"$rounds alternating rounds, medians; $(nproc) CPUs; load average $load0 before, $load1 after"
echo
echo "| command | wall s | CPU s | ratio (wall / CPU) |"
echo "|---|---:|---:|---:|"
awk -v tcw="$tcw" -v tcc="$tcc" -v r1w="$r1w" -v r1c="$r1c" -v r2w="$r2w" -v r2c="$r2c" \
    -v a1w="$a1w" -v a1c="$a1c" -v a2w="$a2w" -v a2c="$a2c" -v fw="$fw" -v fc="$fc" -v ww="$ww" -v wc="$wc" \
    -v n1="$n1" -v n2="$n2" -v t0="$t0" -v t1="$t1" -v wl="$wlines" 'BEGIN {
	f = "| %s | %.3f | %.3f | %s |\n"
	printf f, "trace-cmd report (" n1 ")", tcw, tcc, "1.00x"
	printf f, "flytrap report --threads 1", r1w, r1c, sprintf("%.2fx / %.2fx faster than trace-cmd", tcw / r1w, tcc / r1c)
	printf f, "flytrap report --threads 2", r2w, r2c, sprintf("%.2fx / %.2fx faster than trace-cmd; %.2fx / %.2fx of --threads 1", tcw / r2w, tcc / r2c, r1w / r2w, r1c / r2c)
	printf f, "flytrap analyze --threads 1 (" n2 ")", a1w, a1c, "1.00x"
	printf f, "flytrap analyze --threads 2", a2w, a2c, sprintf("%.2fx / %.2fx of --threads 1", a1w / a2w, a1c / a2c)
	printf f, "flytrap report (" n2 ", all)", fw, fc, "100%"
	printf f, "report --from " t0 " --to " t1 " (1%, " wl " lines)", ww, wc, sprintf("%.1f%% / %.1f%% of the full listing", 100 * ww / fw, 100 * wc / fc)
}'

# analyze alone, --threads 1 and 2 alternating with nothing in between (in
# the rounds above it follows trace-cmd and the listings)
echo
"$(dirname "$0")/threads-pair.sh" "$work/b.dat" "$rounds"
