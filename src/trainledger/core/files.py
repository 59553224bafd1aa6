"""Writing what leaves trainledger: whole files or nothing, and text cells no spreadsheet runs as formulas."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from trainledger.core.errors import TrainledgerError

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: str) -> str:
    """Neutralise spreadsheet formulas: text starting with = + - @ tab or CR gets a leading quote."""
    return "'" + value if value.startswith(FORMULA_START) else value


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write via a temporary file (owner-only, like the warehouse) and rename, so a reader never sees half
    an export. ``text`` may come in pieces, so a big export is never held in memory whole."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise TrainledgerError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.writelines([text] if isinstance(text, str) else text)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise TrainledgerError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
