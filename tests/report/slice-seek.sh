#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 1200
# slice --from with the time index: the chunks before the cut are not read
# (the names, processes and each CPU's last switch come from the index's
# facts and state records), and the slice is byte for byte the one a full
# read writes (FLYTRAP_WINDOW_READ=full), with the same summary on stdout
# (--json: events_read counts the skipped chunks' events) and stderr:
#  - the shipped files and fixtures converted with one page per chunk,
#    mkrpt names (also big-endian) and bench files, each over six windows, with --pid, --comm, --cpu and -e on
#    some; a slice of a slice;
#  - many of those runs did skip chunks (FLYTRAP_WINDOW_READ=say), and
#    those of files with function-graph or ufunc/kfunc records before the
#    cut did not (the calls open at the cut need every call before it), nor
#    those of a file whose OFFSET takes stamps below zero (mkrpt wrap:
#    adjusted, they are out of order; the analyzers' windows read it whole
#    too) or whose state records come from a writer before the wakeup and
#    call records (the entries' flag cleared); the shipped files as they
#    are, too;
#  - mkrpt names without call records, whose tasks take new names every
#    epoch and whose next task is named on the other CPU first: the
#    slice's cmdlines keep each task's first name in merge order, as a
#    full read does; a thread whose process only a BPF record at the
#    start gives still has its process's maps kept; a window near its
#    end skips 90% of the chunks.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
MK=$TOP/$O/tests/tools/mkrpt
[ -x "$MK" ] || skip "mkrpt not built"
X=${FIXTURES:-$TOP/../shared/fixtures}

mkdir -p "$TMP/w"
"$MK" names "$TMP/names.dat" 60000 >/dev/null || fail "mkrpt names"
# the same without call records: its tasks take new names every epoch, pids come back under
# other names, and CPU 1 names CPU 0's next task first: the first name a slice's cmdlines take
# is not the last
MKRPT_NO_CALLS=1 "$MK" names "$TMP/names-nc.dat" 60000 >/dev/null || fail "mkrpt names (no calls)"
# and in a big-endian file: the state records' event ids and fields in that byte order
MKRPT_BIG_ENDIAN=1 MKRPT_NO_CALLS=1 "$MK" names "$TMP/names-nc-be.dat" 20000 >/dev/null ||
	fail "mkrpt names (no calls, big-endian)"
"$MK" bench "$TMP/bench.dat" 100000 >/dev/null || fail "mkrpt bench"
chunk1_copies "$TMP/w" "$TMP/names.dat" "$TMP/names-nc.dat" "$TMP/names-nc-be.dat" "$TMP/bench.dat" \
	tests/data/*.dat "$X"/*.dat >/dev/null
# the shipped files as they are too (some were written before the state records had wakeups and
# calls: those read from the start)
for f in tests/data/*.dat; do cp "$f" "$TMP/w/raw-$(basename "$f")"; done
# an OFFSET option that takes the first stamps below zero: adjusted, they are out of order
"$MK" wrap "$TMP/wrap.dat" 2000 >/dev/null && "$FLYTRAP" convert --chunk 1 "$TMP/wrap.dat" \
	-o "$TMP/w/wrap.dat" 2>/dev/null || fail "mkrpt wrap"
# state records of a writer before the wakeup and call records: the entries' flag cleared
# (an uncompressed copy, whose sections are stored as they are)
"$FLYTRAP" convert -c none --chunk 1 "$TMP/names-nc.dat" -o "$TMP/nc-none.dat" 2>/dev/null ||
	fail "convert -c none names-nc.dat"
python3 - "$TMP/nc-none.dat" "$TMP/w/oldstate.dat" <<'PY' || fail "cannot clear the state flags"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
# the FT_STATE option (0x4626) holds the section's offset; the section: u16 id, u16 flags, u32
# description offset, u64 size, then u32 version, u32 n and the entries
at = d.find(struct.pack('<HI', 0x4626, 8))
sec = struct.unpack_from('<Q', d, at + 6)[0]
assert struct.unpack_from('<H', d, sec)[0] == 0x4685
flags = struct.unpack_from('<H', d, sec + 2)[0]
assert flags & 1 == 0, 'a compressed section'
p = sec + 16 + 8
for e in range(struct.unpack_from('<I', d, sec + 16 + 4)[0]):
    nch, nrec = struct.unpack_from('<II', d, p + 16)
    assert struct.unpack_from('<I', d, p + 12)[0] == 1
    struct.pack_into('<I', d, p + 12, 0)
    q = p + 24 + 8 * nch
    for r in range(nrec):
        q += 16 + (struct.unpack_from('<I', d, q + 8)[0] + 7) // 8 * 8
    p = q
open(sys.argv[2], 'wb').write(bytes(d))
PY

span() { "$FLYTRAP" info --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("events") and d.get("first_ts") is not None and d.get("clock") != "x86-tsc":
    print(d["first_ts"], d["last_ts"])'; }

runs=0 differ=0 skipped=0 said=0
# same FILE FROM TO ARGS...: the slice and what slice prints, read whole and skipping
same() {
	local f=$1 from=$2 to=$3 r1 r2
	shift 3
	# one output name for both (--json prints it)
	rm -f "$TMP/full.dat" "$TMP/skip.dat" "$TMP/o.dat"
	FLYTRAP_WINDOW_READ=full "$FLYTRAP" slice "$@" --from "$from" --to "$to" "$f" \
		-o "$TMP/o.dat" >"$TMP/full.out" 2>"$TMP/full.err"
	r1=$?
	[ -e "$TMP/o.dat" ] && mv "$TMP/o.dat" "$TMP/full.dat"
	FLYTRAP_WINDOW_READ=say "$FLYTRAP" slice "$@" --from "$from" --to "$to" "$f" \
		-o "$TMP/o.dat" >"$TMP/skip.out" 2>"$TMP/skip.err"
	r2=$?
	[ -e "$TMP/o.dat" ] && mv "$TMP/o.dat" "$TMP/skip.dat"
	said=0
	grep -q '^slice: [0-9]* of [0-9]* chunks skipped$' "$TMP/skip.err" && said=1
	grep -v '^slice: [0-9]* of [0-9]* chunks skipped$\|^slice: reads from the start: ' \
		"$TMP/skip.err" >"$TMP/skip.err2"
	runs=$((runs + 1))
	skipped=$((skipped + said))
	if [ $r1 != $r2 ] || ! cmp -s "$TMP/full.out" "$TMP/skip.out" ||
		! cmp -s "$TMP/full.err" "$TMP/skip.err2" ||
		{ [ -e "$TMP/full.dat" ] && ! cmp -s "$TMP/full.dat" "$TMP/skip.dat"; } ||
		{ [ ! -e "$TMP/full.dat" ] && [ -e "$TMP/skip.dat" ]; }; then
		differ=$((differ + 1))
		fail "slice $* --from $from --to $to $(basename "$f"): a full read and the skipping one" \
			"differ (exit $r1, $r2; $(cmp "$TMP/full.dat" "$TMP/skip.dat" 2>&1 | head -1)" \
			"$(diff "$TMP/full.out" "$TMP/skip.out" | head -3 | cut -c1-160 | tr '\n' ' ')" \
			"$(diff "$TMP/full.err" "$TMP/skip.err2" | head -3 | cut -c1-160 | tr '\n' ' '))"
	fi
}

calls_skipped=0
for f in "$TMP"/w/*.dat; do
	read -r a z < <(span "$f")
	[ -n "$a" ] || continue
	wi=0
	while read -r from to <&3; do
		wi=$((wi + 1))
		# light: windows 1 to 4 (each with its option) of the mkrpt files, 3 (the 1%
		# window, which skips the most) of the others, and of the shipped files as they are
		# (raw-*) two only
		if light; then
			case ${f##*/}:$wi in
			names*:[1-4]|bench*:[1-4]|raw-rpt-sched*:[13]|raw-sample*:[13]) ;;
			raw-*|*:[12456]) continue ;;
			esac
		fi
		same "$f" "$from" "$to"
		# function_graph records from its start to its end
		case ${f##*/} in lab-function-graph*) calls_skipped=$((calls_skipped + said)) ;; esac
		same "$f" "$from" "$to" --json
		case $wi in
		1) same "$f" "$from" "$to" --pid 1011,2000,1 ;;
		2) same "$f" "$from" "$to" --comm 'w0-*' --comm 'bench-*' --comm 'k*' ;;
		3) same "$f" "$from" "$to" --cpu 1 ;;
		4) same "$f" "$from" "$to" -e sched_switch -e 'raw_syscalls:*' ;;
		esac
	done 3< <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
for p, q in ((0.45, 0.55), (0.2, 0.9), (0.5, 0.51), (0.7, 1.2), (0.999, 1), (-1, 0.001)):
    print('%.9f %.9f' % ((a + (z - a) * p) / 1e9, (a + (z - a) * q) / 1e9))" "$a" "$z")
done
# a slice of a slice: its own index, with the state at the first cut in its metadata
read -r a z < <(span "$TMP/w/names-nc.dat")
read -r from to from2 to2 < <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
print(' '.join('%.9f' % ((a + (z - a) * p) / 1e9) for p in (0.3, 0.8, 0.5, 0.6)))" "$a" "$z")
"$FLYTRAP" slice --from "$from" --to "$to" "$TMP/w/names-nc.dat" -o "$TMP/w2.dat" 2>/dev/null ||
	fail "slice names-nc.dat"
same "$TMP/w2.dat" "$from2" "$to2"

# the two that must read from the start, and say why
read -r a z < <(span "$TMP/w/oldstate.dat")
read -r from to < <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
print('%.9f %.9f' % ((a + (z - a) * 0.7) / 1e9, (a + (z - a) * 0.8) / 1e9))" "$a" "$z")
for f in wrap oldstate; do
	# (wrap.dat: after the stamps that went below zero)
	if [ $f = wrap ]; then same "$TMP/w/$f.dat" 0.0003 0.0005; else same "$TMP/w/$f.dat" "$from" "$to"; fi
	why=$(grep '^slice: reads from the start' "$TMP/skip.err")
	case $f:$why in
	wrap:*"out of order once adjusted"*|oldstate:*"without wakeups and calls"*)
		ok "$f.dat: $why" ;;
	*) fail "$f.dat: '$why'" ;;
	esac
done
# and the analyzers' windows read the wrapped file whole too, printing what a full read prints
for cmd in callgraph drops export; do
	FLYTRAP_WINDOW_READ=full "$FLYTRAP" $cmd --from 0.0003 --to 0.0005 "$TMP/w/wrap.dat" \
		>"$TMP/a.full" 2>&1
	FLYTRAP_WINDOW_READ=say "$FLYTRAP" $cmd --from 0.0003 --to 0.0005 "$TMP/w/wrap.dat" \
		>"$TMP/a.skip" 2>&1
	cmp -s "$TMP/a.full" "$TMP/a.skip" && ok "$cmd of wrap.dat: the same, read whole" ||
		fail "$cmd of wrap.dat: $(diff "$TMP/a.full" "$TMP/a.skip" | head -3 | tr '\n' ' ')"
done

[ $runs -gt 100 ] && [ $differ = 0 ] &&
	ok "$runs slices are the same skipping chunks and reading everything" ||
	fail "$differ of $runs slices differ"
min=40
light && min=15
[ $skipped -gt $min ] && ok "$skipped of the slices skipped chunks" ||
	fail "only $skipped slices skipped any chunk"
[ $calls_skipped = 0 ] && ok "no slice of a file with call records skipped chunks" ||
	fail "$calls_skipped slices of files with call records skipped chunks"

# a window near the end of names-nc.dat reads a small part of it
read -r a z < <(span "$TMP/w/names-nc.dat")
read -r from to < <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
print('%.9f %.9f' % ((a + (z - a) * 0.95) / 1e9, (a + (z - a) * 0.96) / 1e9))" "$a" "$z")
out=$(FLYTRAP_WINDOW_READ=say "$FLYTRAP" slice --from "$from" --to "$to" "$TMP/w/names-nc.dat" \
	-o "$TMP/b1.dat" 2>&1 >/dev/null | grep '^slice:')
read -r _ sk _ all _ <<<"$out"
[ -n "$sk" ] && [ $((sk * 100)) -ge $((all * 90)) ] && ok "names-nc.dat, 1% at 95%: $out" ||
	fail "names-nc.dat, 1% at 95%: '$out'"
# task 1000 runs again in names-nc.dat's sixth epoch; only a BPF record at the start says it is a
# thread of process 900: a slice there keeps 900's maps, from the facts' tgid when it skips
read -r from to < <(python3 -c "import sys
a, z = int(sys.argv[1]), int(sys.argv[2])
print('%.9f %.9f' % ((a + (z - a) * 0.52) / 1e9, (a + (z - a) * 0.525) / 1e9))" "$a" "$z")
same "$TMP/w/names-nc.dat" "$from" "$to"
[ $said = 1 ] && "$FLYTRAP" info "$TMP/skip.dat" | grep -q '^  maps_kept=1$' &&
	ok "a slice in the sixth epoch skips chunks and keeps process 900's maps" ||
	fail "sixth epoch: skipped $said, $("$FLYTRAP" info "$TMP/skip.dat" | grep maps_)"
# names-nc.dat's tasks have other names before the cut than at it: the slice's cmdlines say
# the first (as trace-cmd's sched plugin names them reading the whole file)
n=$(trace-cmd report -i "$TMP/b1.dat" 2>/dev/null | grep -c 'w[01]-e[0-9]')
[ "$n" -gt 0 ] && ok "trace-cmd reads the slice: $n lines of epoch-named tasks" ||
	fail "trace-cmd report of the names-nc.dat slice"
finish
