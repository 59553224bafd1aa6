"""Peak RSS of `trainledger nightly` on Spark, by process: `python bench/spark_memory.py --rows 1000000`.

A fresh run folder of the bench's generated month (``bench/run.py``'s ``prepare``: the month is made once per
size and kept), one `nightly` (ingest, attribute, exports) in a process of its own (``--commands
ingest,nightly``: the ingest first, alone). With a local master one
JVM, started by the Python driver, hosts Spark's driver and its executors; the money UDFs run in Python
workers the JVM forks (``pyspark.daemon``). Each is measured on its own:

- the Python driver (trainledger itself): its own peak (``getrusage(RUSAGE_SELF)``), read as it exits;
- the JVM and each Python worker: the kernel's high-water mark (``VmHWM`` in ``/proc/PID/status``), read every
  0.2 s while they live (growth in a process's last 0.2 s would be missed); for the workers also the largest
  sum of their RSS at one moment (they run side by side, and pages a fork shares count in each).

As it goes, each progress line `nightly` writes is printed with the time and the driver's and the JVM's
high-water marks then, so a run stopped early still says how far it got and what the driver held by then.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench_run

# The CLI, with this process's own peak RSS written to a file as it exits (atexit: after the command's own
# clean-up, pyspark's included, which registered later and so runs first).
RUNNER = """
import atexit, resource, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)))
from trainledger.cli import main
sys.exit(main())
"""


def children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        found.setdefault(parent, []).append(int(entry))
    return found


def descendants(pid: int) -> list[int]:
    tree, found, todo = children(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def status(pid: int) -> tuple[str, int, int] | None:
    """(command, VmHWM KiB, VmRSS KiB) of a live process."""
    try:
        fields = dict(
            line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
        )
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None
    kib = {k: int(fields.get(k, "0 kB").split()[0]) for k in ("VmHWM", "VmRSS")}
    return command, kib["VmHWM"], kib["VmRSS"]


def measure(run: Path, command: str) -> dict[str, float]:
    """One command in the run folder, in a process of its own."""
    with tempfile.NamedTemporaryFile(suffix=".rss", delete=False) as handle:
        own = Path(handle.name)
    start = time.perf_counter()
    log = run / f"{command}.stderr"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", RUNNER, str(own), command],
            cwd=run,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    jvm = workers = workers_at_once = 0
    shown = 0
    while proc.poll() is None:
        lines = log.read_text(errors="replace").splitlines()
        for line in lines[shown:]:
            driver_now = status(proc.pid)
            print(
                f"  {time.perf_counter() - start:7.0f} s  driver {(driver_now or ('', 0, 0))[1] / 1024:6.0f} MiB  "
                f"JVM {jvm / 1024:6.0f} MiB  {line[:100]}",
                flush=True,
            )
        shown = len(lines)
        now = 0
        for pid in descendants(proc.pid):
            found = status(pid)
            if found is None:
                continue
            command, hwm, rss = found
            if "java" in command.split(" ", 1)[0]:
                jvm = max(jvm, hwm)
            elif "python" in command.split(" ", 1)[0]:
                workers = max(workers, hwm)
                now += rss
        workers_at_once = max(workers_at_once, now)
        time.sleep(0.2)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 2):
        raise SystemExit(
            f"{command} failed with exit code {proc.returncode}:\n{log.read_text(errors='replace')}"
        )
    driver = int(own.read_text())
    own.unlink()
    mib = 1024
    return {
        "seconds": seconds,
        "python driver": driver / mib,
        "JVM (Spark driver + executors)": jvm / mib,
        "largest Python worker": workers / mib,
        "Python workers at once": workers_at_once / mib,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", default="1000000", help="Comma-separated sizes, e.g. 1000000,10000000")
    parser.add_argument("--data", type=lambda p: Path(p).resolve(), default=bench_run.ROOT / "bench-data")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument(
        "--commands",
        default="nightly",
        help="Run one after the other in the same fresh run folder: ingest,nightly measures the bill's reading "
        "apart from attribution and exports (the second then finds the month ingested)",
    )
    args = parser.parse_args()
    for rows in (int(r) for r in args.rows.split(",")):
        run, _, _ = bench_run.prepare(rows, args.data, args.master)
        for command in args.commands.split(","):
            print(f"{rows:,} rows, {command}, {args.master}, load average {os.getloadavg()}", flush=True)
            for name, value in measure(run, command).items():
                print(f"  {name:32} {value:10.1f} {'s' if name == 'seconds' else 'MiB'}", flush=True)
            print(f"  load average after: {os.getloadavg()}", flush=True)
    bench_run.remove_old_runs(args.data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
