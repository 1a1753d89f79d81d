#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# callgraph --source bpf-stacks without root, on tests/data/bpfobj/user-stacks.dat:
# tests/live/bpfobj/wstacks.bpf.c recorded by tests/live/37-bpf-object-stacks.sh's
# workload at 20 writes of 4096 bytes and 5 of 512 (whose user stacks the
# program asked past their 255th frame: -EFAULT) into a socket, kallsyms
# cut to the write path (convert --keep-symbols).  The automatic choice
# picks bpf-stacks, the counts map's and the ring buffer's trees agree, the
# text, JSON, folded, SVG and HTML outputs carry the write path, and the
# not-collected stacks are counted.  A damaged stack map option: exit 1
# with one line when bpf-stacks is asked for, a warning and the other trees
# in the automatic choice.  Files without stack ids keep their output
# (tests/report/golden checks that byte for byte).
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd jq
need_cmd python3
F=$TOP/tests/data/bpfobj/user-stacks.dat
[ -f "$F" ] || skip "no $F"
cd "$TMP" || exit 1

total() { cg_json_total "$@"; }
NC="[user stack not collected: EFAULT]"

"$FLYTRAP" callgraph --json "$F" >a.json 2>a.err || fail "callgraph --json: $(head -3 a.err)"
[ "$(jq -r .source a.json)" = bpf-stacks ] && [ "$(jq .total a.json)" = 25 ] &&
	ok "automatic choice: bpf-stacks, 25 samples" || fail "auto: $(jq -c '{source, total}' a.json)"
[ "$(jq '.sources["bpf-stacks"]' a.json)" -gt 0 ] && ok "sources lists bpf-stacks" ||
	fail "sources: $(jq -c .sources a.json)"
for fn in ksys_write vfs_write sock_write_iter; do
	[ "$(total a.json $fn)" = 25 ] && ok "$fn: 25" || fail "$fn: $(total a.json $fn)"
done
[ "$(total a.json "$NC")" = 5 ] && [ "$(total a.json vfs_write "$NC")" = 5 ] &&
	ok "$NC: 5, their kernel stacks under it" || fail "not collected: $(total a.json "$NC")"
jq -e '.bpf_stacks | .map == "wstacks/counts" and .from == "snapshot" and .why == "end"
	and .not_collected == 5 and .missing == 0 and .skipped == 0 and .others == ["wstacks/events"]' \
	a.json >/dev/null && ok "bpf_stacks: $(jq -c .bpf_stacks a.json)" || fail "bpf_stacks: $(jq -c .bpf_stacks a.json)"

"$FLYTRAP" callgraph --json --bpf-map events "$F" >r.json 2>r.err || fail "--bpf-map events: $(head -3 r.err)"
jq -e '.bpf_stacks.map == "wstacks/events" and .bpf_stacks.from == "records"' r.json >/dev/null &&
	[ "$(total r.json ksys_write)" = 25 ] && [ "$(total r.json "$NC")" = 5 ] &&
	ok "the ring buffer's records give the same tree" || fail "ring: $(jq -c '{total, bpf_stacks}' r.json)"
# a window selects records, not a snapshot's counts (it has no time per entry)
"$FLYTRAP" callgraph --bpf-map wstacks/events --to 0.000001 "$F" >w.txt 2>&1
grep -q "no events match the filters" w.txt && ok "--to before the records: none of them" || fail "window: $(head -5 w.txt)"
"$FLYTRAP" callgraph --to 0.000001 "$F" >w.txt 2>&1
grep -q "do not select a map's counts" w.txt && ok "--to on a map's counts: said so" || fail "window map: $(head -6 w.txt)"

"$FLYTRAP" callgraph "$F" >t.txt 2>t.err || fail "callgraph: $(cat t.err)"
grep -q "^  bpf-stacks (stack counts), " t.txt && grep -q "^  5 of them with a stack not collected" t.txt &&
	grep -q "^ *20.0% *5 *0 *5  \[user stack not collected: EFAULT\]$" t.txt &&
	ok "text: the source and the not-collected node" || fail "text: $(head -14 t.txt)"
n=$("$FLYTRAP" callgraph --folded "$F" | awk '/;vfs_write;/ { s += $NF } END { print s + 0 }')
[ "$n" = 25 ] && ok "--folded: 25 through vfs_write" || fail "--folded: $n"
"$FLYTRAP" callgraph --svg s.svg "$F" >/dev/null 2>&1 && grep -q "sock_write_iter" s.svg &&
	ok "--svg" || fail "--svg"
"$FLYTRAP" export --html -o s.html "$F" 2>/dev/null && grep -q "sock_write_iter" s.html &&
	ok "export --html" || fail "export --html"
"$FLYTRAP" analyze --callgraph --json --bpf-map counts "$F" | jq -e '.callgraph.bpf_stacks.map == "wstacks/counts"' \
	>/dev/null && ok "analyze --callgraph --bpf-map" || fail "analyze --bpf-map"
"$FLYTRAP" callgraph --json --group process "$F" |
	jq -e '[.tree.children[] | select(.pid != null and (.name | startswith("<...>-") | not))] | length >= 1' \
	>/dev/null && ok "--group process: named towers" || fail "--group process"

# usage: exit 2 for --bpf-map with another source; exit 1 for a name the file lacks
"$FLYTRAP" callgraph --source offcpu --bpf-map counts "$F" >o.txt 2>e.txt
rc=$?
[ $rc = 2 ] && [ "$(wc -l <e.txt)" = 1 ] && [ ! -s o.txt ] && ok "--source offcpu --bpf-map: exit 2" ||
	fail "--source offcpu --bpf-map: exit $rc: $(cat e.txt)"
"$FLYTRAP" callgraph --source bpfstacks "$F" >o.txt 2>e.txt
[ $? = 2 ] && grep -q "bpf-stacks" e.txt && ok "--source bpfstacks: $(cat e.txt)" || fail "--source bpfstacks: $(cat e.txt)"
"$FLYTRAP" callgraph --bpf-map stacks "$F" >o.txt 2>e.txt
rc=$?
[ $rc = 1 ] && [ "$(wc -l <e.txt)" = 1 ] && [ ! -s o.txt ] && ok "--bpf-map stacks (the stack map): $(cat e.txt)" ||
	fail "--bpf-map stacks: exit $rc: $(cat e.txt)"

# the sharing chain: slice keeps the kernel symbols of the stack maps' stacks, redact
# tokenizes the maps' task names (and --bpf-set's) and makes their kernel addresses
# relative, and both still give the same bpf-stacks tree
"$FLYTRAP" callgraph --source bpf-stacks --folded "$F" >orig.fold 2>/dev/null
"$FLYTRAP" slice --from 0 -o sliced.dat "$F" >/dev/null 2>e.txt || fail "slice: $(cat e.txt)"
"$FLYTRAP" callgraph --source bpf-stacks --folded sliced.dat >sliced.fold 2>e.txt
cmp -s orig.fold sliced.fold && grep -q 'vfs_write' sliced.fold &&
	ok "slice: the stack maps' kernel frames keep their names" ||
	fail "slice: $(diff orig.fold sliced.fold | head -3 | cut -c1-160)"
"$FLYTRAP" redact -o red.dat "$F" >/dev/null 2>e.txt && ok "redact: a file with --bpf-object maps holding task names" ||
	fail "redact refused a file with maps: $(cat e.txt)"
"$FLYTRAP" callgraph --source bpf-stacks --folded red.dat >red.fold 2>e.txt
cmp -s orig.fold red.fold && ok "redact: the same bpf-stacks tree, kernel frames named" ||
	fail "redact: $(diff orig.fold red.fold | head -3 | cut -c1-160)"
"$FLYTRAP" report --bpf-maps red.dat >maps.txt 2>&1
comm=$("$FLYTRAP" report --bpf-maps "$F" | grep -o '"comm":"[^"]*"' | head -1)
[ -n "$comm" ] && ! grep -qF "$comm" maps.txt && ! grep -q '0xffff' maps.txt && grep -q '"comm":"' maps.txt &&
	ok "redact: the maps' task names are tokens, their kernel addresses offsets" ||
	fail "redact: the maps still hold $comm or upper-half addresses: $(grep -m2 'comm\|0xffff' maps.txt | cut -c1-160)"
"$FLYTRAP" info red.dat | grep -q "set target_comm=~" && ok "redact: --bpf-set's task name is a token" ||
	fail "redact: --bpf-set value: $("$FLYTRAP" info red.dat | grep 'set target')"

# a stack map whose entry is damaged: named, never skipped quietly
"$FLYTRAP" convert -c none "$F" -o plain.dat 2>/dev/null || { fail "convert -c none"; finish; }
python3 - <<'PY'
d = bytearray(open('plain.dat', 'rb').read())
name = d.find(b'wstacks/stacks')
tab = d.find(b'\t', name)
d[tab + 1:tab + 2] = b'x'
open('bad.dat', 'wb').write(d)
PY
"$FLYTRAP" callgraph --source bpf-stacks bad.dat >o.txt 2>e.txt
rc=$?
[ $rc = 1 ] && [ ! -s o.txt ] && [ "$(wc -l <e.txt)" = 1 ] && grep -q "damaged --bpf-object data: map entry that is not JSON" e.txt &&
	ok "damaged, --source bpf-stacks: $(cat e.txt)" || fail "damaged: exit $rc: $(cat e.txt)"
"$FLYTRAP" callgraph bad.dat >o.txt 2>e.txt
rc=$?
[ $rc = 0 ] && grep -q "damaged --bpf-object data" e.txt && grep -q "no call or stack data" o.txt &&
	ok "damaged, automatic choice: a warning, no bpf-stacks tree" || fail "damaged auto: exit $rc: $(cat e.txt)"
finish
