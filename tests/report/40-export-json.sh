#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap export: every fixture (real trace-cmd files from other machines)
# gives Chrome trace-event JSON that parses and that a trace viewer can load
# (tests/report/export-check.py: ph/ts/pid/tid on every event, B/E balanced
# per thread, X with dur, slices nested per thread); the command's usage
# errors and I/O errors behave as documented.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need_fixtures
need_cmd python3
CHECK="$TOP/tests/report/export-check.py"

n=0
for f in "$FIXTURES"/*.dat; do
	b=$(basename "$f" .dat)
	# zlib files need a reader with zlib; the reader says so and export fails cleanly
	if ! "$FLYTRAP" export "$f" -o "$TMP/$b.json" 2>"$TMP/$b.err"; then
		if grep -q "cannot open" "$TMP/$b.err"; then
			ok "$b: not readable here ($(head -c 120 "$TMP/$b.err"))"
			continue
		fi
		fail "$b: export failed: $(head -c 300 "$TMP/$b.err")"
		continue
	fi
	if out=$(python3 "$CHECK" "$TMP/$b.json"); then
		n=$((n + 1))
	else
		fail "$b: JSON does not load: $(echo "$out" | head -5)"
	fi
	# the same through stdout
	"$FLYTRAP" export "$f" | cmp -s - "$TMP/$b.json" || fail "$b: stdout and -o differ"
done
[ "$n" -ge 10 ] && ok "$n fixtures exported to loadable JSON" || fail "only $n fixtures exported"

# function_graph fixture: do_IRQ calls become slices on their tasks, irq entries markers
f="$FIXTURES/wsdias+LabSisOp__trace.dat"
python3 - "$TMP/wsdias+LabSisOp__trace.json" <<'PY' || fail "wsdias: function_graph slices"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
b = [e for e in ev if e["ph"] == "B"]
assert len(b) == 7 and all(e["name"] == "do_IRQ" and e["cat"] == "kernel" for e in b), b
assert sum(1 for e in ev if e["ph"] == "E") == 7
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert "kworker/u2:2" in names and "swapper/0" in names, names
assert d["otherData"]["events"] == 21, d["otherData"]
PY
ok "function_graph fixture: 7 do_IRQ slices"

# sched_switch fixture: one slice per switch-out on the CPU track (trace-cmd counts the switches)
f="$FIXTURES/kinmax+buildroot-kernel__trace_fifo_multicore.dat"
"$FLYTRAP" export "$f" -o "$TMP/k.json" || fail "kinmax export"
if command -v trace-cmd >/dev/null; then
	nsw=$(trace-cmd report -i "$f" 2>/dev/null | grep -c "sched_switch:" || true)
	python3 - "$TMP/k.json" "$nsw" <<'PY' && ok "sched_switch fixture: CPU tracks ($nsw switches)" || fail "kinmax: CPU slices"
import json, sys
d = json.load(open(sys.argv[1]))
nsw = int(sys.argv[2])
ev = d["traceEvents"]
cpu = [e for e in ev if e["ph"] == "B" and e.get("cat") == "sched"]
# every switch away from a task ends one run (idle is not drawn), plus the runs open at the end
assert nsw > 0 and 0 < len(cpu) <= nsw + 4, (len(cpu), nsw)
assert len({e["tid"] for e in cpu}) >= 2
assert all(e["pid"] == cpu[0]["pid"] for e in cpu)
PY
else
	echo "note: trace-cmd missing, switch count not compared"
fi

# --instants: every other event becomes a marker, still loadable
"$FLYTRAP" export --instants "$FIXTURES/hebel23+driver__trace.dat" -o "$TMP/i.json" || fail "--instants"
python3 "$CHECK" "$TMP/i.json" >/dev/null || fail "--instants JSON does not load"
grep -q '"name":"gpio_value","args":{"cpu":0,"info":"105 set 1"}' "$TMP/i.json" &&
	ok "--instants marks other events, with trace-cmd's text of their fields" ||
	fail "--instants: no gpio_value marker: $(grep -m1 gpio_value "$TMP/i.json")"

# usage and errors
"$FLYTRAP" export --help | grep -q "Chrome trace-event" || fail "--help"
"$FLYTRAP" export --bogus x.dat 2>"$TMP/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && ok "unknown flag: exit 2, one line" || fail "unknown flag: rc $rc, $(cat "$TMP/e")"
"$FLYTRAP" export "$TMP/missing.dat" 2>"$TMP/e"; rc=$?
[ $rc = 1 ] && grep -q "cannot open '$TMP/missing.dat'" "$TMP/e" && ok "missing file: exit 1" || fail "missing file: rc $rc, $(cat "$TMP/e")"
"$FLYTRAP" export "$f" -o /nonexistent/dir/x.json 2>"$TMP/e"; rc=$?
[ $rc = 1 ] && grep -q "cannot create" "$TMP/e" && ok "unwritable output: exit 1" || fail "unwritable output: rc $rc"
if [ -w /dev/full ]; then
	# -o makes a file (a temporary one renamed into place): a device is refused
	"$FLYTRAP" export "$f" -o /dev/full 2>"$TMP/e"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -q 'device' "$TMP/e" && [ -c /dev/full ] &&
		ok "-o a device: exit 2, one line ($(cat "$TMP/e"))" || fail "-o /dev/full: rc $rc, $(cat "$TMP/e")"
	"$FLYTRAP" export "$f" >/dev/full 2>"$TMP/e"; rc=$?
	[ $rc = 1 ] && grep -q 'standard output' "$TMP/e" && ok "full disk: exit 1 ($(cat "$TMP/e"))" ||
		fail "full disk: rc $rc, $(cat "$TMP/e")"
fi
# a failed export leaves no file that looks like one, and no temporary file
"$FLYTRAP" export "$TMP/missing.dat" -o "$TMP/none.json" 2>/dev/null
[ ! -e "$TMP/none.json" ] && [ -z "$(ls -A "$TMP" | grep '^\.none\.json')" ] &&
	ok "a failed export writes nothing" || fail "a failed export left $(ls -A "$TMP" | grep none)"
"$FLYTRAP" export "$f" -o 2>/dev/null; [ $? = 2 ] || fail "-o without a name"
finish
