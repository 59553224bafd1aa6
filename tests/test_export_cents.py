"""`export --cents`: money rounded per row by largest remainder, so every (billing period, account,
currency) total still ties to the invoice to the cent. Expected values are hand arithmetic or Decimal sums
over the raw bill read by another reader (pyarrow, csv)."""

from __future__ import annotations

import csv
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import ROOT, Project
from focus_files import write_focus
from trainledger.outputs.cents import largest_remainder

D = Decimal
CENT = D("0.01")


def test_three_thirds_of_two_cents_are_one_one_and_zero() -> None:
    # Each share 0.006666666667: rounded alone each is 0.01 and they sum to 0.03, not the billed 0.02.
    third = D("0.006666666667")
    assert largest_remainder([third, third, third]) == [D("0.01"), D("0.01"), D("0.00")]


def test_missing_cents_go_to_the_largest_remainders() -> None:
    # 1.004 + 2.003 + 0.997 = 4.004 -> 4.00; floors 1.00 + 2.00 + 0.99 = 3.99: one cent missing;
    # remainders 0.004, 0.003, 0.007 -> the cent goes to 0.997.
    assert largest_remainder([D("1.004"), D("2.003"), D("0.997")]) == [D("1.00"), D("2.00"), D("1.00")]
    # 1.004 + 2.009 + 0.997 = 4.010; floors 3.99: two cents missing -> to 2.009 (0.009) and 0.997 (0.007).
    assert largest_remainder([D("1.004"), D("2.009"), D("0.997")]) == [D("1.00"), D("2.01"), D("1.00")]
    # 1.005 + 2.005 = 3.01 (not 3.02 as rounding each half up would give): the earlier row wins the tie.
    assert largest_remainder([D("1.005"), D("2.005")]) == [D("1.01"), D("2.00")]
    # The total rounds half up as an invoice does: 0.0025 + 0.0025 = 0.005 -> 0.01.
    assert largest_remainder([D("0.0025"), D("0.0025")]) == [D("0.01"), D("0.00")]


def test_credits_round_too() -> None:
    # -0.005 + 0.015 = 0.010; floors -0.01 + 0.01 = 0.00; remainders 0.005 each -> the first gets the cent.
    assert largest_remainder([D("-0.005"), D("0.015")]) == [D("0.00"), D("0.01")]
    # A credit alone: -2.345 + -1.111 = -3.456 -> -3.46; floors -2.35 + -1.12 = -3.47; one cent to the
    # larger remainder (0.009 of -1.111 against 0.005 of -2.345).
    assert largest_remainder([D("-2.345"), D("-1.111")]) == [D("-2.35"), D("-1.11")]


def test_nothing_to_round_stays_as_it_is() -> None:
    assert largest_remainder([D("1.10"), D("-0.10"), D("0")]) == [D("1.10"), D("-0.10"), D("0.00")]
    assert largest_remainder([]) == []


def _rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


def test_each_account_ties_to_its_own_invoice(run, project: Project) -> None:
    third = "0.006666666667"
    write_focus(
        project.root / "bill.csv",
        [
            {"BillingAccountId": "000111", "ServiceName": name, "BilledCost": third}
            for name in ("svc-a", "svc-b", "svc-c")
        ]
        + [
            {"BillingAccountId": "000222", "ServiceName": "svc-a", "BilledCost": "1.005"},
            {"BillingAccountId": "000222", "ServiceName": "svc-b", "BilledCost": "2.005"},
        ],
    )
    project.write_config('[[sources]]\nname = "bill"\nkind = "focus"\nuri = "bill.csv"\n')
    assert run("nightly").exit_code == 0
    assert run("export", "--period", "2026-11", "--cents", "--out", "cents.csv").exit_code == 0
    rows = _rows(project.root / "cents.csv")
    assert [(r["billing_account_id"], r["service_name"], r["billed_cost"]) for r in rows] == [
        ("000111", "svc-a", "0.01"),
        ("000111", "svc-b", "0.01"),
        ("000111", "svc-c", "0.00"),
        ("000222", "svc-a", "1.01"),
        ("000222", "svc-b", "2.00"),
    ]
    # --by rounds at full detail first: the one row left is 0.02 + 3.01, each account still to the cent.
    assert run("export", "--period", "2026-11", "--cents", "--by", "project", "--out", "p.csv").exit_code == 0
    assert [r["billed_cost"] for r in _rows(project.root / "p.csv")] == ["3.03"]
    # Without --cents: full precision, as before.
    assert run("export", "--period", "2026-11", "--out", "full.csv").exit_code == 0
    assert [r["billed_cost"] for r in _rows(project.root / "full.csv")][:1] == [third]


def _raw_demo_invoices(demo_files: Path) -> dict[tuple[str, str, str], Decimal]:
    """(period, account, currency) -> billed total, from the raw files: the CUR 2.0 parquet (pyarrow) and
    the off-cloud ledger (csv; its account is the source's name)."""
    totals: dict[tuple[str, str, str], Decimal] = defaultdict(Decimal)
    columns = ["bill_payer_account_id", "line_item_currency_code", "line_item_unblended_cost"]
    for path in sorted((demo_files / "aws/cur/ml-cur2/data").rglob("*.parquet")):
        table = pq.read_table(path, columns=columns).to_pylist()
        for row in table:
            key = ("2026-11", row["bill_payer_account_id"], row["line_item_currency_code"])
            totals[key] += Decimal(repr(row["line_item_unblended_cost"]))
    for row in csv.DictReader((ROOT / "fixtures" / "offcloud-ledger.csv").open(encoding="utf-8")):
        totals[("2026-11", "offcloud", row["currency"])] += Decimal(row["amount"])
    return totals


@pytest.mark.usefixtures("ran")
def test_demo_cents_tie_to_the_rounded_invoice(run, project: Project, demo_files: Path) -> None:
    assert run("export", "--period", "2026-11", "--cents", "--out", "cents.csv").exit_code == 0
    assert run("export", "--period", "2026-11", "--out", "full.csv").exit_code == 0
    cents, full = _rows(project.root / "cents.csv"), _rows(project.root / "full.csv")
    assert len(cents) == len(full) > 30
    billed: dict[tuple[str, str, str], Decimal] = defaultdict(Decimal)
    for c, f in zip(cents, full, strict=True):
        assert [c[k] for k in list(c)[:12]] == [f[k] for k in list(f)[:12]]  # same rows, same order
        for money in ("billed_cost", "effective_cost", "list_cost"):
            rounded, exact = Decimal(c[money]), Decimal(f[money])
            assert rounded == rounded.quantize(CENT) and abs(rounded - exact) < CENT
        billed[(c["billing_period"], c["billing_account_id"], c["currency"])] += Decimal(c["billed_cost"])
    invoices = _raw_demo_invoices(demo_files)
    assert set(billed) == set(invoices)
    for key, total in invoices.items():
        assert billed[key] == total.quantize(CENT, ROUND_HALF_UP), key
    # Effective and list cost tie the same way to their own totals rounded to the cent.
    for money in ("effective_cost", "list_cost"):
        exact_sum = sum((Decimal(f[money]) for f in full), Decimal(0))
        assert sum(Decimal(c[money]) for c in cents) == exact_sum.quantize(CENT, ROUND_HALF_UP)
