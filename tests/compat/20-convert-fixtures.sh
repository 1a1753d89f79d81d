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
need_cmd trace-cmd
need_fixtures

# KernelShark's path (libtracecmd per-CPU reads, CPU count from CPUCOUNT)
# must see every record trace-cmd report printed.
TW="$TOP/$O/tests/test_writer"
kshark_check() { # FILE REPORT_TXT LABEL
	local out want got
	[ -x "$TW" ] || return 0
	out=$("$TW" --kshark "$1" 2>/dev/null)
	[ $? = 77 ] && return 0
	want=$(grep -v '^cpus=' "$2" | grep -vc 'EVENTS DROPPED\]$')
	got=$(echo "$out" | sed -n 's/.* records=\([0-9]*\).*/\1/p')
	[ "$got" = "$want" ] || fail "$3: KernelShark path sees ${got:-no} records, trace-cmd report $want ($out)"
	echo "$out" | grep -q '^cpus=0 ' && fail "$3: tep_get_cpus() is 0, KernelShark would show nothing"
	return 0
}
files=0 lines=0
# event lines: everything but the "cpus=N" header trace-cmd prints first
count_events() { grep -vc '^cpus=' "$1" || true; }
# report --stat ends with where each CPU's data sits in the file and its
# size there: layout, not content, and different by design (compressed
# offsets are virtual, chunk sizes depend on the compressor).  Everything
# else in --stat (the CPUSTAT texts) must match.
stat_filter() { sed -E '/^CPU[0-9]+ data recorded at offset=/d; /^ +[0-9]+ bytes in size$/d'; }

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

# usage errors: one line, exit 2
"$FLYTRAP" convert 2>"$TMP/u1"; [ $? = 2 ] && [ "$(wc -l <"$TMP/u1")" = 1 ] || fail "no input: not a usage error"
"$FLYTRAP" convert "$f" 2>"$TMP/u2"; [ $? = 2 ] || fail "no -o: not a usage error"
"$FLYTRAP" convert "$f" -o "$TMP/x.dat" --compression lz4 2>"$TMP/u3"; [ $? = 2 ] || fail "lz4 accepted"
cp "$f" "$TMP/same.dat"
"$FLYTRAP" convert "$TMP/same.dat" -o "$TMP/same.dat" 2>/dev/null; [ $? = 2 ] || fail "output = input accepted"
cmp -s "$f" "$TMP/same.dat" || fail "convert onto its own input damaged it"
"$FLYTRAP" convert "$TMP/missing.dat" -o "$TMP/x.dat" 2>"$TMP/u4"; rc=$?
[ $rc = 1 ] && grep -q "missing.dat" "$TMP/u4" || fail "missing input: exit $rc, '$(cat "$TMP/u4")'"
"$FLYTRAP" convert --help | grep -q -- "--compression" || fail "--help"
finish
