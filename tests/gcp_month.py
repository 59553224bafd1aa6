"""A small GCP detailed-export month written by hand as BigQuery exports JSON Lines, for invoice and
resource-name tests: every kind of credit Google subtracts on the invoice, tax, a rounding line and a
negate-and-remonetise correction, on two instances of one RL run.

Amounts are micros, as Google writes them. Expected values are computed by the tests from the file with
``json`` and ``Decimal`` (``read_rows``), never from trainledger.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ACCOUNT = "01C2D3-E4F5A6-B7C8D9"
INVOICE_MONTH = "202701"
PERIOD = "2027-01"
PROJECT = {"id": "mr-rl-gcp", "number": "512345678901", "name": "mr-rl-gcp", "labels": []}
COMPUTE = {"id": "6F81-5844-456A", "description": "Compute Engine"}
STORAGE = {"id": "95FF-2EF5-5EA1", "description": "Cloud Storage"}
INVOICE = {"id": "7B8C-9D0E-1F2A", "description": "Invoice"}
ZONE = "us-central1-a"
EXPORTED = datetime(2027, 1, 6, 4, 0, tzinfo=UTC)
RUN_START = datetime(2027, 1, 5, 8, tzinfo=UTC)
HOURS = 4


def global_name(instance_id: str) -> str:
    return f"//compute.googleapis.com/projects/{PROJECT['number']}/zones/{ZONE}/instances/{instance_id}"


# (instance name, numeric id, labels): the rollout VM is unlabelled, the trainer VM is labelled.
ROLLOUT = ("rl-rollout-01", "7123456789012345001", {})
TRAINER = (
    "rl-trainer-01",
    "7123456789012345002",
    {"project": "math-reasoner", "phase": "train", "method": "rl"},
)
INSTANCES = (ROLLOUT, TRAINER)


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _credit(kind: str, name: str, amount: str) -> dict[str, Any]:
    return {"name": name, "amount": float(amount), "full_name": name, "id": f"{kind.lower()}-1", "type": kind}


def _row(
    sku: str,
    cost: str,
    start: datetime,
    *,
    service: dict[str, str] = COMPUTE,
    instance: tuple[str, str, dict[str, str]] | None = None,
    credits: list[dict[str, Any]] | None = None,
    cost_type: str = "regular",
    adjustment: dict[str, str] | None = None,
    hours: int = 1,
    subscription: str | None = None,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "billing_account_id": ACCOUNT,
        "service": service,
        "sku": {"id": "SKU-" + hashlib.md5(sku.encode()).hexdigest()[:8].upper(), "description": sku},
        "usage_start_time": _time(start),
        "usage_end_time": _time(start + timedelta(hours=hours)),
        "project": PROJECT,
        "labels": [{"key": k, "value": v} for k, v in (instance[2] if instance else {}).items()],
        "system_labels": [],
        "location": {"location": "us-central1", "country": "US", "region": "us-central1", "zone": ZONE},
        "export_time": _time(EXPORTED),
        "cost": float(cost),
        "currency": "USD",
        "currency_conversion_rate": 1.0,
        "usage": {"amount": float(3600 * hours), "unit": "seconds"},
        "credits": credits or [],
        "invoice": {"month": INVOICE_MONTH},
        "cost_type": cost_type,
    }
    if instance:
        row["resource"] = {"name": instance[0], "global_name": global_name(instance[1])}
    if adjustment:
        row["adjustment_info"] = adjustment
    if subscription:
        row["subscription"] = {"instance_id": subscription}
    return row


def month_rows() -> list[dict[str, Any]]:
    rows = []
    for hour in range(HOURS):
        start = RUN_START + timedelta(hours=hour)
        cud = _credit("COMMITTED_USAGE_DISCOUNT", "Committed use discount: H100", "-58.788")
        for instance in INSTANCES:
            rows.append(
                _row(
                    "Nvidia H100 80GB GPU running in Americas",
                    "78.384",
                    start,
                    instance=instance,
                    credits=[cud],
                )
            )
            rows.append(
                _row(
                    "A3 Instance Core running in Americas",
                    "6.160544",
                    start,
                    instance=instance,
                    credits=[_credit("SUSTAINED_USAGE_DISCOUNT", "Sustained use", "-1.232109")],
                )
            )
    # The trainer's disk-less hour 2 was billed wrong and corrected on the same invoice: Google negates the
    # row (credits included) and bills it again at the right amount.
    wrong = RUN_START + timedelta(hours=2)
    correction = {
        "id": "adj-0001",
        "description": "Usage correction",
        "mode": "COMPLETE_NEGATION_WITH_REMONETIZATION",
        "type": "USAGE_CORRECTION",
    }
    rows.append(
        _row(
            "A3 Instance Ram running in Americas",
            "3.964",
            wrong,
            instance=TRAINER,
            credits=[_credit("SUSTAINED_USAGE_DISCOUNT", "Sustained use", "-0.7928")],
        )
    )
    rows.append(
        _row(
            "A3 Instance Ram running in Americas",
            "-3.964",
            wrong,
            instance=TRAINER,
            credits=[_credit("SUSTAINED_USAGE_DISCOUNT", "Sustained use", "0.7928")],
            adjustment=correction,
        )
    )
    rows.append(
        _row(
            "A3 Instance Ram running in Americas",
            "0.991",
            wrong,
            instance=TRAINER,
            credits=[_credit("SUSTAINED_USAGE_DISCOUNT", "Sustained use", "-0.1982")],
            adjustment=correction,
        )
    )
    day = datetime(2027, 1, 5, 8, tzinfo=UTC)
    rows += [
        _row(
            "Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year",
            "470.304",
            day,
            hours=24,
            subscription="8123456789012345009",
        ),
        _row(
            "Standard Storage US Multi-region",
            "12.5",
            day,
            service=STORAGE,
            hours=24,
            credits=[_credit("PROMOTION", "Research credits", "-12.5")],
        ),
        _row(
            "Standard Storage US Multi-region",
            "3.25",
            day + timedelta(days=1),
            service=STORAGE,
            hours=24,
            credits=[_credit("PROMOTION", "FreeTrial:ffffffff-0000", "-3.25")],
        ),
        _row(
            "Network Internet Egress from Americas to Americas",
            "0.24",
            day,
            hours=24,
            credits=[_credit("FREE_TIER", "Free tier", "-0.12")],
        ),
        _row("Tax: US sales tax", "41.87", day, service=INVOICE, cost_type="tax", hours=24 * 31),
        _row("Rounding error", "-0.000321", day, service=INVOICE, cost_type="rounding_error", hours=24 * 31),
    ]
    return rows


def write(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in month_rows()), encoding="utf-8")
    return path


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The file read back with json, every number as the Decimal of its text (no float on the way)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line, parse_float=Decimal, parse_int=Decimal) for line in lines]


def net(row: dict[str, Any]) -> Decimal:
    return row["cost"] + sum((c["amount"] for c in row["credits"]), Decimal(0))


def invoice_total(rows: list[dict[str, Any]]) -> Decimal:
    """Google's invoice: cost plus credits, every cost type of the invoice month."""
    return sum((net(r) for r in rows if r["invoice"]["month"] == INVOICE_MONTH), Decimal(0))
