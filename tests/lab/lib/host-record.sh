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
trace-cmd report -R "$G/graph.dat" 2>/dev/null | awk '
	function hex(s,    i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	/funcgraph_entry:/ {
		f = ""; d = -1
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^func=/) f = substr($i, 6)
			if ($i ~ /^depth=/) d = substr($i, 7) + 0
		}
		# the task of the record: the token before "[cpu]"
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) task = $(i - 1)
		if (d == 0) inroot[task] = (f == "do_sys_openat2")
	}
	/funcgraph_exit:/ {
		f = ""; d = -1; c = 0; r = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^func=/) f = substr($i, 6)
			if ($i ~ /^depth=/) d = substr($i, 7) + 0
			if ($i ~ /^calltime=/) c = hex(substr($i, 10))
			if ($i ~ /^rettime=/) r = hex(substr($i, 9))
		}
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) task = $(i - 1)
		if (d == 0 && f == "do_sys_openat2") { n[f]++; t[f] += r - c }
		else if (d == 1 && inroot[task]) { n["child " f]++; t["child " f] += r - c }
	}
	END { for (k in n) printf "%s %d %.0f\n", k, n[k], t[k] }' | sort >"$TMP/raw-graph.txt"
if ! grep -q '^do_sys_openat2 ' "$TMP/raw-graph.txt"; then
	fail "graph.dat: no do_sys_openat2 exit records in trace-cmd report -R"
elif ! command -v python3 >/dev/null; then
	echo "note: python3 missing: callgraph JSON not compared"
elif ! "$FLYTRAP" callgraph --json "$G/graph.dat" >"$TMP/cg.json" 2>"$TMP/cg.err"; then
	fail "flytrap callgraph graph.dat: $(head -c 200 "$TMP/cg.err")"
else
	python3 - "$TMP/cg.json" >"$TMP/cg-graph.txt" <<'PY'
import json, sys
tree = json.load(open(sys.argv[1]))["tree"]
root = [c for c in tree["children"] if c["name"] == "do_sys_openat2"]
for r in root:
    print("do_sys_openat2", r["count"], r["total"])
    kids = {}
    for c in r["children"]:
        k = kids.setdefault(c["name"], [0, 0])
        k[0] += c["count"]
        k[1] += c["total"]
    for name, (cnt, tot) in kids.items():
        print("child " + name, cnt, tot)
PY
	sort -o "$TMP/cg-graph.txt" "$TMP/cg-graph.txt"
	if cmp -s "$TMP/raw-graph.txt" "$TMP/cg-graph.txt"; then
		ok "graph.dat: flytrap callgraph's do_sys_openat2 node and its $(grep -c '^child' "$TMP/raw-graph.txt") children match the raw records (count and ns)"
	else
		fail "graph.dat: callgraph differs from the raw entry/exit records"
		diff "$TMP/raw-graph.txt" "$TMP/cg-graph.txt" | head -20
	fi
fi

# function tracer with stacks, and the kprobes, in one file
if [ -f "$G/func.dat" ] && tc_has func.dat 'function: *do_sys_openat2' && tc_has func.dat 'kernel_stack:' &&
	tc_has func.dat 'kx_open: .*filename="/etc/lab-file"' && tc_has func.dat 'kx_ret: .*ret=0x'; then
	ok "func.dat: function records with stacks, kx_open with the file name, kx_ret with the value"
fi
if [ -f "$G/partial.dat" ] && tc_has partial.dat 'kx_open: .*filename="/etc/lab-file"'; then
	ok "partial.dat: kx_open recorded although the tracer and another kprobe were refused"
fi
for sig in INT TERM; do
	if [ -f "$G/sig$sig.dat" ] && tc_has sig$sig.dat 'funcgraph_entry' && tc_has sig$sig.dat 'kx_open:'; then
		ok "sig$sig.dat: graph and kprobe records of a recording ended by SIG$sig"
	fi
done

if [ "${FLYTRAP_LAB_UPDATE_GOLDEN:-0}" = 1 ]; then
	mkdir -p "$TOP/tests/data"
	cp "$G/graph.dat" "$TOP/tests/data/lab-function-graph.dat"
	echo "note: copied graph.dat to tests/data/lab-function-graph.dat"
fi
