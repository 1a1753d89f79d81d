/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report -F: libtraceevent's event filters, evaluated here.
 *
 * libtraceevent parses a filter (tep_filter_add_filter_str(), the parser
 * trace-cmd uses) into a tree whose layout is public (struct
 * tep_filter_arg).  tep_filter_match() then costs about 500 instructions a
 * record even for "common_pid != 0": it looks the event type up again and
 * bsearches the filter's events for every record.  An rpt_evfilter resolves
 * the event type to its tree once, in a table, and walks the tree with the
 * rules of tep_filter_match() (the same short circuits, sign extension,
 * string copies and regexes; an error anywhere evaluated is a miss).  A
 * tree with a node it does not evaluate (a field compared as a number that
 * is not 1, 2, 4 or 8 bytes, a string compare on a non-string field, ...)
 * is left to tep_filter_match() for that event type.
 *
 * Where it differs, libtraceevent reads outside the record or dies: a field
 * that does not lie inside the record never matches; a division or modulo
 * by zero in an expression is a miss, not SIGFPE; a __data_loc string's
 * descriptor is read in the file's byte order (libtraceevent's filter reads
 * it in the host's, so on a file of the other byte order it looks
 * elsewhere).
 */
#ifndef FLYTRAP_REPORT_FILTER_H
#define FLYTRAP_REPORT_FILTER_H

#include <stdbool.h>
#include <traceevent/event-parse.h>

struct rpt_evfilter;

/*
 * The evaluator of f (which must stay alive and unchanged: build it after
 * the last tep_filter_add_filter_str() on f).  NULL with errno ENOMEM.
 * Free with rpt_evfilter_free() (NULL is a no-op); f is not freed.
 */
struct rpt_evfilter *rpt_evfilter_new(struct tep_event_filter *f);
void rpt_evfilter_free(struct rpt_evfilter *cf);

/*
 * true when tep_filter_match(f, rec) would say FILTER_MATCH or NO_FILTER
 * (a filter naming no event passes everything); type is the record's
 * event ID (common_type), -1 when the iterator could not read it.
 */
bool rpt_evfilter_hit(struct rpt_evfilter *cf, struct tep_record *rec, int type);

/* How many event types f has a rule for; *own: how many of them are evaluated here. */
int rpt_evfilter_types(const struct rpt_evfilter *cf, int *own);

/*
 * Debian's libtraceevent 1.7.1 crashes in its filter parser on some
 * filters: it dereferences NULL when an operator has nothing on its right
 * ("prev_pid==", "pid==1&&") and frees twice on arithmetic in parentheses
 * ("(pid+1)*2>10"); trace-cmd dies with it.  This parses text once in a
 * forked child (the events tep has parsed, copy-on-write), as format/
 * screens formats.  Returns 1 when the child died (or did not exit 0), 0
 * when it came back (whatever the parse said), -errno when it could not
 * be run.
 */
int rpt_evfilter_parse_crashes(struct tep_handle *tep, const char *text);
/*
 * tep_filter_add_filter_str(f, text), its result.  libtraceevent 1.7.1's
 * parser loses small token strings inside (on refused filters, and on
 * '!' and parentheses); in a sanitizer build LeakSanitizer is told to
 * leave what the parser allocates alone (its stacks end in the library,
 * built without frame pointers, so no suppression can name it), while
 * every allocation of flytrap's own stays checked.
 */
int rpt_evfilter_add_str(struct tep_event_filter *f, const char *text);

#endif
