"""Hidden cost: idle time on a run's resources, failed runs and re-runs (SPEC §1, §4)."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal as D

from click.testing import CliRunner

from bills import Charge, Experiment, Window, at, attribute
from conftest import Project
from trainledger.attribution import waste
from trainledger.cli import cli

PARAMS = {"model_params_b": 7, "steps": 300}


def _run(experiment_id: str, status: str, start: float, params: dict | None = None, **kw) -> Experiment:
    return Experiment(
        experiment_id,
        kw.get("project", "math-reasoner"),
        kw.get("method", "rl"),
        [Window("i-1", at(start), at(start + 1))],
        status=status,
        params=PARAMS if params is None else params,
    )


def test_a_failed_run_repeated_later_is_rework() -> None:
    con = attribute(
        [],
        [
            _run("first-try", "failed", 0),
            _run("second-try", "succeeded", 5, params={"steps": 300, "model_params_b": 7}),
            _run("gave-up", "aborted", 0, project="qwen-coder"),
            _run("no-params", "failed", 0, params={}, project="distill-small"),
            _run("no-params-again", "succeeded", 5, params={}, project="distill-small"),
            _run("late-failure", "failed", 9, method="sft"),
            _run("earlier-success", "succeeded", 1, method="sft"),
        ],
    )
    assert waste.outcomes(con) == waste.Outcomes(
        failed=["gave-up", "late-failure", "no-params"], reruns=["first-try"]
    )


def test_idle_counts_the_uncovered_time_inside_the_run() -> None:
    # i-1 costs 10.00 an hour; the run uses it 00:00-00:15 and 00:45-01:00, so 00:15-00:45 is idle: 5.00.
    run = Experiment(
        "e1",
        "qwen-coder",
        windows=[Window("i-1", at(0), at(0.25)), Window("i-1", at(0.75), at(1))],
        status="failed",
    )
    con = attribute([Charge("c", D("10.00"), at(0), at(1), "i-1")], [run])
    assert waste.experiments_waste(con, {"e1": "USD"})["e1"] == {"idle": D("5"), "failed": D("5")}
    assert waste.experiments_waste(con, {"e1": "EUR"})["e1"] == {"idle": D("0"), "failed": D("0")}


def test_idle_after_the_run_ends_is_not_the_runs() -> None:
    # Idle 00:30-01:00 and 01:00-02:00 on i-1; the run spans 00:00-01:30 (eval on i-2 until then),
    # so its idle is 00:30-01:00 (5.00) plus half of the next hour (5.00).
    run = Experiment(
        "e1",
        "qwen-coder",
        windows=[Window("i-1", at(0), at(0.5)), Window("i-2", at(0.5), at(1.5), phase="eval")],
    )
    con = attribute(
        [Charge("c1", D("10.00"), at(0), at(1), "i-1"), Charge("c2", D("10.00"), at(1), at(2), "i-1")], [run]
    )
    assert waste.experiments_waste(con, {"e1": "USD"})["e1"] == {"idle": D("10"), "failed": D("0")}


def _cli(project: Project, *args: str):
    return CliRunner().invoke(cli, ["--config", str(project.config), *args], catch_exceptions=False)


def test_demo_reconcile_shows_idle_and_failed_cost(nightly_warehouse: Project) -> None:
    opd = json.loads(_cli(nightly_warehouse, "reconcile", "exp-opd-0425", "--format", "json").stdout)
    # The OPD teacher (p5, 55.04/h) idles 04:00-06:00 on 11-19 while the run lasts until 05:30: 55.04 + 27.52.
    assert opd["waste"] == {"idle": "82.56", "failed": "0.00", "unused_commitment": "0.00"}
    failed = json.loads(_cli(nightly_warehouse, "reconcile", "exp-rl-0421", "--format", "json").stdout)
    # 9 hours of p5.48xlarge at 55.04 plus its 2,000 GB gp3 volume, all tagged with the failed run.
    assert failed["waste"] == {"idle": "0.00", "failed": "497.35999998", "unused_commitment": "0.00"}
    text = _cli(nightly_warehouse, "reconcile", "exp-opd-0425").stdout
    assert "Waste (hidden cost): idle 82.56  failed 0.00" in text


def test_demo_report_by_waste_adds_up_to_the_bill(nightly_warehouse: Project) -> None:
    result = _cli(nightly_warehouse, "report", "--by", "waste", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = {r["waste"]: r for r in csv.DictReader(io.StringIO(result.stdout))}
    assert {k: r["effective_cost"] for k, r in rows.items()} == {
        "failed": "497.35999998",
        # distill-small: 3 teacher hours at 55.04 and 1.5 student hours at 21.958; qwen-coder: 2 eval hours.
        "idle": "241.973",
        "productive": "15207.13004905",  # 8,682.61 cloud + the 6,524.52 off-cloud ledger
        # 8.25% sales tax on each product, less the 250.00 credit
        "shared": "4902.20",
        "unattributed": "138.13246953",
        # 80.00/h Savings Plan commitment, 720 hours, less the 4,709.2224 used by covered usage
        "unused-commitment": "52890.7776",
    }
    assert sum(D(r["billed_cost"]) for r in rows.values()) == D("73877.57311856")  # cloud bill + ledger
