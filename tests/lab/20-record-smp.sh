#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The recorder on eight CPUs: the kernel lab (10-kernel-lab.sh, docs/
# kernel-lab.md) booted with -smp 8 runs lib/guest-smp.sh instead of its
# usual checks: a syscall load on every CPU recorded with four capture
# threads and three compression threads, and a flight-mode dump with one
# capture thread per CPU.  lib/host-smp.sh then checks here that
# trace-cmd reads both files whole and that the events per CPU agree among
# trace-cmd, flytrap report (in the guest) and the recorder's own count.
# Eight emulated CPUs on this 2-core machine take 5 to 15 minutes, past
# tests/run's per-test limit and CI's time budget: run it on purpose with
#   FLYTRAP_LAB_SMP_RUN=1 TEST_TIMEOUT=1500 tests/run lab/20
if [ "${FLYTRAP_LAB_SMP_RUN:-0}" != 1 ]; then
	echo "SKIP: the -smp 8 lab takes 5-15 min; run it with FLYTRAP_LAB_SMP_RUN=1 TEST_TIMEOUT=1500"
	exit 77
fi
export FLYTRAP_LAB_SMP=8
# eight emulated CPUs on one host thread: slower than the usual two
export FLYTRAP_LAB_TIMEOUT=${FLYTRAP_LAB_TIMEOUT:-900}
export FLYTRAP_LAB_GUEST
FLYTRAP_LAB_GUEST=$(cd "$(dirname "$0")" && pwd)/lib/guest-smp.sh
exec bash "$(dirname "$0")/10-kernel-lab.sh"
