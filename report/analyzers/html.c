// SPDX-License-Identifier: GPL-2.0-only
/*
 * `flytrap export --html`: one self-contained page (no external fonts,
 * scripts or styles) with the flame graph (inline SVG), a timeline of CPU
 * use, event rate and losses (canvas drawn by inline script from embedded
 * data), and the overhead and drops analyzers' JSON rendered as tables.
 * Data travels as <script type="application/json"> blocks with every '<'
 * written as \u003c, so no content can close the block early.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyzers/drops.h"
#include "report/analyzers/export.h"
#include "report/out/flamesvg.h"
#include "flytrap.h"
#include "report/out/json.h"
#include "report/analyzers/overhead.h"

/* ---- timeline ------------------------------------------------------------- */

#define TL_MAX_CPUS 256	/* rows drawn (the CPU mask of the timeline is 256 bits) */

void exp_tl_release(struct exp_timeline *tl)
{
	free(tl->busy);
	tl->busy = NULL;
	tl->ncpus = 0;
}

static void merge_pairs(uint64_t *v)
{
	int i;

	for (i = 0; i < EXP_TL_BUCKETS / 2; i++)
		v[i] = v[2 * i] + v[2 * i + 1];
	memset(v + EXP_TL_BUCKETS / 2, 0, EXP_TL_BUCKETS / 2 * sizeof(*v));
}

/* Widen the buckets until ts falls inside them. */
static void tl_cover(struct exp_timeline *tl, uint64_t ts)
{
	int c;

	if (!tl->started) {
		tl->started = true;
		tl->base = ts;
		tl->width = 1000;
		tl->first_ts = ts;
	}
	while (ts >= tl->base && (ts - tl->base) / tl->width >= EXP_TL_BUCKETS &&
	       tl->width < UINT64_MAX / 4) {
		merge_pairs(tl->events);
		merge_pairs(tl->lost);
		merge_pairs(tl->lost_unknown);
		merge_pairs(tl->bpf_lost);
		for (c = 0; c < tl->ncpus; c++)
			merge_pairs(tl->busy + (size_t)c * EXP_TL_BUCKETS);
		tl->width *= 2;
	}
	if (ts > tl->last_ts)
		tl->last_ts = ts;
}

static int tl_bucket(const struct exp_timeline *tl, uint64_t ts)
{
	uint64_t b;

	if (ts <= tl->base)
		return 0;
	b = (ts - tl->base) / tl->width;
	return b >= EXP_TL_BUCKETS ? EXP_TL_BUCKETS - 1 : (int)b;
}

int exp_tl_event(struct exp_timeline *tl, uint64_t ts, int cpu)
{
	tl_cover(tl, ts);
	tl->events[tl_bucket(tl, ts)]++;
	if (cpu >= 0 && cpu < 256)
		tl->cpus_seen[cpu / 64] |= 1ULL << (cpu % 64);
	return 0;
}

int exp_tl_busy(struct exp_timeline *tl, int cpu, uint64_t from, uint64_t to)
{
	uint64_t *row;
	int b;

	if (cpu < 0 || cpu >= TL_MAX_CPUS || to <= from)
		return -EINVAL;
	if (cpu >= tl->ncpus) {
		int n = cpu + 1 > tl->ncpus * 2 ? cpu + 1 : tl->ncpus * 2;
		uint64_t *a;

		if (n > TL_MAX_CPUS)
			n = TL_MAX_CPUS;
		a = realloc(tl->busy, (size_t)n * EXP_TL_BUCKETS * sizeof(*a));
		if (!a)
			return -ENOMEM;
		memset(a + (size_t)tl->ncpus * EXP_TL_BUCKETS, 0,
		       (size_t)(n - tl->ncpus) * EXP_TL_BUCKETS * sizeof(*a));
		tl->busy = a;
		tl->ncpus = n;
	}
	tl_cover(tl, from);
	tl_cover(tl, to - 1);
	if (from < tl->base)
		from = tl->base;
	if (to <= from)
		return 0;
	row = tl->busy + (size_t)cpu * EXP_TL_BUCKETS;
	for (b = tl_bucket(tl, from); b < EXP_TL_BUCKETS; b++) {
		uint64_t lo = tl->base + (uint64_t)b * tl->width, hi = lo + tl->width;
		uint64_t a = from > lo ? from : lo, e = to < hi ? to : hi;

		if (a >= to)
			break;
		if (e > a)
			row[b] += e - a;
	}
	return 0;
}

int exp_tl_loss(struct exp_timeline *tl, uint64_t ts, int64_t count, bool bpf)
{
	int b;

	if (!tl->started)
		tl_cover(tl, ts);
	else if (ts >= tl->base)
		tl_cover(tl, ts);
	b = tl_bucket(tl, ts);
	if (bpf)
		tl->bpf_lost[b] += count > 0 ? (uint64_t)count : 0;
	else if (count < 0)
		tl->lost_unknown[b]++;
	else
		tl->lost[b] += (uint64_t)count;
	return 0;
}

/* ---- page ---------------------------------------------------------------- */

static void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			fputc((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t' ? '?' : *s, f);
		}
	}
}

/* An analyzer's result as JSON inside a <script> block ('<' escaped: it cannot end the block). */
static void script_result(FILE *f, const char *id, const void *res,
			  void (*render)(const void *res, struct rpt_json *j))
{
	struct rpt_json j;

	if (rpt_json_init(&j, f, FT_JSON_SCRIPT))
		return;
	fprintf(f, "<script type=\"application/json\" id=\"%s\">", id);
	render(res, &j);
	RPT_JSON_LIT(&j, "</script>\n");
	rpt_json_done(&j);	/* a failed write stays on f (exp_html_write checks ferror) */
}

static void overhead_render(const void *res, struct rpt_json *j)
{
	rpt_overhead_json(res, j);
}

static void drops_render(const void *res, struct rpt_json *j)
{
	rpt_drops_json(res, j);
}

static void u64_array(struct rpt_json *j, const char *key, const uint64_t *v, int n)
{
	rpt_json_karr(j, key);
	for (int i = 0; i < n; i++)
		rpt_json_u64(j, v[i]);
	rpt_json_arr_end(j);
}

/* The timeline's buckets: events, losses and each CPU's busy time per bucket */
static void timeline_render(const void *res, struct rpt_json *j)
{
	const struct exp_timeline *tl = res;
	static const uint64_t zero[EXP_TL_BUCKETS];
	int n = 0, c;

	if (tl->started)
		n = tl_bucket(tl, tl->last_ts) + 1;
	rpt_json_obj(j);
	rpt_json_ku64(j, "base_ns", tl->base);
	rpt_json_ku64(j, "width_ns", tl->width);
	rpt_json_ki64(j, "n", n);
	rpt_json_kbool(j, "have_sched", tl->have_sched);
	u64_array(j, "events", tl->events, n);
	u64_array(j, "lost", tl->lost, n);
	u64_array(j, "lost_unknown", tl->lost_unknown, n);
	u64_array(j, "bpf_lost", tl->bpf_lost, n);
	rpt_json_karr(j, "cpus");
	for (c = 0; c < TL_MAX_CPUS; c++) {
		if (!(tl->cpus_seen[c / 64] & (1ULL << (c % 64))))
			continue;
		rpt_json_obj(j);
		rpt_json_ki64(j, "cpu", c);
		u64_array(j, "busy_ns",
			  c < tl->ncpus ? tl->busy + (size_t)c * EXP_TL_BUCKETS : zero, n);
		rpt_json_obj_end(j);
	}
	rpt_json_arr_end(j);
	rpt_json_obj_end(j);
}

static const char page_css[] =
"body{font-family:-apple-system,'Segoe UI',Roboto,'DejaVu Sans',Verdana,sans-serif;margin:0;"
"background:#fff;color:#222;font-size:14px}\n"
"header{background:#2b3a4a;color:#fff;padding:12px 20px}\n"
"header h1{margin:0;font-size:20px}header .meta{font-size:12px;opacity:.85;margin-top:4px}\n"
"nav{padding:6px 20px;background:#eef1f4;font-size:13px}nav a{margin-right:16px;color:#2b5b8a}\n"
"section{padding:10px 20px}h2{font-size:17px;border-bottom:1px solid #ccd;padding-bottom:4px}\n"
"h3{font-size:14px;margin:14px 0 4px}\n"
"table{border-collapse:collapse;margin:4px 0 10px;font-size:12px}\n"
"td,th{border:1px solid #d8dce0;padding:2px 8px;text-align:left;vertical-align:top;max-width:520px;"
"overflow-wrap:anywhere}\n"
"th{background:#f2f4f6}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
".note{color:#666;font-size:12px}.warn{color:#a40;font-weight:bold}\n"
"#tl-wrap{position:relative}#tl-tip{position:absolute;pointer-events:none;background:#fffbe6;"
"border:1px solid #cc9;padding:3px 6px;font-size:12px;display:none;white-space:pre}\n"
"pre{background:#f6f6f6;padding:6px;overflow:auto;max-height:300px}\n";

/*
 * Timeline and tables.  The tables are rendered from whatever JSON the
 * analyzers print (objects become key/value tables, arrays of objects
 * become tables with one column per key), so the page does not break when
 * an analyzer adds fields.
 */
static const char page_js[] =
"(function(){\n"
"'use strict';\n"
"function data(id){var e=document.getElementById(id);if(!e)return null;"
"try{return JSON.parse(e.textContent);}catch(err){"
"return {__error:String(err),__raw:e.textContent};}}\n"
"function el(tag,cls,txt){var e=document.createElement(tag);if(cls)e.className=cls;"
"if(txt!==undefined)e.textContent=txt;return e;}\n"
"function grp(n){var s=String(n),neg=s[0]==='-';if(neg)s=s.slice(1);"
"var i=s.indexOf('.'),a=i<0?s:s.slice(0,i),b=i<0?'':s.slice(i);"
"a=a.replace(/\\B(?=(\\d{3})+(?!\\d))/g,',');return (neg?'-':'')+a+b;}\n"
"function dur(ns){ns=+ns;if(ns<1e3)return ns+' ns';if(ns<1e6)return (ns/1e3).toFixed(3)+' us';"
"if(ns<1e9)return (ns/1e6).toFixed(3)+' ms';return (ns/1e9).toFixed(3)+' s';}\n"
"function bytes(b){b=+b;var u=['B','KiB','MiB','GiB','TiB'],i=0;"
"while(b>=1024&&i<u.length-1){b/=1024;i++;}"
"return (i?b.toFixed(1):b)+' '+u[i];}\n"
"function fmt(k,v){if(v===null||v===undefined)return '';"
"if(typeof v==='boolean')return v?'yes':'no';"
"if(typeof v==='number'&&/^(id|pid|tgid|tid|cpu|irq|vec|nr|prog|buffer)$/.test(k))return String(v);"
"if(typeof v==='number'&&/(^|_)(ts|start|end)$/.test(k)&&v>1e6)return (v/1e9).toFixed(6)+' s';"
"if(typeof v==='number'){"
"if(/(^|_)ns$|_ns_|(^|_)(dur|duration|total|self|mean|p50|p90|p99|max|min)_?ns/.test(k))"
"return dur(v);"
"if(/bytes/.test(k))return bytes(v);"
"if(/(^|_)ts$|_ts$/.test(k)&&v>1e6)return (v/1e9).toFixed(6)+' s';"
"if(!Number.isInteger(v))return grp(+v.toFixed(3));return grp(v);}"
"if(typeof v==='object'){"
"if(Array.isArray(v))return v.map(function(x){return fmt(k,x);}).join(', ');"
"return Object.keys(v).map(function(q){return q+'='+fmt(q,v[q]);}).join(', ');}return String(v);}\n"
"function isScalar(v){return v===null||typeof v!=='object';}\n"
"function table(rows,limit){var keys=[];rows.forEach(function(r){if(r&&typeof r==='object')"
"Object.keys(r).forEach(function(k){if(keys.indexOf(k)<0)keys.push(k);});});\n"
"var t=el('table'),h=el('tr');keys.forEach(function(k){h.appendChild(el('th',null,k));});"
"t.appendChild(h);\n"
"rows.slice(0,limit).forEach(function(r){var tr=el('tr');"
"keys.forEach(function(k){var v=r?r[k]:undefined;"
"var td=el('td',typeof v==='number'?'n':null,fmt(k,v));tr.appendChild(td);});"
"t.appendChild(tr);});return t;}\n"
"function render(parent,v,depth,name){\n"
" if(isScalar(v)){parent.appendChild(el('div',null,fmt(name||'',v)));return;}\n"
" if(Array.isArray(v)){\n"
"  if(!v.length){parent.appendChild(el('div','note','(none)'));return;}\n"
"  if(v.every(function(r){return r&&typeof r==='object'&&!Array.isArray(r);})){\n"
"   parent.appendChild(table(v,500));"
"if(v.length>500)parent.appendChild(el('div','note',(v.length-500)+' more rows not shown'));"
"return;}\n"
"  if(v.every(isScalar)){parent.appendChild(el('div',null,"
"v.map(function(x){return fmt(name||'',x);}).join(', ')));return;}\n"
"  v.forEach(function(x,i){render(parent,x,depth+1,(name||'')+'['+i+']');});return;}\n"
" var sc=Object.keys(v).filter(function(k){return isScalar(v[k]);});\n"
" if(sc.length){var t=el('table');sc.forEach(function(k){var tr=el('tr');"
"tr.appendChild(el('th',null,k));"
"tr.appendChild(el('td',typeof v[k]==='number'?'n':null,fmt(k,v[k])));t.appendChild(tr);});"
"parent.appendChild(t);}\n"
" Object.keys(v).filter(function(k){return !isScalar(v[k]);}).forEach(function(k){\n"
"  parent.appendChild(el(depth<2?'h3':'h4',null,k));render(parent,v[k],depth+1,k);});\n"
"}\n"
"function tables(id,target){var t=document.getElementById(target);if(!t)return;var d=data(id);\n"
" if(!d){return;}if(d.__error){"
"t.appendChild(el('div','warn','could not read the analyzer output: '+d.__error));"
"t.appendChild(el('pre',null,d.__raw.slice(0,20000)));return;}render(t,d,0,'');}\n"
"tables('overhead-data','overhead-out');tables('drops-data','drops-out');\n"
"var tl=data('timeline-data'),cv=document.getElementById('tl'),"
"tip=document.getElementById('tl-tip');\n"
"if(tl&&cv&&tl.n>0){\n"
" var cpus=tl.cpus.filter(function(c){return c;}),RATE=60,ROW=16,LOSS=22,LEFT=70,TOP=8,AX=22;\n"
" function draw(){\n"
"  var W=Math.max(400,cv.parentNode.clientWidth-10),H=TOP+RATE+6+LOSS+cpus.length*ROW+AX;\n"
"  var dpr=window.devicePixelRatio||1;cv.width=W*dpr;cv.height=H*dpr;cv.style.width=W+'px';"
"cv.style.height=H+'px';\n"
"  var g=cv.getContext('2d');g.setTransform(dpr,0,0,dpr,0,0);g.clearRect(0,0,W,H);"
"g.font='11px sans-serif';\n"
"  var pw=W-LEFT-10,bw=pw/tl.n,maxe=Math.max.apply(null,tl.events.concat([1]));\n"
"  g.fillStyle='#333';g.fillText('events',4,TOP+RATE/2+4);\n"
"  g.fillStyle='#6a8caf';for(var i=0;i<tl.n;i++){var h=tl.events[i]/maxe*RATE;"
"g.fillRect(LEFT+i*bw,TOP+RATE-h,Math.max(bw-0.5,0.5),h);}\n"
"  var ly=TOP+RATE+6;g.fillStyle='#333';g.fillText('lost',4,ly+LOSS/2+4);g.fillStyle='#fafafa';"
"g.fillRect(LEFT,ly,pw,LOSS-4);\n"
"  for(i=0;i<tl.n;i++){if(tl.lost[i]||tl.lost_unknown[i]||tl.bpf_lost[i]){"
"g.fillStyle=tl.bpf_lost[i]&&!tl.lost[i]?'#d08000':'#d00';"
"g.fillRect(LEFT+i*bw,ly,Math.max(bw,2),LOSS-4);}}\n"
"  var cy=ly+LOSS;\n"
"  cpus.forEach(function(c,k){var y=cy+k*ROW;g.fillStyle='#333';"
"g.fillText('CPU '+c.cpu,4,y+ROW-4);\n"
"   for(var i=0;i<tl.n;i++){var w=tl.width_ns;"
"var f=tl.have_sched?Math.min(1,c.busy_ns[i]/w):0;var l=Math.round(245-f*170);"
"g.fillStyle=tl.have_sched?'rgb('+Math.round(l*0.85)+','+Math.round(l*0.95)+','+255+')':'#eee';"
"g.fillRect(LEFT+i*bw,y+1,Math.max(bw-0.3,0.5),ROW-2);}});\n"
"  var ay=cy+cpus.length*ROW+14,span=tl.n*tl.width_ns/1e9;g.fillStyle='#333';\n"
"  for(var t=0;t<=5;t++){"
"var x=LEFT+pw*t/5,lab='+'+(span*t/5).toFixed(span<0.01?6:3)+' s',lw=g.measureText(lab).width;"
"g.fillRect(x,ay-12,1,4);g.fillText(lab,t===0?x:(t===5?x-lw:x-lw/2),ay);}\n"
"  if(!tl.have_sched){g.fillStyle='#a40';"
"g.fillText('no sched_switch events: CPU use is unknown',LEFT+6,cy+12);}\n"
"  cv.onmousemove=function(e){"
"var r=cv.getBoundingClientRect(),x=e.clientX-r.left,y=e.clientY-r.top;"
"var i=Math.floor((x-LEFT)/bw);if(i<0||i>=tl.n){tip.style.display='none';return;}\n"
"   var t0=i*tl.width_ns/1e9,s='+'+t0.toFixed(6)+' s .. +'+(t0+tl.width_ns/1e9).toFixed(6)"
"+' s\\n'+grp(tl.events[i])+' events';\n"
"   if(tl.lost[i]||tl.lost_unknown[i])s+='\\nlost: '+grp(tl.lost[i])"
"+(tl.lost_unknown[i]?' + '+tl.lost_unknown[i]+' markers without count':'');\n"
"   if(tl.bpf_lost[i])s+='\\nBPF records lost: '+grp(tl.bpf_lost[i]);\n"
"   var k=Math.floor((y-cy)/ROW);"
"if(tl.have_sched&&k>=0&&k<cpus.length)"
"s+='\\nCPU '+cpus[k].cpu+' busy '+(100*cpus[k].busy_ns[i]/tl.width_ns).toFixed(1)+'%';\n"
"   tip.textContent=s;tip.style.display='block';tip.style.left=(x+12)+'px';"
"tip.style.top=(y+12)+'px';};\n"
"  cv.onmouseleave=function(){tip.style.display='none';};\n"
" }\n"
" draw();window.addEventListener('resize',draw);\n"
"}else if(cv){cv.style.display='none';document.getElementById('tl-empty').style.display='block';}\n"
/* reached only when nothing above threw: tests look for it */
"document.body.setAttribute('data-report-ok','1');\n"
"})();\n";

static void meta_line(FILE *f, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	fputs("<span>", f);
	html_text(f, k);
	fputs(": ", f);
	html_text(f, v);
	fputs("</span> &nbsp; ", f);
}

int exp_html_write(FILE *f, const struct exp_html_input *in)
{
	const struct exp_html_data *d = in->data;
	struct rpt_flame_opts fo = { .embed = true, .id_prefix = "fg", .width = 1200 };
	const struct rpt_flame *fl;
	char buf[256];
	const char *what;
	int err;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"flytrap " FLYTRAP_VERSION "\">\n"
	      "<title>flytrap report: ", f);
	html_text(f, in->path);
	fputs("</title>\n<style>\n", f);
	fputs(page_css, f);
	fputs("</style></head><body>\n<header><h1>flytrap report: ", f);
	html_text(f, in->path);
	fputs("</h1><div class=\"meta\">", f);
	if (in->info) {
		meta_line(f, "kernel", in->info->uname);
		meta_line(f, "clock", in->info->clock);
		snprintf(buf, sizeof(buf), "%d", in->info->cpus);
		meta_line(f, "CPUs", in->info->cpus ? buf : NULL);
		snprintf(buf, sizeof(buf), "v%d, %s", in->info->version, in->info->compression);
		meta_line(f, "file format", buf);
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, d->nevents);
	meta_line(f, "events", buf);
	if (d->nevents) {
		uint64_t span = d->last_ts - d->first_ts;

		snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64 " .. %" PRIu64 ".%06" PRIu64
			 " s (%" PRIu64 ".%06" PRIu64 " s)",
			 d->first_ts / UINT64_C(1000000000),
			 d->first_ts % UINT64_C(1000000000) / 1000,
			 d->last_ts / UINT64_C(1000000000),
			 d->last_ts % UINT64_C(1000000000) / 1000,
			 span / UINT64_C(1000000000), span % UINT64_C(1000000000) / 1000);
		meta_line(f, "time", buf);
	}
	if (in->drops && in->drops->lost) {
		/* the one loss figure, as drops and info give it */
		rpt_loss_fig_text(&in->drops->fig, buf, sizeof(buf));
		meta_line(f, "LOSSES", buf);
	} else if (d->nlosses) {
		snprintf(buf, sizeof(buf), "%d markers, %" PRIu64 " events counted", d->nlosses,
			 d->lost_events);
		meta_line(f, "LOSSES", buf);
	}
	meta_line(f, "filters", in->filters);
	fputs("</div></header>\n<nav><a href=\"#flame\">Flame graph</a>"
	      "<a href=\"#timeline\">Timeline</a>"
	      "<a href=\"#overhead\">Overhead</a><a href=\"#drops\">Drops</a></nav>\n", f);

	/* the best flame graph the file allows */
	if (in->calls && rpt_flame_total(in->calls)) {
		fl = in->calls;
		fo.unit = in->calls_unit ? in->calls_unit : "samples";
		what = in->calls_from_analyzer ?
			"Call graph: function calls and sampled stacks "
			"(from the callgraph analyzer)" :
			"Calls: syscalls and traced functions per task, self time";
	} else if (d->oncpu && rpt_flame_total(d->oncpu)) {
		fl = d->oncpu;
		fo.unit = "ns";
		what = "On-CPU time by process name and task "
		       "(the file has no call stacks or function calls)";
	} else {
		fl = d->byevent;
		fo.unit = "events";
		what = d->nevents ?
			"Events by task and event type "
			"(the file has no call stacks, function calls or sched_switch)" :
			"No events in the file or the selection";
	}
	fo.title = what;
	fputs("<section id=\"flame\"><h2>Flame graph</h2>\n<p class=\"note\">", f);
	html_text(f, what);
	fputs(". Click a frame to zoom, hover for details, "
	      "Search highlights matching frames.</p>\n", f);
	err = fl ? rpt_flame_svg_opts(fl, f, &fo) : 0;
	if (err)
		return err;
	fputs("</section>\n", f);

	fputs("<section id=\"timeline\"><h2>Timeline</h2>\n"
	      "<p class=\"note\">Top: events per time slice. "
	      "Red: slices where the kernel lost events (orange: BPF records lost). "
	      "Rows: share of each slice a CPU ran a task other than idle "
	      "(darker = busier, from sched_switch). "
	      "Hover for numbers.</p>\n"
	      "<div id=\"tl-wrap\"><canvas id=\"tl\"></canvas><div id=\"tl-tip\"></div>"
	      "<p id=\"tl-empty\" class=\"note\" style=\"display:none\">"
	      "no events in the selection</p></div>\n"
	      "</section>\n", f);

	fputs("<section id=\"overhead\"><h2>Overhead</h2>\n<div id=\"overhead-out\"></div>\n", f);
	if (!in->overhead) {
		fputs("<p class=\"note\">", f);
		html_text(f, in->why_overhead);
		fputs("</p>\n", f);
	}
	fputs("</section>\n<section id=\"drops\"><h2>Drops</h2>\n"
	      "<div id=\"drops-out\"></div>\n", f);
	if (!in->drops) {
		fputs("<p class=\"note\">", f);
		html_text(f, in->why_drops);
		fputs("</p>\n", f);
	}
	fputs("</section>\n", f);

	script_result(f, "timeline-data", &d->tl, timeline_render);
	if (in->overhead)
		script_result(f, "overhead-data", in->overhead, overhead_render);
	if (in->drops)
		script_result(f, "drops-data", in->drops, drops_render);
	fputs("<script>\n", f);
	fputs(page_js, f);
	fputs("</script>\n</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
