"""The package as users get it: SQL shipped in the wheel, a thin CLI, a core free of click and cloud SDKs."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from trainledger.cli import cli
from trainledger.core import queries


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return next(out.glob("trainledger-*.whl"))


def test_every_query_file_ships_in_the_wheel(wheel: Path) -> None:
    shipped = {
        n.removeprefix("trainledger/queries/").removesuffix(".sql")
        for n in zipfile.ZipFile(wheel).namelist()
        if n.startswith("trainledger/queries/") and n.endswith(".sql")
    }
    engines = queries.directory() / "engines"
    overrides = {
        p.relative_to(queries.directory()).with_suffix("").as_posix() for p in engines.rglob("*.sql")
    }
    assert shipped == set(queries.names()) | overrides  # other engines' versions ship too (trainledger sql)


def test_installed_package_loads_its_queries(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    code = "import trainledger.core.queries as q; print(q.directory()); print(len(q.load('schema/warehouse')) > 0)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(target)},
        cwd=tmp_path,
    )
    folder, loaded = result.stdout.split()
    assert Path(folder) == target / "trainledger" / "queries"
    assert loaded == "True"


def test_core_imports_neither_click_nor_cloud_sdks() -> None:
    """Every module outside cli/ (connectors included: their SDKs load lazily) imports without them."""
    package = ROOT / "src" / "trainledger"
    core = sorted(
        ".".join(("trainledger", *p.relative_to(package).with_suffix("").parts)).removesuffix(".__init__")
        for p in package.rglob("*.py")
        if p.relative_to(package).parts[0] != "cli"
    )
    assert "trainledger.attribution.allocations" in core and "trainledger.connectors.bill_storage_s3" in core
    code = (
        "import importlib, sys\n"
        f"for name in {core!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'click', 'boto3', 'botocore', 'google'})\n"
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


PACKAGE = ROOT / "src" / "trainledger"


def _modules() -> dict[str, Path]:
    return {
        ".".join(("trainledger", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__"): p
        for p in PACKAGE.rglob("*.py")
    }


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The trainledger modules ``name`` imports anywhere in its text: at the top, inside a function (a lazy
    import hides a loop, it does not remove it) or for type checking only."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: len(name.split(".")) - node.level + (path.name == "__init__.py")]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in modules else base)
    return (found & modules.keys()) - {name}


def test_every_module_imports_and_none_imports_one_that_imports_it_back() -> None:
    modules = _modules()
    for name in sorted(modules):
        importlib.import_module(name)
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    # The graph is read right: a few edges known from the source.
    assert "trainledger.outputs.export_focus" in graph["trainledger.outputs.export"]
    assert "trainledger.core.source_kinds" in graph["trainledger.core.config_types"]
    assert "trainledger.connectors" in graph["trainledger.connectors.contract"]  # for type checking only

    loops = []
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            loops.append(" -> ".join([*path[path.index(name) :], name]))
            return
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert loops == []


@pytest.mark.parametrize(
    "argv", [[], ["--help"], ["report", "--help"], ["export", "--help"], ["sql", "--help"]]
)
def test_cli_starts_without_heavy_libraries(argv: list[str]) -> None:
    """`trainledger --help`, every command's help (`report --by`'s lists the dimensions and waste classes)
    load only what parsing needs: DuckDB, polars, pyarrow, SQLGlot, the config model (pydantic), the cloud
    SDKs, plotly, xlsxwriter and urllib's HTTP client load inside the commands that use them (issue 18: start-up under 0.3 s)."""
    heavy = {
        "boto3",
        "botocore",
        "duckdb",
        "google",
        "plotly",
        "polars",
        "pyarrow",
        "pydantic",
        "sqlglot",
        "xlsxwriter",
    }
    # urllib's HTTP client (with ssl and email) loads only when a job probes its cloud metadata server.
    heavy_modules = {"urllib.request", "http.client", "ssl"}
    code = (
        "import sys\nfrom trainledger.cli import cli\n"
        f"cli.main({argv!r}, standalone_mode=False) if {argv!r} else None\n"
        f"loaded = {{m.split('.')[0] for m in sys.modules}} & {heavy!r} | set(sys.modules) & {heavy_modules!r}\n"
        "print(','.join(sorted(loaded)), file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stderr.strip() == ""
    if argv == ["report", "--help"]:
        assert "waste (productive, idle, failed, rerun, unused-commitment, shared, unattributed)" in " ".join(
            result.stdout.split()
        )


def test_commands_that_do_not_compare_never_import_polars(project) -> None:
    """polars is the comparison's (estimate vs realized) and the Python API's: `ingest`, `attribute`,
    `report`, `export` and `labels` run without it (issue 32: 0.2 s of imports they need not pay)."""
    config = str(project.config)
    commands = [
        ["ingest"],
        ["attribute"],
        ["report"],
        ["report", "--by", "waste,project", "--format", "json"],
        ["export", "--period", "2026-11", "--out", str(project.root / "nov.csv")],
        ["labels"],
        ["--help"],
    ]
    code = (
        "import sys\nfrom trainledger.cli import cli\n"
        f"for argv in {commands!r}:\n"
        f"    cli.main(['--config', {config!r}, *argv], standalone_mode=False)\n"
        "    print(argv[0], 'polars' in sys.modules, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = [line for line in result.stderr.splitlines() if line.endswith((" True", " False"))]
    assert loaded == [f"{argv[0]} False" for argv in commands]
    # ... and the commands that compare do import it.
    code = (
        "import sys\nfrom trainledger.cli import cli\n"
        f"cli.main(['--config', {config!r}, 'reconcile', 'exp-sft-0412'], standalone_mode=False)\n"
        "print('polars' in sys.modules, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stderr.splitlines()[-1] == "True"


def test_batch_modules_load_neither_xlsxwriter_nor_an_http_client() -> None:
    """`ingest`, `attribute`, `export` and `nightly` pay for what they use: xlsxwriter loads when a
    workbook is written, urllib's HTTP client when an alert is posted or a metadata server probed."""
    code = (
        "import sys\nimport trainledger.cli, trainledger.pipeline.jobs, trainledger.outputs.export, "
        "trainledger.outputs.alerts\n"
        "print(','.join(sorted(m for m in sys.modules if m in {'xlsxwriter', 'urllib.request', 'http.client'})))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_every_command_has_help(name: str) -> None:
    command = cli.commands[name]
    assert command.help and command.help.strip(), f"`trainledger {name}` has no help text"


def test_readme_shows_the_two_commands_first() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.index("make demo") < readme.index("make test") < readme.index("## Use")
