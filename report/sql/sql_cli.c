// SPDX-License-Identifier: GPL-2.0-only
/*
 * `flytrap sql [-c QUERY]... FILE...`: queries from -c, a prompt on a
 * terminal, or stdin; results as an aligned table, CSV or JSON lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_LIBEDIT
#include <editline/readline.h>
#endif

#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"
#include "report/sql/sql.h"

enum outfmt { OUT_TABLE, OUT_CSV, OUT_JSON };

struct sqlopts {
	char **queries;
	int nqueries;
	char **files;
	int nfiles;
	enum outfmt fmt;
	bool each;
	bool no_pushdown;
	const char *save;
};

/* the rows of one result, kept for the table's column widths */
struct result {
	int ncols;
	char **names;
	bool *numeric;		/* right-aligned */
	char **cells;		/* nrows * ncols, NULL = NULL */
	size_t nrows, cap;
};

static const char usage[] =
	"usage: flytrap sql [-c QUERY]... [--csv|--json] [--each] [--save DB] [--no-pushdown]\n"
	"                   FILE...\n"
	"SQL (SQLite) over trace files, with Perfetto's table names: ftrace_event, args,\n"
	"thread, process, cpu, sched_slice, thread_state, slice, counter, and flytrap's\n"
	"drops, meta, bpf_syscall, bpf_syscall_hist, bpf_offcpu, bpf_profile, bpf_func.\n"
	"The tables read the files as they are (no import).  Several files are one\n"
	"trace (a rotation).  Functions: percentile(x, p) (exact nearest rank, p in\n"
	"0..100), extract_arg(arg_set_id, key).  event_counts(name, system, cpu,\n"
	"buffer, tid, count) counts ftrace_event's rows in one pass (or from the time\n"
	"index); the usual SELECT keys, COUNT(*) FROM ftrace_event GROUP BY keys runs\n"
	"on it.\n"
	"  -c QUERY      run QUERY (repeatable; several statements allowed) and exit;\n"
	"                without -c: a prompt on a terminal, else queries from stdin\n"
	"  --csv         CSV with a header line\n"
	"  --json        one JSON object per row and line\n"
	"  --each        run the queries on each file alone, with a 'file' column first\n"
	"  --save DB     write the tables into the SQLite database file DB\n"
	"  --no-pushdown run COUNT(*) ... GROUP BY over ftrace_event as written\n"
	"  -h, --help    this text\n";

static int term_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

static void result_release(struct result *r)
{
	size_t i;
	int k;

	for (i = 0; i < r->nrows * (size_t)r->ncols; i++)
		free(r->cells[i]);
	for (k = 0; k < r->ncols; k++)
		free(r->names[k]);
	free(r->names);
	free(r->numeric);
	free(r->cells);
	memset(r, 0, sizeof(*r));
}

/* ---- output -------------------------------------------------------------------- */

static void csv_cell(const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void csv_header(sqlite3_stmt *st, bool each)
{
	int k, n = sqlite3_column_count(st);

	if (each)
		fputs(n ? "file," : "file", stdout);
	for (k = 0; k < n; k++) {
		if (k)
			putchar(',');
		csv_cell(sqlite3_column_name(st, k));
	}
	putchar('\n');
}

static void csv_row(sqlite3_stmt *st, const char *file)
{
	int k, n = sqlite3_column_count(st);

	if (file) {
		csv_cell(file);
		if (n)
			putchar(',');
	}
	for (k = 0; k < n; k++) {
		if (k)
			putchar(',');
		csv_cell((const char *)sqlite3_column_text(st, k));
	}
	putchar('\n');
}

/*
 * The JSON lines of one statement: one writer on stdout for all its rows,
 * which reach stdout 64 KiB at a time and at the end of the statement, and
 * the members every row repeats ("file":"...", then each column's "name":)
 * escaped once per prepared statement rather than once per row.
 */
struct jlines {
	struct rpt_json out;	/* on stdout */
	struct rpt_json keys;	/* in memory: the "file" member, then the quoted keys */
	size_t *end;		/* end[0]: the file member's end; end[k + 1]: column k's */
	int ncols;
};

static int jlines_init(struct jlines *jl)
{
	memset(jl, 0, sizeof(*jl));
	return rpt_json_init(&jl->out, stdout, 0);
}

/* The keys of st's columns (after the file member, if file): 0 or -ENOMEM. */
static int jlines_columns(struct jlines *jl, sqlite3_stmt *st, const char *file)
{
	int k, n = sqlite3_column_count(st);
	size_t *end;

	if (jl->keys.buf)
		rpt_json_reset(&jl->keys);
	else if (rpt_json_init(&jl->keys, NULL, 0))
		return -ENOMEM;
	end = realloc(jl->end, ((size_t)n + 1) * sizeof(*end));
	if (!end)
		return -ENOMEM;
	jl->end = end;
	jl->ncols = n;
	if (file)
		rpt_json_kstr(&jl->keys, "file", file);
	end[0] = jl->keys.len;
	for (k = 0; k < n; k++) {
		/* at the top level a key takes no comma: the keys follow each other */
		rpt_json_key(&jl->keys, sqlite3_column_name(st, k));
		end[k + 1] = jl->keys.len;
	}
	return jl->keys.err ? -jl->keys.err : 0;
}

/* The current row of st (the statement jlines_columns saw) as one object and line. */
static void json_row(struct jlines *jl, sqlite3_stmt *st)
{
	struct rpt_json *j = &jl->out;
	const char *keys = jl->keys.buf;
	char t[40];
	int k;

	rpt_json_obj(j);
	if (jl->end[0])
		rpt_json_members(j, keys, jl->end[0]);
	for (k = 0; k < jl->ncols; k++) {
		double d;

		rpt_json_key_quoted(j, keys + jl->end[k], jl->end[k + 1] - jl->end[k]);
		switch (sqlite3_column_type(st, k)) {
		case SQLITE_INTEGER:
			rpt_json_i64(j, (int64_t)sqlite3_column_int64(st, k));
			break;
		case SQLITE_FLOAT:
			d = sqlite3_column_double(st, k);
			if (isfinite(d))
				rpt_json_value(j, t, (size_t)snprintf(t, sizeof(t), "%.17g", d));
			else
				rpt_json_null(j);
			break;
		case SQLITE_NULL:
			rpt_json_null(j);
			break;
		default:
			rpt_json_str(j, (const char *)sqlite3_column_text(st, k));
			break;
		}
	}
	rpt_json_obj_end(j);
	RPT_JSON_LIT(j, "\n");
}

/*
 * Write out the rest and free: 0 or -ENOMEM.  A failed write is left to
 * the check of stdout at exit (the writer's fwrite set its error flag).
 */
static int jlines_done(struct jlines *jl)
{
	int err = rpt_json_done(&jl->out), kerr = rpt_json_done(&jl->keys);

	free(jl->end);
	jl->end = NULL;
	return err == -ENOMEM || kerr ? -ENOMEM : 0;
}

static int table_add(struct result *r, sqlite3_stmt *st, const char *file)
{
	int k, n = sqlite3_column_count(st), off = file ? 1 : 0;
	char **row;

	if (!r->names) {
		r->ncols = n + off;
		r->names = calloc((size_t)r->ncols + 1, sizeof(*r->names));
		r->numeric = calloc((size_t)r->ncols + 1, sizeof(*r->numeric));
		if (!r->names || !r->numeric)
			return -ENOMEM;
		if (file)
			r->names[0] = strdup("file");
		for (k = 0; k < n; k++)
			r->names[k + off] = strdup(sqlite3_column_name(st, k));
		for (k = 0; k < r->ncols; k++) {
			if (!r->names[k])
				return -ENOMEM;
			r->numeric[k] = k >= off;
		}
	}
	if (r->nrows == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 64;
		char **ncl = realloc(r->cells, nc * (size_t)r->ncols * sizeof(*ncl));

		if (!ncl)
			return -ENOMEM;
		r->cells = ncl;
		r->cap = nc;
	}
	row = r->cells + r->nrows * (size_t)r->ncols;
	memset(row, 0, (size_t)r->ncols * sizeof(*row));
	r->nrows++;
	if (file && !(row[0] = strdup(file)))
		return -ENOMEM;
	for (k = 0; k < n && k + off < r->ncols; k++) {
		int t = sqlite3_column_type(st, k);
		const unsigned char *s = sqlite3_column_text(st, k);

		if (t != SQLITE_INTEGER && t != SQLITE_FLOAT && t != SQLITE_NULL)
			r->numeric[k + off] = false;
		if (s && !(row[k + off] = strdup((const char *)s)))
			return -ENOMEM;
	}
	return 0;
}

/* display columns of a UTF-8 string (one per code point) */
static int ucols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void table_print(const struct result *r)
{
	int W = term_width(), k, total, *w;
	size_t i;
	char buf[1024];

	if (!r->ncols)
		return;
	w = calloc((size_t)r->ncols, sizeof(*w));
	if (!w)
		return;
	for (k = 0; k < r->ncols; k++) {
		w[k] = ucols(r->names[k]);
		for (i = 0; i < r->nrows; i++) {
			const char *c = r->cells[i * (size_t)r->ncols + (size_t)k];
			int l = c ? ucols(c) : 0;

			if (l > w[k])
				w[k] = l;
		}
		if (w[k] > 200)
			w[k] = 200;
	}
	/*
	 * Fit the terminal: narrow the widest text column until the line fits,
	 * then the widest number (a cut value ends in '~'); at least 6 each.
	 */
	for (;;) {
		int wi = -1, pass;

		total = 0;
		for (k = 0; k < r->ncols; k++)
			total += w[k] + (k ? 2 : 0);
		if (total <= W)
			break;
		for (pass = 0; pass < 2 && wi < 0; pass++)
			for (k = 0; k < r->ncols; k++)
				if ((pass || !r->numeric[k]) && w[k] > 6 &&
				    (wi < 0 || w[k] > w[wi]))
					wi = k;
		if (wi < 0)
			break;
		w[wi]--;
	}
	for (k = 0; k < r->ncols; k++)
		printf(r->numeric[k] ? "%s%*s" : "%s%-*s", k ? "  " : "", w[k],
		       rpt_fit(buf, sizeof(buf), r->names[k], w[k]));
	putchar('\n');
	for (k = 0; k < r->ncols; k++) {
		int j;

		printf("%s", k ? "  " : "");
		for (j = 0; j < w[k]; j++)
			putchar('-');
	}
	putchar('\n');
	for (i = 0; i < r->nrows; i++) {
		for (k = 0; k < r->ncols; k++) {
			const char *c = r->cells[i * (size_t)r->ncols + (size_t)k];
			const char *f = rpt_fit(buf, sizeof(buf), c ? c : "", w[k]);
			int pad = w[k] - ucols(f);

			if (pad < 0)
				pad = 0;
			if (k)
				fputs("  ", stdout);
			if (r->numeric[k])
				printf("%*s%s", pad, "", f);
			else if (k == r->ncols - 1)
				fputs(f, stdout);
			else
				printf("%s%*s", f, pad, "");
		}
		putchar('\n');
	}
	printf("(%zu row%s)\n", r->nrows, r->nrows == 1 ? "" : "s");
	free(w);
}

/* ---- running ------------------------------------------------------------------------ */

struct run {
	const struct sqlopts *o;
	struct sq_engine **engines;	/* one (the rotation) or one per file (--each) */
	int nengines;
	bool header_done;
	int results;			/* statements with columns printed so far */
};

/* A result with columns but no rows: the table still shows the header. */
static void table_header_only(struct result *res, sqlite3_stmt *st, const char *file)
{
	int k, ncols = sqlite3_column_count(st), off = file ? 1 : 0;

	res->ncols = ncols + off;
	res->names = calloc((size_t)res->ncols, sizeof(*res->names));
	res->numeric = calloc((size_t)res->ncols, sizeof(*res->numeric));
	if (!res->names || !res->numeric)
		return;
	if (file)
		res->names[0] = strdup("file");
	for (k = 0; k < ncols; k++)
		res->names[k + off] = strdup(sqlite3_column_name(st, k));
	for (k = 0; k < res->ncols; k++)
		if (!res->names[k])
			res->names[k] = strdup("");
}

/* The rows of st, printed (CSV, JSON) or kept in res (table): 0, or EXIT_FAIL after the message. */
static int step_rows(struct run *R, sqlite3 *db, sqlite3_stmt *st, const char *file,
		     struct result *res, struct jlines *jl)
{
	int s, rc = 0;

	if (R->o->fmt == OUT_JSON && jlines_columns(jl, st, file)) {
		ft_error("out of memory");
		return EXIT_FAIL;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (R->o->fmt == OUT_CSV)
			csv_row(st, file);
		else if (R->o->fmt == OUT_JSON)
			json_row(jl, st);
		else if (table_add(res, st, file)) {
			ft_error("out of memory");
			return EXIT_FAIL;
		}
	}
	if (s != SQLITE_DONE) {
		rpt_json_flush(&jl->out);	/* the rows before the message, on a terminal */
		ft_error("SQL: %s", sqlite3_errmsg(db));
		rc = EXIT_FAIL;
	}
	if (R->o->fmt == OUT_TABLE && sqlite3_column_count(st) && !res->names && !rc)
		table_header_only(res, st, file);
	return rc;
}

/*
 * st (the text [sql, end)) replaced by its rewrite onto event_counts where
 * sq_pushdown() has one that prepares; else st itself.
 */
static sqlite3_stmt *pushdown(sqlite3 *db, sqlite3_stmt *st, const char *sql, const char *end)
{
	char *rw = sq_pushdown(sql, end ? end : sql + strlen(sql));
	sqlite3_stmt *st2 = NULL;

	if (!rw)
		return st;
	if (sqlite3_prepare_v2(db, rw, -1, &st2, NULL) != SQLITE_OK || !st2 ||
	    sqlite3_column_count(st2) != sqlite3_column_count(st)) {
		sqlite3_finalize(st2);
		free(rw);
		return st;
	}
	free(rw);
	sqlite3_finalize(st);
	return st2;
}

/*
 * Run one statement text (the part of sql that one sqlite3_prepare takes)
 * on every engine; *tail gets the rest.  0, or EXIT_FAIL after the message.
 */
static int run_one(struct run *R, const char *sql, const char **tail)
{
	struct result res = { 0 };
	struct jlines jl;
	const char *next = NULL;
	int e, rc = 0;

	memset(&jl, 0, sizeof(jl));
	if (R->o->fmt == OUT_JSON && jlines_init(&jl)) {
		ft_error("out of memory");
		return EXIT_FAIL;
	}
	for (e = 0; e < R->nengines && !rc; e++) {
		sqlite3 *db = sq_db(R->engines[e]);
		const char *file = R->o->each ? R->o->files[e] : NULL;
		sqlite3_stmt *st = NULL;
		int ncols;

		if (sqlite3_prepare_v2(db, sql, -1, &st, &next) != SQLITE_OK) {
			jlines_done(&jl);
			ft_error("SQL: %s", sqlite3_errmsg(db));
			result_release(&res);
			return EXIT_FAIL;
		}
		if (!st) {	/* only a comment or spaces */
			jlines_done(&jl);
			*tail = next;
			return 0;
		}
		if (!R->o->no_pushdown)
			st = pushdown(db, st, sql, next);
		ncols = sqlite3_column_count(st);
		if (e == 0 && ncols && R->results++ && R->o->fmt == OUT_TABLE)
			putchar('\n');
		if (e == 0 && ncols && R->o->fmt == OUT_CSV)
			csv_header(st, R->o->each);
		rc = step_rows(R, db, st, file, &res, &jl);
		sqlite3_finalize(st);
	}
	if (jlines_done(&jl) && !rc) {
		ft_error("out of memory");
		rc = EXIT_FAIL;
	}
	if (R->o->fmt == OUT_TABLE && !rc && res.names)
		table_print(&res);
	result_release(&res);
	*tail = next;
	return rc;
}

static int run_text(struct run *R, const char *sql)
{
	const char *p = sql;
	int rc;

	while (p && *p) {
		const char *tail = NULL;

		if ((rc = run_one(R, p, &tail)))
			return rc;
		if (!tail || tail == p)
			break;
		p = tail;
	}
	return 0;
}

/*
 * The prompt's history file: $FLYTRAP_SQL_HISTORY ("" for none), else
 * ~/.flytrap_sql_history, as sqlite3 keeps ~/.sqlite_history.  malloc'd or NULL.
 */
static char *history_path(void)
{
	const char *e = getenv("FLYTRAP_SQL_HISTORY"), *home = getenv("HOME");
	char *p = NULL;

	if (e)
		return *e ? strdup(e) : NULL;
	if (!home || !*home || asprintf(&p, "%s/.flytrap_sql_history", home) < 0)
		return NULL;
	return p;
}

/*
 * One line of the prompt (with its newline), malloc'd in *line; its length
 * or -1 at the end.  With libedit: line editing and the history (up arrow,
 * ^R); GNU readline would do the same but is GPLv3, which this GPL-2.0-only
 * program cannot link.  Without it (the static build): a plain read.
 */
static ssize_t prompt_line(const char *prompt, char **line, size_t *cap)
{
#ifdef HAVE_LIBEDIT
	char *l = readline(prompt);
	size_t n;

	(void)cap;
	if (!l)
		return -1;
	n = strlen(l);
	free(*line);
	*line = malloc(n + 2);
	if (!*line) {
		free(l);
		return -1;
	}
	memcpy(*line, l, n);
	(*line)[n] = '\n';
	(*line)[n + 1] = '\0';
	free(l);
	return (ssize_t)n + 1;
#else
	fputs(prompt, stderr);
	fflush(stderr);
	return getline(line, cap, stdin);
#endif
}

/* a prompt: lines are gathered until they make a complete statement */
static int interactive(struct run *R)
{
	char *line = NULL, *buf = NULL, *hist = history_path();
	size_t cap = 0, len = 0;
	ssize_t n;

	fprintf(stderr, "flytrap sql: %d file%s; tables: .tables, end statements with ';', "
		"quit with .quit or ^D\n",
		R->o->nfiles, R->o->nfiles == 1 ? "" : "s");
#ifdef HAVE_LIBEDIT
	rl_outstream = stderr;	/* the prompt and the echo: stdout is the answers' */
	using_history();
	if (hist)
		read_history(hist);
#endif
	for (;;) {
		if ((n = prompt_line(len ? "   ...> " : "flytrap> ", &line, &cap)) < 0)
			break;
		if (!len && (!strncmp(line, ".quit", 5) || !strncmp(line, ".exit", 5)))
			break;
		if (!len && !strncmp(line, ".tables", 7)) {
			int k;

			for (k = 0; k < sq_ntables; k++)
				printf("%s%s", k ? " " : "", sq_tables[k].name);
			putchar('\n');
			continue;
		}
		{
			char *nb = realloc(buf, len + (size_t)n + 1);

			if (!nb)
				break;
			buf = nb;
			memcpy(buf + len, line, (size_t)n + 1);
			len += (size_t)n;
		}
		if (sqlite3_complete(buf)) {
#ifdef HAVE_LIBEDIT
			/* one history entry per statement, as typed (without its last newline) */
			buf[len - 1] = '\0';
			add_history(buf);
			buf[len - 1] = '\n';
#endif
			run_text(R, buf);	/* errors are printed; the prompt goes on */
			fflush(stdout);
			len = 0;
			buf[0] = 0;
		}
	}
	fputc('\n', stderr);
#ifdef HAVE_LIBEDIT
	if (hist && write_history(hist) != 0)
		ft_warn("cannot write the history to '%s'", hist);
#endif
	free(hist);
	free(line);
	free(buf);
	return 0;
}

static char *read_all(FILE *f)
{
	char *b = NULL;
	size_t len = 0, cap = 0, n;

	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(b, cap = cap ? cap * 2 : 8192);

			if (!nb) {
				free(b);
				return NULL;
			}
			b = nb;
		}
		n = fread(b + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	b[len] = 0;
	return b;
}

/* --save: every table into a new SQLite file, written under a temporary name */
static int save_db(struct sq_engine *en, const char *path)
{
	sqlite3 *db = sq_db(en);
	char *tmp = NULL, *sql = NULL;
	int k, rc = EXIT_FAIL;

	if (asprintf(&tmp, "%s.tmp%ld", path, (long)getpid()) < 0)
		return ft_error("out of memory");
	unlink(tmp);
	sql = sqlite3_mprintf("ATTACH %Q AS out", tmp);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		ft_error("cannot create '%s': %s", path, sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (k = 0; k < sq_ntables; k++) {
		sqlite3_free(sql);
		sql = sqlite3_mprintf("CREATE TABLE out.\"%w\" AS SELECT * FROM temp.\"%w\"",
				      sq_tables[k].name, sq_tables[k].name);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			ft_error("cannot write '%s': %s", path, sqlite3_errmsg(db));
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			sqlite3_exec(db, "DETACH out", NULL, NULL, NULL);
			goto out;
		}
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "DETACH out", NULL, NULL, NULL) != SQLITE_OK) {
		ft_error("cannot write '%s': %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (rename(tmp, path)) {
		ft_error("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc)
		unlink(tmp);
	sqlite3_free(sql);
	free(tmp);
	return rc;
}

/*
 * An operand that is no file and reads like SQL (a query where a file
 * goes, the order of sqlite3 and psql): said as such, not as a file that
 * cannot be opened.
 */
static bool looks_like_query(const char *arg)
{
	static const char *const words[] = { "select", "with", "pragma", "explain", "values",
					     "create", "insert", "update", "delete", "drop" };
	struct stat st;
	size_t k, n;

	if (!stat(arg, &st))
		return false;
	while (isspace((unsigned char)*arg))
		arg++;
	for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		n = strlen(words[k]);
		if (!strncasecmp(arg, words[k], n) && (!arg[n] || isspace((unsigned char)arg[n])))
			return true;
	}
	return strchr(arg, ';') != NULL;
}

static int parse(int argc, char **argv, struct sqlopts *o)
{
	static const struct ft_opt opts[] = {
		FT_OPT_HELP_ENTRY,
		{ "command", 'c', true, 'c' },
		{ "csv", 0, false, 'C' },
		{ "json", 0, false, 'J' },
		{ "each", 0, false, 'E' },
		{ "save", 0, true, 'S' },
		{ "no-pushdown", 0, false, 'P' },
		{ 0 },
	};
	static const char *const help[] = { usage, NULL };
	struct ft_optparse p;
	int id;

	ft_opt_init(&p, argc, argv, opts);
	while ((id = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		switch (id) {
		case FT_OPT_OPERAND: o->files[o->nfiles++] = (char *)p.value; break;
		case 'c': o->queries[o->nqueries++] = (char *)p.value; break;
		case 'C': o->fmt = OUT_CSV; break;
		case 'J': o->fmt = OUT_JSON; break;
		case 'E': o->each = true; break;
		case 'P': o->no_pushdown = true; break;
		case 'S':
			if (!*p.value)
				return ft_usage_error("--save needs a file name");
			o->save = p.value;
			break;
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (!o->nfiles)
		return ft_usage_error("no trace file given");
	for (int i = 0; i < o->nfiles; i++)
		if (looks_like_query(o->files[i]))
			return ft_usage_error("'%.40s%s' is a query, not a file: give it with -c "
					      "(flytrap sql -c 'QUERY' FILE...) or on stdin",
					      o->files[i], strlen(o->files[i]) > 40 ? "..." : "");
	return 0;
}

int cmd_sql(int argc, char **argv)
{
	struct sqlopts o = { 0 };
	struct run R = { .o = &o };
	char *err = NULL;
	int rc = 0, i;

	o.queries = calloc((size_t)argc + 1, sizeof(*o.queries));
	o.files = calloc((size_t)argc + 1, sizeof(*o.files));
	if (!o.queries || !o.files) {
		free(o.queries);
		free(o.files);
		return ft_error("out of memory");
	}
	rc = parse(argc, argv, &o);
	if (rc) {
		free(o.queries);
		free(o.files);
		return rc;
	}
	if (o.each && o.save) {
		rc = ft_usage_error("--each and --save do not go together (--save keeps every "
				    "file, see meta.file)");
		goto out;
	}
	R.nengines = o.each ? o.nfiles : 1;
	R.engines = calloc((size_t)R.nengines, sizeof(*R.engines));
	if (!R.engines) {
		rc = ft_error("out of memory");
		goto out;
	}
	for (i = 0; i < R.nengines; i++) {
		int e = sq_open(o.each ? &o.files[i] : o.files, o.each ? 1 : o.nfiles,
				&R.engines[i], &err);

		if (e < 0) {
			ft_error("%s", err ? err : strerror(-e));
			free(err);
			rc = EXIT_FAIL;
			goto out;
		}
	}
	if (o.save) {
		rc = save_db(R.engines[0], o.save);
	} else if (o.nqueries) {
		for (i = 0; i < o.nqueries && !rc; i++)
			rc = run_text(&R, o.queries[i]);
	} else if (isatty(STDIN_FILENO)) {
		rc = interactive(&R);
	} else {
		char *text = read_all(stdin);

		if (!text) {
			rc = ft_error("out of memory");
			goto out;
		}
		rc = run_text(&R, text);
		free(text);
	}
	for (i = 0; i < R.nengines; i++)
		if (R.engines[i] && sq_damaged(R.engines[i])) {
			ft_warn("%s is damaged or cut: the answers cover its readable events",
				o.each ? o.files[i] : o.nfiles == 1 ? o.files[0] : "a file");
			if (!rc)
				rc = EXIT_FAIL;
		}
out:
	for (i = 0; R.engines && i < R.nengines; i++)
		if (R.engines[i])
			ft_info("%s: %llu bytes of event data decompressed or read",
				o.each ? o.files[i] : o.nfiles == 1 ? o.files[0] : "the files",
				(unsigned long long)sq_data_bytes(R.engines[i]));
	for (i = 0; R.engines && i < R.nengines; i++)
		sq_close(R.engines[i]);
	free(R.engines);
	free(o.queries);
	free(o.files);
	return ft_finish_stdout(rc);
}
