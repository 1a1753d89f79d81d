// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --on-file CMD: each completed file (a flight dump, a rotation
 * file, the final -o file) is handed to CMD once it has its name, never a
 * partial one.  One CMD runs at a time, in its own process group, at low
 * priority, with a timeout (--on-file-timeout, default 60 s) after which
 * the group is killed.  The recorder never waits for it while recording:
 * files that complete while one runs queue up (at most ONFILE_QUEUE; beyond
 * that the oldest waiting is skipped and counted), and the recording's loop
 * reaps it (rec_onfile_poll).  Every run's end is said on stderr and
 * counted in the metadata of the next file written (rec_onfile_meta).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "flytrap.h"
#include "ftmeta.h"
#include "onfile.h"

#define ONFILE_QUEUE 16
#define KILL_GRACE_NS 2000000000ULL

struct rec_onfile {
	char *cmd;
	uint64_t timeout_ns;
	pid_t pid;			/* running, or 0 */
	char *running;			/* its file */
	uint64_t started, term_sent;
	char *queue[ONFILE_QUEUE];
	int nqueue;
	/* since the last rec_onfile_meta(), and in all */
	unsigned runs, ok, failed, timed_out, skipped;
	unsigned all_runs, all_failed, all_timed_out, all_skipped;
	char last[320];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct rec_onfile *rec_onfile_new(const char *cmd, uint64_t timeout_ns)
{
	struct rec_onfile *of = calloc(1, sizeof(*of));

	if (!of || !(of->cmd = strdup(cmd))) {
		free(of);
		return NULL;
	}
	of->timeout_ns = timeout_ns ? timeout_ns : REC_ONFILE_TIMEOUT_NS;
	return of;
}

/*
 * The child: the recorder's signal mask, priority and real-time class are
 * not CMD's.  The recorder has threads, one of which may hold malloc's lock
 * at the fork: only async-signal-safe calls here, on what the parent built.
 */
static void child_exec(char *const argv[])
{
	struct sched_param sp = { 0 };
	struct sigaction sa;
	sigset_t none;
	int fd, sig;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sched_setscheduler(0, SCHED_OTHER, &sp);
	setpriority(PRIO_PROCESS, 0, 10);
	fd = open("/dev/null", O_RDONLY);
	if (fd > 0) {
		dup2(fd, 0);
		close(fd);
	}
	execv("/bin/sh", argv);
	_exit(127);
}

static void start_next(struct rec_onfile *of)
{
	pid_t pid;

	while (!of->pid && of->nqueue) {
		char *path = of->queue[0], *line = NULL;
		/* CMD is a shell command; the file is its last argument ("$1"), never parsed */
		char *argv[] = { "sh", "-c", NULL, "flytrap-on-file", path, NULL };

		memmove(of->queue, of->queue + 1, (size_t)(of->nqueue - 1) * sizeof(*of->queue));
		of->nqueue--;
		if (asprintf(&line, "%s \"$1\"", of->cmd) < 0)
			line = NULL;
		argv[2] = line;
		fflush(stderr);
		pid = line ? fork() : (errno = ENOMEM, -1);
		if (pid == 0)
			child_exec(argv);
		free(line);
		if (pid < 0) {
			int e = errno;

			ft_warn("--on-file: cannot run '%s' for '%s': %s", of->cmd, path,
				strerror(e));
			of->runs++;
			of->failed++;
			snprintf(of->last, sizeof(of->last), "%s: cannot run: %s", path,
				 strerror(e));
			free(path);
			continue;
		}
		setpgid(pid, pid);	/* both sides: whichever runs first */
		of->pid = pid;
		of->running = path;
		of->started = mono_ns();
		of->term_sent = 0;
	}
}

void rec_onfile_add(struct rec_onfile *of, const char *path)
{
	char *p;

	if (!of || !(p = strdup(path)))
		return;
	if (of->nqueue == ONFILE_QUEUE) {
		/* a CMD slower than the files come: the oldest waiting one is skipped */
		ft_warn("--on-file: '%s' skipped: %d files wait for '%s'", of->queue[0],
			ONFILE_QUEUE, of->cmd);
		of->skipped++;
		free(of->queue[0]);
		memmove(of->queue, of->queue + 1, (ONFILE_QUEUE - 1) * sizeof(*of->queue));
		of->nqueue--;
	}
	of->queue[of->nqueue++] = p;
	start_next(of);
}

static void ended(struct rec_onfile *of, int status)
{
	char how[96];
	bool good = false;

	if (of->term_sent) {
		snprintf(how, sizeof(how), "killed after the %.0f s timeout",
			 (double)of->timeout_ns / 1e9);
		of->timed_out++;
	} else if (WIFEXITED(status)) {
		snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(status));
		good = !WEXITSTATUS(status);
	} else {
		snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
	}
	of->runs++;
	if (good)
		of->ok++;
	else if (!of->term_sent)
		of->failed++;
	snprintf(of->last, sizeof(of->last), "%s: %s", of->running, how);
	if (good)
		ft_info("--on-file '%s': %s", of->cmd, of->last);
	else
		ft_warn("--on-file '%s': %s", of->cmd, of->last);
	free(of->running);
	of->running = NULL;
	of->pid = 0;
}

void rec_onfile_poll(struct rec_onfile *of)
{
	int status;
	pid_t r;

	if (!of)
		return;
	if (of->pid) {
		r = waitpid(of->pid, &status, WNOHANG);
		if (r == of->pid) {
			ended(of, status);
		} else if (r < 0 && errno == ECHILD) {
			ended(of, 0);
		} else {
			uint64_t now = mono_ns();

			if (!of->term_sent && now - of->started >= of->timeout_ns) {
				kill(-of->pid, SIGTERM);
				of->term_sent = now;
			} else if (of->term_sent && now - of->term_sent >= KILL_GRACE_NS) {
				kill(-of->pid, SIGKILL);
			}
		}
	}
	start_next(of);
}

bool rec_onfile_busy(const struct rec_onfile *of)
{
	return of && (of->pid || of->nqueue);
}

char *rec_onfile_meta(struct rec_onfile *of)
{
	char *t = NULL;

	if (!of || !(of->runs + of->skipped))
		return NULL;
	if (asprintf(&t, FMT_META_ON_FILE_RUNS "=%u\n" FMT_META_ON_FILE_FAILED "=%u\n"
		     FMT_META_ON_FILE_TIMED_OUT "=%u\n" FMT_META_ON_FILE_SKIPPED "=%u\n"
		     FMT_META_ON_FILE_LAST "=%s\n", of->runs, of->failed, of->timed_out,
		     of->skipped, of->last) < 0)
		return NULL;
	of->all_runs += of->runs;
	of->all_failed += of->failed;
	of->all_timed_out += of->timed_out;
	of->all_skipped += of->skipped;
	of->runs = of->ok = of->failed = of->timed_out = of->skipped = 0;
	return t;
}

void rec_onfile_free(struct rec_onfile *of)
{
	uint64_t t0;

	if (!of)
		return;
	/* the recording is over: the files still waiting get their run, each bounded */
	t0 = mono_ns();
	while (rec_onfile_busy(of)) {
		rec_onfile_poll(of);
		if (!rec_onfile_busy(of))
			break;
		if (mono_ns() - t0 > (of->timeout_ns + KILL_GRACE_NS + 1000000000ULL) *
		    (ONFILE_QUEUE + 1))
			break;
		usleep(20000);
	}
	if (of->pid) {
		kill(-of->pid, SIGKILL);
		waitpid(of->pid, NULL, 0);
	}
	of->all_runs += of->runs;
	of->all_failed += of->failed;
	of->all_timed_out += of->timed_out;
	of->all_skipped += of->skipped;
	if (of->all_runs + of->all_skipped)
		fprintf(stderr,
			"flytrap: --on-file: %u run%s, %u failed, %u timed out, %u skipped\n",
			of->all_runs, of->all_runs == 1 ? "" : "s", of->all_failed,
			of->all_timed_out, of->all_skipped);
	while (of->nqueue)
		free(of->queue[--of->nqueue]);
	free(of->running);
	free(of->cmd);
	free(of);
}
