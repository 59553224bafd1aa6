"""LLM API spend as a bill: a provider's daily cost buckets by project or workspace, read from its admin API
or from the same response pages saved as JSON by a team's cron job (a file, a folder, ``s3://``, ``gs://``).

What the two kinds share (``openai_costs.py``, ``anthropic_costs.py`` each describe their API as an
:class:`Api`: where it is, how a page looks, what unit its amounts are in): the keys, the paging, and loading
a month; reading a page is ``api_pages.py``, the labels a cost carries ``api_labels.py``. The billing period
is the bucket's UTC month; each month is a delivery, versioned by its content (and the labels), so a re-pull
that changed replaces the month and an unchanged one is skipped.

Money is exact: an amount is the Decimal of its digits as written, rounded half-even to 12 places as every
bill's money is, with the residue (the sum as written minus the sum stored) recorded per month, money
column and currency (``connectors/rounding.py``). An admin key is read from the environment variable the
config names, sent in a header and nowhere else (``core/redaction.py`` masks its value in every message).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from pydantic import Field, ValidationError, field_validator, model_validator

from trainledger.connectors import api_http, api_pages, bill_loader, rounding, sql_slots
from trainledger.connectors.api_labels import DEFAULT_KEY, LabelMap, composite_names, tags_for
from trainledger.connectors.api_pages import Bucket, Names, Page
from trainledger.connectors.contract import Delivery, Staged
from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.config_types import Retries, Seconds, SourceConfig, SourceOptions
from trainledger.core.errors import InputError, SourceError
from trainledger.core.money import rounded
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

MAX_PAGES = 1000  # a month is at most 31 daily buckets: far more pages than that is a paging loop
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PAGE_SUFFIXES = (".json", ".jsonl")


class ApiCostOptions(SourceOptions):
    """Keys of an LLM API cost source: the admin API (``api_key_env``) or saved pages (``uri``), and the
    mapping of project / workspace ids to labels."""

    api_key_env: str | None = None  # the environment variable holding the admin key (never the key itself)
    uri: str | None = (
        None  # instead of the API: saved response pages, a .json/.jsonl file, folder, s3://, gs://
    )
    api_base: str | None = None  # the API's base URL when not the provider's (a proxy, a test's fake)
    labels: dict[str, str | LabelMap] = Field(default_factory=dict)  # id (or "default") -> cost label
    names_as_labels: bool = False  # a project's / workspace's name that is a cost label labels its spend
    timeout_s: Seconds = 60.0  # per request: to connect, and for each read
    retries: Retries = 3  # after the first attempt, on 429, 5xx and timeouts, with backoff

    @field_validator("labels", mode="before")
    @classmethod
    def _label_maps(cls, value: Any) -> Any:
        """A table of labels is read as one, so that its own mistake (an unknown key) is the one named."""
        if not isinstance(value, dict):
            return value
        out = {}
        for key, given in value.items():
            if isinstance(given, dict):
                try:
                    given = LabelMap.model_validate(given)
                except ValidationError as exc:
                    err = exc.errors()[0]
                    place = ".".join(str(p) for p in err["loc"])
                    raise ValueError(
                        f"{key}: {place}: {err['msg']} (a table takes project, phase, method, experiment)"
                    ) from None
            out[key] = given
        return out

    @model_validator(mode="after")
    def _one_input(self) -> ApiCostOptions:
        if (self.api_key_env is None) == (self.uri is None):
            raise ValueError("give either api_key_env (read the admin API) or uri (saved response pages)")
        if self.api_key_env is not None and not _ENV_NAME.fullmatch(self.api_key_env):
            raise ValueError(
                f"api_key_env names an environment variable (such as OPENAI_ADMIN_KEY), got {self.api_key_env!r}"
            )
        return self


@dataclass(frozen=True)
class Api:
    """One provider's cost API, as the shared code needs it."""

    kind: str
    provider: str  # the provider id every input and output uses
    service: str  # the charges' service name
    resource_type: str  # what its ids name: "project", "workspace"
    amount_column: str  # where a page writes an amount, for the rounding residue ("amount.value")
    base_url: str
    path: str
    headers: Callable[[str], dict[str, str]]  # the admin key -> request headers
    params: Callable[[datetime, datetime, str | None], list[tuple[str, str]]]  # start, end, page token
    parse: Callable[[Any, str], Page]  # a decoded page and where it came from -> its buckets (InputError)
    names_path: str  # the list of the organization's projects / workspaces, with their names
    names_params: Callable[[str | None], list[tuple[str, str]]]  # the last id of the page before
    parse_names: Callable[[Any, str], Names]


@dataclass
class Month:
    """One billing period's buckets, one per day (a later page's bucket of the same day replaces an
    earlier one: a cron job's saves overlap)."""

    period: str
    buckets: dict[datetime, Bucket] = field(default_factory=dict)

    def add(self, bucket: Bucket) -> None:
        self.buckets[bucket.start] = bucket

    def ordered(self) -> list[Bucket]:
        return [self.buckets[k] for k in sorted(self.buckets)]


@dataclass(frozen=True)
class Pull:
    """What a month's delivery stages: its rows, and what rounding their amounts to 12 places took away."""

    rows: list[tuple[Any, ...]]
    residues: rounding.Residues


# ---------------------------------------------------------------------------------------------------------
# Where pages come from: the API, month by month, or saved files.
# ---------------------------------------------------------------------------------------------------------


def month_bounds(period: str) -> tuple[datetime, datetime]:
    start = datetime.strptime(period, "%Y-%m")
    end = (start + timedelta(days=32)).replace(day=1)
    return start, end


def default_periods(today: date) -> list[str]:
    """Without ``--period``: the month before and this one (a closed month still changes for a few days)."""
    first = today.replace(day=1)
    previous = (first - timedelta(days=1)).replace(day=1)
    return [previous.strftime("%Y-%m"), first.strftime("%Y-%m")]


def admin_key(source: SourceConfig, options: ApiCostOptions) -> str:
    name = options.api_key_env or ""
    key = os.environ.get(name, "").strip()
    if not key:
        raise SourceError(
            f"source {source.name!r}: environment variable {name} is not set; expected the organization's "
            "admin API key there (api_key_env names the variable, never the key)"
        )
    return key


def _get(source: SourceConfig, options: ApiCostOptions, api: Api, url: str) -> Any:
    headers = api.headers(admin_key(source, options))
    text = api_http.get_text(source.name, url, headers, timeout_s=options.timeout_s, retries=options.retries)
    return api_pages.loads(text, url)


def _base(options: ApiCostOptions, api: Api) -> str:
    return (options.api_base or api.base_url).rstrip("/")


def fetch_month(source: SourceConfig, options: ApiCostOptions, api: Api, period: str) -> Month:
    """Every page of one month from the API, following ``next_page``; a bucket outside the month asked
    for is refused (it would be loaded into the wrong period)."""
    start, end = month_bounds(period)
    base = _base(options, api) + api.path
    month = Month(period)
    token: str | None = None
    for _ in range(MAX_PAGES):
        url = base + "?" + urlencode(api.params(start, end, token))
        page = api.parse(_get(source, options, api, url), url)
        for bucket in page.buckets:
            if not start <= bucket.start < end:
                raise InputError(
                    f"{url}: {bucket.where}: a bucket of {bucket.start:%Y-%m-%d} in the answer for {period}; "
                    f"expected buckets from {start:%Y-%m-%d} to {end - timedelta(days=1):%Y-%m-%d}"
                )
            month.add(bucket)
        if not page.has_more:
            return month
        token = page.next_page
    raise SourceError(
        f"source {source.name!r}: {base}: more than {MAX_PAGES} pages for {period}; expected paging to end"
    )


def fetch_names(source: SourceConfig, options: ApiCostOptions, api: Api) -> dict[str, str]:
    """The organization's projects / workspaces (archived ones too: their spend may be in the month) by id,
    with their names, following the ``last_id`` cursor."""
    base = _base(options, api) + api.names_path
    names: dict[str, str] = {}
    after: str | None = None
    for _ in range(MAX_PAGES):
        url = base + "?" + urlencode(api.names_params(after))
        page = api.parse_names(_get(source, options, api, url), url)
        names.update(page.names)
        if not page.has_more:
            return names
        after = page.last_id
    raise SourceError(f"source {source.name!r}: {base}: more than {MAX_PAGES} pages; expected paging to end")


def saved_pages(source: SourceConfig, config: Config, uri: str, reporter: Reporter) -> list[tuple[str, str]]:
    """``(name, text)`` of every saved page file under ``uri`` (.json: one page, .jsonl: a page a line), in
    name order: a later file's bucket of a day replaces an earlier one's."""
    from trainledger.core import object_store

    if object_store.is_object_uri(uri):
        found = object_store.read_objects(uri, PAGE_SUFFIXES, what="the saved cost pages")
    else:
        root = Path(config.resolve(uri))
        if not root.exists():
            raise SourceError(f"source {source.name!r}: {root} does not exist")
        files = (
            [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.name.endswith(PAGE_SUFFIXES))
        )
        found = [(str(p), _read(p)) for p in files]
    if not found:
        raise SourceError(f"source {source.name!r}: no saved pages (*.json, *.jsonl) under {uri}")
    reporter.detail(f"{source.name}: {len(found)} saved page file(s)")
    pages = []
    for name, text in found:
        if name.endswith(".jsonl"):
            pages += [(f"{name}:{n}", line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        else:
            pages.append((name, text))
    return pages


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; expected a JSON response page") from None


def saved_months(
    source: SourceConfig, config: Config, options: ApiCostOptions, api: Api, reporter: Reporter
) -> tuple[list[Month], dict[str, str]]:
    """The months of the saved cost pages, and the names of the saved list pages among them (the projects /
    workspaces list a cron job saved beside the costs)."""
    months: dict[str, Month] = {}
    names: dict[str, str] = {}
    for name, text in saved_pages(source, config, options.uri or "", reporter):
        page = api_pages.loads(text, name)
        if api_pages.is_names_page(page):
            names.update(api.parse_names(page, name).names)
            continue
        for bucket in api.parse(page, name).buckets:
            period = bucket.start.strftime("%Y-%m")
            months.setdefault(period, Month(period)).add(bucket)
    return [months[p] for p in sorted(months)], names


# ---------------------------------------------------------------------------------------------------------
# Deliveries and staging.
# ---------------------------------------------------------------------------------------------------------


def _pull(month: Month, api: Api, options: ApiCostOptions, config: Config, named: dict[str, str]) -> Pull:
    """The staged rows of a month (file, row in file, ...), each amount rounded half-even to 12 places, and
    the residue of that rounding by currency (exactly: the sum of each amount as written minus as stored)."""
    rows: list[tuple[Any, ...]] = []
    taken: dict[str, list[Any]] = {}
    numbers: dict[str, int] = {}
    for bucket in month.ordered():
        for cost in bucket.costs:
            row_no = numbers[bucket.file] = numbers.get(bucket.file, 0) + 1
            amount = rounded(cost.amount)
            if amount != cost.amount:
                taken.setdefault(cost.currency, []).append(cost.amount - amount)
            identity = " ".join(
                (f"{bucket.start:%Y-%m-%d}", cost.resource_id or DEFAULT_KEY, cost.item or "-")
            )
            tags = tags_for(cost.resource_id, options.labels, config.labels, named)
            rows.append(
                (
                    bucket.file,
                    row_no,
                    bucket.start,
                    bucket.end,
                    cost.resource_id,
                    cost.item,
                    cost.model,
                    cost.cost_type,
                    amount,
                    cost.currency,
                    json.dumps(tags, sort_keys=True),
                    identity,
                )
            )
    by_currency = {currency: rounding.exact_total(parts) for currency, parts in sorted(taken.items())}
    return Pull(rows, {month.period: {api.amount_column: by_currency}} if by_currency else {})


def _version(rows: Iterable[tuple[Any, ...]]) -> str:
    """Changes whenever a cost, its labels or its day does (not when only the page's URL or file does)."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps(row[2:], default=str).encode("utf-8") + b"\n")
    return digest.hexdigest()


def deliveries(
    api: Api, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    """One delivery per month: from the API, ``period`` or the month before and this one; from saved pages,
    every month they hold (or ``period``)."""
    options = source.options_as(ApiCostOptions)
    if options.uri is not None:
        months, names = saved_months(source, config, options, api, reporter)
        months = [m for m in months if period in (None, m.period)]
    else:
        wanted = [period] if period else default_periods(datetime.now(UTC).date())
        months = []
        for p in wanted:
            reporter.step(f"{source.name}: reading {api.provider} costs for {p}")
            months.append(fetch_month(source, options, api, p))
        names = fetch_names(source, options, api) if options.names_as_labels else {}
    named = composite_names(names, config.labels) if options.names_as_labels else {}
    found = []
    for month in months:
        pull = _pull(month, api, options, config, named)
        found.append(Delivery(month.period, _version(pull.rows), pull))
    return found


def stage(
    api: Api, con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    """The month's checked rows into ``api_cost_rows``, normalised once into ``staged_charges``."""
    pull: Pull = delivery.ref
    reporter.detail(f"{source.name} {delivery.period}: {len(pull.rows)} cost result(s)")
    sql_slots.run_filled(con, "ingest/api_cost_rows")
    if pull.rows:
        con.executemany(queries.load("ingest/insert_api_cost_row"), pull.rows)
    params = {
        "source": source.name,
        "provider": api.provider,
        "service": api.service,
        "resource_type": api.resource_type,
    }
    bill_loader.stage_table(con, "ingest/normalize_api_costs", params)
    files = sorted({row[0] for row in pull.rows})
    return Staged(files, periods=[delivery.period] if delivery.period else [], residues=lambda: pull.residues)
