"""Google's export files (gcp-billing, gcp-focus as parquet and JSON Lines) read by Spark itself: the GCP test
months give DuckDB's charges, ingest state and byte-identical exports through `nightly`, an unchanged export
is skipped, a bad row is the same one line on both engines (JSON Lines rows numbered as DuckDB numbers them,
also when Spark splits a file among tasks), money rounded and its residue recorded to the last digit, and the
BigQuery route (`table`) and a malformed JSON line are refused on Spark in one line.

Expected values come from the files read by other readers: the JSON Lines through ``json`` (each FLOAT's
shortest text, summed with Decimal), the parquet through pyarrow, rows counted line by line. No real GCP
export is in the shared reference data (its folders are AWS CUR and the FOCUS sample), so none is read here.
The Spark session is the process's (local[2]), shared with the other Spark tests. Skipped where Java or
pyspark is missing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import gcp_focus_month
import gcp_month
import generate_gcp
from conftest import Project
from spark_checks import ON_SPARK_WORKER, cli_in, duckdb_charges, require_spark, spark_charges

pytestmark = [pytest.mark.slow, ON_SPARK_WORKER]

require_spark()

# Splits of 64 KiB: the generated export's first file (about 500 KB) is read by several tasks.
SPARK = (
    'engine = "spark"\nmaster = "local[2]"\n'
    'spark_conf = { "spark.sql.shuffle.partitions" = "2", "spark.ui.enabled" = "false", '
    '"spark.sql.files.maxPartitionBytes" = "65536" }\n'
)
ENGINES = ("duckdb", "spark")
NOVEMBER_NET = Decimal(
    "14691.21"
)  # the generated export's invoice month 202611: whole cents (test_gcp_billing)


def _project(root: Path, engine: str, sources: dict[str, tuple[str, Path]]) -> Project:
    """A project on ``engine`` reading ``sources`` (name: kind, uri), with exports, as a user sets one up."""
    root.mkdir(parents=True)
    project = Project(root)
    entries = "".join(
        f'[[sources]]\nname = "{name}"\nkind = "{kind}"\nuri = "{uri}"\n'
        for name, (kind, uri) in sources.items()
    )
    project.write_config(
        '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
        + (SPARK if engine == "spark" else "")
        + entries
        + f'[experiments]\nuri = "{root / "experiments.jsonl"}"\n[exports]\ndir = "{root / "exports"}"\n'
    )
    return project


def _json_lines(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(folder.glob("*.json"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _ingest_state(project: Project) -> list[tuple[Any, ...]]:
    """Each period's recorded state, its time of recording left out (the two engines ran at other times)."""
    with duckdb.connect(str(project.warehouse), read_only=True) as con:
        return con.execute(
            "SELECT source, billing_period, version, files, row_count, billed_total FROM ingest_state ORDER BY ALL"
        ).fetchall()


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated November export (parquet and JSON Lines, two appends) and the FOCUS test month."""
    root = tmp_path_factory.mktemp("gcp")
    generate_gcp.main(["--out", str(root)])
    gcp_focus_month.write_jsonl(root / "focus" / "jsonl" / "focus-000.json")
    gcp_focus_month.write_parquet(root / "focus" / "parquet" / "focus-000.parquet")
    return root


@pytest.fixture(scope="module")
def nightly_on_both(exports: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Project]]:
    """The detailed export as JSON Lines and the FOCUS month as parquet through `nightly` on each engine."""
    sources = {
        "billing": ("gcp-billing", exports / "gcp" / "billing" / "jsonl"),
        "focus": ("gcp-focus", exports / "focus" / "parquet"),
    }
    projects = {}
    for engine in ENGINES:
        project = _project(tmp_path_factory.mktemp("nightly") / engine, engine, sources)
        result = cli_in(project.root)("nightly")
        assert result.exit_code == 0, result.stderr
        projects[engine] = project
    yield projects


def test_the_gcp_months_read_by_spark_give_duckdbs_charges_and_exports(
    nightly_on_both: dict[str, Project], exports: Path
) -> None:
    rows = _json_lines(exports / "gcp" / "billing" / "jsonl")
    focus = pq.read_table(exports / "focus" / "parquet" / "focus-000.parquet")
    expected = duckdb_charges(nightly_on_both["duckdb"])
    assert len(expected) == len(rows) + focus.num_rows == 400 + 25  # every record of each file
    november = sum(
        (
            Decimal(repr(r["cost"])) + sum((Decimal(repr(c["amount"])) for c in r["credits"]), Decimal(0))
            for r in rows
            if r["invoice"]["month"] == "202611"
        ),
        Decimal(0),
    )
    assert november == NOVEMBER_NET
    assert spark_charges(nightly_on_both["spark"]) == expected
    with duckdb.connect(str(nightly_on_both["duckdb"].warehouse), read_only=True) as con:
        assert con.execute(
            "SELECT sum(billed_cost) FROM charges WHERE source = 'billing' AND billing_period = '2026-11'"
        ).fetchall() == [(november,)]
    names = sorted(p.name for p in (nightly_on_both["duckdb"].root / "exports").iterdir())
    assert names == [
        "alerts.json",
        "trainledger-2026-11.csv",
        "trainledger-2026-12.csv",
        "trainledger-2027-01.csv",
    ]
    for name in names:
        assert (nightly_on_both["spark"].root / "exports" / name).read_bytes() == (
            nightly_on_both["duckdb"].root / "exports" / name
        ).read_bytes()


def test_the_watermark_is_duckdbs_and_an_unchanged_export_is_skipped_on_spark(
    nightly_on_both: dict[str, Project],
) -> None:
    state = _ingest_state(nightly_on_both["duckdb"])
    assert {version for _, _, version, *_ in state} == {
        f"export_time<={generate_gcp.EXPORT_2.replace(tzinfo=None).isoformat()}",  # the later append's time
        f"export_time<={gcp_month.EXPORTED.replace(tzinfo=None).isoformat()}",
    }
    assert _ingest_state(nightly_on_both["spark"]) == state
    before = spark_charges(nightly_on_both["spark"])
    again = {engine: cli_in(nightly_on_both[engine].root)("ingest") for engine in ENGINES}
    assert again["spark"].exit_code == 0, again["spark"].stderr
    assert again["spark"].stdout == again["duckdb"].stdout
    assert again["spark"].stdout.count("\tunchanged\n") == 3  # 2026-11, 2026-12, 2027-01
    assert spark_charges(nightly_on_both["spark"]) == before == duckdb_charges(nightly_on_both["duckdb"])


def test_parquet_billing_and_json_lines_focus_read_by_spark_give_duckdbs_charges(
    exports: Path, tmp_path: Path
) -> None:
    sources = {
        "billing": ("gcp-billing", exports / "gcp" / "billing" / "parquet"),
        "focus": ("gcp-focus", exports / "focus" / "jsonl" / "focus-000.json"),
    }
    found = {}
    for engine in ENGINES:
        found[engine] = _project(tmp_path / engine, engine, sources)
        result = cli_in(found[engine].root)("ingest")
        assert result.exit_code == 0, result.stderr
    parquet_rows = sum(
        pq.ParquetFile(p).metadata.num_rows
        for p in (exports / "gcp" / "billing" / "parquet").glob("*.parquet")
    )
    expected = duckdb_charges(found["duckdb"])
    assert len(expected) == parquet_rows + len(_json_lines(exports / "focus" / "jsonl")) == 400 + 25
    assert spark_charges(found["spark"]) == expected


def _bad_json_lines(exports: Path, folder: Path) -> tuple[Path, str]:
    """The first append as JSON Lines, its 300th record's cost 'twelve', blank lines before it (records, not
    lines, are numbered), far enough into the file to be read by another task than the first."""
    lines = (
        (exports / "gcp" / "billing" / "jsonl" / "export-1-000000000000.json").read_text("utf-8").splitlines()
    )
    record = json.loads(lines[299])
    record["cost"] = "twelve"
    lines[299] = json.dumps(record)
    lines[10:10] = ["", ""]
    path = folder / "export-1-000000000000.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, f"{path}, row 300, column cost: expected a finite number, got 'twelve'"


def _bad_parquet(exports: Path, folder: Path) -> tuple[Path, str]:
    """The second append as parquet, its 42nd row's currency in lower case."""
    _, second = generate_gcp.export_batches(generate_gcp.billing_rows())
    rows = copy.deepcopy(list(second))
    rows[41]["currency"] = "usd"
    path = folder / "export-2-000000000000.parquet"
    pq.write_table(generate_gcp.rows_to_table(rows), path)
    return path, f"{path}, row 42, column currency: expected a 3-letter currency code, got 'usd'"


def _bad_focus(exports: Path, folder: Path) -> tuple[Path, str]:
    """The FOCUS month as JSON Lines, its 7th row's ChargeCategory one FOCUS does not have."""
    lines = (exports / "focus" / "jsonl" / "focus-000.json").read_text("utf-8").splitlines()
    record = json.loads(lines[6])
    record["ChargeCategory"] = "Refund"
    lines[6] = json.dumps(record)
    path = folder / "focus.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, (
        f"{path}, row 7, column ChargeCategory: expected one of Usage, Purchase, Tax, Credit, Adjustment, "
        "got 'Refund'"
    )


@pytest.mark.parametrize(
    ("kind", "write"),
    [("gcp-billing", _bad_json_lines), ("gcp-billing", _bad_parquet), ("gcp-focus", _bad_focus)],
    ids=["billing-jsonl", "billing-parquet", "focus-jsonl"],
)
def test_a_bad_row_is_the_same_line_on_both_engines(
    exports: Path, tmp_path: Path, kind: str, write: Any
) -> None:
    (tmp_path / "export").mkdir()
    path, problem = write(exports, tmp_path / "export")
    for engine in ENGINES:
        project = _project(tmp_path / engine, engine, {"gcp": (kind, path)})
        result = cli_in(project.root)("ingest")
        assert result.exit_code == 1
        assert result.stderr.strip().splitlines()[-1] == f"trainledger: error: {problem}", engine
        assert not (project.root / ".trainledger" / "spark" / "CURRENT.json").exists()  # nothing committed


# Doubles as Google's FLOAT columns hold them (test_gcp_money_rounding.py), and one whose Java 17 text is not
# its shortest (2.82879384806159E17 comes out 8 more: warehouse/spark_money.py), in a cost and in a credit.
LONG = [1 / 3, 0.1 + 0.2, 5.787037037037037e-06, 0.000520833333333333, 12.345678901234567, 4e-13, 40.19,
        2.82879384806159e17]  # fmt: skip


def _half_even(text: str) -> Decimal:
    with localcontext(prec=80):
        return Decimal(text).quantize(Decimal("1e-12"), rounding=ROUND_HALF_EVEN)


def _residue(texts: list[str]) -> Decimal:
    """The sum as written minus the sum stored (each rounded half-even to 12 places), exactly."""
    with localcontext(prec=200):
        return sum((Decimal(t) for t in texts), Decimal(0)) - sum((_half_even(t) for t in texts), Decimal(0))


def test_money_and_its_rounding_residue_read_by_spark_are_duckdbs_to_the_last_digit(tmp_path: Path) -> None:
    rows = copy.deepcopy(gcp_month.month_rows())
    for i, row in enumerate(rows[: len(LONG)]):
        row["cost"] = LONG[i]
        row["credits"] = [{**c, "amount": -LONG[(i + 3) % len(LONG)]} for c in row["credits"]]
    path = tmp_path / "billing.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    expected = {
        gcp_month.PERIOD: {
            "cost": {"USD": f"{_residue([repr(r['cost']) for r in written]):f}"},
            "credits.amount": {
                "USD": f"{_residue([repr(c['amount']) for r in written for c in r['credits']]):f}"
            },
        }
    }
    found = {}
    for engine in ENGINES:
        found[engine] = _project(tmp_path / engine, engine, {"gcp": ("gcp-billing", path)})
        run = cli_in(found[engine].root)
        assert run("ingest").exit_code == 0
        runs = json.loads(run("runs", "--format", "json").stdout)
        assert {e["period"]: e.get("rounding_residue") for e in runs[0]["detail"]["sources"]} == expected, (
            engine
        )
    assert spark_charges(found["spark"]) == duckdb_charges(found["duckdb"])
    # the 8th row's cost is the double's shortest text, 282879384806159000, its credits rounded half-even
    with localcontext(prec=80):  # 30 digits: more than Decimal's default context keeps
        billed = Decimal("282879384806159000") + sum(
            (_half_even(repr(c["amount"])) for c in written[7]["credits"]), Decimal(0)
        )
    with duckdb.connect(str(found["duckdb"].warehouse), read_only=True) as con:
        assert con.execute("SELECT billed_cost FROM charges WHERE source_row = 8").fetchall() == [(billed,)]


def test_a_bigquery_table_on_spark_is_refused_in_one_line(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write_config(
        '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
        + SPARK
        + '[[sources]]\nname = "gcp"\nkind = "gcp-billing"\ntable = "my-project.billing.gcp_billing_export_v1_X"\n'
    )
    result = cli_in(project.root)("ingest")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "trainledger: error: source 'gcp': kind gcp-billing with `table` (BigQuery) is not read by Spark; "
        'export the table as files and give their folder as `uri`, or use [warehouse] engine = "duckdb"'
    )
    assert not (project.root / ".trainledger" / "spark" / "CURRENT.json").exists()


def test_a_doubles_text_and_a_lists_money_on_spark_are_duckdbs(tmp_path: Path) -> None:
    """What gcp_flat asks of Spark's UDFs, against DuckDB's own cast and macro, on the adversarial doubles of
    test_spark_ingest.py: a DOUBLE's text (a FLOAT's text is kept for errors and residues) and the money of
    each value of a list (a credit's amount)."""
    from pyspark.sql import SparkSession

    from test_spark_ingest import DOUBLES
    from trainledger.core import queries
    from trainledger.warehouse import spark_money

    file = tmp_path / "doubles.parquet"
    pq.write_table(pa.table({"i": list(range(len(DOUBLES))), "x": DOUBLES}), file)
    macros = [s for s in queries.load("schema/warehouse").split(";") if "MACRO" in s and "money" in s]
    with duckdb.connect() as con:
        con.execute(";".join(macros))
        expected = con.execute(
            "SELECT list(CAST(x AS VARCHAR) ORDER BY i), list(money(x) ORDER BY i) FROM read_parquet(?)",
            [str(file)],
        ).fetchone()
    spark = SparkSession.getActiveSession() or SparkSession.builder.master("local[2]").getOrCreate()
    spark_money.register(spark)
    spark.read.parquet(str(file)).createOrReplaceTempView("doubles")
    ((texts, money),) = spark.sql(
        f"SELECT transform(sort_array(collect_list(struct(i, {spark_money.TEXT}(x)))), p -> p.col2), "
        f"{spark_money.MONEY_EACH}(transform(sort_array(collect_list(struct(i, x))), p -> p.x)) FROM doubles"
    ).collect()
    assert (list(texts), list(money)) == (expected[0], expected[1])
    assert (
        expected[0][0] == "2.82879384806159e+17"
    )  # Java's Double.toString would give 2.82879384806159008E17


def test_a_malformed_json_line_read_by_spark_is_one_line_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text('{"cost": 1.5, "currency": "USD"}\n{"cost": 2, broken\n', encoding="utf-8")
    project = _project(tmp_path / "spark", "spark", {"gcp": ("gcp-billing", path)})
    result = cli_in(project.root)("ingest")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"trainledger: error: {path}: cannot read as a Cloud Billing export: a line is not one JSON object "
        "(a malformed record); expected JSON Lines, one object per line"
    )
