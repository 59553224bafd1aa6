"""Reading one response page of an LLM API cost source (``openai_costs.py``, ``anthropic_costs.py``): the
cost report's daily buckets, or the list of the organization's projects / workspaces with their names.

Each provider describes its cost page as a :class:`Shape` (its time keys and how a time and a result read);
the walk over the buckets and the checks both share are here, each naming the page and the place in it
(``data[3].results[0].amount``). Money is exact: a page is parsed with ``parse_float=Decimal`` (a number's
digits as written), never a float; an amount of 10^26 or more, more than DECIMAL(38, 12) holds, is refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from trainledger.core.errors import InputError
from trainledger.core.money import MONEY_BOUND


@dataclass(frozen=True)
class Cost:
    """One result of a bucket: a project's / workspace's cost for one line item, in currency units."""

    resource_id: str | None
    item: str | None  # OpenAI line_item, Anthropic description
    model: str | None
    cost_type: str | None
    amount: Decimal  # exactly as written (Anthropic's cents already divided by 100): may carry > 12 places
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
class Shape:
    """How one provider's cost page looks: the keys of a bucket's start and end, how a time and a result
    read (each raising InputError that names the place), and the ``object`` a bucket says it is, if any."""

    start: str
    end: str
    time: Callable[[Any, str, str], datetime]  # value, file, where
    cost: Callable[[Any, str, str], Cost]  # result, file, where
    bucket_object: str | None = None


@dataclass(frozen=True)
class Names:
    """One page of the organization's projects / workspaces: id -> name, and the cursor of the next page."""

    names: dict[str, str]
    has_more: bool
    last_id: str | None


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
        raise InputError(f"{file}: {where}: expected {what}, got {shown(value)}")
    return value


def optional_text(record: dict[str, Any], key: str, file: str, where: str) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(f"{file}: {where}.{key}: expected a string or null, got {shown(value)}")
    return value


def bounded(amount: Decimal, file: str, where: str) -> Decimal:
    """An amount below 10^26 (signs aside): larger ones do not fit DECIMAL(38, 12), however rounded."""
    if abs(amount) >= MONEY_BOUND:
        raise InputError(f"{file}: {where}: expected an amount below 10^26, got {amount}")
    return amount


def is_names_page(page: Any) -> bool:
    """A list of projects / workspaces (it has a ``last_id`` cursor), not a cost page (``next_page``)."""
    return isinstance(page, dict) and "last_id" in page


def read_costs(page: Any, file: str, shape: Shape) -> Page:
    """A cost page's buckets, exactly as written; InputError naming the place of the first thing that is
    not the documented shape."""
    page = expect(page, dict, file, "the page", "a JSON object")
    buckets = []
    for index, raw in enumerate(expect(page.get("data"), list, file, "data", "a list of buckets")):
        where = f"data[{index}]"
        bucket = expect(raw, dict, file, where, "a bucket object")
        if shape.bucket_object and bucket.get("object", shape.bucket_object) != shape.bucket_object:
            raise InputError(
                f"{file}: {where}.object: expected {shape.bucket_object!r}, got {bucket['object']!r}"
            )
        start = shape.time(bucket.get(shape.start), file, f"{where}.{shape.start}")
        end = shape.time(bucket.get(shape.end), file, f"{where}.{shape.end}")
        _daily(start, end, file, where)
        results = expect(bucket.get("results"), list, file, f"{where}.results", "a list of results")
        costs = [shape.cost(r, file, f"{where}.results[{n}]") for n, r in enumerate(results)]
        buckets.append(Bucket(start, end, costs, file, where))
    has_more = expect(page.get("has_more"), bool, file, "has_more", "true or false")
    token = optional_text(page, "next_page", file, "page")
    if has_more and not token:
        raise InputError(
            f"{file}: has_more is true but next_page is {shown(token)}; expected the token of the next page"
        )
    return Page(buckets, has_more, token if has_more else None)


def read_names(page: Any, file: str, kind: tuple[str, str]) -> Names:
    """A list page's ids and names; ``kind`` is the key and value each item says it is (OpenAI ``object``
    ``organization.project``, Anthropic ``type`` ``workspace``). An item without a name is left out."""
    page = expect(page, dict, file, "the page", "a JSON object")
    key, value = kind
    names = {}
    for index, raw in enumerate(expect(page.get("data"), list, file, "data", "a list of objects")):
        where = f"data[{index}]"
        item = expect(raw, dict, file, where, f"a {value} object")
        if item.get(key, value) != value:
            raise InputError(f"{file}: {where}.{key}: expected {value!r}, got {shown(item.get(key))}")
        ident = expect(item.get("id"), str, file, f"{where}.id", "the id")
        name = optional_text(item, "name", file, where)
        if name and name.strip():
            names[ident] = name.strip()
    has_more = expect(page.get("has_more"), bool, file, "has_more", "true or false")
    last = optional_text(page, "last_id", file, "page")
    if has_more and not last:
        raise InputError(
            f"{file}: has_more is true but last_id is {shown(last)}; expected the last id of the page"
        )
    return Names(names, has_more, last)


def _daily(start: datetime, end: datetime, file: str, where: str) -> None:
    """A bucket must be one UTC day, midnight to midnight: the period is its month, the split is by day."""
    if end - start != timedelta(days=1) or start.time() != datetime.min.time():
        raise InputError(
            f"{file}: {where}: expected a daily bucket from one UTC midnight to the next, got "
            f"{start:%Y-%m-%dT%H:%M:%SZ} to {end:%Y-%m-%dT%H:%M:%SZ}"
        )


def shown(value: Any) -> str:
    if value is None:
        return "null"
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
