"""Property: whatever the experiment log holds (any bytes, any JSON value in any field), reading and loading
it either works or is one user error (exit 1), never an internal error (exit 3) or a traceback.

The reader and loader run as `nightly` runs them, into a real DuckDB warehouse schema in memory; an
exception other than a TrainledgerError with exit code 1 is what the CLI's boundary would report as an
internal error, so it fails the property.
"""

from __future__ import annotations

import gc
import json
import tempfile
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainledger.core import queries
from trainledger.core.config import Config
from trainledger.core.config_labels import ExperimentsConfig
from trainledger.core.errors import ExitCode, TrainledgerError
from trainledger.core.reporter import Silent
from trainledger.estimate.params import KNOWN
from trainledger.experiments.log import KNOWN_FIELDS
from trainledger.pipeline import experiments_loader

pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
)
times = st.sampled_from(
    ["2026-11-03T08:00:00Z", "2026-11-04T02:30:00+02:00", "2026-11-03", "9999-12-31T00:00:00Z"]
)
plausible = {
    "experiment_id": st.sampled_from(["exp-1", "EXP-1 ", "exp-2"]) | json_values,
    "method": st.sampled_from(["sft", "rl", "opd", "dpo", "grpo"]) | json_values,
    "status": st.sampled_from(["succeeded", "failed", "running"]) | json_values,
    "started_at": times | json_values,
    "ended_at": times | json_values,
    "params": st.dictionaries(st.sampled_from(sorted(KNOWN)), json_values | st.integers(0, 10**6))
    | json_values,
    "estimate": st.dictionaries(st.sampled_from(["currency", "train", "eval"]), json_values) | json_values,
    "phases": st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "phase": st.sampled_from(["train", "eval", "warmup"]) | json_values,
                "started_at": times | json_values,
                "resources": st.lists(
                    st.fixed_dictionaries(
                        {"resource_id": st.text(max_size=5) | json_values}, optional={"gpus": json_values}
                    ),
                    max_size=2,
                )
                | json_values,
            },
        ),
        max_size=2,
    )
    | json_values,
}
records = st.fixed_dictionaries(
    {"experiment_id": plausible["experiment_id"]},
    optional={name: plausible.get(name, json_values) for name in sorted(KNOWN_FIELDS - {"experiment_id"})},
)


WAREHOUSE = duckdb.connect(":memory:")
WAREHOUSE.execute(queries.load("schema/warehouse"))


def outcome(data: bytes) -> str:
    """Load ``data`` as the experiment log: "ok", or the user error's message."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "experiments.jsonl"
        log.write_bytes(data)
        config = Config(experiments=ExperimentsConfig(uri=str(log)), base_dir=Path(folder))
        try:
            experiments_loader.load(WAREHOUSE, config, Silent())
        except TrainledgerError as exc:
            assert exc.exit_code == ExitCode.USER_ERROR, exc
            assert "\n" not in str(exc), "an error is one line"
            return str(exc)
        finally:
            assert gc.isenabled(), "the loader pauses the cycle collector only while it loads"
    return "ok"


@SETTINGS
@given(st.binary(max_size=500))
def test_any_bytes_are_read_or_refused(data: bytes) -> None:
    outcome(data)


@SETTINGS
@given(st.lists(json_values, min_size=1, max_size=3))
def test_any_json_value_per_line_is_read_or_refused(values: list[Any]) -> None:
    outcome("\n".join(json.dumps(v) for v in values).encode())


@SETTINGS
@given(st.lists(records, min_size=1, max_size=3))
def test_any_field_value_is_read_or_refused(values: list[dict[str, Any]]) -> None:
    outcome("\n".join(json.dumps(v, ensure_ascii=False) for v in values).encode())


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"experiment_id": "e", "params": ' + "[" * 5000 + "]" * 5000 + "}", "nested deeper than 64 levels"),
        ('{"experiment_id": "e", "metrics": {"x": ' + "7" * 5000 + "}}", "got a number of 5000 digits"),
        ('{"experiment_id": "e", "estimate": {"train": Infinity}}', "Infinity is not a JSON number"),
        ('{"experiment_id": "e", "estimate": {"currency": "DOLLARS", "train": 5}}', "ISO 4217"),
        ('{"experiment_id": "e", "estimate": {"train": "1e30"}}', "expected an amount below 10^26"),
        ('{"experiment_id": "e", "project": ["qwen"]}', "field project: expected a string, got a list"),
        ('{"experiment_id": "e", "metrics": {"a\\nb": 1e27}}', 'field metrics["a\\nb"]: expected a finite'),
    ],
)
def test_the_examples_that_were_internal_errors_are_user_errors(line: str, message: str) -> None:
    assert message in outcome(line.encode())


@pytest.mark.parametrize(
    ("number", "shown"),
    [
        ("1" + "0" * 26, "1" + "0" * 26),  # 10^26 written out: 27 digits
        ("-123456789012345678901234567.5", "-123456789012345678901234567.5"),
        ("1E+26", "1E+26"),
        ("2.5e26", "2.5E+26"),
        ("-0.001e30", "-1E+27"),
    ],
)
def test_a_number_of_10_26_or_more_is_refused_however_it_is_written(number: str, shown: str) -> None:
    line = '{"experiment_id": "e", "resource": "i-03e4", "metrics": {"loss": [0.5, {"x": ' + number + "}]}}"
    message = outcome(line.encode())
    assert message.endswith(
        f"experiments.jsonl:1: field metrics.loss[1].x: expected a finite number below 10^26, got {shown}"
    )


def test_a_number_just_below_10_26_is_read() -> None:
    nines = "9" * 26
    line = '{"experiment_id": "e", "metrics": {"a": ' + nines + ', "b": -' + nines + ', "c": -9.99e25}}'
    assert outcome(line.encode()) == "ok"
