"""The static dashboard site (`trainledger site`, and `[exports] site` in nightly).

A folder of HTML pages with their scripts and styles beside them: no server, no network when viewed,
publishable to any static host. Pages hold aggregates only (no allocation rows), computed by the same
report functions as the CLI (``data.py``), and the folder is swapped in whole (``publish.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from trainledger.core.config import Config
from trainledger.core.gc_pause import no_cycle_collection
from trainledger.core.reporter import Reporter
from trainledger.outputs.postmortem_svg import STYLE
from trainledger.outputs.site import (
    api_spend,
    charts,
    data,
    experiment_pages,
    layout,
    overview,
    pages,
    postmortems,
    publish,
)
from trainledger.outputs.site.layout import Rendered
from trainledger.reports.coverage import Coverage
from trainledger.warehouse.connection import Connection, in_background


def _write(path: Path, text: str) -> None:
    """A page as UTF-8 bytes, its folder made beforehand."""
    postmortems.write_bytes(path, text.encode())


def write_site(
    con: Connection,
    config: Config,
    out: Path,
    reporter: Reporter,
    experiments: int | None = None,
    now: datetime | None = None,
) -> Path:
    """Build the site into a temporary folder beside ``out`` and swap it in; returns the index page.
    ``experiments`` caps the post-mortems (the most recently started first; None: every experiment, the
    default: they are reconciled at once, and 20,733 of them take seconds)."""
    charts.plotly_js()  # fail before any work when the charts' library is missing
    generated = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    with no_cycle_collection():  # tens of thousands of reconciliations and their rows, no cycles
        cube = data.read_cube(con)
        # Tag coverage is DuckDB's work alone: it runs while this thread builds the reconciliations.
        with in_background(con, data.labels) as labels:
            return _write_pages(con, config, out, reporter, experiments, generated, cube, labels)


def _write_pages(
    con: Connection,
    config: Config,
    out: Path,
    reporter: Reporter,
    experiments: int | None,
    generated: str,
    cube: data.Cube,
    labels: Callable[[], Coverage],
) -> Path:
    periods = data.periods(cube)
    with publish.staged(out) as root:

        def page(name: str, title: str, active: str, body: str, depth: int = 0) -> None:
            _write(root / name, layout.page(title, active, body, generated, depth))

        charts.copy_assets(root / "assets")
        _write(root / postmortems.CSS, STYLE)
        for folder in ("experiments", "projects"):
            (root / folder).mkdir()
        found = data.experiments(con, cube, experiments, config.reservations)
        # The post-mortems are written by worker processes while this one writes the other pages.
        with postmortems.written(found.rows, root / "experiments"):
            latest = periods[-1] if periods else None
            for period in periods:
                body = overview.render(data.overview(con, config, cube, period), periods, latest or period)
                title = f"Overview {period}"
                page(f"overview-{period}.html", title, "index.html", body)
                if period == latest:
                    page("index.html", title, "index.html", body)
            if latest is None:
                page(
                    "index.html",
                    "Overview",
                    "index.html",
                    "<p>No allocations yet: run `trainledger nightly`.</p>",
                )
            reporter.detail("overview written")
            table = experiment_pages.experiment_table(found)
            page(
                "experiments.html",
                "Experiments",
                "experiments.html",
                experiment_pages.experiments_page(found, table),
            )
            names = data.projects(cube)
            page(
                "projects.html",
                "Projects",
                "projects.html",
                experiment_pages.projects_index(names, cube.rollup(["project"])),
            )
            for name in names:
                body = experiment_pages.project_page(
                    data.project(cube, name), table.by_project.get(name, Rendered())
                )
                page(f"projects/{layout.slug(name)}.html", f"Project {name}", "projects.html", body, depth=1)
            page(
                "methods.html",
                "Methods: cost against benefit",
                "methods.html",
                pages.methods_page(data.methods(con, cube)),
            )
            page("waste.html", "Waste", "waste.html", pages.waste_page(data.waste_page(cube)))
            page("labels.html", "Labels", "labels.html", pages.labels_page(labels()))
            page(api_spend.PAGE, api_spend.TITLE, api_spend.PAGE, api_spend.render(api_spend.rows(con, cube)))
        reporter.detail(f"{len(found.rows)} post-mortem(s) written")
    reporter.step(f"wrote the site {out} ({len(periods)} period(s), {len(found.rows)} post-mortem(s))")
    return out.resolve() / "index.html"
