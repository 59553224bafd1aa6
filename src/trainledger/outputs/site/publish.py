"""Swapping a freshly built site into place, so a reader sees the old site or the new one, never half.

The new site is written into a temporary folder beside the target (same file system), then exchanged with
the old one in one ``renameat2(RENAME_EXCHANGE)`` call where Linux offers it; elsewhere the old folder is
renamed aside and the new one renamed in, two renames apart. A marker file says a folder is a site, so
``--out ~`` can never replace a folder of someone's files.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from trainledger.core.errors import TrainledgerError

MARKER = ".trainledger-site"
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _check_target(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise TrainledgerError(f"{out}: is a file; the site needs a folder (give --out a folder path)")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise TrainledgerError(
            f"{out}: folder is not empty and was not written by `trainledger site`; "
            "choose a new or empty folder (the site replaces the folder's content)"
        )


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2); False where the system cannot."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(done == 0)


def remove_stale(out: Path) -> None:
    """Temporary folders a killed run left beside ``out`` (call only while no other run writes there)."""
    for stale in out.parent.glob(f".{out.name}.site-*"):
        shutil.rmtree(stale, ignore_errors=True)


@contextmanager
def staged(out: Path) -> Iterator[Path]:
    """A temporary folder to write the site into; swapped into ``out`` when the block ends without error,
    removed otherwise."""
    out = out.resolve()
    _check_target(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.site-", suffix=".tmp"))
    except OSError as exc:
        raise TrainledgerError(f"{out}: cannot write the site: {exc.strerror or exc}") from None
    try:
        yield tmp
        (tmp / MARKER).write_text("written by trainledger site; replaced whole on each run\n", "utf-8")
        tmp.chmod(0o755)
        if not out.exists():
            tmp.rename(out)
        elif _exchange(tmp, out):
            shutil.rmtree(tmp)
        else:
            aside = tmp.with_name(tmp.name + ".old")
            out.rename(aside)
            tmp.rename(out)
            shutil.rmtree(aside, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise TrainledgerError(f"{out}: cannot write the site: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
