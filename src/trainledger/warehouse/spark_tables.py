"""The bill's big tables on Spark as plain parquet, committed by swapping a pointer.

Each table lives in a folder of its own per version (``<location>/<table>/<version>/``); the file
``<location>/CURRENT.json`` names the version of each table that is current. A run stages its changes in the
Spark session; on commit every changed table is written to a new folder and only then is the pointer file
replaced (one atomic rename), so a run killed before that leaves the previous state readable, and one killed
after it has committed. Folders no pointer names are a killed run's leftovers, removed by the next commit.
With ``[warehouse] database`` set, the committed folders are also named in that Spark catalog
(``spark_catalog.py``), pointed at each version after the swap.
Column types follow the DuckDB schema (``queries/schema/warehouse.sql``): money stays DECIMAL(38, 12).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from trainledger.core.config import Config
from trainledger.core.errors import TrainledgerError
from trainledger.warehouse.spark_catalog import SparkDatabase

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

TABLES = (
    "charges",
    "charge_kinds",
    "allocation_rows",
    "allocation_tuples",
    "allocation_refs",
    "allocation_cells",
)
POINTER = "CURRENT.json"


def location(config: Config) -> Path:
    """Where the tables live: ``[warehouse] location``, by default next to the DuckDB file."""
    root = config.warehouse.location
    if root and "://" in root and not root.startswith("file://"):
        raise TrainledgerError(
            f"[warehouse] location = {root!r}: only a local (or mounted) folder holds Spark's tables so far"
        )
    return (
        Path(config.resolve(root.removeprefix("file://")))
        if root
        else config.warehouse_path().parent / "spark"
    )


def spark_type(duckdb_type: str) -> str:
    """A DuckDB column type as Spark DDL (UBIGINT: Spark's kind ids are signed xxhash64 values)."""
    built = exp.DataType.build(duckdb_type, dialect="duckdb")
    if built.this == exp.DataType.Type.UBIGINT:
        return "BIGINT"
    return built.sql("spark")


class SparkTables:
    def __init__(
        self, spark: SparkSession, config: Config, duck: duckdb.DuckDBPyConnection, write: bool = False
    ) -> None:
        self.spark = spark
        self.duck = duck
        self.root = location(config)
        self.schemas = {t: [(c, spark_type(str(ty))) for c, ty in _columns(duck, t)] for t in TABLES}
        self.current: dict[str, str | None] = {t: None for t in TABLES}
        pointer = self.root / POINTER
        if pointer.exists():
            self.current.update(json.loads(pointer.read_text(encoding="utf-8"))["tables"])
        self.staged: dict[str, DataFrame] = {}
        self.read: dict[tuple[str, str | None], DataFrame] = {}  # a committed version, read once a command
        self.published: dict[str, str] = {}  # table -> folder already written in this transaction
        if write and self.current["charges"] is None:
            self._adopt_charges()
        self.catalog = SparkDatabase(spark, config)
        if write and self.catalog.enabled:
            self.catalog.ensure()
            self._name_in_catalog()  # a run killed between its pointer swap and this leaves it behind

    # --- reading ------------------------------------------------------------------------------------
    def frame(self, data: pa.Table) -> DataFrame:
        """A small Arrow table as a Spark frame (pyspark cannot take an empty one with a time column)."""
        if data.num_rows == 0:
            from pyspark.sql.pandas.types import from_arrow_schema

            return self.spark.createDataFrame([], from_arrow_schema(data.schema))
        return self.spark.createDataFrame(data)

    def duck_arrow(self, sql: str) -> pa.Table:
        """A DuckDB result as Arrow, through the connection's own cursor: only it sees the rows the open
        transaction wrote (a pending result of the caller's is complete by then, as with any execute)."""
        import warnings

        cursor = self.duck.execute(sql)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # DuckDB 2 warns that a cursor's Arrow makes a copy
            # DuckDB 2 names it to_arrow_table; 1.x fetch_arrow_table.
            return (getattr(cursor, "to_arrow_table", None) or getattr(cursor, "fetch_arrow_table"))()  # noqa: B009

    def _typed(self, table: str, df: DataFrame) -> DataFrame:
        """The rows by position as the table's columns and types: one expression list sent to Spark (a
        column built in Python is a round trip to the JVM each, hundreds of them in a nightly)."""
        df = df.toDF(*(f"c{i}" for i in range(len(df.columns))))  # by position; a name may hold a dot
        return df.selectExpr(*(f"CAST(c{i} AS {t}) AS `{c}`" for i, (c, t) in enumerate(self.schemas[table])))

    def df(self, table: str) -> DataFrame:
        if table in self.staged:
            return self.staged[table]
        folder = self.current[table]
        if (table, folder) not in self.read:  # a version's folder never changes once written
            if folder is None:
                ddl = ", ".join(f"`{c}` {t}" for c, t in self.schemas[table])
                self.read[table, folder] = self.spark.createDataFrame([], ddl)
            else:
                parquet = self.spark.read.parquet(str(self.root / table / folder))
                self.read[table, folder] = self._typed(table, parquet)
        return self.read[table, folder]

    def register(self, *tables: str) -> None:
        """The current version of each table (of ``tables``, else of all) as a temporary view of its name."""
        for table in tables or TABLES:
            self.df(table).createOrReplaceTempView(table)

    def _adopt_charges(self) -> None:
        """A warehouse that ingested with ``engine = "duckdb"`` before: its charges, copied once to a new
        folder, become Spark's (committed with the run's first commit; ingest then writes them on Spark)."""
        (held,) = self.duck.execute("SELECT count(*) FROM charges").fetchone() or (0,)
        if not held:
            return
        folder = f"v-{uuid.uuid4().hex}"
        target = self.root / "charges" / folder
        target.mkdir(parents=True)
        self.duck.execute(f"COPY charges TO '{target / 'part-0.parquet'}' (FORMAT parquet)")
        self.published["charges"] = folder
        self.staged["charges"] = self._typed("charges", self.spark.read.parquet(str(target)))

    # --- a transaction ------------------------------------------------------------------------------
    def begin(self) -> set[str]:
        """Start from the committed tables; charges adopted from the DuckDB file are kept. The tables whose
        staged rows were dropped (their views, if registered, are stale)."""
        dropped = {t for t in self.staged if t not in self.published}
        for table in dropped:
            del self.staged[table]
        return dropped

    def insert(self, table: str, rows: DataFrame, by_name: bool = False) -> None:
        """Append the statement's rows, by position as DuckDB's INSERT without a column list, or ``by_name``
        (INSERT ... BY NAME: a column the rows leave out is NULL)."""
        if by_name:
            from pyspark.sql import functions as F

            given = set(rows.columns)
            rows = rows.select(
                [F.col(f"`{c}`") if c in given else F.lit(None).alias(c) for c, _ in self.schemas[table]]
            )
        self.staged[table] = self.df(table).unionByName(self._typed(table, rows)).localCheckpoint()

    def replace(self, table: str, rows: DataFrame) -> None:
        self.staged[table] = self._typed(table, rows).localCheckpoint()

    def rollback(self) -> None:
        """Back to the committed tables."""
        self.begin()

    def commit(self, write: bool) -> None:
        """Write each changed table to a new folder, then swap the pointer (the commit point)."""
        if not self.staged or not write:
            self.staged.clear()
            return
        for table, df in self.staged.items():
            folder = self.published.get(table)
            if folder is None:
                folder = f"v-{uuid.uuid4().hex}"
                df.write.parquet(str(self.root / table / folder))
            self.current[table] = folder
        pointer = self.root / POINTER
        tmp = self.root / f"{POINTER}.{uuid.uuid4().hex}.tmp"
        tmp.write_text(
            json.dumps({"tables": self.current}, indent=2),
            encoding="utf-8",
        )
        os.replace(tmp, pointer)
        self.staged.clear()
        self.published.clear()
        self._name_in_catalog()
        self._sweep()

    def _name_in_catalog(self) -> None:
        """Point the catalog's tables at the committed folders (before older folders are swept)."""
        if not self.catalog.enabled:
            return
        for table, folder in self.current.items():
            if folder is not None:
                ddl = ", ".join(f"`{c}` {t}" for c, t in self.schemas[table])
                self.catalog.point(table, self.root / table / folder, ddl)

    def _sweep(self) -> None:
        """Remove the folders no pointer names: older versions and a killed run's leftovers."""
        for table in TABLES:
            for folder in (self.root / table).glob("v-*") if (self.root / table).is_dir() else []:
                if folder.name != self.current[table]:
                    shutil.rmtree(folder, ignore_errors=True)
        for tmp in self.root.glob(f"{POINTER}.*.tmp"):
            tmp.unlink(missing_ok=True)


def _columns(duck: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, Any]]:
    return [(row[0], row[1]) for row in duck.execute(f'DESCRIBE "{table}"').fetchall()]
