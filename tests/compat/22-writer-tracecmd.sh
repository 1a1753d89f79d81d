#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Files written from scratch by the writer and the page encoder (through
# test_writer --emit) in every layout flytrap can produce: little and big
# endian, 8- and 4-byte kernel longs, zstd and uncompressed, a one-page
# chunk size.  trace-cmd 3.1.6 must print every event with its fields, the
# stored lost-event count, the instance prefix, and accept the file in
# `trace-cmd dump --summary`; flytrap's own reader must print the same lines,
# and `flytrap convert` of each must print the same again.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_convert.sh"
need_cmd trace-cmd
TW="$TOP/$O/tests/test_writer"
[ -x "$TW" ] || skip "$TW is not built"

# test_writer --events 500: top buffer CPUs get 500, 507, 514 events, the
# "flytrap" instance 250, 257, 264; seq numbers run 0..2291 in write order.
want_total=2292 want_inst=771
for variant in "" "--be" "--long4" "--none" "--be --long4 --none" "--chunk 1" "--be --chunk 3"; do
	f="$TMP/w.dat"
	rm -f "$f"
	# shellcheck disable=SC2086
	"$TW" --emit "$f" --events 500 $variant || { fail "[$variant] test_writer --emit failed"; continue; }
	trace-cmd report "$f" >"$TMP/r.txt" 2>"$TMP/r.err" || { fail "[$variant] trace-cmd report failed: $(head -3 "$TMP/r.err")"; continue; }
	total=$(grep -c 'flytrap_test: *seq=' "$TMP/r.txt")
	inst=$(grep -c '^flytrap: .*flytrap_test:' "$TMP/r.txt")
	[ "$total" = $want_total ] || fail "[$variant] $total events, expected $want_total"
	[ "$inst" = $want_inst ] || fail "[$variant] $inst instance events, expected $want_inst"
	# every seq exactly once, with the fields the payload holds
	seqs=$(grep -o 'seq=[0-9]* value=[0-9]* msg=m[0-9]*' "$TMP/r.txt" |
		awk -F'[= ]' '$4 == $2 * 3 && $6 == "m" $2 { print $2 }' | sort -n | uniq | wc -l)
	[ "$seqs" = $want_total ] || fail "[$variant] $seqs distinct well-formed records"
	grep -q '^ *CPU:1 \[5 EVENTS DROPPED\]$' "$TMP/r.txt" || fail "[$variant] stored lost count not shown"
	head -1 "$TMP/r.txt" | grep -qx 'cpus=3' || fail "[$variant] CPU count: $(head -1 "$TMP/r.txt")"
	grep -q 'flytest-4242' "$TMP/r.txt" || fail "[$variant] cmdlines not applied"
	kshark_check "$f" "$TMP/r.txt" "[$variant]"
	trace-cmd dump --summary -i "$f" >/dev/null 2>&1 || fail "[$variant] trace-cmd dump --summary refuses it"
	trace-cmd report --stat "$f" 2>/dev/null | grep -q '^Buffer: flytrap$' || fail "[$variant] CPUSTAT of the instance missing"
	if "$FLYTRAP" report "$f" >"$TMP/f.txt" 2>"$TMP/f.err"; then
		cmp -s "$TMP/r.txt" "$TMP/f.txt" || { fail "[$variant] flytrap report differs from trace-cmd"; diff "$TMP/r.txt" "$TMP/f.txt" | head -5; }
	else
		fail "[$variant] flytrap report failed: $(head -c 200 "$TMP/f.err")"
	fi
	# trace-cmd itself can rewrite it (v6 and uncompressed) and print the same;
	# not for big-endian files, whose v6 instance offsets 3.1.6 writes in host order
	case "$variant" in
	*--be*) ;;
	*)
		for how in "--file-version 6" "--compression none"; do
			# shellcheck disable=SC2086
			trace-cmd convert $how -i "$f" -o "$TMP/tc.dat" >/dev/null 2>&1 &&
				trace-cmd report "$TMP/tc.dat" 2>/dev/null | cmp -s - "$TMP/r.txt" ||
				fail "[$variant] trace-cmd convert $how of it prints differently"
		done
		;;
	esac
	# and flytrap convert keeps it byte-for-byte readable (big-endian and 32-bit included)
	for comp in zstd none; do
		if "$FLYTRAP" convert "$f" -o "$TMP/c.dat" -c $comp 2>"$TMP/c.err"; then
			trace-cmd report "$TMP/c.dat" 2>/dev/null | cmp -s - "$TMP/r.txt" ||
				fail "[$variant] converted ($comp): trace-cmd report differs"
		else
			fail "[$variant] convert ($comp) failed: $(head -c 200 "$TMP/c.err")"
		fi
	done
	ok "[$variant] $total events ($inst in the instance) decoded by trace-cmd"
done
# A writer SIGKILLed after its last flush: fmt_writer_recover() must give a
# file trace-cmd and the KernelShark path read completely.
for variant in "" "--none --be"; do
	f="$TMP/crash.dat"
	rm -f "$f"
	# shellcheck disable=SC2086
	"$TW" --emit "$f" --events 500 --crash $variant || { fail "[crash $variant] writer did not die by SIGKILL"; continue; }
	ls -A "$TMP" | grep -q '^\.crash\.dat\..*\.spool\.' || fail "[crash $variant] no spool files after the kill"
	# the unfinished file is the writer's temporary one; nothing is at the output's name
	[ ! -e "$f" ] || fail "[crash $variant] a file at '$f' before it was finished"
	part=$(ls -A "$TMP" | grep -E '^\.crash\.dat\.[0-9a-f]{12}$')
	# before recovery it holds metadata only: no event can show
	[ -n "$part" ] && [ "$(trace-cmd report "$TMP/$part" 2>/dev/null | grep -c 'seq=')" = 0 ] ||
		fail "[crash $variant] no temporary file, or events in the unfinished file"
	"$TW" --emit "$f" --recover || { fail "[crash $variant] recover failed"; continue; }
	ls -A "$TMP" | grep -q '^\.crash\.dat\.' && fail "[crash $variant] spools or temporary file left after recover"
	trace-cmd report "$f" >"$TMP/r.txt" 2>/dev/null || { fail "[crash $variant] trace-cmd cannot read the recovered file"; continue; }
	total=$(grep -c 'flytrap_test: *seq=' "$TMP/r.txt")
	[ "$total" = $want_total ] && ok "[crash $variant] all $total flushed events back after recover" ||
		fail "[crash $variant] $total events after recover, expected $want_total"
	trace-cmd dump --summary -i "$f" >/dev/null 2>&1 || fail "[crash $variant] trace-cmd dump refuses the recovered file"
	kshark_check "$f" "$TMP/r.txt" "[crash $variant]"
done

# DATE (µs, hex) and OFFSET (ns) options shift every timestamp trace-cmd
# prints; convert must carry them.  First event: raw 1.000000000 s.
f="$TMP/d.dat"
"$TW" --emit "$f" --events 50 --opt 1=0x3e8 --opt 7=5000 || fail "emit with DATE/OFFSET failed"
first=$(trace-cmd report "$f" 2>/dev/null | sed -n 2p)
case "$first" in
*" 1.001005: flytrap_test:"*) ok "DATE + OFFSET applied by trace-cmd" ;;
*) fail "DATE/OFFSET not applied: $first" ;;
esac
"$FLYTRAP" convert "$f" -o "$TMP/dc.dat" 2>/dev/null && trace-cmd report "$TMP/dc.dat" 2>/dev/null | sed -n 2p | grep -qF "$first" ||
	fail "convert lost DATE/OFFSET"
finish
