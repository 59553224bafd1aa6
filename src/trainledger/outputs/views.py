"""The read commands' data as ``Document``s: which columns, which headings, which notes, per command.

Each function takes what a core function of ``reports/`` returned and lays it out once for every
format; rendering (and each format's safety) is ``outputs/document.py``'s.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainledger.core.errors import TrainledgerError
from trainledger.core.money import fmt
from trainledger.outputs.document import Document, Sheet, Table
from trainledger.reports import benefit as benefit_module
from trainledger.reports.budgets import BudgetStatus, ShareStatus
from trainledger.reports.coverage import Coverage
from trainledger.reports.shape import ShapeRow

if TYPE_CHECKING:  # the comparison's (polars): `report` and `labels` lay their documents out without it
    from trainledger.reports.experiments import KnownExperiment


def costs(headers: list[str], records: list[tuple[Any, ...]]) -> Document:
    """`report`: one row per group, a total line when the rows share one currency."""
    money = [h for h in headers if h.endswith("_cost")]
    parts: list[Table | str] = [Table(headers, records, money)]
    column = {h: i for i, h in enumerate(headers)}
    currencies = sorted({r[column["currency"]] for r in records})
    if len(currencies) == 1:
        totals = {
            c: sum((Decimal(r[column[c]]) for r in records if r[column[c]] is not None), Decimal(0))
            for c in money
        }
        parts.append(
            "total " + "  ".join(f"{c}={fmt(v, 2)}" for c, v in totals.items()) + f" {currencies[0]}"
        )
    data = [dict(zip(headers, r, strict=True)) for r in records]
    return Document(parts, data, Sheet(headers, records))


def benefit(rows: list[benefit_module.Benefit], columns: list[str]) -> Document:
    """`report --with-metrics`: by method, each method's row then its experiments; by experiment alone,
    the experiments."""
    if not columns or any(c not in ("method", "experiment_id") for c in columns):
        raise TrainledgerError("--with-metrics reports --by method and/or experiment, nothing else")
    wanted = {"method", "experiment"} if "method" in columns else {"experiment"}
    found = [r for r in rows if r.level in wanted]
    records = [r.to_json() for r in found]
    headers = list(records[0]) if records else list(benefit_module.Benefit.__dataclass_fields__)

    def points(value: Decimal | None) -> str:
        return "-" if value is None else f"{value:+.2f}"

    table_rows = [
        (
            r.method or "-",
            f"all ({r.experiments})" if r.level == "method" else r.experiment_id,
            r.status or "",
            r.currency,
            r.cost,
            points(r.target_gain),
            points(r.general_change),
            r.cost_per_point,
            "-" if r.eval_share is None else f"{r.eval_share:.1%}",
        )
        for r in found
    ]
    table_headers = [
        "method",
        "experiment",
        "status",
        "currency",
        "cost",
        "target gain",
        "general change",
        "cost per point",
        "eval share",
    ]
    return Document(
        [Table(table_headers, table_rows, ["cost", "cost per point"]), benefit_module.NOTE],
        {"note": benefit_module.NOTE, "rows": records},
        Sheet(headers, [list(r.values()) for r in records], frozenset(benefit_module.NUMERIC)),
    )


SHAPE_CSV = ["currency", "buckets", "peak", "peak_at", "average", "peak_to_average", "not_time_resolved"]


def shape(columns: list[str], unit: str, found: list[ShapeRow], gpu: list[dict[str, Any]]) -> Document:
    """`report --shape`: peak vs average spend per bucket, then GPU hours in use vs provisioned."""
    data = [r.to_json() for r in found]
    rows = [
        (
            *r.keys.values(),
            r.currency,
            r.buckets,
            r.peak,
            r.peak_at,
            r.average.quantize(Decimal("0.01")),
            "-" if r.ratio is None else f"{r.ratio:f}x",
            r.unresolved,
        )
        for r in found
    ]
    parts: list[Table | str] = [
        f"Spend per {unit} (EffectiveCost): peak vs average, idle {unit}s included",
        Table(
            [*columns, "currency", f"{unit}s", "peak", "peak at", "average", "peak/avg", "not time-resolved"],
            rows,
            ["peak", "average", "not time-resolved"],
        ),
    ]
    if gpu:
        parts += [
            "",
            "GPU hours: in use (experiment log) vs provisioned (billed hours of those machines x GPUs)",
            Table(
                ["project", "method", "in use", "provisioned"],
                [(g["project"], g["method"], g["gpu_hours_in_use"], g["gpu_hours_provisioned"]) for g in gpu],
            ),
        ]
    headers = [*columns, *SHAPE_CSV]
    gpu_json = [{k: (str(v) if isinstance(v, Decimal) else v) for k, v in g.items()} for g in gpu]
    return Document(
        parts,
        {"bucket": unit, "rows": data, "gpu_hours": gpu_json},
        Sheet(headers, [[d[h] for h in headers] for d in data], frozenset(SHAPE_CSV) - {"peak_at"}),
    )


def labels(result: Coverage) -> Document:
    """`labels`: coverage by rule with each rule's share, bad labels, services with no category, LLM API
    spend of unmapped projects / workspaces."""
    coverage_rows = [
        (
            r["rule"],
            r["currency"],
            r["charges"],
            r["effective_cost"],
            "-" if r["share_pct"] is None else f"{r['share_pct'].quantize(Decimal('0.1')):f}%",
        )
        for r in result.by_rule
    ]
    parts: list[Table | str] = [
        f"Tag coverage for {', '.join(result.periods) or 'no periods'} "
        "(EffectiveCost; share of the currency's cost before credits)",
        Table(["rule", "currency", "charges", "effective_cost", "share"], coverage_rows, ["effective_cost"]),
        "",
    ]
    if result.problems:
        parts += [
            "Bad or conflicting labels",
            Table(
                ["status", "problem", "example resource", "charges", "effective_cost"],
                [
                    (r["status"], r["problem"], r["example_resource"], r["charges"], r["effective_cost"])
                    for r in result.problems
                ],
                ["effective_cost"],
            ),
        ]
    else:
        parts.append("No bad or conflicting labels.")
    if result.unknown_services:
        parts += [
            "",
            "Services with no cost category (counted as `other`)",
            Table(
                ["provider", "service", "usage type", "effective_cost"],
                [
                    (r["provider"], r["service_name"], r["usage_type"], r["effective_cost"])
                    for r in result.unknown_services
                ],
                ["effective_cost"],
            ),
        ]
    if result.unmapped:
        parts += [
            "",
            "LLM API spend with no labels (map these ids in the source's `labels`)",
            Table(
                ["provider", "source", "project / workspace", "charges", "effective_cost"],
                [
                    (r["provider"], r["source"], r["resource_id"], r["charges"], r["effective_cost"])
                    for r in result.unmapped
                ],
                ["effective_cost"],
            ),
        ]
    if result.unpriced:
        parts += [
            "",
            "Usage with no rate, so in no cost (never priced 0): add a [[rates]] entry for its SKU or node",
            Table(
                ["provider", "source", "sku / node", "unit", "usage rows", "quantity"],
                [
                    (
                        r["provider"],
                        r["source"],
                        r["rate_key"],
                        r["unit"],
                        r["usage_rows"],
                        fmt(r["quantity"]),
                    )
                    for r in result.unpriced
                ],
            ),
        ]
    data = {
        "periods": result.periods,
        "coverage": result.by_rule,
        "problems": result.problems,
        "unknown_services": result.unknown_services,
        "unmapped_api_spend": result.unmapped,
        "unpriced": result.unpriced,
    }
    return Document(parts, data)


def budgets(statuses: list[BudgetStatus], shares: list[ShareStatus]) -> Document:
    """`budgets`: spend against each amount, then each phase's share against its cap."""
    parts: list[Table | str] = []
    if not statuses and not shares:
        parts.append("No [[budgets]] with an amount in the config.")
    if statuses:
        parts.append(
            Table(
                [
                    "budget",
                    "scope",
                    "period",
                    "currency",
                    "amount",
                    "spent",
                    "remaining",
                    "used",
                    "thresholds",
                    "crossed",
                ],
                [
                    (
                        s.budget,
                        s.scope_text,
                        s.period,
                        s.currency,
                        s.amount,
                        s.spent,
                        s.amount - s.spent,
                        f"{s.used:.1%}",
                        ", ".join(f"{t:.0%}" for t in s.thresholds),
                        ", ".join(f"{t:.0%}" for t in s.crossed) or "-",
                    )
                    for s in statuses
                ],
                ["amount", "spent", "remaining"],
            )
        )
    if shares:
        share_rows = [
            (
                s.budget,
                ", ".join(f"{k}={v}" for k, v in s.scope.items()) or "everything",
                s.period,
                s.phase,
                s.phase_spent,
                s.total,
                f"{s.share:.1%}",
                f"{s.limit:.0%}",
                "EXCEEDED" if s.exceeded else "ok",
            )
            for s in shares
        ]
        headers = [
            "budget",
            "scope",
            "period",
            "phase",
            "phase_spent",
            "spent",
            "share",
            "max share",
            "status",
        ]
        parts += ["", Table(headers, share_rows, ["phase_spent", "spent"])]
    return Document(parts, [s.to_json() for s in statuses] + [s.to_json() for s in shares])


EXPERIMENT_COLUMNS = [
    "experiment_id",
    "project",
    "method",
    "status",
    "started_at",
    "ended_at",
    "currency",
    "estimated",
    "realized",
    "variance",
    "provisional",
]


def experiments(found: list[KnownExperiment]) -> Document:
    """`experiments`: newest first, estimated vs realized in each experiment's currency."""

    def when(value: Any) -> str | None:
        return None if value is None else value.strftime("%Y-%m-%dT%H:%M:%SZ")

    def minute(value: Any) -> str:
        return "-" if value is None else value.strftime("%Y-%m-%d %H:%M")

    records = [
        [
            e.experiment_id,
            e.project,
            e.method,
            e.status,
            when(e.started_at),
            when(e.ended_at),
            e.currency,
            e.estimated,
            e.realized,
            e.variance,
            e.provisional,
        ]
        for e in found
    ]
    table_rows = [
        (
            e.experiment_id,
            e.project,
            e.method,
            e.status,
            minute(e.started_at),
            minute(e.ended_at),
            e.currency,
            e.estimated,
            e.realized,
            e.variance,
            "yes" if e.provisional else "no",
        )
        for e in found
    ]
    headers = ["experiment", "project", "method", "status", "start", "end", "currency"]
    headers += ["estimated", "realized", "variance", "provisional"]
    parts: list[Table | str] = (
        [Table(headers, table_rows, ["estimated", "realized", "variance"])]
        if found
        else ['No experiments yet: log one (README, "Recording runs") and run `trainledger nightly`.']
    )
    data = [dict(zip(EXPERIMENT_COLUMNS, r, strict=True)) for r in records]
    return Document(parts, data, Sheet(EXPERIMENT_COLUMNS, records, frozenset({"provisional"})))


def runs(found: list[dict[str, Any]], verbose: bool = False) -> Document:
    """`runs`: the batch runs, newest first, one summary line each (with ``verbose``, rounding residues
    too); times in UTC."""
    from trainledger.warehouse import run_ledger

    rows = [
        (
            r["started_at"].strftime("%Y-%m-%d %H:%M:%S"),
            r["command"],
            r["outcome"],
            f"{(r['ended_at'] - r['started_at']).total_seconds():.1f}" if r["ended_at"] else "-",
            run_ledger.summary(r, verbose),
        )
        for r in found
    ]
    data = [
        {
            **r,
            **{
                k: r[k].isoformat(timespec="seconds") + "Z" if r[k] else None
                for k in ("started_at", "ended_at")
            },
        }
        for r in found
    ]
    return Document([Table(["started (UTC)", "command", "outcome", "seconds", "summary"], rows)], data)
