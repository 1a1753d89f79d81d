// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap callgraph: call trees with count, total and self weight per node,
 * merged or per task, from whatever the file has:
 *
 *  calls    (weight: ns)  kernel function_graph entry/exit records, uprobe
 *                          entry/return events (any names: a return pairs
 *                          with the entry of its function address), BPF
 *                          ufunc entry/exit records; one stack per task,
 *                          kernel calls nest under the user call that made
 *                          them;
 *  samples  (weight: 1)   ftrace kernel_stack/user_stack events (a
 *                          user_stack right after a kernel_stack of the same
 *                          task on that CPU makes one sample) and BPF
 *                          profile records;
 *  offcpu   (weight: ns)  BPF offcpu records, weighted by blocked time;
 *  bpf-stacks (weight: counts) stack ids of a record --bpf-object program:
 *                          a hash map's counts keyed by them (its last
 *                          snapshot), or its ring buffer records carrying
 *                          them, joined to the object's STACK_TRACE map.
 *
 * Memory is bounded by the number of distinct call paths and tasks: each
 * tree node is keyed by (parent, frame) and frames are interned names.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/analyzers/callgraph.h"
#include "report/analyzers/callgraph_int.h"
#include "report/core/calls.h"
#include "report/out/flamesvg.h"
#include "flytrap.h"
#include "format/ftmeta.h"
#include "report/core/bpfstacks.h"
#include "report/core/replay.h"
#include "report/out/outfile.h"
#include "report/syms/symbols.h"
#include "report/syms/unwind.h"

#define MAX_STACK 512		/* call nesting kept per task */
#define MAX_FRAMES 256		/* frames per stack sample */
/*
 * Frame ids with TASK_FRAME are the group frames --group puts on top: a pid
 * ("comm-pid"), or with COMM_FRAME too an interned task name.
 */
#define TASK_FRAME 0x80000000u
#define COMM_FRAME 0x40000000u
/*
 * A range after the file's first (ranged analysis, "ranges" below): the
 * node standing for a task's calls open before the range, at one level
 * of them (PH_FRAME | index into callgraph.ph); only in such a range's
 * tree, never in a result.
 */
#define PH_FRAME COMM_FRAME

const char *const rpt_cg_src_names[S_NR] = { "calls", "samples", "offcpu", "bpf-stacks" };
static const char *const src_units[S_NR] = { "ns", "samples", "ns", "samples" };

enum ckind {
	CK_OTHER = 1,
	CK_FG_ENTRY,		/* funcgraph_entry: func, depth */
	CK_FG_EXIT,		/* funcgraph_exit: func, depth, calltime, rettime */
	CK_UP_ENTRY,		/* uprobe entry: __probe_ip, name from the event */
	CK_UP_RETURN,		/* uretprobe: __probe_func, the entry's __probe_ip */
	CK_UF_ENTRY,		/* flytrap:ufunc_entry: func index, depth */
	CK_UF_EXIT,		/* flytrap:ufunc_exit: func, depth, flags, duration */
	CK_KF_ENTRY,		/* flytrap:kfunc_entry: the ufunc layout, names from bpf_kfunc= */
	CK_KF_EXIT,
	CK_KSTACK,		/* ftrace kernel_stack: size, caller[] */
	CK_USTACK,		/* ftrace user_stack: tgid, caller[] */
	CK_BPF_PROFILE,		/* flytrap:profile: tgid, kstack, ustack */
	CK_BPF_OFFCPU,		/* flytrap:offcpu: tgid, duration, kstack, ustack */
	CK_BPF_UCOPY,		/* flytrap:ucopy_more: the rest of a stack copy */
	CK_BPF_USER,		/* a --bpf-object ring buffer's record with stack id fields */
	CK_FORK,		/* sched_process_fork: a process runs its parent's image ... */
	CK_EXEC,		/* sched_process_exec: ... until it execs */
};

struct ctype {
	int kind;
	uint32_t frame; /* uprobe: interned event name (entry), conventional name (return) */
	int uev;	/* CK_BPF_USER: index into callgraph.uevs */
};

/* the fields of a --bpf-object ring buffer's event that bpf-stacks reads (NULL: none) */
struct uev {
	int src;		/* its source (report/core/bpfstacks.h) */
	int nids;
	const struct tep_format_field *ids[RPT_BPFSTK_IDS];
	int maps[RPT_BPFSTK_IDS];	/* the stack map of each id */
	int side[RPT_BPFSTK_IDS];	/* what the id's name says (RPT_BPFSTK_USER...) */
	const struct tep_format_field *pid, *tgid, *comm;
};

/* ring buffer records of one source, task and stack ids: counted, joined at the end */
struct ragg {
	int src;
	struct rpt_bpfstk_sample smp;
};

struct node {
	uint32_t parent, frame, first_child, next_sibling;
	uint64_t count, total, self;
};

struct tree {
	struct node *nodes;
	uint32_t n, cap;
	struct rpt_map index;	/* parent << 32 | frame -> uint32_t node */
};

struct cframe {
	/* first: how it pairs (report/core/calls.h); a uprobe's name is its event name's frame */
	struct rpt_call call;
	uint32_t node, frame;
	uint64_t start, child;
};

/*
 * In a range after the first, what a task's calls did to those open before
 * the range (unknown until the ranges merge): an entry that may end some
 * of them (function_graph, by depth), or an exit that closes one.
 */
enum { BOP_ENTRY = 1, BOP_EXIT };
struct bop {
	struct rpt_call pc;
	uint8_t kind;
	bool has_dur;
	uint64_t ts, dur;
	uint64_t child;		/* time of calls completed under the level this op ends */
};

struct ctask {
	struct rpt_calls calls;	/* of struct cframe */
	uint32_t base;		/* node under which this task's calls hang */
	bool has_base;
	/*
	 * A range after the first: calls holds only the range's own calls.
	 * Those open before it sit under a placeholder node per level, a
	 * level ending at each op that may change them.
	 */
	uint32_t ph_node;	/* the current level's placeholder node, UINT32_MAX: none yet */
	uint64_t fg_bound;	/* function_graph calls open before are shallower than this */
	uint64_t ph_child;	/* calls completed right under the current level */
	int maxd;		/* most calls of its own at a push */
	struct bop *ops;
	uint32_t nops, cops;
	uint32_t *lvl_to;	/* the merge's: each level's node in the range before */
};

struct pending_kstack {
	bool has;
	int pid;
	int n;
	uint64_t addr[MAX_FRAMES];
};

/* a placeholder node of a range after the first: its task and level */
struct ph {
	uint64_t task;
	uint32_t level, node;
};

/*
 * A range after the first, per CPU: the first event that would have used a
 * pending kernel_stack of the range before (a user_stack, kept to join it
 * when the ranges merge, or one that ends it), where it fell among the
 * samples tree's new nodes; and the first stack copy part or record.
 */
enum { PF_NONE, PF_USTACK, PF_FLUSH };
struct cpu_first {
	uint8_t pend;
	uint32_t at;		/* trees[S_SAMPLES].n then */
	uint64_t seq;
	int pid, tgid, un;	/* PF_USTACK */
	uint64_t *ua;
	/*
	 * the first stack copy part (its task and offset), and a record
	 * before it that could have joined parts (its task and own size)
	 */
	bool add, join, join_many;	/* join_many: records of other tasks or sizes too */
	int add_pid, join_pid;
	uint32_t add_off, join_own;
};

/* the parts of a stack copy that came in flytrap:ucopy_more events, before their record */
#define UCOPY_MAX 16384
struct ucopy_more {
	int pid;
	uint32_t start, len;	/* offset into the copy of buf[0], bytes in buf */
	uint8_t buf[UCOPY_MAX];
};

struct ucache {
	uint64_t addr;
	int tgid;
	uint32_t frame;
	bool named;		/* a function's name, not "[binary]" or "[unknown]" */
	int8_t exec;		/* rpt_syms_user_exec(): 1, 0, -1 unknown */
	uint8_t ninl;		/* functions inlined at addr: callgraph.inl[inl...], outermost first */
	uint32_t inl;
};

/* the mark of a stack copy that ended before its size at a page not readable */
#define STACK_UNREADABLE "stack page not readable at the sample"

const char *const rpt_cg_cut_reasons[CUT_NR] = { "outside executable mappings", "repeated frame" };
const char *const rpt_cg_cut_keys[CUT_NR] = { "outside_mappings", "repeated_frame" };

struct callgraph {
	const struct rpt_callgraph_conf *conf;
	struct rpt_types types;
	struct tree trees[S_NR];
	struct rpt_map tasks;		/* task key -> struct ctask (calls) */
	/* interned frame names */
	struct rpt_map names;		/* hash -> uint32_t id */
	char **frames;
	uint32_t nframes, fcap;
	struct rpt_map kcache;		/* kernel addr -> uint32_t frame */
	struct rpt_map ucache;		/* hash(tgid, addr) -> struct ucache */
	struct rpt_map pcache; /* hash(tgid, probe addr) -> struct ucache (frame or NO_FRAME) */
	uint32_t *inl;			/* the frames of ucache's inline chains */
	size_t ninl, cinl;
	uint8_t *finl;			/* per frame id: an inlined function (INLINED) */
	uint32_t nfinl;
	struct rpt_syms *syms;
	const struct rpt_ctx *ctx;	/* the event's (cg_event): task names for --group */
	char **ufunc_names;		/* BPF ufunc index -> name */
	int nufunc;
	char **kfunc_names;		/* BPF kfunc index -> name */
	int nkfunc;
	int ncpu_pend;
	struct pending_kstack *pend;
	uint64_t unmatched, lost_frames, too_deep, calls_total;
	uint64_t frameless[S_NR];	/* stack records without a single frame */
	/* user stacks, and those cut where the unwind broke */
	uint64_t stacks[S_NR], cut[S_NR][CUT_NR];
	/* --user-stack cfi|dwarf (META bpf_user_stack=): the unwind from the stack copies */
	int uw_mode;			/* 0 none (fp, or an older file), 1 cfi, 2 dwarf */
	unsigned uw_bytes[S_NR];	/* the copy size the recorder asked for (0: unknown) */
	/*
	 * pid -> the tgid whose image a forked process runs until it execs
	 * (0: it has exec'd); the file's maps of a process are those of its
	 * last image, so a sample before the exec is named from the parent's
	 */
	struct rpt_map image_of;
	uint64_t pre_exec[S_NR];	/* user stacks named from the parent's image */
	uint64_t earlier[S_NR];		/* ... from an image the process ran until an exec */
	enum rpt_unwind_arch uw_arch;
	struct rpt_unwind *uw;		/* made at the first copy */
	struct ucopy_more *more;	/* per CPU: flytrap:ucopy_more parts before their record */
	int nmore;
	uint8_t *whole;			/* a copy joined from its parts */
	bool uw_failed;			/* ... or could not be */
	uint64_t uw_stacks[S_NR], uw_spliced[S_NR], uw_complete[S_NR], uw_marked[S_NR];
	uint64_t uw_fponly[S_NR];	/* the IP's binary missing: the frame-pointer walk kept */
	/* bpf-stacks: the file's sources of stack ids and their stack maps */
	struct rpt_bpfstk *bstk;
	struct uev *uevs;
	int nuevs;
	struct rpt_map ragg;		/* hash of (source, task, ids) -> struct ragg */
	bool *ring_seen;		/* per source: a record with stack ids came */
	int bpf_src;			/* the source shown, -1 none */
	uint64_t bpf_nc, bpf_missing, bpf_skipped;
	const char *ovr_comm;		/* a bpf-stacks sample's task name and process, */
	int ovr_tgid;			/* for --group (NULL, -1: the file's) */
	bool oom;
	/*
	 * Ranged analysis: a range after the file's first (tail), what it
	 * cannot decide alone (unsure: the merge hands the file to one
	 * replay), its placeholders, its CPUs' first stack events, and the
	 * pids whose image it looked up before it saw their fork or exec.
	 */
	bool tail, unsure, ranged;
	struct ph *ph;
	uint32_t nph, cph;
	struct cpu_first *cf;
	int ncf;
	uint64_t cf_seq;
	struct rpt_map img_miss;
};

/* ---- frames ------------------------------------------------------------------- */

static uint32_t intern(struct callgraph *g, const char *name)
{
	uint64_t h = rpt_hash_str(name);
	bool created;
	uint32_t *id;

	/* a 64-bit FNV hash: a collision between two frame names is not a practical concern */
	id = rpt_map_get(&g->names, h, &created);
	if (!id) {
		g->oom = true;
		return 0;
	}
	if (!created)
		return *id;
	if (g->nframes == g->fcap) {
		uint32_t nc = g->fcap ? g->fcap * 2 : 1024;
		char **nf = realloc(g->frames, nc * sizeof(*nf));

		if (!nf) {
			g->oom = true;
			return 0;
		}
		g->frames = nf;
		g->fcap = nc;
	}
	if (!g->nframes)
		g->frames[g->nframes++] = strdup("all");
	g->frames[g->nframes] = strdup(name);
	if (!g->frames[g->nframes]) {
		g->oom = true;
		return 0;
	}
	*id = g->nframes++;
	return *id;
}

static uint32_t kframe(struct callgraph *g, uint64_t addr)
{
	bool created;
	uint32_t *c = rpt_map_get(&g->kcache, addr, &created);
	const char *nm;
	char buf[40];

	if (!c) {
		g->oom = true;
		return 0;
	}
	if (!created)
		return *c;
	nm = rpt_syms_kernel(g->syms, addr, NULL);
	if (!nm) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
		nm = buf;
	}
	*c = intern(g, nm);
	return *c;
}

static void set_inlined(struct callgraph *g, uint32_t id);

/* frame id of "NAME (inlined)", marked as an inlined function's */
static uint32_t inlined_frame(struct callgraph *g, const char *name)
{
	char buf[600];
	uint32_t id;

	snprintf(buf, sizeof(buf), "%s" INLINED, name);
	id = intern(g, buf);
	if (g->oom)
		return 0;
	set_inlined(g, id);
	return g->oom ? 0 : id;
}

/* mark frame id as an inlined function's */
static void set_inlined(struct callgraph *g, uint32_t id)
{
	if (id >= g->nfinl) {
		uint32_t nc = g->nfinl ? g->nfinl : 1024;
		uint8_t *nf;

		while (nc <= id)
			nc *= 2;
		nf = realloc(g->finl, nc);
		if (!nf) {
			g->oom = true;
			return;
		}
		memset(nf + g->nfinl, 0, nc - g->nfinl);
		g->finl = nf;
		g->nfinl = nc;
	}
	g->finl[id] = 1;
}

/* the functions inlined at addr (DWARF), into u's chain; none with --no-inline */
static void uframe_inline(struct callgraph *g, int tgid, uint64_t addr, struct ucache *u)
{
	const char *nm[RPT_SYMS_MAX_INLINE];
	int n = g->conf->no_inline ? 0 : rpt_syms_user_inline(g->syms, tgid, addr, nm,
								 RPT_SYMS_MAX_INLINE);
	int k;

	u->ninl = 0;
	u->inl = 0;
	if (n <= 0)
		return;
	if (g->ninl + (size_t)n > g->cinl) {
		size_t nc = g->cinl ? 2 * g->cinl : 1024;
		uint32_t *ni;

		while (nc < g->ninl + (size_t)n)
			nc *= 2;
		ni = nc <= UINT32_MAX ? realloc(g->inl, nc * sizeof(*ni)) : NULL;
		if (!ni) {
			g->oom = true;
			return;
		}
		g->inl = ni;
		g->cinl = nc;
	}
	u->inl = (uint32_t)g->ninl;
	for (k = 0; k < n; k++)
		g->inl[g->ninl++] = inlined_frame(g, nm[k]);
	u->ninl = (uint8_t)n;
}

/*
 * frame, whether it has a function's name, whether addr is executable code
 * of tgid, and the functions inlined there
 */
static struct ucache uframe(struct callgraph *g, int tgid, uint64_t addr)
{
	uint64_t key = addr * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uint32_t)tgid;
	bool created;
	struct ucache *c = rpt_map_get(&g->ucache, key, &created), u;
	const char *nm, *dso;
	char buf[300];

	if (c && !created && c->addr == addr && c->tgid == tgid)
		return *c;
	nm = rpt_syms_user(g->syms, tgid, addr, &dso, NULL);
	u.named = nm != NULL;
	if (!nm) {
		/* unresolved user frames merge per binary, like perf's "[unknown]" */
		if (dso)
			snprintf(buf, sizeof(buf), "[%s]", dso);
		else
			snprintf(buf, sizeof(buf), "[unknown]");
		nm = buf;
	}
	u.addr = addr;
	u.tgid = tgid;
	u.frame = intern(g, nm);
	u.exec = (int8_t)rpt_syms_user_exec(g->syms, tgid, addr);
	u.ninl = 0;
	u.inl = 0;
	/* a hash collision (not cached) would add the chain again each time: none then */
	if (u.named && (!c || created))
		uframe_inline(g, tgid, addr, &u);
	if (c && created)
		*c = u;
	return u;
}

/* ---- trees -------------------------------------------------------------------- */

static int tree_init(struct tree *t)
{
	rpt_map_init(&t->index, sizeof(uint32_t));
	t->nodes = calloc(64, sizeof(*t->nodes));
	if (!t->nodes)
		return -ENOMEM;
	t->cap = 64;
	t->n = 1;	/* node 0: the root */
	t->nodes[0].parent = UINT32_MAX;
	t->nodes[0].first_child = t->nodes[0].next_sibling = UINT32_MAX;
	return 0;
}

static void tree_release(struct tree *t)
{
	free(t->nodes);
	rpt_map_release(&t->index);
	memset(t, 0, sizeof(*t));
}

static uint32_t child(struct callgraph *g, struct tree *t, uint32_t parent, uint32_t frame)
{
	bool created;
	uint32_t *ix = rpt_map_get(&t->index, (uint64_t)parent << 32 | frame, &created);
	struct node *nd;

	if (!ix) {
		g->oom = true;
		return 0;
	}
	if (!created)
		return *ix;
	if (t->n == t->cap) {
		uint32_t nc = t->cap * 2;
		struct node *nn = realloc(t->nodes, (size_t)nc * sizeof(*nn));

		if (!nn) {
			g->oom = true;
			*ix = 0;
			return 0;
		}
		t->nodes = nn;
		t->cap = nc;
	}
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->parent = parent;
	nd->frame = frame;
	nd->first_child = UINT32_MAX;
	nd->next_sibling = t->nodes[parent].first_child;
	t->nodes[parent].first_child = t->n;
	*ix = t->n++;
	return *ix;
}

/*
 * The node under which a task's stacks go: the root, or its group frame (its
 * name as it is now, or "comm-pid" of its process or thread).
 */
static uint32_t task_base(struct callgraph *g, struct tree *t, int pid)
{
	uint32_t id;

	switch (g->conf->group) {
	case RPT_CG_GROUP_COMM:
		id = intern(g, g->ovr_comm ? g->ovr_comm : rpt_comm(g->ctx, pid));
		if (g->oom || id >= COMM_FRAME)
			return 0;
		return child(g, t, 0, TASK_FRAME | COMM_FRAME | id);
	case RPT_CG_GROUP_PROCESS:
		pid = g->ovr_tgid >= 0 ? g->ovr_tgid : rpt_tgid(g->ctx, pid);
		/* fall through */
	case RPT_CG_GROUP_THREAD:
		return child(g, t, 0, TASK_FRAME | ((uint32_t)pid & (COMM_FRAME - 1)));
	default:
		return 0;
	}
}

/* ---- classification ---------------------------------------------------------------- */

/*
 * What callgraph does with each kind of report/core/kinds.h (absent: nothing,
 * CK_OTHER): its table and the kinds it reads (CG_KINDS), from one list.
 */
#define CG_KIND_LIST(X) \
	X(FG_ENTRY, CK_FG_ENTRY) \
	X(FG_EXIT, CK_FG_EXIT) \
	X(KSTACK, CK_KSTACK) \
	X(USTACK, CK_USTACK) \
	X(BPF_PROFILE, CK_BPF_PROFILE) \
	X(BPF_OFFCPU, CK_BPF_OFFCPU) \
	X(BPF_UCOPY, CK_BPF_UCOPY) \
	X(BPF_UFUNC_ENTRY, CK_UF_ENTRY) \
	X(BPF_UFUNC_EXIT, CK_UF_EXIT) \
	X(BPF_KFUNC_ENTRY, CK_KF_ENTRY) \
	X(BPF_KFUNC_EXIT, CK_KF_EXIT) \
	X(PROBE_ENTRY, CK_UP_ENTRY) \
	X(PROBE_RET, CK_UP_RETURN) \
	X(PROCESS_FORK, CK_FORK) \
	X(PROCESS_EXEC, CK_EXEC)
static const unsigned char ckind_of[RPT_K_NR] = { CG_KIND_LIST(RPT_KIND_ENTRY) };

#define CG_KINDS (0 CG_KIND_LIST(RPT_KIND_MASK))

/* an integer field of at most 8 bytes, not an array or a pointer */
static bool int_field(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_POINTER |
			     TEP_FIELD_IS_STRING)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

/*
 * The event of a --bpf-object ring or perf buffer (report/core/bpfstacks.h
 * knows their names) whose record has stack id fields: a bpf-stacks record.
 */
static void user_event(struct callgraph *g, struct ctype *t, const struct tep_event *e)
{
	const struct tep_format_field *f;
	struct uev u, *nu;
	int src;

	if (!e->system || strcmp(e->system, "flytrap") || !e->name ||
	    (src = rpt_bpfstk_find_event(g->bstk, e->name)) < 0)
		return;
	memset(&u, 0, sizeof(u));
	u.src = src;
	for (f = e->format.fields; f; f = f->next) {
		size_t nl = f->name ? strlen(f->name) : 0;

		if (!nl)
			continue;
		if (int_field(f) && f->size >= 4 && rpt_bpfstk_is_id_name(f->name, nl)) {
			if (u.nids == RPT_BPFSTK_IDS)
				continue;
			u.ids[u.nids] = f;
			u.maps[u.nids] = rpt_bpfstk_map_for(g->bstk, src, f->name, nl);
			u.side[u.nids++] = rpt_bpfstk_side(f->name, nl);
		} else if (int_field(f) && f->size == 4 &&
			   (!strcmp(f->name, "pid") || !strcmp(f->name, "tid"))) {
			u.pid = f;
		} else if (int_field(f) && f->size == 4 && !strcmp(f->name, "tgid")) {
			u.tgid = f;
		} else if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
			   (!strcmp(f->name, "comm") || !strcmp(f->name, "name"))) {
			u.comm = f;
		}
	}
	if (!u.nids)
		return;
	nu = realloc(g->uevs, (size_t)(g->nuevs + 1) * sizeof(*nu));
	if (!nu) {
		g->oom = true;
		return;
	}
	g->uevs = nu;
	g->uevs[g->nuevs] = u;
	t->uev = g->nuevs++;
	t->kind = CK_BPF_USER;
}

/*
 * What callgraph does with an event id, from its first record r (NULL:
 * a kind callgraph does not read).  Whether a format has the fields that
 * make a record worth drawing holds for every record of the id, so it is
 * decided here once.  A uprobe's frame is the entry's name (for a return:
 * the name rpt_probe_entry_name() pairs it with).
 */
static void classify(struct callgraph *g, struct ctype *t, const struct tep_event *e,
		     const struct rpt_rec *r)
{
	char name[256];

	t->kind = r && ckind_of[r->kind] ? ckind_of[r->kind] : CK_OTHER;
	if (e && t->kind == CK_OTHER && g->bstk) {
		user_event(g, t, e);	/* its fields are read from the format, not a typed record */
		return;
	}
	if (!e || t->kind == CK_OTHER)
		return;
	switch (r->kind) {
	case RPT_K_BPF_PROFILE:
	case RPT_K_BPF_OFFCPU:
		/* an off-CPU record without its stacks has nothing to draw */
		if (!r->smp.has_stacks)
			t->kind = CK_OTHER;
		break;
	case RPT_K_BPF_UCOPY:
		/* a part of a stack copy is a __data_loc array, or none */
		if (!r->ucopy.has_copy)
			t->kind = CK_OTHER;
		break;
	case RPT_K_PROBE_RET:
		t->frame = intern(g, rpt_probe_entry_name(e->name, name, sizeof(name)));
		break;
	case RPT_K_PROBE_ENTRY:
		t->frame = intern(g, e->name);
		break;
	default:
		break;
	}
}

/* ---- calls ----------------------------------------------------------------------- */

static uint64_t task_key(const struct fmt_event *ev, int pid)
{
	/* the idle tasks of all CPUs share pid 0 but not their call stacks */
	if (pid == 0)
		return 1ULL << 40 | (uint32_t)ev->rec.cpu;
	return (uint32_t)pid;
}

static struct ctask *ctask_get(struct callgraph *g, const struct fmt_event *ev, int pid)
{
	struct ctask *t = rpt_map_get(&g->tasks, task_key(ev, pid), NULL);

	if (!t) {
		g->oom = true;
		return NULL;
	}
	if (!t->has_base) {
		t->base = task_base(g, &g->trees[S_CALLS], pid);
		t->has_base = true;
		rpt_calls_init(&t->calls, sizeof(struct cframe));
		t->ph_node = UINT32_MAX;
		t->fg_bound = UINT64_MAX;	/* unknown: a depth is 32 bits */
	}
	return t;
}

/*
 * A range after the first: the node the task's calls hang under when none
 * of its own is open, the placeholder of the calls open before the range
 * at the current level (made on first use).
 */
static uint32_t ph_parent(struct callgraph *g, struct ctask *t, uint64_t key)
{
	if (t->ph_node != UINT32_MAX)
		return t->ph_node;
	if (g->nph == g->cph) {
		uint32_t nc = g->cph ? 2 * g->cph : 64;
		struct ph *np = nc < COMM_FRAME ? realloc(g->ph, nc * sizeof(*np)) : NULL;

		if (!np) {
			g->oom = true;
			return t->base;
		}
		g->ph = np;
		g->cph = nc;
	}
	g->ph[g->nph] = (struct ph){ .task = key, .level = t->nops,
				     .node = child(g, &g->trees[S_CALLS], t->base, PH_FRAME | g->nph) };
	t->ph_node = g->ph[g->nph++].node;
	return t->ph_node;
}

/* a range after the first: an op on the calls open before it; a new level follows */
static struct bop *bop_add(struct callgraph *g, struct ctask *t, int kind, const struct rpt_call *pc)
{
	struct bop *b;

	if (t->nops == t->cops) {
		uint32_t nc = t->cops ? 2 * t->cops : 4;
		struct bop *nb = realloc(t->ops, nc * sizeof(*nb));

		if (!nb) {
			g->oom = true;
			return NULL;
		}
		t->ops = nb;
		t->cops = nc;
	}
	b = &t->ops[t->nops++];
	memset(b, 0, sizeof(*b));
	b->kind = (uint8_t)kind;
	b->pc = *pc;
	b->child = t->ph_child;
	t->ph_child = 0;
	t->ph_node = UINT32_MAX;
	return b;
}

static struct cframe *top_frame(const struct ctask *t)
{
	return t->calls.n ? rpt_calls_at(&t->calls, t->calls.n - 1) : NULL;
}

/* frames on top that never returned (lost exits, longjmp): gone, counted */
static void drop_lost(struct callgraph *g, struct ctask *t, int n)
{
	g->lost_frames += (uint64_t)n;
	t->calls.n -= n;
}

/* an entry: the frames it ends first (calls.h), then its own, under the top one */
static struct cframe *enter(struct callgraph *g, struct ctask *t, uint64_t key, uint32_t frame,
			    const struct rpt_call *pc, uint64_t ts)
{
	struct tree *tr = &g->trees[S_CALLS];
	struct cframe *f;
	uint32_t parent, nd;
	int drop = rpt_calls_enter(&t->calls, pc);

	drop_lost(g, t, drop);
	/*
	 * A range after the first: a function_graph entry that ended all of the
	 * range's own calls goes on into those open before it, which only the
	 * merge knows; unless they are known to be shallower (fg_bound)
	 */
	if (g->tail && pc->src == RPT_CALL_FGRAPH && !t->calls.n && (uint64_t)pc->depth < t->fg_bound) {
		if (!bop_add(g, t, BOP_ENTRY, pc))
			return NULL;
		t->fg_bound = pc->depth;
	}
	f = top_frame(t);
	parent = f ? f->node : g->tail ? ph_parent(g, t, key) : t->base;
	nd = child(g, tr, parent, frame);
	if (g->tail && t->calls.n < MAX_STACK && t->calls.n + 1 > t->maxd)
		t->maxd = t->calls.n + 1;
	if (t->calls.n >= MAX_STACK) {
		g->too_deep++;
		return NULL;
	}
	f = rpt_calls_push(&t->calls, pc, MAX_STACK);
	if (!f) {
		g->oom = true;
		return NULL;
	}
	f->node = nd;
	f->frame = frame;
	f->start = ts;
	return f;
}

/* the top frame returned after dur ns */
static void complete(struct callgraph *g, struct ctask *t, uint64_t dur)
{
	struct tree *tr = &g->trees[S_CALLS];
	struct cframe *f = top_frame(t);
	struct node *nd = &tr->nodes[f->node];

	nd->count++;
	nd->total += dur;
	nd->self += dur > f->child ? dur - f->child : 0;
	g->calls_total++;
	t->calls.n--;
	if ((f = top_frame(t)))
		f->child += dur;
	else if (g->tail)
		t->ph_child += dur;	/* a call open before the range is its parent */
}

/* the frame of BPF ufunc/kfunc index fi: its name from the metadata, else "ufunc#N" / "kfunc#N" */
static uint32_t bpf_func_frame(struct callgraph *g, bool kfunc, uint32_t fi)
{
	char **names = kfunc ? g->kfunc_names : g->ufunc_names;
	int n = kfunc ? g->nkfunc : g->nufunc;
	char buf[32];

	if (fi < (uint32_t)n && names[fi])
		return intern(g, names[fi]);
	snprintf(buf, sizeof(buf), "%s#%u", kfunc ? "kfunc" : "ufunc", fi);
	return intern(g, buf);
}

/*
 * The frame of a uprobe entry at ip: the function that starts there when
 * the file's maps and symbols say so, else the event's own name (the one
 * whoever set the probe chose).
 */
static uint32_t probe_frame(struct callgraph *g, const struct rpt_ctx *ctx, const struct ctype *ty,
			    int pid, uint64_t ip)
{
	int tgid = rpt_tgid(ctx, pid);
	uint64_t key, off = 1;
	struct ucache *c;
	const char *nm;
	bool created;

	if (!ip)
		return ty->frame;
	if (tgid <= 0)
		tgid = pid;
	key = ip * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uint32_t)tgid;
	c = rpt_map_get(&g->pcache, key, &created);
	if (c && !created && c->addr == ip && c->tgid == tgid)
		return c->frame ? c->frame : ty->frame;
	nm = rpt_syms_user(g->syms, tgid, ip, NULL, &off);
	if (c && created) {
		c->addr = ip;
		c->tgid = tgid;
		c->frame = nm && !off ? intern(g, nm) : 0;	/* 0 ("all") never names a probe */
		return c->frame ? c->frame : ty->frame;
	}
	return nm && !off ? intern(g, nm) : ty->frame;
}

/*
 * An exit: the frame it closes by calls.h's rules, after the frames above it
 * (which never returned); unmatched without one.  With has_dur, dur is its
 * length from the record itself (function_graph's calltime/rettime, a BPF
 * exit's duration), else the timestamps' difference.
 */
static void leave(struct callgraph *g, struct ctask *t, const struct rpt_call *pc, uint64_t ts,
		  bool has_dur, uint64_t dur)
{
	int drop, k = rpt_calls_exit(&t->calls, pc, &drop);

	/*
	 * A range after the first: an exit that none of the range's own calls
	 * pairs with may close one open before it: the merge decides.  A
	 * function_graph exit ends the range's own calls deeper than it first,
	 * as always; another kind's, when some of its own are open, would end
	 * them only if one before pairs: one replay decides that.
	 */
	if (g->tail && k < 0 && (pc->src == RPT_CALL_FGRAPH ? drop == t->calls.n : !t->calls.n)) {
		struct bop *b;

		drop_lost(g, t, drop);
		if (!(b = bop_add(g, t, BOP_EXIT, pc)))
			return;
		b->ts = ts;
		b->has_dur = has_dur;
		b->dur = dur;
		/*
		 * after a function_graph exit at depth d, those on top are no
		 * deeper than d; another kind's may uncover any below it
		 */
		if (pc->src != RPT_CALL_FGRAPH)
			t->fg_bound = UINT64_MAX;
		else if ((uint64_t)pc->depth + 1 < t->fg_bound)
			t->fg_bound = (uint64_t)pc->depth + 1;
		return;
	}
	if (g->tail && k < 0 && pc->src != RPT_CALL_FGRAPH)
		g->unsure = true;
	/*
	 * a uprobe return pairs by address first, over the whole stack: one
	 * that pairs with the range's own calls by name only may pair with
	 * an earlier call by address
	 */
	if (g->tail && k >= 0 && pc->src == RPT_CALL_PROBE && pc->key) {
		int j = t->calls.n - 1;

		while (j >= 0 && (rpt_calls_call(&t->calls, j)->src != RPT_CALL_PROBE ||
				  rpt_calls_call(&t->calls, j)->key != pc->key))
			j--;
		if (j < 0)
			g->unsure = true;
	}
	drop_lost(g, t, drop);
	if (k < 0) {
		g->unmatched++;
		return;
	}
	complete(g, t, has_dur ? dur : ts - top_frame(t)->start);
}

static void on_calls(struct callgraph *g, const struct rpt_ctx *ctx, const struct ctype *ty,
		     const struct fmt_event *ev, int pid)
{
	const struct rpt_rec *r = ctx->rec;
	struct ctask *t = ctask_get(g, ev, pid);
	uint64_t ts = ev->rec.ts, key = task_key(ev, pid);
	struct rpt_call pc;

	if (!t)
		return;
	switch (ty->kind) {
	case CK_FG_ENTRY:
	case CK_FG_EXIT:
		pc = (struct rpt_call){ .key = r->fg.func, .depth = (uint32_t)r->fg.depth,
					.src = RPT_CALL_FGRAPH };
		if (ty->kind == CK_FG_ENTRY) {
			enter(g, t, key, kframe(g, r->fg.func), &pc, ts);
			break;
		}
		/* the kernel's own calltime/rettime are exact; the record timestamps are a fallback */
		leave(g, t, &pc, ts, r->fg.has_times && r->fg.rettime >= r->fg.calltime,
		      r->fg.rettime - r->fg.calltime);
		break;
	case CK_UP_ENTRY:
	case CK_UP_RETURN:
		/* entry: __probe_ip; return: __probe_func; both: the entry's event name */
		pc = (struct rpt_call){ .key = r->probe.ip, .name = ty->frame,
					.src = RPT_CALL_PROBE };
		if (ty->kind == CK_UP_ENTRY)
			enter(g, t, key, probe_frame(g, ctx, ty, pid, r->probe.ip), &pc, ts);
		else
			leave(g, t, &pc, ts, false, 0);
		break;
	case CK_UF_ENTRY:
	case CK_KF_ENTRY:
	case CK_UF_EXIT:
	case CK_KF_EXIT: {
		bool kf = ty->kind == CK_KF_ENTRY || ty->kind == CK_KF_EXIT;

		pc = (struct rpt_call){ .key = (uint32_t)r->bfunc.func,
					.depth = (uint32_t)r->bfunc.depth,
					.src = kf ? RPT_CALL_KFUNC : RPT_CALL_UFUNC };
		if (ty->kind == CK_UF_ENTRY || ty->kind == CK_KF_ENTRY)
			enter(g, t, key, bpf_func_frame(g, kf, (uint32_t)r->bfunc.func), &pc, ts);
		else	/* the BPF exit's own duration, when it has one, is exact */
			leave(g, t, &pc, ts, r->bfunc.duration != 0, r->bfunc.duration);
		break;
	}
	default:
		break;
	}
}

/* ---- stacks ---------------------------------------------------------------------- */

/* frames[] root first; add weight w and cnt hits along the path */
static void add_path_n(struct callgraph *g, enum src s, int pid, const uint32_t *frames, int n,
		       uint64_t w, uint64_t cnt)
{
	struct tree *t = &g->trees[s];
	uint32_t nd = 0;
	int k;

	t->nodes[0].count += cnt;
	t->nodes[0].total += w;
	if (g->conf->group) {
		nd = task_base(g, t, pid);
		if (g->oom)
			return;
		t->nodes[nd].count += cnt;
		t->nodes[nd].total += w;
	}
	for (k = 0; k < n; k++) {
		nd = child(g, t, nd, frames[k]);
		if (g->oom)
			return;
		t->nodes[nd].count += cnt;
		t->nodes[nd].total += w;
	}
	t->nodes[nd].self += w;
}

static void add_path(struct callgraph *g, enum src s, int pid, const uint32_t *frames, int n,
		     uint64_t w)
{
	add_path_n(g, s, pid, frames, n, w, 1);
}

/*
 * The addresses of a stack record's array, at most max.  Stops at 0 and
 * at the all-ones terminator (of the entry's width) user_stack uses.
 */
static int read_addrs(const struct rpt_arr *a, uint64_t *out, int max)
{
	uint64_t end = a->width == 4 ? UINT32_MAX : UINT64_MAX;
	int n = 0;

	while (n < a->n && n < max) {
		uint64_t v = rpt_arr_at(a, n);

		if (!v || v == end)
			break;
		out[n++] = v;
	}
	return n;
}

/*
 * The off-CPU program runs from the sched_switch tracepoint, so the
 * innermost kernel frames of its stacks are the tracing machinery itself,
 * the same for every record: they say nothing about why the task blocked.
 */
static bool is_trace_frame(const char *name)
{
	static const char *const pfx[] = {
		"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_", "trace_call_bpf",
		"perf_trace_", NULL
	};
	int k;

	for (k = 0; pfx[k]; k++)
		if (!strncmp(name, pfx[k], strlen(pfx[k])))
			return true;
	return false;
}

/*
 * The user frames of ua[un] (innermost first) into uf[] up to where the
 * unwind went wrong; returns how many are kept, *why the reason of a cut
 * or -1.  A frame-pointer walk through code built without frame pointers
 * reads garbage: addresses outside any executable mapping of the process
 * (when the file lists them), or a loop that gives the same frames over
 * and over.  A frame the unwind from the stack copy found has its stack
 * pointer in usp[k] (usp NULL or usp[k] 0: not known): the same address at
 * the same stack pointer twice is a loop, the same address deeper in the
 * stack is recursion and is kept, named or not.  The frame-pointer walk's
 * records hold return addresses only, so for those the rule is an address
 * that repeats in one stack without resolving to a function; recursion in
 * code with symbols (a named frame repeating) survives at any depth.
 */
static int user_frames(struct callgraph *g, int tgid, const uint64_t *ua, const uint64_t *usp,
		       int un, struct ucache *uf, int *why)
{
	uint64_t unnamed[MAX_FRAMES];
	int nu = 0, k, j;

	*why = -1;
	for (k = 0; k < un; k++) {
		/*
		 * callers' addresses are return addresses: the call is the byte
		 * before (a call to a noreturn function ends its caller, and its
		 * return address would name the next function)
		 */
		struct ucache u = uframe(g, tgid, k ? ua[k] - 1 : ua[k]);

		if (u.exec == 0) {
			*why = CUT_OUTSIDE;
			break;
		}
		if (usp && usp[k]) {
			for (j = 0; j < k && (ua[j] != ua[k] || usp[j] != usp[k]); j++)
				;
			if (j < k) {
				*why = CUT_REPEAT;
				break;
			}
		} else if (!u.named) {
			for (j = 0; j < nu && unnamed[j] != ua[k]; j++)
				;
			if (j < nu) {
				*why = CUT_REPEAT;
				break;
			}
			unnamed[nu++] = ua[k];
		}
		uf[k] = u;
	}
	return k;
}

/*
 * User frame u at fr[n] (root first): its function, then the functions
 * inlined into it at that address, outermost first, while *room (inlined
 * frames a stack may still add) lasts.  Returns the new n.
 */
static int put_uframe(const struct callgraph *g, uint32_t *fr, int n, const struct ucache *u,
		      int *room)
{
	int k;

	fr[n++] = u->frame;
	for (k = 0; k < u->ninl && *room > 0; k++, (*room)--)
		fr[n++] = g->inl[u->inl + k];
	return n;
}

/*
 * Build frames root-first from user (innermost first) and kernel (innermost
 * first) addresses; mark (NULL: none) is an "[unwind: REASON]" frame the
 * unwind from the stack copy put below user frame mark_at - 1.
 */
static void emit_stack_mark(struct callgraph *g, enum src s, int pid, int tgid, const uint64_t *ua,
			    const uint64_t *usp, int un, const uint64_t *ka, int kn, uint64_t w,
			    int mark_at, const char *mark)
{
	uint32_t fr[3 * MAX_FRAMES + 2];
	struct ucache uf[MAX_FRAMES];
	int n = 0, k, why = -1, room = MAX_FRAMES;

	/* kframe() may grow g->frames: its id first, then the name */
	while (s == S_OFFCPU && kn > 0) {
		uint32_t f0 = kframe(g, ka[0]);

		if (g->oom || !is_trace_frame(g->frames[f0]))
			break;
		ka++;
		kn--;
	}

	if (un > MAX_FRAMES)
		un = MAX_FRAMES;
	if (un) {
		g->stacks[s]++;
		un = user_frames(g, tgid, ua, usp, un, uf, &why);
		if (why >= 0) {
			/* below the cut is unknown: the marker is the root of what is kept */
			g->cut[s][why]++;
			char cm[64];

			snprintf(cm, sizeof(cm), "[unwind: %s]", rpt_cg_cut_reasons[why]);
			fr[n++] = intern(g, cm);
		}
	}
	for (k = un - 1; k >= 0; k--) {
		if (mark && k == mark_at - 1) {
			char m[256];

			snprintf(m, sizeof(m), "[unwind: %s]", mark);
			fr[n++] = intern(g, m);
		}
		n = put_uframe(g, fr, n, &uf[k], &room);
	}
	for (k = kn - 1; k >= 0; k--)
		fr[n++] = kframe(g, ka[k]);
	if (!n)
		g->frameless[s]++;
	add_path(g, s, pid, fr, n, w);
}

static void emit_stack(struct callgraph *g, enum src s, int pid, int tgid, const uint64_t *ua,
		       int un, const uint64_t *ka, int kn, uint64_t w)
{
	emit_stack_mark(g, s, pid, tgid, ua, NULL, un, ka, kn, w, -1, NULL);
}

static void flush_pending(struct callgraph *g, int cpu)
{
	struct pending_kstack *p = &g->pend[cpu];

	if (!p->has)
		return;
	emit_stack(g, S_SAMPLES, p->pid, p->pid, NULL, 0, p->addr, p->n, 1);
	p->has = false;
}

static struct pending_kstack *pend_get(struct callgraph *g, int cpu)
{
	if (cpu < 0 || cpu > 4095)
		return NULL;
	if (cpu >= g->ncpu_pend) {
		int n = cpu + 1;
		struct pending_kstack *np = realloc(g->pend, (size_t)n * sizeof(*np));

		if (!np) {
			g->oom = true;
			return NULL;
		}
		memset(np + g->ncpu_pend, 0, (size_t)(n - g->ncpu_pend) * sizeof(*np));
		g->pend = np;
		g->ncpu_pend = n;
	}
	return &g->pend[cpu];
}

/*
 * A range after the first: CPU cpu's first-event record (NULL past 4095 or
 * on ENOMEM, when the range has no use for one).
 */
static struct cpu_first *cpu_first(struct callgraph *g, int cpu)
{
	if (!g->tail || cpu < 0 || cpu > 4095)
		return NULL;
	if (cpu >= g->ncf) {
		struct cpu_first *nf = realloc(g->cf, (size_t)(cpu + 1) * sizeof(*nf));

		if (!nf) {
			g->oom = true;
			return NULL;
		}
		memset(nf + g->ncf, 0, (size_t)(cpu + 1 - g->ncf) * sizeof(*nf));
		g->cf = nf;
		g->ncf = cpu + 1;
	}
	return &g->cf[cpu];
}

/* a range after the first: an event on cpu that ends a kernel_stack pending there */
static void first_flush(struct callgraph *g, int cpu)
{
	struct cpu_first *f = cpu_first(g, cpu);

	if (f && f->pend == PF_NONE) {
		f->pend = PF_FLUSH;
		f->at = g->trees[S_SAMPLES].n;
		f->seq = g->cf_seq++;
	}
}

/* ---- user stacks unwound from their copies (--user-stack cfi|dwarf) ---------------- */

/* cpu's parts (cpu in 0..4095), the array grown as needed; NULL on ENOMEM */
static struct ucopy_more *more_get(struct callgraph *g, int cpu)
{
	if (cpu >= g->nmore) {
		struct ucopy_more *nm = realloc(g->more, (size_t)(cpu + 1) * sizeof(*nm));

		if (!nm) {
			g->oom = true;
			return NULL;
		}
		memset(nm + g->nmore, 0, (size_t)(cpu + 1 - g->nmore) * sizeof(*nm));
		g->more = nm;
		g->nmore = cpu + 1;
	}
	return &g->more[cpu];
}

/* a flytrap:ucopy_more part: kept for the record that follows it on this CPU */
static void more_add(struct callgraph *g, int cpu, int pid, const struct rpt_rec *r)
{
	uint32_t off = r->ucopy.offset;
	const uint8_t *p = r->ucopy.copy.p;
	struct ucopy_more *m;
	int len = r->ucopy.copy.len;

	if (cpu < 0 || cpu > 4095 || !p || len <= 0)
		return;
	if (g->tail) {
		struct cpu_first *f = cpu_first(g, cpu);

		if (f && !f->add) {
			f->add = true;
			f->add_pid = pid;
			f->add_off = off;
		}
	}
	if (!(m = more_get(g, cpu)))
		return;
	if (m->pid != pid || !m->len || off != m->start + m->len) {
		m->pid = pid;
		m->start = off;
		m->len = 0;
	}
	if ((uint32_t)len > UCOPY_MAX - m->len)
		return;
	memcpy(m->buf + m->len, p, (size_t)len);
	m->len += (uint32_t)len;
}

/*
 * The whole stack copy of a record whose own part is cp[*cl]: with the
 * parts that came before it on its CPU when they continue it (the result
 * lives in g until the next call), else cp as it is.
 */
static const uint8_t *more_join(struct callgraph *g, int cpu, int pid, const uint8_t *cp, int *cl)
{
	struct ucopy_more *m = cpu >= 0 && cpu < g->nmore ? &g->more[cpu] : NULL;
	int own = cp && *cl > 0 ? *cl : 0;

	if (g->tail) {
		struct cpu_first *f = cpu_first(g, cpu);

		/*
		 * parts from before the cut stay until a part or a record that
		 * joins them: any record before the range's first part may
		 */
		if (f && !f->add && !f->join) {
			f->join = true;
			f->join_pid = pid;
			f->join_own = (uint32_t)own;
		} else if (f && !f->add && (f->join_pid != pid || f->join_own != (uint32_t)own)) {
			f->join_many = true;
		}
	}
	if (!m || !m->len || m->pid != pid || m->start != (uint32_t)own || own > UCOPY_MAX)
		return cp;
	if (!g->whole && !(g->whole = malloc(2 * UCOPY_MAX))) {
		g->oom = true;
		return cp;
	}
	if (own)
		memcpy(g->whole, cp, (size_t)own);
	memcpy(g->whole + own, m->buf, m->len);
	*cl = own + (int)m->len;
	m->len = 0;
	return g->whole;
}

/* out[] = a[0..na-1] then b[0..nb-1], at most MAX_FRAMES; its length */
static int join_frames(uint64_t *out, const uint64_t *a, int na, const uint64_t *b, int nb)
{
	if (na > MAX_FRAMES)
		na = MAX_FRAMES;
	if (nb > MAX_FRAMES - na)
		nb = MAX_FRAMES - na;
	memcpy(out, a, (size_t)na * sizeof(*out));
	if (nb > 0)
		memcpy(out + na, b, (size_t)nb * sizeof(*out));
	return na + (nb > 0 ? nb : 0);
}

/*
 * The user stack of a record that kept registers and a stack copy: the
 * frames elfutils unwinds from them with the binaries' CFI and, in cfi
 * mode, the frame-pointer walk ua[un] from where the two meet (the first
 * return address past the IP that both hold).  An unwind that stops short
 * leaves *mark (its reason) below frame *mark_at - 1: a dwarf unwind ends
 * there, a cfi one goes on with the walk's callers.  Rewrites ua (room for
 * MAX_FRAMES) and returns its length.
 */
static int unwind_copy(struct callgraph *g, enum src s, const struct rpt_rec *r, int cpu,
		       int pid, int tgid, uint64_t *ua, uint64_t *usp, int un, int *mark_at,
		       const char **mark)
{
	uint64_t regs[4] = { 0 }, pcs[MAX_FRAMES], sps[MAX_FRAMES], fp[MAX_FRAMES];
	int rl = r->smp.uregs.len, cl = r->smp.ucopy.len, n, i = 0, j = 0, nr;
	const uint8_t *rp = r->smp.uregs.p, *cp = r->smp.ucopy.p;
	const char *why;

	cp = more_join(g, cpu, pid, cp, &cl);
	*mark_at = -1;
	*mark = NULL;
	if (!g->uw_mode || !rp || rl < 24)
		return un;
	nr = rl / 8 < 4 ? rl / 8 : 4;
	memcpy(regs, rp, (size_t)nr * 8);
	if (!regs[0] || !regs[1])
		return un;	/* a kernel thread: no user registers */
	if (!g->uw && !g->uw_failed) {
		g->uw = rpt_unwind_new(g->syms, g->uw_arch);
		g->uw_failed = !g->uw;
	}
	if (!g->uw)
		return un;
	n = rpt_unwind_user(g->uw, tgid, regs, nr, cp, cp && cl > 0 ? (size_t)cl : 0, pcs, sps,
			    MAX_FRAMES, &why);
	/*
	 * A copy shorter than the size asked for ended at a page the program
	 * could not read at the sample (never touched, or the process unmapping
	 * its memory on exit or exec): a larger copy would not have helped.
	 */
	if (why && !strcmp(why, "stack copy too small") && g->uw_bytes[s] && cl >= 0 &&
	    (unsigned)cl < g->uw_bytes[s])
		why = STACK_UNREADABLE;
	g->uw_stacks[s]++;
	memcpy(fp, ua, (size_t)un * sizeof(*fp));
	/*
	 * "no binary mapped there" is not this: an IP outside every mapping of
	 * the file's maps (a sample inside execve, the registers still the old
	 * image's) is marked as such, not counted as a binary this machine lacks
	 */
	if (n <= 1 && why && !strncmp(why, "no binary for ", 14)) {
		/*
		 * the sampled code's own binary is not here (a deleted binary
		 * named from a stored symbol table): the walk is all there is,
		 * as without a copy
		 */
		g->uw_fponly[s]++;
		return un;
	}
	if (n <= 0) {
		/* nothing unwound: the walk as it was, the reason under its first frame */
		g->uw_marked[s]++;
		*mark_at = un ? 1 : -1;
		*mark = why;
		return un;
	}
	/* the unwound frames' stack pointers, for user_frames(); the walk's frames have none */
	memcpy(usp, sps, (size_t)(n < MAX_FRAMES ? n : MAX_FRAMES) * sizeof(*usp));
	if (g->uw_mode == 1)
		for (i = 1; i < n; i++) {
			for (j = 1; j < un && fp[j] != pcs[i]; j++)
				;
			if (j < un)
				break;
		}
	if (g->uw_mode == 1 && i < n) {
		g->uw_spliced[s]++;
		return join_frames(ua, pcs, i, fp + j, un - j);
	}
	if (!why) {
		g->uw_complete[s]++;
		return join_frames(ua, pcs, n, NULL, 0);
	}
	g->uw_marked[s]++;
	*mark_at = n < MAX_FRAMES ? n : MAX_FRAMES;
	*mark = why;
	return join_frames(ua, pcs, n, fp + 1, g->uw_mode == 1 ? un - 1 : 0);
}

static void user_stack_mode(struct callgraph *g, const char *mode, const char *arch)
{
	g->uw_mode = !strcmp(mode, "cfi") ? 1 : !strcmp(mode, "dwarf") ? 2 : 0;
	g->uw_arch = !strncmp(arch, "x86_64:", 7) ? RPT_UW_X86_64 :
		     !strncmp(arch, "arm64:", 6) ? RPT_UW_ARM64 : RPT_UW_NONE;
	if (g->uw_arch == RPT_UW_NONE)
		g->uw_mode = 0;
}

/*
 * META "bpf_user_stack=MODE BYTES ARCH:REGS" (record --user-stack) and
 * "bpf_user_stack_profile_bytes=N" (the profile's own copy size, newer files)
 */
static void load_user_stack_meta(struct callgraph *g, const struct rpt_ctx *ctx)
{
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);
	unsigned pbytes = 0;

	for (size_t n = 0; m && n < m->all.n; n++) {
		const struct fmt_kv *kv = &m->all.kv[n];
		char mode[16], arch[64];
		unsigned bytes;

		if (!kv->val || !*kv->val || strlen(kv->line) >= 256)
			continue;
		if (!strcmp(kv->key, FMT_META_BPF_USER_STACK) &&
		    sscanf(kv->val, "%15s %u %63s", mode, &bytes, arch) == 3) {
			user_stack_mode(g, mode, arch);
			g->uw_bytes[S_SAMPLES] = g->uw_bytes[S_OFFCPU] = bytes;
		} else if (!strcmp(kv->key, FMT_META_BPF_USER_STACK_PROFILE) &&
			   sscanf(kv->val, "%u", &bytes) == 1)
			pbytes = bytes;
	}
	if (pbytes)
		g->uw_bytes[S_SAMPLES] = pbytes;
}

/*
 * A user_stack of task pid on cpu: joined to the kernel_stack pending there
 * when it is the task's, else alone after that one
 */
static void join_ustack(struct callgraph *g, int cpu, int pid, int tgid, const uint64_t *ua, int un)
{
	struct pending_kstack *p = cpu >= 0 && cpu < g->ncpu_pend ? &g->pend[cpu] : NULL;

	if (p && p->has && p->pid == pid) {
		emit_stack(g, S_SAMPLES, pid, tgid, ua, un, p->addr, p->n, 1);
		p->has = false;
		return;
	}
	if (p)
		flush_pending(g, cpu);
	emit_stack(g, S_SAMPLES, pid, tgid, ua, un, NULL, 0, 1);
}

/* ftrace kernel_stack/user_stack: a user_stack pairs with its task's kernel_stack before it */
static void on_ftrace_stack(struct callgraph *g, const struct rpt_rec *r, int cpu, int pid)
{
	struct pending_kstack *p = pend_get(g, cpu);
	uint64_t ua[MAX_FRAMES];
	int un, tgid;

	if (r->kind == RPT_K_KSTACK) {
		if (!p)
			return;
		first_flush(g, cpu);
		flush_pending(g, cpu);
		p->n = read_addrs(&r->stk.caller, p->addr, MAX_FRAMES);
		p->pid = pid;
		p->has = true;
		return;
	}
	tgid = r->stk.tgid > 0 ? r->stk.tgid : pid;
	un = read_addrs(&r->stk.caller, ua, MAX_FRAMES);
	if (p && g->tail) {
		struct cpu_first *f = cpu_first(g, cpu);

		/*
		 * the first of its CPU in a range after the first: it may join a
		 * kernel_stack of the range before; the merge emits it
		 */
		if (f && f->pend == PF_NONE) {
			f->ua = malloc((size_t)(un > 0 ? un : 1) * sizeof(*f->ua));
			if (!f->ua) {
				g->oom = true;
				return;
			}
			memcpy(f->ua, ua, (size_t)un * sizeof(*ua));
			f->un = un;
			f->pid = pid;
			f->tgid = tgid;
			f->pend = PF_USTACK;
			f->at = g->trees[S_SAMPLES].n;
			f->seq = g->cf_seq++;
			return;
		}
	}
	join_ustack(g, cpu, pid, tgid, ua, un);
}

/* ---- bpf-stacks: stack ids of a --bpf-object program --------------------------------- */

/* an integer field of ev (sign-extended when signed); false when the record is too short */
static bool read_int(const struct rpt_ctx *ctx, const struct fmt_event *ev,
		     const struct tep_format_field *f, int64_t *v)
{
	uint64_t x;

	if (!ev->rec.data || f->offset < 0 || f->size <= 0 ||
	    (uint64_t)f->offset + (uint64_t)f->size > (uint64_t)ev->rec.size)
		return false;
	x = tep_read_number(ctx->tep, (const char *)ev->rec.data + f->offset, f->size);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {
		int sh = 64 - 8 * f->size;

		*v = (int64_t)(x << sh) >> sh;
	} else {
		*v = (int64_t)x;
	}
	return true;
}

static uint64_t ragg_hash(const struct ragg *a)
{
	const unsigned char *p = (const unsigned char *)a;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t k;

	for (k = 0; k < sizeof(*a); k++)
		h = (h ^ p[k]) * 0x100000001b3ULL;
	return h;
}

/*
 * A ring buffer record with stack ids: counted per (source, task, ids);
 * the stacks are joined at the end, when the maps' snapshots are read.
 */
static void ring_add(struct callgraph *g, const struct rpt_ctx *ctx, const struct ctype *ty,
		     const struct fmt_event *ev, int pid)
{
	const struct uev *u = &g->uevs[ty->uev];
	struct ragg a, *slot;
	bool created;
	int64_t v;
	int k;

	/* zeroed whole: the hash reads every byte, padding included */
	memset(&a, 0, sizeof(a));
	a.src = u->src;
	a.smp.pid = pid;
	a.smp.tgid = -1;
	for (k = 0; k < u->nids; k++) {
		if (!read_int(ctx, ev, u->ids[k], &a.smp.ids[k]))
			return;
		a.smp.maps[k] = u->maps[k];
		a.smp.side[k] = u->side[k];
	}
	a.smp.nids = u->nids;
	if (u->pid && read_int(ctx, ev, u->pid, &v) && v >= 0 && v <= INT32_MAX)
		a.smp.pid = (int)v;
	if (u->tgid && read_int(ctx, ev, u->tgid, &v) && v >= 0 && v <= INT32_MAX)
		a.smp.tgid = (int)v;
	if (u->comm && u->comm->offset >= 0 && u->comm->size > 0 &&
	    (uint64_t)u->comm->offset + (uint64_t)u->comm->size <= (uint64_t)ev->rec.size) {
		size_t n = (size_t)u->comm->size < sizeof(a.smp.comm) ? (size_t)u->comm->size
								    : sizeof(a.smp.comm) - 1;

		/* up to its NUL only: the bytes after it must not split one task in two */
		strncpy(a.smp.comm, (const char *)ev->rec.data + u->comm->offset, n);
	}
	/* a 64-bit FNV hash of the whole key: a collision is not a practical concern (intern) */
	slot = rpt_map_get(&g->ragg, ragg_hash(&a), &created);
	if (!slot) {
		g->oom = true;
		return;
	}
	if (created)
		memcpy(slot, &a, sizeof(a));	/* padding too: merge_ragg() hashes it again */
	slot->smp.weight++;
	g->ring_seen[u->src] = true;
}

/* the kernel's -errno of a stack id that was not collected, by name */
static const char *stackid_err(int64_t id)
{
	static const struct { int e; const char *n; } names[] = {
		{ EFAULT, "EFAULT" }, { EEXIST, "EEXIST" }, { ENOMEM, "ENOMEM" },
		{ EINVAL, "EINVAL" }, { ENOENT, "ENOENT" }, { E2BIG, "E2BIG" },
		{ EPERM, "EPERM" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	};
	static char buf[32];
	size_t k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (id == -names[k].e)
			return names[k].n;
	snprintf(buf, sizeof(buf), "%" PRId64, id);
	return buf;
}

static const char *const side_names[] = { "", "user ", "kernel " };

/*
 * One sample of bpf-stacks, weight w: its stacks' frames, kernel addresses
 * (the top bit set on every 64-bit kernel) under the user ones whatever
 * field they came from; an id the kernel did not collect is a frame
 * "[user stack not collected: EFAULT]" where that stack would be, one the
 * stack map's snapshot lacks "[stack ID not in OBJ/MAP]".
 */
static void bpf_emit(struct callgraph *g, const struct rpt_bpfstk_sample *smp)
{
	uint64_t ka[MAX_FRAMES], ua[MAX_FRAMES];
	uint32_t fr[3 * MAX_FRAMES + 2 * RPT_BPFSTK_IDS + 2];
	struct ucache uf[MAX_FRAMES];
	uint32_t pre[RPT_BPFSTK_IDS], mid[RPT_BPFSTK_IDS];
	int npre = 0, nmid = 0, kn = 0, un = 0, n = 0, k, j, why = -1, room = MAX_FRAMES;
	int pid = smp->pid >= 0 ? smp->pid : smp->tgid;
	int tgid = smp->tgid;
	bool nc = false, miss = false;
	char m[160];

	if (tgid < 0 && pid > 0)
		tgid = rpt_tgid(g->ctx, pid) > 0 ? rpt_tgid(g->ctx, pid) : pid;
	for (k = 0; k < smp->nids; k++) {
		const uint64_t *a;
		int na, side = smp->side[k] >= 0 && smp->side[k] <= 2 ? smp->side[k] : 0;

		if (smp->ids[k] < 0) {
			nc = true;
			snprintf(m, sizeof(m), "[%sstack not collected: %s]", side_names[side],
				 stackid_err(smp->ids[k]));
		} else if (!rpt_bpfstk_stack(g->bstk, smp->maps[k], smp->ids[k], &a, &na)) {
			miss = true;
			if (smp->maps[k] < 0)
				snprintf(m, sizeof(m), "[stack %" PRId64 ": no stack map]", smp->ids[k]);
			else
				snprintf(m, sizeof(m), "[stack %" PRId64 " not in %s]", smp->ids[k],
					 rpt_bpfstk_map_name(g->bstk, smp->maps[k]));
		} else {
			/*
			 * an id named kern_/user_ is that side's stack (a redacted
			 * file's kernel addresses are offsets, not upper-half
			 * addresses); a plain stack_id's frames go by their half
			 */
			for (j = 0; j < na; j++) {
				bool kern = side == RPT_BPFSTK_KERNEL ||
					    (side == RPT_BPFSTK_ANY && (int64_t)a[j] < 0);

				if (!a[j])
					break;
				if (kern && kn < MAX_FRAMES)
					ka[kn++] = a[j];
				else if (!kern && un < MAX_FRAMES)
					ua[un++] = a[j];
			}
			continue;
		}
		if (side == RPT_BPFSTK_KERNEL)
			mid[nmid++] = intern(g, m);
		else
			pre[npre++] = intern(g, m);
	}
	g->bpf_nc += nc ? smp->weight : 0;
	g->bpf_missing += miss ? smp->weight : 0;
	for (k = 0; k < npre; k++)
		fr[n++] = pre[k];
	if (un) {
		g->stacks[S_BPF]++;
		un = user_frames(g, tgid, ua, NULL, un, uf, &why);
		if (why >= 0) {
			g->cut[S_BPF][why]++;
			snprintf(m, sizeof(m), "[unwind: %s]", rpt_cg_cut_reasons[why]);
			fr[n++] = intern(g, m);
		}
	}
	for (k = un - 1; k >= 0; k--)
		n = put_uframe(g, fr, n, &uf[k], &room);
	for (k = 0; k < nmid; k++)
		fr[n++] = mid[k];
	for (k = kn - 1; k >= 0; k--)
		fr[n++] = kframe(g, ka[k]);
	if (!n)
		g->frameless[S_BPF]++;
	g->ovr_comm = smp->comm[0] ? smp->comm : NULL;
	g->ovr_tgid = tgid;
	add_path_n(g, S_BPF, pid > 0 ? pid : 0, fr, n, smp->weight, smp->weight);
	g->ovr_comm = NULL;
	g->ovr_tgid = -1;
}

/* an entry of a counts map: --pid/--comm select it by the task its key names */
static int bpf_map_sample(void *arg, const struct rpt_bpfstk_sample *smp)
{
	struct callgraph *g = arg;
	const struct rpt_opts *o = g->ctx->opts;
	int pid = smp->pid >= 0 ? smp->pid : smp->tgid;

	if ((o->npids || o->ncomms) && (pid < 0 || !rpt_task_selected(g->ctx, pid)))
		return 0;
	bpf_emit(g, smp);
	return g->oom ? -ENOMEM : 0;
}

/*
 * The source bpf-stacks shows: --bpf-map's, else the first counts map, else
 * the first ring buffer whose records carried stack ids; -1 none.
 */
static int bpf_pick(const struct callgraph *g)
{
	int k, n = rpt_bpfstk_nsources(g->bstk);

	if (g->conf->bpf_map)
		return rpt_bpfstk_find(g->bstk, g->conf->bpf_map);
	for (k = 0; k < n; k++)
		if (!rpt_bpfstk_source(g->bstk, k)->ring)
			return k;
	for (k = 0; k < n; k++)
		if (g->ring_seen[k])
			return k;
	return -1;
}

/* the bpf-stacks tree, from the source bpf_pick() chooses */
static int bpf_tree(struct callgraph *g)
{
	const struct rpt_bpfstk_src *src;
	struct ragg *a;
	size_t pos = 0;

	g->bpf_src = g->bstk ? bpf_pick(g) : -1;
	src = rpt_bpfstk_source(g->bstk, g->bpf_src);
	if (!src)
		return 0;
	if (!src->ring)
		return rpt_bpfstk_samples(g->bstk, g->bpf_src, bpf_map_sample, g, &g->bpf_skipped);
	while ((a = rpt_map_next(&g->ragg, &pos, NULL))) {
		if (a->src != g->bpf_src)
			continue;
		bpf_emit(g, &a->smp);
		if (g->oom)
			return -ENOMEM;
	}
	return 0;
}

/*
 * sched_process_fork and sched_process_exec, where the file has them: a
 * child process runs its parent's code (a shell between fork and exec, a
 * posix_spawn child on its parent's memory) until it execs, and the file's
 * maps of its pid are those of the program it exec'd.
 */
static void on_fork_exec(struct callgraph *g, const struct rpt_rec *r, int kind)
{
	int *v;

	if (kind == CK_FORK) {
		int parent = rpt_tgid(g->ctx, r->fork.parent);

		if (parent <= 0)
			parent = r->fork.parent;
		/* a thread shares its process's image, and its samples carry that tgid */
		if (r->fork.child <= 0 || parent <= 0 || r->fork.child == parent)
			return;
		v = rpt_map_get(&g->image_of, (uint32_t)r->fork.child, NULL);
		if (v)
			*v = parent;
		else
			g->oom = true;
		return;
	}
	/*
	 * a range after the first keeps the exec (0) whether or not it saw the
	 * fork: a fork before the range is the merge's to end
	 */
	if ((v = g->tail ? rpt_map_get(&g->image_of, (uint32_t)r->exec.pid, NULL) :
			   rpt_map_find(&g->image_of, (uint32_t)r->exec.pid)))
		*v = 0;
	if (r->exec.old_pid != r->exec.pid &&
	    (v = g->tail ? rpt_map_get(&g->image_of, (uint32_t)r->exec.old_pid, NULL) :
			   rpt_map_find(&g->image_of, (uint32_t)r->exec.old_pid)))
		*v = 0;
}

/*
 * The process whose maps name the user stack of tgid at raw stamp ts: its
 * parent's before its exec, and of that process the image it ran then
 * (the file's earlier images, kept by the recorder before each exec).
 */
static int image_tgid(struct callgraph *g, enum src s, int tgid, uint64_t ts)
{
	int k, *v, img = tgid, at;

	/* a parent forked before its own exec runs its parent's image: a short chain */
	struct rpt_syms_umap m;

	for (k = 0; k < 8 && (v = rpt_map_find(&g->image_of, (uint32_t)img)) && *v > 0; k++)
		img = *v;
	/* a range after the first: a fork before it would change this; the merge checks */
	if (g->tail && k < 8 && !v && !rpt_map_get(&g->img_miss, (uint32_t)img, NULL))
		g->oom = true;
	/* a parent the file has no maps of (its tgid unknown, say): the process's own */
	if (img != tgid && (at = rpt_syms_image_at(g->syms, img, ts)) != img) {
		g->pre_exec[s]++;
		return at;
	}
	if (img == tgid || rpt_syms_user_map(g->syms, img, 0, &m)) {
		at = rpt_syms_image_at(g->syms, tgid, ts);
		g->earlier[s] += at != tgid;
		return at;
	}
	g->pre_exec[s]++;
	return img;
}

static void on_stack(struct callgraph *g, const struct rpt_ctx *ctx, const struct ctype *ty,
		     const struct fmt_event *ev, int pid)
{
	const struct rpt_rec *r = ctx->rec;
	int cpu = ev->rec.cpu;
	uint64_t ua[MAX_FRAMES], usp[MAX_FRAMES], ka[MAX_FRAMES];
	int un, kn, tgid;

	switch (ty->kind) {
	case CK_KSTACK:
	case CK_USTACK:
		on_ftrace_stack(g, r, cpu, pid);
		break;
	case CK_BPF_UCOPY:
		more_add(g, cpu, pid, r);
		break;
	case CK_BPF_USER:
		ring_add(g, ctx, ty, ev, pid);
		break;
	case CK_BPF_PROFILE:
	case CK_BPF_OFFCPU: {
		enum src s = ty->kind == CK_BPF_PROFILE ? S_SAMPLES : S_OFFCPU;
		const char *mark = NULL;
		int mark_at = -1;

		tgid = image_tgid(g, s, r->smp.has_tgid ? r->smp.tgid : pid, ev->raw_ts);
		kn = read_addrs(&r->smp.kstack, ka, MAX_FRAMES);
		un = read_addrs(&r->smp.ustack, ua, MAX_FRAMES);
		memset(usp, 0, sizeof(usp));
		if (r->smp.has_copy)
			un = unwind_copy(g, s, r, cpu, pid, tgid, ua, usp, un, &mark_at, &mark);
		emit_stack_mark(g, s, pid, tgid, ua, usp, un, ka, kn,
				s == S_SAMPLES ? 1 : r->smp.duration, mark_at, mark);
		break;
	}
	default:
		break;
	}
}

static void cg_event(struct rpt_ctx *ctx, void *priv, const struct fmt_event *ev)
{
	struct callgraph *g = priv;
	struct ctype *ty = rpt_types_get(&g->types, ev->type);
	int pid;

	if (!ty)
		return;
	if (!ty->kind)
		classify(g, ty, ev->event, ctx->rec);
	if (ty->kind == CK_FORK || ty->kind == CK_EXEC)
		on_fork_exec(g, ctx->rec, ty->kind);
	if (ty->kind == CK_OTHER || ty->kind == CK_FORK || ty->kind == CK_EXEC) {
		if (g->tail)
			first_flush(g, ev->rec.cpu);
		if (ev->rec.cpu >= 0 && ev->rec.cpu < g->ncpu_pend && g->pend[ev->rec.cpu].has)
			flush_pending(g, ev->rec.cpu);
		return;
	}
	pid = rpt_event_pid(ctx, ev);
	if (ty->kind >= CK_KSTACK)
		on_stack(g, ctx, ty, ev, pid);
	else
		on_calls(g, ctx, ty, ev, pid);
}

/* ---- setup ------------------------------------------------------------------------ */

/* name idx of a names table (grown on demand); false on ENOMEM */
static bool set_func_name(char ***names, int *n, unsigned idx, const char *name)
{
	if ((int)idx >= *n) {
		char **nn = realloc(*names, (idx + 1) * sizeof(*nn));

		if (!nn)
			return false;
		memset(nn + *n, 0, (idx + 1 - (unsigned)*n) * sizeof(*nn));
		*names = nn;
		*n = (int)idx + 1;
	}
	if (!(*names)[idx])
		(*names)[idx] = strdup(name);
	return (*names)[idx] != NULL;
}

/*
 * BPF ufunc and kfunc names from the META lines "bpf_ufunc=IDX BINARY NAME
 * 0xADDR" and "bpf_kfunc=IDX [kernel.kallsyms|MODULE] NAME 0xADDR".
 */
static void load_ufunc_names(struct callgraph *g, const struct rpt_ctx *ctx)
{
	const struct fmt_meta *m = fmt_reader_meta(ctx->r);

	if (!m)
		g->oom = true;
	for (size_t n = 0; m && n < m->all.n; n++) {
		const struct fmt_kv *kv = &m->all.kv[n];
		bool uf = kv->val && !strcmp(kv->key, FMT_META_BPF_UFUNC);
		bool kf = kv->val && !strcmp(kv->key, FMT_META_BPF_KFUNC);
		char bin[512], name[256];
		unsigned idx;

		if ((uf || kf) && *kv->val && strlen(kv->line) < 1024 &&
		    sscanf(kv->val, "%u %511s %255s", &idx, bin, name) == 3 && idx < 100000 &&
		    !set_func_name(uf ? &g->ufunc_names : &g->kfunc_names,
				   uf ? &g->nufunc : &g->nkfunc, idx, name))
			g->oom = true;
	}
}

/* the user objects' sources of stack ids; --bpf-map must name one of them */
static int bpf_init(struct callgraph *g, const struct rpt_ctx *ctx)
{
	char list[512];
	size_t len = 0;
	int k, n, f;

	rpt_map_init(&g->ragg, sizeof(struct ragg));
	g->bstk = rpt_bpfstk_new(ctx->r);
	if (!g->bstk)
		return -ENOMEM;
	/*
	 * as info, report --bpf-maps and sql: damaged --bpf-object data is
	 * named, never skipped quietly; it fails what asked for it, and the
	 * other trees (the automatic choice) go on without it
	 */
	if (rpt_bpfstk_damage(g->bstk)) {
		if (g->conf->source != RPT_CG_BPF_STACKS && !g->conf->bpf_map) {
			ft_warn("'%s': damaged --bpf-object data: %s (no bpf-stacks tree)",
				ctx->opts->path, rpt_bpfstk_damage(g->bstk));
			rpt_bpfstk_free(g->bstk);
			g->bstk = NULL;
		} else {
			ft_error("'%s': damaged --bpf-object data: %s", ctx->opts->path,
				 rpt_bpfstk_damage(g->bstk));
			return -ECANCELED;
		}
	}
	n = rpt_bpfstk_nsources(g->bstk);
	g->ring_seen = calloc((size_t)n + 1, sizeof(*g->ring_seen));
	if (!g->ring_seen)
		return -ENOMEM;
	if (!g->conf->bpf_map || (f = rpt_bpfstk_find(g->bstk, g->conf->bpf_map)) >= 0)
		return 0;
	list[0] = 0;
	for (k = 0; k < n && len < sizeof(list); k++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", k ? ", " : "",
					rpt_bpfstk_source(g->bstk, k)->name);
	if (f == -2)
		ft_error("--bpf-map '%s': several objects have a map of that name; name it "
			 "OBJECT/MAP (%s)", g->conf->bpf_map, list);
	else
		ft_error("--bpf-map '%s': '%s' has no counts map or ring buffer of that name "
			 "(stack ids are in: %s)", g->conf->bpf_map, ctx->opts->path,
			 n ? list : "none");
	return -ECANCELED;
}

static void cg_release(void *priv);

static int cg_init(struct rpt_ctx *ctx, void *priv)
{
	struct callgraph *g = priv;
	static const struct rpt_callgraph_conf defconf;
	int k, err;

	/* the replay's one context, for init, every event and finish (--group, task names) */
	g->ctx = ctx;
	g->conf = ctx->conf ? ctx->conf : &defconf;
	g->types.elem_size = sizeof(struct ctype);
	rpt_map_init(&g->tasks, sizeof(struct ctask));
	rpt_map_init(&g->names, sizeof(uint32_t));
	rpt_map_init(&g->kcache, sizeof(uint32_t));
	rpt_map_init(&g->ucache, sizeof(struct ucache));
	rpt_map_init(&g->pcache, sizeof(struct ucache));
	rpt_map_init(&g->image_of, sizeof(int));
	rpt_map_init(&g->img_miss, 1);
	/* a range after the file's first (its --from is a cut): see "ranges" */
	g->tail = ctx->in_range && ctx->opts->has_t0;
	for (k = 0; k < S_NR; k++)
		if (tree_init(&g->trees[k]))
			return -ENOMEM;
	/* a range of a ranged analysis: its binaries' warnings wait for the finish, said once */
	g->ranged = ctx->in_range;
	g->syms = rpt_syms_new(ctx->r, g->conf->symfs, g->conf->debug_dirs,
			       (g->conf->no_debuginfod ? RPT_SYMS_NO_DEBUGINFOD : 0) |
			       (g->ranged ? RPT_SYMS_QUIET : 0));
	if (!g->syms)
		return -ENOMEM;
	intern(g, "all");
	load_ufunc_names(g, ctx);
	load_user_stack_meta(g, ctx);
	g->ovr_tgid = -1;
	g->bpf_src = -1;
	err = g->oom ? -ENOMEM : bpf_init(g, ctx);
	/* the replay releases only the analyzers whose init succeeded */
	if (err)
		cg_release(g);
	return err;
}

/* ---- result ------------------------------------------------------------------------ */

void rpt_cg_result_release(struct rpt_cg_result *r)
{
	uint32_t k;

	if (!r)
		return;
	for (k = 0; k < r->nnames; k++)
		free(r->names[k]);
	free(r->names);
	free(r->nodes);
	free(r->syms_missing);
	free(r->path);
	for (k = 0; k < r->nbinaries; k++) {
		free(r->binaries[k].path);
		free(r->binaries[k].build_id);
		free(r->binaries[k].source);
	}
	free(r->binaries);
	free(r->bpf_source);
	free(r->bpf_others);
	memset(r, 0, sizeof(*r));
}

/* append s (owned from now on, may be NULL on ENOMEM) to r's names; its index or NONE */
static uint32_t result_name(struct rpt_cg_result *r, uint32_t *cap, char *s)
{
	if (!s)
		return RPT_CG_NONE;
	if (r->nnames == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 64;
		char **nn = realloc(r->names, (size_t)nc * sizeof(*nn));

		if (!nn) {
			free(s);
			return RPT_CG_NONE;
		}
		r->names = nn;
		*cap = nc;
	}
	r->names[r->nnames] = s;
	return r->nnames++;
}

static int max_depth_of(const struct tree *t)
{
	/* nodes are created after their parents, so one forward pass gives depths */
	int *d = calloc(t->n ? t->n : 1, sizeof(int)), best = 0;
	uint32_t k;

	if (!d)
		return -1;
	for (k = 1; k < t->n; k++) {
		d[k] = d[t->nodes[k].parent] + 1;
		if (d[k] > best)
			best = d[k];
	}
	free(d);
	return best;
}

static uint64_t tree_total(const struct tree *t, enum src s)
{
	uint32_t c;
	uint64_t sum = 0;

	if (s != S_CALLS)
		return t->nodes[0].total;
	for (c = t->nodes[0].first_child; c != UINT32_MAX; c = t->nodes[c].next_sibling)
		sum += t->nodes[c].total;
	return sum;
}

/* the nodes of tree s, their frame names moved out of g (g is released next) */
static int result_nodes(struct callgraph *g, const struct rpt_ctx *ctx, enum src s,
			struct rpt_cg_result *r)
{
	const struct tree *t = &g->trees[s];
	uint32_t k, cap = g->fcap, nframes = g->nframes, unknown = RPT_CG_NONE;

	r->nodes = calloc(t->n ? t->n : 1, sizeof(*r->nodes));
	if (!r->nodes)
		return -ENOMEM;
	r->names = g->frames;
	r->nnames = nframes;
	g->frames = NULL;
	g->nframes = g->fcap = 0;
	r->n = t->n;
	for (k = 0; k < t->n; k++) {
		const struct node *n = &t->nodes[k];
		struct rpt_cg_node *o = &r->nodes[k];
		char *tname = NULL;

		o->parent = n->parent;
		o->first_child = n->first_child;
		o->next_sibling = n->next_sibling;
		o->count = n->count;
		o->total = n->total;
		o->self = n->self;
		o->pid = -1;
		o->group = (n->frame & TASK_FRAME) != 0;
		o->inlined = !o->group && n->frame < g->nfinl && g->finl[n->frame];
		if ((n->frame & (TASK_FRAME | COMM_FRAME)) == (TASK_FRAME | COMM_FRAME)) {
			o->name = n->frame & (COMM_FRAME - 1);
		} else if (n->frame & TASK_FRAME) {
			o->pid = (int)(n->frame & ~TASK_FRAME);
			if (asprintf(&tname, "%s-%d", rpt_comm(ctx, o->pid), o->pid) < 0)
				tname = NULL;
			o->name = result_name(r, &cap, tname);
		} else if (n->frame < nframes) {
			o->name = n->frame;
		} else {
			if (unknown == RPT_CG_NONE)
				unknown = result_name(r, &cap, strdup("?"));
			o->name = unknown;
		}
		if (o->name == RPT_CG_NONE)
			return -ENOMEM;
	}
	return 0;
}

/* Each binary's symbol sources, copied into the result (the tables die with the replay) */
static int copy_binaries(const struct rpt_syms *s, struct rpt_cg_result *r)
{
	struct rpt_syms_bin b;
	int k, n = 0;

	r->debuginfod = rpt_syms_debuginfod(s);
	while (!rpt_syms_binary(s, n, &b))
		n++;
	if (!n)
		return 0;
	r->binaries = calloc((size_t)n, sizeof(*r->binaries));
	if (!r->binaries)
		return -ENOMEM;
	for (k = 0; k < n && !rpt_syms_binary(s, k, &b); k++) {
		struct rpt_cg_binary *o = &r->binaries[k];

		r->nbinaries++;
		o->path = strdup(b.path ? b.path : "");
		o->build_id = b.buildid ? strdup(b.buildid) : NULL;
		o->source = strdup(b.source ? b.source : "");
		o->functions = b.nsyms;
		o->debuginfod_timeout = b.timed_out;
		if (!o->path || !o->source || (b.buildid && !o->build_id))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Whether source s has data: a node, or a stack record with no frame left.
 * The records count, not their frames: redact drops user stacks, and a
 * file whose samples all ran in user space must not switch the automatic
 * choice to the off-CPU tree once redacted (its sample count stays).
 */
static bool source_has_data(const struct callgraph *g, enum src s)
{
	return g->trees[s].n > 1 || (s != S_CALLS && g->trees[s].nodes[0].count);
}

static const char *const why_names[] = { "end", "snapshot", "dump" };

/* what the bpf-stacks part of the result says: its source, the others, the ids not joined */
static int bpf_result(const struct callgraph *g, enum src s, struct rpt_cg_result *r)
{
	const struct rpt_bpfstk_src *src = rpt_bpfstk_source(g->bstk, g->bpf_src);
	int k, n = rpt_bpfstk_nsources(g->bstk);
	size_t len = 0;

	/* a counts map, or a ring buffer whose records carried stack ids */
	for (k = 0; k < n && !r->has_bpf_stacks; k++)
		r->has_bpf_stacks = !rpt_bpfstk_source(g->bstk, k)->ring || g->ring_seen[k];
	r->bpf_others = calloc(1, 1);
	if (!r->bpf_others)
		return -ENOMEM;
	if (s != S_BPF || !src)
		return 0;
	r->bpf_source = strdup(src->name);
	if (!r->bpf_source)
		return -ENOMEM;
	r->bpf_ring = src->ring;
	r->bpf_ts = src->ts;
	r->bpf_why = src->why < 3 ? why_names[src->why] : "other";
	r->bpf_truncated = src->truncated;
	r->bpf_not_collected = g->bpf_nc;
	r->bpf_missing = g->bpf_missing;
	r->bpf_skipped = g->bpf_skipped;
	for (k = 0; k < n; k++) {
		const struct rpt_bpfstk_src *o = rpt_bpfstk_source(g->bstk, k);
		size_t l = strlen(o->name);
		char *nb;

		if (k == g->bpf_src || (o->ring && !g->ring_seen[k]))
			continue;
		nb = realloc(r->bpf_others, len + l + 3);
		if (!nb)
			return -ENOMEM;
		r->bpf_others = nb;
		len += (size_t)sprintf(nb + len, "%s%s", len ? ", " : "", o->name);
	}
	return 0;
}

static int build_result(struct callgraph *g, const struct rpt_ctx *ctx, enum src s,
			uint64_t open_calls, struct rpt_cg_result *r)
{
	static const int sources[S_NR] = { RPT_CG_CALLS, RPT_CG_SAMPLES, RPT_CG_OFFCPU,
					   RPT_CG_BPF_STACKS };
	const struct tree *t = &g->trees[s];
	char miss[512];
	int k;

	memset(r, 0, sizeof(*r));
	r->source = sources[s];
	r->source_name = rpt_cg_src_names[s];
	r->unit = src_units[s];
	r->empty = !source_has_data(g, s);
	r->frameless = g->frameless[s];
	r->per_task = g->conf->group == RPT_CG_GROUP_THREAD;
	r->group = rpt_cg_group_names[g->conf->group];
	r->events = ctx->nevents;
	r->total = tree_total(t, s);
	for (k = 0; k < S_NR; k++)
		r->source_nodes[k] = g->trees[k].n - 1;
	r->calls_completed = g->calls_total;
	r->calls_open = open_calls;
	r->unmatched_exits = g->unmatched;
	r->lost_frames = g->lost_frames;
	r->user_stacks = g->stacks[s];
	for (k = 0; k < CUT_NR; k++)
		r->cut[k] = g->cut[s][k];
	r->unwind_mode = g->uw_mode == 1 ? "cfi" : g->uw_mode == 2 ? "dwarf" : "";
	r->unwound = g->uw_stacks[s];
	r->unwind_spliced = g->uw_spliced[s];
	r->unwind_complete = g->uw_complete[s];
	r->unwind_marked = g->uw_marked[s];
	r->unwind_fp_only = g->uw_fponly[s];
	r->pre_exec = g->pre_exec[s];
	r->earlier_image = g->earlier[s];
	r->depth = max_depth_of(t);
	r->nsyms_missing = rpt_syms_missing(g->syms, miss, sizeof(miss));
	r->syms_missing = strdup(r->nsyms_missing ? miss : "");
	if (copy_binaries(g->syms, r))
		return -ENOMEM;
	r->path = strdup(ctx->opts->path ? ctx->opts->path : "");
	if (bpf_result(g, s, r))
		return -ENOMEM;
	r->partial = rpt_partial(ctx);
	rpt_notes_fill(ctx, ctx->first_ts, ctx->last_ts, &r->notes);
	if (r->depth < 0 || !r->syms_missing || !r->path)
		return -ENOMEM;
	return result_nodes(g, ctx, s, r);
}

/* true when node k's function also appears above it on its path */
static bool recursive(const struct rpt_cg_result *r, uint32_t k)
{
	uint32_t p;

	for (p = r->nodes[k].parent; p != RPT_CG_NONE && p != 0; p = r->nodes[p].parent)
		if (!r->nodes[p].group && r->nodes[p].name == r->nodes[k].name)
			return true;
	return false;
}

int rpt_cg_functions(const struct rpt_cg_result *r, struct rpt_cg_func **out, size_t *n)
{
	uint32_t *slot = NULL, k;
	struct rpt_cg_func *f = NULL;
	size_t nf = 0;

	*out = NULL;
	*n = 0;
	if (!r->n)
		return 0;
	slot = malloc((size_t)(r->nnames ? r->nnames : 1) * sizeof(*slot));
	f = calloc(r->n, sizeof(*f));
	if (!slot || !f) {
		free(slot);
		free(f);
		return -ENOMEM;
	}
	for (k = 0; k < r->nnames; k++)
		slot[k] = RPT_CG_NONE;
	for (k = 1; k < r->n; k++) {
		const struct rpt_cg_node *nd = &r->nodes[k];
		struct rpt_cg_func *e;

		if (nd->group || nd->name >= r->nnames || (!nd->count && !nd->total))
			continue;
		if (slot[nd->name] == RPT_CG_NONE) {
			slot[nd->name] = (uint32_t)nf;
			f[nf++].name = nd->name;
		}
		e = &f[slot[nd->name]];
		e->count += nd->count;
		e->self += nd->self;
		if (!recursive(r, k))
			e->total += nd->total;
	}
	free(slot);
	*out = f;
	*n = nf;
	return 0;
}

/* ---- finish ------------------------------------------------------------------------ */

/* grouped trees: a group node's figures are the sums of its top-level calls; the root's too */
static void sum_calls(struct callgraph *g)
{
	struct tree *tr = &g->trees[S_CALLS];
	uint32_t tn, ch;

	if (g->conf->group)
		for (tn = tr->nodes[0].first_child; tn != UINT32_MAX;
		     tn = tr->nodes[tn].next_sibling) {
			tr->nodes[tn].total = 0;
			tr->nodes[tn].count = 0;
			for (ch = tr->nodes[tn].first_child; ch != UINT32_MAX;
			     ch = tr->nodes[ch].next_sibling) {
				tr->nodes[tn].total += tr->nodes[ch].total;
				tr->nodes[tn].count += tr->nodes[ch].count;
			}
		}
	/* calls: the root holds the top-level calls (the tree keeps self times per call) */
	tr->nodes[0].total = tree_total(tr, S_CALLS);
	tr->nodes[0].count = 0;
	for (ch = tr->nodes[0].first_child; ch != UINT32_MAX; ch = tr->nodes[ch].next_sibling)
		tr->nodes[0].count += tr->nodes[ch].count;
}

static enum src chosen_source(const struct callgraph *g)
{
	int k;

	switch (g->conf->source) {
	case RPT_CG_CALLS: return S_CALLS;
	case RPT_CG_SAMPLES: return S_SAMPLES;
	case RPT_CG_OFFCPU: return S_OFFCPU;
	case RPT_CG_BPF_STACKS: return S_BPF;
	default:
		/* --bpf-map names what bpf-stacks shows: that tree, whatever else there is */
		if (g->conf->bpf_map)
			return S_BPF;
		for (k = 0; k < S_NR; k++)
			if (source_has_data(g, (enum src)k))
				return (enum src)k;
		return S_CALLS;
	}
}

static int cg_finish(struct rpt_ctx *ctx, void *priv)
{
	struct callgraph *g = priv;
	const struct rpt_callgraph_conf *c = g->conf;
	const struct rpt_opts *op = ctx->opts;
	FILE *f = op->out ? op->out : stdout;
	struct rpt_cg_result res;
	uint64_t open_calls = 0;
	size_t pos = 0;
	struct ctask *t;
	int k, err;

	memset(&res, 0, sizeof(res));
	if (g->ranged)
		rpt_syms_warn(g->syms);
	for (k = 0; k < g->ncpu_pend; k++)
		flush_pending(g, k);
	while ((t = rpt_map_next(&g->tasks, &pos, NULL)))
		open_calls += (uint64_t)t->calls.n;
	if (g->oom)
		return -ENOMEM;
	err = bpf_tree(g);
	if (err)
		return err;
	if (g->oom)
		return -ENOMEM;
	sum_calls(g);
	err = build_result(g, ctx, chosen_source(g), open_calls, &res);
	if (!err) {
		if (c->flame_unit)
			*c->flame_unit = res.unit;
		if (c->had_data)
			*c->had_data = !res.empty;
		if (c->flame)
			err = rpt_cg_fold(&res, NULL, NULL, c->flame, false);
		if (!err && c->stack_fn)
			err = rpt_cg_fold(&res, c->stack_fn, c->stack_arg, NULL, false);
	}
	if (err || c->stack_fn) {
		rpt_cg_result_release(&res);
		return err;
	}
	if (c->result) {
		*c->result = res;	/* the caller's now */
		return 0;
	}
	if (op->json)
		err = rpt_cg_print_json(&res, c, f);
	else if (c->output == RPT_CG_FOLDED)
		err = rpt_cg_print_folded(&res, f);
	else
		err = rpt_cg_text(&res, op, c, f);
	rpt_cg_result_release(&res);
	return err;
}

/* ---- ranges: a later range's trees and state added to an earlier one's ---------- */

/*
 * Ranged analysis (issue 37, docs/report.md): each range after the file's
 * first starts with no call open, no stack part or kernel_stack pending,
 * and no fork seen.  What its events did to what was open before is kept
 * aside (the ops and placeholders of its tasks, its CPUs' first stack
 * events, the pids it named without knowing their fork) and settled here,
 * in range order, against the earlier ranges' state (dst).  Nodes are
 * mapped in the order the range made them, and a settled stack is emitted
 * where its range would have met it, so that the trees are one replay's,
 * node for node (the text breaks ties in that order).  What only one
 * replay can settle (an exit of a uprobe or BPF function none of the
 * range's own calls pairs with while some are open, a fork before the
 * range whose child the range named, a stack copy split by the cut, a
 * task renamed under --group, a stack deeper than MAX_STACK) gives
 * -EAGAIN: the file is replayed once.
 */
#define TO_BASE UINT32_MAX

struct cg_merge {
	struct callgraph *d, *s;
	uint32_t *fmap;			/* s frame id -> d's, UINT32_MAX not yet */
	uint32_t *nmap;			/* s node -> d node, of the tree being mapped */
	uint32_t *ph_to;		/* s placeholder -> d node, TO_BASE: the task's base */
};

static uint32_t map_name(struct cg_merge *m, uint32_t id)
{
	if (id >= m->s->nframes)
		return id;
	if (m->fmap[id] == UINT32_MAX) {
		m->fmap[id] = intern(m->d, m->s->frames[id]);
		if (id < m->s->nfinl && m->s->finl[id])
			set_inlined(m->d, m->fmap[id]);
	}
	return m->fmap[id];
}

static uint32_t map_frame(struct cg_merge *m, uint32_t fr)
{
	if ((fr & (TASK_FRAME | COMM_FRAME)) == (TASK_FRAME | COMM_FRAME))
		return TASK_FRAME | COMM_FRAME | map_name(m, fr & (COMM_FRAME - 1));
	if (fr & TASK_FRAME)
		return fr;
	return map_name(m, fr);
}

static struct rpt_call map_call(struct cg_merge *m, const struct rpt_call *pc)
{
	struct rpt_call c = *pc;

	if (c.src == RPT_CALL_PROBE)
		c.name = map_name(m, (uint32_t)c.name);
	return c;
}

/* the node of the call on top of t's stack, else its base */
static uint32_t level_node(const struct ctask *t)
{
	const struct cframe *f = top_frame(t);

	return f ? f->node : TO_BASE;
}

/*
 * Settle task key's ops (s's task st) on its calls in d: each level's node
 * into *lvl (nops + 1 of them).  -EAGAIN where one replay must decide.
 */
static int settle_task(struct cg_merge *m, uint64_t key, struct ctask *st, uint32_t **lvl)
{
	struct callgraph *d = m->d, *s = m->s;
	struct ctask *dt = rpt_map_get(&d->tasks, key, NULL);
	struct cframe *f;
	uint32_t i, *to;

	*lvl = NULL;
	if (!dt)
		return -ENOMEM;
	if (!dt->has_base) {
		/* first seen in this range: its base is mapped with the nodes */
		dt->has_base = true;
		dt->base = TO_BASE;
		rpt_calls_init(&dt->calls, sizeof(struct cframe));
		dt->ph_node = UINT32_MAX;
		dt->fg_bound = UINT64_MAX;
	} else if (dt->base != TO_BASE) {
		uint32_t sb = st->base, db = dt->base;

		/* a group frame named when the task was first seen: the same in both */
		if ((sb == 0) != (db == 0) ||
		    (sb && map_frame(m, s->trees[S_CALLS].nodes[sb].frame) !=
				   d->trees[S_CALLS].nodes[db].frame))
			return -EAGAIN;
	}
	if (dt->calls.n + st->maxd > MAX_STACK)
		return -EAGAIN;
	to = malloc((size_t)(st->nops + 1) * sizeof(*to));
	if (!to)
		return -ENOMEM;
	*lvl = to;
	to[0] = level_node(dt);
	for (i = 0; i < st->nops; i++) {
		const struct bop *b = &st->ops[i];
		struct rpt_call pc = map_call(m, &b->pc);

		if ((f = top_frame(dt)))
			f->child += b->child;
		if (b->kind == BOP_ENTRY)
			drop_lost(d, dt, rpt_calls_enter(&dt->calls, &pc));
		else
			leave(d, dt, &pc, b->ts, b->has_dur, b->dur);
		to[i + 1] = level_node(dt);
	}
	if ((f = top_frame(dt)))
		f->child += st->ph_child;
	return d->oom ? -ENOMEM : 0;
}

/* the range's own open calls, on top of the settled ones */
static int push_open(struct cg_merge *m, uint64_t key, const struct ctask *st)
{
	struct ctask *dt = rpt_map_find(&m->d->tasks, key);
	int k;

	if (!dt)
		return -ENOMEM;
	if (dt->base == TO_BASE)
		dt->base = m->nmap[st->base];
	for (k = 0; k < st->calls.n; k++) {
		const struct cframe *sf = rpt_calls_at(&st->calls, k);
		struct rpt_call pc = map_call(m, &sf->call);
		struct cframe *df = rpt_calls_push(&dt->calls, &pc, MAX_STACK);

		if (!df)
			return -ENOMEM;
		df->node = m->nmap[sf->node];
		df->frame = map_frame(m, sf->frame);
		df->start = sf->start;
		df->child = sf->child;
	}
	return 0;
}

/* a CPU's first stack event of s, where s met it: what one replay did then */
static void settle_pending(struct cg_merge *m, int cpu, const struct cpu_first *f)
{
	struct callgraph *d = m->d;

	if (f->pend == PF_USTACK)
		join_ustack(d, cpu, f->pid, f->tgid, f->ua, f->un);
	else if (cpu < d->ncpu_pend)
		flush_pending(d, cpu);
}

static int cmp_first(const void *a, const void *b, void *arg)
{
	const struct cpu_first *cf = arg;
	const struct cpu_first *x = &cf[*(const int *)a], *y = &cf[*(const int *)b];

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* s's tree k into d's, in the order s made its nodes; the samples tree's settled stacks between */
static int map_tree(struct cg_merge *m, int k, const int *order, int norder)
{
	struct tree *dt = &m->d->trees[k];
	const struct tree *st = &m->s->trees[k];
	uint32_t i;
	int o = 0;

	m->nmap[0] = 0;
	dt->nodes[0].count += st->nodes[0].count;
	dt->nodes[0].total += st->nodes[0].total;
	dt->nodes[0].self += st->nodes[0].self;
	/* i up to n: a stack settled after the range's last new node (at is n then) */
	for (i = 1; i <= st->n; i++) {
		const struct node *sn;
		uint32_t nd;

		for (; k == S_SAMPLES && o < norder && m->s->cf[order[o]].at <= i; o++)
			settle_pending(m, order[o], &m->s->cf[order[o]]);
		if (i == st->n)
			break;
		sn = &st->nodes[i];
		if (k == S_CALLS && (sn->frame & (TASK_FRAME | COMM_FRAME)) == PH_FRAME) {
			uint32_t to = m->ph_to[sn->frame & (COMM_FRAME - 1)];

			m->nmap[i] = to == TO_BASE ? m->nmap[sn->parent] : to;
			continue;
		}
		nd = child(m->d, dt, m->nmap[sn->parent], map_frame(m, sn->frame));
		if (m->d->oom)
			return -ENOMEM;
		dt->nodes[nd].count += sn->count;
		dt->nodes[nd].total += sn->total;
		dt->nodes[nd].self += sn->self;
		m->nmap[i] = nd;
	}
	return m->d->oom ? -ENOMEM : 0;
}

/* bpf-stacks ring records: d's then s's, in the order each made them, weights added */
static int merge_ragg(struct callgraph *d, const struct callgraph *s)
{
	struct rpt_map n;
	const struct rpt_map *from[2] = { &d->ragg, &s->ragg };

	if (!s->ragg.count)
		return 0;
	rpt_map_init(&n, sizeof(struct ragg));
	for (int w = 0; w < 2; w++)
		for (size_t i = 0; i < from[w]->count; i++) {
			struct ragg a, *slot;
			uint64_t wt;
			bool created;

			/* every byte, padding included: the hash reads them all */
			memcpy(&a, rpt_map_nth(from[w], i), sizeof(a));
			wt = a.smp.weight;
			a.smp.weight = 0;	/* as it was hashed */
			slot = rpt_map_get(&n, ragg_hash(&a), &created);
			if (!slot) {
				rpt_map_release(&n);
				return -ENOMEM;
			}
			if (created)
				memcpy(slot, &a, sizeof(a));
			slot->smp.weight += wt;
		}
	rpt_map_release(&d->ragg);
	d->ragg = n;
	return 0;
}

/* the per-CPU state after s: where s touched a CPU, s's; else what was there */
static int merge_cpus(struct callgraph *d, const struct callgraph *s)
{
	for (int c = 0; c < s->ncf; c++) {
		const struct cpu_first *f = &s->cf[c];

		if (f->pend != PF_NONE) {
			struct pending_kstack *p = pend_get(d, c);

			if (!p)
				return -ENOMEM;
			if (c < s->ncpu_pend)
				*p = s->pend[c];
			else
				p->has = false;
		}
		/* parts kept: the range's own from its first part on, else those before it */
		if (f->add) {
			struct ucopy_more *mo = more_get(d, c);

			if (!mo)
				return -ENOMEM;
			if (c < s->nmore)
				*mo = s->more[c];
			else
				mo->len = 0;
		}
	}
	return 0;
}

/* what one replay must decide, before anything of d changes */
static bool merge_unsure(const struct callgraph *d, const struct callgraph *s)
{
	size_t pos = 0;
	uint64_t pid;

	if (s->unsure)
		return true;
	for (int c = 0; c < s->ncf; c++) {
		const struct cpu_first *f = &s->cf[c];
		const struct ucopy_more *mo = c < d->nmore ? &d->more[c] : NULL;
		bool pend = c < d->ncpu_pend && d->pend[c].has;

		/* a stack settled here is named with the task as it is now: one replay, under --group */
		if (d->conf->group && (f->pend == PF_USTACK || (f->pend == PF_FLUSH && pend)))
			return true;
		/*
		 * a stack copy's parts on both sides of the cut: the range's first
		 * part continues them, or a record before it joins them
		 */
		if (mo && mo->len && ((f->add && mo->pid == f->add_pid &&
					f->add_off == mo->start + mo->len) || f->join_many ||
				       (f->join && mo->pid == f->join_pid && mo->start == f->join_own)))
			return true;
	}
	/* a process the range named from its own image that ran its parent's */
	while (rpt_map_next(&s->img_miss, &pos, &pid)) {
		const int *v = rpt_map_find(&d->image_of, pid);

		if (v && *v > 0)
			return true;
	}
	return false;
}

static int cg_merge(struct rpt_ctx *ctx, void *dst, void *src)
{
	struct callgraph *d = dst, *s = src;
	struct cg_merge m = { .d = d, .s = s };
	size_t pos;
	struct ctask *st;
	uint64_t key;
	int err = 0, *order = NULL, norder = 0, k, *v;
	uint32_t i;

	(void)ctx;
	if (d->oom || s->oom)
		return -ENOMEM;
	if (merge_unsure(d, s))
		return -EAGAIN;
	m.fmap = malloc((size_t)(s->nframes ? s->nframes : 1) * sizeof(*m.fmap));
	m.ph_to = malloc((size_t)(s->nph ? s->nph : 1) * sizeof(*m.ph_to));
	order = malloc((size_t)(s->ncf ? s->ncf : 1) * sizeof(*order));
	if (!m.fmap || !m.ph_to || !order) {
		err = -ENOMEM;
		goto out;
	}
	memset(m.fmap, 0xff, (size_t)(s->nframes ? s->nframes : 1) * sizeof(*m.fmap));
	/* the calls open before s: each task's ops, then its placeholders' nodes */
	pos = 0;
	while (!err && (st = rpt_map_next(&s->tasks, &pos, &key)))
		if (st->has_base)
			err = settle_task(&m, key, st, &st->lvl_to);
	if (err)
		goto out;
	for (i = 0; i < s->nph; i++) {
		st = rpt_map_find(&s->tasks, s->ph[i].task);
		m.ph_to[i] = st && st->lvl_to ? st->lvl_to[s->ph[i].level] : TO_BASE;
	}
	for (k = 0; k < s->ncf; k++)
		if (s->cf[k].pend != PF_NONE)
			order[norder++] = k;
	qsort_r(order, (size_t)norder, sizeof(*order), cmp_first, s->cf);
	for (k = 0; k < S_NR && !err; k++) {
		uint32_t *nm = malloc((size_t)s->trees[k].n * sizeof(*nm));

		if (!nm) {
			err = -ENOMEM;
			break;
		}
		m.nmap = nm;
		err = map_tree(&m, k, order, norder);
		/* the calls' tree: the tasks' open calls point into it */
		pos = 0;
		while (k == S_CALLS && !err && (st = rpt_map_next(&s->tasks, &pos, &key)))
			if (st->has_base)
				err = push_open(&m, key, st);
		free(nm);
		m.nmap = NULL;
	}
	if (!err)
		err = merge_cpus(d, s);
	if (!err)
		err = merge_ragg(d, s);
	if (err)
		goto out;
	pos = 0;
	while ((v = rpt_map_next(&s->image_of, &pos, &key))) {
		int *dv = rpt_map_get(&d->image_of, key, NULL);

		if (!dv) {
			err = -ENOMEM;
			goto out;
		}
		*dv = *v;
	}
	for (k = 0; k <= rpt_bpfstk_nsources(s->bstk); k++)
		d->ring_seen[k] |= s->ring_seen[k];
	d->unmatched += s->unmatched;
	d->lost_frames += s->lost_frames;
	d->too_deep += s->too_deep;
	d->calls_total += s->calls_total;
	for (k = 0; k < S_NR; k++) {
		d->frameless[k] += s->frameless[k];
		d->stacks[k] += s->stacks[k];
		for (int c = 0; c < CUT_NR; c++)
			d->cut[k][c] += s->cut[k][c];
		d->pre_exec[k] += s->pre_exec[k];
		d->earlier[k] += s->earlier[k];
		d->uw_stacks[k] += s->uw_stacks[k];
		d->uw_spliced[k] += s->uw_spliced[k];
		d->uw_complete[k] += s->uw_complete[k];
		d->uw_marked[k] += s->uw_marked[k];
		d->uw_fponly[k] += s->uw_fponly[k];
	}
	rpt_syms_take_tried(d->syms, s->syms);
out:
	pos = 0;
	while ((st = rpt_map_next(&s->tasks, &pos, NULL))) {
		free(st->lvl_to);
		st->lvl_to = NULL;
	}
	free(m.fmap);
	free(m.ph_to);
	free(order);
	if (!err && d->oom)
		err = -ENOMEM;
	return err;
}

static void cg_release(void *priv)
{
	struct callgraph *g = priv;
	size_t pos = 0;
	struct ctask *t;
	uint32_t k;
	int i;

	while ((t = rpt_map_next(&g->tasks, &pos, NULL))) {
		rpt_calls_release(&t->calls);
		free(t->ops);
		free(t->lvl_to);
	}
	rpt_map_release(&g->tasks);
	free(g->ph);
	for (i = 0; i < g->ncf; i++)
		free(g->cf[i].ua);
	free(g->cf);
	rpt_map_release(&g->img_miss);
	for (i = 0; i < S_NR; i++)
		tree_release(&g->trees[i]);
	for (k = 0; k < g->nframes; k++)
		free(g->frames[k]);
	free(g->frames);
	rpt_map_release(&g->names);
	rpt_map_release(&g->image_of);
	rpt_map_release(&g->kcache);
	rpt_map_release(&g->ucache);
	rpt_map_release(&g->pcache);
	free(g->inl);
	free(g->finl);
	rpt_types_release(&g->types);
	rpt_unwind_free(g->uw);
	free(g->more);
	free(g->whole);
	rpt_syms_free(g->syms);
	rpt_bpfstk_free(g->bstk);
	free(g->uevs);
	free(g->ring_seen);
	rpt_map_release(&g->ragg);
	for (i = 0; i < g->nufunc; i++)
		free(g->ufunc_names[i]);
	free(g->ufunc_names);
	for (i = 0; i < g->nkfunc; i++)
		free(g->kfunc_names[i]);
	free(g->kfunc_names);
	free(g->pend);
}

const struct rpt_analyzer rpt_callgraph_analyzer = {
	.name = "callgraph",
	.priv_size = sizeof(struct callgraph),
	.init = cg_init,
	.event = cg_event,
	.finish = cg_finish,
	.release = cg_release,
	.merge = cg_merge,
	.kinds = CG_KINDS,
};

/* ---- command ----------------------------------------------------------------------- */

static const char cg_usage[] =
	"usage: flytrap callgraph [options] [FILE]\n"
	"\n"
	"Call trees of FILE (default trace.dat) with count, total and self time per\n"
	"node, from function_graph records, uprobe and BPF ufunc entry/return records\n"
	"(calls), kernel_stack/user_stack events and BPF profile stacks (samples),\n"
	"BPF off-CPU stacks (offcpu), or the stack ids of a record --bpf-object\n"
	"program's counts map or ring buffer (bpf-stacks).\n"
	"\n"
	"options:\n"
	"  --folded           folded stacks (flamegraph.pl, speedscope), self weights\n";

const char rpt_callgraph_options_help[] =
	"  --source S         calls, samples, offcpu or bpf-stacks (default: the first\n"
	"                     present)\n"
	"  --bpf-map NAME     bpf-stacks: the counts map or ring buffer (OBJECT/MAP or\n"
	"                     MAP) when the file has several\n"
	"  --group G          a root frame per comm (task name), process (comm-tgid),\n"
	"                     thread (comm-tid) or none (default)\n"
	"  --per-task         one tree per thread (--group thread)\n"
	"  --depth N          tree text: show N levels\n"
	"  --min-percent P    tree text: hide nodes below P% of the total\n"
	"  --svg FILE         also write an SVG flame graph to FILE (not written when\n"
	"                     no call or stack data matches)\n"
	"  --symfs DIR        look for user binaries under DIR (by path and build-id)\n"
	"  --debug-dir DIR    a debug directory with .build-id/ (repeatable)\n"
	"  --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for debug files\n"
	"  --no-inline        no frames for functions inlined into user code (from\n"
	"                     DWARF debug info, marked \"(inlined)\")\n";

const struct ft_opt rpt_callgraph_opts[] = {
	{ "per-task", 0, false, RPT_CG_O_PER_TASK },
	{ "group", 0, true, RPT_CG_O_GROUP },
	{ "folded", 0, false, RPT_CG_O_FOLDED },
	{ "no-debuginfod", 0, false, RPT_CG_O_NO_DEBUGINFOD },
	{ "no-inline", 0, false, RPT_CG_O_NO_INLINE },
	{ "source", 0, true, RPT_CG_O_SOURCE },
	{ "depth", 0, true, RPT_CG_O_DEPTH },
	{ "min-percent", 0, true, RPT_CG_O_MIN_PERCENT },
	{ "svg", 0, true, RPT_CG_O_SVG },
	{ "symfs", 0, true, RPT_CG_O_SYMFS },
	{ "debug-dir", 0, true, RPT_CG_O_DEBUG_DIR },
	{ "bpf-map", 0, true, RPT_CG_O_BPF_MAP },
	{ 0 },
};

const char *const rpt_cg_group_names[] = { "none", "comm", "process", "thread" };

int rpt_cg_group_opt(enum rpt_cg_group *g, const char *v)
{
	int k;

	for (k = 0; k <= RPT_CG_GROUP_THREAD; k++)
		if (!strcmp(v, rpt_cg_group_names[k])) {
			*g = (enum rpt_cg_group)k;
			return 0;
		}
	return ft_usage_error("--group needs comm, process, thread or none, not '%s'", v);
}

static int cg_source_opt(struct rpt_cg_args *A, const char *v)
{
	if (!strcmp(v, "calls"))
		A->conf.source = RPT_CG_CALLS;
	else if (!strcmp(v, "samples"))
		A->conf.source = RPT_CG_SAMPLES;
	else if (!strcmp(v, "offcpu"))
		A->conf.source = RPT_CG_OFFCPU;
	else if (!strcmp(v, "bpf-stacks"))
		A->conf.source = RPT_CG_BPF_STACKS;
	else
		return ft_usage_error("--source needs calls, samples, offcpu or bpf-stacks, not '%s'",
				      v);
	return 0;
}

static int cg_number_opt(struct rpt_cg_args *A, int id, const char *v)
{
	uint64_t n;
	char *end;
	double p;

	if (id == RPT_CG_O_DEPTH) {
		if (ft_parse_u64(v, &n) || !n || n > 100000)
			return ft_usage_error("--depth needs a positive number, not '%s'", v);
		A->conf.max_depth = (int)n;
		return 0;
	}
	p = strtod(v, &end);
	if (!*v || *end || p < 0 || p > 100)
		return ft_usage_error("--min-percent needs a number from 0 to 100, not '%s'", v);
	A->conf.min_percent = p;
	return 0;
}

static int cg_path_opt(struct rpt_cg_args *A, int id, const char *v)
{
	const char **nd;

	if (!*v)
		return ft_usage_error("--%s needs a %s", id == RPT_CG_O_SVG ? "svg" :
				      id == RPT_CG_O_SYMFS ? "symfs" : "debug-dir",
				      id == RPT_CG_O_SVG ? "file name" : "directory");
	if (id == RPT_CG_O_SVG) {
		A->svg = v;
	} else if (id == RPT_CG_O_SYMFS) {
		A->conf.symfs = v;
	} else {
		nd = realloc(A->dbg, (size_t)(A->ndbg + 2) * sizeof(*nd));
		if (!nd)
			return ft_error("out of memory");
		A->dbg = nd;
		nd[A->ndbg++] = v;
		nd[A->ndbg] = NULL;
		A->conf.debug_dirs = nd;
	}
	return 0;
}

int rpt_callgraph_option(void *arg, int table, const struct ft_opt *o, const char *v)
{
	struct rpt_cg_args *A = arg;

	(void)table;
	switch (o->id) {
	case RPT_CG_O_PER_TASK: A->conf.group = RPT_CG_GROUP_THREAD; return 0;
	case RPT_CG_O_GROUP: return rpt_cg_group_opt(&A->conf.group, v);
	case RPT_CG_O_FOLDED: A->conf.output = RPT_CG_FOLDED; return 0;
	case RPT_CG_O_NO_DEBUGINFOD: A->conf.no_debuginfod = true; return 0;
	case RPT_CG_O_NO_INLINE: A->conf.no_inline = true; return 0;
	case RPT_CG_O_SOURCE: return cg_source_opt(A, v);
	case RPT_CG_O_DEPTH:
	case RPT_CG_O_MIN_PERCENT: return cg_number_opt(A, o->id, v);
	case RPT_CG_O_BPF_MAP:
		if (!*v)
			return ft_usage_error("--bpf-map needs a map name (OBJECT/MAP or MAP)");
		A->conf.bpf_map = v;
		return 0;
	default: return cg_path_opt(A, o->id, v);
	}
}

int rpt_callgraph_setup(struct rpt_cg_args *A)
{
	if (A->conf.bpf_map && A->conf.source != RPT_CG_AUTO &&
	    A->conf.source != RPT_CG_BPF_STACKS)
		return ft_usage_error("--bpf-map picks the data of --source bpf-stacks, not of --source "
				      "%s", rpt_cg_src_names[A->conf.source - 1]);
	A->conf.flame_unit = &A->unit;
	A->conf.had_data = &A->had_data;
	if (A->svg) {
		int rc = rpt_svg_dest_check(A->svg);

		if (rc != EXIT_OK)
			return rc;
		A->conf.flame = rpt_flame_new();
		if (!A->conf.flame)
			return ft_error("out of memory");
	}
	return EXIT_OK;
}

int rpt_callgraph_done(struct rpt_cg_args *A, int rc, const char *input)
{
	if (rc == EXIT_OK && A->svg && A->conf.flame && !A->had_data) {
		/* an empty picture would pass for a result */
		ft_warn("no call or stack data matched: '%s' not written", A->svg);
	} else if (rc == EXIT_OK && A->svg && A->conf.flame) {
		struct fmt_outfile of;
		FILE *sf = rpt_text_out_begin(A->svg, &of);

		if (!sf) {
			rc = ft_error("cannot create '%s': %s", A->svg, strerror(errno));
		} else {
			const char *base = strrchr(input, '/');
			char title[256];
			int e, e2;

			snprintf(title, sizeof(title), "flytrap callgraph: %s",
				 base ? base + 1 : input);
			e = rpt_flame_svg(A->conf.flame, sf, title, A->unit);
			e2 = rpt_text_out_end(sf, &of, !e);
			if (e || e2)
				rc = ft_error("cannot write '%s': %s", A->svg,
					      strerror(e ? -e : -e2));
		}
	}
	rpt_flame_free(A->conf.flame);
	A->conf.flame = NULL;
	free(A->dbg);
	A->dbg = NULL;
	A->conf.debug_dirs = NULL;
	return rc;
}

static int cg_run(void *arg, struct fmt_reader *r, struct rpt_opts *o)
{
	struct rpt_cg_args *A = arg;
	struct rpt_analyzer an = rpt_callgraph_analyzer;
	const struct rpt_analyzer *list[1] = { &an };
	int rc = rpt_callgraph_setup(A);

	an.conf = &A->conf;
	if (rc == EXIT_OK)
		rc = rpt_replay_status(rpt_replay(r, o, list, 1), r, o, "analyze");
	return rpt_callgraph_done(A, rc, o->path);
}

int cmd_callgraph(int argc, char **argv)
{
	struct rpt_cg_args A;
	char usage[sizeof(cg_usage) + sizeof(rpt_callgraph_options_help)];
	struct rpt_command c = { .usage = usage, .opts = { rpt_callgraph_opts },
				 .option = rpt_callgraph_option, .run = cg_run, .arg = &A };
	int rc;

	memset(&A, 0, sizeof(A));
	snprintf(usage, sizeof(usage), "%s%s", cg_usage, rpt_callgraph_options_help);
	rc = rpt_run_command(argc, argv, &c);
	free(A.dbg);	/* when the run never started (usage errors) */
	return rc;
}
