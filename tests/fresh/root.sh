# SPDX-License-Identifier: GPL-2.0-only
# A fresh Debian 12 (or 13) machine for the first-run tests: a minbase root made by
# debootstrap from this machine's own apt sources, with only what a person
# who cloned the repository has (git, make, sudo, ca-certificates).  Source
# it after tests/lib.sh.
#
# Only that bare root is cached (a tarball in $FRESH_CACHE), never one with
# flytrap's packages installed: a cached build root would make the tests
# prove nothing about a fresh machine.
#
#   FLYTRAP_FRESH_CACHE=DIR   where the bare root's tarball is kept
#                             (default /var/cache/flytrap-fresh)
FRESH_CACHE=${FLYTRAP_FRESH_CACHE:-/var/cache/flytrap-fresh}
# the release: bookworm (Debian 12) unless the test sets FRESH_SUITE=trixie
# (Debian 13) before sourcing this
FRESH_SUITE=${FRESH_SUITE:-bookworm}
FRESH_INCLUDE=git,make,sudo,ca-certificates
# bump when the recipe below changes, so an old tarball is not reused
FRESH_RECIPE=1
FRESH_ROOTS=
FRESH_MOUNTS=
FRESH_ROOT_SECS="cached"

FRESH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The start of every test here: its own mount namespace, tests/lib.sh,
# root, and clean-up on every exit path.
fresh_start() {
	fresh_private_mounts "$@"
	. "$FRESH_DIR/../lib.sh"
	need_root
	trap 'fresh_cleanup; busy_stop; rm -rf "$TMP"' EXIT
	trap 'exit 143' TERM INT HUP
}

# Every process of the test runs in its own mount namespace, so that the
# chroot's mounts disappear with it whatever happens (SIGKILL included);
# fresh_cleanup still unmounts them in order on every ordinary exit path.
fresh_private_mounts() {
	if [ "${FLYTRAP_FRESH_NS:-}" != 1 ]; then
		command -v unshare >/dev/null || skip "unshare (util-linux) is missing"
		FLYTRAP_FRESH_NS=1 exec unshare -m --propagation private bash "$0" "$@"
	fi
}

# The first deb URI of this machine's apt sources that serves $FRESH_SUITE
# (deb822 .sources files and one-line .list files).  A release this machine
# does not list (Debian 13 on a Debian 12 machine) comes from the archive
# that serves this machine's bookworm: one mirror carries every release.
fresh_mirror() {
	if [ "$FRESH_SUITE" != bookworm ]; then
		FRESH_SUITE=bookworm fresh_mirror_of && return 0
	fi
	fresh_mirror_of
}
fresh_mirror_of() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$FRESH_SUITE" '
			/^[ \t]*$/ { if (deb && ok && uri != "") { print uri; exit } deb = ok = 0; uri = ""; next }
			/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
			END { if (deb && ok && uri != "") print uri }' "$f" | head -n 1
	done | head -n 1 | grep . && return 0
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' |
		awk -v suite="$FRESH_SUITE" '$1 == "deb" && $3 == suite { print $2; exit }' | grep .
}

# Copy the host's apt sources (the mirror is the only network) and its
# Acquire:: settings (proxy, snapshot dates) into root $1.
fresh_apt_config() {
	local r=$1 f k
	if [ "$FRESH_SUITE" != bookworm ]; then
		# another release keeps the sources debootstrap wrote for it (its
		# suite on this machine's mirror); only the Acquire:: settings come
		for f in /etc/apt/apt.conf.d/*; do
			[ -f "$f" ] && grep -q '^[[:space:]]*Acquire::' "$f" && cp "$f" "$r$f"
		done
		return 0
	fi
	rm -f "$r/etc/apt/sources.list"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		mkdir -p "$r$(dirname "$f")"
		cp "$f" "$r$f"
		for k in $(grep -o '/[^] ]*\.gpg' "$f" 2>/dev/null | sort -u); do
			[ -e "$r$k" ] || { [ -f "$k" ] && mkdir -p "$r$(dirname "$k")" && cp "$k" "$r$k"; }
		done
	done
	for f in /etc/apt/apt.conf.d/*; do
		[ -f "$f" ] && grep -q '^[[:space:]]*Acquire::' "$f" && cp "$f" "$r$f"
	done
	return 0
}

# Make the bare root's tarball if the cache has none.  Prints how long it took.
fresh_cache_root() {
	local arch mirror tarball tmp t0
	arch=$(dpkg --print-architecture 2>/dev/null) || skip "not a Debian system (no dpkg)"
	command -v debootstrap >/dev/null || skip "debootstrap is not installed (apt-get install debootstrap)"
	tarball=$FRESH_CACHE/$FRESH_SUITE-minbase-$arch-r$FRESH_RECIPE.tar
	FRESH_TARBALL=$tarball
	mkdir -p "$FRESH_CACHE" || skip "cannot create $FRESH_CACHE"
	exec 9>"$FRESH_CACHE/.lock"
	flock 9
	if [ -s "$tarball" ]; then
		echo "bare root: cached $tarball ($(du -m "$tarball" | cut -f1) MB)"
		flock -u 9
		return 0
	fi
	mirror=$(fresh_mirror) || skip "no apt source serves $FRESH_SUITE on this machine"
	tmp=$(mktemp -d "$FRESH_CACHE/build.XXXXXX")
	FRESH_ROOTS="$FRESH_ROOTS $tmp"
	t0=$(date +%s)
	echo "bare root: debootstrap --variant=minbase --include=$FRESH_INCLUDE $FRESH_SUITE from $mirror"
	if ! debootstrap --variant=minbase --include="$FRESH_INCLUDE" "$FRESH_SUITE" "$tmp" "$mirror" \
		>"$TMP/debootstrap.log" 2>&1; then
		tail -n 20 "$TMP/debootstrap.log"
		fresh_remove_root "$tmp"
		flock -u 9
		echo "FAIL: debootstrap failed"
		exit 1
	fi
	fresh_apt_config "$tmp"
	rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/* 2>/dev/null
	tar --numeric-owner -C "$tmp" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
	rm -f "$tarball.tmp"
	fresh_remove_root "$tmp"
	FRESH_ROOT_SECS="$(($(date +%s) - t0)) s"
	echo "bare root: made in $FRESH_ROOT_SECS, $(du -m "$tarball" | cut -f1) MB, cached as $tarball"
	flock -u 9
	[ -s "$tarball" ] || { echo "FAIL: cannot write $tarball"; exit 1; }
}

# A new root from the cached bare one, in $ROOT.
fresh_new_root() {
	ROOT=$(mktemp -d "${TMPDIR:-/tmp}/flytrap-fresh.XXXXXX")
	FRESH_ROOTS="$FRESH_ROOTS $ROOT"
	tar --numeric-owner -C "$ROOT" -xf "$FRESH_TARBALL" ||
		{ echo "FAIL: cannot unpack $FRESH_TARBALL"; exit 1; }
	cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null
	return 0
}

fresh_mount1() {	# TYPE SOURCE TARGET [OPTIONS]
	mkdir -p "$3"
	if [ "$1" = bind ]; then
		mount --bind "$2" "$3" || return 1
	else
		mount -t "$1" ${4:+-o "$4"} "$2" "$3" || return 1
	fi
	FRESH_MOUNTS="$3 $FRESH_MOUNTS"	# unmounted in reverse order
}

# What a booted machine has mounted, in root $1: /proc, /sys with tracefs
# and bpffs, /dev, /run and /tmp.
fresh_mount() {
	local r=$1
	fresh_mount1 proc proc "$r/proc" &&
	fresh_mount1 sysfs sysfs "$r/sys" &&
	fresh_mount1 tracefs nodev "$r/sys/kernel/tracing" &&
	fresh_mount1 bpf bpf "$r/sys/fs/bpf" &&
	fresh_mount1 bind /dev "$r/dev" &&
	fresh_mount1 devpts devpts "$r/dev/pts" newinstance,ptmxmode=0666 &&
	fresh_mount1 tmpfs tmpfs "$r/dev/shm" mode=1777 &&
	fresh_mount1 tmpfs tmpfs "$r/run" mode=0755 &&
	fresh_mount1 tmpfs tmpfs "$r/tmp" mode=1777 ||
		{ echo "FAIL: cannot mount the pseudo file systems in $r"; exit 1; }
}

# Run a command as root inside root $1, as a login shell would: a clean
# environment, PATH of a Debian root shell, HOME /root.
fresh_chroot() {
	local r=$1
	shift
	env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		chroot "$r" "$@"
}

# Processes whose root is $1 (left by something run in the chroot).
fresh_kill() {
	local r=$1 p root n=0
	for p in /proc/[0-9]*; do
		root=$(readlink "$p/root" 2>/dev/null) || continue
		case "$root" in "$r"|"$r"/*) kill -9 "${p#/proc/}" 2>/dev/null && n=$((n + 1)) ;; esac
	done
	[ $n = 0 ] || echo "note: killed $n process(es) left in $r"
}

# Remove a root, never following a mount that is still there.
fresh_remove_root() {
	local r=$1
	[ -n "$r" ] && [ -d "$r" ] || return 0
	if awk -v r="$r" '$5 == r || index($5, r "/") == 1 { found = 1 } END { exit !found }' \
		/proc/self/mountinfo; then
		echo "FAIL: $r still has mounts; not removing it"
		return 1
	fi
	rm -rf --one-file-system "$r"
}

fresh_cleanup() {
	local m r
	for r in $FRESH_ROOTS; do fresh_kill "$r"; done
	for m in $FRESH_MOUNTS; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "note: cannot unmount $m"
	done
	FRESH_MOUNTS=
	for r in $FRESH_ROOTS; do fresh_remove_root "$r"; done
	FRESH_ROOTS=
}

# The whole first run: a new root from the bare one, the committed tree
# (HEAD of $TOP) cloned into /root/flytrap, the pseudo file systems mounted,
# then CMD typed in that folder as root.  Sets rc, secs (how long CMD took),
# $TMP/cmd.log (its output) and $TMP/installed.txt (every package it added).
fresh_readme_command() {
	local cmd=$1 head t0 t1 inst
	fresh_cache_root
	t0=$(date +%s)
	fresh_new_root
	fresh_chroot "$ROOT" dpkg-query -W -f '${Package}\n' | sort >"$TMP/before.txt"
	head=$(git -C "$TOP" rev-parse HEAD) || { echo "FAIL: $TOP is not a git checkout"; exit 1; }
	git clone -q "$TOP" "$ROOT/root/flytrap" && git -C "$ROOT/root/flytrap" checkout -q "$head" ||
		{ echo "FAIL: cannot clone $TOP"; exit 1; }
	fresh_mount "$ROOT"
	echo "fresh root: $ROOT, $(wc -l <"$TMP/before.txt") packages, unpacked in $(($(date +%s) - t0)) s"
	echo "flytrap: $(git -C "$TOP" log -1 --format='%h %s' | cut -c1-70)"
	echo "# cd flytrap && $cmd"
	t1=$(date +%s)
	# each line with the second it came, to tell installing from building
	fresh_chroot "$ROOT" sh -c "cd /root/flytrap && $cmd" 2>&1 </dev/null |
		while IFS= read -r l; do printf '%s\t%s\n' "$(($(date +%s) - t1))" "$l"; done >"$TMP/cmd.tlog"
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - t1))
	cut -f2- "$TMP/cmd.tlog" >"$TMP/cmd.log"
	inst=$(awk -F'\t' '$2 ~ /^  (CC|BPF|BTF|CP|LINK) / { print $1; exit }' "$TMP/cmd.tlog")
	sed 's/^/  | /' "$TMP/cmd.log" | tail -n 80
	echo "'$cmd' exited $rc after $secs s"
	fresh_chroot "$ROOT" dpkg-query -W -f '${Package}\n' | sort >"$TMP/after.txt"
	comm -13 "$TMP/before.txt" "$TMP/after.txt" >"$TMP/installed.txt"
	echo "asked for: $(sed -n 's/^installing: //p' "$TMP/cmd.log" | head -n 1)"
	echo "installed $(wc -l <"$TMP/installed.txt") packages (with their dependencies):"
	fmt -w 100 "$TMP/installed.txt" | sed 's/^/  /'
	echo "timings: bare root $FRESH_ROOT_SECS; '$cmd' $secs s, of which installing the packages" \
		"${inst:-?} s (until the first compile)"
}
