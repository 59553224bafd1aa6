"""Spend against ``[[budgets]]`` thresholds; a crossed threshold is an alert (exit code 2)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from trainledger.config import BudgetConfig, Config
from trainledger.labels import canonical_value
from trainledger.money import fmt
from trainledger.reporter import Reporter
from trainledger.warehouse import Connection


@dataclass
class BudgetStatus:
    budget: str
    period: str
    currency: str
    amount: Decimal
    spent: Decimal
    crossed: list[Decimal]

    @property
    def used(self) -> Decimal:
        return (self.spent / self.amount) if self.amount else Decimal(0)

    def to_json(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "period": self.period,
            "currency": self.currency,
            "amount": fmt(self.amount),
            "spent": fmt(self.spent),
            "used": f"{self.used:.4f}",
            "crossed": [f"{t:f}" for t in self.crossed],
        }


def _periods(con: Connection, budget: BudgetConfig) -> list[str]:
    if budget.period != "monthly":
        return [budget.period]
    return [
        r[0] for r in con.execute("SELECT DISTINCT billing_period FROM allocations ORDER BY 1").fetchall()
    ]


def status(con: Connection, config: Config) -> list[BudgetStatus]:
    results = []
    for budget in config.budgets:
        if budget.amount is None:
            continue
        for period in _periods(con, budget):
            conditions = ["billing_period = $period", "currency = $currency"]
            params: dict[str, Any] = {"period": period, "currency": budget.currency.upper()}
            for column, value in (
                ("project", budget.project),
                ("method", budget.method),
                ("experiment_id", budget.experiment),
            ):
                if value:
                    conditions.append(f"{column} = ${column}")
                    params[column] = canonical_value(value)
            row = con.execute(
                f"SELECT coalesce(sum(effective_cost), 0) FROM allocations WHERE {' AND '.join(conditions)}",
                params,
            ).fetchone()
            spent = Decimal(row[0]) if row else Decimal(0)
            crossed = [t for t in sorted(budget.thresholds) if spent >= budget.amount * t]
            results.append(
                BudgetStatus(budget.name, period, budget.currency.upper(), budget.amount, spent, crossed)
            )
    return results


def check(con: Connection, config: Config, reporter: Reporter) -> list[dict[str, Any]]:
    """Alerts for every crossed threshold, as JSON-ready dicts."""
    alerts = []
    for s in status(con, config):
        for threshold in s.crossed:
            alerts.append({**s.to_json(), "threshold": f"{threshold:f}"})
            reporter.warn(
                f"budget {s.budget} {s.period}: spent {fmt(s.spent, 2)} {s.currency} of {fmt(s.amount, 2)} "
                f"crosses {threshold:.0%}"
            )
    return alerts
