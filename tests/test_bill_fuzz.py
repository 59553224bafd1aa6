"""Property: whatever a FOCUS CSV or a CUR 2.0 csv.gz holds (any bytes, any cell text in any column), reading
and loading it either works or is one user error (exit 1), never an internal error (exit 3) or a traceback.

The connectors run as `ingest` runs them, into a real DuckDB warehouse schema in memory, each example in a
transaction rolled back afterwards; an exception other than a TrainledgerError with exit code 1 is what the
CLI's boundary would report as an internal error, so it fails the property.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import tempfile
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainledger.connectors import aws_cur2
from trainledger.connectors.bill_loader import connector_for
from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import ExitCode, TrainledgerError
from trainledger.core.reporter import Silent

pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HOSTILE = Path(__file__).parent / "hostile"
FOCUS_HEADER = (HOSTILE / "focus" / "header-only.csv").read_text(encoding="utf-8").strip().split(",")
CUR_HEADER = [*aws_cur2.REQUIRED, "resource_tags", "cost_category", "pricing_public_on_demand_cost"]

WAREHOUSE = duckdb.connect(":memory:")
WAREHOUSE.execute(queries.load("schema/warehouse"))

# Cell text that has broken readers: numbers at and past DECIMAL(38, 12)'s edges, non-numbers, times at the
# edges of 2000-2099, JSON that is not an object, quotes, separators and control characters.
cells = st.sampled_from(
    [
        "",
        "0",
        "4.00",
        "-3.5",
        "4e-13",
        "1e400",
        "-1e400",
        "9" * 30,
        "6" + "0" * 25,
        "NaN",
        "inf",
        "12,50",
        "USD",
        "EUR",
        "XYZ",
        "Usage",
        "Credit",
        "2026-11-01T00:00:00Z",
        "2026-12-01T00:00:00Z",
        "2026-11-03 08:00:00",
        "9999-12-31T00:00:00Z",
        "0001-01-01",
        "4/1/25",
        "{}",
        '{"user_project": "qwen-coder"}',
        '["qwen-coder"]',
        '"{}"',
        "null",
        "line-1",
        "a\nb",
        '"',
        "\x00",
        "é🚀",
    ]
) | st.text(max_size=12)


def outcome(kind: str, folder: Path) -> str:
    """Ingest ``folder`` as a source of ``kind``: "ok", or the user error's message."""
    source = SourceConfig.model_validate({"name": "fuzz", "kind": kind, "uri": str(folder)})
    config = Config(sources=[source], base_dir=folder.parent)
    WAREHOUSE.begin()
    try:
        connector_for(source)(WAREHOUSE, source, config, None, Silent())
    except TrainledgerError as exc:
        assert exc.exit_code == ExitCode.USER_ERROR, exc
        assert "\n" not in str(exc), "an error is one line"
        return str(exc)
    finally:
        WAREHOUSE.rollback()
    return "ok"


def focus_outcome(data: bytes) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "focus"
        folder.mkdir()
        (folder / "bill.csv").write_bytes(data)
        return outcome("focus", folder)


def cur_outcome(data: bytes) -> str:
    """``data`` as the one csv.gz of a CUR 2.0 delivery for 2026-11, with its manifest."""
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "cur"
        key = "data/BILLING_PERIOD=2026-11/cur-00001.csv.gz"
        (export / key).parent.mkdir(parents=True)
        (export / key).write_bytes(gzip.compress(data, mtime=0))
        manifest = export / "metadata/BILLING_PERIOD=2026-11/cur-Manifest.json"
        manifest.parent.mkdir(parents=True)
        manifest.write_text(json.dumps({"dataFiles": [key]}), encoding="utf-8")
        return outcome("aws-cur2", export)


def as_csv(header: list[str], rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *rows])
    return out.getvalue().encode("utf-8")


@SETTINGS
@given(st.binary(max_size=400))
def test_any_bytes_as_a_focus_csv_are_read_or_refused(data: bytes) -> None:
    focus_outcome(data)


@SETTINGS
@given(
    st.lists(st.lists(cells, min_size=len(FOCUS_HEADER), max_size=len(FOCUS_HEADER)), min_size=1, max_size=3)
)
def test_any_cell_of_a_focus_csv_is_read_or_refused(rows: list[list[str]]) -> None:
    focus_outcome(as_csv(FOCUS_HEADER, rows))


@SETTINGS
@given(st.binary(max_size=400))
def test_any_bytes_as_a_cur2_csv_gz_are_read_or_refused(data: bytes) -> None:
    cur_outcome(data)


@SETTINGS
@given(st.lists(st.lists(cells, min_size=len(CUR_HEADER), max_size=len(CUR_HEADER)), min_size=1, max_size=3))
def test_any_cell_of_a_cur2_csv_is_read_or_refused(rows: list[list[str]]) -> None:
    cur_outcome(as_csv(CUR_HEADER, rows))


def _focus_row(cost: str) -> list[str]:
    return [
        "1111", "2222", "USD", "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-11-03T08:00:00Z",
        "2026-11-03T09:00:00Z", "Usage", "AWS", "EC2", "i-1", "{}", cost, cost, cost,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("costs", "message"),
    [
        (
            ["6" + "0" * 25] * 2,
            "row 2, column BilledCost: the amounts up to this row add up to 10^26 or more",
        ),
        (["1e400"], "row 1, column BilledCost: expected a decimal number, got '1e400'"),
        (["1e26"], "row 1, column BilledCost: expected a decimal number, got '1e26'"),
    ],
)
def test_the_focus_examples_that_were_internal_errors_or_silent_are_user_errors(
    costs: list[str], message: str
) -> None:
    assert message in focus_outcome(as_csv(FOCUS_HEADER, [_focus_row(c) for c in costs]))
