#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One pairing of call entries with exits (report/core/calls.h, issue 36):
# export, sql, callgraph and slice answer alike on `mkrpt pairs`, a file of
# calls whose exits were lost and exits without entries, for function_graph,
# BPF ufunc (a recursion whose inner exit was lost), uprobes and syscalls
# (its comment in tests/tools/mkrpt.c works out every number):
#  - closed calls, the same in all three: ksys_read 100 us holding
#    ext4_file_read_iter 10; schedule 50; main 100 holding parse_config 50
#    (before: callgraph and sql closed the inner parse_config with the outer
#    one's exit, a frame main;parse_config;parse_config of 50 us, and the
#    outer one never); compute 50; handle_req 100; write 10;
#  - never returned: vfs_read, fsnotify, the inner parse_config, helper and
#    read: export's "exit not in the trace" instants, no sql row, no
#    callgraph frame;
#  - exits without entries: callgraph's "2 returns without a call"
#    (do_idle, helper), export's 2 exits without entry (it draws do_idle
#    from its exit's calltime, marked entry_lost);
#  - a slice from inside ext4_file_read_iter keeps the calls open there
#    (ksys_read, not vfs_read: it ended at ext4's entry) and main and the
#    outer parse_config, so its call graph shows them whole.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
MK=$TOP/$O/tests/tools/mkrpt
[ -x "$MK" ] || skip "no $MK (make builds it)"
need_cmd python3
cd "$TMP" || exit 1
"$MK" pairs pairs.dat || { fail "mkrpt pairs"; finish; }

want="compute 50000
ext4_file_read_iter 10000
handle_req 100000
ksys_read 100000
main 100000
parse_config 50000
schedule 50000
write 10000"

# sql: the slice table
"$FLYTRAP" sql --csv -c "select name, dur from slice order by name" pairs.dat > sql.csv 2> e ||
	fail "sql: $(cat e)"
got=$(tail -n +2 sql.csv | tr ',' ' ')
[ "$got" = "$want" ] && ok "sql: the 8 closed calls" || fail "sql: $(echo $got)"
[ "$("$FLYTRAP" sql --csv -c "select s.depth || ' ' || p.name from slice s join slice p on s.parent_id = p.id where s.name = 'parse_config'" pairs.dat | tail -1)" = "1 main" ] &&
	ok "sql: parse_config at depth 1 under main" || fail "sql: parse_config's parent"

# export: closed slices, instants of the calls that never returned
"$FLYTRAP" export -v -o pairs.json pairs.dat 2> export.err || fail "export: $(cat export.err)"
python3 - pairs.json > export.txt <<'PY' || fail "export: not JSON"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
opened, closed, lost, known = {}, [], [], []
for e in ev:
    if e.get("cat") in ("sched", "cpu") or e.get("pid") is None:
        continue
    ph = e.get("ph")
    if ph == "B":
        opened.setdefault(e["tid"], []).append(e)
    elif ph == "E":
        b = opened[e["tid"]].pop()
        if b.get("args", {}).get("entry_lost"):
            known.append(b["name"])
        else:
            closed.append("%s %d" % (b["name"], round((e["ts"] - b["ts"]) * 1000)))
    elif ph == "X" and not e.get("args", {}).get("entry_lost"):
        closed.append("%s %d" % (e["name"], round(e["dur"] * 1000)))
    elif ph == "i" and e.get("args", {}).get("exit") == "not in the trace":
        lost.append(e["name"])
print("\n".join(sorted(c for c in closed if not c.startswith(("Running", "swapper", "idle")))))
print("lost: " + " ".join(sorted(lost)))
print("from its end: " + " ".join(sorted(known)))
PY
got=$(grep -Ev '^(lost|from its end):' export.txt)
[ "$got" = "$want" ] && ok "export: the same 8 closed calls" || fail "export: $(echo $got)"
[ "$(grep '^lost:' export.txt)" = "lost: fsnotify helper parse_config read vfs_read" ] &&
	ok "export: $(grep '^lost:' export.txt)" || fail "export: $(grep '^lost:' export.txt)"
# do_idle's exit has its calltime: export draws it from its end, the others count it unmatched
[ "$(grep '^from its end:' export.txt)" = "from its end: do_idle" ] &&
	ok "export: do_idle drawn from its exit's calltime" || fail "export: $(grep '^from its end:' export.txt)"
grep -q '2 exits without entry, 5 entries without exit' export.err &&
	ok "export: 2 exits without entry, 5 entries without exit" || fail "export: $(tail -1 export.err)"

# callgraph: the tree of calls
"$FLYTRAP" callgraph --source calls --folded pairs.dat > cg.folded 2> e || fail "callgraph: $(cat e)"
want_cg="compute 50000
handle_req 100000
ksys_read 90000
ksys_read;ext4_file_read_iter 10000
main 50000
main;parse_config 50000
schedule 50000"
[ "$(sort cg.folded)" = "$want_cg" ] && ok "callgraph: the same calls as a tree (self times)" ||
	fail "callgraph: $(sort cg.folded | tr '\n' '|')"
"$FLYTRAP" callgraph --source calls pairs.dat | grep -q '0 still open at the end, 2 returns without a call' &&
	ok "callgraph: 2 returns without a call" || fail "callgraph: $("$FLYTRAP" callgraph --source calls pairs.dat | sed -n 4p)"

# slice: the calls open at its start, as the others pair them
"$FLYTRAP" slice --from 70.000035 --to 70.000045 -o part.dat pairs.dat 2> e || fail "slice: $(cat e)"
if [ -f part.dat ]; then
	"$FLYTRAP" callgraph --source calls --folded part.dat > part.folded 2> e
	[ "$(sort part.folded)" = "ksys_read 90000
ksys_read;ext4_file_read_iter 10000
main 50000
main;parse_config 50000" ] && ok "slice: the calls open at its start come whole, vfs_read not among them" ||
		fail "slice: $(sort part.folded | tr '\n' '|')"
fi
finish
