"""Formula cells (issue 22 item 5): spreadsheets strip leading blanks and read the full-width equals (U+FF1D) as =, so
text that starts a formula after them is quoted too; money stays a plain number."""

from __future__ import annotations

import csv
import io

import pytest

from conftest import Project
from focus_files import write_focus
from trainledger.core.files import safe_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("=1+1", "'=1+1"),
        (" =1+1", "' =1+1"),
        ("\u00a0+cmd|' /C calc'!A0", "'\u00a0+cmd|' /C calc'!A0"),
        ("\u200b-2+3", "'\u200b-2+3"),
        ("\n@SUM(A1:A9)", "'\n@SUM(A1:A9)"),
        ("  \u00a0\u200b =HYPERLINK(1)", "'  \u00a0\u200b =HYPERLINK(1)"),
        ("＝1+1", "'＝1+1"),
        (" ＝1+1", "' ＝1+1"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        # Not formulas: kept exactly.
        ("qwen-coder", "qwen-coder"),
        (" qwen", " qwen"),
        ("a=b", "a=b"),
        ("", ""),
        ("\n", "\n"),
        ("111122223333", "111122223333"),
    ],
)
def test_safe_text_quotes_formulas_behind_blanks(text: str, expected: str) -> None:
    assert safe_text(text) == expected


def test_the_csv_export_quotes_formulas_behind_blanks_and_keeps_money_numbers(run, project: Project) -> None:
    write_focus(
        project.root / "bill.csv",
        [
            {
                "BilledCost": "-12.50",
                "BillingAccountId": " =2+5",
                "SubAccountId": "\u00a0@A1",
                "ServiceName": "＝cmd()",
                "Tags": {"project": "ok", "phase": "train", "method": "sft"},
            }
        ],
    )
    project.write_config(
        '[[sources]]\nname = "bill"\nkind = "focus"\nuri = "bill.csv"\n\n[exports]\ndir = "exports"\n'
    )
    assert run("nightly").exit_code == 0
    export = (project.root / "exports" / "trainledger-2026-11.csv").read_text(encoding="utf-8")
    row = next(csv.DictReader(io.StringIO(export)))
    assert row["billing_account_id"] == "' =2+5"
    assert row["sub_account_id"] == "'\u00a0@A1"
    assert row["service_name"] == "'＝cmd()"
    assert (row["billed_cost"], row["effective_cost"], row["list_cost"]) == ("-12.50", "-12.50", "-12.50")
