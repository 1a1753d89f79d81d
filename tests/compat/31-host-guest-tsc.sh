#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Host/guest files (trace-cmd record -A) and TSC clocks, built by mkcompat
# since this machine runs no guests: a guest file's TIME_SHIFT option
# (per-CPU offsets, scalings and fraction bits over time) corrects its
# timestamps in `trace-cmd report -i FILE`, and `flytrap report` must print
# the same lines: with and without interpolation, without fraction bits,
# in v7 zstd (little- and big-endian) and in trace-cmd's own v6 and
# uncompressed v7 conversions.
# info shows the trace ID, the peer and the host's guest list.  TSC2NSEC
# is checked with multipliers and shifts that reach trace-cmd's integer
# quirks, before and after the clock option.  Lies in the option sizes are
# an error naming a byte offset, never a crash.
. "$TOP/tests/lib.sh"
need_cmd trace-cmd
need_cmd python3
MK=$TOP/$O/tests/tools/mkcompat
[ -x "$MK" ] || skip "$MK is not built"

nfiles=0; nlines=0
same() {	# same FILE LABEL
	local f=$1 rc1 rc2
	timeout 60 trace-cmd report -i "$f" > "$f.tc" 2> "$f.tcerr"; rc1=$?
	timeout 60 "$FLYTRAP" report "$f" > "$f.fl" 2> "$f.flerr"; rc2=$?
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
		fail "$2: exit trace-cmd $rc1, flytrap $rc2: $(head -c 200 "$f.flerr")"
		return
	fi
	[ "$(wc -l < "$f.tc")" -gt 2 ] || { fail "$2: trace-cmd printed no events"; return; }
	if cmp -s "$f.tc" "$f.fl"; then
		nfiles=$((nfiles + 1)); nlines=$((nlines + $(wc -l < "$f.fl")))
	else
		fail "$2: differs from trace-cmd: $(diff "$f.tc" "$f.fl" | head -3 | tr '\n' '|')"
	fi
}

"$MK" guest "$TMP/g.dat" && same "$TMP/g.dat" "guest (interpolated)"
"$MK" guest "$TMP/g0.dat" --flags 0 && same "$TMP/g0.dat" "guest (stepwise)"
"$MK" guest "$TMP/gnf.dat" --nofraction && same "$TMP/gnf.dat" "guest without fraction bits"
"$MK" guest "$TMP/g2.dat" --flags 2 && same "$TMP/g2.dat" "guest (unknown flag bit)"
trace-cmd convert -i "$TMP/g.dat" -o "$TMP/g6.dat" --file-version 6 --compression none > /dev/null 2>&1 &&
	same "$TMP/g6.dat" "guest converted to v6 by trace-cmd"
trace-cmd convert -i "$TMP/g.dat" -o "$TMP/g7n.dat" --compression none > /dev/null 2>&1 &&
	same "$TMP/g7n.dat" "guest converted to uncompressed v7 by trace-cmd"
"$MK" host "$TMP/h.dat" && same "$TMP/h.dat" "host with GUEST options"
"$MK" guest "$TMP/gbe.dat" --be && same "$TMP/gbe.dat" "big-endian guest"
"$MK" host "$TMP/hbe.dat" --be && same "$TMP/hbe.dat" "big-endian host"
cmp -s "$TMP/g.dat.fl" "$TMP/gbe.dat.fl" && ok "big-endian guest: same lines as little-endian" ||
	fail "big-endian guest prints differently from little-endian"
"$FLYTRAP" info "$TMP/hbe.dat" | grep -q 'guest vm1, trace 0x6775657374303031, 2 vCPUs: 0=pid 4321, 1=pid 4322' &&
	ok "big-endian host: guest list" || fail "big-endian host: guest list wrong"

# the correction is really there: raw times of the uncorrected instance and
# CPU 0's +5 s, so a reader that ignored TIME_SHIFT could not pass
grep -q '^ *vcpu-a-1000 *\[000\] *5.500000: tick: *seq=0$' "$TMP/g.dat.fl" &&
	grep -q '^inst: *vcpu-a-1000 *\[000\] *3.000000: tick: *seq=901$' "$TMP/g.dat.fl" &&
	ok "guest: CPU 0 moved by +5 s, the instance left alone" || fail "guest: corrections not as expected"

for m in "1 0" "3 1" "2147483647 31" "4294967295 0" "3000000000 33" "1000 40" "7 63"; do
	# shellcheck disable=SC2086
	"$MK" tsc "$TMP/t.dat" $m && same "$TMP/t.dat" "tsc2nsec $m"
	# shellcheck disable=SC2086
	"$MK" tsc "$TMP/tc.dat" $m --clock-first && same "$TMP/tc.dat" "tsc2nsec $m, clock option first"
done
[ $nfiles -eq 23 ] && ok "$nfiles files, $nlines lines: flytrap report = trace-cmd report"

# info: trace id, peer, per-CPU samples; the host's guests and vCPU pids
"$FLYTRAP" info "$TMP/g.dat" > "$TMP/gi.txt" || fail "info on the guest file failed"
grep -q '^trace id: *0x6775657374303031$' "$TMP/gi.txt" &&
	grep -q '^time shift: *guest of host trace 0x686f737430303031, interpolated, 4 CPUs, fraction bits$' "$TMP/gi.txt" &&
	grep -q 'CPU 2: 4 samples' "$TMP/gi.txt" && ok "info: guest trace id, peer and samples" ||
	fail "info on the guest file: $(cat "$TMP/gi.txt")"
"$FLYTRAP" info "$TMP/h.dat" > "$TMP/hi.txt" || fail "info on the host file failed"
grep -q 'guest vm2, trace 0x6775657374303032, 3 vCPUs: 0=pid 5000, 1=pid 5001, 2=pid' "$TMP/hi.txt" &&
	ok "info: host guest list with vCPU -> pid" || fail "info on the host file: $(cat "$TMP/hi.txt")"
"$FLYTRAP" info --json "$TMP/h.dat" > "$TMP/h.json" && "$FLYTRAP" info --json "$TMP/g.dat" > "$TMP/g.json" ||
	fail "info --json failed"
python3 - "$TMP/h.json" "$TMP/g.json" <<'PY' && ok "info --json: guests, time shift" || fail "info --json: wrong guests or time shift"
import json, sys
h = json.load(open(sys.argv[1])); g = json.load(open(sys.argv[2]))
assert h["trace_id"] == 0x686f737430303031
assert [(x["name"], x["vcpu_pids"]) for x in h["guests"]] == [("vm1", [4321, 4322]), ("vm2", [5000, 5001, 5002])]
t = g["time_shift"]
assert t["peer_trace_id"] == 0x686f737430303031 and t["flags"] == 1 and t["fraction"]
assert [len(c) for c in t["cpus"]] == [1, 2, 4, 1]
assert [s["time"] for s in t["cpus"][2]] == [2000000000, 4000000000, 6000000000, 8000000000]
assert t["cpus"][2][0]["offset"] == 20000	# the first of the two samples at 2 s stays
PY

# sample values at the ends of the 64-bit range: wrapping arithmetic, no trap
"$MK" guest "$TMP/ext.dat" --bad extreme
timeout 60 "$FLYTRAP" report "$TMP/ext.dat" > "$TMP/ext.out" 2> "$TMP/ext.err"; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c tick: "$TMP/ext.out")" -eq 27 ] && ok "extreme TIME_SHIFT values: 27 events, no trap" ||
	fail "extreme TIME_SHIFT values: exit $rc, $(head -c 200 "$TMP/ext.err")"

# lies in TIME_SHIFT and GUEST sizes
for b in ts-ncpus ts-count ts-frac ts-short; do
	"$MK" guest "$TMP/bad.dat" --bad $b
	timeout 60 "$FLYTRAP" report "$TMP/bad.dat" > /dev/null 2> "$TMP/bad.err"; rc=$?
	[ $rc -eq 1 ] && grep -q 'TIME_SHIFT.*byte offset [0-9]' "$TMP/bad.err" && ok "$b: $(head -c 100 "$TMP/bad.err")" ||
		fail "$b: exit $rc, '$(head -c 200 "$TMP/bad.err")'"
done
for b in guest-nonul guest-vcpu guest-count guest-short; do
	"$MK" host "$TMP/bad.dat" --bad $b
	timeout 60 "$FLYTRAP" info "$TMP/bad.dat" > /dev/null 2> "$TMP/bad.err"; rc=$?
	[ $rc -eq 1 ] && grep -q 'GUEST.*byte offset [0-9]' "$TMP/bad.err" && ok "$b: $(head -c 100 "$TMP/bad.err")" ||
		fail "$b: exit $rc, '$(head -c 200 "$TMP/bad.err")'"
done
finish
