"""Hand-written FOCUS 1.2 bills for tests: a row is a dict of the few columns a test cares about."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

DEFAULTS: dict[str, Any] = {
    "BillingAccountId": "111122223333",
    "SubAccountId": "444455556666",
    "BillingCurrency": "USD",
    "BillingPeriodStart": "2026-11-01T00:00:00Z",
    "BillingPeriodEnd": "2026-12-01T00:00:00Z",
    "ChargePeriodStart": "2026-11-03T08:00:00Z",
    "ChargePeriodEnd": "2026-11-03T09:00:00Z",
    "ChargeCategory": "Usage",
    "ProviderName": "AWS",
    "ServiceName": "Amazon Elastic Compute Cloud",
    "x_UsageType": "BoxUsage:p5.48xlarge",
    "ResourceId": "",
    "Tags": {},
}


def write_focus(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write rows (defaults filled in; EffectiveCost/ListCost default to BilledCost) as a FOCUS CSV."""
    full = []
    for row in rows:
        merged = {**DEFAULTS, **row}
        merged.setdefault("EffectiveCost", merged["BilledCost"])
        merged.setdefault("ListCost", merged["BilledCost"])
        merged["Tags"] = json.dumps(merged["Tags"])
        full.append(merged)
    columns = sorted({key for row in full for key in row})
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(full)
    return path


def experiment(
    experiment_id: str, project: str, method: str, phases: list[dict[str, Any]], **extra: Any
) -> str:
    """One JSON Lines record of the experiment log."""
    return json.dumps(
        {
            "experiment_id": experiment_id,
            "project": project,
            "method": method,
            "status": "succeeded",
            "phases": phases,
            **extra,
        }
    )


FOCUS_CONFIG = """
[[sources]]
name = "bill"
kind = "focus"
uri = "bill.csv"

[experiments]
uri = "experiments.jsonl"
"""
