// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF half of the recorder: load the programs of bpf/ from the
 * skeletons built into this binary, drain their shared ring buffer, and
 * turn each record into an ftrace-style event (system "flytrap") in the
 * ring-buffer pages of the BUFFER instance "flytrap-bpf".
 *
 * Ordering: the ring buffer hands out records in commit order.  On one CPU
 * that is almost, but not exactly, timestamp order: a program takes its
 * timestamp, then may be interrupted (profile's perf_event) or, since
 * syscall tracepoints are preemptible, preempted by another task whose
 * record commits first.  So records wait per CPU in a queue until they
 * are older than the reorder window, and are sorted before encoding.  A
 * record that arrives after its window has closed is encoded with the
 * last timestamp written on that CPU and counted ("late") in the META
 * option: never dropped, never silently reordered.
 */
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "format.h"
#include "ftmeta.h"
#include "record/bpf.h"
#include "record/bpf_int.h"

#include "bpf/common.h"
#include "bpf/syscalls.h"
#include "bpf/offcpu.h"
#include "bpf/profile.h"
#include "bpf/ufunc.h"
#include "bpf/exitmaps.h"
#include "bpf/kfunc.h"

#include "syscalls.skel.h"
#include "offcpu.skel.h"
#include "profile.skel.h"
#include "ufunc.skel.h"
#include "follow.skel.h"
#include "exitmaps.skel.h"
#include "kfunc.skel.h"

#include "flytrap.h"

#define DEF_RINGBUF (8u << 20)

/* META bpf_user_stack=: the order of the registers the programs keep (bpf/common.h) */
#if defined(__x86_64__)
#define USTACK_REGS "x86_64:ip,sp,bp"
#elif defined(__aarch64__)
#define USTACK_REGS "arm64:pc,sp,lr,fp"
#else
#define USTACK_REGS "none"
#endif
#define DEF_DROP_NS 100000000ull
#define DEF_REORDER_NS 20000000ull
#define DEF_HZ 99
#define MAX_UFUNCS 1024
#define COMMON_LEN 8

static const char *const slot_names[FT_SLOT_NR] = {
	"syscalls", "offcpu", "profile", "ufunc", "follow", "exitmaps", "kfunc",
};
static const char *const kind_names[FT_K_MAX] = {
	[FT_K_SYSCALL] = "syscall", [FT_K_SYSHIST] = "syscall_hist", [FT_K_OFFCPU] = "offcpu",
	[FT_K_PROFILE] = "profile", [FT_K_UENTRY] = "ufunc_entry", [FT_K_UEXIT] = "ufunc_exit",
	[FT_K_KENTRY] = "kfunc_entry", [FT_K_KEXIT] = "kfunc_exit", [FT_K_UCOPY] = "ucopy_more",
};

struct ufunc_target {
	char *binary;
	char *glob;
};

struct ufunc_fn {
	int target;
	char *name;
	uint64_t addr, offset;
};

/* A kernel function of --bpf kfunc=, as /proc/kallsyms names it. */
struct kfunc_fn {
	char *name;
	uint64_t addr;
	char where[64];		/* "kernel.kallsyms" or the module, as perf names them */
};

/*
 * Links of the kfunc programs, kept apart from b->links for their order:
 * returns are hooked before entries and unhooked after them, so that no
 * entry is recorded whose return the programs would miss (a dangling entry
 * would shift the depth of every later call of that thread).
 */
struct kf_links {
	struct bpf_link *entry[FT_KFUNC_MAX], *exit[FT_KFUNC_MAX], *task_exit;
};

struct pend {
	uint64_t ts, seq;
	uint32_t len;
	uint8_t *data;
};

struct cpu_q {
	struct fmt_page_enc pe;
	bool pe_ok;
	struct pend *v;
	size_t n, cap;
	uint64_t last_ts;
	int64_t missed;		/* losses to flag on this CPU's next page */
};

struct spec {
	bool want[FT_SLOT_NR];
	bool agg;
	bool have_hz, have_min;
	bool symbols;
	unsigned hz;
	uint64_t min_ns;
	uint32_t ringbuf;	/* 0 = not given */
	struct ufunc_target *uf;
	int nuf;
	char **kf;		/* kfunc= names or globs, as given */
	int nkf;
};

struct rec_bpf {
	struct rec_bpf_opts o;
	struct spec sp;
	int ncpus;
	uint32_t page_size;
	int kernel_long;

	int rb_fd, stats_fd, pids_fd, seen_fd;
	uint32_t rb_bytes;
	struct ring_buffer *rb;
	struct flytrap_syscalls *sk_sys;
	struct flytrap_offcpu *sk_off;
	struct flytrap_profile *sk_prof;
	struct flytrap_ufunc *sk_uf;
	struct flytrap_follow *sk_follow;
	struct flytrap_exitmaps *sk_exit;
	struct flytrap_kfunc *sk_kf;
	char exitmaps_state[160];	/* META bpf_exitmaps= */
	char execmaps_state[96];	/* META bpf_exec_images= */
	struct kfunc_fn kfns[FT_KFUNC_MAX];
	int nkfns;
	int kf_mode;			/* enum ft_kfunc_mode */
	char kf_fentry_err[200];	/* why fentry was not used ("" = it was) */
	struct kf_links kf_links;
	pid_t *pids;		/* copy of opts->pids */
	struct bpf_link **links;
	int nlinks, links_cap;

	struct ufunc_fn *fns;
	int nfns;

	uint8_t trig_nrs[FT_TRIG_NRS / 8];	/* copy of opts->trig_nrs */
	uint16_t ids[FT_K_MAX];
	struct fmt_wbuf *wb;
	struct cpu_q *cpus;
	uint64_t seq;
	int cb_err;
	bool finished;

	uint64_t next_sample;
	uint64_t poll_now;	/* mono time of the current drain (one clock read per drain) */
	uint64_t *prev;		/* [FT_SLOT_NR * FT_ST_NR][ncpus] last counter values */
	uint64_t *vals;		/* ncpus scratch */
	struct fmt_bpf_drop *drops;
	size_t ndrops, drops_cap;
	uint64_t tot[FT_SLOT_NR][FT_ST_NR];

	struct rec_syms *syms;
	struct rec_bpf_stats st;
	uint32_t ucopy_len;	/* --user-stack: stack copy bytes (0: fp, no registers either) */
	uint32_t pucopy_len;	/* the same for profile samples (bpf.h: its own default) */
	uint64_t ucopy_bytes;	/* stack copy bytes received */
	/* --bpf-object (record/bpfobj.c): its hooks, event IDs and loss slots */
	struct rec_bpf_ext ext;
	void *ext_ctx;
	int ext_next_id;
	char **ext_slots;
	int n_ext_slots;
	char err[512];
};

static int set_err(struct rec_bpf *b, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int set_err(struct rec_bpf *b, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, sizeof(b->err), fmt, ap);
	va_end(ap);
	return ret;
}

static uint64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- spec --------------------------------------------------------------- */

static int parse_dur(const char *s, uint64_t *out)
{
	static const struct { const char *suf; uint64_t mul; } u[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "", 1000000000 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (!strcmp(end, u[i].suf)) {
			if (v * u[i].mul > 1e18)
				return -EINVAL;
			*out = (uint64_t)(v * u[i].mul + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

static void spec_release(struct spec *sp)
{
	int i;

	for (i = 0; i < sp->nuf; i++) {
		free(sp->uf[i].binary);
		free(sp->uf[i].glob);
	}
	free(sp->uf);
	for (i = 0; i < sp->nkf; i++)
		free(sp->kf[i]);
	free(sp->kf);
	memset(sp, 0, sizeof(*sp));
}

/* kfunc=FUNC[+FUNC...]: names or fnmatch globs of kernel functions. */
static int spec_add_kfuncs(struct spec *sp, const char *val, char *err, size_t errlen)
{
	const char *p = val;

	if (!val || !*val) {
		snprintf(err, errlen, "kfunc needs kernel function names (e.g. kfunc=do_sys_openat2+vfs_read)");
		return -EINVAL;
	}
	while (*p) {
		size_t n = strcspn(p, "+"), i;
		char **v;

		if (!n) {
			snprintf(err, errlen, "kfunc=%s: empty function name", val);
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.*?[]!-",
				    p[i])) {
				snprintf(err, errlen, "kfunc: '%.*s' is not a kernel function name", (int)n, p);
				return -EINVAL;
			}
		}
		if (sp->nkf == FT_KFUNC_MAX) {
			snprintf(err, errlen, "kfunc: at most %d kernel functions", FT_KFUNC_MAX);
			return -E2BIG;
		}
		v = realloc(sp->kf, (sp->nkf + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sp->kf = v;
		v[sp->nkf] = strndup(p, n);
		if (!v[sp->nkf])
			return -ENOMEM;
		sp->nkf++;
		p += n;
		if (*p == '+' && !*++p) {
			snprintf(err, errlen, "kfunc=%s: empty function name", val);
			return -EINVAL;
		}
	}
	return 0;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/*
 * Names a glob may match: not the compiler's partial copies (foo.cold,
 * foo.isra.0), nor the padding and CFI symbols in front of functions.
 */
static bool globbable(const char *name)
{
	return !strchr(name, '.') && strncmp(name, "__pfx_", 6) && strncmp(name, "__cfi_", 6);
}

/*
 * Find the kfunc= names and globs in /proc/kallsyms (text symbols, kernel
 * and modules).  Fills out[] (names malloc'd) with at most FT_KFUNC_MAX
 * functions, the first address of each name; dups[i] counts further
 * symbols of that name (static functions of one name in several files).
 * Returns the count, -EIO with *no_kallsyms set when the file cannot be
 * read, or -ENOENT / -E2BIG with err set.
 */
static int kfunc_resolve(const struct spec *sp, struct kfunc_fn *out, int *dups, bool *no_kallsyms,
			 char *err, size_t errlen)
{
	bool matched[FT_KFUNC_MAX] = { false };
	char *line = NULL;
	size_t cap = 0;
	int n = 0, total = 0, i, ret = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	*no_kallsyms = false;
	if (!f) {
		*no_kallsyms = true;
		snprintf(err, errlen, "cannot read /proc/kallsyms: %s", strerror(errno));
		return -EIO;
	}
	while (getline(&line, &cap, f) > 0) {
		unsigned long long addr;
		char type, *name, *end, *mod;
		bool want = false;
		int k;

		addr = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		if (!strchr("tTwW", type))
			continue;
		name = end + 3;
		end = name + strcspn(name, " \t\n");
		mod = *end ? strchr(end + 1, '[') : NULL;
		*end = 0;
		/* JIT-ed BPF programs and ftrace trampolines: not functions to hook */
		if (mod && (!strncmp(mod, "[bpf]", 5) || !strncmp(mod, "[__builtin__", 12)))
			continue;
		for (i = 0; i < sp->nkf; i++) {
			if (is_glob(sp->kf[i]) ? globbable(name) && !fnmatch(sp->kf[i], name, 0)
					       : !strcmp(sp->kf[i], name)) {
				matched[i] = want = true;
			}
		}
		if (!want)
			continue;
		for (k = 0; k < n && strcmp(out[k].name, name); k++)
			;
		if (k < n) {
			dups[k]++;
			continue;
		}
		total++;
		if (n == FT_KFUNC_MAX)
			continue;	/* counted for the message */
		out[n].name = strdup(name);
		if (!out[n].name) {
			ret = -ENOMEM;
			break;
		}
		out[n].addr = addr;
		if (mod && strchr(mod, ']'))
			snprintf(out[n].where, sizeof(out[n].where), "%.*s", (int)(strchr(mod, ']') - mod - 1),
				 mod + 1);
		else
			snprintf(out[n].where, sizeof(out[n].where), "kernel.kallsyms");
		dups[n] = 0;
		n++;
	}
	free(line);
	fclose(f);
	for (i = 0; !ret && i < sp->nkf; i++) {
		if (matched[i])
			continue;
		if (is_glob(sp->kf[i]))
			snprintf(err, errlen, "kfunc: no kernel function matches '%s'", sp->kf[i]);
		else
			snprintf(err, errlen, "kfunc: no kernel function '%s' (not in /proc/kallsyms)",
				 sp->kf[i]);
		ret = -ENOENT;
	}
	if (!ret && total > FT_KFUNC_MAX) {
		snprintf(err, errlen, "kfunc: %d kernel functions match, at most %d can be traced; narrow the names",
			 total, FT_KFUNC_MAX);
		ret = -E2BIG;
	}
	if (ret) {
		for (i = 0; i < n; i++)
			free(out[i].name);
		return ret;
	}
	return n;
}

static int spec_parse(const char *spec, struct spec *sp, char *err, size_t errlen)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	memset(sp, 0, sizeof(*sp));
	if (!spec || !*spec) {
		snprintf(err, errlen, "empty list");
		return -EINVAL;
	}
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');

		if (val)
			*val++ = 0;
		if (!strcmp(tok, "syscalls")) {
			sp->want[FT_SLOT_SYSCALLS] = true;
			if (val && strcmp(val, "agg")) {
				snprintf(err, errlen, "syscalls=%s: only 'agg' is known", val);
				ret = -EINVAL;
				break;
			}
			sp->agg |= val != NULL;
		} else if (!strcmp(tok, "offcpu")) {
			sp->want[FT_SLOT_OFFCPU] = true;
			if (val) {
				if (parse_dur(val, &sp->min_ns)) {
					snprintf(err, errlen, "offcpu=%s: not a duration (e.g. 100us)", val);
					ret = -EINVAL;
					break;
				}
				sp->have_min = true;
			}
		} else if (!strcmp(tok, "profile")) {
			sp->want[FT_SLOT_PROFILE] = true;
			if (val) {
				char *end;
				unsigned long hz = strtoul(val, &end, 10);

				if (end == val || *end || hz < 1 || hz > 100000) {
					snprintf(err, errlen, "profile=%s: frequency must be 1..100000 Hz", val);
					ret = -EINVAL;
					break;
				}
				sp->hz = hz;
				sp->have_hz = true;
			}
		} else if (!strcmp(tok, "ringbuf")) {
			char *end;
			unsigned long long v = val ? strtoull(val, &end, 10) : 0;

			if (val && end != val) {
				if (*end == 'K' || *end == 'k')
					v <<= 10, end++;
				else if (*end == 'M' || *end == 'm')
					v <<= 20, end++;
			}
			if (!val || end == val || *end || v < 4096 || v > (1ull << 30)) {
				snprintf(err, errlen, "ringbuf=%s: size must be 4K..1024M (e.g. ringbuf=64M)",
					 val ? val : "");
				ret = -EINVAL;
				break;
			}
			sp->ringbuf = v;
		} else if (!strcmp(tok, "symbols") && !val) {
			sp->symbols = true;
		} else if (!strcmp(tok, "ufunc")) {
			char *colon = val ? strrchr(val, ':') : NULL;
			struct ufunc_target *n;

			if (!colon || colon == val || !colon[1]) {
				snprintf(err, errlen, "ufunc needs BINARY:GLOB (e.g. ufunc=/usr/bin/foo:do_*)");
				ret = -EINVAL;
				break;
			}
			*colon = 0;
			n = realloc(sp->uf, (sp->nuf + 1) * sizeof(*n));
			if (!n) {
				ret = -ENOMEM;
				break;
			}
			sp->uf = n;
			n[sp->nuf].binary = strdup(val);
			n[sp->nuf].glob = strdup(colon + 1);
			sp->nuf++;
			if (!n[sp->nuf - 1].binary || !n[sp->nuf - 1].glob) {
				ret = -ENOMEM;
				break;
			}
			sp->want[FT_SLOT_UFUNC] = true;
		} else if (!strcmp(tok, "kfunc")) {
			ret = spec_add_kfuncs(sp, val, err, errlen);
			if (ret)
				break;
			sp->want[FT_SLOT_KFUNC] = true;
		} else {
			snprintf(err, errlen, "unknown item '%s' (known: syscalls[=agg], offcpu[=DUR], profile[=HZ], ufunc=BINARY:GLOB, kfunc=FUNC[+FUNC...], ringbuf=SIZE, symbols)",
				 tok);
			ret = -EINVAL;
			break;
		}
	}
	free(copy);
	if (!ret && !sp->want[FT_SLOT_SYSCALLS] && !sp->want[FT_SLOT_OFFCPU] &&
	    !sp->want[FT_SLOT_PROFILE] && !sp->want[FT_SLOT_UFUNC] && !sp->want[FT_SLOT_KFUNC]) {
		snprintf(err, errlen, "empty list");
		ret = -EINVAL;
	}
	if (ret)
		spec_release(sp);
	return ret;
}

int rec_bpf_parse_user_stack(const char *arg, int *mode, uint32_t *bytes, char **err)
{
	static const char *const names[] = { [REC_USTACK_CFI] = "cfi", [REC_USTACK_FP] = "fp",
					     [REC_USTACK_DWARF] = "dwarf" };
	const char *colon = strchr(arg, ':');
	size_t nl = colon ? (size_t)(colon - arg) : strlen(arg);
	char msg[200];
	int m;

	for (m = 0; m < 3; m++)
		if (strlen(names[m]) == nl && !strncmp(arg, names[m], nl))
			break;
	if (m == 3) {
		snprintf(msg, sizeof(msg), "'%s': use fp, cfi or dwarf, with :BYTES for the last two", arg);
		goto bad;
	}
	*mode = m;
	*bytes = 0;	/* each program's default (bpf.h) */
	if (colon) {
		char *end;
		unsigned long v = strtoul(colon + 1, &end, 10);

		if (m == REC_USTACK_FP) {
			snprintf(msg, sizeof(msg), "'%s': fp copies no stack, so it takes no size", arg);
			goto bad;
		}
		if (end == colon + 1 || *end || v < 64 || v > FT_UCOPY_MAX || v % 8) {
			snprintf(msg, sizeof(msg), "'%s': BYTES must be a multiple of 8 from 64 to %d", arg,
				 FT_UCOPY_MAX);
			goto bad;
		}
		*bytes = (uint32_t)v;
	}
	return 0;
bad:
	if (err)
		*err = strdup(msg);
	return -EINVAL;
}

int rec_bpf_check_user_stack(const char *spec, uint32_t ringbuf_bytes, uint32_t bytes, char **err)
{
	char msg[300] = "";
	struct spec sp;
	uint64_t rb, rec;

	if (!spec || !bytes || spec_parse(spec, &sp, msg, sizeof(msg)))
		return 0;	/* the spec's own errors are rec_bpf_parse_spec's */
	if (!sp.want[FT_SLOT_PROFILE] && !sp.want[FT_SLOT_OFFCPU]) {
		spec_release(&sp);
		return 0;
	}
	rb = sp.ringbuf ? sp.ringbuf : ringbuf_bytes ? ringbuf_bytes : DEF_RINGBUF;
	rec = (sp.want[FT_SLOT_PROFILE] ? sizeof(struct ft_profile_rec) : sizeof(struct ft_offcpu_rec)) +
	      bytes + 8;
	spec_release(&sp);
	/* a ring that holds fewer than four records loses samples as soon as the reader lags */
	if (rec * 4 > rb) {
		snprintf(msg, sizeof(msg), "a stack copy of %u bytes makes %" PRIu64 "-byte records, "
			 "more than a quarter of the %" PRIu64 "-byte ring buffer (use --bpf ...,ringbuf=SIZE "
			 "or fewer bytes)", bytes, rec, rb);
		if (err)
			*err = strdup(msg);
		return -EINVAL;
	}
	return 0;
}

bool rec_bpf_wants_stacks(const char *spec)
{
	char msg[300];
	struct spec sp;
	bool yes;

	if (!spec || spec_parse(spec, &sp, msg, sizeof(msg)))
		return false;
	yes = sp.want[FT_SLOT_PROFILE] || sp.want[FT_SLOT_OFFCPU];
	spec_release(&sp);
	return yes;
}

int rec_bpf_parse_spec(const char *spec, char **err)
{
	char msg[512] = "";
	struct spec sp;
	int ret = spec_parse(spec, &sp, msg, sizeof(msg));

	/*
	 * A kernel function name that does not exist is a typo to report now,
	 * not after the recording started; where kallsyms cannot be read the
	 * open reports it.
	 */
	if (!ret && sp.nkf) {
		struct kfunc_fn fns[FT_KFUNC_MAX];
		int dups[FT_KFUNC_MAX], n, i;
		bool no_kallsyms;

		n = kfunc_resolve(&sp, fns, dups, &no_kallsyms, msg, sizeof(msg));
		if (n < 0 && !no_kallsyms)
			ret = n;
		for (i = 0; i < n; i++)
			free(fns[i].name);
	}
	if (ret) {
		if (err)
			*err = strdup(msg[0] ? msg : strerror(-ret));
		if (ret != -EINVAL && ret != -ENOMEM)
			ret = -EINVAL;	/* a bad list, whatever the detail */
	}
	spec_release(&sp);
	return ret;
}

/* ---- open / close --------------------------------------------------------- */

static int libbpf_debug(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

static int add_link(struct rec_bpf *b, struct bpf_link *l)
{
	if (b->nlinks == b->links_cap) {
		int n = b->links_cap ? b->links_cap * 2 : 16;
		struct bpf_link **v = realloc(b->links, n * sizeof(*v));

		if (!v) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		b->links = v;
		b->links_cap = n;
	}
	b->links[b->nlinks++] = l;
	return 0;
}

static void kf_detach(struct kf_links *l)
{
	int i;

	for (i = 0; i < FT_KFUNC_MAX; i++) {
		bpf_link__destroy(l->entry[i]);
		l->entry[i] = NULL;
	}
	for (i = 0; i < FT_KFUNC_MAX; i++) {
		bpf_link__destroy(l->exit[i]);
		l->exit[i] = NULL;
	}
	bpf_link__destroy(l->task_exit);
	l->task_exit = NULL;
}

static void detach_all(struct rec_bpf *b)
{
	int i;

	for (i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	b->nlinks = 0;
	/* the skeletons' own auto-attached links */
	if (b->sk_sys)
		flytrap_syscalls__detach(b->sk_sys);
	if (b->sk_off)
		flytrap_offcpu__detach(b->sk_off);
	if (b->sk_follow)
		flytrap_follow__detach(b->sk_follow);
	if (b->sk_exit)
		flytrap_exitmaps__detach(b->sk_exit);
	kf_detach(&b->kf_links);
}

static int max_event_id(const char *tracefs)
{
	char pat[512];
	glob_t g;
	size_t i;
	int max = -1;

	snprintf(pat, sizeof(pat), "%s/events/*/*/id", tracefs ? tracefs : "/sys/kernel/tracing");
	if (glob(pat, 0, NULL, &g))
		return -ENOENT;
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "re");
		int id;

		if (!f)
			continue;
		if (fscanf(f, "%d", &id) == 1 && id > max)
			max = id;
		fclose(f);
	}
	globfree(&g);
	return max < 0 ? -ENOENT : max;
}

/* Share the recorder-created maps with a skeleton before it is loaded. */
static int reuse_common(struct rec_bpf *b, struct bpf_map *ev, struct bpf_map *stats,
			struct bpf_map *pids, struct bpf_map *seen)
{
	int ret;

	ret = bpf_map__reuse_fd(ev, b->rb_fd);
	if (!ret)
		ret = bpf_map__reuse_fd(stats, b->stats_fd);
	if (!ret)
		ret = bpf_map__reuse_fd(pids, b->pids_fd);
	if (!ret)
		ret = bpf_map__reuse_fd(seen, b->seen_fd);
	return ret;
}

#define SET_COMMON_RODATA(sk)						\
	do {								\
		(sk)->rodata->ft_self_tgid = getpid();			\
		(sk)->rodata->ft_filter_pids = b->o.npids > 0;		\
		(sk)->rodata->ft_wakeup_bytes = b->rb_bytes / 16;	\
		(sk)->rodata->ft_urgent_bytes = b->rb_bytes / 2;	\
	} while (0)

static int open_syscalls(struct rec_bpf *b)
{
	struct flytrap_syscalls *sk = flytrap_syscalls__open();
	int ret;

	if (!sk)
		return set_err(b, -errno, "cannot open the syscalls BPF program: %s", strerror(errno));
	b->sk_sys = sk;
	SET_COMMON_RODATA(sk);
	sk->rodata->agg_mode = b->sp.agg;
	sk->rodata->trig_ns = b->o.trig_syscall_ns;
	if (b->o.trig_syscall_ns)
		memcpy((void *)sk->rodata->trig_nrs, b->trig_nrs, sizeof(sk->rodata->trig_nrs));
	ret = reuse_common(b, sk->maps.ft_events, sk->maps.ft_stats, sk->maps.ft_pids,
			   sk->maps.ft_seen);
	if (!ret)
		ret = flytrap_syscalls__load(sk);
	if (ret)
		return set_err(b, ret, "cannot load the syscalls BPF program: %s", strerror(-ret));
	ret = flytrap_syscalls__attach(sk);
	if (ret)
		return set_err(b, ret, "cannot attach the syscalls BPF program to raw_syscalls: %s",
			       strerror(-ret));
	return 0;
}

static int open_offcpu(struct rec_bpf *b)
{
	struct flytrap_offcpu *sk = flytrap_offcpu__open();
	int ret;

	if (!sk)
		return set_err(b, -errno, "cannot open the offcpu BPF program: %s", strerror(errno));
	b->sk_off = sk;
	SET_COMMON_RODATA(sk);
	sk->rodata->min_ns = b->sp.min_ns;
	sk->rodata->trig_ns = b->o.trig_offcpu_ns;
	sk->rodata->ft_ucopy_len = b->ucopy_len;
	ret = bpf_map__set_value_size(sk->maps.ucopies, sizeof(struct ft_ucopy) + b->ucopy_len +
				      FT_UCOPY_SLACK);
	if (!ret)
		ret = bpf_map__set_value_size(sk->maps.uscratch, sizeof(struct ft_ucopy) + b->ucopy_len +
					      FT_UCOPY_SLACK);
	if (!ret)
		ret = reuse_common(b, sk->maps.ft_events, sk->maps.ft_stats, sk->maps.ft_pids,
				   sk->maps.ft_seen);
	if (!ret)
		ret = flytrap_offcpu__load(sk);
	if (ret)
		return set_err(b, ret, "cannot load the offcpu BPF program: %s", strerror(-ret));
	ret = flytrap_offcpu__attach(sk);
	if (ret)
		return set_err(b, ret, "cannot attach the offcpu BPF program to sched_switch/sched_wakeup: %s",
			       strerror(-ret));
	return 0;
}

static int open_profile(struct rec_bpf *b)
{
	struct flytrap_profile *sk = flytrap_profile__open();
	int ret, cpu, attached = 0;

	if (!sk)
		return set_err(b, -errno, "cannot open the profile BPF program: %s", strerror(errno));
	b->sk_prof = sk;
	SET_COMMON_RODATA(sk);
	sk->rodata->ft_ucopy_len = b->pucopy_len;
	ret = bpf_map__set_value_size(sk->maps.scratch, sizeof(struct ft_profile_rec) + b->pucopy_len +
				      FT_UCOPY_SLACK);
	if (!ret)
		ret = reuse_common(b, sk->maps.ft_events, sk->maps.ft_stats, sk->maps.ft_pids,
				   sk->maps.ft_seen);
	if (!ret)
		ret = flytrap_profile__load(sk);
	if (ret)
		return set_err(b, ret, "cannot load the profile BPF program: %s", strerror(-ret));
	for (cpu = 0; cpu < b->ncpus; cpu++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.size = sizeof(attr),
			.freq = 1,
			.sample_freq = b->sp.hz,
		};
		struct bpf_link *l;
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV)
				continue;	/* possible but offline CPU */
			return set_err(b, -errno, "cannot open the cpu-clock perf event on CPU %d: %s",
				       cpu, strerror(errno));
		}
		l = bpf_program__attach_perf_event(sk->progs.ft_profile, fd);
		if (!l) {
			ret = -errno;
			close(fd);
			return set_err(b, ret, "cannot attach the profile BPF program on CPU %d: %s", cpu,
				       strerror(-ret));
		}
		/* the link owns fd from here: destroying it closes the perf event */
		ret = add_link(b, l);
		if (ret)
			return set_err(b, ret, "out of memory");
		attached++;
	}
	if (!attached)
		return set_err(b, -ENODEV, "no online CPU to profile");
	return 0;
}

/*
 * A ufunc binary given without a '/' is looked up like a command (PATH) or,
 * for a library name, in the usual library directories; the uprobes and
 * the function table then use the absolute path.
 */
static char *resolve_binary(const char *name)
{
	static const char *const libdirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	const char *path = getenv("PATH");
	char buf[4096], *dirs, *d, *save = NULL;
	size_t i;

	if (strchr(name, '/'))
		return strdup(name);
	if (strstr(name, ".so")) {
		for (i = 0; i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
			snprintf(buf, sizeof(buf), "%s/%s", libdirs[i], name);
			if (!access(buf, R_OK))
				return strdup(buf);
		}
	}
	dirs = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
	if (!dirs)
		return NULL;
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", d, name);
		if (!access(buf, X_OK)) {
			free(dirs);
			return strdup(buf);
		}
	}
	free(dirs);
	return strdup(name);	/* let the open report it */
}

static int open_ufunc(struct rec_bpf *b)
{
	struct flytrap_ufunc *sk;
	int t, i, ret;

	for (t = 0; t < b->sp.nuf; t++) {
		struct rec_ufunc_sym *v = NULL;
		char msg[512], *abs = resolve_binary(b->sp.uf[t].binary);
		struct ufunc_fn *f;
		int n;

		if (!abs)
			return set_err(b, -ENOMEM, "out of memory");
		free(b->sp.uf[t].binary);
		b->sp.uf[t].binary = abs;
		n = rec_ufunc_match(abs, b->sp.uf[t].glob, &v, msg, sizeof(msg));
		if (n < 0)
			return set_err(b, n, "--bpf ufunc: %s", msg);
		if (n == 0)
			return set_err(b, -ENOENT, "--bpf ufunc: no function of '%s' matches '%s'",
				       b->sp.uf[t].binary, b->sp.uf[t].glob);
		if (b->nfns + n > MAX_UFUNCS) {
			rec_ufunc_syms_free(v, n);
			return set_err(b, -E2BIG, "--bpf ufunc: more than %d functions match; narrow the glob",
				       MAX_UFUNCS);
		}
		f = realloc(b->fns, (b->nfns + n) * sizeof(*f));
		if (!f) {
			rec_ufunc_syms_free(v, n);
			return set_err(b, -ENOMEM, "out of memory");
		}
		b->fns = f;
		for (i = 0; i < n; i++) {
			f[b->nfns].target = t;
			f[b->nfns].name = v[i].name;
			v[i].name = NULL;
			f[b->nfns].addr = v[i].addr;
			f[b->nfns].offset = v[i].offset;
			b->nfns++;
		}
		rec_ufunc_syms_free(v, n);
		rec_syms_note_binary(b->syms, b->sp.uf[t].binary);
	}

	sk = flytrap_ufunc__open();
	if (!sk)
		return set_err(b, -errno, "cannot open the ufunc BPF program: %s", strerror(errno));
	b->sk_uf = sk;
	SET_COMMON_RODATA(sk);
	ret = reuse_common(b, sk->maps.ft_events, sk->maps.ft_stats, sk->maps.ft_pids,
			   sk->maps.ft_seen);
	if (!ret)
		ret = flytrap_ufunc__load(sk);
	if (ret)
		return set_err(b, ret, "cannot load the ufunc BPF program: %s", strerror(-ret));
	{
		struct bpf_link *l = bpf_program__attach(sk->progs.ft_ufunc_task_exit);

		if (!l)
			return set_err(b, -errno, "cannot attach the ufunc exit clean-up: %s", strerror(errno));
		ret = add_link(b, l);
		if (ret)
			return set_err(b, ret, "out of memory");
	}
	for (i = 0; i < b->nfns; i++) {
		int r;

		for (r = 0; r < 2; r++) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = r, .bpf_cookie = i);
			struct bpf_link *l;

			l = bpf_program__attach_uprobe_opts(r ? sk->progs.ft_uexit : sk->progs.ft_uentry,
							    -1, b->sp.uf[b->fns[i].target].binary,
							    b->fns[i].offset, &uo);
			if (!l) {
				ret = -errno;
				return set_err(b, ret, "cannot attach a %s to %s in '%s': %s",
					       r ? "uretprobe" : "uprobe", b->fns[i].name,
					       b->sp.uf[b->fns[i].target].binary, strerror(-ret));
			}
			ret = add_link(b, l);
			if (ret)
				return set_err(b, ret, "out of memory");
		}
	}
	return 0;
}

static int open_follow(struct rec_bpf *b)
{
	struct flytrap_follow *sk = flytrap_follow__open();
	int ret;

	if (!sk)
		return set_err(b, -errno, "cannot open the fork-following BPF program: %s", strerror(errno));
	b->sk_follow = sk;
	SET_COMMON_RODATA(sk);
	ret = reuse_common(b, sk->maps.ft_events, sk->maps.ft_stats, sk->maps.ft_pids,
			   sk->maps.ft_seen);
	if (!ret)
		ret = flytrap_follow__load(sk);
	if (!ret)
		ret = flytrap_follow__attach(sk);
	if (ret)
		return set_err(b, ret, "cannot attach the fork-following BPF program: %s", strerror(-ret));
	return 0;
}

/*
 * Optional: on kernels without the VMA iterator kfuncs (before 6.7) it
 * does not load, and processes are only captured through /proc.
 */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static void open_exitmaps(struct rec_bpf *b)
{
	/* optional: its load failure on an older kernel is not worth libbpf's warnings */
	libbpf_print_fn_t old = b->o.verbose > 1 ? NULL : libbpf_set_print(libbpf_quiet);
	struct flytrap_exitmaps *sk = flytrap_exitmaps__open();
	int ret;

	if (!sk) {
		snprintf(b->exitmaps_state, sizeof(b->exitmaps_state), "unavailable: %s", strerror(errno));
		snprintf(b->execmaps_state, sizeof(b->execmaps_state), "unavailable: %s", strerror(errno));
		goto out;
	}
	b->sk_exit = sk;
	SET_COMMON_RODATA(sk);
	/* the images before an exec need sched_prepare_exec (Linux 6.10+); the exits do not */
	if (libbpf_find_vmlinux_btf_id("sched_prepare_exec", BPF_TRACE_RAW_TP) < 0) {
		bpf_program__set_autoload(sk->progs.ft_exec_maps, false);
		snprintf(b->execmaps_state, sizeof(b->execmaps_state),
			 "unavailable: no sched_prepare_exec tracepoint (Linux 6.10+)");
	} else {
		snprintf(b->execmaps_state, sizeof(b->execmaps_state), "on");
	}
	ret = reuse_common(b, sk->maps.ft_events, sk->maps.ft_stats, sk->maps.ft_pids,
			   sk->maps.ft_seen);
	if (!ret)
		ret = flytrap_exitmaps__load(sk);
	if (!ret)
		ret = flytrap_exitmaps__attach(sk);
	if (ret) {
		snprintf(b->exitmaps_state, sizeof(b->exitmaps_state), "unavailable: %s", strerror(-ret));
		snprintf(b->execmaps_state, sizeof(b->execmaps_state), "unavailable: %s", strerror(-ret));
		flytrap_exitmaps__destroy(sk);
		b->sk_exit = NULL;
		goto out;
	}
	snprintf(b->exitmaps_state, sizeof(b->exitmaps_state), "on");
out:
	if (b->o.verbose <= 1)
		libbpf_set_print(old);
}

/* ---- kfunc: fentry/fexit, else kprobes ---------------------------------------- */

static struct bpf_program *kf_prog(struct flytrap_kfunc *sk, const char *what, int i)
{
	char name[32];

	snprintf(name, sizeof(name), "ft_%s%d", what, i);
	return bpf_object__find_program_by_name(sk->obj, name);
}

/*
 * Open and load the kfunc object for one attach mode: the fentry/fexit
 * pairs of the used slots, or the kprobe/kretprobe pair.  On failure *why
 * says what the kernel (or libbpf) refused.
 */
static struct flytrap_kfunc *kf_load(struct rec_bpf *b, int mode, char *why, size_t len)
{
	struct flytrap_kfunc *sk = flytrap_kfunc__open();
	int i, ret = 0;

	if (!sk) {
		snprintf(why, len, "open: %s", strerror(errno));
		return NULL;
	}
	SET_COMMON_RODATA(sk);
	for (i = 0; i < FT_KFUNC_MAX; i++) {
		struct bpf_program *en = kf_prog(sk, "kentry", i), *ex = kf_prog(sk, "kexit", i);
		bool use = mode == FT_KFUNC_FENTRY && i < b->nkfns;

		if (!en || !ex) {
			ret = -ENOENT;
			break;
		}
		if (i < b->nkfns)
			sk->rodata->ft_kfunc_ip[i] = b->kfns[i].addr;
		bpf_program__set_autoload(en, use);
		bpf_program__set_autoload(ex, use);
		if (use && !ret)
			ret = bpf_program__set_attach_target(en, 0, b->kfns[i].name);
		if (use && !ret)
			ret = bpf_program__set_attach_target(ex, 0, b->kfns[i].name);
		if (ret) {
			snprintf(why, len, "no BTF for %s: %s", b->kfns[i].name, strerror(-ret));
			flytrap_kfunc__destroy(sk);
			return NULL;
		}
	}
	bpf_program__set_autoload(sk->progs.ft_kprobe, mode == FT_KFUNC_KPROBE);
	bpf_program__set_autoload(sk->progs.ft_kretprobe, mode == FT_KFUNC_KPROBE);
	if (!ret)
		ret = reuse_common(b, sk->maps.ft_events, sk->maps.ft_stats, sk->maps.ft_pids,
				   sk->maps.ft_seen);
	if (!ret)
		ret = flytrap_kfunc__load(sk);
	if (ret) {
		snprintf(why, len, "load: %s", strerror(-ret));
		flytrap_kfunc__destroy(sk);
		return NULL;
	}
	return sk;
}

/* Hook every function in mode; on failure everything hooked is unhooked again. */
static int kf_attach(struct rec_bpf *b, struct flytrap_kfunc *sk, int mode, struct kf_links *l,
		     char *why, size_t len)
{
	int i, r, ret = 0;

	memset(l, 0, sizeof(*l));
	l->task_exit = bpf_program__attach(sk->progs.ft_kfunc_task_exit);
	if (!l->task_exit) {
		ret = -errno;
		snprintf(why, len, "sched_process_exit: %s", strerror(-ret));
		return ret;
	}
	for (r = 1; r >= 0; r--) {	/* returns first, see struct kf_links */
		for (i = 0; i < b->nkfns; i++) {
			struct bpf_link *k;

			if (mode == FT_KFUNC_FENTRY) {
				k = bpf_program__attach(kf_prog(sk, r ? "kexit" : "kentry", i));
			} else {
				LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = i, .retprobe = r);

				k = bpf_program__attach_kprobe_opts(r ? sk->progs.ft_kretprobe
								      : sk->progs.ft_kprobe,
								    b->kfns[i].name, &ko);
			}
			if (!k) {
				ret = -errno;
				snprintf(why, len, "%s of %s: %s",
					 mode == FT_KFUNC_FENTRY ? (r ? "fexit" : "fentry") : (r ? "kretprobe" : "kprobe"),
					 b->kfns[i].name, strerror(-ret));
				kf_detach(l);
				return ret;
			}
			if (r)
				l->exit[i] = k;
			else
				l->entry[i] = k;
		}
	}
	return 0;
}

/* What the kernel lacks for kprobes, in the words of its config. */
static const char *kprobe_missing(const char *tracefs)
{
	char p[512];

	if (!access("/sys/bus/event_source/devices/kprobe/type", F_OK))
		return NULL;
	snprintf(p, sizeof(p), "%s/kprobe_events", tracefs ? tracefs : "/sys/kernel/tracing");
	if (!access(p, F_OK))
		return NULL;
	return "not built into this kernel: CONFIG_KPROBE_EVENTS";
}

static int open_kfunc(struct rec_bpf *b, const char *tracefs)
{
	/* the failed attempt's libbpf warnings would be noise: our line says it all (-vv shows them) */
	libbpf_print_fn_t old = b->o.verbose > 1 ? NULL : libbpf_set_print(libbpf_quiet);
	char why_k[200] = "", msg[512];
	struct flytrap_kfunc *sk = NULL;
	int dups[FT_KFUNC_MAX], i, n, ret;
	bool no_kallsyms;
	struct kf_links l;
	const char *nofentry = getenv("FLYTRAP_BPF_NO_FENTRY");

	n = kfunc_resolve(&b->sp, b->kfns, dups, &no_kallsyms, msg, sizeof(msg));
	if (n < 0) {
		ret = set_err(b, n, "--bpf %s", msg);
		goto out;
	}
	b->nkfns = n;
	for (i = 0; i < n; i++)
		if (dups[i])
			ft_info("bpf: kfunc: %d kernel functions are called %s; the kernel hooks the one at 0x%" PRIx64,
				dups[i] + 1, b->kfns[i].name, b->kfns[i].addr);

	if (nofentry && *nofentry && strcmp(nofentry, "0")) {
		snprintf(b->kf_fentry_err, sizeof(b->kf_fentry_err), "disabled by FLYTRAP_BPF_NO_FENTRY");
	} else {
		sk = kf_load(b, FT_KFUNC_FENTRY, b->kf_fentry_err, sizeof(b->kf_fentry_err));
		if (sk && kf_attach(b, sk, FT_KFUNC_FENTRY, &l, b->kf_fentry_err, sizeof(b->kf_fentry_err))) {
			flytrap_kfunc__destroy(sk);
			sk = NULL;
		}
	}
	if (sk) {
		b->kf_mode = FT_KFUNC_FENTRY;
		ft_info("bpf: kfunc: %d function%s hooked with fentry/fexit", n, n == 1 ? "" : "s");
	} else {
		ft_info("bpf: kfunc: fentry %s (%s), using kprobes",
			nofentry && *nofentry && strcmp(nofentry, "0") ? "off" : "refused", b->kf_fentry_err);
		sk = kf_load(b, FT_KFUNC_KPROBE, why_k, sizeof(why_k));
		if (sk && kf_attach(b, sk, FT_KFUNC_KPROBE, &l, why_k, sizeof(why_k))) {
			flytrap_kfunc__destroy(sk);
			sk = NULL;
		}
		if (!sk) {
			const char *miss = kprobe_missing(tracefs);

			ret = set_err(b, -EOPNOTSUPP,
				      "--bpf kfunc: this kernel allows neither BPF fentry (%s) nor kprobes (%s)",
				      b->kf_fentry_err, miss ? miss : why_k);
			goto out;
		}
		b->kf_mode = FT_KFUNC_KPROBE;
	}
	b->sk_kf = sk;
	b->kf_links = l;
	ret = 0;
out:
	if (b->o.verbose <= 1)
		libbpf_set_print(old);
	return ret;
}

static int on_record(void *ctx, void *data, size_t size);

struct rec_bpf *rec_bpf_open(const struct rec_bpf_opts *opts, char **err)
{
	struct rec_bpf *b = calloc(1, sizeof(*b));
	uint32_t rbsz;
	int ret = 0, i, maxid;

	if (!b) {
		if (err)
			*err = strdup("out of memory");
		errno = ENOMEM;
		return NULL;
	}
	b->rb_fd = b->stats_fd = b->pids_fd = b->seen_fd = -1;
	b->o = *opts;
	if (opts->trig_nrs)
		memcpy(b->trig_nrs, opts->trig_nrs, sizeof(b->trig_nrs));
	b->o.trig_nrs = NULL;
	b->o.spec = NULL;
	b->o.pids = NULL;
	b->o.tracefs = NULL;
	/* no list: only the shared machinery, for --bpf-object alone */
	ret = opts->spec && *opts->spec ? spec_parse(opts->spec, &b->sp, b->err, sizeof(b->err)) : 0;
	if (ret)
		goto fail;
	if (!b->sp.have_hz)
		b->sp.hz = opts->profile_hz ? opts->profile_hz : DEF_HZ;
	if (!b->sp.have_min)
		b->sp.min_ns = opts->offcpu_min_ns;
	b->sp.agg |= opts->agg;
	b->sp.symbols |= opts->symbols;
	if (opts->user_stack != REC_USTACK_FP) {
		b->ucopy_len = opts->user_stack_bytes ? opts->user_stack_bytes :
			       opts->user_stack == REC_USTACK_DWARF ? REC_USTACK_DEF_DWARF : REC_USTACK_DEF_CFI;
		b->pucopy_len = opts->user_stack_bytes ? opts->user_stack_bytes :
				opts->user_stack == REC_USTACK_DWARF ? REC_USTACK_DEF_DWARF_PROFILE :
				REC_USTACK_DEF_CFI;
		if (b->ucopy_len > FT_UCOPY_MAX || b->ucopy_len % 8 || b->pucopy_len > FT_UCOPY_MAX ||
		    b->pucopy_len % 8) {
			ret = set_err(b, -EINVAL, "user stack copy of %u bytes: at most %d, a multiple of 8",
				      b->ucopy_len, FT_UCOPY_MAX);
			goto fail;
		}
	}
	b->page_size = opts->page_size ? opts->page_size : 4096;
	b->kernel_long = opts->kernel_long ? opts->kernel_long : (int)sizeof(long);
	if (!b->o.drop_interval_ns)
		b->o.drop_interval_ns = DEF_DROP_NS;
	if (!b->o.reorder_ns)
		b->o.reorder_ns = DEF_REORDER_NS;

	maxid = opts->max_event_id > 0 ? opts->max_event_id : max_event_id(opts->tracefs);
	if (maxid < 0) {
		ret = set_err(b, maxid, "cannot find the kernel's event IDs under %s/events",
			      opts->tracefs ? opts->tracefs : "/sys/kernel/tracing");
		goto fail;
	}
	if (maxid + FT_K_MAX >= 65535) {
		ret = set_err(b, -EOVERFLOW, "no event ID left above the kernel's %d", maxid);
		goto fail;
	}
	for (i = 1; i < FT_K_MAX; i++)
		b->ids[i] = maxid + i;
	b->ext_next_id = maxid + FT_K_MAX;

	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus <= 0) {
		ret = set_err(b, b->ncpus ? b->ncpus : -EINVAL, "cannot count the possible CPUs");
		goto fail;
	}
	b->cpus = calloc(b->ncpus, sizeof(*b->cpus));
	b->prev = calloc((size_t)FT_SLOT_NR * FT_ST_NR * b->ncpus, sizeof(uint64_t));
	b->vals = calloc(b->ncpus, sizeof(uint64_t));
	b->syms = rec_syms_new(b->sp.symbols);
	if (!b->cpus || !b->prev || !b->vals || !b->syms) {
		ret = set_err(b, -ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < b->ncpus; i++) {
		ret = fmt_page_enc_init(&b->cpus[i].pe, b->page_size, b->kernel_long, false);
		if (ret) {
			set_err(b, ret, "cannot set up the page encoder: %s", strerror(-ret));
			goto fail;
		}
		b->cpus[i].pe_ok = true;
	}

	if (opts->verbose > 1)
		libbpf_set_print(libbpf_debug);

	rbsz = b->sp.ringbuf ? b->sp.ringbuf : opts->ringbuf_bytes ? opts->ringbuf_bytes : DEF_RINGBUF;
	if (rbsz < 4096)
		rbsz = 4096;
	if (rbsz & (rbsz - 1)) {
		if (rbsz > (1u << 31)) {
			ret = set_err(b, -EINVAL, "ring buffer size %u is too large", rbsz);
			goto fail;
		}
		rbsz = 1u << (32 - __builtin_clz(rbsz));
	}
	b->rb_bytes = rbsz;
	b->rb_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "ft_events", 0, 0, rbsz, NULL);
	if (b->rb_fd < 0) {
		ret = set_err(b, -errno, "cannot create a %u-byte BPF ring buffer: %s", rbsz,
			      strerror(errno));
		goto fail;
	}
	b->stats_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "ft_stats", 4, 8,
				     FT_SLOT_NR * FT_ST_NR, NULL);
	b->pids_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ft_pids", 4, 1, FT_MAX_PIDS, NULL);
	b->seen_fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "ft_seen", 4, 1, FT_MAX_PIDS, NULL);
	if (b->stats_fd < 0 || b->pids_fd < 0 || b->seen_fd < 0) {
		ret = set_err(b, -errno, "cannot create the BPF maps: %s", strerror(errno));
		goto fail;
	}
	if (opts->npids > 1024) {
		ret = set_err(b, -E2BIG, "at most 1024 processes can be selected for BPF");
		goto fail;
	}
	if (opts->npids > 0) {
		b->pids = malloc(opts->npids * sizeof(*b->pids));
		if (!b->pids) {
			ret = set_err(b, -ENOMEM, "out of memory");
			goto fail;
		}
		memcpy(b->pids, opts->pids, opts->npids * sizeof(*b->pids));
	}
	for (i = 0; i < opts->npids; i++) {
		__s32 k = opts->pids[i];
		__u8 one = 1;

		if (bpf_map_update_elem(b->pids_fd, &k, &one, BPF_ANY)) {
			ret = set_err(b, -errno, "cannot fill the BPF pid filter: %s", strerror(errno));
			goto fail;
		}
	}
	b->rb = ring_buffer__new(b->rb_fd, on_record, b, NULL);
	if (!b->rb) {
		ret = set_err(b, -errno, "cannot map the BPF ring buffer: %s", strerror(errno));
		goto fail;
	}

	/* before the others, so no child forked meanwhile escapes the filter */
	if (b->o.npids > 0 && (ret = open_follow(b)))
		goto fail;
	if (b->sp.want[FT_SLOT_SYSCALLS] && (ret = open_syscalls(b)))
		goto fail;
	if (b->sp.want[FT_SLOT_OFFCPU] && (ret = open_offcpu(b)))
		goto fail;
	if (b->sp.want[FT_SLOT_PROFILE] && (ret = open_profile(b)))
		goto fail;
	if (b->sp.want[FT_SLOT_UFUNC] && (ret = open_ufunc(b)))
		goto fail;
	if (b->sp.want[FT_SLOT_KFUNC] && (ret = open_kfunc(b, opts->tracefs)))
		goto fail;
	if (opts->spec && *opts->spec)
		open_exitmaps(b);
	b->next_sample = now_mono() + b->o.drop_interval_ns;
	return b;

fail:
	if (err)
		*err = strdup(b->err[0] ? b->err : strerror(-ret));
	rec_bpf_close(b);
	errno = ret < 0 ? -ret : EINVAL;
	return NULL;
}

void rec_bpf_close(struct rec_bpf *b)
{
	size_t k;
	int i;

	if (!b)
		return;
	if (b->ext.close)
		b->ext.close(b->ext_ctx);
	detach_all(b);
	free(b->links);
	flytrap_syscalls__destroy(b->sk_sys);
	flytrap_offcpu__destroy(b->sk_off);
	flytrap_profile__destroy(b->sk_prof);
	flytrap_ufunc__destroy(b->sk_uf);
	flytrap_follow__destroy(b->sk_follow);
	flytrap_exitmaps__destroy(b->sk_exit);
	flytrap_kfunc__destroy(b->sk_kf);
	free(b->pids);
	ring_buffer__free(b->rb);
	if (b->rb_fd >= 0)
		close(b->rb_fd);
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	if (b->pids_fd >= 0)
		close(b->pids_fd);
	if (b->seen_fd >= 0)
		close(b->seen_fd);
	if (b->cpus) {
		for (i = 0; i < b->ncpus; i++) {
			for (k = 0; k < b->cpus[i].n; k++)
				free(b->cpus[i].v[k].data);
			free(b->cpus[i].v);
			if (b->cpus[i].pe_ok)
				fmt_page_enc_release(&b->cpus[i].pe);
		}
		free(b->cpus);
	}
	for (i = 0; i < b->nfns; i++)
		free(b->fns[i].name);
	free(b->fns);
	for (i = 0; i < b->nkfns; i++)
		free(b->kfns[i].name);
	free(b->prev);
	free(b->vals);
	free(b->drops);
	for (i = 0; i < b->n_ext_slots; i++)
		free(b->ext_slots[i]);
	free(b->ext_slots);
	rec_syms_free(b->syms);
	spec_release(&b->sp);
	free(b);
}

const char *rec_bpf_error(const struct rec_bpf *b)
{
	return b ? b->err : "";
}

int rec_bpf_fd(const struct rec_bpf *b)
{
	return ring_buffer__epoll_fd(b->rb);
}

void rec_bpf_get_stats(const struct rec_bpf *b, struct rec_bpf_stats *st)
{
	uint64_t gone, bins;
	int s;

	*st = b->st;
	st->drops = 0;
	for (s = 0; s < FT_SLOT_NR; s++)
		st->drops += b->tot[s][FT_ST_DROPS] + b->tot[s][FT_ST_MAPFULL];
	rec_syms_counts(b->syms, &st->processes, &gone, &bins);
}

/* ---- formats -------------------------------------------------------------- */

struct fdesc {
	const char *type;	/* "int", "char", "__data_loc unsigned long[]" */
	const char *name;	/* "comm[16]" for arrays */
	int off, size, sign;
};

#define F(t, n, o, s, sg) { t, n, COMMON_LEN + (o), s, sg }
#define FS(st, t, n, m, sg) F(t, n, offsetof(st, m), sizeof(((st *)0)->m), sg)

static int put_format(struct rec_bpf *b, struct fmt_writer *w, int kind, const struct fdesc *f,
		      int nf, const char *print)
{
	size_t cap = 4096 + strlen(print), len;
	char *t = malloc(cap);
	int i, ret;

	if (!t)
		return -ENOMEM;
	len = snprintf(t, cap,
		       "name: %s\nID: %u\nformat:\n"
		       "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
		       kind_names[kind], b->ids[kind]);
	for (i = 0; i < nf && len < cap; i++)
		len += snprintf(t + len, cap - len, "\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;\n",
				f[i].type, f[i].name, f[i].off, f[i].size, f[i].sign);
	if (len < cap)
		len += snprintf(t + len, cap - len, "\nprint fmt: %s\n", print);
	if (len >= cap) {
		free(t);
		return set_err(b, -EOVERFLOW, "event format of %s too long", kind_names[kind]);
	}
	ret = fmt_writer_event_format(w, REC_BPF_SYSTEM, t, len);
	free(t);
	if (ret)
		set_err(b, ret, "cannot store the format of flytrap:%s: %s", kind_names[kind],
			fmt_writer_error(w));
	return ret;
}

static const char *ufunc_name(const struct rec_bpf *b, int i)
{
	return b->fns[i].name;
}

static const char *kfunc_name(const struct rec_bpf *b, int i)
{
	return b->kfns[i].name;
}

/*
 * The entry/exit formats of a function-call program (ufunc, kfunc: the
 * same payloads, kfunc.h), with the function names through
 * __print_symbolic so stock trace-cmd prints them.  Kernel functions return
 * -errno, so kfunc's ret is signed.
 */
static int put_call_formats(struct rec_bpf *b, struct fmt_writer *w, int k_entry, int k_exit,
			    int n, const char *(*name)(const struct rec_bpf *, int), bool ret_signed)
{
	static const struct fdesc fe[] = {
		FS(struct ft_uentry_ev, "int", "tgid", tgid, 1),
		FS(struct ft_uentry_ev, "unsigned int", "func", func, 0),
		FS(struct ft_uentry_ev, "unsigned int", "depth", depth, 0),
		FS(struct ft_uentry_ev, "u64", "ip", ip, 0),
	};
	static const struct fdesc fx_u[] = {
		FS(struct ft_uexit_ev, "int", "tgid", tgid, 1),
		FS(struct ft_uexit_ev, "unsigned int", "func", func, 0),
		FS(struct ft_uexit_ev, "unsigned int", "depth", depth, 0),
		FS(struct ft_uexit_ev, "unsigned int", "flags", flags, 0),
		FS(struct ft_uexit_ev, "u64", "start", start, 0),
		FS(struct ft_uexit_ev, "u64", "duration", duration, 0),
		FS(struct ft_uexit_ev, "u64", "ret", ret, 0),
	};
	static const struct fdesc fx_s[] = {
		FS(struct ft_uexit_ev, "int", "tgid", tgid, 1),
		FS(struct ft_uexit_ev, "unsigned int", "func", func, 0),
		FS(struct ft_uexit_ev, "unsigned int", "depth", depth, 0),
		FS(struct ft_uexit_ev, "unsigned int", "flags", flags, 0),
		FS(struct ft_uexit_ev, "u64", "start", start, 0),
		FS(struct ft_uexit_ev, "u64", "duration", duration, 0),
		FS(struct ft_uexit_ev, "s64", "ret", ret, 1),
	};
	size_t cap = 1024, len = 0;
	char *sym, *pr;
	int i, ret;

	for (i = 0; i < n; i++)
		cap += strlen(name(b, i)) + 32;
	sym = malloc(cap);
	pr = malloc(cap + 512);
	if (!sym || !pr) {
		free(sym);
		free(pr);
		return -ENOMEM;
	}
	sym[0] = 0;
	for (i = 0; i < n; i++)
		len += snprintf(sym + len, cap - len, ", { %d, \"%s\" }", i, name(b, i));
	snprintf(pr, cap + 512, "\"tgid=%%d func=%%s depth=%%u ip=0x%%llx\", REC->tgid, "
		 "__print_symbolic(REC->func%s), REC->depth, REC->ip", sym);
	ret = put_format(b, w, k_entry, fe, 4, pr);
	if (!ret) {
		snprintf(pr, cap + 512, "\"tgid=%%d func=%%s depth=%%u duration=%%llu ret=%s "
			 "flags=%%u start=%%llu\", REC->tgid, __print_symbolic(REC->func%s), "
			 "REC->depth, REC->duration, REC->ret, REC->flags, REC->start",
			 ret_signed ? "%lld" : "0x%llx", sym);
		ret = put_format(b, w, k_exit, ret_signed ? fx_s : fx_u, 7, pr);
	}
	free(pr);
	free(sym);
	return ret;
}

/* --user-stack cfi|dwarf: the user registers and the stack copy after kstack and ustack */
#define UCOPY_PRINT " uregs=%s ucopy_len=%u"
#define UCOPY_ARGS							\
	", __print_array(__get_dynamic_array(uregs), __get_dynamic_array_len(uregs) / 8, 8), " \
	"__get_dynamic_array_len(ucopy)"

#define STACKS_PRINT							\
	"__print_array(__get_dynamic_array(kstack), __get_dynamic_array_len(kstack) / 8, 8), " \
	"__print_array(__get_dynamic_array(ustack), __get_dynamic_array_len(ustack) / 8, 8)"

int rec_bpf_add_formats(struct rec_bpf *b, struct fmt_writer *w)
{
	int ret = 0;

	if (b->sp.want[FT_SLOT_SYSCALLS] && !b->sp.agg) {
		static const struct fdesc f[] = {
			FS(struct ft_syscall_ev, "int", "tgid", tgid, 1),
			FS(struct ft_syscall_ev, "int", "nr", nr, 1),
			FS(struct ft_syscall_ev, "u64", "start", start, 0),
			FS(struct ft_syscall_ev, "u64", "duration", duration, 0),
			FS(struct ft_syscall_ev, "s64", "ret", ret, 1),
		};
		ret = put_format(b, w, FT_K_SYSCALL, f, 5,
				 "\"tgid=%d nr=%d ret=%lld duration=%llu start=%llu\", REC->tgid, REC->nr, "
				 "REC->ret, REC->duration, REC->start");
	}
	if (!ret && b->sp.want[FT_SLOT_SYSCALLS] && b->sp.agg) {
		static const struct fdesc f[] = {
			FS(struct ft_syshist_ev, "int", "tgid", tgid, 1),
			FS(struct ft_syshist_ev, "int", "nr", nr, 1),
			FS(struct ft_syshist_ev, "u64", "count", count, 0),
			FS(struct ft_syshist_ev, "u64", "total_ns", total_ns, 0),
			FS(struct ft_syshist_ev, "u64", "max_ns", max_ns, 0),
			FS(struct ft_syshist_ev, "u64", "slots[40]", slots, 0),
		};
		_Static_assert(FT_HIST_SLOTS == 40, "format text names slots[40]");
		ret = put_format(b, w, FT_K_SYSHIST, f, 6,
				 "\"tgid=%d nr=%d count=%llu total_ns=%llu max_ns=%llu log2_ns_slots=%s\", "
				 "REC->tgid, REC->nr, REC->count, REC->total_ns, REC->max_ns, "
				 "__print_array(REC->slots, 40, 8)");
	}
	if (!ret && b->sp.want[FT_SLOT_OFFCPU]) {
		static const struct fdesc f[] = {
			FS(struct ft_offcpu_ev, "int", "tgid", tgid, 1),
			FS(struct ft_offcpu_ev, "unsigned int", "state", state, 0),
			FS(struct ft_offcpu_ev, "u64", "start", start, 0),
			FS(struct ft_offcpu_ev, "u64", "duration", duration, 0),
			FS(struct ft_offcpu_ev, "int", "waker_pid", waker_tid, 1),
			FS(struct ft_offcpu_ev, "int", "waker_tgid", waker_tgid, 1),
			FS(struct ft_offcpu_ev, "char", "comm[16]", comm, 0),
			FS(struct ft_offcpu_ev, "char", "waker_comm[16]", waker_comm, 0),
			F("__data_loc unsigned long[]", "kstack", sizeof(struct ft_offcpu_ev), 4, 0),
			F("__data_loc unsigned long[]", "ustack", sizeof(struct ft_offcpu_ev) + 4, 4, 0),
			F("__data_loc unsigned long[]", "uregs", sizeof(struct ft_offcpu_ev) + 8, 4, 0),
			F("__data_loc unsigned char[]", "ucopy", sizeof(struct ft_offcpu_ev) + 12, 4, 0),
		};
		if (b->ucopy_len)
			ret = put_format(b, w, FT_K_OFFCPU, f, 12,
					 "\"tgid=%d comm=%s state=0x%x duration=%llu waker=%d/%d waker_comm=%s "
					 "start=%llu kstack=%s ustack=%s" UCOPY_PRINT "\", REC->tgid, REC->comm, "
					 "REC->state, REC->duration, REC->waker_pid, REC->waker_tgid, "
					 "REC->waker_comm, REC->start, " STACKS_PRINT UCOPY_ARGS);
		else
			ret = put_format(b, w, FT_K_OFFCPU, f, 10,
					 "\"tgid=%d comm=%s state=0x%x duration=%llu waker=%d/%d waker_comm=%s "
					 "start=%llu kstack=%s ustack=%s\", REC->tgid, REC->comm, REC->state, "
					 "REC->duration, REC->waker_pid, REC->waker_tgid, REC->waker_comm, "
					 "REC->start, " STACKS_PRINT);
	}
	if (!ret && b->sp.want[FT_SLOT_PROFILE]) {
		static const struct fdesc f[] = {
			FS(struct ft_profile_ev, "int", "tgid", tgid, 1),
			FS(struct ft_profile_ev, "char", "comm[16]", comm, 0),
			F("__data_loc unsigned long[]", "kstack", sizeof(struct ft_profile_ev), 4, 0),
			F("__data_loc unsigned long[]", "ustack", sizeof(struct ft_profile_ev) + 4, 4, 0),
			F("__data_loc unsigned long[]", "uregs", sizeof(struct ft_profile_ev) + 8, 4, 0),
			F("__data_loc unsigned char[]", "ucopy", sizeof(struct ft_profile_ev) + 12, 4, 0),
		};
		if (b->ucopy_len)
			ret = put_format(b, w, FT_K_PROFILE, f, 6,
					 "\"tgid=%d comm=%s kstack=%s ustack=%s" UCOPY_PRINT "\", REC->tgid, "
					 "REC->comm, " STACKS_PRINT UCOPY_ARGS);
		else
			ret = put_format(b, w, FT_K_PROFILE, f, 4,
					 "\"tgid=%d comm=%s kstack=%s ustack=%s\", REC->tgid, REC->comm, "
					 STACKS_PRINT);
	}
	if (!ret && b->ucopy_len && (b->sp.want[FT_SLOT_PROFILE] || b->sp.want[FT_SLOT_OFFCPU])) {
		static const struct fdesc f[] = {
			F("unsigned int", "offset", 0, 4, 0),
			F("unsigned int", "total", 4, 4, 0),
			F("__data_loc unsigned char[]", "ucopy", 8, 4, 0),
		};
		ret = put_format(b, w, FT_K_UCOPY, f, 3,
				 "\"offset=%u total=%u len=%u\", REC->offset, REC->total, "
				 "__get_dynamic_array_len(ucopy)");
	}
	if (!ret && b->sp.want[FT_SLOT_UFUNC])
		ret = put_call_formats(b, w, FT_K_UENTRY, FT_K_UEXIT, b->nfns, ufunc_name, false);
	if (!ret && b->sp.want[FT_SLOT_KFUNC])
		ret = put_call_formats(b, w, FT_K_KENTRY, FT_K_KEXIT, b->nkfns, kfunc_name, true);
	if (!ret && b->ext.formats)
		ret = b->ext.formats(b->ext_ctx, w);
	return ret;
}

int rec_bpf_start(struct rec_bpf *b, struct fmt_writer *w)
{
	int ret = fmt_wbuf_new(w, REC_BPF_BUFFER, "mono", &b->wb);

	if (ret)
		return set_err(b, ret, "cannot start the %s buffer: %s", REC_BPF_BUFFER,
			       fmt_writer_error(w));
	return 0;
}

/* ---- records -------------------------------------------------------------- */

static int queue(struct rec_bpf *b, int cpu, uint64_t ts, uint8_t *data, uint32_t len)
{
	struct cpu_q *q = &b->cpus[cpu];

	if (q->n == q->cap) {
		size_t n = q->cap ? q->cap * 2 : 256;
		struct pend *v = realloc(q->v, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		q->v = v;
		q->cap = n;
	}
	q->v[q->n++] = (struct pend){ ts, b->seq++, len, data };
	return 0;
}

/* Payload = common fields + fixed part [+ kstack/ustack __data_loc words and arrays]. */
static uint8_t *mk_payload(struct rec_bpf *b, const struct ft_hdr *h, const void *fixed,
			   uint32_t flen, const void *k, uint32_t kd, const void *u,
			   uint32_t ud, bool stacks, uint32_t *len)
{
	uint32_t n = COMMON_LEN + flen + (stacks ? 8 + (kd + ud) * 8 : 0);
	uint8_t *p = malloc(n);
	uint16_t type = b->ids[h->kind];
	int32_t pid = h->tid;

	if (!p)
		return NULL;
	memcpy(p, &type, 2);
	p[2] = 0;
	p[3] = 0;
	memcpy(p + 4, &pid, 4);
	memcpy(p + COMMON_LEN, fixed, flen);
	if (stacks) {
		uint32_t off = COMMON_LEN + flen + 8;
		uint32_t kl = (kd * 8) << 16 | off, ul = (ud * 8) << 16 | (off + kd * 8);

		memcpy(p + COMMON_LEN + flen, &kl, 4);
		memcpy(p + COMMON_LEN + flen + 4, &ul, 4);
		memcpy(p + off, k, kd * 8);
		memcpy(p + off + kd * 8, u, ud * 8);
	}
	*len = n;
	return p;
}

/*
 * An event holds at most a page of the file: the part of a stack copy its
 * record has no room for goes first into flytrap:ucopy_more events (offset
 * into the copy, the copy's length, the bytes), queued before the record
 * with the same time stamp on the same CPU; readers join them to the
 * record's own ucopy.  Returns how many bytes of copy stay in the record.
 */
#define UCOPY_MORE_HDR (COMMON_LEN + 12)

static int queue_ucopy_more(struct rec_bpf *b, const struct ft_hdr *h, const uint8_t *copy,
			    uint32_t clen, uint32_t fixed, uint32_t *kept)
{
	uint32_t room = b->page_size - 64, keep, off;
	uint16_t type = b->ids[FT_K_UCOPY];
	int32_t pid = h->tid;

	keep = fixed < room ? room - fixed : 0;
	keep = keep < clen ? keep & ~7u : clen;
	for (off = keep; off < clen;) {
		uint32_t n = clen - off < room - UCOPY_MORE_HDR ? clen - off : (room - UCOPY_MORE_HDR) & ~7u;
		uint32_t len = UCOPY_MORE_HDR + n, loc = n << 16 | UCOPY_MORE_HDR;
		uint8_t *p = malloc(len);
		int ret;

		if (!p)
			return -ENOMEM;
		memcpy(p, &type, 2);
		p[2] = p[3] = 0;
		memcpy(p + 4, &pid, 4);
		memcpy(p + COMMON_LEN, &off, 4);
		memcpy(p + COMMON_LEN + 4, &clen, 4);
		memcpy(p + COMMON_LEN + 8, &loc, 4);
		memcpy(p + UCOPY_MORE_HDR, copy + off, n);
		ret = queue(b, h->cpu, h->ts, p, len);
		if (ret) {
			free(p);
			return ret;
		}
		off += n;
	}
	*kept = keep;
	return 0;
}

/*
 * A stack record with --user-stack cfi|dwarf: common fields + fixed part +
 * the __data_loc words of kstack, ustack, uregs and ucopy, then the arrays.
 */
static uint8_t *mk_stack_payload(struct rec_bpf *b, const struct ft_hdr *h, const void *fixed,
				 uint32_t flen, const void *k, uint32_t kd, const void *u,
				 uint32_t ud, const void *regs, const void *copy, uint32_t clen,
				 uint32_t *len)
{
	uint32_t off = COMMON_LEN + flen + 16, rl = FT_UREGS * 8, total = clen;
	uint16_t type = b->ids[h->kind];
	int32_t pid = h->tid;
	uint32_t loc[4], n;
	uint8_t *p;

	if (queue_ucopy_more(b, h, copy, clen, off + (kd + ud) * 8 + rl, &clen))
		return NULL;
	n = off + (kd + ud) * 8 + rl + clen;
	p = malloc(n);
	if (!p)
		return NULL;
	memcpy(p, &type, 2);
	p[2] = 0;
	p[3] = 0;
	memcpy(p + 4, &pid, 4);
	memcpy(p + COMMON_LEN, fixed, flen);
	loc[0] = (kd * 8) << 16 | off;
	loc[1] = (ud * 8) << 16 | (off + kd * 8);
	loc[2] = rl << 16 | (off + (kd + ud) * 8);
	loc[3] = clen << 16 | (off + (kd + ud) * 8 + rl);
	memcpy(p + COMMON_LEN + flen, loc, sizeof(loc));
	memcpy(p + off, k, kd * 8);
	memcpy(p + off + kd * 8, u, ud * 8);
	memcpy(p + off + (kd + ud) * 8, regs, rl);
	memcpy(p + off + (kd + ud) * 8 + rl, copy, clen);
	b->ucopy_bytes += total;
	*len = n;
	return p;
}

/* An exiting process's mapping: rebuild the path from its components. */
static void on_vma(struct rec_bpf *b, const struct ft_vma_rec *r)
{
	char path[FT_PATH_COMPS * FT_COMP_LEN + 8], comm[17];
	size_t len = 0;
	int i, n = r->ncomp;

	if (n > FT_PATH_COMPS) {
		len = snprintf(path, sizeof(path), "/...");
		n = FT_PATH_COMPS;
	}
	for (i = n - 1; i >= 0; i--)
		len += snprintf(path + len, sizeof(path) - len, "/%.*s", FT_COMP_LEN,
				r->comp[i]);
	if (r->flags & FT_VMA_VDSO)
		snprintf(path, sizeof(path), "[vdso]");
	else if (!len)
		snprintf(path, sizeof(path), "/");
	snprintf(comm, sizeof(comm), "%.16s", r->comm);
	rec_syms_add_vma(b->syms, r->h.tgid, comm, r->h.ts, r->start, r->end,
			 r->pgoff * (uint64_t)getpagesize(),
			 r->dev >> 20, r->dev & 0xfffff, r->ino, r->flags & 0xf, path,
			 r->flags & FT_VMA_PRE_EXEC ? r->h.ts : 0);
	if (r->flags & FT_VMA_PRE_EXEC)
		b->st.exec_vmas++;
	else
		b->st.vmas++;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct rec_bpf *b = ctx;
	const struct ft_hdr *h = data;
	uint8_t *p = NULL;
	uint32_t len = 0;
	int ret;

	b->st.records++;
	b->st.bytes += size;
	if (size >= sizeof(struct ft_vma_rec) && h->kind == FT_K_VMA) {
		const struct ft_vma_rec *r = data;

		on_vma(b, r);
		return 0;
	}
	if (size < sizeof(*h) || h->size > size || h->cpu >= b->ncpus || h->kind == 0 ||
	    h->kind >= FT_K_MAX)
		goto bad;
	switch (h->kind) {
	case FT_K_SYSCALL: {
		const struct ft_syscall_rec *r = data;

		if (size < sizeof(*r))
			goto bad;
		p = mk_payload(b, h, &r->ev, sizeof(r->ev), NULL, 0, NULL, 0, false, &len);
		break;
	}
	case FT_K_OFFCPU: {
		const struct ft_offcpu_rec *r = data;

		if (size < sizeof(*r) || r->kdepth > FT_OFFCPU_DEPTH || r->udepth > FT_OFFCPU_DEPTH ||
		    r->ucopy > b->ucopy_len || r->ucopy > size - sizeof(*r))
			goto bad;
		if (b->ucopy_len)
			p = mk_stack_payload(b, h, &r->ev, sizeof(r->ev), r->stack, r->kdepth,
					     r->stack + FT_OFFCPU_DEPTH, r->udepth, r->regs, r->copy,
					     r->ucopy, &len);
		else
			p = mk_payload(b, h, &r->ev, sizeof(r->ev), r->stack, r->kdepth,
				       r->stack + FT_OFFCPU_DEPTH, r->udepth, true, &len);
		break;
	}
	case FT_K_PROFILE: {
		const struct ft_profile_rec *r = data;

		if (size < sizeof(*r) || r->kdepth > FT_MAX_STACK || r->udepth > FT_MAX_STACK ||
		    r->ucopy > b->pucopy_len || r->ucopy > size - sizeof(*r))
			goto bad;
		if (b->ucopy_len)
			p = mk_stack_payload(b, h, &r->ev, sizeof(r->ev), r->stack, r->kdepth,
					     r->stack + FT_MAX_STACK, r->udepth, r->regs, r->copy,
					     r->ucopy, &len);
		else
			p = mk_payload(b, h, &r->ev, sizeof(r->ev), r->stack, r->kdepth,
				       r->stack + FT_MAX_STACK, r->udepth, true, &len);
		break;
	}
	case FT_K_KENTRY:
	case FT_K_UENTRY: {
		const struct ft_uentry_rec *r = data;

		_Static_assert(sizeof(struct ft_kentry_rec) == sizeof(struct ft_uentry_rec), "kfunc = ufunc layout");

		if (size < sizeof(*r))
			goto bad;
		p = mk_payload(b, h, &r->ev, sizeof(r->ev), NULL, 0, NULL, 0, false, &len);
		break;
	}
	case FT_K_KEXIT:
	case FT_K_UEXIT: {
		const struct ft_uexit_rec *r = data;

		_Static_assert(sizeof(struct ft_kexit_rec) == sizeof(struct ft_uexit_rec), "kfunc = ufunc layout");

		if (size < sizeof(*r))
			goto bad;
		p = mk_payload(b, h, &r->ev, sizeof(r->ev), NULL, 0, NULL, 0, false, &len);
		break;
	}
	default:
		goto bad;
	}
	if (!p) {
		b->cb_err = -ENOMEM;
		return -ENOMEM;
	}
	ret = queue(b, h->cpu, h->ts, p, len);
	if (ret) {
		free(p);
		b->cb_err = ret;
		return ret;
	}
	rec_syms_note_pid(b->syms, h->tgid, b->poll_now);
	return 0;
bad:
	/* our own programs wrote it: a mismatch is a build bug, not data to guess at */
	b->cb_err = -EBADMSG;
	set_err(b, -EBADMSG, "malformed BPF record (kind %u, %zu bytes)", size >= sizeof(*h) ? h->kind : 0,
		size);
	return -EBADMSG;
}

static int pend_cmp(const void *a, const void *bb)
{
	const struct pend *x = a, *y = bb;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int put_page(struct rec_bpf *b, int cpu)
{
	struct cpu_q *q = &b->cpus[cpu];
	const void *page;
	int ret;

	if (!q->pe.nrecords)
		return 0;
	page = fmt_page_enc_finish(&q->pe);
	ret = fmt_wbuf_add_page(b->wb, cpu, page);
	if (ret)
		return set_err(b, ret, "cannot write a BPF page: %s", strerror(-ret));
	b->st.pages++;
	return 0;
}

static int encode(struct rec_bpf *b, int cpu, struct pend *e)
{
	struct cpu_q *q = &b->cpus[cpu];
	uint64_t ts = e->ts;
	int ret;

	if (ts < q->last_ts) {
		ts = q->last_ts;
		b->st.late++;
	}
	for (;;) {
		if (!q->pe.nrecords && q->missed) {
			fmt_page_enc_set_missed(&q->pe, q->missed);
			q->missed = 0;
		}
		ret = fmt_page_enc_add(&q->pe, ts, e->data, e->len);
		if (ret != -ENOSPC)
			break;
		if (!q->pe.nrecords)
			return set_err(b, -EMSGSIZE, "BPF record of %u bytes does not fit a page", e->len);
		ret = put_page(b, cpu);
		if (ret)
			return ret;
	}
	if (ret)
		return set_err(b, ret, "cannot encode a BPF record: %s", strerror(-ret));
	q->last_ts = ts;
	b->st.written++;
	return 0;
}

/* Encode every queued record of every CPU with ts <= cutoff, in timestamp order. */
static int flush_until(struct rec_bpf *b, uint64_t cutoff)
{
	int cpu, ret;

	if (!b->wb)
		return 0;	/* not started: records wait */
	for (cpu = 0; cpu < b->ncpus; cpu++) {
		struct cpu_q *q = &b->cpus[cpu];
		size_t i, done = 0;
		bool sorted = true;

		for (i = 1; i < q->n && sorted; i++)
			sorted = pend_cmp(&q->v[i - 1], &q->v[i]) <= 0;
		if (!sorted)
			qsort(q->v, q->n, sizeof(*q->v), pend_cmp);
		for (i = 0; i < q->n && q->v[i].ts <= cutoff; i++) {
			ret = encode(b, cpu, &q->v[i]);
			if (ret) {
				/* keep the rest queued (and freed at close) */
				memmove(q->v, q->v + done, (q->n - done) * sizeof(*q->v));
				q->n -= done;
				return ret;
			}
			free(q->v[i].data);
			q->v[i].data = NULL;
			done++;
		}
		if (done) {
			memmove(q->v, q->v + done, (q->n - done) * sizeof(*q->v));
			q->n -= done;
		}
	}
	return 0;
}

static int add_drop(struct rec_bpf *b, uint64_t ts, int cpu, int prog, uint64_t n)
{
	if (b->ndrops == b->drops_cap) {
		size_t c = b->drops_cap ? b->drops_cap * 2 : 64;
		struct fmt_bpf_drop *v = realloc(b->drops, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->drops = v;
		b->drops_cap = c;
	}
	b->drops[b->ndrops++] = (struct fmt_bpf_drop){ .ts = ts, .cpu = cpu, .prog = prog, .count = n };
	return 0;
}

/*
 * Read the per-CPU counters; every increase of a loss counter becomes a
 * window record (end time, CPU, program).  Program index s is a ring
 * buffer failure of slot s, FT_SLOT_NR + s a full state map of slot s.
 */
static int sample_counters(struct rec_bpf *b)
{
	uint64_t now = now_mono();
	int s, st, cpu, ret;

	for (s = 0; s < FT_SLOT_NR; s++) {
		if (s == FT_SLOT_FOLLOW ? !b->sk_follow : s == FT_SLOT_EXITMAPS ? !b->sk_exit : !b->sp.want[s])
			continue;
		for (st = 0; st < FT_ST_NR; st++) {
			__u32 key = FT_STAT_KEY(s, st);
			uint64_t *prev = b->prev + (size_t)key * b->ncpus, sum = 0;

			if (st != FT_ST_DROPS && st != FT_ST_EMITTED && st != FT_ST_MAPFULL)
				continue;
			if (bpf_map_lookup_elem(b->stats_fd, &key, b->vals))
				return set_err(b, -errno, "cannot read the BPF drop counters: %s",
					       strerror(errno));
			for (cpu = 0; cpu < b->ncpus; cpu++) {
				uint64_t d = b->vals[cpu] - prev[cpu];

				sum += b->vals[cpu];
				prev[cpu] = b->vals[cpu];
				if (!d || st == FT_ST_EMITTED)
					continue;
				ret = add_drop(b, now, cpu, st == FT_ST_DROPS ? s : FT_SLOT_NR + s, d);
				if (ret)
					return set_err(b, ret, "out of memory");
				b->cpus[cpu].missed += d;
			}
			b->tot[s][st] = sum;
		}
	}
	b->next_sample = now + b->o.drop_interval_ns;
	return 0;
}

int rec_bpf_poll(struct rec_bpf *b, int timeout_ms)
{
	uint64_t now;
	int n, ret;

	if (b->finished)
		return 0;
	b->poll_now = now_mono();
	/*
	 * The programs commit most records without a wake-up, so epoll does not
	 * know about them: wait only when asked to, then read the ring itself.
	 */
	n = timeout_ms ? ring_buffer__poll(b->rb, timeout_ms) : 0;
	if (n == -EINTR)
		n = 0;
	if (n >= 0 && !b->cb_err) {
		int m = ring_buffer__consume(b->rb);

		n = m < 0 ? m : n + m;
	}
	if (b->cb_err) {
		ret = b->cb_err;
		b->cb_err = 0;
		if (!b->err[0])
			set_err(b, ret, "cannot keep a BPF record: %s", strerror(-ret));
		return ret;
	}
	if (n < 0)
		return set_err(b, n, "cannot read the BPF ring buffer: %s", strerror(-n));
	if (b->ext.poll) {
		ret = b->ext.poll(b->ext_ctx, false);
		if (ret < 0)
			return ret;
		n += ret;
	}
	now = now_mono();
	if (now >= b->next_sample && (ret = sample_counters(b)))
		return ret;
	ret = flush_until(b, now > b->o.reorder_ns ? now - b->o.reorder_ns : 0);
	return ret ? ret : n;
}

/* Aggregation mode: one flytrap:syscall_hist event per (thread, syscall), at the end. */
static int emit_hists(struct rec_bpf *b, uint64_t ts)
{
	struct ft_syshist_key key, next, *prevk = NULL;
	int fd = bpf_map__fd(b->sk_sys->maps.hists), ret;
	struct ft_syshist_val v;

	while (!bpf_map_get_next_key(fd, prevk, &next)) {
		struct ft_syshist_ev ev;
		struct ft_hdr h = { .ts = ts, .kind = FT_K_SYSHIST, .tid = next.tid };
		uint8_t *p;
		uint32_t len;

		key = next;
		prevk = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;	/* deleted meanwhile: the programs are detached, so never */
		ev.tgid = v.tgid;
		ev.nr = key.nr;
		ev.count = v.count;
		ev.total_ns = v.total_ns;
		ev.max_ns = v.max_ns;
		memcpy(ev.slots, v.slots, sizeof(ev.slots));
		h.tgid = v.tgid;
		p = mk_payload(b, &h, &ev, sizeof(ev), NULL, 0, NULL, 0, false, &len);
		if (!p)
			return set_err(b, -ENOMEM, "out of memory");
		ret = queue(b, 0, ts, p, len);
		if (ret) {
			free(p);
			return set_err(b, ret, "out of memory");
		}
		rec_syms_note_pid(b->syms, v.tgid, ts);
	}
	return 0;
}

static int write_meta(struct rec_bpf *b, struct fmt_writer *w)
{
	size_t cap = 4096 + (size_t)b->nfns * 300 + (size_t)b->nkfns * 600 +
		     (size_t)b->n_ext_slots * 140, len = 0;
	char *t = malloc(cap);
	uint64_t procs, gone, bins;
	int s, i, ret;

	if (!t)
		return -ENOMEM;
#define P(...) do { if (len < cap) len += snprintf(t + len, cap - len, __VA_ARGS__); } while (0)
	P(FMT_META_BPF_PROGS "=");
	for (s = 0; s < FT_SLOT_NR; s++)
		P("%s,", slot_names[s]);
	for (s = 0; s < FT_SLOT_NR; s++)
		P("%s/mapfull%s", slot_names[s], s + 1 < FT_SLOT_NR ? "," : "");
	for (i = 0; i < b->n_ext_slots; i++)
		P(",%s", b->ext_slots[i]);
	P("\n");
	P(FMT_META_BPF_ENABLED "=");
	for (s = 0, i = 0; s < FT_SLOT_NR; s++)
		if (b->sp.want[s])
			P("%s%s", i++ ? "," : "", slot_names[s]);
	P("\nbpf_buffer=%s\nbpf_ringbuf_bytes=%u\nbpf_symbols=%d\n", REC_BPF_BUFFER, b->rb_bytes,
	  b->sp.symbols);
	for (s = 0; s < FT_SLOT_NR; s++) {
		if (!b->sp.want[s])
			continue;
		P("bpf_%s_emitted=%" PRIu64 "\nbpf_%s_drops=%" PRIu64 "\nbpf_%s_mapfull=%" PRIu64 "\n",
		  slot_names[s], b->tot[s][FT_ST_EMITTED], slot_names[s], b->tot[s][FT_ST_DROPS],
		  slot_names[s], b->tot[s][FT_ST_MAPFULL]);
	}
	if (b->sk_follow)
		P("bpf_follow_mapfull=%" PRIu64 "\n", b->tot[FT_SLOT_FOLLOW][FT_ST_MAPFULL]);
	if (b->sk_exit)
		P("bpf_exitmaps_drops=%" PRIu64 "\n", b->tot[FT_SLOT_EXITMAPS][FT_ST_DROPS]);
	if (b->sp.want[FT_SLOT_SYSCALLS])
		P("bpf_syscalls_mode=%s\n", b->sp.agg ? "agg" : "events");
	if (b->sp.want[FT_SLOT_PROFILE])
		P("bpf_profile_hz=%u\n", b->sp.hz);
	if (b->sp.want[FT_SLOT_OFFCPU])
		P("bpf_offcpu_min_ns=%" PRIu64 "\n", b->sp.min_ns);
	if (b->sp.want[FT_SLOT_OFFCPU] || b->sp.want[FT_SLOT_PROFILE])
		P(FMT_META_BPF_USER_STACK "=%s %u %s\nbpf_user_stack_copied=%" PRIu64 "\n",
		  b->o.user_stack == REC_USTACK_FP ? "fp" : b->o.user_stack == REC_USTACK_DWARF ? "dwarf" : "cfi",
		  b->ucopy_len, USTACK_REGS, b->ucopy_bytes);
	/* the profile's own copy size, where it is not the one above (bpf.h) */
	if (b->sp.want[FT_SLOT_PROFILE] && b->pucopy_len != b->ucopy_len)
		P(FMT_META_BPF_USER_STACK_PROFILE "=%u\n", b->pucopy_len);
	P("bpf_exitmaps=%s\nbpf_exit_mappings=%" PRIu64 "\n", b->exitmaps_state, b->st.vmas);
	if (b->execmaps_state[0])
		P("bpf_exec_images=%s\nbpf_exec_mappings=%" PRIu64 "\n", b->execmaps_state,
		  b->st.exec_vmas);
	P("bpf_records=%" PRIu64 "\nbpf_written=%" PRIu64 "\nbpf_late=%" PRIu64 "\nbpf_reorder_ns=%" PRIu64 "\n",
	  b->st.records, b->st.written, b->st.late, b->o.reorder_ns);
	rec_syms_counts(b->syms, &procs, &gone, &bins);
	P("bpf_procs_captured=%" PRIu64 "\nbpf_procs_gone=%" PRIu64 "\nbpf_binaries=%" PRIu64 "\n",
	  procs, gone, bins);
	if (b->sp.symbols) {
		uint64_t cb, cbytes, cleft;

		rec_syms_cfi_counts(b->syms, &cb, &cbytes, &cleft);
		P("bpf_cfi_binaries=%" PRIu64 "\nbpf_cfi_bytes=%" PRIu64 "\nbpf_cfi_left_out=%" PRIu64 "\n",
		  cb, cbytes, cleft);
	}
	for (i = 0; i < b->nfns; i++)
		P(FMT_META_BPF_UFUNC "=%d %s %s 0x%" PRIx64 "\n", i,
		  b->sp.uf[b->fns[i].target].binary,
		  b->fns[i].name, b->fns[i].addr);
	if (b->sp.want[FT_SLOT_KFUNC]) {
		P("bpf_kfunc_attach=%s\n", b->kf_mode == FT_KFUNC_FENTRY ? "fentry" : "kprobe");
		if (b->kf_fentry_err[0])
			P("bpf_kfunc_fentry=%s\n", b->kf_fentry_err);
		for (i = 0; i < b->nkfns; i++)
			P(FMT_META_BPF_KFUNC "=%d [%s] %s 0x%" PRIx64 "\n", i, b->kfns[i].where,
			  b->kfns[i].name,
			  b->kfns[i].addr);
	}
#undef P
	if (len >= cap) {
		free(t);
		return set_err(b, -EOVERFLOW, "BPF metadata too long");
	}
	ret = fmt_writer_option(w, FMT_OPT_FT_META, t, len + 1);
	free(t);
	if (ret)
		set_err(b, ret, "cannot store the BPF metadata: %s", fmt_writer_error(w));
	return ret;
}

int rec_bpf_finish(struct rec_bpf *b, struct fmt_writer *w)
{
	int ret, cpu;

	if (b->finished)
		return set_err(b, -EALREADY, "rec_bpf_finish called twice");
	b->finished = true;
	if (!b->wb)
		return set_err(b, -EINVAL, "rec_bpf_finish without rec_bpf_start");
	if (b->ext.stop && (ret = b->ext.stop(b->ext_ctx)))
		return ret;
	detach_all(b);
	/* every record committed before the detach is in the ring buffer now */
	b->poll_now = now_mono();
	ret = ring_buffer__consume(b->rb);
	if (b->cb_err)
		return b->cb_err;
	if (ret < 0)
		return set_err(b, ret, "cannot read the BPF ring buffer: %s", strerror(-ret));
	if (b->ext.poll && (ret = b->ext.poll(b->ext_ctx, true)) < 0)
		return ret;
	ret = sample_counters(b);
	if (!ret && b->sp.want[FT_SLOT_SYSCALLS] && b->sp.agg)
		ret = emit_hists(b, now_mono());
	if (!ret)
		ret = flush_until(b, UINT64_MAX);
	for (cpu = 0; !ret && cpu < b->ncpus; cpu++)
		ret = put_page(b, cpu);
	if (ret)
		return ret;
	return rec_bpf_write_options(b, w);
}

void rec_bpf_trigger_state(const struct rec_bpf *b, struct rec_bpf_trig *t)
{
	memset(t, 0, sizeof(*t));
	if (b->sk_sys && b->sk_sys->bss) {
		t->syscall_hits = __atomic_load_n(&b->sk_sys->bss->trig_hits, __ATOMIC_ACQUIRE);
		t->syscall_ts = b->sk_sys->bss->trig_ts;
		t->syscall_dur = b->sk_sys->bss->trig_dur;
		t->syscall_nr = b->sk_sys->bss->trig_nr;
		t->syscall_tid = b->sk_sys->bss->trig_tid;
	}
	if (b->sk_off && b->sk_off->bss) {
		t->offcpu_hits = __atomic_load_n(&b->sk_off->bss->trig_hits, __ATOMIC_ACQUIRE);
		t->offcpu_ts = b->sk_off->bss->trig_ts;
		t->offcpu_dur = b->sk_off->bss->trig_dur;
		t->offcpu_tid = b->sk_off->bss->trig_tid;
	}
}

int rec_bpf_flush_pages(struct rec_bpf *b)
{
	uint64_t now = now_mono();
	int ret, cpu;

	if (b->finished || !b->wb)
		return 0;
	ret = rec_bpf_poll(b, 0);
	if (ret < 0)
		return ret;
	ret = flush_until(b, now > b->o.reorder_ns ? now - b->o.reorder_ns : 0);
	for (cpu = 0; !ret && cpu < b->ncpus; cpu++)
		ret = put_page(b, cpu);
	return ret;
}

int rec_bpf_write_options(struct rec_bpf *b, struct fmt_writer *w)
{
	char msg[512];
	int ret;

	if (b->ndrops) {
		if ((uint64_t)b->ndrops * sizeof(*b->drops) > UINT32_MAX)
			return set_err(b, -EOVERFLOW, "too many drop windows");
		ret = fmt_writer_option(w, FMT_OPT_FT_BPF_DROPS, b->drops,
					b->ndrops * sizeof(*b->drops));
		if (ret)
			return set_err(b, ret, "cannot store the BPF drop counts: %s",
				       fmt_writer_error(w));
	}
	ret = write_meta(b, w);
	if (ret)
		return ret;
	if (b->ext.options && (ret = b->ext.options(b->ext_ctx, w, b->finished)))
		return ret;
	rec_syms_refresh(b->syms);
	ret = rec_syms_write(b->syms, w, b->pids, b->o.npids, msg, sizeof(msg));
	if (ret)
		return set_err(b, ret, "%s", msg);
	return 0;
}

/* ---- --bpf-object: the hooks of record/bpfobj.c ---------------------------- */

void rec_bpf_set_ext(struct rec_bpf *b, const struct rec_bpf_ext *ops, void *ctx)
{
	b->ext = *ops;
	b->ext_ctx = ctx;
}

int rec_bpf_ext_id(struct rec_bpf *b)
{
	if (b->ext_next_id >= 65535)
		return set_err(b, -EOVERFLOW, "no event ID left for another BPF record type");
	return b->ext_next_id++;
}

int rec_bpf_ext_slot(struct rec_bpf *b, const char *name)
{
	char **v = realloc(b->ext_slots, (b->n_ext_slots + 1) * sizeof(*v));

	if (!v)
		return set_err(b, -ENOMEM, "out of memory");
	b->ext_slots = v;
	v[b->n_ext_slots] = strdup(name);
	if (!v[b->n_ext_slots])
		return set_err(b, -ENOMEM, "out of memory");
	/* after the built-in programs' ring buffer and map-full slots (write_meta) */
	return 2 * FT_SLOT_NR + b->n_ext_slots++;
}

int rec_bpf_ext_drop(struct rec_bpf *b, uint64_t ts, int cpu, int slot, uint64_t n)
{
	if (cpu < 0 || cpu >= b->ncpus)
		cpu = 0;
	if (add_drop(b, ts, cpu, slot, n))
		return set_err(b, -ENOMEM, "out of memory");
	b->cpus[cpu].missed += n;
	return 0;
}

int rec_bpf_ext_ringbuf(struct rec_bpf *b, int map_fd, int (*cb)(void *ctx, void *data, size_t size),
			void *ctx)
{
	int ret = ring_buffer__add(b->rb, map_fd, cb, ctx);

	return ret ? set_err(b, ret, "cannot map a BPF ring buffer: %s", strerror(-ret)) : 0;
}

int rec_bpf_ext_queue(struct rec_bpf *b, int cpu, uint64_t ts, void *payload, uint32_t len,
		      uint32_t raw_size)
{
	int ret;

	if (cpu < 0 || cpu >= b->ncpus)
		cpu = 0;
	b->st.records++;
	b->st.bytes += raw_size;
	ret = queue(b, cpu, ts, payload, len);
	if (ret) {
		free(payload);
		return set_err(b, ret, "out of memory");
	}
	return 0;
}

void rec_bpf_ext_note_pid(struct rec_bpf *b, int tgid)
{
	rec_syms_note_pid(b->syms, tgid, b->poll_now ? b->poll_now : now_mono());
}

int rec_bpf_ext_error(struct rec_bpf *b, int ret, const char *msg)
{
	return set_err(b, ret, "%s", msg);
}

int rec_bpf_ncpus(const struct rec_bpf *b)
{
	return b->ncpus;
}

uint32_t rec_bpf_page_size(const struct rec_bpf *b)
{
	return b->page_size;
}
