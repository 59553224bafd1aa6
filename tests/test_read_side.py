"""The read side's one output path: terminal-safe tables, exact CSV/JSON, tables fitted to the terminal,
the `experiments` command, and what an unknown experiment id says."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal

import pytest
from click.testing import CliRunner

from conftest import ROOT, Project
from trainledger.cli import cli
from trainledger.outputs import views
from trainledger.outputs.document import render
from trainledger.reports.coverage import Coverage
from trainledger.reports.dimensions import DIMENSIONS

# An OSC title change, a screen clear, a colour, a bell and a newline: what a hostile tag could hold.
HOSTILE_ID = "exp-\x1b]0;owned\x07x"
HOSTILE_PROJECT = "\x1b[2J\x1b[31mred-team"
CONTROL = [chr(c) for c in range(0x20) if c not in (0x0A,)] + ["\x7f", "\x9b"]


@pytest.fixture
def hostile(project: Project, demo_files) -> Project:  # type: ignore[no-untyped-def]
    """The demo plus one off-cloud charge and one logged experiment whose labels carry escape sequences."""
    ledger = (ROOT / "fixtures" / "offcloud-ledger.csv").read_text(encoding="utf-8")
    row = io.StringIO()
    csv.writer(row, lineterminator="\n").writerow(
        [
            "2026-11-20",
            "",
            "",
            "12.34",
            "USD",
            HOSTILE_PROJECT,
            "eval",
            "sft",
            HOSTILE_ID,
            "ops",
            "Vendor\x1b[5m",
            "desc\x1b]8;;http://x\x07",
            "REF-1",
        ]
    )
    (project.root / "ledger.csv").write_text(ledger + row.getvalue(), encoding="utf-8")
    log = (demo_files / "experiments.jsonl").read_text(encoding="utf-8")
    record = {
        "experiment_id": HOSTILE_ID,
        "project": "red-team",
        "method": "sft",
        "status": "succeeded",
        "started_at": "2026-11-20T00:00:00Z",
        "ended_at": "2026-11-20T01:00:00Z",
    }
    (project.root / "experiments.jsonl").write_text(log + json.dumps(record) + "\n", encoding="utf-8")
    text = project.config.read_text(encoding="utf-8")
    text = text.replace(str(ROOT / "fixtures" / "offcloud-ledger.csv"), str(project.root / "ledger.csv"))
    text = text.replace(str(demo_files / "experiments.jsonl"), str(project.root / "experiments.jsonl"))
    project.write_config(text)
    return project


def _no_control(text: str) -> None:
    found = sorted({repr(c) for c in text if c in CONTROL})
    assert not found, f"raw control characters reached the terminal: {found}"


@pytest.mark.parametrize(
    "args",
    [
        ("report", "--by", "project,phase,experiment"),
        ("experiments",),
        ("reconcile", HOSTILE_ID),
    ],
    ids=["report", "experiments", "reconcile"],
)
def test_tables_show_control_characters_visibly(run, hostile: Project, args: tuple[str, ...]) -> None:
    night = run("nightly")
    assert night.exit_code == 0, night.stderr
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    _no_control(result.stdout)
    assert "exp-␛]0;owned␇x" in result.stdout  # the id, every control character made visible


def test_labels_table_shows_a_hostile_label_problem_visibly() -> None:
    # A tag value reaches `labels` as the text of a label problem and as the example resource.
    found = Coverage(
        ["2026-11"],
        [
            {
                "rule": "tag",
                "currency": "USD",
                "charges": 1,
                "effective_cost": Decimal("1.5"),
                "share_pct": Decimal(100),
            }
        ],
        [
            {
                "status": "unknown-label",
                "problem": "unknown phase 'ev\x1b[8mal'",
                "example_resource": "i-\x1b]0;owned\x07\n",
                "charges": 1,
                "effective_cost": Decimal("1.5"),
            }
        ],
        [],
    )
    text = render(views.labels(found), "table")
    _no_control(text.replace("\n", ""))
    assert "unknown phase 'ev␛[8mal'" in text
    assert "i-␛]0;owned␇␊" in text
    assert (
        json.loads(render(views.labels(found), "json"))["problems"][0]["example_resource"]
        == "i-\x1b]0;owned\x07\n"
    )


def test_csv_and_json_keep_the_values_exact(run, hostile: Project) -> None:
    assert run("nightly").exit_code == 0
    rows = list(
        csv.DictReader(io.StringIO(run("report", "--by", "project,experiment", "--format", "csv").stdout))
    )
    mine = [r for r in rows if r["experiment_id"] == HOSTILE_ID]
    # the id is matched byte for byte above; the project is the logged experiment's
    assert [(r["project"], r["effective_cost"]) for r in mine] == [("red-team", "12.34")]
    data = json.loads(run("experiments", "--format", "json").stdout)
    assert [e["realized"] for e in data if e["experiment_id"] == HOSTILE_ID] == ["12.34"]


def test_csv_text_is_formula_safe_and_money_is_a_plain_number(run, project: Project) -> None:
    ledger = (ROOT / "fixtures" / "offcloud-ledger.csv").read_text(encoding="utf-8")
    ledger += '2026-11-20,,,-5.00,USD,=HYPERLINK("x"),train,sft,@SUM,ops,v,d,r\n'
    (project.root / "ledger.csv").write_text(ledger, encoding="utf-8")
    text = project.config.read_text(encoding="utf-8")
    project.write_config(
        text.replace(str(ROOT / "fixtures" / "offcloud-ledger.csv"), str(project.root / "ledger.csv"))
    )
    assert run("nightly").exit_code == 0
    out = run("report", "--by", "project,experiment", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    mine = [r for r in rows if r["experiment_id"] == "'@sum"]
    assert [(r["project"], r["billed_cost"]) for r in mine] == [('\'=hyperlink("x")', "-5.00")]


def test_tables_fit_the_terminal_width_and_csv_keeps_the_whole_value(
    run, hostile: Project, monkeypatch
) -> None:
    assert run("nightly").exit_code == 0
    wide = run("experiments").stdout
    assert max(len(line) for line in wide.splitlines()) > 100
    monkeypatch.setenv("COLUMNS", "100")
    narrow = run("experiments").stdout
    assert max(len(line) for line in narrow.splitlines()) <= 100
    assert "…" in narrow
    assert "2,207.98" in narrow  # money is never cut: exp-opd-0425's realized cost, as in reconcile
    assert "2207.983" in run("experiments", "--format", "csv").stdout


@pytest.mark.usefixtures("ran")
def test_experiments_lists_the_log_newest_first_with_costs(run, project: Project) -> None:
    result = run("experiments", "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [e["experiment_id"] for e in data] == [
        "exp-opd-0425",
        "exp-rl-0421",
        "exp-rl-0419",
        "exp-sft-0412",
    ]
    # Each row says what `reconcile` says for that experiment: the same totals by another path.
    for e in data:
        totals = json.loads(run("reconcile", e["experiment_id"], "--format", "json").stdout)["totals"]
        assert (e["estimated"], e["realized"], e["variance"]) == (
            totals["estimated"],
            totals["realized"],
            totals["variance"],
        )
        assert Decimal(e["variance"]) == Decimal(e["realized"]) - Decimal(e["estimated"])
    # exp-sft-0412's log estimate is 950 (train) + 110 (eval), README of the demo log.
    assert next(e for e in data if e["experiment_id"] == "exp-sft-0412")["estimated"] == "1060.00"
    rows = list(
        csv.DictReader(
            io.StringIO(run("experiments", "--project", "math-reasoner", "--format", "csv").stdout)
        )
    )
    assert [(r["experiment_id"], r["method"], r["status"]) for r in rows] == [
        ("exp-rl-0421", "rl", "failed"),
        ("exp-rl-0419", "rl", "succeeded"),
    ]
    since = json.loads(run("experiments", "--since", "2026-11-14", "--format", "json").stdout)
    assert [e["experiment_id"] for e in since] == ["exp-opd-0425", "exp-rl-0421"]


@pytest.mark.usefixtures("ran")
def test_an_id_logged_but_not_loaded_says_run_nightly(run, project: Project, demo_files) -> None:
    log = project.root / "experiments.jsonl"
    log.write_text(
        (demo_files / "experiments.jsonl").read_text(encoding="utf-8")
        + '{"experiment_id": "exp-new-0501", "project": "qwen-coder", "method": "sft"}\n',
        encoding="utf-8",
    )
    project.write_config(
        project.config.read_text(encoding="utf-8").replace(str(demo_files / "experiments.jsonl"), str(log))
    )
    for command in ("reconcile", "estimate"):
        result = run(command, "exp-new-0501")
        assert result.exit_code == 1
        assert result.stderr == (
            "trainledger: error: experiment 'exp-new-0501' is in the experiment log "
            f"({log}:6) but not in the warehouse yet: run `trainledger nightly` to load it\n"
        )
    result = run("reconcile", "exp-sft-412")
    assert result.stderr.startswith(
        "trainledger: error: experiment 'exp-sft-412' is not in the experiment log nor in any allocation; "
        "closest known: exp-sft-0412"
    )


@pytest.mark.usefixtures("ran")
def test_report_period_keeps_one_billing_period(run, project: Project) -> None:
    november = json.loads(run("report", "--by", "project", "--period", "2026-11", "--format", "json").stdout)
    # The demo's CUR month plus its off-cloud ledger, all invoiced in 2026-11.
    assert sum(Decimal(r["billed_cost"]) for r in november) == Decimal("73877.57311856")
    assert json.loads(run("report", "--period", "2026-10", "--format", "json").stdout) == []
    bad = run("report", "--period", "2026-13")
    assert bad.exit_code == 1
    assert "expected YYYY-MM, got '2026-13'" in bad.stderr


TWO_MONTHS = """date,amount,currency,project,phase,method,experiment_id,category,vendor,description,reference
2026-10-15,100.00,USD,proj,train,sft,exp-a,compute,V,October,r1
2026-11-15,30.00,USD,proj,train,sft,exp-a,compute,V,November,r2
2026-11-16,20.00,USD,proj,eval,sft,exp-a,compute,V,November eval,r3
"""


def test_report_period_also_filters_the_metrics_and_shape_views(run, project: Project) -> None:
    """SPEC §7 lists `[--with-metrics] [--shape]` and `[--period YYYY-MM]` as options of one `report`
    command, so they combine: the views sum only that billing period's allocations."""
    (project.root / "ledger.csv").write_text(TWO_MONTHS, encoding="utf-8")
    (project.root / "experiments.jsonl").write_text(
        '{"experiment_id": "exp-a", "project": "proj", "method": "sft", "status": "succeeded", '
        '"started_at": "2026-10-15T00:00:00Z", "ended_at": "2026-11-17T00:00:00Z", '
        '"metrics": {"target": {"before": 0.40, "after": 0.50}}}\n',
        encoding="utf-8",
    )
    project.write_config(
        '[[sources]]\nname = "ledger"\nkind = "manual"\nuri = "ledger.csv"\n\n'
        '[experiments]\nuri = "experiments.jsonl"\n'
    )
    assert run("nightly").exit_code == 0
    metrics = run("report", "--by", "method", "--with-metrics", "--period", "2026-11", "--format", "json")
    assert metrics.exit_code == 0, metrics.stderr
    (method_row, experiment_row) = json.loads(metrics.stdout)["rows"]
    # November only: 30.00 + 20.00 = 50.00 for a gain of (0.50 - 0.40) x 100 = 10 points; eval 20/50.
    assert (method_row["cost"], method_row["cost_per_point"], method_row["eval_share"]) == (
        "50.00",
        "5.00",
        "0.4000",
    )
    assert experiment_row["experiment_id"] == "exp-a" and experiment_row["cost"] == "50.00"
    shape = run("report", "--by", "project", "--shape", "--period", "2026-11", "--format", "json")
    assert shape.exit_code == 0, shape.stderr
    (row,) = json.loads(shape.stdout)["rows"]
    # Two daily buckets in November, 30.00 and 20.00: peak 30.00 on the 15th, average 25.00.
    assert (row["buckets"], row["peak"], row["peak_at"], row["average"]) == (
        2,
        "30.00",
        "2026-11-15",
        "25.00",
    )
    # Without --by, --with-metrics is by method (its view has no project/phase/category rows): both
    # months, 100.00 + 30.00 + 20.00 = 150.00 for the same 10 points.
    every = run("report", "--with-metrics", "--format", "json")
    assert every.exit_code == 0, every.stderr
    assert [(r["level"], r["cost"], r["cost_per_point"]) for r in json.loads(every.stdout)["rows"]] == [
        ("method", "150.00", "15.00"),
        ("experiment", "150.00", "15.00"),
    ]


def test_report_by_help_names_a_way_to_ask_for_every_column_the_query_accepts() -> None:
    result = CliRunner().invoke(cli, ["report", "--help"], terminal_width=200)
    by_help = " ".join(result.output.split("--by TEXT", 1)[1].split("--granularity", 1)[0].split())
    shown = set(re.findall(r"[a-z_-]+", by_help))
    assert {column for name, column in DIMENSIONS.items() if name in shown} == set(DIMENSIONS.values())
    # The waste classes of SPEC §4 are spelled out beside `waste`.
    assert "waste (productive, idle, failed, rerun, unused-commitment, shared, unattributed)" in by_help
