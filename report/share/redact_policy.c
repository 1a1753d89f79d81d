// SPDX-License-Identifier: GPL-2.0-only
/*
 * redact's policy and tokens (see redact.h).  A token is the start of the
 * HMAC-SHA256 of the value under a key (OpenSSL's libcrypto): the same
 * name gives the same token in every place of one file, and in every file
 * redacted with the same key; without the key nobody can tell what a
 * token stands for, short of guessing the name and the key together.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <event-parse.h>

#include "flytrap.h"
#include "report/share/redact.h"
#include "report/core/replay.h"

/* ---- the policy ------------------------------------------------------------------ */

static const char default_policy[] =
	"comm * hash\n"
	"comm swapper* keep\n"
	"comm <idle> keep\n"
	"comm <...> keep\n"
	"path * hash\n"
	/*
	 * the kernel's names of mappings without a file, and memfd's: what
	 * the maps, build-ids and symbol tables call them is no user data
	 */
	"path [[]* keep\n"
	"path //anon keep\n"
	"path memfd:* keep\n"
	"path /memfd:* keep\n"
	"field ftrace:print.buf hash\n"
	"field ftrace:bprint.buf drop\n"
	/* names of devices, drivers and interfaces: they can say which hardware ran */
	"field irq:irq_handler_entry.name hash\n"
	"field workqueue:*.workqueue hash\n"
	"field net:*.name hash\n"
	"field *.dev_name hash\n"
	"field *.devname hash\n"
	"field *.device hash\n"
	"buffer * hash\n"
	"buffer flytrap-* keep\n"
	"meta *hostname hash\n"
	"meta *command_line hash\n"
	"meta *command_user hash\n"
	"meta trigger hash\n"
	"meta slice_of hash\n"
	"meta source.*.file hash\n"
	"meta source.*.buffer hash\n"
	"kernel-addresses relative\n"
	"pointers hash\n"
	"user-stacks drop\n";

static const char *const action_names[] = { "keep", "hash", "drop", "relative" };
static const char *const kind_names[] = { "comm", "path", "field", "meta", "buffer" };

static int parse_action(const char *w, unsigned allowed)
{
	for (int a = 0; a < 4; a++)
		if (!strcmp(w, action_names[a]) && (allowed & (1u << a)))
			return a;
	return -1;
}

static const char *allowed_text(unsigned allowed, char *buf, size_t cap)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int a = 0; a < 4; a++)
		if (allowed & (1u << a))
			o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? ", " : "",
					      action_names[a]);
	return buf;
}

static int add_rule(struct rpt_red_policy *p, int kind, const char *glob, int action)
{
	struct rpt_red_rule *nr = realloc(p->rules, (size_t)(p->nrules + 1) * sizeof(*nr));

	if (!nr)
		return -ENOMEM;
	p->rules = nr;
	nr[p->nrules].kind = kind;
	nr[p->nrules].action = action;
	nr[p->nrules].glob = strdup(glob);
	nr[p->nrules].line = p->cur_line;
	if (!nr[p->nrules].glob)
		return -ENOMEM;
	p->nrules++;
	return 0;
}

/*
 * [SYSTEM:]EVENT.FIELD or FIELD, each part a name or a pattern: one ':'
 * at most, before the one '.', no part empty.
 */
static bool field_syntax(const char *g)
{
	const char *colon = strchr(g, ':'), *dot = strchr(g, '.');

	if (!*g || (colon && strchr(colon + 1, ':')) || (dot && strchr(dot + 1, '.')))
		return false;
	if (colon && (!dot || dot < colon || colon == g || dot == colon + 1))
		return false;
	if (dot && (dot == g || !dot[1]))
		return false;
	for (const char *c = g; *c; c++)
		if (!(isalnum((unsigned char)*c) || strchr("_-:.*?[]!", *c)))
			return false;
	return true;
}

/* One line "KIND [GLOB] ACTION": 0, or a message in why. */
static int parse_line(struct rpt_red_policy *p, char *line, char *why, size_t cap)
{
	char *w[4], *save = NULL, allowed[64];
	int n = 0, kind = -1, a;
	unsigned mask;

	for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		if (n < 4)
			w[n++] = t;
		else
			return snprintf(why, cap, "too many words (KIND [NAME] ACTION)"), -EINVAL;
	if (!n)
		return 0;
	for (int k = 0; k < 5; k++)
		if (!strcmp(w[0], kind_names[k]))
			kind = k;
	if (kind >= 0) {
		if (n != 3)
			return snprintf(why, cap, "'%s' takes a name and an action", w[0]), -EINVAL;
		if (kind == RED_R_FIELD && !field_syntax(w[1]))
			return snprintf(why, cap, "'%s' is not [SYSTEM:]EVENT.FIELD or FIELD",
					w[1]), -EINVAL;
		/* a buffer's events stay: its name is kept or hashed */
		mask = 1u << RED_KEEP | 1u << RED_HASH |
		       (kind == RED_R_BUFFER ? 0 : 1u << RED_DROP);
		if ((a = parse_action(w[2], mask)) < 0)
			return snprintf(why, cap, "'%s' is not an action for %s (%s)", w[2], w[0],
					allowed_text(mask, allowed, sizeof(allowed))), -EINVAL;
		return add_rule(p, kind, w[1], a) ?
		       (snprintf(why, cap, "out of memory"), -ENOMEM) : 0;
	}
	if (!strcmp(w[0], "kernel-addresses"))
		mask = 1u << RED_KEEP | 1u << RED_RELATIVE | 1u << RED_DROP;
	else if (!strcmp(w[0], "pointers"))
		mask = 1u << RED_KEEP | 1u << RED_HASH | 1u << RED_DROP;
	else if (!strcmp(w[0], "user-stacks"))
		mask = 1u << RED_KEEP | 1u << RED_DROP;
	else
		return snprintf(why, cap, "unknown rule '%s' (comm, path, field, meta, "
				"kernel-addresses, pointers, user-stacks)", w[0]), -EINVAL;
	if (n != 2)
		return snprintf(why, cap, "'%s' takes one action", w[0]), -EINVAL;
	if ((a = parse_action(w[1], mask)) < 0)
		return snprintf(why, cap, "'%s' is not an action for %s (%s)", w[1], w[0],
				allowed_text(mask, allowed, sizeof(allowed))), -EINVAL;
	if (w[0][0] == 'k')
		p->kaddr = a;
	else if (w[0][0] == 'p')
		p->pointers = a;
	else
		p->ustack = a;
	return 0;
}

/* Every line of text; *lineno says where it failed. */
static int parse_text(struct rpt_red_policy *p, const char *text, int *lineno, char *why,
		      size_t cap)
{
	char *copy = strdup(text), *line, *save = NULL;
	int err = copy ? 0 : -ENOMEM;

	*lineno = 0;
	for (char *s = copy; !err && s; s = save) {
		char *nl = strchr(s, '\n');

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		(*lineno)++;
		line = s;
		line[strcspn(line, "#\r")] = '\0';
		if (p->path)
			p->cur_line = *lineno;
		err = parse_line(p, line, why, cap);
	}
	free(copy);
	return err;
}

/* The policy file, checked to be a small text. */
static int read_policy(const char *path, char **text)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return -errno;
	buf = malloc(65537);
	errno = 0;
	n = buf ? fread(buf, 1, 65537, f) : 0;
	if (!buf || ferror(f) || n > 65536 || memchr(buf, '\0', n)) {
		/* the read's own cause: a directory is EISDIR */
		int err = !buf ? -ENOMEM : ferror(f) ? -(errno ? errno : EIO) : n > 65536 ? -EFBIG
											 : -EINVAL;

		fclose(f);
		free(buf);
		return err;
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	return 0;
}

static int policy_text(struct rpt_red_policy *p)
{
	FILE *f = open_memstream(&p->text, &p->text_len);
	unsigned char md[SHA256_DIGEST_LENGTH];

	if (!f)
		return -ENOMEM;
	fputs("flytrap-redact-policy 1\n", f);
	for (int i = 0; i < p->nrules; i++)
		fprintf(f, "%s %s %s\n", kind_names[p->rules[i].kind], p->rules[i].glob,
			action_names[p->rules[i].action]);
	fprintf(f, "kernel-addresses %s\npointers %s\nuser-stacks %s\n", action_names[p->kaddr],
		action_names[p->pointers], action_names[p->ustack]);
	if (fclose(f))
		return -ENOMEM;
	SHA256((const unsigned char *)p->text, p->text_len, md);
	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
		sprintf(p->sha256 + 2 * i, "%02x", md[i]);
	return 0;
}

int rpt_red_policy_load(struct rpt_red_policy *p, const char *path)
{
	char why[256] = "", *text = NULL;
	int line, err;

	memset(p, 0, sizeof(*p));
	err = parse_text(p, default_policy, &line, why, sizeof(why));
	if (err)
		return ft_error("the default redact policy, line %d: %s", line, why);
	if (path) {
		p->path = path;
		err = read_policy(path, &text);
		if (err == -EINVAL || err == -EFBIG)
			return ft_error("'%s' is not a redact policy (%s)", path,
					err == -EFBIG ? "over 64 KiB" : "binary data");
		if (err)
			return ft_error("cannot read '%s': %s", path, strerror(-err));
		err = parse_text(p, text, &line, why, sizeof(why));
		free(text);
		p->cur_line = 0;
		if (err)
			return ft_error("'%s' line %d: %s", path, line, why);
	}
	if (policy_text(p))
		return ft_error("out of memory");
	return 0;
}

void rpt_red_policy_release(struct rpt_red_policy *p)
{
	for (int i = 0; i < p->nrules; i++)
		free(p->rules[i].glob);
	free(p->rules);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

static int last_match(const struct rpt_red_policy *p, int kind, const char *s)
{
	int a = -1;

	for (int i = 0; i < p->nrules; i++)
		if (p->rules[i].kind == (enum rpt_red_rule_kind)kind &&
		    !fnmatch(p->rules[i].glob, s, 0))
			a = p->rules[i].action;
	return a;
}

enum rpt_red_action rpt_red_value_action(const struct rpt_red_policy *p, enum rpt_red_class c,
					 const char *value)
{
	int a = -1;

	if (c == RED_C_COMM)
		a = last_match(p, RED_R_COMM, value);
	else if (c == RED_C_PATH)
		a = last_match(p, RED_R_PATH, value);
	return a < 0 ? RED_HASH : (enum rpt_red_action)a;
}

int rpt_red_field_action(const struct rpt_red_policy *p, const char *system, const char *event,
			 const char *field)
{
	char full[384], mid[256];
	int a = -1;

	snprintf(full, sizeof(full), "%s:%s.%s", system, event, field);
	snprintf(mid, sizeof(mid), "%s.%s", event, field);
	for (int i = 0; i < p->nrules; i++) {
		const struct rpt_red_rule *r = &p->rules[i];
		const char *s = strchr(r->glob, ':') ? full : strchr(r->glob, '.') ? mid : field;

		if (r->kind == RED_R_FIELD && !fnmatch(r->glob, s, 0))
			a = r->action;
	}
	return a;
}

int rpt_red_meta_action(const struct rpt_red_policy *p, const char *key)
{
	return last_match(p, RED_R_META, key);
}

enum rpt_red_action rpt_red_buffer_action(const struct rpt_red_policy *p, const char *name)
{
	return last_match(p, RED_R_BUFFER, name) == RED_HASH ? RED_HASH : RED_KEEP;
}

/* Whether rule r (a field rule) matches a field of e; *event_seen when its event part does. */
static bool rule_matches(const struct rpt_red_rule *r, const struct tep_event *e, bool *event_seen)
{
	const char *dot = strchr(r->glob, '.');
	char ev[384], full[512];

	if (!dot) {
		*event_seen = true;
	} else {
		snprintf(ev, sizeof(ev), "%.*s", (int)(dot - r->glob), r->glob);
		snprintf(full, sizeof(full), "%s:%s", e->system, e->name);
		if (fnmatch(ev, strchr(r->glob, ':') ? full : e->name, 0))
			return false;
		*event_seen = true;
	}
	for (const struct tep_format_field *f = e->format.fields; f; f = f->next)
		if (!fnmatch(dot ? dot + 1 : r->glob, f->name, 0))
			return true;
	return false;
}

int rpt_red_policy_check_fields(const struct rpt_red_policy *p, struct fmt_reader *r,
				const char *in_path)
{
	struct tep_event **ev = NULL;
	bool loaded = false;

	for (int i = 0; i < p->nrules; i++) {
		const struct rpt_red_rule *rule = &p->rules[i];
		bool event_seen = false, found = false;

		if (rule->kind != RED_R_FIELD || !rule->line)
			continue;
		if (!loaded) {
			loaded = true;
			fmt_reader_load_formats(r);
			ev = tep_list_events(fmt_reader_tep(r), TEP_EVENT_SORT_ID);
		}
		for (int k = 0; ev && ev[k] && !found; k++)
			found = rule_matches(rule, ev[k], &event_seen);
		if (found)
			continue;
		/*
		 * a rule that matches nothing is a typo: the field it means would
		 * be left as it is
		 */
		ft_error(event_seen ?
			 "'%s' line %d: field rule '%s': no event of '%s' has such a field" :
			 "'%s' line %d: field rule '%s': '%s' has no such event",
			 p->path, rule->line, rule->glob, in_path);
		return EXIT_USAGE;
	}
	return 0;
}

/* ---- tokens ---------------------------------------------------------------------- */

struct red_tok {
	char *s;		/* the value replaced (NUL-terminated copy) */
	size_t n;
	char hex[17];		/* the first 8 bytes of its HMAC, in hex */
	bool public_text;	/* also in the kernel's own texts: checked decoded only */
};

struct rpt_red_tokens {
	unsigned char key[4096];
	int key_len;
	bool given;
	struct red_tok *v;		/* open addressing, cap a power of two */
	size_t n, cap;
	uint64_t *ptrs;		/* replaced pointer values, open addressing, 0 = empty */
	size_t nptrs, ptrcap;
};

static int read_key(struct rpt_red_tokens *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return ft_error("cannot read the key '%s': %s", path, strerror(errno)), -errno;
	n = read(fd, t->key, sizeof(t->key));
	if (n < 0)
		err = (ft_error("cannot read the key '%s': %s", path, strerror(errno)), -EIO);
	else if (n < 16)
		err = (ft_error("the key '%s' is too short (%zd bytes; at least 16)", path, n),
		       -EINVAL);
	else if (n == (ssize_t)sizeof(t->key))
		err = (ft_error("the key '%s' is too long (more than 4095 bytes)", path), -EINVAL);
	close(fd);
	t->key_len = n > 0 ? (int)n : 0;
	return err;
}

struct rpt_red_tokens *rpt_red_tokens_new(const char *key_path)
{
	struct rpt_red_tokens *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = 1024;
	t->v = calloc(t->cap, sizeof(*t->v));
	t->ptrcap = 1024;
	t->ptrs = calloc(t->ptrcap, sizeof(*t->ptrs));
	if (!t->v || !t->ptrs) {
		rpt_red_tokens_free(t);
		errno = ENOMEM;
		return NULL;
	}
	if (key_path) {
		t->given = true;
		if (read_key(t, key_path)) {
			rpt_red_tokens_free(t);
			errno = EINVAL;
			return NULL;
		}
	} else {
		t->key_len = 32;
		if (getrandom(t->key, 32, 0) != 32) {
			rpt_red_tokens_free(t);
			errno = EIO;
			return NULL;
		}
	}
	return t;
}

void rpt_red_tokens_free(struct rpt_red_tokens *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->v && i < t->cap; i++)
		free(t->v[i].s);
	free(t->v);
	free(t->ptrs);
	OPENSSL_cleanse(t->key, sizeof(t->key));
	free(t);
}

static struct red_tok *find(const struct rpt_red_tokens *t, const char *s, size_t n)
{
	size_t i = rpt_hash_bytes(s, n) & (t->cap - 1);

	while (t->v[i].s) {
		if (t->v[i].n == n && !memcmp(t->v[i].s, s, n))
			return &t->v[i];
		i = (i + 1) & (t->cap - 1);
	}
	return &t->v[i];
}

static int grow(struct rpt_red_tokens *t)
{
	struct red_tok *old = t->v;
	size_t oc = t->cap;

	t->v = calloc(oc * 2, sizeof(*t->v));
	if (!t->v) {
		t->v = old;
		return -ENOMEM;
	}
	t->cap = oc * 2;
	for (size_t i = 0; i < oc; i++)
		if (old[i].s)
			*find(t, old[i].s, old[i].n) = old[i];
	free(old);
	return 0;
}

bool rpt_red_is_token(enum rpt_red_class c, const char *v, size_t n)
{
	size_t lead = c == RED_C_PATH ? 2 : 1, i;

	if (c == RED_C_PATH ? n != 18 || memcmp(v, "/~", 2) : n < 7 || n > 13 || v[0] != '~')
		return false;
	for (i = lead; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
			return false;
	return true;
}

int rpt_red_token(struct rpt_red_tokens *t, enum rpt_red_class c, const char *value, size_t n,
		  char *out, size_t cap)
{
	struct red_tok *k;
	int len;

	if (rpt_red_is_token(c, value, n)) {
		/* redacted before: the copy redacted twice names what the first copy named */
		len = snprintf(out, cap, "%.*s", (int)n, value);
		return len >= (int)cap ? (int)cap - 1 : len;
	}
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return -1;
	k = find(t, value, n);
	if (!k->s) {
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned int mdlen = 0;

		k->s = malloc(n + 1);
		if (!k->s)
			return -1;
		memcpy(k->s, value, n);
		k->s[n] = '\0';
		k->n = n;
		HMAC(EVP_sha256(), t->key, t->key_len, (const unsigned char *)value, n, md, &mdlen);
		for (int i = 0; i < 8; i++)
			sprintf(k->hex + 2 * i, "%02x", md[i]);
		t->n++;
	}
	/* a comm array holds 15 characters: "~" and 12 digits fit */
	if (c == RED_C_PATH)
		len = snprintf(out, cap, "/~%s", k->hex);
	else
		len = snprintf(out, cap, "~%.12s", k->hex);
	return len >= (int)cap ? (int)cap - 1 : len;
}

static uint64_t *find_ptr(const struct rpt_red_tokens *t, uint64_t v)
{
	size_t i = rpt_hash_bytes(&v, 8) & (t->ptrcap - 1);

	while (t->ptrs[i] && t->ptrs[i] != v)
		i = (i + 1) & (t->ptrcap - 1);
	return &t->ptrs[i];
}

uint64_t rpt_red_pointer(struct rpt_red_tokens *t, uint64_t v)
{
	unsigned char in[12] = "ptr:", md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	uint64_t h;

	if (!v)
		return 0;	/* NULL says something true and nothing secret */
	if ((t->nptrs + 1) * 2 > t->ptrcap) {
		uint64_t *old = t->ptrs, *nv = calloc(t->ptrcap * 2, sizeof(*nv));
		size_t oc = t->ptrcap;

		if (nv) {
			t->ptrs = nv;
			t->ptrcap = oc * 2;
			for (size_t i = 0; i < oc; i++)
				if (old[i])
					*find_ptr(t, old[i]) = old[i];
			free(old);
		}
	}
	if ((t->nptrs + 1) * 2 <= t->ptrcap) {
		uint64_t *slot = find_ptr(t, v);

		if (!*slot) {
			*slot = v;
			t->nptrs++;
		}
	}
	memcpy(in + 4, &v, 8);
	HMAC(EVP_sha256(), t->key, t->key_len, in, sizeof(in), md, &mdlen);
	memcpy(&h, md, 8);
	/* below every kernel address, so no symbol is printed for it */
	return (h & 0x0000ffffffffffffULL) | 1;
}

bool rpt_red_was_replaced(const struct rpt_red_tokens *t, const char *value, size_t n)
{
	return find(t, value, n)->s != NULL;
}

bool rpt_red_pointer_replaced(const struct rpt_red_tokens *t, uint64_t v)
{
	return v && *find_ptr(t, v) == v;
}

size_t rpt_red_count(const struct rpt_red_tokens *t, size_t *pointers)
{
	if (pointers)
		*pointers = t->nptrs;
	return t->n;
}

bool rpt_red_key_given(const struct rpt_red_tokens *t)
{
	return t->given;
}

void rpt_red_key_id(const struct rpt_red_tokens *t, const char *prev, char *out, size_t cap)
{
	unsigned char what[64], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int wl = snprintf((char *)what, sizeof(what), "flytrap redact key id %.16s",
			  prev ? prev : "");
	size_t o = 0;

	/* a keyed digest of a fixed text: it tells keys apart and gives none of them away */
	HMAC(EVP_sha256(), t->key, t->key_len, what, (size_t)wl, md, &mdlen);
	for (unsigned int i = 0; i < 8 && i < mdlen && o + 3 <= cap; i++, o += 2)
		snprintf(out + o, cap - o, "%02x", md[i]);
	if (cap)
		out[o < cap ? o : cap - 1] = '\0';
}

struct rpt_red_tokens *rpt_red_tokens_new_like(const struct rpt_red_tokens *like)
{
	struct rpt_red_tokens *t = rpt_red_tokens_new(NULL);

	if (!t)
		return NULL;
	memcpy(t->key, like->key, sizeof(t->key));
	t->key_len = like->key_len;
	t->given = like->given;
	return t;
}

/* ---- the raw search -------------------------------------------------------------- */

#define SCAN_PREFIX 6
#define SCAN_BITS 22

static uint32_t prefix_hash(const unsigned char *p)
{
	uint64_t v = 0;

	memcpy(&v, p, SCAN_PREFIX);
	return (uint32_t)((v * 0x9E3779B97F4A7C15ULL) >> (64 - SCAN_BITS));
}

struct scanner {
	size_t nval;
	struct red_tok **vals;
	uint32_t *head, *next;
	uint8_t *bits;
};

static void scanner_release(struct scanner *sc)
{
	free(sc->bits);
	free(sc->vals);
	free(sc->next);
	free(sc->head);
}

/* The values of min_len bytes or more (not known public, unless all), by prefix hash. */
static int scanner_init(struct scanner *sc, const struct rpt_red_tokens *t, size_t min_len,
			bool all)
{
	size_t nb = (size_t)1 << SCAN_BITS;

	memset(sc, 0, sizeof(*sc));
	sc->bits = calloc(nb / 8, 1);
	sc->vals = calloc(t->n + 1, sizeof(*sc->vals));
	sc->next = calloc(t->n + 1, sizeof(*sc->next));
	sc->head = malloc(nb * sizeof(*sc->head));
	if (!sc->bits || !sc->vals || !sc->next || !sc->head) {
		scanner_release(sc);
		return -ENOMEM;
	}
	memset(sc->head, 0xff, nb * sizeof(*sc->head));
	for (size_t i = 0; i < t->cap; i++) {
		uint32_t h;

		if (!t->v[i].s || t->v[i].n < min_len || (t->v[i].public_text && !all))
			continue;
		h = prefix_hash((const unsigned char *)t->v[i].s);
		sc->vals[sc->nval] = &t->v[i];
		sc->next[sc->nval] = sc->head[h];
		sc->head[h] = (uint32_t)sc->nval++;
		sc->bits[h / 8] |= (uint8_t)(1u << (h % 8));
	}
	return 0;
}

/*
 * Rabin-Karp on the first six bytes: a bitmap of the prefixes' hashes
 * rejects almost every position at once, the values whose prefix hashes
 * there are compared in full.  With mark, every value found is marked
 * public and the search goes on; without, it stops at the first (1).
 */
static int scan_mem(struct scanner *sc, const unsigned char *m, size_t len, bool mark,
		    const struct red_tok **hit, size_t *at)
{
	for (size_t off = 0; off + SCAN_PREFIX <= len; off++) {
		uint32_t h = prefix_hash(m + off);

		if (!(sc->bits[h / 8] & (1u << (h % 8))))
			continue;
		for (uint32_t k = sc->head[h]; k != UINT32_MAX; k = sc->next[k]) {
			struct red_tok *v = sc->vals[k];

			if (v->n > len - off || memcmp(m + off, v->s, v->n))
				continue;
			if (!mark) {
				*hit = v;
				*at = off;
				return 1;
			}
			v->public_text = true;
		}
	}
	return 0;
}

size_t rpt_red_mark_public(struct rpt_red_tokens *t, const void *text, size_t len, size_t min_len)
{
	struct scanner sc;
	size_t n = 0;

	if (min_len < SCAN_PREFIX)
		min_len = SCAN_PREFIX;
	if (scanner_init(&sc, t, min_len, true))
		return 0;
	scan_mem(&sc, text, len, true, NULL, NULL);
	scanner_release(&sc);
	for (size_t i = 0; i < t->cap; i++)
		n += t->v[i].s && t->v[i].public_text;
	return n;
}

const char *rpt_red_public_name(const struct rpt_red_tokens *t, size_t k)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].s && t->v[i].public_text && !k--)
			return t->v[i].s;
	return NULL;
}

int rpt_red_scan_file(const struct rpt_red_tokens *t, const char *path, size_t min_len,
		      char **found, uint64_t *at)
{
	const unsigned char *map = NULL;
	const struct red_tok *hit = NULL;
	struct scanner sc;
	struct stat st;
	size_t where = 0;
	int fd, rc = 0;

	if (min_len < SCAN_PREFIX)
		min_len = SCAN_PREFIX;
	if (scanner_init(&sc, t, min_len, false))
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	if (!sc.nval || st.st_size < SCAN_PREFIX)
		goto out;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		rc = -errno;
		goto out;
	}
	rc = scan_mem(&sc, map, (size_t)st.st_size, false, &hit, &where);
	if (rc > 0) {
		*found = strdup(hit->s);
		*at = where;
		rc = *found ? 1 : -ENOMEM;
	}
out:
	if (map)
		munmap((void *)map, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	scanner_release(&sc);
	return rc;
}
