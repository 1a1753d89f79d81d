#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap sql's interactive prompt keeps a history: on a pseudo-terminal, a
# query, then the up arrow and Enter run it again; a new session recalls it
# from the history file ($FLYTRAP_SQL_HISTORY here, ~/.flytrap_sql_history
# by default).  See sql-prompt.py.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
need_cmd python3
ldd "$FLYTRAP" 2>/dev/null | grep -q 'libedit' || skip "this build has no libedit (the static build's prompt keeps no history)"
if python3 tests/report/sql-prompt.py "$FLYTRAP" tests/data/sample.dat "$TMP/hist" >"$TMP/out" 2>&1; then
	sed -n 's/^ok: //p' "$TMP/out" | while read -r l; do ok "$l"; done
else
	cat "$TMP/out"
	fail "the prompt's history"
fi
finish
