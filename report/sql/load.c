// SPDX-License-Identifier: GPL-2.0-only
/*
 * `flytrap load --clickhouse URL FILE...`: the tables of `flytrap sql`
 * (the same virtual tables are the source) in ClickHouse, over its HTTP
 * interface, as RowBinary inserts in batches, with host, trace_id and file
 * columns first; plus per-file summaries (folded stacks, latency
 * histograms, recorder cost) and a loaded_files table that makes a second
 * load of the same file a no-op.  `--schema [--cluster NAME]` prints the DDL.
 * `--dry-run` reads and encodes every row as a load would and sends nothing:
 * no server needed, the rows per table printed (and damaged files found
 * before a load meets them).
 *
 * The SQL sent is what ClickHouse 18.16 (Debian 12) takes: MergeTree()
 * with ORDER BY and no PARTITION BY, Nullable columns, Distributed tables;
 * no window functions, no ASOF JOIN, no ON CLUSTER (that needs ZooKeeper:
 * the DDL is run on every server instead).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flytrap.h"
#include "report/core/replay.h"
#include "report/sql/sql.h"

/* summary tables: load.c fills them, with the same host/trace_id/file key */
static const struct sq_col c_folded[] = {
	{ "source", 't', false }, { "stack", 't', false }, { "weight", 'i', false },
};
static const struct sq_col c_hist[] = {
	{ "category", 't', false }, { "name", 't', false }, { "bucket", 'i', false },
	{ "bucket_low", 'i', false }, { "count", 'i', false }, { "sum", 'i', false },
};
static const struct sq_col c_cost[] = {
	{ "key", 't', false }, { "value", 'i', false },
};
static const struct sq_col c_loaded[] = {
	{ "checksum", 't', false }, { "size", 'i', false }, { "rows", 'i', false },
	{ "loaded_at", 'i', false },
};
#define T(n, c, o) { n, c, (int)(sizeof(c) / sizeof(c[0])), o }
static const struct sq_table summaries[] = {
	T("folded_stacks", c_folded, "source, stack"),
	T("latency_hist", c_hist, "category, name, bucket"),
	T("recorder_cost", c_cost, "key"),
	T("loaded_files", c_loaded, "checksum"),
};
#undef T
enum { S_FOLDED, S_HIST, S_COST, S_LOADED, S_NR };

/* the SQL each summary row comes from (S_FOLDED is filled from the callgraph analyzer) */
static const char *const summary_sql[] = {
	[S_HIST] = "SELECT category, name, hist_bucket(dur) AS b, "
		   "hist_bucket_low(hist_bucket(dur)), count(*), "
		   "sum(dur) FROM slice GROUP BY category, name, b",
	[S_COST] = "SELECT substr(key, 10), CAST(value AS INTEGER) FROM meta "
		   "WHERE key LIKE 'recstats.%' AND CAST(value AS INTEGER) || '' = value",
};

struct loadopts {
	const char *url, *cluster, *db, *host;
	bool schema, create, dry;
	size_t batch;		/* bytes per insert */
	char **files;
	int nfiles;
};

static const char usage[] =
	"usage: flytrap load --clickhouse URL [--database DB] [--host NAME] [--create] FILE...\n"
	"       flytrap load --dry-run [--host NAME] FILE...\n"
	"       flytrap load --schema [--cluster NAME] [--database DB]\n"
	"Load the tables of `flytrap sql` into ClickHouse (HTTP interface, RowBinary\n"
	"inserts) with host, trace_id and file columns, plus per-file summaries\n"
	"(folded_stacks, latency_hist, recorder_cost).  A file already in\n"
	"loaded_files (same trace id and checksum) is skipped.  The tables must exist:\n"
	"create them with the DDL of --schema (flytrap load --schema | clickhouse-client\n"
	"--multiquery), or with --create.\n"
	"  --clickhouse URL  http://[USER[:PASSWORD]@]HOST[:PORT]/ (default port 8123)\n"
	"  --database DB     database (default flytrap)\n"
	"  --host NAME       host column (default: the file's META host, else its uname node)\n"
	"  --create          create the database and tables first (CREATE ... IF NOT EXISTS)\n"
	"  --dry-run         read and encode every row, send nothing (no server): the rows\n"
	"                    per table of each file\n"
	"  --schema          print the CREATE statements and exit\n"
	"  --cluster NAME    with --schema: *_local MergeTree tables plus Distributed tables\n"
	"                    over the remote_servers cluster NAME (run the DDL on every server)\n"
	"  --batch SIZE      bytes per insert (default 8M)\n"
	"  -h, --help        this text\n";

/* meta's own file column is the key's file column in ClickHouse */
static bool key_col(const struct sq_col *c)
{
	return !strcmp(c->name, "file");
}

/* ---- DDL ------------------------------------------------------------------------ */

static const char *ch_type(const struct sq_col *c, char *buf, size_t len)
{
	const char *t = c->type == 'i' ? "Int64" : c->type == 'r' ? "Float64" : "String";

	if (c->nullable)
		snprintf(buf, len, "Nullable(%s)", t);
	else
		snprintf(buf, len, "%s", t);
	return buf;
}

static void ddl_table(FILE *out, const char *db, const struct sq_table *t, const char *cluster)
{
	char b[64];
	int k;

	fprintf(out, "CREATE TABLE IF NOT EXISTS %s.%s%s (\n  host String,\n  trace_id UInt64,\n"
		"  file String", db, t->name, cluster ? "_local" : "");
	for (k = 0; k < t->ncols; k++)
		if (!key_col(&t->cols[k]))
			fprintf(out, ",\n  `%s` %s", t->cols[k].name,
				ch_type(&t->cols[k], b, sizeof(b)));
	fprintf(out, "\n) ENGINE = MergeTree() ORDER BY (host, trace_id, %s);\n", t->order_by);
	if (cluster)
		/* one trace's rows on one shard: per-trace questions stay local */
		fprintf(out, "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local\n"
			"  ENGINE = Distributed(%s, %s, %s_local, intHash64(trace_id));\n",
			db, t->name, db, t->name, cluster, db, t->name);
}

static void print_schema(FILE *out, const char *db, const char *cluster)
{
	int k;

	fprintf(out, "-- flytrap %s: tables of `flytrap sql` for ClickHouse 18.16 and later.\n",
		FLYTRAP_VERSION);
	if (cluster)
		fprintf(out, "-- Run on every server of cluster %s (no ON CLUSTER: that needs "
			"ZooKeeper).\n", cluster);
	fprintf(out, "CREATE DATABASE IF NOT EXISTS %s;\n", db);
	for (k = 0; k < sq_ntables; k++)
		ddl_table(out, db, &sq_tables[k], cluster);
	for (k = 0; k < S_NR; k++)
		ddl_table(out, db, &summaries[k], cluster);
}

/* ---- HTTP ------------------------------------------------------------------------- */

/* rows and bytes a table was given, per file (--dry-run prints them) */
struct tally {
	uint64_t rows, bytes;
};

struct ch {
	char host[256], port[16], user[128], pass[128];
	const char *db;
	bool dry;		/* --dry-run: no server; inserts are counted in tally */
	struct tally *tally;	/* sq_ntables + S_NR: sq_tables, then summaries */
};

static int parse_url(const char *url, struct ch *c)
{
	const char *p = url, *at, *end, *colon;

	memset(c, 0, sizeof(*c));
	if (strncmp(p, "http://", 7))
		return -EINVAL;
	p += 7;
	end = p + strcspn(p, "/?");
	at = memchr(p, '@', (size_t)(end - p));
	if (at) {
		colon = memchr(p, ':', (size_t)(at - p));
		if ((size_t)((colon ? colon : at) - p) >= sizeof(c->user))
			return -EINVAL;
		memcpy(c->user, p, (size_t)((colon ? colon : at) - p));
		if (colon && (size_t)(at - colon - 1) < sizeof(c->pass))
			memcpy(c->pass, colon + 1, (size_t)(at - colon - 1));
		p = at + 1;
	}
	colon = memchr(p, ':', (size_t)(end - p));
	if ((size_t)((colon ? colon : end) - p) >= sizeof(c->host) || (colon ? colon : end) == p)
		return -EINVAL;
	memcpy(c->host, p, (size_t)((colon ? colon : end) - p));
	if (colon) {
		if ((size_t)(end - colon - 1) >= sizeof(c->port) || end == colon + 1)
			return -EINVAL;
		memcpy(c->port, colon + 1, (size_t)(end - colon - 1));
	} else {
		snprintf(c->port, sizeof(c->port), "8123");
	}
	return 0;
}

static void urlenc(char *o, size_t len, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *s && n + 4 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.') {
			o[n++] = (char)ch;
		} else {
			o[n++] = '%';
			o[n++] = hex[ch >> 4];
			o[n++] = hex[ch & 15];
		}
	}
	o[n] = 0;
}

static int send_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * POST body to the server with query (URL parameter, may be NULL: the body
 * is the query).  Returns 0 with the response body in *resp (malloc'd,
 * NUL-terminated; may be NULL), or -errno / -EPROTO with *resp the
 * server's message.
 */
static int ch_post(const struct ch *c, const char *query, const void *body, size_t blen,
		   char **resp)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *a;
	char *req = NULL, *q = NULL, *buf = NULL, u[400], pw[400];
	size_t qlen = query ? strlen(query) * 3 + 1 : 1, len = 0, cap = 0;
	int fd = -1, rc, status = 0;

	*resp = NULL;
	if ((rc = getaddrinfo(c->host, c->port, &hints, &ai)))
		return -EHOSTUNREACH;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return -ECONNREFUSED;
	q = malloc(qlen);
	if (!q) {
		close(fd);
		return -ENOMEM;
	}
	q[0] = 0;
	if (query)
		urlenc(q, qlen, query);
	urlenc(u, sizeof(u), c->user);
	urlenc(pw, sizeof(pw), c->pass);
	/* inserts into Distributed tables are on the shards when the reply comes */
	if (asprintf(&req, "POST /?database=%s%s%s%s%s%s%s HTTP/1.1\r\n"
		     "Host: %s:%s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		     c->db, query ? "&insert_distributed_sync=1&query=" : "", q,
		     c->user[0] ? "&user=" : "", u, c->pass[0] ? "&password=" : "", pw,
		     c->host, c->port, blen) < 0) {
		free(q);
		close(fd);
		return -ENOMEM;
	}
	free(q);
	rc = send_all(fd, req, strlen(req));
	free(req);
	if (!rc && blen)
		rc = send_all(fd, body, blen);
	shutdown(fd, SHUT_WR);
	while (!rc) {
		ssize_t n;

		if (len + 4097 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 16384);

			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	if (!buf || sscanf(buf, "HTTP/1.%*d %d", &status) != 1) {
		free(buf);
		return -EPROTO;
	}
	buf[len] = 0;
	{
		char *b = strstr(buf, "\r\n\r\n");
		/* chunked replies: keep the text, the messages are short */
		char *out = strdup(b ? b + 4 : "");

		if (out && strstr(buf, "Transfer-Encoding: chunked") && b) {
			/* drop the chunk size lines */
			char *r = b + 4, *w = out;

			while (*r) {
				unsigned long n = strtoul(r, &r, 16);

				if (!n || strncmp(r, "\r\n", 2))
					break;
				r += 2;
				if (strlen(r) < n)
					n = strlen(r);
				memcpy(w, r, n);
				w += n;
				r += n;
				if (!strncmp(r, "\r\n", 2))
					r += 2;
			}
			*w = 0;
		}
		free(buf);
		*resp = out;
	}
	return status == 200 ? 0 : -EPROTO;
}

/* run a statement; on failure one error line with the server's message */
static int ch_exec(const struct ch *c, const char *sql, char **out)
{
	char *resp = NULL;
	int rc = ch_post(c, NULL, sql, strlen(sql), &resp);

	if (rc) {
		char *nl;

		if (resp && (nl = strchr(resp, '\n')))
			*nl = 0;
		if (rc == -EPROTO && resp)
			ft_error("ClickHouse %s:%s: %s", c->host, c->port, resp);
		else
			ft_error("ClickHouse %s:%s: %s", c->host, c->port, strerror(-rc));
		free(resp);
		return EXIT_FAIL;
	}
	if (out)
		*out = resp;
	else
		free(resp);
	return 0;
}

/* ---- RowBinary -------------------------------------------------------------------------- */

struct rb {
	char *p;
	size_t len, cap;
	uint64_t rows;		/* rows in p (each begins with rb_key) */
	bool oom;
};

static void rb_put(struct rb *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap : 65536;
		char *np;

		while (nc < b->len + n)
			nc *= 2;
		np = realloc(b->p, nc);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void rb_u64(struct rb *b, uint64_t v)
{
	uint8_t x[8];
	int i;

	for (i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	rb_put(b, x, 8);
}

static void rb_str(struct rb *b, const char *s, size_t n)
{
	uint8_t v[10];
	size_t k = 0, m = n;

	do {
		v[k] = (uint8_t)(m & 0x7f);
		m >>= 7;
		if (m)
			v[k] |= 0x80;
		k++;
	} while (m);
	rb_put(b, v, k);
	rb_put(b, s, n);
}

static void rb_col(struct rb *b, const struct sq_col *c, sqlite3_stmt *st, int k)
{
	int t = sqlite3_column_type(st, k);

	if (c->nullable) {
		uint8_t isnull = t == SQLITE_NULL;

		rb_put(b, &isnull, 1);
		if (isnull)
			return;
	}
	switch (c->type) {
	case 'i':
		rb_u64(b, (uint64_t)sqlite3_column_int64(st, k));
		break;
	case 'r': {
		double d = sqlite3_column_double(st, k);
		uint64_t u;

		memcpy(&u, &d, 8);
		rb_u64(b, u);
		break;
	}
	default: {
		const unsigned char *s = sqlite3_column_text(st, k);

		rb_str(b, s ? (const char *)s : "", s ? (size_t)sqlite3_column_bytes(st, k) : 0);
		break;
	}
	}
}

/* ---- the tables ------------------------------------------------------------------ */

/* --create: the statements of --schema, one request each (HTTP takes one at a time) */
static int create_tables(const struct ch *c)
{
	char *ddl = NULL, *st, *end;
	size_t len = 0;
	FILE *m = open_memstream(&ddl, &len);
	int rc = 0;

	if (!m)
		return ft_error("out of memory");
	print_schema(m, c->db, NULL);
	if (fclose(m)) {
		free(ddl);
		return ft_error("out of memory");
	}
	for (st = ddl; !rc && st && *st; st = end) {
		end = strstr(st, ";\n");
		if (end)
			*end++ = 0;
		while (!strncmp(st, "--", 2) || *st == '\n')
			st = *st == '\n' ? st + 1 : strchrnul(st, '\n');
		if (*st)
			rc = ch_exec(c, st, NULL);
	}
	free(ddl);
	return rc;
}

/*
 * Before the first file: the tables must be there (loaded_files is created
 * with the others), else one line saying how to create them, not the
 * server's complaint about the first insert.
 */
static int check_tables(const struct ch *c)
{
	char q[256], *resp = NULL;
	int rc;

	snprintf(q, sizeof(q), "EXISTS TABLE %s.loaded_files", c->db);
	rc = ch_exec(c, q, &resp);
	if (!rc && resp && atoi(resp) != 1)
		rc = ft_error("ClickHouse %s:%s has no flytrap tables in database '%s': create them "
			      "with 'flytrap load --schema%s%s | clickhouse-client --multiquery', "
			      "or load with --create", c->host, c->port, c->db,
			      strcmp(c->db, "flytrap") ? " --database " : "",
			      strcmp(c->db, "flytrap") ? c->db : "");
	free(resp);
	return rc;
}

/* ---- loading one file ----------------------------------------------------------------------- */

struct filekey {
	const char *host, *file;
	uint64_t trace_id;
	char checksum[64];
	uint64_t size;
};

static void rb_key(struct rb *b, const struct filekey *fk)
{
	b->rows++;
	rb_str(b, fk->host, strlen(fk->host));
	rb_u64(b, fk->trace_id);
	rb_str(b, fk->file, strlen(fk->file));
}

static struct tally *tally_of(const struct ch *c, const struct sq_table *t)
{
	if (t >= sq_tables && t < sq_tables + sq_ntables)
		return &c->tally[t - sq_tables];
	return &c->tally[sq_ntables + (t - summaries)];
}

static int flush_insert(const struct ch *c, const struct sq_table *t, struct rb *b)
{
	char q[1024], *resp = NULL;
	size_t o;
	int k, rc;

	if (!b->len)
		return 0;
	if (b->oom)
		return ft_error("out of memory");
	if (c->dry) {
		/* encoded as for the server, then dropped */
		tally_of(c, t)->rows += b->rows;
		tally_of(c, t)->bytes += b->len;
		b->len = 0;
		b->rows = 0;
		return 0;
	}
	o = (size_t)snprintf(q, sizeof(q), "INSERT INTO %s.%s (host, trace_id, file", c->db,
			     t->name);
	for (k = 0; k < t->ncols && o < sizeof(q); k++)
		if (!key_col(&t->cols[k]))
			o += (size_t)snprintf(q + o, sizeof(q) - o, ", `%s`", t->cols[k].name);
	if (o < sizeof(q))
		snprintf(q + o, sizeof(q) - o, ") FORMAT RowBinary");
	rc = ch_post(c, q, b->p, b->len, &resp);
	b->len = 0;
	b->rows = 0;
	if (rc) {
		char *nl = resp ? strchr(resp, '\n') : NULL;

		if (nl)
			*nl = 0;
		ft_error("ClickHouse: insert into %s: %s", t->name,
			 resp && *resp ? resp : strerror(-rc));
		free(resp);
		return EXIT_FAIL;
	}
	free(resp);
	return 0;
}

static void progress(const char *file, const char *table, uint64_t rows)
{
	if (ft_progress_enabled())
		fprintf(stderr, "\rloading %s: %s, %" PRIu64 " rows   ", file, table, rows);
}

/* every row of SELECT sql into table t */
static int load_select(const struct ch *c, sqlite3 *db, const struct sq_table *t, const char *sql,
		       const struct filekey *fk, size_t batch, uint64_t *rows)
{
	sqlite3_stmt *st = NULL;
	struct rb b = { 0 };
	int rc = 0, s, k;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return ft_error("SQL: %s", sqlite3_errmsg(db));
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		rb_key(&b, fk);
		for (k = 0; k < t->ncols; k++)
			if (!key_col(&t->cols[k]))
				rb_col(&b, &t->cols[k], st, k);
		++*rows;
		if (b.len >= batch) {
			if ((rc = flush_insert(c, t, &b)))
				break;
			progress(fk->file, t->name, *rows);
		}
	}
	if (!rc && s != SQLITE_DONE)
		rc = ft_error("SQL: %s", sqlite3_errmsg(db));
	if (!rc)
		rc = flush_insert(c, t, &b);
	sqlite3_finalize(st);
	free(b.p);
	return rc;
}

/* One folded stack of the call graph's result: one row of folded_stacks. */
struct folded_rows {
	struct rb b;
	const struct filekey *fk;
	const char *unit;	/* the weights' unit: set by the analyzer before the first stack */
	bool had_data;		/* the tree shown has a node: set with it */
	const char *source;
	uint64_t *rows;
};

static int folded_row(void *arg, const char *stack, size_t len, uint64_t self)
{
	struct folded_rows *fr = arg;

	if (!fr->had_data)
		return 0;
	/* the weights' source, as the column names it */
	if (!fr->source)
		fr->source = !strcmp(fr->unit, "ns") ? "calls_ns" : fr->unit;
	rb_key(&fr->b, fr->fk);
	rb_str(&fr->b, fr->source, strlen(fr->source));
	rb_str(&fr->b, stack, len);
	rb_u64(&fr->b, self);
	++*fr->rows;
	return 0;
}

/* folded stacks from the callgraph analyzer, one row per stack, handed over as it finishes */
static int load_folded(const struct ch *c, const char *path, const struct filekey *fk,
		       uint64_t *rows)
{
	struct fmt_reader *r = NULL;
	char *e = NULL;
	struct folded_rows fr = { .fk = fk, .rows = rows };
	struct rpt_callgraph_conf conf = { .source = RPT_CG_AUTO, .output = RPT_CG_FOLDED,
					   .flame_unit = &fr.unit, .had_data = &fr.had_data,
					   .stack_fn = folded_row, .stack_arg = &fr };
	struct rpt_analyzer an = rpt_callgraph_analyzer;
	const struct rpt_analyzer *list[1] = { &an };
	struct rpt_opts o = { .path = path };
	int rc;

	if (fmt_reader_open(path, FMT_OPEN_LAZY_FORMATS, &r, &e) < 0) {
		free(e);
		return 0;	/* sq_open read it a moment ago: nothing to add */
	}
	an.conf = &conf;
	/* a damaged file: the stacks read up to the damage; only a lack of memory fails */
	rc = rpt_replay(r, &o, list, 1) == -ENOMEM ? -ENOMEM : 0;
	fmt_reader_close(r);
	if (!rc)
		rc = flush_insert(c, &summaries[S_FOLDED], &fr.b);
	free(fr.b.p);
	return rc == -ENOMEM ? ft_error("out of memory") : rc;
}

/* FNV-1a over the file's bytes and its size: the identity loaded_files keeps */
static int checksum(const char *path, struct filekey *fk)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t h = 0xcbf29ce484222325ULL, size = 0;
	static unsigned char buf[1 << 16];
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		ssize_t i;

		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
		size += (uint64_t)n;
	}
	close(fd);
	if (n < 0)
		return -EIO;
	snprintf(fk->checksum, sizeof(fk->checksum), "fnv1a64:%016" PRIx64, h);
	fk->size = size;
	if (!fk->trace_id)
		fk->trace_id = h;	/* no TRACEID option: the content names the trace */
	return 0;
}

static int already_loaded(const struct ch *c, const struct filekey *fk, bool *yes)
{
	char q[512], *resp = NULL;
	int rc;

	*yes = false;
	if (c->dry)
		return 0;
	snprintf(q, sizeof(q), "SELECT count() FROM %s.loaded_files WHERE trace_id = %" PRIu64
		 " AND checksum = '%s'", c->db, fk->trace_id, fk->checksum);
	rc = ch_exec(c, q, &resp);
	*yes = !rc && resp && strtoull(resp, NULL, 10) > 0;
	free(resp);
	return rc;
}

/* the uname's node name (second word) when META has no host= */
static void default_host(struct sq_engine *en, char *out, size_t len)
{
	sqlite3_stmt *st = NULL;

	snprintf(out, len, "%s", sq_host(en));
	if (*out)
		return;
	if (sqlite3_prepare_v2(sq_db(en), "SELECT value FROM meta WHERE key = 'uname' LIMIT 1", -1,
			       &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *u = (const char *)sqlite3_column_text(st, 0);
		const char *sp = u ? strchr(u, ' ') : NULL;

		if (sp)
			snprintf(out, len, "%.*s", (int)strcspn(sp + 1, " "), sp + 1);
	}
	sqlite3_finalize(st);
	if (!*out)
		snprintf(out, len, "unknown");
}

/* --dry-run: what a load of the file would have sent, per table */
static void print_dry(const struct ch *c, const char *path, const char *host,
		      const struct filekey *fk, uint64_t rows)
{
	uint64_t bytes = 0;
	int k;

	for (k = 0; k < sq_ntables + S_NR; k++)
		bytes += c->tally[k].bytes;
	printf("%s: %" PRIu64 " rows, %" PRIu64 " bytes (host %s, trace id %016" PRIx64
	       "): a dry run, nothing sent\n", path, rows, bytes, host, fk->trace_id);
	printf("  %-24s %12s %14s\n", "table", "rows", "bytes");
	for (k = 0; k < sq_ntables + S_NR; k++)
		printf("  %-24s %12" PRIu64 " %14" PRIu64 "\n",
		       k < sq_ntables ? sq_tables[k].name : summaries[k - sq_ntables].name,
		       c->tally[k].rows, c->tally[k].bytes);
}

static int load_file(const struct ch *c, const struct loadopts *o, char *path, uint64_t *total_rows)
{
	struct sq_engine *en = NULL;
	struct filekey fk = { .file = path };
	char host[256], *err = NULL, sql[256];
	uint64_t rows = 0;
	bool done = false;
	int rc, k;
	struct rb b = { 0 };

	memset(c->tally, 0, (size_t)(sq_ntables + S_NR) * sizeof(*c->tally));
	rc = sq_open(&path, 1, &en, &err);
	if (rc < 0) {
		ft_error("%s", err ? err : strerror(-rc));
		free(err);
		return EXIT_FAIL;
	}
	if (o->host)
		snprintf(host, sizeof(host), "%s", o->host);
	else
		default_host(en, host, sizeof(host));
	fk.host = host;
	fk.trace_id = sq_trace_id(en);
	if ((rc = checksum(path, &fk))) {
		sq_close(en);
		return ft_error("cannot read '%s': %s", path, strerror(-rc));
	}
	if ((rc = already_loaded(c, &fk, &done)))
		goto out;
	if (done) {
		printf("%s: already loaded (trace id %016" PRIx64 ", %s)\n", path, fk.trace_id,
		       fk.checksum);
		goto out;
	}
	for (k = 0; k < sq_ntables && !rc; k++) {
		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\"", sq_tables[k].name);
		rc = load_select(c, sq_db(en), &sq_tables[k], sql, &fk, o->batch, &rows);
		progress(path, sq_tables[k].name, rows);
	}
	for (k = S_HIST; k <= S_COST && !rc; k++)
		rc = load_select(c, sq_db(en), &summaries[k], summary_sql[k], &fk, o->batch, &rows);
	if (!rc)
		rc = load_folded(c, path, &fk, &rows);
	if (!rc && sq_damaged(en))
		ft_warn("%s is damaged or cut: its readable events are loaded", path);
	if (!rc) {
		/* last: a load that failed midway is not marked loaded */
		rb_key(&b, &fk);
		rb_str(&b, fk.checksum, strlen(fk.checksum));
		rb_u64(&b, fk.size);
		rb_u64(&b, rows);
		rb_u64(&b, (uint64_t)time(NULL));
		rc = flush_insert(c, &summaries[S_LOADED], &b);
		free(b.p);
	}
	if (ft_progress_enabled())
		fputs("\r\033[K", stderr);
	if (!rc && c->dry)
		print_dry(c, path, host, &fk, rows);
	else if (!rc)
		printf("%s: %" PRIu64 " rows (host %s, trace id %016" PRIx64 ")\n", path, rows,
		       host, fk.trace_id);
	if (!rc)
		*total_rows += rows;
out:
	sq_close(en);
	return rc;
}

static int parse(int argc, char **argv, struct loadopts *o)
{
	static const struct ft_opt opts[] = {
		FT_OPT_HELP_ENTRY, { "schema", 0, false, 'S' },
		{ "clickhouse", 0, true, 'u' }, { "database", 0, true, 'd' },
		{ "host", 0, true, 'H' }, { "cluster", 0, true, 'c' }, { "batch", 0, true, 'b' },
		{ "create", 0, false, 'C' }, { "dry-run", 0, false, 'n' },
		{ 0 },
	};
	static const char *const help[] = { usage, NULL };
	struct ft_optparse p;
	uint64_t n;
	int i, id;

	ft_opt_init(&p, argc, argv, opts);
	while ((id = ft_opt_next_std(&p, help)) != FT_OPT_END) {
		const char *v = p.value;

		if (id == FT_OPT_ERROR)
			return EXIT_USAGE;	/* the parser said why */
		if (id == FT_OPT_OPERAND) {
			o->files[o->nfiles++] = (char *)v;
			continue;
		}
		if (id == 'S') {
			o->schema = true;
			continue;
		}
		if (id == 'C') {
			o->create = true;
			continue;
		}
		if (id == 'n') {
			o->dry = true;
			continue;
		}
		if (!*v)
			return ft_usage_error("--%s needs a value", p.opt->name);
		switch (id) {
		case 'u': o->url = v; break;
		case 'd': o->db = v; break;
		case 'H': o->host = v; break;
		case 'c': o->cluster = v; break;
		default:
			if (ft_parse_size(v, &n) || n < 4096 || n > (1ULL << 30))
				return ft_usage_error("--batch: '%s' is not a size "
						      "between 4K and 1G", v);
			o->batch = (size_t)n;
		}
	}
	for (i = 0; o->db && o->db[i]; i++)
		if (!(o->db[i] == '_' || (o->db[i] >= 'a' && o->db[i] <= 'z') ||
		      (o->db[i] >= 'A' && o->db[i] <= 'Z') ||
		      (i && o->db[i] >= '0' && o->db[i] <= '9')))
			return ft_usage_error("--database: '%s' is not a plain name", o->db);
	for (i = 0; o->cluster && o->cluster[i]; i++)
		if (!(o->cluster[i] == '_' || o->cluster[i] == '-' ||
		      (o->cluster[i] >= 'a' && o->cluster[i] <= 'z') ||
		      (o->cluster[i] >= 'A' && o->cluster[i] <= 'Z') ||
		      (o->cluster[i] >= '0' && o->cluster[i] <= '9')))
			return ft_usage_error("--cluster: '%s' is not a plain name", o->cluster);
	if (o->schema) {
		if (o->nfiles || o->url || o->create || o->dry)
			return ft_usage_error("--schema prints the DDL only: no URL, file, --create "
					      "or --dry-run");
		return 0;
	}
	if (o->cluster)
		return ft_usage_error("--cluster goes with --schema (load into the Distributed "
				      "tables by URL)");
	if (o->dry && o->create)
		return ft_usage_error("--dry-run sends nothing: no --create");
	if (!o->url && !o->dry)
		return ft_usage_error("--clickhouse URL is needed (or --schema, or --dry-run)");
	if (!o->nfiles)
		return ft_usage_error("no trace file given");
	return 0;
}

int cmd_load(int argc, char **argv)
{
	struct loadopts o = { .db = "flytrap", .batch = 8 << 20 };
	struct ch c;
	uint64_t rows = 0;
	struct timespec t0, t1;
	int rc, i, failed = 0;

	o.files = calloc((size_t)argc + 1, sizeof(*o.files));
	if (!o.files)
		return ft_error("out of memory");
	rc = parse(argc, argv, &o);
	if (rc) {
		free(o.files);
		return rc;
	}
	if (o.schema) {
		print_schema(stdout, o.db, o.cluster);
		free(o.files);
		return ft_finish_stdout(EXIT_OK);
	}
	memset(&c, 0, sizeof(c));
	if (o.url && parse_url(o.url, &c)) {
		free(o.files);
		return ft_usage_error("--clickhouse: '%s' is not http://HOST[:PORT]/", o.url);
	}
	c.db = o.db;
	c.dry = o.dry;
	c.tally = calloc((size_t)(sq_ntables + S_NR), sizeof(*c.tally));
	if (!c.tally) {
		free(o.files);
		return ft_error("out of memory");
	}
	rc = o.dry ? 0 : o.create ? create_tables(&c) : check_tables(&c);
	if (rc) {
		free(c.tally);
		free(o.files);
		return rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < o.nfiles; i++)
		if (load_file(&c, &o, o.files[i], &rows))
			failed++;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.nfiles > 1 || ft_verbose) {
		double s =
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		printf("%d file%s, %" PRIu64 " rows in %.2f s (%.0f rows/s)%s\n", o.nfiles,
		       o.nfiles == 1 ? "" : "s", rows, s, s > 0 ? (double)rows / s : 0.0,
		       failed ? "; some files failed" : "");
	}
	free(c.tally);
	free(o.files);
	return ft_finish_stdout(failed ? EXIT_FAIL : EXIT_OK);
}
