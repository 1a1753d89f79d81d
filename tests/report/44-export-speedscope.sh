#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A real viewer loads what flytrap exports (issue 9, point 8): speedscope
# (npm package, the static web app) in headless Chromium opens the Chrome
# trace JSON of several recordings and the folded stacks of callgraph,
# without "Failed to load format", "Tried to end ..." or "... still open at
# end of profile" on its console.  tests/data/getpid-switch.dat is the
# issue's recording: `record -e syscalls:sys_enter_getpid -e
# sched:sched_switch -- getpid_loop 20000` (no sys_exit), kallsyms dropped.
# speedscope is installed once under ~/.cache/flytrap-tests (never in the tree).
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
need_cmd base64
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || skip "no chromium to run speedscope in"
# a snap's chromium cannot read files under /tmp (Ubuntu): no way in from here
case "$(readlink -f "$CHROME")" in /snap/*) skip "chromium is a snap: it cannot open test files under $TMPDIR" ;; esac
cache="${FLYTRAP_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flytrap-tests}/speedscope"
SS="$cache/node_modules/speedscope/dist/release"
if [ ! -f "$SS/index.html" ]; then
	need_cmd npm
	mkdir -p "$cache" || skip "cannot create $cache"
	npm install --prefix "$cache" --no-audit --no-fund --no-save speedscope@1.25 > "$TMP/npm.log" 2>&1 ||
		skip "cannot install speedscope from npm: $(tail -n 1 "$TMP/npm.log")"
	[ -f "$SS/index.html" ] || skip "npm installed no speedscope web app under $cache"
fi

# load FILE LABEL: speedscope's own CLI way (a script calling loadFileFromBase64)
load() {
	local f=$1 label=$2 d
	d=$(mktemp -d "$TMP/ss.XXXXXX")
	printf 'speedscope.loadFileFromBase64("%s", "%s")\n' "$(basename "$f")" "$(base64 -w0 "$f")" > "$d/prof.js"
	timeout 120 "$CHROME" --headless=new --no-sandbox --disable-gpu --allow-file-access-from-files \
		--disable-background-networking --no-first-run --user-data-dir="$d/profile" \
		--enable-logging=stderr --v=0 --virtual-time-budget=8000 --window-size=1400,900 \
		--screenshot="$d/shot.png" "file://$SS/index.html#localProfilePath=$d/prof.js" \
		> "$d/out" 2> "$d/log" < /dev/null
	grep -a 'CONSOLE' "$d/log" > "$d/console"
	if ! grep -q '"Importing as ' "$d/console"; then
		fail "$label: speedscope did not import it: $(grep -a -m3 'CONSOLE\|ERROR' "$d/log" | cut -c1-200)"
	elif grep -E -q 'Failed to load|Tried to end|still open at end of profile|Uncaught|RangeError|TypeError' "$d/console"; then
		fail "$label: $(grep -E -c 'Tried to end|still open' "$d/console") pairing complaints: $(grep -E -m2 'Failed|Tried|still open|Uncaught|Error' "$d/console" | cut -c1-240)"
	elif [ ! -s "$d/shot.png" ]; then
		fail "$label: no screenshot"
	else
		ok "$label: $(grep -o -m1 '"Importing as [^"]*' "$d/console" | cut -c2-)"
	fi
}

MK="$O/tests/tools/mkexport"
[ -x "$MK" ] && "$MK" "$TMP/syn.dat" > /dev/null || fail "mkexport"
json=(tests/data/getpid-switch.dat "$TMP/syn.dat" tests/data/sample.dat tests/data/lab-kfunc.dat
      tests/data/lab-function-graph.dat tests/data/rpt-bpf.dat)
for f in "$FIXTURES"/kinmax+buildroot-kernel__trace_fifo_multicore.dat "$FIXTURES"/hebel23+driver__trace.dat \
	 "$FIXTURES"/wsdias+LabSisOp__trace.dat; do
	[ -f "$f" ] && json+=("$f")
done
for f in "${json[@]}"; do
	b=$(basename "$f" .dat)
	"$FLYTRAP" export -o "$TMP/$b.json" "$f" 2> "$TMP/e" || { fail "export $f: $(cat "$TMP/e")"; continue; }
	python3 tests/report/export-check.py "$TMP/$b.json" > "$TMP/chk" || fail "$b.json: $(head -3 "$TMP/chk")"
	load "$TMP/$b.json" "export of $b"
done
# the issue's file: 20000 entries without their exits are instants, counted, not open slices
python3 - "$TMP/getpid-switch.json" <<'PY' && ok "getpid-switch: 20000 enters_without_exit, instants, no thread slice" || fail "getpid-switch summary"
import json, sys
d = json.load(open(sys.argv[1]))
o = d["otherData"]; ev = d["traceEvents"]
assert o["enters_without_exit"] == 20000, o
inst = [e for e in ev if e["ph"] == "i" and e.get("name") == "getpid"]
assert len(inst) == 20000 and all(e["args"] == {"exit": "not in the trace"} for e in inst), len(inst)
assert not [e for e in ev if e["ph"] in "BEX" and e.get("cat") == "syscall"]
PY

# folded stacks of callgraph: samples, off-CPU, calls
"$FLYTRAP" callgraph --folded --source samples tests/data/sample.dat > "$TMP/samples.folded" || fail "folded samples"
"$FLYTRAP" callgraph --folded --per-task --source offcpu tests/data/sample.dat > "$TMP/offcpu.folded" || fail "folded offcpu"
"$FLYTRAP" callgraph --folded tests/data/lab-function-graph.dat > "$TMP/calls.folded" || fail "folded calls"
for f in "$TMP"/samples.folded "$TMP"/offcpu.folded "$TMP"/calls.folded; do
	[ -s "$f" ] || { fail "$(basename "$f") is empty"; continue; }
	load "$f" "folded $(basename "$f")"
done
finish
