"""Anthropic API spend: the Admin API cost report (``GET /v1/organizations/cost_report``), daily buckets by
workspace and description, or its response pages saved as JSON.

As the API reference documents it (platform.claude.com/docs/en/api/admin/cost_report, and its published
example): a page is ``{"data": [bucket...], "has_more", "next_page"}``; a bucket ``{"starting_at",
"ending_at" (RFC 3339), "results": [...]}``; a result ``{"amount", "currency", "workspace_id",
"description", "cost_type", "model", "token_type", ...}``. The amount is a decimal STRING in the lowest
currency unit, cents: "123.78912" is $1.2378912 (the reference's own wording, '"123.45" in "USD" represents
$1.23', shows the amount rounded; the value is 123.45 cents). The currency is "currently always USD", so
any other is refused rather than guessed into a unit. Spend of the default workspace has ``workspace_id``
null. Buckets are daily (``bucket_width=1d``), at most 31 a page; ``page=<next_page>`` asks for the next.
The admin key goes in ``x-api-key``, with ``anthropic-version: 2023-06-01``.

The workspaces' names (``names_as_labels``): ``GET /v1/organizations/workspaces``
(platform.claude.com/docs/en/api/admin/workspaces/list) gives ``{"data": [{"type": "workspace", "id",
"name", "created_at", "archived_at", ...}], "has_more", "first_id", "last_id"}``, ``limit`` 1-1000, the
next page by ``after_id=<last_id>``, archived workspaces with ``include_archived=true``. The default
workspace has no id in the cost report, so its spend is mapped by ``default`` only.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any

from trainledger.connectors import api_costs, api_pages
from trainledger.connectors.api_pages import Cost, Names, Page, Shape, bounded, expect, optional_text
from trainledger.connectors.contract import Example
from trainledger.core import providers
from trainledger.core.errors import InputError

LIMIT = 31  # buckets per page, the most the cost report gives
NAMES_LIMIT = 1000  # workspaces per page, the most the list gives
VERSION = "2023-06-01"
# The amount's unit: the lowest unit of the currency. Only USD is documented (cents).
MINOR_UNITS = {"USD": 2}
_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def _headers(key: str) -> dict[str, str]:
    return {"x-api-key": key, "anthropic-version": VERSION, "Accept": "application/json"}


def _rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _params(start: datetime, end: datetime, token: str | None) -> list[tuple[str, str]]:
    params = [
        ("starting_at", _rfc3339(start)),
        ("ending_at", _rfc3339(end)),
        ("bucket_width", "1d"),
        ("group_by[]", "workspace_id"),
        ("group_by[]", "description"),
        ("limit", str(LIMIT)),
    ]
    return params + ([("page", token)] if token else [])


def _names_params(after: str | None) -> list[tuple[str, str]]:
    params = [("limit", str(NAMES_LIMIT)), ("include_archived", "true")]
    return params + ([("after_id", after)] if after else [])


def _time(value: Any, file: str, where: str) -> datetime:
    text = expect(value, str, file, where, "an RFC 3339 time such as '2025-08-01T00:00:00Z'")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise InputError(
            f"{file}: {where}: expected an RFC 3339 time such as '2025-08-01T00:00:00Z', got {text!r}"
        )
    return moment.astimezone(UTC).replace(tzinfo=None)


def _cost(result: Any, file: str, where: str) -> Cost:
    result = expect(result, dict, file, where, "a cost result object")
    text = expect(
        result.get("amount"), str, file, f"{where}.amount", "a decimal string in cents such as '123.45'"
    )
    if not _DECIMAL.fullmatch(text):
        raise InputError(
            f"{file}: {where}.amount: expected a decimal string in cents such as '123.45', got {text!r}"
        )
    currency = expect(result.get("currency"), str, file, f"{where}.currency", "'USD'")
    if currency not in MINOR_UNITS:
        raise InputError(
            f"{file}: {where}.currency: expected USD (the cost report's amounts are in its cents), got {currency!r}"
        )
    return Cost(
        resource_id=optional_text(result, "workspace_id", file, where),
        item=optional_text(result, "description", file, where),
        model=optional_text(result, "model", file, where),
        cost_type=optional_text(result, "cost_type", file, where),
        amount=bounded(Decimal(text).scaleb(-MINOR_UNITS[currency]), file, f"{where}.amount"),
        currency=currency,
    )


SHAPE = Shape("starting_at", "ending_at", _time, _cost)


def parse(page: Any, file: str) -> Page:
    """A cost report page's buckets, amounts in dollars exactly; InputError naming the place of the first
    thing that is not the documented shape."""
    page = expect(page, dict, file, "the page", "a JSON object")
    if "object" in page:
        raise InputError(
            f"{file}: object: expected an Anthropic cost report page (it has no 'object' key), got "
            f"{page['object']!r} (an OpenAI page?)"
        )
    return api_pages.read_costs(page, file, SHAPE)


def parse_names(page: Any, file: str) -> Names:
    """A workspaces list page's ids and names."""
    return api_pages.read_names(page, file, ("type", "workspace"))


API = api_costs.Api(
    kind="anthropic-costs",
    provider=providers.ANTHROPIC.id,
    service="Anthropic API",
    resource_type="workspace",
    amount_column="amount",
    base_url="https://api.anthropic.com",
    path="/v1/organizations/cost_report",
    headers=_headers,
    params=_params,
    parse=parse,
    names_path="/v1/organizations/workspaces",
    names_params=_names_params,
    parse_names=parse_names,
)

Options = api_costs.ApiCostOptions
EXAMPLE = Example(
    None,
    "Anthropic API spend by workspace and description (the Admin API cost report, with an admin key)",
    (
        '# uri = "anthropic-costs/"  # instead of api_key_env: the cost report pages a cron job saved (file, folder, s3://, gs://)',
        'labels = { "wrkspc_01Judge" = { project = "qwen-coder" }, "default" = "qwen-coder-eval-sft" }',
        "# names_as_labels = true  # a workspace named as a cost label (qwen-coder-train-rl) labels its spend",
        "# timeout_s = 60                      # per request; retries = 3 on 429, 5xx and timeouts",
    ),
    ('api_key_env = "ANTHROPIC_ADMIN_KEY"  # the variable holding the admin key (never the key itself)',),
)


# The kind's Bill functions: the shared cost-API reader with this provider's API.
deliveries = partial(api_costs.deliveries, API)
stage = partial(api_costs.stage, API)
