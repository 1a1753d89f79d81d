#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What record --symbols costs, now that it stores each binary's call-frame
# information (.eh_frame, .eh_frame_hdr) with its symbol table (issue 35,
# item 5), and what it buys: Debian's xz -9 -T1 and a pure-Python loop,
# each recorded ROUNDS times with `record --bpf profile` and with
# `record --bpf profile --symbols`, alternating; per run the CPU of the
# recorder and the workload together (user + system: what --symbols adds
# is the difference), the file's bytes, the CFI stored (bpf_cfi_bytes), and
# the share of samples whose stack reaches __libc_start_main when the file
# is read where the binaries are not: the static build in a mount namespace
# whose /usr/bin and /usr/lib/<multiarch> are empty tmpfs (busybox mounts
# them, as no dynamic binary runs there).  Medians.
#
#   bench/symbols.sh [ROUNDS]      (root; make static first; default 3 rounds)
set -u
cd "$(dirname "$0")/.."
O=${O:-build}
F=$PWD/$O/flytrap
ST=$PWD/$O/flytrap-static
ROUNDS=${1:-3}
[ "$(id -u)" = 0 ] || { echo "bench/symbols.sh: needs root" >&2; exit 1; }
[ -x "$F" ] && [ -x "$ST" ] || { echo "bench/symbols.sh: make and make static first" >&2; exit 1; }
BB=$(command -v busybox) || { echo "bench/symbols.sh: needs busybox (static)" >&2; exit 1; }
LIBDIR=/usr/lib/$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)
T=$(mktemp -d /tmp/flytrap-symbols.XXXXXX)
trap 'rm -rf "$T"' EXIT
cp "$BB" "$T/busybox"
head -c $((8 << 20)) /dev/urandom > "$T/in"
run() {	# NAME: the workload
	case $1 in
	xz) xz -9 -T1 -k -c "$T/in" > /dev/null ;;
	python3) python3 -c 'x = 0
for i in range(8000000): x += i * i' ;;
	esac
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for r in $(seq "$ROUNDS"); do
	for w in xz python3; do
		for mode in plain symbols; do
			opt=()
			[ $mode = symbols ] && opt=(--symbols)
			export -f run
			export T
			/usr/bin/time -f '%U %S' -o "$T/cpu" "$F" record -q --bpf profile "${opt[@]}" \
				-o "$T/$w.$mode.$r.dat" -- bash -c "run $w" > /dev/null 2>&1 ||
				echo "record $w $mode failed" >&2
			awk '{ print $1 + $2 }' "$T/cpu" > "$T/$w.$mode.$r.cpu"
			stat -c %s "$T/$w.$mode.$r.dat" > "$T/$w.$mode.$r.bytes"
			"$F" info "$T/$w.$mode.$r.dat" | sed -n 's/^ *bpf_cfi_bytes=//p' > "$T/$w.$mode.$r.cfi"
		done
	done
done
# read away from the binaries
unshare -m "$T/busybox" sh -c "$T/busybox mount -t tmpfs none /usr/bin &&
	$T/busybox mount -t tmpfs none $LIBDIR &&
	for f in $T/*.dat; do $ST callgraph --folded --comm xz --comm python3 \$f > \$f.fold 2> /dev/null; done" ||
	echo "cannot hide the binaries (mount namespace)" >&2
printf '| workload | record | CPU s (recorder + workload) | file bytes | CFI bytes | reach __libc_start_main, binaries gone |\n'
printf '|---|---|---:|---:|---:|---:|\n'
for w in xz python3; do
	for mode in plain symbols; do
		cpu=$(cat "$T"/$w.$mode.*.cpu | median)
		bytes=$(cat "$T"/$w.$mode.*.bytes | median)
		cfi=$(cat "$T"/$w.$mode.*.cfi 2> /dev/null | median)
		share=$(for f in "$T"/$w.$mode.*.dat.fold; do
			awk '{ t += $NF; if ($0 ~ /__libc_start_main/) m += $NF }
			     END { printf "%.1f\n", t ? 100 * m / t : 0 }' "$f"; done | median)
		printf '| %s | %s | %s | %s | %s | %s%% |\n' "$w" \
			"$([ $mode = symbols ] && echo '--bpf profile --symbols' || echo '--bpf profile')" \
			"$cpu" "$bytes" "${cfi:--}" "$share"
	done
done
echo "$ROUNDS rounds, medians; $(nproc) CPUs; $(uname -r); load $(cut -d' ' -f1 /proc/loadavg)"
