"""Calibration from your own history: reconciled runs' median implied MFU becomes the estimator's default.

Three succeeded SFT runs on H100, each billed 550.40 for 10 hours of a p5.48xlarge (8 GPUs): at the
estimator's price of 6.88 per GPU hour that is 80 GPU hours. Their params give 6 x 1e9 x T FLOPs, so the
implied MFU is 6e9 x T / (80 x 3600 x 989e12) = T / 4.7472e10: 0.10, 0.15 and 0.20 for T = 4.7472e9,
7.1208e9 and 9.4944e9 tokens. The median, 0.15, is what a fourth estimate must use.
"""

from __future__ import annotations

import json
from decimal import Decimal

import duckdb

from bills import Charge, Experiment, Window, at, attribute
from conftest import Project
from trainledger.estimate import calibration
from trainledger.estimate.model import estimate
from trainledger.reports import reconcile


def _params(samples: int, gpu: str = "H100") -> dict[str, object]:
    return {"model_params_b": 1, "gpu_type": gpu, "train_samples": samples, "avg_tokens_per_sample": 1000}


RUNS = {  # experiment: (train_samples, status, GPU, hours in its window; the bill covers 10)
    "e1": (4_747_200, "succeeded", "H100", 10),  # 0.10
    "e2": (7_120_800, "succeeded", "H100", 10),  # 0.15
    "e3": (9_494_400, "succeeded", "H100", 10),  # 0.20
    "failed": (1_000_000, "failed", "H100", 10),  # not a succeeded run
    "on-a100": (1_000_000, "succeeded", "A100", 10),  # another GPU
    "provisional": (1_000_000, "succeeded", "H100", 12),  # its bill does not reach its end yet
}


def history(
    con: duckdb.DuckDBPyConnection | None = None, more: tuple[Charge, ...] = ()
) -> duckdb.DuckDBPyConnection:
    charges = [Charge(f"bill-{name}", Decimal("550.40"), at(0), at(10), f"i-{name}") for name in RUNS]
    charges.extend(more)
    experiments = [
        Experiment(name, "p", "sft", [Window(f"i-{name}", at(0), at(hours))], status, _params(samples, gpu))
        for name, (samples, status, gpu, hours) in RUNS.items()
    ]
    con = attribute(charges, experiments, con=con)
    for name, (samples, _, gpu, _) in RUNS.items():
        detail = estimate("sft", _params(samples, gpu)).to_json()
        con.execute("INSERT INTO estimator_results VALUES (?, true, ?)", (name, json.dumps(detail)))
    return con


def test_three_reconciled_runs_calibrate_the_fourth_estimate() -> None:
    con = history()
    # The same implied MFU reconcile reports for each run.
    implied = {
        name: next(c for c in reconcile.reconcile(con, name).assumptions["compute"] if c["phase"] == "train")
        for name in ("e1", "e2", "e3")
    }
    assert {k: v["implied_mfu"] for k, v in implied.items()} == {
        "e1": "0.1000",
        "e2": "0.1500",
        "e3": "0.2000",
    }
    found = calibration.from_warehouse(con)("sft", "H100")
    assert found is not None
    assert found.phases["train"].value == Decimal("0.15")
    assert found.phases["train"].runs == ("e1", "e2", "e3")

    params = {**_params(1_000_000), "gpus": 8}  # 6e9 x 1e9 tokens = 6e18 FLOPs
    est = estimate("sft", params, calibration=calibration.from_warehouse(con))
    assert est.assumptions["mfu_train"].value == "0.15"
    assert est.assumptions["mfu_train"].source.startswith(
        "calibrated from 3 runs (e1, e2, e3): median implied MFU of their train phase (sft on H100"
    )
    # 6e18 / (989e12 x 0.15 x 3600) = 6e18 / 5.3406e17 = 11.2347 GPU hours; at the textbook 0.40, 6e18 / 1.42416e18 = 4.2130.
    assert est.gpu_hours is not None and est.gpu_hours.quantize(Decimal("0.0001")) == Decimal("11.2347")
    textbook = estimate("sft", params)
    assert textbook.assumptions["mfu_train"].value == "0.4"
    assert textbook.gpu_hours is not None and textbook.gpu_hours.quantize(Decimal("0.0001")) == Decimal(
        "4.2130"
    )


def test_no_history_of_the_method_and_gpu_means_no_calibration() -> None:
    con = history()
    lookup = calibration.from_warehouse(con)
    assert lookup("rl", "H100") is None
    assert lookup("sft", "B200") is None
    a100 = lookup("sft", "A100")  # one run; 6e18 / (80 x 3600 x 312e12) = 0.0668
    assert a100 is not None and a100.phases["train"].runs == ("on-a100",)


def test_estimate_says_it_is_calibrated_and_no_calibration_shows_the_textbook(run, project: Project) -> None:
    project.warehouse.parent.mkdir(parents=True)
    con = duckdb.connect(str(project.warehouse))
    from trainledger.core import queries
    from trainledger.warehouse.connection import session

    session(con)

    con.execute(queries.load("schema/warehouse"))
    history(con).close()
    (project.root / "plan.json").write_text(
        json.dumps({"method": "sft", "params": {**_params(1_000_000), "epoch": 2}}), encoding="utf-8"
    )
    result = run("estimate", "--params", "plan.json")
    assert result.exit_code == 0, result.stderr
    assert "mfu_train           0.15" in result.stdout
    assert "calibrated from 3 runs (e1, e2, e3)" in result.stdout
    assert "trainledger: warning: params.epoch: unknown, ignored; did you mean epochs?" in result.stderr
    result = run("estimate", "--params", "plan.json", "--no-calibration", "--format", "json")
    report = json.loads(result.stdout)
    assert report["assumptions"]["mfu_train"]["value"] == "0.4"
    assert report["warnings"] == ["params.epoch: unknown, ignored; did you mean epochs?"]
    result = run("estimate", "--params", "plan.json", "--strict")
    assert result.exit_code == 1
    assert result.stderr == (
        "trainledger: error: plan.json: params.epoch: unknown, ignored; did you mean epochs? (--strict)\n"
    )


def test_reconcile_lists_unknown_params_under_assumptions() -> None:
    con = history()
    detail = estimate("sft", {**_params(1000), "epoch": 2}).to_json()
    con.execute("UPDATE estimator_results SET detail = ? WHERE experiment_id = 'e1'", (json.dumps(detail),))
    assumptions = reconcile.reconcile(con, "e1").assumptions
    assert assumptions["estimator_warnings"] == ["params.epoch: unknown, ignored; did you mean epochs?"]
    assert "estimator_warnings" not in reconcile.reconcile(con, "e2").assumptions


def test_an_llm_api_bill_in_the_phase_does_not_move_the_calibration() -> None:
    # $1,000 of Anthropic judge spend on e2's train window: had it counted as cloud compute, e2's implied
    # GPU hours would be (550.40 + 1000) / 6.88 = 225.35 and its MFU 0.15 x 80 / 225.35 = 0.0533.
    # Provider anthropic, category compute (as the anthropic-costs source files its charges), its labels e2's.
    labels = {"project": "p", "experiment": "e2", "phase": "train"}
    judge = Charge(
        "judge-e2",
        Decimal("1000.00"),
        at(0),
        at(10),
        "wrkspc_judge",
        labels,
        service_name="Anthropic API",
        usage_type=None,
        service_category="AI and Machine Learning",
        provider="anthropic",
    )
    con = history(more=(judge,))
    assert con.execute(
        "SELECT experiment_id, cost_category, sum(effective_cost) FROM allocations WHERE provider = 'anthropic' "
        "GROUP BY ALL"
    ).fetchall() == [("e2", "compute", Decimal("1000"))]
    found = calibration.from_warehouse(con)("sft", "H100")
    assert found is not None
    assert found.phases["train"].value == Decimal("0.15")
    e2 = next(c for c in reconcile.reconcile(con, "e2").assumptions["compute"] if c["phase"] == "train")
    assert (e2["realized_compute"], e2["implied_mfu"]) == ("550.40", "0.1500")
