"""``[warehouse] engine = "spark"``: the bill's big tables on Apache Spark, the rest in the DuckDB file.

The pipeline keeps calling what it calls on DuckDB (``run(con, name, params)``, ``con.execute``,
``con.sql``); this stand-in for the connection decides where each statement runs. A statement that reads or
writes the bill's big tables (``charges``, ``charge_kinds``, the allocations' ``allocation_rows``,
``allocation_tuples``, ``allocation_refs`` and ``allocation_cells``, the views ``allocations`` and
``allocation_days``),
or a temporary table built on Spark, runs on Spark, transpiled (``warehouse/dialects.py``); everything else
(the run ledger, the experiment log, label sets, estimates) stays in the DuckDB file. Small tables a Spark
statement reads go up from DuckDB as temporary views; only a statement's result comes back (a report, an
export's sums, a check), never a month of rows. A CTE the query marks ``MATERIALIZED`` is computed once
(a checkpointed temporary view) where Spark would inline it at every reference.

Writes to the big tables are staged in the Spark session and reach storage on commit only, each table in a
new location and then the pointer swapped (``warehouse/spark_tables.py``): a killed run leaves the previous
state. Ingest reads a bill's files on Spark too (``connectors/spark_files.py``): the scans are temporary views
of the session, so the connector's statements over them (validation, normalisation, the insert into
``charges``) run on Spark; a DuckDB statement that reads a Spark table (the files no charge refers to any more)
gets that part's result, small by design, as a table of its own.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.errors import TrainledgerError
from trainledger.warehouse import dialects, spark_json, spark_money
from trainledger.warehouse.spark_tables import TABLES, SparkTables

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

BIG = TABLES  # the bill's big tables, Spark's own (spark_tables.py)
# The views of queries/schema/warehouse.sql over the big tables, defined on Spark too.
VIEWS = ("allocations", "allocation_days")
# The stages whose named queries read the bill itself (charges) on Spark.
SPARK_STAGES = {"attribute", "checks", "report", "export"}
_WRITES_CHARGES = re.compile(r"\b(INSERT\s+INTO|DELETE\s+FROM|UPDATE)\s+charges\b", re.IGNORECASE)
_PRECISION_LOSS = "spark.sql.decimalOperations.allowPrecisionLoss"
_BIG_WORDS = re.compile(rf"\b({'|'.join((*BIG, *VIEWS))})\b", re.IGNORECASE)


def session(config: Config) -> SparkSession:
    """The process's Spark session for ``[warehouse] master`` (started once; each warehouse opens its own
    child session, so temporary views never leak from one command to the next)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise TrainledgerError(
            '[warehouse] engine = "spark" needs pyspark: pip install "trainledger[spark]" (and a Java 17 runtime)'
        ) from None
    master = config.warehouse.master
    connect = master.startswith("sc://")  # Spark Connect: a remote session, no SparkContext here
    builder = (
        SparkSession.builder.remote(master) if connect else SparkSession.builder.master(master)
    ).appName("trainledger")
    settings = {
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.ansi.enabled": "true",  # overflow raises, never wraps or rounds silently
        "spark.ui.showConsoleProgress": "false",  # stdout carries data only
        # Spark 4.x's constraint propagation fails on a union under a filter of the insert's rows
        # ("key not found" in UnionBase.rewriteConstraints); it only prunes filters, which these plans lack
        "spark.sql.constraintPropagation.enabled": "false",
        # Spark sizes a file's rows from its bytes on disk, and a bill's parquet is some 50 times smaller than
        # Spark's own estimate of its rows (10M charges: 121 MB, 6.3 GB). Read as is, two columns of a 10M-line
        # month look like 7 MB, under the 10 MB broadcast threshold, and were broadcast (360 MB) until the
        # driver ran out of memory; AQE still broadcasts what turns out small once a stage has run.
        "spark.sql.sources.fileCompressionFactor": "50",
        **config.warehouse.spark_conf,
    }
    for key, value in settings.items():
        builder = builder.config(key, value)
    if master.startswith("local") and "PYSPARK_PYTHON" not in os.environ:
        # local executors run the UDFs in this very interpreter, not whatever `python3` is first on PATH
        # (another version stops the first job: PYTHON_VERSION_MISMATCH)
        os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = builder.getOrCreate()
    if connect:
        return spark
    spark.sparkContext.setLogLevel("ERROR")
    child = spark.newSession()
    # A child session starts from the context's conf, which only the first builder of the process set: this
    # config's SQL settings are set on it (the context's own, such as spark.executor.memory, stay the first's)
    for key, value in settings.items():
        if child.conf.isModifiable(key):
            child.conf.set(key, value)
    return child


class SparkResult:
    """What a Spark statement returned, shaped as the DuckDB cursor the callers read."""

    def __init__(self, table: pa.Table | None) -> None:
        self.table = table
        self._rows: Iterator[tuple[Any, ...]] | None = None

    @property
    def description(self) -> list[tuple[str]] | None:
        return None if self.table is None else [(name,) for name in self.table.column_names]

    def _iter(self) -> Iterator[tuple[Any, ...]]:
        if self._rows is None:
            columns = [] if self.table is None else [c.to_pylist() for c in self.table.columns]
            self._rows = iter(zip(*columns, strict=True)) if columns else iter(())
        return self._rows

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self._iter())

    def fetchone(self) -> tuple[Any, ...] | None:
        return next(self._iter(), None)

    def fetchmany(self, size: int) -> list[tuple[Any, ...]]:
        rows = self._iter()
        return [row for _, row in zip(range(size), rows, strict=False)]

    def to_arrow_table(self) -> pa.Table | None:
        return self.table


class SparkWarehouse:
    """The DuckDB connection's stand-in: routes each statement to Spark or DuckDB (see the module)."""

    def __init__(self, duck: duckdb.DuckDBPyConnection, config: Config, write: bool) -> None:
        self.duck = duck
        self.spark = session(config)
        self.tables = SparkTables(self.spark, config, duck, write)
        self.write = write
        self.temps: set[str] = set()  # temporary tables built on Spark in this session
        self.macros: dict[str, dialects.Macro] = {}  # table macros, inlined where called
        self.uploaded: dict[str, int] = {}  # DuckDB table -> the DuckDB write epoch it was uploaded at
        self.epoch = 0
        # the big tables' views (and those of ``VIEWS``) registered for the tables' current state: each the first
        # time a statement names it (registering all at open took a second a command, most reading none)
        self.views: set[str] = set()
        spark_money.register(self.spark)
        spark_json.register(self.spark)

    # --- the DuckDB surface the pipeline uses -------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        if name == "from_arrow":  # insert_rows: a DuckDB table changes
            self.epoch += 1
        return getattr(self.duck, name)

    def begin(self) -> None:
        self.duck.begin()
        self.views -= self.tables.begin()

    def commit(self) -> None:
        self.tables.commit(self.write)  # Spark's tables first: their pointer swap is the commit point
        self.duck.commit()

    def rollback(self) -> None:
        self.tables.rollback()
        self.views.clear()
        self.duck.rollback()

    def close(self) -> None:
        self.duck.close()

    def sql(self, sql: str, params: dict[str, Any] | None = None) -> Any:
        return self.execute(sql, params)

    def execute(
        self, sql: str, params: Any = None, name: str | None = None, slots: dict[str, str] | None = None
    ) -> Any:
        """Run one statement where its tables live (``name``: the query it came from, if any, and ``slots``
        the text its ``{{slots}}`` were filled with: an engine's own version is filled alike)."""
        if not self._maybe_spark(sql, name) or isinstance(params, Sequence):
            return self._duck(sql, params)
        try:
            own = name is not None and dialects.override(name, "spark") is not None
            tree = dialects.statement(name, "spark", slots) if name and own else dialects.parse(sql, "spark")
        except sqlglot.ParseError:
            if name:
                raise
            return self._duck(sql, params)  # DuckDB-only syntax (an ingest step): DuckDB's statement
        return self._route(tree, sql, params or {}, name)

    # --- routing ------------------------------------------------------------------------------------
    def _maybe_spark(self, sql: str, name: str | None) -> bool:
        if name and name.split("/")[0] in SPARK_STAGES:
            return True
        code = re.sub(r"--[^\n]*", " ", sql)
        words = set(re.findall(r"\w+", code.lower()))
        return bool(_BIG_WORDS.search(code)) or bool(words & self.temps) or bool(words & set(self.macros))

    def register_scan(self, name: str, df: DataFrame) -> None:
        """A bill's files as read by Spark, as the temporary view ``name`` the connector's statements read."""
        df.createOrReplaceTempView(name)
        self.temps.add(name.lower())

    def _duck(self, sql: str, params: Any) -> Any:
        if _WRITES_CHARGES.search(sql):
            raise TrainledgerError(f"a statement writing charges could not run on Spark: {sql.strip()[:200]}")
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            self.epoch += 1
        return self.duck.execute(sql, params) if params is not None else self.duck.execute(sql)

    def _route(self, tree: exp.Expr, sql: str, params: dict[str, Any], name: str | None) -> Any:
        found = dialects.table_macro(tree)
        if found:
            self.macros[found[0]] = found[1]
            return SparkResult(None)
        tree = dialects.inline(tree, self.macros)
        big = set(BIG) | set(VIEWS) | self.temps
        if isinstance(tree, exp.Insert | exp.Delete):
            target = tree.this.this.name if isinstance(tree.this, exp.Schema) else tree.this.name
            if target not in big:
                return self._duck_over_spark(sql, params, big)
        elif isinstance(tree, exp.Create):
            if not (name and name.split("/")[0] in SPARK_STAGES) and not (_tables(tree) & big):
                return self._duck(sql, params)
        elif not (_tables(tree) & big):
            return self._duck(sql, params)
        return self._spark(tree, params)

    def _duck_over_spark(self, sql: str, params: dict[str, Any], big: set[str]) -> Any:
        """A DuckDB statement whose subqueries read Spark's tables: each such subquery's result (small: the
        file slots charges still use) comes down as a table of its own, read in its place."""
        tree = sqlglot.parse_one(sql, read="duckdb")
        pulled: list[str] = []
        for select in list(tree.find_all(exp.Select)):
            if select is tree or select.parent is None or not (_tables(select) & big):
                continue
            name = f"spark_result_{len(pulled)}"
            rows = self._spark(dialects.parse(select.sql("duckdb"), "spark"), params).table
            self.duck.register(name, rows)
            pulled.append(name)
            select.replace(exp.select("*").from_(name))
        if not pulled:
            return self._duck(sql, params)
        try:
            text = tree.sql("duckdb")
            return self._duck(text, {k: v for k, v in params.items() if f"${k}" in text})
        finally:
            for name in pulled:
                self.duck.unregister(name)

    # --- Spark --------------------------------------------------------------------------------------
    def _spark(self, tree: exp.Expr, params: dict[str, Any]) -> SparkResult:
        self._upload(tree.expression if isinstance(tree, exp.Create) else tree)
        used = {p.name for p in tree.find_all(exp.Placeholder)}
        args = {k: v for k, v in params.items() if k in used} or None
        if _normalises(tree):
            # money added as a bill is normalised stays DECIMAL(38, 12), as in DuckDB: by default Spark cuts
            # a sum's scale to 11 places to make room for a digit (1000.000000000001 + 0 = 1000.00000000000).
            # Only here: the exact split's unit arithmetic relies on Spark's usual division types. The value
            # before (the default, or the user's own from spark_conf) is put back after.
            before = self.spark.conf.get(_PRECISION_LOSS, None)
            self.spark.conf.set(_PRECISION_LOSS, "false")
            try:
                return self._spark_statement(tree, args)
            finally:
                if before is None:
                    self.spark.conf.unset(_PRECISION_LOSS)
                else:
                    self.spark.conf.set(_PRECISION_LOSS, before)
        return self._spark_statement(tree, args)

    def _spark_statement(self, tree: exp.Expr, args: dict[str, Any] | None) -> SparkResult:
        if isinstance(tree, exp.Insert):
            self.tables.insert(
                tree.this.name, self._df(tree.expression, args), by_name=bool(tree.args.get("by_name"))
            )
            self.views.discard(tree.this.name.lower())
            return SparkResult(None)
        if isinstance(tree, exp.Delete):
            where = tree.args["where"].this
            kept = (
                exp.select("*")
                .from_(tree.this.name)
                .where(exp.not_(exp.func("coalesce", where, exp.false())))
            )
            self.tables.replace(tree.this.name, self._df(kept, args))
            self.views.discard(tree.this.name.lower())
            return SparkResult(None)
        if isinstance(tree, exp.Create):
            table = tree.this.name.lower()
            df = self._df(tree.expression, args)
            # a view stays a query over its files (a month is never held); a table is computed once
            (
                df if str(tree.args.get("kind")).upper() == "VIEW" else df.localCheckpoint()
            ).createOrReplaceTempView(table)
            self.temps.add(table)
            return SparkResult(None)
        return SparkResult(_arrow(self._df(tree, args)))

    def _df(self, tree: exp.Expr, args: dict[str, Any] | None) -> DataFrame:
        tree = self._materialize(tree, args)
        text, _ = dialects.render(tree, "spark")
        self._register_views({word.lower() for word in _BIG_WORDS.findall(text)})
        return self.spark.sql(text, args=args)

    def _materialize(self, query: exp.Expr, args: dict[str, Any] | None) -> exp.Expr:
        """Each CTE marked ``MATERIALIZED`` computed once, as a checkpointed temporary view read in its place:
        Spark inlines a CTE at every reference and computes it again each time."""
        ctes = query.args.get("with_")
        if not isinstance(ctes, exp.With) or not any(c.meta.get("materialized") for c in ctes.expressions):
            return query
        query = query.copy()
        ctes = query.args["with_"]
        for i, cte in enumerate(ctes.expressions):
            if not cte.meta.get("materialized"):
                continue
            body = exp.select("*").from_(cte.this.copy().subquery("m"))
            if i:
                body.set("with_", exp.With(expressions=[c.copy() for c in ctes.expressions[:i]]))
            used = {p.name for p in body.find_all(exp.Placeholder)}
            name = f"materialized_{cte.alias_or_name.lower()}"
            self._df(
                body, {k: v for k, v in (args or {}).items() if k in used} or None
            ).localCheckpoint().createOrReplaceTempView(name)
            cte.set("this", exp.select("*").from_(name))
            cte.meta.pop("materialized")
        return query

    def _register_views(self, named: set[str]) -> None:
        """The big tables a statement names (any mention in its Spark text: one too many costs a view, one
        too few an error) as temporary views of their names, if not yet registered for the tables' current
        state, and the views of ``VIEWS`` it names over the tables each reads. A temporary view resolves the
        views it names when read, so ``allocations`` follows every change: a statement that changes one table
        only unregisters that one, registered again when a statement next names it."""
        needed = (named & set(BIG)) | {t for view in VIEWS if view in named for t in _view_tables(view)}
        for table in BIG:
            if table in needed and table not in self.views:
                self.tables.register(table)
                self.views.add(table)
        for view in VIEWS:
            if view in named and view not in self.views:
                self.spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW {view} AS {_view(view)}")
                self.views.add(view)

    def _upload(self, tree: exp.Expr) -> None:
        """Send the DuckDB tables the statement reads (small by design) up as temporary views."""
        for table in _tables(tree) - set(BIG) - set(VIEWS) - self.temps:
            if self.uploaded.get(table) == self.epoch:
                continue
            self.tables.frame(self.tables.duck_arrow(f'SELECT * FROM "{table}"')).createOrReplaceTempView(
                table
            )
            self.uploaded[table] = self.epoch


@cache
def _view(name: str) -> str:
    """The query of the view ``name`` (queries/schema/warehouse.sql) as Spark SQL."""
    view = next(
        s
        for s in sqlglot.parse(queries.load("schema/warehouse"), read="duckdb")
        if isinstance(s, exp.Create) and s.kind == "VIEW" and s.this.name == name
    )
    return dialects.render(view.expression, "spark")[0]


@cache
def _view_tables(name: str) -> set[str]:
    """The big tables the view ``name`` reads, from its query: a view over them works once they are registered."""
    return _tables(sqlglot.parse_one(_view(name), read="spark")) & set(BIG)


def _arrow(df: DataFrame) -> pa.Table:
    """A result as Arrow (pyspark's toArrow fails on an empty result with a time column: its schema then)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    try:
        return df.toArrow()
    except pa.ArrowInvalid:
        return to_arrow_schema(df.schema).empty_table()


def _normalises(tree: exp.Expr) -> bool:
    """Whether the statement computes a bill's charges: the insert into ``charges``, or the normalised rows
    held in ``staged_charges`` for it (ingest/stage_charges)."""
    if isinstance(tree, exp.Insert):
        return bool(tree.this.name == "charges")
    return isinstance(tree, exp.Create) and tree.this.name.lower() == "staged_charges"


def _tables(tree: exp.Expr) -> set[str]:
    """The tables a statement reads or writes, without its CTEs."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    names = {t.name.lower() for t in tree.find_all(exp.Table) if isinstance(t.this, exp.Identifier)}
    return names - ctes
