"""The site's page frame and its semantic tables: escaped text, money to the cent with the exact value
kept in ``data-value`` (what ``report --format json`` prints), relative links so the folder works from disk
or any static host."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from trainledger.core.money import CENT, fmt
from trainledger.outputs.escape import esc

NAV = [
    ("index.html", "Overview"),
    ("projects.html", "Projects"),
    ("experiments.html", "Experiments"),
    ("methods.html", "Methods"),
    ("waste.html", "Waste"),
    ("labels.html", "Labels"),
    ("api-spend.html", "API spend"),
]


def slug(name: str) -> str:
    """A file name for any project or experiment name; names that needed changing get a short hash, so
    two names never share a page."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:80] or "_"
    if safe != name:
        safe += "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return safe


def money(value: Decimal | None) -> str:
    return "-" if value is None else f"{value.quantize(CENT):,f}"


def when(value: datetime | None) -> str:
    return "-" if value is None else value.strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True)
class Col:
    """A column: its header, its kind (text, money, number, percent, link) and its help (title)."""

    label: str
    kind: str = "text"
    key: str = ""


def _money_cell(value: Any) -> str:
    exact = fmt(value) if isinstance(value, Decimal) else ""
    return f'<td class="num" data-value="{exact}">{money(value)}</td>'


def _percent_cell(value: Any) -> str:
    sort = "" if value is None else f"{value:f}"
    shown = "-" if value is None else f"{value * 100:.1f}%"
    return f'<td class="num" data-value="{sort}">{shown}</td>'


def _number_cell(value: Any) -> str:
    shown = "-" if value is None else f"{value:+.2f}" if isinstance(value, Decimal) else str(value)
    sort = "" if value is None else str(value)
    return f'<td class="num" data-value="{esc(sort)}">{esc(shown)}</td>'


def _link_cell(value: Any) -> str:
    text, href = value
    return f'<td data-value="{esc(text)}"><a href="{esc(href)}">{esc(text)}</a></td>'


def _text_cell(value: Any) -> str:
    if value is None:
        return '<td data-value="">(none)</td>'
    text = esc(str(value))
    return f'<td data-value="{text}">{text}</td>'


# A cell by its column's kind (tables of tens of thousands of rows: the kind is looked up once per column).
CELLS = {
    "money": _money_cell,
    "percent": _percent_cell,
    "number": _number_cell,
    "link": _link_cell,
    "text": _text_cell,
}


def _row(cells: list[Any], values: Sequence[Any]) -> str:
    return "".join([cell(v) for cell, v in zip(cells, values, strict=True)])


class Rendered(list[str]):
    """A table's rows as their ``<tr>`` HTML, for rows shown on more than one page (render them once)."""


def rendered(cols: Sequence[Col], rows: Sequence[Sequence[Any]]) -> Rendered:
    cells = [CELLS[c.kind] for c in cols]
    return Rendered(f"<tr>{_row(cells, r)}</tr>" for r in rows)


def table(
    caption: str,
    cols: Sequence[Col],
    rows: Sequence[Sequence[Any]] | Rendered,
    *,
    ident: str = "",
    sortable: bool = False,
    total: Sequence[Any] | None = None,
) -> str:
    """A captioned table; ``rows`` as values or already rendered; ``total`` is a last row set apart
    (tfoot)."""
    attrs = f' id="{ident}"' if ident else ""
    attrs += ' class="sortable"' if sortable else ""
    head = "".join(
        f'<th scope="col" class="{"num" if c.kind in ("money", "percent", "number") else ""}">'
        + (f'<button type="button">{esc(c.label)}</button>' if sortable else esc(c.label))
        + "</th>"
        for c in cols
    )
    body = "".join(rows if isinstance(rows, Rendered) else rendered(cols, rows))
    foot = ""
    if total is not None:
        foot = f'<tfoot><tr class="total">{_row([CELLS[c.kind] for c in cols], total)}</tr></tfoot>'

    if not rows:
        body = f'<tr><td colspan="{len(cols)}" class="empty">none</td></tr>'
    return (
        f'<div class="scroll"><table{attrs}><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody>{foot}</table></div>"
    )


def cli(command: str) -> str:
    """The CLI command that prints the same numbers, shown under a table."""
    return f'<p class="cli">Same numbers: <code>{esc(command)}</code></p>'


def page(title: str, active: str, body: str, generated: str, depth: int = 0) -> str:
    up = "../" * depth
    current = ' aria-current="page"'
    nav = "".join(
        f'<li><a href="{up}{href}"{current if href == active else ""}>{esc(label)}</a></li>'
        for href, label in NAV
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} · trainledger</title>"
        f'<link rel="stylesheet" href="{up}assets/site.css">'
        f'<script defer src="{up}assets/plotly.min.js"></script>'
        f'<script defer src="{up}assets/site.js"></script></head>\n<body>\n'
        f'<header><a class="brand" href="{up}index.html">trainledger</a>'
        f'<nav aria-label="pages"><ul>{nav}</ul></nav></header>\n'
        f"<main>\n<h1>{esc(title)}</h1>\n{body}\n</main>\n"
        f"<footer><p>Written by trainledger at {esc(generated)} from the warehouse; money is EffectiveCost "
        "(amortised, net of credits) unless a column says otherwise, never converted between currencies.</p>"
        "</footer>\n</body></html>\n"
    )
