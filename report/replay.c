// SPDX-License-Identifier: GPL-2.0-only
/*
 * One replay pass over a trace.dat feeding several analyzers, and the
 * command front end around it (options, the replay, the exit status).
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "json.h"
#include "replay.h"
#include "share.h"
#include <time.h>
#include <unistd.h>

/*
 * The first damaged stream of the last replay (the error is printed once,
 * after the output, by rpt_replay_status()), and the errno of the first
 * failed write to an analyzer's output, for the one "cannot write" line.
 */
static char first_damage[512];
static int out_errno;

/* Per event id: its kind and fields (report/kinds.h), resolved the first time it is seen. */
struct replay_type {
	bool done;
	struct rpt_kind_info ki;
	struct fmt_namesrc ns;
};

/*
 * Before the analyzers see ev: its kind (resolved once per id), the task
 * names it carries, and its typed record when a running analyzer reads
 * that kind (want: the union of their .kinds).
 */
static void replay_prepare(struct rpt_ctx *ctx, struct rpt_types *types, struct rpt_tasks *tasks,
			   const struct fmt_event *ev, uint64_t want, struct rpt_rec *rec)
{
	static const struct rpt_kind_info none = {
		.kind = RPT_K_OTHER,
		.common_pid.offset = -1, .tgid.offset = -1, .comm.offset = -1,
		.uregs.offset = -1, .ucopy.offset = -1,
	};
	struct replay_type *rt = rpt_types_get(types, ev->type);

	ctx->rec = NULL;
	if (!rt) {
		ctx->ki = &none;
		return;
	}
	if (!rt->done) {
		rpt_kind_resolve(ev->event, &rt->ki);
		/* ftrace's caller[] entries are longs of the kernel that wrote the file */
		rt->ki.long_size = ctx->info->kernel_long;
		fmt_namesrc_resolve(ev->event, &rt->ns);
		rt->done = true;
	}
	ctx->ki = &rt->ki;
	rpt_tasks_track(tasks, &rt->ns, ev);
	if (want & RPT_KIND_BIT(rt->ki.kind)) {
		rpt_rec_decode(&rt->ki, ev->rec.data, ev->rec.size, rec);
		ctx->rec = rec;
	}
}

/* ---- replay --------------------------------------------------------------- */

/* Last timestamp per (buffer, cpu) stream, for the start of a loss gap. */
struct stream_last {
	uint64_t ts;
	int last_loss;		/* index + 1 of this stream's latest entry in ctx->losses */
};

/*
 * Markers are kept one by one up to RPT_MAX_LOSSES; after that a marker is
 * merged into its stream's latest entry (the gap then spans both), so
 * memory stays bounded when every page of a huge file lost events.
 */
#define RPT_MAX_LOSSES 65536

static int add_loss(struct rpt_ctx *ctx, int *cap, const struct fmt_event *ev,
		    struct stream_last *sl)
{
	struct rpt_loss *l;

	if (ctx->nlosses >= RPT_MAX_LOSSES && sl && sl->last_loss) {
		l = &ctx->losses[sl->last_loss - 1];
		l->ts = ev->rec.ts;
		l->markers++;
		if (l->count >= 0 && ev->rec.missed_events > 0)
			l->count += ev->rec.missed_events;
		else
			l->count = -1;
		return 0;
	}
	if (ctx->nlosses == *cap) {
		int ncap = *cap ? *cap * 2 : 64;
		struct rpt_loss *nl = realloc(ctx->losses, (size_t)ncap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		ctx->losses = nl;
		*cap = ncap;
	}
	l = &ctx->losses[ctx->nlosses++];
	if (sl)
		sl->last_loss = ctx->nlosses;
	l->ts = ev->rec.ts;
	l->prev_ts = sl ? sl->ts : 0;
	l->count = ev->rec.missed_events < 0 ? -1 : ev->rec.missed_events;
	l->buffer = ev->buffer;
	l->cpu = ev->rec.cpu;
	l->markers = 1;
	return 0;
}

/*
 * Progress on stderr, only when it is a terminal (style.md), and only once a
 * replay has run for a second: the clock is read every PROGRESS_EVERY + 1
 * events, so the hot loop pays one test per event.
 */
#define PROGRESS_EVERY ((1u << 18) - 1)

struct progress {
	bool on, shown;
	struct timespec start;
	double last;		/* seconds since start at the last update */
	const char *path;	/* the file name: the line must fit a terminal to be redrawn */
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void progress_begin(struct progress *p, const struct rpt_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->on = ft_progress_enabled();
	p->path = o->path ? o->path : "input";
	if (strrchr(p->path, '/'))
		p->path = strrchr(p->path, '/') + 1;
	if (p->on)
		clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void progress_show(struct progress *p, uint64_t n)
{
	double dt = since(&p->start);

	/* from one second on, four updates a second */
	if (dt < 1.0 || dt - p->last < 0.25)
		return;
	p->last = dt;
	fprintf(stderr, "\r%.40s: %.1fM events read, %.1fM/s", p->path, (double)n / 1e6,
		(double)n / 1e6 / dt);
	p->shown = true;
}

static void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);	/* leave the terminal as it was */
	p->shown = false;
}

/*
 * A slice (report/slice.c) carries the records that make the state at its
 * cuts: entries of calls open at its start and the last sched_switch of
 * each CPU ("prologue="), exits of calls open at its end ("epilogue=").
 * They are handed to the analyzers before and after the slice's own events
 * (not counted as events, not printed by report), so that a call cut by
 * the window keeps its true duration.  Lines: "KEY=BUFFER CPU RAW_TS HEX".
 */
static void feed_slice_records(struct rpt_ctx *ctx, const char *key, struct rpt_types *types,
			       struct rpt_tasks *tasks, const struct rpt_analyzer *const *an, int n,
			       void **privs)
{
	const struct fmt_option *o = fmt_reader_option(ctx->r, FMT_OPT_FT_SLICE, 0);
	const char *p, *end;
	size_t klen = strlen(key);
	uint8_t buf[65536];
	uint64_t want = 0;
	struct rpt_rec rec;

	for (int k = 0; k < n; k++)
		want |= an[k]->kinds;

	if (!o || !o->size)
		return;
	p = o->data;
	end = p + strnlen(p, o->size);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		struct fmt_event ev = { 0 };
		unsigned long long raw;
		int b, cpu, used = 0, len = 0;

		if ((size_t)(le - p) > klen + 1 && !memcmp(p, key, klen) && p[klen] == '=' &&
		    sscanf(p + klen + 1, "%d %d %llu %n", &b, &cpu, &raw, &used) == 3 && used &&
		    b >= 0 && b < ctx->info->nbuffers && cpu >= 0) {
			const char *h = p + klen + 1 + used;

			while (h + 1 < le && len < (int)sizeof(buf) &&
			       isxdigit((unsigned char)h[0]) && isxdigit((unsigned char)h[1])) {
				char two[3] = { h[0], h[1], 0 };

				buf[len++] = (uint8_t)strtoul(two, NULL, 16);
				h += 2;
			}
			if (len >= 8) {
				ev.rec.data = buf;
				ev.rec.size = len;
				ev.rec.cpu = cpu;
				ev.buffer = b;
				ev.raw_ts = raw;
				ev.rec.ts = fmt_reader_adjust_ts_cpu(ctx->r, raw, b, cpu);
				ev.type = ctx->info->big_endian ? buf[0] << 8 | buf[1] :
								  buf[1] << 8 | buf[0];
				ev.event = fmt_reader_event(ctx->r, ev.type);
				replay_prepare(ctx, types, tasks, &ev, want, &rec);
				for (int k = 0; k < n; k++)
					if (an[k]->event_unfiltered)
						an[k]->event_unfiltered(ctx, privs[k], &ev);
				if (rpt_event_selected(ctx, &ev))
					for (int k = 0; k < n; k++)
						if (an[k]->event)
							an[k]->event(ctx, privs[k], &ev);
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* One replay: the context the analyzers see, their private data, and the reader's bookkeeping. */
struct replay {
	struct rpt_ctx ctx;
	struct rpt_tasks tasks;
	struct rpt_types types;
	struct rpt_map last;	/* (buffer << 32 | cpu) -> struct stream_last */
	struct fmt_iter *it;
	const struct rpt_analyzer *const *an;
	int n;
	void **privs;
	int ninit;		/* analyzers whose init succeeded (the first ninit) */
	bool any_unfiltered;
	uint64_t want;		/* kinds some analyzer reads as typed records */
	int losscap, nerrs;
	int last_buf, last_cpu;	/* the stream of sl_cached */
	struct stream_last *sl_cached;
	struct progress prog;
	struct rpt_rec rec;
};

/* The context and the analyzers' private data; privs stays NULL when even that fails. */
static int replay_begin(struct replay *rp, struct fmt_reader *r, const struct rpt_opts *opts,
			const struct rpt_analyzer *const *an, int n)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int k, err = 0;

	memset(rp, 0, sizeof(*rp));
	rp->types.elem_size = sizeof(struct replay_type);
	rp->an = an;
	rp->n = n;
	rp->last_buf = -1;
	rp->last_cpu = -1;
	first_damage[0] = 0;
	ctx->r = r;
	ctx->tep = fmt_reader_tep(r);
	ctx->info = fmt_reader_info(r);
	ctx->opts = opts;
	rpt_set_raw_clock(!ctx->info->clock_in_usecs);
	progress_begin(&rp->prog, opts);
	rpt_tasks_init(&rp->tasks);
	rpt_map_init(&rp->last, sizeof(struct stream_last));
	ctx->tasks = &rp->tasks;

	rp->privs = calloc((size_t)(n > 0 ? n : 1), sizeof(*rp->privs));
	if (!rp->privs)
		err = -ENOMEM;
	for (k = 0; !err && k < n; k++) {
		rp->privs[k] = calloc(1, an[k]->priv_size ? an[k]->priv_size : 1);
		if (!rp->privs[k])
			err = -ENOMEM;
		if (an[k]->event_unfiltered)
			rp->any_unfiltered = true;
		rp->want |= an[k]->kinds;
	}
	return err;
}

/* Each analyzer's init, with its own configuration in ctx->conf; stops at the first failure. */
static int init_analyzers(struct replay *rp)
{
	int err = 0;

	for (int k = 0; k < rp->n && !err; k++) {
		if (rp->an[k]->init) {
			rp->ctx.conf = rp->an[k]->conf;
			err = rp->an[k]->init(&rp->ctx, rp->privs[k]);
			rp->ctx.conf = NULL;
		}
		if (!err)
			rp->ninit++;
	}
	return err;
}

static int open_events(struct replay *rp)
{
	struct fmt_iter_opts io;
	const struct rpt_opts *opts = rp->ctx.opts;

	memset(&io, 0, sizeof(io));
	io.threads = opts->threads ? opts->threads : rpt_threads_default();
	/*
	 * the analyzers run beside the read and merge: the serial part is
	 * theirs, not the reader's
	 */
	io.pipeline = true;
	io.no_peek = true;	/* the analyzers read each event once */
	/*
	 * The CPU filter is not pushed into the iterator: loss markers and
	 * task names come from every CPU (a task named by a sched_switch on
	 * one CPU runs on another later), and an analyzer must give the same
	 * figures alone and next to others in `flytrap analyze`.
	 */
	return fmt_iter_new(rp->ctx.r, &io, &rp->it);
}

/*
 * A damaged CPU stream (rc < 0 from the iterator): counted, the first
 * message kept; the read goes on with the other streams until there are
 * too many to be worth it, when rc becomes the replay's error.
 */
static int stream_error(struct replay *rp, int rc)
{
	const struct rpt_opts *opts = rp->ctx.opts;

	/* the first is the error rpt_replay_status() prints; later ones are details */
	if (!rp->nerrs)
		snprintf(first_damage, sizeof(first_damage), "%s", fmt_reader_error(rp->ctx.r));
	else if (rp->nerrs < 10)
		ft_warn("'%s': another damaged CPU stream: %s", opts->path ? opts->path : "input",
			fmt_reader_error(rp->ctx.r));
	rp->nerrs++;
	rp->ctx.stream_errors = rp->nerrs;
	return rp->nerrs > 1000000 ? rc : 0;
}

/* The loss bookkeeping of ev's stream: a marker when events were missed before it. */
static int note_stream(struct replay *rp, const struct fmt_event *ev)
{
	struct stream_last *sl;
	int err;

	/* events come in runs per stream: remember the last one looked up */
	if (ev->buffer != rp->last_buf || ev->rec.cpu != rp->last_cpu || !rp->sl_cached) {
		uint64_t key = (uint64_t)(uint32_t)ev->buffer << 32 | (uint32_t)ev->rec.cpu;

		rp->sl_cached = rpt_map_get(&rp->last, key, NULL);
		rp->last_buf = ev->buffer;
		rp->last_cpu = ev->rec.cpu;
	}
	sl = rp->sl_cached;
	err = ev->rec.missed_events ? add_loss(&rp->ctx, &rp->losscap, ev, sl) : 0;
	if (sl && !err)
		sl->ts = ev->rec.ts;
	return err;
}

/* The event prepared, shown to the analyzers that see every event, then to the rest if selected */
static void dispatch_event(struct replay *rp, const struct fmt_event *ev)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int k;

	replay_prepare(ctx, &rp->types, &rp->tasks, ev, rp->want, &rp->rec);

	if (rp->any_unfiltered)
		for (k = 0; k < rp->n; k++)
			if (rp->an[k]->event_unfiltered)
				rp->an[k]->event_unfiltered(ctx, rp->privs[k], ev);
	if (rpt_event_selected(ctx, ev)) {
		if (!ctx->nevents)
			ctx->first_ts = ev->rec.ts;
		ctx->nevents++;
		ctx->last_ts = ev->rec.ts;
		for (k = 0; k < rp->n; k++)
			if (rp->an[k]->event)
				rp->an[k]->event(ctx, rp->privs[k], ev);
	}
}

/* One event read from the file: counted, its stream's losses noted, then dispatched */
static int replay_event(struct replay *rp, const struct fmt_event *ev)
{
	struct rpt_ctx *ctx = &rp->ctx;
	int err;

	if (!ctx->nevents_all)
		ctx->all_first_ts = ev->rec.ts;
	ctx->nevents_all++;
	ctx->all_last_ts = ev->rec.ts;
	if (rp->prog.on && !(ctx->nevents_all & PROGRESS_EVERY))
		progress_show(&rp->prog, ctx->nevents_all);
	err = note_stream(rp, ev);
	if (!err)
		dispatch_event(rp, ev);
	return err;
}

/* Every event of the file, between a slice's prologue and epilogue records. */
static int replay_events(struct replay *rp)
{
	const struct fmt_event *ev;
	int err = 0, rc;

	feed_slice_records(&rp->ctx, "prologue", &rp->types, &rp->tasks, rp->an, rp->n, rp->privs);
	while (!err && (rc = fmt_iter_next(rp->it, &ev)) != 0)
		err = rc < 0 ? stream_error(rp, rc) : replay_event(rp, ev);
	if (!err)
		feed_slice_records(&rp->ctx, "epilogue", &rp->types, &rp->tasks, rp->an, rp->n,
				   rp->privs);
	return err;
}

/* After the last event: no current record any more, every damaged stream counted. */
static void replay_end(struct replay *rp)
{
	struct rpt_ctx *ctx = &rp->ctx;

	ctx->ki = NULL;
	ctx->rec = NULL;
	if (fmt_iter_errors(rp->it) > ctx->stream_errors)
		ctx->stream_errors = fmt_iter_errors(rp->it);
	if (ctx->stream_errors && !first_damage[0])
		snprintf(first_damage, sizeof(first_damage), "%s", fmt_reader_error(ctx->r));
	progress_end(&rp->prog);
}

/*
 * Each analyzer's finish, all of them even when one fails (the first
 * failure is returned); an analyzer with its own stream prints there.
 */
static int finish_analyzers(struct replay *rp)
{
	const struct rpt_opts *opts = rp->ctx.opts;
	int err = 0;

	for (int k = 0; k < rp->n; k++) {
		const struct rpt_analyzer *a = rp->an[k];
		struct rpt_opts own;
		int e;

		if (!a->finish)
			continue;
		if (a->out) {
			own = *opts;
			own.out = a->out;
			rp->ctx.opts = &own;
		}
		e = a->finish(&rp->ctx, rp->privs[k]);
		rp->ctx.opts = opts;
		/* remember why the output failed before anything else sets errno */
		if (ferror(a->out ? a->out : opts->out ? opts->out : stdout) && !out_errno)
			out_errno = errno ? errno : EIO;
		if (e && !err)
			err = e;
	}
	return err;
}

static void replay_release(struct replay *rp)
{
	fmt_iter_free(rp->it);
	for (int k = 0; rp->privs && k < rp->n; k++) {
		if (k < rp->ninit && rp->an[k]->release)
			rp->an[k]->release(rp->privs[k]);
		free(rp->privs[k]);
	}
	free(rp->privs);
	free(rp->ctx.losses);
	rpt_tasks_release(&rp->tasks);
	rpt_map_release(&rp->last);
	rpt_types_release(&rp->types);
}

int rpt_replay(struct fmt_reader *r, const struct rpt_opts *opts,
	       const struct rpt_analyzer *const *an, int n)
{
	struct replay rp;
	int err;

	err = replay_begin(&rp, r, opts, an, n);
	if (!err)
		err = init_analyzers(&rp);
	if (!err)
		err = open_events(&rp);
	if (!err) {
		err = replay_events(&rp);
		replay_end(&rp);
		if (!err)
			err = finish_analyzers(&rp);
		/* a damaged or cut file: the figures are partial, and the exit says so */
		if (!err && (rp.ctx.stream_errors || rp.nerrs || rp.ctx.info->truncated_at))
			err = -EBADMSG;
	}
	replay_release(&rp);
	return err;
}

/* ---- command front end ------------------------------------------------------ */

bool rpt_out_failed(FILE *f)
{
	if (!ferror(f))
		return false;
	if (!out_errno)
		out_errno = errno ? errno : EIO;
	return true;
}

void rpt_set_out_errno(int e)
{
	if (!out_errno)
		out_errno = e;
}

/*
 * Standard output at the end of a command: one "cannot write" line naming
 * it (none when a reader such as `head` left: EPIPE), whoever failed first.
 */
static int finish_stdout(int rc)
{
	int e;

	if (fflush(stdout))
		e = out_errno ? out_errno : errno;
	else if (ferror(stdout) || out_errno)
		e = out_errno ? out_errno : EIO;
	else
		return rc;
	out_errno = 0;
	if (e == EPIPE)
		return rc;
	ft_error("cannot write to standard output: %s", strerror(e));
	return rc ? rc : EXIT_FAIL;
}

bool rpt_partial(const struct rpt_ctx *ctx)
{
	return ctx->stream_errors || (ctx->info && ctx->info->truncated_at);
}

int rpt_replay_status(int rc, struct fmt_reader *r, const struct rpt_opts *o, const char *what)
{
	const struct fmt_info *in = r ? fmt_reader_info(r) : NULL;

	if (!rc)
		return EXIT_OK;
	/* the output went to stdout first: the verdict comes after it */
	fflush(stdout);
	/* a write error: finish_stdout() names the output (quiet on EPIPE) */
	if (rc == -EIO && rpt_out_failed(o->out ? o->out : stdout))
		return EXIT_OK;
	if (rc == -EBADMSG && first_damage[0])
		ft_error("'%s': %s; the figures above are partial (they cover the readable events)",
			 o->path, first_damage);
	else if (rc == -EBADMSG && in && in->truncated_at)
		ft_error("'%s': the file is truncated (it stops at byte offset %" PRIu64 "); the "
			 "figures above are partial (they cover what it held up to there)", o->path,
			 in->truncated_at);
	else if (rc == -EBADMSG)
		ft_error("'%s' has damaged event data: %s (the figures above are partial)",
			 o->path, fmt_reader_error(r));
	else if (rc != -ECANCELED)	/* -ECANCELED: the analyzer said why */
		ft_error("cannot %s '%s': %s", what, o->path, strerror(-rc));
	return EXIT_FAIL;
}

#define OPT_DONE (-1000)	/* --help printed */

/*
 * The command line of an analyzer command: -h/-v, the common options
 * (--json unless the command has its own, the filters, --threads), then
 * the command's own tables; the files in paths[].  0, OPT_DONE after
 * --help, or the exit code after the message.
 */
static int parse_command(const struct rpt_command *c, struct rpt_opts *o, int argc, char **argv,
			 char **paths, int *npaths)
{
	static const struct ft_opt base[] = {
		{ "help", 'h', false, 'h' }, { "verbose", 'v', false, 'v' }, { 0 },
	};
	struct ft_optparse p;
	int id, k, first, rc = 0;

	ft_opt_init(&p, argc, argv, base);
	ft_opt_add_table(&p, rpt_filter_opts);
	if (!c->no_json)
		ft_opt_add_table(&p, rpt_json_opts);
	first = p.ntables;
	for (k = 0; k < RPT_CMD_TABLES && c->opts[k]; k++)
		ft_opt_add_table(&p, c->opts[k]);
	while (!rc && (id = ft_opt_next(&p)) != FT_OPT_END) {
		if (id == FT_OPT_ERROR)
			rc = EXIT_USAGE;	/* the parser said why */
		else if (id == FT_OPT_OPERAND)
			paths[(*npaths)++] = (char *)p.value;
		else if (id == 'h' && p.which == 0) {
			fputs(c->usage, stdout);
			fputs(c->no_json ? rpt_opts_help_filters : rpt_opts_help, stdout);
			fputs("  -v                 more messages on stderr\n", stdout);
			rc = OPT_DONE;
		} else if (id == 'v' && p.which == 0)
			ft_verbose++;
		else if (p.which < first)
			rc = rpt_opts_option(o, id, p.value);
		else
			rc = c->option(c->arg, p.which - first, p.opt, p.value);
	}
	return rc;
}

int rpt_run_command(int argc, char **argv, const struct rpt_command *c)
{
	struct rpt_opts o;
	struct fmt_reader *r = NULL;
	char *msg = NULL, **paths = calloc((size_t)argc + 1, sizeof(*paths));
	char *joined = NULL, *label = NULL;
	int rc, ret, npaths = 0;

	memset(&o, 0, sizeof(o));
	o.out = stdout;
	if (!paths)
		return ft_error("out of memory");
	rc = parse_command(c, &o, argc, argv, paths, &npaths);
	if (rc) {
		rpt_opts_release(&o);
		free(paths);
		return rc == OPT_DONE ? ft_finish_stdout(EXIT_OK) : rc;
	}
	o.path = npaths ? paths[0] : "trace.dat";
	if (npaths > 1 &&
	    asprintf(&label, "%s..%s", paths[0],
		     strrchr(paths[npaths - 1], '/') ? strrchr(paths[npaths - 1], '/') + 1 :
						       paths[npaths - 1]) >= 0)
		o.path = label;
	if (c->check) {
		rc = c->check(c->arg, &o);
		if (rc) {
			rpt_opts_release(&o);
			free(paths);
			free(label);
			return rc;
		}
	}
	/* several files: the segments of one rotation, read as one recording (decision 8) */
	if (npaths > 1 && (rc = rpt_join_segments(paths, npaths, &joined))) {
		rpt_opts_release(&o);
		free(paths);
		free(label);
		return rc;
	}
	free(paths);
	rc = fmt_reader_open(joined ? joined : o.path, 0, &r, &msg);
	if (joined) {
		unlink(joined);	/* the reader holds it open; nothing is left behind */
		free(joined);
	}
	if (rc) {
		if (msg)
			ft_error("%s", msg);	/* the reader's message names the file */
		else
			ft_error("cannot open '%s': %s", o.path, strerror(-rc));
		free(msg);
		rpt_opts_release(&o);
		free(label);
		return EXIT_FAIL;
	}
	ret = rpt_opts_resolve(&o, r);
	if (ret == EXIT_OK) {
		if (c->run)
			ret = c->run(c->arg, r, &o);
		else
			ret = rpt_replay_status(rpt_replay(r, &o, c->an, c->n), r, &o, "analyze");
	}
	fmt_reader_close(r);
	rpt_opts_release(&o);
	free(label);
	return finish_stdout(ret);
}

