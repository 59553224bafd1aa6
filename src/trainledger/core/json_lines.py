"""Reading JSON Lines that anyone may have written: every hostile line is one InputError naming file, line
and column or field, never an internal error.

Lines end at ``\\n`` only: U+2028, U+2029 and U+0085 are valid inside a JSON string, and ``str.splitlines``
would cut a record there. Numbers stay exact (``Decimal``) and must fit the warehouse's DECIMAL(38, 12);
``NaN``/``Infinity`` are not JSON; nesting is bounded, well below Python's recursion limit, so no later
step (hashing, ``json.dumps``) can overflow the stack either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from trainledger.core.errors import InputError

_PLAIN = re.compile(r"[A-Za-z0-9_.-]+")
MAX_DEPTH = 64
MAX_DIGITS = 30  # longer numbers are shown by their length, not printed whole
LIMIT = Decimal(10) ** 26  # DECIMAL(38, 12) holds 26 digits before the point


class _Constant(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``: JavaScript, not JSON."""


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of each non-blank line, split at ``\\n`` only."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line


def objects(text: str, origin: str, expected: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, record) of every line of ``text``, each a JSON object whose numbers fit the
    warehouse; ``origin`` names the file or object in the message of the first bad line."""
    found = []
    for number, line in lines(text):
        where = f"{origin}:{number}"
        record, big = _decode(line, where, expected)
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object per line")
        if big:  # then find and name it
            check_numbers(record, where)
        found.append((number, record))
    return found


def _refuse_constant(name: str) -> Any:
    raise _Constant(f"{name} is not a JSON number")


def _too_deep(line: str) -> int | None:
    """The column where ``line`` nests deeper than MAX_DEPTH, or None; strings are skipped."""
    if line.count("[") + line.count("{") <= MAX_DEPTH:
        return None
    depth, in_string, escaped = 0, False, False
    for column, char in enumerate(line, start=1):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return column
        elif char in "]}":
            depth -= 1
    return None


def parse(line: str, where: str, expected: str = "an experiment record") -> Any:
    """One JSON value, numbers as Decimal (integers as int); ``where`` is "file:line"."""
    return _decode(line, where, expected)[0]


def _decode(line: str, where: str, expected: str) -> tuple[Any, bool]:
    """The value, and whether a number of 10^26 or more is in it: seen as the parser reads each number,
    so the values of a large log's lines (nearly all fine) need no second walk."""
    big = False

    def as_int(text: str) -> int | Decimal:
        nonlocal big
        big = big or len(text.lstrip("-")) > 26  # JSON writes no leading zeros: 27 digits is >= 10^26
        return int(text) if len(text) <= MAX_DIGITS else Decimal(text)

    def as_decimal(text: str) -> Decimal:
        nonlocal big
        value = Decimal(text)
        big = big or abs(value) >= LIMIT
        return value

    column = _too_deep(line)
    if column is not None:
        raise InputError(
            f"{where}: column {column}: JSON nested deeper than {MAX_DEPTH} levels; expected {expected}"
        )
    try:
        value = json.loads(line, parse_float=as_decimal, parse_int=as_int, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except _Constant as exc:
        raise InputError(f"{where}: not valid JSON ({exc})") from None
    return value, big


def shown(number: Decimal | int) -> str:
    digits = len(Decimal(number).as_tuple().digits)
    return f"a number of {digits} digits" if digits > MAX_DIGITS else str(number)


def field_path(at: str, key: str) -> str:
    """``params.gpus``; a key that is not a plain name is quoted (``tags["a\\nb"]``): a message is one line."""
    if _PLAIN.fullmatch(key):
        return f"{at}.{key}" if at else key
    return f"{at}[{json.dumps(key)}]"


def _has_big_number(value: Any) -> bool:
    """Whether a number of 10^26 or more is anywhere inside ``value``; no paths built (a large log's
    records are mostly fine, and naming every field cost more than reading them)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int | Decimal) and not isinstance(item, bool) and abs(Decimal(item)) >= LIMIT:
            return True
    return False


def check_numbers(value: Any, where: str, path: str = "") -> None:
    """Every number inside ``value`` is below 10^26 in size, so it fits DECIMAL(38, 12) and a float."""
    if not _has_big_number(value):
        return
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        at, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((field_path(at, key), v) for key, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{at}[{i}]", v) for i, v in reversed(list(enumerate(item))))
        elif isinstance(item, int | Decimal) and not isinstance(item, bool) and abs(Decimal(item)) >= LIMIT:
            raise InputError(f"{where}: field {at}: expected a finite number below 10^26, got {shown(item)}")
