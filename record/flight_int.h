/* SPDX-License-Identifier: GPL-2.0-only */
/* Between the parts of the always-on modes: flight.c, trigger.c, budget.c. */
#ifndef FLYTRAP_RECORD_FLIGHT_INT_H
#define FLYTRAP_RECORD_FLIGHT_INT_H

#include <stddef.h>
#include <stdint.h>

struct rec_flight_conf;
struct rec_instance;
struct rec_bpf;

/* trigger.c: the sources of --trigger while recording. */
struct rec_trig_state;
struct rec_trig_state *rec_trig_state_new(const struct rec_flight_conf *c, struct rec_instance *ri,
					  struct rec_bpf *bpf, int *err);
/*
 * 1 when a trigger fired since the last call (what: a description, *ts:
 * its time on the mono clock, 0 if unknown), 0 when none, -errno.
 */
int rec_trig_poll(struct rec_trig_state *t, char *what, size_t len, uint64_t *ts);
void rec_trig_state_free(struct rec_trig_state *t);

/* budget.c: --cpu-budget. */
struct rec_budget;
struct rec_budget *rec_budget_new(double pct, struct rec_instance *ri);
/* Event IDs of the enabled events (call once they are enabled); 0 or -errno. */
int rec_budget_start(struct rec_budget *b);
/* The writer's page observer (struct fmt_writer_opts); ctx is the budget. */
struct fmt_chunk;
int rec_budget_observe(void *ctx, const struct fmt_chunk *c);
void rec_budget_tick(struct rec_budget *b, uint64_t now_ns);
const char *rec_budget_status(struct rec_budget *b);
void rec_budget_summary(struct rec_budget *b);
/* Shed windows overlapping [from, to] as FT_META lines (malloc'd, NULL when none). */
char *rec_budget_meta(struct rec_budget *b, uint64_t from_ns, uint64_t to_ns);
void rec_budget_free(struct rec_budget *b);

#endif
