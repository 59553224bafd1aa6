"""How the core tells a person what it is doing, without printing: the CLI supplies a terminal reporter."""

from __future__ import annotations

import re
from typing import Protocol


class Reporter(Protocol):
    def step(self, message: str) -> None:
        """A step has started or finished (one line, e.g. a file read)."""

    def detail(self, message: str) -> None:
        """Extra detail, shown with --verbose."""

    def warn(self, message: str) -> None:
        """Something the user should know; the run goes on."""


class Silent:
    """Collects messages for tests and library use."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, str]] = []

    def step(self, message: str) -> None:
        self.messages.append(("step", message))

    def detail(self, message: str) -> None:
        self.messages.append(("detail", message))

    def warn(self, message: str) -> None:
        self.messages.append(("warn", message))


FIRST = 5  # warnings of one kind shown before they are only counted
_WHERE = re.compile(r"^\S+?:\d+: ")  # "file:line: " in front of a message about one record
_VARIES = re.compile(r"\S*(?:\d|['\"])\S*")  # ids, numbers and quoted values that differ record to record


def kind(message: str) -> str:
    """What a warning says, without which record it says it of: its repeats share this."""
    return _VARIES.sub("…", _WHERE.sub("", message, count=1))


class Repeats:
    """Passes on the first FIRST warnings of each kind, then counts the rest, so a million-line log with
    one recurring problem prints a handful of lines and a count, not 250,000 lines into a cron mail.
    ``close`` reports the counts."""

    def __init__(self, inner: Reporter, first: int = FIRST) -> None:
        self.inner = inner
        self.first = first
        self.counts: dict[str, int] = {}

    def step(self, message: str) -> None:
        self.inner.step(message)

    def detail(self, message: str) -> None:
        self.inner.detail(message)

    def warn(self, message: str) -> None:
        key = kind(message)
        self.counts[key] = self.counts.get(key, 0) + 1
        if self.counts[key] <= self.first:
            self.inner.warn(message)

    def close(self) -> None:
        for key, count in self.counts.items():
            if count > self.first:
                self.inner.warn(
                    f"{count - self.first:,} more warning(s) like these ({count:,} in all): {key}"
                )
        self.counts.clear()
