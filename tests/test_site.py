"""The static site: every number equals the CLI's for the same query, the folder is swapped in whole,
and pages need nothing from the network."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import Result

from conftest import ROOT, Project
from site_pages import read
from test_demo_end_to_end import FIXTURE_BILLED_TOTAL
from trainledger.outputs import postmortem
from trainledger.outputs.site import pages, postmortems

PERIOD = "2026-11"


def _money(text: str) -> Decimal:
    return Decimal(text)


def _with_site(project: Project, folder: str) -> str:
    text = project.config.read_text(encoding="utf-8")
    assert '[exports]\ndir = "exports"\n' in text
    return text.replace('[exports]\ndir = "exports"\n', f'[exports]\ndir = "exports"\nsite = "{folder}"\n')


@pytest.fixture
def built(run: Callable[..., Result], project: Project) -> Path:
    """The demo after a nightly run that writes the site from `[exports] site`."""
    project.write_config(_with_site(project, "site"))
    result = run("nightly")
    assert result.exit_code == 0, result.stderr
    assert f"wrote the site {project.root / 'site'}" in result.stderr
    return project.root / "site"


def _json(run: Callable[..., Result], *args: str) -> object:
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_overview_total_is_the_bill_plus_the_ledger(built: Path) -> None:
    ledger = sum(
        Decimal(r["amount"])
        for r in csv.DictReader((ROOT / "fixtures" / "offcloud-ledger.csv").open(encoding="utf-8"))
    )
    totals = read(built / "index.html").tables["totals"]
    # currency, billed, effective, list: one currency, billed = the generated CUR's sum + the ledger's.
    assert [row[0] for row in totals] == ["USD"]
    assert _money(totals[0][1]) == FIXTURE_BILLED_TOTAL + ledger


@pytest.mark.parametrize(
    ("table", "by"),
    [
        ("totals", "period"),
        ("by-project", "period,project"),
        ("by-method", "period,method"),
        ("by-category", "period,category"),
        ("by-rule", "period,rule"),
        ("monthly", "period"),
    ],
)
def test_overview_tables_equal_report_json(
    built: Path, run: Callable[..., Result], table: str, by: str
) -> None:
    rows = _json(run, "report", "--by", by, "--format", "json")
    assert isinstance(rows, list)
    dims = [
        k
        for k in rows[0]
        if k not in ("billing_period", "currency", "billed_cost", "effective_cost", "list_cost")
    ]
    if table != "monthly":
        rows = [r for r in rows if r["billing_period"] == PERIOD]
    else:
        dims = ["billing_period"]
    expected = [
        [
            *("(none)" if r[d] is None else r[d] for d in dims),
            r["currency"],
            r["billed_cost"],
            r["effective_cost"],
            r["list_cost"],
        ]
        for r in rows
    ]
    shown = read(built / "index.html").tables[table]
    assert [[c if c else "(none)" for c in row] for row in shown] == expected


def test_experiments_equal_reconcile_and_link_to_their_post_mortem(
    built: Path, run: Callable[..., Result]
) -> None:
    page = read(built / "experiments.html")
    rows = page.tables["experiments"]
    assert sorted(r[0] for r in rows) == ["exp-opd-0425", "exp-rl-0419", "exp-rl-0421", "exp-sft-0412"]
    for row in rows:
        exp_id, estimated, realized, variance, waste, provisional = row[0], *row[6:11]
        expected = _json(run, "reconcile", exp_id, "--format", "json")
        assert isinstance(expected, dict)
        assert (_money(estimated), _money(realized), _money(variance)) == (
            _money(expected["totals"]["estimated"]),
            _money(expected["totals"]["realized"]),
            _money(expected["totals"]["variance"]),
        )
        assert _money(waste) == sum(_money(v) for v in expected["waste"].values())  # idle, failed, unused
        assert provisional == ("yes" if expected["provisional"] else "no")
        post_mortem = (built / "experiments" / f"{exp_id}.html").read_text(encoding="utf-8")
        assert f"<h1>Post-mortem: {exp_id}</h1>" in post_mortem
        assert f'href="experiments/{exp_id}.html"' in (built / "experiments.html").read_text(encoding="utf-8")


def test_each_project_page_lists_its_experiments_linked_one_folder_up(
    built: Path, run: Callable[..., Result]
) -> None:
    logged = _json(run, "experiments", "--format", "json")
    assert isinstance(logged, list)
    projects = {e["project"] for e in logged}
    assert len(projects) > 1
    for project in projects:
        page = read(built / "projects" / f"{project}.html")
        rows = page.tables["experiments"]
        assert sorted(r[0] for r in rows) == sorted(
            e["experiment_id"] for e in logged if e["project"] == project
        )
        assert {r[1] for r in rows} == {project}
        for exp_id in (r[0] for r in rows):
            assert f"../experiments/{exp_id}.html" in page.links
            assert (built / "experiments" / f"{exp_id}.html").is_file()


def test_methods_equal_report_with_metrics(built: Path, run: Callable[..., Result]) -> None:
    expected = _json(run, "report", "--by", "method", "--with-metrics", "--format", "json")
    assert isinstance(expected, dict)
    shown = read(built / "methods.html").tables["methods"]
    assert [(r[1], _money(r[4]), r[7] or None) for r in shown] == [
        (
            f"all ({e['experiments']})" if e["level"] == "method" else e["experiment_id"],
            _money(e["cost"]),
            e["cost_per_point"],
        )
        for e in expected["rows"]
    ]
    # sft spends 21.5% on evaluation: within the 20-40% band; opd's 4.4% is below it.
    bands = {(r[0], r[1]): r[9] for r in shown}
    assert bands[("sft", "all (1)")] == "within" and bands[("opd", "all (1)")] == "below"


def test_labels_equal_the_labels_command(built: Path, run: Callable[..., Result]) -> None:
    expected = _json(run, "labels", "--format", "json")
    assert isinstance(expected, dict)
    page = read(built / "labels.html")
    assert [(r[0], _money(r[3])) for r in page.tables["coverage"]] == [
        (r["rule"], _money(r["effective_cost"])) for r in expected["coverage"]
    ]
    problems = page.tables["problems"]
    assert [(r[1], _money(r[5])) for r in problems] == [
        (r["problem"], _money(r["effective_cost"])) for r in expected["problems"]
    ]
    assert problems[0][6] == pages.LABEL_FIXES["unknown-label"]


def test_waste_by_project_equals_report_by_waste(built: Path, run: Callable[..., Result]) -> None:
    rows = _json(run, "report", "--by", "waste,project", "--format", "json")
    assert isinstance(rows, list)
    hidden = [r for r in rows if r["waste"] in ("idle", "failed", "rerun", "unused-commitment")]
    shown = read(built / "waste.html").tables["by-project"]
    assert [(r[0], r[1] or None, _money(r[4])) for r in shown] == [
        (r["waste"], r["project"], _money(r["effective_cost"])) for r in hidden
    ]
    # The demo's one failed run, exp-rl-0421, is the failed class's only offender.
    offenders = read(built / "waste.html").tables["offenders"]
    assert [r[2] for r in offenders if r[0] == "failed"] == ["exp-rl-0421"]


def test_pages_need_no_network(built: Path) -> None:
    pages_found = sorted(built.rglob("*.html"))
    assert len(pages_found) == 1 + 1 + 6 + 3 + 4  # index, the period's overview, 6 pages, 3 projects, 4 runs
    for path in pages_found:
        for link in read(path).links:
            assert "://" not in link and not link.startswith("//"), (path, link)
    assert (built / "assets" / "plotly.min.js").stat().st_size > 1_000_000


@pytest.mark.usefixtures("ran")
def test_site_refuses_a_folder_it_did_not_write(run: Callable[..., Result], project: Project) -> None:
    mine = project.root / "notes"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine", encoding="utf-8")
    result = run("site", "--out", "notes")
    assert result.exit_code == 1
    assert result.stderr == (
        f"trainledger: error: {mine}: folder is not empty and was not written by `trainledger site`; "
        "choose a new or empty folder (the site replaces the folder's content)\n"
    )
    assert (mine / "keep.txt").read_text(encoding="utf-8") == "mine"


@pytest.mark.usefixtures("ran")
def test_a_failed_build_leaves_the_old_site(
    run: Callable[..., Result], project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = run("site", "--out", "site")
    assert first.exit_code == 0 and first.stdout == f"{project.root / 'site' / 'index.html'}\n"
    before = (project.root / "site" / "index.html").read_text(encoding="utf-8")

    def broken(*_: object) -> str:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(pages, "waste_page", broken)
        result = run("site", "--out", "site")
    assert result.exit_code == 1
    assert "No space left on device" in result.stderr
    assert (project.root / "site" / "index.html").read_text(encoding="utf-8") == before
    assert sorted(p.name for p in project.root.iterdir() if ".site-" in p.name) == []
    assert run("site", "--out", "site").exit_code == 0
    assert sorted(p.name for p in project.root.iterdir() if ".site-" in p.name) == []


@pytest.mark.usefixtures("ran")
def test_experiments_cap_keeps_the_newest(run: Callable[..., Result], project: Project) -> None:
    assert run("site", "--out", "site", "--experiments", "2").exit_code == 0
    rows = read(project.root / "site" / "experiments.html").tables["experiments"]
    assert [r[0] for r in rows] == ["exp-opd-0425", "exp-rl-0421"]  # started 11-18 and 11-14
    assert sorted(p.name for p in (project.root / "site" / "experiments").iterdir()) == [
        "exp-opd-0425.html",
        "exp-rl-0421.html",
    ]


def test_site_must_be_a_local_folder(run: Callable[..., Result], project: Project) -> None:
    project.write_config(_with_site(project, "s3://b/site"))
    result = run("site")
    assert result.exit_code == 1
    assert "exports.site" in result.stderr
    assert "expected a local folder; publish it afterwards" in result.stderr


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.usefixtures("ran")
def test_post_mortems_from_worker_processes_are_the_same_bytes(
    run: Callable[..., Result], project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A month of tens of thousands of experiments writes its post-mortems from a process pool; the demo's
    four, one page per task on two workers, give the same files as this process writing them (the page's
    time aside)."""
    assert run("site", "--out", "serial").exit_code == 0
    monkeypatch.setattr(postmortems, "POOL_FROM", 1)
    monkeypatch.setattr(postmortems, "CHUNK", 1)
    monkeypatch.setattr(postmortems, "cores", lambda: 2)
    assert run("site", "--out", "pooled").exit_code == 0
    serial, pooled = _files(project.root / "serial"), _files(project.root / "pooled")
    assert sorted(serial) == sorted(pooled)
    assert len([name for name in pooled if name.startswith("experiments/")]) == 4
    for name, content in serial.items():
        if name.startswith("experiments/"):
            assert pooled[name] == content, name


@pytest.mark.usefixtures("ran")
def test_a_worker_that_fails_fails_the_build(
    run: Callable[..., Result], project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("site", "--out", "site").exit_code == 0
    before = _files(project.root / "site")
    monkeypatch.setattr(postmortems, "POOL_FROM", 1)
    monkeypatch.setattr(postmortems, "cores", lambda: 2)

    def full(*_: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(postmortem, "html", full)  # the workers fork with it
    result = run("site", "--out", "site")
    assert result.exit_code == 1
    assert "No space left on device" in result.stderr
    assert _files(project.root / "site").keys() == before.keys()
    assert sorted(p.name for p in project.root.iterdir() if ".site-" in p.name) == []
