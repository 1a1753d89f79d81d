/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A boot-reserved trace buffer (Linux 6.12 reserve_mem + trace_instance):
 * finding it, reading its last_boot_info, and the commands around it
 * (record/lastboot.c).
 */
#ifndef FLYTRAP_LASTBOOT_H
#define FLYTRAP_LASTBOOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define REC_LASTBOOT_MODS 512

struct rec_lastboot {
	bool current;			/* "# Current": this boot's events */
	/*
	 * Derived by rec_lastboot_parse(): the buffer holds the previous boot's
	 * events (an old text address, or a delta other than 0); unsure: 6.12
	 * without KASLR, whose delta of 0 says neither.
	 */
	bool previous, unsure;
	bool have_delta, have_data_delta;	/* 6.12: "text delta:" (this boot less the last) */
	int64_t text_delta, data_delta;
	bool have_prev_text;		/* later kernels: "ADDR\t[kernel]" */
	uint64_t prev_text;
	int nmods;			/* "ADDR\tMODULE": the previous boot's modules */
	struct {
		char name[64];
		uint64_t addr;
	} mods[REC_LASTBOOT_MODS];
};

/* 0, or -EINVAL when text says neither a delta, an address nor "current". */
int rec_lastboot_parse(const char *text, struct rec_lastboot *lb);
/* The instances that have a last_boot_info file (NULL-terminated, malloc'd): count or -errno. */
int rec_lastboot_list(char ***names);
void rec_lastboot_list_free(char **names);
/* One line on f: what the buffer holds and what to do with it.  0 or -errno. */
int rec_lastboot_describe(const char *name, FILE *f);

int cmd_recover_last_boot(int argc, char **argv);
int cmd_lastboot(int argc, char **argv);

#endif
