"""``[[rates]]``: the rate card that prices usage reported without a cost (SPEC §5), and its lookup.

A GPU cloud's usage-only FOCUS export (CoreWeave's FOCUS Billing Export API, public preview: hourly
quantities, no cost fields) and an owned cluster's node hours come with quantities only. Each rate prices
one SKU (``sku``, the export's SkuId) or the nodes of a Slurm hostlist (``node``) per ``unit``, from
``valid_from`` up to (not including) ``valid_to``. A usage row takes the rate valid at its start; a row with
no rate is never priced 0: the sources keep it apart and ``labels`` reports it (README "Usage without
prices").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal

from pydantic import Field, field_validator, model_validator

from trainledger.core.config_types import Strict
from trainledger.core.money import SCALE
from trainledger.core.timestamps import naive_utc

PRICED_BY = "trainledger rate card"  # the mark every output carries on a charge priced here
_PLACES = Decimal(1).scaleb(-SCALE)


class RateConfig(Strict):
    """One ``[[rates]]`` entry: a price per unit of a SKU or of a cluster's nodes, valid for a window."""

    sku: str | None = Field(default=None, min_length=1)  # the usage export's SkuId
    node: str | None = Field(default=None, min_length=1)  # a Slurm hostlist: gpu-[01-04]
    unit: str = Field(min_length=1)  # the usage's unit, e.g. "Hours" (PricingUnit; compared ignoring case)
    price: Decimal = Field(ge=0)  # per unit, exact: write it as a string ("2.125")
    currency: str = Field(pattern=r"^[A-Z]{3}$")  # ISO 4217
    valid_from: datetime
    valid_to: datetime | None = None  # exclusive; none: still valid

    @field_validator("valid_from", "valid_to", mode="before")
    @classmethod
    def _day_or_time(cls, value: object) -> object:
        return naive_utc(value)

    @field_validator("node")
    @classmethod
    def _hostlist(cls, value: str | None) -> str | None:
        from trainledger.core import hostlist

        hostlist.check(value, "node")
        return value

    @model_validator(mode="after")
    def _one_key(self) -> RateConfig:
        if (self.sku is None) == (self.node is None):
            raise ValueError("give either sku (a usage export's SkuId) or node (a cluster's hostlist)")
        if self.valid_to is not None and self.valid_to <= self.valid_from:
            raise ValueError(f"valid_to {self.valid_to} must be after valid_from {self.valid_from}")
        return self


@dataclass(frozen=True)
class Rate:
    key: str  # the SKU, or one node's name
    unit: str
    price: Decimal
    currency: str
    valid_from: datetime
    valid_to: datetime | None


def priced(quantity: Decimal, price: Decimal) -> Decimal:
    """quantity x price, rounded half-even to the warehouse's 12 places."""
    return (quantity * price).quantize(_PLACES, rounding=ROUND_HALF_EVEN)


class RateCard:
    """The rates of one kind of key (``sku`` or ``node``), looked up by key, unit and time."""

    def __init__(self, rates: list[RateConfig], by: str) -> None:
        from trainledger.core import hostlist

        self._rates: dict[str, list[Rate]] = {}
        self._given = [r for r in rates if getattr(r, by) is not None]
        for n, rate in enumerate(self._given, start=1):
            given: str = getattr(rate, by)
            keys = hostlist.expand(given, f"[[rates]] entry {n}: node") if by == "node" else [given]
            for key in keys:
                self._rates.setdefault(key, []).append(
                    Rate(key, rate.unit, rate.price, rate.currency, rate.valid_from, rate.valid_to)
                )
        for key, found in self._rates.items():
            _no_overlap(by, key, found)

    def find(self, key: str, unit: str, at: datetime) -> Rate | None:
        for rate in self._rates.get(key, []):
            if rate.unit.lower() != unit.lower() or at < rate.valid_from:
                continue
            if rate.valid_to is None or at < rate.valid_to:
                return rate
        return None

    def fingerprint(self) -> str:
        """Changes whenever a rate does, so a month priced by an older card is priced again."""
        text = json.dumps([r.model_dump(mode="json") for r in self._given], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def _no_overlap(by: str, key: str, rates: list[Rate]) -> None:
    """Two rates for the same key and unit must not both be valid at one time: which one priced is unclear."""
    from trainledger.core.errors import ConfigError

    for i, a in enumerate(rates):
        for b in rates[i + 1 :]:
            if a.unit.lower() != b.unit.lower():
                continue
            if (a.valid_to is None or b.valid_from < a.valid_to) and (
                b.valid_to is None or a.valid_from < b.valid_to
            ):
                raise ConfigError(
                    f"[[rates]]: two rates for {by} {key!r} ({a.unit}) are both valid from "
                    f"{max(a.valid_from, b.valid_from):%Y-%m-%d %H:%M}; end one with valid_to before the other"
                )
