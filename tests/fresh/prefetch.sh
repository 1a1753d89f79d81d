#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Makes the cached roots that later steps of .ci/run use, so that their
# downloads from the Debian mirror overlap `make test` instead of following
# it: the bare Debian 12 and 13 roots of tests/fresh (tarballs), the Debian
# 13 root with trace-cmd 3.3.1 (tests/tc33.sh, tests/compat) and, with
# FLYTRAP_KS24=1, the Debian 13 root with KernelShark 2.4
# (tests/compat/23-kernelshark-24.sh).  Each is made under the lock its
# users take, so a test that needs one meanwhile waits for it rather than
# making it twice; nothing here traces or loads anything.  Prints what it
# made and how long each took; exits 0 even where a root could not be made
# (the test that needs it then says why, or makes it itself).
#   bash tests/fresh/prefetch.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
export TOP=$PWD O=${O:-build}
[ "$(id -u)" = 0 ] || { echo "prefetch: needs root (debootstrap, chroot)"; exit 0; }
t0=$(date +%s)
for suite in bookworm trixie; do
	t=$(date +%s)
	# root.sh's skip() exits: each root in a subshell of its own
	(
		. tests/lib.sh
		FRESH_SUITE=$suite
		. tests/fresh/root.sh
		FRESH_SUITE=$suite
		fresh_cache_root
	)
	echo "prefetch: bare $suite root: exit $?, $(($(date +%s) - t)) s"
done
t=$(date +%s)
(
	. tests/lib.sh
	. tests/tc33.sh
	tc33_make
)
echo "prefetch: Debian 13 root with trace-cmd 3.3.1: exit $?, $(($(date +%s) - t)) s"
if [ "${FLYTRAP_KS24:-0}" = 1 ]; then
	t=$(date +%s)
	FLYTRAP_KS24_PREPARE=1 bash tests/compat/23-kernelshark-24.sh
	echo "prefetch: Debian 13 root with KernelShark 2.4: exit $?, $(($(date +%s) - t)) s"
fi
echo "prefetch: $(($(date +%s) - t0)) s in all"
exit 0
