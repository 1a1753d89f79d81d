#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The last boot's trace (tests/lab/30-last-boot.sh): runs as the lab's
# guest.sh in a kernel booted with a boot-reserved trace buffer.  The first
# boot arms the buffer, runs a known workload and reboots warm (sysrq b;
# qemu keeps the guest's memory across the reset); the second boot finds
# the first one's marker in the buffer, saves it with `flytrap recover
# --last-boot` and sends the file out for the host's checks
# (host-lastboot.sh).  The first boot's own checks travel in the buffer as
# trace_marker lines ("boot1: ok: ..."), since its /out is gone with it.
T=/sys/kernel/tracing
NAME=flytrap_boot
I=$T/instances/$NAME
OUT=/out
RES=$OUT/results.txt
FT=/bin/flytrap

ok() { echo "ok: $*"; echo "ok: $*" >>"$RES"; }
fail() { echo "FAIL: $*"; echo "FAIL: $*" >>"$RES"; }
note() { echo "note: $*"; echo "note: $*" >>"$RES"; }
b1() { echo "boot1: $*"; echo "boot1: $*" >"$I/trace_marker"; }

if [ ! -d "$I" ]; then
	fail "no instance $NAME: the kernel did not make the boot buffer ($(cat /proc/cmdline))"
	dmesg | grep -i -e reserve_mem -e 'ring buffer' -e trace_instance | head -5 >>"$RES"
	echo guest-done >>"$RES"
	return 0 2>/dev/null || exit 0
fi

if ! grep -q flytrap-lab-lastboot-begin "$I/trace"; then
	# ---- the first boot --------------------------------------------------------------
	echo "boot 1: last_boot_info: $(cat $I/last_boot_info | tr '\n' ' ')"
	$FT lastboot arm -e sched:sched_switch,sched:sched_process_exec,sched:sched_process_exit \
		-e timer:timer_start -e workqueue:workqueue_execute_start >/tmp/arm.txt 2>&1
	rc=$?
	echo flytrap-lab-lastboot-begin >"$I/trace_marker"
	if [ $rc = 0 ] && grep -q "traces 3 event specs" /tmp/arm.txt; then
		b1 "ok: lastboot arm on a fresh buffer"
	else
		b1 "FAIL: lastboot arm (exit $rc): $(head -c 200 /tmp/arm.txt)"
	fi
	$FT status >/tmp/st.txt 2>&1
	grep -q "instance $NAME" /tmp/st.txt && grep -q "boot buffer $NAME: tracing," /tmp/st.txt &&
		b1 "ok: status shows the armed boot buffer" ||
		b1 "FAIL: status: $(grep -A3 "instance $NAME" /tmp/st.txt | tr '\n' '|' | head -c 300)"
	# the workload: three sleeps and a read the report must show
	for i in 1 2 3; do /bin/sleep 0.05; done
	cat /proc/version >/dev/null
	echo flytrap-lab-lastboot-end >"$I/trace_marker"
	sync
	echo "boot 1: rebooting warm"
	echo b >/proc/sysrq-trigger
	sleep 30
	exit 1
fi

# ---- the second boot -----------------------------------------------------------------
echo "boot 2: last_boot_info: $(cat $I/last_boot_info | tr '\n' ' ')"
cp $I/last_boot_info $OUT/last_boot_info.txt
grep -o 'boot1: .*' "$I/trace" | sed 's/^boot1: //' | while read -r l; do
	echo "$l (first boot)" >>"$RES"
done
# the kernel's own text of the previous boot's events, before they are read
cat "$I/trace" >$OUT/kernel-trace.txt
$FT status >$OUT/status2.txt 2>&1
grep -q "boot buffer $NAME: [0-9]* events of the previous boot" $OUT/status2.txt &&
	ok "status: the boot buffer holds the previous boot's events" ||
	fail "status after the reboot: $(grep -A3 "instance $NAME" $OUT/status2.txt | head -c 300)"
$FT status --json >/tmp/st.json 2>&1
grep -q '"boot_buffer":"boot buffer' /tmp/st.json && ok "status --json: boot_buffer" ||
	fail "status --json has no boot_buffer: $(head -c 200 /tmp/st.json)"
$FT lastboot arm -e sched:sched_switch >/tmp/arm2.txt 2>&1
rc=$?
[ $rc = 1 ] && grep -q "still holds" /tmp/arm2.txt &&
	ok "lastboot arm refuses while the previous boot's events are not saved" ||
	fail "lastboot arm over unsaved events (exit $rc): $(head -c 200 /tmp/arm2.txt)"
# as flytrap-lastboot.service saves it: -o a directory, the file named by the time
mkdir -p /tmp/lb
$FT recover --last-boot -o /tmp/lb/ >$OUT/recover.txt 2>&1
rc=$?
cat $OUT/recover.txt
mv /tmp/lb/last-boot-2*.dat /tmp/lastboot.dat 2>/dev/null
if [ $rc = 0 ] && [ -s /tmp/lastboot.dat ]; then
	ok "recover --last-boot: $(head -n 1 $OUT/recover.txt)"
else
	fail "recover --last-boot (exit $rc): $(head -c 300 $OUT/recover.txt)"
fi
$FT recover --last-boot -o /tmp/again.dat >/tmp/again.txt 2>&1
rc=$?
[ $rc = 1 ] && [ ! -e /tmp/again.dat ] && ok "a second recover: exit 1, no file ($(head -c 120 /tmp/again.txt))" ||
	fail "a second recover (exit $rc): $(head -c 200 /tmp/again.txt)"
$FT report /tmp/lastboot.dat >/tmp/report.txt 2>&1
grep -q flytrap-lab-lastboot-end /tmp/report.txt && grep -q 'sched_process_exec:.*sleep' /tmp/report.txt &&
	ok "flytrap report: the workload before the reboot ($(grep -c . /tmp/report.txt) lines)" ||
	fail "flytrap report of the saved file: $(head -c 300 /tmp/report.txt)"
$FT lastboot arm -e sched:sched_switch >/tmp/arm3.txt 2>&1 && $FT lastboot disarm >>/tmp/arm3.txt 2>&1 &&
	ok "lastboot arm, then disarm, once the events are saved" ||
	fail "arm after recover: $(head -c 200 /tmp/arm3.txt)"
# the file crosses the serial port with its kallsyms cut to the names its report uses
if [ -x /lab/trim_kallsyms ]; then
	tr -cs 'A-Za-z0-9_.' '\n' </tmp/report.txt | sort -u >/tmp/names.txt
	/lab/trim_kallsyms /tmp/lastboot.dat $OUT/lastboot.dat /tmp/names.txt 2>/tmp/trim.err ||
		{ note "trim_kallsyms: $(head -c 200 /tmp/trim.err)"; cp /tmp/lastboot.dat $OUT/; }
else
	cp /tmp/lastboot.dat $OUT/
fi
cp /tmp/report.txt $OUT/report.txt
echo guest-done >>"$RES"
