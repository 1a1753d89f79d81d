// SPDX-License-Identifier: GPL-2.0-only
/*
 * record/bpfobj.c: record --bpf-object, the user's own CO-RE objects.
 *
 * Open each object with libbpf, set .rodata/.data variables from
 * --bpf-set, load (a verifier refusal fails the recording with the
 * verifier's reason and the log's tail), attach every program by its
 * section name, and hand the rest to record/bpf.c's machinery through its
 * hooks: ring buffers drained with the built-in one, perf buffers on the
 * same poll, records queued to the same per-CPU reorder queues of the
 * "flytrap-bpf" buffer, losses into the same FMT_OPT_FT_BPF_DROPS.  Maps
 * are read at the end, at every dump and every --bpf-snapshot, as JSON
 * typed by the object's BTF (bpfobj_json.c).  Every link is a file
 * descriptor of the recorder: nothing outlives it, even a SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "format.h"
#include "record/bpf.h"
#include "record/bpfobj.h"
#include "record/bpfobj_int.h"
#include "flytrap.h"

#define COMMON_LEN 8
#define COMMON_FIELDS							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"	\
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define DEF_PERF_HZ 99
#define DROP_SAMPLE_NS 100000000ull
#define LOG_TAIL_LINES 20
#define MAX_SNAP_MEM (256ull << 20)	/* periodic snapshots kept in memory until the end */

/* One ring buffer or perf event array, whose records become events. */
struct uev {
	struct bpfobj *bo;
	struct uobj *o;
	struct bpf_map *map;
	char name[96];			/* event name: OBJ_MAP (raw: OBJ_MAP_raw) */
	char strct[64];			/* BTF struct of the records ("" = none found) */
	int id, raw_id;
	uint32_t rec_size;		/* size of the struct (typed records) */
	/* record offsets of the conventional fields (ts, pid, cpu, tgid), -1 none */
	int ts_off, pid_off, cpu_off, tgid_off;
	/* a user stack id among the fields: the record's process gets its maps stored */
	bool ustack;
	char *fmt, *raw_fmt;		/* tracefs-style formats (fmt NULL: raw only) */
	int slot;			/* loss slot in bpf_progs= */
	/* MAP_drops in the object's .bss/.data, if any */
	const volatile uint64_t *drops_var;
	void *drops_mem;			/* its mapping */
	size_t drops_len;
	uint64_t drops_prev;
	struct perf_buffer *pb;
	uint64_t records, raw, truncated, lost;
};

struct uobj {
	char *path, *name;
	char sha[2 * SHA256_DIGEST_LENGTH + 1];
	uint64_t size;
	struct bpf_object *obj;
	struct bpf_link **links;
	int nlinks;
	int *perf_fds;
	int nperf;
	struct jbuf sets;		/* "set=NAME=VALUE\n" lines */
};

struct bpfobj {
	struct rec_bpf *b;
	struct rec_bpfobj_opts o;
	struct uobj *objs;
	int nobjs;
	struct uev *ev;
	int nev;
	/* periodic snapshots, written at the end and at dumps */
	struct rec_snap *snaps;
	size_t nsnaps;
	uint64_t snap_mem, snaps_skipped;
	uint64_t next_snap, next_drops;
	bool stopped;
	uint32_t max_payload;		/* most bytes an event of a page holds */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- usage checks ----------------------------------------------------------- */

static bool ident(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (i && s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

int rec_bpfobj_check_object(const char *path, char **err)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		*err = ft_asprintf("%s", errno && !S_ISREG(st.st_mode) ? strerror(errno) : "not a file");
		return -EINVAL;
	}
	return 0;
}

int rec_bpfobj_check_set(const char *arg, char **err)
{
	const char *eq = strchr(arg, '='), *colon = strchr(arg, ':');
	const char *name = colon && colon < eq ? colon + 1 : arg;

	if (!eq || !eq[1] || !ident(name, eq - name)) {
		*err = ft_asprintf("needs [OBJECT:]NAME=VALUE, NAME a variable of .rodata (e.g. target_pid=42)");
		return -EINVAL;
	}
	return 0;
}

int rec_bpfobj_check_attach(const char *arg, char **err)
{
	const char *eq = strchr(arg, '='), *colon = eq ? strrchr(eq, ':') : NULL;

	if (!eq || !ident(arg, eq - arg) || !colon || colon == eq + 1 || !colon[1]) {
		*err = ft_asprintf("needs PROGRAM=BINARY:FUNCTION (a uprobe program with a bare section)");
		return -EINVAL;
	}
	return 0;
}

int rec_bpfobj_check_record(const char *arg, char **err)
{
	const char *eq = strchr(arg, '=');

	if (!eq || !ident(arg, eq - arg) || !ident(eq + 1, strlen(eq + 1))) {
		*err = ft_asprintf("needs MAP=STRUCT (a ring buffer and the BTF struct of its records)");
		return -EINVAL;
	}
	return 0;
}

/* ---- the object file ---------------------------------------------------------- */

static int hash_file(struct uobj *o)
{
	unsigned char md[SHA256_DIGEST_LENGTH], buf[65536];
	EVP_MD_CTX *c;
	ssize_t n;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC), i, ret = 0;

	if (fd < 0)
		return -errno;
	c = EVP_MD_CTX_new();
	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(c);
		close(fd);
		return -ENOMEM;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		EVP_DigestUpdate(c, buf, n);
		o->size += n;
	}
	if (n < 0)
		ret = -errno;
	close(fd);
	EVP_DigestFinal_ex(c, md, NULL);
	EVP_MD_CTX_free(c);
	for (i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(o->sha + 2 * i, 3, "%02x", md[i]);
	return ret;
}

/* "dir/x.bpf.o" -> "x", made an identifier (event names are OBJ_MAP). */
static char *obj_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strcspn(base, "."), i;
	char *s = strndup(base, n ? n : strlen(base));

	for (i = 0; s && s[i]; i++)
		if (!ident(s + i, 1) && !(i && s[i] >= '0' && s[i] <= '9'))
			s[i] = '_';
	return s;
}

/* ---- --bpf-set: .rodata/.data variables --------------------------------------------- */

static int parse_value(const char *s, int size, bool sign, uint64_t *v)
{
	char *end;

	errno = 0;
	if (sign) {
		long long x = strtoll(s, &end, 0);

		if (errno || *end || end == s)
			return -EINVAL;
		if (size < 8 && (x < -(1ll << (8 * size - 1)) || x >= (1ll << (8 * size - 1))))
			return -ERANGE;
		*v = (uint64_t)x;
	} else {
		unsigned long long x = strtoull(s, &end, 0);

		if (errno || *end || end == s || *s == '-')
			return -EINVAL;
		if (size < 8 && x >> (8 * size))
			return -ERANGE;
		*v = x;
	}
	return 0;
}

static int set_data(struct bpf_map *m, uint8_t *data, size_t size)
{
	int ret = bpf_map__set_initial_value(m, data, size);

	free(data);
	return ret ? ret : 1;
}

/* Set variable name in one of obj's data sections; 1 if set, 0 if absent, -errno. */
static int set_var(struct bpf_object *obj, const char *name, const char *val, char *why, size_t wl)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *m;

	if (!btf)
		return 0;
	bpf_object__for_each_map(m, obj) {
		const char *mn = bpf_map__name(m);
		const char *sec = mn ? strrchr(mn, '.') : NULL;
		const struct btf_type *ds;
		const struct btf_var_secinfo *vs;
		size_t size;
		const void *init;
		uint8_t *data;
		int id, i;

		if (!sec || (strcmp(sec, ".rodata") && strcmp(sec, ".data")))
			continue;
		id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
		ds = id > 0 ? btf__type_by_id(btf, id) : NULL;
		init = bpf_map__initial_value(m, &size);
		if (!ds || !init)
			continue;
		/* libbpf's copy is read-only to us: change a copy, hand it back */
		data = malloc(size);
		if (!data)
			return -ENOMEM;
		memcpy(data, init, size);
		vs = btf_var_secinfos(ds);
		for (i = 0; i < btf_vlen(ds); i++, vs++) {
			const struct btf_type *var = btf__type_by_id(btf, vs->type);
			uint32_t tid = var ? var->type : 0;
			const struct btf_type *t;
			bool sign;
			uint64_t v;
			int ret;

			if (!var || strcmp(btf__name_by_offset(btf, var->name_off) ?: "", name))
				continue;
			if ((uint64_t)vs->offset + vs->size > size) {
				free(data);
				return -EINVAL;
			}
			t = btf__type_by_id(btf, tid);
			while (t && (btf_is_const(t) || btf_is_volatile(t) || btf_is_typedef(t)))
				t = btf__type_by_id(btf, tid = t->type);
			if (t && btf_is_array(t)) {
				/* a char array takes a string */
				if (strlen(val) >= vs->size) {
					snprintf(why, wl, "'%s' is longer than %s's %u bytes", val, name,
						 vs->size);
					free(data);
					return -ERANGE;
				}
				memset(data + vs->offset, 0, vs->size);
				memcpy(data + vs->offset, val, strlen(val));
				return set_data(m, data, size);
			}
			if (!rec_btf_is_int(btf, tid, &sign) && !(t && btf_is_any_enum(t))) {
				snprintf(why, wl, "%s is neither an integer nor a char array", name);
				free(data);
				return -EINVAL;
			}
			sign = t && btf_is_any_enum(t) ? btf_kflag(t) : sign;
			ret = parse_value(val, vs->size, sign, &v);
			if (ret) {
				snprintf(why, wl, "'%s' is not a%s %u-byte %s integer", val,
					 ret == -ERANGE ? "n in-range" : "", vs->size,
					 sign ? "signed" : "unsigned");
				free(data);
				return -EINVAL;
			}
			memcpy(data + vs->offset, &v, vs->size);	/* little endian host */
			return set_data(m, data, size);
		}
		free(data);
	}
	return 0;
}

static int apply_sets(struct bpfobj *bo, char **err)
{
	int i, k;

	for (i = 0; i < bo->o.nsets; i++) {
		const char *arg = bo->o.sets[i], *eq = strchr(arg, '='), *colon = strchr(arg, ':');
		char name[128], obj[128] = "", why[200] = "";
		bool found = false;
		const char *nm = arg;

		if (colon && colon < eq) {
			snprintf(obj, sizeof(obj), "%.*s", (int)(colon - arg), arg);
			nm = colon + 1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - nm), nm);
		for (k = 0; k < bo->nobjs; k++) {
			struct uobj *o = &bo->objs[k];
			int ret;

			if (*obj && strcmp(obj, o->name))
				continue;
			ret = set_var(o->obj, name, eq + 1, why, sizeof(why));
			if (ret < 0) {
				*err = ft_asprintf("--bpf-set %s: %s", arg, why[0] ? why : strerror(-ret));
				return -EINVAL;
			}
			if (ret) {
				found = true;
				jb_printf(&o->sets, "set=%.100s=", name);
				jb_put(&o->sets, eq + 1, strcspn(eq + 1, "\n"));
				jb_put(&o->sets, "\n", 1);
			}
		}
		if (!found) {
			*err = ft_asprintf("--bpf-set %s: no object has a variable '%s' in .rodata or .data",
					 arg, name);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- load, and the verifier's word -------------------------------------------------- */

static struct jbuf *capture;
static int capture_verbose;

static int capture_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list aq;
	char *t = NULL;
	int n;

	if (capture_verbose > 1 || (capture_verbose && level == LIBBPF_WARN)) {
		va_copy(aq, ap);
		vfprintf(stderr, fmt, aq);
		va_end(aq);
	}
	if (!capture || level == LIBBPF_DEBUG)
		return 0;
	va_copy(aq, ap);
	n = vasprintf(&t, fmt, aq);
	va_end(aq);
	if (n > 0)
		jb_put(capture, t, n);
	else if (n < 0)
		capture->oom = true;
	free(t);
	return 0;
}

static bool insn_line(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && l[i] >= '0' && l[i] <= '9')
		i++;
	return i && i + 2 < n && l[i] == ':' && l[i + 1] == ' ' && l[i + 2] == '(';
}

/*
 * The verifier's log out of libbpf's messages ("-- BEGIN PROG LOAD LOG --"
 * ... "-- END PROG LOAD LOG --"): its reason (the lines between the last
 * instruction and "processed N insns"), the last LOG_TAIL_LINES lines up to
 * there, and the whole log in a file whose name goes in the message.
 */
static const char *attach_hint(const char *sec);

static char *verifier_message(const struct uobj *o, const char *libbpf_out, int ret)
{
	const char *path = o->path;
	const char *b = strstr(libbpf_out, "-- BEGIN PROG LOAD LOG --");
	const char *e = b ? strstr(b, "-- END PROG LOAD LOG --") : NULL;
	const char *log, *p, *stop, *lines[4096], *prog = strstr(libbpf_out, "prog '");
	char reason[512] = "", progname[128] = "?", file[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	size_t nl = 0, i, first, len;
	int fd, last_insn = -1, processed = -1;
	char *msg;
	struct jbuf tail = { 0 };

	if (prog)
		sscanf(prog, "prog '%127[^']'", progname);
	if (!b || !e) {
		/* not the verifier: the kernel's errno for the program, else libbpf's last word */
		const char *lastl = libbpf_out, *q;
		struct bpf_program *bp = prog ? bpf_object__find_program_by_name(o->obj, progname)
					       : NULL;

		if (bp && strstr(libbpf_out, "BPF program load failed"))
			return ft_asprintf("--bpf-object '%s': the kernel refused to load program '%s' (section %s): %s%s",
					 path, progname, bpf_program__section_name(bp),
					 strerror(-ret),
					 attach_hint(bpf_program__section_name(bp)));

		for (q = libbpf_out; *q; q++)
			if (q[0] == '\n' && q[1])
				lastl = q + 1;
		return ft_asprintf("--bpf-object '%s': cannot load: %.*s%s%s", path,
				 (int)strcspn(lastl, "\n"), lastl, *lastl ? ": " : "", strerror(-ret));
	}
	log = b + strlen("-- BEGIN PROG LOAD LOG --");
	if (*log == '\n')
		log++;
	len = e - log;
	for (p = log; p < e && nl < sizeof(lines) / sizeof(*lines); ) {
		const char *q = memchr(p, '\n', e - p);

		lines[nl] = p;
		if (insn_line(p, (q ? q : e) - p))
			last_insn = nl;
		if (!strncmp(p, "processed ", 10) && processed < 0)
			processed = nl;
		nl++;
		p = q ? q + 1 : e;
	}
	stop = processed >= 0 ? lines[processed] : e;
	for (i = last_insn + 1; (int)i >= 0 && i < nl && lines[i] < stop; i++) {
		size_t l = strcspn(lines[i], "\n");

		if (!l)
			continue;
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason), "%s%.*s",
			 reason[0] ? "; " : "", (int)l, lines[i]);
	}
	if (!reason[0] && processed > 0)
		snprintf(reason, sizeof(reason), "%.*s", (int)strcspn(lines[processed - 1], "\n"),
			 lines[processed - 1]);
	snprintf(file, sizeof(file), "%s/flytrap-verifier-XXXXXX.log", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemps(file, 4);
	if (fd >= 0) {
		if (write(fd, log, len) != (ssize_t)len)
			file[0] = 0;
		close(fd);
	} else {
		file[0] = 0;
	}
	first = processed >= 0 ? (size_t)processed : nl;
	first = first > LOG_TAIL_LINES ? first - LOG_TAIL_LINES : 0;
	for (i = first; i < nl && lines[i] < stop; i++) {
		size_t l = strcspn(lines[i], "\n");

		/* a screen's width of each line */
		jb_printf(&tail, "    %.*s\n", (int)(l > 120 ? 120 : l), lines[i]);
	}
	msg = ft_asprintf("--bpf-object '%s': the kernel's verifier refused program '%s': %s\n"
			"  the last instructions it checked, with their register states:\n%.*s"
			"  the whole verifier log: %s",
			path, progname, reason[0] ? reason : strerror(-ret), (int)tail.len,
			tail.p ? tail.p : "", file[0] ? file : "(could not be written)");
	jb_release(&tail);
	return msg;
}

static int load_obj(struct uobj *o, int verbose, char **err)
{
	struct jbuf out = { 0 };
	libbpf_print_fn_t old;
	int ret;

	capture = &out;
	capture_verbose = verbose;
	old = libbpf_set_print(capture_print);
	ret = bpf_object__load(o->obj);
	libbpf_set_print(old);
	capture = NULL;
	if (ret) {
		if (out.oom)
			*err = ft_asprintf("--bpf-object '%s': cannot load: %s", o->path, strerror(-ret));
		else
			*err = verifier_message(o, out.p ? out.p : "", ret);
	}
	jb_release(&out);
	/* refused, whatever errno the kernel gave: not a usage error (-EINVAL) */
	return ret ? -ENOEXEC : 0;
}

/* ---- attach ---------------------------------------------------------------------- */

static int add_link(struct uobj *o, struct bpf_link *l)
{
	struct bpf_link **v = realloc(o->links, (o->nlinks + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	o->links = v;
	v[o->nlinks++] = l;
	return 0;
}

static int attach_perf(struct uobj *o, struct bpf_program *p, unsigned hz, char **err)
{
	int ncpu = libbpf_num_possible_cpus(), cpu, ret;

	for (cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
					     .config = PERF_COUNT_SW_CPU_CLOCK, .freq = 1,
					     .sample_freq = hz };
		int fd = syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *l;
		int *v;

		if (fd < 0) {
			if (errno == ENODEV)
				continue;	/* a possible CPU that is not online */
			ret = -errno;
			*err = ft_asprintf("--bpf-object '%s': program '%s': cannot open the cpu-clock perf event on CPU %d: %s",
					 o->path, bpf_program__name(p), cpu, strerror(errno));
			return ret;
		}
		v = realloc(o->perf_fds, (o->nperf + 1) * sizeof(*v));
		if (!v) {
			close(fd);
			return -ENOMEM;
		}
		o->perf_fds = v;
		v[o->nperf++] = fd;
		l = bpf_program__attach_perf_event(p, fd);
		if (!l) {
			ret = -errno;
			*err = ft_asprintf("--bpf-object '%s': program '%s': cannot attach to the perf event of CPU %d: %s",
					 o->path, bpf_program__name(p), cpu, strerror(errno));
			return ret;
		}
		if ((ret = add_link(o, l)))
			return ret;
	}
	return 0;
}

static const char *attach_target(const struct bpfobj *bo, const char *prog)
{
	size_t n = strlen(prog);
	int i;

	for (i = 0; i < bo->o.nattach; i++)
		if (!strncmp(bo->o.attach[i], prog, n) && bo->o.attach[i][n] == '=')
			return bo->o.attach[i] + n + 1;
	return NULL;
}

/* Why a kernel refuses an attach here, in words (kprobe/fentry on this project's machines). */
static const char *attach_hint(const char *sec)
{
	if (!strncmp(sec, "kprobe", 6) || !strncmp(sec, "kretprobe", 9))
		return " (kprobes: does this kernel have CONFIG_KPROBE_EVENTS?)";
	if (!strncmp(sec, "fentry", 6) || !strncmp(sec, "fexit", 5))
		return " (fentry/fexit: does this kernel allow BPF trampolines?)";
	return "";
}

static int attach_prog(struct bpfobj *bo, struct uobj *o, struct bpf_program *p, char **err)
{
	const char *sec = bpf_program__section_name(p), *name = bpf_program__name(p);
	const char *target = attach_target(bo, name);
	struct bpf_link *l;
	int ret;

	if (!bpf_program__autoload(p))
		return 0;
	if (!strcmp(sec, "perf_event"))
		return attach_perf(o, p, bo->o.perf_hz ? bo->o.perf_hz : DEF_PERF_HZ, err);
	if (target) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo);
		const char *colon = strrchr(target, ':');
		char *bin = strndup(target, colon - target);

		if (!bin)
			return -ENOMEM;
		uo.func_name = colon + 1;
		uo.retprobe = !strncmp(sec, "uretprobe", 9);
		l = bpf_program__attach_uprobe_opts(p, -1, bin, 0, &uo);
		ret = l ? 0 : -errno;
		free(bin);
	} else {
		struct jbuf said = { 0 };
		libbpf_print_fn_t old;

		/* libbpf's words about a refused attach: the message below says it in one line */
		capture = &said;
		capture_verbose = bo->o.verbose;
		old = libbpf_set_print(capture_print);
		l = bpf_program__attach(p);
		ret = l ? 0 : -errno;
		libbpf_set_print(old);
		capture = NULL;
		jb_release(&said);
	}
	if (ret) {
		if (ret == -EOPNOTSUPP && !target && (!strcmp(sec, "uprobe") || !strcmp(sec, "uretprobe"))) {
			*err = ft_asprintf("--bpf-object '%s': program '%s' (section %s) needs a target: --bpf-attach %s=BINARY:FUNCTION",
					 o->path, name, sec, name);
			return -EINVAL;
		}
		*err = ft_asprintf("--bpf-object '%s': cannot attach program '%s' (section %s): %s%s",
				 o->path, name, sec, strerror(-ret), attach_hint(sec));
		/* the kernel's refusal, not the user's typo: a failure, not a usage error */
		return -ENOEXEC;
	}
	return add_link(o, l);
}

/* ---- events: formats from BTF ----------------------------------------------------------- */

static const struct btf_type *resolved(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	int n = 0;

	while (t && n++ < 16 && (btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t) ||
				 btf_is_type_tag(t) || btf_is_restrict(t)))
		t = btf__type_by_id(btf, *id = t->type);
	return t;
}

static const char *int_type(int size, bool sign)
{
	switch (size) {
	case 1: return sign ? "char" : "unsigned char";
	case 2: return sign ? "short" : "unsigned short";
	case 4: return sign ? "int" : "unsigned int";
	default: return sign ? "long long" : "unsigned long long";
	}
}

static const char *int_conv(int size, bool sign)
{
	return size == 8 ? (sign ? "%lld" : "%llu") : (sign ? "%d" : "%u");
}

/*
 * The format of a typed record: one field per member of the struct (ints,
 * enums, pointers, char arrays as strings, int arrays with __print_array,
 * anything else as bytes with __print_hex).  NULL when the struct has a
 * bitfield or a member the format cannot hold (the records go raw then).
 */
/*
 * A user stack id, as callgraph's bpf-stacks source names one
 * (rpt_bpfstk_side): "stack" in the name, and "user" in it or a leading 'u'.
 */
static bool user_stack_field(const char *name)
{
	return strstr(name, "stack") && (name[0] == 'u' || strstr(name, "user"));
}

static char *typed_format(const struct btf *btf, uint32_t sid, struct uev *u)
{
	const struct btf_type *s = btf__type_by_id(btf, sid);
	const struct btf_member *m = btf_members(s);
	struct jbuf f = { 0 }, pf = { 0 }, pa = { 0 };
	int i, n = btf_vlen(s);
	char *out = NULL;

	u->ts_off = u->pid_off = u->cpu_off = u->tgid_off = -1;
	u->ustack = false;
	jb_printf(&f, "name: %s\nID: %d\nformat:\n", u->name, u->id);
	jb_put(&f, COMMON_FIELDS, strlen(COMMON_FIELDS));
	for (i = 0; i < n; i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		uint32_t tid = m->type, boff = btf_member_bit_offset(s, i);
		const struct btf_type *t = resolved(btf, &tid);
		__s64 size = btf__resolve_size(btf, m->type);
		int off = COMMON_LEN + boff / 8;
		bool sign = false;

		if (!t || !name || !*name || !ident(name, strlen(name)) ||
		    btf_member_bitfield_size(s, i) || boff % 8 || size <= 0 || size > 4096)
			goto out;
		if (rec_btf_is_int(btf, m->type, &sign) || (btf_is_any_enum(t) && t->size <= 8 &&
							      (sign = btf_kflag(t), true))) {
			if (size != 1 && size != 2 && size != 4 && size != 8)
				goto out;
			jb_printf(&f, "\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;\n",
				  int_type(size, sign), name, off, (int)size, sign);
			jb_printf(&pf, "%s%s=%s", pf.len ? " " : "", name, int_conv(size, sign));
			jb_printf(&pa, ", REC->%s", name);
			if (size == 8 && (!strcmp(name, "ts") || !strcmp(name, "timestamp")))
				u->ts_off = boff / 8;
			if (size == 4 && (!strcmp(name, "pid") || !strcmp(name, "tid")))
				u->pid_off = boff / 8;
			if (size == 4 && !strcmp(name, "cpu"))
				u->cpu_off = boff / 8;
			if (size == 4 && !strcmp(name, "tgid"))
				u->tgid_off = boff / 8;
			if (user_stack_field(name))
				u->ustack = true;
		} else if (btf_is_ptr(t)) {
			jb_printf(&f, "\tfield:unsigned long %s;\toffset:%d;\tsize:%d;\tsigned:0;\n",
				  name, off, (int)size);
			jb_printf(&pf, "%s%s=0x%%lx", pf.len ? " " : "", name);
			jb_printf(&pa, ", REC->%s", name);
		} else if (btf_is_array(t)) {
			const struct btf_array *a = btf_array(t);
			uint32_t eid = a->type;
			const struct btf_type *et = resolved(btf, &eid);
			__s64 es = btf__resolve_size(btf, a->type);
			bool esign = false;

			if (et && btf_is_int(et) && es == 1 &&
			    (btf_int_encoding(et) & BTF_INT_CHAR ||
			     !strcmp(btf__name_by_offset(btf, et->name_off) ?: "", "char"))) {
				jb_printf(&f, "\tfield:char %s[%u];\toffset:%d;\tsize:%d;\tsigned:1;\n",
					  name, a->nelems, off, (int)size);
				jb_printf(&pf, "%s%s=%%s", pf.len ? " " : "", name);
				jb_printf(&pa, ", REC->%s", name);
			} else if (rec_btf_is_int(btf, a->type, &esign) &&
				   (es == 1 || es == 2 || es == 4 || es == 8)) {
				jb_printf(&f, "\tfield:%s %s[%u];\toffset:%d;\tsize:%d;\tsigned:%d;\n",
					  int_type(es, esign), name, a->nelems, off, (int)size,
					  esign);
				jb_printf(&pf, "%s%s=%%s", pf.len ? " " : "", name);
				jb_printf(&pa, ", __print_array(REC->%s, %u, %d)", name, a->nelems,
					  (int)es);
			} else {
				goto bytes;
			}
		} else {
bytes:
			jb_printf(&f, "\tfield:unsigned char %s[%d];\toffset:%d;\tsize:%d;\tsigned:0;\n",
				  name, (int)size, off, (int)size);
			jb_printf(&pf, "%s%s=%%s", pf.len ? " " : "", name);
			jb_printf(&pa, ", __print_hex(REC->%s, %d)", name, (int)size);
		}
	}
	jb_printf(&f, "\nprint fmt: \"%s\"%s\n", pf.p ? pf.p : "", pa.p ? pa.p : "");
	if (!f.oom && !pf.oom && !pa.oom) {
		out = f.p;
		f.p = NULL;
	}
out:
	jb_release(&f);
	jb_release(&pf);
	jb_release(&pa);
	return out;
}

static char *raw_format(const struct uev *u)
{
	return ft_asprintf("name: %s_raw\nID: %d\nformat:\n" COMMON_FIELDS
			 "\tfield:unsigned int size;\toffset:8;\tsize:4;\tsigned:0;\n"
			 "\tfield:__data_loc unsigned char[] data;\toffset:12;\tsize:4;\tsigned:0;\n"
			 "\nprint fmt: \"size=%%u data=%%s\", REC->size, "
			 "__print_hex(__get_dynamic_array(data), __get_dynamic_array_len(data))\n",
			 u->name, u->raw_id);
}

/* The struct of a map's records: --bpf-record MAP=STRUCT, else MAP_event, MAP_record, event. */
static int find_struct(const struct bpfobj *bo, const struct btf *btf, const char *map,
		       char *out, size_t len, int nrings)
{
	char cand[3][60];
	size_t n = strlen(map);
	int i, id;

	for (i = 0; i < bo->o.nrecords; i++) {
		const char *r = bo->o.records[i];

		if (!strncmp(r, map, n) && r[n] == '=') {
			snprintf(out, len, "%.*s", (int)(len - 1), r + n + 1);
			id = btf ? btf__find_by_name_kind(btf, r + n + 1, BTF_KIND_STRUCT)
				  : -ENOENT;
			return id > 0 ? id : -ENOENT;
		}
	}
	snprintf(cand[0], sizeof(cand[0]), "%.50s_event", map);
	snprintf(cand[1], sizeof(cand[1]), "%.50s_record", map);
	snprintf(cand[2], sizeof(cand[2]), "event");
	for (i = 0; btf && i < (nrings == 1 ? 3 : 2); i++) {
		id = btf__find_by_name_kind(btf, cand[i], BTF_KIND_STRUCT);
		if (id > 0) {
			snprintf(out, len, "%.*s", (int)(len - 1), cand[i]);
			return id;
		}
	}
	out[0] = 0;
	return 0;
}

/*
 * MAP_drops, a u64 in the object's .bss or .data that the program counts
 * failed reservations in, read through a mapping of the kernel's map (the
 * data libbpf keeps is only the initial image: a skeleton would remap it,
 * a plain bpf_object does not).  *mem and *memlen: the mapping to unmap.
 */
static const volatile uint64_t *drops_var(struct bpf_object *obj, const char *map, void **mem,
					  size_t *memlen)
{
	const struct btf *btf = bpf_object__btf(obj);
	char want[128];
	struct bpf_map *m;

	if (!btf)
		return NULL;
	snprintf(want, sizeof(want), "%s_drops", map);
	bpf_object__for_each_map(m, obj) {
		const char *mn = bpf_map__name(m), *sec = mn ? strrchr(mn, '.') : NULL;
		const struct btf_type *ds;
		const struct btf_var_secinfo *vs;
		size_t size, len, page = sysconf(_SC_PAGESIZE);
		const uint8_t *data;
		int id, i;

		if (!sec || (strcmp(sec, ".bss") && strcmp(sec, ".data")) ||
		    !(bpf_map__map_flags(m) & BPF_F_MMAPABLE))
			continue;
		id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
		ds = id > 0 ? btf__type_by_id(btf, id) : NULL;
		size = bpf_map__value_size(m);
		len = (size + page - 1) / page * page;
		data = ds ? mmap(NULL, len, PROT_READ, MAP_SHARED, bpf_map__fd(m), 0) : MAP_FAILED;
		if (data == MAP_FAILED)
			continue;
		vs = btf_var_secinfos(ds);
		for (i = 0; i < btf_vlen(ds); i++, vs++) {
			const struct btf_type *var = btf__type_by_id(btf, vs->type);

			if (var && vs->size == 8 && vs->offset % 8 == 0 &&
			    (uint64_t)vs->offset + 8 <= size &&
			    !strcmp(btf__name_by_offset(btf, var->name_off) ?: "", want)) {
				*mem = (void *)data;
				*memlen = len;
				return (const volatile uint64_t *)(data + vs->offset);
			}
		}
		munmap((void *)data, len);
	}
	return NULL;
}

/* ---- records ------------------------------------------------------------------------ */

static uint32_t rd_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int put_record(struct uev *u, int cpu, const void *data, size_t size)
{
	struct bpfobj *bo = u->bo;
	uint64_t now = mono_ns(), ts = now;
	int32_t pid = 0;
	uint16_t type;
	uint8_t *p;
	uint32_t len, keep = size;
	/* a perf buffer pads its samples to 8 bytes (with a u32 size before them) */
	bool typed = u->fmt && (size == u->rec_size ||
				(u->pb && size > u->rec_size && size - u->rec_size < 8));

	if (typed) {
		if (u->ts_off >= 0) {
			uint64_t t;

			memcpy(&t, (const uint8_t *)data + u->ts_off, 8);
			/* bpf_ktime_get_ns() is the buffer's mono clock; anything else is no time */
			if (t && t <= now && now - t < 60000000000ull)
				ts = t;
		}
		if (u->pid_off >= 0)
			pid = rd_u32((const uint8_t *)data + u->pid_off);
		if (u->cpu_off >= 0 && cpu < 0)
			cpu = rd_u32((const uint8_t *)data + u->cpu_off);
		/*
		 * Its user stack's addresses need the process's maps: read them
		 * now, while it lives (a short-lived process is gone by the end).
		 */
		if (u->ustack)
			rec_bpf_ext_note_pid(bo->b, (int)(u->tgid_off >= 0 ?
				rd_u32((const uint8_t *)data + u->tgid_off) : (uint32_t)pid));
		size = u->rec_size;
		len = COMMON_LEN + size;
		type = u->id;
	} else {
		if (COMMON_LEN + 8 + size > bo->max_payload) {
			keep = bo->max_payload - COMMON_LEN - 8;
			u->truncated++;
		}
		len = COMMON_LEN + 8 + keep;
		type = u->raw_id;
		u->raw++;
	}
	if (cpu < 0 || cpu >= rec_bpf_ncpus(bo->b))
		cpu = 0;
	p = malloc(len);
	if (!p)
		return -ENOMEM;
	memcpy(p, &type, 2);
	p[2] = p[3] = 0;
	memcpy(p + 4, &pid, 4);
	if (typed) {
		memcpy(p + COMMON_LEN, data, size);
	} else {
		uint32_t sz = size, loc = keep << 16 | (COMMON_LEN + 8);

		memcpy(p + COMMON_LEN, &sz, 4);
		memcpy(p + COMMON_LEN + 4, &loc, 4);
		memcpy(p + COMMON_LEN + 8, data, keep);
	}
	u->records++;
	return rec_bpf_ext_queue(bo->b, cpu, ts, p, len, size);
}

static int on_ring(void *ctx, void *data, size_t size)
{
	return put_record(ctx, -1, data, size);
}

static void on_perf(void *ctx, int cpu, void *data, __u32 size)
{
	put_record(ctx, cpu, data, size);
}

static void on_perf_lost(void *ctx, int cpu, __u64 n)
{
	struct uev *u = ctx;

	u->lost += n;
	rec_bpf_ext_drop(u->bo->b, mono_ns(), cpu, u->slot, n);
}

static int setup_event(struct bpfobj *bo, struct uobj *o, struct bpf_map *m, int nrings,
		       char **err)
{
	const struct btf *btf = bpf_object__btf(o->obj);
	struct uev *u = &bo->ev[bo->nev];
	char slot[160];
	int sid, ret;

	memset(u, 0, sizeof(*u));
	u->bo = bo;
	u->o = o;
	u->map = m;
	u->ts_off = u->pid_off = u->cpu_off = -1;
	snprintf(u->name, sizeof(u->name), "%.40s_%.40s", o->name, bpf_map__name(m));
	sid = find_struct(bo, btf, bpf_map__name(m), u->strct, sizeof(u->strct), nrings);
	if (sid < 0) {
		*err = ft_asprintf("--bpf-record %s=%s: object '%s' has no struct '%s' in its BTF",
				 bpf_map__name(m), u->strct, o->path, u->strct);
		return -EINVAL;
	}
	u->id = rec_bpf_ext_id(bo->b);
	u->raw_id = u->id >= 0 ? rec_bpf_ext_id(bo->b) : u->id;
	if (u->raw_id < 0)
		return u->raw_id;
	if (sid > 0) {
		u->rec_size = btf__resolve_size(btf, sid);
		u->fmt = typed_format(btf, sid, u);
		if (u->fmt && COMMON_LEN + u->rec_size > bo->max_payload) {
			free(u->fmt);
			u->fmt = NULL;
		}
	}
	u->raw_fmt = raw_format(u);
	snprintf(slot, sizeof(slot), "%s/%s", o->name, bpf_map__name(m));
	u->slot = rec_bpf_ext_slot(bo->b, slot);
	if (!u->raw_fmt || u->slot < 0)
		return u->slot < 0 ? u->slot : -ENOMEM;
	bo->nev++;
	if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF) {
		u->drops_var = drops_var(o->obj, bpf_map__name(m), &u->drops_mem, &u->drops_len);
		if (u->drops_var)
			u->drops_prev = *u->drops_var;
		ret = rec_bpf_ext_ringbuf(bo->b, bpf_map__fd(m), on_ring, u);
		if (ret)
			*err = ft_asprintf("--bpf-object '%s': map '%s': %s", o->path, bpf_map__name(m),
					 rec_bpf_error(bo->b));
		return ret;
	}
	u->pb = perf_buffer__new(bpf_map__fd(m), 64, on_perf, on_perf_lost, u, NULL);
	if (!u->pb) {
		ret = -errno;
		*err = ft_asprintf("--bpf-object '%s': cannot open perf buffer '%s': %s", o->path,
				 bpf_map__name(m), strerror(errno));
		return ret;
	}
	return 0;
}

/* ---- snapshots -------------------------------------------------------------------------- */

static bool snap_map(struct bpf_map *m)
{
	switch (bpf_map__type(m)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_STACK_TRACE:
		return !bpf_map__is_internal(m);
	default:
		return false;
	}
}

static void snap_release(struct rec_snap *s)
{
	free(s->name);
	jb_release(&s->text);
}

/* Does type id (a struct, through typedefs) have a user stack id member? */
static bool btf_has_ustack(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf && id ? resolved(btf, &id) : NULL;
	const struct btf_member *m;

	if (!t || !btf_is_struct(t))
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (user_stack_field(btf__name_by_offset(btf, m->name_off) ?: ""))
			return true;
	return false;
}

/*
 * A map whose key or value struct has a user stack id member (as the
 * object's BTF says): the maps of the processes its entries' "tgid" members
 * name (else their "pid" ones), read now if they still run.  The JSON is
 * rec_snap_read()'s own, so a plain scan for the member names is exact.
 */
static void note_snap_pids(struct bpfobj *bo, const struct btf *btf, struct bpf_map *m,
			   const struct rec_snap *s)
{
	static const char *const keys[] = { "\"tgid\":", "\"pid\":" };
	const char *t = s->text.p, *p;

	if (!t || !(btf_has_ustack(btf, bpf_map__btf_key_type_id(m)) ||
		    btf_has_ustack(btf, bpf_map__btf_value_type_id(m))))
		return;
	for (int k = 0; k < 2; k++) {
		bool any = false;

		for (p = strstr(t, keys[k]); p; p = strstr(p + 1, keys[k])) {
			long v = strtol(p + strlen(keys[k]), NULL, 10);

			if (v > 0 && v <= INT32_MAX) {
				rec_bpf_ext_note_pid(bo->b, (int)v);
				any = true;
			}
		}
		if (any)
			return;
	}
}

/* Read every data map of every object now (why: FMT_BPFMAP_WHY); appended to *v. */
static int snap_all(struct bpfobj *bo, unsigned why, struct rec_snap **v, size_t *n)
{
	int k, ret = 0;

	for (k = 0; k < bo->nobjs && !ret; k++) {
		struct uobj *o = &bo->objs[k];
		struct bpf_map *m;

		bpf_object__for_each_map(m, o->obj) {
			struct rec_snap s = { 0 }, *nv;

			if (!snap_map(m))
				continue;
			s.name = ft_asprintf("%s/%s", o->name, bpf_map__name(m));
			s.flags = why << 8;
			ret = s.name ? rec_snap_read(m, bpf_object__btf(o->obj),
						     rec_bpf_ncpus(bo->b), &s)
				     : -ENOMEM;
			if (!ret && s.text.oom)
				ret = -ENOMEM;
			if (!ret)
				note_snap_pids(bo, bpf_object__btf(o->obj), m, &s);
			nv = ret ? NULL : realloc(*v, (*n + 1) * sizeof(**v));
			if (!nv) {
				snap_release(&s);
				if (!ret)
					ret = -ENOMEM;
				break;
			}
			*v = nv;
			nv[(*n)++] = s;
		}
	}
	return ret;
}

static int write_snap(struct fmt_writer *w, const struct rec_snap *s)
{
	struct fmt_bpfmap_hdr h = { .magic = FMT_BPFMAP_MAGIC };
	size_t nlen = strlen(s->name), len = sizeof(h) + nlen + s->text.len;
	uint8_t *p;
	int ret;

	if (len > UINT32_MAX)
		return -EOVERFLOW;
	h.ts = s->ts;
	h.name_len = nlen;
	h.nentries = s->nentries;
	h.text_len = s->text.len;
	h.flags = s->flags;
	p = malloc(len);
	if (!p)
		return -ENOMEM;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), s->name, nlen);
	if (s->text.len)
		memcpy(p + sizeof(h) + nlen, s->text.p, s->text.len);
	ret = fmt_writer_option(w, FMT_OPT_FT_BPFMAP, p, len);
	free(p);
	return ret;
}

static const char *map_type_name(enum bpf_map_type t)
{
	return libbpf_bpf_map_type_str(t) ?: "unknown";
}

/* The object option: its text (name, sha256, programs, maps, events with their counts) + BTF. */
static int write_obj(struct bpfobj *bo, struct uobj *o, struct fmt_writer *w)
{
	struct fmt_bpfobj_hdr h = { .magic = FMT_BPFOBJ_MAGIC };
	const struct btf *btf = bpf_object__btf(o->obj);
	const void *raw = NULL;
	uint32_t rawlen = 0;
	struct jbuf t = { 0 }, all = { 0 };
	struct bpf_program *p;
	struct bpf_map *m;
	int i, ret;

	jb_printf(&t, "name=%.100s\n", o->name);
	jb_put(&t, "path=", 5);
	jb_put(&t, o->path, strcspn(o->path, "\n"));
	jb_printf(&t, "\nsha256=%s\nsize=%" PRIu64 "\n", o->sha, o->size);
	if (o->sets.len)
		jb_put(&t, o->sets.p, o->sets.len);
	bpf_object__for_each_program(p, o->obj)
		jb_printf(&t, "prog=%.100s %.100s %s\n", bpf_program__name(p),
			  bpf_program__section_name(p), bpf_program__autoload(p) ? "attached" : "off");
	bpf_object__for_each_map(m, o->obj) {
		if (bpf_map__is_internal(m))
			continue;
		jb_printf(&t, "map=%.100s %s %u %u %u %u %u\n", bpf_map__name(m),
			  map_type_name(bpf_map__type(m)), bpf_map__key_size(m),
			  bpf_map__value_size(m), bpf_map__max_entries(m),
			  btf ? bpf_map__btf_key_type_id(m) : 0,
			  btf ? bpf_map__btf_value_type_id(m) : 0);
	}
	for (i = 0; i < bo->nev; i++) {
		struct uev *u = &bo->ev[i];

		if (u->o != o)
			continue;
		jb_printf(&t, "event=%.100s %.100s %.60s records=%" PRIu64 " raw=%" PRIu64
			  " truncated=%" PRIu64 " ", bpf_map__name(u->map), u->name,
			  u->fmt ? u->strct : "raw", u->records, u->raw, u->truncated);
		if (u->pb)
			jb_printf(&t, "drops=%" PRIu64 "\n", u->lost);
		else if (u->drops_var)
			jb_printf(&t, "drops=%" PRIu64 "\n", *u->drops_var);
		else
			jb_printf(&t, "drops=unknown\n");
	}
	if (bo->snaps_skipped)
		jb_printf(&t, "snapshots_skipped=%" PRIu64 "\n", bo->snaps_skipped);
	if (btf)
		raw = btf__raw_data(btf, &rawlen);
	if (t.oom || (uint64_t)sizeof(h) + t.len + rawlen > UINT32_MAX) {
		jb_release(&t);
		return -ENOMEM;
	}
	h.text_len = t.len;
	h.btf_len = raw ? rawlen : 0;
	jb_put(&all, (const char *)&h, sizeof(h));
	jb_put(&all, t.p, t.len);
	if (raw)
		jb_put(&all, raw, rawlen);
	ret = all.oom ? -ENOMEM : fmt_writer_option(w, FMT_OPT_FT_BPFOBJ, all.p, all.len);
	jb_release(&t);
	jb_release(&all);
	return ret;
}

/* ---- the hooks ------------------------------------------------------------------------------ */

static int sample_drops(struct bpfobj *bo, uint64_t now)
{
	int i, ret;

	for (i = 0; i < bo->nev; i++) {
		struct uev *u = &bo->ev[i];
		uint64_t v;

		if (!u->drops_var)
			continue;
		v = *u->drops_var;
		if (v > u->drops_prev) {
			ret = rec_bpf_ext_drop(bo->b, now, 0, u->slot, v - u->drops_prev);
			if (ret)
				return ret;
			u->lost += v - u->drops_prev;
		}
		u->drops_prev = v;
	}
	return 0;
}

static int hook_poll(void *ctx, bool final)
{
	struct bpfobj *bo = ctx;
	uint64_t now = mono_ns();
	int i, n = 0, ret;

	for (i = 0; i < bo->nev; i++) {
		if (!bo->ev[i].pb)
			continue;
		ret = perf_buffer__consume(bo->ev[i].pb);
		if (ret < 0)
			return rec_bpf_ext_error(bo->b, ret, "cannot read a BPF perf buffer");
		n += ret;
	}
	if ((final || now >= bo->next_drops) && (ret = sample_drops(bo, now)))
		return ret;
	if (now >= bo->next_drops)
		bo->next_drops = now + DROP_SAMPLE_NS;
	if (!final && bo->o.snapshot_ns && now >= bo->next_snap) {
		size_t before = bo->nsnaps, k;

		bo->next_snap = now + bo->o.snapshot_ns;
		if (bo->snap_mem > MAX_SNAP_MEM) {
			bo->snaps_skipped++;
			return n;
		}
		ret = snap_all(bo, 1, &bo->snaps, &bo->nsnaps);
		if (ret)
			return rec_bpf_ext_error(bo->b, ret, "cannot read a BPF map");
		for (k = before; k < bo->nsnaps; k++)
			bo->snap_mem += bo->snaps[k].text.len;
	}
	return n;
}

static void detach(struct bpfobj *bo)
{
	int k, i;

	for (k = 0; k < bo->nobjs; k++) {
		struct uobj *o = &bo->objs[k];

		for (i = o->nlinks - 1; i >= 0; i--)
			bpf_link__destroy(o->links[i]);
		o->nlinks = 0;
		for (i = 0; i < o->nperf; i++)
			close(o->perf_fds[i]);
		o->nperf = 0;
	}
}

static int hook_stop(void *ctx)
{
	struct bpfobj *bo = ctx;
	size_t before = bo->nsnaps;
	int ret;

	detach(bo);
	bo->stopped = true;
	/* the programs are gone: the maps hold their last word */
	ret = snap_all(bo, 0, &bo->snaps, &bo->nsnaps);
	(void)before;
	return ret ? rec_bpf_ext_error(bo->b, ret, "cannot read a BPF map at the end") : 0;
}

static int hook_formats(void *ctx, struct fmt_writer *w)
{
	struct bpfobj *bo = ctx;
	int i, ret = 0;

	for (i = 0; i < bo->nev && !ret; i++) {
		struct uev *u = &bo->ev[i];

		if (u->fmt)
			ret = fmt_writer_event_format(w, REC_BPF_SYSTEM, u->fmt, strlen(u->fmt));
		if (!ret)
			ret = fmt_writer_event_format(w, REC_BPF_SYSTEM, u->raw_fmt,
						      strlen(u->raw_fmt));
	}
	return ret ? rec_bpf_ext_error(bo->b, ret, "cannot store the format of a --bpf-object event") : 0;
}

static int hook_options(void *ctx, struct fmt_writer *w, bool final)
{
	struct bpfobj *bo = ctx;
	struct rec_snap *now = NULL;
	size_t nnow = 0, k;
	int i, ret = 0;

	for (i = 0; i < bo->nobjs && !ret; i++)
		ret = write_obj(bo, &bo->objs[i], w);
	for (k = 0; k < bo->nsnaps && !ret; k++)
		ret = write_snap(w, &bo->snaps[k]);
	/* a dump: the maps as they are now, too */
	if (!ret && !final && !bo->stopped)
		ret = snap_all(bo, 2, &now, &nnow);
	for (k = 0; k < nnow; k++) {
		if (!ret)
			ret = write_snap(w, &now[k]);
		snap_release(&now[k]);
	}
	free(now);
	return ret ? rec_bpf_ext_error(bo->b, ret, "cannot store the --bpf-object maps") : 0;
}

static void hook_close(void *ctx)
{
	struct bpfobj *bo = ctx;
	size_t k;
	int i;

	if (!bo)
		return;
	detach(bo);
	for (i = 0; i < bo->nev; i++) {
		perf_buffer__free(bo->ev[i].pb);
		if (bo->ev[i].drops_mem)
			munmap(bo->ev[i].drops_mem, bo->ev[i].drops_len);
		free(bo->ev[i].fmt);
		free(bo->ev[i].raw_fmt);
	}
	free(bo->ev);
	for (i = 0; i < bo->nobjs; i++) {
		struct uobj *o = &bo->objs[i];

		bpf_object__close(o->obj);
		free(o->links);
		free(o->perf_fds);
		free(o->path);
		free(o->name);
		jb_release(&o->sets);
	}
	free(bo->objs);
	for (k = 0; k < bo->nsnaps; k++)
		snap_release(&bo->snaps[k]);
	free(bo->snaps);
	free(bo);
}

static const struct rec_bpf_ext hooks = {
	.poll = hook_poll, .stop = hook_stop, .formats = hook_formats,
	.options = hook_options, .close = hook_close,
};

/* ---- open ---------------------------------------------------------------------------------- */

static int open_obj(struct bpfobj *bo, struct uobj *o, const char *path, char **err)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	struct jbuf said = { 0 };
	libbpf_print_fn_t old;
	char real[PATH_MAX];
	int ret, k;

	o->path = strdup(realpath(path, real) ? real : path);
	o->name = obj_name(path);
	if (!o->path || !o->name)
		return -ENOMEM;
	for (k = 0; k < bo->nobjs; k++)
		if (&bo->objs[k] != o && bo->objs[k].name && !strcmp(bo->objs[k].name, o->name)) {
			*err = ft_asprintf("--bpf-object '%s': another object is named '%s' too",
					 path, o->name);
			return -EINVAL;
		}
	ret = hash_file(o);
	if (ret) {
		*err = ft_asprintf("--bpf-object '%s': %s", path, strerror(-ret));
		return ret;
	}
	oo.object_name = o->name;
	/* libbpf's own words go into the message, not on stderr beside it */
	capture = &said;
	capture_verbose = bo->o.verbose;
	old = libbpf_set_print(capture_print);
	o->obj = bpf_object__open_file(path, &oo);
	ret = o->obj ? 0 : -errno;
	libbpf_set_print(old);
	capture = NULL;
	if (ret) {
		char why[128];

		libbpf_strerror(ret, why, sizeof(why));
		*err = ft_asprintf("--bpf-object '%s': not a BPF object libbpf can open: %s", path,
				 why);
		ret = ret == -ENOENT ? -ENOENT : -EINVAL;
	}
	jb_release(&said);
	return ret;
}

static int count_event_maps(struct bpf_object *obj, int *rings)
{
	struct bpf_map *m;
	int n = 0;

	*rings = 0;
	bpf_object__for_each_map(m, obj) {
		if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF)
			(*rings)++;
		if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF ||
		    bpf_map__type(m) == BPF_MAP_TYPE_PERF_EVENT_ARRAY)
			n++;
	}
	return n;
}

int rec_bpfobj_attach(struct rec_bpf *b, const struct rec_bpfobj_opts *o, char **err)
{
	struct bpfobj *bo = calloc(1, sizeof(*bo));
	int i, ret = 0, nev = 0, rings;

	*err = NULL;
	if (!bo || !(bo->objs = calloc(o->npaths, sizeof(*bo->objs)))) {
		free(bo);
		return -ENOMEM;
	}
	bo->b = b;
	bo->o = *o;
	/* the page header (16 bytes) and the largest event header (8: type_len 0 + length) */
	bo->max_payload = rec_bpf_page_size(b) - 16 - 8;
	/* from here b owns bo: rec_bpf_close() frees everything, detaching first */
	rec_bpf_set_ext(b, &hooks, bo);
	for (i = 0; i < o->npaths && !ret; i++) {
		ret = open_obj(bo, &bo->objs[i], o->paths[i], err);
		bo->nobjs = i + 1;
	}
	if (!ret)
		ret = apply_sets(bo, err);
	for (i = 0; i < bo->nobjs && !ret; i++)
		ret = load_obj(&bo->objs[i], o->verbose, err);
	for (i = 0; i < bo->nobjs && !ret; i++) {
		int r;

		nev += count_event_maps(bo->objs[i].obj, &r);
	}
	if (!ret && !(bo->ev = calloc(nev ? nev : 1, sizeof(*bo->ev))))
		ret = -ENOMEM;
	for (i = 0; i < bo->nobjs && !ret; i++) {
		struct uobj *uo = &bo->objs[i];
		struct bpf_map *m;

		count_event_maps(uo->obj, &rings);
		bpf_object__for_each_map(m, uo->obj) {
			if (bpf_map__type(m) != BPF_MAP_TYPE_RINGBUF &&
			    bpf_map__type(m) != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
				continue;
			ret = setup_event(bo, uo, m, rings, err);
			if (ret)
				break;
		}
	}
	for (i = 0; i < bo->nobjs && !ret; i++) {
		struct uobj *uo = &bo->objs[i];
		struct bpf_program *p;

		bpf_object__for_each_program(p, uo->obj) {
			ret = attach_prog(bo, uo, p, err);
			if (ret)
				break;
		}
		if (!ret && ft_verbose)
			ft_info("bpf: object %s: %d links", uo->name, uo->nlinks);
	}
	bo->next_drops = mono_ns() + DROP_SAMPLE_NS;
	bo->next_snap = mono_ns() + o->snapshot_ns;
	if (ret) {
		if (!*err)
			*err = ft_asprintf("--bpf-object: %s", strerror(-ret));
		/* nothing stays attached: the links go now, the rest with rec_bpf_close() */
		detach(bo);
	}
	return ret;
}
