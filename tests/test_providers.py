"""One provider identity (SPEC §5): a bill's name for a provider and the experiment log's id meet in the
provider table, so a run logged on `azure` is matched to the charges of a FOCUS file from `Microsoft`, and
the exports name the provider as the table does."""

from __future__ import annotations

import csv
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import Project
from focus_files import FOCUS_CONFIG, experiment, write_focus
from trainledger.core import config, providers, queries
from trainledger.warehouse.connection import open_warehouse

VM = "/subscriptions/0000-1111/resourceGroups/ml/providers/Microsoft.Compute/virtualMachines/gpu-vm-1"


def azure_bill(project: Project, log_provider: str) -> None:
    """Four hours of one Azure GPU VM at 12.00 an hour, as Microsoft's FOCUS export names them, and a run
    the log places on that VM from 09:00 to 10:30 under ``log_provider``."""
    hours = [("08", "09"), ("09", "10"), ("10", "11"), ("11", "12")]
    write_focus(
        project.root / "bill.csv",
        [
            {
                "ProviderName": "Microsoft",
                "PublisherName": "Microsoft",
                "InvoiceIssuerName": "Microsoft",
                "ServiceName": "Virtual Machines",
                "ServiceCategory": "Compute",
                "x_UsageType": "",
                "ResourceId": VM,
                "ChargePeriodStart": f"2026-11-03T{start}:00:00Z",
                "ChargePeriodEnd": f"2026-11-03T{end}:00:00Z",
                "BilledCost": "12.00",
            }
            for start, end in hours
        ],
    )
    train = {
        "phase": "train",
        "started_at": "2026-11-03T09:00:00Z",
        "ended_at": "2026-11-03T10:30:00Z",
        "resources": [{"provider": log_provider, "resource_id": VM, "gpus": 8}],
    }
    record = experiment("exp-az-1", "qwen-coder", "sft", [train], ended_at="2026-11-03T10:30:00Z")
    (project.root / "experiments.jsonl").write_text(record + "\n", encoding="utf-8")
    project.write_config(FOCUS_CONFIG)


def export_rows(run, *args: str) -> list[dict[str, str]]:
    result = run("export", "--period", "2026-11", *args, "--out", "out.csv")
    assert result.exit_code == 0, result.stderr
    with open("out.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("log_provider", ["azure", "Azure", " Microsoft "])
def test_a_run_logged_on_azure_takes_its_hours_of_a_microsoft_focus_bill(
    run, project: Project, log_provider: str
) -> None:
    azure_bill(project, log_provider)
    assert run("nightly").exit_code == 0
    got: dict[tuple[str, str, str], Decimal] = {}
    for row in export_rows(run):
        key = (row["provider"], row["rule"], row["experiment_id"])
        got[key] = got.get(key, Decimal(0)) + Decimal(row["effective_cost"])
    # The run covers 09:00-10:00 whole and half of 10:00-11:00: 12.00 + 6.00. The rest of the VM's four
    # hours (48.00) is its project's idle cost: the log places only qwen-coder's run on it.
    assert got == {
        ("azure", "time-window", "exp-az-1"): Decimal("18.00"),
        ("azure", "idle", ""): Decimal("30.00"),
    }


def test_reconcile_reads_the_azure_runs_billing_from_the_microsoft_bill(run, project: Project) -> None:
    """Billing is complete through the end of the latest hour its provider billed: the Microsoft bill's
    12:00, after the run's 10:30 end, so the run is no longer provisional."""
    azure_bill(project, "azure")
    assert run("nightly").exit_code == 0
    result = run("reconcile", "exp-az-1", "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["billing_complete_through"], report["provisional"]) == ("2026-11-03T12:00:00Z", False)
    assert report["totals"]["realized"] == "18.00"


def test_a_run_logged_on_another_provider_does_not_take_the_vm(run, project: Project) -> None:
    """The provider is part of a resource's identity: the same id logged under gcp is not Azure's VM."""
    azure_bill(project, "gcp")
    assert run("nightly").exit_code == 0
    rules = {(row["provider"], row["rule"]) for row in export_rows(run)}
    assert rules == {("azure", "unattributed")}


def test_the_focus_export_names_the_provider_as_its_own_export_does(run, project: Project) -> None:
    azure_bill(project, "azure")
    assert run("nightly").exit_code == 0
    rows = export_rows(run, "--format", "focus")
    names = {(r["ProviderName"], r["PublisherName"], r["InvoiceIssuerName"]) for r in rows}
    assert names == {("Microsoft", "Microsoft", "Microsoft")}  # as the bill wrote them (azure_bill)
    assert sum(Decimal(r["BilledCost"]) for r in rows) == Decimal("48.00")


def test_every_name_of_a_provider_gives_its_id() -> None:
    assert [providers.provider_id(n) for n in ("Microsoft", "AZURE", "Microsoft Azure")] == ["azure"] * 3
    assert [providers.provider_id(n) for n in ("AWS", "Amazon Web Services", "aws")] == ["aws"] * 3
    assert [providers.provider_id(n) for n in ("Google Cloud", "GCP")] == ["gcp", "gcp"]
    assert [providers.provider_id(n) for n in ("Oracle", "OCI")] == ["oci", "oci"]
    assert [providers.provider_id(n) for n in ("OpenAI", "Anthropic")] == ["openai", "anthropic"]
    assert [providers.provider_id(n) for n in ("CoreWeave", " coreweave ")] == ["coreweave"] * 2
    assert [providers.provider_id(n) for n in ("onprem", "On-premises", "on-prem")] == ["onprem"] * 3


def test_a_name_the_table_does_not_know_keeps_a_stable_id() -> None:
    assert providers.provider_id("Lambda Labs") == "lambda labs"
    assert providers.provider_id(" lambda labs ") == "lambda labs"
    assert providers.provider_id(None) is None
    assert providers.provider_id("  ") is None


def test_no_name_means_two_providers() -> None:
    names = [n for p in providers.PROVIDERS for n in p.names()]
    assert len(names) == len(set(names))
    assert {p.id for p in providers.PROVIDERS} >= {"aws", "gcp", "azure", "oci", "openai", "anthropic"}


def test_every_provider_a_connector_writes_is_in_the_table() -> None:
    """The connectors that know their provider write its id (`'aws' AS provider`); only the off-cloud
    ledger, `manual`, is no provider of the table."""
    written = {
        found
        for name in queries.names()
        if name.startswith("ingest/normalize_")
        for found in re.findall(r"'([a-z]+)' AS provider\b", queries.load(name))
    }
    assert written == {"aws", "gcp", "manual"}
    assert written - {"manual"} <= {p.id for p in providers.PROVIDERS}


def test_what_a_providers_bill_buys_is_read_by_the_sql_from_the_table(tmp_path: Path) -> None:
    """One definition: the model APIs are the providers whose spend is llm_api; the session's SQL reads the
    same flag (the table providers and the macro usage_billed), so no query lists them again."""
    assert {p.id for p in providers.PROVIDERS if p.spend == providers.LLM_API} == {"openai", "anthropic"}
    assert [providers.spend_of(p) for p in ("anthropic", "coreweave", "manual", "lambda labs", None)] == [
        "llm_api",
        "cloud",
        "cloud",
        "cloud",
        "cloud",
    ]
    path = tmp_path / "trainledger.toml"
    path.write_text('[warehouse]\npath = "ledger.duckdb"\n', encoding="utf-8")
    with open_warehouse(config.load(path), write=True) as con:
        rows = con.execute("SELECT provider, spend, usage_billed(provider) FROM providers").fetchall()
    assert {provider: (spend, api) for provider, spend, api in rows} == {
        "aws": ("cloud", False),
        "gcp": ("cloud", False),
        "azure": ("cloud", False),
        "oci": ("cloud", False),
        "openai": ("llm_api", True),
        "anthropic": ("llm_api", True),
        "coreweave": ("cloud", False),
        "onprem": ("cloud", False),
    }
    for name in queries.names():
        text = re.sub(r"--[^\n]*", "", queries.load(name))
        assert "'openai'" not in text and "'anthropic'" not in text, name
