"""The estimate as a person reads it: work items, phase totals, the derivation, and every assumption."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.core.money import CENT
from trainledger.core.providers import LLM_API
from trainledger.estimate.result import Estimate, sci
from trainledger.outputs.tables import hours, table


def _category(category: str, spend: str) -> str:
    """The category, and "LLM API" on a model API's lines, so judge spend reads apart from GPU spend."""
    return f"{category} (LLM API)" if spend == LLM_API else category


def _work_rows(est: Estimate) -> list[tuple[object, ...]]:
    return [
        (
            c.phase,
            _category(c.category, c.spend),
            c.work,
            sci(c.tokens),
            sci(c.flops),
            c.rate or "given",
            hours(c.gpu_hours),
            est.component_cost(c),
        )
        for c in est.components
    ]


def _total_rows(est: Estimate) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = [
        (p.phase, _category(p.category, p.spend), sci(p.flops), hours(p.gpu_hours), p.cost)
        for p in est.phases()
    ]
    rows.append(("total", "", "", hours(est.gpu_hours), est.total))
    return rows


def text(est: Estimate, title: str) -> str:
    lines = [f"Estimate for {title} (method {est.method or '-'}), money in {est.currency}", ""]
    if est.components:
        headers = ["phase", "category", "work", "tokens", "FLOPs", "rate", "GPU-h", "cost"]
        lines.append(table(headers, _work_rows(est), ["GPU-h", "cost"]))
        lines.append("")
        lines.append(
            table(["phase", "category", "FLOPs", "GPU-h", "cost"], _total_rows(est), ["GPU-h", "cost"])
        )
        if est.gpu_hours is not None and est.gpus:
            lines.append(f"≈ {hours(est.gpu_hours / est.gpus)} h of wall clock on {est.gpus} GPUs")
        if est.total is None and est.gpu_hours is not None:
            lines.append("no money total: the price per GPU hour is missing (see below)")
        lines.extend(["", "Derivation"])
        lines.append(table(["phase", "step", "source"], est.derivation()))
    lines.extend(["", "Assumptions"])
    lines.append(
        table(["name", "value", "source"], [(k, a.value, a.source) for k, a in est.assumptions.items()])
    )
    if est.warnings:
        lines.extend(["", "Warnings"])
        lines.extend(f"  - {w}" for w in est.warnings)
    if est.missing:
        lines.extend(["", "Missing (reported, not guessed)"])
        lines.extend(f"  - {m}" for m in est.missing)
    return "\n".join(lines) + "\n"


def _md_table(headers: list[str], rows: list[tuple[object, ...]]) -> list[str]:
    def cell(value: object) -> str:
        if isinstance(value, Decimal):
            return f"{value.quantize(CENT, ROUND_HALF_EVEN):,f}"
        return "-" if value is None else str(value).replace("|", "\\|")

    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out.extend("| " + " | ".join(cell(v) for v in row) + " |" for row in rows)
    return out


def markdown(est: Estimate, title: str) -> str:
    lines = [f"# Estimate: {title}", "", f"Method {est.method or '-'}, money in {est.currency}.", ""]
    if est.components:
        headers = ["phase", "category", "work", "tokens", "FLOPs", "rate", "GPU-h", "cost"]
        lines.extend(_md_table(headers, _work_rows(est)))
        lines.extend(["", "## Totals", ""])
        lines.extend(_md_table(["phase", "category", "FLOPs", "GPU-h", "cost"], _total_rows(est)))
        lines.extend(["", "## Derivation", ""])
        lines.extend(_md_table(["phase", "step", "source"], list(est.derivation())))
    lines.extend(["", "## Assumptions", ""])
    lines.extend(
        _md_table(["name", "value", "source"], [(k, a.value, a.source) for k, a in est.assumptions.items()])
    )
    for heading, items in (("Warnings", est.warnings), ("Missing (reported, not guessed)", est.missing)):
        if items:
            lines.extend(["", f"## {heading}", ""])
            lines.extend(f"- {item}" for item in items)
    return "\n".join(lines) + "\n"
