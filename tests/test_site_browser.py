"""The demo's site in a real browser (headless Chromium over its DevTools pipe): every page renders without
console errors, the overview's totals are `report --format json`'s, the experiments table sorts and filters,
each post-mortem link opens its experiment. Screenshots at 600 and 1440 px are kept in pytest's tmp folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import Browser, Tab, find_chromium
from conftest import Project
from trainledger.cli import cli

CHROMIUM = find_chromium()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)"),
]
CHARTS_DRAWN = "document.readyState === 'complete' && document.querySelectorAll('div.chart:not(.js-plotly-plot)').length === 0"
WIDTHS = (600, 1440)


def _cli(project: Project, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--config", str(project.config), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def demo_site(nightly_warehouse: Project, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    _cli(nightly_warehouse, "site", "--out", str(out))
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    chromium = Browser(CHROMIUM)
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("site-screenshots")


def _open(browser: Browser, page: Path, width: int = 1440) -> Tab:
    tab = browser.open(page.as_uri(), width)
    tab.wait(CHARTS_DRAWN)
    return tab


def _pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def test_every_page_renders_without_console_errors(
    demo_site: Path, browser: Browser, screenshots: Path
) -> None:
    names = _pages(demo_site)
    assert "index.html" in names and "experiments/exp-rl-0419.html" in names
    for name in names:
        for width in WIDTHS:
            tab = _open(browser, demo_site / name, width)
            assert tab.errors() == [], name
            assert tab.eval("document.querySelector('h1').textContent")
            # Nothing wider than the window but the scrolling table wrappers.
            assert tab.eval("document.documentElement.scrollWidth") <= width, (name, width)
            tab.screenshot(screenshots / f"{name.replace('/', '_')[:-5]}-{width}.png")
            tab.close()
    assert len(list(screenshots.glob("*.png"))) == 2 * len(names)


def test_overview_totals_are_report_json(
    demo_site: Path, browser: Browser, nightly_warehouse: Project
) -> None:
    report = json.loads(_cli(nightly_warehouse, "report", "--by", "period,project", "--format", "json"))
    tab = _open(browser, demo_site / "index.html")
    shown = tab.eval(
        "Array.from(document.querySelectorAll('#by-project tbody tr')).map(r => "
        "Array.from(r.cells).map(c => c.dataset.value))"
    )
    expected = [
        [r["project"] or "", r["currency"], r["billed_cost"], r["effective_cost"], r["list_cost"]]
        for r in report
        if r["billing_period"] == "2026-11"
    ]
    assert shown == expected
    total = tab.eval("document.querySelector('#totals tbody td:nth-child(3)').dataset.value")
    assert Decimal(total) == sum(Decimal(r[3]) for r in expected)
    # The chart draws the same numbers: Plotly's data holds the exact decimal text.
    bars = tab.eval(
        "(() => { const el = document.querySelector('#by-project').closest('.grid').querySelector('.js-plotly-plot');"
        " return el.data[0].x; })()"
    )
    assert bars == [r[3] for r in expected]


def _column(tab: Tab, index: int) -> list[str]:
    return tab.eval(
        "Array.from(document.querySelectorAll('#experiments tbody tr')).filter(r => !r.hidden)"
        f".map(r => r.cells[{index}].dataset.value)"
    )


def test_experiments_table_sorts_and_filters(demo_site: Path, browser: Browser) -> None:
    tab = _open(browser, demo_site / "experiments.html")
    realized = 7
    tab.eval(f"document.querySelectorAll('#experiments thead button')[{realized}].click()")
    ascending = _column(tab, realized)
    assert [Decimal(v) for v in ascending] == sorted(Decimal(v) for v in ascending)
    assert tab.eval(
        f"document.querySelectorAll('#experiments thead th')[{realized}].getAttribute('aria-sort')"
    ) == ("ascending")
    tab.eval(f"document.querySelectorAll('#experiments thead button')[{realized}].click()")
    assert [Decimal(v) for v in _column(tab, realized)] == sorted(
        (Decimal(v) for v in ascending), reverse=True
    )
    tab.eval("document.querySelectorAll('#experiments thead button')[0].click()")
    assert _column(tab, 0) == ["exp-opd-0425", "exp-rl-0419", "exp-rl-0421", "exp-sft-0412"]

    tab.eval(
        "(() => { const s = document.querySelector('select[name=project]'); s.value = 'math-reasoner';"
        " s.dispatchEvent(new Event('input', {bubbles: true})); })()"
    )
    assert _column(tab, 0) == ["exp-rl-0419", "exp-rl-0421"]
    assert tab.eval("document.querySelector('form.filters output').textContent") == "2 shown"
    tab.eval(
        "(() => { const s = document.querySelector('select[name=status]'); s.value = 'failed';"
        " s.dispatchEvent(new Event('input', {bubbles: true})); })()"
    )
    assert _column(tab, 0) == ["exp-rl-0421"]
    tab.eval(
        "(() => { const f = document.querySelector('form.filters'); f.elements.project.value = '';"
        " f.elements.status.value = ''; f.elements.q.value = 'distill';"
        " f.dispatchEvent(new Event('input', {bubbles: true})); })()"
    )
    assert _column(tab, 0) == ["exp-opd-0425"]
    assert tab.errors() == []


def test_each_post_mortem_link_opens_its_experiment(
    demo_site: Path, browser: Browser, nightly_warehouse: Project
) -> None:
    tab = _open(browser, demo_site / "experiments.html")
    links = tab.eval(
        "Array.from(document.querySelectorAll('#experiments tbody a')).map(a => [a.textContent, a.href])"
    )
    assert len(links) == 4
    for exp_id, href in links:
        page = browser.open(href, 1440)
        assert page.eval("document.querySelector('h1').textContent") == f"Post-mortem: {exp_id}"
        realized = json.loads(_cli(nightly_warehouse, "reconcile", exp_id, "--format", "json"))["totals"][
            "realized"
        ]
        kpi = page.eval(
            "Array.from(document.querySelectorAll('.kpi')).find(k => k.textContent.startsWith('Realized'))"
            ".querySelector('.value').textContent"
        )
        assert kpi == f"{Decimal(realized).quantize(Decimal('0.01')):,f} USD"
        assert page.errors() == []
        back = page.eval("document.querySelector('a[href=\"../experiments.html\"]').href")
        assert back == (demo_site / "experiments.html").as_uri()
