// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --user USER -- CMD: the command runs as USER while the recorder
 * stays root (see record.h).  Everything that reads the password and group
 * databases happens before the fork; the child only makes system calls.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flytrap.h"
#include "record.h"

/* The PATH a login shell of an ordinary user starts with on Debian. */
#define RUNAS_PATH "/usr/local/bin:/usr/bin:/bin"

static int env_add(struct rec_runas *ra, const char *key, const char *value)
{
	char **v = realloc(ra->env, (size_t)(ra->nenv + 2) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	ra->env = v;
	if (asprintf(&v[ra->nenv], "%s=%s", key, value) < 0)
		return -ENOMEM;
	v[++ra->nenv] = NULL;
	return 0;
}

int rec_runas_prepare(const char *user, struct rec_runas *ra)
{
	struct passwd *pw;
	const char *term = getenv("TERM");
	char *end;
	int n = 16, err = 0;

	memset(ra, 0, sizeof(*ra));
	errno = 0;
	pw = getpwnam(user);
	if (!pw && *user >= '0' && *user <= '9') {
		unsigned long id = strtoul(user, &end, 10);

		if (!*end && id < (uid_t)-1)
			pw = getpwuid((uid_t)id);
	}
	if (!pw)
		return errno ? -errno : -ESRCH;
	ra->uid = pw->pw_uid;
	ra->gid = pw->pw_gid;
	ra->name = strdup(pw->pw_name);
	if (!ra->name)
		return -ENOMEM;
	for (;;) {
		gid_t *g = realloc(ra->groups, (size_t)n * sizeof(*g));
		int got = n;

		if (!g) {
			err = -ENOMEM;
			break;
		}
		ra->groups = g;
		if (getgrouplist(pw->pw_name, pw->pw_gid, g, &got) >= 0) {
			ra->ngroups = got;
			break;
		}
		if (got <= n)
			n *= 2;
		else
			n = got;
		if (n > 65536) {
			err = -E2BIG;
			break;
		}
	}
	if (!err)
		err = env_add(ra, "HOME", pw->pw_dir && *pw->pw_dir ? pw->pw_dir : "/");
	if (!err)
		err = env_add(ra, "USER", pw->pw_name);
	if (!err)
		err = env_add(ra, "LOGNAME", pw->pw_name);
	if (!err)
		err = env_add(ra, "SHELL", pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh");
	if (!err)
		err = env_add(ra, "PATH", RUNAS_PATH);
	if (!err && term)
		err = env_add(ra, "TERM", term);
	if (err)
		rec_runas_release(ra);
	return err;
}

/* In the child after fork: async-signal-safe calls only. */
int rec_runas_apply(const struct rec_runas *ra)
{
	extern char **environ;

	if (setgroups((size_t)ra->ngroups, ra->groups) < 0 || setgid(ra->gid) < 0 ||
	    setuid(ra->uid) < 0)
		return -errno;
	/* a uid that could go back would not be a dropped privilege */
	if (ra->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		return -EPERM;
	environ = ra->env;
	return 0;
}

void rec_runas_release(struct rec_runas *ra)
{
	int i;

	for (i = 0; i < ra->nenv; i++)
		free(ra->env[i]);
	free(ra->env);
	free(ra->groups);
	free(ra->name);
	memset(ra, 0, sizeof(*ra));
}
