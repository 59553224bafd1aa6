"""The known experiments (`trainledger experiments`), and what to say about an id the warehouse lacks.

An unknown id is most often a typo or a run logged since the last `nightly`: the error names the closest
known ids, or says the log already holds the id and a `nightly` will load it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from trainledger.core.config import Config
from trainledger.core.errors import NotFound, TrainledgerError
from trainledger.core.labels import canonical_value
from trainledger.core.reporter import Silent
from trainledger.experiments.log import ExperimentHeader, read_log
from trainledger.reports.reconcile import billing_complete_through_many
from trainledger.warehouse.connection import Connection, rows, run

CLOSEST = 3


@dataclass
class KnownExperiment(ExperimentHeader):
    currency: str
    estimated: Decimal | None
    realized: Decimal
    provisional: bool

    @property
    def variance(self) -> Decimal | None:
        return None if self.estimated is None else self.realized - self.estimated


def known(con: Connection, project: str | None = None, since: date | None = None) -> list[KnownExperiment]:
    """The experiments of the log, newest first; ``provisional`` as in `reconcile` (the bill does not yet
    reach the run's end)."""
    found = rows(
        con,
        "report/experiments",
        {"project": canonical_value(project) if project else None, "since": since},
    )
    complete = billing_complete_through_many(con, [r["experiment_id"] for r in found])
    return [_known(r, complete[r["experiment_id"]]) for r in found]


def _known(r: dict[str, Any], complete: datetime | None) -> KnownExperiment:
    ended = r["ended_at"]
    provisional = ended is None or complete is None or complete < ended
    return KnownExperiment(**{**r, "realized": Decimal(r["realized"])}, provisional=provisional)


def require(con: Connection, config: Config, experiment_id: str, *, logged: bool = False) -> None:
    """Raise ``NotFound`` unless the warehouse knows ``experiment_id`` (from the log when ``logged``,
    else from the log or any allocation's tags)."""
    key = canonical_value(experiment_id)
    ids = dict(run(con, "report/experiment_ids").fetchall())
    if key in ids and (ids[key] or not logged):
        return
    where = _in_log(config, key)
    if where:
        raise NotFound(
            f"experiment {experiment_id!r} is in the experiment log ({where}) but not in the warehouse yet: "
            "run `trainledger nightly` to load it"
        )
    candidates = [i for i, is_logged in ids.items() if is_logged or not logged]
    close = difflib.get_close_matches(key, candidates, n=CLOSEST, cutoff=0)
    known_text = "the experiment log" if logged else "the experiment log nor in any allocation"
    hint = f"; closest known: {', '.join(close)}" if close else "; none are known yet"
    raise NotFound(f"experiment {experiment_id!r} is not in {known_text}{hint}")


def _in_log(config: Config, key: str) -> str | None:
    """Where the log names ``key`` (file:line), read afresh; None when it does not or cannot be read."""
    try:
        log = read_log(config, Silent())
        records = log.records() if log else []
    except TrainledgerError:
        return None
    for where, record in records:
        if canonical_value(record.get("experiment_id", "")) == key:
            return where
    return None
