"""DuckDB's ``json_merge_patch`` on Spark, for FOCUS 1.3 ``AllocatedTags`` merged over ``Tags``
(``ingest/normalize_focus.sql``).

Spark has no merge patch, and its JSON functions read an object as a map or a struct of one type: a nested
object becomes its text, a number a string, and a key written twice stops the query (``DUPLICATED_MAP_KEY``).
So on Spark the merge is this Python function, run by the executors as a UDF, doing what DuckDB's does (its
JSON library yyjson's ``yyjson_merge_patch``, RFC 7396): the original's pairs whose key the patch lacks, in
their order and duplicates kept, then each of the patch's non-null pairs merged with the original's first
value of that key; a patch that is not an object replaces the original. It writes JSON as yyjson does:
compact, text unescaped beyond what JSON requires, a number with a fraction or exponent by its shortest
round-trip digits (fixed between 1e-7 and 1e21, ``.0`` when whole; ``1e21``, ``1e-7`` beyond), integers as
written. Standard library only, shipped to the executors by value.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its pairs, in order, a key written twice kept twice."""


def _first(pairs: _Pairs, key: str) -> Any:
    return next((v for k, v in pairs if k == key), None)


def _merge(original: Any, patch: Any) -> Any:
    if not isinstance(patch, _Pairs):
        return patch
    base = original if isinstance(original, _Pairs) else _Pairs()
    patched = {k for k, _ in patch}
    merged = _Pairs((k, v) for k, v in base if k not in patched)
    merged += [(k, _merge(_first(base, k), v)) for k, v in patch if v is not None]
    return merged


def _float(value: float) -> str:
    """A double as yyjson writes it (see the module)."""
    if value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    point = len(text) + exponent  # the decimal point's place after the first digit of text
    if -6 < point <= 21:
        if point <= 0:
            fixed = "0." + "0" * -point + text
        elif point >= len(text):
            fixed = text + "0" * (point - len(text)) + ".0"
        else:
            fixed = text[:point] + "." + text[point:]
    else:
        fixed = text[0] + ("." + text[1:] if len(text) > 1 else "") + f"e{point - 1}"
    return ("-" if sign else "") + fixed


def _write(value: Any) -> str:
    if isinstance(value, _Pairs):
        return "{" + ",".join(f"{_write(k)}:{_write(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_write(v) for v in value) + "]"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def merge_patch(original: str | None, patch: str | None) -> str | None:
    """``json_merge_patch(original, patch)`` as DuckDB gives it, as text (with a NULL original, the patch as
    it is; with a NULL patch, NULL)."""
    if patch is None:
        return None
    given = json.loads(patch, object_pairs_hook=_Pairs)
    return _write(
        given if original is None else _merge(json.loads(original, object_pairs_hook=_Pairs), given)
    )


def register(spark: SparkSession) -> None:
    """The UDF ``trainledger_json_merge_patch`` in the session."""
    from trainledger.warehouse.spark_money import register_by_value

    register_by_value(spark, __name__, {"trainledger_json_merge_patch": (merge_patch, "string")})
