#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The second oracle: flytrap report prints by default, byte for byte, what
# Debian 13's trace-cmd 3.3.1 with libtraceevent 1.8.4 prints (the flags
# column, prev_state under the kernel's own names, __print_array as
# {0x..}), and with --compat 3.1 what Debian 12's 3.1.6 prints; on every
# fixture, every file of tests/data, the writer's synthetic files, and the
# files flytrap's own commands write (convert, slice, merge, redact), which
# both trace-cmd versions must read whole.  trace-cmd 3.3.1 runs in a cached
# Debian 13 root (tests/tc33.sh); the test SKIPs when that cannot be made.
#
# -R and -r EVENT print a field the format shows as a kernel function as
# 1.8.4 does, "name+0xoff (0xaddr)" (flytrap prints those fields itself, so
# the listing follows --compat, not the libtraceevent installed); --compat
# 3.1 keeps 1.7's "name+0xoff" (tests/compat/14).  3.3.1 crashes at the end of a filtered listing
# of a file with several buffers, as 3.1.6 does: those runs are compared
# line-buffered.  Like 3.1.6 it reads a v6 file's empty TRACECLOCK option
# from uninitialised memory, so a difference counts only if it persists.
. "$TOP/tests/lib.sh"
. "$TOP/tests/tc33.sh"
need_fixtures
tc33_need
unset FLYTRAP_REPORT_COMPAT	# the default listing is the one checked here

compared=0 lines=0
# same LABEL FLYTRAP-ARGS -- TRACE-CMD-ARGS: 3.3.1 and flytrap print the same
same() {
	local label=$1 k ft=() tc=() rc
	shift
	while [ "$1" != -- ]; do ft+=("$1"); shift; done
	shift
	tc=("$@")
	"$FLYTRAP" report "${ft[@]}" >"$TMP/ft.txt" 2>"$TMP/ft.err"
	rc=$?
	for k in 1 2 3; do
		tc33 report "${tc[@]}" >"$TMP/tc.txt" 2>"$TMP/tc.err"
		if [ $? -ge 128 ]; then
			# it crashed at its end: what it printed counts, line-buffered
			TC33_WRAP="stdbuf -oL" tc33 report "${tc[@]}" >"$TMP/tc.txt" 2>/dev/null
		fi
		# --cpus names the file as given, and the oracle's copy lives in its root
		sed -i -E 's|^(List of CPUs in ).*/([^/]*)( with data:)$|\1\2\3|' "$TMP/tc.txt" "$TMP/ft.txt"
		cmp -s "$TMP/tc.txt" "$TMP/ft.txt" && break
	done
	if [ $rc != 0 ]; then
		fail "$label: flytrap report exit $rc: $(head -c 200 "$TMP/ft.err")"
	elif ! cmp -s "$TMP/tc.txt" "$TMP/ft.txt"; then
		fail "$label: differs from trace-cmd 3.3.1 ($(diff "$TMP/tc.txt" "$TMP/ft.txt" |
			grep -c '^[<>]') lines of $(wc -l <"$TMP/tc.txt"))"
		diff "$TMP/tc.txt" "$TMP/ft.txt" | head -n 4 | cut -c1-200
	else
		compared=$((compared + 1))
		lines=$((lines + $(wc -l <"$TMP/tc.txt")))
	fi
}

files=("$FIXTURES"/*.dat "$TOP"/tests/data/*.dat)
emit=$TOP/$O/tests/test_writer
if [ -x "$emit" ]; then
	for be in "" --be; do for c in "" --none; do
		f=$TMP/emit$be$c.dat
		"$emit" --emit "$f" $be $c >/dev/null 2>&1 && files+=("$f") || fail "emit $be $c failed"
	done; done
fi

# 1. the default listing, every file
nsame=0
for f in "${files[@]}"; do
	before=$fails
	same "$(basename "$f")" "$f" -- -i "$f"
	[ $fails = "$before" ] && nsame=$((nsame + 1))
done
ok "default listing = trace-cmd 3.3.1 on $nsame of ${#files[@]} files"

# 1b. raw fields (-R), and -r for the events whose formats print a kernel function (%ps, %pS)
nsame=0 nfn=0
for f in "${files[@]}"; do
	before=$fails
	same "$(basename "$f") -R" -R "$f" -- -R -i "$f"
	[ $fails = "$before" ] && nsame=$((nsame + 1))
	grep -q '=[A-Za-z_][A-Za-z0-9_.]*\(+0x[0-9a-f]*\)\? (0x[0-9a-f]*)' "$TMP/ft.txt" &&
		nfn=$((nfn + 1))
	same "$(basename "$f") -r" -r funcgraph_entry -r ext4_journal_start "$f" -- \
		-r funcgraph_entry -r ext4_journal_start -i "$f"
done
ok "-R = trace-cmd 3.3.1 -R on $nsame of ${#files[@]} files ($nfn with a kernel function field)"
[ $nfn -ge 3 ] || fail "only $nfn files print a kernel function field under -R"

# 2. the options flytrap matches for 3.1.6 (tests/compat/14), under 3.3.1, on
# files that cover each path: two buffers and BPF arrays, function_graph,
# uprobes' flags, an old kernel's prev_state names in a v6 fixture (fewer
# under FLYTRAP_TEST_LIGHT)
opt_files=("$TOP/tests/data/sample.dat" "$TOP/tests/data/rpt-graph.dat"
	"$TOP/tests/data/uprobes-alpha-omega.dat"
	"$FIXTURES/kinmax+buildroot-kernel__trace_fifo_multicore.dat"
	"$FIXTURES/hebel23+driver__trace.dat")
[ "${FLYTRAP_TEST_LIGHT:-0}" = 1 ] && opt_files=("${opt_files[@]:0:3}")
for f in "${opt_files[@]}"; do
	[ -f "$f" ] || { fail "$f is missing"; continue; }
	b=$(basename "$f")
	for o in -l --ts-diff "-l --ts-diff" -t -w --stat -N "-I -S" --cpus -E "-F sched_switch" \
		"-v -F sched_switch"; do
		# a filter on an event the file lacks is a refusal (tests/compat/14 checks those)
		case "$o" in *-F*) grep -qx 'sched:sched_switch' <("$FLYTRAP" report -E "$f" 2>/dev/null) ||
			continue ;; esac
		# shellcheck disable=SC2086
		same "$b $o" $o "$f" -- $o -i "$f"
	done
done
# several files: each line named by its file
same "two files" -i "$TOP/tests/data/rpt-sched.dat" -i "$TOP/tests/data/rpt-drops.dat" -- \
	-i "$TOP/tests/data/rpt-sched.dat" -i "$TOP/tests/data/rpt-drops.dat"

# 3. what differs between the two: the flags column and prev_state's names
S=$TOP/tests/data/getpid-switch.dat
"$FLYTRAP" report "$S" | grep -q '^ *[^ ]*-[0-9]* *\[[0-9]*\] [.dXNhHs0-9a-f]\{5\} ' &&
	ok "the default listing has the flags column" || fail "no flags column by default"
"$FLYTRAP" report --compat 3.1 "$S" | grep -q '\] [.d][.N][.hHs]' &&
	fail "--compat 3.1 prints a flags column"
"$FLYTRAP" report "$S" | grep -q ' \[120\] I ==> ' &&
	ok "TASK_IDLE is I (libtraceevent 1.8)" || fail "TASK_IDLE is not printed I"
"$FLYTRAP" report --compat 3.1 "$S" | grep -q ' \[120\] W ==> ' &&
	ok "and W under --compat 3.1 (1.7)" || fail "--compat 3.1 does not print TASK_IDLE as W"
"$FLYTRAP" report --compat 3.2 "$S" >/dev/null 2>"$TMP/err"
[ $? = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && ok "--compat 3.2: one line, exit 2" ||
	fail "--compat 3.2 is not a one-line usage error: $(cat "$TMP/err")"
FLYTRAP_REPORT_COMPAT=3.1 "$FLYTRAP" report "$S" >"$TMP/env.txt"
"$FLYTRAP" report --compat 3.1 "$S" >"$TMP/opt.txt"
cmp -s "$TMP/env.txt" "$TMP/opt.txt" && ok "FLYTRAP_REPORT_COMPAT=3.1 is --compat 3.1" ||
	fail "FLYTRAP_REPORT_COMPAT=3.1 differs from --compat 3.1"
FLYTRAP_REPORT_COMPAT=3.1 "$FLYTRAP" report --compat 3.3 "$S" >"$TMP/env.txt"
"$FLYTRAP" report "$S" >"$TMP/opt.txt"
cmp -s "$TMP/env.txt" "$TMP/opt.txt" && ok "--compat wins over FLYTRAP_REPORT_COMPAT" ||
	fail "--compat 3.3 does not win over FLYTRAP_REPORT_COMPAT=3.1"

# 4. the files flytrap writes, read whole by both trace-cmd versions
src=$TOP/tests/data/sample.dat
w=$TMP/written
mkdir -p "$w"
"$FLYTRAP" convert "$src" -o "$w/convert.dat" >/dev/null 2>&1 || fail "convert failed"
"$FLYTRAP" slice --from 1609 --to 1611 "$src" -o "$w/slice.dat" >/dev/null 2>&1 ||
	fail "slice failed"
"$FLYTRAP" redact "$src" -o "$w/redact.dat" >/dev/null 2>&1 || fail "redact failed"
"$FLYTRAP" merge "$w/slice.dat" "$src" -o "$w/merge.dat" >/dev/null 2>&1 ||
	"$FLYTRAP" merge "$src" "$src" -o "$w/merge.dat" >/dev/null 2>&1 ||
	note_merge="merge refused these inputs"
[ -n "${note_merge:-}" ] && echo "note: $note_merge"
for f in "$w"/*.dat; do
	b="written by flytrap $(basename "$f" .dat)"
	same "$b" "$f" -- -i "$f"
	n=$(grep -vc '^cpus=' "$TMP/ft.txt")
	[ "$n" -gt 0 ] || fail "$b: no events listed"
	FLYTRAP_REPORT_COMPAT=3.1 "$FLYTRAP" report "$f" >"$TMP/ft31.txt" 2>/dev/null
	tc_stable "$TMP/tc31.txt" -i "$f"
	cmp -s "$TMP/tc31.txt" "$TMP/ft31.txt" &&
		ok "$b: read whole by trace-cmd 3.3.1 and 3.1.6 ($n events, both listings equal)" ||
		fail "$b: trace-cmd 3.1.6 and flytrap --compat 3.1 differ"
done
echo "listings compared with trace-cmd 3.3.1: $compared ($lines lines)"
finish
