"""Spend against ``[[budgets]]`` thresholds; a crossed threshold is an alert (exit code 2).

A budget scopes spend by project, method and/or experiment (all that are given must match) for one
billing period (``YYYY-MM``) or every period (``monthly``), in its currency; spend is EffectiveCost of the
allocations. Alerts are state, not events: every run that finds a threshold crossed reports it, so the
alerts file always says what is crossed now (``[]`` when nothing is).

A budget may also cap a phase's share of its scope's spend, ``max_share = { phase = "eval", share = 0.4 }``
(teams commonly see evaluation at 20-40% of an experiment): it alerts when the share is above the cap
(exactly at the cap is allowed, as a maximum is).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from trainledger.core.config import Config
from trainledger.core.config_spend import BudgetConfig
from trainledger.core.files import write_atomic
from trainledger.core.labels import canonical_value
from trainledger.core.money import fmt
from trainledger.core.reporter import Reporter
from trainledger.warehouse.connection import Connection, run

ALERTS_FILE = "alerts.json"


@dataclass
class BudgetStatus:
    budget: str
    scope: dict[str, str]
    period: str
    currency: str
    amount: Decimal
    spent: Decimal
    thresholds: list[Decimal]
    crossed: list[Decimal]

    @property
    def used(self) -> Decimal:
        return (self.spent / self.amount) if self.amount else Decimal(0)

    @property
    def scope_text(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.scope.items()) or "everything"

    def to_json(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "scope": self.scope,
            "period": self.period,
            "currency": self.currency,
            "amount": fmt(self.amount),
            "spent": fmt(self.spent),
            "remaining": fmt(self.amount - self.spent),
            "used": f"{self.used:.4f}",
            "thresholds": [f"{t:f}" for t in self.thresholds],
            "crossed": [f"{t:f}" for t in self.crossed],
        }


def _periods(con: Connection, budget: BudgetConfig) -> list[str]:
    if budget.period != "monthly":
        return [budget.period]
    return [r[0] for r in run(con, "report/periods").fetchall()]


def _scope_params(scope: dict[str, str]) -> dict[str, str | None]:
    """The scope as query parameters: a key the budget leaves out is NULL, which does not narrow it."""
    return {column: scope.get(column) for column in ("project", "method", "experiment_id")}


def _scope(budget: BudgetConfig) -> dict[str, str]:
    return {
        column: canonical_value(value)
        for column, value in (
            ("project", budget.project),
            ("method", budget.method),
            ("experiment_id", budget.experiment),
        )
        if value
    }


def status(con: Connection, config: Config) -> list[BudgetStatus]:
    results = []
    for budget in config.budgets:
        if budget.amount is None:
            continue
        scope = _scope(budget)
        for period in _periods(con, budget):
            params = {"period": period, "currency": budget.currency.upper(), **_scope_params(scope)}
            row = run(con, "report/budget_spent", params).fetchone()
            spent = Decimal(row[0]) if row else Decimal(0)
            thresholds = sorted(budget.thresholds)
            crossed = [t for t in thresholds if spent >= budget.amount * t]
            results.append(
                BudgetStatus(
                    budget.name,
                    scope,
                    period,
                    budget.currency.upper(),
                    budget.amount,
                    spent,
                    thresholds,
                    crossed,
                )
            )
    return results


@dataclass
class ShareStatus:
    """A phase's share of a budget scope's spend against the budget's ``max_share``."""

    budget: str
    scope: dict[str, str]
    period: str
    currency: str
    phase: str
    limit: Decimal
    phase_spent: Decimal
    total: Decimal

    @property
    def share(self) -> Decimal:
        return self.phase_spent / self.total if self.total > 0 else Decimal(0)

    @property
    def exceeded(self) -> bool:
        return self.total > 0 and self.share > self.limit

    def to_json(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "kind": "max_share",
            "scope": self.scope,
            "period": self.period,
            "currency": self.currency,
            "phase": self.phase,
            "max_share": f"{self.limit:f}",
            "share": f"{self.share:.4f}",
            "phase_spent": fmt(self.phase_spent),
            "spent": fmt(self.total),
            "exceeded": self.exceeded,
        }


def share_status(con: Connection, config: Config) -> list[ShareStatus]:
    results = []
    for budget in config.budgets:
        if budget.max_share is None:
            continue
        scope = _scope(budget)
        phase = canonical_value(budget.max_share.phase)
        for period in _periods(con, budget):
            params = {
                "period": period,
                "currency": budget.currency.upper(),
                "phase": phase,
                **_scope_params(scope),
            }
            row = run(con, "report/budget_share", params).fetchone()
            phase_spent, total = (Decimal(v) for v in row) if row else (Decimal(0), Decimal(0))
            results.append(
                ShareStatus(
                    budget.name,
                    scope,
                    period,
                    budget.currency.upper(),
                    phase,
                    budget.max_share.share,
                    phase_spent,
                    total,
                )
            )
    return results


def share_alerts(shares: list[ShareStatus]) -> list[dict[str, Any]]:
    return [
        {
            **s.to_json(),
            "threshold": f"{s.limit:f}",
            "message": (
                f"budget {s.budget} ({', '.join(f'{k}={v}' for k, v in s.scope.items()) or 'everything'}) "
                f"{s.period}: {s.phase} is {s.share:.1%} of {fmt(s.total, 2)} {s.currency} spent, above its "
                f"maximum share of {s.limit:.0%}"
            ),
        }
        for s in shares
        if s.exceeded
    ]


def alerts(statuses: list[BudgetStatus]) -> list[dict[str, Any]]:
    """One alert per crossed threshold, JSON-ready, for a scheduler to forward."""
    out = []
    for s in statuses:
        for threshold in s.crossed:
            out.append(
                {
                    **s.to_json(),
                    "threshold": f"{threshold:f}",
                    "threshold_amount": fmt(s.amount * threshold),
                    "message": (
                        f"budget {s.budget} ({s.scope_text}) {s.period}: spent {fmt(s.spent, 2)} {s.currency} of "
                        f"{fmt(s.amount, 2)}, {s.used:.1%}, crosses the {threshold:.0%} threshold"
                    ),
                }
            )
    return out


def check(con: Connection, config: Config, reporter: Reporter) -> list[dict[str, Any]]:
    """Alerts for every crossed threshold, each also reported as a warning."""
    found = alerts(status(con, config)) + share_alerts(share_status(con, config))
    for alert in found:
        reporter.warn(alert["message"])
    return found


def alerts_path(config: Config, override: str | None) -> Path | None:
    """Where nightly writes its alerts: ``--alerts-out``, else ``<[exports] dir>/alerts.json``, else nowhere."""
    if override:
        return Path(override)
    if config.exports.dir:
        return Path(config.resolve(config.exports.dir)) / ALERTS_FILE
    return None


def write_alerts(path: Path, found: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(found, indent=2) + "\n")
