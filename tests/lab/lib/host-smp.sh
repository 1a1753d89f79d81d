# SPDX-License-Identifier: GPL-2.0-only
# Sourced by 10-kernel-lab.sh for 20-record-smp.sh: host checks of the files
# recorded on eight CPUs with several capture and compression threads ($G).

# per-CPU event counts "CPU COUNT" of a file as trace-cmd prints it
tc_percpu() {
	trace-cmd report "$1" 2>/dev/null | sed -nE 's/^ *.+ \[0*([0-9]+)\] +[0-9]+\.[0-9]+: .*/\1/p' |
		sort -n | uniq -c | awk '{ print $2, $1 }'
}

if [ -f "$G/smp.dat" ]; then
	nthr=$(grep -c 'capture thread [0-9]*: CPUs' "$G/smp.err")
	busy=$(sed -nE 's/.*capture thread [0-9]+: CPUs .*, ([0-9]+) pages in.*/\1/p' "$G/smp.err" | awk '$1 > 0' | wc -l)
	[ "$nthr" = 4 ] && [ "$busy" = 4 ] && ok "smp.dat: four capture threads, each moved pages" ||
		fail "smp.dat: $nthr capture threads reported, $busy with pages: $(grep 'capture thread' "$G/smp.err" | head -c 300)"
	grep -q '3 compression threads' "$G/smp.err" && ok "smp.dat: three compression threads" ||
		fail "smp.dat: the recorder did not report three compression threads"
	tc_percpu "$G/smp.dat" >"$TMP/smp.tc"
	# the recorder's summary: the kernel's "read events" per CPU
	sed -nE 's/^flytrap: +([0-9]+) +([0-9]+) +[0-9.]+ [kMG]?B +([0-9]+)$/\1 \2/p' "$G/smp.err" |
		awk '$2 > 0' | sort -n >"$TMP/smp.kernel"
	awk '{ print $2 + 0, $1 }' "$G/smp.percpu" | sort -n >"$TMP/smp.ft"
	ncpu=$(wc -l <"$TMP/smp.tc")
	if [ "$ncpu" -ge 8 ] && cmp -s "$TMP/smp.tc" "$TMP/smp.kernel" && cmp -s "$TMP/smp.tc" "$TMP/smp.ft"; then
		ok "smp.dat: events on $ncpu CPUs; per CPU trace-cmd = flytrap report = the kernel's count ($(awk '{ s += $2 } END { print s }' "$TMP/smp.tc") events)"
	else
		fail "smp.dat: per-CPU counts differ or too few CPUs ($ncpu): trace-cmd [$(tr '\n' ' ' <"$TMP/smp.tc")] flytrap [$(tr '\n' ' ' <"$TMP/smp.ft")] kernel [$(tr '\n' ' ' <"$TMP/smp.kernel")]"
	fi
	"$FLYTRAP" verify "$G/smp.dat" >"$TMP/v.out" 2>&1 && ok "smp.dat: flytrap verify passes here too" ||
		fail "smp.dat: verify: $(head -c 300 "$TMP/v.out")"
fi
if [ -f "$G/fl.dat" ]; then
	nthr=$(grep -c 'capture thread [0-9]*: CPUs' "$G/fl.err")
	n=$(tc_percpu "$G/fl.dat" | wc -l)
	[ "$nthr" = 8 ] && [ "$n" -ge 8 ] && ok "fl.dat: flight dump with eight capture threads, trace-cmd reads events of $n CPUs" ||
		fail "fl.dat: $nthr capture threads, trace-cmd reads $n CPUs"
fi
