# SPDX-License-Identifier: GPL-2.0-only
# Sourced by 10-kernel-lab.sh: host checks of the `flytrap record --bpf
# syscalls,kfunc=do_sys_openat2 -- cat /proc/version` files of the lab
# (guest-bpf.sh), one through fentry/fexit and one through kprobes, with
# trace-cmd as the oracle.  The syscalls program is the reference: every
# open syscall of cat goes through do_sys_openat2 exactly once, so each
# kfunc call must sit inside one open/openat/openat2 record of the same
# thread, in the same order, and return what the syscall returned.

# kf_host NAME MODE
kf_host() {
	local f=$G/$1.dat out=$TMP/$1.txt res
	if [ ! -f "$f" ]; then
		fail "$1.dat: not brought out of the guest"
		return
	fi
	if ! trace-cmd report "$f" >"$out" 2>"$TMP/$1.err"; then
		fail "$1.dat: trace-cmd report failed: $(head -c 200 "$TMP/$1.err")"
		return
	fi
	if grep -q 'UNKNOWN EVENT' "$out"; then
		fail "$1.dat: trace-cmd prints [UNKNOWN EVENT]: $(grep -m1 'UNKNOWN EVENT' "$out")"
	fi
	# one line of verdict: "ok ..." or "bad ..."
	res=$(awk '
	function kv(   i, p) {
		delete v
		for (i = 1; i <= NF; i++) {
			p = index($i, "=")
			if (p > 1)
				v[substr($i, 1, p - 1)] = substr($i, p + 1)
		}
	}
	{
		ev = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^(syscall|kfunc_entry|kfunc_exit):$/) { ev = substr($i, 1, length($i) - 1); break }
		if (ev == "")
			next
		kv()
		# the task: "comm-TID" before "[CPU]"
		tid = $(i - 3); sub(/.*-/, "", tid)
		if (ev == "syscall") {
			if (v["nr"] == 2 || v["nr"] == 257 || v["nr"] == 437) {
				ns++
				sn[tid]++
				ss[tid, sn[tid]] = v["start"]; sd[tid, sn[tid]] = v["duration"]; sr[tid, sn[tid]] = v["ret"]
			}
			next
		}
		if (v["func"] != "do_sys_openat2") { bad = bad " func=" v["func"]; next }
		if (ev == "kfunc_entry") {
			ne++
			if (v["depth"] != 1) bad = bad " entry-depth=" v["depth"]
			next
		}
		nx++
		if (v["depth"] != 1 || v["flags"] != 0) bad = bad " exit-depth/flags=" v["depth"] "/" v["flags"]
		d = v["duration"] + 0
		if (d <= 0 || d >= 1000000000) bad = bad " duration=" d
		if (min == "" || d < min) min = d
		if (d > max) max = d
		kn[tid]++
		ks[tid, kn[tid]] = v["start"]; kd[tid, kn[tid]] = d; kr[tid, kn[tid]] = v["ret"]
		if (v["ret"] >= 0) okret++
	}
	END {
		if (ne == 0) bad = bad " no-kfunc-entries"
		if (ne != nx) bad = bad " entries=" ne "/exits=" nx
		if (ns != nx) bad = bad " open-syscalls=" ns "/kfunc-calls=" nx
		if (ns > 50) bad = bad " open-syscalls=" ns "(too many for cat)"
		if (okret == 0) bad = bad " no-successful-open"
		for (t in kn) {
			if (kn[t] != sn[t]) { bad = bad " tid" t ":" kn[t] "/" sn[t]; continue }
			for (j = 1; j <= kn[t]; j++) {
				# inside the syscall, same return value
				if (ks[t, j] < ss[t, j] || ks[t, j] + kd[t, j] > ss[t, j] + sd[t, j])
					bad = bad " call" j "-outside-its-syscall"
				if (kr[t, j] != sr[t, j])
					bad = bad " call" j "-ret=" kr[t, j] "/syscall-ret=" sr[t, j]
			}
		}
		if (bad != "") print "bad" bad
		else printf "ok %d entries and exits, %d open syscalls, durations %d..%d ns\n", ne, ns, min, max
	}' "$out")
	case $res in
	ok*) ok "$1.dat ($2): trace-cmd prints the kfunc events: ${res#ok }; each call inside its open syscall with its return value" ;;
	*) fail "$1.dat ($2): ${res#bad }" ;;
	esac
	local attach info
	info=$("$FLYTRAP" info "$f" 2>/dev/null)
	attach=$(echo "$info" | sed -n 's/.*bpf_kfunc_attach=\([a-z]*\).*/\1/p' | head -n 1)
	[ "$attach" = "$2" ] && ok "$1.dat: metadata bpf_kfunc_attach=$attach" ||
		fail "$1.dat: bpf_kfunc_attach='$attach', expected $2"
	# the function table, in the layout of the bpf_ufunc= lines (N BINARY NAME 0xADDR)
	echo "$info" | grep -q 'bpf_kfunc=0 \[kernel.kallsyms\] do_sys_openat2 0xffff' ||
		fail "$1.dat: no 'bpf_kfunc=0 [kernel.kallsyms] do_sys_openat2 0x...' line: $(echo "$info" | grep -m1 'bpf_kfunc=')"
}

grep -q '^ok: bpf: kfunc-fentry' "$G/results.txt" && kf_host kfunc-fentry fentry
grep -q '^ok: bpf: kfunc-kprobe' "$G/results.txt" && kf_host kfunc-kprobe kprobe
# FLYTRAP_LAB_BENCH=1: "bench ROUND MODE calls N cpu_ns X per_call_ns Y"
# lines; per round the cost of a hook is its run minus the untraced run
if [ -f "$G/bench.txt" ]; then
	echo "BPF kfunc per-call cost in the lab (open+close of one file; qemu -icount: guest ns = instructions, compare only):"
	awk '{ v[$2, $3] = $9; r[$2] = 1 }
	function median(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (k in r) {
			n++; base[n] = v[k, "none"]; fe[n] = v[k, "fentry"]; kp[n] = v[k, "kprobe"]
			dfe[n] = fe[n] - base[n]; dkp[n] = kp[n] - base[n]; ratio[n] = (kp[n] - base[n]) / (fe[n] - base[n] > 0 ? fe[n] - base[n] : 1)
		}
		printf "  rounds %d; median per call: untraced %d ns, fentry %d ns, kprobe %d ns\n", n, median(base, n), median(fe, n), median(kp, n)
		printf "  median added cost per call: fentry %d ns, kprobe %d ns; kprobe/fentry %.2f\n", median(dfe, n), median(dkp, n), median(ratio, n)
	}' "$G/bench.txt"
fi
