#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Guest script of tests/lab/20-record-smp.sh (booted with -smp 8): the
# recorder with several capture and compression threads on eight CPUs.
# A syscall load on every CPU (dd with one-byte blocks, one per CPU) is
# recorded with --capture-threads 4 --threads 3, then with one capture
# thread per CPU in flight mode with a dump; the files go to /out for the
# host (host-smp.sh: trace-cmd and flytrap count the events per CPU).
OUT=/out
RES=$OUT/results.txt
FT=/bin/flytrap
ok() { echo "ok: $*"; echo "ok: $*" >>"$RES"; }
fail() { echo "FAIL: $*"; echo "FAIL: $*" >>"$RES"; }
note() { echo "note: $*"; echo "note: $*" >>"$RES"; }

ncpu=$(nproc)
note "guest CPUs: $ncpu"
[ "$ncpu" -ge 8 ] || fail "smp: the guest has $ncpu CPUs, not 8"
cat >/tmp/load.sh <<'L'
#!/bin/sh
# one syscall storm pinned to each CPU
c=0
while [ $c -lt $(nproc) ]; do
	taskset -c $c dd if=/dev/zero of=/dev/null bs=1 count=${1:-3000} 2>/dev/null &
	c=$((c + 1))
done
wait
L
chmod +x /tmp/load.sh

# kallsyms are cut before the serial port (about 100 KB/s)
ship() {
	if [ -x /lab/trim_kallsyms ]; then
		$FT report /tmp/$1 | tr -cs 'A-Za-z0-9_.' '\n' | sort -u >/tmp/names.txt
		/lab/trim_kallsyms /tmp/$1 $OUT/$1 /tmp/names.txt 2>/dev/null && return 0
	fi
	cp /tmp/$1 $OUT/$1
}

FLYTRAP_TEST_DIGEST=check $FT -v record -e raw_syscalls --capture-threads 4 --threads 3 -o /tmp/smp.dat \
	-- /tmp/load.sh 2000 >/dev/null 2>$OUT/smp.err
rc=$?
if [ $rc = 0 ] && $FT verify /tmp/smp.dat >$OUT/smp.verify 2>&1; then
	ok "smp: record --capture-threads 4 --threads 3 on $ncpu CPUs, verify passes"
	$FT report /tmp/smp.dat | sed -n 's/.*\[\([0-9]*\)\] .*/\1/p' | sort | uniq -c >$OUT/smp.percpu
	ship smp.dat
else
	fail "smp: record/verify (exit $rc): $(grep -v 'info: \(event\|format\)' $OUT/smp.err | head -c 300; head -c 200 $OUT/smp.verify)"
fi

# one capture thread per CPU, flight mode, a dump by signal
FLYTRAP_TEST_DIGEST=check $FT -v record -e raw_syscalls --capture-threads 8 --threads 2 --flight 60s --after 0 \
	-o /tmp/fl.dat -- sh -c '/tmp/load.sh 1000; kill -USR1 $PPID; sleep 1' >/dev/null 2>$OUT/fl.err
rc=$?
dump=$(ls /tmp/fl-*.dat 2>/dev/null | head -n 1)
if [ $rc = 0 ] && [ -n "$dump" ] && $FT verify "$dump" >$OUT/fl.verify 2>&1; then
	ok "smp: --flight with --capture-threads 8: dump $(basename "$dump") verifies"
	cp "$dump" /tmp/fl.dat
	ship fl.dat
else
	fail "smp: flight dump (exit $rc, dump '${dump:-none}'): $(grep -v 'info: \(event\|format\)' $OUT/fl.err | head -c 300)"
fi
echo "guest-done" >>"$RES"
