#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap slice keeps the maps and stored symbol tables of the kept
# processes only (issue 17): two copies of a CPU-bound program under
# --bpf profile with symbols, both deleted before the file is read; a slice
# by --pid of one keeps its binary's symbol table and build-id and drops the
# other's, and callgraph names that task's frames from the slice as it does
# from the full file.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/_bpf.sh"
need_bpf
cd "$TMP"
cp "$WORKLOAD" ./slice_keep_a
cp "$WORKLOAD" ./slice_drop_b
"$FLYTRAP" record -q --bpf profile=999,symbols -o p.dat -- \
	sh -c './slice_keep_a burn 600 > a.out & ./slice_drop_b burn 600 > b.out; wait' 2> rec.err
rc=$?
[ $rc = 0 ] && ! grep -q "not loaded" rec.err || { cat rec.err; fail "record exited $rc"; finish; }
pa=$(awk '/^pid/{print $2}' a.out) pb=$(awk '/^pid/{print $2}' b.out)
rm -f ./slice_keep_a ./slice_drop_b
[ -n "$pa" ] && [ -n "$pb" ] || { fail "no pids from the workloads"; finish; }
"$DUMP" p.dat > d.txt || fail "bpf_dump of the recording reports damage"
grep -q "^symtab $TMP/slice_keep_a " d.txt && grep -q "^symtab $TMP/slice_drop_b " d.txt ||
	{ fail "the recording lacks the two programs' symbol tables"; finish; }

"$FLYTRAP" slice p.dat --pid "$pa" -o s.dat 2> s.err || fail "slice --pid $pa: $(cat s.err)"
"$DUMP" s.dat > ds.txt || fail "bpf_dump of the slice reports damage"
grep -q "^symtab $TMP/slice_keep_a " ds.txt && grep -q "^buildid $TMP/slice_keep_a " ds.txt &&
	ok "the slice keeps the symbol table and build-id of $pa's binary" ||
	fail "the slice lost $pa's binary: $(grep -E '^(symtab|buildid)' ds.txt | head -4)"
# (the recorder's command line names both programs: only the metadata line may)
grep -v '^meta command_line=' ds.txt | grep -q "slice_drop_b" &&
	fail "the slice still names the other program: $(grep slice_drop_b ds.txt | head -2)" ||
	ok "nothing of the other process ($pb) is left: maps, build-id, symbol table"
grep -q "^symtab .*/libc.so" ds.txt && ok "the kept process's libraries keep their symbol tables" ||
	fail "no libc symbol table in the slice"

"$FLYTRAP" callgraph --folded --pid "$pa" p.dat > cf.txt 2> /dev/null || fail "callgraph of the recording"
"$FLYTRAP" callgraph --folded s.dat > cs.txt 2> /dev/null || fail "callgraph of the slice"
grep -q 'main;bw_burn_outer;bw_burn_inner [0-9]' cs.txt && cmp -s cf.txt cs.txt &&
	ok "callgraph of the slice names $pa's frames as the recording does" ||
	fail "callgraph differs: $(diff cf.txt cs.txt | head -4 | tr '\n' ' ')"
"$FLYTRAP" info s.dat | grep -q 'symtabs_dropped=[1-9]' && ok "info counts the symbol tables left out" ||
	fail "info: $("$FLYTRAP" info s.dat | grep dropped)"
finish
