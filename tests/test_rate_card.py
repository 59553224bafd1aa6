"""Usage without prices, priced by the ``[[rates]]`` card: a GPU cloud's usage-only FOCUS export and an owned
Slurm cluster's node hours. Every expected amount is hand arithmetic written below.

The GPU cloud (CoreWeave's FOCUS usage export: hourly quantities, BilledCost blank), November 2026:
- h100-sxm is 2.21 USD per GPU-Hours until Nov 16 00:00 UTC, then 1.95 (a rate ending mid-month);
- storage-shared is 0.00009589 USD per GiB-Hours all month; a100-pcie has no rate.
- Rows on cluster cw-a: Nov 15 22:00 and 23:00, 16 GPU-Hours each: 16 x 2.21 = 35.36 each;
  Nov 16 00:00, 16 GPU-Hours: 16 x 1.95 = 31.20; Nov 16 01:00, 8 GPU-Hours: 8 x 1.95 = 15.60;
  Nov 16 01:00 storage, 2048 GiB-Hours: 2048 x 0.00009589 = 0.19638272;
  Nov 16 01:00 a100-pcie, 4 GPU-Hours: no rate, so no charge, reported by `labels` as 4 GPU-Hours.
- exp-rl (qwen-coder, rl) runs on cw-a: phase train Nov 15 22:00 - Nov 16 00:00, phase rollout
  Nov 16 00:00 - 02:00. Train: 35.36 + 35.36 = 70.72; rollout: 31.20 + 15.60 + 0.19638272 = 46.99638272,
  47.00 to the cent. The month: 70.72 + 46.99638272 = 117.71638272.

The owned cluster: nodes gpu-[01-02] at 12.50 USD per node hour, counted Nov 10 00:00 - 04:00: 2 x 4 x
12.50 = 100.00. Slurm job 101 (qwen-coder, train, sft) runs on both nodes 01:00 - 03:00: 2 x 2 x 12.50 =
50.00 by rule 4; the other 4 node hours (00:00 - 01:00 and 03:00 - 04:00 on each node) are idle of
qwen-coder: 50.00.
"""

from __future__ import annotations

import csv
import json
import shutil
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from conftest import Project
from examples import init_with, readme_toml
from generate_clusters import _job_2108
from spark_checks import ON_SPARK_WORKER, assert_same_allocations, cli_in
from spark_checks import SPARK as SPARK_KEYS
from trainledger.cli import cli
from trainledger.core import config as config_module
from trainledger.core.errors import ConfigError
from trainledger.core.rate_card import RateCard

DUCKDB = '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
SPARK = DUCKDB + SPARK_KEYS
FOCUS_COLUMNS = (
    "BillingAccountId,ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ProviderName,ServiceName,"
    "ServiceCategory,SkuId,PricingQuantity,PricingUnit,ConsumedQuantity,ConsumedUnit,ResourceId,RegionId"
)
USAGE = [
    ("2026-11-15T22:00:00Z", "2026-11-15T23:00:00Z", "h100-sxm", "16", "GPU-Hours"),
    ("2026-11-15T23:00:00Z", "2026-11-16T00:00:00Z", "h100-sxm", "16", "GPU-Hours"),
    ("2026-11-16T00:00:00Z", "2026-11-16T01:00:00Z", "h100-sxm", "16", "GPU-Hours"),
    ("2026-11-16T01:00:00Z", "2026-11-16T02:00:00Z", "h100-sxm", "8", "GPU-Hours"),
    ("2026-11-16T01:00:00Z", "2026-11-16T02:00:00Z", "storage-shared", "2048", "GiB-Hours"),
    ("2026-11-16T01:00:00Z", "2026-11-16T02:00:00Z", "a100-pcie", "4", "GPU-Hours"),
]
GPU_RATES = """
[[rates]]
sku = "h100-sxm"
unit = "GPU-Hours"
price = "2.21"
currency = "USD"
valid_from = 2026-11-01
valid_to = 2026-11-16

[[rates]]
sku = "h100-sxm"
unit = "GPU-Hours"
price = "1.95"
currency = "USD"
valid_from = 2026-11-16

[[rates]]
sku = "storage-shared"
unit = "GiB-Hours"
price = "0.00009589"
currency = "USD"
valid_from = 2026-11-01
"""
RUNS = [
    {
        "experiment_id": "exp-rl",
        "project": "qwen-coder",
        "method": "rl",
        "status": "succeeded",
        "started_at": "2026-11-15T22:00:00Z",
        "ended_at": "2026-11-16T02:00:00Z",
        "phases": [
            {
                "phase": phase,
                "started_at": start,
                "ended_at": end,
                "resources": [{"provider": "coreweave", "resource_id": "cw-a"}],
            }
            for phase, start, end in (
                ("train", "2026-11-15T22:00:00Z", "2026-11-16T00:00:00Z"),
                ("rollout", "2026-11-16T00:00:00Z", "2026-11-16T02:00:00Z"),
            )
        ],
    }
]


def invoke(config: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--config", str(config), *args], catch_exceptions=False)


def query(root: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(root / "ledger.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def export(root: Path, config: Path, *args: str) -> list[dict[str, str]]:
    out = root / "export.csv"
    result = invoke(config, "export", "--period", "2026-11", "--out", str(out), *args)
    assert result.exit_code == 0, result.stderr
    with out.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def gpu_cloud(root: Path, rates: str = GPU_RATES) -> Path:
    lines = [FOCUS_COLUMNS]
    for start, end, sku, quantity, unit in USAGE:
        lines.append(
            f"cw-org-1,{start},{end},,USD,CoreWeave,CoreWeave Kubernetes,Compute,{sku},{quantity},{unit},"
            f"{quantity},{unit},cw-a,US-EAST-04"
        )
    (root / "usage").mkdir()
    (root / "usage" / "focus-2026-11.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "experiments.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RUNS), encoding="utf-8")
    config = root / "trainledger.toml"
    config.write_text(
        '[warehouse]\npath = "ledger.duckdb"\n\n[experiments]\nuri = "experiments.jsonl"\n\n'
        '[[sources]]\nname = "coreweave"\nkind = "focus-usage"\nuri = "usage"\nprovider = "coreweave"\n'
        + rates,
        encoding="utf-8",
    )
    return config


def test_gpu_cloud_usage_priced_by_the_rate_card_per_experiment_and_phase(tmp_path: Path) -> None:
    config = gpu_cloud(tmp_path)
    for command in ("ingest", "attribute"):
        result = invoke(config, command)
        assert result.exit_code == 0, result.stderr
    shares = query(
        tmp_path,
        "SELECT experiment_id, phase, rule, sum(effective_cost) FROM allocations GROUP BY ALL ORDER BY ALL",
    )
    assert shares == [
        ("exp-rl", "rollout", "time-window", Decimal("46.99638272")),
        ("exp-rl", "train", "time-window", Decimal("70.72")),
    ]
    charges = query(
        tmp_path,
        "SELECT strftime(charge_period_start, '%d %H') || ' ' || sku_id, billed_cost, effective_cost, "
        "list_cost, invoice_id FROM charges ORDER BY 1",
    )
    assert charges == [
        ("15 22 h100-sxm", Decimal("35.36"), Decimal("35.36"), Decimal("35.36"), None),
        ("15 23 h100-sxm", Decimal("35.36"), Decimal("35.36"), Decimal("35.36"), None),
        ("16 00 h100-sxm", Decimal("31.20"), Decimal("31.20"), Decimal("31.20"), None),
        ("16 01 h100-sxm", Decimal("15.60"), Decimal("15.60"), Decimal("15.60"), None),
        ("16 01 storage-shared", Decimal("0.19638272"), Decimal("0.19638272"), Decimal("0.19638272"), None),
    ]
    # To the cent, as the finance CSV gives it: 70.72 and 46.99638272 -> 47.00.
    rows = export(tmp_path, config, "--by", "experiment,phase", "--cents")
    assert {(r["experiment_id"], r["phase"]): r["effective_cost"] for r in rows} == {
        ("exp-rl", "train"): "70.72",
        ("exp-rl", "rollout"): "47.00",
    }


def test_every_output_marks_the_charges_as_priced_by_trainledger(tmp_path: Path) -> None:
    config = gpu_cloud(tmp_path)
    assert invoke(config, "nightly").exit_code == 0
    finance = export(tmp_path, config)
    assert {r["service_name"] for r in finance} == {"CoreWeave Kubernetes (priced by trainledger rate card)"}
    assert {r["provider"] for r in finance} == {"coreweave"}
    focus_rows = export(tmp_path, config, "--format", "focus")
    assert {r["ServiceName"] for r in focus_rows} == {
        "CoreWeave Kubernetes (priced by trainledger rate card)"
    }
    assert all(r["ChargeDescription"].startswith("trainledger rate card: ") for r in focus_rows)
    assert {r["ServiceCategory"] for r in focus_rows} == {"Compute"}
    assert {r["InvoiceId"] for r in focus_rows} == {""}
    # CoreWeave by its own name, as its FOCUS export writes it, not the id "coreweave".
    assert {(r["ProviderName"], r["PublisherName"], r["InvoiceIssuerName"]) for r in focus_rows} == {
        ("CoreWeave", "CoreWeave", "CoreWeave")
    }
    assert sum(Decimal(r["BilledCost"]) for r in focus_rows) == Decimal("117.71638272")
    report = invoke(config, "report", "--period", "2026-11", "--by", "service", "--format", "csv").stdout
    assert "CoreWeave Kubernetes (priced by trainledger rate card)" in report
    postmortem = invoke(config, "reconcile", "exp-rl", "--format", "markdown")
    assert postmortem.exit_code == 0, postmortem.stderr
    assert (
        "priced_by_rate_card: 117.71638272 USD of the realized cost is usage priced by trainledger's rate card"
        in postmortem.stdout
    )


def test_usage_with_no_rate_is_named_by_labels_and_never_priced_zero(tmp_path: Path) -> None:
    config = gpu_cloud(tmp_path)
    assert invoke(config, "ingest").exit_code == 0
    assert query(tmp_path, "SELECT count(*) FROM charges WHERE sku_id = 'a100-pcie'") == [(0,)]
    assert query(tmp_path, "SELECT count(*) FROM charges WHERE billed_cost = 0") == [(0,)]
    result = invoke(config, "labels", "--period", "2026-11", "--format", "json")
    assert result.exit_code == 0, result.stderr
    unpriced = json.loads(result.stdout)["unpriced"]
    assert [
        (u["provider"], u["source"], u["rate_key"], u["unit"], u["usage_rows"], Decimal(u["quantity"]))
        for u in unpriced
    ] == [("coreweave", "coreweave", "a100-pcie", "GPU-Hours", 1, Decimal("4"))]
    table = invoke(config, "labels", "--period", "2026-11").stdout
    assert "a100-pcie" in table and "no rate" in table


def test_a_rate_added_later_prices_the_month_again(tmp_path: Path) -> None:
    config = gpu_cloud(tmp_path)
    assert invoke(config, "ingest").exit_code == 0
    config.write_text(
        config.read_text(encoding="utf-8")
        + '\n[[rates]]\nsku = "a100-pcie"\nunit = "GPU-Hours"\nprice = "1.10"\ncurrency = "USD"\n'
        "valid_from = 2026-11-01\n",
        encoding="utf-8",
    )
    assert invoke(config, "ingest").exit_code == 0
    # 4 x 1.10 = 4.40 joins the month; nothing is left without a rate.
    assert query(tmp_path, "SELECT billed_cost FROM charges WHERE sku_id = 'a100-pcie'") == [
        (Decimal("4.40"),)
    ]
    assert query(tmp_path, "SELECT count(*) FROM unpriced_usage") == [(0,)]


def test_a_bad_usage_row_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    config = gpu_cloud(tmp_path)
    assert invoke(config, "ingest").exit_code == 0
    before = query(tmp_path, "SELECT count(*), sum(billed_cost) FROM charges")
    path = tmp_path / "usage" / "focus-2026-11.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace(",h100-sxm,16,", ",h100-sxm,sixteen,")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke(config, "ingest")
    assert result.exit_code == 1
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .endswith("focus-2026-11.csv:4, column PricingQuantity: expected a decimal number, got 'sixteen'")
    )
    assert query(tmp_path, "SELECT count(*), sum(billed_cost) FROM charges") == before


def test_a_priced_focus_bill_is_refused_here(tmp_path: Path) -> None:
    config = gpu_cloud(tmp_path)
    path = tmp_path / "usage" / "focus-2026-11.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("Z,,USD,", "Z,35.36,USD,", 1), encoding="utf-8")
    result = invoke(config, "ingest")
    assert result.exit_code == 1
    assert "focus-2026-11.csv:2, column BilledCost: expected it blank" in result.stderr


def test_two_rates_valid_at_once_are_a_config_error(tmp_path: Path) -> None:
    config = gpu_cloud(tmp_path, GPU_RATES.replace("valid_to = 2026-11-16", "valid_to = 2026-11-17"))
    result = invoke(config, "ingest")
    assert result.exit_code != 0
    assert "two rates for sku 'h100-sxm' (GPU-Hours) are both valid from 2026-11-16 00:00" in result.stderr


def owned_cluster(root: Path, warehouse: str = '[warehouse]\npath = "ledger.duckdb"\n') -> Path:
    job = _job_2108(
        101,
        "sft-coder",
        "gpu-[01-02]",
        16,
        1,
        3,
        "COMPLETED",
        comment="phase=train,method=sft",
        account="qwen-coder",
    )
    (root / "sacct").mkdir()
    (root / "sacct" / "sacct-2026-11-10.json").write_text(
        json.dumps({"meta": {"Slurm": {"version": {"major": 21, "minor": 8}}}, "errors": [], "jobs": [job]}),
        encoding="utf-8",
    )
    config = root / "trainledger.toml"
    config.write_text(
        warehouse + "\n"
        '[experiments]\nkind = "slurm"\nuri = "sacct/"\n\n'
        '[experiments.slurm]\nlabels = ["comment"]\nproject = "account"\nprovider = "onprem"\n\n'
        '[[sources]]\nname = "lab"\nkind = "cluster"\nnodes = "gpu-[01-02]"\n'
        "start = 2026-11-10T00:00:00Z\nend = 2026-11-10T04:00:00Z\n\n"
        '[[rates]]\nnode = "gpu-[01-02]"\nunit = "Hours"\nprice = "12.50"\ncurrency = "USD"\n'
        "valid_from = 2026-11-01\n",
        encoding="utf-8",
    )
    return config


def test_an_owned_cluster_node_hours_go_to_the_job_and_the_rest_is_idle(tmp_path: Path) -> None:
    config = owned_cluster(tmp_path)
    result = invoke(config, "nightly")
    assert result.exit_code == 0, result.stderr
    assert query(tmp_path, "SELECT count(*), sum(billed_cost) FROM charges") == [(8, Decimal("100.00"))]
    shares = query(
        tmp_path,
        "SELECT project, phase, rule, sum(effective_cost) FROM allocations GROUP BY ALL ORDER BY ALL",
    )
    assert shares == [
        ("qwen-coder", "idle", "idle", Decimal("50.00")),
        ("qwen-coder", "train", "time-window", Decimal("50.00")),
    ]
    postmortem = invoke(config, "reconcile", "slurm-101", "--format", "markdown").stdout
    assert "priced_by_rate_card: 50.00 USD of the realized cost" in postmortem
    # An owned cluster is internal infrastructure: FOCUS names its provider by an internal name (FOCUS_Spec,
    # appendix "Entity Identification Examples", scenario 5.1), here the table's "On-premises".
    focus_rows = export(tmp_path, config, "--format", "focus")
    assert {(r["ProviderName"], r["InvoiceIssuerName"]) for r in focus_rows} == {
        ("On-premises", "On-premises")
    }
    assert sum(Decimal(r["BilledCost"]) for r in focus_rows) == Decimal("100.00")  # 8 node hours x 12.50


def test_the_readme_and_init_rate_cards_price_as_they_say(tmp_path: Path) -> None:
    [readme] = readme_toml("Usage without prices")
    (tmp_path / "coreweave-focus").mkdir()
    init = init_with(
        "[[rates]]",
        'sku = "h100-sxm"',
        'unit = "GPU-Hours"',
        'price = "2.21"',
        'currency = "USD"              # ISO 4217, of the price',
        "valid_from = 2026-11-01",
    )
    for text in (init, readme):
        (tmp_path / "trainledger.toml").write_text(text, encoding="utf-8")
        config = config_module.load(tmp_path / "trainledger.toml")
        rate = RateCard(config.rates, "sku").find("h100-sxm", "gpu-hours", datetime(2026, 11, 15, 23))
        assert rate is not None and (rate.price, rate.currency) == (Decimal("2.21"), "USD")
    # README: the h100-sxm rate ends at Nov 16 00:00; node gpu-03 is in the hostlist gpu-[01-04].
    readme_config = config_module.load(tmp_path / "trainledger.toml")
    assert RateCard(readme_config.rates, "sku").find("h100-sxm", "GPU-Hours", datetime(2026, 11, 16)) is None
    node = RateCard(readme_config.rates, "node").find("gpu-03", "Hours", datetime(2026, 11, 16))
    assert node is not None and node.price == Decimal("12.50")


def test_a_rate_card_key_it_does_not_know_is_named(tmp_path: Path) -> None:
    (tmp_path / "trainledger.toml").write_text(
        '[[rates]]\nsku = "h100"\nunit = "Hours"\nprice = "2"\ncurrency = "USD"\nvalid_from = 2026-11-01\n'
        "vaild_to = 2026-12-01\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="vaild_to"):
        config_module.load(tmp_path / "trainledger.toml")


def test_a_bad_hostlist_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    config = owned_cluster(tmp_path)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('nodes = "gpu-[01-02]"', 'nodes = "gpu-[01-x]"'), encoding="utf-8")
    result = invoke(config, "ingest")
    assert result.exit_code == 1
    assert "[[sources]] #1 (name 'lab').nodes: hostlist range '01-x' is not N or N-M" in result.stderr
    config.write_text(text.replace('node = "gpu-[01-02]"', 'node = "gpu-[01-02"'), encoding="utf-8")
    result = invoke(config, "ingest")
    assert result.exit_code == 1
    assert "[[rates]] #1.node: hostlist 'gpu-[01-02' has an unbalanced bracket" in result.stderr


def test_a_cluster_month_with_no_rate_at_all_is_listed_not_priced(tmp_path: Path) -> None:
    config = owned_cluster(tmp_path)
    config.write_text(config.read_text(encoding="utf-8").split("[[rates]]")[0], encoding="utf-8")
    assert invoke(config, "nightly").exit_code == 0
    assert query(tmp_path, "SELECT count(*) FROM charges") == [(0,)]
    # Without --period too: the month has no charge, but its 2 x 4 node hours are named.
    unpriced = json.loads(invoke(config, "labels", "--format", "json").stdout)["unpriced"]
    assert sorted((u["rate_key"], u["usage_rows"], Decimal(u["quantity"])) for u in unpriced) == [
        ("gpu-01", 4, Decimal("4")),
        ("gpu-02", 4, Decimal("4")),
    ]


@pytest.mark.slow
@ON_SPARK_WORKER
def test_spark_splits_the_cluster_hours_as_duckdb_does(tmp_path: Path) -> None:
    if shutil.which("java") is None:
        pytest.skip("no Java runtime (Spark needs Java 17: apt-get install openjdk-17-jre-headless)")
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install 'trainledger[spark]')")
    engines = {}
    for engine, warehouse in (("duckdb", DUCKDB), ("spark", SPARK)):
        root = tmp_path / engine
        root.mkdir()
        owned_cluster(root, warehouse)
        for command in ("ingest", "attribute"):
            result = cli_in(root)(command)
            assert result.exit_code == 0, result.stderr
        engines[engine] = Project(root)
        postmortem = cli_in(root)("reconcile", "slurm-101", "--format", "markdown").stdout
        assert "priced_by_rate_card: 50.00 USD of the realized cost" in postmortem
    on_spark = assert_same_allocations(engines, at_least=7)
    # The job's 4 node hours at 12.50, and the 4 idle ones.
    assert (
        sorted((r[10], r[20]) for r in on_spark)
        == [("idle", Decimal("12.50"))] * 4 + [("train", Decimal("12.50"))] * 4
    )
