"""gcp-billing and gcp-focus round money with more than 12 decimal places half-even, as every bill does, and
record the residue (the sum as written minus the sum stored) per invoice month and money column in the run
ledger, over the rows each pull appends (issue 30, point 1).

Expected values are worked out here from the values the test writes (a FLOAT's text is Python's repr, its
shortest round-trip text, which is what BigQuery's REST answer and a JSON Lines export carry), with
Python's Decimal: ``quantize(..., ROUND_HALF_EVEN)`` is the rounding, ``written - stored`` the residue.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from typing import Any

import duckdb
import pytest
from click.testing import Result

import gcp_focus_month
import gcp_month
import generate_gcp
from conftest import Project
from gcp_fakes import BigQueryFake, Table

# Doubles as Google's FLOAT columns hold them: 1/3, float noise (0.1 + 0.2), an hourly rate of 18 places, a
# value below the 12th place (4e-13), and values of 12 places or fewer, kept as they are.
LONG = [1 / 3, 0.1 + 0.2, 5.787037037037037e-06, 0.000520833333333333, 12.345678901234567, 4e-13, 40.19]


def half_even(text: str) -> Decimal:
    with localcontext(prec=80):
        return Decimal(text).quantize(Decimal("1e-12"), rounding=ROUND_HALF_EVEN)


def residue(texts: list[str]) -> Decimal:
    """The sum as written minus the sum stored, exactly (a context wide enough for every digit)."""
    with localcontext(prec=200):
        return sum((Decimal(t) for t in texts), Decimal(0)) - sum((half_even(t) for t in texts), Decimal(0))


def ledger(run: Callable[..., Result]) -> dict[str, Any]:
    """The newest run's entries per billing period: their rounding residue, or None."""
    runs = json.loads(run("runs", "--format", "json").stdout)
    return {e["period"]: e.get("rounding_residue") for e in runs[0]["detail"]["sources"]}


def query(project: Project, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


# ---------------------------------------------------------------------------------------------------------
# gcp-billing from BigQuery: two appends, each pull's residue over the rows it appended
# ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def long_rows() -> list[dict[str, Any]]:
    """The generated November export with long doubles in cost, cost_at_list and the credits of the first
    rows of each append."""
    rows = copy.deepcopy(generate_gcp.billing_rows())
    for batch in generate_gcp.export_batches(rows):
        for i, row in enumerate(batch[: len(LONG)]):
            row["cost"] = LONG[i]
            row["cost_at_list"] = LONG[(i + 2) % len(LONG)]
            row["credits"] = [{**c, "amount": -LONG[(i + 4) % len(LONG)]} for c in row["credits"]]
    return rows


@pytest.fixture
def bigquery(long_rows: list[dict[str, Any]]) -> Iterator[tuple[BigQueryFake, Table]]:
    first, _ = generate_gcp.export_batches(long_rows)
    table = Table(generate_gcp.SCHEMA, list(first))
    with BigQueryFake({generate_gcp.TABLE: table}, page_size=100) as fake:
        yield fake, table


def expected(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, str]] | None]:
    """Per billing period (invoice month YYYY-MM), the residue of each money column that has one (None:
    nothing was rounded)."""
    found: dict[str, dict[str, dict[str, str]] | None] = {}
    for month in sorted({r["invoice"]["month"] for r in rows}):
        mine = [r for r in rows if r["invoice"]["month"] == month]
        columns = {
            "cost": residue([repr(r["cost"]) for r in mine]),
            "cost_at_list": residue([repr(r["cost_at_list"]) for r in mine]),
            "credits.amount": residue([repr(c["amount"]) for r in mine for c in r["credits"]]),
        }
        period = f"{month[:4]}-{month[4:]}"
        found[period] = {c: {"USD": f"{v:f}"} for c, v in columns.items() if v} or None
    return found


def test_bigquery_pulls_record_the_residue_of_the_rows_each_appends(
    run: Callable[..., Result],
    project: Project,
    bigquery: tuple[BigQueryFake, Table],
    long_rows: list[dict[str, Any]],
) -> None:
    fake, table = bigquery
    project.write_config(
        f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\ntable = "{generate_gcp.TABLE}"\n'
        f'api_endpoint = "{fake.url}"\n'
    )
    first, second = generate_gcp.export_batches(long_rows)

    assert run("ingest").exit_code == 0
    assert ledger(run) == {"2026-11": expected(first)["2026-11"]}
    table.rows = list(long_rows)  # the second append lands; the overlap reads the first again
    assert run("ingest").exit_code == 0
    assert ledger(run) == expected(second)

    # What is stored: each value rounded half-even, BilledCost its cost plus its credits.
    stored = sum(
        half_even(repr(r["cost"])) + sum((half_even(repr(c["amount"])) for c in r["credits"]), Decimal(0))
        for r in long_rows
        if r["invoice"]["month"] == "202611"
    )
    assert query(project, "SELECT sum(billed_cost) FROM charges WHERE billing_period = '2026-11'") == [
        (stored,)
    ]
    shown = run("runs", "--verbose").stdout
    november = expected(second)["2026-11"]
    assert november is not None
    cost = november["cost"]["USD"]
    assert f"gcp 2026-11 rounding residue: cost {cost} USD" in shown


def test_by_hand_one_row() -> None:
    """The rule on one row, by hand: cost 1/3 keeps 0.333333333333 and leaves 3.333...e-13 (its repr has
    16 places: 0.3333333333333333), a credit of -4e-13 becomes 0 and leaves -4e-13."""
    assert residue([repr(1 / 3)]) == Decimal("3.333e-13")
    assert residue([repr(-4e-13)]) == Decimal("-4e-13")


# ---------------------------------------------------------------------------------------------------------
# Files: gcp-billing JSON Lines, gcp-focus JSON Lines
# ---------------------------------------------------------------------------------------------------------


def test_a_json_lines_export_records_its_residue(run: Callable[..., Result], project: Project) -> None:
    rows = copy.deepcopy(gcp_month.month_rows())
    for i, row in enumerate(rows[: len(LONG)]):
        row["cost"] = LONG[i]
        row["credits"] = [{**c, "amount": -LONG[(i + 3) % len(LONG)]} for c in row["credits"]]
    path = project.root / "billing.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    project.write_config(f'[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "{path}"\n')

    result = run("ingest")

    assert result.exit_code == 0, result.stderr
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]  # floats, as written
    assert ledger(run) == {
        gcp_month.PERIOD: {
            "cost": {"USD": f"{residue([repr(r['cost']) for r in raw]):f}"},
            "credits.amount": {"USD": f"{residue([repr(c['amount']) for r in raw for c in r['credits']]):f}"},
        }
    }
    assert "rounding" not in result.stderr  # a few values cannot leave half a cent


def test_a_gcp_focus_file_with_long_decimal_text_is_rounded_and_its_residue_recorded(
    run: Callable[..., Result], project: Project
) -> None:
    """Money as decimal text longer than a double holds (a NUMERIC written as a string keeps every digit)."""
    texts = ["0.1234567890123456789012", "0.000520833333333333", "4e-13", "0.0000000000025", "40.19"]
    path = gcp_focus_month.write_jsonl(project.root / "focus" / "focus.json")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for i, row in enumerate(rows[: len(texts)]):
        row["BilledCost"] = texts[i]
        row["EffectiveCost"] = texts[(i + 1) % len(texts)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    project.write_config(f'[[sources]]\nname = "gcp"\nkind = "gcp-focus"\nuri = "{path}"\n')

    result = run("ingest")

    assert result.exit_code == 0, result.stderr
    written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    billed = [r["BilledCost"] for r in written]
    assert query(project, "SELECT sum(billed_cost) FROM charges") == [
        (sum((half_even(t) for t in billed), Decimal(0)),)
    ]
    assert ledger(run) == {
        gcp_month.PERIOD: {
            "BilledCost": {"USD": f"{residue(billed):f}"},
            "EffectiveCost": {
                "USD": f"{residue([r['EffectiveCost'] for r in written if 'EffectiveCost' in r]):f}"
            },
        }
    }
    # By hand, BilledCost: 0.1234567890123456789012 keeps 0.123456789012 (-> 3.456789012e-13 left),
    # 0.000520833333333333 -> 3.33333e-13, 4e-13 -> 4e-13, 0.0000000000025 a tie to the even 2e-12 -> 5e-13.
    assert residue(billed) == Decimal("3.456789012e-13") + Decimal("3.33333e-13") + Decimal(
        "4e-13"
    ) + Decimal("5e-13")
