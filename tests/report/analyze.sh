#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap analyze: several analyzers in one pass give exactly what each
# analyzer's own command gives (JSON members equal to each --json, text in
# sequence), with the common filters and each analyzer's options; the file
# is opened and read once; options of an analyzer left out are refused.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3

# same FILE KEY A B: member KEY of JSON file A equals the whole JSON file B
same() {
	python3 - "$@" <<'EOF'
import json, sys
_, key, a, b = sys.argv
ja, jb = json.load(open(a)), json.load(open(b))
if key not in ja:
    print("missing member", key); sys.exit(1)
if ja[key] != jb:
    d = [k for k in set(ja[key]) | set(jb) if ja[key].get(k) != jb.get(k)]
    print("differs in", sorted(d)[:5]); sys.exit(1)
EOF
}

# ---- JSON: one member per analyzer, equal to the analyzer's own --json
n=0
for args in "tests/data/rpt-graph.dat" "tests/data/rpt-sched.dat" "--cpu 1 tests/data/rpt-sched.dat" \
	"--pid 100 tests/data/rpt-sched.dat" "--from 10.020 --to 10.040 tests/data/rpt-sched.dat" \
	"--comm app* tests/data/rpt-sched.dat" "tests/data/rpt-drops.dat" "--cpu 1 tests/data/rpt-drops.dat" \
	"tests/data/rpt-stacks.dat" "tests/data/rpt-bpf.dat" "tests/data/sample.dat" \
	"--cpu 1 --comm ls tests/data/sample.dat"; do
	# shellcheck disable=SC2086
	"$FLYTRAP" analyze --overhead --drops --callgraph --json $args > "$TMP/all.json" 2> "$TMP/e" \
		|| { fail "analyze --json $args: $(cat "$TMP/e")"; continue; }
	for c in overhead drops callgraph; do
		# shellcheck disable=SC2086
		"$FLYTRAP" $c --json $args > "$TMP/one.json" 2>/dev/null || { fail "$c --json $args"; continue; }
		msg=$(same "$c" "$TMP/all.json" "$TMP/one.json") && n=$((n + 1)) || fail "analyze $args: $c $msg"
	done
done
[ $n = 36 ] && ok "36 analyzer outputs in one pass equal their own --json"

# each analyzer's own options reach it
"$FLYTRAP" analyze --json --top 1 --window 100ms --source samples --per-task tests/data/rpt-bpf.dat > "$TMP/all.json" || fail "options"
"$FLYTRAP" overhead --json --top 1 tests/data/rpt-bpf.dat > "$TMP/o.json"
"$FLYTRAP" drops --json --window 100ms tests/data/rpt-bpf.dat > "$TMP/d.json"
"$FLYTRAP" callgraph --json --source samples --per-task tests/data/rpt-bpf.dat > "$TMP/c.json"
same overhead "$TMP/all.json" "$TMP/o.json" && same drops "$TMP/all.json" "$TMP/d.json" && \
	same callgraph "$TMP/all.json" "$TMP/c.json" && ok "analyzer options passed through" || fail "analyzer options"

# ---- text: the analyzers' own outputs one after another
for f in tests/data/rpt-graph.dat tests/data/sample.dat; do
	{ "$FLYTRAP" overhead "$f"; echo; "$FLYTRAP" drops "$f"; echo; "$FLYTRAP" callgraph "$f"; } > "$TMP/want"
	"$FLYTRAP" analyze --overhead --drops --callgraph "$f" > "$TMP/got" || fail "analyze $f"
	cmp -s "$TMP/want" "$TMP/got" && ok "text of $(basename "$f") = overhead + drops + callgraph" \
		|| { fail "text of $f differs"; diff "$TMP/want" "$TMP/got" | head -5; }
done
{ "$FLYTRAP" drops tests/data/rpt-sched.dat; } > "$TMP/want"
"$FLYTRAP" analyze --drops tests/data/rpt-sched.dat > "$TMP/got"
cmp -s "$TMP/want" "$TMP/got" && ok "one analyzer alone" || fail "analyze --drops differs from drops"

# ---- default: all that apply (no call graph for a file without call or stack data)
"$FLYTRAP" analyze --json tests/data/rpt-sched.dat > "$TMP/def.json" || fail "analyze --json (default)"
keys=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))))' "$TMP/def.json")
[ "$keys" = "overhead drops" ] && ok "default on a sched-only file: overhead drops" || fail "default members: $keys"
"$FLYTRAP" analyze tests/data/rpt-sched.dat > "$TMP/def.txt"
grep -q "^Overhead of" "$TMP/def.txt" && grep -q "^Lost events in" "$TMP/def.txt" && \
	grep -q "^(no call graph: no call or stack data" "$TMP/def.txt" && ok "default text says why no call graph" \
	|| fail "default text: $(head -c 300 "$TMP/def.txt")"
"$FLYTRAP" analyze --json tests/data/rpt-graph.dat > "$TMP/def.json"
keys=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))))' "$TMP/def.json")
[ "$keys" = "overhead drops callgraph" ] && ok "default with call data: all three" || fail "default members: $keys"

# ---- one open, one pass: the file is opened once whatever the number of analyzers
if command -v strace > /dev/null; then
	cp tests/data/sample.dat "$TMP/once.dat"
	strace -f -e trace=open,openat -o "$TMP/st" "$FLYTRAP" analyze "$TMP/once.dat" > /dev/null 2>&1
	opens=$(grep -c "once.dat" "$TMP/st")
	[ "$opens" = 1 ] && ok "the file is opened once" || fail "the file is opened $opens times"
fi

# ---- --svg from analyze
"$FLYTRAP" analyze --svg "$TMP/a.svg" tests/data/rpt-graph.dat > /dev/null || fail "analyze --svg"
grep -q "ext4_file_read_iter" "$TMP/a.svg" 2>/dev/null && ok "analyze --svg" || fail "analyze --svg: no flame graph"

# ---- one analyzer failing: the others still print, its member is null, exit 1
"$FLYTRAP" analyze --json --overhead --drops --window 1ns tests/data/rpt-drops.dat > "$TMP/f.json" 2> "$TMP/e"; rc=$?
r=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["drops"] is None, j["overhead"]["events"])' "$TMP/f.json" 2>&1)
[ $rc = 1 ] && [ "$r" = "True 11" ] && grep -q "^flytrap: error: --window" "$TMP/e" && ok "a failing analyzer: null, the others shown, exit 1" \
	|| fail "failing analyzer: rc $rc, $r, $(cat "$TMP/e")"

# ---- usage: one line, exit 2, nothing on stdout
for args in "--overhead --window 100ms" "--drops --depth 2" "--folded" "--callgraph --top 3" "--bogus"; do
	# shellcheck disable=SC2086
	"$FLYTRAP" analyze $args tests/data/rpt-graph.dat > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && [ ! -s "$TMP/o" ] && ok "analyze $args: usage error" \
		|| fail "analyze $args: rc $rc, stderr: $(cat "$TMP/e")"
done
grep -q "drops option" <("$FLYTRAP" analyze --overhead --window 1s tests/data/rpt-graph.dat 2>&1) \
	|| fail "the message does not name the analyzer of --window"
"$FLYTRAP" analyze --help > "$TMP/h" && grep -q "^usage: flytrap analyze" "$TMP/h" && grep -q -- "--window" "$TMP/h" \
	&& grep -q -- "--top" "$TMP/h" && grep -q -- "--source" "$TMP/h" && ok "analyze --help" || fail "analyze --help"
"$FLYTRAP" analyze "$TMP/missing.dat" > /dev/null 2> "$TMP/e"; rc=$?
[ $rc = 1 ] && grep -q "^flytrap: error: cannot open" "$TMP/e" && ok "missing file" || fail "missing file: rc $rc"
"$FLYTRAP" --help | grep -q "^  analyze " && ok "listed in flytrap --help" || fail "analyze not in flytrap --help"
finish
