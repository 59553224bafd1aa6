"""AWS Data Exports FOCUS tables (``FOCUS_1_0_AWS``, ``FOCUS_1_2_AWS``), local or ``s3://``.

They share the CUR 2.0 export layout and manifest (``data/BILLING_PERIOD=YYYY-MM/``, ``metadata/...``), so
discovery is :mod:`aws_cur2`'s; the rows are FOCUS, so loading is :mod:`focus`'s (``Tags`` arrives as a
parquet map and becomes the JSON object charges keep).
"""

from __future__ import annotations

from trainledger.connectors import aws_cur2, focus
from trainledger.connectors.aws_session import EXAMPLE_OPTIONS
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.connectors.source_files import AwsFiles, data_files, open_storage
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

Options = AwsFiles
EXAMPLE = Example("s3://my-billing-bucket/focus/ml-focus", "AWS Data Exports FOCUS 1.0/1.2", EXAMPLE_OPTIONS)


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    return aws_cur2.exports(open_storage(source, config), period, reporter, what="FOCUS export")


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    """The period's manifest files, staged as FOCUS rows (of the delivery's period only)."""
    export: aws_cur2.PeriodManifest = delivery.ref
    keys = aws_cur2.manifest_files(export, delivery.period)
    files, names = data_files(con, export.storage, keys, f"data/BILLING_PERIOD={delivery.period}/", config)
    return focus.stage_files(con, source.name, files, reporter, names=names)
