// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one pairing of call entries with exits (report/core/calls.c), rule
 * by rule: function_graph by depth (a lost exit ends at the next entry at
 * its depth; an exit ends the deeper calls and closes only the same
 * function), uprobes by address then by name, BPF functions by index and
 * depth (a recursion whose inner exit was lost closes the right level),
 * syscalls by number (an entry ends an open one; a number not known pairs
 * with any), an exit only with its own source, and the stack's bound.
 */
#include <stdio.h>
#include <string.h>

#include "report/core/calls.h"
#include "check.h"

struct el {			/* a command's open call: struct rpt_call first */
	struct rpt_call call;
	int tag;
};

static struct rpt_call C(int src, uint64_t key, uint32_t depth, uint64_t name)
{
	return (struct rpt_call){ .key = key, .name = name, .depth = depth, .src = (uint8_t)src };
}

/* the tags on the stack, outermost first, as "a,b,c" */
static const char *tags(const struct rpt_calls *c)
{
	static char buf[256];
	size_t o = 0;

	buf[0] = 0;
	for (int k = 0; k < c->n && o + 8 < sizeof(buf); k++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%d", k ? "," : "",
				      ((struct el *)rpt_calls_at(c, k))->tag);
	return buf;
}

/* an entry as a command makes it: drop what it ends, push it */
static int enter(struct rpt_calls *c, struct rpt_call e, int tag)
{
	int drop = rpt_calls_enter(c, &e);
	struct el *p;

	c->n -= drop;
	p = rpt_calls_push(c, &e, 64);
	if (p)
		p->tag = tag;
	return drop;
}

/* an exit: drop what it ends; the tag of the call it closes (popped), or -1 */
static int leave(struct rpt_calls *c, struct rpt_call x, int *dropped)
{
	int drop, k = rpt_calls_exit(c, &x, &drop), tag = -1;

	c->n -= drop;
	if (dropped)
		*dropped = drop;
	if (k >= 0) {
		CHECK(k == c->n - 1, "the call an exit closes is the top once the others go (k %d, n %d)",
		      k, c->n);
		tag = ((struct el *)rpt_calls_at(c, k))->tag;
		c->n--;
	}
	return tag;
}

static void test_fgraph(void)
{
	struct rpt_calls c;
	int d;

	rpt_calls_init(&c, sizeof(struct el));
	enter(&c, C(RPT_CALL_FGRAPH, 0xa, 0, 0), 1);
	enter(&c, C(RPT_CALL_FGRAPH, 0xb, 1, 0), 2);
	/* b's exit lost: c at b's depth ends it */
	CHECK(enter(&c, C(RPT_CALL_FGRAPH, 0xc, 1, 0), 3) == 1, "an entry at depth 1 ends b");
	CHECK(!strcmp(tags(&c), "1,3"), "stack %s", tags(&c));
	CHECK(leave(&c, C(RPT_CALL_FGRAPH, 0xc, 1, 0), &d) == 3 && d == 0, "c closes c");
	enter(&c, C(RPT_CALL_FGRAPH, 0xd, 1, 0), 4);
	enter(&c, C(RPT_CALL_FGRAPH, 0xe, 2, 0), 5);
	/* an exit at depth 1 of another function: e ends, d stays open, nothing closes */
	CHECK(leave(&c, C(RPT_CALL_FGRAPH, 0xf, 1, 0), &d) == -1 && d == 1,
	      "an exit of another function at depth 1 closes nothing (dropped %d)", d);
	CHECK(!strcmp(tags(&c), "1,4"), "stack %s", tags(&c));
	/* a's exit ends d too */
	CHECK(leave(&c, C(RPT_CALL_FGRAPH, 0xa, 0, 0), &d) == 1 && d == 1, "a closes a, ends d");
	CHECK(c.n == 0, "empty");
	/* an exit without any entry */
	CHECK(leave(&c, C(RPT_CALL_FGRAPH, 0xa, 0, 0), NULL) == -1, "no entry: nothing");
	/* a uprobe frame on top keeps function_graph's depth rule from reaching below it */
	enter(&c, C(RPT_CALL_FGRAPH, 0xa, 3, 0), 6);
	enter(&c, C(RPT_CALL_PROBE, 0x401000, 0, 7), 7);
	CHECK(enter(&c, C(RPT_CALL_FGRAPH, 0xb, 3, 0), 8) == 0, "a probe on top: nothing ends");
	rpt_calls_release(&c);
}

static void test_probe(void)
{
	struct rpt_calls c;
	int d;

	rpt_calls_init(&c, sizeof(struct el));
	enter(&c, C(RPT_CALL_PROBE, 0x401000, 0, 100), 1);
	enter(&c, C(RPT_CALL_PROBE, 0x401200, 0, 200), 2);
	/* outer's return: inner never returned */
	CHECK(leave(&c, C(RPT_CALL_PROBE, 0x401000, 0, 100), &d) == 1 && d == 1,
	      "a return closes its entry by address, the one above it goes");
	/* by name when the address pairs with nothing (a probe without __probe_func) */
	enter(&c, C(RPT_CALL_PROBE, 0x401000, 0, 100), 3);
	CHECK(leave(&c, C(RPT_CALL_PROBE, 0, 0, 100), NULL) == 3, "no address: by name");
	enter(&c, C(RPT_CALL_PROBE, 0x401000, 0, 100), 4);
	CHECK(leave(&c, C(RPT_CALL_PROBE, 0x409999, 0, 300), NULL) == -1,
	      "another address and name: nothing");
	/* a return never closes a BPF function's frame of the same address */
	enter(&c, C(RPT_CALL_UFUNC, 0x401000, 1, 0), 5);
	CHECK(leave(&c, C(RPT_CALL_PROBE, 0x401000, 0, 100), &d) == 4 && d == 1,
	      "the probe's own entry, below the ufunc frame");
	rpt_calls_release(&c);
}

static void test_bpf(void)
{
	struct rpt_calls c;
	int d;

	rpt_calls_init(&c, sizeof(struct el));
	enter(&c, C(RPT_CALL_UFUNC, 0, 1, 0), 1);	/* main */
	enter(&c, C(RPT_CALL_UFUNC, 1, 2, 0), 2);	/* parse_config */
	enter(&c, C(RPT_CALL_UFUNC, 1, 3, 0), 3);	/* parse_config, recursing; exit lost */
	CHECK(leave(&c, C(RPT_CALL_UFUNC, 1, 2, 0), &d) == 2 && d == 1,
	      "the depth-2 exit closes depth 2, the inner one goes");
	CHECK(leave(&c, C(RPT_CALL_KFUNC, 0, 1, 0), NULL) == -1, "a kfunc exit never closes a ufunc");
	CHECK(leave(&c, C(RPT_CALL_UFUNC, 0, 1, 0), &d) == 1 && d == 0, "main");
	rpt_calls_release(&c);
}

static void test_syscall(void)
{
	struct rpt_calls c;
	int d;

	rpt_calls_init(&c, sizeof(struct el));
	enter(&c, C(RPT_CALL_SYSCALL, 0, 0, 0), 1);		/* read, exit lost */
	enter(&c, C(RPT_CALL_FGRAPH, 0xa, 0, 0), 2);		/* a kernel function in it */
	CHECK(enter(&c, C(RPT_CALL_SYSCALL, 1, 0, 0), 3) == 2, "write ends read and what is in it");
	CHECK(leave(&c, C(RPT_CALL_SYSCALL, 0, 0, 0), NULL) == -1, "read's exit does not close write");
	CHECK(leave(&c, C(RPT_CALL_SYSCALL, 1, 0, 0), &d) == 3 && d == 0, "write's does");
	enter(&c, C(RPT_CALL_SYSCALL, RPT_CALL_ANY, 0, 0), 4);
	CHECK(leave(&c, C(RPT_CALL_SYSCALL, 7, 0, 0), NULL) == 4, "a number not known pairs with any");
	rpt_calls_release(&c);
}

static void test_bound(void)
{
	struct rpt_calls c;
	struct rpt_call e = C(RPT_CALL_UFUNC, 1, 0, 0);
	int k;

	rpt_calls_init(&c, sizeof(struct el));
	for (k = 0; k < 10; k++)
		CHECK(rpt_calls_push(&c, &e, 10) != NULL, "push %d", k);
	CHECK(rpt_calls_push(&c, &e, 10) == NULL && c.n == 10, "the 11th is refused");
	CHECK(((struct el *)rpt_calls_at(&c, 9))->tag == 0, "pushed elements are zeroed");
	rpt_calls_release(&c);
	CHECK(c.n == 0 && !c.v, "released");
}

int main(void)
{
	test_fgraph();
	test_probe();
	test_bpf();
	test_syscall();
	test_bound();
	return check_summary();
}
