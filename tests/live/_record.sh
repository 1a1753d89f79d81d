# SPDX-License-Identifier: GPL-2.0-only
# Shared by the record tests (not run on its own: the runner skips names starting with "_").
#
# A sanitizer build (make SAN=1) builds the workload tools with ASan too, and its runtime makes
# syscalls of its own (getpid among them), and its leak checker refuses to run under ptrace,
# which the recorder uses on the command it runs.  So: the tools run with leak checking off, and
# the getpid calls their runtime adds are measured once with a 1-call run; for a plain build
# that number must be 0.
LOOP=$TOP/$O/tests/tools/getpid_loop
TOOLENV=()
tool_sanitized=0
if ldd "$LOOP" 2>/dev/null | grep -q 'libasan'; then
	tool_sanitized=1
	TOOLENV=(env ASAN_OPTIONS=detect_leaks=0)
fi

# getpid calls beyond the program's own, for a parent and for a forked child: "P C"
runtime_getpids() {
	local d pid n out=""
	d=$(mktemp -d "$TMP/cal.XXXXXX")
	"$FLYTRAP" record -q -e syscalls:sys_enter_getpid -o "$d/c.dat" -- "${TOOLENV[@]}" "$LOOP" 1 1 \
		>"$d/pids" 2>/dev/null
	trace-cmd report -i "$d/c.dat" >"$d/c.txt" 2>/dev/null
	for pid in $(awk '{ print $2 }' "$d/pids"); do
		n=$(grep -cE -- "-$pid +\[[0-9]+\] +[0-9.]+: sys_enter_getpid:" "$d/c.txt")
		out="$out $((n - 1))"
	done
	echo $out
}
