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
#include "json.h"
#include "replay.h"

/* ---- tasks --------------------------------------------------------------- */

struct task_info {
	int tgid;		/* -1 unknown */
	char comm[16];
	bool has_comm;
};


void rpt_tasks_init(struct rpt_tasks *t)
{
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

	if (ti && created)
		ti->tgid = -1;
	return ti;
}

static void task_set_comm(struct rpt_tasks *t, int pid, const void *data, int size,
			  const struct fmt_field *f)
{
	int len;
	const char *s = fmt_field_ptr(f, data, size, &len);
	struct task_info *ti;

	if (!s || pid < 0)
		return;
	ti = task_get(t, pid);
	if (!ti)
		return;
	if (len > 15)
		len = 15;
	memcpy(ti->comm, s, (size_t)len);
	ti->comm[len] = 0;
	ti->has_comm = ti->comm[0] != 0;
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

/* Task names and tgids learned from the events of the kinds that carry them. */
void rpt_tasks_track(struct rpt_tasks *t, const struct rpt_kind_info *ki,
		     const struct fmt_event *ev)
{
	const void *d = ev->rec.data;
	int sz = ev->rec.size;
	int pid;

	switch (ki->kind) {
	case RPT_K_SCHED_SWITCH:
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_SW_PREV_PID], d, sz), d, sz,
			      &ki->f[RPT_F_SW_PREV_COMM]);
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_SW_NEXT_PID], d, sz), d, sz,
			      &ki->f[RPT_F_SW_NEXT_COMM]);
		break;
	case RPT_K_PROCESS_FORK:
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_FORK_CHILD], d, sz), d, sz,
			      &ki->f[RPT_F_FORK_COMM]);
		break;
	case RPT_K_SCHED_WAKEUP:
	case RPT_K_SCHED_WAKING:
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_WK_PID], d, sz), d, sz,
			      &ki->f[RPT_F_WK_COMM]);
		break;
	case RPT_K_TASK_RENAME:
	case RPT_K_TASK_NEWTASK:
		task_set_comm(t, (int)fmt_field_u64(&ki->f[RPT_F_TASK_PID], d, sz), d, sz,
			      &ki->f[RPT_F_TASK_COMM]);
		break;
	default:
		/* flytrap's BPF records name their own task */
		if (ki->comm.offset >= 0 && ki->common_pid.offset >= 0)
			task_set_comm(t, (int)fmt_field_u64(&ki->common_pid, d, sz), d, sz,
				      &ki->comm);
		break;
	}
	if (ki->tgid.offset >= 0 && ki->common_pid.offset >= 0) {
		struct task_info *ti;

		pid = (int)fmt_field_u64(&ki->common_pid, d, sz);
		ti = pid > 0 ? task_get(t, pid) : NULL;
		if (ti)
			ti->tgid = (int)fmt_field_u64(&ki->tgid, d, sz);
	}
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
