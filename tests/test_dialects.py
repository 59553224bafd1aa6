"""Every query of queries/ transpiles from DuckDB's dialect to Spark (and to BigQuery and Trino for review);
what has no Spark equivalent is named, with its reason, and nothing DuckDB-only is left in the Spark text."""

from __future__ import annotations

import re

import pytest
import sqlglot

from trainledger.cli import sql as sql_command
from trainledger.core import queries
from trainledger.warehouse import dialects

# DuckDB names that Spark does not know (or knows with another meaning): none may reach Spark's text.
DUCKDB_ONLY = re.compile(
    r"\b(HUGEINT|INT128|EPOCH_MS|TIMESTAMP_MILLIS|LIST_REDUCE|LIST_CONTAINS|GCD|LCM|TO_UNITS|CHARGE_KIND_ID|"
    r"CHARGE_SLOT|CHARGE_NUMBER|DOUBLE_TO_MONEY|FITS_MONEY|UTC_TIME|FINITE_TIME|UNNEST|HASH|REGEXP_FULL_MATCH)\s*\(|"
    r"'-?infinity'|\bAS INT128\b|\bDIV\b\s+(\w+\.)?total_weight|\bMATERIALIZED\b",
    re.IGNORECASE,
)


def spark_text(name: str) -> str:
    return dialects.transpile(name, "spark", sql_command._composed(name))


@pytest.mark.parametrize("name", queries.names())
def test_every_query_transpiles_to_spark_without_a_duckdb_construct_left(name: str) -> None:
    text = spark_text(name)
    body = "\n".join(line for line in text.splitlines() if not line.startswith("--"))
    assert "NOT TRANSLATED" not in text, text
    assert not DUCKDB_ONLY.search(body), DUCKDB_ONLY.search(body)
    if not body.strip():  # a file that only defines a macro (schema/provider_id): expanded where called
        assert "expanded in place where a query calls it" in text, text
        return
    sqlglot.parse_one(body, read="spark")  # Spark's dialect reads back what was written for it


def test_the_statements_spark_runs_its_own_version_of_are_named_with_a_reason() -> None:
    # The statements SPEC's exactness needs written for Spark: exact unit arithmetic beyond 64 bits.
    assert set(dialects.OVERRIDES["spark"]) == {
        "attribute/allocate",
        "attribute/spread_allocate",
        "checks/invariant_sums",
    }
    for name, reason in dialects.OVERRIDES["spark"].items():
        assert name in queries.names() and len(reason) > 40
        text = spark_text(name)
        assert f"spark override (queries/engines/spark/{name}.sql)" in text
        body = "\n".join(line for line in text.splitlines() if not line.startswith("--"))
        assert "AS DECIMAL(38, 0)" in body and "HUGEINT" not in body
        # it mirrors DuckDB's statement: same kind, same target table, same number of result columns
        duck = dialects.parse(queries.load(name), "duckdb")
        own = dialects.statement(name, "spark")
        assert type(own) is type(duck) and _target(own) == _target(duck)
        assert len(_selected(own)) == len(_selected(duck))
    # Every other query is DuckDB's text transpiled: its spark text is generated, not kept.
    kept = {
        p.relative_to(queries.directory() / "engines" / "spark").with_suffix("").as_posix()
        for p in (queries.directory() / "engines" / "spark").rglob("*.sql")
    }
    assert {k for k in kept if not k.startswith("macros/")} == set(dialects.OVERRIDES["spark"])
    assert {k.split("/")[1] for k in kept if k.startswith("macros/")} == {
        "allocation_tuple_id",
        "charge_kind_id",
        "charge_slice",
        "to_units",
        "gcd",
        "lcm",
        "money",
        "money_long",
        "money_residue",
        "list_sum",
        "gcp_credits_json",
    }


def _target(tree: sqlglot.exp.Expr) -> str | None:
    return tree.this.sql() if isinstance(tree, sqlglot.exp.Insert) else None


def _selected(tree: sqlglot.exp.Expr) -> list[sqlglot.exp.Expr]:
    query = tree.expression if isinstance(tree, sqlglot.exp.Insert) else tree
    return list(query.selects)


def test_a_macro_is_expanded_with_its_arguments_and_a_table_macro_shown_as_its_body() -> None:
    text = dialects.transpile("attribute/kinds", "spark")
    # charge_kind_id(...) becomes Spark's 64-bit hash, each nullable column preceded by whether it is NULL
    assert "XXHASH64(" in text and "ISNULL(billing_account_id)" in text and ":periods" in text
    placed = dialects.transpile("attribute/place", "spark")
    assert "-- A table macro: inlined as a subquery where called as placed_charges(...)." in placed
    assert "UNIX_MILLIS(charge_period_end)" in placed  # DuckDB's epoch_ms of a time, not of a number
    windows = dialects.transpile("attribute/windows", "spark")
    assert "AGGREGATE(SEQUENCE(1, 92)" in windows.replace("\n", "").replace("  ", "")  # Euclid for gcd/lcm


def test_a_statement_calling_a_table_macro_names_its_ctes_apart_from_the_macros() -> None:
    """Spark's SQL lifts the CTEs of an inlined table macro beside the statement's own, and Spark refuses a
    name used twice (DUPLICATED_CTE_NAMES: export/focus_13 and focus_shares both had `described`)."""
    statements = {name: _spark_statements(name) for name in queries.names()}
    macros = dict(found for trees in statements.values() for t in trees if (found := dialects.table_macro(t)))
    assert {"focus_shares", "placed_charges", "resolved_charges", "run_spans"} <= set(macros)
    callers = 0
    for name, trees in statements.items():
        for tree in trees:
            inlined = dialects.inline(tree, macros)
            if dialects.table_macro(tree) or inlined == tree:
                continue
            callers += 1
            spark = sqlglot.parse_one(dialects.render(inlined, "spark")[0], read="spark")
            ctes = [cte.alias_or_name.lower() for cte in spark.find_all(sqlglot.exp.CTE)]
            assert len(ctes) == len(set(ctes)), (name, sorted(c for c in ctes if ctes.count(c) > 1))
    assert callers >= 8  # export/focus, focus_13 and focus_13_split among them


def _spark_statements(name: str) -> list[sqlglot.exp.Expr]:
    """The statements of a DuckDB query file, each as Spark runs it (macros expanded, rewrites applied)."""
    text, written = dialects._source(name)
    if written != "duckdb":
        return []
    trees = sqlglot.parse(sql_command._composed(name) or text, read="duckdb")
    return [dialects.parse(tree.sql("duckdb"), "spark") for tree in trees if tree]


@pytest.mark.parametrize("dialect", ["bigquery", "trino"])
def test_the_engines_on_paper_get_every_query_and_say_what_did_not_translate(dialect: str) -> None:
    untranslated = {}
    for name in queries.names():
        text = dialects.transpile(name, dialect, sql_command._composed(name))
        notes = [line for line in text.splitlines() if line.startswith("-- NOT TRANSLATED")]
        if notes:
            untranslated[name] = notes
    # What SQLGlot translates into something else is named too: Trino would floor through a DOUBLE.
    trino = dialects.transpile("attribute/allocate", "trino")
    if dialect == "trino":
        assert "-- ON PAPER for trino: `//` becomes a DOUBLE division truncated to BIGINT" in trino
        assert "AS DOUBLE) / total_weight" in trino
    # Known gaps, shown to a reviewer rather than hidden: a few ingest and report constructs.
    assert set(untranslated) <= {
        "attribute/timelines",
        "export/focus_shares",  # BigQuery: first(... ORDER BY ...), the FOCUS export's service categories
        "export/focus_13",  # Trino: AllocatedTags as a map built from key-value structs
        "ingest/cost_sum_reached",  # BigQuery: NULLS LAST in a window's order
        "ingest/insert_unpriced",  # BigQuery: first(... ORDER BY ...)
        # Trino: the struct literals of the money macros (schema/warehouse.sql money_digits); ingest is DuckDB's
        "ingest/money_residues",
        "ingest/normalize_cur2",
        "ingest/normalize_focus",
        "ingest/validate_focus",
        "ingest/normalize_gcp_billing",
        "ingest/normalize_gcp_focus",  # BigQuery: array_sort of a lambda's order
        "ingest/validate_cur2",
    }


def test_the_sql_command_prints_a_query_for_an_engine_and_refuses_an_unknown_name(run) -> None:
    result = run("sql", "--dialect", "spark", "checks/invariant_sums")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("-- The allocation invariant (SPEC §4)")
    assert "XXHASH64(charge_id, billed_cost, effective_cost, list_cost) AS DECIMAL(38, 0)" in result.stdout
    result = run("sql", "--dialect", "trino", "report/cost_by")
    assert result.exit_code == 0 and "SUM(effective_cost) AS effective_cost" in result.stdout
    result = run("sql", "attribute/nothing")
    assert result.exit_code == 1
    assert result.stderr == (
        "trainledger: error: no query named 'attribute/nothing'; the names are the files of queries/, "
        "e.g. attribute/allocate\n"
    )


def test_pacific_invoice_months_and_hash_times_keep_their_meaning_on_spark() -> None:
    """DuckDB's pair timezone('UTC', timezone(zone, ts)) is a wall-clock time in zone as UTC, and the reverse
    pair a UTC time as zone's wall clock: Spark's to_utc_timestamp / from_utc_timestamp (Spark's SQL
    reference). A letter as text in a strftime format is quoted in Java's pattern (DateTimeFormatter: 'T')."""
    body = "".join(dialects.transpile("ingest/normalize_gcp_billing", "spark").split())
    assert "TO_UTC_TIMESTAMP(invoice_local_start,'America/Los_Angeles')ASbilling_period_start" in body
    assert "DATE_FORMAT(FROM_UTC_TIMESTAMP(usage_start_time,'America/Los_Angeles'),'yyyyMM')" in body
    assert "DATE_FORMAT(export_time,'yyyy-MM-dd\\'T\\'HH:mm:ss.SSSSSS')" in body
    assert "TIMEZONE(" not in body
