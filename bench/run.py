"""`make bench`: trainledger's ingest + attribute + export on a generated CUR 2.0 month, against two
DuckDB-only baselines on the same files, measured in the same run.

``--sources cur2,gcp,focus`` also times a GCP detailed-export month and a FOCUS month of the same size
(``fixtures/scale_sources.py``: the same lanes, tags and experiment log), each against its own baseline
(a), DuckDB copying the columns that source's connector reads; for them only the pipeline runs.

Baseline (a), the floor of any persistent pipeline: DuckDB copying the columns trainledger reads into a
table. Baseline (b), the analysis floor: DuckDB computing amortised cost by one tag and day. Each step
runs in its own process so its peak RSS (from wait4) is its own. Then `nightly` runs twice: the first
writes the exports (its attribution is unchanged since `attribute`), the second finds nothing changed,
which is what a night without new data costs. Then `site` writes the static dashboard (a post-mortem
for every experiment), and `reconcile` of the log's first experiment prints its JSON. ``--proportional`` then attributes the same warehouse again with
``[allocation] shared = "proportional"`` and compares it with the separate mode's `attribute`.
``--profile`` then times every SQL statement of ingest, attribute and export in-process, slowest first.
Each step's CPU time (user + sys, from wait4) is shown beside its wall time: on a shared machine it
varies less.

``--engine spark`` runs the trainledger steps with ``[warehouse] engine = "spark"`` once per ``--masters``
entry (``local[1]``, ``local[2]``: how time changes with the cores Spark may use); the baselines stay DuckDB.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

# Every column ingest/normalize_cur2.sql and ingest/validate_cur2.sql read.
READ_COLUMNS = (
    "identity_line_item_id, identity_time_interval, bill_billing_period_start_date, bill_billing_period_end_date, "
    "bill_payer_account_id, line_item_usage_account_id, line_item_line_item_type, line_item_unblended_cost, "
    "line_item_currency_code, line_item_usage_start_date, line_item_usage_end_date, line_item_product_code, "
    "line_item_usage_type, line_item_resource_id, line_item_usage_amount, pricing_public_on_demand_cost, "
    "pricing_unit, product, product_servicecode, product_region_code, product_sku, product_product_family, "
    "resource_tags, reservation_effective_cost, reservation_reservation_a_r_n, "
    "reservation_unused_amortized_upfront_fee_for_billing_period, reservation_unused_recurring_fee, "
    "savings_plan_savings_plan_a_r_n, savings_plan_savings_plan_effective_cost, "
    "savings_plan_total_commitment_to_date, savings_plan_used_commitment"
)

# The columns the gcp-billing connector reads (connectors/gcp_billing.py FIELDS and LISTS, by top level).
GCP_READ_COLUMNS = (
    "billing_account_id, service, sku, usage_start_time, usage_end_time, export_time, project, location, "
    "resource, cost, cost_at_list, currency, currency_conversion_rate, usage, price, invoice, cost_type, "
    "adjustment_info, transaction_type, seller_name, labels, system_labels, credits"
)
# The columns the focus connector reads (ingest/normalize_focus.sql, validate_focus.sql) that the month has.
FOCUS_READ_COLUMNS = (
    "BilledCost, BillingCurrency, BillingPeriodStart, BillingPeriodEnd, ChargeCategory, EffectiveCost, "
    "ListCost, ChargeClass, ChargePeriodStart, ChargePeriodEnd, BillingAccountId, SubAccountId, ServiceName, "
    "ServiceCategory, ResourceId, ResourceName, ResourceType, RegionId, SkuId, ConsumedQuantity, ConsumedUnit, "
    "ProviderName, Tags, CommitmentDiscountId, PricingCategory, ChargeDescription"
)

BASELINE_COPY = """
import duckdb, sys
con = duckdb.connect(sys.argv[1])
con.execute(f"CREATE TABLE t AS SELECT {sys.argv[2]} FROM read_parquet(?)", [sys.argv[3:]])
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

COPY = "baseline (a): DuckDB copy"
ANALYSIS = "baseline (b): DuckDB amortised by tag x day"
PIPELINE = ("trainledger ingest", "trainledger attribute", "trainledger export")
FIRST_NIGHT = "trainledger nightly (writes the exports)"
RERUN = "trainledger nightly, unchanged month"
SITE = "trainledger site (every post-mortem)"
RECONCILE = "trainledger reconcile (one experiment, JSON)"
PROPORTIONAL = 'trainledger attribute, shared = "proportional"'


@dataclass(frozen=True)
class Source:
    """A generated month of one bill format: where it lives, how trainledger reads it, what (a) copies."""

    name: str
    kind: str
    uri: str
    read_columns: str

    def folder(self, data: Path, rows: int) -> Path:
        return data / (str(rows) if self.name == "cur2" else f"{self.name}-{rows}")

    def generator(self, out: Path, rows: int) -> list[str]:
        if self.name == "cur2":
            return [str(ROOT / "fixtures" / "scale.py"), "--out", str(out), "--rows", str(rows)]
        script = str(ROOT / "fixtures" / "scale_sources.py")
        return [script, "--out", str(out), "--source", self.name, "--rows", str(rows)]


SOURCES = {
    "cur2": Source("cur2", "aws-cur2", "cur/bench-cur2", READ_COLUMNS),
    "gcp": Source("gcp", "gcp-billing", "gcp/billing", GCP_READ_COLUMNS),
    "focus": Source("focus", "focus", "focus", FOCUS_READ_COLUMNS),
}
CUR2 = SOURCES["cur2"]


@dataclass
class Step:
    name: str
    seconds: float
    peak_rss_mb: float
    cpu_seconds: float  # user + system: on a shared machine it varies less than the wall time


def measure(name: str, argv: list[str], cwd: Path) -> Step:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 2):
        raise SystemExit(f"{name} failed with exit code {code}:\n{stderr}")
    return Step(name, seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime)


CONFIG = """
[[sources]]
name = "{name}"
kind = "{kind}"
uri = "{uri}"

[experiments]
uri = "experiments.jsonl"

[exports]
dir = "exports"
"""


def spark_config(master: str) -> str:
    """The run folder's config for Spark: the master, and as many shuffle partitions as cores."""
    cores = master.removeprefix("local[").removesuffix("]")
    partitions = cores if cores.isdigit() else str(os.cpu_count() or 2)
    return (
        f'[warehouse]\nengine = "spark"\nmaster = "{master}"\n'
        f'spark_conf = {{ "spark.sql.shuffle.partitions" = "{partitions}", "spark.ui.enabled" = "false", '
        '"spark.driver.memory" = "2g" }\n'
    )


# The run folders of earlier runs, set aside instead of deleted before a run: on ext4 without a journal
# (this machine's disk), for a few minutes after thousands of files are deleted every new file's inode is
# found past the freed ones (the kernel's recently_deleted check), so writing the site's 21K files just
# after deleting the last run's cost seconds of system time. They are deleted when the bench ends.
OLD_RUNS = ".run-old-"


def remove_old_runs(data: Path) -> None:
    for old in data.glob(f"*/{OLD_RUNS}*"):
        shutil.rmtree(old, ignore_errors=True)


def prepare(
    rows: int, data: Path, master: str | None = None, source: Source = CUR2
) -> tuple[Path, list[str], str]:
    """The generated month (made once per size and kept), a fresh run folder pointing at it, and its
    config."""
    folder = source.folder(data, rows)
    if not (folder / "experiments.jsonl").exists():
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, *source.generator(folder, rows)], check=True)
    top = source.uri.split("/")[0]
    files = sorted(str(p) for p in (folder / top).rglob("*.parquet"))
    run = folder / "run"
    if run.exists():  # deleted when the bench ends (OLD_RUNS)
        run.rename(folder / f"{OLD_RUNS}{time.time_ns()}")
    run.mkdir()
    for name in (top, "experiments.jsonl"):
        (run / name).symlink_to(folder / name)
    config = CONFIG.format(name=source.name, kind=source.kind, uri=source.uri)
    (run / "trainledger.toml").write_text((spark_config(master) if master else "") + config, encoding="utf-8")
    return run, files, config


def bench(
    rows: int, data: Path, proportional: bool = False, master: str | None = None, source: Source = CUR2
) -> list[Step]:
    run, files, config_text = prepare(rows, data, master, source)
    tl = str(BIN / "trainledger")
    copy = [sys.executable, "-c", BASELINE_COPY, str(run / "copy.duckdb"), source.read_columns, *files]
    steps = [measure(COPY, copy, run)]
    if source is CUR2:
        steps.append(measure(ANALYSIS, [sys.executable, "-c", BASELINE_ANALYSIS, *files], run))
    steps += [
        measure("trainledger ingest", [tl, "ingest"], run),
        measure("trainledger attribute", [tl, "attribute"], run),
        measure("trainledger export", [tl, "export", "--period", "2026-11", "--out", "export.csv"], run),
    ]
    if source is CUR2:
        steps += [
            measure(FIRST_NIGHT, [tl, "nightly"], run),
            measure(RERUN, [tl, "nightly"], run),
            measure(SITE, [tl, "site", "--out", "site"], run),
            measure(RECONCILE, [tl, "reconcile", first_experiment(run), "--format", "json"], run),
        ]
    if proportional and source is CUR2:
        config = run / "proportional.toml"
        config.write_text(config_text + '\n[allocation]\nshared = "proportional"\n', encoding="utf-8")
        steps.append(measure(PROPORTIONAL, [tl, "--config", str(config), "attribute"], run))
    (run / "copy.duckdb").unlink(missing_ok=True)
    return steps


def first_experiment(run: Path) -> str:
    """The first experiment of the month's log: the one `reconcile` is timed on."""
    with (run / "experiments.jsonl").open(encoding="utf-8") as log:
        return str(json.loads(log.readline())["experiment_id"])


def median(runs: list[list[Step]]) -> list[Step]:
    """Per step, the median time of the runs (and the largest peak RSS): one slow run on a shared machine
    says little."""
    return [
        Step(
            name,
            statistics.median(s.seconds for s in same),
            max(s.peak_rss_mb for s in same),
            statistics.median(s.cpu_seconds for s in same),
        )
        for name, *same in zip((s.name for s in runs[0]), *runs, strict=True)
    ]


def report(rows: int, steps: list[Step], source: Source = CUR2) -> str:
    by = {s.name: s for s in steps}
    pipeline = [by[name] for name in PIPELINE]
    total = sum(s.seconds for s in pipeline)
    peak = max(s.peak_rss_mb for s in pipeline)
    cpu = sum(s.cpu_seconds for s in pipeline)
    lines = [
        f"rows: {rows:,} ({source.name}: {source.kind})",
        f"{'step':47} {'seconds':>9} {'rows/s':>12} {'peak RSS MiB':>13} {'CPU s':>7}",
    ]
    for s in steps:
        lines.append(
            f"{s.name:47} {s.seconds:9.2f} {rows / s.seconds:12,.0f} {s.peak_rss_mb:13.0f} {s.cpu_seconds:7.2f}"
        )
    lines += [
        f"{'end-to-end (ingest + attribute + export)':47} {total:9.2f} {rows / total:12,.0f} {peak:13.0f} {cpu:7.2f}",
        f"ratio to baseline (a) copy:      {total / by[COPY].seconds:5.2f}x, CPU "
        f"{cpu / by[COPY].cpu_seconds:5.2f}x   (target: <= 2x at 1M rows, <= 1.5x at 10M)",
        f"peak RSS: {peak:.0f} MiB (target <= 1024 MiB at 10M rows)",
    ]
    if ANALYSIS in by:
        lines.append(f"ratio to baseline (b) analysis:  {total / by[ANALYSIS].seconds:5.2f}x")
    if RERUN in by:
        lines += [
            f"unchanged re-run / full run:     {by[RERUN].seconds / total:6.1%}, CPU "
            f"{by[RERUN].cpu_seconds / cpu:6.1%}  (target <= 2%)",
            f"static site: {by[SITE].seconds:.2f} s ({by[SITE].cpu_seconds:.2f} s CPU)",
            f"reconcile of one experiment: {by[RECONCILE].seconds:.2f} s ({by[RECONCILE].cpu_seconds:.2f} s CPU)",
        ]
    if PROPORTIONAL in by:
        separate = by["trainledger attribute"]
        ratio = by[PROPORTIONAL].seconds / separate.seconds
        cpu_ratio = by[PROPORTIONAL].cpu_seconds / separate.cpu_seconds
        lines.append(
            f"proportional / separate attribute: {ratio:5.2f}x, CPU {cpu_ratio:5.2f}x  (target <= 1.3x)"
        )
    return "\n".join(lines)


def growth(results: dict[int, list[Step]]) -> str:
    """How each step's time grows between the smallest and the largest size (linear: the same factor)."""
    small, large = min(results), max(results)
    times = {n: {s.name: s.seconds for s in steps} for n, steps in results.items()}
    parts = []
    for name in (*PIPELINE, COPY):
        parts.append(f"{name.removeprefix('trainledger ')} {times[large][name] / times[small][name]:.1f}x")
    e2e = [sum(times[n][name] for name in PIPELINE) for n in (small, large)]
    parts.append(f"end-to-end {e2e[1] / e2e[0]:.1f}x")
    return f"growth {small:,} -> {large:,} rows ({large / small:.0f}x): " + ", ".join(parts)


class _Timed:
    """A DuckDB connection that records how long each statement takes (for --profile)."""

    def __init__(self, con: Any, timings: list[tuple[float, str]]) -> None:
        self._con, self._timings = con, timings

    def _time(self, method: str, sql: str, *args: Any, **kwargs: Any) -> Any:
        # connection.run names the query file to a connection that is not DuckDB's own (as this one)
        shown = kwargs.pop("name", None) or " ".join(str(sql).split())[:110]
        start = time.perf_counter()
        result = getattr(self._con, method)(sql, *args, **kwargs)
        self._timings.append((time.perf_counter() - start, shown))
        return self if result is self._con else result

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        return self._time("execute", sql, *args, **kwargs)

    def executemany(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        return self._time("executemany", sql, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def profile(rows: int, data: Path, top: int = 8, source: Source = CUR2) -> str:
    """Each step again, in this process, every SQL statement timed; the slowest per step."""
    from trainledger.core import config as config_module
    from trainledger.core.reporter import Silent
    from trainledger.outputs import export
    from trainledger.pipeline import jobs
    from trainledger.warehouse import connection

    run, _, _ = prepare(rows, data, source=source)
    os.chdir(run)
    config = config_module.load(None, None)
    timings: list[tuple[float, str]] = []
    opened = jobs.open_warehouse

    @contextmanager
    def timed(*args: Any, **kwargs: Any) -> Iterator[Any]:
        with opened(*args, **kwargs) as con:
            yield _Timed(con, timings)

    lines = [f"profile, {rows:,} rows of {source.name} (seconds per SQL statement, slowest first)"]
    steps = {
        "ingest": lambda: jobs.ingest(config, Silent()),
        "attribute": lambda: jobs.attribute(config, Silent()),
        "export": lambda: _export(config, timings, connection, export),
    }
    jobs.open_warehouse = timed  # type: ignore[assignment]
    try:
        for name, step in steps.items():
            timings.clear()
            start = time.perf_counter()
            step()
            lines.append(
                f"{name}: {time.perf_counter() - start:.2f} s, of which SQL {sum(t for t, _ in timings):.2f} s"
            )
            lines += [f"  {t:7.2f}  {sql}" for t, sql in sorted(timings, reverse=True)[:top]]
    finally:
        jobs.open_warehouse = opened  # type: ignore[assignment]
    return "\n".join(lines)


def _export(config: Any, timings: list[tuple[float, str]], connection: Any, export: Any) -> None:
    with connection.open_warehouse(config, write=False) as con:
        export.export_csv(_Timed(con, timings), "2026-11")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", default="1000000", help="Comma-separated sizes, e.g. 1000000,10000000")
    parser.add_argument("--data", type=lambda p: Path(p).resolve(), default=ROOT / "bench-data")
    parser.add_argument("--repeat", type=int, default=1, help="Runs per size; the median time is shown.")
    parser.add_argument("--profile", action="store_true", help="Then time each SQL statement of each step.")
    parser.add_argument(
        "--proportional", action="store_true", help='Also attribute with shared = "proportional" and compare.'
    )
    parser.add_argument(
        "--sources", default="cur2", help=f"Comma-separated bill formats of the month: {', '.join(SOURCES)}."
    )
    parser.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb")
    parser.add_argument("--masters", default="local[1],local[2]", help="With --engine spark: Spark masters.")
    args = parser.parse_args(argv)
    try:
        return _run(args, parser)
    finally:
        remove_old_runs(args.data)


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    unknown = [name for name in args.sources.split(",") if name not in SOURCES]
    if unknown:
        parser.error(f"unknown source {unknown[0]!r} (known: {', '.join(SOURCES)})")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, "
        f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB RAM, "
        f"Python {platform.python_version()}, DuckDB {_duckdb_version()}, {platform.platform()}"
    )
    if args.engine == "spark":
        for rows in (int(r) for r in args.rows.split(",")):
            for master in args.masters.split(","):
                print(f"engine: spark, master {master}")
                print(
                    report(rows, median([bench(rows, args.data, master=master) for _ in range(args.repeat)])),
                    flush=True,
                )
                print()
        return 0
    results: dict[int, list[Step]] = {}
    runs = f"\n(median of {args.repeat} runs)" if args.repeat > 1 else ""
    for rows in (int(r) for r in args.rows.split(",")):
        for source in (SOURCES[name] for name in args.sources.split(",")):
            found = median(
                [bench(rows, args.data, args.proportional, source=source) for _ in range(args.repeat)]
            )
            if source is CUR2:
                results[rows] = found
            print(report(rows, found, source) + runs, flush=True)
            print()
    if len(results) > 1:
        print(growth(results))
    if args.profile:
        for rows in (int(r) for r in args.rows.split(",")):
            for name in args.sources.split(","):
                print(profile(rows, args.data, source=SOURCES[name]), flush=True)
    return 0


def _duckdb_version() -> str:
    import duckdb

    return duckdb.__version__


if __name__ == "__main__":
    raise SystemExit(main())
