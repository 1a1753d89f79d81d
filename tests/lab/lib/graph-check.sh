# SPDX-License-Identifier: GPL-2.0-only
# graph_matches FILE: `flytrap callgraph --json FILE` gives the
# do_sys_openat2 root and each of its direct children the count and total
# nanoseconds of the raw funcgraph_exit records (trace-cmd report -R,
# rettime - calltime).  Returns 0 on a match (graph_children = number of
# children compared); calls fail otherwise.  Needs trace-cmd, awk, python3,
# $FLYTRAP and $TMP.
graph_matches() {
	trace-cmd report -R "$1" 2>/dev/null | awk '
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
		fail "$1: no do_sys_openat2 exit records in trace-cmd report -R"
		return 1
	elif ! command -v python3 >/dev/null; then
		echo "note: python3 missing: callgraph JSON not compared"
		return 1
	elif ! "$FLYTRAP" callgraph --json "$1" >"$TMP/cg.json" 2>"$TMP/cg.err"; then
		fail "flytrap callgraph $1: $(head -c 200 "$TMP/cg.err")"
		return 1
	else
		python3 - "$TMP/cg.json" >"$TMP/cg-graph.txt" <<-'PY'
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
			graph_children=$(grep -c '^child' "$TMP/raw-graph.txt")
			return 0
		else
			fail "$1: callgraph differs from the raw entry/exit records"
			diff "$TMP/raw-graph.txt" "$TMP/cg-graph.txt" | head -20
			return 1
		fi
	fi
	return 1
}
