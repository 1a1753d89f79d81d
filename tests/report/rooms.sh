#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The rule of report/'s rooms (docs/report.md): a command room (listing,
# analyzers, share, sql) includes core/, syms/ and out/, never a sibling room;
# core/, syms/ and out/ include no command room.  Read from the #include lines
# of every source and header, so that the rule cannot quietly break again.
# A room not named here fails too: a new one must be placed on one side.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1

base="core syms out"
cmds="listing analyzers share sql"
is_in() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

for d in report/*/; do
	r=$(basename "$d")
	is_in "$r" "$base $cmds" || fail "report/$r/ is neither a base room ($base) nor a command room ($cmds)"
done

n=0
for f in report/*/*.c report/*/*.h; do
	from=$(echo "$f" | cut -d/ -f2)
	while IFS=: read -r line to; do
		n=$((n + 1))
		[ "$to" = "$from" ] && continue
		if is_in "$from" "$base" && is_in "$to" "$cmds"; then
			fail "$f:$line: $from/ includes the command room $to/"
		elif is_in "$from" "$cmds" && is_in "$to" "$cmds"; then
			fail "$f:$line: $from/ includes its sibling room $to/"
		elif ! is_in "$to" "$base $cmds"; then
			fail "$f:$line: includes report/$to/, not a room"
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"report/' "$f" |
		 sed 's#^\([0-9]*\):.*"report/\([^/"]*\)/.*#\1:\2#')
done
[ "$n" -gt 50 ] && ok "$n includes of report/ rooms follow the rule" ||
	fail "only $n includes of report/ rooms found: is the grep still right?"

# every command lives in a command room
while IFS=: read -r f line _; do
	from=$(echo "$f" | cut -d/ -f2)
	is_in "$from" "$cmds" || fail "$f:$line: a command (cmd_*) in $from/, not in a command room"
done < <(grep -n '^int cmd_[a-z_]*(' report/*/*.c)
finish
