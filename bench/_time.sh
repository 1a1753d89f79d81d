# SPDX-License-Identifier: GPL-2.0-only
# Timed runs for the bench scripts (sourced; they set $work, a scratch directory).
#   run NAME [ENV=V...] -- CMD ARGS...   one run of CMD, its wall and CPU seconds appended to
#                                        $work/NAME (output discarded, failure ignored)
#   w NAME, c NAME                       the median wall, CPU seconds of NAME's runs
run() {
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" /usr/bin/time -f '%e %U %S' -o "$work/t" "$@" >/dev/null 2>&1 || true
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/t" >>"$work/$name"
}
med() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
w() { cut -d' ' -f1 "$work/$1" | med; }
c() { cut -d' ' -f2 "$work/$1" | med; }
