// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task names and tgids learned from the events that carry them, and the
 * filters that select events by time, CPU, pid and task name.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flytrap.h"
#include "report/out/json.h"
#include "report/core/replay.h"

/* ---- tasks --------------------------------------------------------------- */

struct task_info {
	int tgid;		/* -1 unknown */
	char comm[16];
	bool has_comm;
	/* with t->guard: the (time, stream) of the assignments kept */
	int comm_rank, tgid_rank;
	uint64_t comm_ts, tgid_ts;
};


void rpt_tasks_init(struct rpt_tasks *t)
{
	memset(t, 0, sizeof(*t));
	rpt_map_init(&t->map, sizeof(struct task_info));
}

void rpt_tasks_release(struct rpt_tasks *t)
{
	rpt_map_release(&t->map);
}

static struct task_info *task_get(struct rpt_tasks *t, int pid)
{
	bool created;
	struct task_info *ti = rpt_map_get(&t->map, (uint64_t)(uint32_t)pid, &created);

	if (ti && created) {
		ti->tgid = -1;
		ti->comm_rank = ti->tgid_rank = -1;
	}
	return ti;
}

/* Is (ts, rank) no earlier than (ts0, rank0), in the merge's order? */
static inline bool not_before(uint64_t ts, int rank, uint64_t ts0, int rank0)
{
	return ts != ts0 ? ts > ts0 : rank >= rank0;
}

static void set_comm(void *arg, int pid, const char *s, int len)
{
	struct rpt_tasks *t = arg;
	struct task_info *ti = task_get(t, pid);

	if (!ti)
		return;
	if (t->guard) {
		if (!not_before(t->at_ts, t->at_rank, ti->comm_ts, ti->comm_rank))
			return;
		ti->comm_ts = t->at_ts;
		ti->comm_rank = t->at_rank;
	}
	if (len > 15)
		len = 15;
	memcpy(ti->comm, s, (size_t)len);
	ti->comm[len] = 0;
	ti->has_comm = ti->comm[0] != 0;
}

static void set_tgid(void *arg, int pid, int tgid)
{
	struct rpt_tasks *t = arg;
	struct task_info *ti = task_get(t, pid);

	if (!ti)
		return;
	if (t->guard) {
		if (!not_before(t->at_ts, t->at_rank, ti->tgid_ts, ti->tgid_rank))
			return;
		ti->tgid_ts = t->at_ts;
		ti->tgid_rank = t->at_rank;
	}
	ti->tgid = tgid;
}

void rpt_tasks_set_comm(struct rpt_tasks *t, int pid, const char *s, int len)
{
	if (pid >= 0)
		set_comm(t, pid, s, len);
}

void rpt_tasks_set_tgid(struct rpt_tasks *t, int pid, int tgid)
{
	if (pid > 0)
		set_tgid(t, pid, tgid);
}

const char *rpt_comm(const struct rpt_ctx *ctx, int pid)
{
	struct task_info *ti =
		ctx->tasks ? rpt_map_find(&ctx->tasks->map, (uint64_t)(uint32_t)pid) : NULL;

	if (pid == 0)
		return "<idle>";
	if (ti && ti->has_comm)
		return ti->comm;
	if (ctx->tep)
		return tep_data_comm_from_pid(ctx->tep, pid);
	return "<...>";
}

int rpt_tgid(const struct rpt_ctx *ctx, int pid)
{
	struct task_info *ti =
		ctx->tasks ? rpt_map_find(&ctx->tasks->map, (uint64_t)(uint32_t)pid) : NULL;

	return ti ? ti->tgid : -1;
}

/* Task names and tgids learned from the events that carry them (format/names.c). */
void rpt_tasks_track(struct rpt_tasks *t, const struct fmt_namesrc *ns, const struct fmt_event *ev)
{
	if (fmt_namesrc_any(ns))
		fmt_namesrc_apply(ns, ev->rec.data, ev->rec.size, set_comm, set_tgid, t);
}

/* ---- filtering ------------------------------------------------------------ */

/*
 * common_pid: an int at offset 4 in every event format since 2.6.32 (the
 * common fields are fixed by the kernel's trace_entry), so the filter needs
 * no per-type lookup.
 */
static int event_pid(const struct rpt_ctx *ctx, const struct fmt_event *ev)
{
	uint32_t pid;

	if (ev->rec.size < 8)
		return -1;
	memcpy(&pid, (const char *)ev->rec.data + 4, 4);
	if (ctx->info && ctx->info->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		pid = __builtin_bswap32(pid);
	return (int)pid;
}

int rpt_event_pid(const struct rpt_ctx *ctx, const struct fmt_event *ev)
{
	return event_pid(ctx, ev);
}

bool rpt_event_selected(const struct rpt_ctx *ctx, const struct fmt_event *ev)
{
	const struct rpt_opts *o = ctx->opts;

	if (o->has_t0 && ev->rec.ts < o->t0_ns)
		return false;
	if (o->has_t1 && ev->rec.ts > o->t1_ns)
		return false;
	if (o->has_cpus && !rpt_cpu_selected(o, ev->rec.cpu))
		return false;
	if ((o->npids || o->ncomms) && !rpt_task_selected(ctx, event_pid(ctx, ev)))
		return false;
	return true;
}

bool rpt_task_selected(const struct rpt_ctx *ctx, int pid)
{
	const struct rpt_opts *o = ctx->opts;
	int k;

	if (o->npids) {
		int tgid = rpt_tgid(ctx, pid);

		for (k = 0; k < o->npids; k++)
			if (o->pids[k] == pid || (tgid > 0 && o->pids[k] == tgid))
				break;
		if (k == o->npids)
			return false;
	}
	if (o->ncomms) {
		const char *c = rpt_comm(ctx, pid);

		for (k = 0; k < o->ncomms; k++)
			if (rpt_glob(o->comms[k], c))
				break;
		if (k == o->ncomms)
			return false;
	}
	return true;
}

bool rpt_cpu_selected(const struct rpt_opts *o, int cpu)
{
	if (!o->has_cpus)
		return true;
	return cpu >= 0 && cpu < 256 && (o->cpu_mask[cpu / 64] & (1ULL << (cpu % 64)));
}
