"""Shared fixtures: the generated CUR 2.0 month, a configured project folder, and a CLI runner."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

ROOT = Path(__file__).resolve().parents[1]
# The project's shared folder sits beside the clone (../shared); a git worktree nests one level deeper.
SHARED = next(
    (p / "shared" for p in ROOT.parents if (p / "shared" / "SPEC.md").is_file()), ROOT.parent / "shared"
)
REFERENCE = SHARED / "reference-data"
sys.path.insert(0, str(ROOT / "fixtures"))

import generate  # noqa: E402  (fixtures/generate.py, put on the path above)
from trainledger.cli import cli  # noqa: E402

pytest_plugins = ["aws_fakes"]  # moto server and S3 helpers for the AWS connector tests


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables are fitted to ``$COLUMNS``; pytest-xdist hands its workers COLUMNS=80, which a test run
    one at a time does not have. A test that wants a width sets it itself."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(autouse=True, scope="session")
def _spark_catalog_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Spark's session catalog keeps its databases under ``spark-warehouse/`` in the working directory; a
    test that names a database would leave that folder in the clone. The first session started in the
    process reads the launch arguments, so they point it at a temporary folder."""
    folder = tmp_path_factory.mktemp("spark-catalog")
    os.environ.setdefault("PYSPARK_SUBMIT_ARGS", f"--conf spark.sql.warehouse.dir={folder} pyspark-shell")


def needs_reference(path: Path) -> None:
    """Skip (with a reason) in a user's clone, which has no ../shared."""
    if not path.exists():
        pytest.skip(f"reference data not present: {path} (only in CI and developer sessions)")


@dataclass
class Project:
    """A folder with a trainledger.toml, as a user would have it."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "trainledger.toml"

    @property
    def warehouse(self) -> Path:
        return self.root / ".trainledger" / "ledger.duckdb"

    def write_config(self, text: str) -> Path:
        self.config.write_text(text, encoding="utf-8")
        return self.config


DEMO_CONFIG = (ROOT / "fixtures" / "demo.toml").read_text(encoding="utf-8")


DEMO_BUDGET = "[[budgets]]" + DEMO_CONFIG.split("[[budgets]]", 1)[1]


def demo_config(demo_files: Path, *, budget: bool = False) -> str:
    """The demo config with its relative inputs pointed at ``demo_files``; without the demo's crossed
    budget (nightly would exit 2) unless ``budget``."""
    config = DEMO_CONFIG if budget else DEMO_CONFIG.split("# math-reasoner spends", 1)[0]
    config = config.replace('uri = "aws/cur/ml-cur2"', f'uri = "{demo_files / "aws/cur/ml-cur2"}"')
    config = config.replace('uri = "experiments.jsonl"', f'uri = "{demo_files / "experiments.jsonl"}"')
    return config.replace(
        'uri = "offcloud-ledger.csv"', f'uri = "{ROOT / "fixtures" / "offcloud-ledger.csv"}"'
    )


@pytest.fixture(scope="session")
def demo_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo month and experiment log, generated once per session (read-only for tests)."""
    root = tmp_path_factory.mktemp("demo-files")
    generate.main(["--out", str(root)])
    return root


@pytest.fixture
def project(tmp_path: Path, demo_files: Path) -> Project:
    """A fresh project folder wired to the demo files, with the demo config."""
    proj = Project(tmp_path)
    proj.write_config(demo_config(demo_files))
    return proj


@pytest.fixture
def run(project: Project, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Run the CLI in the project folder; stdout and stderr are kept apart."""
    monkeypatch.chdir(project.root)

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    return invoke


@pytest.fixture
def ran(project: Project, nightly_warehouse: Project) -> Project:
    """``project`` as the demo's `nightly` left it (a copy of ``nightly_warehouse``: half a second of CPU
    less per test than running it again)."""
    shutil.copytree(nightly_warehouse.root, project.root, dirs_exist_ok=True)
    return project


@pytest.fixture(scope="session")
def nightly_warehouse(tmp_path_factory: pytest.TempPathFactory, demo_files: Path) -> Project:
    """One project on which `nightly` has run; tests read it, never write it."""
    proj = Project(tmp_path_factory.mktemp("nightly"))
    proj.write_config(demo_config(demo_files))
    result = CliRunner().invoke(cli, ["--config", str(proj.config), "nightly"], catch_exceptions=False)
    assert result.exit_code in (0, 2), result.stderr
    return proj


# A charge's id is a number given when it is loaded (queries/schema/warehouse.sql), so the same charges
# loaded in another order, or into a warehouse with history, have other numbers: states compare what the
# number stands for (source, file name, row).
CHARGE_KEY = (
    "concat_ws('|', c.source, regexp_extract((SELECT file FROM charge_files WHERE slot = charge_slot(c.charge_id)), "
    "'[^/]*$'), c.source_row)"
)
KEYED_TABLES = {
    "charge_files": "SELECT source, file FROM charge_files",
    "charges": f"SELECT * REPLACE ({CHARGE_KEY} AS charge_id) FROM charges c",
    "allocation_rows": f"SELECT a.* REPLACE ({CHARGE_KEY} AS charge_id) FROM allocation_rows a "
    "LEFT JOIN charges c USING (charge_id)",
    "allocation_refs": f"SELECT r.* REPLACE ({CHARGE_KEY} AS charge_id) FROM allocation_refs r "
    "LEFT JOIN charges c USING (charge_id)",
}


def allocation_state(path: Path) -> list[tuple[object, ...]]:
    """Every allocation (the view `allocations`: stored shares and charges by reference), sorted, charges
    named by source, file and row."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        query = f"SELECT a.* REPLACE ({CHARGE_KEY} AS charge_id) FROM allocations a LEFT JOIN charges c USING (charge_id)"
        return con.execute(f"SELECT * FROM ({query}) ORDER BY ALL").fetchall()
    finally:
        con.close()


def warehouse_state(path: Path, *, ledger: bool = False) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows, sorted: what "the warehouse is unchanged" compares.

    The run ledger (`runs`) is left out unless ``ledger``: a failed run is rolled back and then recorded
    as failed, so its row is the one change a failure makes. Charges are named by source, file and row.
    """
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        tables = [t for t in tables if ledger or t != "runs"]
        state = {}
        for t in tables:
            query = KEYED_TABLES.get(t, f'SELECT * FROM "{t}"')
            state[t] = con.execute(f"SELECT * FROM ({query}) ORDER BY ALL").fetchall()  # DuckDB sorts: fast
        return state
    finally:
        con.close()


def warehouse_fingerprint(path: Path) -> dict[str, tuple[object, ...]]:
    """Per table (the run ledger aside, charges named as in ``warehouse_state``): its row count and two
    order-free hashes of its rows. Equal when ``warehouse_state`` is equal, at a third of the cost: what the
    hostile-input corpus compares before and after each of its cases."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        prints = {}
        for t in tables:
            if t == "runs":
                continue
            query = KEYED_TABLES.get(t, f'SELECT * FROM "{t}"')
            found = con.execute(
                f"SELECT count(*), bit_xor(hash(q)), sum(CAST(hash(q) AS HUGEINT)) FROM ({query}) q"
            ).fetchone()
            prints[t] = tuple(found or ())
        return prints
    finally:
        con.close()


@pytest.fixture(autouse=True)
def _no_real_metadata_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach the real link-local metadata address: unless a test points the run logger's
    probes at its own fake, they go to a closed loopback port and find nothing at once."""
    monkeypatch.setenv("TRAINLEDGER_IMDS_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("TRAINLEDGER_GCE_METADATA_ENDPOINT", "http://127.0.0.1:9")
    for name in ("TRAINLEDGER_LOG", "TRAINLEDGER_RESOURCE_ID", "TRAINLEDGER_GPUS", "TRAINLEDGER_DETECT"):
        monkeypatch.delenv(name, raising=False)
