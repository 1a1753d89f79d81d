/* SPDX-License-Identifier: GPL-2.0-only */
/* record --on-file CMD: run CMD for each completed file (onfile.c). */
#ifndef FLYTRAP_RECORD_ONFILE_H
#define FLYTRAP_RECORD_ONFILE_H

#include <stdbool.h>
#include <stdint.h>

#define REC_ONFILE_TIMEOUT_NS (60ULL * 1000000000ULL)

struct rec_onfile;

/* NULL when out of memory; timeout 0 = REC_ONFILE_TIMEOUT_NS. */
struct rec_onfile *rec_onfile_new(const char *cmd, uint64_t timeout_ns);
/* path is complete under its final name: run CMD on it now or after the one running. */
void rec_onfile_add(struct rec_onfile *of, const char *path);
/* Reap the one running, kill it past its timeout, start the next; never waits. */
void rec_onfile_poll(struct rec_onfile *of);
bool rec_onfile_busy(const struct rec_onfile *of);
/* FT_META lines for the next file: the runs ended since the last call (malloc'd or NULL). */
char *rec_onfile_meta(struct rec_onfile *of);
/* Run what still waits (each bounded by the timeout), say the totals, free (NULL is fine). */
void rec_onfile_free(struct rec_onfile *of);

#endif
