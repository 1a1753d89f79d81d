#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A process that runs two programs (issue 35, time-aware maps), offline:
# tests/data/bpf-exec-images.dat is `record --bpf profile=499 --symbols --
# ./exec-first`, which works in first_work and then execs ./exec-second,
# which works in second_work (tests/data/exec-demo.c, built twice, the
# binaries deleted after the recording), sliced to their events.  Before
# the exec the kernel reported exec-first's mappings (sched_prepare_exec),
# stored as an "=< PID UNTIL COMM" block; the process's own maps are
# exec-second's.  So:
#  - every sample of either program reaches main under __libc_start_main:
#    first_work's from the earlier image, second_work's from the last (an
#    older flytrap cut all of first_work's at "outside executable
#    mappings": the last program's maps hold no range of the first);
#  - --json counts them (unwind.earlier_image) and the text says so;
#  - the same through slice (the block kept with its process), a merge
#    with a copy of itself, and a redaction (the block's task name
#    replaced, its pid and stamp kept);
#  - a block whose stamp or pid is not a number is skipped without a crash.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
F=$TOP/tests/data/bpf-exec-images.dat
[ -f "$F" ] || skip "no $F"
cd "$TMP" || exit 1

# FOLDED: "FIRST_WHOLE FIRST SECOND_WHOLE SECOND"
shape() {
	awk '{ w = $NF }
	     /;first_work$|;first_work / { f += w; if ($0 ~ /__libc_start_main;[^ ]*main;first_work/) fw += w }
	     /;second_work$|;second_work / { s += w; if ($0 ~ /__libc_start_main;[^ ]*main;second_work/) sw += w }
	     END { printf "%d %d %d %d", fw, f, sw, s }' "$1"
}
check() {	# FILE WHAT
	local fw f sw s
	"$FLYTRAP" callgraph --folded "$1" > "$2.fold" 2> e || { fail "$2: callgraph: $(cat e)"; return; }
	read -r fw f sw s < <(shape "$2.fold")
	[ "$f" -ge 20 ] && [ "$fw" = "$f" ] && [ "$s" -ge 30 ] && [ "$sw" = "$s" ] &&
		ok "$2: all $f samples of first_work and $s of second_work reach main" ||
		fail "$2: first_work $fw of $f, second_work $sw of $s whole: $(sort -t' ' -k2 -n "$2.fold" | tail -3 | cut -c1-160)"
	if grep -q '^\[unwind: outside executable mappings\] ' "$2.fold"; then
		fail "$2: samples outside the mappings: $(grep '^\[unwind: outside' "$2.fold")"
	fi
}
check "$F" shipped
"$FLYTRAP" callgraph --json "$F" > j 2>e || fail "callgraph --json: $(cat e)"
read -r f _ _ _ < <(shape shipped.fold)
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unwind"]["earlier_image"])' j)
[ -n "$n" ] && [ "$n" -ge "$f" ] && ok "--json unwind.earlier_image: $n (first_work: $f)" ||
	fail "--json unwind.earlier_image is ${n:-none} (want >= $f)"
"$FLYTRAP" callgraph "$F" 2>&1 | grep -q "stacks sampled before a later exec of their process" &&
	ok "the text says how many came from an earlier image" || fail "no earlier-image line in the text"

"$FLYTRAP" slice --comm 'exec-*' "$F" -o sliced.dat 2>e && check sliced.dat slice ||
	fail "slice: $(cat e)"
cp "$F" copy.dat
"$FLYTRAP" merge "$F" copy.dat -o merged.dat >/dev/null 2>e && check merged.dat merge ||
	fail "merge: $(cat e)"

# redact: the "=< PID UNTIL COMM" line keeps its pid and stamp, the name goes
"$FLYTRAP" redact "$F" -o red.dat >/dev/null 2>e || fail "redact: $(cat e)"
"$FLYTRAP" convert -c none red.dat -o red-none.dat 2>/dev/null || fail "convert -c none red.dat"
"$FLYTRAP" convert -c none "$F" -o none.dat 2>/dev/null || fail "convert -c none"
orig=$(strings none.dat | grep -m1 '^=< ')
red=$(strings red-none.dat | grep -m1 '^=< ')
[ -n "$orig" ] && [ "${red% *}" = "${orig% *}" ] && [ "${red##* }" != "${orig##* }" ] &&
	[ "${orig##* }" = exec-first ] &&
	ok "redact: '$orig' became '$red'" || fail "redact: '$orig' became '$red'"

# damaged blocks: a stamp that is no number, a pid that is none: skipped, no crash
python3 - none.dat bad.dat <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
at = d.find(b'=< ')
assert at > 0
end = d.find(b'\n', at)
line = d[at:end]
parts = line.split(b' ')
bad = b'=< ' + parts[1] + b' ' + b'x' * len(parts[2]) + b' ' + b' '.join(parts[3:])
assert len(bad) == len(line)
d[at:end] = bad
open(sys.argv[2], 'wb').write(d)
EOF
"$FLYTRAP" callgraph --folded bad.dat > bad.fold 2>e
rc=$?
[ $rc -lt 2 ] && ok "a block with a damaged stamp: exit $rc, no crash" || fail "damaged block: exit $rc: $(cat e)"
read -r fw f sw s < <(shape bad.fold)
[ "$sw" = "$s" ] && [ "$s" -ge 30 ] && ok "its process's own maps still name second_work ($s)" ||
	fail "second_work $sw of $s after the damaged block"
finish
