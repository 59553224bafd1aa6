"""LLM API spend as a bill: a provider's daily cost buckets by project or workspace, read from its admin API
or from the same response pages saved as JSON by a team's cron job (a file, a folder, ``s3://``, ``gs://``).

What the two kinds share (``openai_costs.py``, ``anthropic_costs.py`` each describe their API as an
:class:`Api`: where it is, how a page looks, what unit its amounts are in): the keys, the paging, the
mapping of project / workspace ids to the label scheme, and loading a month. The billing period is the
bucket's UTC month; each month is a delivery, versioned by its content (and the mapping), so a re-pull that
changed replaces the month and an unchanged one is skipped.

Money is exact: each page is parsed with ``parse_float=Decimal`` (a number's digits as written), never a
float. An admin key is read from the environment variable the config names, sent in a header and nowhere
else (``core/redaction.py`` masks its value in every message).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from pydantic import Field, ValidationError, field_validator, model_validator

from trainledger.connectors import api_http, bill_loader, sql_slots
from trainledger.connectors.contract import Delivery, Staged
from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.config_labels import LabelsConfig
from trainledger.core.config_types import Retries, Seconds, SourceConfig, SourceOptions, Strict
from trainledger.core.errors import ConfigError, InputError, SourceError
from trainledger.core.money import SCALE
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection

DEFAULT_KEY = "default"  # the mapping's key for spend the provider reports without a project / workspace id
MAX_PAGES = 1000  # a month is at most 31 daily buckets: far more pages than that is a paging loop
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLACES = Decimal(1).scaleb(-SCALE)
_HALF_CENT = Decimal("0.005")
PAGE_SUFFIXES = (".json", ".jsonl")


class LabelMap(Strict):
    """Labels given key by key: at least a project; phase, method and experiment as far as they are fixed."""

    project: str
    phase: str | None = None
    method: str | None = None
    experiment: str | None = None


class ApiCostOptions(SourceOptions):
    """Keys of an LLM API cost source: the admin API (``api_key_env``) or saved pages (``uri``), and the
    mapping of project / workspace ids to labels."""

    api_key_env: str | None = None  # the environment variable holding the admin key (never the key itself)
    uri: str | None = (
        None  # instead of the API: saved response pages, a .json/.jsonl file, folder, s3://, gs://
    )
    api_base: str | None = None  # the API's base URL when not the provider's (a proxy, a test's fake)
    labels: dict[str, str | LabelMap] = Field(default_factory=dict)  # id (or "default") -> cost label
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
class Cost:
    """One result of a bucket: a project's / workspace's cost for one line item, in currency units."""

    resource_id: str | None
    item: str | None  # OpenAI line_item, Anthropic description
    model: str | None
    cost_type: str | None
    amount: Decimal
    currency: str  # ISO 4217, upper case


@dataclass(frozen=True)
class Bucket:
    start: datetime  # UTC, naive
    end: datetime
    costs: list[Cost]
    file: str  # the saved page or the request it came from
    where: str  # its place in the page, for messages


@dataclass(frozen=True)
class Page:
    buckets: list[Bucket]
    has_more: bool
    next_page: str | None


@dataclass(frozen=True)
class Api:
    """One provider's cost API, as the shared code needs it."""

    kind: str
    provider: str  # the provider id every input and output uses
    service: str  # the charges' service name
    resource_type: str  # what its ids name: "project", "workspace"
    base_url: str
    path: str
    headers: Callable[[str], dict[str, str]]  # the admin key -> request headers
    params: Callable[[datetime, datetime, str | None], list[tuple[str, str]]]  # start, end, page token
    parse: Callable[[Any, str], Page]  # a decoded page and where it came from -> its buckets (InputError)


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


# ---------------------------------------------------------------------------------------------------------
# Reading a page: the checks both providers' parsers share. Each names the page and the place in it.
# ---------------------------------------------------------------------------------------------------------


def loads(text: str, file: str) -> Any:
    """A page's JSON with every non-integer number as the Decimal of its digits; NaN and Infinity refused."""

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        return json.loads(text, parse_float=Decimal, parse_constant=constant)
    except ValueError as exc:
        raise InputError(
            f"{file}: not a JSON response page ({exc}); expected one page of the cost API"
        ) from None


def expect(value: Any, kind: type | tuple[type, ...], file: str, where: str, what: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise InputError(f"{file}: {where}: expected {what}, got {_shown(value)}")
    return value


def optional_text(record: dict[str, Any], key: str, file: str, where: str) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(f"{file}: {where}.{key}: expected a string or null, got {_shown(value)}")
    return value


def paging(page: dict[str, Any], file: str) -> tuple[bool, str | None]:
    """``has_more`` and ``next_page``; a page claiming more data without a token to ask for it is refused."""
    has_more = expect(page.get("has_more"), bool, file, "has_more", "true or false")
    token = optional_text(page, "next_page", file, "page")
    if has_more and not token:
        raise InputError(
            f"{file}: has_more is true but next_page is {_shown(token)}; expected the token of the next page"
        )
    return has_more, token if has_more else None


def daily(start: datetime, end: datetime, file: str, where: str) -> None:
    """A bucket must be one UTC day, midnight to midnight: the period is its month, the split is by day."""
    if end - start != timedelta(days=1) or start.time() != datetime.min.time():
        raise InputError(
            f"{file}: {where}: expected a daily bucket from one UTC midnight to the next, got "
            f"{start:%Y-%m-%dT%H:%M:%SZ} to {end:%Y-%m-%dT%H:%M:%SZ}"
        )


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


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


def fetch_month(source: SourceConfig, options: ApiCostOptions, api: Api, period: str) -> Month:
    """Every page of one month from the API, following ``next_page``; a bucket outside the month asked
    for is refused (it would be loaded into the wrong period)."""
    start, end = month_bounds(period)
    headers = api.headers(admin_key(source, options))
    base = (options.api_base or api.base_url).rstrip("/") + api.path
    month = Month(period)
    token: str | None = None
    for _ in range(MAX_PAGES):
        url = base + "?" + urlencode(api.params(start, end, token))
        text = api_http.get_text(
            source.name, url, headers, timeout_s=options.timeout_s, retries=options.retries
        )
        page = api.parse(loads(text, url), url)
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
) -> list[Month]:
    months: dict[str, Month] = {}
    for name, text in saved_pages(source, config, options.uri or "", reporter):
        for bucket in api.parse(loads(text, name), name).buckets:
            period = bucket.start.strftime("%Y-%m")
            months.setdefault(period, Month(period)).add(bucket)
    return [months[p] for p in sorted(months)]


# ---------------------------------------------------------------------------------------------------------
# Labels, deliveries and staging.
# ---------------------------------------------------------------------------------------------------------


def tags_for(resource_id: str | None, options: ApiCostOptions, labels: LabelsConfig) -> dict[str, str]:
    """The tags a cost of this project / workspace carries: its mapping written with the first configured
    key of each label (a cost label under the composite key), or none (unattributed, reported by `labels`)."""
    mapped = options.labels.get(resource_id if resource_id is not None else DEFAULT_KEY)
    if mapped is None:
        return {}
    if isinstance(mapped, str):
        if not labels.composite:
            raise ConfigError("a cost label in a source's labels needs a composite key in [labels] composite")
        return {labels.composite[0]: mapped}
    given = (
        (labels.project, mapped.project),
        (labels.phase, mapped.phase),
        (labels.method, mapped.method),
        (labels.experiment, mapped.experiment),
    )
    return {keys[0]: value for keys, value in given if keys and value}


def _rows(
    month: Month, options: ApiCostOptions, labels: LabelsConfig
) -> tuple[list[tuple[Any, ...]], Decimal]:
    """The staged rows of a month (file, row in file, ...) and what rounding to 12 places took away."""
    rows: list[tuple[Any, ...]] = []
    residue = Decimal(0)
    numbers: dict[str, int] = {}
    for bucket in month.ordered():
        for cost in bucket.costs:
            row_no = numbers[bucket.file] = numbers.get(bucket.file, 0) + 1
            amount = cost.amount.quantize(_PLACES, rounding=ROUND_HALF_EVEN)
            residue += cost.amount - amount
            identity = " ".join(
                (f"{bucket.start:%Y-%m-%d}", cost.resource_id or DEFAULT_KEY, cost.item or "-")
            )
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
                    json.dumps(tags_for(cost.resource_id, options, labels), sort_keys=True),
                    identity,
                )
            )
    return rows, residue


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
        months = [
            m for m in saved_months(source, config, options, api, reporter) if period in (None, m.period)
        ]
    else:
        wanted = [period] if period else default_periods(datetime.now(UTC).date())
        months = []
        for p in wanted:
            reporter.step(f"{source.name}: reading {api.provider} costs for {p}")
            months.append(fetch_month(source, options, api, p))
    found = []
    for month in months:
        rows, residue = _rows(month, options, config.labels)
        if abs(residue) >= _HALF_CENT:
            reporter.warn(
                f"{source.name} {month.period}: amounts carry more than {SCALE} decimal places; rounding "
                f"them changed the month's total by {residue}"
            )
        found.append(Delivery(month.period, _version(rows), rows))
    return found


def stage(
    api: Api, con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    """The month's checked rows into ``api_cost_rows``, normalised once into ``staged_charges``."""
    rows: list[tuple[Any, ...]] = delivery.ref
    reporter.detail(f"{source.name} {delivery.period}: {len(rows)} cost result(s)")
    sql_slots.run_filled(con, "ingest/api_cost_rows")
    if rows:
        con.executemany(queries.load("ingest/insert_api_cost_row"), rows)
    params = {
        "source": source.name,
        "provider": api.provider,
        "service": api.service,
        "resource_type": api.resource_type,
    }
    bill_loader.stage_table(con, "ingest/normalize_api_costs", params)
    files = sorted({row[0] for row in rows})
    return Staged(files, periods=[delivery.period] if delivery.period else [])
