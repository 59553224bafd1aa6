"""The one place where connector SQL is filled in with what DuckDB cannot bind as a parameter.

Every statement lives in ``queries/ingest/``; values are DuckDB named parameters. What a parameter cannot
be (a table or view name, a column named by a file's header, the normalising query a statement reads
from, the typed column list of a file whose schema varies) goes into the statement's ``{{slot}}``s, each
declared in its header, through :func:`render`: names are always double-quoted identifiers, and other
fragments come from the constructors below, never from input text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from trainledger.core import queries
from trainledger.warehouse.connection import on_spark

_SLOT = re.compile(r"\{\{(\w+)\}\}")


@dataclass(frozen=True)
class Fragment:
    """SQL text for one slot: a quoted name, a query file, or an expression from a fixed template."""

    text: str


def ident(name: str) -> Fragment:
    """A table, view or column name, quoted (a file's header may hold any character)."""
    return Fragment('"' + name.replace('"', '""') + '"')


def literal(text: str) -> Fragment:
    """A string constant (a map key taken from a file header)."""
    return Fragment("'" + text.replace("'", "''") + "'")


def subquery(name: str) -> Fragment:
    """Another query file as a parenthesised relation (the normalising query, streamed, not stored)."""
    return Fragment(f"(\n{queries.load(name)}\n)")


def alias(expression: Fragment, name: str) -> Fragment:
    """``expression AS "name"``."""
    return Fragment(f"{expression.text} AS {ident(name).text}")


def columns(items: Iterable[Fragment]) -> Fragment:
    """A comma-separated list (a select list); empty gives no text at all."""
    return Fragment(", ".join(item.text for item in items))


def render(name: str, /, **slots: Fragment) -> str:
    """``queries/<name>.sql`` with every ``{{slot}}`` filled; a missing or unknown slot is a bug."""
    lines = queries.load(name).splitlines()
    # Only statement lines are filled: the header comment names the slots too.
    body = [i for i, line in enumerate(lines) if not line.lstrip().startswith("--")]
    wanted = {slot for i in body for slot in _SLOT.findall(lines[i])}
    if wanted != set(slots):
        raise KeyError(f"query {name!r} has slots {sorted(wanted)}, was given {sorted(slots)}")
    for i in body:
        lines[i] = _SLOT.sub(lambda m: slots[m.group(1)].text, lines[i])
    return "\n".join(lines)


def run_filled(con: Any, name: str, params: Mapping[str, Any] | None = None, /, **slots: Fragment) -> Any:
    """Execute a query file (rendered when it has slots) with DuckDB named parameters; on another engine by
    its name too, with the slots' text, since the engine may have its own version of it."""
    if on_spark(con):
        texts = {slot: fragment.text for slot, fragment in slots.items()}
        return con.execute(render(name, **slots), dict(params or {}), name=name, slots=texts)
    return con.execute(render(name, **slots), dict(params or {}))
