"""The demo month on Apache Spark (local mode) gives what DuckDB gives: every charge's allocations to the
exact decimal, `report` and `export` byte for byte, `reconcile` JSON equal; the exact split holds at the
edge of Spark's DECIMAL(38); a run killed before its pointer swap leaves the previous state.

One Spark session (local[2], two shuffle partitions) serves the module: the CLI runs in-process, so every
command reuses it. Skipped, with the reason, where Java or pyspark is missing.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

import focus_files
from conftest import Project, demo_config
from spark_checks import (
    ON_SPARK_WORKER,
    assert_same_allocations,
    cli_in,
    duckdb_charges,
    require_spark,
    spark_allocations,
    spark_charges,
)
from spark_checks import SPARK as SPARK_KEYS
from trainledger.core import config as config_module
from trainledger.core.errors import ConfigError
from trainledger.warehouse import dialects, spark, spark_tables
from trainledger.warehouse.connection import open_warehouse, run, transaction

pytestmark = [pytest.mark.slow, ON_SPARK_WORKER]

require_spark()

SPARK = '[warehouse]\npath = ".trainledger/ledger.duckdb"\n' + SPARK_KEYS
COMMANDS = [
    ("report",),
    ("report", "--by", "waste,project"),
    ("report", "--by", "project,experiment", "--granularity", "day", "--format", "csv"),
    ("export", "--period", "2026-11", "--by", "project,method"),
    ("labels",),
    ("budgets",),
]


# December's bill: one GPU hour whose quantity uses all 12 decimal places, run on by two experiments (a half
# hour, then a quarter) and idle for the last quarter, so that attribution splits it into three shares.
GPU_HOUR = {
    "BillingPeriodStart": "2026-12-01T00:00:00Z",
    "BillingPeriodEnd": "2027-01-01T00:00:00Z",
    "ChargePeriodStart": "2026-12-03T08:00:00Z",
    "ChargePeriodEnd": "2026-12-03T09:00:00Z",
    "BilledCost": "55.04",
    "ResourceId": "i-0gpu",
    "ConsumedQuantity": "7.123456789012",
    "ConsumedUnit": "Hrs",
}


def gpu_run(experiment_id: str, method: str, start: str, end: str) -> str:
    phase = {"phase": "train", "started_at": f"2026-12-03T{start}:00Z", "ended_at": f"2026-12-03T{end}:00Z",
             "resources": [{"provider": "aws", "resource_id": "i-0gpu", "gpus": 8}]}  # fmt: skip
    return focus_files.experiment(experiment_id, "qwen-coder", method, [phase])


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory, demo_files: Path) -> Iterator[dict[str, Project]]:
    """The demo month through nightly on each engine, in two project folders, with December's GPU hour."""
    projects = {}
    for engine in ("duckdb", "spark"):
        project = Project(tmp_path_factory.mktemp(engine))
        config = demo_config(demo_files, budget=True)
        if engine == "spark":
            config = config.replace('[warehouse]\npath = ".trainledger/ledger.duckdb"\n', SPARK)
        log = (demo_files / "experiments.jsonl").read_text(encoding="utf-8")
        log += (
            gpu_run("exp-sft-1203", "sft", "08:00", "08:30")
            + "\n"
            + gpu_run("exp-rl-1203", "rl", "08:30", "08:45")
        )
        (project.root / "experiments.jsonl").write_text(log + "\n", encoding="utf-8")
        config = config.replace(
            str(demo_files / "experiments.jsonl"), str(project.root / "experiments.jsonl")
        )
        focus_files.write_focus(project.root / "december.csv", [GPU_HOUR])
        config += (
            f'\n[[sources]]\nname = "gpu-bill"\nkind = "focus"\nuri = "{project.root / "december.csv"}"\n'
        )
        project.write_config(config.replace('dir = "exports"', f'dir = "{project.root / "exports"}"'))
        # ingest first, in its own command: nightly then attributes charges it did not ingest itself
        assert cli_in(project.root)("ingest").exit_code == 0
        result = cli_in(project.root)("nightly")
        assert result.exit_code == 2, result.stderr  # the demo's budget crosses its 80% threshold
        # the three deliveries already ingested: skipped, on either engine
        assert result.stdout.count("\tunchanged\n") == 3, result.stdout
        projects[engine] = project
    yield projects


def test_the_bill_read_by_spark_gives_the_charges_duckdb_gives(engines: dict[str, Project]) -> None:
    """Ingest ran on Spark (the files read by Spark, charges its parquet table): every column of every
    charge equals DuckDB's, ids (file slot and row) included."""
    expected = duckdb_charges(engines["duckdb"])
    assert len(expected) == 2274  # the demo's 2,269 CUR line items, the ledger's 4 rows and December's hour
    assert spark_charges(engines["spark"]) == expected
    with duckdb.connect(str(engines["spark"].warehouse), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM charges").fetchone() == (0,)  # none through DuckDB


def test_every_allocation_and_every_output_is_the_same_on_spark(engines: dict[str, Project]) -> None:
    allocations = assert_same_allocations(engines)
    assert any(row[1] > 1 for row in allocations)  # the exact split by time windows ran on Spark too
    duck, spark = cli_in(engines["duckdb"].root), cli_in(engines["spark"].root)
    for args in COMMANDS:
        expected, got = duck(*args), spark(*args)
        assert (got.exit_code, got.stdout) == (expected.exit_code, expected.stdout), args
    for experiment in ("exp-sft-0412", "exp-rl-0421", "exp-opd-0425"):
        expected = json.loads(duck("reconcile", experiment, "--format", "json").stdout)
        assert json.loads(spark("reconcile", experiment, "--format", "json").stdout) == expected
    for engine, project in engines.items():  # Spark had no timezone('UTC', ts)
        focus = cli_in(project.root)("export", "--format", "focus", "--period", "2026-11", "--out",
                                     str(project.root / "focus.csv"))  # fmt: skip
        assert focus.exit_code == 0, (engine, focus.stderr)
    assert (engines["spark"].root / "focus.csv").read_bytes() == (
        engines["duckdb"].root / "focus.csv"
    ).read_bytes()
    name = "trainledger-2026-11.csv"
    assert (engines["spark"].root / "exports" / name).read_bytes() == (
        engines["duckdb"].root / "exports" / name
    ).read_bytes()


def test_the_focus_13_file_is_the_same_on_spark(engines: dict[str, Project]) -> None:
    """FOCUS 1.3 writes a split charge's shares as allocated charges, their AllocatedRatio and quantities to
    12 places: the file is DuckDB's, byte for byte (Spark had cut them to 6 places, and refused the table
    macro's CTE names beside the file's own)."""
    for engine, project in engines.items():
        focus = cli_in(project.root)("export", "--format", "focus", "--focus-version", "1.3", "--period",
                                     "2026-11", "--out", str(project.root / "focus-13.csv"))  # fmt: skip
        assert focus.exit_code == 0, (engine, focus.stderr)
    expected = (engines["duckdb"].root / "focus-13.csv").read_text(encoding="utf-8")
    allocated = [r for r in csv.DictReader(io.StringIO(expected)) if r["AllocatedMethodDetails"]]
    # the demo's two split charges: a day of S3 storage over 2, 4 and 18 hours (1/12, 1/6 and 3/4: the
    # leftover unit of 1e-12 to the largest remainder, 1/6's) and an instance hour in halves
    details = [json.loads(r["AllocatedMethodDetails"], parse_float=Decimal)["Elements"][0] for r in allocated]
    assert [str(d["AllocatedRatio"]) for d in details] == [
        "0.083333333333",
        "0.166666666667",
        "0.750000000000",
        "0.500000000000",
        "0.500000000000",
    ]
    storage = [Decimal(r["ConsumedQuantity"]) for r in allocated[:3]]
    assert sum(storage) == Decimal("113.3333333333") and all(q.as_tuple().exponent == -12 for q in storage)
    assert (engines["spark"].root / "focus-13.csv").read_text(encoding="utf-8") == expected


def test_a_split_quantity_keeps_its_12th_place_in_the_focus_12_file_on_spark(
    engines: dict[str, Project],
) -> None:
    """December's GPU hour, its quantity to 12 places, split between two runs and idle: FOCUS 1.2 splits the
    quantity by the shares' ListCost in units of 1e-6, the last share taking the exact remainder, to the 12th
    place on either engine (Spark had cut the remainder to 11 places: DECIMAL(38, 12) minus DECIMAL(38, 12))."""
    for engine, project in engines.items():
        focus = cli_in(project.root)("export", "--format", "focus", "--period", "2026-12", "--out",
                                     str(project.root / "focus-december.csv"))  # fmt: skip
        assert focus.exit_code == 0, (engine, focus.stderr)
    expected = (engines["duckdb"].root / "focus-december.csv").read_text(encoding="utf-8")
    # ListCost 55.04 x 30/60, x 15/60 and the idle 15/60: 27.52, 13.76, 13.76, weights of 27,520,000,
    # 13,760,000 and 13,760,000 units of 1e-6 (of 55,040,000). The quantity in units of 1e-6, floored:
    # 7,123,456; the first share 7,123,456 x 27,520,000 // 55,040,000 = 3,561,728 (3.561728), the second
    # 7,123,456 x 13,760,000 // 55,040,000 = 1,780,864 (1.780864), and the last the rest of the quantity:
    # 7.123456789012 - 3.561728 - 1.780864 = 1.780864789012.
    assert [
        (r["x_ExperimentId"], r["x_Phase"], r["ListCost"], r["ConsumedQuantity"], r["PricingQuantity"])
        for r in csv.DictReader(io.StringIO(expected))
    ] == [
        ("exp-sft-1203", "train", "27.52", "3.561728", "3.561728"),
        ("exp-rl-1203", "train", "13.76", "1.780864", "1.780864"),
        ("", "idle", "13.76", "1.780864789012", "1.780864789012"),
    ]
    assert (engines["spark"].root / "focus-december.csv").read_text(encoding="utf-8") == expected


def test_the_provider_table_reaches_spark(engines: dict[str, Project]) -> None:
    """A statement over the allocations that reads the provider table (as the FOCUS export does for
    ProviderName) runs on Spark, the table going up with the other small tables, and reads as on DuckDB."""
    sql = (
        "SELECT a.provider, p.focus_name, count(*) AS shares FROM allocations a "
        "LEFT JOIN providers p ON p.provider = a.provider GROUP BY a.provider, p.focus_name ORDER BY a.provider"
    )
    got = {}
    for engine, project in engines.items():
        with open_warehouse(config_module.load(str(project.config)), write=False) as con:
            got[engine] = [tuple(row) for row in con.execute(sql).fetchall()]
    assert got["spark"] == got["duckdb"]
    assert [row[:2] for row in got["duckdb"]] == [("aws", "AWS"), ("manual", None)]


def test_proportional_shared_cost_is_spread_identically(engines: dict[str, Project]) -> None:
    for project in engines.values():
        project.write_config(
            project.config.read_text(encoding="utf-8") + '\n[allocation]\nshared = "proportional"\n'
        )
        assert cli_in(project.root)("attribute").exit_code == 0
    allocations = assert_same_allocations(engines)
    assert sum(1 for row in allocations if row[17] == "shared" and row[9] is not None) > 3  # spread rows


def test_each_configs_sql_settings_reach_its_session_in_a_process_already_running_spark(
    tmp_path: Path,
) -> None:
    """The process's Spark context is started by the first config it opens; a later config's spark_conf
    still sets the SQL settings of the session its warehouse opens (a notebook opening two projects)."""
    found = []
    for partitions in ("7", "3"):
        project = Project(tmp_path / partitions)
        project.root.mkdir()
        project.write_config(SPARK.replace('partitions" = "2"', f'partitions" = "{partitions}"'))
        opened = spark.session(config_module.load(str(project.config)))
        found.append(opened.conf.get("spark.sql.shuffle.partitions"))
    assert found == ["7", "3"]


def test_a_month_small_on_disk_is_not_broadcast_from_its_file_size(tmp_path: Path) -> None:
    """A bill's parquet compresses some 50 times against Spark's estimate of its rows: a 10M-line month's
    charge ids looked like 7 MB and were broadcast until the driver ran out of memory. Here 1M charge ids,
    delta-encoded to about 1 MB on disk, 1M x (8 + 8) bytes = 16 MB as Spark's rows: Spark's default sizing
    broadcasts them, the session a config opens joins them by sorting."""
    import random

    import pyarrow as pa

    rng = random.Random(34)
    ids, at = [], 0
    for _ in range(1_000_000):
        at += rng.randint(1, 255)
        ids.append(at)
    for name in ("charges", "allocation_refs"):
        pq.write_table(
            pa.table({"charge_id": pa.array(ids, pa.int64())}),
            tmp_path / f"{name}.parquet",
            use_dictionary=False,
            column_encoding={"charge_id": "DELTA_BINARY_PACKED"},
        )
    assert (tmp_path / "charges.parquet").stat().st_size < 2**21  # on disk, under 2 MB
    project = Project(tmp_path / "project")
    project.root.mkdir()
    project.write_config(SPARK)
    opened = spark.session(config_module.load(str(project.config)))
    join = (
        f"SELECT r.charge_id FROM parquet.`{tmp_path / 'allocation_refs.parquet'}` r "
        f"JOIN parquet.`{tmp_path / 'charges.parquet'}` c USING (charge_id)"
    )

    def plan(session: Any) -> str:
        return str(session.sql(join)._jdf.queryExecution().executedPlan().toString())

    sized_from_disk = opened.newSession()
    sized_from_disk.conf.set("spark.sql.sources.fileCompressionFactor", "1.0")  # Spark's default
    assert "BroadcastExchange" in plan(sized_from_disk)
    assert "BroadcastExchange" not in plan(opened) and "SortMergeJoin" in plan(opened)


def test_the_exact_split_holds_at_the_edge_of_sparks_decimal() -> None:
    """Spark's allocate on crafted shares against the rule done by hand in Python: floor of each weighted
    part in units of 1e-12, leftovers one each to the largest remainders (ties by share number)."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession.builder.master("local[2]").getOrCreate()
    charges = {  # charge: (billed, weights); products of units and weights reach 1e37
        1: (Decimal("98765432109.876543210987"), [10**14, 3, 7 * 10**14 + 1]),
        2: (Decimal("-0.000000000007"), [1, 1, 1]),
        3: (Decimal("12345.678901234567"), [2**61, 2**61 + 7, 5]),
    }
    rows = [
        f"({cid}, {w}, {i}, CAST('{cost}' AS DECIMAL(38, 12)))"
        for cid, (cost, weights) in charges.items()
        for i, w in enumerate(weights)
    ]
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW shares AS SELECT charge_id, CAST(weight AS DECIMAL(38, 0)) AS weight, "
        "CAST(NULL AS TIMESTAMP_NTZ) AS seg_start, CAST(NULL AS TIMESTAMP_NTZ) AS seg_end, "
        "CAST(i AS STRING) AS experiment_id, 'train' AS phase, 'p' AS project, 'sft' AS method, 'tag' AS rule, "
        "CAST(NULL AS STRING) AS reason, 'compute' AS cost_category, 's' AS source, 'aws' AS provider, "
        "'2026-11' AS billing_period, 'a' AS billing_account_id, 'b' AS sub_account_id, "
        "CAST(NULL AS TIMESTAMP_NTZ) AS charge_period_start, CAST(NULL AS TIMESTAMP_NTZ) AS charge_period_end, "
        "'EC2' AS service_name, 'Usage' AS charge_category, 'On-Demand' AS pricing_category, "
        "'USD' AS billing_currency, cost AS billed_cost, cost AS effective_cost, cost AS list_cost "
        f"FROM VALUES {', '.join(rows)} AS t(charge_id, weight, i, cost)"
    )
    text, _ = dialects.render(dialects.statement("attribute/allocate", "spark").expression, "spark")
    got = {(r[0], r[1]): r[12] for r in spark.sql(text).collect()}
    for cid, (cost, weights) in charges.items():
        units, total = abs(cost) * 10**12, sum(weights)
        base = [int(units) * w // total for w in weights]
        rems = [int(units) * w % total for w in weights]
        order = sorted(range(len(weights)), key=lambda i: (-rems[i], i))
        left = int(units) - sum(base)
        parts = [base[i] + (1 if order.index(i) < left else 0) for i in range(len(weights))]
        expected = [Decimal(p).scaleb(-12) * (1 if cost >= 0 else -1) for p in parts]
        assert [got[(cid, n + 1)] for n in range(len(weights))] == expected
        assert sum(expected) == cost


def test_a_run_killed_before_its_pointer_swap_leaves_the_previous_state(
    engines: dict[str, Project], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = engines["spark"]
    pointer = project.root / ".trainledger" / "spark" / "CURRENT.json"
    before, allocations = pointer.read_bytes(), spark_allocations(project)
    config = config_module.load(str(project.config))

    def killed(*args: object) -> None:
        raise KeyboardInterrupt  # the process dies between writing the new folders and the swap

    monkeypatch.setattr(spark_tables.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt), open_warehouse(config, write=True) as con, transaction(con):
        run(con, "attribute/clear_periods", {"periods": ["2026-11"]})
    monkeypatch.undo()
    assert pointer.read_bytes() == before
    assert spark_allocations(project) == allocations
    # the next run that commits removes the killed run's folders (one that clears a period without any
    # allocations: it commits its tables as they were, without the cost of a whole attribution)
    with open_warehouse(config, write=True) as con, transaction(con):
        run(con, "attribute/clear_periods", {"periods": ["1999-01"]})
    assert pointer.read_bytes() != before and spark_allocations(project) == allocations
    folders = {p.parent.name: p.name for p in pointer.parent.glob("*/v-*")}
    assert len(list(pointer.parent.glob("*/v-*"))) == len(spark_tables.TABLES) and set(folders) == set(
        spark_tables.TABLES
    )


def test_the_sites_sums_by_every_set_are_the_same_on_spark(engines: dict[str, Project]) -> None:
    """The site's one GROUPING SETS pass (DuckDB's GROUPING(a, b) is Spark's grouping_id(a, b))."""
    from trainledger.outputs.site.data import SETS
    from trainledger.reports import realize

    found = []
    for project in engines.values():
        with open_warehouse(config_module.load(str(project.config)), write=False) as con:
            found.append({s: sorted(map(repr, rows)) for s, rows in realize.cost_sets(con, SETS).items()})
    assert sum(len(rows) for rows in found[0].values()) > 50
    assert found[1] == found[0]  # the same rows (in no particular order: the query has no ORDER BY)


def test_a_database_names_the_committed_tables_in_sparks_catalog(
    engines: dict[str, Project], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`[warehouse] database`: created when missing, each table an external parquet table reading the folder
    the pointer names; a commit points them at the new version, a killed run leaves them on the old one."""
    from pyspark.sql import SparkSession

    project = engines["spark"]
    text = project.config.read_text(encoding="utf-8")
    try:
        project.write_config(text.replace('engine = "spark"\n', 'engine = "spark"\ndatabase = "ml_ledger"\n'))
        config = config_module.load(str(project.config))
        spark = SparkSession.getActiveSession() or SparkSession.builder.master("local[2]").getOrCreate()
        spark.sql("DROP NAMESPACE IF EXISTS spark_catalog.ml_ledger CASCADE")
        with open_warehouse(config, write=True) as con, transaction(con):  # a writer names them when it opens
            pass
        root = project.root / ".trainledger" / "spark"

        def named() -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
            current = json.loads((root / "CURRENT.json").read_text(encoding="utf-8"))["tables"]
            spark.catalog.refreshTable("spark_catalog.ml_ledger.allocation_rows")  # as any long-lived reader
            by_name = spark.table("spark_catalog.ml_ledger.allocation_rows")
            by_path = pq.read_table(root / "allocation_rows" / current["allocation_rows"])
            return {tuple(r) for r in by_name.collect()}, {tuple(r.values()) for r in by_path.to_pylist()}

        in_catalog, in_folder = named()
        # the shares of the demo's split charges; its charges placed whole are references (allocation_refs)
        assert len(in_catalog) > 0 and in_catalog == in_folder
        tables = json.loads((root / "CURRENT.json").read_text())["tables"]
        for table in ("charges", "allocation_refs"):  # the 2,274 charges, most of them placed whole
            committed = len(pq.read_table(root / table / tables[table]))
            assert spark.table(f"spark_catalog.ml_ledger.{table}").count() == committed > 1000
        # a run killed before its pointer swap: the catalog still names the committed version
        monkeypatch.setattr(
            spark_tables.os, "replace", lambda *args: (_ for _ in ()).throw(KeyboardInterrupt)
        )
        with pytest.raises(KeyboardInterrupt), open_warehouse(config, write=True) as con, transaction(con):
            run(con, "attribute/clear_periods", {"periods": ["2026-11"]})
        monkeypatch.undo()
        assert named() == (in_catalog, in_folder)
        # a commit that changes allocation_rows: the catalog follows the pointer
        with open_warehouse(config, write=True) as con, transaction(con):
            run(con, "attribute/clear_periods", {"periods": ["2026-11", "2026-12"]})
        in_catalog, in_folder = named()
        assert in_catalog == in_folder == set()
        # a catalog Spark was not configured with: one line naming the key and what to do
        project.write_config(
            text.replace('engine = "spark"\n', 'engine = "spark"\ncatalog = "nowhere"\ndatabase = "x"\n')
        )
        with (
            pytest.raises(ConfigError) as err,
            open_warehouse(config_module.load(str(project.config)), write=True),
        ):
            pass
        assert str(err.value) == (
            "[warehouse] catalog = 'nowhere': Spark knows no such catalog; configure it in spark_conf "
            '("spark.sql.catalog.nowhere" = its implementation class) or on the cluster'
        )
    finally:
        project.write_config(text)
