// SPDX-License-Identifier: GPL-2.0-only
/*
 * flytrap trigger [PID]: make a running recorder write its window (a
 * flight recorder) or end after --after (a normal recording), by sending
 * it SIGUSR1.
 *
 * Recorders are found through their run notes in the state directory
 * (root's alone, so the notes can be trusted), never by a process name.
 * SIGUSR1 kills a process that does not expect it, so the pid is checked
 * to be a flytrap recorder right before the signal, through a pidfd: a pid
 * reused after the check cannot receive it.
 *
 * A recorder whose note says "requests" gets a request file and SIGUSR2
 * instead (state.h): two SIGUSR1 sent while it is busy merge into one, a
 * request does not, and the recorder answers what became of it, which is
 * printed here.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "flytrap.h"
#include "record.h"
#include "state.h"

#define MAX_RECORDERS 256
/* the recorder answers at its next pass; one busy writing a dump takes longer */
#define REPLY_WAIT_MS 10000

struct recorder {
	pid_t pid;
	unsigned long long start;	/* process start time, as its note says */
	char *output;
	bool requests;			/* takes requests (SIGUSR2) */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: flytrap trigger [-v] [PID]\n"
"\n"
"Send a trigger to a running recorder: a flight recording (record --flight)\n"
"writes its window to the next trace-NNNN.dat, a normal one stops after\n"
"--after.  Without PID the one running recorder is meant; with several, a\n"
"terminal is asked which, anything else gets the list and exit status 2.\n"
"Needs root.\n"
"\n"
"  -v, --verbose   more messages\n"
"  -h, --help      this text\n");
}

/* Live recorders with a note (the pid still the one that wrote it), oldest pid first. */
static int list_recorders(struct recorder *v, int max)
{
	struct rec_note *notes = NULL;
	int n = rec_notes_list(&notes), i, k = 0;

	if (n < 0)
		return n;
	for (i = 0; i < n && k < max; i++) {
		if (!rec_pid_is_recorder(notes[i].pid) || !notes[i].start ||
		    rec_proc_start(notes[i].pid) != notes[i].start)
			continue;
		v[k].pid = notes[i].pid;
		v[k].start = notes[i].start;
		v[k].output = notes[i].output ? strdup(notes[i].output) : NULL;
		v[k].requests = notes[i].requests;
		k++;
	}
	rec_notes_free(notes, n);
	return k;
}

static int send_trigger(pid_t pid, unsigned long long start, int sig)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), err = 0;

	if (fd < 0 && errno != ENOSYS)
		return -errno;
	/* checked after the pidfd exists: the pidfd then names this very process */
	if (!rec_pid_is_recorder(pid) || rec_proc_start(pid) != start)
		err = -ESRCH;
	else if (fd >= 0 ? syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) : kill(pid, sig))
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err;
}

static void print_list(FILE *f, const struct recorder *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fprintf(f, "  %d) pid %d writing '%s'\n", i + 1, (int)v[i].pid,
			v[i].output ? v[i].output : "?");
}

static const struct ft_opt opts[] = {
	{ "verbose", 'v', false, 'v' }, { "help", 'h', false, 'h' }, { 0 },
};

int cmd_trigger(int argc, char **argv)
{
	struct recorder v[MAX_RECORDERS];
	pid_t pid = 0;
	int c, n = 0, i, rc = EXIT_FAIL, err;
	const char *pid_arg = NULL;
	struct ft_optparse op;

	ft_opt_init(&op, argc, argv, opts);
	while ((c = ft_opt_next(&op)) != FT_OPT_END) {
		switch (c) {
		case 'v':
			ft_verbose++;
			break;
		case 'h':
			usage(stdout);
			return ft_finish_stdout(EXIT_OK);
		case FT_OPT_OPERAND:
			if (pid_arg)
				return ft_usage_error("give at most one PID");
			pid_arg = op.value;
			break;
		default:
			return EXIT_USAGE;	/* the parser said why */
		}
	}
	if (pid_arg) {
		uint64_t p;

		if (ft_parse_u64(pid_arg, &p) || !p || p > 0x3fffffff)
			return ft_usage_error("bad pid '%s'", pid_arg);
		pid = (pid_t)p;
	}
	n = list_recorders(v, MAX_RECORDERS);
	if (n < 0) {
		ft_error("cannot read the run notes in '%s': %s", rec_state_dir(), strerror(-n));
		return EXIT_FAIL;
	}
	if (pid) {
		for (i = 0; i < n && v[i].pid != pid; i++)
			;
		if (i == n) {
			ft_error("pid %d is not a running flytrap recorder", (int)pid);
			goto out;
		}
	} else if (n == 0) {
		ft_error("no flytrap recorder is running");
		goto out;
	} else if (n == 1) {
		pid = v[0].pid;
	} else if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		char line[64];
		long k;

		fprintf(stderr, "flytrap: %d recorders are running:\n", n);
		print_list(stderr, v, n);
		fprintf(stderr, "which one (1-%d)? ", n);
		if (!fgets(line, sizeof(line), stdin) || (k = strtol(line, NULL, 10)) < 1 || k > n) {
			ft_error("no recorder chosen");
			rc = EXIT_USAGE;
			goto out;
		}
		pid = v[k - 1].pid;
	} else {
		fprintf(stderr, "flytrap: error: %d recorders are running; name one by its pid:\n", n);
		print_list(stderr, v, n);
		rc = EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < n && v[i].pid != pid; i++)
		;
	if (v[i].requests) {
		struct timespec now;

		/* the time of the trigger is now, not when the recorder gets to it */
		clock_gettime(CLOCK_MONOTONIC, &now);
		err = rec_trig_request(pid, (uint64_t)now.tv_sec * 1000000000ULL +
					    (uint64_t)now.tv_nsec);
		if (err) {
			ft_error("cannot leave a trigger for recorder %d in '%s': %s", (int)pid,
				 rec_state_dir(), strerror(-err));
			goto out;
		}
	}
	err = send_trigger(pid, v[i].start, v[i].requests ? SIGUSR2 : SIGUSR1);
	if (err) {
		if (v[i].requests)
			rec_trig_withdraw(pid);
		ft_error("cannot signal recorder %d: %s", (int)pid,
			 err == -ESRCH ? "it is no longer running" : strerror(-err));
		goto out;
	}
	fprintf(stderr, "flytrap: triggered recorder %d (writing '%s')\n", (int)pid,
		v[i].output ? v[i].output : "?");
	if (v[i].requests) {
		char reply[512];

		err = rec_trig_wait_reply(pid, reply, sizeof(reply), REPLY_WAIT_MS);
		if (!err) {
			reply[strcspn(reply, "\n")] = '\0';
			fprintf(stderr, "flytrap: recorder %d: %s\n", (int)pid, reply);
		} else {
			/* the request stays: it is taken later, and the summary counts it */
			fprintf(stderr, "flytrap: recorder %d did not say what became of the trigger%s\n",
				(int)pid, kill(pid, 0) && errno == ESRCH ? ": it ended" : " in time");
		}
	}
	rc = EXIT_OK;
out:
	for (i = 0; i < n; i++)
		free(v[i].output);
	return rc;
}
