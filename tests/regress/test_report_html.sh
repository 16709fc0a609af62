# rooftune report --html: a page with no external resources that renders in headless Chromium
# without console errors. Without chromium the static checks still run and the test is reported
# as skipped (exit 77) with a message; ci/test.sh installs chromium (ROOFTUNE_WITH_CHROMIUM=1).
source "$(dirname "$0")/lib.sh"
base="$WORK/base.db"
make_db "$base"
new="$WORK/new.db"
copy_db "$base" "$new"
tightest=$(sql "$base" "SELECT point_id FROM samples GROUP BY point_id
                        ORDER BY MAX(seconds) / MIN(seconds), point_id LIMIT 1")
calm_point "$base" "$tightest"
copy_db "$base" "$new"
sql "$new" "UPDATE samples SET seconds = seconds * 1.3 WHERE point_id = $tightest"
html="$WORK/html"
# Two stores: the comparison fails (one point 30% slower), so the exit status is 1.
expect_exit 1 "$RT" report --html "$html" --db "$base" --db "$new"
[ -s "$html/index.html" ] || fail "no index.html"
[ ! -e "$html/.index.html.tmp" ] || fail "temporary page left behind"

python3 - "$html" <<'PY'
import html.parser, os, sys, urllib.parse
root = sys.argv[1]
page = open(os.path.join(root, "index.html"), encoding="utf-8").read()
class Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.refs = []; self.tags = []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k in ("src", "href") and v is not None:
                self.refs.append((tag, v))
p = Refs(); p.feed(page)
for tag, ref in p.refs:
    u = urllib.parse.urlparse(ref)
    assert not u.scheme and not u.netloc and not ref.startswith("//"), f"external resource: {ref}"
    if ref.startswith("#"):
        continue
    path = os.path.join(root, urllib.parse.unquote(u.path))
    assert os.path.isfile(path), f"{tag} refers to a missing file: {ref}"
assert "<link" not in page and "@import" not in page and "url(" not in page, "stylesheet import"
assert "Content-Security-Policy" in page
for text in ["Comparison", "SLOWER", "FAIL", "regress-tiny", "Runs", "spmm.cpu.csr"]:
    assert text in page, f"page lacks {text!r}"
imgs = sum(1 for tag, _ in p.refs if tag == "img")
print(f"static checks: {len(p.refs)} local references, {imgs} figures")
open(os.path.join(root, "n_images"), "w").write(str(imgs))
PY
n_images=$(cat "$html/n_images")
if command -v gnuplot >/dev/null; then
  [ "$n_images" -ge 4 ] || fail "only $n_images figures shown with gnuplot present"
fi
# One store works too (no comparison, exit 0); bad input exits 2.
expect_exit 0 "$RT" report --html "$WORK/one" --db "$base"
expect_exit 2 "$RT" report --html "$WORK/bad" --db "$WORK/missing.db"
grep -q "missing.db" <<<"$OUT" || fail "missing store not named: $OUT"
expect_exit 2 "$RT" report --db "$base"

browser=""
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null && { browser=$b; break; }
done
if [ -z "$browser" ]; then
  echo "SKIP: chromium not found: the static checks passed, the rendering check did not run"
  echo "      (install it with ci/install-deps.sh and ROOFTUNE_WITH_CHROMIUM=1)"
  exit 77
fi

# render PAGE: the DOM after load in $DOM, the browser's log in $LOG.
render() {
  DOM="$WORK/dom.html"; LOG="$WORK/chromium.log"
  timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run \
    --user-data-dir="$WORK/profile" --enable-logging=stderr --v=0 \
    --virtual-time-budget=5000 --dump-dom "file://$1" >"$DOM" 2>"$LOG" ||
    { tail -20 "$LOG"; fail "$browser failed on $1"; }
}
render "$html/index.html"
grep -q "data-figures-checked=\"$n_images\"" "$DOM" ||
  fail "the page's load handler did not check its $n_images figures: $(grep -o 'data-figures-checked="[^"]*"' "$DOM")"
if grep -q ":CONSOLE" "$LOG"; then
  fail "console messages while rendering: $(grep ':CONSOLE' "$LOG")"
fi
grep -q "Comparison" "$DOM" || fail "the rendered page lacks the comparison"

# The check can fail: a figure that does not load, and an external resource, are both caught.
sed 's|\.svg"|.missing.svg"|' "$html/index.html" >"$html/broken.html"
render "$html/broken.html"
grep -q "figure failed to load" "$LOG" || fail "a missing figure went unnoticed"
sed 's|</body>|<img src="https://example.com/x.png" alt="x"></body>|' "$html/index.html" >"$html/external.html"
render "$html/external.html"
grep -q "Content Security Policy" "$LOG" || fail "an external resource went unnoticed"
echo "report html: ok ($browser, $n_images figures, no console errors)"
