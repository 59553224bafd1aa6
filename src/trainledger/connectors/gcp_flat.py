"""Google's export rows, from any file or query result, as one flat, typed view (``gcp_flat``).

BigQuery writes the same table as parquet, as JSON Lines, or (through the client) as arrow, and its schema
grew over the years: a path is looked up by name, case-insensitively, whatever the nesting, and money is
cast to DECIMAL from its decimal text. What a kind takes from a row is its :class:`Export`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from trainledger.connectors import spark_files, sql_slots, staging
from trainledger.core.errors import InputError
from trainledger.warehouse import spark_money
from trainledger.warehouse.connection import Connection, on_spark

RAW_VIEW = "gcp_billing_raw"
FLAT_VIEW = "gcp_flat"
SQL_TYPES = {"text": "VARCHAR", "decimal": "DECIMAL(38, 12)", "double": "DOUBLE", "time": "TIMESTAMP"}
VARCHAR = duckdb.sqltype("VARCHAR")


@dataclass(frozen=True)
class Export:
    """What differs between Google's append-only export tables, read the same way (gcp-billing, gcp-focus):
    the flat columns taken from a row (``fields``, ``lists``), the paths a row must have, the text kept for
    error messages and rounding residues, the queries (BigQuery's, then validate and normalise over
    ``gcp_flat``), the hint naming the table when BigQuery says it is not found, an example table id, and
    the query giving the appended rows' money as written (view ``gcp_new_money``) with its money columns, by
    their names in the export."""

    kind: str
    what: str
    fields: dict[str, tuple[str, str]]
    lists: dict[str, tuple[str, dict[str, str]]]
    required: tuple[str, ...]
    text_kept: tuple[str, ...]
    bigquery: str
    validate: str
    normalize: str
    tables: str
    example: str
    money: str
    money_columns: tuple[str, ...]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lookup(types: dict[str, Any], path: str) -> tuple[str, Any] | None:
    """SQL expression and DuckDB type of a dotted export path, or None when the data lacks it.

    ``types`` maps column names to DuckDB relation types (``.id``, ``.children``); a JSON-typed record
    (what DuckDB infers from all-empty objects) is read with json_extract_string.
    """
    head, *rest = path.split(".")
    lowered = {name.lower(): name for name in types}
    if head.lower() not in lowered:
        return None
    name = lowered[head.lower()]
    expr, kind = _quote(name), types[name]
    for part in rest:
        if kind.id == "struct":
            children = {child.lower(): (child, t) for child, t in kind.children}
            if part.lower() not in children:
                return None
            child, kind = children[part.lower()]
            expr = f"{expr}.{_quote(child)}"
        elif str(kind).upper() == "JSON":
            return f"json_extract_string({expr}, '$.{'.'.join(rest)}')", VARCHAR
        else:
            return None
    return expr, kind


def _text(expr: str, kind: Any, spark: bool = False) -> str:
    """The value as text; a JSON value (mixed types in a JSON Lines column) without its quotes. On Spark a
    DOUBLE's text is its shortest round-trip text, as DuckDB writes it (Spark's own cast goes through Java's
    ``Double.toString``: warehouse/spark_money.py)."""
    if str(kind).upper() == "JSON":
        return f"json_extract_string({expr}, '$')"
    if spark and str(kind) == "DOUBLE":
        return f"{spark_money.TEXT}({expr})"
    return f"CAST({expr} AS VARCHAR)"


def _convert(expr: str, kind: Any, target: str) -> str:
    """Cast one value to its flat kind; money and quantities go to DECIMAL through their decimal text."""
    if str(kind).upper() == "JSON":
        expr, kind = _text(expr, kind), VARCHAR
    if target == "text":
        return f"CAST({expr} AS VARCHAR)"
    if target == "decimal":
        return f"money({expr})"  # rounded half-even to 12 places (queries/schema/warehouse.sql)
    if target == "double":
        return f"TRY_CAST({expr} AS DOUBLE)"
    type_id = str(kind.id)
    if type_id == "timestamp with time zone":
        return f"timezone('UTC', {expr})"
    if type_id.startswith("timestamp") or type_id == "date":
        return f"CAST({expr} AS TIMESTAMP)"
    return f"timezone('UTC', TRY_CAST(CAST({expr} AS VARCHAR) AS TIMESTAMPTZ))"


def _list_expr(types: dict[str, Any], path: str, fields: dict[str, str], staged: list[str] | None) -> str:
    """A list of structs with exactly ``fields`` (missing ones NULL), whatever the file's element type.

    A decimal field also keeps its text as ``<name>_text``, for error messages. On Spark (``staged`` given),
    whose lambdas cannot call a Python UDF, a decimal field's money (and a DOUBLE's text) is computed for the
    whole list first, as a column of the raw rows appended to ``staged``, and taken from it by position.
    """
    shape = [(f, SQL_TYPES[k]) for f, k in fields.items()]
    shape += [(f"{f}_text", "VARCHAR") for f, k in fields.items() if k == "decimal"]
    target = "STRUCT(" + ", ".join(f"{_quote(f)} {t}" for f, t in shape) + ")[]"
    found = _lookup(types, path)
    if found is None or found[1].id != "list":
        return f"CAST(NULL AS {target})"
    expr, kind = found
    element = kind.children[0][1]
    children = {c.lower(): (c, t) for c, t in element.children} if element.id == "struct" else {}
    parts = []
    for name, conv in fields.items():
        if name.lower() in children:
            child, child_type = children[name.lower()]
            source, source_type = f"e.{_quote(child)}", child_type
        elif str(element).upper() == "JSON":
            source, source_type = f"json_extract_string(e, '$.{name}')", VARCHAR
        else:
            source, source_type = "NULL", VARCHAR
        value, text = _convert(source, source_type, conv), _text(source, source_type)
        if staged is not None and conv == "decimal":
            value, text = _staged_money(expr, source, source_type, name, staged)
        parts.append(f"{_quote(name)}: {value}")
        if conv == "decimal":
            parts.append(f"{_quote(name + '_text')}: {text}")
    element_and_position = "e" if staged is None else "e, i"
    return f"list_transform({expr}, lambda {element_and_position}: {{{', '.join(parts)}}})"


def _staged_money(expr: str, source: str, kind: Any, name: str, staged: list[str]) -> tuple[str, str]:
    """On Spark: a list element's money and text, by position ``i`` (0-based on Spark, as its ``[i]``) in
    the lists computed for the whole list (``staged``)."""
    if source == "NULL":
        return "CAST(NULL AS DECIMAL(38, 12))", "CAST(NULL AS VARCHAR)"
    values = f"list_transform({expr}, lambda e: {source})"
    column = f"flat_{len(staged)}_{name}"
    staged.append(f"{spark_money.MONEY_EACH}({values}) AS {_quote(column + '_money')}")
    text = _text(source, kind)
    if str(kind) == "DOUBLE":
        staged.append(f"{spark_money.TEXT_EACH}({values}) AS {_quote(column + '_text')}")
        text = f"{_quote(column + '_text')}[i]"
    return f"{_quote(column + '_money')}[i]", text


def _raw_types(con: Connection) -> dict[str, Any]:
    """The raw view's columns with their DuckDB types. On Spark, its schema's types by DuckDB's names
    (``spark_files.columns``), read back as DuckDB types: one flattening for both engines."""
    if spark := on_spark(con):
        return {name: duckdb.sqltype(kind) for name, kind in spark_files.columns(spark, RAW_VIEW).items()}
    rel = con.table(RAW_VIEW)
    return dict(zip(rel.columns, rel.types, strict=True))


def create_flat_view(con: Connection, where: str, export: Export) -> None:
    """``gcp_flat``: one typed row per export row, from the raw view; fails on a non-export input."""
    types = _raw_types(con)
    spark = on_spark(con) is not None
    missing = [path for path in export.required if _lookup(types, path) is None]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise InputError(f"{where}: not a {export.what}: missing column(s) {shown}")
    columns: list[str] = []
    for name, (path, kind) in export.fields.items():
        found = _lookup(types, path)
        if found is None:
            columns.append(f"CAST(NULL AS {SQL_TYPES[kind]}) AS {name}")
            if name in export.text_kept:
                columns.append(f"CAST(NULL AS VARCHAR) AS {name}_text")
            continue
        columns.append(f"{_convert(found[0], found[1], kind)} AS {name}")
        if name in export.text_kept:
            columns.append(f"{_text(*found, spark=spark)} AS {name}_text")
    staged: list[str] | None = [] if spark else None
    for name, (path, fields) in export.lists.items():
        columns.append(f"{_list_expr(types, path, fields, staged)} AS {name}")
    columns += ["filename AS source_file", "file_row_number + 1 AS source_row"]
    rows = RAW_VIEW
    if staged:
        rows = f"{RAW_VIEW}_lists"
        staging.derive_view(con, rows, RAW_VIEW, sql_slots.Fragment(", ".join(["*", *staged])))
    # Expressions from the fixed templates above over quoted column names: the file's schema decides which.
    staging.derive_view(con, FLAT_VIEW, rows, sql_slots.Fragment(", ".join(columns)))
