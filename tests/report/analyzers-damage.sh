#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the analyzers do with what users hand them beyond clean files: BPF
# kfunc records, damaged or cut files, an output that fails, and a reader
# that leaves early.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
F=$FLYTRAP
S=tests/data

# ---- kfunc records (record --bpf kfunc=FUNC) become calls and slices ----------
# lab-kfunc.dat: one do_sys_openat2 call of 574540 ns inside cat's openat
out=$("$F" callgraph --json "$S/lab-kfunc.dat")
echo "$out" | grep -q '"name":"do_sys_openat2","count":1,"total":574540,"self":574540' &&
	ok "callgraph: the kfunc call is a node with its BPF duration" ||
	fail "callgraph --json on lab-kfunc.dat: $(echo "$out" | head -c 600)"
"$F" export -o "$TMP/k.json" "$S/lab-kfunc.dat" || fail "export lab-kfunc.dat failed"
python3 - "$TMP/k.json" <<'EOF' && ok "export: do_sys_openat2 is a kernel slice of 574.54 us inside cat's openat" || fail "export: no kfunc slice"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
b = [e for e in ev if e.get("ph") == "B" and e.get("name") == "do_sys_openat2"]
assert len(b) == 1 and b[0]["cat"] == "kernel", b
i = ev.index(b[0])
end = next(e for e in ev[i + 1:] if e.get("ph") == "E" and e["tid"] == b[0]["tid"])
assert abs(end["ts"] - b[0]["ts"] - 574.54) < 0.01, (b, end)
# every slice is a B/E pair written together
op = [(e["ts"], ev[k + 1]["ts"]) for k, e in enumerate(ev) if e.get("ph") == "B" and e.get("name") == "openat"]
assert any(s <= b[0]["ts"] and end["ts"] <= e for s, e in op), op
EOF

# ---- damaged and cut files: what could be read, said to be partial, exit 1 ----
# every cut from the start of the data to the end of each synthetic file
for f in "$S"/rpt-*.dat; do
	sz=$(stat -c %s "$f")
	bad=0 n=0
	step=23
	light && step=71	# the sanitizer run: a third of the cuts
	for ((c = sz * 3 / 4; c < sz; c += step)); do
		head -c "$c" "$f" > "$TMP/cut.dat"
		# the reader misses a cut exactly after the last section (info exits 0
		# too): that is format/'s to notice; the analyzers must match info
		"$F" info "$TMP/cut.dat" > /dev/null 2>&1 && continue
		for a in drops overhead callgraph analyze export; do
			"$F" $a "$TMP/cut.dat" > "$TMP/o" 2> "$TMP/e"
			rc=$? n=$((n + 1))
			# output printed: the one error says it is partial (else the open failed)
			if [ $rc != 1 ] || [ "$(wc -l < "$TMP/e")" != 1 ] ||
			   { [ -s "$TMP/o" ] && ! grep -q 'partial' "$TMP/e"; }; then
				bad=$((bad + 1))
				[ $bad -le 3 ] && fail "$a on ${f##*/} cut at $c: exit $rc, stderr: $(cat "$TMP/e")"
			fi
		done
	done
	[ $bad = 0 ] && ok "${f##*/}: $n cut runs exit 1 with one error line (partial figures, or the open failed)"
done
head -c 3328 "$S/rpt-drops.dat" > "$TMP/cut.dat"
"$F" drops "$TMP/cut.dat" > "$TMP/o" 2> "$TMP/e"
[ $? = 1 ] && grep -q 'note: the file is cut at byte 3328: the figures are partial' "$TMP/o" &&
	grep -q "truncated (it stops at byte offset 3328)" "$TMP/e" &&
	ok "drops on a cut file prints a partial-figures note and exits 1" ||
	fail "drops on rpt-drops.dat cut at 3328: $(cat "$TMP/o" "$TMP/e" | head -8)"
head -c 3104 "$S/rpt-drops.dat" > "$TMP/cut.dat"
"$F" drops "$TMP/cut.dat" > "$TMP/o" 2> "$TMP/e"
[ $? = 1 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -q 'note: the file is damaged' "$TMP/o" &&
	ok "drops on a file cut inside a chunk: one error, a note, exit 1" ||
	fail "drops on rpt-drops.dat cut at 3104: $(cat "$TMP/o" "$TMP/e" | head -8)"
for a in callgraph overhead drops; do
	"$F" $a --json "$TMP/cut.dat" 2>/dev/null | grep -q '^{"file":"[^"]*","partial":true,' &&
		"$F" $a --json "$S/rpt-drops.dat" | grep -q '^{"file":"[^"]*","partial":false,' &&
		ok "$a --json says partial on a damaged file only" || fail "$a --json: no partial field"
done
hip=$(ls "$FIXTURES"/HIP24*.dat 2>/dev/null | head -n 1)
if [ -n "$hip" ]; then
	head -c 2645648 "$hip" > "$TMP/hip.dat"
	for a in callgraph overhead drops export analyze; do
		"$F" $a "$TMP/hip.dat" > /dev/null 2> "$TMP/e"
		rc=$?
		[ $rc = 1 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && ok "$a on a cut HIP24 fixture: one error line" ||
			fail "$a on a cut HIP24 fixture: exit $rc, $(wc -l < "$TMP/e") lines: $(cat "$TMP/e")"
	done
fi

# ---- output errors name standard output once; a reader leaving is quiet -------
for a in callgraph overhead drops export analyze "export --html"; do
	"$F" $a "$S/lab-function-graph.dat" > /dev/full 2> "$TMP/e"
	rc=$?
	[ $rc = 1 ] && [ "$(cat "$TMP/e")" = "flytrap: error: cannot write to standard output: No space left on device" ] &&
		ok "$a >/dev/full: one line naming standard output" ||
		fail "$a >/dev/full: exit $rc: $(cat "$TMP/e")"
	"$F" $a "$S/lab-function-graph.dat" 2> "$TMP/e" | head -n 1 > /dev/null
	rc=${PIPESTATUS[0]}
	[ $rc = 0 ] && [ ! -s "$TMP/e" ] && ok "$a | head -1: exit 0, nothing on stderr" ||
		fail "$a | head -1: exit $rc: $(cat "$TMP/e")"
done
finish
