"""Peak RSS of the process while each statement of `trainledger attribute` runs, highest first, with its
wall time.

Run in a folder with a trainledger.toml and an ingested warehouse (bench-data/<rows>/run after
bench/run.py): ``python bench/attribute_memory.py``. The command runs in this process; a thread samples
/proc/self/status every 10 ms and charges each sample to the statement running then.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from pathlib import Path
from typing import Any

import trainledger.attribution.allocations as allocations
from trainledger.cli import main as cli

running = ["(start)"]
peaks: dict[str, int] = {}
seconds: dict[str, float] = {}
done = threading.Event()


def rss_mib() -> int:
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def sample() -> None:
    while not done.is_set():
        name = running[0]
        peaks[name] = max(peaks.get(name, 0), rss_mib())
        time.sleep(0.01)


def main() -> None:
    run = allocations.run

    def named(con: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        running[0] = name
        start = time.perf_counter()
        try:
            return run(con, name, *args, **kwargs)
        finally:
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start

    allocations.run = named
    threading.Thread(target=sample, daemon=True).start()
    sys.argv = ["trainledger", "attribute"]
    with contextlib.suppress(SystemExit):  # click exits when the command is done
        cli()
    done.set()
    for name, peak in sorted(peaks.items(), key=lambda kv: -kv[1])[:10]:
        print(f"{peak:6d} MiB {seconds.get(name, 0.0):7.2f} s  {name}")


if __name__ == "__main__":
    main()
