#!/usr/bin/env bash
# A picture of a batch's class.html, taken with headless Chromium (Debian's `chromium` package:
# apt-get install chromium), for a note or a slide; the page itself needs no browser to check.
#   bash grader/scripts/class_screenshot.sh [GRADES_DIR | class.html] [OUT.png] [WIDTHxHEIGHT]
# GRADES_DIR is a `grader batch --out` folder (default: the newest *-grades/ here); OUT defaults
# to class.png beside the page.
set -euo pipefail

page=${1:-$(ls -td ./*-grades/ 2>/dev/null | head -n1)}
[[ -n $page ]] || { echo "class_screenshot: error: no *-grades/ folder here: name the batch's --out folder or its class.html" >&2; exit 2; }
[[ -d $page ]] && page=$page/class.html
[[ -f $page ]] || { echo "class_screenshot: error: $page does not exist: run python3 -m grader batch <lab> <folder> first" >&2; exit 2; }
out=${2:-$(dirname "$page")/class.png}
size=${3:-1100x1400}

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[[ -n $browser ]] || { echo "class_screenshot: error: no Chromium found: install it (Debian: apt-get install chromium) or open $page in any browser" >&2; exit 2; }

# --no-sandbox: as root (a container) Chromium refuses to start with its own sandbox; the page
# is the grader's own, with no script and nothing fetched.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="${size/x/,}" \
    --screenshot="$(realpath -m "$out")" "file://$(realpath "$page")" >/dev/null 2>&1 \
    || { echo "class_screenshot: error: $browser could not take the screenshot of $page (run it by hand to see why)" >&2; exit 1; }
echo "wrote $out"
