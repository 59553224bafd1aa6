"""Writing what leaves trainledger: whole files or nothing, and text cells no spreadsheet runs as formulas."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from trainledger.core.errors import TrainledgerError

# What makes a spreadsheet evaluate a cell: = + - @ (and the full-width forms an input method types, U+FF1D etc.), also
# after blanks the apps strip first (space, NBSP, zero-width space, ideographic space, BOM, LF, tab, CR).
FORMULA_START = ("=", "+", "-", "@", "＝", "＋", "－", "＠")
LEADING_BLANKS = " \u00a0\u200b\u3000\ufeff\n\t\r"


def safe_text(value: str) -> str:
    """Neutralise spreadsheet formulas with a leading quote: text starting with tab or CR, or whose first
    character after leading blanks starts a formula. Money columns never pass here, so `-12.50` stays a number."""
    if value.startswith(("\t", "\r")) or value.lstrip(LEADING_BLANKS).startswith(FORMULA_START):
        return "'" + value
    return value


def write_atomic(path: Path, text: str | bytes | Iterable[str]) -> None:
    """Write via a temporary file (owner-only, like the warehouse) and rename, so a reader never sees half
    an export. ``text`` may come in pieces, so a big export is never held in memory whole; ``bytes`` (a
    workbook) is written as it is."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise TrainledgerError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as binary:
                binary.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.writelines([text] if isinstance(text, str) else text)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise TrainledgerError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
