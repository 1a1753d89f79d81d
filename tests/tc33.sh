# SPDX-License-Identifier: GPL-2.0-only
# The second oracle: Debian 13's trace-cmd 3.3.1 with libtraceevent 1.8.4,
# the trace-cmd users of current Debian, Fedora and Ubuntu releases have.
# It runs in a minbase Debian 13 (trixie) root made here by debootstrap from
# this machine's mirror and cached, with trace-cmd installed, in
# $FLYTRAP_FRESH_CACHE (default /var/cache/flytrap-fresh, next to
# tests/fresh's bare Debian 12 root).  Unlike tests/fresh's roots this one is
# cached with its package: it is a tool to compare against, not a fresh
# machine to prove something on.  Source it after tests/lib.sh.
#
#   tc33_need            SKIP (exit 77) when the root cannot be had; sets TC33_ROOT
#   tc33 ARGS...         `trace-cmd ARGS` of 3.3.1; every argument naming an
#                        existing file (the -i files) is copied into the root
#                        under its own base name, which is all trace-cmd
#                        prints of it, so the listing is the one of the file
#                        where it is
#                        (TC33_WRAP="stdbuf -oL": line-buffered, for the runs
#                        that crash at their end and lose what stdio held)
#   trixie_root DIR CHECK INCLUDE [SETUP]  another cached Debian 13 root (below)
#   tc33_stable OUT ARGS...  like tc_stable (tests/lib.sh): `trace-cmd report
#                        ARGS` of 3.3.1 into OUT, a listing two runs agree on
TC33_CACHE=${FLYTRAP_FRESH_CACHE:-/var/cache/flytrap-fresh}
# bump when the recipe below changes, so an old root is not reused
TC33_RECIPE=1
TC33_ROOT=

# trixie_root DIR CHECK INCLUDE [SETUP]: make the cached Debian 13 root DIR if
# there is none: debootstrap --variant=minbase --include=INCLUDE (none if
# empty), then `SETUP TMPDIR` when given (a function; its output goes to the
# log), and the root counts once the executable DIR/CHECK is in it.  Sets
# TRIXIE_ROOT; on failure prints why and returns 1.  A root is made under a
# temporary name and renamed, so a half-made one is never taken for a root.
# Also the Debian 13 root of tests/compat/23-kernelshark-24.sh.
trixie_root() {
	local dir=$1 check=$2 include=$3 setup=${4:-} mirror tmp t0 log
	TRIXIE_ROOT=
	if [ -x "$dir/$check" ]; then TRIXIE_ROOT=$dir; return 0; fi
	[ "$(id -u)" = 0 ] || { echo "making the Debian 13 root needs root"; return 1; }
	command -v debootstrap >/dev/null || { echo "debootstrap is not installed"; return 1; }
	[ -e /usr/share/debootstrap/scripts/trixie ] ||
		{ echo "this debootstrap knows no trixie"; return 1; }
	mkdir -p "$TC33_CACHE" || { echo "cannot create $TC33_CACHE"; return 1; }
	(
		flock 8
		[ -x "$dir/$check" ] && exit 0
		# trixie is served by the URI that serves this machine's bookworm
		mirror=$(FRESH_SUITE=bookworm; . "$TOP/tests/fresh/root.sh"; FRESH_SUITE=bookworm
			fresh_mirror) || { echo "no apt source on this machine names a Debian mirror"; exit 1; }
		tmp=$(mktemp -d "$TC33_CACHE/tc33.XXXXXX") || exit 1
		log=$tmp.log
		t0=$(date +%s)
		echo "note: making the Debian 13 root: debootstrap --variant=minbase" \
			"${include:+--include=$include }trixie from $mirror${setup:+, then $setup}"
		if ! debootstrap --variant=minbase ${include:+"--include=$include"} trixie "$tmp" \
			"$mirror" >"$log" 2>&1 ||
			{ [ -n "$setup" ] && ! "$setup" "$tmp" >>"$log" 2>&1; } ||
			[ ! -x "$tmp/$check" ]; then
			echo "making the Debian 13 root failed (no mirror?):" \
				"$(tail -n 3 "$log" | tr '\n' ' ')"
			rm -rf --one-file-system "$tmp" "$log"
			exit 1
		fi
		rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/* "$log"
		mv "$tmp" "$dir" || { rm -rf --one-file-system "$tmp"; exit 1; }
		echo "note: Debian 13 root made in $(($(date +%s) - t0)) s," \
			"$(du -sm "$dir" | cut -f1) MB: $dir"
	) 8>"$TC33_CACHE/.tc33.lock" || return 1
	[ -x "$dir/$check" ] || { echo "no $check in $dir"; return 1; }
	TRIXIE_ROOT=$dir
}

# Make the cached root if there is none; on failure print why and return 1.
tc33_make() {
	local arch
	arch=$(dpkg --print-architecture 2>/dev/null) ||
		{ echo "not a Debian system (no dpkg)"; return 1; }
	trixie_root "$TC33_CACHE/trixie-trace-cmd-$arch-r$TC33_RECIPE" usr/bin/trace-cmd trace-cmd ||
		return 1
	TC33_ROOT=$TRIXIE_ROOT
}

tc33_need() {
	local why
	if ! why=$(tc33_make); then
		skip "no Debian 13 root for trace-cmd 3.3.1: ${why##*$'\n'}"
	fi
	[ -n "$why" ] && echo "$why"
	tc33_make >/dev/null || skip "no Debian 13 root for trace-cmd 3.3.1"
}

tc33() {
	local d n=0 a args=() rc
	[ -n "$TC33_ROOT" ] || tc33_make >/dev/null || return 127
	d=$(mktemp -d "$TC33_ROOT/tmp/flytrap-tc33.XXXXXX") || return 127
	for a in "$@"; do
		if [ -f "$a" ]; then
			n=$((n + 1))
			mkdir "$d/$n" && cp "$a" "$d/$n/" || { rm -rf "$d"; return 127; }
			args+=("${d#"$TC33_ROOT"}/$n/$(basename "$a")")
		else
			args+=("$a")
		fi
	done
	env -i HOME=/root TERM=dumb LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		chroot "$TC33_ROOT" ${TC33_WRAP:-} trace-cmd "${args[@]}"
	rc=$?
	rm -rf "$d"
	return $rc
}

tc33_stable() { stable_report "$1" tc33 "${@:2}"; }
