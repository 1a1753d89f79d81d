#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The README's first command on a fresh Debian 13 (trixie) machine, the
# stable release since August 2025: 10-demo.sh's run and checks in a
# minbase trixie root made by debootstrap from this machine's mirror (its
# bare root cached next to the Debian 12 one), whose apt sources name
# trixie, so `sudo make demo` installs Debian 13's packages.
FRESH_SUITE=trixie
. "$(dirname "$0")/10-demo.sh"
