# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the BPF live tests (2x-bpf-*.sh); sourced after tests/lib.sh.
# (The leading underscore keeps tests/run from running it as a test.)
WORKLOAD=$TOP/$O/tests/tools/bpf_workload
DUMP=$TOP/$O/tests/tools/bpf_dump

need_bpf() {
	need_tracefs
	need_cmd bpftool
	[ -x "$WORKLOAD" ] && [ -x "$DUMP" ] || skip "bpf_workload/bpf_dump not built"
	[ -x "$FLYTRAP" ] || skip "flytrap not built"
	[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
	"$FLYTRAP" record --help 2>&1 | grep -q -- '--bpf' || skip "flytrap record has no --bpf"
}

# flytrap's BPF programs and maps that no live process holds (leaks).
# Programs held by a running recorder (another test) list its pid and are
# not leaks; pinned or link-held objects of an exited recorder would be.
bpf_orphans() {
	{
		bpftool -j prog show 2>/dev/null | jq -r '.[] | select((.name // "") | startswith("ft_")) | select((.pids // []) | length == 0) | "prog \(.id) \(.name)"'
		bpftool -j map show 2>/dev/null | jq -r '.[] | select((.name // "") | test("^(ft_|syscall|offcpu|profile|ufunc)")) | select((.pids // []) | length == 0) | "map \(.id) \(.name)"'
		bpftool -j link show 2>/dev/null | jq -r '.[] | select((.pids // []) | length == 0) | select(.prog_id as $p | $p != null) | "link \(.id) prog \(.prog_id)"' |
			while read -r _ id _ pid; do
				bpftool -j prog show id "$pid" 2>/dev/null | jq -r --arg l "$id" 'select((.name // "") | startswith("ft_")) | "link \($l) \(.name)"'
			done
	} | sort
}

# value of a "meta KEY=VALUE" line of bpf_dump output
meta() { awk -v k="$2" 'index($0, "meta " k "=") == 1 { sub("^meta " k "=", ""); print; exit }' "$1"; }

# What the tests of users' own objects (3x-bpf-object-*.sh) need: root, tracefs, clang, bpftool,
# jq, a built flytrap (FT, default $FLYTRAP), kernel BTF and the project's vmlinux.h for this
# architecture.  Sets barch, VMH (vmlinux.h's folder) and SRC (tests/live/bpfobj).
need_bpf_object() {
	local ft=${1:-$FLYTRAP}
	need_root
	need_tracefs
	need_cmd clang
	need_cmd bpftool
	need_cmd jq
	[ -x "$ft" ] || skip "flytrap not built"
	[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
	case $(uname -m) in
	x86_64) barch=x86 ;;
	aarch64) barch=arm64 ;;
	*) skip "no vmlinux.h for $(uname -m)" ;;
	esac
	VMH=$TOP/bpf/vmlinux/$barch
	[ -r "$VMH/vmlinux.h" ] || skip "no $VMH/vmlinux.h"
	SRC=$TOP/tests/live/bpfobj
}
# bpfobj_cc NAME OUT [CLANG-ARGS...]: compile bpfobj/NAME.bpf.c into OUT with the project's vmlinux.h
bpfobj_cc() {
	local name=$1 out=$2
	shift 2
	clang -g -O2 -target bpf -D__TARGET_ARCH_$barch -I"$VMH" "$@" -c "$SRC/$name.bpf.c" -o "$out"
}
# the test programs still loaded (their names start with ftt_): "ID NAME" lines
ours() { bpftool -j prog show 2>/dev/null | jq -r '.[] | select((.name // "") | startswith("ftt_")) | "\(.id) \(.name)"'; }
