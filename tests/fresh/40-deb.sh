#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make deb on a production-like machine: a fresh Debian 12 minbase root
# installs build/flytrap_*.deb with `apt-get install ./flytrap_*.deb`
# (pulling only runtime libraries from the mirror, never a -dev package),
# runs flytrap --version and flytrap report on a shipped file (the same
# bytes as the build's own binary), then removes it and finds nothing of it
# left: the root's files are what they were before the install.
. "$(dirname "$0")/root.sh"
fresh_start "$@"

t0=$(date +%s)
make -C "$TOP" --no-print-directory -j2 O="$O" deb >"$TMP/make.log" 2>&1 ||
	{ tail -n 30 "$TMP/make.log"; echo "FAIL: make deb failed"; exit 1; }
deb=$(ls "$TOP/$O"/flytrap_*_"$(dpkg --print-architecture)".deb | tail -n 1)
echo "make deb: $(($(date +%s) - t0)) s, $deb ($(du -k "$deb" | cut -f1) KiB)"
dep=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $dep"
case "$dep" in *-dev*) fail "the package depends on a -dev package" ;; *libtracefs1*) ok "it depends on runtime libraries" ;; *) fail "Depends lacks libtracefs1" ;; esac
case "$dep" in *libtraceevent1-plugin*) ok "and on libtraceevent's plugins" ;; *) fail "Depends lacks the plugins" ;; esac
dpkg-deb -c "$deb" >"$TMP/contents"
grep -q '/usr/share/man/man1/flytrap-record.1.gz$' "$TMP/contents" && ok "man pages are in it" || fail "no man pages"
grep -q '/usr/share/bash-completion/completions/flytrap$' "$TMP/contents" && ok "bash completion is in it" ||
	fail "no bash completion"

fresh_cache_root
fresh_new_root
fresh_mount "$ROOT"
cp "$deb" "$ROOT/root/"
cp "$TOP/tests/data/sample.dat" "$ROOT/root/sample.dat"
base=$(basename "$deb")
# what the root holds, but the package manager's own records and caches
files() {
	(cd "$ROOT" && find . -xdev \( -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache \
		-o -path ./var/log -o -path ./root \) -prune -o -print | sort)
}
fresh_chroot "$ROOT" apt-get update -q >"$TMP/update.log" 2>&1 ||
	{ tail -n 5 "$TMP/update.log"; echo "FAIL: apt-get update in the fresh root"; exit 1; }
fresh_chroot "$ROOT" dpkg-query -W -f '${Package}\n' | sort >"$TMP/pk-before"
files >"$TMP/files-before"
t1=$(date +%s)
fresh_chroot "$ROOT" sh -c "cd /root && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./$base" \
	>"$TMP/install.log" 2>&1
rc=$?
[ $rc = 0 ] && ok "apt-get install ./$base ($(($(date +%s) - t1)) s)" ||
	{ tail -n 20 "$TMP/install.log"; fail "apt-get install exited $rc"; }
fresh_chroot "$ROOT" dpkg-query -W -f '${Package}\n' | sort >"$TMP/pk-after"
comm -13 "$TMP/pk-before" "$TMP/pk-after" >"$TMP/pk-new"
echo "installed: $(tr '\n' ' ' <"$TMP/pk-new")"
grep -q -- '-dev$' "$TMP/pk-new" && fail "a -dev package came with it: $(grep -- '-dev$' "$TMP/pk-new" | tr '\n' ' ')"

fresh_chroot "$ROOT" flytrap --version >"$TMP/version" 2>&1 && grep -q '^flytrap ' "$TMP/version" &&
	ok "flytrap --version: $(head -n 1 "$TMP/version")" || fail "flytrap --version: $(cat "$TMP/version")"
fresh_chroot "$ROOT" flytrap report /root/sample.dat >"$TMP/report.pkg" 2>&1
rc=$?
FLYTRAP_REPORT_COMPAT= "$FLYTRAP" report "$TOP/tests/data/sample.dat" >"$TMP/report.build" 2>&1
[ $rc = 0 ] && cmp -s "$TMP/report.pkg" "$TMP/report.build" &&
	ok "flytrap report in the root: $(wc -l <"$TMP/report.pkg") lines, as the build's binary prints" ||
	fail "flytrap report (exit $rc) differs from the build's: $(diff "$TMP/report.pkg" "$TMP/report.build" | head -n 3 | tr '\n' '|')"

t1=$(date +%s)
fresh_chroot "$ROOT" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -q --autoremove flytrap' \
	>"$TMP/remove.log" 2>&1 && ok "apt-get purge --autoremove flytrap ($(($(date +%s) - t1)) s)" ||
	{ tail -n 10 "$TMP/remove.log"; fail "apt-get purge failed"; }
fresh_chroot "$ROOT" dpkg-query -W -f '${Package}\n' | sort >"$TMP/pk-end"
# apt's autoremove keeps a dependency that a package of the base system
# recommends or suggests (minbase's passwd and util-linux recommend
# sensible-utils, which libdebuginfod's ucf pulls in): on any fuller system it
# is there already.  Those are purged by name, and only those.
kept=
fresh_chroot "$ROOT" sh -c 'dpkg-query -W -f "\${Recommends}, \${Suggests}\n"' | tr ',|' '\n\n' |
	sed -e 's/(.*)//' -e 's/:any//' -e 's/ //g' | sort -u >"$TMP/rec-base"
for p in $(comm -13 "$TMP/pk-before" "$TMP/pk-end"); do
	grep -qx "$p" "$TMP/rec-base" && kept="$kept $p"
done
if [ -n "$kept" ]; then
	# shellcheck disable=SC2086
	fresh_chroot "$ROOT" sh -c "DEBIAN_FRONTEND=noninteractive apt-get purge -y -q$kept" >>"$TMP/remove.log" 2>&1 &&
		ok "apt kept$kept (recommended by the base system); purged by name" ||
		fail "cannot purge$kept"
	fresh_chroot "$ROOT" dpkg-query -W -f '${Package}\n' | sort >"$TMP/pk-end"
fi
cmp -s "$TMP/pk-before" "$TMP/pk-end" && ok "the same packages as before the install" ||
	fail "packages left: $(comm -13 "$TMP/pk-before" "$TMP/pk-end" | tr '\n' ' ')"
files >"$TMP/files-end"
if cmp -s "$TMP/files-before" "$TMP/files-end"; then
	ok "nothing of it left: the same $(wc -l <"$TMP/files-end") files as before"
else
	fail "files changed: $(diff "$TMP/files-before" "$TMP/files-end" | grep '^[<>]' | head -n 8 | tr '\n' ' ')"
fi
grep -q flytrap "$TMP/files-end" && fail "a flytrap file is left: $(grep -m1 flytrap "$TMP/files-end")"
finish
