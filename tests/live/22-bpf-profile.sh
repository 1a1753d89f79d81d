#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --bpf profile with symbols on a CPU-bound program with known function
# names, run from a copy that is deleted before the file is read: the user
# stacks resolve to those names from the file alone (its process maps,
# build-ids and symbol tables), and the file says which binary ran.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
cd "$TMP"
cp "$WORKLOAD" ./prof_target
"$FLYTRAP" record -q --bpf profile=999,symbols -o p.dat -- ./prof_target burn 1000 >w.out 2>rec.err
rc=$?
[ $rc = 0 ] && ! grep -q "not loaded" rec.err || { cat rec.err; fail "record exited $rc"; finish; }
pid=$(awk '/^pid/{print $2}' w.out)
want_bid=$(readelf -n ./prof_target 2>/dev/null | awk '/Build ID/{print $3}')
rm -f ./prof_target
"$DUMP" p.dat >d.txt || fail "bpf_dump reports damage: $(grep ^error d.txt | head -3)"

awk -v p="$pid" '$1=="ev" && $2=="profile" && $5==p' d.txt >samples.txt
n=$(wc -l <samples.txt)
[ "$n" -ge 50 ] && ok "$n profile samples of pid $pid" || fail "only $n profile samples"
hit=$(grep -c 'usyms=bw_burn_inner;main' samples.txt)
[ "$n" -gt 0 ] && [ $((hit * 100 / n)) -ge 70 ] && ok "$hit of $n samples resolve to bw_burn_inner <- main (binary deleted)" ||
	fail "$hit of $n samples resolve to bw_burn_inner <- main: $(awk '{print $NF}' samples.txt | sort | uniq -c | sort -rn | head -3 | tr '\n' ' ')"
grep -q "^buildid $TMP/prof_target $want_bid\$" d.txt && ok "build-id of the deleted binary stored ($want_bid)" ||
	fail "build-id of prof_target missing: $(grep '^buildid' d.txt | head -2)"
grep -qE "^symtab $TMP/prof_target [1-9][0-9]* [1-9]" d.txt && ok "symbol table of the deleted binary stored" ||
	fail "no symbol table for prof_target"
grep -q "^symtab .*/libc.so" d.txt && ok "symbol tables of its libraries stored" || fail "no libc symbol table"
[ "$(meta d.txt bpf_procs_gone)" = 0 ] && ok "maps of every process captured" ||
	fail "processes whose maps were missed: $(meta d.txt bpf_procs_gone)"
# flytrap's own analyzer resolves them the same way, from the file alone
if "$FLYTRAP" callgraph --folded p.dat >folded.txt 2>cg.err; then
	# the deleted binary unwinds from the CFI --symbols stored: bw_burn_outer,
	# which leaves no frame pointer, stays between them (the frame-pointer
	# walk of files without it skips to main)
	grep -q 'main;bw_burn_outer;bw_burn_inner [0-9]' folded.txt &&
		ok "flytrap callgraph: main;bw_burn_outer;bw_burn_inner" ||
		fail "flytrap callgraph does not name main;bw_burn_outer;bw_burn_inner: $(sort -t' ' -k2 -rn folded.txt | head -2 | tr '\n' ' ')"
else
	fail "flytrap callgraph failed: $(head -2 cg.err)"
fi
# the kernel side of the stacks resolves through the file's kallsyms
grep -q "kstack_depth=[1-9]" samples.txt && ok "kernel stacks present" || fail "no sample with a kernel stack"
finish
