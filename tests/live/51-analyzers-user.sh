#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# User-space call graphs from live recordings of bpf_workload:
#  - BPF ufunc entry/exit on its bw_* functions: `callgraph` shows the known
#    call tree of `calls 50` with exact call counts (bw_a 50, bw_b 100,
#    bw_c 100 under bw_b, bw_rec nested three deep);
#  - uprobes (record --uprobe) on bw_a and bw_b: the same counts;
#  - BPF profile stacks with stored symbol tables (--bpf ...,symbols):
#    most samples of `burn` end in bw_burn_inner, named from the file after
#    the recorded binary has been deleted.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd python3
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
node='def node(t, *path):
    for p in path:
        t = [c for c in t["children"] if c["name"] == p][0]
    return t
'
jnode() { python3 -c "$node"'
import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"; }
cd "$TMP"

"$FLYTRAP" record -q --bpf "ufunc=$WORKLOAD:bw_*" -o u.dat -- "$WORKLOAD" calls 50 >w1.out 2>r1.err ||
	fail "record --bpf ufunc: $(head -3 r1.err)"
"$FLYTRAP" callgraph --json u.dat >u.json || fail "callgraph on the ufunc recording"
got=$(jnode u.json "'%d %d %d %d' % (node(j['tree'], 'bw_a')['count'], node(j['tree'], 'bw_a', 'bw_b')['count'],
	node(j['tree'], 'bw_a', 'bw_b', 'bw_c')['count'], node(j['tree'], 'bw_a', 'bw_rec', 'bw_rec', 'bw_rec')['count'])")
[ "$got" = "50 100 100 50" ] && ok "ufunc call tree: bw_a 50, bw_b 100, bw_c 100, bw_rec x3 50" ||
	fail "ufunc call tree counts: $got"
a=$(jnode u.json "node(j['tree'], 'bw_a')['total']"); b=$(jnode u.json "node(j['tree'], 'bw_a', 'bw_b')['total']")
[ "$a" -ge "$b" ] && [ "$b" -gt 0 ] && ok "bw_a total $a ns >= bw_b total $b ns" || fail "totals bw_a $a, bw_b $b"

"$FLYTRAP" record -q --uprobe "$WORKLOAD:bw_[ab]" -o up.dat -- "$WORKLOAD" calls 50 >w2.out 2>r2.err ||
	fail "record --uprobe: $(head -3 r2.err)"
"$FLYTRAP" callgraph --json up.dat >up.json || fail "callgraph on the uprobe recording"
got=$(jnode up.json "'%d %d' % (node(j['tree'], 'bw_a')['count'], node(j['tree'], 'bw_a', 'bw_b')['count'])")
[ "$got" = "50 100" ] && ok "uprobe call tree: bw_a 50, bw_b 100" || fail "uprobe call tree counts: $got"

# a copy of the binary that is gone before the analysis: only the symbol
# tables stored in the file can name its functions
cp "$WORKLOAD" "$TMP/wl"
"$FLYTRAP" record -q --bpf profile=997,symbols -o p.dat -- "$TMP/wl" burn 1500 >w3.out 2>r3.err ||
	fail "record --bpf profile: $(head -3 r3.err)"
rm -f "$TMP/wl"
pid=$(awk '/^pid/{print $2}' w3.out)
"$FLYTRAP" callgraph --source samples --folded --pid "$pid" --symfs "$TMP/nothing" p.dat >p.folded ||
	fail "callgraph on the profile recording"
# a folded line is "frame;frame;... COUNT", and a frame may hold blanks ("[unwind: ...]")
all=$(awk '{ s += $NF } END { print s + 0 }' p.folded)
inner=$(awk '{ n = $NF; sub(/ [0-9]+$/, "") } /bw_burn_inner$/ { s += n } END { print s + 0 }' p.folded)
[ "$all" -gt 50 ] && [ $((inner * 2)) -gt "$all" ] && ok "$inner of $all samples in bw_burn_inner" ||
	fail "$inner of $all samples in bw_burn_inner: $(sort -t' ' -k2 -n p.folded | tail -3)"
finish
