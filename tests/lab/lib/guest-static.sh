# SPDX-License-Identifier: GPL-2.0-only
# Sourced by guest.sh (after guest-record.sh: its ship helper, globbing off)
# when the initramfs has /bin/flytrap-static (`make static`): the one static
# file, no shared library beside it, records on the lab's Debian 6.1 kernel
# what tests/fresh/30-static.sh records on the host's: `-e sched -e
# raw_syscalls --bpf syscalls` of a command.  tests/lab/lib/host-static.sh
# reads the file with trace-cmd.
ST=/bin/flytrap-static
$ST record -e sched -e raw_syscalls --bpf syscalls -o /tmp/static.dat -- cat /proc/version \
	>/tmp/static.out 2>$OUT/static.err
rc=$?
if [ $rc = 0 ] && grep -q '^Linux version' /tmp/static.out && ! grep -q 'BPF programs not loaded' $OUT/static.err; then
	ok "static: flytrap-static record -e sched -e raw_syscalls --bpf syscalls -- cat /proc/version ($(wc -c </tmp/static.dat) bytes)"
	ship static.dat
else
	fail "static: record (exit $rc): $(grep -v '^flytrap:  ' $OUT/static.err | head -c 400)"
fi
same_state "static record"
