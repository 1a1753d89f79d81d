#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The time index (fmt_iter_opts.seek): the one the writer stores
# (FMT_OPT_FT_TIMEINDEX), or a binary search on the pages' time stamps:
#  - every file flytrap writes has a stored index (`info` says so, text and
#    --json): the writer's, convert's (of a trace-cmd file), slice's and
#    merge's; a copy trace-cmd rewrote has none it can use (the option's
#    offset no longer points at the section: refused);
#  - report --from/--to prints the same with the stored index, without
#    seeking (FLYTRAP_NO_SEEK=1), on the trace-cmd copy (the search), and
#    as the full listing cut to the window;
#  - on every shipped file and fixture (v6, v7 zstd, zlib, uncompressed,
#    several buffers), an iterator that seeks to T returns from T on exactly
#    the events a full read returns from T on (tests/tools/seek_check);
#  - on a 600,000-event file, zstd and uncompressed, too;
#  - `flytrap sql` over a 1% time window of a 2,000,000-event file decodes
#    about 1% of its event data (at most 3%: the search's probes add
#    log2(chunks) chunks per CPU), and counts what a query that cannot use
#    the index counts.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
SC=$TOP/$O/tests/tools/seek_check
MK=$TOP/$O/tests/tools/mkrpt
[ -x "$SC" ] && [ -x "$MK" ] || skip "seek_check or mkrpt not built"
X=${FIXTURES:-$TOP/../shared/fixtures}

n=0
for f in tests/data/*.dat "$X"/*.dat; do
	[ -f "$f" ] || continue
	if out=$("$SC" "$f" 6 2>&1); then
		n=$((n + 1))
	else
		fail "$(basename "$f"): $out"
	fi
done
[ $n -gt 5 ] && ok "seeking gives the events a full read gives, on $n shipped files and fixtures" ||
	fail "only $n files checked"

"$MK" bench "$TMP/m.dat" 600000 >/dev/null || { fail "mkrpt bench failed"; finish; }
"$FLYTRAP" convert -c none "$TMP/m.dat" -o "$TMP/m-none.dat" 2>/dev/null || fail "convert -c none failed"
for f in m.dat m-none.dat; do
	out=$("$SC" "$TMP/$f" 8 2>&1) && ok "$f: seeking to 9 times gives what a full read gives" ||
		fail "$f: $out"
done

"$MK" bench "$TMP/big.dat" 2000000 >/dev/null || { fail "mkrpt bench 2000000 failed"; finish; }
read -r t0 t1 < <("$FLYTRAP" sql --csv -c "select min(ts), max(ts) from ftrace_event" "$TMP/big.dat" | tail -1 | tr ',' ' ')
lo=$((t0 + (t1 - t0) * 60 / 100)) hi=$((t0 + (t1 - t0) * 61 / 100))
bytes_of() { sed -n 's/.*: \([0-9]*\) bytes of event data.*/\1/p' "$1"; }
"$FLYTRAP" -v sql --csv -c "select count(*) from ftrace_event where ts between $lo and $hi" "$TMP/big.dat" \
	>"$TMP/w.csv" 2>"$TMP/w.err"
"$FLYTRAP" -v sql --csv -c "select count(*) from ftrace_event where ts + 0 between $lo and $hi" "$TMP/big.dat" \
	>"$TMP/f.csv" 2>"$TMP/f.err"
nw=$(tail -1 "$TMP/w.csv") nf=$(tail -1 "$TMP/f.csv")
bw=$(bytes_of "$TMP/w.err") bf=$(bytes_of "$TMP/f.err")
[ -n "$nw" ] && [ "$nw" = "$nf" ] && [ "$nw" -gt 0 ] && ok "a 1% window counts $nw events, with the index and without" ||
	fail "window counts: $nw with the index, $nf without"
if [ -n "$bw" ] && [ -n "$bf" ] && [ "$bf" -gt 0 ] && [ $((bw * 100)) -le $((bf * 3)) ]; then
	ok "the 1% window decoded $bw of $bf bytes ($(awk -v a="$bw" -v b="$bf" 'BEGIN { printf "%.2f", 100 * a / b }')%)"
else
	fail "the 1% window decoded $bw of $bf bytes"
fi

# report --from/--to seeks (and stops after --to): the same lines as a read from the start
t0s=$(awk -v a="$lo" 'BEGIN { printf "%.6f", a / 1e9 }') t1s=$(awk -v a="$hi" 'BEGIN { printf "%.6f", a / 1e9 }')
"$FLYTRAP" report --from "$t0s" --to "$t1s" "$TMP/big.dat" >"$TMP/seek.txt" 2>&1
FLYTRAP_NO_SEEK=1 "$FLYTRAP" report --from "$t0s" --to "$t1s" "$TMP/big.dat" >"$TMP/noseek.txt" 2>&1
n=$(grep -vc '^cpus=' "$TMP/seek.txt")
[ "$n" -gt 1000 ] && cmp -s "$TMP/seek.txt" "$TMP/noseek.txt" &&
	ok "report --from $t0s --to $t1s: $n lines, the same with the time index and without" ||
	fail "report --from/--to: $n lines; with and without the index differ"
# the stored index: which files have one
tix() { "$FLYTRAP" info "$1" 2>/dev/null | sed -n 's/^time index: *//p'; }
case $(tix "$TMP/big.dat") in stored,*) ok "a file the writer made has a stored index: $(tix "$TMP/big.dat")" ;;
	*) fail "big.dat: time index '$(tix "$TMP/big.dat")'" ;; esac
js=$("$FLYTRAP" info --json "$TMP/big.dat" | python3 -c 'import json,sys; t = json.load(sys.stdin)["time_index"]; print(t["status"], t["chunks"])')
case $js in "stored "[1-9]*) ok "info --json: time_index $js" ;; *) fail "info --json time_index: $js" ;; esac
tc=$(ls "$X"/*.dat 2>/dev/null | head -1)
if [ -n "$tc" ] && "$FLYTRAP" convert "$tc" -o "$TMP/conv.dat" 2>/dev/null; then
	[ "$(tix "$tc" | cut -c1-4)" = none ] && [ "$(tix "$TMP/conv.dat" | cut -c1-6)" = stored ] &&
		ok "convert adds an index to a trace-cmd file ($(basename "$tc"))" ||
		fail "convert: $(tix "$tc") -> $(tix "$TMP/conv.dat")"
fi
"$FLYTRAP" slice --from "$t0s" --to "$t1s" "$TMP/big.dat" -o "$TMP/slice.dat" 2>/dev/null &&
	[ "$(tix "$TMP/slice.dat" | cut -c1-6)" = stored ] && ok "a slice has a stored index" ||
	fail "slice: time index '$(tix "$TMP/slice.dat")'"
"$MK" bench "$TMP/m2.dat" 20000 >/dev/null &&
	"$FLYTRAP" merge "$TMP/m.dat" "$TMP/m2.dat" -o "$TMP/merged.dat" >/dev/null 2>&1
if [ -f "$TMP/merged.dat" ]; then
	[ "$(tix "$TMP/merged.dat" | cut -c1-6)" = stored ] && ok "a merged file has a stored index" ||
		fail "merge: time index '$(tix "$TMP/merged.dat")'"
fi

# the same window with the index, without seeking, from a trace-cmd copy, and cut from the full listing
cutwin() { # FROM TO: the listing's event lines whose printed time is in [FROM, TO]
	awk -v lo="${1/./}" -v hi="${2/./}" '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
		t = $i; sub(":", "", t); sub("\\.", "", t); if (t + 0 >= lo + 0 && t + 0 <= hi + 0) print; break } }'
}
if command -v trace-cmd >/dev/null 2>&1 &&
	trace-cmd convert -i "$TMP/big.dat" -o "$TMP/tc.dat" --file-version 7 --compression zstd >/dev/null 2>&1; then
	case $(tix "$TMP/tc.dat") in stored*) fail "the trace-cmd copy claims a usable index" ;; esac
	"$FLYTRAP" report --from "$t0s" --to "$t1s" "$TMP/tc.dat" >"$TMP/tcw.txt" 2>&1
	cmp -s "$TMP/seek.txt" "$TMP/tcw.txt" && ok "the window from the trace-cmd copy (no index: the search) is the same" ||
		fail "the window from the trace-cmd copy differs"
else
	echo "note: trace-cmd convert unavailable, the trace-cmd copy is not compared"
fi
"$FLYTRAP" report "$TMP/big.dat" 2>/dev/null | cutwin "$t0s" "$t1s" >"$TMP/cut.txt"
grep -v '^cpus=' "$TMP/seek.txt" >"$TMP/seek-ev.txt"
[ -s "$TMP/cut.txt" ] && cmp -s "$TMP/cut.txt" "$TMP/seek-ev.txt" &&
	ok "the window is the full listing cut to [$t0s, $t1s] ($(wc -l <"$TMP/cut.txt") lines)" ||
	fail "the window differs from the full listing cut to it ($(wc -l <"$TMP/cut.txt") vs $(wc -l <"$TMP/seek-ev.txt") lines)"

# a lying or damaged index (untrusted input): refused or caught, the window stays exact
lie() { # IN OUT MODE: rewrite the index section of an uncompressed file
	python3 - "$@" <<'PY'
import random, struct, sys
src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
d = bytearray(open(src, "rb").read())
at = -1
while True:
    at = d.find(struct.pack("<HH", 0x4683, 0), at + 1)
    if at < 0:
        sys.exit("no index section")
    if struct.unpack_from("<I", d, at + 16)[0] == 1:
        break
size = struct.unpack_from("<Q", d, at + 8)[0]
p, end = at + 16, at + 16 + size
if mode.startswith("random"):
    random.seed(mode)
    for _ in range(12):
        d[random.randrange(p + 8, end)] = random.randrange(256)
else:
    q = p + 8
    while q + 24 <= end:
        n = struct.unpack_from("<I", d, q + 16)[0]
        q += 24
        for k in range(n):
            f, l = struct.unpack_from("<QQ", d, q)
            # stamps still in order, but earlier than the pages' own: a seek
            # that believed them would start too late
            struct.pack_into("<QQ", d, q, f - 3000000, l - 3000000)
            q += 24
open(dst, "wb").write(d)
PY
}
want=$(FLYTRAP_NO_SEEK=1 "$FLYTRAP" report --from 100.05 --to 100.06 "$TMP/m-none.dat" 2>&1 | md5sum)
for mode in shift random1 random2 random3 random4; do
	lie "$TMP/m-none.dat" "$TMP/lie.dat" "$mode" || { fail "cannot rewrite the index ($mode)"; continue; }
	got=$("$FLYTRAP" report --from 100.05 --to 100.06 "$TMP/lie.dat" 2>&1 | md5sum)
	[ "$got" = "$want" ] || fail "an index rewritten ($mode): report --from/--to differs"
	"$FLYTRAP" info "$TMP/lie.dat" >/dev/null 2>&1 || fail "info fails on the rewritten index ($mode)"
done
ok "an index whose stamps lie or whose bytes are damaged changes no window"

for f in tests/data/*.dat "$X"/*.dat; do
	[ -f "$f" ] || continue
	"$FLYTRAP" report "$f" >"$TMP/all.txt" 2>/dev/null || continue
	t=$(awk '/: / { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); t[n++] = $i; break } }
		END { if (n) print t[int(n / 2)] }' "$TMP/all.txt")
	[ -n "$t" ] || continue
	"$FLYTRAP" report --from "$t" "$f" >"$TMP/a.txt" 2>&1
	FLYTRAP_NO_SEEK=1 "$FLYTRAP" report --from "$t" "$f" >"$TMP/b.txt" 2>&1
	cmp -s "$TMP/a.txt" "$TMP/b.txt" || fail "$(basename "$f"): report --from $t differs with the time index"
done
ok "report --from the middle prints the same with the index and without, on every file"
finish
