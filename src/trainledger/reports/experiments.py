"""The known experiments (`trainledger experiments`), and what to say about an id the warehouse lacks.

An unknown id is most often a typo or a run logged since the last `nightly`: the error names the closest
known ids, or says the log already holds the id and a `nightly` will load it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

import polars as pl

from trainledger.core.config import Config
from trainledger.core.errors import NotFound, TrainledgerError
from trainledger.core.frames import MONEY, Schema, frame
from trainledger.core.labels import canonical_value
from trainledger.core.reporter import Silent
from trainledger.experiments.log import ExperimentHeader, read_log
from trainledger.reports import compare
from trainledger.reports.completeness import billing_complete_through_many
from trainledger.warehouse.connection import Connection, arrow, run

CLOSEST = 3


@dataclass
class KnownExperiment(ExperimentHeader):
    currency: str
    estimated: Decimal | None
    realized: Decimal
    variance: Decimal | None  # realized - estimated (``compare.totals``)
    provisional: bool


KNOWN: Schema = {
    "experiment_id": pl.String,
    "project": pl.String,
    "method": pl.String,
    "status": pl.String,
    "started_at": pl.Datetime("us"),
    "ended_at": pl.Datetime("us"),
    "currency": pl.String,
    "estimated": MONEY,
    "realized": MONEY,
}


def known(con: Connection, project: str | None = None, since: date | None = None) -> list[KnownExperiment]:
    """The experiments of the log, newest first, their variance from the comparison; ``provisional`` as in
    `reconcile` (the bill does not yet reach the run's end)."""
    return [KnownExperiment(**r) for r in known_frame(con, project, since).iter_rows(named=True)]


def known_frame(con: Connection, project: str | None = None, since: date | None = None) -> pl.DataFrame:
    """``known``'s experiments as a frame, in its order and with its columns."""
    params = {"project": canonical_value(project) if project else None, "since": since}
    found = compare.totals(frame(arrow(con, "report/experiments", params), KNOWN))
    complete = billing_complete_through_many(con, found["experiment_id"].to_list())
    return found.with_columns(
        pl.Series(
            "provisional",
            [_provisional(e, complete[i]) for i, e in found.select("experiment_id", "ended_at").iter_rows()],
            pl.Boolean,
        )
    )


def _provisional(ended: datetime | None, complete: datetime | None) -> bool:
    """Whether the bill does not yet reach the run's end."""
    return ended is None or complete is None or complete < ended


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
