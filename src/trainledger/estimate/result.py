"""What an estimate holds: work items, phase totals, assumptions, and the derivation a person can check.

Arithmetic is Decimal with 34 significant digits: GPU hours x price per GPU hour, summed per phase and
rounded half-even to the cent; the total is the sum of the phase amounts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from typing import Any

from trainledger.core.money import CENT, fmt
from trainledger.core.providers import CLOUD, LLM_API  # what bills a line: capacity, or a model API
from trainledger.core.vocabulary import phase_category_order

ARITHMETIC = Context(prec=34, rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True)
class Assumption:
    value: str
    source: str


@dataclass
class Component:
    """One piece of work (or money given directly) inside a phase, with how it was computed."""

    phase: str
    work: str
    category: str = "compute"
    params_b: Decimal | None = None
    tokens: Decimal | None = None
    flops: Decimal | None = None
    rate: str = ""
    gpu_hours: Decimal | None = None
    money: Decimal | None = None
    formula: str = ""  # how the FLOPs (or the hours) were reached, in numbers
    source: str = ""  # where the inputs of that formula come from
    spend: str = CLOUD  # LLM_API: judge calls and synthetic samples, priced per token


@dataclass
class PhaseTotal:
    phase: str
    category: str
    flops: Decimal | None
    gpu_hours: Decimal | None
    cost: Decimal | None
    spend: str = CLOUD


@dataclass
class Estimate:
    method: str | None
    currency: str
    gpu: str | None
    gpus: int | None
    peak_tflops: Decimal | None
    price_per_gpu_hour: Decimal | None
    components: list[Component] = field(default_factory=list)
    assumptions: dict[str, Assumption] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def component_cost(self, c: Component) -> Decimal | None:
        if c.money is not None:
            return c.money
        if c.gpu_hours is None or self.price_per_gpu_hour is None:
            return None
        with localcontext(ARITHMETIC):
            return c.gpu_hours * self.price_per_gpu_hour

    def phases(self) -> list[PhaseTotal]:
        keys: list[tuple[str, str, str]] = []
        for c in self.components:
            if (c.phase, c.category, c.spend) not in keys:
                keys.append((c.phase, c.category, c.spend))
        keys.sort(key=lambda k: (phase_category_order(k[:2]), k[2] == LLM_API))
        totals = []
        for phase, category, spend in keys:
            parts = [c for c in self.components if (c.phase, c.category, c.spend) == (phase, category, spend)]
            flops = [c.flops for c in parts if c.flops is not None]
            hours = [c.gpu_hours for c in parts if c.gpu_hours is not None]
            costs = [self.component_cost(c) for c in parts]
            with localcontext(ARITHMETIC):
                cost = (
                    None
                    if any(x is None for x in costs)
                    else sum((x for x in costs if x is not None), Decimal(0)).quantize(CENT, ROUND_HALF_EVEN)
                )
                totals.append(
                    PhaseTotal(
                        phase,
                        category,
                        sum(flops, Decimal(0)) if flops else None,
                        sum(hours, Decimal(0)) if hours else None,
                        cost,
                        spend,
                    )
                )
        return totals

    @property
    def total(self) -> Decimal | None:
        costs = [p.cost for p in self.phases()]
        if not costs or any(c is None for c in costs):
            return None
        return sum((c for c in costs if c is not None), Decimal(0))

    @property
    def gpu_hours(self) -> Decimal | None:
        hours = [c.gpu_hours for c in self.components if c.gpu_hours is not None]
        return sum(hours, Decimal(0)) if hours else None

    def derivation(self) -> list[tuple[str, str, str]]:
        """(phase, step, source): FLOPs -> GPU hours per work item, then money per phase, then the total."""
        price = self.assumptions.get("price_per_gpu_hour")
        lines = []
        for c in self.components:
            if c.formula:
                lines.append((c.phase, f"{c.work}: {c.formula}", c.source))
            elif c.money is not None:
                lines.append((c.phase, f"{c.work}: {fmt(c.money)} {self.currency}", c.source or "given"))
        for p in self.phases():
            if p.category != "compute" or p.gpu_hours is None:
                continue
            step = f"{p.phase}: {hours_text(p.gpu_hours)} GPU-h"
            if p.cost is not None and self.price_per_gpu_hour is not None:
                step += f" x {fmt(self.price_per_gpu_hour)}/GPU-h = {fmt(p.cost)} {self.currency}"
            lines.append((p.phase, step, price.source if price else "no price per GPU hour"))
        if self.total is not None:
            lines.append(
                ("total", f"{fmt(self.total)} {self.currency}", "sum of the phases, each to the cent")
            )
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "currency": self.currency,
            "phases": [
                {
                    "phase": p.phase,
                    "category": p.category,
                    "flops": _int(p.flops),
                    "gpu_hours": _hours(p.gpu_hours),
                    "cost": None if p.cost is None else fmt(p.cost),
                    "spend": p.spend,
                }
                for p in self.phases()
            ],
            "components": [
                {
                    "phase": c.phase,
                    "category": c.category,
                    "work": c.work,
                    "params_b": None if c.params_b is None else f"{c.params_b:f}",
                    "tokens": _int(c.tokens),
                    "flops": _int(c.flops),
                    "rate": c.rate,
                    "gpu_hours": _hours(c.gpu_hours),
                    "cost": _money(self.component_cost(c)),
                    "spend": c.spend,
                }
                for c in self.components
            ],
            "total": None if self.total is None else fmt(self.total),
            "gpu_hours": _hours(self.gpu_hours),
            "assumptions": {k: {"value": a.value, "source": a.source} for k, a in self.assumptions.items()},
            "missing": list(self.missing),
            "warnings": list(self.warnings),
            "derivation": [{"phase": p, "step": s, "source": src} for p, s, src in self.derivation()],
        }


def sci(value: Decimal | None) -> str:
    return "-" if value is None else f"{float(value):.3g}"


def hours_text(value: Decimal) -> str:
    """Hours to the cent, or to three significant digits below one hour (so small work does not read 0.00)."""
    if abs(value) < 1:
        return f"{float(value):.3g}"
    return f"{value.quantize(CENT, ROUND_HALF_EVEN):,f}"


def num(value: Decimal) -> str:
    """A quantity for people: ``7``, ``0.4``, ``1500`` (no exponent, no trailing zeros)."""
    return f"{value.normalize():f}"


def _int(value: Decimal | None) -> int | None:
    return None if value is None else int(value.to_integral_value(ROUND_HALF_EVEN))


def _hours(value: Decimal | None) -> str | None:
    return None if value is None else fmt(value, 4)


def _money(value: Decimal | None) -> str | None:
    return None if value is None else fmt(value.quantize(CENT, ROUND_HALF_EVEN))
