"""A toy source kind, for tests only: what adding a source takes (contract.py, source_kinds.register).

Layout: a folder of ``YYYY-MM.csv`` files (``day, amount, currency, project``), one per billing period.
A period's version is its file's content hash, so a rewritten file restates its period.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from trainledger.connectors import staging
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.connectors.source_files import LocalFiles, local_path, required_uri
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

Options = LocalFiles
EXAMPLE = Example("toy-bills", "a folder of YYYY-MM.csv toy bills")


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    uri = required_uri(source, source.options_as(Options).uri)
    root = local_path(source, config, uri, remote="kind toy reads a local folder")
    files = sorted(root.glob("*.csv"))
    return [
        Delivery(f.stem, hashlib.sha256(f.read_bytes()).hexdigest(), f)
        for f in files
        if period in (None, f.stem)
    ]


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    file: Path = delivery.ref
    staging.read_csv(con, "toy_text", [file])
    staging.number_rows(con, "toy_text", "toy_raw")
    staging.first_problem(con, "ingest/validate_toy", {})
    return Staged(
        [str(file)], query="ingest/normalize_toy", params={"source": source.name, "period": delivery.period}
    )
