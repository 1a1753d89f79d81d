// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which events name a task, and with which fields: a sched_switch names
 * both of its tasks, a wakeup or waking the woken one, a fork its child,
 * task_newtask and task_rename their task, a flytrap BPF record its own
 * task; any event with a tgid field gives its task's process.
 *
 * The analyzers (report/core/tasks.c) learn names from these while they read,
 * and the writer keeps, per chunk, what they would learn from it (the
 * time index's facts), so a window can be read without what lies before
 * or after it.  Both use this one table, so the two cannot disagree.
 *
 * The second table says which events set the analyzers' scheduling,
 * syscall and interrupt state (report/core/kinds.c's rules for those kinds):
 * the writer keeps copies of the last of them per chunk (the index's
 * state records, FMT_SEC_FT_STATE), and a window's replay hands those to
 * the analyzers in place of the chunks it skips.
 */
#include <string.h>

#include "internal.h"

struct name_rule {
	const char *sys, *name;
	const char *pid[2], *comm[2];
	const char *also;		/* another field the event must have (or NULL) */
	bool need_comm;			/* no name field, no rule */
};

static const struct name_rule rules[] = {
	{ "sched", "sched_switch", { "prev_pid", "next_pid" }, { "prev_comm", "next_comm" } },
	{ "sched", "sched_wakeup", { "pid" }, { "comm" } },
	{ "sched", "sched_wakeup_new", { "pid" }, { "comm" } },
	{ "sched", "sched_waking", { "pid" }, { "comm" } },
	{ "sched", "sched_process_fork", { "child_pid" }, { "child_comm" }, "parent_pid" },
	{ "task", "task_newtask", { "pid" }, { "comm" } },
	{ "task", "task_rename", { "pid" }, { "newcomm" }, NULL, true },
};

/* An integer field the readers can take (1, 2, 4 or 8 bytes, not dynamic). */
static bool int_field(const struct tep_event *e, const char *name, struct fmt_field *f)
{
	if (fmt_field_resolve(e, name, f))
		return false;
	if (f->size <= 0 || f->is_dynamic ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)) {
		f->offset = -1;
		return false;
	}
	return true;
}

static bool str_field(const struct tep_event *e, const char *name, struct fmt_field *f)
{
	if (fmt_field_resolve(e, name, f))
		return false;
	if (f->size <= 0) {
		f->offset = -1;
		return false;
	}
	return true;
}

void fmt_namesrc_resolve(const struct tep_event *e, struct fmt_namesrc *ns)
{
	memset(ns, 0, sizeof(*ns));
	for (int i = 0; i < 2; i++)
		ns->pid[i].offset = ns->comm[i].offset = -1;
	ns->common_pid.offset = ns->tgid.offset = -1;
	if (!e || !e->system || !e->name)
		return;
	int_field(e, "common_pid", &ns->common_pid);
	if (ns->common_pid.offset >= 0 && !int_field(e, "tgid", &ns->tgid))
		ns->tgid.offset = -1;
	if (ns->common_pid.offset < 0)
		ns->tgid.offset = -1;
	if (!strcmp(e->system, "flytrap")) {
		/* BPF records carry their own task's name */
		if (ns->common_pid.offset >= 0 && str_field(e, "comm", &ns->comm[0])) {
			ns->pid[0] = ns->common_pid;
			ns->npairs = 1;
		}
		return;
	}
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		const struct name_rule *nr = &rules[r];
		struct fmt_field f;
		bool ok = true;
		int i;

		if (strcmp(e->system, nr->sys) || strcmp(e->name, nr->name))
			continue;
		/* every pid field, and what the rule also needs, or the event names nobody */
		for (i = 0; i < 2 && nr->pid[i]; i++) {
			ok = ok && int_field(e, nr->pid[i], &ns->pid[i]);
			if (!str_field(e, nr->comm[i], &ns->comm[i]) && nr->need_comm)
				ok = false;
		}
		if (nr->also && !int_field(e, nr->also, &f))
			ok = false;
		if (!ok)
			break;
		ns->npairs = i;
		return;
	}
	for (int i = 0; i < 2; i++)
		ns->pid[i].offset = ns->comm[i].offset = -1;
	ns->npairs = 0;
}

/*
 * The event's name in a format text (not terminated), read as libtraceevent
 * reads it: blanks around "name" and ":" allowed, the name runs to the next
 * blank or newline.  False when the text does not start that way.
 */
static bool format_name(const char *text, size_t len, const char **nm, size_t *nl)
{
	const char *p = text, *end = text + len, *q;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	if (end - p < 5 || memcmp(p, "name", 4))
		return false;
	for (p += 4; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	if (p == end || *p++ != ':')
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (q = p; q < end && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r'; q++)
		;
	if (q == p)
		return false;
	*nm = p;
	*nl = (size_t)(q - p);
	return true;
}

bool fmt_namesrc_may_name(const char *sys, const char *text, size_t len)
{
	const char *nm;
	size_t nl;

	if (!strcmp(sys, "flytrap") || memmem(text, len, " tgid;", 6) ||
	    memmem(text, len, "\ttgid;", 6))
		return true;
	if (!format_name(text, len, &nm, &nl))
		return false;
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++)
		if (!strcmp(sys, rules[r].sys) && strlen(rules[r].name) == nl &&
		    !memcmp(nm, rules[r].name, nl))
			return true;
	return false;
}

/*
 * The events that set state (fmt_statesrc_resolve), as report/core/kinds.c
 * tells them: system and name, and the fields that rule requires.
 */
struct state_rule {
	const char *sys, *name;
	bool prefix;			/* name is a prefix, with more after it */
	int kind;
	const char *need;		/* an integer field the rule requires, or NULL */
};

static const struct state_rule state_rules[] = {
	{ "sched", "sched_switch", false, FMT_ST_SWITCH, NULL },
	{ "sched", "sched_process_exit", false, FMT_ST_EXIT, "pid" },
	{ "raw_syscalls", "sys_enter", false, FMT_ST_SYSCALL, "id" },
	{ "raw_syscalls", "sys_exit", false, FMT_ST_SYSCALL, "id" },
	{ "syscalls", "sys_enter_", true, FMT_ST_SYSCALL, NULL },
	{ "syscalls", "sys_exit_", true, FMT_ST_SYSCALL, NULL },
	{ "irq", "irq_handler_entry", false, FMT_ST_IRQ, "irq" },
	{ "irq", "irq_handler_exit", false, FMT_ST_IRQ, "irq" },
	{ "irq", "softirq_entry", false, FMT_ST_SOFTIRQ, "vec" },
	{ "irq", "softirq_exit", false, FMT_ST_SOFTIRQ, "vec" },
	{ "sched", "sched_wakeup", false, FMT_ST_WAKEUP, "pid" },
	{ "sched", "sched_wakeup_new", false, FMT_ST_WAKEUP, "pid" },
	/* any call record, with or without the fields the analyzers need: slice reads them all */
	{ "ftrace", "funcgraph_entry", false, FMT_ST_CALL, NULL },
	{ "ftrace", "funcgraph_exit", false, FMT_ST_CALL, NULL },
	{ "flytrap", "ufunc_entry", false, FMT_ST_CALL, NULL },
	{ "flytrap", "ufunc_exit", false, FMT_ST_CALL, NULL },
	{ "flytrap", "kfunc_entry", false, FMT_ST_CALL, NULL },
	{ "flytrap", "kfunc_exit", false, FMT_ST_CALL, NULL },
};

static bool state_name(const struct state_rule *r, const char *nm, size_t nl)
{
	size_t rl = strlen(r->name);

	return r->prefix ? nl > rl && !memcmp(nm, r->name, rl) : nl == rl && !memcmp(nm, r->name, rl);
}

void fmt_statesrc_resolve(const struct tep_event *e, struct fmt_statesrc *ss)
{
	struct fmt_field f;

	memset(ss, 0, sizeof(*ss));
	ss->a.offset = ss->b.offset = -1;
	if (!e || !e->system || !e->name)
		return;
	for (size_t i = 0; i < sizeof(state_rules) / sizeof(state_rules[0]); i++) {
		const struct state_rule *r = &state_rules[i];

		if (strcmp(e->system, r->sys) || !state_name(r, e->name, strlen(e->name)))
			continue;
		if (r->need && !int_field(e, r->need, &f))
			return;
		switch (r->kind) {
		case FMT_ST_SWITCH:
			if (!int_field(e, "prev_pid", &ss->a) || !int_field(e, "next_pid", &ss->b)) {
				ss->a.offset = ss->b.offset = -1;
				return;
			}
			break;
		case FMT_ST_EXIT:
		case FMT_ST_WAKEUP:
			ss->a = f;
			break;
		case FMT_ST_IRQ:
			/* an entry names its irq: the first per irq number is kept */
			if (!strcmp(e->name, "irq_handler_entry")) {
				ss->a = f;
				ss->named = true;
			}
			break;
		}
		ss->kind = r->kind;
		return;
	}
}

bool fmt_statesrc_may(const char *sys, const char *text, size_t len)
{
	const char *nm;
	size_t nl;

	if (!format_name(text, len, &nm, &nl))
		return false;
	for (size_t i = 0; i < sizeof(state_rules) / sizeof(state_rules[0]); i++)
		if (!strcmp(sys, state_rules[i].sys) && state_name(&state_rules[i], nm, nl))
			return true;
	return false;
}
