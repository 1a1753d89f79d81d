#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# flytrap export --html: one self-contained page (no external resources),
# its inline SVG well-formed XML, its embedded JSON valid; then headless
# Chromium opens it: no console messages, every script ran to the end
# (the page marks <body data-report-ok>, the flame graph its <svg
# data-ready>), the tables were rendered, and a screenshot was taken
# ($O/test-logs/export-html-*.png, to look at).
# Chromium: apt-get install -y chromium (SKIP without it).
. "${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
need_cmd python3
MK="$TOP/$O/tests/tools/mkexport"
[ -x "$MK" ] || skip "$MK is not built"
"$MK" "$TMP/syn.dat" >/dev/null || { fail "mkexport"; finish; }

static_checks() { # page name [empty]: an empty trace draws "no data" instead of frames
	local page=$1 name=$2 empty=${3:-}
	# nothing fetched from anywhere: no src=, no links to other documents, no CSS imports
	if grep -Eiq '(src=|href="(https?:|//)|url\(|@import|<link|<iframe|<object|<embed)' "$page"; then
		fail "$name: refers to an external resource: $(grep -Eio '(src=|href="(https?:|//)[^"]*|url\([^)]*|@import|<link|<iframe)' "$page" | head -3)"
	fi
	python3 - "$page" "$empty" <<'PY' || fail "$name: inline SVG or embedded JSON is broken"
import json, re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1], encoding="utf-8").read()
svgs = re.findall(r"<svg .*?</svg>", html, re.S)
assert len(svgs) == 1, len(svgs)
root = ET.fromstring(svgs[0])
frames = root.findall("{http://www.w3.org/2000/svg}g")
if sys.argv[2]:
    assert not frames and ">no data<" in svgs[0], "empty trace: frames drawn or no 'no data'"
else:
    assert frames, "no frames in the flame graph"
for m in re.finditer(r'<script type="application/json" id="([^"]+)">(.*?)</script>', html, re.S):
    json.loads(m.group(2))
assert html.count("<script") == html.count("</script>")
PY
}

browser() { # page name -> checks a Chromium run
	local page=$1 name=$2 prof
	prof=$(mktemp -d "$TMP/chrome.XXXXXX")
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --user-data-dir="$prof" --enable-logging=stderr --v=0 \
		--window-size=1400,1200 --dump-dom "file://$page" >"$TMP/$name.dom" 2>"$TMP/$name.log"
	if grep -q "CONSOLE" "$TMP/$name.log"; then
		fail "$name: console messages: $(grep CONSOLE "$TMP/$name.log" | head -3)"
	fi
	grep -q 'data-report-ok="1"' "$TMP/$name.dom" || fail "$name: the page script did not finish"
	grep -q 'data-ready="1"' "$TMP/$name.dom" || fail "$name: the flame graph script did not run"
	prof=$(mktemp -d "$TMP/chrome.XXXXXX")
	mkdir -p "$TOP/$O/test-logs"
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --user-data-dir="$prof" --window-size=1400,1600 \
		--screenshot="$TOP/$O/test-logs/export-html-$name.png" "file://$page" >/dev/null 2>&1
	local sz
	sz=$(stat -c %s "$TOP/$O/test-logs/export-html-$name.png" 2>/dev/null || echo 0)
	[ "$sz" -gt 20000 ] && ok "$name: rendered, screenshot $O/test-logs/export-html-$name.png ($sz bytes)" ||
		fail "$name: no usable screenshot ($sz bytes)"
}

"$FLYTRAP" export --html "$TMP/syn.dat" -o "$TMP/syn.html" || fail "export --html"
static_checks "$TMP/syn.html" syn
# the synthetic calls are in the flame graph, with their self times in ns
grep -q '<title>vfs_read (500 ns' "$TMP/syn.html" && ok "flame graph has vfs_read (500 ns)" ||
	fail "flame graph lacks vfs_read: $(grep -o '<title>[^<]*' "$TMP/syn.html" | head -20)"
grep -q 'LOSSES' "$TMP/syn.html" && ok "header reports the losses" || fail "no LOSSES in the header"
for id in timeline-data overhead-data drops-data; do
	grep -q "id=\"$id\"" "$TMP/syn.html" || fail "no $id block"
done
# the page's data are the analyzers' own --json (one result structure, two renderers)
"$FLYTRAP" overhead --json "$TMP/syn.dat" >"$TMP/syn.ovh.json" || fail "overhead --json"
"$FLYTRAP" drops --json "$TMP/syn.dat" >"$TMP/syn.drops.json" || fail "drops --json"
python3 - "$TMP/syn.html" "$TMP/syn.ovh.json" "$TMP/syn.drops.json" <<'PY' &&
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
for ident, path in (("overhead-data", sys.argv[2]), ("drops-data", sys.argv[3])):
    m = re.search(r'<script type="application/json" id="%s">(.*?)</script>' % ident, page, re.S)
    assert m, ident
    assert json.loads(m.group(1)) == json.load(open(path)), ident
PY
	ok "the page's overhead and drops data equal their --json" ||
	fail "the page's overhead/drops data differ from overhead/drops --json"
"$FLYTRAP" export --html --cpu 1 "$TMP/syn.dat" -o "$TMP/syn1.html" || fail "--html --cpu 1"
grep -q 'filters: CPU 1' "$TMP/syn1.html" && ok "filters shown in the page" || fail "filters not shown"

if [ -w /dev/full ]; then
	"$FLYTRAP" export --html "$TMP/syn.dat" >/dev/full 2>"$TMP/full.err"; rc=$?
	[ $rc = 1 ] && grep -q "No space left on device" "$TMP/full.err" &&
		ok "full disk: exit 1, named" || fail "full disk: rc $rc, $(cat "$TMP/full.err")"
fi

pages="syn"
# names taken from a trace are text, never markup: tasks named "<svg onload=1>",
# "</script><b>x", "a\"'&<i>\z" and a binary path "/tmp/</title>&<x>" (issue 16)
"$MK" "$TMP/hostile.dat" --hostile >/dev/null || fail "mkexport --hostile"
"$FLYTRAP" export --html "$TMP/hostile.dat" -o "$TMP/hostile.html" || fail "hostile: export --html"
static_checks "$TMP/hostile.html" hostile
if grep -Fq '<svg onload' "$TMP/hostile.html" || grep -Fq '</script><b>' "$TMP/hostile.html" ||
	grep -Fq '<i>' "$TMP/hostile.html" || grep -Fq '</title>&<x>' "$TMP/hostile.html"; then
	fail "hostile: a name from the trace is in the page unescaped"
else
	ok "hostile: every task name and path from the trace is escaped in the page"
fi
grep -Fq '&lt;svg onload=1&gt;' "$TMP/hostile.html" && ok "hostile: the name is shown, as text" ||
	fail "hostile: the task name is not in the page at all"
"$FLYTRAP" export "$TMP/hostile.dat" -o "$TMP/hostile.json" || fail "hostile: export"
python3 - "$TMP/hostile.json" <<'PY' && ok "hostile: the JSON keeps the names exactly" || fail "hostile: JSON names differ"
import json, sys
d = json.load(open(sys.argv[1]))
names = {e["args"]["name"] for e in d["traceEvents"] if e.get("ph") == "M" and e.get("name") == "thread_name"}
want = {"<svg onload=1>", "</script><b>x", "a\"'&<i>\\z"}
assert want <= names, names
PY
pages="$pages hostile"
if [ -d "$FIXTURES" ]; then
	# irq/sched, function_graph, and a file with no events at all
	for fx in hebel23+driver__trace wsdias+LabSisOp__trace AkshuDev+AOS-1.0__trace.7f25d3b; do
		[ -f "$FIXTURES/$fx.dat" ] || continue
		"$FLYTRAP" export --html "$FIXTURES/$fx.dat" -o "$TMP/$fx.html" || fail "$fx: export --html"
		case $fx in AkshuDev*) static_checks "$TMP/$fx.html" "$fx" empty ;; *) static_checks "$TMP/$fx.html" "$fx" ;; esac
		pages="$pages $fx"
	done
fi

CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
	echo "note: the browser checks need chromium (apt-get install -y chromium)"
	[ "$fails" = 0 ] && skip "chromium is not installed (static checks passed)"
	finish
fi
for p in $pages; do
	browser "$TMP/$p.html" "$p"
done
# interaction: click a frame (zoom), then "Reset zoom", in a copy of the page with a test script
python3 - "$TMP/syn.html" "$TMP/zoom.html" <<'PY'
import sys
html = open(sys.argv[1], encoding="utf-8").read()
test = """<script>
(function(){
 function frame(n){return [].slice.call(document.querySelectorAll('#fg-svg g.f')).filter(function(g){
   return g.querySelector('title').textContent.indexOf(n+' (')===0;})[0];}
 var k=frame('ksys_read'),foo=frame('foo'),v=frame('vfs_read');
 k.dispatchEvent(new MouseEvent('click',{bubbles:true}));
 var r=[k.querySelector('rect').getAttribute('width'),foo.style.display,v.querySelector('rect').getAttribute('width')];
 document.getElementById('fg-unzoom').dispatchEvent(new MouseEvent('click',{bubbles:true}));
 r.push(k.querySelector('rect').getAttribute('width'),foo.style.display);
 document.body.setAttribute('data-zoom',r.join('|'));
})();
</script></body>"""
open(sys.argv[2], "w", encoding="utf-8").write(html.replace("</body>", test))
PY
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
	--user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")" --dump-dom "file://$TMP/zoom.html" >"$TMP/zoom.dom" 2>/dev/null
# zoomed: ksys_read spans the width, foo (other task) hidden, vfs_read 500/800 of it; reset restores
z=$(grep -o 'data-zoom="[^"]*"' "$TMP/zoom.dom")
[ "$z" = 'data-zoom="99.0000%|none|61.8750%|72.0000%|"' ] && ok "click zooms into a frame, Reset zoom restores" ||
	fail "zoom: $z"

# tables were drawn from the analyzers' JSON
grep -q '<div id="overhead-out"><table>' "$TMP/syn.dom" && ok "overhead tables rendered" || fail "no overhead table"
grep -q '<div id="drops-out"><table>' "$TMP/syn.dom" && ok "drops tables rendered" || fail "no drops table"
finish
