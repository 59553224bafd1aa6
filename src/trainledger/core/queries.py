"""SQL lives in ``queries/<stage>/*.sql``, one statement file per step, loaded by its relative name
(``attribute/place``): the folders follow the pipeline (schema, ingest, experiments, attribute, checks,
report, export, ledger). Python holds no SQL but the ``--by`` query that ``reports/realize.py`` composes."""

from __future__ import annotations

from functools import cache
from pathlib import Path

# The engines `trainledger sql` shows a query for, besides DuckDB's own (warehouse/dialects.py).
DIALECTS = ("spark", "bigquery", "trino")

_PACKAGE = Path(__file__).resolve().parents[1]
# Installed wheel: queries/ sits inside the package. Source checkout: at the repository root.
_CANDIDATES = (_PACKAGE / "queries", _PACKAGE.parents[1] / "queries")


def directory() -> Path:
    for candidate in _CANDIDATES:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"queries/ folder not found next to {_PACKAGE}")


_EXTRA: list[Path] = []  # folders added by add_directory, searched after queries/


def add_directory(path: Path) -> None:
    """Another folder of query files (a source kind registered from outside, such as a test's toy
    source), searched after queries/ for names queries/ does not have."""
    if path not in _EXTRA:
        _EXTRA.append(path)
        load.cache_clear()


def names() -> list[str]:
    """Every query's name, ``<folder>/<file stem>``, sorted; ``engines/`` holds other engines' overrides
    of some of them (``warehouse/dialects.py``), not queries of their own."""
    root = directory()
    found = (p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.sql"))
    return sorted(name for name in found if not name.startswith("engines/"))


@cache
def load(name: str) -> str:
    """The text of ``queries/<name>.sql`` (or of an added folder's)."""
    for root in (directory(), *_EXTRA):
        path = root / f"{name}.sql"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise KeyError(f"no query named {name!r} in {directory()}")
