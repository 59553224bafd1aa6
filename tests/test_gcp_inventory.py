"""gcp-catalog and gcp-labels against local fakes of the Cloud Catalog and Compute Engine REST APIs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest

import generate_gcp
from gcp_fakes import CatalogFake, ComputeFake
from trainledger.connectors.gcp_catalog import gpu_type, money
from trainledger.core import config as config_module
from trainledger.core.config import Config
from trainledger.core.errors import SourceError
from trainledger.core.reporter import Silent
from trainledger.estimate.gpu_list_prices import GpuListPrices
from trainledger.pipeline import jobs

COMPUTE_ENGINE = "6F81-5844-456A"


def make_config(tmp_path: Path, sources: str) -> Config:
    text = f'[warehouse]\npath = "{tmp_path / "ledger.duckdb"}"\n\n{sources}'
    return config_module.parse(text, "trainledger.toml", tmp_path)


def query(config: Config, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(config.warehouse_path()), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture
def catalog() -> Iterator[CatalogFake]:
    with CatalogFake(generate_gcp.CATALOG_SERVICES, {COMPUTE_ENGINE: generate_gcp.catalog_skus()}) as fake:
        yield fake


@pytest.fixture
def compute() -> Iterator[ComputeFake]:
    with ComputeFake(
        generate_gcp.compute_instances(), generate_gcp.PROJECT_NUMBERS, denied={"locked-down"}
    ) as fake:
        yield fake


# ---------------------------------------------------------------------------------------------------------
# gcp-catalog
# ---------------------------------------------------------------------------------------------------------


def test_catalog_gpu_prices_are_exact_and_typed(tmp_path: Path, catalog: CatalogFake) -> None:
    config = make_config(
        tmp_path, f'[[sources]]\nname = "catalog"\nkind = "gcp-catalog"\napi_endpoint = "{catalog.url}"\n'
    )
    summary = jobs.ingest(config, Silent())
    assert [(r.source, r.rows) for r in summary.ingested] == [("catalog", 12)]
    assert query(
        config,
        "SELECT gpu_type, usage_type, description, unit, currency, price_per_unit FROM prices "
        "WHERE gpu_type IS NOT NULL ORDER BY gpu_type, price_per_unit",
    ) == [
        ("A100", "Commit1Yr", "Commitment v1: Nvidia Tesla A100 GPU in Americas for 1 Year", "h", "USD", Decimal("1.848362")),
        ("A100", "OnDemand", "Nvidia Tesla A100 GPU running in Americas", "h", "USD", Decimal("2.933908")),
        ("A100", "OnDemand", "Nvidia A100 80GB GPU running in Americas", "h", "USD", Decimal("3.92712")),
        ("B200", "OnDemand", "Nvidia B200 GPU running in Americas", "h", "USD", Decimal("13.4")),
        ("H100", "Preemptible", "Spot Preemptible Nvidia H100 80GB GPU running in Americas", "h", "USD", Decimal("2.2534")),
        ("H100", "OnDemand", "Nvidia H100 80GB GPU running in Americas", "h", "USD", Decimal("9.798")),
        ("H200", "OnDemand", "Nvidia H200 141GB GPU running in Americas", "h", "USD", Decimal("10.85")),
        ("L4", "OnDemand", "Nvidia L4 GPU running in Americas", "h", "USD", Decimal("0.5599")),
    ]  # fmt: skip
    # Tiered rates: one row per tier, each with where it starts.
    assert query(config, "SELECT tier_start, price_per_unit FROM prices WHERE description = 'Balanced PD Capacity' ORDER BY 1") == [
        (Decimal(0), Decimal(0)),
        (Decimal(10), Decimal("0.1")),
    ]  # fmt: skip
    ((fetched_at, regions),) = query(
        config, "SELECT DISTINCT fetched_at, regions FROM prices WHERE gpu_type = 'H200'"
    )
    assert fetched_at is not None and regions == ["us-central1"]
    # Both lists were read page by page (two items a page).
    assert catalog.paths().count("GET /v1/services") == 2
    assert catalog.paths().count(f"GET /v1/services/{COMPUTE_ENGINE}/skus") == 6


def test_the_estimator_prices_a_gpu_hour_from_the_fetched_catalog(
    tmp_path: Path, catalog: CatalogFake
) -> None:
    config = make_config(
        tmp_path, f'[[sources]]\nname = "catalog"\nkind = "gcp-catalog"\napi_endpoint = "{catalog.url}"\n'
    )
    jobs.ingest(config, Silent())
    con = duckdb.connect(str(config.warehouse_path()), read_only=True)
    try:
        prices = GpuListPrices.from_warehouse(con)
    finally:
        con.close()
    assert prices is not None
    # The on-demand SKU's 9.798 USD, not the spot SKU's 2.2534 (the fake's catalog_skus).
    h100 = prices.price("H100", region="us-central1")
    assert h100 is not None and (h100.price_per_gpu_hour, h100.currency) == (Decimal("9.798"), "USD")
    # Two on-demand A100 SKUs (40 GB at 2.933908, 80 GB at 3.92712): the dearer one, and the spread said.
    a100 = prices.price("A100")
    assert a100 is not None and a100.price_per_gpu_hour == Decimal("3.92712")
    assert "from 2.933908 to 3.92712, highest used" in a100.source


def test_a_second_fetch_replaces_the_price_sheet(tmp_path: Path, catalog: CatalogFake) -> None:
    config = make_config(
        tmp_path, f'[[sources]]\nname = "catalog"\nkind = "gcp-catalog"\napi_endpoint = "{catalog.url}"\n'
    )
    jobs.ingest(config, Silent())
    catalog.skus[COMPUTE_ENGINE] = generate_gcp.catalog_skus()[:1]
    jobs.ingest(config, Silent())
    assert query(config, "SELECT description, price_per_unit FROM prices") == [
        ("Nvidia H100 80GB GPU running in Americas", Decimal("9.798"))
    ]


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Nvidia Tesla A100 GPU running in Americas", "A100"),
        ("Nvidia A100 80GB GPU attached to Spot Preemptible VMs running in EMEA", "A100"),
        ("Nvidia H100 80GB Mega GPU running in Americas", "H100"),
        ("Nvidia GB200 GPU running in Americas", "GB200"),
        ("Nvidia L4 GPU attached to Spot Preemptible VMs running in Belgium", "L4"),
        ("A3 Instance Core running in Americas", None),
        ("C4 Instance Ram running in Americas", None),
    ],
)
def test_gpu_type_comes_from_the_sku_description(description: str, expected: str | None) -> None:
    assert gpu_type(description) == expected


def test_money_units_and_nanos_are_exact() -> None:
    assert money(9, 798_000_000) == Decimal("9.798")
    assert money(-1, -750_000_000) == Decimal("-1.75")
    assert money(0, 1) == Decimal("0.000000001")


# ---------------------------------------------------------------------------------------------------------
# gcp-labels
# ---------------------------------------------------------------------------------------------------------


def labels_source(name: str, project: str, url: str) -> str:
    return (
        f'[[sources]]\nname = "{name}"\nkind = "gcp-labels"\nproject = "{project}"\napi_endpoint = "{url}"\n'
    )


def test_instances_land_in_resources_with_every_name_the_bill_or_a_person_may_use(
    tmp_path: Path, compute: ComputeFake
) -> None:
    config = make_config(tmp_path, labels_source("gce", "math-reasoner-rl", compute.url))
    summary = jobs.ingest(config, Silent())
    assert [(r.source, r.rows) for r in summary.ingested] == [("gce", 2)]
    rows = query(config, "SELECT resource_id, aliases, tags, region_id FROM resources ORDER BY resource_id")
    assert rows == [
        (
            "//compute.googleapis.com/projects/412345678902/zones/us-central1-b/instances/5123456789012345602",
            [
                "//compute.googleapis.com/projects/math-reasoner-rl/zones/us-central1-b/instances/5123456789012345602",
                "5123456789012345602",
                "mr-rl-a2-01",
            ],
            '{"cost-label":"math-reasoner-rollout-rl","experiment":"exp-rl-gcp-0601"}',
            "us-central1",
        ),
        (
            "//compute.googleapis.com/projects/412345678902/zones/us-central1-c/instances/5123456789012345603",
            [
                "//compute.googleapis.com/projects/math-reasoner-rl/zones/us-central1-c/instances/5123456789012345603",
                "5123456789012345603",
                "mr-eval-l4-01",
            ],
            '{"method":"rl","phase":"eval","project":"math-reasoner"}',
            "us-central1",
        ),
    ]
    # One instance a page: the aggregated list was followed to its last page.
    assert compute.paths().count("GET /compute/v1/projects/math-reasoner-rl/aggregated/instances") == 2


def test_a_relabelled_instance_keeps_its_first_seen(tmp_path: Path, compute: ComputeFake) -> None:
    config = make_config(tmp_path, labels_source("gce", "math-reasoner-rl", compute.url))
    jobs.ingest(config, Silent())
    compute.instances["math-reasoner-rl"][1] = {
        **compute.instances["math-reasoner-rl"][1],
        "labels": {"phase": "train"},
    }
    jobs.ingest(config, Silent())
    ((tags, first, last),) = query(
        config,
        "SELECT tags, first_seen, last_seen FROM resources WHERE list_contains(aliases, 'mr-eval-l4-01')",
    )
    assert json.loads(tags) == {"phase": "train"} and first < last


def test_missing_compute_permission_is_one_line(tmp_path: Path, compute: ComputeFake) -> None:
    config = make_config(tmp_path, labels_source("gce", "locked-down", compute.url))
    with pytest.raises(SourceError) as err:
        jobs.ingest(config, Silent())
    assert str(err.value) == (
        "source 'gce': listing Compute Engine instances of project locked-down: permission denied (403: "
        "Required 'compute.instances.list' permission for 'projects/locked-down'); the caller needs "
        "compute.instances.list (roles/compute.viewer) on the project"
    )


def test_inventory_labels_place_charges_the_bill_shows_unlabelled(
    tmp_path: Path, compute: ComputeFake
) -> None:
    """Attribution rule 3 for GCP: the eval VM was labelled after launch, so only the inventory knows."""
    exports = tmp_path / "exports"
    generate_gcp.write_exports(exports, "parquet")
    config = make_config(
        tmp_path,
        f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "{exports}"\n\n'
        + labels_source("gce-shared", "ml-platform-shared", compute.url),
    )
    jobs.ingest(config, Silent())
    jobs.attribute(config, Silent())
    assert query(
        config,
        "SELECT a.rule, a.project, a.phase, a.method, count(*), sum(a.effective_cost) FROM allocations a "
        "JOIN charges c USING (charge_id) WHERE c.resource_id LIKE '%/instances/5123456789012345605' GROUP BY ALL",
    ) == [("inventory", "qwen-coder", "eval", "sft", 30, Decimal("8.535"))]
    # The whole month still adds up to the invoice, whatever each charge's rule.
    assert query(config, "SELECT sum(effective_cost) FROM allocations WHERE billing_period = '2026-11'") == [
        (Decimal("14691.21"),)
    ]


def test_no_credentials_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing-key.json"))
    config = make_config(tmp_path, '[[sources]]\nname = "catalog"\nkind = "gcp-catalog"\n')
    with pytest.raises(SourceError) as err:
        jobs.ingest(config, Silent())
    assert str(err.value) == (
        f"source 'catalog': reading the Cloud Billing Catalog: no Google credentials (File "
        f"{tmp_path / 'missing-key.json'} was not found.); run `gcloud auth application-default login` or "
        "point GOOGLE_APPLICATION_CREDENTIALS at a key file"
    )
