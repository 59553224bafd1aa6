"""The HTML post-mortem stays readable at 600 px: nothing wider than its container (tables scroll in their
own box, the chart scales). Checked statically from the SVG and table markup, and, where Debian's
`chromium` is installed, by measuring every element in headless Chromium at 600 and 1280 px."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Project
from trainledger.cli import cli

EXPERIMENTS = ["exp-sft-0412", "exp-rl-0421", "exp-opd-0425"]
CHAR_WIDTH = 7.0  # px per character of the chart's 12-13 px system font: generous (digits are ~6.7)

MEASURE = """<script>
const vw = document.documentElement.clientWidth, out = [];
for (const el of document.body.querySelectorAll('*')) {
  if (el.tagName === 'SCRIPT' || (el.closest('.scroll') && !el.classList.contains('scroll'))) continue;
  const box = el.getBoundingClientRect(), parent = el.parentElement.getBoundingClientRect();
  if (box.right > parent.right + 0.5 || box.right > vw + 0.5)
    out.push(el.tagName + '.' + (el.getAttribute('class') || '') + ' ' + (el.textContent || '').slice(0, 40)
             + ' right ' + box.right.toFixed(1) + ' > ' + Math.min(parent.right, vw).toFixed(1));
}
document.body.setAttribute('data-measured', JSON.stringify(
  {vw: vw, page: document.documentElement.scrollWidth, overflow: out}));
</script>"""


def _page(project: Project, experiment: str) -> str:
    result = CliRunner().invoke(
        cli, ["--config", str(project.config), "reconcile", experiment, "--format", "html"]
    )
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_markup_fits_any_width(nightly_warehouse: Project, experiment: str) -> None:
    page = _page(nightly_warehouse, experiment)
    # Every table sits in its own horizontally scrolling box.
    assert page.count("<table>") == page.count('<div class="scroll"><table>') > 0
    assert ".scroll{overflow-x:auto;max-width:100%}" in page
    # The chart has no fixed pixel width: it scales with its container.
    svg = re.search(r"<svg ([^>]*)>(.*?)</svg>", page, re.S)
    assert svg is not None
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', svg.group(1)))
    assert attrs["width"] == "100%" and "height" not in attrs
    _, _, view_width, _ = (float(v) for v in attrs["viewBox"].split())
    assert "svg.chart{display:block;max-width:" in page
    # Inside the chart, no label runs past the right edge of the drawing.
    for x, klass, label in re.findall(
        r'<text x="([\d.]+)"[^>]*?(?:class="(\w+)")?[^>]*>([^<]*)</text>', svg.group(2)
    ):
        if klass in ("phase", "category"):
            assert float(x) <= view_width  # anchored at their end, left of the bars
        elif klass == "tick":
            assert float(x) + len(label) * CHAR_WIDTH / 2 <= view_width
        else:
            assert float(x) + len(label) * CHAR_WIDTH <= view_width, label


@pytest.mark.parametrize("width", [600, 1280])
@pytest.mark.slow
def test_chromium_finds_nothing_wider_than_its_container(
    nightly_warehouse: Project, tmp_path: Path, width: int
) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip(
            "no headless Chromium on this machine (Debian package `chromium`); the markup test still ran"
        )
    for experiment in EXPERIMENTS:
        path = tmp_path / f"{experiment}.html"
        path.write_text(_page(nightly_warehouse, experiment).replace("</body>", MEASURE + "</body>"), "utf-8")
        dom = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={tmp_path / 'profile'}",
                f"--window-size={width},1200",
                "--dump-dom",
                path.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        found = re.search(r"data-measured=\"([^\"]*)\"", dom)
        assert found is not None, dom[:500]
        measured = json.loads(html.unescape(found.group(1)))
        assert width - 40 <= measured["vw"] <= width  # the page really was laid out this narrow/wide
        assert measured["page"] <= measured["vw"], (experiment, measured)
        assert measured["overflow"] == [], (experiment, width, measured["overflow"])
