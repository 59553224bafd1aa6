"""`export --format xlsx`: read back by other readers than the writer (openpyxl, and the raw zip's XML),
checked against Decimal sums of the CSV export of the same period."""

from __future__ import annotations

import csv
import re
import zipfile
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from xml.etree import ElementTree

import openpyxl
import pytest

from conftest import Project
from focus_files import write_focus

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
MONEY = ("billed_cost", "effective_cost", "list_cost")


def _raw_cells(path: Path, sheet: int = 1) -> dict[str, tuple[str | None, str | None, str | None]]:
    """Cell reference -> (type attribute, formula, value text), straight from the sheet's XML."""
    with zipfile.ZipFile(path) as z:
        root = ElementTree.fromstring(z.read(f"xl/worksheets/sheet{sheet}.xml"))
    out = {}
    for c in root.iterfind(".//m:sheetData/m:row/m:c", NS):
        f, v = c.find("m:f", NS), c.find("m:v", NS)
        out[c.attrib["r"]] = (
            c.attrib.get("t"),
            None if f is None else f.text,
            None if v is None else v.text,
        )
    return out


def _widths(path: Path) -> list[float]:
    """Each column's width from the sheet's <cols> ranges."""
    with zipfile.ZipFile(path) as z:
        root = ElementTree.fromstring(z.read("xl/worksheets/sheet1.xml"))
    widths: list[float] = []
    for col in root.iterfind("m:cols/m:col", NS):
        widths.extend([float(col.attrib["width"])] * (int(col.attrib["max"]) - int(col.attrib["min"]) + 1))
    return widths


def _sig16(value: Decimal) -> Decimal:
    """What a spreadsheet number keeps of an amount: 16 significant digits."""
    return Decimal(f"{value:.16G}")


def _export_both(run, project: Project, *extra: str) -> tuple[list[dict[str, str]], Path]:
    assert run("export", "--period", "2026-11", *extra, "--out", "nov.csv").exit_code == 0
    result = run("export", "--period", "2026-11", "--format", "xlsx", *extra, "--out", "nov.xlsx")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader((project.root / "nov.csv").open(encoding="utf-8")))
    return rows, project.root / "nov.xlsx"


@pytest.mark.usefixtures("ran")
def test_the_demo_workbook_matches_the_csv(run, project: Project) -> None:
    rows, path = _export_both(run, project)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["allocations", "columns"]
    sheet = book["allocations"]
    header = [c.value for c in sheet[1]]
    assert header == list(rows[0])
    assert sheet.freeze_panes == "A2"
    widths = _widths(path)
    assert all(widths[i] >= len(h) for i, h in enumerate(header))
    assert widths[header.index("service_name")] > len("Savings Plans for AWS Compute usage")

    raw = _raw_cells(path)
    for n, row in enumerate(rows, start=2):
        cells = {h: sheet.cell(row=n, column=i + 1) for i, h in enumerate(header)}
        for name, cell in cells.items():
            if name in MONEY:
                assert cell.data_type == "n" and cell.number_format == "#,##0.00"
                # Stored unrounded: the XML's number is the CSV's amount (to a spreadsheet's 16 digits).
                t, _, text = raw[cell.coordinate]
                assert t is None and Decimal(text or "") == _sig16(Decimal(row[name]))
            elif row[name] == "":
                assert cell.value is None
            else:
                assert (cell.data_type, cell.value) == ("s", row[name])
    account = sheet.cell(row=2, column=header.index("billing_account_id") + 1)
    assert account.value == "111122223333" and account.number_format == "@"

    # One totals row per currency (the demo has USD only), a formula with the exact sum cached.
    total_row = len(rows) + 3
    assert sheet.cell(row=len(rows) + 2, column=1).value is None
    assert sheet.cell(row=total_row, column=1).value == "total"
    assert sheet.cell(row=total_row, column=header.index("currency") + 1).value == "USD"
    formulas = {ref: f for ref, (_, f, _) in raw.items() if f is not None}
    assert formulas == {
        f"{col}{total_row}": f"SUMIFS(${col}$2:${col}${len(rows) + 1},$L$2:$L${len(rows) + 1},$L${total_row})"
        for col in "MNO"
    }
    for col, name in zip("MNO", MONEY, strict=True):
        exact = sum((Decimal(r[name]) for r in rows), Decimal(0))
        assert Decimal(raw[f"{col}{total_row}"][2] or "") == exact
    cached = openpyxl.load_workbook(path, data_only=True)["allocations"]
    assert cached.cell(row=total_row, column=13).value == float(
        sum((Decimal(r["billed_cost"]) for r in rows), Decimal(0))
    )

    explained = [(r[0].value, r[1].value) for r in book["columns"].iter_rows(min_row=2) if r[0].value]
    assert [name for name, _ in explained[: len(header)]] == header
    assert "tie to the invoice" in dict(explained)["billed_cost"]
    notes = [text for name, text in explained if name == "note"]
    assert notes[0].startswith("Which cost ties to the invoice: billed_cost.")


def test_ids_stay_text_formulas_stay_inert_and_totals_split_by_currency(run, project: Project) -> None:
    write_focus(
        project.root / "bill.csv",
        [
            {"BillingAccountId": "000111222333", "SubAccountId": "0042", "BilledCost": "10.125"},
            {"BillingAccountId": "000111222333", "ServiceName": " =1+1", "BilledCost": "-2.50"},
            {
                "BillingAccountId": "999",
                "BillingCurrency": "EUR",
                "ServiceName": "@SUM(A1)",
                "BilledCost": "7.000000000001",
            },
        ],
    )
    project.write_config('[[sources]]\nname = "bill"\nkind = "focus"\nuri = "bill.csv"\n')
    assert run("nightly").exit_code == 0
    rows, path = _export_both(run, project)
    sheet = openpyxl.load_workbook(path)["allocations"]
    header = [c.value for c in sheet[1]]
    values = [[c.value for c in r] for r in sheet.iter_rows(min_row=2, max_row=len(rows) + 1)]
    accounts = [v[header.index("billing_account_id")] for v in values]
    assert accounts == ["000111222333", "000111222333", "999"]  # no 1.11E+11, no lost zeros
    assert "0042" in [v[header.index("sub_account_id")] for v in values]
    services = [v[header.index("service_name")] for v in values]
    assert "' =1+1" in services and "'@SUM(A1)" in services
    billed = [v[header.index("billed_cost")] for v in values]
    assert sorted(billed) == sorted(float(Decimal(r["billed_cost"])) for r in rows)
    assert all(isinstance(b, float) for b in billed)

    raw = _raw_cells(path)
    assert all(t != "str" for ref, (t, f, _) in raw.items() if f is None)  # no formula but the totals
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for r in rows:
        totals[r["currency"]] += Decimal(r["billed_cost"])
    first_total = len(rows) + 3
    found = {
        sheet.cell(row=first_total + n, column=12).value: Decimal(raw[f"M{first_total + n}"][2] or "")
        for n in range(len(totals))
    }
    assert found == {"EUR": Decimal("7.000000000001"), "USD": Decimal("7.625")}
    assert found == dict(totals)


@pytest.mark.usefixtures("ran")
def test_cents_in_the_workbook_and_the_same_bytes_twice(run, project: Project) -> None:
    rows, path = _export_both(run, project, "--cents")
    first = path.read_bytes()
    sheet = openpyxl.load_workbook(path)["allocations"]
    for n, row in enumerate(rows, start=2):
        assert Decimal(str(sheet.cell(row=n, column=13).value)) == Decimal(row["billed_cost"])
    assert (
        run("export", "--period", "2026-11", "--format", "xlsx", "--cents", "--out", "nov.xlsx").exit_code
        == 0
    )
    assert path.read_bytes() == first


@pytest.mark.usefixtures("ran")
def test_nightly_writes_every_listed_format(run, project: Project) -> None:
    single = (project.root / "exports" / "trainledger-2026-11.csv").read_bytes()
    config = project.config.read_text(encoding="utf-8")
    project.write_config(
        re.sub(
            r'\[exports\]\ndir = "exports"',
            '[exports]\ndir = "exports"\nformat = ["csv", "xlsx", "focus"]',
            config,
        )
    )
    assert run("nightly").exit_code == 0
    files = sorted(p.name for p in (project.root / "exports").iterdir() if p.name.startswith("trainledger-"))
    assert files == ["trainledger-2026-11-focus.csv", "trainledger-2026-11.csv", "trainledger-2026-11.xlsx"]
    assert (project.root / "exports" / "trainledger-2026-11.csv").read_bytes() == single
    book = openpyxl.load_workbook(project.root / "exports" / "trainledger-2026-11.xlsx")
    assert book["allocations"].max_row > 30


@pytest.mark.usefixtures("ran")
def test_bad_combinations_and_formats_are_refused(run, project: Project) -> None:
    result = run("export", "--period", "2026-11", "--format", "focus", "--cents", "--out", "f.csv")
    assert result.exit_code == 1 and "--cents applies to --format csv and xlsx" in result.stderr
    config = project.config.read_text(encoding="utf-8")
    project.write_config(config.replace('dir = "exports"', 'dir = "exports"\nformat = ["csv", "pdf"]'))
    result = run("nightly")
    assert result.exit_code == 1
    assert "'pdf' is not one of 'csv', 'xlsx' or 'focus'" in result.stderr
