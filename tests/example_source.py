"""An example source kind written from ARCHITECTURE.md "Add a source" alone, for tests only.

Layout: one CSV statement per billing period, ``<YYYY-MM>.csv`` in a folder, with the columns
``provider, start, end, service, amount, currency, labels`` (``labels`` a JSON object) and, in later
months only, ``usage_type``. A period's version is its file's content hash.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from trainledger.connectors import staging
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.connectors.source_files import LocalFiles, files_under, local_path, required_uri
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

Options = LocalFiles
EXAMPLE = Example("statements", "a folder of YYYY-MM.csv cloud statements")
REQUIRED = ("provider", "start", "end", "service", "amount", "currency", "labels")
OPTIONAL = {"usage_type": "VARCHAR"}


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    uri = required_uri(source, source.options_as(Options).uri)
    root = local_path(source, config, uri, remote="kind example reads a local folder")
    return [
        Delivery(f.stem, hashlib.sha256(f.read_bytes()).hexdigest(), f)
        for f in files_under(root, (".csv",), "example statements")
        if period in (None, f.stem)
    ]


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    file: Path = delivery.ref
    staging.read_csv(con, "example_text", [file])
    staging.number_rows(con, "example_text", "example_raw")
    staging.add_missing_columns(
        con, "example_raw", OPTIONAL, REQUIRED, str(file), "example statement", [(file, str(file))]
    )
    staging.first_problem(con, "ingest/validate_example", {})
    return Staged(
        [str(file)],
        query="ingest/normalize_example",
        params={"source": source.name, "period": delivery.period},
    )
