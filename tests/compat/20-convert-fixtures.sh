#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap convert on every fixture, trace-cmd as the oracle: `trace-cmd
# report` (plain and --stat) prints exactly the same on the converted file
# as on the original, for zstd and uncompressed output; `trace-cmd dump
# --summary` accepts the output; converting the output again changes
# nothing.  The zlib fixture cannot be read by trace-cmd 3.1.6, so there the
# oracle is `flytrap report` on the original against `trace-cmd report` on
# the converted file.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_convert.sh"
need_cmd trace-cmd
need_fixtures

files=0 lines=0
# event lines: everything but the "cpus=N" header trace-cmd prints first
count_events() { grep -vc '^cpus=' "$1" || true; }

for f in "$FIXTURES"/*.dat; do
	name=$(basename "$f")
	zlib=0
	head -c 64 "$f" | grep -aq zlib && zlib=1
	if [ $zlib = 1 ]; then
		"$FLYTRAP" report "$f" >"$TMP/orig.txt" 2>"$TMP/orig.err" ||
			{ fail "$name: flytrap report failed: $(head -c 300 "$TMP/orig.err")"; continue; }
	else
		trace-cmd report "$f" >"$TMP/orig.txt" 2>/dev/null ||
			{ fail "$name: trace-cmd cannot read the original"; continue; }
		trace-cmd report --stat "$f" 2>/dev/null | stat_filter >"$TMP/orig.stat"
	fi
	for comp in zstd none; do
		out="$TMP/conv-$comp.dat"
		rm -f "$out"
		if ! "$FLYTRAP" convert "$f" -o "$out" --compression $comp 2>"$TMP/err"; then
			fail "$name ($comp): convert failed: $(head -c 300 "$TMP/err")"
			continue
		fi
		[ "$(stat -c %a "$out")" = 600 ] || fail "$name ($comp): output mode $(stat -c %a "$out")"
		trace-cmd report "$out" >"$TMP/new.txt" 2>"$TMP/new.err"
		# trace-cmd 3.1.6 parses the empty TRACECLOCK option old v6 writers
		# left from uninitialised memory, so on those originals it now and
		# then prints raw nanoseconds: ask it again before calling it a
		# difference (flytrap's output names the clock and is stable)
		tries=0
		while [ $zlib = 0 ] && [ $tries -lt 4 ] && ! cmp -s "$TMP/orig.txt" "$TMP/new.txt"; do
			trace-cmd report "$f" >"$TMP/orig.txt" 2>/dev/null
			tries=$((tries + 1))
		done
		if cmp -s "$TMP/orig.txt" "$TMP/new.txt"; then
			n=$(count_events "$TMP/new.txt")
			ok "$name ($comp): $n event lines identical"
			lines=$((lines + n))
		else
			fail "$name ($comp): trace-cmd report differs"
			diff "$TMP/orig.txt" "$TMP/new.txt" | head -10
		fi
		if [ $zlib = 0 ]; then
			trace-cmd report --stat "$out" 2>/dev/null | stat_filter >"$TMP/new.stat"
			cmp -s "$TMP/orig.stat" "$TMP/new.stat" || fail "$name ($comp): report --stat differs"
		fi
		kshark_check "$out" "$TMP/new.txt" "$name ($comp)"
		trace-cmd dump --summary -i "$out" >/dev/null 2>&1 || fail "$name ($comp): trace-cmd dump --summary refuses the output"
		if [ "$comp" = zstd ]; then
			# a converted file converts to the same thing again
			if ! "$FLYTRAP" convert "$out" -o "$TMP/again.dat" 2>"$TMP/again.err"; then
				fail "$name: converting the converted file failed: $(head -c 300 "$TMP/again.err")"
			else
				trace-cmd report "$TMP/again.dat" >"$TMP/again.txt" 2>&1
				cmp -s "$TMP/again.txt" "$TMP/new.txt" ||
					{ fail "$name: converting the converted file changes the report"; diff "$TMP/new.txt" "$TMP/again.txt" | head -5; }
			fi
		fi
	done
	files=$((files + 1))
done
[ $files -gt 0 ] || fail "no fixtures found in $FIXTURES"
echo "compared $files files, $lines event lines (zstd + none)"

# --keep-symbols: the kept symbols and the ones bounding them, nothing else;
# the function graph still prints the same names.  --kallsyms: the given
# symbols replace the file's.
G=$TOP/tests/data/lab-function-graph.dat
if [ -s "$G" ]; then
	trace-cmd dump --kallsyms "$G" 2>/dev/null | grep -E '^[0-9a-f]+ ' >"$TMP/ks.all"
	trace-cmd report "$G" 2>/dev/null >"$TMP/g.txt"
	sed -nE 's/.*\| +([A-Za-z_][A-Za-z0-9_.]*)\(\) \{$/\1/p; s/.*\| +([A-Za-z_][A-Za-z0-9_.]*)\(\);$/\1/p' "$TMP/g.txt" |
		sort -u >"$TMP/names"
	# every name the graph prints: trace-cmd prints the same listing
	"$FLYTRAP" convert "$G" -o "$TMP/keep.dat" --keep-symbols "$TMP/names" 2>"$TMP/keep.err" ||
		fail "--keep-symbols: convert failed: $(head -c 300 "$TMP/keep.err")"
	trace-cmd report "$TMP/keep.dat" 2>/dev/null | cmp -s - "$TMP/g.txt" &&
		ok "--keep-symbols: trace-cmd prints the same function graph" ||
		fail "--keep-symbols: trace-cmd report differs"
	# 40 of them: those 40 and at most one bounding symbol each
	head -40 "$TMP/names" >"$TMP/names40"
	"$FLYTRAP" convert "$G" -o "$TMP/keep40.dat" --keep-symbols "$TMP/names40" 2>/dev/null
	trace-cmd dump --kallsyms "$TMP/keep40.dat" 2>/dev/null | grep -E '^[0-9a-f]+ ' >"$TMP/ks.keep"
	all=$(wc -l <"$TMP/ks.all") kept=$(wc -l <"$TMP/ks.keep")
	missing=$(awk '{print $3}' "$TMP/ks.keep" | sort -u | comm -13 - "$TMP/names40" | head -3)
	[ "$kept" -ge 40 ] && [ "$kept" -le 80 ] && [ -z "$missing" ] &&
		ok "--keep-symbols: $kept of $all symbols kept for 40 names" ||
		fail "--keep-symbols: $kept of $all kept for 40 names (missing: $missing)"
	# a zero address for every name trace-cmd prints: the names go away
	awk '{ printf "%016x %s %s\n", 0, $2, $3 }' "$TMP/ks.all" >"$TMP/zero.ks"
	"$FLYTRAP" convert "$G" -o "$TMP/zero.dat" --kallsyms "$TMP/zero.ks" 2>"$TMP/zero.err" ||
		fail "--kallsyms: convert failed: $(head -c 300 "$TMP/zero.err")"
	trace-cmd dump --kallsyms "$TMP/zero.dat" 2>/dev/null | grep -E '^[0-9a-f]+ ' | cmp -s - "$TMP/zero.ks" &&
		ok "--kallsyms: the file carries the given symbols" || fail "--kallsyms: symbols not replaced"
	"$FLYTRAP" convert "$TMP/zero.dat" -o "$TMP/back.dat" --kallsyms "$TMP/ks.all" 2>/dev/null &&
		trace-cmd report "$TMP/back.dat" 2>/dev/null | cmp -s - "$TMP/g.txt" &&
		ok "--kallsyms: the real symbols put back give the original listing" ||
		fail "--kallsyms: restoring the symbols does not restore the listing"
	echo "not symbols" >"$TMP/bad.ks"
	"$FLYTRAP" convert "$G" -o "$TMP/bad.dat" --kallsyms "$TMP/bad.ks" 2>"$TMP/bad.err"; rc=$?
	[ $rc = 1 ] && [ ! -e "$TMP/bad.dat" ] && grep -q "not a kallsyms file" "$TMP/bad.err" &&
		ok "--kallsyms: a file that is not kallsyms is refused" ||
		fail "--kallsyms on junk: exit $rc, '$(cat "$TMP/bad.err")'"
	# endless or binary input is refused at once, never read forever
	for opt in --kallsyms --keep-symbols; do
		timeout 20 "$FLYTRAP" convert "$G" -o "$TMP/z.dat" $opt /dev/zero 2>"$TMP/z.err"; rc=$?
		[ $rc = 1 ] && [ ! -e "$TMP/z.dat" ] && grep -q "binary data" "$TMP/z.err" &&
			ok "$opt /dev/zero: refused" || fail "$opt /dev/zero: exit $rc, '$(cat "$TMP/z.err")'"
	done
	"$FLYTRAP" convert "$G" -o "$TMP/p.dat" --keep-symbols <(echo do_sys_openat2) 2>/dev/null &&
		[ "$(trace-cmd dump --kallsyms "$TMP/p.dat" 2>/dev/null | grep -cE '^[0-9a-f]+ ')" = 2 ] &&
		ok "--keep-symbols from a pipe: the symbol and its end" || fail "--keep-symbols from a pipe"
fi

# usage errors: one line, exit 2
"$FLYTRAP" convert 2>"$TMP/u1"; [ $? = 2 ] && [ "$(wc -l <"$TMP/u1")" = 1 ] || fail "no input: not a usage error"
"$FLYTRAP" convert "$f" 2>"$TMP/u2"; [ $? = 2 ] || fail "no -o: not a usage error"
"$FLYTRAP" convert "$f" -o "$TMP/x.dat" --compression lz4 2>"$TMP/u3"; [ $? = 2 ] || fail "lz4 accepted"
cp "$f" "$TMP/same.dat"
"$FLYTRAP" convert "$TMP/same.dat" -o "$TMP/same.dat" 2>/dev/null; [ $? = 2 ] || fail "output = input accepted"
cmp -s "$f" "$TMP/same.dat" || fail "convert onto its own input damaged it"
"$FLYTRAP" convert "$TMP/missing.dat" -o "$TMP/x.dat" 2>"$TMP/u4"; rc=$?
[ $rc = 1 ] && grep -q "missing.dat" "$TMP/u4" || fail "missing input: exit $rc, '$(cat "$TMP/u4")'"
"$FLYTRAP" convert "$f" -o "$TMP/x.dat" --kallsyms 2>"$TMP/u5"; [ $? = 2 ] || fail "--kallsyms without a value accepted"
"$FLYTRAP" convert --help | grep -q -- "--compression" || fail "--help"
finish
