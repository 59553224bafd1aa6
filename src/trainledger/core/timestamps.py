"""Times as outputs and the experiment log write them: ISO 8601 in UTC, whole seconds, trailing Z."""

from __future__ import annotations

from datetime import UTC, date, datetime


def iso_utc(moment: datetime | float | None) -> str | None:
    """``2026-11-03T08:00:00Z`` from a datetime (a naive one is taken as UTC, as DuckDB's TIMESTAMP is) or
    from epoch seconds; None stays None."""
    if moment is None:
        return None
    if not isinstance(moment, datetime):
        moment = datetime.fromtimestamp(moment, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def naive_utc(value: object) -> object:
    """A config time as the warehouse keeps it, before pydantic types it: a TOML date is midnight UTC, a
    time with an offset is converted to UTC and made naive; anything else passes through to be checked."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, datetime) and value.tzinfo:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value
