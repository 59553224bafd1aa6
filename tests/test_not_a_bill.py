"""A file that is not a bill of its source's kind gets one line about the file: what it looks like and what
was expected (issue 30, point 4), never a message about a manifest or folder the user did not name.

The file here is a Hive/Athena text table as Athena's default LazySimpleSerDe writes one (Hive language
manual, "Row Formats & SerDe"): no header, fields separated by \\x01, NULL as \\N, gzip-compressed, named
like a Hive task's output (000000_0.gz). Someone pointing trainledger at a CUR's Athena table location
gets exactly this.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import duckdb
import pytest

from conftest import Project


def hive_text_table(path: Path, rows: int = 20, seed: int = 30) -> Path:
    """A seeded Hive text table of CUR-like columns (account, usage start, line item type, cost)."""
    rng = random.Random(seed)
    lines = []
    for hour in range(rows):
        kind = rng.choice(["Usage", "Usage", "Tax"])
        cost = "\\N" if kind == "Tax" and hour % 5 == 0 else f"{rng.randint(1, 99999) / 10**6:.6f}"
        lines.append("\x01".join(["123412340534", f"2023-11-01 {hour % 24:02d}:00:00", kind, cost]))
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8", newline="\n") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def refused(run, project: Project, kind: str, uri: Path) -> str:
    project.write_config(f'[[sources]]\nname = "bill"\nkind = "{kind}"\nuri = "{uri}"\n')
    result = run("ingest")
    assert result.exit_code == 1, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("trainledger: error:")]
    assert len(errors) == 1 and "Traceback" not in result.stderr
    if project.warehouse.exists():
        con = duckdb.connect(str(project.warehouse), read_only=True)
        assert con.execute("SELECT count(*) FROM charges").fetchone() == (0,)
        con.close()
    return errors[0].removeprefix("trainledger: error: ")


def test_a_hive_text_table_given_to_the_legacy_cur_reader(run, project: Project, tmp_path: Path) -> None:
    table = hive_text_table(tmp_path / "athena" / "000000_0.gz")
    assert refused(run, project, "aws-cur", table) == (
        f"{table}: a gzip file of text with fields separated by \\x01 (a Hive/Athena text table), not a legacy "
        "CUR report; expected a report file (.csv, .csv.gz or .parquet) or the report's folder "
        "<prefix>/<report name> with its yyyymmdd-yyyymmdd/<report>-Manifest.json"
    )


@pytest.mark.parametrize(("kind", "what"), [("aws-cur2", "CUR 2.0"), ("aws-focus", "FOCUS export")])
def test_a_hive_text_table_given_to_a_data_exports_reader(
    run, project: Project, tmp_path: Path, kind: str, what: str
) -> None:
    table = hive_text_table(tmp_path / "athena" / "000000_0.gz")
    assert refused(run, project, kind, table) == (
        f"{table}: a gzip file of text with fields separated by \\x01 (a Hive/Athena text table), not a Data "
        f"Exports folder; expected uri = <prefix>/<export name>, a folder with data/ and metadata/ inside ({what})"
    )


@pytest.mark.parametrize("name", ["000000_0.gz", "part-00000.csv.gz"])
def test_a_hive_text_table_given_to_the_focus_reader(
    run, project: Project, tmp_path: Path, name: str
) -> None:
    table = hive_text_table(tmp_path / "athena" / name)
    assert refused(run, project, "focus", table) == (
        f"{table}: fields are separated by \\x01 (Hive/Athena text), not commas; expected a CSV file with a "
        "header line"
    )


def test_a_hive_text_table_named_as_a_cur_chunk(run, project: Project, tmp_path: Path) -> None:
    """Named like a CUR chunk, it is read as CSV and found out by its separator."""
    table = hive_text_table(tmp_path / "athena" / "report-00001.csv.gz")
    assert refused(run, project, "aws-cur", table) == (
        f"{table}: fields are separated by \\x01 (Hive/Athena text), not commas; expected a CSV file with a "
        "header line"
    )


@pytest.mark.parametrize("kind", ["gcp-billing", "gcp-focus"])
def test_a_hive_text_table_given_to_a_gcp_export_reader(
    run, project: Project, tmp_path: Path, kind: str
) -> None:
    table = hive_text_table(tmp_path / "athena" / "000000_0.gz")
    assert refused(run, project, kind, table) == (
        f"{table}: a gzip file of text with fields separated by \\x01 (a Hive/Athena text table), not parquet "
        "or JSON Lines; expected the export's rows as parquet or JSON Lines (.parquet, .json, .jsonl, .ndjson, "
        ".json.gz, .jsonl.gz, .ndjson.gz)"
    )
