#!/bin/sh
# cli_plots.sh: `phasor phases --plots` on synthetic logs of phases_mklog (a chain with an
# idle wave): every SVG is well-formed XML with a title, labelled axes and its data elements;
# index.html links the eight figures relatively and loads nothing from outside; 1024 ranks
# are aggregated (density ring, block rows, bounded point counts and file sizes).
# Usage: cli_plots.sh [PHASOR [MKLOG]]  (defaults: $PHASOR, $PHASES_MKLOG).
# Last line: "N passed, M failed"; exit status 0 only if none failed.
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${PHASES_MKLOG:-./tests/unit/phases_mklog}}
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ] || ! command -v python3 >/dev/null 2>&1; then
    echo "cli_plots.sh: need an executable phasor ($phasor), phases_mklog ($mklog) and python3" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

mkdir "$tmp/log8" "$tmp/log1k"
"$mklog" "$tmp/log8" 8 40 1 || bad "phases_mklog 8 ranks"
"$mklog" "$tmp/log1k" 1024 80 32 || bad "phases_mklog 1024 ranks"

expect_exit "phases --help lists --plots" 0 "$phasor" phases --help
grep -q -- "--plots" "$tmp/out" && ok "help text has --plots" || bad "help text has --plots"
expect_exit "--plots without -o is a usage error" 2 "$phasor" phases --plots "$tmp/log8"
grep -q -- "--plots needs -o" "$tmp/err" && ok "the message names -o" || bad "the message names -o"
expect_exit "--plots into an unwritable place exits 1" 1 "$phasor" phases --plots -o /proc/phasor-no "$tmp/log8"

expect_exit "phases --plots, 8 ranks" 0 "$phasor" phases --plots --json -o "$tmp/p8" "$tmp/log8"
cp "$tmp/out" "$tmp/p8.json"
expect_exit "phases --plots, 1024 ranks" 0 "$phasor" phases --plots --json -o "$tmp/p1k" "$tmp/log1k"
cp "$tmp/out" "$tmp/p1k.json"
# a fine grid: 40000 points must come out as at most 2000 per series
expect_exit "phases --plots, 40000 grid points" 0 "$phasor" phases --plots --dt 97 --points 40000 \
    -o "$tmp/pfine" "$tmp/log8"
# the heatmap wrapped as the paper's unless asked, whatever --wrap does to the other outputs
expect_exit "phases --plots --heatmap unwrapped" 0 "$phasor" phases --plots --heatmap unwrapped \
    -o "$tmp/punw" "$tmp/log8"
expect_exit "--heatmap with a bad value is a usage error" 2 "$phasor" phases --heatmap bogus "$tmp/log8"
check "heatmap.svg wrapped by default" "grep -q 'theta_j - theta_i, wrapped' '$tmp/p8/heatmap.svg'"
check "heatmap.svg unwrapped on request" "! grep -q 'theta_j - theta_i, wrapped' '$tmp/punw/heatmap.svg' && grep -q 'theta_j - theta_i' '$tmp/punw/heatmap.svg'"

# Each check prints "ok|FAIL name" lines; python does the XML work.
python3 - "$tmp" <<'PYEOF' >"$tmp/py.out" 2>&1
import json, os, re, sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

tmp = sys.argv[1]
NS = "{http://www.w3.org/2000/svg}"
FIGS = ["circle.svg", "order.svg", "entropy.svg", "gradient.svg", "dtheta.svg",
        "dtheta_hist.svg", "heatmap.svg", "potential.svg"]

def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else "  " + detail))

def load(d, f):
    try:
        return ET.parse(os.path.join(tmp, d, f)).getroot()
    except Exception as e:  # parse errors are failures, named
        check(d + "/" + f + " parses as XML", False, str(e))
        return None

def texts(root):
    return [("".join(t.itertext())) for t in root.iter(NS + "text")]

def points(pl):
    return len(pl.get("points").split())

for d, P in (("p8", 8), ("p1k", 1024), ("pfine", 8)):
    summ = None
    if d != "pfine":
        summ = json.load(open(os.path.join(tmp, d + ".json")))
        check(d + ": JSON lists every figure and index.html",
              all(f in summ["files"] for f in FIGS + ["index.html"]))
    for f in FIGS:
        root = load(d, f)
        if root is None:
            continue
        check(d + "/" + f + " parses, root is svg", root.tag == NS + "svg")
        t = root.find(NS + "title")
        check(d + "/" + f + " has a title", t is not None and len(t.text or "") > 5)
        check(d + "/" + f + " size below 2 MB",
              os.path.getsize(os.path.join(tmp, d, f)) < 2 << 20)
        tx = " | ".join(texts(root))
        pls = list(root.iter(NS + "polyline"))
        rects = list(root.iter(NS + "rect"))
        if f in ("order.svg", "entropy.svg", "potential.svg", "dtheta.svg", "gradient.svg"):
            check(d + "/" + f + " has a time axis with units", re.search(r"time \((us|ms|s)\)", tx) is not None, tx[:200])
        if f in ("order.svg", "entropy.svg", "potential.svg", "dtheta.svg"):
            check(d + "/" + f + " has a curve of at most 2000 points",
                  len(pls) >= 1 and max(points(p) for p in pls) <= 2000,
                  str([points(p) for p in pls]))
            check(d + "/" + f + " has a legend", root.find(".//" + NS + "g[@class='legend']") is not None)
            check(d + "/" + f + " marks the idle wave's source", "delay: rank 0" in tx)
            check(d + "/" + f + " shades the excursions below R*",
                  any(r.find(NS + "title") is not None and "R < 0.90" in r.find(NS + "title").text for r in rects))
        if f == "order.svg":
            check(d + "/order.svg y axis is R", "R (1 = in phase" in tx)
            if d == "pfine":
                n = max(points(p) for p in pls)
                check("pfine/order.svg: 40000 points drawn as 1000-2000 with a min-max band",
                      1000 <= n <= 2000 and root.find(".//" + NS + "polygon") is not None, str(n))
        if f == "circle.svg":
            snaps = root.findall(".//" + NS + "g[@class='snapshot']")
            check(d + "/circle.svg has the snapshots", len(snaps) >= 5, str(len(snaps)))
            ranks = [c for c in root.iter(NS + "circle") if c.find(NS + "title") is not None]
            if P <= 256:
                check(d + "/circle.svg: one point per rank and snapshot", len(ranks) == P * len(snaps), str(len(ranks)))
            else:
                check(d + "/circle.svg: 1024 ranks as a density ring, no points", len(ranks) == 0 and
                      any("ranks" in (l.findtext(NS + "title") or "") for l in root.iter(NS + "line")))
        if f == "gradient.svg":
            check(d + "/gradient.svg has a rank axis and a colour bar", "rank" in tx and "g_i (rad)" in tx)
            arr = [c for c in root.iter(NS + "circle") if c.get("stroke") == "#d62728"]
            check(d + "/gradient.svg marks the wave's arrival on every rank", len(arr) == P, str(len(arr)))
            check(d + "/gradient.svg raster bounded", len(rects) < 128 * 400 + 100, str(len(rects)))
        if f == "dtheta.svg":
            check(d + "/dtheta.svg: percentile bands for many pairs",
                  len(list(root.iter(NS + "polygon"))) >= 2)
            check(d + "/dtheta.svg: far pair (P-1, 0) drawn", "theta_0 - theta_%d" % (P - 1) in tx, tx[-300:])
        if f == "dtheta_hist.svg":
            check(d + "/dtheta_hist.svg: one curve per snapshot, axes",
                  len(pls) >= 5 and "fraction of pairs" in tx and "dtheta (rad)" in tx)
        if f == "heatmap.svg":
            check(d + "/heatmap.svg: rank axes, colour bar, cells",
                  "rank i" in tx and "rank j" in tx and len(rects) > 10)
            panels = root.findall(".//" + NS + "g[@class='snapshot']")
            check(d + "/heatmap.svg: 4 snapshots, the lowest R among them",
                  len(panels) == 4 and "(lowest)" in tx, str(len(panels)))
            if P > 64:
                check(d + "/heatmap.svg: blocks of ranks", "blocks of ranks" in tx)
    # index.html
    class P_(HTMLParser):
        def __init__(s):
            super().__init__(); s.imgs = []; s.ext = []
        def handle_starttag(s, tag, a):
            a = dict(a)
            if tag == "img": s.imgs.append(a.get("src"))
            for k in ("src", "href"):
                if a.get(k) and re.match(r"^[a-z]+:", a[k]): s.ext.append(a[k])
            if tag in ("script", "link"): s.ext.append(tag)
    page = open(os.path.join(tmp, d, "index.html")).read()
    p = P_(); p.feed(page)
    check(d + "/index.html shows the eight figures by relative links", p.imgs == FIGS, str(p.imgs))
    check(d + "/index.html loads nothing from outside", p.ext == [], str(p.ext))
    check(d + "/index.html has a caption per figure", page.count("<figcaption>") == 8)
    if summ is not None:
        w = summ["wave"]
        check(d + "/index.html gives the idle wave speed",
              ("speed %.4g ranks per iteration" % w["ranks_per_iteration"]) in page)
        x = summ["resync"]["excursions"]
        check(d + "/index.html lists the resynchronisations", len(x) > 0 and
              page.count("<tr><td>") >= len(x))
PYEOF
cat "$tmp/py.out"
passed=$((passed + $(grep -c '^ok ' "$tmp/py.out")))
failed=$((failed + $(grep -c '^FAIL' "$tmp/py.out")))
grep -q -E '^(ok|FAIL)' "$tmp/py.out" || bad "python checks ran"
grep -q Traceback "$tmp/py.out" && bad "python checks crashed"
cli_done
