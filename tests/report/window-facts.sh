#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The time index's facts (FMT_SEC_FT_FACTS) and the analyzers' windows:
#  - the writer's facts match a full read of every CPU (tests/tools/
#    facts_check): the shipped files and fixtures converted with one page
#    per chunk, a file whose tasks change pids and names across chunks
#    with losses (mkrpt names), a 300,000-event bench file, and the
#    writer's test files in both byte orders, 4-byte longs, uncompressed;
#  - callgraph, export and drops with --from/--to print byte for byte what
#    a full read prints (FLYTRAP_WINDOW_READ=full), over seven windows of
#    each of those files, with --comm, --pid, --cpu and --window options and
#    1 and 3 threads; and the windows did skip chunks (FLYTRAP_WINDOW_READ=
#    say says so), drops as many as callgraph (its time windows divide the
#    window);
#  - a skipped chunk that fails its checksum is not skipped: the damage is
#    reported as a full read reports it;
#  - analyze (whose overhead needs every event) is unchanged.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
FC=$TOP/$O/tests/tools/facts_check
MK=$TOP/$O/tests/tools/mkrpt
[ -x "$FC" ] && [ -x "$MK" ] || skip "facts_check or mkrpt not built"
X=${FIXTURES:-$TOP/../shared/fixtures}

mkdir -p "$TMP/w"
"$MK" names "$TMP/w/names.dat" 200000 >/dev/null || fail "mkrpt names"
"$MK" bench "$TMP/w/bench.dat" 300000 >/dev/null || fail "mkrpt bench"
"$FLYTRAP" convert --chunk 1 "$TMP/w/names.dat" -o "$TMP/w/names-c1.dat" 2>/dev/null ||
	fail "convert --chunk 1 names.dat"
for f in tests/data/*.dat "$X"/*.dat; do
	[ -f "$f" ] || continue
	"$FLYTRAP" convert --chunk 1 "$f" -o "$TMP/w/$(basename "$f")" 2>/dev/null
done

# the facts against the events
nf=0
for f in "$TMP"/w/*.dat; do
	out=$("$FC" "$f" 2>&1)
	case $? in
	0) nf=$((nf + 1)) ;;
	2) ;;	# no events, no facts
	*) fail "$(basename "$f"): $out" ;;
	esac
done
[ $nf -gt 10 ] && ok "the facts match a full read on $nf files" || fail "facts checked on $nf files only"
# other byte orders, long sizes, chunk sizes and no compression (the writer's own test files)
TW=$TOP/$O/tests/test_writer
if [ -x "$TW" ]; then
	for a in "--be" "--be --long4" "--long4 --chunk 1" "--be --chunk 2" "--none --be" "--none"; do
		# shellcheck disable=SC2086
		"$TW" --emit "$TMP/e.dat" $a --events 3000 >/dev/null 2>&1 &&
			out=$("$FC" "$TMP/e.dat" 2>&1) && ok "test_writer $a: ${out#*: }" ||
			fail "test_writer $a: facts: $out"
	done
fi

# seven windows of each file, with and without skipping
span() { "$FLYTRAP" info --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("events") and d.get("first_ts") is not None and d.get("clock") != "x86-tsc":
    print(d["first_ts"], d["last_ts"])'; }
runs=0 differ=0 skipped=0 dskipped=0
compare() { # FILE FROM TO ARGS...
	local f=$1 from=$2 to=$3 r1 r2
	shift 3
	FLYTRAP_WINDOW_READ=full "$FLYTRAP" "$@" --from "$from" --to "$to" "$f" >"$TMP/full.out" 2>&1
	r1=$?
	"$FLYTRAP" "$@" --from "$from" --to "$to" "$f" >"$TMP/skip.out" 2>&1
	r2=$?
	runs=$((runs + 1))
	if [ $r1 != $r2 ] || ! cmp -s "$TMP/full.out" "$TMP/skip.out"; then
		differ=$((differ + 1))
		fail "$* --from $from --to $to $(basename "$f"): a full read and the skipping one differ" \
			"($(diff "$TMP/full.out" "$TMP/skip.out" | head -3 | tr '\n' ' '))"
	fi
}
for f in "$TMP"/w/*.dat; do
	read -r a z < <(span "$f")
	[ -n "$a" ] || continue
	for w in "0.45 0.55" "0.2 0.9" "0.5 0.51" "0 0.3" "0.7 1.2" "0.999 1" "-1 0.001"; do
		read -r from to < <(python3 -c "import sys
a, z, p, q = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
print('%.9f %.9f' % ((a + (z - a) * p) / 1e9, (a + (z - a) * q) / 1e9))" "$a" "$z" $w)
		if FLYTRAP_WINDOW_READ=say "$FLYTRAP" callgraph --from "$from" --to "$to" "$f" 2>&1 >/dev/null |
			grep -q "chunks skipped"; then
			skipped=$((skipped + 1))
		fi
		if FLYTRAP_WINDOW_READ=say "$FLYTRAP" drops --from "$from" --to "$to" "$f" 2>&1 >/dev/null |
			grep -q "chunks skipped"; then
			dskipped=$((dskipped + 1))
		fi
		compare "$f" "$from" "$to" callgraph
		compare "$f" "$from" "$to" export
		compare "$f" "$from" "$to" drops
		case $(basename "$f") in names*|bench*|sample*|getpid*)
			compare "$f" "$from" "$to" callgraph --json --threads 1
			compare "$f" "$from" "$to" callgraph --comm 'w0-e1*' --threads 3
			compare "$f" "$from" "$to" export --comm 'w1-*'
			compare "$f" "$from" "$to" export --pid 1011,2000 --threads 1
			compare "$f" "$from" "$to" export --cpu 1
			compare "$f" "$from" "$to" drops --json --threads 1
			compare "$f" "$from" "$to" drops --window 3ms --cpu 1
			compare "$f" "$from" "$to" drops --window 1ns
			compare "$f" "$from" "$to" analyze ;;
		esac
	done
done
[ $runs -gt 100 ] && [ $differ = 0 ] &&
	ok "$runs windowed runs print the same skipping chunks and reading everything" ||
	fail "$differ of $runs windowed runs differ"
[ $skipped -gt 30 ] && ok "$skipped of the callgraph windows skipped chunks" ||
	fail "only $skipped windows skipped any chunk"
[ $dskipped -gt 30 ] && ok "$dskipped of the drops windows skipped chunks" ||
	fail "only $dskipped drops windows skipped any chunk"

# a 1% window of the bench file reads a small part of it
out=$(FLYTRAP_WINDOW_READ=say "$FLYTRAP" callgraph --from 100.04 --to 100.0415 "$TMP/w/bench.dat" 2>&1 >/dev/null)
case $out in *"chunks skipped"*) ok "bench.dat, a 1% window: $out" ;; *) fail "bench.dat 1% window: '$out'" ;; esac
# drops counts the window alone (its time windows divide it): it skips what callgraph skips
out2=$(FLYTRAP_WINDOW_READ=say "$FLYTRAP" drops --from 100.04 --to 100.0415 "$TMP/w/bench.dat" 2>&1 >/dev/null)
[ "$out2" = "$out" ] && ok "drops on bench.dat, the same 1% window: $out2" ||
	fail "drops on a 1% window: '$out2', callgraph: '$out'"

# damage in a chunk the window would skip: read, and reported as a full read reports it
off=$("$FLYTRAP" info --json "$TMP/w/names-c1.dat" | python3 -c 'import json, sys
print(json.load(sys.stdin)["buffers"][0]["cpus"][0]["offset"])')
python3 - "$TMP/w/names-c1.dat" "$TMP/w/damaged.dat" "$off" <<'PY' || fail "cannot damage a chunk"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = int(sys.argv[3])
# CPU 0's data: u32 chunk count, then chunks {u32 csize, u32 usize, frame}; the second one's frame
csize = struct.unpack_from('<I', d, off + 4)[0]
second = off + 4 + 8 + csize
d[second + 8 + 20] ^= 0xff
open(sys.argv[2], 'wb').write(bytes(d))
PY
read -r a z < <(span "$TMP/w/names-c1.dat")
read -r from to < <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
print('%.9f %.9f' % ((a + (z - a) * 0.6) / 1e9, (a + (z - a) * 0.62) / 1e9))" "$a" "$z")
compare "$TMP/w/damaged.dat" "$from" "$to" callgraph
compare "$TMP/w/damaged.dat" "$from" "$to" export
compare "$TMP/w/damaged.dat" "$from" "$to" drops
"$FLYTRAP" callgraph --from "$from" --to "$to" "$TMP/w/damaged.dat" >/dev/null 2>"$TMP/dmg.err"
rc=$?
[ $rc != 0 ] && grep -qi "checksum\|damaged\|corrupt" "$TMP/dmg.err" &&
	ok "a damaged chunk outside the window is still reported (exit $rc: $(head -1 "$TMP/dmg.err"))" ||
	fail "damage outside the window: exit $rc, '$(head -2 "$TMP/dmg.err" | tr '\n' ' ')'"
finish
