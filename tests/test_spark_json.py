"""The merge of FOCUS 1.3 AllocatedTags over Tags that Spark runs (warehouse/spark_json.py) against DuckDB's
own json_merge_patch, text for text, on pairs JSON readers disagree on. No Spark needed: the function is
plain Python."""

from __future__ import annotations

import duckdb
import pytest

from trainledger.warehouse.spark_json import merge_patch

NUMBERS = [
    "1.0", "1e5", "1E2", "0.1", "1.5e300", "-2.5e-300", "5e-324", "1e15", "1e16", "1e20", "1e21", "1e22",
    "123456789012345678.5", "1e-5", "1e-6", "1e-7", "0.0001", "1.7976931348623157e308", "-0.0", "0e0",
    "0.30000000000000004", "-0", "9007199254740993", "18446744073709551616", "-9223372036854775809", "12",
]  # fmt: skip
PAIRS = [
    ('{"project":"base","phase":"train"}', '{"project":"pod-ü \\"q\\""}'),
    ('{"project":"b2","Project":"A2","phase":"eval"}', '{"project":"c"}'),
    ('{"project":"first","project":"second","phase":"train"}', '{"method":"rl"}'),
    ('{"project":"first","project":"second"}', '{"project":"third"}'),
    ('{"d":{"x":1},"d":{"y":2}}', '{"d":{"z":3}}'),
    ('{"a":{"x":1,"y":{"z":2}},"b":[1,{"c":2}]}', '{"a":{"y":{"z":null,"w":3},"q":null},"b":null}'),
    (
        '{"s":"\\u0001\\t\\b\\f\\n\\r/\\u007f\\u2028 é \\ud83d\\ude80 \\\\ \\""}',
        '{"t":true,"f":false,"n":null}',
    ),
    ("{}", '{"a":{"b":null}}'),
    ("{}", "{}"),
    ('{"a":1}', '{"a":1,"a":2}'),
    ('{"project":{"n":1},"k":2}', '{"experiment":"e-1"}'),
    ('{"a":1}', '[1,"x",{"b":null}]'),
    ("[1]", '{"a":1}'),
    ('{"a":1}', '"x"'),
    ('{"a":1}', "null"),
    ('{ "a" : [ ] , "b" : { } }', '{ "c" : "d" }'),
    *(('{"n":' + number + "}", '{"m":' + number + "}") for number in NUMBERS),
]


@pytest.mark.parametrize(("original", "patch"), PAIRS)
def test_the_merge_spark_runs_writes_what_duckdb_writes(original: str, patch: str) -> None:
    with duckdb.connect() as con:
        (expected,) = con.execute(
            "SELECT CAST(json_merge_patch(?, ?) AS VARCHAR)", [original, patch]
        ).fetchone()
    assert merge_patch(original, patch) == expected


def test_a_null_original_gives_the_patch_and_a_null_patch_null_as_in_duckdb() -> None:
    with duckdb.connect() as con:
        found = con.execute(
            'SELECT CAST(json_merge_patch(NULL, \'{"a":{"b":null,"c":1}}\') AS VARCHAR), '
            "json_merge_patch('{}', NULL)"
        ).fetchone()
    assert found == ('{"a":{"b":null,"c":1}}', None)  # the patch as it is, its null kept
    assert (merge_patch(None, '{"a":{"b":null,"c":1}}'), merge_patch("{}", None)) == found
