#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernel lab: boot Debian's stock kernel under qemu (TCG) once and check,
# inside it, what this machine's kernel refuses: the function and
# function_graph tracers and kprobe events (record/tracer.c, and `flytrap
# record` once it has --kprobe), with the tracefs state compared before and
# after every run, SIGINT / SIGTERM / SIGKILL + reset included.  Files come
# out over the second serial port and are checked here with trace-cmd and
# flytrap.  docs/kernel-lab.md explains it.
#
#   FLYTRAP_LAB_CACHE=DIR        kernel cache (default /var/cache/flytrap-lab)
#   FLYTRAP_LAB_SUITE=SUITE      the kernel of another Debian suite (11-kernel-lab-612.sh:
#                                bookworm-backports, Linux 6.12)
#   FLYTRAP_LAB_KEEP=DIR         keep the guest's output files in DIR
#   FLYTRAP_LAB_GUEST=FILE       run FILE in the guest instead of guest.sh (debugging,
#                                20-record-smp.sh)
#   FLYTRAP_LAB_SMP=N            guest CPUs (default 2)
#   FLYTRAP_LAB_APPEND=PARAMS    more kernel parameters (30-last-boot.sh: the boot buffer)
#   FLYTRAP_LAB_REBOOT=1         a reboot in the guest restarts it, memory kept (qemu
#                                without -no-reboot); the guest powers off to end
#   FLYTRAP_LAB_NO_STATIC=1      leave flytrap-static out of the guest
#   FLYTRAP_LAB_ONCE=TEXT        a console line the guest prints once: seen twice, the run
#                                starts again (at most 3 runs)
#   FLYTRAP_LAB_UPDATE_GOLDEN=1  copy the recorded function_graph file to
#                                tests/data/lab-function-graph.dat
#   FLYTRAP_LAB_BENCH=1          instead of the checks, measure the per-call
#                                cost of BPF kfunc tracing, fentry against
#                                kprobes (qemu -icount: instruction counts)
. "$(dirname "$0")/../lib.sh"

CACHE=${FLYTRAP_LAB_CACHE:-/var/cache/flytrap-lab}
LAB=$TOP/tests/lab/lib
t0=$(date +%s)

# ---- prerequisites: qemu, busybox, cpio, the kernel ---------------------------------
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
[ -x /bin/busybox ] && ldd /bin/busybox 2>&1 | grep -q 'not a dynamic' || missing+=(busybox-static)
command -v cpio >/dev/null || missing+=(cpio)
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || skip "needs ${missing[*]} (not installed, and not root to install them)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >"$TMP/apt.log" 2>&1 ||
		skip "cannot install ${missing[*]}: $(tail -n 1 "$TMP/apt.log")"
fi
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not available"
need_cmd trace-cmd
need_cmd cc
need_cmd pkg-config
pkg-config --exists libtracefs || skip "libtracefs is not installed (needed for tracer-check)"

# The one kernel version the linux-image-amd64 metapackage names (a glob
# would download every version), cached outside the repository.  With
# FLYTRAP_LAB_SUITE (bookworm-backports: Linux 6.12), that suite's, through
# an apt list of its own in the cache (signatures checked by apt with the
# Debian keyring; the machine's sources are left alone).
suite=${FLYTRAP_LAB_SUITE:-}
mkdir -p "$CACHE" 2>/dev/null
apto=()
if [ -n "$suite" ]; then
	d=$CACHE/apt-$suite
	mirror=$(FRESH_SUITE=bookworm; . "$TOP/tests/fresh/root.sh"; fresh_mirror_of)
	mkdir -p "$d/lists/partial" "$d/cache" "$d/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror:-http://deb.debian.org/debian} $suite main" >"$d/sources.list"
	apto=(-o "Dir::Etc::sourcelist=$d/sources.list" -o Dir::Etc::sourceparts=- \
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o "Dir::Cache::archives=$d/archives")
	apt-get "${apto[@]}" -q update >"$TMP/dl.log" 2>&1 || echo "note: apt-get update of $suite failed: $(tail -n 1 "$TMP/dl.log")"
fi
pkg=$(apt-cache "${apto[@]}" depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n 1)
vmlinuz=
if [ -n "$pkg" ]; then
	kver=${pkg#linux-image-}
	vmlinuz=$CACHE/$kver/vmlinuz
	if [ ! -s "$vmlinuz" ]; then
		deb=$(ls "$CACHE/${pkg}_"*.deb 2>/dev/null | head -n 1)
		if [ -z "$deb" ]; then
			(cd "$CACHE" && apt-get "${apto[@]}" download -q "$pkg") >"$TMP/dl.log" 2>&1
			deb=$(ls "$CACHE/${pkg}_"*.deb 2>/dev/null | head -n 1)
		fi
		if [ -n "$deb" ]; then
			mkdir -p "$CACHE/$kver"
			dpkg-deb --fsys-tarfile "$deb" | tar -xO "./boot/vmlinuz-$kver" >"$vmlinuz.tmp" 2>/dev/null &&
				mv "$vmlinuz.tmp" "$vmlinuz"
			rm -f "$vmlinuz.tmp"
		fi
	fi
fi
if [ -z "$vmlinuz" ] || [ ! -s "$vmlinuz" ]; then
	# offline: the kernel an earlier run of this suite unpacked
	vmlinuz=$(cat "$CACHE/kernel-${suite:-default}" 2>/dev/null)
	[ -s "$vmlinuz" ] || skip "no lab kernel${suite:+ of $suite}: ${pkg:-linux-image-amd64 unknown to apt-cache}: $(tail -n 1 "$TMP/dl.log" 2>/dev/null)"
fi
echo "$vmlinuz" >"$CACHE/kernel-${suite:-default}" 2>/dev/null
kver=$(basename "$(dirname "$vmlinuz")")
echo "lab kernel: $kver ($vmlinuz)"

# ---- the guest's programs --------------------------------------------------------------
# tracer-check runs under ASan and UBSan in the guest: the lab is where
# tracer.c's working paths (kprobes, top-level state, reset) run at all
LAB_SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS_LAB="-std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wshadow=local -Wformat=2 -Wno-format-nonliteral -Werror -D_GNU_SOURCE"
# shellcheck disable=SC2046
cc $CFLAGS_LAB $LAB_SAN -I"$TOP" -I"$TOP/format" $(pkg-config --cflags libtracefs) -o "$TMP/tracer-check" \
	"$LAB/tracer-check.c" "$TOP/record/tracer.c" "$TOP/record/state.c" -DFT_NO_MAIN "$TOP/flytrap.c" $(pkg-config --libs libtracefs) >"$TMP/cc.log" 2>&1 ||
	{ cat "$TMP/cc.log"; echo "FAIL: cannot build tracer-check"; exit 1; }

R=$TMP/root
mkdir -p "$R"/{bin,sbin,proc,sys,dev,tmp,run,etc,out,tc,lab}
cp /bin/busybox "$R/bin/busybox"
# copy a program and the shared libraries ldd lists, with the loader
add_prog() {
	local src=$1 dst=$2 lib
	cp "$src" "$R$dst"
	for lib in $(ldd "$src" | awk '/=> \//{print $3} /^\t\//{print $1}'); do
		mkdir -p "$R$(dirname "$lib")"
		[ -e "$R$lib" ] || cp -L "$lib" "$R$lib"
	done
}
add_prog "$TMP/tracer-check" /tc/flytrap
if [ -x "$FLYTRAP" ]; then
	add_prog "$FLYTRAP" /bin/flytrap
	# cuts the kallsyms of files before they cross the slow serial port
	[ -x "$TOP/$O/tests/tools/trim_kallsyms" ] && add_prog "$TOP/$O/tests/tools/trim_kallsyms" /lab/trim_kallsyms
else
	echo "note: $FLYTRAP is not built: flytrap record checks not run"
fi
# the static build, alone (no libraries copied with it)
lab_timeout=300
if [ -x "$TOP/$O/flytrap-static" ] && [ "${FLYTRAP_LAB_NO_STATIC:-0}" != 1 ]; then
	cp "$TOP/$O/flytrap-static" "$R/bin/flytrap-static"
	cp "$LAB/guest-static.sh" "$R/lab/"
	lab_timeout=420	# one more recording, and a 7 MB binary in the initramfs
else
	echo "note: $TOP/$O/flytrap-static is not built (make static): its lab check not run"
fi
cp "${FLYTRAP_LAB_GUEST:-$LAB/guest.sh}" "$R/lab/guest.sh"
[ -f "$LAB/guest-record.sh" ] && cp "$LAB/guest-record.sh" "$R/lab/"
[ -f "$LAB/guest-bpf.sh" ] && cp "$LAB/guest-bpf.sh" "$R/lab/"
[ -f "$LAB/guest-bench.sh" ] && cp "$LAB/guest-bench.sh" "$R/lab/"
[ -f "$LAB/guest-status.sh" ] && cp "$LAB/guest-status.sh" "$R/lab/"
# a user's own kprobe and fentry objects (guest-bpf.sh), built as tests/live/35 builds them
if command -v clang >/dev/null && [ -r "$TOP/bpf/vmlinux/x86/vmlinux.h" ]; then
	. "$TOP/tests/live/_bpf.sh"
	barch=x86 VMH=$TOP/bpf/vmlinux/x86 SRC=$TOP/tests/live/bpfobj	# the guest is x86_64
	bpfobj_cc kfunc "$R/lab/kprobe.bpf.o" >"$TMP/cc.log" 2>&1 &&
		bpfobj_cc kfunc "$R/lab/fentry.bpf.o" -DUSE_FENTRY >>"$TMP/cc.log" 2>&1 ||
		{ cat "$TMP/cc.log"; echo "FAIL: cannot build kfunc.bpf.c"; exit 1; }
fi
# the open/close loop of the BPF overhead measurement (guest-bpf.sh)
cc $CFLAGS_LAB -o "$TMP/openloop" "$LAB/openloop.c" >"$TMP/cc.log" 2>&1 ||
	{ cat "$TMP/cc.log"; echo "FAIL: cannot build openloop"; exit 1; }
add_prog "$TMP/openloop" /lab/openloop
echo "BENCH=${FLYTRAP_LAB_BENCH:-0}" >"$R/lab/env"
cat >"$R/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tracefs nodev /sys/kernel/tracing
export PATH=/bin:/sbin
echo "guest-start $(cat /proc/uptime)"
sh /lab/guest.sh
echo "guest-end $(cat /proc/uptime)"
# the results travel as a tar archive over the second serial port
stty -F /dev/ttyS1 raw -echo
tar -cf /dev/ttyS1 -C /out .
sync
sleep 1
poweroff -f
EOF
chmod +x "$R/init" "$R/lab/guest.sh"
(cd "$R" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$TMP/initrd.gz"
t1=$(date +%s)

# ---- boot ----------------------------------------------------------------------------------
# The measuring boot counts time in instructions (1 ns each), so its
# numbers do not move with the host's load (guest-bench.sh).  One CPU: with
# -icount, bringing up the second one takes minutes (delay calibration),
# and lpj= skips the calibration on the first.
qemu_cpu=(-smp "${FLYTRAP_LAB_SMP:-2}")
append=
if [ "${FLYTRAP_LAB_BENCH:-0}" = 1 ]; then
	qemu_cpu=(-smp 1 -icount shift=0,sleep=off)
	append=" lpj=2000000"
fi
reboot=(-no-reboot)
[ "${FLYTRAP_LAB_REBOOT:-0}" = 1 ] && reboot=()
append="$append${FLYTRAP_LAB_APPEND:+ $FLYTRAP_LAB_APPEND}"
run_qemu() {
	timeout -k 5 "${FLYTRAP_LAB_TIMEOUT:-$lab_timeout}" qemu-system-x86_64 -accel tcg,thread=single -cpu max "${qemu_cpu[@]}" -m 512 "${reboot[@]}" \
		-kernel "$vmlinuz" -initrd "$TMP/initrd.gz" \
		-append "console=ttyS0 panic=-1 quiet$append" \
		-display none -monitor none -serial stdio -serial "file:$TMP/out.tar" \
		</dev/null >"$TMP/console.log" 2>&1
}
if [ -z "${FLYTRAP_LAB_ONCE:-}" ]; then
	run_qemu
	qrc=$?
else
	# FLYTRAP_LAB_ONCE=TEXT: a line the guest prints once per run (30-last-boot.sh: its
	# first boot's).  Seen twice, what the reboot was to keep was lost (the kernel
	# reserved its memory elsewhere): the run stops and starts again, three times at most.
	for try in 1 2 3; do
		run_qemu &
		qp=$!
		while kill -0 $qp 2>/dev/null; do
			if [ "$(grep -c -- "$FLYTRAP_LAB_ONCE" "$TMP/console.log" 2>/dev/null)" -ge 2 ]; then
				pkill -P $qp 2>/dev/null
				break
			fi
			sleep 0.5
		done
		wait $qp
		qrc=$?
		[ "$(grep -c -- "$FLYTRAP_LAB_ONCE" "$TMP/console.log")" -ge 2 ] || break
		echo "note: run $try: the guest printed '$FLYTRAP_LAB_ONCE' twice (what the reboot was to keep was lost); again"
		: >"$TMP/out.tar"
	done
fi
t2=$(date +%s)
echo "prepare $((t1 - t0)) s, boot+guest $((t2 - t1)) s (qemu exit $qrc)"
sed 's/^/  guest| /' "$TMP/console.log" | grep -v '^  guest| *$' | tail -n 80

G=$TMP/guest
mkdir -p "$G"
if ! tar -xf "$TMP/out.tar" -C "$G" 2>"$TMP/tar.err" || [ ! -f "$G/results.txt" ]; then
	echo "FAIL: no results from the guest (qemu exit $qrc, $(stat -c %s "$TMP/out.tar" 2>/dev/null) bytes on the serial port): $(head -c 200 "$TMP/tar.err")"
	exit 1
fi
if [ -n "${FLYTRAP_LAB_KEEP:-}" ]; then
	mkdir -p "$FLYTRAP_LAB_KEEP" && cp -r "$G"/. "$TMP/console.log" "$FLYTRAP_LAB_KEEP"/
fi
grep -q '^guest-done' "$G/results.txt" || fail "the guest script did not finish"
n_ok=$(grep -c '^ok:' "$G/results.txt")
n_fail=$(grep -c '^FAIL:' "$G/results.txt")
echo "guest: $n_ok ok, $n_fail failed"
grep '^FAIL:' "$G/results.txt" | while read -r l; do echo "guest $l"; done
fails=$((fails + n_fail))
[ "$n_ok" -gt 0 ] || fail "the guest passed no check"

# ---- host checks of files recorded by flytrap record ------------------------------------------
if [ -f "$LAB/host-record.sh" ] && [ -f "$G/graph.dat" ]; then
	. "$LAB/graph-check.sh"
	. "$LAB/host-record.sh"
fi
# ... and by flytrap record --bpf kfunc= (fentry and kprobe)
if [ -f "$LAB/host-bpf.sh" ] && { grep -q '^ok: bpf: kfunc-' "$G/results.txt" || [ -f "$G/bench.txt" ]; }; then
	. "$LAB/host-bpf.sh"
fi
# ... and with several capture and compression threads (20-record-smp.sh)
if [ -f "$LAB/host-smp.sh" ] && [ -f "$G/smp.err" ]; then
	. "$LAB/host-smp.sh"
fi
# ... and recovered from the last boot's buffer (30-last-boot.sh)
if [ -f "$LAB/host-lastboot.sh" ] && [ -f "$G/recover.txt" ]; then
	. "$LAB/host-lastboot.sh"
fi
# ... and by flytrap-static
if [ -f "$LAB/host-static.sh" ] && grep -q '^ok: static: ' "$G/results.txt"; then
	. "$LAB/host-static.sh"
elif [ -x "$TOP/$O/flytrap-static" ] && [ -z "${FLYTRAP_LAB_GUEST:-}" ]; then
	grep -q '^FAIL: static: ' "$G/results.txt" || fail "static: the guest did not run flytrap-static"
fi
echo "total $(( $(date +%s) - t0 )) s"
finish
