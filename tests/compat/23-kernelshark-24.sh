#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 900
# KernelShark 2.4 (Debian 13's kernelshark 2.9.3+really2.4.0) opens flytrap's
# files, both buffers: tests/data/sample.dat (the top buffer and the BPF
# buffer flytrap-bpf), a `flytrap slice` and a `flytrap convert --compression
# none` of it.  It runs as a non-root user (as root it opens a modal warning
# first) under xvfb-run in a cached Debian 13 root made by tests/tc33.sh's
# trixie_root: minbase plus kernelshark, xvfb, xauth and imagemagick without
# their recommends, and a user.  Making that root took 259 s here (2 cores
# shared with other work, the Debian mirror: debootstrap about 3 min, the
# 186 packages about 1 min) and it is 622 MB (Qt 6 brings Mesa and LLVM), so
# it is made only on request: without the cached root the test SKIPs unless
# FLYTRAP_KS24=1.  With the root cached the test takes about 40 s.
#
# Whether a file loaded is what KernelShark itself says and draws: it prints
# `Loading "F"`, then for a file it cannot open `ERROR: ... while opening
# file` and `ERROR: File F contains no data.` (and shows a dialog); a file it
# opened leaves it running with a task graph of coloured bars (tens of
# thousands of saturated pixels; the dialog has about a thousand) and one CPU
# label colour per stream (KernelShark 2.4's palette: 166,220,245 for stream
# 0, 172,246,218 for stream 1).  A cut file and a text file must fail these
# checks, so the test is known to be able to fail.
# FLYTRAP_KS24_SHOT=FILE keeps the screenshot of sample.dat (docs/img).
# FLYTRAP_KS24_PREPARE=1 (tests/fresh/prefetch.sh): make the root, run nothing.
if [ "${FLYTRAP_KS24_NS:-}" != 1 ]; then
	# its own mount namespace: the root's mounts go with the test, however it ends
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (chroot, mounts)"; exit 77; }
	command -v unshare >/dev/null || { echo "SKIP: unshare (util-linux) is missing"; exit 77; }
	FLYTRAP_KS24_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$TOP/tests/lib.sh"
. "$TOP/tests/tc33.sh"
need_root

KS24_RECIPE=1	# bump when ks24_setup changes, so an old root is not reused
KS24_USER=ksuser
KS_MOUNTS=
KS_PGIDS=

# What the root has beyond minbase.  Run once, by trixie_root, on the new root.
ks24_setup() {
	local r=$1
	# the host's Acquire:: settings (proxy, snapshot dates), as tests/fresh does
	(FRESH_SUITE=trixie; . "$TOP/tests/fresh/root.sh"; FRESH_SUITE=trixie
		fresh_apt_config "$r") || return 1
	# no daemon of a package (dbus, polkit) is started in the chroot
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d" &&
		chmod 755 "$r/usr/sbin/policy-rc.d" || return 1
	env -i HOME=/root TERM=dumb LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive chroot "$r" sh -c 'apt-get update &&
		apt-get install -y --no-install-recommends kernelshark xvfb xauth imagemagick' ||
		return 1
	rm -f "$r/usr/sbin/policy-rc.d"
	chroot "$r" useradd -m -s /bin/sh "$KS24_USER" || return 1
	# the non-root user must be able to walk from / (mktemp -d made it 0700)
	chmod 755 "$r"
}

ks_cleanup() {
	local g m
	for g in $KS_PGIDS; do kill -9 -- "-$g" 2>/dev/null; done
	KS_PGIDS=
	for m in $KS_MOUNTS; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
			echo "note: cannot unmount $m"
	done
	KS_MOUNTS=
}
trap 'ks_cleanup; busy_stop; rm -rf "$TMP"' EXIT
trap 'exit 143' TERM INT HUP

arch=$(dpkg --print-architecture 2>/dev/null) || skip "not a Debian system (no dpkg)"
dir=$TC33_CACHE/trixie-kernelshark-$arch-r$KS24_RECIPE
if [ ! -x "$dir/usr/bin/kernelshark" ] && [ "${FLYTRAP_KS24:-0}" != 1 ]; then
	skip "the Debian 13 root with KernelShark 2.4 ($dir) is not cached; making it takes" \
		"over 4 min and 620 MB: FLYTRAP_KS24=1 makes it"
fi
why=$(trixie_root "$dir" usr/bin/kernelshark "" ks24_setup) ||
	skip "no Debian 13 root for KernelShark 2.4: ${why##*$'\n'}"
[ -n "$why" ] && echo "$why"
# tests/fresh/prefetch.sh: the root made (or there), nothing run
[ "${FLYTRAP_KS24_PREPARE:-0}" = 1 ] && { echo "the KernelShark 2.4 root is ready: $dir"; exit 0; }
R=$dir
uid=$(chroot "$R" id -u "$KS24_USER") && gid=$(chroot "$R" id -g "$KS24_USER") ||
	skip "no user $KS24_USER in $R"
echo "KernelShark: $(chroot "$R" dpkg-query -W -f '${Version}' kernelshark)"

ks_mount() {	# TYPE TARGET OPTIONS
	mount -t "$1" -o "$3" "$1" "$R$2" || { fail "cannot mount $1 on $R$2"; finish; }
	KS_MOUNTS="$R$2 $KS_MOUNTS"	# unmounted in reverse order
}
# /tmp is this test's own: a run beside it (another worktree) has another
ks_mount proc /proc nosuid,nodev,noexec
ks_mount tmpfs /tmp mode=1777
ks_mount tmpfs /dev/shm mode=1777

W=/tmp/ks
mkdir -p "$R$W/home" && chown "$uid:$gid" "$R$W" "$R$W/home" ||
	{ fail "cannot set up $R$W"; finish; }
# Pixels of a screenshot that are exactly COLOUR, or saturated (COLOUR "sat":
# the task graph's bars and little else); in the root, where ImageMagick is.
cat >"$R$W/count.sh" <<'EOF'
if [ "$2" = sat ]; then
	magick "$1" -colorspace HSL -channel G -separate +channel -threshold 50% \
		-format '%[fx:round(mean*w*h)]' info:
else
	magick "$1" -fill black +opaque "$2" -fill white -opaque "$2" \
		-format '%[fx:round(mean*w*h)]' info:
fi
EOF
# Runs in the root, as the user, inside xvfb-run: kernelshark FILE, then
# screenshots until the file is drawn or KernelShark reported an error (or
# ended), at most 2 minutes; the last screenshot is SHOT, whether it still ran
# is SHOT.status and what it printed SHOT.log.
cat >"$R$W/drive.sh" <<'EOF'
f=$1 shot=$2
kernelshark -geometry 1400x900+0+0 "$f" >"$shot.log" 2>&1 &
ks=$!
i=0
while [ $i -lt 60 ]; do
	sleep 2
	i=$((i + 1))
	kill -0 $ks 2>/dev/null || break
	grep -q '^ERROR' "$shot.log" && { sleep 2; break; }
	import -window root "$shot" 2>/dev/null || continue
	sat=$(sh /tmp/ks/count.sh "$shot" sat)
	# drawn: let it finish painting
	[ "${sat:-0}" -gt 20000 ] && { sleep 3; break; }
done
import -window root "$shot"
if kill -0 $ks 2>/dev/null; then
	echo running >"$shot.status"
	kill $ks
	wait $ks
else
	wait $ks
	echo "exited $?" >"$shot.status"
fi
EOF

ks_count() { chroot "$R" sh "$W/count.sh" "$@"; }	# SHOT COLOUR|sat

# ks_open NAME STREAMS: start KernelShark on $W/NAME, a file with STREAMS
# buffers, and judge it: KS_LOG is why what KernelShark printed (or its end)
# says it did not load the file, KS_SHOT why the screenshot does not show it
# (each empty when it did); returns 0 when both are empty.
ks_open() {
	local name=$1 streams=$2 shot=$W/$1.png pg st sat s0 s1
	KS_LOG='' KS_SHOT=''
	env -i HOME=$W/home LANG=C.UTF-8 PATH=/usr/bin:/bin USER=$KS24_USER LOGNAME=$KS24_USER \
		FLYTRAP_TEST_MARK="${FLYTRAP_TEST_MARK:-}" \
		setsid /usr/sbin/chroot --userspec="$uid:$gid" "$R" \
		xvfb-run -a -s "-screen 0 1400x900x24" sh "$W/drive.sh" "$W/$name" "$shot" \
		>"$TMP/$name.xvfb" 2>&1 </dev/null &
	pg=$!
	KS_PGIDS="$KS_PGIDS $pg"
	wait $pg
	# whatever of the group is left (Xvfb of a killed xvfb-run)
	kill -9 -- "-$pg" 2>/dev/null
	KS_PGIDS=${KS_PGIDS/ $pg/}
	grep -v 'unknown option\|^libtracecmd: No such file' "$R$shot.log" 2>/dev/null |
		head -n 4 | sed 's/^/  | /'
	st=$(cat "$R$shot.status" 2>/dev/null)
	if [ "$st" != running ]; then
		KS_LOG="KernelShark ${st:-did not run}:"
		KS_LOG="$KS_LOG $(tail -n 3 "$TMP/$name.xvfb" | tr '\n' ' ')"
	elif ! grep -qx "Loading  \"$W/$name\"" "$R$shot.log"; then
		KS_LOG="it never said it loads the file"
	elif grep -q '^ERROR' "$R$shot.log"; then
		KS_LOG="it said: $(grep -m1 '^ERROR' "$R$shot.log")"
	fi
	if [ ! -s "$R$shot" ]; then
		KS_SHOT="no screenshot"
	else
		sat=$(ks_count "$shot" sat)
		s0=$(ks_count "$shot" 'srgb(166,220,245)')
		s1=$(ks_count "$shot" 'srgb(172,246,218)')
		echo "  screenshot: $sat saturated pixels;" \
			"CPU labels: stream 0 $s0 px, stream 1 $s1 px"
		if [ "${sat:-0}" -le 20000 ]; then KS_SHOT="no task graph drawn"
		elif [ "${s0:-0}" -le 200 ]; then KS_SHOT="no CPU of stream 0 shown"
		elif [ "$streams" = 2 ] && [ "${s1:-0}" -le 200 ]; then
			KS_SHOT="no CPU of stream 1 (the BPF buffer) shown"
		fi
	fi
	[ -z "$KS_LOG" ] && [ -z "$KS_SHOT" ]
}

S=$TOP/tests/data/sample.dat
cp "$S" "$R$W/sample.dat"
"$FLYTRAP" slice "$S" --from 1609 --to 1612 -o "$R$W/slice.dat" >/dev/null ||
	fail "flytrap slice failed"
"$FLYTRAP" convert "$S" --compression none -o "$R$W/convert.dat" >/dev/null ||
	fail "flytrap convert failed"
head -c 5000 "$S" >"$R$W/cut.dat"
printf 'not a trace\n' >"$R$W/text.dat"
chmod 644 "$R$W"/*.dat

good="sample slice convert" bad="cut text"
# the sanitizer run: one file of each kind
light && good=slice bad=cut
for n in $good; do
	echo "== $n.dat"
	if ks_open "$n.dat" 2; then
		ok "KernelShark 2.4 shows $n.dat, both buffers"
	else
		fail "KernelShark 2.4 does not show $n.dat: ${KS_LOG:-$KS_SHOT}"
	fi
done
# each of the two signals alone must tell a broken file from a good one
for n in $bad; do
	echo "== $n.dat (broken: must be refused)"
	ks_open "$n.dat" 1
	[ -n "$KS_LOG" ] && ok "$n.dat refused by what KernelShark says: $KS_LOG" ||
		fail "the log check took the broken $n.dat as loaded"
	[ -n "$KS_SHOT" ] && ok "$n.dat refused by the screenshot: $KS_SHOT" ||
		fail "the screenshot check took the broken $n.dat as loaded"
done
if [ -n "${FLYTRAP_KS24_SHOT:-}" ] && [ -f "$R$W/sample.dat.png" ]; then
	cp "$R$W/sample.dat.png" "$FLYTRAP_KS24_SHOT" && echo "screenshot: $FLYTRAP_KS24_SHOT"
fi
finish
