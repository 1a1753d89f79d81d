#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make deb: $O/flytrap_VERSION_ARCH.deb with dpkg-deb and a control file made
# here.  The package holds the (dynamic) binary, the man pages and the bash
# completion; its Depends are the runtime libraries the binary links (by
# dpkg-shlibdeps, from Debian's shlibs/symbols files), never -dev packages.
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
VERSION=${VERSION:?}
arch=$(dpkg --print-architecture)
stage=$O/deb
rm -rf "$stage"
root=$stage/root
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" \
	"$root/usr/share/bash-completion/completions" "$root/usr/share/doc/flytrap" "$stage/debian"
install -m 0755 -s "$O/flytrap" "$root/usr/bin/flytrap"
for m in docs/man/*.1; do
	gzip -9n <"$m" >"$root/usr/share/man/man1/$(basename "$m").gz"
done
install -m 0644 pkg/flytrap.bash-completion "$root/usr/share/bash-completion/completions/flytrap"
install -D -m 0644 pkg/systemd/flytrap-flight.service "$root/lib/systemd/system/flytrap-flight.service"
install -D -m 0644 pkg/systemd/flytrap-flight.conf "$root/etc/flytrap/flight.conf"
install -D -m 0644 pkg/systemd/flytrap-lastboot.service "$root/lib/systemd/system/flytrap-lastboot.service"
install -D -m 0644 pkg/systemd/flytrap-lastboot.conf "$root/etc/flytrap/lastboot.conf"
printf '%s\n' /etc/flytrap/flight.conf /etc/flytrap/lastboot.conf >"$root/DEBIAN/conffiles"
# systemd learns of the unit (and forgets it) where it runs; a stopped service stays stopped
for s in postinst postrm; do
	cat >"$root/DEBIAN/$s" <<'EOT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
	systemctl daemon-reload || true
fi
EOT
	chmod 0755 "$root/DEBIAN/$s"
done
cat >"$root/DEBIAN/prerm" <<'EOT'
#!/bin/sh
set -e
# a removed package's recorder stops first (SIGTERM: tracefs left as found)
if [ "$1" = remove ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
	systemctl stop flytrap-flight.service || true
fi
EOT
chmod 0755 "$root/DEBIAN/prerm"
cat >"$root/usr/share/doc/flytrap/copyright" <<EOT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: flytrap

Files: *
License: GPL-2.0-only
 On Debian systems the full text is in /usr/share/common-licenses/GPL-2.
EOT
chmod 0644 "$root/usr/share/doc/flytrap/copyright"

# dpkg-shlibdeps wants a debian/control naming the package
printf 'Source: flytrap\n\nPackage: flytrap\nArchitecture: any\n' >"$stage/debian/control"
depends=$(cd "$stage" && dpkg-shlibdeps -O -e root/usr/bin/flytrap 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "flytrap: error: dpkg-shlibdeps found no dependencies of $O/flytrap" >&2; exit 1; }
# libtraceevent's plugins are loaded at run time (report prints sched_switch,
# kmem, hrtimer, ... with them, as trace-cmd does): the package that holds them
plugdir=$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins
plugpkg=$(dpkg -S "$plugdir" 2>/dev/null | sed -n '1s/:.*//p')
if [ -n "$plugpkg" ]; then
	depends="$depends, $plugpkg"
else
	echo "flytrap: warning: no package holds $plugdir: the package will not pull libtraceevent's plugins" >&2
fi
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOT
Package: flytrap
Version: $VERSION
Architecture: $arch
Maintainer: flytrap developers <flytrap@localhost>
Installed-Size: $size
Depends: $depends
Section: devel
Priority: optional
Description: record kernel traces into trace.dat files, and analyze them
 flytrap records ftrace events and eBPF data from a private tracefs
 instance into one compressed trace.dat (version 7) that trace-cmd and
 KernelShark open, and analyzes such files offline: event listing, call
 graphs and flame graphs, overhead, lost events, Perfetto/Chrome export.
EOT
out=$O/flytrap_${VERSION}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out.tmp" >/dev/null
mv "$out.tmp" "$out"
echo "$out: Depends: $depends"
