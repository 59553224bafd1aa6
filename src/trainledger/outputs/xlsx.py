"""The finance export as a workbook (`export --format xlsx`): the CSV's rows, typed for a spreadsheet.

XlsxWriter writes it (a well-kept, dependency-free writer whose output is byte-identical run to run when
the creation date is fixed; we never read workbooks back). Ids and account numbers are text cells, so no
`1.11E+11` and no lost leading zero; money is numeric, shown to the cent and stored unrounded; each
currency gets a totals row that is a formula the spreadsheet recomputes; a second sheet says what every
column means and which cost ties to the invoice.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal

import xlsxwriter

from trainledger.core.files import safe_text

NOTES = {
    "billing_period": "The invoice month (YYYY-MM) the charge was billed in.",
    "provider": "Cloud or ledger the charge came from: aws, gcp, azure, oci, ... or manual (off-cloud ledger).",
    "billing_account_id": "The account the invoice is issued to (AWS payer account, GCP billing account).",
    "sub_account_id": "The account that used the resource (AWS linked account, GCP project).",
    "project": "The training project the cost was attributed to (empty when none).",
    "phase": "data, train, rollout, eval; idle for a project's machines between runs.",
    "method": "Post-training method (sft, rl, opd, ...).",
    "experiment_id": "The experiment (run) the cost belongs to, from tags or the experiment log.",
    "cost_category": "compute, storage, network, data, ops or other, from the service and usage type.",
    "service_name": "The provider's service name as billed.",
    "rule": "How the cost was placed: tag (an off-cloud ledger row's labels too), inventory, time-window; "
    "idle (a project's machine or reserved GPU capacity with no run: reason unused-commitment for the "
    "latter), shared (tax, support, discounts, commitment fees), unattributed (the reason is in the FOCUS "
    "export's x_AllocationReason and in `trainledger labels`).",
    "currency": "Billing currency (ISO 4217); amounts in different currencies are never added.",
    "billed_cost": "What the invoice charges: sums to the invoice per billing period, account and "
    "currency. Use it to tie to the invoice and for accruals.",
    "effective_cost": "Amortised cost net of credits and discounts (upfront commitments spread over "
    "their term): what the work really cost. Use it for chargeback and experiment cost.",
    "list_cost": "The public on-demand price of the same usage: savings = list_cost - effective_cost.",
}


def _widths(rows: Sequence[Sequence[object]], columns: Sequence[str], money: set[str]) -> list[int]:
    widths = []
    for i, column in enumerate(columns):
        longest = max((len(str(row[i])) for row in rows if row[i] is not None), default=0)
        widths.append(max(14 if column in money else 8, len(column), min(longest, 48)) + 2)
    return widths


def render(
    rows: Sequence[Sequence[object]],
    columns: Sequence[str],
    money: set[str],
    period: str,
    cents: bool = False,
) -> bytes:
    """The workbook's bytes: sheet `allocations` (header, rows, totals per currency) and sheet `columns`."""
    out = io.BytesIO()
    book = xlsxwriter.Workbook(
        out, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False}
    )
    # Created "at" the period's first day, not now: the same rows give the same bytes (nightly's
    # unchanged-file check, and byte-identical exports run to run).
    created = datetime.strptime(period, "%Y-%m").replace(tzinfo=UTC)
    book.set_properties({"title": f"trainledger finance export {period}", "created": created})
    head = book.add_format({"bold": True, "bg_color": "#F5F7FA", "bottom": 1})
    text = book.add_format({"num_format": "@"})
    amount = book.add_format({"num_format": "#,##0.00"})
    total_text = book.add_format({"bold": True, "top": 1, "num_format": "@"})
    total_amount = book.add_format({"bold": True, "top": 1, "num_format": "#,##0.00"})

    sheet = book.add_worksheet("allocations")
    for i, (column, width) in enumerate(zip(columns, _widths(rows, columns, money), strict=True)):
        sheet.set_column(i, i, width)
        sheet.write_string(0, i, column, head)
    sheet.freeze_panes(1, 0)
    for r, row in enumerate(rows, start=1):
        for i, (column, value) in enumerate(zip(columns, row, strict=True)):
            if value is None:
                continue
            if column in money:
                sheet.write_number(r, i, Decimal(value), amount)  # type: ignore[arg-type]
            else:
                sheet.write_string(r, i, safe_text(str(value)), text)
    if rows:
        sheet.autofilter(0, 0, len(rows), len(columns) - 1)
    _totals(sheet, rows, columns, money, total_text, total_amount)
    _columns_sheet(book, columns, head, cents)
    book.close()
    return out.getvalue()


def _totals(
    sheet: xlsxwriter.worksheet.Worksheet,
    rows: Sequence[Sequence[object]],
    columns: Sequence[str],
    money: set[str],
    label: xlsxwriter.format.Format,
    amount: xlsxwriter.format.Format,
) -> None:
    """Below the rows, after one empty row: per currency, SUMIFS over the money columns by the currency
    cell of the totals row itself (no value is pasted into a formula). The cached result is the exact
    sum, for readers that do not recalculate."""
    cur = columns.index("currency")
    first, last = 2, len(rows) + 1  # spreadsheet row numbers of the data
    currencies = sorted({str(row[cur]) for row in rows if row[cur] is not None})
    for n, currency in enumerate(currencies):
        r = len(rows) + 2 + n
        sheet.write_string(r, 0, "total", label)
        sheet.write_string(r, cur, safe_text(currency), label)
        for i, column in enumerate(columns):
            if column not in money:
                continue
            col = xlsxwriter.utility.xl_col_to_name(i)
            cur_col = xlsxwriter.utility.xl_col_to_name(cur)
            exact = sum(
                (Decimal(row[i]) for row in rows if str(row[cur]) == currency),  # type: ignore[arg-type]
                Decimal(0),
            )
            formula = (
                f"=SUMIFS(${col}${first}:${col}${last},${cur_col}${first}:${cur_col}${last},"
                f"${cur_col}${r + 1})"
            )
            sheet.write_formula(r, i, formula, amount, exact)


def _columns_sheet(
    book: xlsxwriter.Workbook, columns: Sequence[str], head: xlsxwriter.format.Format, cents: bool
) -> None:
    sheet = book.add_worksheet("columns")
    wrap = book.add_format({"text_wrap": True, "valign": "top"})
    sheet.set_column(0, 0, 20)
    sheet.set_column(1, 1, 100, wrap)
    sheet.write_string(0, 0, "column", head)
    sheet.write_string(0, 1, "meaning", head)
    for r, column in enumerate(columns, start=1):
        sheet.write_string(r, 0, column)
        sheet.write_string(r, 1, NOTES[column], wrap)
    money_note = (
        "Amounts are rounded to the cent per row so that every billing period, account and currency "
        "still sums to its total rounded to the cent (largest remainder; --cents)."
        if cents
        else "Amounts are shown to the cent but stored unrounded (a spreadsheet number keeps about 15 "
        "significant digits; the CSV export has all 12 decimals)."
    )
    notes = [
        "Which cost ties to the invoice: billed_cost. Its total per billing period, billing account and "
        "currency is the invoice's.",
        money_note,
        "The totals rows below the data are formulas (SUMIFS by currency): the spreadsheet recomputes them, "
        "and filtering or editing rows changes them.",
        "Text that a spreadsheet would run as a formula (starting with = + - @, also after spaces) starts "
        "with a ' quote.",
    ]
    for n, note in enumerate(notes, start=len(columns) + 2):
        sheet.write_string(n, 0, "note")
        sheet.write_string(n, 1, note, wrap)
