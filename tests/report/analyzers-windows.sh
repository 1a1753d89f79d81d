#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Filters and figures users check by hand: --from/--to in drops and
# overhead, tasks that exit, pid-filtered recordings, the recorder's own
# CPU, deep call trees, names cut to fit 80 columns.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
F=$FLYTRAP
S=tests/data

# ---- drops and overhead honour --from/--to ----------------------------------------
out=$("$F" drops --from 99999 "$S/sample.dat")
echo "$out" | grep -q "0 events in the window 99999.000000..end: it is outside the file's span" &&
	! echo "$out" | grep -q '20679 events read,' &&
	ok "drops --from after the trace: 0 events in the window, outside the span" ||
	fail "drops --from 99999 sample.dat: $(echo "$out" | head -4)"
# rpt-drops.dat (tests/tools/mkrpt.c): from 20.3 s one marker is left (CPU 1, 7 events)
out=$("$F" drops --from 20.3 "$S/rpt-drops.dat")
echo "$out" | grep -q 'page loss markers:   1 marker, 7 events counted' &&
	echo "$out" | grep -q '3 events in the window, 20.300000..20.500000' &&
	[ "$(echo "$out" | sed -n '/^loss markers/,/^$/p' | grep -c 'CPU')" = 1 ] &&
	ok "drops --from 20.3: the summary counts the 1 marker the list shows" ||
	fail "drops --from 20.3 rpt-drops.dat: $(echo "$out" | head -12)"
"$F" drops --json --from 20.3 "$S/rpt-drops.dat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["windowed"] and d["events"] == 3 and d["events_in_file"] == 11, d
assert d["total"]["loss_markers"] == 1 and d["total"]["lost_marked"] == 7, d["total"]
assert sum(s["loss_markers"] for s in d["streams"]) == 1
' && ok "drops --json --from 20.3: events, markers and streams count the window" ||
	fail "drops --json --from 20.3"
out=$("$F" overhead --from 99999 "$S/sample.dat")
echo "$out" | grep -q "the window is outside the file's span 1608.705591..1612.880175" &&
	ok "overhead --from after the trace says the window is outside the span" ||
	fail "overhead --from 99999: $(echo "$out" | head -4)"
finish
