"""The config's sections on splitting and watching spend: ``[allocation]``, ``[[reservations]]``,
``[categories]`` and ``[[budgets]]``."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from trainledger.core.config_types import KeyList, Strict


class AllocationConfig(Strict):
    shared: Literal["separate", "proportional"] = "separate"


class ReservationConfig(Strict):
    """``[[reservations]]``: GPU capacity bought for a window (README "Reserved GPU capacity"). The charges
    on it (resource id ``id``, or an ARN ending in ``/<id>``) go to the runs on its instances by GPUs x time
    (a fee paid upfront), the rest to ``project`` as unused commitment."""

    id: str = Field(min_length=1)  # cr-... (a Capacity Block or On-Demand Capacity Reservation), a GCP name
    project: str = Field(min_length=1)  # who bought it: its unused part is this project's
    start: datetime
    end: datetime
    gpus: int = Field(gt=0)  # GPUs reserved: instances x GPUs per instance
    instances: KeyList = Field(min_length=1)  # what the log and the bill call the instances in it

    @field_validator("start", "end")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        """As the warehouse keeps times: naive UTC (a time without an offset is UTC)."""
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value

    @model_validator(mode="after")
    def _window(self) -> ReservationConfig:
        if self.end <= self.start:
            raise ValueError(f"end {self.end} must be after start {self.start}")
        return self


class CategoriesConfig(Strict):
    """Overrides of the cost-category mapping: service name or usage-type substring → category."""

    services: dict[str, str] = Field(default_factory=dict)
    usage_types: dict[str, str] = Field(default_factory=dict)
    service_categories: dict[str, str] = Field(default_factory=dict)  # FOCUS ServiceCategory → category


class MaxShare(Strict):
    phase: str
    share: Decimal


class BudgetConfig(Strict):
    name: str
    project: str | None = None
    method: str | None = None
    experiment: str | None = None
    period: str = "monthly"
    amount: Decimal | None = None
    currency: str = "USD"
    thresholds: list[Decimal] = Field(default_factory=lambda: [Decimal("0.8"), Decimal("1.0")])
    max_share: MaxShare | None = None

    @field_validator("amount", mode="before")
    @classmethod
    def _amount_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, float) else value

    @field_validator("amount")
    @classmethod
    def _amount_positive(cls, value: Decimal | None) -> Decimal | None:
        if value is not None and value <= 0:
            raise ValueError(f"expected an amount > 0, got {value}")
        return value

    @field_validator("period")
    @classmethod
    def _period_form(cls, value: str) -> str:
        if value != "monthly" and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", value):
            raise ValueError(f'expected YYYY-MM or "monthly", got {value!r}')
        return value

    @field_validator("thresholds", mode="before")
    @classmethod
    def _threshold_text(cls, value: Any) -> Any:
        return [str(v) if isinstance(v, float) else v for v in value] if isinstance(value, list) else value

    @field_validator("thresholds")
    @classmethod
    def _threshold_range(cls, value: list[Decimal]) -> list[Decimal]:
        for t in value:
            if not 0 < t <= 10:
                raise ValueError(f"expected fractions of the amount such as 0.8 or 1.0, got {t}")
        return value
