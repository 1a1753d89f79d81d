# SPDX-License-Identifier: GPL-2.0-only
# Sourced by 10-kernel-lab.sh: host checks of the files `flytrap record`
# wrote inside the lab kernel ($G), with trace-cmd as the oracle.
