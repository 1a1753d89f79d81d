#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Size and start-up of the static build against the dynamic one and
# trace-cmd (the nearest peer, dynamic), in one run.  Start-up: N runs
# (default 200) of `--version`, and N/10 of `report` on the shipped sample
# (tests/data/sample.dat), CPU seconds (user + sys) per run, best of 3.
#   bench/static.sh [N]      after `make` and `make static`
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
N=${1:-200}
dyn=$O/flytrap st=$O/flytrap-static
[ -x "$dyn" ] && [ -x "$st" ] || { echo "build $dyn and $st first (make && make static)" >&2; exit 1; }
strip -o "$O/flytrap-dyn-stripped" "$dyn"
libs=$(ldd "$dyn" | awk '$3 ~ /^\// { print $3 }' | xargs -r readlink -f | sort -u | xargs -r du -bc | tail -n 1 | cut -f1)
sample=tests/data/sample.dat
cpu() {	# CPU seconds per run of "$@", best of 3, N runs each
	local best= i t N=$N
	[ "$1" = -r ] && { N=$(( (N + 9) / 10 )); shift; }
	for i in 1 2 3; do
		t=$( { /usr/bin/time -f '%U %S' bash -c 'for ((i = 0; i < '"$N"'; i++)); do "$@" >/dev/null 2>&1; done' _ "$@"; } 2>&1 | tail -n 1)
		t=$(echo "$t" | awk -v n="$N" '{ printf "%.6f", ($1 + $2) / n }')
		[ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }' && best=$t
	done
	echo "$best"
}
printf '| binary | bytes on disk | with its shared libraries |\n|---|---:|---:|\n'
printf '| flytrap (dynamic, stripped) | %s | %s |\n' "$(stat -c %s "$O/flytrap-dyn-stripped")" \
	"$(( $(stat -c %s "$O/flytrap-dyn-stripped") + libs ))"
printf '| flytrap-static (stripped) | %s | %s |\n' "$(stat -c %s "$st")" "$(stat -c %s "$st")"
echo
printf '| command (%s runs, report %s) | CPU ms per run | vs dynamic |\n|---|---:|---:|\n' "$N" "$(( (N + 9) / 10 ))"
dv=$(cpu "$dyn" --version) sv=$(cpu "$st" --version)
dr=$(cpu -r "$dyn" report "$sample") sr=$(cpu -r "$st" report "$sample")
row() { printf '| %s | %.3f | %s |\n' "$1" "$(awk -v t="$2" 'BEGIN { print t * 1000 }')" \
	"$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2fx", a / b }')"; }
row "flytrap --version" "$dv" "$dv"
row "flytrap-static --version" "$sv" "$dv"
row "flytrap report sample.dat" "$dr" "$dr"
row "flytrap-static report sample.dat" "$sr" "$dr"
if command -v trace-cmd >/dev/null; then
	tr=$(cpu -r trace-cmd report "$sample")
	row "trace-cmd report sample.dat" "$tr" "$dr"
fi
rm -f "$O/flytrap-dyn-stripped"
