"""Python rows into frames and frames back into Python rows (core/frames.py): the values come back as the
warehouse's DECIMAL(38, 12) gives them to Python, places and nulls included, whichever way they are built."""

from decimal import Decimal

import polars as pl

from trainledger.core.frames import MONEY, rows_frame, tuples

SCHEMA = {"experiment_id": pl.String, "cost": MONEY, "points": pl.Decimal(38, 2), "over": pl.Boolean}


def test_rows_come_back_with_the_columns_places_and_nulls():
    rows = [
        ("exp-a", Decimal("12.5"), Decimal("3.25"), True),
        ("exp-b", Decimal("-0.000000000001"), None, False),
        ("exp-c", Decimal(0), Decimal("-7"), None),
    ]

    back = list(tuples(rows_frame(rows, SCHEMA)))

    assert [tuple(map(str, row)) for row in back] == [
        ("exp-a", "12.500000000000", "3.25", "True"),
        ("exp-b", "-1E-12", "None", "False"),
        ("exp-c", "0E-12", "-7.00", "None"),
    ]


def test_a_value_with_more_places_than_its_column_is_rounded_to_them():
    # 0.1234567890129 has 13 places; DECIMAL(38, 12) holds 12: ...0129 -> ...013
    frame = rows_frame([("exp-a", Decimal("0.1234567890129"), Decimal("1.239"), True)], SCHEMA)

    assert list(tuples(frame)) == [("exp-a", Decimal("0.123456789013"), Decimal("1.24"), True)]


def test_no_rows_make_an_empty_frame_of_the_schema():
    frame = rows_frame([], SCHEMA)

    assert frame.schema == pl.Schema(SCHEMA)
    assert list(tuples(frame)) == []


def test_many_rows_keep_their_order():
    rows = [(f"exp-{i:05d}", Decimal(i) / 100, None, i % 2 == 0) for i in range(2500)]

    back = list(tuples(rows_frame(rows, SCHEMA)))

    assert [r[0] for r in back] == [f"exp-{i:05d}" for i in range(2500)]
    assert [r[1] for r in back] == [Decimal(i) / 100 for i in range(2500)]
