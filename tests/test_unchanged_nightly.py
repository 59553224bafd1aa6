"""A night without new inputs skips its work; any change of input (the log, a config key, a new billing
period, an export file touched) makes the affected steps run again, with the same results a full run gives.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from conftest import ROOT, Project, allocation_state, warehouse_state

EXPORT = "exports/trainledger-2026-11.csv"


def last_run(project: Project) -> dict[str, object]:
    import duckdb

    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        (detail,) = con.execute("SELECT detail FROM runs ORDER BY started_at DESC LIMIT 1").fetchone() or (
            "{}",
        )
    finally:
        con.close()
    return json.loads(detail)


def allocations(project: Project) -> list[tuple[object, ...]]:
    return allocation_state(project.warehouse)


@pytest.fixture
def own_inputs(project: Project, demo_files: Path) -> Project:
    """The project with its own copies of the experiment log and the off-cloud ledger, to change them."""
    shutil.copy(demo_files / "experiments.jsonl", project.root / "experiments.jsonl")
    shutil.copy(ROOT / "fixtures" / "offcloud-ledger.csv", project.root / "offcloud-ledger.csv")
    text = project.config.read_text(encoding="utf-8")
    text = text.replace(str(demo_files / "experiments.jsonl"), "experiments.jsonl")
    project.write_config(text.replace(str(ROOT / "fixtures" / "offcloud-ledger.csv"), "offcloud-ledger.csv"))
    return project


def test_an_unchanged_night_skips_everything_but_says_the_same(
    run: Callable[..., Result], project: Project
) -> None:
    first = run("nightly")
    assert first.exit_code == 0, first.stderr
    export = project.root / EXPORT
    written = export.stat().st_mtime_ns
    before = warehouse_state(project.warehouse)

    again = run("nightly")

    assert again.exit_code == 0
    reported = [line for line in first.stdout.splitlines() if not line.startswith("ingested")]
    assert again.stdout.splitlines() == [
        "ingested\taws-cur2\t2026-11\tunchanged",
        "ingested\toffcloud\t2026-11\tunchanged",
        *reported,  # the same allocations, totals and export paths as the full run
    ]
    assert last_run(project)["unchanged"] == ["experiments", "attribution", "exports"]
    assert export.stat().st_mtime_ns == written  # not even rewritten
    assert warehouse_state(project.warehouse) == before  # only the run ledger has a new row
    summary = run("runs", "--limit", "1").stdout.splitlines()[-1]
    assert summary.endswith("2276 allocations (unchanged); 1 export(s) (unchanged)")


def append_run(log: Path) -> None:
    """A job records a new experiment on an untagged instance that had only idle or unattributed time."""
    record = {
        "experiment_id": "exp-sft-0430",
        "project": "qwen-coder",
        "method": "sft",
        "status": "succeeded",
        "started_at": "2026-11-05T00:00:00Z",
        "ended_at": "2026-11-06T00:00:00Z",
        "phases": [{"phase": "eval", "resources": [{"resource_id": "i-0d44000000000001", "gpus": 1}]}],
    }
    log.write_text(log.read_text(encoding="utf-8") + json.dumps(record) + "\n", encoding="utf-8")


def add_december(project: Project) -> None:
    ledger = project.root / "offcloud-ledger.csv"
    line = "2026-12-01,,,99.00,USD,qwen-coder,eval,sft,,ops,Internal reviewers,Late review,TKT-9000\n"
    ledger.write_text(ledger.read_text(encoding="utf-8") + line, encoding="utf-8")


def share_shared_cost(project: Project) -> None:
    project.write_config(
        project.config.read_text(encoding="utf-8") + '\n[allocation]\nshared = "proportional"\n'
    )


@pytest.mark.parametrize(
    ("change", "reloaded"),
    [
        pytest.param(lambda p: append_run(p.root / "experiments.jsonl"), True, id="a new run in the log"),
        pytest.param(share_shared_cost, False, id="a config key ([allocation] shared)"),
        pytest.param(add_december, False, id="a new billing period"),
    ],
)
def test_any_change_of_input_attributes_again_as_a_full_run_would(
    run: Callable[..., Result],
    own_inputs: Project,
    tmp_path_factory: pytest.TempPathFactory,
    change: Callable[[Project], None],
    reloaded: bool,
) -> None:
    assert run("nightly").exit_code == 0
    before = allocations(own_inputs)

    change(own_inputs)
    assert run("nightly").exit_code == 0

    unchanged = last_run(own_inputs).get("unchanged", [])
    assert "attribution" not in unchanged and "exports" not in unchanged
    assert ("experiments" in unchanged) is not reloaded
    assert allocations(own_inputs) != before
    # The same inputs in a fresh warehouse give the same allocations.
    fresh = tmp_path_factory.mktemp("fresh")
    for name in ("experiments.jsonl", "offcloud-ledger.csv", "trainledger.toml"):
        shutil.copy(own_inputs.root / name, fresh / name)
    assert run("--config", str(fresh / "trainledger.toml"), "nightly").exit_code == 0
    assert allocation_state(fresh / ".trainledger" / "ledger.duckdb") == allocations(own_inputs)


def test_an_export_changed_on_disk_is_written_again(run: Callable[..., Result], project: Project) -> None:
    assert run("nightly").exit_code == 0
    export = project.root / EXPORT
    good = export.read_bytes()
    export.write_bytes(good.replace(b"qwen-coder", b"someone-else"))

    assert run("nightly").exit_code == 0

    assert export.read_bytes() == good
    assert last_run(project)["unchanged"] == ["experiments", "attribution"]
    export.unlink()
    assert run("nightly").exit_code == 0
    assert export.read_bytes() == good


def test_attribute_for_one_period_leaves_the_next_night_to_check(
    run: Callable[..., Result], own_inputs: Project
) -> None:
    assert run("nightly").exit_code == 0
    append_run(own_inputs.root / "experiments.jsonl")
    assert run("attribute", "--period", "2026-11").exit_code == 0
    partial = allocations(own_inputs)

    assert run("nightly").exit_code == 0

    assert "attribution" not in last_run(own_inputs).get("unchanged", [])
    assert allocations(own_inputs) == partial  # the one period there is was already up to date


def test_the_fingerprint_covers_every_query_attribution_runs(
    run: Callable[..., Result], project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule changed in any query attribution runs must make the next night attribute again."""
    from trainledger.attribution import allocations as attribution
    from trainledger.core import queries
    from trainledger.warehouse import step_state

    loaded: list[str] = []
    load, attribute = queries.load, attribution.attribute

    def recording(*args: object, **kwargs: object) -> object:
        monkeypatch.setattr(queries, "load", lambda name: loaded.append(name) or load(name))
        try:
            return attribute(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            monkeypatch.setattr(queries, "load", load)

    monkeypatch.setattr(attribution, "attribute", recording)
    project.write_config(
        project.config.read_text(encoding="utf-8") + '\n[allocation]\nshared = "proportional"\n'
    )
    assert run("nightly").exit_code == 0
    ran = set(loaded)
    assert {"attribute/periods", "attribute/spread", "attribute/clear_spread", "checks/invariant"} <= ran
    assert ran <= {n for n in queries.names() if n.startswith(step_state.ATTRIBUTION_SQL)}
