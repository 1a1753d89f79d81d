#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A 60 s flight recording under load stays within its LIMIT on disk and in
# memory: `--flight 4M` over 120,000 events/s (the store fills in about 20 s,
# then keeps trimming), the store's files and the recorder's RSS measured
# every second.  The disk never holds more than the limit plus one store
# segment, and the memory does not grow once the store is full; a trigger at
# the end writes a dump no larger than the store, which trace-cmd reads; when
# the command ends nothing of the store is left and tracefs is as found.
. "$(dirname "$0")/../lib.sh"
need_tracefs
need_cmd trace-cmd
STORM=$TOP/$O/tests/tools/syscall_storm
[ -x "$STORM" ] || skip "syscall_storm not built"
cd "$TMP"
rp=0
trap '[ "$rp" != 0 ] && kill -INT $rp 2>/dev/null && wait $rp; rm -rf "$TMP"' EXIT
LIMIT=$((4 << 20)) SLACK=$((1 << 20))	# the store's smallest segment: 1 MiB
SECS=60 RATE=60000

snap() { tracefs_snapshot | grep -v '^instances: ' | grep flytrap; }
snap >before.txt

"$FLYTRAP" record -q --flight 4M -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o f.dat \
	-- "$STORM" $((SECS * RATE)) 1 $RATE >/dev/null 2>rec.err &
rp=$!
: >samples.txt
start=$SECONDS trig=0
for s in $(seq $((SECS + 5))); do
	sleep 1
	[ -e /proc/$rp/status ] || break
	rss=$(awk '/^VmRSS:/ { print $2 * 1024 }' /proc/$rp/status 2>/dev/null)
	# shellcheck disable=SC2012
	disk=$(ls -a | grep "^\\.f\\.dat\\.flight-$rp[.-]" | xargs -r stat -c %s 2>/dev/null | awk '{ n += $1 } END { print n + 0 }')
	[ -n "$rss" ] && echo "$s $rss $disk $trig" >>samples.txt
	# the command ends after about SECS s: trigger before it does
	if [ $trig = 0 ] && [ $((SECONDS - start)) -ge $((SECS - 10)) ]; then kill -USR1 $rp; trig=1; fi
done
wait $rp
rc=$?
rp=0
[ $rc = 0 ] && ok "the recorder ran the $SECS s command and exited 0" || { fail "record exited $rc"; cat rec.err; }
n=$(wc -l <samples.txt)
# a sample takes a little more than a second on a loaded machine
[ "$n" -ge $((SECS / 2)) ] && ok "$n samples over the run" || fail "only $n samples"
[ $trig = 1 ] || fail "the recorder ended before the trigger"
read -r max_disk at_disk < <(sort -k3,3n samples.txt | tail -1 | awk '{ print $3, $1 }')
[ "$max_disk" -le $((LIMIT + SLACK)) ] &&
	ok "the store's files never exceed the limit plus one segment: at most $max_disk bytes (second $at_disk)" ||
	fail "the store reached $max_disk bytes at second $at_disk (limit $LIMIT + $SLACK)"
[ "$max_disk" -ge $((LIMIT * 3 / 4)) ] && ok "the load filled the store (so the limit was exercised)" ||
	fail "the store held at most $max_disk bytes: the load never reached the limit"
full_at=$(awk -v l=$((LIMIT * 3 / 4)) '$3 >= l { print $1; exit }' samples.txt)
# memory once the store is full, until the trigger: no growth between the
# first samples after it filled and the later ones (a leak of 1 KiB per chunk
# would show); the dump then reads the store with buffers of its own
read -r early late nlate < <(awk -v f="${full_at:-30}" '$4 == 0 && $1 > f && $1 <= f + 8 && $2 > e { e = $2 }
	$4 == 0 && $1 > f + 8 { if ($2 > l) l = $2; n++ } END { print e + 0, l + 0, n + 0 }' samples.txt)
if [ "$nlate" -ge 5 ] && [ "$late" -le $((early + (2 << 20))) ]; then
	ok "RSS does not grow once the store is full: $((early >> 20)) MiB, then at most $((late >> 20)) MiB over $nlate samples"
else
	fail "RSS from $early to $late bytes over $nlate samples after the store was full (second ${full_at:-?})"
fi
max_rss=$(sort -k2,2n samples.txt | tail -1 | awk '{ print $2 }')
[ "$max_rss" -le $((early + (32 << 20))) ] && ok "RSS during the dump at most $((max_rss >> 20)) MiB" ||
	fail "RSS reached $max_rss bytes (the dump's buffers?)"
echo "note: RSS at most $((max_rss >> 20)) MiB, store at most $((max_disk >> 10)) KiB over $n s"

dump=$(ls f-*.dat 2>/dev/null | head -1)
if [ -n "$dump" ]; then
	sz=$(stat -c %s "$dump")
	[ "$sz" -le $((LIMIT + SLACK + (1 << 20))) ] && ok "the dump is bounded by the store: $sz bytes" ||
		fail "the dump $dump is $sz bytes (limit $LIMIT)"
	trace-cmd report -i "$dump" >dump.txt 2>/dev/null && ok "trace-cmd reads $dump ($(wc -l <dump.txt) lines)" ||
		fail "trace-cmd cannot read $dump"
else
	fail "no dump written after SIGUSR1"; cat rec.err
fi
ls -a | grep -q '\.flight-' && fail "store files left behind: $(ls -a | grep '\.flight-')" || ok "no store files left"
snap >after.txt
cmp -s before.txt after.txt && ok "tracefs is as found" || { fail "tracefs differs"; diff before.txt after.txt | head; }
finish
