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

# the recorder's own figures count the top-level buffer the tracer wrote
# into on this kernel: its pages read and the events in them
if [ -s "$G/graph.dat" ]; then
	rs=$("$FLYTRAP" info --json "$G/graph.dat" 2>/dev/null | jq -r '.recorder // {} | "\(.bytes_read // 0) \(.events // 0)"' 2>/dev/null)
	read -r rs_bytes rs_events <<<"${rs:-0 0}"
	n_graph=$(trace-cmd report "$G/graph.dat" 2>/dev/null | grep -c 'funcgraph_')
	[ "${rs_bytes:-0}" -gt 0 ] && [ "${rs_events:-0}" -ge "$n_graph" ] &&
		ok "graph.dat: recorder stats count the top-level buffer ($rs_bytes bytes read, $rs_events events)" ||
		fail "graph.dat: recorder stats say ${rs_bytes:-?} bytes read, ${rs_events:-?} events for $n_graph graph records"
fi

# function tracer with stacks, and the kprobes, in one file
if [ -f "$G/func.dat" ] && tc_has func.dat 'function: *do_sys_openat2' && tc_has func.dat 'kernel_stack:' &&
	tc_has func.dat 'kx_open: .*filename="/etc/lab-file"' && tc_has func.dat 'kx_ret: .*ret=\(0x\)\?[0-9a-f]'; then
	ok "func.dat: function records with stacks, kx_open with the file name, kx_ret with the value"
fi
# The golden file: this recording, shipped with its kallsyms cut (guest-
# record.sh checked that it prints like the recorded file).
if [ "${FLYTRAP_LAB_UPDATE_GOLDEN:-0}" = 1 ]; then
	if grep -q '^note: graph.dat: shipped with kallsyms cut' "$G/results.txt"; then
		mkdir -p "$TOP/tests/data"
		cp "$G/graph.dat" "$TOP/tests/data/lab-function-graph.dat"
		chmod 644 "$TOP/tests/data/lab-function-graph.dat"
		echo "note: wrote tests/data/lab-function-graph.dat ($(stat -c %s "$G/graph.dat") bytes)"
	else
		fail "golden: graph.dat was not cut in the guest (is $O/tests/tools/trim_kallsyms built?)"
	fi
fi
