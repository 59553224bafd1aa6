"""The hostile-input corpus: every broken or malicious input either gets one line naming the file,
row/column and what was expected (exit 1, warehouse unchanged, the run recorded as failed) or a safe
handling documented in README.md, section "Bad input".

Small text inputs live in tests/hostile/; CUR 2.0 cases edit the generated csv.gz month at test time.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from conftest import demo_config, warehouse_fingerprint
from trainledger.cli import cli

HOSTILE = Path(__file__).parent / "hostile"
CUR_DATA = "aws/cur/ml-cur2/data/BILLING_PERIOD=2026-11/ml-cur2-00001.csv.gz"


@dataclass
class Inputs:
    """A project with last night's warehouse, whose inputs a case may break."""

    root: Path
    extra_config: str = ""
    saved: list[tuple[object, ...]] = field(default_factory=list)  # what a case keeps for its check

    @property
    def cur(self) -> Path:
        return self.root / "inputs" / CUR_DATA

    @property
    def log(self) -> Path:
        return self.root / "inputs" / "experiments.jsonl"

    @property
    def warehouse(self) -> Path:
        return self.root / ".trainledger" / "ledger.duckdb"

    def focus(self, name: str, text: str | None = None) -> Path:
        """Add a FOCUS source reading tests/hostile/focus/<name> (or ``text``)."""
        path = self.root / name
        if text is None:
            shutil.copyfile(HOSTILE / "focus" / name, path)
        else:
            path.write_text(text, encoding="utf-8")
        self.extra_config += f'\n[[sources]]\nname = "hostile"\nkind = "focus"\nuri = "{path}"\n'
        return path

    def manual(self, name: str, text: str) -> Path:
        """Add a manual ledger source reading ``text`` as the file ``name``."""
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        self.extra_config += f'\n[[sources]]\nname = "hostile-ledger"\nkind = "manual"\nuri = "{path}"\n'
        return path

    def use_log(self, name: str) -> Path:
        shutil.copyfile(HOSTILE / "log" / name, self.log)
        return self.log

    def cur_rows(self) -> tuple[list[str], list[list[str]]]:
        rows = list(csv.reader(io.StringIO(gzip.decompress(self.cur.read_bytes()).decode("utf-8"))))
        return rows[0], rows[1:]

    def write_cur(self, header: list[str], rows: list[list[str]]) -> None:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([header, *rows])
        self.cur.write_bytes(gzip.compress(out.getvalue().encode("utf-8"), mtime=0))

    def set_cur_cell(self, row: int, column: str, value: str) -> None:
        """Set a cell of data row ``row`` (1-based, the header not counted, as errors count)."""
        header, rows = self.cur_rows()
        rows[row - 1][header.index(column)] = value
        self.write_cur(header, rows)

    def nightly(self, *args: str) -> Result:
        (self.root / "trainledger.toml").write_text(
            demo_config(self.root / "inputs") + self.extra_config, encoding="utf-8"
        )
        return CliRunner().invoke(
            cli, ["--config", str(self.root / "trainledger.toml"), *args, "nightly"], catch_exceptions=False
        )

    def query(self, sql: str, params: dict[str, object] | None = None) -> list[tuple[object, ...]]:
        con = duckdb.connect(str(self.warehouse), read_only=True)
        try:
            return con.execute(sql, params or {}).fetchall()
        finally:
            con.close()


@dataclass(frozen=True)
class Refused:
    """Exit 1 with this one line (``{cur}``, ``{log}``, ``{focus}`` filled in); nothing changes."""

    line: str


@dataclass(frozen=True)
class Handled:
    """The documented safe handling: the run succeeds and ``check`` holds."""

    check: Callable[[Inputs, Result], None]


@dataclass(frozen=True)
class Case:
    name: str
    prepare: Callable[[Inputs], Path | None]
    expect: Refused | Handled


def _hive_text_cur(inputs: Inputs) -> None:
    """The month's csv.gz holding Athena/Hive text: fields separated by \\x01, no header quoting."""
    header, rows = inputs.cur_rows()
    text = "".join("\x01".join(r) + "\n" for r in [header, *rows])
    inputs.cur.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))


def _gcp_export(name: str, text: str) -> Callable[[Inputs], Path]:
    """A gcp-billing source reading a file named ``name`` holding ``text``."""

    def prepare(inputs: Inputs) -> Path:
        path = inputs.root / name
        path.write_text(text, encoding="utf-8")
        inputs.extra_config += f'\n[[sources]]\nname = "gcp"\nkind = "gcp-billing"\nuri = "{path}"\n'
        return path

    return prepare


GCP_EXPECTED = "expected the export's rows as parquet or JSON Lines (.parquet, .json, .jsonl, .ndjson, .json.gz, .jsonl.gz, .ndjson.gz)"


# --- safe handlings -----------------------------------------------------------------------------------


def _charges_equal_last_nights(inputs: Inputs, result: Result) -> None:
    """Times without a zone are UTC: the month re-read gives the very same charges."""
    assert "2269 rows, billed 67,353.05 USD" in result.stdout  # 67,353.05311856 to the cent
    cols = "source, source_row, charge_period_start, charge_period_end, billing_period_start, billed_cost"
    assert inputs.query(f"SELECT {cols} FROM charges ORDER BY 1, 2") == inputs.saved


def _mixed_currencies_reported_apart(inputs: Inputs, result: Result) -> None:
    assert "ingested\thostile\t2026-11\t3 rows, billed 7.00 EUR, 10.00 USD\n" in result.stdout
    assert "charges in 2 currencies (EUR: 2 rows, USD: 1 row); totals are kept per currency" in result.stderr
    allocated = inputs.query(
        "SELECT currency, sum(billed_cost) FROM allocations WHERE source = 'hostile' GROUP BY 1 ORDER BY 1"
    )
    assert allocated == [("EUR", Decimal("7.00")), ("USD", Decimal("10.00"))]
    assert inputs.query("SELECT billed_total FROM ingest_state WHERE source = 'hostile'") == [(None,)]


def _adds_nothing(inputs: Inputs, result: Result) -> None:
    assert inputs.query("SELECT count(*) FROM charges WHERE source = 'hostile'") == [(0,)]
    assert "ingested\thostile" not in result.stdout


def _zone_less_is_utc(inputs: Inputs, result: Result) -> None:
    assert inputs.query(
        "SELECT charge_period_start, billing_period FROM charges WHERE source = 'hostile'"
    ) == [(dt.datetime(2026, 11, 3, 8, 0), "2026-11")]


def _kept_in_its_billing_period(inputs: Inputs, result: Result) -> None:
    assert inputs.query(
        "SELECT billing_period, strftime(charge_period_start, '%Y-%m-%d'), billed_cost FROM charges "
        "WHERE source = 'hostile'"
    ) == [("2026-11", "2026-10-28", Decimal("-3.00"))]


def _sql_stays_data(inputs: Inputs, result: Result) -> None:
    tags = inputs.query("SELECT tags FROM charges WHERE source = 'hostile'")[0][0]
    assert json.loads(tags)["project"] == "'); DROP TABLE charges; --"
    assert inputs.query("SELECT count(*) FROM charges WHERE source = 'aws-cur2'") == [(2269,)]
    assert inputs.query("SELECT project, billed_cost FROM allocations WHERE source = 'hostile'") == [
        ("'); drop table charges; --", Decimal("4.00"))
    ]


def _unicode_kept(inputs: Inputs, result: Result) -> None:
    assert inputs.query("SELECT project FROM allocations WHERE source = 'hostile'") == [("données-数据-🚀",)]
    tags = json.loads(inputs.query("SELECT tags FROM charges WHERE source = 'hostile'")[0][0])
    assert tags["note"] == "naïve café – \u202eRTL\u202c ✓"
    export = (inputs.root / "exports" / "trainledger-2026-11.csv").read_text(encoding="utf-8")
    assert ",données-数据-🚀,train,sft," in export


def _enormous_value_kept_whole(inputs: Inputs, result: Result) -> None:
    tags = json.loads(inputs.query("SELECT tags FROM charges WHERE source = 'hostile'")[0][0])
    assert tags["note"] == "é" * 50_000  # 100 KB of UTF-8, not truncated
    assert inputs.query("SELECT project, phase FROM allocations WHERE source = 'hostile'") == [
        ("qwen-coder", "train")
    ]


def _unknown_fields_warned(inputs: Inputs, result: Result) -> None:
    assert (
        f"trainledger: warning: {inputs.log}:2: ignoring unknown field(s) gpu_cluster, notes" in result.stderr
    )
    assert inputs.query("SELECT experiment_id FROM experiments ORDER BY 1") == [("exp-h-1",), ("exp-h-2",)]


def _later_record_wins(inputs: Inputs, result: Result) -> None:
    assert inputs.query("SELECT status, started_at, ended_at, project FROM experiments") == [
        ("failed", dt.datetime(2026, 11, 3, 9), dt.datetime(2026, 11, 3, 10), "qwen-coder")
    ]
    assert inputs.query("SELECT phase, resource_id, gpus FROM experiment_resources") == [
        ("eval", "i-0f00000000000002", 4)
    ]


def _sql_ids_stay_data(inputs: Inputs, result: Result) -> None:
    assert inputs.query("SELECT experiment_id, project FROM experiments") == [
        ("x'); drop table experiments; --", "qwen-coder' or 1=1 --")
    ]


def _list_tag_is_a_label_problem(inputs: Inputs, result: Result) -> None:
    assert inputs.query(
        "SELECT project, rule, reason, billed_cost FROM allocations WHERE source = 'hostile'"
    ) == [(None, "unattributed", "unknown-label", Decimal("4.00"))]
    labels = CliRunner().invoke(
        cli,
        [
            "--config",
            str(inputs.root / "trainledger.toml"),
            "labels",
            "--period",
            "2026-11",
            "--format",
            "json",
        ],
    )
    problems = [p for p in json.loads(labels.stdout)["problems"] if "is a list" in p["problem"]]
    assert [(p["status"], p["problem"], p["effective_cost"]) for p in problems] == [
        ("unknown-label", """tag 'project' is a list ["qwen-coder"], expected one text value""", "4.00")
    ]


def _ids_differing_in_case_reported(inputs: Inputs, result: Result) -> None:
    assert (
        f"trainledger: warning: {inputs.log}:2: experiment_id ' EXP-H-1' differs from 'exp-h-1' ({inputs.log}:1) "
        "only in case or surrounding spaces; both are experiment 'exp-h-1'"
    ) in result.stderr
    assert inputs.query("SELECT experiment_id, status FROM experiments") == [("exp-h-1", "failed")]


def _ledger_separators_are_data(inputs: Inputs, result: Result) -> None:
    assert inputs.query(
        "SELECT charge_period_start, billed_cost FROM charges WHERE source = 'hostile-ledger'"
    ) == [(dt.datetime(2026, 11, 2), Decimal("12.00"))]


def _many_warnings_summarised(inputs: Inputs, result: Result) -> None:
    """20,000 records with the same unknown field: five warnings and a count, not 20,000 lines."""
    warned = [line for line in result.stderr.splitlines() if line.startswith("trainledger: warning:")]
    assert warned == [
        *(
            f"trainledger: warning: {inputs.log}:{n}: ignoring unknown field(s) gpu_cluster"
            for n in range(1, 6)
        ),
        f"trainledger: warning: {inputs.log}:20000: experiment exp-h-1 has neither estimate nor params to "
        "estimate from",
        "trainledger: warning: 19,995 more warning(s) like these (20,000 in all): ignoring unknown field(s) "
        "gpu_cluster",
    ]
    assert inputs.query("SELECT experiment_id FROM experiments") == [("exp-h-1",)]


def _separators_are_data(inputs: Inputs, result: Result) -> None:
    """U+2028, U+2029 and U+0085 inside a JSON string are data; CRLF line ends are fine."""
    assert inputs.query("SELECT experiment_id FROM experiments ORDER BY 1") == [("exp-h-1",), ("exp-h-2",)]
    record = json.loads(inputs.query("SELECT record FROM experiments WHERE experiment_id = 'exp-h-1'")[0][0])
    assert record["description"] == (
        "line\u2028separator, paragraph\u2029separator, next\u0085line, form\x0cfeed, vtab\x0bend"
    )


# --- the corpus ---------------------------------------------------------------------------------------


def _truncate(inputs: Inputs) -> None:
    data = inputs.cur.read_bytes()
    inputs.cur.write_bytes(data[: len(data) // 2])


def _drop_cur_column(name: str) -> Callable[[Inputs], None]:
    def prepare(inputs: Inputs) -> None:
        header, rows = inputs.cur_rows()
        index = header.index(name)
        inputs.write_cur(header[:index] + header[index + 1 :], [r[:index] + r[index + 1 :] for r in rows])

    return prepare


def _duplicate_row(inputs: Inputs) -> None:
    header, rows = inputs.cur_rows()
    inputs.write_cur(header, [*rows, rows[9]])


def _strip_zones(inputs: Inputs) -> None:
    header, rows = inputs.cur_rows()
    inputs.saved = inputs.query(
        "SELECT source, source_row, charge_period_start, charge_period_end, billing_period_start, billed_cost "
        "FROM charges ORDER BY 1, 2"
    )
    dates = {i for i, name in enumerate(header) if name.endswith("_date")}
    inputs.write_cur(
        header, [[c.removesuffix("Z") if i in dates else c for i, c in enumerate(r)] for r in rows]
    )


def _enormous_tag(inputs: Inputs) -> Path:
    tags = json.dumps({"project": "qwen-coder", "phase": "train", "method": "sft", "note": "é" * 50_000})
    cell = '"' + tags.replace('"', '""') + '"'
    header = (HOSTILE / "focus" / "header-only.csv").read_text(encoding="utf-8")
    row = (
        "111122223333,444455556666,USD,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,2026-11-03T08:00:00Z,"
        f"2026-11-03T09:00:00Z,Usage,AWS,Amazon Elastic Compute Cloud,i-0f00000000000001,{cell},1.00,1.00,1.00\n"
    )
    return inputs.focus("enormous-tag.csv", header + row)


def _focus_tags(name: str, tags: dict[str, object]) -> Callable[[Inputs], Path]:
    """A one-row FOCUS bill of 4.00 USD carrying ``tags``."""
    cell = '"' + json.dumps(tags).replace('"', '""') + '"'
    header = (HOSTILE / "focus" / "header-only.csv").read_text(encoding="utf-8")
    row = (
        "111122223333,444455556666,USD,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,2026-11-03T08:00:00Z,"
        f"2026-11-03T09:00:00Z,Usage,AWS,Amazon Elastic Compute Cloud,i-0f00000000000001,{cell},4.00,4.00,4.00\n"
    )
    return lambda inputs: inputs.focus(name, header + row)


def _focus(name: str) -> Callable[[Inputs], Path]:
    return lambda inputs: inputs.focus(name)


def _log(name: str) -> Callable[[Inputs], Path]:
    return lambda inputs: inputs.use_log(name)


RECORD = (
    '{"experiment_id": "exp-h-1", "project": "qwen-coder", "method": "sft", "status": "succeeded", '
    '"started_at": "2026-11-03T08:00:00Z", "ended_at": "2026-11-03T12:00:00Z"'
)
LEDGER_HEADER = "date,amount,currency,project,phase,method,category,vendor,description\n"


def _log_line(fields: str) -> Callable[[Inputs], None]:
    """The log as one good record and then one whose extra ``fields`` (JSON text) are hostile."""
    return lambda inputs: inputs.log.write_text(
        f"{RECORD}}}\n{RECORD.replace('exp-h-1', 'exp-h-2')}, {fields}}}\n", encoding="utf-8"
    )


def _ledger(rows: str) -> Callable[[Inputs], Path]:
    return lambda inputs: inputs.manual("ledger.csv", LEDGER_HEADER + rows)


def _cell(row: int, column: str, value: str) -> Callable[[Inputs], None]:
    return lambda inputs: inputs.set_cur_cell(row, column, value)


FOCUS_ROW = (
    "111122223333,444455556666,USD,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,2026-11-03T08:00:00Z,"
    "2026-11-03T09:00:00Z,Usage,AWS,Amazon Elastic Compute Cloud,i-0f00000000000001,{{}},{cost},{cost},{cost}\n"
)


def _focus_costs(
    name: str, *costs: str, header: str | None = None, extra: str = ""
) -> Callable[[Inputs], Path]:
    """A FOCUS bill of one row per cost (BilledCost = EffectiveCost = ListCost); ``extra`` is appended to
    the last row (a ragged row)."""
    head = header or (HOSTILE / "focus" / "header-only.csv").read_text(encoding="utf-8")
    rows = "".join(FOCUS_ROW.format(cost=c) for c in costs)
    return lambda inputs: inputs.focus(name, head + rows[:-1] + extra + "\n")


def _keep_mtime(path: Path, text: str) -> None:
    """Rewrite ``path`` with ``text`` of the same size and give it back its modification time (``cp -p``)."""
    stat = path.stat()
    assert len(text.encode("utf-8")) == stat.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _focus_corrected_keeping_mtime(inputs: Inputs) -> Path:
    """A FOCUS bill loaded by one nightly, then corrected in place: same size, same mtime."""
    path = _focus_costs("corrected.csv", "4.00")(inputs)
    assert inputs.nightly().exit_code == 0
    _keep_mtime(path, path.read_text(encoding="utf-8").replace(",4.00,4.00,4.00", ",5.00,5.00,5.00"))
    return path


def _corrected_cost_loaded(inputs: Inputs, result: Result) -> None:
    assert "ingested\thostile\t2026-11\t1 rows, billed 5.00 USD\n" in result.stdout
    assert inputs.query("SELECT billed_cost FROM allocations WHERE source = 'hostile'") == [
        (Decimal("5.00"),)
    ]


def _cur_corrected_keeping_mtime(inputs: Inputs) -> None:
    """Last night's CUR 2.0 month (a local csv.gz) corrected in place: one cost 1 higher, the file the same
    size (the first row for which gzip gives the same length) and its mtime kept, as ``cp -p`` leaves it."""
    header, rows = inputs.cur_rows()
    column = header.index("line_item_unblended_cost")
    stat = inputs.cur.stat()
    for index, row in enumerate(rows):
        old = row[column]
        row[column] = str(Decimal(old) + 1)
        inputs.write_cur(header, rows)
        if inputs.cur.stat().st_size == stat.st_size:
            inputs.saved = [(index + 1, Decimal(old) + 1)]
            break
        row[column] = old
    else:
        raise AssertionError("no same-size correction found")
    os.utime(inputs.cur, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _cur_correction_loaded(inputs: Inputs, result: Result) -> None:
    row, cost = inputs.saved[0]
    assert "ingested\taws-cur2\t2026-11\t2269 rows, billed 67,354.05 USD\n" in result.stdout
    assert inputs.query(
        "SELECT billed_cost FROM charges WHERE source = 'aws-cur2' AND source_row = $row", {"row": row}
    ) == [(cost,)]


def _twelve_decimals_kept(inputs: Inputs, result: Result) -> None:
    assert inputs.query("SELECT billed_cost FROM charges WHERE source = 'hostile'") == [
        (Decimal("0.000000000001"),)
    ]


def _residue(inputs: Inputs, source: str) -> dict[str, dict[str, str]]:
    """The rounding residue the run ledger recorded for the last run's ``source``."""
    (detail,) = inputs.query("SELECT detail FROM runs ORDER BY started_at DESC LIMIT 1")[0]
    (entry,) = [e for e in json.loads(str(detail))["sources"] if e["source"] == source]
    residue: dict[str, dict[str, str]] = entry["rounding_residue"]
    return residue


def _thirteen_decimals_rounded(inputs: Inputs, result: Result) -> None:
    """SPEC §2: 4e-13 is rounded (half-even) to 0, not refused, and not lost silently: its residue is kept."""
    assert inputs.query(
        "SELECT billed_cost, effective_cost, list_cost FROM charges WHERE source = 'hostile'"
    ) == [(Decimal(0), Decimal(0), Decimal(0))]
    usd = {"USD": "0.0000000000004"}
    assert _residue(inputs, "hostile") == {"BilledCost": usd, "EffectiveCost": usd, "ListCost": usd}


def _effective_rounded_up(inputs: Inputs, result: Result) -> None:
    assert inputs.query("SELECT effective_cost FROM charges WHERE source = 'hostile'") == [(Decimal(1),)]
    assert _residue(inputs, "hostile") == {"EffectiveCost": {"USD": "-0.0000000000001"}}


def _cur_cost_rounded_to_zero(inputs: Inputs, result: Result) -> None:
    assert inputs.query("SELECT billed_cost FROM charges WHERE source = 'aws-cur2' AND source_row = 12") == [
        (Decimal(0),)
    ]
    assert _residue(inputs, "aws-cur2") == {"line_item_unblended_cost": {"USD": "0.0000000000004"}}


def _cur_rows_edited(
    edit: Callable[[list[str], list[list[str]]], tuple[list[str], list[list[str]]]],
) -> Callable[[Inputs], None]:
    def prepare(inputs: Inputs) -> None:
        inputs.write_cur(*edit(*inputs.cur_rows()))

    return prepare


def _cur_text_edited(edit: Callable[[str], str]) -> Callable[[Inputs], None]:
    """The month's csv.gz as text, edited (for what the csv module would not write: ragged rows)."""

    def prepare(inputs: Inputs) -> None:
        text = gzip.decompress(inputs.cur.read_bytes()).decode("utf-8")
        inputs.cur.write_bytes(gzip.compress(edit(text).encode("utf-8"), mtime=0))

    return prepare


def _cur_duplicate_column(header: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    index = header.index("line_item_unblended_cost")
    return [*header, header[index]], [[*r, r[index]] for r in rows]


def _cur_short_row(text: str) -> str:
    lines = text.split("\n")
    lines[3] = ",".join(lines[3].split(",")[:5])
    return "\n".join(lines)


def _cur_long_row(text: str) -> str:
    lines = text.split("\n")
    lines[3] += ",extra,fields"
    return "\n".join(lines)


BIG = "6" + "0" * 25  # 6e25: below DECIMAL(38, 12)'s 10^26, but two of them are not


CASES = [
    # AWS CUR 2.0, csv.gz
    Case(
        "cur2-truncated-gzip",
        _truncate,
        Refused(
            "{cur}: cannot read: Unexpected end of GZIP stream; expected a complete gzip file (cut short or not gzip?)"
        ),
    ),
    Case(
        "cur2-empty-file",
        lambda inputs: inputs.cur.write_bytes(b""),
        Refused("{cur}: file is empty; expected a bill with a header line and rows"),
    ),
    Case(
        "cur2-header-only",
        lambda inputs: inputs.write_cur(inputs.cur_rows()[0], []),
        Refused(
            "{cur}: no line items for billing period 2026-11; expected the restated period's rows "
            "(an empty delivery would erase the period, which is kept as it was)"
        ),
    ),
    Case(
        "cur2-missing-column",
        _drop_cur_column("line_item_currency_code"),
        Refused("{cur}: not a CUR 2.0 file: missing column(s) line_item_currency_code"),
    ),
    Case(
        "cur2-non-numeric-cost",
        _cell(42, "line_item_unblended_cost", "12,50"),
        Refused("{cur}, row 42, column line_item_unblended_cost: expected a finite number, got '12,50'"),
    ),
    Case(
        "cur2-nan-cost",
        _cell(7, "line_item_unblended_cost", "NaN"),
        Refused("{cur}, row 7, column line_item_unblended_cost: expected a finite number, got 'NaN'"),
    ),
    Case(
        "cur2-cost-too-large",
        _cell(8, "line_item_unblended_cost", "1e30"),
        Refused("{cur}, row 8, column line_item_unblended_cost: expected a cost below 10^26, got '1e30'"),
    ),
    Case(
        "cur2-nan-in-savings-plan-cost",
        _cell(3, "savings_plan_savings_plan_effective_cost", "nan"),
        Refused(
            "{cur}, row 3, column savings_plan_savings_plan_effective_cost: "
            "expected a finite number below 10^26 or nothing, got 'nan'"
        ),
    ),
    Case(
        "cur2-unknown-currency",
        _cell(5, "line_item_currency_code", "XYZ"),
        Refused(
            "{cur}, row 5, column line_item_currency_code: expected an ISO 4217 currency code such as USD, "
            "got 'XYZ'"
        ),
    ),
    Case(
        "cur2-duplicate-line-item",
        _duplicate_row,
        Refused(
            "{cur}, row 2270, column identity_line_item_id: line item {line_item} appears more than once "
            "(first at row 10)"
        ),
    ),
    Case(
        "cur2-row-outside-its-billing-period",
        _cell(4, "bill_billing_period_start_date", "2026-10-01T00:00:00Z"),
        Refused(
            "{cur}, row 4, column bill_billing_period_start_date: expected a timestamp in billing period "
            "2026-11, got '2026-10-01T00:00:00Z'"
        ),
    ),
    Case(
        "cur2-usage-ends-before-it-starts",
        _cell(6, "line_item_usage_end_date", "2026-10-01T00:00:00Z"),
        Refused(
            "{cur}, row 6, column line_item_usage_end_date: expected a timestamp not before "
            "line_item_usage_start_date, got '2026-10-01T00:00:00Z'"
        ),
    ),
    Case(
        "cur2-usage-in-the-year-4",
        _cell(5, "line_item_usage_start_date", "4/1/25"),
        Refused(
            "{cur}, row 5, column line_item_usage_start_date: expected a timestamp in 2000-2099, got '4/1/25'"
        ),
    ),
    Case(
        "cur2-tags-not-json",
        _cell(5, "resource_tags", '{"user_project": "qwen'),
        Refused(
            """{cur}, row 5, column resource_tags: expected a JSON object, got '{{"user_project": "qwen'"""
        ),
    ),
    Case("cur2-timestamps-without-zone", _strip_zones, Handled(_charges_equal_last_nights)),
    Case(
        "cur2-gz-holding-hive-text",
        _hive_text_cur,
        Refused(
            "{cur}: fields are separated by \\x01 (Hive/Athena text), not commas; expected a CSV file with a "
            "header line"
        ),
    ),
    # Cloud Billing export files
    Case(
        "gcp-export-as-csv",
        _gcp_export("billing.csv", "billing_account_id,cost\n01A2B3-C4D5E6-F7A8B9,1.5\n"),
        Refused("{focus}: a CSV file, not parquet or JSON Lines; " + GCP_EXPECTED),
    ),
    Case(
        "gcp-export-as-json-array",
        _gcp_export("billing.json", '[{"billing_account_id": "01A2B3-C4D5E6-F7A8B9", "cost": 1.5}]\n'),
        Refused("{focus}: a JSON array, not JSON Lines (one export row per line); " + GCP_EXPECTED),
    ),
    # FOCUS 1.x CSV
    Case(
        "focus-empty-file",
        _focus("empty.csv"),
        Refused("{focus}: file is empty; expected a FOCUS CSV with a header line"),
    ),
    Case("focus-header-only", _focus("header-only.csv"), Handled(_adds_nothing)),
    Case(
        "focus-missing-column",
        _focus("missing-columns.csv"),
        Refused("{focus}: not a FOCUS file: missing column(s) BillingCurrency"),
    ),
    Case(
        "focus-wrong-columns",
        _focus("wrong-columns.csv"),
        Refused(
            "{focus}: not a FOCUS file: missing column(s) BilledCost, BillingCurrency, BillingPeriodStart, "
            "BillingPeriodEnd, ChargeCategory"
        ),
    ),
    Case(
        "focus-short-row",
        _focus("short-row.csv"),
        Refused("{focus}: row 2 has 6 field(s), expected 15 as in the header line"),
    ),
    Case(
        "focus-non-numeric-cost",
        _focus("non-numeric-cost.csv"),
        Refused("{focus}, row 2, column BilledCost: expected a decimal number, got '12,50'"),
    ),
    Case(
        "focus-nan-cost",
        _focus("nan-cost.csv"),
        Refused("{focus}, row 2, column BilledCost: expected a decimal number, got 'NaN'"),
    ),
    Case(
        "focus-invalid-currency",
        _focus("invalid-currency.csv"),
        Refused(
            "{focus}, row 2, column BillingCurrency: expected an ISO 4217 currency code such as USD, got 'US$'"
        ),
    ),
    Case(
        "focus-unknown-currency",
        _focus("unknown-currency.csv"),
        Refused(
            "{focus}, row 2, column BillingCurrency: expected an ISO 4217 currency code such as USD, got 'XYZ'"
        ),
    ),
    Case("focus-mixed-currencies", _focus("mixed-currencies.csv"), Handled(_mixed_currencies_reported_apart)),
    Case(
        "focus-charge-ends-at-infinity",
        _focus("charge-end-infinite.csv"),
        Refused(
            "{focus}, row 2, column ChargePeriodEnd: expected an ISO 8601 time in UTC such as "
            "2026-11-01T00:00:00Z (years 2000-2099), got 'infinity'"
        ),
    ),
    Case(
        "focus-us-dates",
        _focus("us-dates.csv"),
        Refused(
            "{focus}, row 1, column BillingPeriodStart: expected an ISO 8601 time in UTC such as "
            "2026-11-01T00:00:00Z (years 2000-2099), got '4/1/25'"
        ),
    ),
    Case(
        "focus-local-offset",
        _focus("local-offset.csv"),
        Refused(
            "{focus}, row 1, column ChargePeriodStart: expected an ISO 8601 time in UTC such as "
            "2026-11-01T00:00:00Z (years 2000-2099), got '2026-11-03T08:00:00+02:00'"
        ),
    ),
    Case(
        "cur2-usage-ends-at-infinity",
        _cell(6, "line_item_usage_end_date", "infinity"),
        Refused(
            "{cur}, row 6, column line_item_usage_end_date: expected a timestamp not before "
            "line_item_usage_start_date, got 'infinity'"
        ),
    ),
    Case(
        "focus-charge-ends-before-it-starts",
        _focus("charge-end-before-start.csv"),
        Refused(
            "{focus}, row 2, column ChargePeriodEnd: expected a timestamp not before ChargePeriodStart, "
            "got '2026-11-03T09:00:00Z'"
        ),
    ),
    Case(
        "focus-billing-period-ends-before-it-starts",
        _focus("billing-period-end-before-start.csv"),
        Refused(
            "{focus}, row 1, column BillingPeriodEnd: expected a timestamp after BillingPeriodStart, "
            "got '2026-10-01T00:00:00Z'"
        ),
    ),
    Case(
        "focus-charge-outside-billing-period",
        _focus("charge-outside-billing-period.csv"),
        Handled(_kept_in_its_billing_period),
    ),
    Case("focus-timestamps-without-zone", _focus("no-zone.csv"), Handled(_zone_less_is_utc)),
    Case(
        "focus-tags-not-json",
        _focus("tags-not-json.csv"),
        Refused("{focus}, row 1, column Tags: expected a JSON object, got 'project=qwen-coder'"),
    ),
    Case("focus-sql-in-tags", _focus("sql-in-tags.csv"), Handled(_sql_stays_data)),
    Case("focus-unicode-tags", _focus("unicode-tags.csv"), Handled(_unicode_kept)),
    Case("focus-enormous-tag-value", _enormous_tag, Handled(_enormous_value_kept_whole)),
    # The experiment log
    Case(
        "log-bad-json",
        _log("bad-json.jsonl"),
        Refused("{log}:2: not valid JSON (Expecting property name enclosed in double quotes at column 109)"),
    ),
    Case(
        "log-not-an-object", _log("not-an-object.jsonl"), Refused("{log}:2: expected a JSON object per line")
    ),
    Case("log-not-utf8", _log("not-utf8.jsonl"), Refused("{log}: not UTF-8 text; expected JSON Lines")),
    Case("log-unknown-fields", _log("unknown-fields.jsonl"), Handled(_unknown_fields_warned)),
    Case(
        "log-end-before-start",
        _log("end-before-start.jsonl"),
        Refused("{log}:2: ended_at 2026-11-03T12:00:00Z is before started_at 2026-11-04T08:00:00Z"),
    ),
    Case(
        "log-timestamp-without-zone",
        _log("no-zone.jsonl"),
        Refused(
            "{log}:2: field started_at: timestamp '2026-11-03T08:00:00' has no time zone; write it in UTC "
            "with a trailing Z"
        ),
    ),
    Case("log-duplicate-ids-conflicting-windows", _log("duplicate-ids.jsonl"), Handled(_later_record_wins)),
    Case("log-sql-in-ids", _log("sql-in-ids.jsonl"), Handled(_sql_ids_stay_data)),
    Case("log-unicode-line-separators", _log("unicode-line-separators.jsonl"), Handled(_separators_are_data)),
    Case(
        "log-20000-repeated-warnings",
        lambda inputs: inputs.log.write_text(
            f'{RECORD}, "gpu_cluster": "west"}}\n' * 20_000, encoding="utf-8"
        ),
        Handled(_many_warnings_summarised),
    ),
    # Hostile values in the experiment log, its estimates and the manual ledger
    Case(
        "log-nested-5000-deep",
        _log_line('"params": {"mfu": ' + "[" * 5000 + "]" * 5000 + "}"),
        Refused("{log}:2: column 249: JSON nested deeper than 64 levels; expected an experiment record"),
    ),
    Case(
        "log-params-as-a-list",
        _log_line('"params": ["model_params_b", 7]'),
        Refused("{log}:2: field params: expected a JSON object, got a list"),
    ),
    Case(
        "log-5000-digit-integer",
        _log_line('"params": {"gpus": ' + "9" * 5000 + "}"),
        Refused(
            "{log}:2: field params.gpus: expected a finite number below 10^26, got a number of 5000 digits"
        ),
    ),
    Case(
        "log-param-1e400",
        _log_line('"params": {"model_params_b": 1e400, "train_samples": 1000, "avg_tokens_per_sample": 100}'),
        Refused("{log}:2: field params.model_params_b: expected a finite number below 10^26, got 1E+400"),
    ),
    Case(
        "log-nan-constant",
        _log_line('"estimate": {"train": NaN}'),
        Refused("{log}:2: not valid JSON (NaN is not a JSON number)"),
    ),
    Case(
        "log-estimate-1e30",
        _log_line('"estimate": {"currency": "USD", "train": 1e30}'),
        Refused("{log}:2: field estimate.train: expected a finite number below 10^26, got 1E+30"),
    ),
    Case(
        "log-estimate-currency-not-iso-4217",
        _log_line('"estimate": {"currency": "DOLLARS", "train": 5}'),
        Refused(
            "{log}:2: field estimate.currency: expected an ISO 4217 currency code such as USD, got 'DOLLARS'"
        ),
    ),
    Case(
        "log-ids-differ-only-in-case",
        lambda inputs: inputs.log.write_text(
            f"{RECORD}}}\n{RECORD.replace('exp-h-1', ' EXP-H-1').replace('succeeded', 'failed')}}}\n",
            encoding="utf-8",
        ),
        Handled(_ids_differing_in_case_reported),
    ),
    Case(
        "focus-list-valued-tag",
        _focus_tags("list-tag.csv", {"project": ["qwen-coder"], "phase": "train", "method": "sft"}),
        Handled(_list_tag_is_a_label_problem),
    ),
    Case(
        "manual-jsonl-unicode-line-separators",
        lambda inputs: inputs.manual(
            "ledger.jsonl",
            '{"date": "2026-11-02", "amount": "12.00", "currency": "USD", "project": "qwen-coder", '
            '"category": "data", "description": "labels\u2028batch\u2029two\u0085end"}\n',
        ),
        Handled(_ledger_separators_are_data),
    ),
    Case(
        "manual-row-dated-9999-12-31",
        _ledger("9999-12-31,12.00,USD,qwen-coder,data,sft,data,Vendor,labels\n"),
        Refused("{focus}:2, column date: expected a date YYYY-MM-DD (years 2000-2099), got '9999-12-31'"),
    ),
    # issue 22, connectors: content-addressed versions, overflowing sums, duplicated columns, ragged rows,
    # costs finer than DECIMAL(38, 12), tags as JSON text
    Case(
        "focus-same-size-correction-mtime-kept",
        _focus_corrected_keeping_mtime,
        Handled(_corrected_cost_loaded),
    ),
    Case("cur2-correction-mtime-kept", _cur_corrected_keeping_mtime, Handled(_cur_correction_loaded)),
    Case(
        "focus-costs-sum-overflows",
        _focus_costs("overflow.csv", BIG, BIG, BIG),
        Refused(
            "{focus}, row 2, column BilledCost: the amounts up to this row add up to 10^26 or more (signs "
            "aside), more than DECIMAL(38, 12) holds; expected a bill whose totals fit"
        ),
    ),
    Case(
        "focus-negative-costs-sum-overflows",
        _focus_costs("overflow.csv", "1.00", "-" + BIG, "-" + BIG),
        Refused(
            "{focus}, row 3, column BilledCost: the amounts up to this row add up to 10^26 or more (signs "
            "aside), more than DECIMAL(38, 12) holds; expected a bill whose totals fit"
        ),
    ),
    Case(
        "cur2-costs-sum-overflows",
        lambda inputs: [inputs.set_cur_cell(r, "line_item_unblended_cost", BIG) for r in (3, 9, 11)] and None,
        Refused(
            "{cur}, row 9, column line_item_unblended_cost: the amounts up to this row add up to 10^26 or more "
            "(signs aside), more than DECIMAL(38, 12) holds; expected a bill whose totals fit"
        ),
    ),
    Case(
        "focus-cost-1e400",
        _focus_costs("huge.csv", "1e400"),
        Refused("{focus}, row 1, column BilledCost: expected a decimal number, got '1e400'"),
    ),
    Case(
        "focus-cost-5000-digits",
        _focus_costs("huge.csv", "9" * 5000),
        Refused(
            "{focus}, row 1, column BilledCost: expected a decimal number, got '"
            + "9" * 57
            + "...' (5000 characters)"
        ),
    ),
    Case(
        "cur2-cost-1e400",
        _cell(8, "line_item_unblended_cost", "1e400"),
        Refused("{cur}, row 8, column line_item_unblended_cost: expected a finite number, got '1e400'"),
    ),
    Case(
        "cur2-cost-5000-digits",
        _cell(8, "line_item_unblended_cost", "9" * 5000),
        Refused(
            "{cur}, row 8, column line_item_unblended_cost: expected a finite number, got '"
            + "9" * 57
            + "...' (5000 characters)"
        ),
    ),
    Case(
        "focus-duplicated-column",
        _focus_costs(
            "duplicated.csv",
            "4.00",
            header=(HOSTILE / "focus" / "header-only.csv").read_text(encoding="utf-8").rstrip("\n")
            + ",BilledCost\n",
            extra=",4.00",
        ),
        Refused("{focus}: column BilledCost appears twice (columns 13 and 16); expected each column once"),
    ),
    Case(
        "focus-duplicated-column-differing-in-case",
        _focus_costs(
            "duplicated.csv",
            "4.00",
            header=(HOSTILE / "focus" / "header-only.csv").read_text(encoding="utf-8").rstrip("\n")
            + ",billedcost\n",
            extra=",4.00",
        ),
        Refused(
            "{focus}: column BilledCost appears twice (columns 13 and 16, as BilledCost and billedcost); "
            "expected each column once"
        ),
    ),
    Case(
        "cur2-duplicated-column",
        _cur_rows_edited(_cur_duplicate_column),
        Refused(
            "{cur}: column line_item_unblended_cost appears twice (columns 30 and 115); expected each column once"
        ),
    ),
    Case(
        "focus-cost-with-13-decimals", _focus_costs("fine.csv", "4e-13"), Handled(_thirteen_decimals_rounded)
    ),
    Case(
        "focus-effective-cost-with-13-decimals",
        lambda inputs: inputs.focus(
            "fine.csv",
            (HOSTILE / "focus" / "header-only.csv").read_text(encoding="utf-8")
            + FOCUS_ROW.format(cost="1.00").replace(",1.00,1.00,1.00", ",1.00,0.9999999999999,1.00"),
        ),
        Handled(_effective_rounded_up),
    ),
    Case("focus-cost-with-12-decimals", _focus_costs("fine.csv", "1000e-15"), Handled(_twelve_decimals_kept)),
    Case(
        "cur2-cost-with-13-decimals",
        _cell(12, "line_item_unblended_cost", "0.0000000000004"),
        Handled(_cur_cost_rounded_to_zero),
    ),
    Case(
        "focus-long-row",
        _focus_costs("long-row.csv", "4.00", "4.00", extra=",surplus"),
        Refused("{focus}: row 2 has 16 field(s), expected 15 as in the header line"),
    ),
    Case(
        "cur2-short-row",
        _cur_text_edited(_cur_short_row),
        Refused("{cur}: row 3 has 5 field(s), expected 114 as in the header line"),
    ),
    Case(
        "cur2-long-row",
        _cur_text_edited(_cur_long_row),
        Refused("{cur}: row 3 has 116 field(s), expected 114 as in the header line"),
    ),
    Case(
        "cur2-tags-json-array",
        _cell(5, "resource_tags", '["user_project", "qwen-coder"]'),
        Refused(
            """{cur}, row 5, column resource_tags: expected a JSON object, got '["user_project", "qwen-coder"]'"""
        ),
    ),
    Case(
        "cur2-tags-json-string",
        _cell(5, "resource_tags", json.dumps(json.dumps({"user_project": "qwen-coder"}))),
        Refused(
            """{cur}, row 5, column resource_tags: expected a JSON object, got '"{{\\"user_project\\": \\"qwen-coder\\"}}"'"""
        ),
    ),
]


@pytest.fixture(scope="module")
def last_night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose CUR 2.0 month (csv.gz) and log went through one good nightly run."""
    import generate

    root = tmp_path_factory.mktemp("last-night")
    generate.main(["--out", str(root / "inputs"), "--format", "csv.gz"])
    result = Inputs(root).nightly()
    assert result.exit_code == 0, result.stderr
    return root


@pytest.fixture(scope="module")
def last_night_state(last_night: Path) -> dict[str, tuple[object, ...]]:
    """What every case's copy of last night's warehouse holds before its run."""
    return warehouse_fingerprint(Inputs(last_night).warehouse)


def test_a_changed_cent_changes_the_warehouse_fingerprint(
    last_night: Path, last_night_state: dict[str, tuple[object, ...]], tmp_path: Path
) -> None:
    shutil.copytree(last_night, tmp_path, dirs_exist_ok=True)
    con = duckdb.connect(str(Inputs(tmp_path).warehouse))
    try:
        con.execute("UPDATE charges SET billed_cost = billed_cost + 0.01 WHERE source_row = 9")
    finally:
        con.close()
    after = warehouse_fingerprint(Inputs(tmp_path).warehouse)
    assert {t for t in after if after[t] != last_night_state[t]} == {"charges"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_hostile_input(
    case: Case, last_night: Path, last_night_state: dict[str, tuple[object, ...]], tmp_path: Path
) -> None:
    shutil.copytree(last_night, tmp_path, dirs_exist_ok=True)
    inputs = Inputs(tmp_path)
    focus = case.prepare(inputs)
    result = inputs.nightly()
    assert "Traceback" not in result.stderr
    if isinstance(case.expect, Handled):
        assert result.exit_code == 0, result.stderr
        case.expect.check(inputs, result)
        return
    line_item = ""
    if "{line_item}" in case.expect.line:
        header, rows = inputs.cur_rows()
        row = rows[9]
        line_item = (
            f"{row[header.index('identity_line_item_id')]}@{row[header.index('identity_time_interval')]}"
        )
    message = case.expect.line.format(cur=inputs.cur, log=inputs.log, focus=focus, line_item=line_item)
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (1, f"trainledger: error: {message}")
    assert result.stdout == ""
    assert warehouse_fingerprint(inputs.warehouse) == last_night_state
    assert inputs.query(
        "SELECT outcome, json_extract_string(detail, '$.error') FROM runs WHERE outcome <> 'ok'"
    ) == [("failed", message)]
