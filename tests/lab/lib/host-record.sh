# SPDX-License-Identifier: GPL-2.0-only
# Sourced by 10-kernel-lab.sh: host checks of the files `flytrap record`
# wrote inside the lab kernel ($G), with trace-cmd as the oracle.

# a file trace-cmd reads whole, printing at least one line matching $2
tc_has() {
	local f=$G/$1 out
	if ! out=$(trace-cmd report "$f" 2>"$TMP/tc.err"); then
		fail "trace-cmd report $1: $(head -c 200 "$TMP/tc.err")"
		return 1
	fi
	if echo "$out" | grep -q -- "$2"; then
		return 0
	fi
	fail "trace-cmd report $1 has no line matching '$2'"
	return 1
}

# function_graph: trace-cmd prints a graph rooted at do_sys_openat2
if tc_has graph.dat 'funcgraph_entry: .*|  do_sys_openat2() {' &&
	tc_has graph.dat 'funcgraph_exit: .*|  }'; then
	ok "graph.dat: trace-cmd report prints a function graph rooted at do_sys_openat2"
fi

# flytrap callgraph: a tree whose do_sys_openat2 node and its children
# carry the counts and durations of the raw entry/exit records
if graph_matches "$G/graph.dat"; then
	ok "graph.dat: flytrap callgraph's do_sys_openat2 node and its $graph_children children match the raw records (count and ns)"
fi

# function tracer with stacks, and the kprobes, in one file
if [ -f "$G/func.dat" ] && tc_has func.dat 'function: *do_sys_openat2' && tc_has func.dat 'kernel_stack:' &&
	tc_has func.dat 'kx_open: .*filename="/etc/lab-file"' && tc_has func.dat 'kx_ret: .*ret=0x'; then
	ok "func.dat: function records with stacks, kx_open with the file name, kx_ret with the value"
fi
# The golden file: this recording with kallsyms cut to the functions in
# it, accepted only if trace-cmd prints it exactly like the original.
if [ "${FLYTRAP_LAB_UPDATE_GOLDEN:-0}" = 1 ]; then
	trim=$TOP/$O/tests/tools/trim_kallsyms
	trace-cmd report -R "$G/graph.dat" 2>/dev/null | sed -n 's/.* func=\([^ ]*\) .*/\1/p' | sort -u >"$TMP/names.txt"
	if [ ! -x "$trim" ]; then
		fail "golden: $trim is not built"
	elif ! "$trim" "$G/graph.dat" "$TMP/golden.dat" "$TMP/names.txt"; then
		fail "golden: trim_kallsyms failed"
	else
		trace-cmd report "$G/graph.dat" >"$TMP/orig.txt" 2>&1
		trace-cmd report "$TMP/golden.dat" >"$TMP/trim.txt" 2>&1
		if cmp -s "$TMP/orig.txt" "$TMP/trim.txt" && graph_matches "$TMP/golden.dat"; then
			mkdir -p "$TOP/tests/data"
			cp "$TMP/golden.dat" "$TOP/tests/data/lab-function-graph.dat"
			echo "note: wrote tests/data/lab-function-graph.dat ($(stat -c %s "$TMP/golden.dat") bytes, from $(stat -c %s "$G/graph.dat"))"
		else
			fail "golden: the trimmed file does not print like the original"
			diff "$TMP/orig.txt" "$TMP/trim.txt" | head -10
		fi
	fi
fi
