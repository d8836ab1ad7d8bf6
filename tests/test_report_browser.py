"""report.html in a real browser: Debian's chromium, headless and offline, 1000 px wide.

A copy of the page gets a script that, once the page has loaded, opens every folded
section and measures it: every image loaded, no element past the right edge of the
content column, no table or box that scrolls sideways, no header cell on more than two
lines (data cells never wrap: the page sets them on one line, so a table too wide scrolls,
which the check of scrolling boxes finds), and every error the page raised. It writes its
findings into the page as JSON, which ``--dump-dom`` prints. A second run takes a
screenshot of the page itself. Without chromium the tests are skipped, unless the
environment variable CI is set: CI must run them.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from conftest import IN_CI

import passk_lab as pk

WIDTH = 1000
CHROMIUM = shutil.which("chromium")

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
  window.addEventListener("load", () => {
    document.querySelectorAll("details").forEach((details) => { details.open = true; });
    const body = document.body;
    const style = getComputedStyle(body);
    const right = body.getBoundingClientRect().right - parseFloat(style.paddingRight);
    const name = (element) =>
      `${element.tagName.toLowerCase()}: ${element.textContent.trim().slice(0, 40)}`;
    const found = {
      images: document.images.length,
      broken: [...document.images].filter((image) => !(image.complete && image.naturalWidth > 0))
        .map((image) => image.alt),
      past_column: [...body.querySelectorAll("*")]
        .filter((element) => element.getBoundingClientRect().right > right + 0.5)
        .map(name),
      scrolling: [document.documentElement, body, ...body.querySelectorAll("table, div")]
        .filter((element) => element.scrollWidth > element.clientWidth)
        .map(name),
      tall_headers: [...body.querySelectorAll("th")].filter((cell) => lines(cell) > 2).map(name),
      tables: body.querySelectorAll("table").length,
      width: window.innerWidth,
      errors,
    };
    const out = document.createElement("pre");
    out.id = "passk-checks";
    out.textContent = JSON.stringify(found);
    body.appendChild(out);
  });
})();
</script>
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
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)


LONG_NAMES = ("claude-3-7-sonnet-20250219", "gpt-4.1-2025-04-14")
"""Model names as evaluations write them: the tables must fit them, beside a domain, in 1000 px."""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Two long-named models in two domains, 12 tasks x 6 runs each, by model and domain.

    Two of one group's runs errored, and one group's tasks are 3 that never pass, 3 that
    always pass and 6 alike: its fit is the zero/one-inflated one, whose table is the widest.
    """
    if CHROMIUM is None:
        if IN_CI:
            pytest.fail("CI is set and chromium is missing: install it (apt-get install chromium)")
        pytest.skip("chromium is not installed: the page cannot be rendered (CI installs it)")
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


def test_report_loads_every_image_fits_its_column_and_raises_no_error(report, tmp_path):
    page = report.read_text(encoding="utf-8")
    assert 'id="errors"' in page  # the grouped page, with its errors section
    checked = tmp_path / "checked.html"
    checked.write_text(page.replace("</head>", f"{CHECKS}</head>", 1), encoding="utf-8")
    shown = chromium(
        f"--window-size={WIDTH},2000",
        "--virtual-time-budget=10000",
        "--dump-dom",
        checked.as_uri(),
        profile=tmp_path / "profile",
    )
    start = shown.stdout.index('<pre id="passk-checks">') + len('<pre id="passk-checks">')
    found = json.loads(shown.stdout[start : shown.stdout.index("</pre>", start)])
    assert found["width"] == WIDTH
    # the decay curve, the forest and the pairwise map, and per group its heatmap and histogram
    assert found["images"] == 11
    assert found["tables"] >= 8
    assert "zero/one-inflated" in page  # the widest fit table is on the page
    assert found["broken"] == []
    assert found["past_column"] == []
    assert found["scrolling"] == []
    assert found["tall_headers"] == []
    assert found["errors"] == []


def test_a_screenshot_at_1000_px_shows_the_page(report, tmp_path):
    from PIL import Image

    shot = tmp_path / "report.png"
    chromium(
        f"--window-size={WIDTH},2000",
        "--hide-scrollbars",
        f"--screenshot={shot}",
        report.as_uri(),
        profile=tmp_path / "profile",
    )
    with Image.open(shot) as image:
        assert image.size == (WIDTH, 2000)
        pixels = np.asarray(image.convert("L"))
    assert (pixels < 128).mean() > 0.01  # text and figures, not a blank page
    assert (pixels > 250).mean() > 0.5  # on a white page
    # the column is 60rem (960 px) of content and 1rem of padding a side, centred: the last
    # 12 px of the window lie past it, and nothing is drawn there
    assert (pixels[:, -12:] > 250).all()
