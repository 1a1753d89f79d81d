#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# record --bpf-object (docs/bpf.md, "Your own program"): three programs of
# tests/live/bpfobj/ compiled with clang now, against the project's
# vmlinux.h.  A hash map of bytes written per pid: a process that writes
# exactly 1 MiB in 4 KiB writes has 1048576 in sql's bpf_map.  A ring
# buffer of a struct with a string and integers: trace-cmd and report print
# its fields by name, one event per write of the workload.  A program the
# verifier refuses: exit 1, the verifier's reason, the whole log in a file,
# nothing left attached.  Plus the usage errors, and no program left after a
# normal end or SIGINT.  FLYTRAP_BIN=path runs another binary (the static one).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
FT=${FLYTRAP_BIN:-$FLYTRAP}
need_bpf_object "$FT"
need_cmd trace-cmd
cd "$TMP" || exit 1
export TMPDIR=$TMP

for p in wbytes ring refused; do
	bpfobj_cc "$p" "$p.bpf.o" 2>"cc-$p.err" || { cat "cc-$p.err"; fail "clang cannot build $p.bpf.c"; exit 1; }
done
ok "clang built wbytes, ring and refused against $VMH/vmlinux.h"

# our programs (names ftt_*) still loaded: none may be, after any recording ends
[ -z "$(ours)" ] || skip "ftt_ programs already loaded (another run of this test?)"

# ---- usage errors: exit 2, one line ------------------------------------------------
usage() {	# DESCRIPTION ARGS...
	local what=$1
	shift
	"$FT" record -q -o u.dat -d 1 "$@" >/dev/null 2>u.err
	local rc=$?
	[ $rc = 2 ] && [ "$(wc -l <u.err)" = 1 ] && ok "$what: usage error: $(cat u.err)" ||
		fail "$what: exit $rc, $(wc -l <u.err) lines: $(head -3 u.err)"
	[ -e u.dat ] && fail "$what: left u.dat"
	rm -f u.dat
}
usage "--bpf-set without an object" --bpf-set x=1 -e sched:sched_switch
usage "an object that does not exist" --bpf-object nothere.bpf.o
usage "a variable no object has" --bpf-object wbytes.bpf.o --bpf-set no_such_var=1
usage "a value that does not fit" --bpf-object wbytes.bpf.o --bpf-set target_comm=abcdefghijklmnopqrstuvwxyz
usage "a bad --bpf-set" --bpf-object wbytes.bpf.o --bpf-set =1
usage "a file that is not a BPF object" --bpf-object "$SRC/wbytes.bpf.c"
[ -z "$(ours)" ] && ok "nothing loaded after the usage errors" || fail "left loaded: $(ours)"

# ---- hash map and ring buffer: one recording, the workload's exact bytes ----------
# dd with status=none writes only its data: 256 writes of 4096 bytes to /dev/null
"$FT" record -q -o w.dat --bpf-object wbytes.bpf.o --bpf-object ring.bpf.o \
	--bpf-set target_comm=dd --bpf-snapshot 100ms \
	-- dd if=/dev/zero of=/dev/null bs=4096 count=256 status=none >rec.out 2>rec.err
rc=$?
[ $rc = 0 ] && ok "recorded with two objects" || { fail "record exited $rc: $(head -5 rec.err)"; exit 1; }
[ -z "$(ours)" ] && ok "nothing loaded after a normal end" || fail "left loaded: $(ours)"

"$FT" sql -c "select key_int, value_int from bpf_map where map = 'wbytes/bytes' and why = 'end'" \
	--csv w.dat >sql.out 2>sql.err || fail "sql failed: $(head -3 sql.err)"
rows=$(grep -c . sql.out)
val=$(tail -n +2 sql.out | cut -d, -f2)
pid=$(tail -n +2 sql.out | cut -d, -f1)
[ "$val" = 1048576 ] && ok "sql: bpf_map has dd's pid $pid with 1048576 bytes" ||
	fail "sql: bpf_map rows: $(cat sql.out)"
[ "$rows" = 2 ] || fail "sql: expected one entry (dd) at the end, got: $(cat sql.out)"
"$FT" sql -c "select value_int from bpf_map where map = 'wbytes/calls' and why = 'end'" --csv w.dat |
	tail -n +1 | grep -qx 256 && ok "sql: the per-CPU count sums to 256 calls" ||
	fail "sql: per-CPU calls: $("$FT" sql -c "select * from bpf_map where map = 'wbytes/calls'" w.dat 2>&1 | head -5)"
snaps=$("$FT" sql -c "select count(distinct ts) from bpf_map where why = 'snapshot'" --csv w.dat | tail -1)
[ "${snaps:-0}" -ge 1 ] && ok "--bpf-snapshot 100ms: $snaps snapshots stored" ||
	echo "note: no periodic snapshot (the command ran under 100 ms)"

"$FT" report --bpf-maps w.dat >maps.txt 2>maps.err || fail "report --bpf-maps: $(head -3 maps.err)"
grep -q "^wbytes/bytes at .* (end): 1 entry" maps.txt && grep -q "{\"key\":$pid,\"value\":1048576}" maps.txt &&
	ok "report --bpf-maps: $(grep -m1 'wbytes/bytes.*(end)' maps.txt)" ||
	fail "report --bpf-maps: $(head -5 maps.txt)"
"$FT" report --bpf-maps --json w.dat | jq -e '[.[] | select(.map == "wbytes/calls" and .why == "end")][0].entries[0].value.sum == 256' >/dev/null &&
	ok "report --bpf-maps --json: per-CPU values summed" || fail "report --bpf-maps --json"

trace-cmd report -i w.dat >tc.out 2>tc.err || fail "trace-cmd report failed: $(head -3 tc.err)"
n=$(grep -c ' ring_events: .*comm=dd$' tc.out)
[ "$n" = 256 ] && ok "trace-cmd prints 256 ring_events by field name" ||
	fail "trace-cmd: $n ring_events of dd: $(grep -m3 ring_events tc.out)"
grep -m1 ' ring_events: ' tc.out | grep -q "pid=$pid fd=1 count=4096 comm=dd" &&
	ok "fields by name: $(grep -m1 ' ring_events: ' tc.out | sed 's/.*ring_events: *//')" ||
	fail "fields: $(grep -m1 ' ring_events: ' tc.out)"
grep -q "UNKNOWN EVENT" tc.out && fail "[UNKNOWN EVENT] in trace-cmd's listing"
n=$("$FT" report w.dat 2>/dev/null | grep -c " ring_events: .*count=4096 comm=dd")
[ "$n" = 256 ] && ok "flytrap report prints the same 256 events" || fail "flytrap report: $n events"
# the records carry bpf_ktime_get_ns(): the events' time stamps are theirs
awk '/ ring_events: /{ split($0, a, "ts="); split(a[2], b, " "); t = $4; sub(":", "", t);
	d = t * 1e9 - b[1]; if (d < 0) d = -d; if (d > 2000) bad++ } END { exit bad > 0 }' tc.out &&
	ok "time stamps are the records' ts fields" || fail "time stamps differ from the ts fields"
"$FT" info w.dat >info.txt 2>info.err || fail "info: $(head -3 info.err)"
sha=$(sha256sum wbytes.bpf.o | cut -d' ' -f1)
grep -q "wbytes  sha256 $sha" info.txt && grep -q "program ftt_count_write tracepoint/syscalls/sys_enter_write attached" info.txt &&
	grep -q "events of events ring_events events_event records=256 raw=0 truncated=0 drops=0" info.txt &&
	ok "info lists the objects with sha256, programs and event counts" ||
	fail "info: $(sed -n '/BPF objects/,$p' info.txt | head -12)"
"$FT" info --json w.dat | jq -e '.bpf_objects | length == 2' >/dev/null &&
	ok "info --json: bpf_objects" || fail "info --json: no bpf_objects"
"$FT" drops w.dat >drops.txt 2>&1 || fail "drops: $(head -3 drops.txt)"

# ---- SIGINT: nothing stays loaded -------------------------------------------------
"$FT" record -q -o int.dat --bpf-object wbytes.bpf.o >int.out 2>int.err &
rp=$!
for _ in $(seq 100); do [ -n "$(ours)" ] && break; sleep 0.1; done
[ -n "$(ours)" ] && ok "while recording: $(ours | tr '\n' ' ')" || fail "program never loaded"
"$FT" status >status.txt 2>&1
grep -q "ftt_count_write" status.txt && ok "status lists the object's program" ||
	fail "status: no ftt_count_write: $(head -20 status.txt)"
kill -INT $rp
wait $rp
rc=$?
[ $rc = 0 ] && ok "SIGINT ends the recording with 0" || fail "SIGINT: exit $rc: $(head -3 int.err)"
[ -z "$(ours)" ] && ok "nothing loaded after SIGINT" || fail "left loaded after SIGINT: $(ours)"
"$FT" report --bpf-maps int.dat | grep -q "^wbytes/bytes at .* (end)" && ok "SIGINT: the maps were read at the end" ||
	fail "SIGINT: no end snapshot"

# ---- SIGKILL: the links were the recorder's file descriptors ------------------------
"$FT" record -q -o kill.dat --bpf-object wbytes.bpf.o >kill.out 2>kill.err &
kp=$!
for _ in $(seq 100); do [ -n "$(ours)" ] && break; sleep 0.1; done
kill -KILL $kp
wait $kp 2>/dev/null
for _ in $(seq 50); do [ -z "$(ours)" ] && break; sleep 0.1; done
[ -z "$(ours)" ] && ok "nothing loaded after SIGKILL" || fail "left loaded after SIGKILL: $(ours)"
# only what this test started: the killed recorder's instance (62-rec-sigkill tests reset)
for _ in $(seq 50); do rmdir "$TRACEFS/instances/flytrap-$kp" 2>/dev/null && break; sleep 0.1; done
[ -e "$TRACEFS/instances/flytrap-$kp" ] && fail "cannot remove flytrap-$kp"

# ---- the verifier says no -----------------------------------------------------------
"$FT" record -q -o bad.dat --bpf-object refused.bpf.o -e sched:sched_switch -d 5 >bad.out 2>bad.err &
bp=$!
wait $bp
rc=$?
[ $rc = 1 ] && ok "a refused program fails the recording (exit 1)" || fail "refused: exit $rc"
head -1 bad.err | grep -q "verifier refused program 'ftt_unchecked': R0 invalid mem access 'map_value_or_null'" &&
	ok "reason: $(head -1 bad.err)" || fail "reason: $(head -3 bad.err)"
grep -q '^    7: (79) r1 = \*(u64 \*)(r0 +0)' bad.err && ok "the last instructions with register states" ||
	fail "no instruction tail: $(cat bad.err)"
lines=$(wc -l <bad.err)
[ "$lines" -le 26 ] && ok "$lines lines: fits a screen" || fail "$lines lines of message"
log=$(sed -n 's/^  the whole verifier log: //p' bad.err)
[ -f "$log" ] && grep -q "processed .* insns" "$log" && ok "whole log in $log" || fail "no log file '$log'"
rm -f "$log"
[ -e bad.dat ] && fail "a refused recording left bad.dat"
[ -z "$(ours)" ] && ok "nothing left loaded (ftt_fine neither)" || fail "left loaded: $(ours)"
[ -e "$TRACEFS/instances/flytrap-$bp" ] && fail "the refused recording left its tracefs instance"

# ---- the static binary (make static) loads user objects too -------------------------
ST=$TOP/$O/flytrap-static
if [ -z "${FLYTRAP_BIN:-}" ] && [ -x "$ST" ]; then
	"$ST" record -q -o st.dat --bpf-object wbytes.bpf.o --bpf-set target_comm=dd \
		-- dd if=/dev/zero of=/dev/null bs=4096 count=256 status=none 2>st.err ||
		fail "static: record: $(head -3 st.err)"
	[ "$("$ST" sql -c "select value_int from bpf_map where map = 'wbytes/bytes' and why = 'end'" --csv st.dat | tail -1)" = 1048576 ] &&
		ok "$ST loads the object: dd's 1048576 bytes" || fail "static: bpf_map"
	[ -z "$(ours)" ] || fail "static: left loaded: $(ours)"
else
	echo "note: no $ST (make static), not checked here (FLYTRAP_BIN=... runs this whole test with it)"
fi
finish
