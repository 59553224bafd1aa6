"""Local HTTP fakes of the two LLM API cost endpoints, for offline tests, built from each provider's
documented response shape (like tests/gcp_fakes.py for Google's APIs).

- OpenAI ``GET /v1/organization/costs`` (platform.openai.com/docs/api-reference/usage/costs): query
  ``start_time`` / ``end_time`` (Unix seconds), ``bucket_width=1d``, ``group_by`` (repeated), ``limit``,
  ``page``; ``Authorization: Bearer <admin key>``; a page ``{"object": "page", "data": [{"object":
  "bucket", "start_time", "end_time", "results": [{"object": "organization.costs.result", "amount":
  {"value": <number>, "currency": "usd"}, "line_item", "project_id"}]}], "has_more", "next_page"}``.
- Anthropic ``GET /v1/organizations/cost_report`` (platform.claude.com/docs/en/api/admin/cost_report):
  query ``starting_at`` / ``ending_at`` (RFC 3339), ``bucket_width=1d``, ``group_by[]``, ``limit`` (at
  most 31), ``page``; headers ``x-api-key`` and ``anthropic-version: 2023-06-01``; a page ``{"data":
  [{"starting_at", "ending_at", "results": [{"amount": "<cents as a decimal string>", "currency": "USD",
  "workspace_id", "description", "cost_type", "model", ...}]}], "has_more", "next_page"}``.

And the lists of the organization's projects / workspaces, with their names:

- OpenAI ``GET /v1/organization/projects`` (platform.openai.com/docs/api-reference/projects/list): query
  ``limit`` (1-100), ``after`` (an id), ``include_archived``; a page ``{"object": "list", "data": [{"id",
  "object": "organization.project", "name", "created_at", "archived_at", "status"}], "first_id",
  "last_id", "has_more"}``.
- Anthropic ``GET /v1/organizations/workspaces`` (platform.claude.com/docs/en/api/admin/workspaces/list):
  query ``limit`` (1-1000), ``after_id``, ``include_archived``; a page ``{"data": [{"type": "workspace",
  "id", "name", "created_at", "archived_at", "display_color"}], "has_more", "first_id", "last_id"}``.

A fake serves the days it is given, paged ``page_size`` buckets at a time behind an opaque token, and the
names it is given, ``names_page_size`` at a time after the last id; it evaluates nothing else. ``answers`` are statuses to give before serving (a 429 with ``Retry-After: 0``, a
500). Every request is recorded (path, query pairs, headers) for tests to assert what was asked.
Amounts are written into the JSON text exactly as given (a number's digits for OpenAI), never through a
float.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

KEY = "sk-admin-PlantedAdminKey0042xyz"


@dataclass
class Request:
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]  # names in lower case

    def values(self, name: str) -> list[str]:
        return [v for k, v in self.query if k == name]


@dataclass
class CostApi:
    """What a fake serves: ``days`` maps a UTC day to its results (OpenAI: (project_id, line_item, value
    text, currency); Anthropic: (workspace_id, description, amount text)); ``answers`` go first."""

    provider: str
    days: dict[date, list[tuple[Any, ...]]]
    page_size: int = 31
    answers: list[int] = field(default_factory=list)
    no_token: bool = False  # claim has_more without a next_page
    stray_day: date | None = None  # a bucket of this day in every answer, asked for or not
    names: dict[str, str] = field(default_factory=dict)  # project / workspace id -> name, in list order
    names_page_size: int = 100
    requests: list[Request] = field(default_factory=list)

    def respond(
        self, path: str, query: list[tuple[str, str]], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        self.requests.append(Request(path, query, {k.lower(): v for k, v in headers.items()}))
        if self.answers:
            status = self.answers.pop(0)
            extra = {"Retry-After": "0"} if status == 429 else {}
            return status, extra, json.dumps({"error": {"message": f"fake answer {status}"}}).encode()
        costs, lists = NAME_PATHS[self.provider]
        if path not in (costs, lists):
            return 404, {}, b'{"error": {"message": "not found"}}'
        if not self._authorised(headers):
            return 401, {}, b'{"error": {"message": "invalid admin key"}}'
        args = dict(query)
        if path == lists:
            return 200, {}, self.names_page(args).encode()
        if self.provider == "openai":
            start = datetime.fromtimestamp(int(args["start_time"]), UTC).date()
            end = datetime.fromtimestamp(int(args["end_time"]), UTC).date()
        else:
            start = datetime.fromisoformat(args["starting_at"]).date()
            end = datetime.fromisoformat(args["ending_at"]).date()
        days = sorted(d for d in self.days if start <= d < end)
        offset = int(base64.urlsafe_b64decode(args["page"]).decode()) if args.get("page") else 0
        size = min(int(args.get("limit", 7)), self.page_size)
        shown = days[offset : offset + size]
        if self.stray_day is not None:
            shown = [*shown, self.stray_day]
        more = offset + size < len(days)
        token = base64.urlsafe_b64encode(str(offset + size).encode()).decode() if more else None
        if self.no_token:
            more, token = True, None
        return 200, {}, self.page(shown, more, token).encode()

    def _authorised(self, headers: dict[str, str]) -> bool:
        lower = {k.lower(): v for k, v in headers.items()}
        if self.provider == "openai":
            return lower.get("authorization") == f"Bearer {KEY}"
        return lower.get("x-api-key") == KEY and lower.get("anthropic-version") == "2023-06-01"

    def page(self, days: list[date], more: bool, token: str | None) -> str:
        return page_text(self.provider, {d: self.days.get(d, []) for d in days}, more, token)

    def names_page(self, args: dict[str, str]) -> str:
        ids = list(self.names)
        after = args.get("after" if self.provider == "openai" else "after_id")
        offset = ids.index(after) + 1 if after else 0
        size = min(int(args.get("limit", 20)), self.names_page_size)
        shown = ids[offset : offset + size]
        return names_text(self.provider, {i: self.names[i] for i in shown}, offset + size < len(ids))


# The cost endpoint and the list of projects / workspaces of each provider.
NAME_PATHS = {
    "openai": ("/v1/organization/costs", "/v1/organization/projects"),
    "anthropic": ("/v1/organizations/cost_report", "/v1/organizations/workspaces"),
}


def names_text(provider: str, names: dict[str, str], more: bool = False) -> str:
    """One list page of ``provider``'s projects (OpenAI) or workspaces (Anthropic), of the documented
    shape, holding ``names`` (id -> name)."""
    if provider == "openai":
        items: list[dict[str, Any]] = [
            {
                "id": ident,
                "object": "organization.project",
                "name": name,
                "created_at": 1711471533,
                "archived_at": None,
                "status": "active",
            }
            for ident, name in names.items()
        ]
    else:
        items = [
            {
                "type": "workspace",
                "id": ident,
                "name": name,
                "created_at": "2024-10-30T23:58:27.427722Z",
                "archived_at": None,
                "display_color": "#6C5BB9",
            }
            for ident, name in names.items()
        ]
    ids = list(names)
    body: dict[str, Any] = {
        "data": items,
        "has_more": more,
        "first_id": ids[0] if ids else None,
        "last_id": ids[-1] if ids else None,
    }
    if provider == "openai":
        body = {"object": "list", **body}
    return json.dumps(body, indent=1)


def page_text(
    provider: str, days: dict[date, list[tuple[Any, ...]]], more: bool = False, token: str | None = None
) -> str:
    """One page of ``provider``'s documented shape holding ``days`` (as :class:`CostApi` describes them)."""
    numbers: dict[str, str] = {}
    buckets = []
    for day, results in days.items():
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        end = start + timedelta(days=1)
        if provider == "openai":
            shaped = []
            for project, item, value, currency in results:
                marker = f"@number{len(numbers)}@"
                numbers[f'"{marker}"'] = value  # written as the number's own digits below
                shaped.append(
                    {
                        "object": "organization.costs.result",
                        "amount": {"value": marker, "currency": currency},
                        "line_item": item,
                        "project_id": project,
                    }
                )
            buckets.append(
                {
                    "object": "bucket",
                    "start_time": int(start.timestamp()),
                    "end_time": int(end.timestamp()),
                    "results": shaped,
                }
            )
        else:
            shaped = [
                {
                    "currency": "USD",
                    "amount": amount,
                    "workspace_id": workspace,
                    "description": description,
                    "cost_type": "tokens",
                    "context_window": "0-200k",
                    "model": "claude-sonnet-4-20250514",
                    "service_tier": "standard",
                    "token_type": "uncached_input_tokens",
                }
                for workspace, description, amount in results
            ]
            buckets.append(
                {
                    "starting_at": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "ending_at": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "results": shaped,
                }
            )
    body: dict[str, Any] = {"data": buckets, "has_more": more, "next_page": token}
    if provider == "openai":
        body = {"object": "page", **body}
    text = json.dumps(body, indent=1)
    for marker, value in numbers.items():
        text = text.replace(marker, value)
    return text


@contextmanager
def serving(api: CostApi) -> Iterator[str]:
    """``api`` on 127.0.0.1; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            status, headers, body = api.respond(
                parts.path, parse_qsl(parts.query), dict(self.headers.items())
            )
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
