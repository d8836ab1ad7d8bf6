"""report.html in a real browser: Debian's chromium, headless and offline, 1000 and 400 px wide.

A copy of the page gets a script that, once the page has loaded, measures it. It records
which folded parts were open, clicks each part's summary (which must open it), opens every
folded section and then finds: every figure drawn once, in the drawing that fits the
width, and shaped as drawn; the size every text of a figure is drawn at; every element
past the right edge of the content column outside a table's scrolling box; every box
that scrolls sideways, and whether the page does; header cells on more than two lines;
links of the table of contents that lead nowhere, and sections it leaves out; and every
error the page raised. It posts its findings as JSON to the page that holds it.

That page holds the report in an iframe as wide as the width tested: headless chromium's
window is never narrower than 500 px, and an iframe is a viewport of its own, which the
report's style reads as a phone's. Chromium's ``--dump-dom`` prints the holder, the
findings in it. A second run takes a screenshot. Without chromium the tests are skipped,
unless the environment variable CI is set: CI must run them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import IN_CI, TAU_BENCH

import passk_lab as pk

CHROMIUM = shutil.which("chromium")
DESK, PHONE = 1000, 400
COLUMN = 960
"""The page's column at 1000 px: 60rem of content, 1rem of padding each side, centred."""
READABLE = 9.0
"""The size, in CSS px, a figure's text is drawn at (the median of its texts: ticks, labels,
keys; a formula's at its largest glyph, not its superscript) at 1000 px, and at 400 px where
the figure's keys let it be drawn narrow. Its smallest text may be 0.8 of it."""
CROWDED = 6.5
"""The same at 400 px where keys beside a figure, of long names, keep it wide: the forest, the
map of pairs and the curve of four groups named as evaluations name them (measured: 7.1, 8.7
and 8.7 px; the wide drawing scaled to the column gave 5 px)."""


CHECKS = r"""
<script>
(() => {
  const errors = [];
  window.addEventListener("error", (event) => {
    const target = event.target;
    errors.push(target && target !== window ? `failed to load ${target.tagName}` : event.message);
  }, true);
  const log = console.error;
  console.error = (...args) => { errors.push(args.map(String).join(" ")); log(...args); };
  const lines = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const rects = [...range.getClientRects()].filter((rect) => rect.width > 0)
      .sort((one, other) => one.top - other.top);
    let count = 0;
    let bottom = -Infinity;
    for (const rect of rects) {  // a superscript overlaps the line it is raised on
      if (rect.top >= bottom - 1) count += 1;
      bottom = rect.top >= bottom - 1 ? rect.bottom : Math.max(bottom, rect.bottom);
    }
    return count;
  };
  const shown = (element) => element.getClientRects().length > 0;
  const BOXES = "header, main, nav, figure, div, table, dl, details, p";
  const name = (element) =>
    `${element.tagName.toLowerCase()}: ${element.textContent.trim().slice(0, 40)}`;
  const measure = () => {
    const parts = [...document.querySelectorAll("details.part")];
    const target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    const found = {
      parts: parts.length,
      open_at_load: parts.filter((part) => part.open).length,
      linked_open: target ? Boolean(target.closest("details")?.open) : null,
      clicked_open: parts.filter((part) => {
        if (part.open) return false;
        part.querySelector("summary").click();
        return part.open;
      }).length,
    };
    document.querySelectorAll("details").forEach((details) => { details.open = true; });
    const body = document.body;
    const padding = parseFloat(getComputedStyle(body).paddingRight);
    const right = body.getBoundingClientRect().right - padding;
    const figures = [...document.querySelectorAll("figure.plot")];
    const drawings = figures.map((figure) => {
      const visible = [...figure.querySelectorAll("svg")].filter(shown);
      const svg = visible[0];
      if (!svg) return { shown: 0 };
      const rect = svg.getBoundingClientRect();
      const box = svg.viewBox.baseVal;
      // a text's size: its own, or a formula's (a tspan a glyph), its largest glyph's, not
      // that of a superscript
      const writes = (element) =>
        [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim());
      const size = (element) => {
        const matrix = element.getScreenCTM();
        return parseFloat(getComputedStyle(element).fontSize) * Math.hypot(matrix.a, matrix.b);
      };
      const sizes = [...svg.querySelectorAll("text")]
        .map((text) => [text, ...text.querySelectorAll("tspan")].filter(writes).map(size))
        .filter((glyphs) => glyphs.length)
        .map((glyphs) => Math.max(...glyphs));
      return {
        shown: visible.length,
        kind: svg.parentElement.className,
        width: rect.width,
        shape: (rect.height / rect.width) / (box.height / box.width),
        texts: sizes.length,
        sizes,
      };
    });
    const headings = [...document.querySelectorAll("main h2[id]")].map((h2) => h2.id);
    const links = [...document.querySelectorAll("nav#contents a")]
      .map((link) => link.getAttribute("href"));
    Object.assign(found, {
      width: window.innerWidth,
      drawings,
      past_column: [...body.querySelectorAll("*")]  // a drawing's marks: its svg, clipped
        .filter((element) => !element.closest("div.table") && !element.ownerSVGElement)
        .filter((element) => element.getBoundingClientRect().right > right + 0.5)
        .map(name),
      scrolling: [document.documentElement, body, ...body.querySelectorAll(BOXES)]
        .filter((element) => element.scrollWidth > element.clientWidth)
        .map((element) => element.matches("div.table") ? "table box" : name(element)),
      page_scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      header_lines: Math.max(...[...body.querySelectorAll("th")].map(lines)),
      links,
      dead_links: links.filter((href) => !document.getElementById(href.slice(1))),
      unlisted: headings.filter((id) => !links.includes(`#${id}`)),
      tables: body.querySelectorAll("table").length,
      viewport: document.querySelector('meta[name="viewport"]')?.content ?? null,
      h1_lines: lines(document.querySelector("h1")),
      errors,
    });
    parent.postMessage(JSON.stringify(found), "*");
  };
  window.addEventListener("load", () => setTimeout(measure, 50));
})();
</script>
"""

HOLDER = """<!DOCTYPE html>
<html><body style="margin:0">
<iframe src="{src}" style="border:0;display:block;width:{width}px;height:{height}px"></iframe>
<pre id="passk-checks"></pre>
<script>
addEventListener("message", (event) => {{
  document.getElementById("passk-checks").textContent = event.data;
}});
</script>
</body></html>
"""


def chromium(*args: str, profile) -> subprocess.CompletedProcess[str]:
    """Run headless chromium with no network and its own profile folder."""
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


def checked(page: Path, width: int, folder: Path, fragment: str = "") -> dict:
    """Load `page` `width` px wide (at `fragment`, if given) and return what CHECKS found."""
    copy = folder / "checked.html"
    copy.write_text(
        page.read_text(encoding="utf-8").replace("</head>", f"{CHECKS}</head>", 1),
        encoding="utf-8",
    )
    holder = folder / f"holder-{width}.html"
    src = f"{copy.name}#{fragment}" if fragment else copy.name
    holder.write_text(HOLDER.format(src=src, width=width, height=900), encoding="utf-8")
    shown = chromium(
        f"--window-size={max(width, 500) + 20},1000",
        "--hide-scrollbars",  # as a phone's: over the page, taking none of its width
        "--virtual-time-budget=20000",
        "--dump-dom",
        holder.as_uri(),
        profile=folder / "profile",
    )
    start = shown.stdout.index('<pre id="passk-checks">') + len('<pre id="passk-checks">')
    text = shown.stdout[start : shown.stdout.index("</pre>", start)]
    assert text, f"the page posted no findings: {shown.stderr[-2000:]}"
    return json.loads(text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


def require_chromium() -> None:
    """Skip where chromium is missing, or fail in CI, which must render the page."""
    if CHROMIUM is None:
        if IN_CI:
            pytest.fail("CI is set and chromium is missing: install it (apt-get install chromium)")
        pytest.skip("chromium is not installed: the page cannot be rendered (CI installs it)")


LONG_NAMES = ("claude-3-7-sonnet-20250219", "gpt-4.1-2025-04-14")
"""Model names as evaluations write them: the tables must fit them, beside a domain, in 1000 px."""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Two long-named models in two domains, 12 tasks x 6 runs each, by model and domain.

    Two of one group's runs errored, and one group's tasks are 3 that never pass, 3 that
    always pass and 6 alike: its fit is the zero/one-inflated one, whose table is the widest.
    """
    require_chromium()
    groups = [
        pk.simulate_coin(p=p, tasks=12, k=6, seed=seed).assign(
            model=model, domain=domain, error=None
        )
        for seed, (model, p, domain) in enumerate(
            [
                (model, p, domain)
                for model, p in zip(LONG_NAMES, (0.8, 0.6), strict=True)
                for domain in ("airline", "telecom")
            ]
        )
    ]
    passes = np.array([0] * 3 + [6] * 3 + [3, 4, 3, 4, 3, 4])  # the inflated group's tasks
    inflated = groups[-1]
    inflated["passed"] = inflated["run"].to_numpy() < passes[inflated["task"].to_numpy()]
    runs = pd.concat(groups, ignore_index=True)
    runs.loc[[0, 4], ["passed", "error"]] = [False, "TimeoutError"]
    out = tmp_path_factory.mktemp("report")
    pk.report.write_report(
        runs, out, by=["model", "domain"], n_resamples=200, source="two models.csv"
    )
    return out / "report.html"


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """tau-bench's gpt-4o on airline: one agent, its runs drawn and counted in the open."""
    require_chromium()
    out = tmp_path_factory.mktemp("single")
    runs = pk.io.read_tau_bench(TAU_BENCH / "gpt-4o-airline.json")
    pk.report.write_report(runs, out, n_resamples=200, source="gpt-4o-airline.json")
    return out / "report.html"


FIGURES = {"report": 3 + 4 * 2, "single": 3}
"""Figures of each page: the decay curve, the forest and the pairwise map, and per group its
runs and its tasks by runs passed (4 groups); one agent's decay curve, runs and counts."""


@pytest.mark.parametrize("width", [DESK, PHONE])
@pytest.mark.parametrize("which", ["report", "single"])
def test_the_page_fits_its_column_its_figures_read_and_its_contents_lead_somewhere(
    which, width, request, tmp_path
):
    page = request.getfixturevalue(which)
    text = page.read_text(encoding="utf-8")
    if which == "report":
        assert 'id="errors"' in text  # the grouped page, with its errors section
        assert "zero/one-inflated" in text  # the widest fit table is on the page
    found = checked(page, width, tmp_path)
    assert found["width"] == width
    assert found["viewport"] == "width=device-width, initial-scale=1"
    assert found["errors"] == []
    # every figure drawn once, in the drawing made for the width, shaped as drawn
    drawings = found["drawings"]
    assert len(drawings) == FIGURES[which]
    assert {drawing["shown"] for drawing in drawings} == {1}
    # the forest's keys are as wide as its wide drawing: it has no narrow one
    assert {drawing["kind"] for drawing in drawings} <= {
        "wide" if width == DESK else "narrow",
        "any",
    }
    crowded = 3 if (which, width) == ("report", PHONE) else 0  # the first three, see CROWDED
    for index, drawing in enumerate(drawings):
        assert drawing["shape"] == pytest.approx(1.0, abs=0.01)
        assert drawing["texts"] > 5
        sizes = np.array(drawing["sizes"])
        readable = CROWDED if index < crowded else READABLE
        assert np.median(sizes) >= readable, (index, sorted(sizes))
        assert (sizes >= 0.8 * readable).all(), (index, sorted(sizes))
    # nothing past the column but inside a table's box; only such boxes scroll, never the page
    assert found["past_column"] == []
    assert found["page_scroll"] == 0
    if width == DESK:
        assert found["scrolling"] == []  # every table fits 1000 px
        assert found["h1_lines"] == 1
    else:
        assert set(found["scrolling"]) <= {"table box"}
        assert found["h1_lines"] >= 2  # the heading wraps, inside the column
    assert found["header_lines"] <= (2 if width == DESK else 3)
    # the contents lead to every section and every group's part
    assert found["dead_links"] == []
    assert found["unlisted"] == []
    assert len(found["links"]) == len(set(found["links"]))
    if which == "report":
        assert "#runs-model-gpt-4.1-2025-04-14-domain-telecom" in found["links"]
        # several groups' parts start folded, and a click on a summary opens one
        assert (found["parts"], found["open_at_load"], found["clicked_open"]) == (4, 0, 4)
    else:
        assert found["parts"] == 0


def test_a_link_to_a_folded_part_opens_it(report, tmp_path):
    found = checked(report, DESK, tmp_path, fragment="runs-model-gpt-4.1-2025-04-14-domain-telecom")
    assert found["linked_open"] is True
    assert found["open_at_load"] == 1  # that part alone


def screenshot(page: Path, width: int, height: int, folder: Path) -> np.ndarray:
    """Return a screenshot of `page` at `width` px, its top `height` px, as grey levels."""
    from PIL import Image

    holder = folder / "shot.html"
    holder.write_text(HOLDER.format(src=page.as_uri(), width=width, height=height))
    shot = folder / "shot.png"
    chromium(
        f"--window-size={max(width, 500)},{height}",
        "--hide-scrollbars",
        "--virtual-time-budget=5000",
        f"--screenshot={shot}",
        holder.as_uri(),
        profile=folder / "profile",
    )
    with Image.open(shot) as image:
        return np.asarray(image.convert("L"))[:, :width]


@pytest.mark.parametrize("width", [DESK, PHONE])
def test_a_screenshot_shows_the_page_within_its_column(report, width, tmp_path):
    pixels = screenshot(report, width, 2000, tmp_path)
    assert pixels.shape == (2000, width)
    assert (pixels < 128).mean() > 0.01  # text and figures, not a blank page
    assert (pixels > 250).mean() > 0.5  # on a white page
    # the column is centred with 1rem (16 px) of padding a side, 60rem (960 px) at most: past
    # it nothing is drawn, a table wider than it scrolls inside its box
    margin = (width - min(width - 32, COLUMN)) // 2
    assert (pixels[:, width - margin + 1 :] > 250).all()
