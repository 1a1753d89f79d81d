/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event format texts shared by the synthetic trace generators (mkrpt,
 * mkexport): the common fields, sched_switch (ID 300) and the
 * function_graph pair (IDs 11/10), as a 64-bit kernel describes them.
 */
#ifndef FLYTRAP_SYNTH_FORMATS_H
#define FLYTRAP_SYNTH_FORMATS_H

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char fmt_switch[] =
	"name: sched_switch\nID: 300\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%ld ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->prev_state, "
	"REC->next_comm, REC->next_pid, REC->next_prio\n";

static const char fmt_fg_entry[] =
	"name: funcgraph_entry\nID: 11\nformat:\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"--> %ps (%d)\", (void *)REC->func, REC->depth\n";

static const char fmt_fg_exit[] =
	"name: funcgraph_exit\nID: 10\nformat:\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", (void *)REC->func, "
	"REC->depth, REC->calltime, REC->rettime, REC->depth\n";

#endif
