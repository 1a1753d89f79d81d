// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flame graph renderer: known folded input, then the SVG is read back and
 * every frame's width checked against the weights that went in, the
 * children's widths against their parent's, colours for determinism, and
 * the XML for well-formedness (with python3 when it is there).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "report/out/flamesvg.h"

struct frame {
	char name[128];
	double x, w;
	int d;
	char fill[32];
};

/* Read back every <g class="f"> of the SVG. */
static int parse_frames(const char *svg, struct frame *fr, int max)
{
	const char *p = svg;
	int n = 0;

	while ((p = strstr(p, "<g class=\"f\" ")) && n < max) {
		struct frame *f = &fr[n];
		const char *t, *e;
		size_t l;

		if (sscanf(p, "<g class=\"f\" data-x=\"%lf\" data-w=\"%lf\" data-d=\"%d\"",
			   &f->x, &f->w, &f->d) != 3)
			return -1;
		t = strstr(p, "<title>");
		if (!t)
			return -1;
		t += 7;
		e = strstr(t, " (");
		if (!e)
			return -1;
		l = (size_t)(e - t) < sizeof(f->name) - 1 ? (size_t)(e - t) : sizeof(f->name) - 1;
		memcpy(f->name, t, l);
		f->name[l] = '\0';
		t = strstr(p, "fill=\"");
		if (!t || sscanf(t, "fill=\"%31[^\"]\"", f->fill) != 1)
			return -1;
		n++;
		p++;
	}
	return n;
}

static char *render(struct rpt_flame *fl, const struct rpt_flame_opts *o, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		return NULL;
	err = rpt_flame_svg_opts(fl, f, o);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const struct frame *find(const struct frame *fr, int n, const char *name, int d)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(fr[i].name, name) && fr[i].d == d)
			return &fr[i];
	return NULL;
}

static void xml_check(const char *svg, size_t len, const char *what)
{
	FILE *p;
	int rc;

	if (access("/usr/bin/python3", X_OK)) {
		printf("note: python3 missing, XML not checked (%s)\n", what);
		return;
	}
	p = popen("python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.stdin.buffer)'", "w");
	if (!p)
		return;
	fwrite(svg, 1, len, p);
	rc = pclose(p);
	CHECK(rc == 0, "%s: SVG is not well-formed XML", what);
}

/*
 * main;a;x 30   main;a;y 10   main;b 40   main 20   other 100
 *  => all 200, main 100 (self 20), a 40, x 30, y 10, b 40, other 100
 */
static const char *known[] = {
	"main;a;x 30\n", "main;b 40", "main;a;y 10\r\n", "main 20", "other 100",
	"# comment", "", "main;a;x 0",
};

static void test_known(void)
{
	static struct frame fr[64];
	struct rpt_flame *fl = rpt_flame_new();
	size_t len, i;
	char *svg;
	int n, k;
	const struct frame *all, *mainf, *a, *x, *y, *b, *other;

	CHECK(fl != NULL, "new");
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		CHECK(rpt_flame_add_folded(fl, known[i]) == 0, "line %zu", i);
	CHECK(rpt_flame_total(fl) == 200, "total %" PRIu64, rpt_flame_total(fl));
	/* all, main, a, x, y, b, other */
	CHECK(rpt_flame_nodes(fl) == 7, "nodes %" PRIu64, rpt_flame_nodes(fl));
	svg = render(fl, NULL, &len);
	CHECK(svg != NULL, "render");
	if (!svg)
		goto out;
	n = parse_frames(svg, fr, 64);
	CHECK(n == 7, "frames drawn %d", n);
	all = find(fr, n, "all", 0);
	mainf = find(fr, n, "main", 1);
	a = find(fr, n, "a", 2);
	x = find(fr, n, "x", 3);
	y = find(fr, n, "y", 3);
	b = find(fr, n, "b", 2);
	other = find(fr, n, "other", 1);
	CHECK(all && mainf && a && x && y && b && other, "a frame is missing");
	if (!(all && mainf && a && x && y && b && other))
		goto out;
#define NEAR(v, e) ((v) > (e) - 1e-9 && (v) < (e) + 1e-9)
	CHECK(NEAR(all->w, 1.0) && NEAR(all->x, 0), "all %f %f", all->x, all->w);
	CHECK(NEAR(mainf->w, 0.5), "main w %f", mainf->w);
	CHECK(NEAR(other->w, 0.5), "other w %f", other->w);
	CHECK(NEAR(a->w, 0.2) && NEAR(b->w, 0.2), "a %f b %f", a->w, b->w);
	CHECK(NEAR(x->w, 0.15) && NEAR(y->w, 0.05), "x %f y %f", x->w, y->w);
	/* children in name order, packed from the parent's left edge */
	CHECK(NEAR(mainf->x, 0) && NEAR(other->x, 0.5), "main x %f other x %f", mainf->x, other->x);
	CHECK(NEAR(a->x, 0) && NEAR(b->x, 0.2), "a x %f b x %f", a->x, b->x);
	CHECK(NEAR(x->x, 0) && NEAR(y->x, 0.15), "x x %f y x %f", x->x, y->x);
	/* widths add up: children of nodes without self weight fill them exactly */
	CHECK(NEAR(mainf->w + other->w, all->w), "root children");
	CHECK(NEAR(x->w + y->w, a->w), "a's children");
	CHECK(a->w + b->w < mainf->w - 0.09, "main keeps its self share");
	/* every frame lies inside some frame one level down */
	for (k = 0; k < n; k++) {
		int j, inside = fr[k].d == 0;

		for (j = 0; j < n && !inside; j++)
			inside = fr[j].d == fr[k].d - 1 && fr[k].x >= fr[j].x - 1e-9 &&
				 fr[k].x + fr[k].w <= fr[j].x + fr[j].w + 1e-9;
		CHECK(inside, "%s outside its parent", fr[k].name);
	}
	CHECK(strstr(svg, "(200 samples, 100.00%)") != NULL, "root title");
	CHECK(strstr(svg, "<title>x (30 samples, 15.00%)</title>") != NULL, "x title");
	xml_check(svg, len, "known");
	free(svg);

	/* same input in another order: the same picture (byte for byte) */
	{
		struct rpt_flame *f2 = rpt_flame_new();
		char *svg1, *svg2;
		size_t l1, l2;

		for (i = sizeof(known) / sizeof(known[0]); i-- > 0;)
			rpt_flame_add_folded(f2, known[i]);
		svg1 = render(fl, NULL, &l1);
		svg2 = render(f2, NULL, &l2);
		CHECK(svg1 && svg2 && l1 == l2 && !memcmp(svg1, svg2, l1), "order-independent output");
		free(svg1);
		free(svg2);
		rpt_flame_free(f2);
	}

	/* folded round trip: self weights per stack */
	{
		char *buf = NULL;
		size_t bl;
		FILE *f = open_memstream(&buf, &bl);

		CHECK(rpt_flame_folded(fl, f) == 0, "folded");
		fclose(f);
		CHECK(buf && !strcmp(buf, "main 20\nmain;a;x 30\nmain;a;y 10\nmain;b 40\nother 100\n"),
		      "folded text:\n%s", buf ? buf : "(null)");
		free(buf);
	}
	svg = NULL;
out:
	free(svg);
	rpt_flame_free(fl);
}

static void test_api_add(void)
{
	static struct frame fr[16];
	const char *s1[] = { "root", "mid", "leaf" };
	const char *s2[] = { "root", NULL, "" };
	struct rpt_flame *fl = rpt_flame_new();
	char *svg;
	size_t len;
	int n;

	CHECK(rpt_flame_add(fl, s1, 3, 5) == 0, "add");
	CHECK(rpt_flame_add(fl, s1, 3, UINT64_MAX) == 0, "add saturating");
	CHECK(rpt_flame_total(fl) == UINT64_MAX, "saturated total");
	rpt_flame_free(fl);

	fl = rpt_flame_new();
	CHECK(rpt_flame_add(fl, s2, 3, 7) == 0, "add NULL names");
	CHECK(rpt_flame_add(fl, NULL, 0, 3) == 0, "add empty stack");
	CHECK(rpt_flame_add(fl, NULL, 1, 3) == -EINVAL, "NULL frames");
	CHECK(rpt_flame_add(fl, s1, -1, 3) == -EINVAL, "negative count");
	CHECK(rpt_flame_total(fl) == 10, "total %" PRIu64, rpt_flame_total(fl));
	svg = render(fl, NULL, &len);
	n = svg ? parse_frames(svg, fr, 16) : -1;
	/* all, root, [unknown], [unknown] */
	CHECK(n == 4, "frames %d", n);
	CHECK(n == 4 && find(fr, n, "[unknown]", 3) && find(fr, n, "[unknown]", 2), "unknown frames");
	free(svg);
	rpt_flame_free(fl);
}

static void test_bad_lines(void)
{
	struct rpt_flame *fl = rpt_flame_new();

	CHECK(rpt_flame_add_folded(fl, "a;b") == -EINVAL, "no weight");
	CHECK(rpt_flame_add_folded(fl, "a;b x") == -EINVAL, "weight not a number");
	CHECK(rpt_flame_add_folded(fl, "a;b 1.5") == -EINVAL, "fraction");
	CHECK(rpt_flame_add_folded(fl, " 5") == -EINVAL, "empty stack");
	CHECK(rpt_flame_add_folded(fl, "a;b ") == -EINVAL, "trailing space");
	CHECK(rpt_flame_add_folded(fl, "a 99999999999999999999999") == -EINVAL, "overflow");
	CHECK(rpt_flame_total(fl) == 0, "nothing added");
	/* names with spaces: the weight is after the last space */
	CHECK(rpt_flame_add_folded(fl, "my func(int a);other one 4") == 0, "spaces");
	CHECK(rpt_flame_total(fl) == 4, "total");
	rpt_flame_free(fl);
}

/* Hostile names: markup, control bytes, invalid UTF-8 — still valid XML. */
static void test_escaping(void)
{
	struct rpt_flame *fl = rpt_flame_new();
	char *svg;
	size_t len;

	rpt_flame_add_folded(fl, "<script>alert(1)</script>;a&b\"c'd 3");
	rpt_flame_add_folded(fl, "bad\x01\x7f\xff\xc0\x80utf;ok\xc3\xa9 2");
	rpt_flame_add_folded(fl, "]]>;x 1");
	svg = render(fl, &(struct rpt_flame_opts){ .title = "t<&>", .unit = "n\"s" }, &len);
	CHECK(svg != NULL, "render");
	if (svg) {
		CHECK(!strstr(svg, "<script>alert"), "markup escaped");
		CHECK(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL, "escaped name");
		CHECK(strstr(svg, "ok\xc3\xa9") != NULL, "valid UTF-8 kept");
		CHECK(strstr(svg, "bad?????utf") != NULL, "bad bytes replaced");
		xml_check(svg, len, "escaping");
	}
	free(svg);
	rpt_flame_free(fl);
}

/* Narrow frames are left out, or merged when together wide enough; the parent keeps their weight. */
static void test_min_width(void)
{
	static struct frame fr[128];
	struct rpt_flame *fl = rpt_flame_new();
	struct rpt_flame_opts o = { .width = 1000, .min_px = 5 };
	char line[64], *svg;
	size_t len;
	int i, n;

	rpt_flame_add_folded(fl, "big;wide 10000");
	/* 1/10041 of 990 px is about 0.1 px: below 5 px */
	for (i = 0; i < 40; i++) {
		snprintf(line, sizeof(line), "big;tiny%d;deeper 1", i);
		rpt_flame_add_folded(fl, line);
	}
	rpt_flame_add_folded(fl, "small 1");
	svg = render(fl, &o, &len);
	n = svg ? parse_frames(svg, fr, 128) : -1;
	CHECK(n == 3, "all, big, wide only: %d", n);
	CHECK(n > 0 && find(fr, n, "big", 1) && find(fr, n, "big", 1)->w > 0.9999, "big keeps width");
	CHECK(svg && strstr(svg, "41 frames narrower than 5.00 px not drawn alone, 0 of them merged"),
	      "omitted count");
	/* min_px 0 means the 0.1 px default: tiny frames are about 0.1 px wide */
	free(svg);
	svg = render(fl, &(struct rpt_flame_opts){ .min_px = 0.01 }, &len);
	n = svg ? parse_frames(svg, fr, 128) : -1;
	CHECK(n == 3 + 40 * 2 + 1, "everything drawn at 0.01 px: %d", n);
	xml_check(svg ? svg : "", svg ? len : 0, "min width");
	free(svg);
	/* 400 more tiny ones: together 400/10441 of 990 px, about 38 px: one merged frame */
	for (i = 40; i < 440; i++) {
		snprintf(line, sizeof(line), "big;tiny%d;deeper 1", i);
		rpt_flame_add_folded(fl, line);
	}
	svg = render(fl, &o, &len);
	n = svg ? parse_frames(svg, fr, 128) : -1;
	CHECK(n == 4, "all, big, wide, merged: %d", n);
	if (n == 4) {
		const struct frame *m = find(fr, n, "[440 small frames]", 2);
		const struct frame *w = find(fr, n, "wide", 2);

		CHECK(m && w, "merged frame and wide");
		if (m && w) {
			/* after wide (packed from big's left edge), exactly the tiny ones' share */
			CHECK(NEAR(m->x, w->x + w->w) && NEAR(m->w, 440.0 / 10441), "merged at %f width %f",
			      m->x, m->w);
		}
	}
	CHECK(svg && strstr(svg, "441 frames narrower than 5.00 px not drawn alone, 440 of them merged"),
	      "merged count");
	xml_check(svg ? svg : "", svg ? len : 0, "merged");
	free(svg);
	rpt_flame_free(fl);
}

static void test_colours_and_empty(void)
{
	static struct frame fr[16];
	struct rpt_flame *fl = rpt_flame_new();
	char *svg;
	size_t len;
	int n;

	svg = render(fl, NULL, &len);
	CHECK(svg && strstr(svg, "no data"), "empty graph says so");
	if (svg)
		xml_check(svg, len, "empty");
	free(svg);
	rpt_flame_add_folded(fl, "same;other 1");
	rpt_flame_add_folded(fl, "x;same 1");
	rpt_flame_add_folded(fl, "k;do_syscall_64_[k] 1");
	svg = render(fl, &(struct rpt_flame_opts){ .embed = true, .id_prefix = "g2", .icicle = true },
		     &len);
	n = svg ? parse_frames(svg, fr, 16) : -1;
	CHECK(n == 7, "frames %d", n);
	if (n == 7) {
		const struct frame *a = find(fr, n, "same", 1), *b = find(fr, n, "same", 2);

		CHECK(a && b && !strcmp(a->fill, b->fill), "same name, same colour");
	}
	CHECK(svg && !strstr(svg, "<?xml") && strstr(svg, "id=\"g2-svg\"") &&
	      strstr(svg, "width=\"100%\""), "embed form");
	free(svg);
	rpt_flame_free(fl);
	rpt_flame_free(NULL);
}

/* A deep stack must not recurse on the C stack, in render or folded. */
static void test_deep(void)
{
	struct rpt_flame *fl = rpt_flame_new();
	size_t n = 50000, i, len;
	char *line = malloc(n * 2 + 16), *svg;

	for (i = 0; i < n; i++) {
		line[2 * i] = 'f';
		line[2 * i + 1] = ';';
	}
	strcpy(line + 2 * n - 1, " 1");
	CHECK(rpt_flame_add_folded(fl, line) == 0, "deep add");
	CHECK(rpt_flame_nodes(fl) == n + 1, "deep nodes");
	svg = render(fl, NULL, &len);
	CHECK(svg != NULL, "deep render");
	free(svg);
	free(line);
	rpt_flame_free(fl);
}

/*
 * Differential graph: weights (B) give the widths, the base (A) the
 * colours: grown red, shrunk blue, unchanged pale, new the deepest red;
 * a frame with only a base is not drawn.
 */
static void test_differential(void)
{
	static const char *const grow[] = { "main", "grow" }, *const same[] = { "main", "same" };
	static const char *const shrink[] = { "main", "shrink" }, *const fresh[] = { "main", "fresh" };
	static const char *const gone[] = { "main", "gone" };
	struct rpt_flame_opts o = { .differential = true, .unit = "ns" };
	struct rpt_flame *fl = rpt_flame_new();
	const struct frame *g, *sa, *sh, *fr, *m;
	struct frame frames[16];
	size_t len = 0;
	char *svg;
	int n;

	CHECK(fl != NULL, "new");
	if (!fl)
		return;
	CHECK(!rpt_flame_add(fl, grow, 2, 400) && !rpt_flame_add(fl, same, 2, 300) &&
	      !rpt_flame_add(fl, shrink, 2, 100) && !rpt_flame_add(fl, fresh, 2, 200), "add");
	CHECK(!rpt_flame_add_base(fl, grow, 2, 100) && !rpt_flame_add_base(fl, same, 2, 300) &&
	      !rpt_flame_add_base(fl, shrink, 2, 400) && !rpt_flame_add_base(fl, gone, 2, 50), "add base");
	CHECK(rpt_flame_add_base(fl, NULL, 1, 1) == -EINVAL, "NULL frames refused");
	CHECK(rpt_flame_total(fl) == 1000, "total %" PRIu64 " (the base adds no width)", rpt_flame_total(fl));
	svg = render(fl, &o, &len);
	CHECK(svg != NULL, "render");
	if (svg) {
		n = parse_frames(svg, frames, 16);
		g = find(frames, n, "grow", 2);
		sa = find(frames, n, "same", 2);
		sh = find(frames, n, "shrink", 2);
		fr = find(frames, n, "fresh", 2);
		m = find(frames, n, "main", 1);
		CHECK(n == 6 && !find(frames, n, "gone", 2), "%d frames, gone not drawn", n);
		CHECK(g && !strcmp(g->fill, "rgb(255,95,95)") && g->w > 0.399 && g->w < 0.401, "grew: red, 40%%");
		CHECK(sa && !strcmp(sa->fill, "rgb(255,245,245)"), "unchanged: pale");
		CHECK(sh && !strcmp(sh->fill, "rgb(95,95,255)"), "shrank: blue");
		CHECK(fr && !strcmp(fr->fill, "rgb(255,45,45)"), "new: deepest red");
		/* main: 1000 now, 850 before */
		CHECK(m && !strcmp(m->fill, "rgb(255,215,215)"), "main: %s", m ? m->fill : "-");
		CHECK(strstr(svg, "<title>shrink (100 ns, 10.00%; before 400, -75.0%)</title>") != NULL,
		      "title with both weights");
		CHECK(strstr(svg, "<title>fresh (200 ns, 20.00%; before 0, new)</title>") != NULL, "title: new");
		xml_check(svg, len, "differential");
	}
	free(svg);
	rpt_flame_free(fl);
}

int main(void)
{
	test_differential();
	test_known();
	test_api_add();
	test_bad_lines();
	test_escaping();
	test_min_width();
	test_colours_and_empty();
	test_deep();
	return check_summary();
}
