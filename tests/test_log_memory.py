"""Loading the experiment log lends DuckDB's memory to Python for the while and gives it back: after a
big bill's ingest DuckDB keeps up to its limit cached, and a log of 200,000 experiments held as records
took 1.4 GiB on top of it (a 100M-line month peaked at 3 GiB)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainledger.core import config as config_module
from trainledger.core.errors import InputError
from trainledger.core.reporter import Silent
from trainledger.experiments.log import merge
from trainledger.pipeline import experiments_loader
from trainledger.warehouse.connection import open_warehouse

pytestmark = pytest.mark.slow

RECORD = {
    "experiment_id": "exp-1",
    "project": "qwen-coder",
    "method": "sft",
    "status": "succeeded",
    "started_at": "2026-11-02T10:00:00Z",
    "ended_at": "2026-11-02T12:00:00Z",
}


def limit(con: object) -> str:
    return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]  # type: ignore[attr-defined]


def project(tmp_path: Path, *records: object) -> config_module.Config:
    (tmp_path / "experiments.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    (tmp_path / "trainledger.toml").write_text(
        '[experiments]\nuri = "experiments.jsonl"\n\n[warehouse]\nmemory_limit = "300MB"\n', encoding="utf-8"
    )
    return config_module.load(tmp_path / "trainledger.toml")


def test_the_configured_memory_limit_is_back_after_the_log_is_loaded(tmp_path: Path) -> None:
    config = project(tmp_path, RECORD, {"experiment_id": "exp-1", "status": "failed"})
    with open_warehouse(config, write=True) as con:
        configured = limit(con)
        assert configured == "286.1 MiB"  # 300 MB = 300,000,000 bytes, shown in MiB
        assert experiments_loader.load(con, config, Silent()) == 1
        assert limit(con) == configured
        assert con.execute("SELECT status FROM experiments").fetchall() == [("failed",)]


def test_merging_keeps_a_first_record_as_parsed_and_never_changes_it() -> None:
    first, later = dict(RECORD), {"experiment_id": "exp-1", "status": "failed"}
    merged = merge([("log:1", first), ("log:2", later)], Silent())
    assert merged["exp-1"] == ("log:2", {**RECORD, "status": "failed"})
    assert first == RECORD  # the parsed record itself is untouched
    only = merge([("log:1", first)], Silent())
    assert only["exp-1"][1] is first  # one record: no copy


def test_a_bad_log_gives_the_memory_back_too(tmp_path: Path) -> None:
    config = project(tmp_path, RECORD, {"project": "no id"})
    with open_warehouse(config, write=True) as con:
        configured = limit(con)
        with pytest.raises(InputError, match="experiment_id"):
            experiments_loader.load(con, config, Silent())
        assert limit(con) == configured
