#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# User symbols through elfutils (issue 10 point 6, issue 15 first bullet):
# profiles made offline by tests/tools/mksynth (BPF stack samples and the
# process maps) of binaries built here, then callgraph names their frames:
#  - a C++ method demangled (ns::Klass::method(int)) and a PLT stub (puts@plt);
#  - a copy of libc.so.6 with no build-id and no debug link: .dynsym names
#    with their versions (clock_nanosleep@GLIBC_2.2.5), as perf prints them;
#  - a stripped binary with only a .gnu_debuglink, its debug file in a
#    --debug-dir under $TMP;
#  - a binary not on this machine (a path that does not exist) named from
#    its debug file found by build-id in a --debug-dir, its code mapping
#    whole or in two pieces;
#  - a stripped binary whose debug file a local debuginfod serves: named with
#    DEBUGINFOD_URLS set, listed as unresolved without it or with
#    --no-debuginfod, and a server that never answers costs the default
#    timeout (5 s per binary), not libdebuginfod's 90 s.
# --json says per binary which source named it.
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
cd "$TOP" || exit 1
[ -x "$FLYTRAP" ] || skip "no $FLYTRAP"
for c in python3 readelf nm objcopy objdump strip gcc g++; do need_cmd "$c"; done
MK="$PWD/$O/tests/tools/mksynth"
[ -x "$MK" ] || skip "no $MK (make builds it)"
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT
export DEBUGINFOD_CACHE_PATH="$TMP/dcache"
SERVERS=
trap 'for p in $SERVERS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; busy_stop; rm -rf "$TMP"' EXIT
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# "START-END r-xp OFF ... PATH" for the executable LOAD segment of $1 mapped at base $2
BASE=$((0x7f0000000000))
maps_line() {
	local f=$1 base=$2 off va sz
	read -r off va sz < <(readelf -lW "$f" 2> /dev/null | awk '$1 == "LOAD" && / R?E +0x/ { print $2, $3, $5; exit }')
	[ -n "$sz" ] || { fail "cannot read the LOAD segments of $f"; return; }
	printf '%x-%x r-xp %08x 08:01 1 %s\n' $((base + va)) $((base + va + sz)) $((off)) "$f"
}
# address of symbol $2 of $1 (nm, or objdump's "<NAME>:" label for PLT stubs) + $4 at base $3
addr_of() {
	local v
	case $2 in
	*@plt) v=$(objdump -d -j .plt -j .plt.sec "$1" 2>/dev/null | awk -v s="<$2>:" '$2 == s { print $1; exit }') ;;
	*) v=$(nm -D --defined-only "$1" 2>/dev/null | awk -v s="$2" '$3 == s { print $1; exit }')
	   [ -n "$v" ] || v=$(nm "$1" 2>/dev/null | awk -v s="$2" '$3 == s { print $1; exit }') ;;
	esac
	[ -n "$v" ] || { fail "no symbol $2 in $1"; echo 0; return; }
	printf '%x' $(($3 + 0x$v + $4))
}
# profile $1.dat of pid 900: maps of the binaries $3..., one sample per line of $2
profile() {
	local out=$1 st=$2 f b=$BASE
	shift 2
	{ echo "== 900 app"; for f in "$@"; do maps_line "$f" $b; b=$((b + 0x10000000)); done; } > "$out.maps"
	"$MK" "$out.dat" stacks "$out.maps" "$st" > /dev/null || fail "mksynth $out"
}
B1=$BASE B2=$((BASE + 0x10000000))

# ---- C++: demangled names, a PLT stub -------------------------------------------
mkdir -p "$TMP/cxx"
cat > "$TMP/cxx/p.cc" <<'C'
#include <cstdio>
namespace ns { struct Klass { int method(int x); }; }
int ns::Klass::method(int x) { std::puts("m"); return x + 1; }
int main() { ns::Klass k; return k.method(1) == 2 ? 0 : 1; }
C
g++ -O0 -g -fno-omit-frame-pointer -o "$TMP/cxx/p" "$TMP/cxx/p.cc" || fail "g++"
P=$TMP/cxx/p
echo "900 $(addr_of "$P" puts@plt $B1 4) $(addr_of "$P" _ZN2ns5Klass6methodEi $B1 8) $(addr_of "$P" main $B1 8)" \
	> "$TMP/cxx.st"
profile "$TMP/cxx" "$TMP/cxx.st" "$P"
"$FLYTRAP" callgraph --folded "$TMP/cxx.dat" > "$TMP/cxx.fold" 2> "$TMP/e" || fail "callgraph: $(cat "$TMP/e")"
grep -qxF "main;ns::Klass::method(int);puts@plt 1" "$TMP/cxx.fold" \
	&& ok "C++ method demangled, PLT stub named puts@plt" || fail "C++ stack: $(cat "$TMP/cxx.fold")"
grep -q "_ZN2ns" "$TMP/cxx.fold" && fail "a mangled name is left"

# Rust names, both manglings (legacy _ZN...17h<hash>E and v0 _R...), from a C file naming them
cat > "$TMP/cxx/r.c" <<'C'
__attribute__((noinline)) int legacy(int x) __asm__("_ZN4core3fmt5write17h0123456789abcdefE");
__attribute__((noinline)) int v0(int x) __asm__("_RNvCskwGfYPst2Cb_3foo16example_function");
int legacy(int x) { return x + 1; }
int v0(int x) { return legacy(x) + 1; }
int main(void) { return v0(1) == 3 ? 0 : 1; }
C
gcc -O0 -fno-omit-frame-pointer -o "$TMP/cxx/r" "$TMP/cxx/r.c" || fail "gcc rust names"
R=$TMP/cxx/r
echo "900 $(addr_of "$R" _ZN4core3fmt5write17h0123456789abcdefE $B1 4) \
$(addr_of "$R" _RNvCskwGfYPst2Cb_3foo16example_function $B1 4) $(addr_of "$R" main $B1 4)" > "$TMP/r.st"
profile "$TMP/r" "$TMP/r.st" "$R"
"$FLYTRAP" callgraph --folded "$TMP/r.dat" > "$TMP/r.fold" 2> "$TMP/e" || fail "callgraph: $(cat "$TMP/e")"
grep -qxF "main;foo::example_function;core::fmt::write 1" "$TMP/r.fold" \
	&& ok "Rust names demangled (legacy and v0)" || fail "Rust stack: $(cat "$TMP/r.fold")"

# ---- libc: .dynsym names with versions ------------------------------------------
LIBC=$(ldd "$P" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$LIBC" ] && [ -r "$LIBC" ] || skip "no libc.so.6 found by ldd"
mkdir -p "$TMP/lib"
# no build-id, no debug link: nothing can lead to libc6-dbg or a server, only its own tables
objcopy --remove-section .note.gnu.build-id --remove-section .gnu_debuglink "$LIBC" "$TMP/lib/libc.so.6" \
	2> /dev/null || fail "objcopy libc"
if readelf -SW "$TMP/lib/libc.so.6" 2> /dev/null | grep -q '\.symtab'; then
	echo "note: this libc.so.6 has a .symtab; the .dynsym check does not apply"
else
	CN=$(readelf --dyn-syms -W "$TMP/lib/libc.so.6" 2> /dev/null | awk '$8 ~ /^clock_nanosleep@/ && $8 !~ /@@/ { print $8; exit }')
	[ -n "$CN" ] || CN=$(readelf --dyn-syms -W "$TMP/lib/libc.so.6" 2> /dev/null | awk '$8 ~ /^clock_nanosleep@/ { print $8; exit }')
	[ -n "$CN" ] || skip "libc.so.6 has no versioned clock_nanosleep"
	v=$(readelf --dyn-syms -W "$TMP/lib/libc.so.6" 2> /dev/null | awk -v s="$CN" '$8 == s { print $2; exit }')
	echo "900 $(printf '%x' $((B2 + 0x$v + 0x10))) $(addr_of "$P" main $B1 8)" > "$TMP/libc.st"
	profile "$TMP/libc" "$TMP/libc.st" "$P" "$TMP/lib/libc.so.6"
	"$FLYTRAP" callgraph --folded "$TMP/libc.dat" > "$TMP/libc.fold" 2> "$TMP/e" || fail "callgraph libc"
	grep -qxF "main;$CN 1" "$TMP/libc.fold" && ok "libc frame named from .dynsym with its version: $CN" \
		|| fail "libc frame: $(cat "$TMP/libc.fold") (want $CN)"
	"$FLYTRAP" callgraph --json "$TMP/libc.dat" > "$TMP/libc.json" || fail "callgraph --json"
	[ "$(jget "$TMP/libc.json" '[b["symbols"] for b in j["binaries"]]')" = "['symtab', 'dynsym']" ] \
		&& ok "JSON: the program from its symtab, libc from .dynsym" \
		|| fail "JSON sources: $(jget "$TMP/libc.json" 'j.get("binaries")')"
fi

# ---- damaged binaries: no crash, listed as unresolved --------------------------------
python3 - "$P" "$TMP/bad" <<'PY' || fail "making damaged binaries"
import random, struct, sys
src, out = sys.argv[1], sys.argv[2]
d = bytearray(open(src, "rb").read())
open(out + "1", "wb").write(d[:300])                        # cut inside the headers
shoff, = struct.unpack_from("<Q", d, 0x28); shnum, = struct.unpack_from("<H", d, 0x3c)
e = bytearray(d)
for k in range(shnum):                                      # every section huge, far away
    struct.pack_into("<QQ", e, shoff + k * 64 + 0x18, 1 << 60, 1 << 62)
open(out + "2", "wb").write(e)
r = random.Random(7); f = bytearray(d)
for k in range(shnum):                                      # section contents scrambled
    off, size = struct.unpack_from("<QQ", f, shoff + k * 64 + 0x18)
    t, = struct.unpack_from("<I", f, shoff + k * 64 + 4)
    if t in (2, 3, 4, 11, 0x6ffffffd, 0x6fffffff, 0x6ffffff0) and off + size <= len(f):
        f[off:off + size] = bytes(r.getrandbits(8) for _ in range(size))
open(out + "3", "wb").write(f)
PY
for k in 1 2 3; do
	chmod +x "$TMP/bad$k"
	echo "900 $(addr_of "$P" main $B1 8)" > "$TMP/bad.st"
	# the maps of the intact program, naming the damaged file
	{ echo "== 900 app"; maps_line "$P" $B1 | sed "s|$P\$|$TMP/bad$k|"; } > "$TMP/bad.maps"
	"$MK" "$TMP/bad$k.dat" stacks "$TMP/bad.maps" "$TMP/bad.st" > /dev/null || fail "mksynth bad$k"
	"$FLYTRAP" callgraph --json "$TMP/bad$k.dat" > "$TMP/bad.json" 2> "$TMP/e"
	rc=$?
	[ $rc = 0 ] && [ "$(jget "$TMP/bad.json" '[b["symbols"] for b in j["binaries"]]')" = "['none']" ] \
		&& ok "damaged binary $k: no crash, listed with no symbols" \
		|| fail "damaged binary $k: exit $rc: $(head -c 300 "$TMP/e") $(head -c 300 "$TMP/bad.json")"
done

# ---- a .gnu_debuglink file in a --debug-dir ---------------------------------------
cat > "$TMP/w.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) int work_inner(int x) { return printf("%d\n", x); }
__attribute__((noinline)) int work_outer(int x) { return work_inner(x) + 1; }
int main(void) { return work_outer(1) > 0 ? 0 : 1; }
C
mkdir -p "$TMP/bin" "$TMP/dbg"
gcc -O0 -g -fno-omit-frame-pointer -Wl,--build-id=none -o "$TMP/w.full" "$TMP/w.c" || fail "gcc"
cp "$TMP/w.full" "$TMP/bin/dl"
objcopy --only-keep-debug "$TMP/w.full" "$TMP/dl.debug" && strip -s "$TMP/bin/dl" \
	&& (cd "$TMP" && objcopy --add-gnu-debuglink=dl.debug "$TMP/bin/dl") || fail "making the debuglink binary"
mkdir -p "$TMP/dbg$TMP/bin" && mv "$TMP/dl.debug" "$TMP/dbg$TMP/bin/"
readelf -n "$TMP/bin/dl" | grep -q "Build ID" && fail "the debuglink binary has a build-id"
nm "$TMP/bin/dl" > /dev/null 2>&1 && nm "$TMP/bin/dl" 2>&1 | grep -q work_inner && fail "not stripped"
F=$TMP/w.full
readelf -hW "$F" | grep -q 'DYN' || skip "gcc does not build PIE here (the addresses below assume it)"
echo "900 $(addr_of "$F" work_inner $B1 6) $(addr_of "$F" work_outer $B1 6) $(addr_of "$F" main $B1 6)" > "$TMP/dl.st"
profile "$TMP/dl" "$TMP/dl.st" "$TMP/bin/dl"
"$FLYTRAP" callgraph "$TMP/dl.dat" > "$TMP/dl.txt" 2>&1 || fail "callgraph without --debug-dir"
grep -q "no symbols for 1 binary ($TMP/bin/dl)" "$TMP/dl.txt" && ok "without --debug-dir: not resolved, and said so" \
	|| fail "no note of the unresolved binary: $(cat "$TMP/dl.txt")"
"$FLYTRAP" callgraph --folded --debug-dir "$TMP/dbg" "$TMP/dl.dat" > "$TMP/dl.fold" 2> "$TMP/e" \
	|| fail "callgraph --debug-dir: $(cat "$TMP/e")"
grep -qxF "main;work_outer;work_inner 1" "$TMP/dl.fold" && ok "the .gnu_debuglink file in --debug-dir names the frames" \
	|| fail "debuglink: $(cat "$TMP/dl.fold")"
"$FLYTRAP" callgraph --json --debug-dir "$TMP/dbg" "$TMP/dl.dat" > "$TMP/dl.json" || fail "callgraph --json"
[ "$(jget "$TMP/dl.json" '[b["symbols"] for b in j["binaries"]]')" = "['debug file']" ] \
	&& ok "JSON: named by a debug file" || fail "JSON: $(jget "$TMP/dl.json" 'j.get("binaries")')"

# ---- a binary not on this machine: only its debug file, by build-id, in a --debug-dir ----
# (as in a redacted copy, whose paths are tokens).  A debug file's LOAD headers keep
# p_vaddr and p_memsz but not the binary's file offsets (its code is NOBITS).  The
# program has a 12 KiB function between work_inner and work_outer, so its code spans
# pages; a second profile splits the code mapping in two, as mprotect would.
cat > "$TMP/g.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) int work_inner(int x) { return printf("%d\n", x); }
__attribute__((noinline)) void big(void) { __asm__ volatile(".skip 12288, 0x90"); }
__attribute__((noinline)) int work_outer(int x) { return work_inner(x) + 1; }
int main(void) { return work_outer(1) > 0 ? 0 : 1; }
C
gcc -O0 -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/g.full" "$TMP/g.c" || fail "gcc"
GB=$(readelf -n "$TMP/g.full" | awk '/Build ID/ { print $3 }')
[ ${#GB} -gt 2 ] || fail "no build-id in $TMP/g.full"
mkdir -p "$TMP/dbgb/.build-id/${GB:0:2}"
objcopy --only-keep-debug "$TMP/g.full" "$TMP/dbgb/.build-id/${GB:0:2}/${GB:2}.debug" || fail "objcopy"
readelf -lW "$TMP/dbgb/.build-id/${GB:0:2}/${GB:2}.debug" 2> /dev/null | awk '$1 == "LOAD" && / R?E +0x/ && $5 == "0x000000"' \
	| grep -q . || echo "note: this debug file keeps the code's file size"
GONE=$TMP/gone/bin/g	# never created
# the kernel's maps line: the code's LOAD from its page-rounded address, a page-rounded file offset
read -r goff gva gsz < <(readelf -lW "$TMP/g.full" | awk '$1 == "LOAD" && / R?E +0x/ { print $2, $3, $6; exit }')
gs=$((B1 + (gva & ~0xfff))) ge=$((B1 + ((gva + gsz + 0xfff) & ~0xfff))) gp=$((goff & ~0xfff))
printf '== 900 app\n%x-%x r-xp %08x 08:01 1 %s\n' $gs $ge $gp "$GONE" > "$TMP/gb.maps"
echo "$GONE $GB" > "$TMP/gb.bids"
echo "900 $(addr_of "$TMP/g.full" work_inner $B1 6) $(addr_of "$TMP/g.full" work_outer $B1 6) \
$(addr_of "$TMP/g.full" main $B1 6)" > "$TMP/gb.st"
"$MK" "$TMP/gb.dat" stacks "$TMP/gb.maps" "$TMP/gb.st" "$TMP/gb.bids" > /dev/null || fail "mksynth gb"
"$FLYTRAP" callgraph --folded "$TMP/gb.dat" > "$TMP/gb.fold" 2> "$TMP/e" || fail "callgraph: $(cat "$TMP/e")"
grep -q "work_" "$TMP/gb.fold" && fail "named without the debug file: $(cat "$TMP/gb.fold")"
"$FLYTRAP" callgraph --folded --debug-dir "$TMP/dbgb" "$TMP/gb.dat" > "$TMP/gb.fold" 2> "$TMP/e" \
	|| fail "callgraph --debug-dir: $(cat "$TMP/e")"
grep -qxF "main;work_outer;work_inner 1" "$TMP/gb.fold" \
	&& ok "a binary known only by its build-id debug file in --debug-dir: frames named" \
	|| fail "build-id debug file: $(cat "$TMP/gb.fold")"
"$FLYTRAP" callgraph --json --debug-dir "$TMP/dbgb" "$TMP/gb.dat" > "$TMP/gb.json" || fail "callgraph --json"
[ "$(jget "$TMP/gb.json" '[(b["path"], b["symbols"]) for b in j["binaries"]]')" = "[('$GONE', 'debug file')]" ] \
	&& ok "JSON: the missing binary named by its debug file" || fail "JSON: $(jget "$TMP/gb.json" 'j.get("binaries")')"
# the same mapping in two pieces, cut at work_outer's page
cut=$((($(printf '%d' 0x$(addr_of "$TMP/g.full" work_outer $B1 0)) & ~0xfff)))
if [ $cut -gt $gs ] && [ $cut -lt $ge ]; then
	printf '== 900 app\n%x-%x r-xp %08x 08:01 1 %s\n%x-%x r-xp %08x 08:01 1 %s\n' \
		$gs $cut $gp "$GONE" $cut $ge $((gp + cut - gs)) "$GONE" > "$TMP/gs.maps"
	"$MK" "$TMP/gs.dat" stacks "$TMP/gs.maps" "$TMP/gb.st" "$TMP/gb.bids" > /dev/null || fail "mksynth gs"
	"$FLYTRAP" callgraph --folded --debug-dir "$TMP/dbgb" "$TMP/gs.dat" > "$TMP/gs.fold" 2> "$TMP/e" \
		|| fail "callgraph split: $(cat "$TMP/e")"
	grep -qxF "main;work_outer;work_inner 1" "$TMP/gs.fold" \
		&& ok "its code mapping in two pieces: frames in both named" || fail "split mapping: $(cat "$TMP/gs.fold")"
else
	fail "work_outer is not past the first page of the code ($cut, $gs-$ge)"
fi

# ---- debuginfod ------------------------------------------------------------------
if ! command -v debuginfod > /dev/null; then
	echo "SKIP: debuginfod checks: 'debuginfod' is not installed"
	finish
fi
NODI=
"$FLYTRAP" --version | grep -q "debuginfod (libcurl)" && NODI=1	# the static build
mkdir -p "$TMP/srv" "$TMP/bin2"
gcc -O0 -g -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/srv/wd.full" "$TMP/w.c" || fail "gcc"
objcopy --only-keep-debug "$TMP/srv/wd.full" "$TMP/srv/wd.debug" && rm "$TMP/srv/wd.full"
gcc -O0 -g -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/bin2/wd" "$TMP/w.c" && strip -s "$TMP/bin2/wd" \
	|| fail "stripped binary"
BID=$(readelf -n "$TMP/bin2/wd" | awk '/Build ID/ { print $3 }')
[ "$BID" = "$( readelf -n "$TMP/srv/wd.debug" 2> /dev/null | awk '/Build ID/ { print $3 }')" ] || fail "the two builds differ"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
# --pdeathsig: a test killed outright takes its server along
setpriv --pdeathsig KILL debuginfod -F -p "$PORT" -d "$TMP/dinfo.sqlite" -t 0 -g 0 "$TMP/srv" > "$TMP/dinfo.log" 2>&1 &
SERVERS="$SERVERS $!"
URL=http://127.0.0.1:$PORT
# the server scans in the background: wait until it serves the debug file (not through the test cache)
for i in $(seq 100); do
	python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2).read()' \
		"$URL/buildid/$BID/debuginfo" 2> /dev/null && break
	sleep 0.2
done
[ "$i" -lt 100 ] || { fail "debuginfod did not serve $BID: $(tail -5 "$TMP/dinfo.log")"; finish; }
cp "$TMP/dl.st" "$TMP/wd.st"	# the same code, the same addresses
F=$TMP/bin2/wd
profile "$TMP/wd" "$TMP/wd.st" "$F"
"$FLYTRAP" callgraph "$TMP/wd.dat" > "$TMP/wd.txt" 2>&1 || fail "callgraph without DEBUGINFOD_URLS"
grep -q "no symbols for 1 binary ($F)" "$TMP/wd.txt" && ok "without DEBUGINFOD_URLS: $F listed as unresolved" \
	|| fail "no note without DEBUGINFOD_URLS: $(cat "$TMP/wd.txt")"
DEBUGINFOD_URLS=$URL "$FLYTRAP" callgraph --no-debuginfod "$TMP/wd.dat" > "$TMP/wd.txt" 2>&1 || fail "--no-debuginfod"
grep -q "no symbols for 1 binary ($F)" "$TMP/wd.txt" && ok "--no-debuginfod: not asked" \
	|| fail "--no-debuginfod resolved: $(cat "$TMP/wd.txt")"
[ -d "$DEBUGINFOD_CACHE_PATH/$BID" ] && fail "--no-debuginfod still fetched into the cache"
if [ -n "$NODI" ]; then
	DEBUGINFOD_URLS=$URL "$FLYTRAP" callgraph "$TMP/wd.dat" > "$TMP/wd.txt" 2>&1 || fail "static callgraph"
	grep -q "no symbols for 1 binary ($F)" "$TMP/wd.txt" && ok "static build: no debuginfod, as --version says" \
		|| fail "static build resolved through debuginfod: $(cat "$TMP/wd.txt")"
	echo "SKIP: the debuginfod lookups: this build has no debuginfod client"
	finish
fi
DEBUGINFOD_URLS=$URL "$FLYTRAP" callgraph --folded "$TMP/wd.dat" > "$TMP/wd.fold" 2> "$TMP/e" \
	|| fail "callgraph with DEBUGINFOD_URLS: $(cat "$TMP/e")"
grep -qxF "main;work_outer;work_inner 1" "$TMP/wd.fold" && ok "debuginfod's debug file names the stripped binary" \
	|| fail "debuginfod: $(cat "$TMP/wd.fold") $(cat "$TMP/e")"
[ -e "$DEBUGINFOD_CACHE_PATH/$BID/debuginfo" ] && ok "the debug file came through the cache under \$TMP" \
	|| fail "nothing in $DEBUGINFOD_CACHE_PATH"
DEBUGINFOD_URLS=$URL "$FLYTRAP" callgraph --json "$TMP/wd.dat" > "$TMP/wd.json" || fail "callgraph --json"
[ "$(jget "$TMP/wd.json" '(j["debuginfod"], [b["symbols"] for b in j["binaries"]])')" = "(True, ['debuginfod'])" ] \
	&& ok "JSON: named by debuginfod" || fail "JSON: $(jget "$TMP/wd.json" 'j.get("binaries")')"

# a server that accepts and never answers: the default timeout, not 90 s
python3 - "$TMP/silent.port" <<'PY' &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(120)
PY
SERVERS="$SERVERS $!"
for i in $(seq 50); do [ -s "$TMP/silent.port" ] && break; sleep 0.1; done
rm -rf "$DEBUGINFOD_CACHE_PATH"
t0=$(date +%s.%N)
DEBUGINFOD_URLS=http://127.0.0.1:$(cat "$TMP/silent.port") "$FLYTRAP" callgraph "$TMP/wd.dat" > "$TMP/sil.txt" 2>&1 \
	|| fail "callgraph with a silent server"
t=$(python3 -c "import sys; print(round($(date +%s.%N) - $t0, 1))")
python3 -c "import sys; sys.exit(0 if 4 <= $t <= 20 else 1)" && ok "a silent server costs ${t}s (default 5 s per binary)" \
	|| fail "a silent server took ${t}s"
grep -q "no symbols for 1 binary ($F)" "$TMP/sil.txt" || fail "silent server: $(cat "$TMP/sil.txt")"
grep -q "warning: debuginfod: no debug file for '$F' within 5 s" "$TMP/sil.txt" \
	&& ok "a warning names the binary the server did not answer for" || fail "no timeout warning: $(cat "$TMP/sil.txt")"
rm -rf "$DEBUGINFOD_CACHE_PATH"	# libdebuginfod remembers a failed query
t0=$(date +%s.%N)
DEBUGINFOD_TIMEOUT=1 DEBUGINFOD_URLS=http://127.0.0.1:$(cat "$TMP/silent.port") "$FLYTRAP" callgraph "$TMP/wd.dat" \
	> "$TMP/sil.txt" 2>&1 || fail "callgraph with DEBUGINFOD_TIMEOUT=1"
t=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
python3 -c "import sys; sys.exit(0 if 0.8 <= $t < 4 else 1)" && ok "DEBUGINFOD_TIMEOUT=1: ${t}s" || fail "DEBUGINFOD_TIMEOUT=1 took ${t}s"
finish
