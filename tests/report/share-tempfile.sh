#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# slice, merge and redact write their output under one temporary name beside
# it (".OUT.XXXXXXXXXXXX", with the writer's spools named after it) and rename
# that over OUT: no placeholder file beside the writer's own (issue 17 review),
# seen through strace: one such file created, the one renamed into place.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd strace
F=$FLYTRAP
S=tests/data/sample.dat

# the files a command created beside $TMP/OUT and what it renamed over OUT
check() {
	local name=$1 out=$2; shift 2
	# (LeakSanitizer cannot run under ptrace: a SAN build's leak check is off here)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -e trace=openat,rename,renameat,renameat2 -o "$TMP/st.log" "$@" > /dev/null 2> "$TMP/e" ||
		{ fail "$name failed: $(cat "$TMP/e")"; return; }
	created=$(grep -o "\"$TMP/\.$out\.[^\"]*\", [^)]*O_CREAT" "$TMP/st.log" | cut -d'"' -f2 |
		grep -v '\.spool\.' | sed "s#^$TMP/##")
	renamed=$(grep -o "rename[a-z0-9]*([^)]*\"$TMP/$out\"" "$TMP/st.log" | grep -o "\.$out\.[0-9a-f]*" | head -1)
	[ "$(echo "$created" | grep -c .)" = 1 ] && [ "$created" = "$renamed" ] && [ -s "$TMP/$out" ] &&
		ok "$name: one temporary file ($created), renamed to $out" ||
		fail "$name: created '$(echo $created)', renamed '$renamed'"
	ls -a "$TMP" | grep -q "^\.$out\." && fail "$name left a temporary file"
}
check slice s.dat "$F" slice $S --to 1610 -o "$TMP/s.dat"
"$F" slice $S --from 1610 -o "$TMP/b.dat" 2> /dev/null || fail "slice --from"
check merge m.dat "$F" merge "$TMP/s.dat" "$TMP/b.dat" -o "$TMP/m.dat"
# redact also writes an uncompressed copy for its check: named after OUT, removed, never renamed
check redact r.dat "$F" redact "$TMP/s.dat" -o "$TMP/r.dat"
finish
