"""SPEC §2: a bill whose money text carries more than 12 decimal places (providers print doubles) is rounded
half-even to 12 places at ingest, never refused for it; the rounding residue (the sum as written minus the
sum stored) is recorded per source and billing period in the run ledger and warned about from half a cent.

Expected values are worked out here from the raw text, read back with the csv module (or pyarrow), with
Python's Decimal: ``quantize(..., ROUND_HALF_EVEN)`` is the rounding, ``written - stored`` the residue.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

import generate
from api_cost_fakes import page_text
from conftest import warehouse_state
from focus_files import write_focus
from trainledger.cli import cli
from trainledger.connectors import rounding
from trainledger.core.reporter import Silent

# Money as providers print it: koku's generated CUR (0.00377554707705832), an Azure/FOCUS hourly rate
# (0.000520833333333333, 18 places), a value below the 12th place (4e-13), exact ties at the 13th place
# (half-even: 0.0000000000015 -> 2e-12, 0.0000000000025 -> 2e-12, DuckDB's own cast would give 3e-12),
# float noise in exponent form, and values of 12 places or fewer, kept as they are.
LONG = [
    "0.00377554707705832",
    "0.000520833333333333",
    "4e-13",
    "0.0000000000015",
    "0.0000000000025",
    "-0.0000000000005",
    "-1.1102230246251565e-16",
    "12.345678901234567",
    "40.19",
    "0.000000000001",
]
CUR_EXPORT = "aws/cur/ml-cur2"
CUR_FILE = "data/BILLING_PERIOD=2026-11/ml-cur2-00001.csv.gz"


def half_even(text: str) -> Decimal:
    with localcontext(prec=80):
        return Decimal(text.strip()).quantize(Decimal("1e-12"), rounding=ROUND_HALF_EVEN)


def written(text: str) -> Decimal:
    return Decimal(text.strip())


def exact(values: list[Decimal]) -> Decimal:
    with localcontext(prec=200):
        return sum(values, Decimal(0))


def trainledger(root: Path, *args: str) -> Result:
    return CliRunner().invoke(
        cli, ["--config", str(root / "trainledger.toml"), *args], catch_exceptions=False
    )


def configure(root: Path, sources: str) -> None:
    (root / "trainledger.toml").write_text(
        '[warehouse]\npath = ".trainledger/ledger.duckdb"\n' + sources, encoding="utf-8"
    )


def query(root: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(root / ".trainledger" / "ledger.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def ledger_entry(root: Path, source: str) -> dict[str, object]:
    runs = json.loads(trainledger(root, "runs", "--format", "json").stdout)
    entries = [e for e in runs[0]["detail"]["sources"] if e["source"] == source]
    assert len(entries) == 1
    entry: dict[str, object] = entries[0]
    return entry


def test_half_even_at_the_thirteenth_place() -> None:
    """The rounding rule itself, by hand: ties go to the even 12th digit, anything past a tie goes up."""
    assert [half_even(v) for v in LONG[:6]] == [
        Decimal("0.003775547077"),
        Decimal("0.000520833333"),
        Decimal("0"),
        Decimal("0.000000000002"),
        Decimal("0.000000000002"),
        Decimal("0"),
    ]


@pytest.fixture(scope="module")
def demo_csv_gz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo month as AWS writes it in csv.gz (text, as a user's export would be)."""
    root = tmp_path_factory.mktemp("demo-csv-gz")
    generate.main(["--out", str(root), "--format", "csv.gz"])
    return root


def test_a_cur2_csv_gz_with_long_decimals_is_rounded_and_its_residue_recorded(
    tmp_path: Path, demo_csv_gz: Path
) -> None:
    export = tmp_path / "ml-cur2"
    shutil.copytree(demo_csv_gz / CUR_EXPORT, export)
    data = export / CUR_FILE
    rows = list(csv.reader(io.StringIO(gzip.decompress(data.read_bytes()).decode("utf-8"))))
    header, body = rows[0], rows[1:]
    unblended = header.index("line_item_unblended_cost")
    on_demand = header.index("pricing_public_on_demand_cost")
    for i, row in enumerate(body[:200]):
        row[unblended] = LONG[i % len(LONG)]
        row[on_demand] = LONG[(i + 3) % len(LONG)]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *body])
    data.write_bytes(gzip.compress(out.getvalue().encode("utf-8"), mtime=0))
    configure(tmp_path, f'[[sources]]\nname = "cur"\nkind = "aws-cur2"\nuri = "{export}"\n')

    result = trainledger(tmp_path, "ingest")

    assert result.exit_code == 0, result.stderr
    costs = [row[unblended] for row in body if row[unblended].strip()]
    stored = query(tmp_path, "SELECT sum(billed_cost) FROM charges WHERE source = 'cur'")[0][0]
    assert stored == exact([half_even(c) for c in costs])
    list_texts = [row[on_demand] for row in body[:200]]
    residue_billed = exact([written(c) for c in costs]) - exact([half_even(c) for c in costs])
    residue_list = exact([written(c) for c in list_texts]) - exact([half_even(c) for c in list_texts])
    assert residue_billed != 0 and residue_list != 0
    residue = ledger_entry(tmp_path, "cur")["rounding_residue"]
    assert residue == {
        "line_item_unblended_cost": {"USD": f"{residue_billed:f}"},
        "pricing_public_on_demand_cost": {"USD": f"{residue_list:f}"},
    }
    shown = trainledger(tmp_path, "runs", "--verbose").stdout
    assert f"cur 2026-11 rounding residue: line_item_unblended_cost {residue_billed:f} USD" in shown
    assert "cur 2026-11 rounding residue" not in trainledger(tmp_path, "runs").stdout
    assert "rounding" not in result.stderr  # 200 values cannot leave half a cent (at most 5e-13 each)


def test_a_focus_csv_with_long_decimals_is_rounded_row_by_row(tmp_path: Path) -> None:
    bill = write_focus(
        tmp_path / "focus.csv",
        [
            {
                "BilledCost": b,
                "EffectiveCost": LONG[(i + 1) % len(LONG)],
                "ListCost": LONG[(i + 2) % len(LONG)],
            }
            for i, b in enumerate(LONG)
        ],
    )
    configure(tmp_path, f'[[sources]]\nname = "focus"\nkind = "focus"\nuri = "{bill}"\n')

    result = trainledger(tmp_path, "ingest")

    assert result.exit_code == 0, result.stderr
    with bill.open(encoding="utf-8", newline="") as handle:
        raw = list(csv.DictReader(handle))
    stored = query(
        tmp_path,
        "SELECT billed_cost, effective_cost, list_cost FROM charges WHERE source = 'focus' ORDER BY source_row",
    )
    assert stored == [
        (half_even(r["BilledCost"]), half_even(r["EffectiveCost"]), half_even(r["ListCost"])) for r in raw
    ]
    assert stored[3][0] == Decimal("0.000000000002")  # 0.0000000000015: a tie, to the even 2
    assert stored[4][0] == Decimal("0.000000000002")  # 0.0000000000025: a tie, to the even 2
    assert stored[2][0] == 0  # 4e-13: 0, its residue recorded below
    expected = {
        column: {
            "USD": f"{exact([written(r[column]) for r in raw]) - exact([half_even(r[column]) for r in raw]):f}"
        }
        for column in ("BilledCost", "EffectiveCost", "ListCost")
    }
    assert ledger_entry(tmp_path, "focus")["rounding_residue"] == expected
    # By hand, BilledCost: 5.832e-14 + 3.33333e-13 + 4e-13 - 5e-13 + 5e-13 - 5e-13 - 1.1102230246251565e-16
    # - 4.33e-13 (12.345678901234567 -> 12.345678901235).
    assert Decimal(expected["BilledCost"]["USD"]) == Decimal("-1.4145802230246251565e-13")


def test_a_focus_parquet_double_is_read_as_the_number_the_provider_meant(tmp_path: Path) -> None:
    """A DOUBLE's residue is from its shortest round-trip text (0.1 + 0.2 is 0.30000000000000004), as
    Python's repr gives it, not from the binary fraction it stores."""
    values = [0.1 + 0.2, 1 / 3, 5.787037037037037e-06, 40.19]
    defaults = {"BillingCurrency": "USD", "ChargeCategory": "Usage", "ProviderName": "AWS"}
    table = pa.table(
        {
            **{k: [v] * len(values) for k, v in defaults.items()},
            "BillingPeriodStart": ["2026-11-01T00:00:00Z"] * len(values),
            "BillingPeriodEnd": ["2026-12-01T00:00:00Z"] * len(values),
            "BilledCost": pa.array(values, pa.float64()),
        }
    )
    pq.write_table(table, tmp_path / "focus.parquet")
    configure(
        tmp_path, f'[[sources]]\nname = "focus"\nkind = "focus"\nuri = "{tmp_path / "focus.parquet"}"\n'
    )

    result = trainledger(tmp_path, "ingest")

    assert result.exit_code == 0, result.stderr
    texts = [repr(v) for v in values]
    assert query(tmp_path, "SELECT billed_cost FROM charges ORDER BY source_row") == [
        (half_even(t),) for t in texts
    ]
    residue = exact([written(t) for t in texts]) - exact([half_even(t) for t in texts])
    assert ledger_entry(tmp_path, "focus")["rounding_residue"] == {"BilledCost": {"USD": f"{residue:f}"}}


def test_a_cost_of_10_to_the_26_is_still_refused_with_one_line(tmp_path: Path) -> None:
    ok = write_focus(tmp_path / "ok.csv", [{"BilledCost": "1.00"}])
    configure(tmp_path, f'[[sources]]\nname = "focus"\nkind = "focus"\nuri = "{ok}"\n')
    assert trainledger(tmp_path, "ingest").exit_code == 0
    before = warehouse_state(tmp_path / ".trainledger" / "ledger.duckdb")
    write_focus(tmp_path / "ok.csv", [{"BilledCost": "1e26"}])

    result = trainledger(tmp_path, "ingest")

    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"trainledger: error: {ok}, row 1, column BilledCost: expected a decimal number, got '1e26'"
    )
    assert warehouse_state(tmp_path / ".trainledger" / "ledger.duckdb") == before


def test_the_warning_starts_at_half_a_cent() -> None:
    """Each value's residue is at most 5e-13, so half a cent takes 10^10 rounded values in one period and
    column: the threshold is shown with residues given by hand."""
    reporter = Silent()
    rounding.warn_large(
        reporter,
        "azure",
        "2026-11",
        {"BilledCost": {"USD": Decimal("0.005"), "EUR": Decimal("0.004999999999999")}},
    )
    rounding.warn_large(reporter, "azure", "2026-12", {"EffectiveCost": {"USD": Decimal("-0.0051")}})
    assert reporter.messages == [
        (
            "warn",
            "azure 2026-11: rounding BilledCost to 12 decimal places left 0.005 USD out of the sum stored (the "
            "sum as written minus the sum stored); the bill's values carry more places than DECIMAL(38, 12) "
            "holds",
        ),
        (
            "warn",
            "azure 2026-12: rounding EffectiveCost to 12 decimal places left -0.0051 USD out of the sum stored "
            "(the sum as written minus the sum stored); the bill's values carry more places than "
            "DECIMAL(38, 12) holds",
        ),
    ]


def test_exact_sum_keeps_every_digit() -> None:
    """-1 + 5e-13 + 1e-40, by hand: Decimal's default context would round it to 28 digits."""
    assert rounding.exact_sum([(1, 40), (5, 13), (-1, 0)]) == Decimal(
        "-0.9999999999994999999999999999999999999999"
    )


LEDGER_HEADER = "date,amount,currency,project,phase,method,category,vendor\n"


def test_manual_amounts_with_long_decimals_are_rounded_and_their_residue_recorded(tmp_path: Path) -> None:
    amounts = ["0.0000000000025", "12.3456789012345678", "4e-13", "100.10"]
    ledger = tmp_path / "ledger.csv"
    ledger.write_text(
        LEDGER_HEADER + "".join(f"2026-11-02,{a},USD,qwen-coder,eval,sft,ops,Judge\n" for a in amounts),
        encoding="utf-8",
    )
    configure(tmp_path, f'[[sources]]\nname = "offcloud"\nkind = "manual"\nuri = "{ledger}"\n')

    result = trainledger(tmp_path, "ingest")

    assert result.exit_code == 0, result.stderr
    assert query(tmp_path, "SELECT billed_cost FROM charges ORDER BY source_row") == [
        (half_even(a),) for a in amounts
    ]
    residue = exact([written(a) for a in amounts]) - exact([half_even(a) for a in amounts])
    assert residue == Decimal("5e-13") + Decimal("-4.322e-13") + Decimal("4e-13")  # by hand
    assert ledger_entry(tmp_path, "offcloud")["rounding_residue"] == {"amount": {"USD": f"{residue:f}"}}


@pytest.mark.parametrize(
    ("amounts", "line", "message"),
    [
        (
            ["6" + "0" * 25, "-" + "6" + "0" * 25],
            3,
            "column amount: the amounts up to this row add up to 10^26 or more (signs aside), more than "
            "DECIMAL(38, 12) holds; expected a ledger whose totals fit",
        ),
        (["1e26"], 2, "column amount: expected an amount below 10^26, got '1e26'"),
    ],
)
def test_manual_amounts_past_decimal_38_12_are_refused_with_one_line(
    tmp_path: Path, amounts: list[str], line: int, message: str
) -> None:
    ledger = tmp_path / "ledger.csv"
    ledger.write_text(LEDGER_HEADER + "2026-11-01,1.00,USD,qwen-coder,eval,sft,ops,Judge\n", encoding="utf-8")
    configure(tmp_path, f'[[sources]]\nname = "offcloud"\nkind = "manual"\nuri = "{ledger}"\n')
    assert trainledger(tmp_path, "ingest").exit_code == 0
    before = warehouse_state(tmp_path / ".trainledger" / "ledger.duckdb")
    ledger.write_text(
        LEDGER_HEADER + "".join(f"2026-11-02,{a},USD,qwen-coder,eval,sft,ops,Judge\n" for a in amounts),
        encoding="utf-8",
    )

    result = trainledger(tmp_path, "ingest")

    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == f"trainledger: error: {ledger}:{line}, {message}"
    assert warehouse_state(tmp_path / ".trainledger" / "ledger.duckdb") == before


def test_llm_api_amounts_with_long_decimals_are_rounded_and_their_residue_recorded(tmp_path: Path) -> None:
    # OpenAI's amounts are JSON numbers in dollars, Anthropic's decimal strings in cents (tests/api_cost_fakes.py
    # writes each as the digits given): both may carry more than 12 places, the cents once divided by 100.
    openai = ["0.000520833333333333", "12.3456789012345678", "0.0000000000025", "40.19"]
    cents = ["0.00000000025", "123.78912345678901", "2500"]
    dollars = [str(Decimal(c).scaleb(-2)) for c in cents]  # 2.5E-12, 1.2378912345678901, 25.00
    (tmp_path / "openai").mkdir()
    (tmp_path / "anthropic").mkdir()
    (tmp_path / "openai" / "nov.json").write_text(
        page_text("openai", {date(2026, 11, 3): [("proj_a", "gpt-4o", v, "usd") for v in openai]})
    )
    (tmp_path / "anthropic" / "nov.json").write_text(
        page_text("anthropic", {date(2026, 11, 3): [("wrkspc_a", "Claude", c) for c in cents]})
    )
    configure(
        tmp_path,
        '[[sources]]\nname = "oai"\nkind = "openai-costs"\nuri = "openai"\n\n'
        '[[sources]]\nname = "claude"\nkind = "anthropic-costs"\nuri = "anthropic"\n',
    )
    result = trainledger(tmp_path, "ingest")
    assert result.exit_code == 0, result.stderr

    stored = query(tmp_path, "SELECT source, billed_cost FROM charges ORDER BY source, source_row")
    assert stored == [("claude", half_even(d)) for d in dollars] + [("oai", half_even(v)) for v in openai]
    # By hand: 0.000520833333|333333 rounds down (+3.33333e-13); 12.345678901234|5678 rounds up
    # (-4.322e-13); the tie 0.000000000002|5 goes to the even 2 (+5e-13); 40.19 is kept.
    openai_residue = exact([written(v) for v in openai]) - exact([half_even(v) for v in openai])
    assert openai_residue == Decimal("3.33333e-13") + Decimal("-4.322e-13") + Decimal("5e-13")
    # 0.00000000025 cents = $0.0000000000025, a tie, to 2e-12 (+5e-13); 123.78912345678901 cents =
    # $1.2378912345678901 to 1.237891234568 (-1.099e-13); 2500 cents = $25 is kept.
    claude_residue = exact([written(d) for d in dollars]) - exact([half_even(d) for d in dollars])
    assert claude_residue == Decimal("5e-13") + Decimal("-1.099e-13")
    assert ledger_entry(tmp_path, "oai")["rounding_residue"] == {
        "amount.value": {"USD": f"{openai_residue:f}"}
    }
    assert ledger_entry(tmp_path, "claude")["rounding_residue"] == {"amount": {"USD": f"{claude_residue:f}"}}
