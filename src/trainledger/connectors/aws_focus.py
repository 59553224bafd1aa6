"""AWS Data Exports FOCUS tables (``FOCUS_1_0_AWS``, ``FOCUS_1_2_AWS``), local or ``s3://``.

They share the CUR 2.0 export layout and manifest (``data/BILLING_PERIOD=YYYY-MM/``, ``metadata/...``), so
discovery is :mod:`aws_cur2`'s; the rows are FOCUS, so loading is :mod:`focus`'s (``Tags`` arrives as a
parquet map and becomes the JSON object charges keep).
"""

from __future__ import annotations

from trainledger.connectors import IngestResult, aws_cur2, focus, staging
from trainledger.connectors.locations import open_storage
from trainledger.core.config import Config, SourceConfig
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection


def ingest(
    con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[IngestResult]:
    storage = open_storage(source, config)
    results: list[IngestResult] = []
    for delivery in aws_cur2.deliveries(storage, period, reporter, what="FOCUS export"):
        if staging.known_version(con, source.name, delivery.period) == delivery.version:
            reporter.detail(f"{source.name} {delivery.period}: unchanged, skipped")
            results.append(
                IngestResult(source.name, delivery.period, 0, skipped=True, version=delivery.version)
            )
            continue
        keys = aws_cur2.manifest_files(storage, delivery)
        files = storage.local_paths(keys, scope=f"data/BILLING_PERIOD={delivery.period}/")
        results.extend(
            focus.load_files(
                con,
                source.name,
                files,
                delivery.version,
                delivery.period,
                reporter,
                names=storage.display_names(keys),
            )
        )
    return results
