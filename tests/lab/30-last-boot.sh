#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 900
# The last boot's trace (issue 33): Debian's Linux 6.12 (bookworm-backports)
# under qemu with a boot-reserved trace buffer (reserve_mem= and
# trace_instance=, the parameters `flytrap lastboot cmdline` prints).  The
# guest (lib/guest-lastboot.sh) arms the buffer with `flytrap lastboot arm`,
# runs a known workload, reboots warm (sysrq b: qemu keeps the memory), and
# after the reboot saves the previous boot's events with `flytrap recover
# --last-boot`; lib/host-lastboot.sh checks the file here with trace-cmd
# and flytrap: the workload's events, and kernel functions named as the
# previous kernel (its KASLR offset differs) had them.  KASLR may put the
# kernel where the reservation was, and the kernel then reserves elsewhere:
# the buffer is lost, the guest takes the second boot for a first one, and
# the run starts again (FLYTRAP_LAB_ONCE, three runs at most).
. "$(dirname "$0")/../lib.sh"
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
params=$("$FLYTRAP" lastboot cmdline --size 8M) || fail "lastboot cmdline: exit $?"
echo "kernel parameters: $params"
FLYTRAP_LAB_SUITE=${FLYTRAP_LAB_SUITE:-bookworm-backports} FLYTRAP_LAB_GUEST="$TOP/tests/lab/lib/guest-lastboot.sh" \
	FLYTRAP_LAB_APPEND="$params" FLYTRAP_LAB_REBOOT=1 FLYTRAP_LAB_NO_STATIC=1 \
	FLYTRAP_LAB_ONCE="boot 1: rebooting warm" \
	exec bash "$(dirname "$0")/10-kernel-lab.sh"
