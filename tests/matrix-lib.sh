# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix: every file a writer makes (record, a flight dump, rotation,
# recover, convert, slice, redact, merge and the chains users make of them) read by every
# reader (info, report, analyze, callgraph, overhead, drops, export, export --html, sql, diff
# against its source, verify, stock trace-cmd, and a second trace-cmd given by
# FLYTRAP_TRACE_CMD2), each cell asserting what a user would check.  Sourced after
# tests/lib.sh by tests/report/matrix.sh (the generated writers, offline) and
# tests/live/67-share-matrix.sh (the live ones); docs/sharing.md shows the table.
#
# A writer is declared once its file is made:
#   mx_writer NAME FILE EXPECT [PARENT [REL [FILTER...]]]
#     EXPECT   the event count the file must have: a number, "parent" (the parent's, or the
#              parent's with FILTER applied: `flytrap report FILTER PARENT`), or "self" (what
#              stock trace-cmd, else flytrap report, counts in FILE: a recording)
#     PARENT   the writer it was made from (by NAME), whose figures it keeps
#     REL      same: every count and duration kept (convert, redact, merge of redacted
#              files); window: the counts of FILTER's time window kept (slice --from --to:
#              the tasks' time in each state is left out, the window's edges cut it);
#              tasks: the same for a selection of tasks (slice --pid, --comm), drops' figures
#              left out (drops does not narrow by task)
#   mx_secrets NAME STRING...   bytes that must not be in NAME's file nor in what readers print
#   mx_writer_fail NAME MESSAGE  the writer itself failed: every cell of its row fails
#   mx_writer_skip NAME REASON   a prerequisite is missing: every cell of its row is a SKIP
# then mx_run runs every cell and mx_finish prints the table and the failures, and exits (1
# also when a check outside the table called lib.sh's fail).
# MATRIX_TABLE=1 prints the table only (markdown, for docs/sharing.md); MATRIX_RESULTS=FILE
# adds the cells' results to FILE.
MX=$TMP/mx
mkdir -p "$MX"
MXPY=$TOP/tests/matrix.py
MX_RESULTS=$MX/results
: > "$MX_RESULTS"
# sql before drops: drops compares the losses info and sql told
MX_READERS=(info report sql analyze callgraph overhead drops export html diff verify trace-cmd
	trace-cmd2 secrets)
# light (the sanitizer step): the trace-cmds read the same files in the plain run; here every
# flytrap reader runs, which is what the sanitizers watch
light && MX_READERS=(info report sql analyze callgraph overhead drops export html diff verify
	secrets)
MX_WRITERS=()
declare -A W_FILE W_EXP W_PARENT W_REL W_FILTER W_STATE W_SECRETS W_NOTE W_HIDE
MX_TC2=${FLYTRAP_TRACE_CMD2:-}
# Debian 13's trace-cmd 3.3.1 from tests/tc33.sh's root, when the compat family has made it (root)
if [ -z "$MX_TC2" ] && [ "$(id -u)" = 0 ] && "$TOP/tests/trace-cmd-33" --have; then
	MX_TC2=$TOP/tests/trace-cmd-33
fi
MX_QUIET=${MATRIX_TABLE:-0}

mx_say() { [ "$MX_QUIET" = 1 ] || echo "$@"; }
mx_field() { python3 "$MXPY" field "$1" "$2"; }
# events of a listing (trace-cmd report or flytrap report): one line "comm-pid [cpu]" each;
# a stack event's further lines ("=> func") are not counted
mx_count_lines() { grep -cE -- '-[0-9]+ +\[[0-9]+\] ' "$1"; }

# mx_listing FILE [OPTION...]: the events of FILE as stock trace-cmd lists them, or flytrap
# report where trace-cmd is not installed
mx_listing() {
	local f=$1
	shift
	if command -v trace-cmd > /dev/null; then
		trace-cmd report "$@" -i "$f" 2> /dev/null
	else
		"$FLYTRAP" report "$@" "$f" 2> /dev/null
	fi
}

mx_writer() {
	local name=$1 file=$2 exp=$3 parent=${4:-} rel=${5:-same}
	shift 5 2> /dev/null || shift $#
	MX_WRITERS+=("$name")
	W_FILE[$name]=$file W_PARENT[$name]=$parent W_REL[$name]=$rel W_STATE[$name]=ok
	W_FILTER[$name]="$*" W_SECRETS[$name]= W_NOTE[$name]=
	if [ -n "$parent" ] && [ "${W_STATE[$parent]:-missing}" != ok ]; then
		W_STATE[$name]="fail:its source '$parent' was not made (${W_STATE[$parent]:-missing})"
		return
	fi
	[ -s "$file" ] || { W_STATE[$name]="fail:no file $file"; return; }
	case $exp in
	parent)
		if [ -z "$*" ]; then
			exp=${W_EXP[$parent]}
		else
			"$FLYTRAP" report "$@" "${W_FILE[$parent]}" > "$MX/count.txt" 2>&1
			exp=$(mx_count_lines "$MX/count.txt")
		fi ;;
	self)
		mx_listing "$file" > "$MX/count.txt"
		exp=$(mx_count_lines "$MX/count.txt") ;;
	esac
	W_EXP[$name]=$exp
	mx_say "writer $name: $file, $exp events expected${parent:+, from $parent ($rel${*:+ $*})}"
}
# mx_source NAME: NAME (declared) is only the source of this part's writers: no row of its own
# (another part of the matrix reads it)
mx_source() { W_HIDE[$1]=1; }
mx_writer_fail() {
	MX_WRITERS+=("$1")
	W_STATE[$1]="fail:$2" W_FILE[$1]= W_PARENT[$1]= W_SECRETS[$1]=
	mx_say "writer $1: FAILED: $2"
}
mx_writer_skip() {
	MX_WRITERS+=("$1")
	W_STATE[$1]="skip:$2" W_FILE[$1]= W_PARENT[$1]= W_SECRETS[$1]=
	mx_say "writer $1: SKIP: $2"
}
mx_secrets() {
	local name=$1 s
	shift
	for s in "$@"; do W_SECRETS[$name]+="$s"$'\n'; done
}

# ---- the readers: each checks FILE (writer W) in the folder D, sets MSG, returns 0 pass,
# 1 fail, 77 skip, 78 not applicable ------------------------------------------------------

# rd_run D NAME CMD...: runs CMD with its output in D/NAME.out (stderr D/NAME.err); 1 with
# MSG set when it exits non-zero
rd_run() {
	local d=$1 n=$2 rc
	shift 2
	"$@" > "$d/$n.out" 2> "$d/$n.err"
	rc=$?
	[ $rc = 0 ] && return 0
	MSG="exit $rc: $(grep -v '^$' "$d/$n.err" | head -1 | cut -c1-160)"
	return 1
}
rd_events() {
	[ "$2" = "$W_EXPN" ] && return 0
	MSG="$1: ${W_EXPN} events expected, $2 came"
	return 1
}
# rd_check READER D [INFO SQL]: READER's JSON (D/READER.out) counts the writer's events and has
# its source's figures (the source's JSON with the writer's FILTER, made once)
rd_check() {
	local reader=$1 d=$2 p=${W_PARENT[$W]} ref=
	if [ -n "$p" ]; then
		# shellcheck disable=SC2086
		ref=$(mx_ref "$p" "$reader" ${W_FILTER[$W]}) || { MSG="the source's $reader: $ref"; return 1; }
	fi
	MSG=$(python3 "$MXPY" cell "$reader" "$d/$reader.out" "$W_EXPN" "$W_MODE" "$ref" "${@:3}") &&
		return 0
	[ -n "$p" ] && MSG="${MSG/the source/$p${W_FILTER[$W]:+ with ${W_FILTER[$W]}}}"
	return 1
}
# mx_ref PARENT READER FILTER...: the file of the parent's JSON (made once)
mx_ref() {
	local p=$1 reader=$2 key f
	shift 2
	key=$(printf '%s|' "$p" "$reader" "$@" | md5sum | cut -c1-12)
	f=$MX/ref-$key
	if [ ! -e "$f.out" ]; then
		case $reader in
		export) "$FLYTRAP" export "$@" "${W_FILE[$p]}" -o "$f.tmp" 2> "$f.err" ;;
		*) "$FLYTRAP" "$reader" --json "$@" "${W_FILE[$p]}" > "$f.tmp" 2> "$f.err" ;;
		esac || { echo "exit $?: $(head -1 "$f.err")"; return 1; }
		mv "$f.tmp" "$f.out"
	fi
	echo "$f.out"
}

rd_info() {
	rd_run "$2" info "$FLYTRAP" info --json "$1" || return 1
	MSG=$(python3 "$MXPY" cell info "$2/info.out" "$W_EXPN" all)
}
rd_report() {
	rd_run "$2" report "$FLYTRAP" report "$1" || return 1
	rd_events "report's lines" "$(mx_count_lines "$2/report.out")"
}
rd_analyze() { rd_run "$2" analyze "$FLYTRAP" analyze --json "$1" && rd_check analyze "$2"; }
rd_callgraph() { rd_run "$2" callgraph "$FLYTRAP" callgraph --json "$1" && rd_check callgraph "$2"; }
rd_overhead() { rd_run "$2" overhead "$FLYTRAP" overhead --json "$1" && rd_check overhead "$2"; }
# drops: the figures, and one loss told the same by info, drops and sql (the marked ring
# buffer losses; the BPF ring buffer's)
rd_drops() {
	local d=$2
	rd_run "$d" drops "$FLYTRAP" drops --json "$1" || return 1
	# what the info and sql cells printed (made again if they failed)
	[ -s "$d/../info/info.out" ] || "$FLYTRAP" info --json "$1" > "$d/../info/info.out" 2> /dev/null
	[ -s "$d/../sql/sql.out" ] || "$FLYTRAP" sql --csv -c "$MX_SQL" "$1" > "$d/../sql/sql.out" 2> /dev/null
	rd_check drops "$d" "$d/../info/info.out" "$d/../sql/sql.out"
}
rd_export() {
	rd_run "$2" export "$FLYTRAP" export "$1" -o "$2/export.out" || return 1
	rd_check export "$2"
}
rd_html() {
	rd_run "$2" html "$FLYTRAP" export --html "$1" -o "$2/html.out" || return 1
	tail -c 20 "$2/html.out" | grep -q '</html>' || { MSG="the page does not end with </html>"; return 1; }
}
# the events, and the losses of the ring buffers (marked pages) and of BPF's ring buffer
MX_SQL="select (select count(*) from ftrace_event),
	(select coalesce(sum(count), 0) from drops where source = 'ftrace'),
	(select coalesce(sum(count), 0) from drops where source like 'bpf%')"
rd_sql() {
	rd_run "$2" sql "$FLYTRAP" sql --csv -c "$MX_SQL" "$1" || return 1
	rd_events "sql count(*) from ftrace_event" "$(tail -1 "$2/sql.out" | cut -d, -f1)"
}
rd_diff() {
	local p=${W_PARENT[$W]}
	[ -n "$p" ] || { MSG="no source to compare with"; return 78; }
	# shellcheck disable=SC2086
	rd_run "$2" diff "$FLYTRAP" diff --json ${W_FILTER[$W]} "${W_FILE[$p]}" "$1" || return 1
	# a task slice keeps the listing's selection, diff's --pid/--comm the analyzers'
	# (docs/sharing.md, "Known differences"): there diff need only read both
	[ "$W_MODE" = tasks ] && return 0
	MSG=$(python3 "$MXPY" diffzero "$2/diff.out") && return 0
	MSG="diff from $p${W_FILTER[$W]:+ with ${W_FILTER[$W]}} shows a change: $MSG"
	return 1
}
rd_verify() { rd_run "$2" verify "$FLYTRAP" verify "$1"; }
rd_tc() {
	local tc=$1 f=$2 d=$3
	rd_run "$d" tc "$tc" report -i "$f" || return 1
	rd_events "$(basename "$tc") report's lines" "$(mx_count_lines "$d/tc.out")"
}
rd_trace-cmd() {
	command -v trace-cmd > /dev/null || { MSG="trace-cmd is not installed"; return 77; }
	rd_tc trace-cmd "$1" "$2"
}
rd_trace-cmd2() {
	[ -n "$MX_TC2" ] || { MSG="FLYTRAP_TRACE_CMD2 (a second trace-cmd binary) is not set"; return 77; }
	[ -x "$MX_TC2" ] || { MSG="FLYTRAP_TRACE_CMD2=$MX_TC2 is not executable"; return 77; }
	rd_tc "$MX_TC2" "$1" "$2"
}
# no planted secret in the file's bytes, its compressed chunks decompressed
rd_secrets() {
	local s left=
	[ -n "${W_SECRETS[$W]}" ] || { MSG="nothing planted"; return 78; }
	rd_run "$2" plain "$FLYTRAP" convert -c none "$1" -o "$2/plain.dat" || return 1
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		grep -aqF -- "$s" "$2/plain.dat" && left="$left '$s' ($(grep -acF -- "$s" "$2/plain.dat") lines)"
	done <<< "${W_SECRETS[$W]}"
	rm -f "$2/plain.dat"
	[ -z "$left" ] && return 0
	MSG="planted secrets in the bytes:$left"
	return 1
}

# what readers printed must not hold a secret either
mx_leak() {
	local d=$1 s o
	[ -n "${W_SECRETS[$W]}" ] || return 0
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		for o in "$d"/*.out; do
			[ -f "$o" ] && grep -aqF -- "$s" "$o" && { MSG="its output holds the planted '$s'"; return 1; }
		done
	done <<< "${W_SECRETS[$W]}"
	return 0
}

# Cells that fail for a reason found and not yet fixed, "WRITER READER" per line; each is
# listed in docs/sharing.md ("What fails today") with its finding.  Such a cell reads
# "known" in the table and does not fail the run; once it passes it fails the run, so that
# the line is removed and the cell guards the fix.
MX_KNOWN=''
mx_known() { grep -qxF "$1 $2" <<< "$MX_KNOWN"; }

mx_record() {
	if mx_known "$1" "$2"; then
		case $3 in
		FAIL) set -- "$1" "$2" KNOWN "$4" ;;
		PASS) set -- "$1" "$2" FAIL "a known failure passes now: remove it from MX_KNOWN" ;;
		esac
	fi
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$MX_RESULTS"
	case $3 in
	KNOWN) mx_say "known: $1 x $2: $4" ;;
	PASS) mx_say "ok: $1 x $2" ;;
	FAIL) mx_say "FAIL: $1 x $2: $4" ;;
	SKIP) mx_say "skip: $1 x $2: $4" ;;
	esac
}

mx_run() {
	local r d rc st
	for W in "${MX_WRITERS[@]}"; do
		[ -n "${W_HIDE[$W]:-}" ] && continue
		st=${W_STATE[$W]}
		W_EXPN=${W_EXP[$W]:-}
		case ${W_REL[$W]:-} in
		window) W_MODE=counts ;;
		tasks) W_MODE=tasks ;;
		*) W_MODE=all ;;
		esac
		for r in "${MX_READERS[@]}"; do
			case $st in
			fail:*) mx_record "$W" "$r" FAIL "the writer failed: ${st#fail:}"; continue ;;
			skip:*) mx_record "$W" "$r" SKIP "${st#skip:}"; continue ;;
			esac
			d=$MX/cell/$W/$r
			mkdir -p "$d"
			MSG=
			"rd_$r" "${W_FILE[$W]}" "$d"
			rc=$?
			# diff prints its source's names too
			[ $rc = 0 ] && [ "$r" != diff ] && ! mx_leak "$d" && rc=1
			case $rc in
			0) mx_record "$W" "$r" PASS "" ;;
			77) mx_record "$W" "$r" SKIP "$MSG" ;;
			78) mx_record "$W" "$r" NA "$MSG" ;;
			*) mx_record "$W" "$r" FAIL "$MSG" ;;
			esac
		done
		rm -rf "$MX/cell/$W"
	done
}

# the table, the failures, the exit (77 when every cell is a SKIP)
mx_finish() {
	local nf np
	# MATRIX_RESULTS=FILE collects the cells of every part (`tests/matrix.py table FILE md`
	# prints their table)
	[ -n "${MATRIX_RESULTS:-}" ] && cat "$MX_RESULTS" >> "$MATRIX_RESULTS"
	if [ "$MX_QUIET" = 1 ]; then
		python3 "$MXPY" table "$MX_RESULTS" md
	else
		echo
		python3 "$MXPY" table "$MX_RESULTS"
		echo
		awk -F'\t' '$3 == "FAIL" { printf "FAIL: writer %s, reader %s: %s\n", $1, $2, $4 }' "$MX_RESULTS"
	fi
	# and the checks outside the table (lib.sh's fail: a writer that must refuse)
	nf=$(($(awk -F'\t' '$3 == "FAIL"' "$MX_RESULTS" | wc -l) + fails))
	np=$(awk -F'\t' '$3 == "PASS"' "$MX_RESULTS" | wc -l)
	if [ "$nf" -gt 0 ]; then
		[ "$MX_QUIET" = 1 ] || echo "$nf cell(s) failed, $np passed"
		exit 1
	fi
	if [ "$np" = 0 ]; then
		echo "SKIP: no cell could run: $(awk -F'\t' '$3 == "SKIP" { print $4; exit }' "$MX_RESULTS")"
		exit 77
	fi
	[ "$MX_QUIET" = 1 ] || echo "all $np cells passed"
	exit 0
}
