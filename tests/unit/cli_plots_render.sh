#!/bin/sh
# cli_plots_render.sh: the page of `phasor phases --plots` renders in headless Chromium
# (Debian's chromium package): a copy of index.html with a small script that, once the page
# has loaded, counts the images with naturalWidth > 0; --dump-dom must show all eight loaded.
# Without chromium it says SKIP and exits 77 (reported as skipped, never as passed).
# Usage: cli_plots_render.sh [PHASOR [MKLOG]]  (defaults: $PHASOR, $PHASES_MKLOG).
# Last line: "N passed, M failed".
phasor=${1:-${PHASOR:-./phasor}}
mklog=${2:-${PHASES_MKLOG:-./tests/unit/phases_mklog}}
chromium=$(command -v chromium || command -v chromium-browser)
if [ -z "$chromium" ]; then
    echo "SKIP cli_plots_render.sh: chromium is not installed (apt-get install chromium)"
    echo "cli_plots_render.sh: 0 passed, 0 failed, 1 skipped"
    exit 77
fi
if [ ! -x "$phasor" ] || [ ! -x "$mklog" ]; then
    echo "cli_plots_render.sh: need an executable phasor ($phasor) and phases_mklog ($mklog)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/cli_lib.sh"

render() { # name ranks iterations speed
    mkdir "$tmp/log$2"
    if ! "$mklog" "$tmp/log$2" "$2" "$3" "$4" || ! "$phasor" phases --plots -o "$tmp/out$2" \
        "$tmp/log$2" >/dev/null 2>"$tmp/err"; then
        bad "$1: phasor phases --plots"
        sed 's/^/     /' "$tmp/err" | head -5
        return
    fi
    # the marker script goes into a copy next to the figures, so relative links still hold
    sed 's|</body>|<script>window.addEventListener("load", function () { var n = 0, im = document.images; for (var i = 0; i < im.length; i++) if (im[i].complete \&\& im[i].naturalWidth > 0) n++; document.body.setAttribute("data-loaded", n + "/" + im.length); });</script></body>|' \
        "$tmp/out$2/index.html" >"$tmp/out$2/check.html"
    timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --user-data-dir="$tmp/profile" \
        --virtual-time-budget=10000 --dump-dom "file://$tmp/out$2/check.html" \
        >"$tmp/dom$2" 2>"$tmp/chr$2"
    if grep -q 'data-loaded="8/8"' "$tmp/dom$2"; then
        ok "$1: chromium loaded all 8 figures of index.html"
    else
        bad "$1: chromium loaded all 8 figures ($(grep -o 'data-loaded="[^"]*"' "$tmp/dom$2" || echo 'no marker'))"
        tail -3 "$tmp/chr$2" | sed 's/^/     /'
    fi
    if grep -q "Idle wave" "$tmp/dom$2"; then ok "$1: the summary rendered"; else bad "$1: the summary rendered"; fi
    # a broken figure must be seen: remove one and expect 7/8
    mv "$tmp/out$2/heatmap.svg" "$tmp/out$2/heatmap.svg.away"
    timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --user-data-dir="$tmp/profile" \
        --virtual-time-budget=10000 --dump-dom "file://$tmp/out$2/check.html" \
        >"$tmp/dom$2b" 2>/dev/null
    if grep -q 'data-loaded="7/8"' "$tmp/dom$2b"; then
        ok "$1: a missing figure is detected"
    else
        bad "$1: a missing figure is detected"
    fi
}

render "8 ranks" 8 40 1
render "1024 ranks" 1024 60 64
cli_done
