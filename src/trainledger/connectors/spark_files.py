"""A bill's files read by Spark itself (``[warehouse] engine = "spark"``), never through the driver.

Each scan becomes a temporary view of the Spark session with the two columns every normaliser reports a bad
row with, as DuckDB's reader gives them (``staging.read_parquet``, ``staging.number_rows``):

- ``filename``: the path as given (``_metadata.file_path`` is a URI, ``file:/...`` with ``%20`` for a space);
- ``file_row_number``: the row's 0-based number among its file's data rows. Parquet has it
  (``_metadata.row_index``). A CSV file is read whole by one task (``multiLine``: a quoted value may hold a
  line break, so a file cannot be split), so its rows get consecutive ids from
  ``monotonically_increasing_id()`` in file order: the number is the id minus the file's first id. The
  numbered rows are checkpointed on the executors (as DuckDB keeps the numbered CSV in a temporary table),
  so the later statements do not parse the CSV again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import reduce
from typing import TYPE_CHECKING, Any

from trainledger.core.errors import InputError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from trainledger.warehouse.spark import SparkWarehouse

# The file a row came from as the path it was given by: Hadoop writes local files as file:/path, URL-encoded
# ('+' kept as it is: url_decode would read it as a space).
FILE_NAME = "regexp_replace(url_decode(replace(_metadata.file_path, '+', '%2B')), '^file:/+', '/')"


def read_parquet(con: SparkWarehouse, name: str, files: Sequence[str]) -> None:
    """Parquet files as the view ``name``, columns matched by name (``mergeSchema``, as DuckDB's
    ``union_by_name``)."""
    from pyspark.sql import functions as F

    df = con.spark.read.option("mergeSchema", "true").parquet(*files)
    con.register_scan(
        name,
        df.select(
            "*",
            F.expr(FILE_NAME).alias("filename"),
            F.col("_metadata.row_index").cast("bigint").alias("file_row_number"),
        ),
    )


def read_csv(
    con: SparkWarehouse, name: str, files: Sequence[str], union: bool, nulls: Sequence[str] = ()
) -> None:
    """CSV (or csv.gz) files as text, numbered, as the view ``name``. ``union``: each file read with its own
    header and the files matched by name (files without a manifest, perhaps of several months); otherwise
    the files of one delivery share the first file's header, as DuckDB reads them. ``nulls``: the values
    read as NULL (DuckDB's ``na_values``; Spark's reader takes one spelling only)."""
    from pyspark.sql import functions as F

    reader = con.spark.read.options(
        header=True, multiLine=True, escape='"', mode="FAILFAST", inferSchema=False, enforceSchema=False
    )
    scans = [reader.csv(f) for f in files] if union else [reader.csv(list(files))]
    df: DataFrame = reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), scans)
    columns = df.columns
    values = [F.col(f"`{c}`") for c in columns]
    if nulls:
        values = [F.when(~v.isin(*nulls), v).alias(c) for v, c in zip(values, columns, strict=True)]
    ids = df.select(
        *values, F.expr(FILE_NAME).alias("filename"), F.monotonically_increasing_id().alias("scan_row")
    )
    try:
        ids = ids.localCheckpoint()
    except Exception as exc:  # Spark raises its own error types (Py4J, or Spark Connect's)
        raise unreadable(files, exc) from None
    first = ids.groupBy("filename").agg(F.min("scan_row").alias("first_row"))
    numbered = ids.join(F.broadcast(first), "filename").select(
        *[F.col(f"`{c}`") for c in columns],
        "filename",
        (F.col("scan_row") - F.col("first_row")).alias("file_row_number"),
    )
    con.register_scan(name, numbered)


def unreadable(files: Sequence[str], exc: Exception) -> InputError:
    """Spark's read error as one line naming the file it names (else the first file) and what was expected."""
    text = str(exc)
    named = next((f for f in files if f in text), files[0])
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    reason = next(
        (line for line in lines if "Malformed" in line or "gzip" in line.lower()), lines[0] if lines else ""
    )
    return InputError(
        f"{named}: cannot read: {reason[:300]}; expected a readable CSV bill with a header line"
    )


def show_files_as(con: SparkWarehouse, view: str, names: dict[str, str]) -> None:
    """The view ``view`` again, its ``filename`` the name each file is shown by (``names``: as read, as shown),
    as ``staging.show_files_as`` does on DuckDB."""
    from pyspark.sql import functions as F

    shown = F.broadcast(con.spark.createDataFrame(sorted(names.items()), "read string, shown string"))
    scan = con.spark.table(view)
    named = scan.join(shown, scan["filename"] == shown["read"], "left").select(
        *[
            F.coalesce(shown["shown"], scan["filename"]).alias(c) if c == "filename" else scan[f"`{c}`"]
            for c in scan.columns
        ]
    )
    con.register_scan(view, named)


def same_rows(con: SparkWarehouse, name: str, scan: str) -> None:
    """The view ``name`` over the scan ``scan``: on Spark a CSV scan is numbered when it is read."""
    con.register_scan(name, con.spark.table(scan))


def columns(con: SparkWarehouse, view: str) -> dict[str, str]:
    """The columns of a view with their types as DuckDB names them (what ``staging.view_columns`` gives)."""
    return {f.name: duckdb_type(f.dataType) for f in con.spark.table(view).schema.fields}


def duckdb_type(kind: Any) -> str:
    """A Spark column type by DuckDB's name for it: the connectors decide by these names (a map column
    written as text, a type no bill column has)."""
    from pyspark.sql import types as T

    simple = {
        T.StringType: "VARCHAR",
        T.DoubleType: "DOUBLE",
        T.FloatType: "FLOAT",
        T.LongType: "BIGINT",
        T.IntegerType: "INTEGER",
        T.ShortType: "SMALLINT",
        T.ByteType: "TINYINT",
        T.BooleanType: "BOOLEAN",
        T.DateType: "DATE",
        T.TimestampType: "TIMESTAMP WITH TIME ZONE",
        T.TimestampNTZType: "TIMESTAMP",
        T.BinaryType: "BLOB",
    }
    for spark_type, name in simple.items():
        if isinstance(kind, spark_type):
            return name
    if isinstance(kind, T.DecimalType):
        return f"DECIMAL({kind.precision},{kind.scale})"
    if isinstance(kind, T.MapType):
        return f"MAP({duckdb_type(kind.keyType)}, {duckdb_type(kind.valueType)})"
    if isinstance(kind, T.ArrayType):
        return f"{duckdb_type(kind.elementType)}[]"
    if isinstance(kind, T.StructType):
        return "STRUCT(" + ", ".join(f"{f.name} {duckdb_type(f.dataType)}" for f in kind.fields) + ")"
    return str(kind.simpleString()).upper()


def read_json_lines(con: SparkWarehouse, name: str, files: Sequence[str], what: str) -> None:
    """JSON Lines files (or .gz) as the view ``name``, numbered as DuckDB numbers them (``staging.number_rows``:
    a file's records in order, from 0; blank lines are no records on either reader). ``what`` the files
    should be, for the line naming one that cannot be read.

    Spark splits a large file among tasks. A record belongs to the split its line starts in, and a task reads
    its splits one after the other, so within a split ``monotonically_increasing_id()`` counts the records:
    a row's number is its id minus its split's first id, plus the records of the file's earlier splits (one
    small row per split, joined back). Types are inferred from every record, as DuckDB's ``sample_size=-1``;
    a value of mixed types is read as its JSON text. The numbered rows are checkpointed on the executors (as
    DuckDB keeps them in a temporary table), so the later statements do not parse the JSON again.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    try:
        df = con.spark.read.options(mode="FAILFAST").json(list(files))
        columns = df.columns
        ids = df.select(
            *[F.col(f"`{c}`") for c in columns],
            F.expr(FILE_NAME).alias("filename"),
            F.col("_metadata.file_block_start").alias("split_start"),
            F.monotonically_increasing_id().alias("scan_row"),
        ).localCheckpoint()
    except Exception as exc:  # Spark raises its own error types (Py4J, or Spark Connect's)
        raise unreadable_json(files, exc, what) from None
    earlier = Window.partitionBy("filename").orderBy("split_start").rowsBetween(Window.unboundedPreceding, -1)
    splits = (
        ids.groupBy("filename", "split_start")
        .agg(F.min("scan_row").alias("first_row"), F.count("*").alias("records"))
        .select(
            "filename",
            "split_start",
            "first_row",
            F.coalesce(F.sum("records").over(earlier), F.lit(0)).alias("records_before"),
        )
    )
    numbered = ids.join(F.broadcast(splits), ["filename", "split_start"]).select(
        *[F.col(f"`{c}`") for c in columns],
        "filename",
        (F.col("scan_row") - F.col("first_row") + F.col("records_before")).alias("file_row_number"),
    )
    con.register_scan(name, numbered)


def unreadable_json(files: Sequence[str], exc: Exception, what: str) -> InputError:
    """Spark's JSON read error as one line naming the file it names (else the first file) and ``what`` it
    was read as. Spark does not say which line is malformed (DuckDB does)."""
    text = str(exc)
    named = next((f for f in files if f in text), files[0])
    if "MALFORMED_RECORD" in text or "Malformed" in text:
        reason = "a line is not one JSON object (a malformed record)"
    else:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        first = next((line for line in lines if "gzip" in line.lower()), lines[0] if lines else "")
        reason = re.sub(r"^[:\s]*([\w.$]+(Exception|Error): )?(\[[A-Z_.]+\] )?", "", first)[:300]
    return InputError(f"{named}: cannot read as {what}: {reason}; expected JSON Lines, one object per line")
