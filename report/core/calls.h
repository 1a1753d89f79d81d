/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pairing a task's call entries with their exits: the one rule export,
 * sql, callgraph and slice follow (uftrace keeps its own in one file,
 * utils/fstack.c, for the same reason: every tool answers alike).
 *
 * A task's open calls are a stack.  Each source pairs its own way:
 *  - function_graph (RPT_CALL_FGRAPH), by the kernel's depth: an entry at
 *    depth d first drops the function_graph calls on top at depth d or
 *    deeper (their exits were lost); an exit at depth d drops those deeper
 *    than d, then closes the top call when it is the same function at d.
 *  - uprobes (RPT_CALL_PROBE): a return pairs with the innermost open entry
 *    of the same probed address (the kernel links a uretprobe to its entry
 *    by address, whatever the event names), else of the same name (the
 *    command's id of the entry's name: NAME for NAME__return, ...).
 *  - flytrap's BPF ufunc and kfunc records (RPT_CALL_UFUNC, _KFUNC): by
 *    function index and the program's own depth counter, so a recursion
 *    whose inner exit was lost still closes the right level.
 *  - syscalls (RPT_CALL_SYSCALL): an exit closes the innermost open one
 *    when their numbers agree (or one is not known); syscalls do not nest,
 *    so an entry while one is open means that one lost its exit.
 * An exit closes a call of its own source only.  The calls above the one
 * an exit closes never returned (longjmp, lost events): the command drops
 * them first, each its own way (counted, written as an instant, freed).
 *
 * The stack holds the command's own structs, each starting with a struct
 * rpt_call; the functions here only read the struct rpt_call part.
 */
#ifndef FLYTRAP_REPORT_CALLS_H
#define FLYTRAP_REPORT_CALLS_H

#include <stddef.h>
#include <stdint.h>

enum rpt_call_src {
	RPT_CALL_FGRAPH = 1,
	RPT_CALL_PROBE,
	RPT_CALL_UFUNC,
	RPT_CALL_KFUNC,
	RPT_CALL_SYSCALL,
};

/* A syscall number not known (a named event without __syscall_nr): pairs with any. */
#define RPT_CALL_ANY UINT64_MAX

/* The first member of a command's open call. */
struct rpt_call {
	/*
	 * FGRAPH: the function's address; PROBE: __probe_ip of an entry,
	 * __probe_func of a return (0: none); UFUNC/KFUNC: the function index;
	 * SYSCALL: the number (not compared)
	 */
	uint64_t key;
	uint64_t name;		/* PROBE: the command's id of the entry's name */
	uint32_t depth;		/* FGRAPH: the kernel's; UFUNC/KFUNC: the program's */
	uint8_t src;		/* enum rpt_call_src */
};

struct rpt_calls {
	unsigned char *v;	/* n elements of esz bytes */
	int n, cap;
	size_t esz;
};

/* An empty stack of elements of esz bytes (>= sizeof(struct rpt_call)). */
void rpt_calls_init(struct rpt_calls *c, size_t esz);
void rpt_calls_release(struct rpt_calls *c);

/* Element k (0: the outermost); the top is rpt_calls_at(c, c->n - 1). */
static inline void *rpt_calls_at(const struct rpt_calls *c, int k)
{
	return c->v + (size_t)k * c->esz;
}

static inline const struct rpt_call *rpt_calls_call(const struct rpt_calls *c, int k)
{
	return (const struct rpt_call *)rpt_calls_at(c, k);
}

/*
 * Entry e: how many calls on top never returned and go before it is pushed
 * (function_graph at its depth or deeper; an open syscall and what is
 * above it, for a syscall).
 */
int rpt_calls_enter(const struct rpt_calls *c, const struct rpt_call *e);

/*
 * Push e's element (zeroed, its struct rpt_call set to *e) and return it;
 * NULL when the stack holds max elements already or memory ran out.
 */
void *rpt_calls_push(struct rpt_calls *c, const struct rpt_call *e, int max);

/*
 * Exit x: the index of the open call it closes, or -1 when none.  *drop:
 * how many calls on top go first, also when none matches (a function_graph
 * exit still ends the calls deeper than its own).  After dropping them, the
 * call it closes is the top.
 */
int rpt_calls_exit(const struct rpt_calls *c, const struct rpt_call *x, int *drop);

#endif
