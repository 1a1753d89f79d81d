#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A writer interrupted leaves nothing behind (issue 30, item 6): slice, merge, redact and
# convert, each killed by SIGINT and by SIGTERM while it writes a big file, leave no hidden
# temporary file (.o.dat.XXXXXXXXXXXX, its spools, redact's uncompressed copy) and no
# o.dat, and die of the signal (the exit status says so).  Each case is tried until a
# signal lands while the temporary file exists; a signal that comes after the rename leaves
# a whole o.dat, which must verify.
#   FLYTRAP_TEST_LIGHT=1: the same cases, a smaller input (the sanitizer run)
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
MKRPT=$TOP/$O/tests/tools/mkrpt
[ -x "$MKRPT" ] || skip "no $MKRPT"
env --default-signal=INT true 2> /dev/null || skip "env has no --default-signal (coreutils 8.31)"
F=$FLYTRAP
n=4000000
[ "${FLYTRAP_TEST_LIGHT:-0}" = 1 ] && n=1500000
"$MKRPT" bench "$TMP/big.dat" $n > /dev/null || fail "mkrpt bench"
cp "$TMP/big.dat" "$TMP/big2.dat"
head -c 32 /dev/urandom > "$TMP/key"
D=$TMP/out

# interrupt SIG NAME CMD...: CMD (its output D/o.dat) killed by SIG once its temporary file
# is there, after a delay that shrinks when CMD finished first; until one signal lands
# mid-write (at most 12 tries)
interrupt() {
	local sig=$1 name=$2 num pid rc left try ms=300 landed=
	shift 2
	num=$(kill -l "$sig")
	for try in $(seq 12); do
		rm -rf "$D"
		mkdir "$D"
		# (bash starts background commands with SIGINT ignored: a user's Ctrl-C is not)
		env --default-signal=INT,TERM "$@" -o "$D/o.dat" > /dev/null 2> "$TMP/err" &
		pid=$!
		while kill -0 $pid 2> /dev/null && [ -z "$(ls -A "$D")" ]; do sleep 0.01; done
		sleep "$(printf '0.%03d' $((RANDOM % (ms + 1))))"
		kill -"$sig" $pid 2> /dev/null
		wait $pid
		rc=$?
		left=$(ls -A "$D" | grep -v '^o\.dat$' | tr '\n' ' ')
		if [ -n "$left" ]; then
			fail "$name, SIG$sig (exit $rc): left $left"
			return
		fi
		if [ $rc = $((128 + num)) ]; then
			if [ ! -e "$D/o.dat" ]; then
				landed=$try
				break
			fi
			# the signal came after the rename: the file is whole
			"$F" verify "$D/o.dat" > /dev/null 2>&1 || fail "$name, SIG$sig: o.dat left is not whole"
		elif [ $rc = 0 ]; then
			ms=$((ms / 2))
		else
			fail "$name, SIG$sig: exit $rc: $(head -2 "$TMP/err")"
			return
		fi
	done
	[ -n "$landed" ] && ok "$name, SIG$sig mid-write (try $landed): no hidden file, no o.dat, exit $rc" ||
		fail "$name, SIG$sig: never interrupted while writing in 12 tries"
}

for sig in INT TERM; do
	interrupt $sig slice "$F" slice --cpu 0 "$TMP/big.dat"
	interrupt $sig merge "$F" merge "$TMP/big.dat" "$TMP/big2.dat"
	interrupt $sig redact "$F" redact --key "$TMP/key" "$TMP/big.dat"
	interrupt $sig convert "$F" convert "$TMP/big.dat"
done
finish
