"""`make bench`: trainledger's ingest + attribute + export on a generated CUR 2.0 month, against two
DuckDB-only baselines on the same files, measured in the same run.

Baseline (a), the floor of any persistent pipeline: DuckDB copying the columns trainledger reads into a
table. Baseline (b), the analysis floor: DuckDB computing amortised cost by one tag and day. Each step
runs in its own process so its peak RSS (from wait4) is its own.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

READ_COLUMNS = (
    "identity_line_item_id, identity_time_interval, bill_billing_period_start_date, bill_billing_period_end_date, "
    "bill_payer_account_id, line_item_usage_account_id, line_item_line_item_type, line_item_unblended_cost, "
    "line_item_currency_code, line_item_usage_start_date, line_item_usage_end_date, line_item_product_code, "
    "line_item_usage_type, line_item_resource_id, line_item_usage_amount, pricing_public_on_demand_cost, "
    "pricing_unit, product, product_servicecode, product_region_code, product_sku, product_product_family, "
    "resource_tags, reservation_effective_cost, savings_plan_savings_plan_a_r_n, "
    "savings_plan_savings_plan_effective_cost, savings_plan_total_commitment_to_date, savings_plan_used_commitment"
)

BASELINE_COPY = f"""
import duckdb, sys
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE t AS SELECT {READ_COLUMNS} FROM read_parquet(?)", [sys.argv[2:]])
"""

BASELINE_ANALYSIS = """
import duckdb, sys
con = duckdb.connect()
con.execute('''
SELECT resource_tags['user_project'] AS project, date_trunc('day', line_item_usage_start_date) AS day,
       sum(CASE line_item_line_item_type
             WHEN 'SavingsPlanCoveredUsage' THEN savings_plan_savings_plan_effective_cost
             WHEN 'SavingsPlanNegation' THEN 0
             ELSE line_item_unblended_cost END) AS amortised
FROM read_parquet(?) GROUP BY ALL
''', [sys.argv[1:]]).fetchall()
"""


@dataclass
class Step:
    name: str
    seconds: float
    peak_rss_mb: float


def measure(name: str, argv: list[str], cwd: Path) -> Step:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 2):
        raise SystemExit(f"{name} failed with exit code {code}:\n{stderr}")
    return Step(name, seconds, usage.ru_maxrss / 1024)


def config_text() -> str:
    return """
[[sources]]
name = "cur"
kind = "aws-cur2"
uri = "cur/bench-cur2"

[experiments]
uri = "experiments.jsonl"

[exports]
dir = "exports"
"""


def bench(rows: int, data: Path) -> list[Step]:
    folder = data / str(rows)
    if not (folder / "experiments.jsonl").exists():
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(
            [sys.executable, str(ROOT / "fixtures" / "scale.py"), "--out", str(folder), "--rows", str(rows)],
            check=True,
        )
    files = sorted(str(p) for p in (folder / "cur").rglob("*.parquet"))
    run = folder / "run"
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir()
    for name in ("cur", "experiments.jsonl"):
        (run / name).symlink_to(folder / name)
    (run / "trainledger.toml").write_text(config_text(), encoding="utf-8")
    tl = str(BIN / "trainledger")
    steps = [
        measure(
            "baseline (a): DuckDB copy",
            [sys.executable, "-c", BASELINE_COPY, str(run / "copy.duckdb"), *files],
            run,
        ),
        measure(
            "baseline (b): DuckDB amortised by tag x day",
            [sys.executable, "-c", BASELINE_ANALYSIS, *files],
            run,
        ),
        measure("trainledger ingest", [tl, "ingest"], run),
        measure("trainledger attribute", [tl, "attribute"], run),
        measure("trainledger export", [tl, "export", "--period", "2026-11", "--out", "export.csv"], run),
        measure("trainledger nightly, unchanged month", [tl, "nightly"], run),
    ]
    (run / "copy.duckdb").unlink(missing_ok=True)
    return steps


def report(rows: int, steps: list[Step]) -> str:
    by = {s.name: s for s in steps}
    copy = by["baseline (a): DuckDB copy"]
    analysis = by["baseline (b): DuckDB amortised by tag x day"]
    pipeline = [
        s for s in steps if s.name in ("trainledger ingest", "trainledger attribute", "trainledger export")
    ]
    total = sum(s.seconds for s in pipeline)
    peak = max(s.peak_rss_mb for s in pipeline)
    rerun = by["trainledger nightly, unchanged month"]
    lines = [f"rows: {rows:,}", f"{'step':45} {'seconds':>9} {'rows/s':>12} {'peak RSS MiB':>13}"]
    for s in steps:
        lines.append(f"{s.name:45} {s.seconds:9.2f} {rows / s.seconds:12,.0f} {s.peak_rss_mb:13.0f}")
    lines += [
        f"{'end-to-end (ingest + attribute + export)':45} {total:9.2f} {rows / total:12,.0f} {peak:13.0f}",
        f"ratio to baseline (a) copy:      {total / copy.seconds:5.2f}x   (target <= 3x)",
        f"ratio to baseline (b) analysis:  {total / analysis.seconds:5.2f}x",
        f"unchanged re-run / full run:     {rerun.seconds / total:6.1%}  (target <= 5%)",
        f"peak RSS: {peak:.0f} MiB (target <= 2048 MiB)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1000000", help="Comma-separated sizes, e.g. 1000000,10000000")
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data")
    args = parser.parse_args(argv)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.platform()}"
    )
    for rows in (int(r) for r in args.rows.split(",")):
        print(report(rows, bench(rows, args.data)), flush=True)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
