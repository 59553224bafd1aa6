"""Local HTTP fakes of the Google REST APIs the GCP connectors call, for offline tests.

Each fake answers the real paths and JSON shapes the google-cloud-* clients use (checked against the
clients' own REST transports in .venv and the REST reference), pages its answers with ``pageToken``, and
evaluates nothing: it serves fixture data, filtered only by the query parameters it is given. Every
request is recorded in ``requests`` so tests can assert what the client asked for.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Json = dict[str, Any]


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    body: Json | None


class HttpError(Exception):
    """Raised by a route to answer with a Google-shaped JSON error."""

    def __init__(self, code: int, status: str, message: str, reason: str) -> None:
        super().__init__(message)
        self.code, self.status, self.message, self.reason = code, status, message, reason

    def body(self) -> Json:
        return {
            "error": {
                "code": self.code,
                "message": self.message,
                "status": self.status,
                "errors": [{"message": self.message, "domain": "global", "reason": self.reason}],
            }
        }


class FakeServer:
    """A threaded HTTP server on 127.0.0.1 with regex routes; use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., Json]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _serve(self, method: str) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                fake.requests.append(Recorded(method, parts.path, query, body))
                status, payload = fake.dispatch(method, parts.path, query, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, method: str, pattern: str, handler: Callable[..., Json]) -> None:
        self._routes.append((method, re.compile(pattern), handler))

    def dispatch(self, method: str, path: str, query: dict[str, str], body: Json | None) -> tuple[int, Json]:
        for verb, pattern, handler in self._routes:
            match = pattern.fullmatch(path)
            if verb == method and match:
                try:
                    return 200, handler(*match.groups(), query=query, body=body)
                except HttpError as err:
                    return err.code, err.body()
        return 404, HttpError(404, "NOT_FOUND", f"no fake route for {method} {path}", "notFound").body()

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def paths(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.requests]


def _page(items: list[Any], query: dict[str, str], default_size: int) -> tuple[list[Any], str | None]:
    """Offset paging with an opaque token, as every Google list API does it."""
    start = int(base64.urlsafe_b64decode(query["pageToken"]).decode()) if query.get("pageToken") else 0
    size = int(query.get("pageSize") or query.get("maxResults") or default_size)
    size = min(size, default_size) if size > 0 else default_size
    end = start + size
    token = base64.urlsafe_b64encode(str(end).encode()).decode() if end < len(items) else None
    return items[start:end], token


# ---------------------------------------------------------------------------------------------------------
# BigQuery: jobs.query, jobs.get, jobs.getQueryResults (https://cloud.google.com/bigquery/docs/reference/rest)
# ---------------------------------------------------------------------------------------------------------


def _micros(ts: datetime) -> str:
    return str(int((ts - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds() * 1_000_000))


def encode_value(field_schema: Json, value: Any, int64_timestamps: bool) -> Any:
    """One cell in the REST ``{"f": [{"v": ...}]}`` row encoding: every scalar is a string."""
    if field_schema.get("mode") == "REPEATED":
        single = {**field_schema, "mode": "NULLABLE"}
        return [{"v": encode_value(single, v, int64_timestamps)} for v in value or []]
    if value is None:
        return None
    kind = field_schema["type"]
    if kind in ("RECORD", "STRUCT"):
        return {
            "f": [
                {"v": encode_value(f, value.get(f["name"]), int64_timestamps)} for f in field_schema["fields"]
            ]
        }
    if kind == "TIMESTAMP":
        if int64_timestamps:
            return _micros(value)
        return repr((value - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds())
    if kind in ("FLOAT", "FLOAT64"):
        return repr(float(value))
    if kind in ("NUMERIC", "BIGNUMERIC"):
        return str(Decimal(value))
    if kind == "BOOLEAN":
        return "true" if value else "false"
    return str(value)


def _timestamp_param(text: str) -> datetime:
    """Parse a TIMESTAMP query parameter as the client sends it (``2026-11-01 00:00:00+00:00``)."""
    return datetime.fromisoformat(text.replace(" ", "T")).astimezone(UTC)


def _invoice_month(row: Json) -> str | None:
    return (row.get("invoice") or {}).get("month")


@dataclass
class Table:
    """A fixture table: ``exported`` names the column ``@since`` filters on, ``month`` reads a row's
    invoice month (YYYYMM) for ``@invoice_month`` (the detailed export's by default)."""

    schema: list[Json]
    rows: list[Json]
    exported: str = "export_time"
    month: Callable[[Json], str | None] = _invoice_month


class BigQueryFake(FakeServer):
    """jobs.query + jobs.get + jobs.getQueryResults over fixture tables keyed ``project.dataset.table``.

    A query's table is the backtick-quoted name in its text; rows are filtered by the ``since``
    (``export_time >= @since``) and ``invoice_month`` (``invoice.month = @invoice_month``) parameters,
    the only evaluation done here (a FOCUS table filters on its own columns: ``Table``). ``denied`` tables answer 403, unknown tables 404.
    """

    def __init__(
        self, tables: dict[str, Table], page_size: int = 100, denied: set[str] | None = None
    ) -> None:
        super().__init__()
        self.tables = tables
        self.page_size = page_size
        self.denied = denied or set()
        self.jobs: dict[str, Json] = {}
        base = r"/bigquery/v2/projects/([^/]+)"
        self.route("POST", base + r"/queries", self.jobs_query)
        self.route("POST", base + r"/jobs", self.jobs_insert)
        self.route("GET", base + r"/jobs/([^/]+)", self.jobs_get)
        self.route("GET", base + r"/queries/([^/]+)", self.get_query_results)

    def _run(self, project: str, config: Json) -> Json:
        sql = config["query"]
        match = re.search(r"`([^`]+)`", sql)
        if not match:
            raise HttpError(400, "INVALID_ARGUMENT", "Syntax error: no table in query", "invalidQuery")
        name = match.group(1)
        if name in self.denied:
            raise HttpError(
                403,
                "PERMISSION_DENIED",
                f"Access Denied: Table {name.replace('.', ':', 1)}: User does not have permission to query "
                f"table {name.replace('.', ':', 1)}, or perhaps it does not exist.",
                "accessDenied",
            )
        if name not in self.tables:
            raise HttpError(
                404,
                "NOT_FOUND",
                f"Not found: Table {name.replace('.', ':', 1)} was not found in location US",
                "notFound",
            )
        params = {p["name"]: p["parameterValue"].get("value") for p in config.get("queryParameters", [])}
        table = self.tables[name]
        rows = table.rows
        if params.get("since"):
            since = _timestamp_param(params["since"])
            rows = [r for r in rows if r[table.exported] >= since]
        if params.get("invoice_month"):
            rows = [r for r in rows if table.month(r) == params["invoice_month"]]
        job_id = f"job_{uuid.uuid4().hex[:12]}"
        self.jobs[job_id] = {"project": project, "schema": table.schema, "rows": rows, "query": sql}
        return {"jobId": job_id, "projectId": project, "location": "US"}

    def _results(self, job_id: str, query: dict[str, str], kind: str) -> Json:
        job = self.jobs.get(job_id)
        if job is None:
            raise HttpError(404, "NOT_FOUND", f"Not found: Job {job_id}", "notFound")
        page, token = _page(job["rows"], query, self.page_size)
        int64 = query.get("formatOptions.useInt64Timestamp", "true").lower() == "true"
        answer: Json = {
            "kind": kind,
            "schema": {"fields": job["schema"]},
            "jobReference": {"projectId": job["project"], "jobId": job_id, "location": "US"},
            "totalRows": str(len(job["rows"])),
            "rows": [
                {"f": [{"v": encode_value(f, row.get(f["name"]), int64)} for f in job["schema"]]}
                for row in page
            ],
            "totalBytesProcessed": "0",
            "jobComplete": True,
            "cacheHit": False,
        }
        if token:
            answer["pageToken"] = token
        return answer

    def jobs_query(self, project: str, *, query: dict[str, str], body: Json | None) -> Json:
        assert body is not None
        ref = self._run(project, body)
        first = {"maxResults": str(body.get("maxResults", self.page_size))}
        fmt = body.get("formatOptions", {})
        first["formatOptions.useInt64Timestamp"] = str(fmt.get("useInt64Timestamp", False)).lower()
        return {**self._results(ref["jobId"], first, "bigquery#queryResponse"), "queryId": ref["jobId"]}

    def jobs_insert(self, project: str, *, query: dict[str, str], body: Json | None) -> Json:
        assert body is not None
        ref = self._run(project, body["configuration"]["query"])
        return self._job_resource(project, ref["jobId"], body["configuration"])

    def _job_resource(self, project: str, job_id: str, configuration: Json | None = None) -> Json:
        job = self.jobs[job_id]
        return {
            "kind": "bigquery#job",
            "id": f"{project}:US.{job_id}",
            "jobReference": {"projectId": project, "jobId": job_id, "location": "US"},
            "configuration": configuration or {"jobType": "QUERY", "query": {"query": job["query"]}},
            "status": {"state": "DONE"},
            "statistics": {"creationTime": "0", "startTime": "0", "endTime": "0", "query": {}},
        }

    def jobs_get(self, project: str, job_id: str, *, query: dict[str, str], body: Json | None) -> Json:
        if job_id not in self.jobs:
            raise HttpError(404, "NOT_FOUND", f"Not found: Job {project}:{job_id}", "notFound")
        return self._job_resource(project, job_id)

    def get_query_results(
        self, project: str, job_id: str, *, query: dict[str, str], body: Json | None
    ) -> Json:
        return self._results(job_id, query, "bigquery#getQueryResultsResponse")


def iter_pages(fake: FakeServer, path_suffix: str) -> Iterator[Recorded]:
    return (r for r in fake.requests if r.path.endswith(path_suffix))


# ---------------------------------------------------------------------------------------------------------
# Cloud Billing Catalog: services.list, services.skus.list (https://cloud.google.com/billing/docs/reference/rest)
# ---------------------------------------------------------------------------------------------------------


class CatalogFake(FakeServer):
    """``GET /v1/services`` and ``GET /v1/services/{id}/skus``, paged by ``pageToken``/``nextPageToken``."""

    def __init__(self, services: list[Json], skus: dict[str, list[Json]], page_size: int = 2) -> None:
        super().__init__()
        self.services, self.skus, self.page_size = services, skus, page_size
        self.route("GET", r"/v1/services", self.list_services)
        self.route("GET", r"/v1/services/([^/]+)/skus", self.list_skus)

    def list_services(self, *, query: dict[str, str], body: Json | None) -> Json:
        page, token = _page(self.services, query, self.page_size)
        return {"services": page, "nextPageToken": token or ""}

    def list_skus(self, service_id: str, *, query: dict[str, str], body: Json | None) -> Json:
        page, token = _page(self.skus.get(service_id, []), query, self.page_size)
        return {"skus": page, "nextPageToken": token or ""}


# ---------------------------------------------------------------------------------------------------------
# Compute Engine: instances.aggregatedList, projects.get (https://cloud.google.com/compute/docs/reference/rest/v1)
# ---------------------------------------------------------------------------------------------------------


class ComputeFake(FakeServer):
    """``aggregated/instances`` pages (instances grouped per zone, empty zones as warnings) and ``projects.get``."""

    def __init__(
        self,
        instances: dict[str, list[Json]],
        numbers: dict[str, str],
        page_size: int = 1,
        denied: set[str] | None = None,
    ) -> None:
        super().__init__()
        self.instances, self.numbers, self.page_size = instances, numbers, page_size
        self.denied = denied or set()
        self.route("GET", r"/compute/v1/projects/([^/]+)/aggregated/instances", self.aggregated_list)
        self.route("GET", r"/compute/v1/projects/([^/]+)", self.get_project)

    def _check(self, project: str) -> None:
        if project in self.denied:
            raise HttpError(
                403,
                "PERMISSION_DENIED",
                f"Required 'compute.instances.list' permission for 'projects/{project}'",
                "forbidden",
            )
        if project not in self.instances:
            raise HttpError(404, "NOT_FOUND", f"The resource 'projects/{project}' was not found", "notFound")

    def aggregated_list(self, project: str, *, query: dict[str, str], body: Json | None) -> Json:
        self._check(project)
        page, token = _page(self.instances[project], query, self.page_size)
        items: Json = {
            "zones/europe-west4-a": {
                "warning": {
                    "code": "NO_RESULTS_ON_PAGE",
                    "message": "There are no results for scope 'zones/europe-west4-a' on this page.",
                    "data": [{"key": "scope", "value": "zones/europe-west4-a"}],
                }
            }
        }
        for instance in page:
            zone = "zones/" + instance["zone"].rsplit("/", 1)[-1]
            items.setdefault(zone, {"instances": []})["instances"].append(instance)
        answer: Json = {
            "kind": "compute#instanceAggregatedList",
            "id": f"projects/{project}/aggregated/instances",
            "items": items,
            "selfLink": f"https://www.googleapis.com/compute/v1/projects/{project}/aggregated/instances",
        }
        if token:
            answer["nextPageToken"] = token
        return answer

    def get_project(self, project: str, *, query: dict[str, str], body: Json | None) -> Json:
        self._check(project)
        return {"kind": "compute#project", "id": self.numbers[project], "name": project}


# ---------------------------------------------------------------------------------------------------------
# Cloud Storage: the gcp-storage-emulator package (PyPI), in-process.
# ---------------------------------------------------------------------------------------------------------


@contextmanager
def storage_emulator() -> Iterator[str]:
    """A gcp-storage-emulator server in memory; yields its ``http://host:port`` for STORAGE_EMULATOR_HOST."""
    from gcp_storage_emulator.server import create_server

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = create_server("127.0.0.1", port, in_memory=True)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
