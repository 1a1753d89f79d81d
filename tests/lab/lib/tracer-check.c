// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracer-check: drives record/tracer.c the way `flytrap record` does, for
 * the kernel lab (tests/lab/10-kernel-lab.sh builds it with tracer.c and
 * libtracefs; it is not part of the Makefile because tests/tools programs
 * link only format/ and report/).
 *
 *   tracer-check [-p KIND] [-g F] [-l F] [-n F] [-d DEPTH] [-s] [-k SPEC]
 *                [-W] [-o FILE] [-- CMD ARGS...]
 *   tracer-check --reset
 *
 * Creates the instance "flytrap-<pid>" (mono clock), sets up the tracer and
 * kprobes (each refusal is printed as one "tracer-check: warning:" line and
 * the run goes on), runs CMD (or, with -W, waits for SIGINT/SIGTERM),
 * then writes the text of the buffer(s) the records went to into FILE
 * (stdout by default) and restores everything.  --reset removes what a
 * SIGKILLed run left: kprobes and top-level state (rec_tracer_reset_stale)
 * and "flytrap-<pid>" instances of dead processes.
 * Exit: 0, 1 when set-up failed completely or restore failed, 2 usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "record/tracer.h"

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static int usage(const char *msg)
{
	fprintf(stderr, "tracer-check: %s\n", msg);
	return 2;
}

static void dump(FILE *out, struct tracefs_instance *ti, const char *label)
{
	char *text = tracefs_instance_file_read(ti, "trace", NULL);

	fprintf(out, "##### buffer %s\n%s", label, text ? text : "(unreadable)\n");
	free(text);
}

static int reset(void)
{
	char *report = NULL, **inst;
	int ret = rec_tracer_reset_stale(&report), i;

	if (report)
		fputs(report, stdout);
	free(report);
	inst = tracefs_instances(NULL);
	for (i = 0; inst && inst[i]; i++) {
		int pid = atoi(inst[i] + 8);
		struct tracefs_instance *ti;

		if (strncmp(inst[i], "flytrap-", 8) || pid <= 0 || kill(pid, 0) == 0)
			continue;
		ti = tracefs_instance_alloc(NULL, inst[i]);
		if (ti && tracefs_instance_destroy(ti) == 0)
			printf("removed instance %s\n", inst[i]);
		else
			printf("cannot remove instance %s\n", inst[i]);
		tracefs_instance_free(ti);
	}
	tracefs_list_free(inst);
	return ret < 0 ? 1 : 0;
}

#define MAXL 16

int main(int argc, char **argv)
{
	const char *g[MAXL], *l[MAXL], *n[MAXL], *k[MAXL], *outname = NULL;
	struct rec_tracer_opts o = { 0 };
	struct tracefs_instance *ti, *buf;
	struct rec_tracer *t;
	char name[64], *err = NULL;
	size_t ng = 0, nl = 0, nn = 0, nk = 0, i;
	bool wait_sig = false, top;
	int c, ret = 0, set_ok, probes_ok = 0;
	FILE *out = stdout;

	if (argc == 2 && !strcmp(argv[1], "--reset"))
		return reset();
	while ((c = getopt(argc, argv, "+p:g:l:n:d:sk:Wo:")) != -1) {
		switch (c) {
		case 'p':
			o.kind = rec_tracer_parse_kind(optarg);
			if ((int)o.kind < 0)
				return usage("-p: unknown tracer");
			break;
		case 'g':
			if (ng == MAXL)
				return usage("too many -g");
			g[ng++] = optarg;
			break;
		case 'l':
			if (nl == MAXL)
				return usage("too many -l");
			l[nl++] = optarg;
			break;
		case 'n':
			if (nn == MAXL)
				return usage("too many -n");
			n[nn++] = optarg;
			break;
		case 'd':
			o.max_graph_depth = (unsigned)atoi(optarg);
			break;
		case 's':
			o.func_stack = true;
			break;
		case 'k':
			if (nk == MAXL)
				return usage("too many -k");
			if (rec_tracer_check_kprobe(optarg, &err)) {
				fprintf(stderr, "tracer-check: %s\n", err);
				free(err);
				return 2;
			}
			k[nk++] = optarg;
			break;
		case 'W':
			wait_sig = true;
			break;
		case 'o':
			outname = optarg;
			break;
		default:
			return usage("bad option");
		}
	}
	if (ng && o.kind == REC_TRACER_NONE)
		o.kind = REC_TRACER_FUNCTION_GRAPH;
	o.graph_funcs = g;
	o.ngraph_funcs = ng;
	o.filter = l;
	o.nfilter = nl;
	o.notrace = n;
	o.nnotrace = nn;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	snprintf(name, sizeof(name), "flytrap-%d", (int)getpid());
	ti = tracefs_instance_create(name);
	if (!ti) {
		fprintf(stderr, "tracer-check: error: cannot create instance %s: %s\n", name, strerror(errno));
		return 1;
	}
	tracefs_instance_file_write(ti, "tracing_on", "0");
	tracefs_instance_file_write(ti, "trace_clock", "mono");
	t = rec_tracer_new(ti);
	if (!t) {
		fprintf(stderr, "tracer-check: error: %s\n", strerror(errno));
		tracefs_instance_destroy(ti);
		tracefs_instance_free(ti);
		return 1;
	}

	set_ok = rec_tracer_set(t, &o, &err) == 0;
	if (!set_ok) {
		fprintf(stderr, "tracer-check: warning: %s\n", err);
		free(err);
		err = NULL;
	}
	for (i = 0; i < nk; i++) {
		if (rec_tracer_add_kprobe(t, k[i], &err)) {
			fprintf(stderr, "tracer-check: warning: %s\n", err);
			free(err);
			err = NULL;
		} else {
			probes_ok++;
		}
	}
	{
		const char *const *sys = rec_tracer_systems(t);

		fprintf(stderr, "tracer-check: systems:");
		for (i = 0; sys[i]; i++)
			fprintf(stderr, " %s", sys[i]);
		fprintf(stderr, "\n");
	}
	buf = rec_tracer_buffer(t, &top);
	fprintf(stderr, "tracer-check: tracer buffer: %s\n", top ? "top level" : "instance");

	tracefs_instance_file_write(ti, "tracing_on", "1");
	if (rec_tracer_start(t, &err)) {
		fprintf(stderr, "tracer-check: warning: %s\n", err);
		free(err);
		err = NULL;
	}
	if (wait_sig) {
		fprintf(stderr, "tracer-check: ready\n");
		while (!stop_sig)
			pause();
		fprintf(stderr, "tracer-check: stopping on signal %d\n", (int)stop_sig);
	} else if (optind < argc) {
		pid_t pid = fork();

		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			execvp(argv[optind], argv + optind);
			_exit(127);
		}
		if (pid > 0)
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
	}
	rec_tracer_stop(t);
	tracefs_instance_file_write(ti, "tracing_on", "0");

	if (outname) {
		out = fopen(outname, "w");
		if (!out) {
			fprintf(stderr, "tracer-check: error: cannot open '%s': %s\n", outname, strerror(errno));
			out = stdout;
		}
	}
	dump(out, ti, "instance");
	if (top && buf == NULL)
		dump(out, NULL, "top");
	if (out != stdout)
		fclose(out);

	if (rec_tracer_restore(t)) {
		fprintf(stderr, "tracer-check: error: restore: %s\n", rec_tracer_last_error(t));
		ret = 1;
	}
	rec_tracer_free(t);
	tracefs_instance_destroy(ti);
	tracefs_instance_free(ti);
	if (!set_ok && o.kind != REC_TRACER_NONE && !probes_ok)
		ret = 1;
	return ret;
}
