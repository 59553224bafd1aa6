"""`export --format focus --focus-version 1.3`: a split charge's shares as FOCUS 1.3 allocated charges.

Checked against the specification, not against our query: every AllocatedMethodDetails value against the JSON
schema FOCUS publishes (vendored in tests/focus_schemas/), and the rules of its "Data Generator-Calculated
Split Cost Allocation Handling" attribute and allocation columns as SQL over the exported file
(tests/focus13_rules.py). Then the file goes back in through trainledger's own FOCUS reader, and `report --by
project` must say what it said before. Three months: the demo's, a GCP month with credits, the real CUR month
of ../shared/reference-data (skipped where absent); and a hand-made hour split over two runs and idle, whose
values are worked out by hand below (it is README's example).
"""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import duckdb
import jsonschema
import pytest
from click.testing import CliRunner

import focus13_rules
import gcp_month
from conftest import REFERENCE, Project, needs_reference
from focus_files import FOCUS_CONFIG, experiment, write_focus
from test_gcp_invoice import run_log
from trainledger.cli import cli
from trainledger.core import config as config_module
from trainledger.core.errors import ConfigError

SCHEMA = json.loads(
    (Path(__file__).parent / "focus_schemas" / "allocatedmethoddetailsobjectschema.json").read_text("utf-8")
)
CUR_MONTH = REFERENCE / "aws-cur-workshop" / "Oct2018-WorkshopCUR-00001.snappy.parquet"


def cli_ok(config: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--config", str(config), *args], catch_exceptions=False)
    assert result.exit_code in (0, 2), result.stderr
    return result.stdout


def export_13(config: Path, period: str, out: Path) -> Path:
    cli_ok(
        config, "export", "--period", period, "--format", "focus", "--focus-version", "1.3", "--out", str(out)
    )
    return out


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def assert_conforms(export: Path, warehouse: Path) -> int:
    """The file passes the vendored schema and the split rules; returns how many allocated charges it has."""
    details = focus13_rules.method_details(export)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for value in details:
        validator.validate(json.loads(value))
    found = focus13_rules.problems(export, warehouse)
    assert {rule: rows[:3] for rule, rows in found.items() if rows} == {}
    return len(details)


def report_by_project(config: Path, period: str) -> dict[str | None, dict[str, Decimal]]:
    rows = json.loads(cli_ok(config, "report", "--by", "project", "--period", period, "--format", "json"))
    return {
        r["project"]: {k: Decimal(r[k]) for k in ("billed_cost", "effective_cost", "list_cost")} for r in rows
    }


def list_cost_focus_adds(warehouse: Path, period: str) -> dict[str | None, Decimal]:
    """Per project, the BilledCost that FOCUS makes the ListCost of credits and of taxes without a list cost
    (listcost.md: a charge unrelated to others matches its BilledCost): what a FOCUS file read back adds to
    list_cost, from the original warehouse's own charges."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute(
            "SELECT a.project, sum(a.billed_cost - a.list_cost) FROM allocations a JOIN charges c USING (charge_id) "
            "WHERE a.billing_period = ? AND (c.charge_category = 'Credit' "
            "OR (c.charge_category = 'Tax' AND c.list_cost = 0)) GROUP BY 1",
            [period],
        ).fetchall()
    finally:
        con.close()
    return dict(rows)


def round_trip(root: Path, export: Path, period: str, rest: str) -> dict[str | None, dict[str, Decimal]]:
    """A new warehouse whose only bill is the 1.3 export (with ``rest`` of the original config: its
    experiment log, labels, allocation), attributed and reported by project."""
    root.mkdir()
    config = root / "trainledger.toml"
    config.write_text(
        f'[warehouse]\npath = "{root / "ledger.duckdb"}"\n\n'
        f'[[sources]]\nname = "focus-13"\nkind = "focus"\nuri = "{export}"\n\n{rest}',
        encoding="utf-8",
    )
    cli_ok(config, "ingest")
    cli_ok(config, "attribute")
    return report_by_project(config, period)


def assert_round_trip(
    original: Path, warehouse: Path, export: Path, period: str, rest: str, root: Path
) -> None:
    before = report_by_project(original, period)
    after = round_trip(root, export, period, rest)
    adds = list_cost_focus_adds(warehouse, period)
    assert set(after) == set(before)
    for project, money in before.items():
        assert after[project]["billed_cost"] == money["billed_cost"], project
        assert after[project]["effective_cost"] == money["effective_cost"], project
        assert after[project]["list_cost"] == money["list_cost"] + adds.get(project, Decimal(0)), project


# README's example: a p5.48xlarge hour ($55.04) on which exp-sft-0412 trained 08:00-08:30 and exp-rl-0421 ran
# rollouts 08:30-08:45 (8 GPUs each, both qwen-coder), idle for the last quarter hour.
def gpu_hour(cost: str = "55.04", quantity: str = "1") -> dict[str, object]:
    return {
        "BilledCost": cost,
        "ResourceId": "i-0gpu",
        "ConsumedQuantity": quantity,
        "ConsumedUnit": "Hrs",
        "Tags": {"team": "post-training"},
    }


def phase(name: str, start: str, end: str) -> dict[str, object]:
    return {
        "phase": name,
        "started_at": f"2026-11-03T{start}:00Z",
        "ended_at": f"2026-11-03T{end}:00Z",
        "resources": [{"provider": "aws", "resource_id": "i-0gpu", "gpus": 8}],
    }


TWO_RUNS = [
    experiment("exp-sft-0412", "qwen-coder", "sft", [phase("train", "08:00", "08:30")]),
    experiment("exp-rl-0421", "qwen-coder", "rl", [phase("rollout", "08:30", "08:45")]),
]


def hour_split(project: Project, rows: list[dict[str, object]], log: list[str]) -> Path:
    project.write_config(FOCUS_CONFIG)
    write_focus(project.root / "bill.csv", rows)
    (project.root / "experiments.jsonl").write_text("\n".join(log) + "\n", encoding="utf-8")
    cli_ok(project.config, "nightly")
    return export_13(project.config, "2026-11", project.root / "hour.csv")


def test_an_hour_split_across_two_experiments_and_idle(project: Project) -> None:
    rows = read_csv(hour_split(project, [gpu_hour()], TWO_RUNS))
    shown = [
        (
            r["AllocatedMethodId"],
            r["AllocatedResourceId"],
            r["AllocatedResourceName"],
            json.loads(r["AllocatedTags"]),
            json.loads(r["AllocatedMethodDetails"]),
            r["BilledCost"],
            r["EffectiveCost"],
            r["ConsumedQuantity"],
            r["PricingQuantity"],
        )
        for r in rows
    ]
    # 55.04 x 30/60, x 15/60, x 15/60; the hour's quantity 1 split the same way.
    assert shown == [
        (
            "trainledger-time-window", "exp-sft-0412", "exp-sft-0412",
            {"project": "qwen-coder", "phase": "train", "method": "sft"},
            {"Elements": [{"AllocatedRatio": 0.5, "UsageUnit": "Hours", "UsageQuantity": 0.5}]},
            "27.52", "27.52", "0.50", "0.50",
        ),
        (
            "trainledger-time-window", "exp-rl-0421", "exp-rl-0421",
            {"project": "qwen-coder", "phase": "rollout", "method": "rl"},
            {"Elements": [{"AllocatedRatio": 0.25, "UsageUnit": "Hours", "UsageQuantity": 0.25}]},
            "13.76", "13.76", "0.25", "0.25",
        ),
        (
            "trainledger-idle", "", "",
            {"project": "qwen-coder", "phase": "idle"},
            {"Elements": [{"AllocatedRatio": 0.25, "UsageUnit": "Hours", "UsageQuantity": 0.25}]},
            "13.76", "13.76", "0.25", "0.25",
        ),
    ]  # fmt: skip
    # Every allocated charge restates the origin: its hour, its resource, its Tags, its provider.
    for r in rows:
        assert (r["ChargePeriodStart"], r["ChargePeriodEnd"]) == (
            "2026-11-03T08:00:00Z",
            "2026-11-03T09:00:00Z",
        )
        assert (r["ResourceId"], r["Tags"], r["ServiceProviderName"], r["HostProviderName"]) == (
            "i-0gpu",
            '{"team": "post-training"}',
            "AWS",
            "AWS",
        )
        assert (
            r["x_ExperimentId"] == r["x_AllocationRule"] == ""
        )  # AllocatedResourceId / AllocatedMethodId say it
    assert assert_conforms(project.root / "hour.csv", project.warehouse) == 3


def test_a_charge_wholly_on_one_experiment_is_not_a_split(project: Project) -> None:
    whole = [experiment("exp-sft-0412", "qwen-coder", "sft", [phase("train", "08:00", "09:00")])]
    rows = read_csv(hour_split(project, [gpu_hour()], whole))
    assert len(rows) == 1
    row = rows[0]
    assert [row[c] for c in focus13_rules.ALLOCATION] == ["", "", "", "", ""]
    assert (
        row["BilledCost"],
        Decimal(row["ConsumedQuantity"]),
        row["x_ExperimentId"],
        row["x_AllocationRule"],
    ) == (
        "55.04",
        1,
        "exp-sft-0412",
        "time-window",
    )
    assert assert_conforms(project.root / "hour.csv", project.warehouse) == 0


def test_a_charge_of_zero_is_split_in_equal_ratios(project: Project) -> None:
    rows = read_csv(hour_split(project, [gpu_hour("0", "3")], TWO_RUNS))
    ratios = [json.loads(r["AllocatedMethodDetails"])["Elements"][0]["AllocatedRatio"] for r in rows]
    # 1e12 units / 3 = 333333333333 each, one unit left: to the first share (largest remainders tie).
    assert ratios == [0.333333333334, 0.333333333333, 0.333333333333]
    assert [Decimal(r["PricingQuantity"]) for r in rows] == [
        Decimal("1.000000000002"),
        Decimal("0.999999999999"),
        Decimal("0.999999999999"),
    ]  # 3 x each ratio, floored to 1e-12; the two units left to the largest remainders
    assert {Decimal(r["BilledCost"]) for r in rows} == {0}
    assert assert_conforms(project.root / "hour.csv", project.warehouse) == 3


def test_a_unit_left_over_goes_to_the_largest_remainder_ties_to_the_first(project: Project) -> None:
    rows = read_csv(hour_split(project, [gpu_hour("0", "0.5")], TWO_RUNS))
    # Ratios 0.333333333334, 0.333333333333, 0.333333333333 (above). 0.5 x each: 0.166666666667 exactly, then
    # 0.1666666666665 twice, floored to 0.166666666666 with equal remainders; the one unit of 1e-12 left over
    # goes to the second share, the first of the tie.
    expected = [Decimal("0.166666666667"), Decimal("0.166666666667"), Decimal("0.166666666666")]
    assert [Decimal(r["ConsumedQuantity"]) for r in rows] == expected
    assert [Decimal(r["PricingQuantity"]) for r in rows] == expected
    assert sum(expected) == Decimal("0.5")
    assert assert_conforms(project.root / "hour.csv", project.warehouse) == 3


def test_the_demo_month(nightly_warehouse: Project, tmp_path: Path) -> None:
    for name in ("demo.csv", "demo.parquet"):
        out = export_13(nightly_warehouse.config, "2026-11", tmp_path / name)
        assert assert_conforms(out, nightly_warehouse.warehouse) > 0
    config = nightly_warehouse.config.read_text(encoding="utf-8")
    rest = "[experiments]" + config.split("[experiments]", 1)[1].split("[exports]", 1)[0]
    assert_round_trip(
        nightly_warehouse.config, nightly_warehouse.warehouse, out, "2026-11", rest, tmp_path / "back"
    )


def attributed_month(root: Path, source: str, rest: str) -> Path:
    root.mkdir()
    config = root / "trainledger.toml"
    config.write_text(f'[warehouse]\npath = "{root / "ledger.duckdb"}"\n\n{source}\n{rest}', encoding="utf-8")
    cli_ok(config, "ingest")
    cli_ok(config, "attribute")
    return config


SPREAD = '[allocation]\nshared = "proportional"\n'


@pytest.mark.parametrize("shared", ["separate", "proportional"])
def test_a_gcp_month_with_credits_and_run_windows(tmp_path: Path, shared: str) -> None:
    month = gcp_month.write(tmp_path / "billing.json")
    # The run stops half an hour early, so its last hours are split between it and idle time.
    log = run_log("instance name").replace("T12:00:00Z", "T11:30:00Z")
    (tmp_path / "experiments.jsonl").write_text(log, encoding="utf-8")
    rest = f'[experiments]\nuri = "{tmp_path / "experiments.jsonl"}"\n' + (
        SPREAD if shared == "proportional" else ""
    )
    source = f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "{month}"\n'
    config = attributed_month(tmp_path / "month", source, rest)
    out = export_13(config, gcp_month.PERIOD, tmp_path / "gcp.csv")
    methods = {r["AllocatedMethodId"] for r in read_csv(out)}
    spread = {"trainledger-shared-spread"} if shared == "proportional" else set()
    assert methods == {"", "trainledger-time-window", "trainledger-tag", "trainledger-idle"} | spread
    assert assert_conforms(out, tmp_path / "month" / "ledger.duckdb") > 0
    assert_round_trip(
        config, tmp_path / "month" / "ledger.duckdb", out, gcp_month.PERIOD, rest, tmp_path / "back"
    )


# The spread month's round trip (about 20 s) runs in the full tier; the GCP month above spreads in both.
@pytest.mark.parametrize("shared", ["separate", pytest.param("proportional", marks=pytest.mark.slow)])
def test_the_real_cur_month(tmp_path: Path, shared: str) -> None:
    needs_reference(CUR_MONTH)
    # Its `workload` tag (on about a third of the cost) as the project; the rest spread over it, or shared.
    rest = '[labels]\nproject = ["workload"]\n' + (SPREAD if shared == "proportional" else "")
    source = f'[[sources]]\nname = "cur"\nkind = "aws-cur"\nuri = "{CUR_MONTH.parent}"\n'
    config = attributed_month(tmp_path / "month", source, rest)
    out = export_13(config, "2018-10", tmp_path / "cur.parquet")
    allocated = assert_conforms(out, tmp_path / "month" / "ledger.duckdb")
    assert (allocated > 0) == (shared == "proportional")
    assert_round_trip(config, tmp_path / "month" / "ledger.duckdb", out, "2018-10", rest, tmp_path / "back")


def test_the_version_comes_from_the_config_and_applies_to_focus_only(
    project: Project, tmp_path: Path
) -> None:
    project.write_config(
        FOCUS_CONFIG + '\n[exports]\ndir = "exports"\nformat = "focus"\nfocus_version = "1.3"\n'
    )
    write_focus(project.root / "bill.csv", [gpu_hour()])
    (project.root / "experiments.jsonl").write_text("\n".join(TWO_RUNS) + "\n", encoding="utf-8")
    cli_ok(project.config, "nightly")
    nightly = read_csv(project.root / "exports" / "trainledger-2026-11-focus.csv")
    assert [r["AllocatedMethodId"] for r in nightly] == ["trainledger-time-window"] * 2 + ["trainledger-idle"]
    # export --format focus takes the config's version; --focus-version says otherwise.
    cli_ok(
        project.config, "export", "--period", "2026-11", "--format", "focus", "--out", str(tmp_path / "a.csv")
    )
    assert read_csv(tmp_path / "a.csv") == nightly
    cli_ok(
        project.config, "export", "--period", "2026-11", "--format", "focus", "--focus-version", "1.2",
        "--out", str(tmp_path / "b.csv"),
    )  # fmt: skip
    assert "AllocatedMethodId" not in read_csv(tmp_path / "b.csv")[0]
    result = CliRunner().invoke(
        cli,
        [
            "--config",
            str(project.config),
            "export",
            "--period",
            "2026-11",
            "--focus-version",
            "1.3",
            "--out",
            "x",
        ],
    )
    assert result.exit_code == 1
    assert "--focus-version applies to --format focus" in result.stderr


def test_the_config_key_takes_the_two_versions_and_names_a_wrong_one(project: Project) -> None:
    for written, version in (('"1.3"', "1.3"), ("1.3", "1.3"), ('"1.2"', "1.2")):
        project.write_config(FOCUS_CONFIG + f"\n[exports]\nfocus_version = {written}\n")
        assert config_module.load(str(project.config)).exports.focus_version == version
    project.write_config(FOCUS_CONFIG + '\n[exports]\nfocus_version = "1.4"\n')
    with pytest.raises(ConfigError, match="focus_version"):
        config_module.load(str(project.config))


def test_a_bills_own_host_is_written_back(project: Project) -> None:
    """MongoDB Atlas's FOCUS 1.3 bill names AWS as the host of its service: the export says so, where a
    bill that names no host (a CUR) gets its provider."""
    bill = project.root / "atlas.csv"
    with bill.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "ServiceProviderName",
                "HostProviderName",
                "BillingCurrency",
                "BillingPeriodStart",
                "BillingPeriodEnd",
                "ChargeCategory",
                "BilledCost",
            ]
        )
        writer.writerow(
            ["MongoDB", "AWS", "USD", "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "Usage", "12.50"]
        )
    (project.root / "experiments.jsonl").write_text("", encoding="utf-8")
    project.write_config(
        f'[[sources]]\nname = "atlas"\nkind = "focus"\nuri = "{bill}"\n\n'
        f'[experiments]\nuri = "{project.root / "experiments.jsonl"}"\n'
    )
    cli_ok(project.config, "nightly")
    (row,) = read_csv(export_13(project.config, "2026-11", project.root / "atlas-1.3.csv"))
    # MongoDB is not in the provider table: it is written by its id, the name lowercased
    assert (row["ServiceProviderName"], row["HostProviderName"], row["BilledCost"]) == (
        "mongodb",
        "AWS",
        "12.50",
    )
