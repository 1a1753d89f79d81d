#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The time index (a binary search on the pages' time stamps, fmt_iter_opts.seek):
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
