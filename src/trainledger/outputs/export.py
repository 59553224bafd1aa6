"""Finance exports: CSV (SPEC §7 columns) that add up to the invoice, byte-identical run to run."""

from __future__ import annotations

from pathlib import Path

from trainledger.core.config import Config
from trainledger.core.errors import TrainledgerError
from trainledger.core.files import write_atomic
from trainledger.core.reporter import Reporter
from trainledger.outputs import cents as cents_module
from trainledger.outputs import export_focus
from trainledger.outputs.document import Sheet, csv_text
from trainledger.reports import realize
from trainledger.reports.dimensions import DIMENSIONS
from trainledger.warehouse import step_state
from trainledger.warehouse.connection import Connection, run

CSV_COLUMNS = (
    "billing_period",
    "provider",
    "billing_account_id",
    "sub_account_id",
    "project",
    "phase",
    "method",
    "experiment_id",
    "cost_category",
    "service_name",
    "rule",
    "currency",
    "billed_cost",
    "effective_cost",
    "list_cost",
)
MONEY_COLUMNS = {"billed_cost", "effective_cost", "list_cost"}
# Nightly file name per `[exports] format`: trainledger-<period><suffix>.
FILE_SUFFIX = {"csv": ".csv", "xlsx": ".xlsx", "focus": "-focus.csv"}
# Dimensions `--by` may keep; billing_period and currency are always kept (periods and currencies never mix).
BY_NAMES = {name: column for name, column in DIMENSIONS.items() if column in CSV_COLUMNS}


def parse_by(text: str | None) -> list[str]:
    if not text:
        return [c for c in CSV_COLUMNS if c not in MONEY_COLUMNS]
    kept = {"billing_period", "currency"}
    for name in (n.strip().lower() for n in text.split(",") if n.strip()):
        if name not in BY_NAMES:
            raise TrainledgerError(
                f"unknown dimension {name!r} for --by (known: {', '.join(sorted(BY_NAMES))})"
            )
        kept.add(BY_NAMES[name])
    return [c for c in CSV_COLUMNS if c in kept]


def export_rows(con: Connection, period: str, by: list[str]) -> list[tuple[object, ...]]:
    sql = realize.export_query([c for c in CSV_COLUMNS if c not in MONEY_COLUMNS], set(by))
    return con.execute(sql, {"period": period}).fetchall()


def render_csv(rows: list[tuple[object, ...]]) -> str:
    """The finance CSV: money as plain decimals, text formula-safe (the read commands' one CSV writer)."""
    return csv_text(Sheet(CSV_COLUMNS, rows, frozenset(MONEY_COLUMNS)))


def period_rows(
    con: Connection, period: str, by: str | None = None, cents: bool = False
) -> list[tuple[object, ...]]:
    """The export's rows; with ``cents`` rounded at full detail (outputs/cents.py), then summed to ``by``."""
    known = run(con, "export/period_allocations", {"period": period}).fetchone()
    if not known or not known[0]:
        raise TrainledgerError(f"no allocations for billing period {period}; run `trainledger nightly` first")
    kept = parse_by(by)
    if not cents:
        return export_rows(con, period, kept)
    rounded = cents_module.round_rows(export_rows(con, period, parse_by(None)), CSV_COLUMNS, MONEY_COLUMNS)
    return rounded if by is None else cents_module.collapse(rounded, CSV_COLUMNS, MONEY_COLUMNS, set(kept))


def export_csv(con: Connection, period: str, by: str | None = None, cents: bool = False) -> str:
    return render_csv(period_rows(con, period, by, cents))


def export_xlsx(con: Connection, period: str, by: str | None = None, cents: bool = False) -> bytes:
    from trainledger.outputs import xlsx  # xlsxwriter: only for a workbook

    return xlsx.render(period_rows(con, period, by, cents), CSV_COLUMNS, MONEY_COLUMNS, period, cents)


def _focus_inputs(config: Config, kind: str) -> list[str]:
    """What else a FOCUS 1.3 file depends on: its version and the label keys of its AllocatedTags."""
    if kind != "focus" or config.exports.focus_version == "1.2":
        return []
    labels = config.labels
    return [config.exports.focus_version, labels.project[0], labels.phase[0], labels.method[0]]


def write_period_exports(
    con: Connection, config: Config, reporter: Reporter, allocations: str | None = None
) -> list[tuple[Path, bool]]:
    """Files per billing period into ``[exports] dir`` (nightly), one per ``[exports] format``: the finance
    CSV, the finance workbook (xlsx) and FOCUS CSV (of ``[exports] focus_version``). Returns each file and whether it was left as it was.

    ``allocations`` is the fingerprint of the allocations' inputs: a file written from the same
    allocations in the same format, and still as written (same sha256), is left alone. Temporary files
    that a killed run left behind are removed first: the caller holds the warehouse's write lock, so no
    other nightly run is writing them.
    """
    assert config.exports.dir
    folder = Path(config.resolve(config.exports.dir))
    for stale in folder.glob(".trainledger-*.tmp"):
        stale.unlink(missing_ok=True)
    written = []
    for (period,) in run(con, "report/periods").fetchall():
        for kind in config.exports.formats:
            path = folder / f"trainledger-{period}{FILE_SUFFIX[kind]}"
            step = f"export:{path.name}"
            fingerprint = step_state.digest(allocations, kind, period, *_focus_inputs(config, kind))
            state = step_state.unchanged(con, step, fingerprint) if allocations else None
            kept = state is not None and state.detail.get("sha256") == step_state.file_digest(path)
            if kept:
                reporter.detail(f"{path} unchanged")
            else:
                if kind == "focus":
                    export_focus.write(con, period, path, config.exports.focus_version, config.labels)
                elif kind == "xlsx":
                    write_atomic(path, export_xlsx(con, period))
                else:
                    write_atomic(path, export_csv(con, period))
                if allocations:
                    step_state.record(con, step, fingerprint, {"sha256": step_state.file_digest(path)})
                reporter.step(f"wrote {path}")
            written.append((path, kept))
    return written
