"""Where the CLI writes: one ``emit`` for read commands' documents, and writes that survive a closed reader.

A reader may close stdout or stderr at any time (`trainledger nightly 2>&1 | head -1`). The work must not
depend on it: the first write that finds the stream closed points it at /dev/null, and the command goes
on and ends with its own status.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import IO

import click

from trainledger.core.files import write_atomic
from trainledger.outputs.document import Document, render


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` that drops a closed stream quietly instead of failing the command."""
    stream = sys.stderr if err else sys.stdout
    try:
        click.echo(text, err=err, nl=nl)
    except BrokenPipeError:
        _drop(stream)


def _drop(stream: IO[str]) -> None:
    """Point the stream's file descriptor at /dev/null: later writes and the flush at exit succeed."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, stream.fileno())
    finally:
        os.close(null)


def reopen_closed_streams() -> None:
    """Point a stdout or stderr the command started without (`trainledger nightly >&-`) at /dev/null.

    Python leaves ``sys.stdout`` None then, and the next file opened (the warehouse) would take the free
    descriptor, where DuckDB's own writes to stdout would land.
    """
    for name, fd in (("stdout", 1), ("stderr", 2)):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, "w", encoding="utf-8", closefd=False))  # noqa: SIM115


def flush_quietly() -> None:
    """Flush both streams before exit, dropping any the reader has closed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            _drop(stream)
        except (OSError, ValueError):
            pass


def terminal_width() -> int | None:
    """Columns to fit a table in: ``$COLUMNS``, else the terminal's; None when stdout is not a terminal."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def emit(document: Document, fmt_: str) -> None:
    """A read command's document on stdout, in the format asked for."""
    echo(render(document, fmt_, terminal_width() if fmt_ == "table" else None), nl=False)


def emit_text(text: str, out: str | None) -> None:
    """Text to ``out`` (whole or not at all) or to stdout."""
    if out:
        write_atomic(Path(out), text)
        echo(f"wrote {out}", err=True)
    else:
        echo(text, nl=not text.endswith("\n"))
