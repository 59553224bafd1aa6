"""What a reconciliation of one experiment holds (every figure from ``compare``, read by ``reconcile.py``)
and its SPEC §7 JSON; the renderers (post-mortems, the site) take it without loading the comparison."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from trainledger.attribution import waste
from trainledger.core.money import fmt
from trainledger.core.providers import CLOUD, LLM_API
from trainledger.core.timestamps import iso_utc as _iso
from trainledger.experiments.log import ExperimentHeader


@dataclass
class Row:
    """One line of a reconciliation, as ``compare.lines`` computed it. Not frozen: a frozen dataclass
    costs about 1 us more to build, per line of tens of thousands in a large month's site."""

    phase: str
    category: str
    estimated: Decimal | None
    realized: Decimal
    variance: Decimal | None
    variance_pct: Decimal | None
    spend: str = CLOUD  # LLM_API: a model API's bill (judge calls, synthetic data) and its estimate
    over: bool = False  # realized above the estimate

    @property
    def label(self) -> str:
        """The category as people read it: an LLM API's line says so, beside the GPU line of its phase."""
        return f"{self.category} (LLM API)" if self.spend == LLM_API else self.category


@dataclass
class Headline:
    """Variance over the lines that have an estimate; the lines nobody estimated apart (data or ops cost
    nobody estimated is not an overrun of the estimate)."""

    estimated: Decimal | None  # None: no line has an estimate
    realized_estimated: Decimal
    unestimated: Decimal
    unestimated_lines: int
    variance: Decimal | None
    pct: Decimal | None
    over: bool


@dataclass
class Reconciliation(ExperimentHeader):
    """An experiment's estimated vs realized cost, every figure from ``compare``."""

    currency: str
    billing_complete_through: datetime | None
    provisional: bool
    rows: list[Row]
    idle: Decimal
    failed: Decimal
    unused_commitment: Decimal  # reserved capacity nobody used while the run ran, on the reservations it used
    estimated_total: Decimal
    realized_total: Decimal
    variance_total: Decimal  # realized_total - estimated_total
    variance: Decimal | None  # realized_total - the estimate, None when no line has one
    headline: Headline
    eval_share: Decimal | None  # evaluation's share of the realized cost (teams commonly see 20-40%)
    hidden_cost: Decimal  # waste: idle + failed + unused commitment
    target_points: Decimal | None = None  # the log's metric gains, in points (reports/benefit.py)
    general_points: Decimal | None = None
    cost_per_point: Decimal | None = None  # realized cost / target points gained
    assumptions: dict[str, Any] = field(default_factory=dict)
    other_currencies: list[str] = field(default_factory=list)
    reservations: list[waste.ReservedUse] = field(default_factory=list)  # the [[reservations]] it used

    def to_json(self) -> dict[str, Any]:
        """The SPEC §7 shape; money as decimal strings."""

        def money(value: Decimal | None) -> str | None:
            return None if value is None else fmt(value)

        return {
            "experiment_id": self.experiment_id,
            "currency": self.currency,
            "billing_complete_through": _iso(self.billing_complete_through),
            "provisional": self.provisional,
            "rows": [
                {
                    "phase": r.phase,
                    "category": r.category,
                    "estimated": money(r.estimated),
                    "realized": money(r.realized),
                    "variance": money(r.variance),
                    "variance_pct": None if r.variance_pct is None else f"{r.variance_pct:f}",
                    "spend": r.spend,
                }
                for r in self.rows
            ],
            "totals": {
                "estimated": money(self.estimated_total),
                "realized": money(self.realized_total),
                "variance": money(self.variance_total),
            },
            "waste": {
                "idle": money(self.idle),
                "failed": money(self.failed),
                "unused_commitment": money(self.unused_commitment),
            },
            "reservations": [
                {
                    "id": u.id,
                    "project": u.project,
                    "start": _iso(u.start),
                    "end": _iso(u.end),
                    "unused_during_run": money(u.during_run),
                    "unused_in_window": money(u.in_window),
                }
                for u in self.reservations
            ],
            "assumptions": self.assumptions,
        }
