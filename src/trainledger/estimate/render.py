"""The estimate as a person reads it: work items, phase totals, and every assumption beside them."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.estimate.model import Estimate
from trainledger.outputs.tables import table


def _hours(value: Decimal | None) -> str:
    return "-" if value is None else f"{value.quantize(Decimal('0.01'), ROUND_HALF_EVEN):,f}"


def _sci(value: Decimal | None) -> str:
    return "-" if value is None else f"{float(value):.3g}"


def text(est: Estimate, title: str) -> str:
    lines = [f"Estimate for {title} (method {est.method or '-'}), money in {est.currency}", ""]
    work = [
        (
            c.phase,
            c.category,
            c.work,
            _sci(c.tokens),
            _sci(c.flops),
            c.rate or "given",
            _hours(c.gpu_hours),
            est.component_cost(c),
        )
        for c in est.components
    ]
    if work:
        headers = ["phase", "category", "work", "tokens", "FLOPs", "rate", "GPU-h", "cost"]
        lines.append(table(headers, work, ["GPU-h", "cost"]))
        lines.append("")
        totals = [(p.phase, p.category, _sci(p.flops), _hours(p.gpu_hours), p.cost) for p in est.phases()]
        total = est.total
        totals.append(("total", "", "", _hours(est.gpu_hours), total))
        lines.append(table(["phase", "category", "FLOPs", "GPU-h", "cost"], totals, ["GPU-h", "cost"]))
        if est.gpu_hours is not None and est.gpus:
            lines.append(f"≈ {_hours(est.gpu_hours / est.gpus)} h of wall clock on {est.gpus} GPUs")
        if total is None and est.gpu_hours is not None:
            lines.append("no money total: the price per GPU hour is missing (see below)")
    lines.extend(["", "Assumptions"])
    lines.append(
        table(["name", "value", "source"], [(k, a.value, a.source) for k, a in est.assumptions.items()])
    )
    if est.missing:
        lines.extend(["", "Missing (reported, not guessed)"])
        lines.extend(f"  - {m}" for m in est.missing)
    return "\n".join(lines) + "\n"
