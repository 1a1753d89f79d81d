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
	# light (the sanitizer step): the first 6 of each fixture's 12 (the same bytes), as the
	# 12 full reads of every fixture under ASan take the longest of the whole step
	nk=12
	light && nk=6
	python3 - "$FIXTURES" "$TMP/mut" "$nk" <<'PY'
import os, random, sys
src, out, nk = sys.argv[1], sys.argv[2], int(sys.argv[3])
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
        if k < nk:
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
# state_mutants FILE DIR: copies of FILE (uncompressed, with state records) into DIR whose state
# section or its option FT_STATE is damaged: random bytes; each count, size, stamp and offset of
# the layout made one the reader must refuse or survive; and records the reader takes whose
# payloads the analyzers must survive (cut short, the last at the very end of the section, of
# another type, impossible pids, stamps out of their chunks); and one facts section with two
# entries for one CPU, refused the way the state section's is.  Prints how many it wrote.
state_mutants() {
	mkdir -p "$2"
	python3 - "$@" <<'PY'
import os, random, struct, sys
path, out = sys.argv[1:3]
d = open(path, 'rb').read()
# the section through its option (the last OPTIONS section holds it): u16 id, u32 size, u64
def find_opt(oid, sid):
    i = len(d)
    while True:
        i = d.rfind(struct.pack('<HI', oid, 8), 0, i)
        if i < 0:
            sys.exit('no option %#x' % oid)
        off = struct.unpack_from('<Q', d, i + 6)[0]
        if off + 16 <= len(d) and struct.unpack_from('<HH', d, off) == (sid, 0):
            return i + 6, off
opt, sec = find_opt(0x4626, 0x4685)
facts = find_opt(0x4625, 0x4684)[1]
size = struct.unpack_from('<Q', d, sec + 8)[0]
body = sec + 16
n = 0

def put(name, m):
    global n
    open(os.path.join(out, name if name.startswith('facts') else 'state-' + name), 'wb').write(
        bytes(m))
    n += 1

def patch(name, *fields):
    m = bytearray(d)
    for at, fmt, v in fields:
        struct.pack_into(fmt, m, at, v & (1 << 8 * struct.calcsize(fmt)) - 1)
    put(name, m)

# the layout: u32 version, u32 n; per CPU {u64 data offset, u32 cpu, u32 flags, u32 chunks, u32
# records}, chunks x {u32 pages, u32 records}, records x {u64 stamp, u32 size, u32 0, payload
# padded to 8}
ents = []
p = body + 8
for e in range(struct.unpack_from('<I', d, body + 4)[0]):
    doff, cpu, flags, nch, nrec = struct.unpack_from('<QIIII', d, p)
    ent = {'at': p, 'doff': doff, 'cpu': cpu, 'flags': flags, 'tab': p + 24, 'recs': []}
    ent['chunks'] = [list(struct.unpack_from('<II', d, p + 24 + 8 * k)) for k in range(nch)]
    p += 24 + 8 * nch
    for r in range(nrec):
        ts, sz = struct.unpack_from('<QI', d, p)
        ent['recs'].append({'at': p, 'ts': ts, 'data': bytearray(d[p + 16:p + 16 + sz])})
        p += 16 + (sz + 7) // 8 * 8
    ents.append(ent)
assert len(ents) >= 2 and p == body + size and all(len(e['recs']) > 2 for e in ents)
e0, e1 = ents[0], ents[1]
r0, r1, last = e0['recs'][0], e0['recs'][1], ents[-1]['recs'][-1]
rs0 = len(r0['data'])

# random bytes anywhere in the section, then in its first entry's header and chunk table
rng = random.Random(20261204)
for k in range(24):
    m = bytearray(d)
    lo, hi = (body, body + size) if k < 16 else (e0['at'], e0['tab'] + 8 * len(e0['chunks']))
    for _ in range(1 + k % 8):
        m[rng.randrange(lo, hi)] = rng.randrange(256)
    put('random-%02d' % k, m)

# each field of the layout
for name, v in (('version', 2), ('version0', 0)):
    patch(name, (body, '<I', v))
for name, v in (('n0', 0), ('n-more', len(ents) + 1), ('n-max', -1)):
    patch(name, (body + 4, '<I', v))
nch0, nrec0 = len(e0['chunks']), len(e0['recs'])
for name, v in (('chunks-more', nch0 + 1), ('chunks0', 0), ('chunks-max', -1),
                ('chunks-less', nch0 - 1)):
    patch(name, (e0['at'] + 16, '<I', v))
for name, v in (('recs-more', nrec0 + 1), ('recs-less', nrec0 - 1), ('recs-max', -1),
                ('recs0', 0)):
    patch(name, (e0['at'] + 20, '<I', v))
# an entry for another CPU's data (two entries for one CPU), for none, for the file's start
for name, v in (('doff-dup', e1['doff']), ('doff-none', 12345), ('doff0', 0)):
    patch(name, (e0['at'], '<Q', v))
patch('cpu-other', (e0['at'] + 8, '<I', 7))
# the same in the facts section, whose first entry starts like the state records' ones
assert struct.unpack_from('<Q', d, facts + 24)[0] == e0['doff']
patch('facts-doff-dup', (facts + 24, '<Q', e1['doff']))
tab = e0['tab']
n00, r00 = e0['chunks'][0]
n01, r01 = e0['chunks'][1]
patch('npages-max', (tab, '<I', -1))
patch('npages0', (tab, '<I', 0))
patch('npages-2', (tab, '<I', 2))
patch('nrec-more', (tab + 4, '<I', r00 + 1))
patch('nrec-max', (tab + 4, '<I', -1))
# a record moved from chunk 0 to chunk 1 (the sum stays), and a chunk claiming them all
patch('nrec-moved', (tab + 4, '<I', r00 - 1), (tab + 12, '<I', r01 + 1))
patch('nrec-all', *([(tab + 4, '<I', nrec0)] +
                    [(tab + 8 * k + 4, '<I', 0) for k in range(1, nch0)]))
for name, v in (('size0', 0), ('size7', 7), ('size-max', -1), ('size-max8', -8),
                ('size-more', rs0 + 8), ('size-page', 5000), ('size8', 8)):
    patch(name, (r0['at'] + 8, '<I', v))
patch('last-size-more', (last['at'] + 8, '<I', len(last['data']) + 8))
patch('last-size-max', (last['at'] + 8, '<I', -1))
patch('ts-back', (r1['at'], '<Q', 0))
patch('ts-max', (r0['at'], '<Q', -1))
patch('pad-nonzero', (r0['at'] + 12, '<I', -1))
for name, v in (('secsize0', 0), ('secsize7', 7), ('secsize-1', size - 1),
                ('secsize-half', size // 2), ('secsize-max', 1 << 63), ('secsize-more', size + 16)):
    patch(name, (sec + 8, '<Q', v))
patch('sec-compressed', (sec + 2, '<H', 1))
for name, v in (('opt0', 0), ('opt-eof', len(d)), ('opt-end', len(d) - 8), ('opt-odd', sec + 1),
                ('opt-facts', facts), ('opt-max', -1)):
    patch(name, (opt, '<Q', v))

# records the reader takes, whose payloads the analyzers get in place of the skipped chunks:
# the section written again in its own size, the bytes it no longer needs taken by records of
# no known type (stamp 0) at the start of the first chunk, so that the last record still ends
# the section's buffer (a read past it is ASan's)
def write(name, ents):
    es = [dict(e, chunks=[list(c) for c in e['chunks']], recs=list(e['recs'])) for e in ents]
    def body_of(es):
        b = bytearray(struct.pack('<II', 1, len(es)))
        for e in es:
            b += struct.pack('<QIIII', e['doff'], e['cpu'], e['flags'], len(e['chunks']),
                             len(e['recs']))
            for c in e['chunks']:
                b += struct.pack('<II', *c)
            for r in e['recs']:
                sz = len(r['data'])
                b += struct.pack('<QII', r['ts'], sz, 0) + r['data'] + bytes((8 - sz % 8) % 8)
        return b
    b = body_of(es)
    assert len(b) <= size, name
    left = size - len(b)
    while left >= 24:
        sz = min(4000, left - 16)
        if left - 16 - sz and left - 16 - sz < 24:
            sz = left - 16 - 24
        es[0]['recs'].insert(0, {'ts': 0, 'data': bytearray(b'\xff\xff' + bytes(sz - 2))})
        es[0]['chunks'][0][1] += 1
        left -= 16 + sz
    b = body_of(es)
    m = bytearray(d)
    m[body:body + len(b)] = b
    m[body + len(b):body + size] = bytes(size - len(b))
    put(name, m)

def each(fn):
    es = [dict(e, chunks=[list(c) for c in e['chunks']],
               recs=[dict(r, data=bytearray(r['data'])) for r in e['recs']]) for e in ents]
    for e in es:
        for i, r in enumerate(e['recs']):
            fn(e, i, r)
    return es

types = sorted({struct.unpack_from('<H', r['data'])[0] for e in ents for r in e['recs']})
def cut(e, i, r):
    del r['data'][8:]
write('short-all', each(cut))
es = each(lambda e, i, r: None)
cut(None, 0, es[-1]['recs'][-1])
write('short-last', es)
def cut12(e, i, r):
    del r['data'][12:]
write('short12-all', each(cut12))
def retype(e, i, r):
    struct.pack_into('<H', r['data'], 0, types[(types.index(struct.unpack_from('<H', r['data'])[0])
                                                 + 1) % len(types)])
write('retype', each(retype))
write('unknown-type', each(lambda e, i, r: struct.pack_into('<H', r['data'], 0, 0xffff)))
def pids(e, i, r):
    v = (-1, 0x7fffffff, -0x80000000, 0, 65535)[i % 5]
    for at in (4, 24, 56):
        if at + 4 <= len(r['data']):
            struct.pack_into('<i', r['data'], at, v)
write('pids', each(pids))
write('ts0', each(lambda e, i, r: r.update(ts=0)))
write('ts-max-all', each(lambda e, i, r: r.update(ts=(1 << 64) - 1)))
es = each(lambda e, i, r: None)
for e in es:
    e['chunks'] = [list(c) for c in reversed(e['chunks'])]
write('chunks-reversed', es)
es = each(lambda e, i, r: None)
for e in es:
    e['chunks'] = [[c[0], 0] for c in e['chunks']]
    e['chunks'][0][1] = len(e['recs'])
write('all-in-first', es)
es = each(lambda e, i, r: None)
for e in es:
    e['chunks'] = [[c[0], 0] for c in e['chunks']]
    e['chunks'][-1][1] = len(e['recs'])
write('all-in-last', es)
es = each(lambda e, i, r: None)
for e in es:
    e['chunks'] = [[0, 0] for c in e['chunks']]
    e['recs'] = []
write('none', es)
es = each(lambda e, i, r: None)
es[0]['cpu'], es[1]['cpu'] = es[1]['cpu'], es[0]['cpu']
es[0]['doff'], es[1]['doff'] = es[1]['doff'], es[0]['doff']
write('cpus-swapped', es)
print(n)
PY
}
# state_windows DIR [CMD...]: the analyzers that start a window from the state records
# (overhead, and analyze, which runs it; or the commands given, slice) on each state mutant: no
# crash, no sanitizer report (leaks included); and the mutants did reach them
# (FLYTRAP_WINDOW_READ=say: the window read skipped chunks)
state_windows() {
	local m cmd rc fed=0 n=0 dir=$1
	shift
	[ $# -gt 0 ] || set -- "overhead --from 100.003 --to 100.0031" \
		"analyze --from 100.002 --to 100.005" "overhead --json --cpu 1 --from 100.0055 --to 100.0056"
	for m in "$dir"/*; do
		n=$((n + 1))
		for cmd in "$@"; do
			# shellcheck disable=SC2086
			ASAN_OPTIONS=detect_leaks=1 FLYTRAP_WINDOW_READ=say timeout 60 "$TOP/$O/flytrap" \
				$cmd "$m" >/dev/null 2>"$TMP/sw.err"
			rc=$?
			if [ $rc -ge 124 ] || grep -q "Sanitizer\|runtime error" "$TMP/sw.err"; then
				fail "$cmd $(basename "$m"): exit $rc, $(grep -m1 "ERROR\|runtime error\|^flytrap" \
					"$TMP/sw.err")"
			fi
			grep -q "chunks skipped" "$TMP/sw.err" && fed=$((fed + 1))
		done
	done
	[ $fed -ge 30 ] && ok "$fed windows of $n state mutants started from their state records" ||
		fail "only $fed windows of $n state mutants started from their state records"
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
		# and its state records (FMT_SEC_FT_STATE): formats and all are sane there, so a leak
		# is the reader's, and counts (unlike in the inputs above, where libtraceevent leaks)
		if state_mutants "$TMP/nm-none.dat" "$TMP/smut" >/dev/null; then
			if ! ASAN_OPTIONS=detect_leaks=1 timeout 600 "$drv" "$TMP/smut" >/dev/null 2>&1; then
				# which inputs: a leak is only reported at exit
				for m in "$TMP"/smut/*; do
					ASAN_OPTIONS=detect_leaks=1 timeout 60 "$drv" "$m" >"$TMP/smut.log" 2>&1 ||
						fail "mutant ${m##*/} (exit $?):" \
							"$(grep -m1 "ERROR\|runtime error" "$TMP/smut.log")"
				done
			fi
			state_windows "$TMP/smut"
		else
			fail "cannot build the state mutants"
		fi
	fi
	# slice takes names and each CPU's last switch from the state records of the chunks before
	# its cut: the state section of a file without call records (slice reads from the start
	# when there are some), damaged
	if MKRPT_NO_CALLS=1 "$mk" names "$TMP/nc.dat" 20000 >/dev/null &&
		"$TOP/$O/flytrap" convert -c none --chunk 1 "$TMP/nc.dat" -o "$TMP/nc-none.dat" 2>/dev/null &&
		state_mutants "$TMP/nc-none.dat" "$TMP/ncmut" >/dev/null; then
		state_windows "$TMP/ncmut" "slice --from 100.003 --to 100.0031 -o $TMP/sl.dat" \
			"slice --json --from 100.0055 --to 100.0056 -o $TMP/sl.dat" \
			"slice --cpu 1 --from 100.005 --to 100.006 -o $TMP/sl.dat"
	else
		fail "cannot build the state mutants of a file without call records"
	fi
fi
finish
