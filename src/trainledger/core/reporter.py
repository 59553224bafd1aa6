"""How the core tells a person what it is doing, without printing: the CLI supplies a terminal reporter."""

from __future__ import annotations

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
