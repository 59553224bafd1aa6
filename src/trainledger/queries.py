"""SQL lives in ``queries/``, one statement file per step, loaded by name (``"folder/name"`` in a subfolder)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# Installed wheel: queries/ sits inside the package. Source checkout: at the repository root.
_CANDIDATES = (_HERE / "queries", _HERE.parents[1] / "queries")


def directory() -> Path:
    for candidate in _CANDIDATES:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"queries/ folder not found next to {_HERE}")


def names() -> list[str]:
    root = directory()
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.sql"))


@cache
def load(name: str) -> str:
    """The text of ``queries/<name>.sql``; ``name`` may be ``"folder/name"``."""
    path = directory() / f"{name}.sql"
    if not path.is_file():
        raise KeyError(f"no query named {name!r} in {directory()}")
    return path.read_text(encoding="utf-8")
