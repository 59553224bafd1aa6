"""How far each experiment's bill is complete: the bills arrive hours to days late, so a reconciliation is
provisional until every provider the run used has billed usage up to its end (`reconcile`, `experiments`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from trainledger.warehouse.connection import Connection, run


def billing_complete_through_many(
    con: Connection, experiment_ids: list[str], billed_providers: list[tuple[Any, ...]] | None = None
) -> dict[str, datetime | None]:
    """Per experiment, the earliest, over the providers it ran on, of how far each one's bill is complete
    (None while a provider it ran on has delivered no usage). ``billed_providers``: the rows of
    ``report/reconcile_billed_providers`` when the caller has them already."""
    complete = dict(run(con, "report/billing_complete_through").fetchall())
    ids = {"ids": experiment_ids}
    if billed_providers is None:
        billed_providers = run(con, "report/reconcile_billed_providers", ids).fetchall()
    used: dict[str, set[str]] = {i: set() for i in experiment_ids}
    for exp_id, provider in [*run(con, "report/reconcile_providers", ids).fetchall(), *billed_providers]:
        used[exp_id].add(provider)
    out: dict[str, datetime | None] = {}
    for exp_id, providers in used.items():
        relevant = [complete[p] for p in sorted(providers) if p in complete] or list(complete.values())
        missing = any(p not in complete for p in providers)
        out[exp_id] = None if missing or not relevant else min(relevant)
    return out
