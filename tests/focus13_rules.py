"""FOCUS 1.3's split cost allocation rules as checks over an exported file, read by DuckDB alone.

The rules come from the FOCUS_Spec repository (FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec), not from
trainledger's query:

- ``specification/attributes/data_generator_calculated_split_cost_allocation_handling.md``: the allocated
  charges of an origin charge sum to it in every summable metric (costs, quantities), and carry its
  dimensions, non-summable metrics and Tags;
- ``columns/allocatedmethoddetails.md``: the AllocatedRatio of the allocated charges of one origin sum to 1,
  null when the charge is not related to a split;
- ``columns/allocatedmethodid.md``: null exactly when a charge is not related to a split;
- ``columns/allocatedresourceid.md`` / ``allocatedresourcename.md``: null on a charge not related to a split
  and on the unallocated portion; the name null exactly when the id is;
- ``columns/allocatedtags.md``: null when not related to a split; never a key already in Tags;
- ``columns/serviceprovidername.md``, ``hostprovidername.md``: never null.

The origin charge is not in the file (its allocated charges restate it), so each origin's sums are checked
against the bill's charge in the warehouse (``charges``, attached read-only): ``x_ChargeId`` names it, and a
commitment fee's unused part (CommitmentDiscountStatus ``Unused``) is an origin of its own. Each check returns
the rows that break its rule: a conforming file gives none.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

METRICS = ("BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "ConsumedQuantity", "PricingQuantity")
ALLOCATION = (
    "AllocatedMethodDetails",
    "AllocatedMethodId",
    "AllocatedResourceId",
    "AllocatedResourceName",
    "AllocatedTags",
)
# What each share says about itself (who it is allocated to, by which rule): not the origin's dimensions.
SHARE_LABELS = (
    "x_Project",
    "x_Phase",
    "x_Method",
    "x_ExperimentId",
    "x_AllocationRule",
    "x_AllocationReason",
)

ORIGIN = "x_ChargeId, CommitmentDiscountStatus IS NOT DISTINCT FROM 'Unused' AS unused"
RATIO = "CAST(json_extract_string(AllocatedMethodDetails, '$.Elements[0].AllocatedRatio') AS DECIMAL(38, 12))"


def _open(path: Path, warehouse: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    reader = "read_parquet" if path.suffix == ".parquet" else "read_csv"
    options = "" if path.suffix == ".parquet" else ", all_varchar = true"
    con.execute(f"CREATE VIEW raw AS SELECT * FROM {reader}('{path}'{options})")
    typed = ", ".join(f'CAST("{m}" AS DECIMAL(38, 12)) AS "{m}"' for m in METRICS)
    con.execute(f"CREATE VIEW export AS SELECT * REPLACE ({typed}) FROM raw")
    con.execute(f"ATTACH '{warehouse}' AS ledger (READ_ONLY)")
    return con


def _dimensions(con: duckdb.DuckDBPyConnection) -> list[str]:
    columns = [row[0] for row in con.execute("DESCRIBE export").fetchall()]
    return [c for c in columns if c not in METRICS + ALLOCATION + SHARE_LABELS]


def problems(path: Path, warehouse: Path) -> dict[str, list[tuple[object, ...]]]:
    """Each rule's violating rows (empty lists for a conforming file)."""
    con = _open(path, warehouse)
    dims = ", ".join(f'"{c}"' for c in _dimensions(con))
    allocated = f"SELECT *, {RATIO} AS ratio FROM export WHERE AllocatedMethodId IS NOT NULL"
    checks = {
        # Summable metrics: money over both parts of a charge is the bill's charge (the unused part carries
        # the EffectiveCost of a commitment fee, the purchase its BilledCost); ListCost and ContractedCost as
        # FOCUS sets them (listcost.md: a charge unrelated to others, a Credit, matches its BilledCost).
        "money adds up to the origin": f"""
            WITH sums AS (
                SELECT CAST(x_ChargeId AS BIGINT) AS charge_id, sum(BilledCost) AS billed,
                       sum(EffectiveCost) AS effective, sum(ListCost) AS list, sum(ContractedCost) AS contracted
                FROM ({allocated}) GROUP BY 1
            )
            SELECT s.*, c.billed_cost, c.effective_cost, c.list_cost
            FROM sums s JOIN ledger.charges c USING (charge_id)
            WHERE s.billed <> c.billed_cost OR s.effective <> c.effective_cost
               OR s.list <> CASE WHEN c.charge_category = 'Credit' OR (c.charge_category = 'Tax' AND c.list_cost = 0)
                                 THEN c.billed_cost ELSE c.list_cost END
               OR s.contracted <> s.list
        """,
        "quantities add up to the origin": f"""
            WITH sums AS (
                SELECT {ORIGIN}, sum(ConsumedQuantity) AS consumed, sum(PricingQuantity) AS pricing,
                       count(ConsumedQuantity) AS n_consumed, count(PricingQuantity) AS n_pricing, count(*) AS n
                FROM ({allocated}) GROUP BY ALL
            )
            SELECT s.*, c.consumed_quantity FROM sums s
            JOIN ledger.charges c ON c.charge_id = CAST(s.x_ChargeId AS BIGINT)
            WHERE (s.n_consumed > 0 AND (s.n_consumed <> s.n OR s.consumed IS DISTINCT FROM c.consumed_quantity))
               OR (s.n_pricing > 0 AND (s.n_pricing <> s.n OR s.pricing IS DISTINCT FROM
                   coalesce(c.consumed_quantity, CAST(1 AS DECIMAL(38, 12)))))
        """,
        "dimensions are the origin's": f"""
            SELECT {ORIGIN}, count(DISTINCT ({dims})) AS versions
            FROM ({allocated}) GROUP BY ALL HAVING count(DISTINCT ({dims})) <> 1
        """,
        "charge period and resource are the bill's": f"""
            SELECT a.x_ChargeId, a.ChargePeriodStart, c.charge_period_start, a.ResourceId, c.resource_id
            FROM ({allocated}) a JOIN ledger.charges c ON c.charge_id = CAST(a.x_ChargeId AS BIGINT)
            WHERE CAST(a.ChargePeriodStart AS TIMESTAMPTZ) IS DISTINCT FROM timezone('UTC', c.charge_period_start)
               OR CAST(a.ChargePeriodEnd AS TIMESTAMPTZ) IS DISTINCT FROM timezone('UTC', c.charge_period_end)
               OR a.ResourceId IS DISTINCT FROM c.resource_id
        """,
        "ratios sum to 1 per origin": f"""
            SELECT {ORIGIN}, sum(ratio) AS total, min(ratio), max(ratio)
            FROM ({allocated}) GROUP BY ALL
            HAVING sum(ratio) <> 1 OR min(ratio) < 0 OR max(ratio) > 1 OR count(ratio) <> count(*)
        """,
        "one element per allocated charge": f"""
            SELECT x_ChargeId, AllocatedMethodDetails FROM ({allocated})
            WHERE json_array_length(AllocatedMethodDetails, '$.Elements') <> 1
        """,
        "an origin has at least two allocated charges": f"""
            SELECT {ORIGIN}, count(*) FROM ({allocated}) GROUP BY ALL HAVING count(*) < 2
        """,
        "a charge that is not split is one row": f"""
            SELECT {ORIGIN}, count(*) FROM export WHERE AllocatedMethodId IS NULL GROUP BY ALL HAVING count(*) > 1
        """,
        "no origin is both split and whole": """
            SELECT x_ChargeId FROM export GROUP BY x_ChargeId, CommitmentDiscountStatus IS NOT DISTINCT FROM 'Unused'
            HAVING count(AllocatedMethodId) > 0 AND count(AllocatedMethodId) < count(*)
        """,
        "allocation columns are null off a split": """
            SELECT x_ChargeId FROM export WHERE AllocatedMethodId IS NULL
              AND (AllocatedMethodDetails IS NOT NULL OR AllocatedResourceId IS NOT NULL
                   OR AllocatedResourceName IS NOT NULL OR AllocatedTags IS NOT NULL)
        """,
        "details are given on a split": f"SELECT x_ChargeId FROM ({allocated}) WHERE AllocatedMethodDetails IS NULL",
        "resource name is null exactly when the id is": """
            SELECT x_ChargeId FROM export WHERE (AllocatedResourceId IS NULL) <> (AllocatedResourceName IS NULL)
        """,
        "the unallocated portion names no resource": f"""
            SELECT x_ChargeId, AllocatedMethodId, AllocatedResourceId FROM ({allocated})
            WHERE AllocatedMethodId IN ('trainledger-idle', 'trainledger-unattributed') AND AllocatedResourceId IS NOT NULL
        """,
        "allocated tags repeat no key of Tags": f"""
            SELECT x_ChargeId, Tags, AllocatedTags FROM ({allocated})
            WHERE AllocatedTags IS NOT NULL AND (json_type(CAST(AllocatedTags AS JSON)) <> 'OBJECT'
               OR len(list_intersect(json_keys(AllocatedTags), json_keys(coalesce(Tags, '{{}}')))) > 0)
        """,
        "provider names are never null": """
            SELECT x_ChargeId FROM export WHERE ServiceProviderName IS NULL OR HostProviderName IS NULL
        """,
    }
    try:
        return {name: con.execute(sql).fetchall() for name, sql in checks.items()}
    finally:
        con.close()


def method_details(path: Path) -> list[str]:
    """Every AllocatedMethodDetails value of the file, as written."""
    con = duckdb.connect()
    reader = "read_parquet" if path.suffix == ".parquet" else "read_csv"
    options = "" if path.suffix == ".parquet" else ", all_varchar = true"
    try:
        rows = con.execute(
            f"SELECT AllocatedMethodDetails FROM {reader}('{path}'{options}) WHERE AllocatedMethodDetails IS NOT NULL"
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]
