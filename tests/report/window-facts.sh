#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 1500
# The time index's facts (FMT_SEC_FT_FACTS), its state records
# (FMT_SEC_FT_STATE) and the analyzers' windows:
#  - the writer's facts and state records match a full read of every CPU
#    (tests/tools/facts_check, whose own rules say which events each chunk
#    keeps): the shipped files and fixtures converted with one page per
#    chunk, a file whose tasks change pids and names across chunks with
#    losses (mkrpt names, also in a big-endian file), a 300,000-event bench
#    file, and the writer's test files in both byte orders, 4-byte longs,
#    uncompressed (these have no state events: their chunks' records are
#    checked empty); and
#    facts_check does see a state record's stamp or payload, or a chunk's
#    count of pages, changed in the file, and fails a file with facts and
#    no state records (unless told they are optional);
#  - callgraph, export, drops and overhead with --from/--to print byte for
#    byte what a full read prints (FLYTRAP_WINDOW_READ=full), stdout and
#    stderr, over seven windows of each of those files, with --comm, --pid,
#    --cpu, --json, --window and --syscalls options (overhead's two per
#    window) and 1 and 3 threads; analyze (all three at once) over three of
#    the windows of every file and all seven of the larger ones; export
#    --html and diff A A (both run overhead) over three windows of the
#    larger files;
#  - the windows did skip chunks (FLYTRAP_WINDOW_READ=say says so): callgraph,
#    drops, overhead and analyze on many of them, and on a 1% window of the
#    bench file drops, overhead and analyze skip what callgraph skips
#    (drops' time windows divide the window; overhead starts from the state
#    records of the chunks it skips);
#  - a skipped chunk that fails its checksum is not skipped: the damage is
#    reported as a full read reports it.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
FC=$TOP/$O/tests/tools/facts_check
MK=$TOP/$O/tests/tools/mkrpt
[ -x "$FC" ] && [ -x "$MK" ] || skip "facts_check or mkrpt not built"

# names, bench, the same tasks in a big-endian file with one page per chunk (its facts and
# state records too), and the shipped files and fixtures with one page per chunk
window_files "$TMP/w" "$MK" >/dev/null
"$FLYTRAP" info "$TMP/w/names-be-c1.dat" 2>/dev/null | grep -q 'big-endian' &&
	"$FLYTRAP" info "$TMP/w/names-be-c1.dat" | grep -q 'and state records' ||
	fail "names-be-c1.dat: not a big-endian file with state records"
"$FLYTRAP" convert --chunk 1 "$TMP/w/names.dat" -o "$TMP/w/names-c1.dat" 2>/dev/null ||
	fail "convert --chunk 1 names.dat"

# the facts and state records against the events
nf=0 nrec=0
for f in "$TMP"/w/*.dat; do
	out=$("$FC" "$f" 2>&1)
	case $? in
	0) nf=$((nf + 1))
	   n=$(echo "$out" | sed -n 's/.*state records: [0-9]* of [0-9]* streams, \([0-9]*\) in .*/\1/p')
	   nrec=$((nrec + ${n:-0})) ;;
	2) ;;	# no events, no facts
	*) fail "$(basename "$f"): $out" ;;
	esac
done
[ $nf -gt 10 ] && ok "the facts match a full read on $nf files" || fail "facts checked on $nf files only"
[ $nrec -gt 1000 ] && ok "$nrec state records match what the events leave" ||
	fail "only $nrec state records checked"
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

# facts_check is not blind: a state record's stamp or payload byte, or a chunk's count of pages
# that hold events, changed in the file (uncompressed: the section is plain bytes there) is a
# difference it reports (or the reader refuses the entry, which it also says)
if "$FLYTRAP" convert -c none "$TMP/w/names-c1.dat" -o "$TMP/st-none.dat" 2>/dev/null; then
	for what in stamp payload npages; do
		python3 - "$TMP/st-none.dat" "$TMP/st-bad.dat" $what <<'EOF' ||
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
what = sys.argv[3]
at = d.find(struct.pack('<HH', 0x4685, 0))
assert at > 0
p = at + 16
ver, n = struct.unpack_from('<II', d, p)
assert ver == 1
p += 8
# per CPU {u64 data offset, u32 cpu, u32 0, u32 chunks, u32 records}, its chunks {u32 pages,
# u32 records}, then its records {u64 stamp, u32 size, u32 0, payload padded to 8}
for e in range(n):
    chunks, recs = struct.unpack_from('<II', d, p + 16)
    tab = p + 24
    r = tab + 8 * chunks
    if recs and what == 'npages':
        # one page fewer than the chunk's (the reader takes any count up to its pages)
        k = next(k for k in range(chunks) if struct.unpack_from('<I', d, tab + 8 * k)[0])
        struct.pack_into('<I', d, tab + 8 * k, struct.unpack_from('<I', d, tab + 8 * k)[0] - 1)
        break
    if recs:
        # the first record of the first chunk with any: the first of the CPU
        if what == 'stamp':
            ts = struct.unpack_from('<Q', d, r)[0]
            assert ts > 0
            struct.pack_into('<Q', d, r, ts - 1)
        else:
            d[r + 16 + 2] ^= 0x40	# its common_flags
        break
    p = r
else:
    sys.exit('no state records')
open(sys.argv[2], 'wb').write(bytes(d))
EOF
		{ fail "cannot change the state section ($what)"; continue; }
		out=$("$FC" "$TMP/st-bad.dat" 2>&1)
		rc=$?
		case $rc:$out in
		1:*"state record 0 differs"*|1:*"pages hold events"*|1:*"no state records"*)
			ok "facts_check sees a changed state record ($what): $(echo "$out" | head -1)" ;;
		*) fail "facts_check on a changed state record ($what): exit $rc, '$out'" ;;
		esac
	done
	# and a file with facts but no state records (its FT_STATE options renamed; convert copies
	# the input's too) fails, unless the state records are optional
	python3 - "$TMP/st-none.dat" "$TMP/st-no.dat" <<'EOF' || fail "cannot rename FT_STATE"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
at = d.find(struct.pack('<HI', 0x4626, 8))
while at >= 0:
    struct.pack_into('<H', d, at, 0x46ff)
    at = d.find(struct.pack('<HI', 0x4626, 8), at)
open(sys.argv[2], 'wb').write(bytes(d))
EOF
	out=$("$FC" "$TMP/st-no.dat" 2>&1)
	rc=$?
	out2=$("$FC" --state-optional "$TMP/st-no.dat" 2>&1)
	rc2=$?
	[ $rc = 1 ] && [ "$out" = "facts_check: $TMP/st-no.dat: facts but no state records" ] &&
		[ $rc2 = 0 ] && ok "facts but no state records: exit 1; --state-optional: ${out2##*: }" ||
		fail "facts but no state records: exit $rc '$out', optional: exit $rc2 '$out2'"
else
	fail "convert -c none names-c1.dat"
fi

# seven windows of each file, with and without skipping
span() { "$FLYTRAP" info --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("events") and d.get("first_ts") is not None and d.get("clock") != "x86-tsc":
    print(d["first_ts"], d["last_ts"])'; }
runs=0 differ=0 skipped=0 dskipped=0 oskipped=0 askipped=0 said=0
# compare FILE FROM TO ARGS...: a full read of the window and a read that skips chunks print the
# same, stdout and stderr each.  The second runs with FLYTRAP_WINDOW_READ=say: $said is 1 when
# it skipped chunks, and its "window read:" lines (the first on stderr; diff reads two files)
# are left out of what is compared.  (Builtins and cmp only: it runs some 1200 times.)
compare() {
	local f=$1 from=$2 to=$3 r1 r2 first="" skip=0
	shift 3
	FLYTRAP_WINDOW_READ=full "$FLYTRAP" "$@" --from "$from" --to "$to" "$f" \
		>"$TMP/full.out" 2>"$TMP/full.err"
	r1=$?
	FLYTRAP_WINDOW_READ=say "$FLYTRAP" "$@" --from "$from" --to "$to" "$f" \
		>"$TMP/skip.out" 2>"$TMP/skip.err"
	r2=$?
	said=0
	while IFS= read -r first; do
		case $first in
		"window read: "*" chunks skipped"*) said=1 ;;&
		"window read: "*) skip=$((skip + ${#first} + 1)) ;;
		*) break ;;
		esac
	done <"$TMP/skip.err"
	runs=$((runs + 1))
	if [ $r1 != $r2 ] || ! cmp -s "$TMP/full.out" "$TMP/skip.out" ||
		! cmp -s "$TMP/full.err" "$TMP/skip.err" 0 $skip; then
		differ=$((differ + 1))
		tail -c +$((skip + 1)) "$TMP/skip.err" >"$TMP/skip.err2"
		fail "$* --from $from --to $to $(basename "$f"): a full read and the skipping one differ" \
			"(exit $r1, $r2; $(diff "$TMP/full.out" "$TMP/skip.out" | head -3 | cut -c1-160 |
				tr '\n' ' ')$(diff "$TMP/full.err" "$TMP/skip.err2" | head -3 | cut -c1-160 |
				tr '\n' ' '))"
	fi
}
for f in "$TMP"/w/*.dat; do
	read -r a z < <(span "$f")
	[ -n "$a" ] || continue
	big=0
	case ${f##*/} in names*|bench*|sample*|getpid*) big=1 ;; esac
	# light: the options on three of the big files (names.dat and getpid-switch.dat repeat
	# what names-c1.dat and sample.dat show), the plain commands on the others
	if light; then
		case ${f##*/} in names.dat|getpid*) big=0 ;; esac
	fi
	wi=0
	# the seven windows, as fractions of the span
	while read -r from to <&3; do
		wi=$((wi + 1))
		# light: windows 1, 3 and 7 of the big files (every option still runs on one of
		# them), 3 (the 1% window, which skips the most) of the others
		if light; then
			case $big:$wi in *:2|*:4|*:6|0:1|0:7) continue ;; esac
		fi
		compare "$f" "$from" "$to" callgraph
		skipped=$((skipped + said))
		compare "$f" "$from" "$to" export
		compare "$f" "$from" "$to" drops
		dskipped=$((dskipped + said))
		compare "$f" "$from" "$to" overhead
		oskipped=$((oskipped + said))
		if [ $big = 1 ] || [ $wi = 1 ] || [ $wi = 3 ] || [ $wi = 7 ]; then
			compare "$f" "$from" "$to" analyze
			askipped=$((askipped + said))
		fi
		[ $big = 1 ] || continue
		compare "$f" "$from" "$to" callgraph --json --threads 1
		compare "$f" "$from" "$to" callgraph --comm 'w0-e1*' --threads 3
		compare "$f" "$from" "$to" export --comm 'w1-*'
		compare "$f" "$from" "$to" export --pid 1011,2000 --threads 1
		compare "$f" "$from" "$to" export --cpu 1
		compare "$f" "$from" "$to" drops --json --threads 1
		compare "$f" "$from" "$to" drops --window 3ms --cpu 1
		compare "$f" "$from" "$to" drops --window 1ns
		# overhead's options, two on each window (a run of sample.dat costs 0.1 s)
		case $wi in
		1|3|5|7)
			compare "$f" "$from" "$to" overhead --json --threads 1 --syscalls tracepoints
			compare "$f" "$from" "$to" overhead --cpu 0 --threads 3 ;;
		*)
			compare "$f" "$from" "$to" overhead --pid 1011,2000,1000 --top 5
			compare "$f" "$from" "$to" overhead --comm 'w0-*' --comm 'bench-*' --comm 'getpid*' ;;
		esac
		case $wi in 2|3|5)
			light && [ $wi = 5 ] && continue
			compare "$f" "$from" "$to" export --html
			compare "$f" "$from" "$to" diff "$f" ;;
		esac
	done 3< <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
for p, q in ((0.45, 0.55), (0.2, 0.9), (0.5, 0.51), (0, 0.3), (0.7, 1.2), (0.999, 1), (-1, 0.001)):
    print('%.9f %.9f' % ((a + (z - a) * p) / 1e9, (a + (z - a) * q) / 1e9))" "$a" "$z")
done
# how many of the windows must have skipped chunks (light: fewer windows, above)
min=30 amin=20
light && min=20 amin=15
[ $runs -gt 100 ] && [ $differ = 0 ] &&
	ok "$runs windowed runs print the same skipping chunks and reading everything" ||
	fail "$differ of $runs windowed runs differ"
[ $skipped -gt $min ] && ok "$skipped of the callgraph windows skipped chunks" ||
	fail "only $skipped windows skipped any chunk"
[ $dskipped -gt $min ] && ok "$dskipped of the drops windows skipped chunks" ||
	fail "only $dskipped drops windows skipped any chunk"
[ $oskipped -gt $min ] && ok "$oskipped of the overhead windows skipped chunks" ||
	fail "only $oskipped overhead windows skipped any chunk"
[ $askipped -gt $amin ] && ok "$askipped of the analyze windows skipped chunks" ||
	fail "only $askipped analyze windows skipped any chunk"

# a 1% window of the bench file reads a small part of it
say1() {
	{ FLYTRAP_WINDOW_READ=say "$FLYTRAP" "$@" --from 100.04 --to 100.0415 "$TMP/w/bench.dat" \
		>/dev/null; } 2>&1
}
out=$(say1 callgraph)
case $out in *"chunks skipped"*) ok "bench.dat, a 1% window: $out" ;; *) fail "bench.dat 1% window: '$out'" ;; esac
# drops counts the window alone (its time windows divide it), overhead starts from the skipped
# chunks' state records, analyze runs both and callgraph: each skips what callgraph skips
for cmd in drops overhead analyze; do
	out2=$(say1 $cmd)
	[ "$out2" = "$out" ] && ok "$cmd on bench.dat, the same 1% window: $out2" ||
		fail "$cmd on a 1% window: '$out2', callgraph: '$out'"
done

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
compare "$TMP/w/damaged.dat" "$from" "$to" overhead
"$FLYTRAP" callgraph --from "$from" --to "$to" "$TMP/w/damaged.dat" >/dev/null 2>"$TMP/dmg.err"
rc=$?
[ $rc != 0 ] && grep -qi "checksum\|damaged\|corrupt" "$TMP/dmg.err" &&
	ok "a damaged chunk outside the window is still reported (exit $rc: $(head -1 "$TMP/dmg.err"))" ||
	fail "damage outside the window: exit $rc, '$(head -2 "$TMP/dmg.err" | tr '\n' ' ')'"

# windows wholly after the file's last event and before its first: nothing read, and the
# file's span they print (a note, the JSON's notes) is still a full read's
read -r a z < <(span "$TMP/w/names-c1.dat")
for w in "$(((z + 1000000000) / 1000000000)).5 $(((z + 1000000000) / 1000000000)).6" \
	 "0.000001 $(awk -v a="$a" 'BEGIN { printf "%.9f", (a - 1000) / 1e9 }')"; do
	read -r from to <<<"$w"
	for cmd in overhead "overhead --json" callgraph drops "drops --json" export; do
		# shellcheck disable=SC2086
		compare "$TMP/w/names-c1.dat" "$from" "$to" $cmd
	done
done

# a rewritten file whose writer keeps no facts (FLYTRAP_WRITER_FACTS=0) carries none of the
# input's either: its old FT_FACTS and FT_STATE options would point into the new file
nm=$TMP/w/names-c1.dat
FLYTRAP_WRITER_FACTS=0 "$FLYTRAP" convert "$nm" -o "$TMP/nf-conv.dat" 2>/dev/null
FLYTRAP_WRITER_FACTS=0 "$FLYTRAP" slice --to "$(span "$nm" | awk '{ printf "%.9f", $2 / 1e9 }')" \
	"$nm" -o "$TMP/nf-slice.dat" >/dev/null 2>&1
FLYTRAP_WRITER_FACTS=0 "$FLYTRAP" redact "$nm" -o "$TMP/nf-red.dat" >/dev/null 2>&1
for f in nf-conv nf-slice nf-red; do
	st=$("$FLYTRAP" info --json "$TMP/$f.dat" 2>/dev/null | python3 -c 'import json, sys
t = json.load(sys.stdin)["time_index"]
print(t.get("facts"), t.get("state"))')
	[ "$st" = "none none" ] && ok "$f: no facts or state records of the input's (facts, state: $st)" ||
		fail "$f: facts, state: '$st' (the input's options copied?)"
done
finish
