"""Bills read by Spark itself (`engine = "spark"`): the real CUR month in the shared reference data gives
DuckDB's charges and byte-identical exports, a CUR 2.0 month in csv.gz (whatever the user's
allowPrecisionLoss, which ingest leaves as it found it) and the FOCUS sample (CSV and parquet) DuckDB's
charges, FOCUS tags JSON readers disagree on the same labels and allocations (Google's export files:
test_spark_gcp.py); money read from
doubles and text equals DuckDB's macro to the last digit; a bad row is the same one line on both engines; a
restated month is replaced, and a run killed before its pointer swap leaves the last committed charges (an
unchanged delivery skipped: test_spark_engine.py).

The Spark session is the process's (local[2]), shared with tests/test_spark_engine.py. Skipped where Java or
pyspark is missing.
"""

from __future__ import annotations

import csv
import gzip
import shutil
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

import generate
from conftest import REFERENCE, Project
from spark_checks import (
    ON_SPARK_WORKER,
    SPARK,
    assert_same_allocations,
    cli_in,
    committed,
    duckdb_charges,
    require_spark,
    spark_charges,
)
from trainledger.core import queries
from trainledger.warehouse import spark as spark_module
from trainledger.warehouse import spark_tables

pytestmark = [pytest.mark.slow, ON_SPARK_WORKER]

require_spark()

CUR_CSV = REFERENCE / "aws-cur-sample" / "sample-anonymous-aws-export-dataset.csv"
CUR_PARQUET = REFERENCE / "aws-cur-workshop" / "Oct2018-WorkshopCUR-00001.snappy.parquet"
FOCUS_CSV = REFERENCE / "focus-sample" / "FOCUS-1.0" / "focus_sample.csv"


def _project(root: Path, engine: str, sources: dict[str, Path]) -> Project:
    project = Project(root)
    entries = "".join(
        f'[[sources]]\nname = "{n}"\nkind = "aws-cur"\nuri = "{u}"\n' for n, u in sources.items()
    )
    project.write_config(
        '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
        + (SPARK if engine == "spark" else "")
        + entries
        + f'[experiments]\nuri = "{root / "experiments.jsonl"}"\n[exports]\ndir = "{root / "exports"}"\n'
    )
    return project


@pytest.fixture(scope="module")
def real_month(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Project]]:
    """The reference CUR files (legacy CSV, legacy parquet) through nightly on each engine."""
    if not (CUR_CSV.is_file() and CUR_PARQUET.is_file()):
        pytest.skip(f"reference CUR files not found under {REFERENCE} (see its SOURCE.md files)")
    projects = {}
    for engine in ("duckdb", "spark"):
        project = _project(tmp_path_factory.mktemp(engine), engine, {"cur": CUR_CSV, "workshop": CUR_PARQUET})
        result = cli_in(project.root)("nightly")
        assert result.exit_code == 0, result.stderr
        projects[engine] = project
    yield projects


def test_the_real_cur_month_read_by_spark_gives_duckdbs_charges_and_exports(
    real_month: dict[str, Project],
) -> None:
    expected = duckdb_charges(real_month["duckdb"])
    with CUR_CSV.open(newline="", encoding="utf-8") as handle:
        rows = sum(1 for _ in csv.DictReader(handle))
    assert rows == 1281 and len(expected) == rows + pq.ParquetFile(CUR_PARQUET).metadata.num_rows
    assert spark_charges(real_month["spark"]) == expected
    names = sorted(p.name for p in (real_month["duckdb"].root / "exports").iterdir())
    assert names == ["alerts.json", "trainledger-2018-10.csv", "trainledger-2023-11.csv"]
    for name in names:
        assert (real_month["spark"].root / "exports" / name).read_bytes() == (
            real_month["duckdb"].root / "exports" / name
        ).read_bytes()


def ingested_on_both(
    tmp_path: Path, sources: str, spark_conf: dict[str, str] | None = None
) -> dict[str, Project]:
    """The same ``[[sources]]`` ingested into a project on each engine, keyed by engine (``spark_conf``:
    settings added to the Spark project's)."""
    found = {}
    for engine in ("duckdb", "spark"):
        project = Project(tmp_path / engine)
        project.root.mkdir()
        extra = "".join(f', "{k}" = "{v}"' for k, v in (spark_conf or {}).items())
        project.write_config(
            '[warehouse]\npath = ".trainledger/ledger.duckdb"\n'
            + (SPARK.replace(" }", f"{extra} }}") if engine == "spark" else "")
            + sources
        )
        result = cli_in(project.root)("ingest")
        assert result.exit_code == 0, result.stderr
        found[engine] = project
    return found


# "true": Spark's default, and the value ingest must set aside (to false) and then give back. With "false"
# ingest would change nothing to give back: a second Spark ingest (14 s) for no more evidence.
@pytest.mark.parametrize("users", ["true"])
def test_a_cur2_month_in_csv_gz_read_by_spark_gives_duckdbs_charges_whatever_the_users_precision_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, users: str
) -> None:
    """Data Exports' CSV flavour: gzipped text, the tag columns JSON objects as text (maps on both engines).
    The user's own spark.sql.decimalOperations.allowPrecisionLoss in spark_conf: with "true" (Spark's
    default) a sum of two DECIMAL(38, 12) keeps 11 places, yet a cost with a 12th-place digit is ingested
    exactly, and the value is the session's again once ingest has run (what the statements after it see)."""
    generate.main(["--out", str(tmp_path / "month"), "--format", "csv.gz"])
    export = tmp_path / "month" / "aws" / "cur" / "ml-cur2"
    (data,) = export.glob("data/BILLING_PERIOD=2026-11/*.csv.gz")
    with gzip.open(data, "rt", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, cost = rows[0], rows[0].index("line_item_unblended_cost")
    kind = header.index("line_item_line_item_type")
    line = next(n for n, r in enumerate(rows[1:], start=1) if r[kind] == "Usage")
    rows[line][cost] = "1000.000000000001"  # 1000.00000000000 if the sum in normalize_cur2 lost a place
    with gzip.open(data, "wt", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    sessions = []
    opened = spark_module.session

    def recorded(config: object) -> object:
        sessions.append(opened(config))  # type: ignore[arg-type]
        return sessions[-1]

    monkeypatch.setattr(spark_module, "session", recorded)
    found = ingested_on_both(
        tmp_path,
        f'[[sources]]\nname = "cur"\nkind = "aws-cur2"\nuri = "{export}"\n',
        {"spark.sql.decimalOperations.allowPrecisionLoss": users},
    )
    expected = duckdb_charges(found["duckdb"])
    assert len(expected) == len(rows) - 1 == 2269  # every line item of the file, read by the csv module
    assert spark_charges(found["spark"]) == expected
    with duckdb.connect() as con:
        billed = con.execute(
            "SELECT billed_cost FROM read_parquet(?) WHERE source_row = ?",
            [str(committed(found["spark"], "charges") / "*.parquet"), line],
        ).fetchall()
    assert billed == [(Decimal("1000.000000000001"),)]
    assert [s.conf.get("spark.sql.decimalOperations.allowPrecisionLoss") for s in sessions] == [users]


def test_focus_files_in_csv_and_parquet_read_by_spark_give_duckdbs_charges(tmp_path: Path) -> None:
    """The official FOCUS sample as CSV ('NULL' read as NULL, tags as JSON text) and as parquet (pyarrow's own
    reading of the CSV, so costs are doubles and times timestamps), both in one ingest."""
    if not FOCUS_CSV.is_file():
        pytest.skip(f"{FOCUS_CSV} not found")
    parquet = tmp_path / "focus.parquet"
    nulls = pa_csv.ConvertOptions(null_values=["NULL", ""], strings_can_be_null=True)
    pq.write_table(pa_csv.read_csv(FOCUS_CSV, convert_options=nulls), parquet)
    with FOCUS_CSV.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    billed = sum(Decimal(r["BilledCost"]) for r in rows)
    found = ingested_on_both(
        tmp_path,
        "".join(
            f'[[sources]]\nname = "{name}"\nkind = "focus"\nuri = "{uri}"\n'
            for name, uri in (("csv", FOCUS_CSV), ("parquet", parquet))
        ),
    )
    expected = duckdb_charges(found["duckdb"])
    assert len(expected) == 2 * len(rows) == 2000  # every row of each file, counted by the csv module
    with duckdb.connect(str(found["duckdb"].warehouse), read_only=True) as con:
        by_source = dict(con.execute("SELECT source, sum(billed_cost) FROM charges GROUP BY 1").fetchall())
    assert by_source == {"csv": billed, "parquet": billed}  # the file's decimal text, summed exactly
    assert spark_charges(found["spark"]) == expected


def _with_cost(source: Path, target: Path, row: int, cost: str) -> None:
    """A copy of the CSV whose data row ``row`` (1-based) has ``lineItem/UnblendedCost`` = ``cost``."""
    with source.open(newline="", encoding="utf-8") as handle:
        lines = list(csv.reader(handle))
    lines[row][lines[0].index("lineItem/UnblendedCost")] = cost
    with target.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(lines)


def test_a_bad_row_is_the_same_line_on_both_engines(tmp_path: Path) -> None:
    if not CUR_CSV.is_file():
        pytest.skip(f"{CUR_CSV} not found")
    bill = tmp_path / "cur.csv"
    _with_cost(CUR_CSV, bill, 700, "12,5")
    found = {}
    for engine in ("duckdb", "spark"):
        (tmp_path / engine).mkdir()
        project = _project(tmp_path / engine, engine, {"cur": bill})
        result = cli_in(project.root)("ingest")
        assert result.exit_code == 1
        found[engine] = result.stderr.strip().splitlines()[-1]
    assert found["duckdb"] == (
        f"trainledger: error: {bill}, row 700, column line_item_unblended_cost: expected a finite number, got '12,5'"
    )
    assert found["spark"] == found["duckdb"]


def test_a_restated_month_is_replaced_and_a_killed_ingest_leaves_the_last_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not CUR_CSV.is_file():
        pytest.skip(f"{CUR_CSV} not found")
    bill = tmp_path / "cur.csv"
    shutil.copy(CUR_CSV, bill)
    (tmp_path / "p").mkdir()
    project = _project(tmp_path / "p", "spark", {"cur": bill})
    assert cli_in(project.root)("ingest").exit_code == 0
    first = spark_charges(project)
    _with_cost(CUR_CSV, bill, 5, "1000.000000000001")  # AWS restates the month: one line's cost changes
    pointer = project.root / ".trainledger" / "spark" / "CURRENT.json"
    before = pointer.read_bytes()

    def killed(*args: object) -> None:
        raise KeyboardInterrupt  # the process dies between writing the new folders and the swap

    monkeypatch.setattr(spark_tables.os, "replace", killed)
    assert cli_in(project.root)("ingest").exit_code != 0
    monkeypatch.undo()
    assert pointer.read_bytes() == before and spark_charges(project) == first
    assert cli_in(project.root)("ingest").exit_code == 0
    restated = spark_charges(project)
    assert len(restated) == len(first) == 1281
    changed = [(a, b) for a, b in zip(first, restated, strict=True) if a != b]
    assert len(changed) == 1281  # new ids: the period was replaced whole
    with duckdb.connect(str(project.warehouse), read_only=True) as con:
        columns = [r[0] for r in con.execute("DESCRIBE charges").fetchall()]
    billed, row = columns.index("billed_cost"), columns.index("source_row")
    with CUR_CSV.open(newline="", encoding="utf-8") as handle:
        was = Decimal(list(csv.DictReader(handle))[4]["lineItem/UnblendedCost"])
    assert (
        sum(c[billed] for c in restated) - sum(c[billed] for c in first) == Decimal("1000.000000000001") - was
    )
    assert [c[billed] for c in restated if c[row] == 5] == [Decimal("1000.000000000001")]


# Doubles whose shortest round-trip text Java 17's Double.toString does not give, ties at the 12th place,
# values below 1e-12 and at the edge of DECIMAL(38, 12), and text as CSV bills write it.
DOUBLES = [
    2.82879384806159e17, 8.41e21, 2.0e23 / 10, 0.000520833333333333, 5e-13, 1.5e-12, 2.5e-12, -2.5e-12, 1e-13,
    0.1 + 0.2, 1 / 3, -2 / 3, 9007199254740993.0, 5e-324, -0.0, 123456789.123456789, 9.99999e25, 4.35e-10,
]  # fmt: skip
TEXTS = [
    "0.0000000000005", "0.0000000000015", "1E-13", "-2.5e-12", " 7.25 ", "+.5", "12345678901234.1234567890125",
    "9.984E-7", "1e25", "0.000000000000500000001", "-0", "1.",
]  # fmt: skip


def test_money_read_by_spark_equals_duckdbs_on_adversarial_values(tmp_path: Path) -> None:
    from pyspark.sql import SparkSession

    from trainledger.warehouse import spark_money

    file = tmp_path / "money.parquet"
    pq.write_table(
        pa.table({"i": list(range(len(DOUBLES))), "x": DOUBLES, "t": (TEXTS * 2)[: len(DOUBLES)]}), file
    )
    macros = [s for s in queries.load("schema/warehouse").split(";") if "MACRO" in s and "money" in s]
    with duckdb.connect() as con:
        con.execute(";".join(macros))
        expected = con.execute(
            "SELECT i, money(x), money(t) FROM read_parquet(?) ORDER BY i", [str(file)]
        ).fetchall()
    spark = SparkSession.getActiveSession() or SparkSession.builder.master("local[2]").getOrCreate()
    spark_money.register(spark)
    spark.read.parquet(str(file)).createOrReplaceTempView("money_values")
    got = [
        tuple(r)
        for r in spark.sql(
            "SELECT i, trainledger_money(x), trainledger_money(t) FROM money_values ORDER BY i"
        ).collect()
    ]
    assert got == expected
    assert expected[0][1] == Decimal("282879384806159000")  # Java's text would add 8
    assert [r[1] for r in expected[5:8]] == [
        Decimal("2E-12"),
        Decimal("2E-12"),
        Decimal("-2E-12"),
    ]  # half-even


# FOCUS Tags (and AllocatedTags merged over them) that JSON readers disagree on, each on a resource of its own,
# with the labels trainledger's reading of them gives (json.loads: the last of duplicate keys wins; keys
# compared whatever their case, the later one winning; a label's value is one text: a tag set whose label is
# an object is not placed by its tags at all).
HOSTILE_TAGS = [
    ("r-unicode", '{"project":"Ünïcødé-项目 🚀","phase":"train","method":"sft"}', None,
     ("ünïcødé-项目 🚀", "train", "sft")),
    ("r-escaped", '{"project":"say \\"hi\\" \\\\ back","phase":"eval","method":"rl"}', None,
     ('say "hi" \\ back', "eval", "rl")),
    ("r-u-escapes", '{"project":"\\u00e9t\\u00e9 \\ud83d\\ude80","phase":"rollout","method":"opd"}', None,
     ("été 🚀", "rollout", "opd")),
    ("r-empty", "{}", None, (None, None, None)),
    ("r-no-tags", None, None, (None, None, None)),
    ("r-duplicate", '{"project":"first","project":"second","phase":"train","method":"sft"}', None,
     ("second", "train", "sft")),
    ("r-nested", '{"project":{"name":"x"},"phase":"train","method":"sft","team":["a","b"]}', None,
     (None, None, None)),
    ("r-case", '{"Project":"Upper","project":"lower","PHASE":"Eval","method":"RL"}', None,
     ("lower", "eval", "rl")),
    ("r-case-reversed", '{"project":"lower","PROJECT":"Upper","phase":"eval","method":"rl"}', None,
     ("upper", "eval", "rl")),
    ("r-spaced", '{ "project" : "spaced" ,\n "phase":"train" , "method":"sft" }', None,
     ("spaced", "train", "sft")),
    ("r-scalars", '{"project":42,"phase":"eval","method":"rl","gpus":8,"spot":true,"owner":null}', None,
     ("42", "eval", "rl")),
    ("a-unicode", '{"project":"base","phase":"train","method":"sft"}', '{"project":"pod-ü \\"q\\""}',
     ('pod-ü "q"', "train", "sft")),
    ("a-case", '{"project":"b2","Project":"A2","phase":"eval","method":"rl"}', '{"project":"c"}',
     ("c", "eval", "rl")),
    ("a-empty", "{}", '{"project":"only-allocated","phase":"train","method":"sft"}',
     ("only-allocated", "train", "sft")),
    ("a-duplicate", '{"project":"first","project":"second","phase":"train","method":"sft"}', '{"team":"ml"}',
     ("second", "train", "sft")),
    ("a-nested", '{"project":{"n":1},"phase":"train","method":"sft"}', '{"team":{"lead":"x"}}',
     (None, None, None)),
    ("a-scalars", '{"project":"p","gpus":8,"ratio":1e5,"spot":true}', '{"phase":"eval","method":"rl","x":null}',
     ("p", "eval", "rl")),
]  # fmt: skip
FOCUS_COLUMNS = [
    "BilledCost", "EffectiveCost", "ListCost", "BillingCurrency", "BillingPeriodStart", "BillingPeriodEnd",
    "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "ProviderName", "ServiceName", "ServiceCategory",
    "BillingAccountId", "SubAccountId", "ResourceId", "AllocatedResourceId", "Tags", "AllocatedTags",
]  # fmt: skip


def _focus_row(n: int, resource: str, tags: str | None, allocated: str | None) -> list[str | None]:
    cost = f"{n + 1}.00000000000{n % 10}"
    return [
        cost, cost, cost, "USD", "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-11-03T00:00:00Z",
        "2026-11-03T01:00:00Z", "Usage", "AWS", "Amazon Elastic Compute Cloud", "Compute", "111122223333",
        "444455556666", resource, f"{resource}-pod" if allocated else None, tags, allocated,
    ]  # fmt: skip


def test_hostile_focus_tags_give_the_same_labels_on_both_engines(tmp_path: Path) -> None:
    """Each row's labels as written above by hand, on DuckDB, then the same allocations and the same
    `labels` listing on Spark; the tags kept with each charge are the same text on both engines."""
    rows = [_focus_row(n, r, t, a) for n, (r, t, a, _) in enumerate(HOSTILE_TAGS)]
    bill = tmp_path / "focus.csv"
    with bill.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(FOCUS_COLUMNS)
        writer.writerows([["NULL" if v is None else v for v in row] for row in rows])
    found = ingested_on_both(tmp_path, f'[[sources]]\nname = "focus"\nkind = "focus"\nuri = "{bill}"\n')
    for project in found.values():
        assert cli_in(project.root)("attribute").exit_code == 0
    with duckdb.connect(str(found["duckdb"].warehouse), read_only=True) as con:
        labels = {
            resource: tuple(parts)
            for resource, *parts in con.execute(
                "SELECT c.resource_id, a.project, a.phase, a.method FROM allocations a JOIN charges c USING (charge_id)"
            ).fetchall()
        }
    assert labels == {f"{r}-pod" if a else r: expected for r, _, a, expected in HOSTILE_TAGS}
    assert_same_allocations(found, at_least=len(HOSTILE_TAGS) - 1)
    assert spark_charges(found["spark"]) == duckdb_charges(found["duckdb"])
    listing = {e: cli_in(p.root)("labels") for e, p in found.items()}
    assert listing["duckdb"].exit_code == 0 and listing["duckdb"].stdout.strip()
    assert (listing["spark"].exit_code, listing["spark"].stdout) == (0, listing["duckdb"].stdout)
