#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The README's second command on a fresh Debian 12 machine (see 10-demo.sh):
# `sudo make test` installs everything the tests use, builds, and runs every
# family; it must exit 0 with no failed test.  Tests that need something a
# clone does not have (the shared fixtures folder) SKIP, nothing else may
# SKIP for a missing package.
. "$(dirname "$0")/root.sh"
fresh_start "$@"

cmd='sudo make test'
fresh_readme_command "$cmd"
[ $rc = 0 ] && ok "'$cmd' exits 0" || fail "'$cmd' exited $rc"
sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$TMP/cmd.log" | tail -n 1)
[ -n "$sum" ] && ok "tests ran: $sum" || fail "no test summary in the output"
case "$sum" in *" 0 failed,"*) ok "no test failed" ;; *) fail "tests failed: $sum" ;; esac
grep '^SKIP' "$TMP/cmd.log" | grep -v 'fixtures' >"$TMP/skips.txt"
if grep -qi 'not installed\|is missing\|cannot install' "$TMP/skips.txt"; then
	fail "tests SKIP for a package make test should have installed: $(grep -i -m1 'not installed\|is missing\|cannot install' "$TMP/skips.txt")"
else
	ok "no test SKIPs for a missing package ($(wc -l <"$TMP/skips.txt") other SKIPs)"
fi
finish
