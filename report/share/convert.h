/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flytrap convert as a function, for the command and for test tools that
 * need a copy of a file with some metadata replaced.
 */
#ifndef FLYTRAP_CONVERT_H
#define FLYTRAP_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rpt_convert_opts {
	const char *compression;	/* "zstd" (default when NULL) or "none" */
	int level;			/* zstd level, 0 = the writer's default */
	int chunk;			/* pages per chunk, 0 = the writer's default */
	const char *kallsyms_path;	/* replace the kernel symbols with this file */
	const char *keep_symbols_path;	/* keep only the symbols named here */
	bool drop_printk;		/* leave the printk formats out */
};

/* Copy IN to OUT as version 7; messages go through ft_error/ft_warn.
 * Returns an exit code (EXIT_OK, or EXIT_FAIL with OUT removed, or kept
 * up to the damage of a damaged IN). */
int rpt_convert(const char *in_path, const char *out_path, const struct rpt_convert_opts *o);

struct fmt_reader;
struct fmt_writer;
struct fmt_option;

/*
 * The kernel symbols a rewritten file needs (slice, redact; the whole
 * kallsyms is about 1 MB): the functions holding the addresses its records
 * carry, each with the symbol after it (where it ends), plus _text and
 * _stext (merge tells kernels apart by them; redact counts from them).
 *
 *   k = rpt_ksyms_keep_new(text, len)   the file's kallsyms text (kept by
 *                                        pointer: it must outlive k); NULL
 *                                        with errno ENOMEM
 *   rpt_ksyms_keep_record(k, ev, data, size)   a record kept: its integer
 *                                        fields and arrays of the kernel's
 *                                        long size (stacks, ip, func, %pS)
 *   rpt_ksyms_keep_addr(k, addr)         one address
 *   text = rpt_ksyms_keep_text(k, base, &len, &nkept)   the lines kept,
 *                                        in address order, malloc'd (NULL:
 *                                        ENOMEM); kallsyms whose addresses
 *                                        are all 0 come out whole; base 0:
 *                                        the lines as they were, else their
 *                                        addresses less base (redact)
 *   rpt_ksyms_keep_free(k)               (NULL is fine)
 */
struct tep_event;
struct rpt_ksyms_keep;

struct rpt_ksyms_keep *rpt_ksyms_keep_new(const char *text, size_t len);
void rpt_ksyms_keep_addr(struct rpt_ksyms_keep *k, uint64_t addr);
void rpt_ksyms_keep_record(struct rpt_ksyms_keep *k, const struct tep_event *ev,
			   const void *data, int size);
/* the lines at addr named name (redact's base when it is not _text or _stext) */
void rpt_ksyms_keep_name(struct rpt_ksyms_keep *k, uint64_t addr, const char *name);
/* every line (redact --keep-kallsyms with addresses made relative) */
void rpt_ksyms_keep_every(struct rpt_ksyms_keep *k);
char *rpt_ksyms_keep_text(const struct rpt_ksyms_keep *k, uint64_t base, size_t *len,
			  size_t *nkept);
/* Symbol lines in the text given to rpt_ksyms_keep_new. */
size_t rpt_ksyms_keep_total(const struct rpt_ksyms_keep *k);
void rpt_ksyms_keep_free(struct rpt_ksyms_keep *k);

#endif
