#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# How the writing commands create their files, without root or tracefs:
# a directory, FIFO or device as the destination is refused with one line
# and exit 2 (record, convert, slice, merge), before anything is written, and
# so are /dev/stdout and links to descriptors (convert, export, slice); a link
# at the destination is replaced by a regular file of mode 0600 and its
# target is left as it was; a failed write leaves an existing destination
# as it was and nothing beside it.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
IN=$TOP/tests/data/rpt-sched.dat
IN2=$TOP/tests/data/rpt-stacks.dat
[ -f "$IN" ] && [ -f "$IN2" ] || skip "no $IN or $IN2"
cd "$TMP"
mkdir adir
mkfifo afifo

# refuse NAME WHY CMD...: exit 2, one line naming the destination and the reason
refuse() {
	local name=$1 why=$2 rc
	shift 2
	timeout 10 "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qE "'$name': $why" err.txt &&
		ok "$2 -o $name: exit 2, one line" ||
		{ fail "$2 -o $name: exit $rc"; cat err.txt; }
}
for d in adir afifo /dev/null adir/; do
	case $d in
	adir*) why="it (is|names) a directory" ;;
	afifo) why="it is a FIFO" ;;
	*) why="it is a device" ;;
	esac
	refuse "$d" "$why" "$FLYTRAP" record -o "$d" -- true
	refuse "$d" "$why" "$FLYTRAP" convert "$IN" -o "$d"
	refuse "$d" "$why" "$FLYTRAP" slice "$IN" -o "$d"
	refuse "$d" "$why" "$FLYTRAP" merge "$IN" "$IN2" -o "$d"
done
# /dev/stdout and links to descriptors: refused, the link left a link (the rename would replace it)
ln -s /proc/self/fd/1 fdlink
for d in /dev/stdout fdlink; do
	case $d in /dev/*) why="it names a descriptor" ;; *) why="it links to a device or a descriptor" ;; esac
	refuse "$d" "$why" "$FLYTRAP" convert "$IN" -o "$d"
	refuse "$d" "$why" "$FLYTRAP" export "$IN" -o "$d"
	refuse "$d" "$why" "$FLYTRAP" slice "$IN" -o "$d"
done
[ -L /dev/stdout ] && [ -L fdlink ] && ok "/dev/stdout and fdlink are still links" ||
	fail "a descriptor link was replaced: $(ls -la /dev/stdout fdlink)"
rm -f fdlink
[ -p afifo ] && [ -d adir ] && [ -z "$(ls -A adir)" ] && ok "FIFO and directory untouched" ||
	fail "the FIFO or directory changed"
[ -z "$(ls -A | grep -v -e '^adir$' -e '^afifo$' -e '\.txt$')" ] || fail "files left: $(ls -A)"

# a link at the destination: replaced, its target unchanged
printf 'keep\n' >target
for cmd in convert slice merge; do
	ln -sf target "$cmd.dat"
	args=("$IN")
	[ $cmd = merge ] && args=("$IN" "$IN2")
	"$FLYTRAP" $cmd "${args[@]}" -o "$cmd.dat" 2>err.txt || { fail "$cmd over a link failed"; cat err.txt; }
	[ "$(cat target)" = keep ] && ok "$cmd: the link's target is unchanged" || fail "$cmd wrote through the link"
	[ -f "$cmd.dat" ] && [ ! -L "$cmd.dat" ] && [ "$(stat -c %a "$cmd.dat")" = 600 ] &&
		ok "$cmd: the output is a regular file, mode 0600" ||
		fail "$cmd: output is $(stat -c '%F %a' "$cmd.dat")"
	"$FLYTRAP" info "$cmd.dat" >/dev/null 2>&1 && ok "$cmd: the output reads" || fail "$cmd: output unreadable"
done

# a failed convert (the input is not a trace) keeps what was at the destination
printf 'not a trace\n' >bad.dat
printf 'older output\n' >kept.dat
"$FLYTRAP" convert bad.dat -o kept.dat >/dev/null 2>err.txt
rc=$?
[ $rc != 0 ] && [ "$(cat kept.dat)" = "older output" ] && ok "a failed convert leaves the destination" ||
	fail "failed convert: exit $rc, destination now $(head -c 40 kept.dat)"
[ -z "$(ls -A | grep '^\.kept\.dat\.')" ] && ok "no temporary file left" || fail "left: $(ls -A | grep kept)"
finish
