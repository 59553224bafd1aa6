"""The package as users get it: SQL shipped in the wheel, a thin CLI, a core free of click and cloud SDKs."""

from __future__ import annotations

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
    assert "trainledger.attribution.allocations" in core and "trainledger.connectors.s3" in core
    code = (
        "import importlib, sys\n"
        f"for name in {core!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'click', 'boto3', 'botocore', 'google'})\n"
        "print(','.join(bad))"
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
