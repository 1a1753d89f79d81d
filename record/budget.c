// SPDX-License-Identifier: GPL-2.0-only
/*
 * --cpu-budget PCT: when the recorder's own CPU time (every thread, the
 * compression worker included) over the last few seconds goes above PCT
 * of one CPU, or a kernel buffer fills past half, the enabled event that
 * cost the most bytes lately is turned off in our instance; when the
 * recorder is comfortably under budget again the last one shed comes back.
 * Every shed is a window (from, to, event, why) that goes into each file
 * written as FT_META "shed=" lines, which drops and info show as loss of
 * kind shed.
 *
 * Bytes per event come from the pages themselves: the writer shows every
 * chunk to budget_observe() (its page observer, in the compression thread)
 * before compressing it, and the events' headers are walked there.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "flytrap.h"
#include "format.h"
#include "ftmeta.h"
#include "record.h"
#include "flight.h"
#include "flight_int.h"

#define WINDOW_NS 3000000000ULL
#define MAX_IDS 65536
#define MAX_SHEDS 4096
#define FILL_MARK_PCT 50

struct shed {
	uint64_t from, to;		/* mono ns; to = 0 while still shed */
	int event;			/* index in ri->events */
	char why[48];
};

struct rec_budget {
	double pct;
	struct rec_instance *ri;
	pthread_mutex_t mu;
	uint64_t *bytes;		/* by event ID, since the last decision (observer) */
	int *ev_of_id;			/* event ID -> index in ri->events, -1 */
	bool *off;			/* by event index */
	uint64_t t_prev, cpu_prev;	/* at the previous decision */
	double last_pct;
	int under;			/* decisions in a row well under budget */
	struct shed *sheds;
	int nsheds;
	char status[96];
};

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t self_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

struct rec_budget *rec_budget_new(double pct, struct rec_instance *ri)
{
	struct rec_budget *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->pct = pct;
	b->ri = ri;
	b->bytes = calloc(MAX_IDS, sizeof(*b->bytes));
	b->ev_of_id = malloc(MAX_IDS * sizeof(*b->ev_of_id));
	if (!b->bytes || !b->ev_of_id) {
		free(b->bytes);
		free(b->ev_of_id);
		free(b);
		return NULL;
	}
	memset(b->ev_of_id, 0xff, MAX_IDS * sizeof(*b->ev_of_id));
	pthread_mutex_init(&b->mu, NULL);
	b->t_prev = mono();
	b->cpu_prev = self_cpu_ns();
	return b;
}

/* Event IDs of the instance's events, once they are all enabled. */
int rec_budget_start(struct rec_budget *b)
{
	int i;

	b->off = calloc((size_t)b->ri->nevents + 1, sizeof(*b->off));
	if (!b->off)
		return -ENOMEM;
	for (i = 0; i < b->ri->nevents; i++) {
		char file[512], *text;
		long id;

		snprintf(file, sizeof(file), "events/%s/%s/id", b->ri->events[i].system,
			 b->ri->events[i].name);
		text = rec_instance_read(b->ri, file, NULL);
		if (!text)
			text = rec_tracefs_read(file, NULL);
		id = text ? strtol(text, NULL, 10) : -1;
		free(text);
		if (id >= 0 && id < MAX_IDS)
			b->ev_of_id[id] = i;
	}
	b->t_prev = mono();
	b->cpu_prev = self_cpu_ns();
	return 0;
}

/*
 * Bytes per event ID in raw ring-buffer pages: u64 time stamp, commit
 * (long), then events with a 4-byte header (type_len:5, delta:27).
 */
int rec_budget_observe(void *ctx, const struct fmt_chunk *c)
{
	struct rec_budget *b = ctx;
	const uint8_t *pages = c->data;
	uint32_t page_size = b->ri->page_size, hdr = 8 + (uint32_t)b->ri->kernel_long, p;

	if (c->buffer_index != 0 || !page_size)
		return 0;
	pthread_mutex_lock(&b->mu);
	for (p = 0; p < c->npages; p++) {
		const uint8_t *pg = pages + (size_t)p * page_size;
		uint64_t commit = 0;
		uint32_t off = 0, len;

		memcpy(&commit, pg + 8, (size_t)b->ri->kernel_long);
		len = (uint32_t)(commit & 0xfffffULL);
		if (len > page_size - hdr)
			len = page_size - hdr;
		while (off + 4 <= len) {
			uint32_t h, tl, size, data;
			uint16_t id;

			memcpy(&h, pg + hdr + off, 4);
			tl = h & 0x1f;
			if (tl == 0) {
				if (off + 8 > len)
					break;
				memcpy(&size, pg + hdr + off + 4, 4);
				if (size < 4)
					break;
				data = off + 8;
				size -= 4;
			} else if (tl <= 28) {
				data = off + 4;
				size = tl * 4;
			} else if (tl == 29) {
				if (off + 8 > len)
					break;
				memcpy(&size, pg + hdr + off + 4, 4);
				if (!size)
					break;
				off += 4 + size;
				continue;
			} else {
				off += 8;
				continue;
			}
			if (data + size > len || size < 2)
				break;
			memcpy(&id, pg + hdr + data, 2);
			b->bytes[id] += size + (data - off);
			off = data + size;
		}
	}
	pthread_mutex_unlock(&b->mu);
	return 0;
}

static int buffer_fill_pct(struct rec_budget *b)
{
	uint64_t cap = b->ri->buffer_kb * 1024;
	int i, worst = 0;

	for (i = 0; i < b->ri->ncpus && cap; i++) {
		char *st = rec_cpu_stats(b->ri, b->ri->cpus[i].cpu);
		uint64_t used = st ? rec_stats_field(st, "bytes") : 0;
		int pct = (int)(used * 100 / cap);

		free(st);
		if (pct > worst)
			worst = pct;
	}
	return worst;
}

static int set_enabled(struct rec_budget *b, int ev, bool on)
{
	char file[512];

	snprintf(file, sizeof(file), "events/%s/%s/enable", b->ri->events[ev].system,
		 b->ri->events[ev].name);
	return rec_instance_write(b->ri, file, on ? "1" : "0");
}

static void shed_one(struct rec_budget *b, uint64_t now, const char *why)
{
	uint64_t best = 0;
	int id, ev = -1, err;

	pthread_mutex_lock(&b->mu);
	for (id = 0; id < MAX_IDS; id++) {
		int e = b->ev_of_id[id];

		if (e >= 0 && !b->off[e] && b->bytes[id] > best) {
			best = b->bytes[id];
			ev = e;
		}
	}
	pthread_mutex_unlock(&b->mu);
	if (ev < 0 || b->nsheds == MAX_SHEDS)
		return;
	err = set_enabled(b, ev, false);
	if (err) {
		ft_warn("--cpu-budget: cannot turn off %s:%s: %s", b->ri->events[ev].system,
			b->ri->events[ev].name, strerror(-err));
		return;
	}
	b->off[ev] = true;
	b->sheds = realloc(b->sheds, (size_t)(b->nsheds + 1) * sizeof(*b->sheds));
	if (!b->sheds) {
		b->nsheds = 0;
		return;
	}
	b->sheds[b->nsheds] = (struct shed){ .from = now, .event = ev };
	snprintf(b->sheds[b->nsheds].why, sizeof(b->sheds[0].why), "%s", why);
	b->nsheds++;
	ft_info("--cpu-budget: shed %s:%s (%s)", b->ri->events[ev].system, b->ri->events[ev].name, why);
}

static void restore_one(struct rec_budget *b, uint64_t now)
{
	int k;

	for (k = b->nsheds - 1; k >= 0; k--) {
		if (b->sheds[k].to)
			continue;
		if (!set_enabled(b, b->sheds[k].event, true)) {
			b->off[b->sheds[k].event] = false;
			b->sheds[k].to = now;
			ft_info("--cpu-budget: %s:%s back on", b->ri->events[b->sheds[k].event].system,
				b->ri->events[b->sheds[k].event].name);
		}
		return;
	}
}

static int nshed_now(const struct rec_budget *b)
{
	int k, n = 0;

	for (k = 0; k < b->nsheds; k++)
		n += !b->sheds[k].to;
	return n;
}

void rec_budget_tick(struct rec_budget *b, uint64_t now)
{
	uint64_t cpu, dt;
	int fill;
	char why[48];

	if (!b->off || now - b->t_prev < WINDOW_NS)
		return;
	cpu = self_cpu_ns();
	dt = now - b->t_prev;
	b->last_pct = 100.0 * (double)(cpu - b->cpu_prev) / (double)dt;
	fill = buffer_fill_pct(b);
	if (b->last_pct > b->pct || fill >= FILL_MARK_PCT) {
		if (b->last_pct > b->pct)
			snprintf(why, sizeof(why), "recorder at %.1f%% CPU > %.1f%%", b->last_pct, b->pct);
		else
			snprintf(why, sizeof(why), "kernel buffer %d%% full", fill);
		shed_one(b, now, why);
		b->under = 0;
	} else if (b->last_pct < 0.6 * b->pct && fill < FILL_MARK_PCT / 2) {
		/* two quiet windows in a row before an event comes back */
		if (++b->under >= 2 && nshed_now(b)) {
			restore_one(b, now);
			b->under = 0;
		}
	} else {
		b->under = 0;
	}
	pthread_mutex_lock(&b->mu);
	memset(b->bytes, 0, MAX_IDS * sizeof(*b->bytes));
	pthread_mutex_unlock(&b->mu);
	b->t_prev = now;
	b->cpu_prev = cpu;
}

const char *rec_budget_status(struct rec_budget *b)
{
	snprintf(b->status, sizeof(b->status), "  cpu %.1f%%/%.1f%%  shed %d", b->last_pct, b->pct,
		 nshed_now(b));
	return b->status;
}

void rec_budget_summary(struct rec_budget *b)
{
	int k;

	fprintf(stderr, "flytrap: cpu budget %.1f%%: %d shed%s\n", b->pct, b->nsheds,
		b->nsheds == 1 ? "" : "s");
	for (k = 0; k < b->nsheds && k < 10; k++)
		fprintf(stderr, "flytrap:   %s:%s off for %.1f s (%s)\n",
			b->ri->events[b->sheds[k].event].system, b->ri->events[b->sheds[k].event].name,
			(double)((b->sheds[k].to ? b->sheds[k].to : mono()) - b->sheds[k].from) / 1e9,
			b->sheds[k].why);
}

char *rec_budget_meta(struct rec_budget *b, uint64_t from_ns, uint64_t to_ns)
{
	char *t = NULL;
	size_t len = 0;
	FILE *m;
	int k;

	if (!b || !b->nsheds)
		return NULL;
	m = open_memstream(&t, &len);
	if (!m)
		return NULL;
	for (k = 0; k < b->nsheds; k++) {
		const struct shed *s = &b->sheds[k];

		if ((s->to && s->to < from_ns) || s->from > to_ns)
			continue;
		/* shed=FROM,TO,SYSTEM:EVENT,WHY (TO 0: still off when the file was written) */
		fprintf(m, FMT_META_SHED "=%" PRIu64 ",%" PRIu64 ",%s:%s,%s\n", s->from, s->to,
			b->ri->events[s->event].system, b->ri->events[s->event].name, s->why);
	}
	if (fclose(m)) {
		free(t);
		return NULL;
	}
	if (!len) {
		free(t);
		return NULL;
	}
	return t;
}

void rec_budget_free(struct rec_budget *b)
{
	if (!b)
		return;
	pthread_mutex_destroy(&b->mu);
	free(b->bytes);
	free(b->ev_of_id);
	free(b->off);
	free(b->sheds);
	free(b);
}
