"""Reading the warehouse while a batch run holds it: the last committed state, copied aside.

DuckDB lets one process write a file or several read it, never both: a reader waits while `nightly`
writes, and `nightly` waits while a reader holds the file. A notebook must do neither (it may stay open
for days), so the Python API opens the file for one call at a time, and when a writer holds it, reads a
copy of what was last committed: the database file and its write-ahead log (the transactions committed
since the last checkpoint), copied while DuckDB's headers stay as they were, then opened read-only,
which replays that log. A checkpoint rewrites a header (the file's first three 4 KiB blocks) and frees
blocks only once the new header is written, so an unchanged header means every block it names was left
alone while the copy was taken; a transaction still running is in neither file. The copy lives in a
private temporary folder (0700: it holds the warehouse's data) until the ledger is closed.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from trainledger.core.errors import WarehouseBusy

HEADER_BYTES = 3 * 4096
ATTEMPTS = 5


def _header(path: Path) -> bytes:
    with path.open("rb") as f:
        return f.read(HEADER_BYTES)


def wal(path: Path) -> Path:
    """DuckDB's write-ahead log of a database file."""
    return path.with_name(path.name + ".wal")


class Snapshots:
    """Copies of a warehouse as last committed, made when a writer holds it and kept while unchanged."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.made: tuple[bytes, int, int] | None = None  # header, file size, log size of the copy

    def copy(self, path: Path) -> Path:
        """A read-only copy of ``path`` as last committed (the previous one while nothing changed since)."""
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="trainledger-snapshot-"))
        target = self.folder / path.name
        for _ in range(ATTEMPTS):
            header = _header(path)
            state = (header, path.stat().st_size, wal(path).stat().st_size if wal(path).exists() else 0)
            if state == self.made:
                return target
            if wal(path).exists():
                shutil.copyfile(wal(path), wal(target))
            else:
                wal(target).unlink(missing_ok=True)
            shutil.copyfile(path, target)
            if _header(path) == header:
                self.made = state
                return target
        raise WarehouseBusy(
            f"{path}: a batch run is writing the warehouse and checkpointed it during each of {ATTEMPTS} "
            "attempts to copy its last committed state; try again in a moment"
        )

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
            self.made = None
