#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --bpf ufunc=BINARY:GLOB on a program with a known call tree
# (bw_a -> bw_b -> bw_c twice, bw_a -> bw_rec -> bw_rec -> bw_rec): entries
# and returns nest correctly per thread, depths and durations agree, every
# function is called the known number of times, and trace-cmd prints the
# function names.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
need_cmd trace-cmd
R=20
cd "$TMP"
"$FLYTRAP" record -q --bpf "ufunc=$WORKLOAD:bw_[abc],ufunc=$WORKLOAD:bw_rec" -o u.dat -- \
	"$WORKLOAD" calls $R >w.out 2>rec.err
rc=$?
[ $rc = 0 ] && ! grep -q "not loaded" rec.err || { cat rec.err; fail "record exited $rc"; finish; }
pid=$(awk '/^pid/{print $2}' w.out)
"$DUMP" u.dat >d.txt || fail "bpf_dump reports damage"
# function index -> name, from the META option
awk '/^meta bpf_ufunc=/{sub("meta bpf_ufunc=",""); print $1, $3}' d.txt >funcs.txt
[ "$(wc -l <funcs.txt)" = 4 ] && ok "4 functions matched: $(awk '{print $2}' funcs.txt | tr '\n' ' ')" ||
	fail "functions matched: $(cat funcs.txt | tr '\n' ' ')"

awk -v p="$pid" '$1=="ev" && ($2=="ufunc_entry" || $2=="ufunc_exit") && $5==p' d.txt >calls.txt
# replay: a stack per thread; each exit must close the innermost open entry
awk 'NR==FNR { name[$1] = $2; next }
{
	for (i=6;i<=NF;i++) { split($i,kv,"="); f[kv[1]]=kv[2] }
	t = $4 "/" $5; tid = $5
	if ($2 == "ufunc_entry") {
		d = ++depth[tid]; fn[tid, d] = f["func"]; ts[tid, d] = $3
		if (f["depth"] != d) { bad++; if (bad < 4) print "entry depth", f["depth"], "!=", d > "/dev/stderr" }
		count[name[f["func"]]]++
	} else {
		d = depth[tid]
		if (d < 1 || fn[tid, d] != f["func"] || f["depth"] != d || f["flags"] != 0 ||
		    f["start"] != ts[tid, d] || f["start"] + f["duration"] != $3) {
			bad++; if (bad < 4) print "bad exit:", $0 > "/dev/stderr"
		}
		depth[tid]--
		exits++
	}
}
END {
	for (t in depth) if (depth[t] != 0) { bad++; print "unclosed calls on", t > "/dev/stderr" }
	printf "%d %d %d %d %d %d\n", bad, exits, count["bw_a"], count["bw_b"], count["bw_c"], count["bw_rec"]
}' funcs.txt calls.txt >replay.txt 2>replay.err
read -r bad exits a b c rec <replay.txt
[ "$bad" = 0 ] && ok "entries and returns nest (depth, function, start, duration agree)" ||
	fail "$bad nesting errors: $(head -3 replay.err)"
[ "$a $b $c $rec" = "$R $((2 * R)) $((2 * R)) $((3 * R))" ] && ok "call counts a=$a b=$b c=$c rec=$rec" ||
	fail "call counts a=$a b=$b c=$c rec=$rec, expected $R $((2 * R)) $((2 * R)) $((3 * R))"
[ "$exits" = $((8 * R)) ] && ok "$exits returns" || fail "$exits returns, expected $((8 * R))"
# recursion reaches depth 4 (bw_a, bw_rec x3)
grep -q "ufunc_entry .* depth=4 " calls.txt && ok "recursion seen at depth 4" || fail "no depth-4 entry"

# flytrap's call graph rebuilds the same tree from the file
"$FLYTRAP" callgraph --folded u.dat >folded.txt 2>cg.err || fail "flytrap callgraph failed: $(head -2 cg.err)"
for path in "bw_a;bw_b;bw_c" "bw_a;bw_rec;bw_rec;bw_rec"; do
	grep -q "^$path [0-9]" folded.txt && ok "callgraph has $path" || fail "callgraph lacks $path"
done
[ "$(grep -cv '^bw_a' folded.txt)" = 0 ] && ok "callgraph: every path starts at bw_a" ||
	fail "callgraph paths not under bw_a: $(grep -v '^bw_a' folded.txt | head -2 | tr '\n' ' ')"

trace-cmd report -i u.dat >tc.txt 2>/dev/null
n=$(grep -cE "ufunc_entry: +tgid=$pid func=bw_rec depth=" tc.txt)
[ "$n" = $((3 * R)) ] && ok "trace-cmd prints function names ($n bw_rec entries)" ||
	fail "trace-cmd prints $n 'func=bw_rec' entries"
finish
