"""What writing a month of allocations costs, column group by column group (BENCHMARKS.md, issue 18).

Runs attribution's placing pass (`attribute/place`) over a copy of a warehouse that `make bench` filled,
then writes its rows in several shapes, each into a scratch table in its own committed transaction, and
prints the wall and CPU seconds (user + sys of this process, DuckDB's threads included) of each. The
differences say what a column group costs to compute and to write, which is what decides whether a
layout is worth it. Usage, after `make bench ROWS=10000000`:

    .venv/bin/python bench/allocation_writes.py bench-data/10000000/run --repeat 2
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

import duckdb

from trainledger.core import queries

PLACED = "FROM placed_charges($periods)"
KIND = (
    "charge_kind_id(source, provider, billing_period, billing_account_id, sub_account_id, service_name, "
    "charge_category, pricing_category, billing_currency)"
)
TUPLE = "a_project, a_phase, a_method, a_experiment_id, cost_category, a_rule, a_reason"
SHARE = "CASE WHEN placement = 'split' THEN 0 ELSE 1 END AS share_no"
MONEY = "billed_cost, effective_cost, list_cost"
TIMES = "charge_period_start, charge_period_end"

# name -> statements; the scratch tables are dropped after each.
SHAPES = {
    "placing pass alone (count, sum)": [
        f"CREATE TABLE scratch AS SELECT count(*), sum(billed_cost) {PLACED}"
    ],
    "placing pass + the tuple computed": [
        "CREATE TABLE scratch AS SELECT sum(length(a_project) + length(a_phase) + length(a_method) + "
        f"length(a_experiment_id) + length(cost_category) + length(a_rule) + length(a_reason)) {PLACED}"
    ],
    "placing pass + the tuple hashed": [f"CREATE TABLE scratch AS SELECT sum(hash({TUPLE})) {PLACED}"],
    "placing pass + the charge kind hashed": [f"CREATE TABLE scratch AS SELECT sum({KIND}) {PLACED}"],
    "today: 16 columns, the tuple as 7 text": [
        f"CREATE TABLE scratch AS SELECT charge_id, {SHARE}, {KIND} AS kind_id, {TIMES}, {TUPLE}, {MONEY} {PLACED}"
    ],
    "without the tuple: 8 columns": [
        f"CREATE TABLE scratch AS SELECT charge_id, {SHARE}, {KIND} AS kind_id, {TIMES}, {MONEY} {PLACED}"
    ],
    "the tuple as a 64-bit hash: 9 columns": [
        f"CREATE TABLE scratch AS SELECT charge_id, {SHARE}, {KIND} AS kind_id, hash({TUPLE}) AS tuple_id, "
        f"{TIMES}, {MONEY} {PLACED}"
    ],
    "second pass: the distinct tuples by hash": [
        f"CREATE TABLE scratch AS SELECT hash({TUPLE}) AS tuple_id, any_value(a_project), any_value(a_phase), "
        "any_value(a_method), any_value(a_experiment_id), any_value(cost_category), any_value(a_rule), "
        f"any_value(a_reason) {PLACED} GROUP BY tuple_id"
    ],
    "ids only: charge, share, tuple hash": [
        f"CREATE TABLE scratch AS SELECT charge_id, {SHARE}, hash({TUPLE}) AS tuple_id {PLACED}"
    ],
    "ids only, then one charge per tuple placed again": [
        f"CREATE TABLE scratch AS SELECT charge_id, {SHARE}, hash({TUPLE}) AS tuple_id {PLACED}",
        "CREATE TABLE scratch_one AS SELECT tuple_id, min(charge_id) AS charge_id FROM scratch GROUP BY tuple_id",
        f"CREATE TABLE scratch_tuples AS SELECT DISTINCT hash({TUPLE}) AS tuple_id, {TUPLE} {PLACED} "
        "WHERE charge_id IN (SELECT charge_id FROM scratch_one)",
    ],
}


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def prepare(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """The temporary tables and macros `attribute/place` reads, as attribution builds them (label sets
    and categories as the warehouse's last attribution left them)."""
    con.execute("SET TimeZone = 'UTC'")
    periods = {"periods": [r[0] for r in con.execute(queries.load("attribute/periods")).fetchall()]}
    for name in ("resolve", "log_windows", "timelines", "classes", "segments", "place"):
        sql = queries.load(f"attribute/{name}")
        con.execute(sql, periods if "$periods" in sql else {})
    return periods


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("run", type=Path, help="a `make bench` run folder (bench-data/<rows>/run)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", help="comma-separated shape names (default: all)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "ledger.duckdb"
        shutil.copy(args.run / ".trainledger" / "ledger.duckdb", copy)
        con = duckdb.connect(str(copy))
        periods = prepare(con)
        shapes = {k: v for k, v in SHAPES.items() if not args.only or k in args.only.split(",")}
        for _ in range(args.repeat):
            for name, statements in shapes.items():
                con.begin()
                cpu, wall = cpu_seconds(), time.perf_counter()
                for sql in statements:
                    con.execute(sql, periods if "$periods" in sql else {})
                con.commit()
                print(f"{name:50} {time.perf_counter() - wall:7.2f} s wall {cpu_seconds() - cpu:7.2f} s CPU")
                for table in ("scratch", "scratch_one", "scratch_tuples"):
                    con.execute(f"DROP TABLE IF EXISTS {table}")
                con.execute("CHECKPOINT")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
