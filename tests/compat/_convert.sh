# SPDX-License-Identifier: GPL-2.0-only
# Checks shared by the convert tests (20, 21); sourced after tests/lib.sh.
# (The leading underscore keeps tests/run from running it as a test.)

# report --stat ends with where each CPU's data sits in the file and its
# size there: layout, not content, and different by design (compressed
# offsets are virtual, chunk sizes depend on the compressor).  Everything
# else in --stat (the CPUSTAT texts) must match.
stat_filter() { sed -E '/^CPU[0-9]+ data recorded at offset=/d; /^ +[0-9]+ bytes in size$/d'; }

# KernelShark's path (libtracecmd per-CPU reads, CPU count from CPUCOUNT)
# must see every record trace-cmd report printed.
TW="$TOP/$O/tests/test_writer"
kshark_check() { # FILE REPORT_TXT LABEL
	local out want got
	[ -x "$TW" ] || return 0
	out=$("$TW" --kshark "$1" 2>/dev/null)
	[ $? = 77 ] && return 0
	want=$(grep -v '^cpus=' "$2" | grep -vc 'EVENTS DROPPED\]$')
	got=$(echo "$out" | sed -n 's/.* records=\([0-9]*\).*/\1/p')
	[ "$got" = "$want" ] || fail "$3: KernelShark path sees ${got:-no} records, trace-cmd report $want ($out)"
	echo "$out" | grep -q '^cpus=0 ' && fail "$3: tep_get_cpus() is 0, KernelShark would show nothing"
	return 0
}
