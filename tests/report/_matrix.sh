# SPDX-License-Identifier: GPL-2.0-only
# The interoperability matrix, offline: what its four parts share (sourced; the runner skips
# names starting with "_").  The parts: matrix-slice.sh (the recording, convert, slices),
# matrix-redact.sh (redact), matrix-chain.sh (redact after slice, slice after redact, redact
# of a redacted file), matrix-merge.sh (merges, losses): four, so that each stays within the
# runner's time limit under the sanitizers on a busy machine.  Their writers
# are made from the shipped BPF recording (sample.dat), a generated file whose tasks come, go
# and change names (mkrpt names) and one with every kind of loss (rpt-drops.dat); each file
# is read by every reader of tests/matrix-lib.sh.  They run under the sanitizer build too.
# The live writers (record, flight dumps, rotation, recover) are tests/live/67-share-matrix.sh.
#   MATRIX_TABLE=1 O=build tests/report/matrix-slice.sh   prints only the table
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
. "$TOP/tests/matrix-lib.sh"
F=$FLYTRAP
MK=$TOP/$O/tests/tools/mkrpt
S=$TOP/tests/data/sample.dat
D=$MX/files
mkdir -p "$D"
head -c 32 /dev/urandom > "$D/key"
head -c 32 /dev/urandom > "$D/key2"

# mk NAME CMD...: runs a writer, NAME's file is made or NAME fails with the writer's message
mk() {
	local name=$1 rc
	shift
	"$@" > "$D/$name.log" 2>&1
	rc=$?
	[ $rc = 0 ] && return 0
	# the first error (a chain's summaries before it are not the news), else the last line
	mx_writer_fail "$name" "exit $rc: $( (grep -m1 'error' "$D/$name.log" || grep -v '^$' "$D/$name.log" |
		tail -1) | cut -c1-200)"
	return 1
}
# the middle third of FILE's span, as slice and the analyzers take it: "FROM TO"
thirds() {
	"$F" info --json "$1" | python3 -c "import json, sys
j = json.load(sys.stdin); a, b = j['first_ts'], j['last_ts']
print('%.6f %.6f' % ((a + (b - a) / 3) / 1e9, (a + 2 * (b - a) / 3) / 1e9))"
}

# ---- the shipped recording: record -e sched -e irq -e raw_syscalls --bpf syscalls,offcpu,profile
# its workload's names and paths are the planted secrets (none is in the kernel's own texts).
# Its kernel symbols cut to those its stacks name (convert --keep-symbols, as users do to
# attach a file): reading 122k symbols is most of what each of the ~250 commands costs
secrets=(fastprint_bench qemu-system-x86 /usr/share/man)
{ "$F" callgraph --folded --source samples "$S"; "$F" callgraph --folded --source offcpu "$S"; } |
	sed 's/ [0-9]*$//' | tr ';' '\n' | sort -u > "$D/names"
"$F" convert "$S" --keep-symbols "$D/names" -o "$D/record-bpf.dat" > "$D/keep.log" 2>&1 ||
	{ fail "convert --keep-symbols: $(tail -1 "$D/keep.log")"; finish; }
S=$D/record-bpf.dat
mx_writer record-bpf "$S" self
read -r t1 t2 < <(thirds "$S")
