"""Reading the site's pages back with the standard library's HTML parser: tables by id, as cell values."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path


class Tables(HTMLParser):
    """Every table with an id: its rows of cells, each cell's ``data-value`` (the exact figure) when it has
    one, else its text; and every href and src."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.links: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._value: str | None = None
        self._in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for key in ("href", "src"):
            if found.get(key):
                self.links.append(str(found[key]))
        if tag == "table" and found.get("id"):
            self._table = str(found["id"])
            self.tables[self._table] = []
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._table and self._in_body:
            self.tables[self._table].append([])
        elif tag == "td" and self._table and self._in_body:
            self._cell, self._value = [], found.get("data-value")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self._table:
            text = "".join(self._cell).strip()
            self.tables[self._table][-1].append(self._value if self._value is not None else text)
            self._cell = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def read(path: Path) -> Tables:
    parser = Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser
