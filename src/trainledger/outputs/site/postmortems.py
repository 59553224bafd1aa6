"""The site's post-mortem pages, one per experiment, rendered and written by worker processes while the
main process writes the other pages.

Tens of thousands of pages are pure Python string work (GIL-bound), so they go to a process pool on the
machine's cores. The workers are forked after the experiments are reconciled and read them from this
module's ``_ROWS``: nothing is pickled but a range of indexes, and no worker touches the warehouse (the
DuckDB connection stays in the main process; the only threads at fork time are DuckDB's idle ones).
A page is the same bytes whichever process writes it.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from trainledger.outputs import postmortem
from trainledger.outputs.site import layout
from trainledger.reports.reconciliation import Reconciliation

BACK_LINK = (
    '<p><a href="../experiments.html">&larr; all experiments</a> · <a href="../index.html">overview</a></p>\n'
)
# The post-mortems' style, one file beside the pages (`reconcile --format html` keeps it inline).
CSS = "assets/postmortem.css"
# Below this many pages forking costs more than it saves (at 2,084, the 1M bench month, it cost wall and
# CPU time on a busy machine: BENCHMARKS.md); a chunk is what a worker takes at a time.
POOL_FROM = 5000
CHUNK = 500
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
_ROWS: Sequence[Reconciliation] = ()  # the pages to write, set before the workers fork


def write_bytes(path: Path | str, data: bytes) -> None:
    """A file of ``data``, created or replaced, mode 0666 less the umask as ``open`` makes it (tens of
    thousands of files: no file object, no buffering layer)."""
    fd = os.open(path, _FLAGS, 0o666)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _write(folder: str, start: int, stop: int) -> int:
    """Post-mortems ``start`` to ``stop`` of ``_ROWS`` into ``folder``; how many."""
    for r in _ROWS[start:stop]:
        text = postmortem.html(r, f"../{CSS}", BACK_LINK)
        write_bytes(f"{folder}/{layout.slug(r.experiment_id)}.html", text.encode())
    return stop - start


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@contextmanager
def written(rows: Sequence[Reconciliation], folder: Path, workers: int | None = None) -> Iterator[None]:
    """Write the post-mortems of ``rows`` into ``folder``: in worker processes while the block runs (one
    per core; ``workers`` to choose), in this process when there are few or one core or no ``fork``. The
    block's end waits for the last page; a worker's error is raised there."""
    global _ROWS
    workers = cores() if workers is None else workers
    if workers < 2 or len(rows) < POOL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        _ROWS = rows
        try:
            _write(str(folder), 0, len(rows))
        finally:
            _ROWS = ()
        yield
        return
    _ROWS = rows
    # Objects made before the fork are left out of garbage collection until the pages are written: a
    # collection in a worker would otherwise write to every object of the parent's heap, copying each
    # shared memory page (seconds of CPU for a large month).
    gc.freeze()
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns on fork in a process with threads: here DuckDB's, idle, and no worker
            # uses DuckDB (the module docstring).
            warnings.simplefilter("ignore", DeprecationWarning)
            done: list[Future[int]] = [
                pool.submit(_write, str(folder), start, min(start + CHUNK, len(rows)))
                for start in range(0, len(rows), CHUNK)
            ]
        yield
        for future in done:
            future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()
        _ROWS = ()
