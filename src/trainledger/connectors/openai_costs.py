"""OpenAI API spend: the organization Costs API (``GET /v1/organization/costs``), daily buckets by project and
line item, or its response pages saved as JSON.

As the API reference documents it (platform.openai.com/docs/api-reference/usage/costs, and its published
example): a page is ``{"object": "page", "data": [bucket...], "has_more", "next_page"}``; a bucket
``{"object": "bucket", "start_time", "end_time" (Unix seconds), "results": [...]}``; a result
``{"object": "organization.costs.result", "amount": {"value": <number>, "currency": "usd"}, "line_item",
"project_id"}``. The value is a JSON number in the currency itself (dollars: 0.06 is six cents), the
currency a lowercase ISO 4217 code. Only ``bucket_width=1d`` exists; ``limit`` is 1-180 buckets; the next
page is asked for with ``page=<next_page>``. The admin key goes in ``Authorization: Bearer``.

The projects' names (``names_as_labels``): ``GET /v1/organization/projects``
(platform.openai.com/docs/api-reference/projects/list) gives ``{"object": "list", "data": [{"id",
"object": "organization.project", "name", "created_at", "archived_at", "status"}], "first_id", "last_id",
"has_more"}``, ``limit`` 1-100, the next page by ``after=<last_id>``, archived projects with
``include_archived=true``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any

from trainledger.connectors import api_costs, api_pages
from trainledger.connectors.api_pages import Cost, Names, Page, Shape, bounded, expect, optional_text
from trainledger.connectors.contract import Example
from trainledger.core import providers
from trainledger.core.currencies import ISO_4217
from trainledger.core.errors import InputError

LIMIT = 31  # buckets per page: a month in one page (the API allows 1-180)
NAMES_LIMIT = 100  # projects per page, the most the list gives


def _headers(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", "Accept": "application/json"}


def _params(start: datetime, end: datetime, token: str | None) -> list[tuple[str, str]]:
    params = [
        ("start_time", str(int(start.replace(tzinfo=UTC).timestamp()))),
        ("end_time", str(int(end.replace(tzinfo=UTC).timestamp()))),
        ("bucket_width", "1d"),
        ("group_by", "project_id"),
        ("group_by", "line_item"),
        ("limit", str(LIMIT)),
    ]
    return params + ([("page", token)] if token else [])


def _names_params(after: str | None) -> list[tuple[str, str]]:
    params = [("limit", str(NAMES_LIMIT)), ("include_archived", "true")]
    return params + ([("after", after)] if after else [])


def _time(value: Any, file: str, where: str) -> datetime:
    seconds = expect(value, int, file, where, "Unix seconds (a whole number)")
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)


def _cost(result: Any, file: str, where: str) -> Cost:
    result = expect(result, dict, file, where, "a costs result object")
    if result.get("object", "organization.costs.result") != "organization.costs.result":
        raise InputError(
            f"{file}: {where}.object: expected 'organization.costs.result', got {result['object']!r}"
        )
    amount = expect(result.get("amount"), dict, file, f"{where}.amount", 'an object {"value", "currency"}')
    value = expect(
        amount.get("value"),
        (Decimal, int),
        file,
        f"{where}.amount.value",
        "a number (the cost in the currency)",
    )
    currency = expect(
        amount.get("currency"), str, file, f"{where}.amount.currency", "an ISO 4217 code such as 'usd'"
    )
    if currency.upper() not in ISO_4217:
        raise InputError(
            f"{file}: {where}.amount.currency: expected an ISO 4217 currency code such as 'usd', got {currency!r}"
        )
    return Cost(
        resource_id=optional_text(result, "project_id", file, where),
        item=optional_text(result, "line_item", file, where),
        model=None,
        cost_type=None,
        amount=bounded(Decimal(value), file, f"{where}.amount.value"),
        currency=currency.upper(),
    )


SHAPE = Shape("start_time", "end_time", _time, _cost, bucket_object="bucket")


def parse(page: Any, file: str) -> Page:
    """A Costs API page's buckets, exactly as written; InputError naming the place of the first thing that
    is not the documented shape."""
    page = expect(page, dict, file, "the page", "a JSON object")
    if page.get("object") != "page":
        raise InputError(
            f"{file}: object: expected 'page' (an OpenAI Costs API page), got {page.get('object')!r}"
        )
    return api_pages.read_costs(page, file, SHAPE)


def parse_names(page: Any, file: str) -> Names:
    """A projects list page's ids and names."""
    return api_pages.read_names(page, file, ("object", "organization.project"))


API = api_costs.Api(
    kind="openai-costs",
    provider=providers.OPENAI.id,
    service="OpenAI API",
    resource_type="project",
    amount_column="amount.value",
    base_url="https://api.openai.com",
    path="/v1/organization/costs",
    headers=_headers,
    params=_params,
    parse=parse,
    names_path="/v1/organization/projects",
    names_params=_names_params,
    parse_names=parse_names,
)

Options = api_costs.ApiCostOptions
EXAMPLE = Example(
    None,
    "OpenAI API spend by project and line item (the organization Costs API, with an admin key)",
    (
        '# uri = "openai-costs/"  # instead of api_key_env: the Costs API pages a cron job saved (file, folder, s3://, gs://)',
        'labels = { "proj_abc123" = "qwen-coder-rollout-rl", "proj_def456" = { project = "qwen-coder" } }',
        "# names_as_labels = true  # a project named as a cost label (qwen-coder-train-rl) labels its spend",
        "# timeout_s = 60                   # per request; retries = 3 on 429, 5xx and timeouts",
    ),
    ('api_key_env = "OPENAI_ADMIN_KEY"  # the variable holding the admin key (never the key itself)',),
)


# The kind's Bill functions: the shared cost-API reader with this provider's API.
deliveries = partial(api_costs.deliveries, API)
stage = partial(api_costs.stage, API)
