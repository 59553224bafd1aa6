"""Peak RSS of the experiment log's load, step by step: `python bench/log_memory.py RUN_FOLDER`.

RUN_FOLDER is a `make bench` run folder (its trainledger.toml names the log). Each step keeps the previous
one's objects, as the loader did before it built experiments one at a time, so the figures say what the
log alone costs in Python at a given size (BENCHMARKS.md, issue 18, fourth round).
"""

from __future__ import annotations

import gc
import os
import resource
import sys

from trainledger.core import config as config_module
from trainledger.core.labels import LabelScheme
from trainledger.core.reporter import Silent
from trainledger.experiments.log import build, merge, read_log


def peak(step: str) -> None:
    print(
        f"{step:<8} peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024:>6} MiB", flush=True
    )


def main(folder: str) -> int:
    os.chdir(folder)
    gc.disable()  # as the loader does while it builds the records
    config = config_module.load("trainledger.toml")
    peak("config")
    log = read_log(config, Silent())
    if log is None:
        raise SystemExit(f"{folder}: no [experiments] log configured")
    peak("read")
    merged = merge(log.records(), Silent())
    peak("merged")
    scheme = LabelScheme(config.labels)
    built = [build(where, record, scheme) for where, record in merged.values()]
    peak("built")
    print(f"{len(built):,} experiments")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
