"""An owned Slurm cluster as a bill: one charge per node per hour, priced by the node's ``[[rates]]`` entry.

An owned cluster sends no bill, but its nodes cost money every hour whether a job runs or not. Each node
named by ``nodes`` (a Slurm hostlist) gets an hourly usage row of 1 ``Hours`` from ``start`` to ``end``
(default: the current hour), its resource id the node's name, so the Slurm log's jobs (whose resources are
node names) take their share of it by SPEC §4 rule 4 and the rest is idle, as on a cloud. Each month is a
delivery, versioned by the nodes, the window and the rate card, so a change of price re-prices the month.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from pydantic import Field, field_validator, model_validator

from trainledger.connectors import rated
from trainledger.connectors.contract import Delivery, Example, Staged
from trainledger.core import hostlist
from trainledger.core.config import Config
from trainledger.core.config_types import SourceConfig, SourceOptions
from trainledger.core.rate_card import RateCard
from trainledger.core.reporter import Reporter
from trainledger.core.timestamps import naive_utc
from trainledger.warehouse.connection import Connection

HOUR = timedelta(hours=1)
UNIT = "Hours"


class Options(SourceOptions):
    """Keys of an owned cluster: its nodes and the window they are counted in."""

    nodes: str = Field(min_length=1)  # a Slurm hostlist: "gpu-[01-04]"
    start: datetime  # the first hour counted (a date is midnight UTC)
    end: datetime | None = None  # exclusive; none: up to the current hour
    provider: str = Field(default="onprem", min_length=1)  # as [experiments.slurm] provider names it

    @field_validator("start", "end", mode="before")
    @classmethod
    def _hour(cls, value: object) -> object:
        return naive_utc(value)

    @field_validator("nodes")
    @classmethod
    def _hostlist(cls, value: str) -> str:
        hostlist.check(value, "nodes")
        return value

    @model_validator(mode="after")
    def _window(self) -> Options:
        for name, at in (("start", self.start), ("end", self.end)):
            if at is not None and at != at.replace(minute=0, second=0, microsecond=0):
                raise ValueError(f"{name} {at} must be on the hour: nodes are counted by the hour")
        if self.end is not None and self.end <= self.start:
            raise ValueError(f"end {self.end} must be after start {self.start}")
        return self


EXAMPLE = Example(
    None,
    "an owned Slurm cluster: its nodes' hours, priced by [[rates]] node entries",
    required=(
        'nodes = "gpu-[01-04]"  # a Slurm hostlist: each node is charged by the hour',
        "start = 2026-11-01  # the first hour counted",
    ),
    options=(
        "end = 2026-12-01  # exclusive; default: the current hour",
        'provider = "onprem"  # the same as [experiments.slurm] provider, so jobs match nodes',
    ),
)


def _window(options: Options) -> tuple[datetime, datetime]:
    end = options.end or datetime.now(UTC).replace(tzinfo=None, minute=0, second=0, microsecond=0)
    return options.start, max(end, options.start)


def _months(start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
    out = []
    month = start.replace(day=1, hour=0)
    while month < end:
        following = (month + timedelta(days=32)).replace(day=1)
        out.append((max(month, start), min(following, end)))
        month = following
    return out


def deliveries(
    source: SourceConfig, config: Config, period: str | None, reporter: Reporter
) -> list[Delivery]:
    """One delivery per month of the window, versioned by the nodes, that month's hours and the rate card."""
    options = source.options_as(Options)
    card = RateCard(config.rates, "node").fingerprint()
    out = []
    for start, end in _months(*_window(options)):
        name = start.strftime("%Y-%m")
        if period is not None and name != period:
            continue
        what = f"{options.nodes}|{options.provider}|{start.isoformat()}|{end.isoformat()}|{card}"
        out.append(Delivery(name, hashlib.sha256(what.encode()).hexdigest(), (start, end)))
    return out


def stage(
    con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
) -> Staged:
    options = source.options_as(Options)
    start, end = delivery.ref
    nodes = hostlist.expand(options.nodes, f"source {source.name!r}: nodes")
    where = f"cluster {source.name}"
    usage: list[rated.Usage] = []
    hour = start
    while hour < end:
        for node in nodes:
            usage.append(
                rated.Usage(
                    file=where,
                    row=len(usage) + 1,
                    start=hour,
                    end=hour + HOUR,
                    key=node,
                    quantity=Decimal(1),
                    unit=UNIT,
                    service_name=f"Slurm cluster {source.name}",
                    service_category="Compute",
                    resource_id=node,
                    resource_type="node",
                    row_identity=f"{node}@{hour:%Y-%m-%dT%H}",
                )
            )
        hour += HOUR
    return rated.stage(
        con,
        source=source.name,
        provider=options.provider,
        card=RateCard(config.rates, "node"),
        usage=usage,
        files=[where],
        reporter=reporter,
    )
