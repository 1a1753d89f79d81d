#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 900
# The kernel lab (10-kernel-lab.sh: function and function_graph tracers,
# kprobes, BPF fentry and kprobe programs, the static binary) on Linux 6.12,
# the kernel of Debian 13 and of Debian 12's backports, as well as 6.1.
FLYTRAP_LAB_SUITE=${FLYTRAP_LAB_SUITE:-bookworm-backports} exec bash "$(dirname "$0")/10-kernel-lab.sh"
