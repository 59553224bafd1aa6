"""Reading what each engine committed, by readers other than the code under test: DuckDB's allocations
view, and Spark's parquet folders (those the pointer file names) through pyarrow: the stored shares with
their kinds, and the charges with one share by reference (the charge, its tuple of labels)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from conftest import Project
from trainledger.cli import cli

# Every Spark test runs in one pytest-xdist worker (`make test` distributes with --dist loadgroup): one JVM and
# one Spark session serve them all, and a module's fixture is built once rather than once in each worker.
ON_SPARK_WORKER = pytest.mark.xdist_group("spark")

# The [warehouse] keys of a test project on Spark: the process's local[2] session, two shuffle partitions.
SPARK = (
    'engine = "spark"\nmaster = "local[2]"\n'
    'spark_conf = { "spark.sql.shuffle.partitions" = "2", "spark.ui.enabled" = "false" }\n'
)


def require_spark() -> None:
    """Skip the calling test module, saying why, where Spark cannot run: no Java 17 or no pyspark."""
    if shutil.which("java") is None:
        pytest.skip(
            "no Java runtime (Spark needs Java 17: apt-get install openjdk-17-jre-headless)",
            allow_module_level=True,
        )
    pytest.importorskip("pyspark", reason="pyspark not installed (pip install 'trainledger[spark]')")


@contextmanager
def bucket_scheme_on_local_folders(scheme: str) -> Iterator[Callable[[str, Path], None]]:
    """``mount(bucket, folder)``: ``<scheme>://<bucket>/`` read from a local folder through Hadoop's FileSystem
    API (its own ViewFileSystemOverloadScheme, in the hadoop-client jars pyspark ships: no S3A or GCS jar),
    as a cluster's configuration gives the scheme its filesystem. Set on the process's Spark context (which
    another test may have started) and unset after."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession.builder.master("local[2]").getOrCreate()
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()  # type: ignore[union-attr]
    keys = [f"fs.{scheme}.impl", f"fs.{scheme}.impl.disable.cache"]
    hadoop.set(keys[0], "org.apache.hadoop.fs.viewfs.ViewFileSystemOverloadScheme")
    hadoop.set(keys[1], "true")  # each bucket's mount table read when it is opened

    def mount(bucket: str, folder: Path) -> None:
        keys.append(f"fs.viewfs.mounttable.{bucket}.linkFallback")
        hadoop.set(keys[-1], folder.resolve().as_uri())

    try:
        yield mount
    finally:
        for key in keys:
            hadoop.unset(key)


COLUMNS = (
    "charge_id, share_no, source, provider, billing_period, billing_account_id, sub_account_id, "
    "charge_period_start, charge_period_end, project, phase, method, experiment_id, cost_category, service_name, "
    "charge_category, pricing_category, rule, reason, currency, billed_cost, effective_cost, list_cost"
)
KIND = ("source", "provider", "billing_period", "billing_account_id", "sub_account_id", "service_name",
        "charge_category", "pricing_category", "currency")  # fmt: skip


def cli_in(root: Path) -> Callable[..., Result]:
    """The CLI run against the project folder's config, as a user would from that folder."""

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(
            cli, ["--config", str(root / "trainledger.toml"), *args], catch_exceptions=False
        )

    return invoke


def duckdb_allocations(project: Project) -> set[tuple[Any, ...]]:
    with duckdb.connect(str(project.warehouse), read_only=True) as con:
        return set(con.execute(f"SELECT {COLUMNS} FROM allocations").fetchall())


def spark_allocations(project: Project) -> set[tuple[Any, ...]]:
    """Spark's tables read back by another reader (pyarrow), from the folders the pointer names."""
    root = project.root / ".trainledger" / "spark"
    current = json.loads((root / "CURRENT.json").read_text(encoding="utf-8"))["tables"]
    kinds = {
        k["kind_id"]: tuple(k[c] for c in KIND)
        for k in pq.read_table(root / "charge_kinds" / current["charge_kinds"]).to_pylist()
    }
    found = set()
    for a in pq.read_table(root / "allocation_rows" / current["allocation_rows"]).to_pylist():
        if a["share_no"] > 0:
            source, provider, period, account, sub, service, category, pricing, currency = kinds[a["kind_id"]]
            found.add((
                a["charge_id"], a["share_no"], source, provider, period, account, sub, a["charge_period_start"],
                a["charge_period_end"], a["project"], a["phase"], a["method"], a["experiment_id"], a["cost_category"],
                service, category, pricing, a["rule"], a["reason"], currency, a["billed_cost"], a["effective_cost"],
                a["list_cost"],
            ))  # fmt: skip
    # a charge with one share, by reference: the charge's own columns and money, the tuple's labels
    charges = {c["charge_id"]: c for c in pq.read_table(root / "charges" / current["charges"]).to_pylist()}
    tuples = {
        t["tuple_id"]: t
        for t in pq.read_table(root / "allocation_tuples" / current["allocation_tuples"]).to_pylist()
    }
    for r in pq.read_table(root / "allocation_refs" / current["allocation_refs"]).to_pylist():
        if r["share_no"] > 0:
            c, t = charges[r["charge_id"]], tuples[r["tuple_id"]]
            found.add((
                r["charge_id"], r["share_no"], c["source"], c["provider"], c["billing_period"],
                c["billing_account_id"], c["sub_account_id"], c["charge_period_start"], c["charge_period_end"],
                t["project"], t["phase"], t["method"], t["experiment_id"], t["cost_category"], c["service_name"],
                c["charge_category"], c["pricing_category"], t["rule"], t["reason"], c["billing_currency"],
                c["billed_cost"], c["effective_cost"], c["list_cost"],
            ))  # fmt: skip
    return found


def assert_same_allocations(engines: dict[str, Project], at_least: int = 2000) -> set[tuple[Any, ...]]:
    """The same allocations on both engines, and each charge's shares summing to it as ingested."""
    on_duckdb, on_spark = duckdb_allocations(engines["duckdb"]), spark_allocations(engines["spark"])
    assert len(on_duckdb) > at_least
    assert on_spark == on_duckdb
    # and each charge's shares sum to it exactly, against the bill as ingested
    root = engines["spark"].root / ".trainledger" / "spark"
    folder = json.loads((root / "CURRENT.json").read_text(encoding="utf-8"))["tables"]["charges"]
    bill = {
        c["charge_id"]: (c["billed_cost"], c["effective_cost"], c["list_cost"])
        for c in pq.read_table(root / "charges" / folder).to_pylist()
    }
    sums: dict[int, list[Decimal]] = {}
    for row in on_spark:
        total = sums.setdefault(row[0], [Decimal(0)] * 3)
        for i in range(3):
            total[i] += row[20 + i]
    assert {cid: tuple(s) for cid, s in sums.items()} == bill
    return on_spark


def duckdb_charges(project: Project) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(project.warehouse), read_only=True) as con:
        return con.execute("SELECT * FROM charges ORDER BY charge_id").fetchall()


def committed(project: Project, table: str) -> Path:
    """The folder of a Spark table's committed version: the one the pointer file names."""
    root = project.root / ".trainledger" / "spark"
    return root / table / json.loads((root / "CURRENT.json").read_text(encoding="utf-8"))["tables"][table]


def spark_charges(project: Project) -> list[tuple[Any, ...]]:
    """The charges Spark committed (the folder the pointer names), read by DuckDB's parquet reader."""
    with duckdb.connect() as con:
        return con.execute(
            "SELECT * FROM read_parquet(?) ORDER BY charge_id",
            [str(committed(project, "charges") / "*.parquet")],
        ).fetchall()
