"""The run ledger: every batch run says what it read and produced and how it ended; `trainledger runs`
shows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Project, allocation_state, warehouse_state
from trainledger.core import config as config_module
from trainledger.core.errors import ConfigError


def runs_json(run) -> list[dict]:
    result = run("runs", "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_every_run_is_in_the_ledger(run, project: Project) -> None:
    assert run("ingest").exit_code == 0
    assert run("attribute").exit_code == 0
    assert run("nightly").exit_code == 0
    nightly, attribute, ingest = runs_json(run)
    assert [r["command"] for r in (nightly, attribute, ingest)] == ["nightly", "attribute", "ingest"]
    assert {r["outcome"] for r in (nightly, attribute, ingest)} == {"ok"}

    source, ledger = ingest["detail"]["sources"]
    assert (ledger["source"], ledger["rows"], ledger["billed"]) == ("offcloud", 4, {"USD": "6524.52"})
    assert source["source"] == "aws-cur2" and source["period"] == "2026-11"
    assert (source["rows"], source["billed"], source["skipped"]) == (2269, {"USD": "67353.05311856"}, False)
    assert len(source["version"]) == 64  # the fingerprint of the manifest's listing (key, size, ETag)
    assert source["files"][0].endswith("BILLING_PERIOD=2026-11/ml-cur2-00001.snappy.parquet")
    assert ingest["detail"]["experiments"] == 4
    assert ingest["detail"]["args"] == {"period": None, "source": None}

    assert nightly["detail"]["sources"][0]["skipped"] is True
    assert nightly["detail"]["attribution"] == {
        "allocations": 2276,
        "periods": ["2026-11"],
        "totals": {"USD": {"billed": "73877.57311856", "effective": "73877.57311856"}},
    }
    assert nightly["detail"]["unchanged"] == ["experiments", "attribution"]  # as `attribute` left them
    assert nightly["detail"]["exports"] == [str(project.root / "exports" / "trainledger-2026-11.csv")]
    assert nightly["detail"]["alerts"] == 0
    assert nightly["started_at"].endswith("Z") and nightly["ended_at"] >= nightly["started_at"]

    table = run("runs").stdout.splitlines()
    assert table[0].split() == ["started", "(UTC)", "command", "outcome", "seconds", "summary"]
    assert (
        table[2].split("  ")[-1].strip()
        == "aws-cur2 2026-11 unchanged; offcloud 2026-11 unchanged; 2276 allocations (unchanged); 1 export(s)"
    )
    assert table[4].endswith(
        "aws-cur2 2026-11 2269 rows (67353.05311856 USD); offcloud 2026-11 4 rows (6524.52 USD)"
    )


def test_a_failed_run_is_recorded_and_changes_nothing_else(
    run, project: Project, demo_files: Path, tmp_path: Path
) -> None:
    assert run("nightly").exit_code == 0
    before = warehouse_state(project.warehouse)
    log = tmp_path / "broken.jsonl"
    log.write_text(
        '{"experiment_id": "exp-1", "started_at": "2026-11-04T00:00:00Z", "ended_at": "2026-11-03T00:00:00Z"}\n',
        encoding="utf-8",
    )
    config = project.config.read_text(encoding="utf-8")
    project.write_config(config.replace(str(demo_files / "experiments.jsonl"), str(log)))
    result = run("nightly")
    assert result.exit_code == 1
    failed = runs_json(run)[0]
    assert failed["outcome"] == "failed"
    assert f"trainledger: error: {failed['detail']['error']}" == result.stderr.splitlines()[-1]
    assert "sources" in failed["detail"] and "attribution" not in failed["detail"]
    assert warehouse_state(project.warehouse) == before
    assert run("runs").stdout.splitlines()[2].split()[2:4] == ["nightly", "failed"]


def test_a_run_whose_exports_fail_is_incomplete(run, project: Project) -> None:
    (project.root / "exports").write_text("a file where the exports folder should be", encoding="utf-8")
    result = run("nightly")
    assert result.exit_code == 1
    assert "exports/trainledger-2026-11.csv: cannot write:" in result.stderr
    incomplete = runs_json(run)[0]
    assert incomplete["outcome"] == "incomplete"
    assert incomplete["detail"]["error"].endswith("trainledger-2026-11.csv: cannot write: File exists")
    assert len(allocation_state(project.warehouse)) == 2276  # the data had committed


def test_lock_timeout_precedence_flag_then_environment_then_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "trainledger.toml"
    path.write_text("[warehouse]\nlock_timeout_s = 3.5\n", encoding="utf-8")
    assert config_module.load(path).warehouse.lock_timeout_s == 3.5
    monkeypatch.setenv("TRAINLEDGER_LOCK_TIMEOUT", "2.5")
    assert config_module.load(path).warehouse.lock_timeout_s == 2.5
    assert config_module.load(path, lock_timeout=0).warehouse.lock_timeout_s == 0
    monkeypatch.setenv("TRAINLEDGER_LOCK_TIMEOUT", "soon")
    with pytest.raises(
        ConfigError,
        match=r"^environment TRAINLEDGER_LOCK_TIMEOUT: expected seconds \(a number >= 0\), got 'soon'$",
    ):
        config_module.load(path)
