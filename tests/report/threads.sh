#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Reader threads (fmt_iter_opts.threads, --threads): report, analyze and
# export (and slice's output) print the same bytes (output, messages, exit status) with one
# reading thread and with two or three, on the shipped files, the fixtures,
# a 300,000-event file written by flytrap (zstd and uncompressed), a copy
# with a chunk that fails its checksum and a truncated copy.  A wrong
# --threads is a usage error.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
MK=$TOP/$O/tests/tools/mkrpt
[ -x "$MK" ] || skip "mkrpt not built"
X=${FIXTURES:-$TOP/../shared/fixtures}

"$MK" bench "$TMP/m.dat" 300000 >/dev/null || { fail "mkrpt bench failed"; finish; }
"$FLYTRAP" convert -c none "$TMP/m.dat" -o "$TMP/m-none.dat" 2>/dev/null || fail "convert -c none failed"
# one byte changed in the middle of the CPU data: that chunk fails its checksum
size=$(stat -c %s "$TMP/m.dat")
cp "$TMP/m.dat" "$TMP/damaged.dat"
printf '\xa5' | dd of="$TMP/damaged.dat" bs=1 seek=$((size / 2)) conv=notrunc status=none
head -c $((size * 2 / 3)) "$TMP/m.dat" >"$TMP/cut.dat"

# run N FILE CMD...: output, stderr and status of one command with N threads
run() {
	local n=$1 f=$2
	shift 2
	"$FLYTRAP" "$@" --threads "$n" "$f" >"$TMP/out.$n" 2>"$TMP/err.$n"
	echo "status $?" >>"$TMP/err.$n"
}

n=0
for f in tests/data/*.dat "$X"/*.dat "$TMP"/m.dat "$TMP"/m-none.dat "$TMP"/damaged.dat "$TMP"/cut.dat; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	for cmd in report analyze export; do
		run 1 "$f" "$cmd"
		# light (the sanitizer run): three threads only
		ts="2 3"
		light && ts=3
		for t in $ts; do
			run "$t" "$f" "$cmd"
			if ! cmp -s "$TMP/out.1" "$TMP/out.$t" || ! cmp -s "$TMP/err.1" "$TMP/err.$t"; then
				fail "$b: $cmd --threads $t differs from --threads 1"
				diff "$TMP/err.1" "$TMP/err.$t" | head -5
			fi
		done
	done
	n=$((n + 1))
done
[ "$n" -gt 10 ] && ok "report, analyze and export print the same with 1, 2 and 3 threads on $n files" ||
	fail "only $n files compared"

lines=$(wc -l <"$TMP/out.1")
"$FLYTRAP" report --threads 1 "$TMP/m.dat" >"$TMP/r1" 2>&1
"$FLYTRAP" report --threads 2 --from 100.05 --to 100.06 "$TMP/m.dat" >"$TMP/w2" 2>&1
"$FLYTRAP" report --threads 1 --from 100.05 --to 100.06 "$TMP/m.dat" >"$TMP/w1" 2>&1
[ "$(grep -c ': ' "$TMP/r1")" -ge 300000 ] && cmp -s "$TMP/w1" "$TMP/w2" && [ -s "$TMP/w1" ] &&
	ok "a window of the 300,000-event file is the same with 1 and 2 threads" ||
	fail "report window differs across thread counts (or the listing is short: $lines lines)"
grep -q 'checksum' "$TMP/err.1" 2>/dev/null || true
"$FLYTRAP" report --threads 2 "$TMP/damaged.dat" 2>&1 >/dev/null | grep -q 'fail their checksum' &&
	ok "the damaged copy's checksum message comes through the threads" ||
	fail "no checksum message for the damaged copy with 2 threads"

# slice reads through the same iterator: the slices list the same with 1 and 2 threads
for t in 1 2; do
	"$FLYTRAP" slice --threads "$t" --from 100.02 --to 100.04 "$TMP/m.dat" -o "$TMP/s$t.dat" 2>"$TMP/se$t" ||
		fail "slice --threads $t failed: $(head -1 "$TMP/se$t")"
	"$FLYTRAP" report "$TMP/s$t.dat" >"$TMP/sl$t" 2>&1
done
[ -s "$TMP/sl1" ] && cmp -s "$TMP/sl1" "$TMP/sl2" && cmp -s "$TMP/se1" "$TMP/se2" &&
	ok "slice --threads 1 and 2 write the same events ($(wc -l <"$TMP/sl1") lines)" ||
	fail "slice --threads 1 and 2 differ"

for bad in 0 -1 x 100000; do
	"$FLYTRAP" report --threads "$bad" "$TMP/m.dat" >/dev/null 2>"$TMP/e"
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -q -- '--threads' "$TMP/e" ||
		fail "report --threads $bad: exit $rc, $(head -1 "$TMP/e")"
	"$FLYTRAP" analyze --threads "$bad" "$TMP/m.dat" >/dev/null 2>"$TMP/e"
	rc=$?
	[ "$rc" = 2 ] && grep -q -- '--threads' "$TMP/e" || fail "analyze --threads $bad: exit $rc"
done
ok "a wrong --threads is one usage line, exit 2"
finish
