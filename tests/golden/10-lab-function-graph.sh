#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The real function_graph recording from the kernel lab
# (tests/data/lab-function-graph.dat, see docs/kernel-lab.md): trace-cmd
# prints it as a graph rooted at do_sys_openat2, and flytrap callgraph's
# tree has the counts and durations of the raw entry/exit records.  No
# qemu needed.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lab/lib/graph-check.sh"
need_cmd trace-cmd
need_cmd python3
F=$TOP/tests/data/lab-function-graph.dat
[ -f "$F" ] || skip "$F is missing"
[ -x "$FLYTRAP" ] || skip "$FLYTRAP is not built"

out=$(trace-cmd report "$F" 2>&1) || fail "trace-cmd report: $(echo "$out" | head -n 3)"
roots=$(echo "$out" | grep -c 'funcgraph_entry: .*|  do_sys_openat2() {')
[ "$roots" -gt 0 ] && ok "trace-cmd report prints $roots do_sys_openat2 graphs" ||
	fail "trace-cmd report shows no do_sys_openat2() { line"
echo "$out" | grep -q '0xffffffff' && fail "trace-cmd report shows unresolved kernel addresses"
graph_matches "$F" &&
	ok "flytrap callgraph: do_sys_openat2 and its $graph_children children match the raw records"
finish
