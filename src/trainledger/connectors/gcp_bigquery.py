"""Reading one of Google's export tables straight from BigQuery: one parameterised query, its rows the raw
view the flat view reads (:mod:`gcp_flat`).

The table id cannot be a query parameter, so it is checked strictly and backtick-quoted; the rows come back
as arrow, pages of ``PAGE_SIZE``, and are registered in this session only (a view over Python memory).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from trainledger.connectors import gcp_api, sql_slots, staging
from trainledger.connectors.gcp_flat import RAW_VIEW, Export
from trainledger.core.config_types import SourceConfig
from trainledger.core.errors import SourceError
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

TABLE_ID = re.compile(r"([a-z][a-z0-9-]{4,28}[a-z0-9])\.([A-Za-z0-9_]{1,1024})\.([A-Za-z0-9_]{1,1024})")
PAGE_SIZE = 10_000


def table_id(source: SourceConfig, table: str, export: Export) -> str:
    """The ``table`` key when it is a BigQuery table id, else one line saying what is expected."""
    if not TABLE_ID.fullmatch(table):
        raise SourceError(
            f"source {source.name!r}: table = {table!r} is not a BigQuery table id; expected "
            f'"project.dataset.table", e.g. "{export.example}"'
        )
    return table


def read_bigquery(
    con: Connection,
    source: SourceConfig,
    table: str,
    project: str | None,
    since: datetime,
    month: str | None,
    reporter: Reporter,
    export: Export,
) -> str:
    """Run the parameterised query (rows exported since ``since``, of invoice month ``month`` YYYYMM or of
    all) and expose its rows as the raw view; returns the origin label. ``project`` runs the query (default:
    the table's)."""
    from google.cloud import bigquery

    table = table_id(source, table, export)
    project = project or table.split(".", 1)[0]
    config = bigquery.QueryJobConfig(
        query_parameters=[
            bigquery.ScalarQueryParameter("since", "TIMESTAMP", since),
            bigquery.ScalarQueryParameter("invoice_month", "STRING", month),
        ]
    )
    reporter.step(f"{source.name}: querying {table} for rows exported since {since:%Y-%m-%d %H:%M:%S} UTC")
    try:
        client = bigquery.Client(project=project, **gcp_api.client_kwargs(source))

        def query(timeout: float) -> Any:
            rows = client.query_and_wait(
                sql_slots.render(export.bigquery, table=sql_slots.Fragment(f"`{table}`")),
                job_config=config,
                page_size=PAGE_SIZE,
                api_timeout=timeout,
                retry=None,  # type: ignore[arg-type]  # None: no retry of the library's own (bounded does)
                job_retry=None,  # type: ignore[arg-type]
            )
            return rows.to_arrow(create_bqstorage_client=False)

        arrow = gcp_api.bounded(source, query)
    except gcp_api.api_errors() as exc:
        hints = {
            "permission denied": (
                "the caller needs roles/bigquery.dataViewer on the export dataset and "
                f"roles/bigquery.jobUser on project {project!r}"
            ),
            "not found": f"check `table`: the export table is {export.tables}",
        }
        raise gcp_api.source_error(source, exc, f"querying BigQuery table {table}", hints) from None
    import pyarrow as pa

    origin = f"bigquery:{table}"
    arrow = arrow.append_column("filename", pa.array([origin] * arrow.num_rows, pa.string()))
    arrow = arrow.append_column("file_row_number", pa.array(range(arrow.num_rows), pa.int64()))
    # A view over Python memory lives only in this session: registered, not created.
    staging.create_raw_view(con, RAW_VIEW, arrow)
    reporter.detail(f"{source.name}: {arrow.num_rows} row(s) from BigQuery")
    return origin
