#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Replay the reader's fuzz corpus (tests/fuzz/corpus: inputs that once
# crashed or found new paths) plus deterministic mutants of the fixtures
# through the fuzz target.  Run under SAN=1 in CI, where any memory error
# aborts.  A crash or hang fails the test; error returns are fine.
. "$TOP/tests/lib.sh"
drv=$TOP/$O/fuzz_reader_replay
[ -x "$drv" ] || skip "$drv is not built"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

timeout 600 "$drv" "$TOP/tests/fuzz/corpus" || fail "corpus replay failed (exit $?)"

# mutants: truncations and byte flips of every fixture, seeded so a
# failure reproduces (the seed and file are printed)
if [ -d "$FIXTURES" ]; then
	python3 - "$FIXTURES" "$TMP/mut" <<'PY'
import os, random, sys
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = random.Random(20261129)
for name in sorted(os.listdir(src)):
    if not name.endswith('.dat'):
        continue
    d = open(os.path.join(src, name), 'rb').read()
    for k in range(12):
        m = bytearray(d)
        kind = k % 3
        if kind == 0:      # truncate
            m = m[:rng.randrange(1, len(m))]
        elif kind == 1:    # flip bytes in the first 64 KiB (headers, metadata)
            for _ in range(rng.randrange(1, 20)):
                m[rng.randrange(0, min(len(m), 65536))] ^= 1 << rng.randrange(8)
        else:              # flip bytes anywhere (pages, chunks)
            for _ in range(rng.randrange(1, 50)):
                m[rng.randrange(0, len(m))] = rng.randrange(256)
        open(os.path.join(out, '%s.%02d' % (name, k)), 'wb').write(m)
PY
	timeout 900 "$drv" "$TMP/mut" || fail "mutant replay failed (exit $?)"
fi

# section_mutants FILE ID DIR NAME N SEED MOD: N copies of FILE into DIR, mutant k with 1 + k % MOD
# random bytes inside its section ID (an uncompressed file: the section is plain bytes there)
section_mutants() {
	mkdir -p "$3"
	python3 - "$@" <<'PY'
import os, random, struct, sys
path, sec, out, name, n, seed, mod = sys.argv[1:8]
d = open(path, 'rb').read()
at = d.find(struct.pack('<HH', int(sec, 0), 0))
assert at > 0
size = struct.unpack_from('<Q', d, at + 8)[0]
rng = random.Random(int(seed))
for k in range(int(n)):
    m = bytearray(d)
    for _ in range(1 + k % int(mod)):
        m[rng.randrange(at + 16, at + 16 + size)] = rng.randrange(256)
    open(os.path.join(out, '%s.%02d' % (name, k)), 'wb').write(m)
PY
}
# the stored time index, damaged
mk=$TOP/$O/tests/tools/mkrpt
if [ -x "$mk" ] && "$mk" bench "$TMP/tix.dat" 3000 >/dev/null &&
	"$TOP/$O/flytrap" convert -c none "$TMP/tix.dat" -o "$TMP/tix-none.dat" 2>/dev/null; then
	section_mutants "$TMP/tix-none.dat" 0x4683 "$TMP/tmut" tix 16 20261202 16 ||
		fail "cannot find the time index section"
	timeout 600 "$drv" "$TMP/tmut" || fail "time index mutant replay failed (exit $?)"
	# and its facts section (FMT_SEC_FT_FACTS), of a file whose names change
	if "$mk" names "$TMP/nm.dat" 20000 >/dev/null &&
		"$TOP/$O/flytrap" convert -c none --chunk 1 "$TMP/nm.dat" -o "$TMP/nm-none.dat" 2>/dev/null; then
		section_mutants "$TMP/nm-none.dat" 0x4684 "$TMP/fmut" facts 24 20261203 8 ||
			fail "cannot find the facts section"
		timeout 600 "$drv" "$TMP/fmut" || fail "facts mutant replay failed (exit $?)"
	fi
fi
finish
