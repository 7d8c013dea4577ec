"""Open every page of the built book in headless Chromium and check that a reader sees it right.

For each page: it loads (HTTP 200, no broken local asset), every table a cell prints has padded
cells and, when wider than the page, scrolls inside its own box; every figure image has decoded
pixels, every math element has been typeset by MathJax without a parse error, no
traceback, error or stderr output appears, and every reproduction ledger's status follows the
rule from the numbers shown beside it (match iff |difference| <= tolerance).  Each page is opened
at two widths, a laptop's 1280 px and a phone's 400 px, and a full-page screenshot of each is
written to ``--screenshots``; the table rules apply at both, and at 1280 px every reproduction
ledger fits the page's width (its notes wrap) and no code cell's box scrolls sideways (every
line of at most 88 characters, the chapters' limit, shows whole).  At 1280 px every figure's smallest
text (recorded in the PNG by ``spalib.plotting``) must show at least 8 px high.  Every chapter's
download menu must offer an executed ``.ipynb`` with outputs, whose text holds no MyST role and
whose solutions are hidden.  Exit status 1 if any page fails.

The pages are opened with the network off: every outside request is refused, so maths is typeset
only if the book serves MathJax itself (``make book`` copies it into ``_static/mathjax``); a page
that asks for MathJax from outside fails, other refused requests are listed.

Usage: python tests/browser/check_html.py _build/html --screenshots _build/screenshots
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import sys
import threading
from pathlib import Path

SKIP = {"genindex.html", "search.html"}
WIDTHS = (1280, 400)            # a laptop, a phone
MIN_FONT_PX = 8                 # a figure's smallest text as the page shows it, at 1280 px
MIN_FONT_KEY = "spalib-min-font-px"   # spalib.plotting.MIN_FONT_KEY
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_executable() -> str:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/lib/chromium/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    raise SystemExit("no Chromium found: install Debian's `chromium` package (apt-get install chromium)")


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


ALL_MATH_TYPESET = """() => document.querySelectorAll('mjx-container').length
                        >= document.querySelectorAll('.math').length"""

PAGE_PROBE = """() => {
  const imgs = [...document.querySelectorAll('article img, main img')];
  const math = [...document.querySelectorAll('.math')];
  const bad_outputs = [...document.querySelectorAll(
      '.output.traceback, .output.error, .output.stderr, .cell_output .stderr')];
  const text = document.body.innerText;
  return {
    title: document.title,
    text_length: text.length,
    images: imgs.length,
    broken_images: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
    image_sizes: imgs.map(i => ({src: i.getAttribute('src'), natural: i.naturalWidth,
                                 shown: i.getBoundingClientRect().width})),
    notebook: [...document.querySelectorAll('a')].map(a => a.getAttribute('href'))
                  .find(h => h && h.endsWith('.ipynb')) || null,
    math: math.length,
    typeset: document.querySelectorAll('mjx-container').length,
    math_errors: document.querySelectorAll('mjx-merror').length,
    mathjax_scripts: [...document.querySelectorAll('script[src*="mathjax/"]')].length,
    bad_outputs: bad_outputs.map(e => e.textContent.trim().slice(0, 200)),
    traceback: text.includes('Traceback (most recent call last)'),
    tables: [...document.querySelectorAll('.cell_output table')].map(t => {
      const cell = t.querySelector('td, th');
      const pad = cell ? parseFloat(getComputedStyle(cell).paddingLeft) : 1;
      let box = t.parentElement, scrolls = false;
      while (box && !box.matches('article, main, body')) {
        if (['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) { scrolls = true; break; }
        box = box.parentElement;
      }
      const page = t.closest('article, main') || document.body;
      const ledger = [...t.querySelectorAll('th')].some(h => h.textContent.trim() === 'status');
      const fits = t.getBoundingClientRect().width <= t.parentElement.clientWidth + 1;
      return {padding: pad, wide: t.getBoundingClientRect().width > page.clientWidth + 1, scrolls,
              ledger, fits};
    }),
    ledgers: [...document.querySelectorAll('table')].map(t => {
      const headRow = [...t.querySelectorAll('thead tr')].find(
          r => [...r.children].some(h => h.textContent.trim() === 'status'));
      if (!headRow) return null;
      const head = [...headRow.children].map(h => h.textContent.trim());
      if (!head.includes('status') || !head.includes('tolerance')) return null;
      const col = name => head.indexOf(name) - head.length;   // from the right: index cells vary
      return [...t.querySelectorAll('tbody tr')].map(r => {
        const cells = [...r.children].map(c => c.textContent.trim());
        const at = name => cells[cells.length + col(name)];
        return {label: cells[0], difference: at('|difference|'), tolerance: at('tolerance'),
                status: at('status')};
      });
    }).filter(x => x),
    // code cells shown on the page (a collapsed one has no box) whose lines do not fit
    wideCode: [...document.querySelectorAll('div.cell_input pre')]
      .filter(p => p.getClientRects().length && p.scrollWidth > p.clientWidth + 1)
      .map(p => p.textContent.split(String.fromCharCode(10)).reduce((a, l) => l.length > a.length ? l : a, '')),
  };
}"""


def ledger_problems(ledgers: list) -> list[str]:
    """Rows whose status does not follow the ledger's rule from the numbers shown."""
    problems = []
    for rows in ledgers:
        for row in rows:
            status, diff, tol = row["status"], row["difference"], row["tolerance"]
            kind = status.split(":")[0]
            if kind not in ("match", "differs", "different data", "not in the data"):
                problems.append(f"ledger row {row['label']!r}: unknown status {status!r}")
            elif kind in ("match", "differs"):
                try:
                    diff, tol = float(diff), float(tol)
                except ValueError:
                    problems.append(f"ledger row {row['label']!r}: {kind} without numbers")
                    continue
                # shown to 4 significant digits: rounding keeps <= but can turn > into ==
                if (kind == "match") != (diff <= tol) and diff != tol:
                    problems.append(f"ledger row {row['label']!r}: {status!r} with |difference| "
                                    f"{diff} and tolerance {tol}")
            elif tol not in ("—", "", "nan"):
                problems.append(f"ledger row {row['label']!r}: {kind} with a tolerance {tol}")
    return problems


def figure_problems(page_path: Path, images: list) -> list[str]:
    """Figures whose smallest text shows below MIN_FONT_PX, or that do not record it."""
    from PIL import Image

    problems = []
    for image in images:
        if not image["src"] or not image["natural"]:
            continue                 # a broken image is reported on its own
        png = (page_path.parent / image["src"]).resolve()
        if "_images" not in png.parts:
            continue                 # the theme's own images
        recorded = Image.open(png).info.get(MIN_FONT_KEY)
        if recorded is None:
            problems.append(f"figure {png.name} does not record its smallest text "
                            "(call spalib.plotting.set_book_style() in the chapter)")
            continue
        shown = float(recorded) * image["shown"] / image["natural"]
        if shown < MIN_FONT_PX:
            problems.append(f"figure {png.name}: smallest text {shown:.1f} px as shown "
                            f"(under {MIN_FONT_PX} px; {float(recorded):.1f} px in the image, "
                            f"shown at {image['shown']:.0f} of {image['natural']} px)")
    return problems


def notebook_problems(page_path: Path, href: str | None) -> list[str]:
    """The chapter's downloadable notebook: present, with outputs, roles written out, solutions hidden."""
    import json

    if href is None:
        return ["no .ipynb in the download menu"]
    notebook = (page_path.parent / href).resolve()
    if not notebook.is_file():
        return [f"the download menu's notebook {href} is missing"]
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    problems = [f"notebook {notebook.name}: raw MyST {token!r} in its text"
                for token in ("{glue:text}`", "{ref}`", "{cite:", "```{exercise}",
                              "```{solution") if token in text]
    code = [c for c in cells if c["cell_type"] == "code"]
    if code and not any(c.get("outputs") for c in code):
        problems.append(f"notebook {notebook.name}: no outputs, though its preface promises the run's")
    exercises = text.count("**Exercise ")
    hidden = sum(c["metadata"].get("jupyter", {}).get("source_hidden", False) for c in cells)
    if exercises and not hidden and "<details>" not in text:
        problems.append(f"notebook {notebook.name}: {exercises} exercises, no hidden solution")
    return problems


def check(html: Path, shots: Path) -> int:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout, sync_playwright

    pages = sorted(p for p in html.rglob("*.html")
                   if p.name not in SKIP and not {"_static", "_sources", "_images"} & set(p.parts))
    if not any(p.name == "index.html" for p in pages):
        print(f"{html}/index.html is missing: build the book first (make book)")
        return 1
    shots.mkdir(parents=True, exist_ok=True)
    server, base = serve(html)
    failures = 0
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_FLAGS)
            refused: list[str] = []

            def route(r):
                url = r.request.url
                if url.startswith(base):
                    return r.continue_()
                refused.append(url.split("?")[0])
                return r.abort()

            contexts = {}
            for width in WIDTHS:
                contexts[width] = browser.new_context(viewport={"width": width, "height": 900})
                contexts[width].route("**/*", route)
            for path, width in ((p, w) for p in pages for w in WIDTHS):
                context = contexts[width]
                rel = path.relative_to(html).as_posix()
                page = context.new_page()
                local_failures: list[str] = []
                first_refused = len(refused)
                page.on("response", lambda resp, lf=local_failures: lf.append(f"{resp.status} {resp.url}")
                        if resp.url.startswith(base) and resp.status >= 400 else None)
                response = page.goto(base + rel, wait_until="networkidle")
                problems = []
                if response is None or response.status != 200:
                    problems.append(f"HTTP {response.status if response else 'no response'}")
                reloaded = False
                if page.locator(".math").count():
                    # Wait until every formula is typeset, not for the first one or for MathJax's
                    # start-up promise: twice a cold first page was probed mid-typesetting (0 of 23).
                    # MathJax once typeset 0 of 23 in 30 s, when its lazy part was still a page
                    # script (checked below): such a page gets one reload, then fails.
                    for attempt in range(2):
                        try:
                            page.wait_for_function(ALL_MATH_TYPESET, timeout=30_000)
                            break
                        except PlaywrightTimeout:
                            if attempt == 0:
                                reloaded = True
                                page.reload(wait_until="networkidle")
                info = page.evaluate(PAGE_PROBE)
                if info["text_length"] < 200:
                    problems.append(f"almost no text ({info['text_length']} characters)")
                if info["broken_images"]:
                    problems.append(f"images that did not load: {info['broken_images']}")
                if info["math"] and info["typeset"] < info["math"]:
                    problems.append(f"math not typeset: {info['typeset']} of {info['math']}")
                if info["mathjax_scripts"] > 1:
                    # one MathJax, which loads its own parts: a second copy or its lazy-typesetting
                    # part listed as a page script is what left formulas untypeset (_ext/static_mathjax.py)
                    problems.append(f"{info['mathjax_scripts']} MathJax scripts on the page, not 1")
                if info["math_errors"]:
                    problems.append(f"{info['math_errors']} MathJax errors")
                if info["bad_outputs"] or info["traceback"]:
                    problems.append(f"error output on the page: {info['bad_outputs'] or 'a traceback'}")
                if local_failures:
                    problems.append(f"failed requests: {local_failures}")
                problems += ledger_problems(info["ledgers"])
                unpadded = sum(t["padding"] < 2 for t in info["tables"])
                if unpadded:
                    problems.append(f"{unpadded} table(s) without cell padding")
                clipped = sum(t["wide"] and not t["scrolls"] for t in info["tables"])
                if clipped:
                    problems.append(f"{clipped} table(s) wider than the page without a scroll box")
                unfit = sum(t["ledger"] and not t["fits"] for t in info["tables"])
                if unfit and width == WIDTHS[0]:
                    problems.append(f"{unfit} reproduction ledger(s) wider than the page at {width} px")
                if info["wideCode"] and width == WIDTHS[0]:
                    problems.append(f"{len(info['wideCode'])} code cell(s) scroll sideways at {width} px, "
                                    f"e.g. {info['wideCode'][0][:70]!r}")
                if width == WIDTHS[0]:      # once per page: the figures at laptop width
                    problems += figure_problems(path, info["image_sizes"])
                    if rel.startswith("chapters/"):
                        problems += notebook_problems(path, info["notebook"])
                outside_maths = [u for u in refused[first_refused:] if "mathjax" in u.lower()]
                if outside_maths:
                    problems.append(f"MathJax requested from outside the book: {outside_maths[0]}")
                name = rel.replace("/", "__").removesuffix(".html")
                page.screenshot(path=str(shots / f"{name}__{width}.png"), full_page=True)
                page.close()
                status = "ok  " if not problems else "FAIL"
                print(f"{status} {rel:35s} {width:4d} px  images {info['images']:2d}  math {info['typeset']:3d}/{info['math']:<3d}"
                      f" {info['title'][:50]}")
                if reloaded:
                    print("       (reloaded once: MathJax had not typeset every formula after 30 s)")
                for p in problems:
                    print(f"       {p}")
                failures += bool(problems)
            browser.close()
    finally:
        server.shutdown()
    if refused:
        print(f"(refused {len(set(refused))} outside request(s), e.g. {sorted(refused)[0]})")
    print(f"{len(pages) * len(WIDTHS) - failures} page views passed, {failures} failed "
          f"({len(pages)} pages at {' and '.join(map(str, WIDTHS))} px); screenshots in {shots}")
    return 1 if failures else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("html", type=Path)
    parser.add_argument("--screenshots", type=Path, default=Path("_build/screenshots"))
    args = parser.parse_args(argv)
    return check(args.html, args.screenshots)


if __name__ == "__main__":
    sys.exit(main())
