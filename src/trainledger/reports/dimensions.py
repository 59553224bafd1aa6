"""The names `--by` accepts and what each means: no heavy imports, so `--help` builds without DuckDB or polars."""

from __future__ import annotations

from trainledger.core.errors import TrainledgerError

# CLI dimension name -> allocations column.
DIMENSIONS = {
    "project": "project",
    "phase": "phase",
    "method": "method",
    "experiment": "experiment_id",
    "experiment_id": "experiment_id",
    "category": "cost_category",
    "cost_category": "cost_category",
    "rule": "rule",
    "provider": "provider",
    "service": "service_name",
    "service_name": "service_name",
    "account": "billing_account_id",
    "billing_account_id": "billing_account_id",
    "sub_account": "sub_account_id",
    "sub_account_id": "sub_account_id",
    "period": "billing_period",
    "billing_period": "billing_period",
    "charge_category": "charge_category",
    "pricing_category": "pricing_category",
    "waste": "waste",
    "commitment": "commitment",
}
# The classes of the `waste` dimension (attribution/waste.py and report/cost_by's waste column).
WASTE_CLASSES = ("productive", "idle", "failed", "rerun", "unused-commitment", "shared", "unattributed")
# What a dimension's values are, where its name does not say (shown in `--by`'s help).
DIMENSION_VALUES = {"waste": ", ".join(WASTE_CLASSES)}


def dimension_names() -> list[str]:
    """One ``--by`` name per column, in ``DIMENSIONS`` order (the aliases after the first left out)."""
    first: dict[str, str] = {}
    for name, column in DIMENSIONS.items():
        first.setdefault(column, name)
    return list(first.values())


def dimension_help() -> str:
    """The ``--by`` help: every dimension, derived from ``DIMENSIONS``."""
    shown = [f"{n} ({DIMENSION_VALUES[n]})" if n in DIMENSION_VALUES else n for n in dimension_names()]
    return f"Comma-separated dimensions: {', '.join(shown)}."


def parse_dimensions(text: str | None) -> list[str]:
    """The allocations columns of a ``--by`` list, each once, in the order given."""
    names = [d.strip().lower() for d in (text or "").split(",") if d.strip()]
    unknown = [n for n in names if n not in DIMENSIONS]
    if unknown:
        known = ", ".join(sorted(dimension_names()))
        raise TrainledgerError(f"unknown dimension {unknown[0]!r} for --by (known: {known})")
    columns: list[str] = []
    for name in names:
        if DIMENSIONS[name] not in columns:
            columns.append(DIMENSIONS[name])
    return columns
