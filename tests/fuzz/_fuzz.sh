# SPDX-License-Identifier: GPL-2.0-only
# What the hostile-input tests share (sourced by commands.sh and share.sh; the runner skips
# names starting with "_"): the inputs (the shipped files under 200 KB and four fixtures),
# uncompressed first so that flips reach the options, formats and flytrap's own sections
# rather than only failing a zstd frame, plus two copies with one page per chunk (windows
# that skip chunks read the index's facts); their damaged variants in mut/ (mutate.py);
# a key for redact.  Set FUZZ_MUTANTS_DEFAULT before sourcing.
#   FUZZ_MUTANTS=N  mutants per input; FUZZ_SEED=N (default 20261202)
. "$TOP/tests/lib.sh"
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
cd "$TMP" || exit 1
# the sanitizers' own exit codes, told apart from a command's refusal
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}:exitcode=111
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=112
nmut=${FUZZ_MUTANTS:-${FUZZ_MUTANTS_DEFAULT:-2}}
seed=${FUZZ_SEED:-20261202}

inputs=()
for f in "$TOP"/tests/data/*.dat; do
	[ "$(stat -c %s "$f")" -lt 200000 ] && inputs+=("$f")
done
for f in TGVM+tutorial3LabSisop__trace.dat wsdias+LabSisOp__trace.dat \
	 ARM-software+lisa__external_trappy_tests_trace_idle.dat hebel23+driver__trace.dat; do
	[ -f "$FIXTURES/$f" ] && inputs+=("$FIXTURES/$f")
done
# files with record --bpf-object's objects (BTF) and map snapshots (tests/data/bpfobj/): one
# with a hash map and a ring buffer, one with stack ids and their STACK_TRACE map (bpf-stacks)
for f in user-objects.dat user-stacks.dat; do
	[ -f "$TOP/tests/data/bpfobj/$f" ] && inputs+=("$TOP/tests/data/bpfobj/$f")
done
[ ${#inputs[@]} -gt 0 ] || skip "no input files"

mkdir -p plain mut
for f in "${inputs[@]}"; do
	b=$(basename "$f" .dat)
	"$FLYTRAP" convert -c none "$f" -o "plain/$b.dat" 2>/dev/null || cp "$f" "plain/$b.dat"
done
# two compressed copies with one page per chunk: windows that skip chunks (the index's facts)
n2=0
for f in "${inputs[@]}"; do
	[ $n2 -lt 2 ] && [ "$(stat -c %s "$f")" -gt 20000 ] || continue
	"$FLYTRAP" convert --chunk 1 "$f" -o "plain/$(basename "$f" .dat)-c1.dat" 2>/dev/null && n2=$((n2 + 1))
done
python3 "$TOP/tests/fuzz/mutate.py" plain mut "$nmut" "$seed"
head -c 32 /dev/urandom > key
