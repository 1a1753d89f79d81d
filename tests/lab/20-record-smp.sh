#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The recorder on eight CPUs: the kernel lab (10-kernel-lab.sh, docs/
# kernel-lab.md) booted with -smp 8 runs lib/guest-smp.sh instead of its
# usual checks: a syscall load on every CPU recorded with four capture
# threads and three compression threads, and a flight-mode dump with one
# capture thread per CPU.  lib/host-smp.sh then checks here that
# trace-cmd reads both files whole and that the events per CPU agree among
# trace-cmd, flytrap report (in the guest) and the recorder's own count.
export FLYTRAP_LAB_SMP=8
# eight emulated CPUs on one host thread: slower than the usual two
export FLYTRAP_LAB_TIMEOUT=${FLYTRAP_LAB_TIMEOUT:-900}
export FLYTRAP_LAB_GUEST
FLYTRAP_LAB_GUEST=$(cd "$(dirname "$0")" && pwd)/lib/guest-smp.sh
exec bash "$(dirname "$0")/10-kernel-lab.sh"
