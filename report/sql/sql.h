/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SQL over trace files (issue 13): SQLite virtual tables that read the
 * files themselves, named after Perfetto's trace processor tables
 * (google/perfetto src/trace_processor/perfetto_sql/stdlib/prelude at
 * commit 3002ab887b7317cee590cf552db4e10a0c3550cd, after_eof/tables_views.sql
 * and events.sql), plus flytrap's own (drops, meta, bpf_*).
 *
 * One schema table (sq_tables) drives the SQLite declarations, the
 * ClickHouse DDL of `flytrap load` and `--save`.
 */
#ifndef FLYTRAP_SQL_H
#define FLYTRAP_SQL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* column types: integer, text, real */
enum sq_type { SQ_INT = 'i', SQ_TEXT = 't', SQ_REAL = 'r' };

struct sq_col {
	const char *name;
	char type;		/* enum sq_type */
	bool nullable;		/* NULL happens (ClickHouse: Nullable(T)) */
};

struct sq_table {
	const char *name;
	const struct sq_col *cols;
	int ncols;
	const char *order_by;	/* ClickHouse MergeTree ORDER BY (after host, trace_id) */
};

extern const struct sq_table sq_tables[];
extern const int sq_ntables;

struct sq_engine;

/*
 * Open the files (one trace: a rotation, ordered by their first event)
 * and an in-memory SQLite database with the virtual tables and the
 * percentile()/extract_arg() functions.  Returns 0, or -errno with *err a
 * malloc'd message (caller frees).
 */
int sq_open(char *const *paths, int n, struct sq_engine **out, char **err);
sqlite3 *sq_db(struct sq_engine *en);
/* true when some file was damaged or cut: answers cover the readable part */
bool sq_damaged(const struct sq_engine *en);
/* trace id (TRACEID option) and the META host= of the first file (may be "") */
uint64_t sq_trace_id(const struct sq_engine *en);
const char *sq_host(const struct sq_engine *en);
void sq_close(struct sq_engine *en);

/* Bytes of event data decoded (record sizes) since the engine opened. */
/*
 * The statement text [sql, end) rewritten onto event_counts when it is one of
 * the aggregates that table answers (SELECT of name, system, cpu, buffer, tid
 * and one COUNT(*) FROM ftrace_event, GROUP BY exactly those keys, then ORDER
 * BY and LIMIT): the same rows under the same column names, from one pass
 * (or the time index) instead of a sort of every event.  malloc'd, or NULL
 * when the statement is anything else.
 */
char *sq_pushdown(const char *sql, const char *end);

uint64_t sq_bytes_read(const struct sq_engine *en);
/* Bytes of event data the readers decompressed or read (fmt_reader_data_bytes). */
uint64_t sq_data_bytes(const struct sq_engine *en);

#endif
