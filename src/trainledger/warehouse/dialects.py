"""The queries of ``queries/`` as another engine runs them: SQLGlot transpiles DuckDB's dialect.

The SQL is written once, for DuckDB. For Spark, BigQuery or Trino a statement is parsed by SQLGlot (a
well-kept transpiler that knows these dialects), DuckDB's macros (``queries/schema/warehouse.sql``) are
expanded in place, and a few constructs without an equivalent are rewritten (``SPARK_REWRITES``). Where a
whole statement has none (exact unit arithmetic beyond 64 bits), an override written for that engine
stands in: ``queries/engines/<dialect>/<name>.sql``, listed with its reason in ``OVERRIDES``. An engine's
own body for a macro or a DuckDB function lives in ``queries/engines/<dialect>/macros/<name>.sql``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel

from trainledger.core import queries

# Statements replaced whole for an engine, and why the transpiled DuckDB text cannot run there.
OVERRIDES: dict[str, dict[str, str]] = {
    "spark": {
        "attribute/allocate": (
            "exact split in integer units of 1e-12: DuckDB's HUGEINT and `//` have no Spark equivalent "
            "(Spark's `div` returns a 64-bit long and wraps), so units are DECIMAL(38, 0), the floor is "
            "(x - x % t) / t, and units become money as whole and fractional parts (no scale lost)"
        ),
        "attribute/spread_allocate": (
            "the proportional spread's exact split: HUGEINT products and `//` as in attribute/allocate, so "
            "DECIMAL(38, 0) units, the floor as (x - x % t) / t, and the sign by CASE (Spark's sign() is a DOUBLE)"
        ),
        "checks/invariant_sums": (
            "the invariant's hash sums: DuckDB's 64-bit hash() summed as HUGEINT; Spark's hash() is 32-bit, "
            "so xxhash64 summed as DECIMAL(38, 0)"
        ),
    },
}

# What the Spark rewrites below stand for (shown by `trainledger sql` and the transpile test).
SPARK_REWRITES = {
    "macros": "DuckDB macros (charge_kind_id, to_units, ...) expanded in place; Spark bodies where they differ",
    "table macros": "CREATE TEMP MACRO ... AS TABLE: inlined where called, as a subquery",
    "HUGEINT": "DECIMAL(38, 0), Spark's widest exact integer",
    "UBIGINT": "BIGINT: the kind ids Spark writes are xxhash64's signed 64-bit values",
    "epoch_ms(ts)": "unix_millis(ts): SQLGlot reads DuckDB's epoch_ms as the other overload (ms to time)",
    "unnest(list, recursive := true)": "inline(list): one column per struct field",
    "'-infinity'/'infinity' timestamps": "the first and last instants Spark holds",
    "list_reduce(list, f)": "aggregate(slice(list, 2, size(list)), list[1], f)",
    "len(list)": "size(list) (queries/ uses len only on lists)",
    "hash(...)": "xxhash64(...): DuckDB's hash is 64-bit, Spark's hash() 32-bit",
    "row_number() OVER ()": "monotonically_increasing_id(): an id only, and Spark wants an order for row_number",
    "GROUPING(a, b, ...)": "grouping(a) * 2 + grouping(b) ...: Spark's grouping() takes one column (and its "
    "grouping_id() every grouping column, in order)",
    "gcd, lcm": "no Spark function: Euclid's algorithm, bounded to 92 steps (enough for 64-bit values)",
}


_ATOMS = (exp.Column, exp.Identifier, exp.Literal, exp.Func, exp.Paren, exp.Cast, exp.Placeholder)


# For the engines still on paper: DuckDB constructs that SQLGlot turns into something that runs but means
# another thing (or not at all), found in a query's DuckDB text and named in the header `trainledger sql`
# prints, so that a reviewer does not take the text as ready.
ON_PAPER = {
    "trino": {
        r"//": "`//` becomes a DOUBLE division truncated to BIGINT: not exact beyond 2^53",
        r"\bHUGEINT\b|\bto_units\(": "HUGEINT stays INT128, which Trino does not have",
        r"GROUP BY ALL": "Trino's GROUP BY ALL is a set quantifier, not 'every non-aggregate column'",
        r"\b(lcm|gcd)\(": "no gcd/lcm function",
        r"AS TABLE": "a table macro: Trino's SQL routines are scalar only",
    },
    "bigquery": {
        r"\bHUGEINT\b|\bto_units\(": "HUGEINT stays INT128: BIGNUMERIC would hold the unit arithmetic",
        r"\b(lcm|gcd)\(": "no gcd/lcm function (a JavaScript or SQL UDF)",
        r"AS TABLE": "a table macro: a table function in BigQuery",
        r"\bhash\(": "DuckDB's hash(): FARM_FINGERPRINT in BigQuery",
    },
}


@dataclass(frozen=True)
class Macro:
    params: tuple[str, ...]
    body: exp.Expr


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--")).strip()


# The files that define DuckDB's scalar macros: the warehouse's, and the session's provider_id and usage_billed.
MACRO_FILES = ("schema/warehouse", "schema/provider_id", "schema/usage_billed")


@cache
def duckdb_macros() -> dict[str, Macro]:
    """The scalar macros of ``MACRO_FILES``, by name."""
    found: dict[str, Macro] = {}
    statements = (s for name in MACRO_FILES for s in sqlglot.parse(queries.load(name), read="duckdb"))
    for statement in statements:
        if isinstance(statement, exp.Create) and str(statement.args.get("kind")).upper() == "MACRO":
            function = statement.this
            params = tuple(p.name for p in function.expressions)
            found[function.this.name.lower()] = Macro(params, statement.expression)
    return found


@cache
def engine_macros(dialect: str) -> dict[str, Macro]:
    """An engine's own bodies for macros and DuckDB functions it lacks, by name: after the header, each
    file holds ``(param, ...) = expression`` in the engine's dialect."""
    root = queries.directory() / "engines" / dialect / "macros"
    found: dict[str, Macro] = {}
    for path in sorted(root.glob("*.sql")) if root.is_dir() else []:
        signature, _, body = _body(path.read_text(encoding="utf-8")).partition("=")
        params = tuple(p.strip() for p in signature.strip().strip("()").split(",") if p.strip())
        found[path.stem] = Macro(params, sqlglot.parse_one(body, read=dialect))
    return found


def override(name: str, dialect: str) -> str | None:
    """The engine's own text for a query, when it has one."""
    if name not in OVERRIDES.get(dialect, {}):
        return None
    return (queries.directory() / "engines" / dialect / f"{name}.sql").read_text(encoding="utf-8")


def _expand(tree: exp.Expr, macros: dict[str, Macro]) -> exp.Expr:
    """Replace every call of a macro by its body, arguments in place of parameters, until none is left."""

    def substitute(node: exp.Expr) -> exp.Expr:
        name = node.name.lower() if isinstance(node, exp.Anonymous) else None
        if name not in macros:
            return node
        macro = macros[name]
        args = dict(zip(macro.params, node.expressions, strict=True))

        def put(inner: exp.Expr) -> exp.Expr:
            if (
                isinstance(inner, exp.Column | exp.Identifier)
                and inner.name in args
                and not inner.args.get("table")
            ):
                arg = args[inner.name].copy()
                return arg if isinstance(arg, _ATOMS) else exp.paren(arg, copy=False)
            return inner

        return _expand(macro.body.copy().transform(put), macros)

    return tree.transform(substitute)


def _spark_rewrite(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.INT128:
        return exp.DataType.build("DECIMAL(38, 0)")
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.UBIGINT:
        return exp.DataType.build("BIGINT")
    if isinstance(node, exp.UnixToTime) and node.text("scale") == "3":
        return exp.Anonymous(this="unix_millis", expressions=[node.this])
    if isinstance(node, exp.Explode) and node.expressions:
        return exp.Anonymous(this="inline", expressions=[node.this])
    if (
        isinstance(node, exp.Window)
        and isinstance(node.this, exp.RowNumber)
        and not node.args.get("partition_by")
        and not node.args.get("order")
    ):
        return exp.Anonymous(this="monotonically_increasing_id", expressions=[])
    if isinstance(node, exp.Grouping) and len(node.expressions) > 1:
        n = len(node.expressions)
        bits = [
            exp.Mul(
                this=exp.Grouping(expressions=[c.copy()]), expression=exp.Literal.number(1 << (n - 1 - i))
            )
            for i, c in enumerate(node.expressions)
        ]
        total: exp.Expr = bits[0]
        for bit in bits[1:]:
            total = exp.Add(this=total, expression=bit)
        return exp.paren(total, copy=False)
    if isinstance(node, exp.Anonymous) and node.name.lower() == "hash":
        return exp.Anonymous(this="xxhash64", expressions=node.expressions)
    if isinstance(node, exp.Length):
        return exp.Anonymous(this="size", expressions=[node.this])
    if isinstance(node, exp.Cast) and node.this.is_string and node.this.name in ("-infinity", "infinity"):
        bound = "0001-01-01 00:00:00" if node.this.name.startswith("-") else "9999-12-31 23:59:59.999999"
        return exp.cast(exp.Literal.string(bound), node.to)
    if isinstance(node, exp.Anonymous) and node.name.lower() == "list_reduce":
        items, function = node.expressions
        rest = exp.Anonymous(
            this="slice",
            expressions=[
                items.copy(),
                exp.Literal.number(2),
                exp.Anonymous(this="size", expressions=[items.copy()]),
            ],
        )
        first = exp.Anonymous(this="element_at", expressions=[items.copy(), exp.Literal.number(1)])
        return exp.Anonymous(this="aggregate", expressions=[rest, first, function])
    return node


def table_macro(tree: exp.Expr) -> tuple[str, Macro] | None:
    """``CREATE TEMP MACRO name(params) AS TABLE body``: its name and body."""
    returns = tree.find(exp.ReturnsProperty) if isinstance(tree, exp.Create) else None
    if returns is not None and returns.args.get("is_table"):
        function = tree.this
        return function.this.name.lower(), Macro(tuple(p.name for p in function.expressions), tree.expression)
    return None


def parse(sql: str, dialect: str) -> exp.Expr:
    """One DuckDB statement as ``dialect`` runs it: macros expanded, the engine's rewrites applied."""
    return _rewrite(sqlglot.parse_one(sql, read="duckdb"), dialect)


def _rewrite(tree: exp.Expr, dialect: str) -> exp.Expr:
    if dialect == "spark":
        tree = _expand(tree, engine_macros("spark"))
    tree = _expand(tree, duckdb_macros())
    if dialect == "spark":
        tree = tree.transform(_spark_rewrite)
    return tree


def statement(name: str, dialect: str) -> exp.Expr:
    """The named query as ``dialect`` runs it (its override, when it has one)."""
    text = override(name, dialect)
    if text is not None:
        return _expand(sqlglot.parse_one(text, read=dialect), engine_macros(dialect))
    return parse(queries.load(name), dialect)


def _source(name: str) -> tuple[str, str]:
    """A query file's text for review and the dialect it is written in: its ``{{slot}}``s (filled by
    connectors/sql_slots.py at run time) shown as placeholders, ``slot_<name>`` (a select list: ``*``)."""
    text = queries.load(name)
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    body = re.sub(r"\{\{(\w+)\}\}", lambda m: "*" if m.group(1) == "select" else f"slot_{m.group(1)}", body)
    written = "bigquery" if text.startswith("-- BigQuery") else "duckdb"
    return body, written


def render(tree: exp.Expr, dialect: str) -> tuple[str, list[str]]:
    """SQL text of ``dialect``, and what SQLGlot could not translate (for a reviewer to see)."""
    generator = Dialect.get_or_raise(dialect).generator(
        pretty=True, comments=False, unsupported_level=ErrorLevel.IGNORE
    )
    text = generator.generate(tree)
    return text, list(dict.fromkeys(generator.unsupported_messages))


def transpile(name: str, dialect: str, sql: str | None = None) -> str:
    """The named query (or ``sql``, composed from it) as SQL text of ``dialect``, for review, its header
    kept and followed by what stands in for DuckDB and what did not translate (``trainledger sql``)."""
    if dialect not in queries.DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r} (known: {', '.join(queries.DIALECTS)})")
    header = [line for line in queries.load(name).splitlines() if line.startswith("--")]
    if sql is None and name in OVERRIDES.get(dialect, {}):
        header.append(
            f"-- {dialect} override (queries/engines/{dialect}/{name}.sql): {OVERRIDES[dialect][name]}"
        )
    text, written = _source(name)
    if sql is not None:
        trees = [parse(sql, dialect)]
    elif name in OVERRIDES.get(dialect, {}):
        trees = [statement(name, dialect)]
    else:
        trees = [_rewrite(t, dialect) for t in sqlglot.parse(text, read=written) if t]
    if "{{" in _body(queries.load(name)):
        header.append(
            "-- Slots ({{...}}, filled by connectors/sql_slots.py when it runs) shown as slot_<name>."
        )
    code = _body(queries.load(name)) if sql is None else sql
    header.extend(
        f"-- ON PAPER for {dialect}: {why}"
        for found, why in ON_PAPER.get(dialect, {}).items()
        if re.search(found, code, re.IGNORECASE)
    )
    parts = []
    for tree in trees:
        found = table_macro(tree)
        if found:
            header.append(f"-- A table macro: inlined as a subquery where called as {found[0]}(...).")
            tree = found[1].body
        elif isinstance(tree, exp.Create) and str(tree.args.get("kind")).upper() == "MACRO":
            parts.append(f"-- macro {tree.this.this.name}: expanded in place where a query calls it")
            continue
        text, unsupported = render(tree, dialect)
        header.extend(f"-- NOT TRANSLATED by SQLGlot: {message}" for message in unsupported)
        parts.append(text + (";" if len(trees) > 1 else ""))
    body = "\n".join(parts)
    return "\n".join([*header, body]) + "\n"
