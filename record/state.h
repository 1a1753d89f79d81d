/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The recorder's state directory and the run notes kept in it.
 *
 * Every command that needs state (record, reset, recover, and the coming
 * trigger and status) finds the directory through rec_state_dir() and
 * makes it usable through rec_state_prepare(): /run/flytrap, mode 0700,
 * owned by root, with /run created 0755 when the system has none.  A
 * directory that is a symlink, is not a directory, or belongs to someone
 * else is refused.  Every error names the file that failed and why.
 *
 * A run note, "record-<pid>", says what one live recorder is doing: its pid
 * and start time (so a reused pid is not taken for it), its tracefs
 * instance, the output it will rename into place, the temporary output it
 * writes meanwhile, each spool file as it is created, and who gets the
 * finished file.  `reset` and `recover` find a dead recorder's files only
 * through its note, never by listing a directory another user can write.
 * Only root can write the state directory, so the notes can be trusted.
 */
#ifndef FLYTRAP_RECORD_STATE_H
#define FLYTRAP_RECORD_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_NOTE_PREFIX "record-"

/* "/run/flytrap": the one place state lives. */
const char *rec_state_dir(void);

/*
 * Make the state directory usable.  With create, /run (0755) and the
 * directory (0700) are made when missing; without, a missing directory
 * returns -ENOENT quietly (nothing was ever recorded).  Every other
 * failure is printed, naming the file, and returned as -errno.
 */
int rec_state_prepare(bool create);

/* rec_state_dir()/name, malloc'd (NULL when out of memory). */
char *rec_state_path(const char *name);

/*
 * The absolute name of path, which may not exist yet (its directory
 * resolved, its last component kept), malloc'd; NULL with errno.
 */
char *rec_abs_path(const char *path);

struct rec_note {
	pid_t pid;
	unsigned long long start;	/* /proc/PID/stat start time (ticks after boot) */
	char *instance;			/* tracefs instance name, or NULL */
	char *output;			/* absolute destination path */
	char *temp;			/* absolute temporary output, or NULL */
	char **spools;			/* absolute spool paths, in creation order */
	int nspools;
	/*
	 * Flight recorder, rotation: the absolute name prefix of the store's
	 * segment files (PREFIX followed by a number), or NULL.  One line,
	 * however many segments a run of days creates and drops.
	 */
	char *store;
	uid_t uid;			/* owner of the finished file */
	gid_t gid;
	bool chown;			/* uid/gid given (run through sudo) */
	bool reset;			/* reset has saved its kernel data already */
	bool requests;			/* takes trigger requests (SIGUSR2), see below */
};

/* Start time of a process (field 22 of /proc/PID/stat), 0 if unknown. */
unsigned long long rec_proc_start(pid_t pid);

/*
 * Write this process's note whole (temporary name, rename).  Returns 0 or
 * -errno, printed with the file's name.
 */
int rec_note_write(const struct rec_note *n);
/* Add one spool to the note of pid (an appended line; thread-safe). */
int rec_note_add_spool(pid_t pid, const char *path);
/* Say in the note of pid that reset handled it (a later reset stays quiet). */
int rec_note_mark_reset(pid_t pid);
/* Remove this process's note. */
void rec_note_remove(void);
/* Remove the note of pid (after reset or recover finished its files). */
int rec_note_remove_pid(pid_t pid);

/* Read the note of pid: 0, -ENOENT, or -errno / -EBADMSG. */
int rec_note_read(pid_t pid, struct rec_note *n);
void rec_note_free(struct rec_note *n);

/*
 * Every note in the state directory (dead recorders' and live ones'),
 * oldest pid first.  *v is freed with rec_notes_free.  Returns the count
 * or -errno (a missing directory gives 0).
 */
int rec_notes_list(struct rec_note **v);
void rec_notes_free(struct rec_note *v, int n);

/* true while the note's recorder is running (same pid, same start time). */
bool rec_note_alive(const struct rec_note *n);

/*
 * One recorder per output: an exclusive flock(2) on "lock-<hash of the
 * absolute output name>" in the state directory, held for the recording's
 * life (the kernel lets go of it when the recorder dies, SIGKILL included).
 * The file says "pid=N" and the output, for the message of whoever finds
 * it held.
 */
#define REC_LOCK_PREFIX "lock-"
struct rec_output_lock {
	int fd;				/* -1: not held */
	char *path;
};
/*
 * Take the lock of output.  0 when held (or when the output's directory
 * does not exist: l->fd stays -1 and creating the file fails later);
 * -EBUSY when another recorder holds it, -errno otherwise; both printed.
 */
int rec_output_lock(const char *output, struct rec_output_lock *l);
/* Let go of it and remove its file; a lock not held is fine. */
void rec_output_unlock(struct rec_output_lock *l);
/* Remove the lock files no recorder holds (killed ones'); how many (dry: would). */
int rec_output_locks_sweep(bool dry);

/*
 * Trigger requests.  `flytrap trigger` writes "trigger-<recorder>-<its pid>"
 * (the time on the mono clock) and sends SIGUSR2; the recorder takes every
 * request it finds (signals of one kind merge while blocked, files do not),
 * decides, and answers in "trigger-<recorder>-<pid>.reply", one line that
 * `flytrap trigger` prints.  A recorder that handles requests says so in its
 * run note ("requests=1"); one without gets the old SIGUSR1.
 */
#define REC_TRIG_PREFIX "trigger-"
struct rec_trig_req {
	pid_t from;			/* the pid of the `flytrap trigger` that asked */
	uint64_t ts;			/* when, on the mono clock (0: unknown) */
};
/* Leave a request for recorder (before the signal): 0 or -errno. */
int rec_trig_request(pid_t recorder, uint64_t mono_ns);
/* Take back a request the recorder never got (the signal failed). */
void rec_trig_withdraw(pid_t recorder);
/* Wait up to timeout_ms for the answer (buf: its text): 0, -ETIMEDOUT or -errno. */
int rec_trig_wait_reply(pid_t recorder, char *buf, size_t len, int timeout_ms);
/* The recorder: take (remove) up to max requests addressed to self; count or -errno. */
int rec_trig_take(pid_t self, struct rec_trig_req *v, int max);
/* The recorder: answer the request of from. */
int rec_trig_reply(pid_t self, pid_t from, const char *text);
/* The recorder, at its end: remove requests and answers left for it. */
void rec_trig_cleanup(pid_t self);

/*
 * The file a dump or rotation file is being written to (its hidden
 * temporary name), in "scratch-<pid>": a SIGKILL in the middle leaves it,
 * and reset removes it.  One file rewritten whole, not note lines: a
 * rotation writes a file every few seconds for days.
 */
#define REC_SCRATCH_PREFIX "scratch-"
/*
 * Note paths (the temporary file, then its spools) as this recorder's file
 * in progress; n = 0: none any more.  0 or -errno.
 */
int rec_scratch_set(const char *const *paths, int n);
/*
 * Remove the file in progress of dead recorder pid, its spools and the note;
 * *removed gets the file's name (malloc'd) when there was one.  0 or -errno.
 */
int rec_scratch_remove(pid_t pid, char **removed);

#endif
