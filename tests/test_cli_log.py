"""`trainledger log start|phase|end` from a job script: one process per event, state kept in between."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import Project


def test_log_start_phase_end_writes_one_record_object_each(run, project: Project) -> None:
    common = ("--log", "runs/", "--state", "run-state.json")
    started = run(
        "log", "start", "exp-cli-0701", "--project", "qwen-coder", "--method", "sft", "--phase", "train",
        "--resource-id", "i-0e55000000000001", "--provider", "aws", "--gpus", "8",
        "--param", "gpus=8", "--param", "gpu_type=H100", "--param", "mfu={\"train\": 0.4}",
        "--at", "2026-11-20T00:00:00Z", *common,
    )  # fmt: skip
    assert started.exit_code == 0, started.stderr
    assert started.stdout == ""
    assert "recorded the start of exp-cli-0701 at runs/" in started.stderr
    assert run("log", "phase", "exp-cli-0701", "eval", "--at", "2026-11-20T08:00:00Z", *common).exit_code == 0
    ended = run(
        "log", "end", "exp-cli-0701", "--metric", "target.before=0.41", "--metric", "target.after=0.55",
        "--at", "2026-11-20T10:00:00Z", *common,
    )  # fmt: skip
    assert ended.exit_code == 0, ended.stderr
    assert not (project.root / "run-state.json").exists()

    files = sorted((project.root / "runs").iterdir())
    assert len(files) == 3
    assert all(re.fullmatch(r"\d{8}T\d{6}\.\d{6}Z-exp-cli-0701-[0-9a-f]{8}\.json", f.name) for f in files)
    last = json.loads(files[-1].read_text(encoding="utf-8"))
    assert last == {
        "experiment_id": "exp-cli-0701",
        "project": "qwen-coder",
        "method": "sft",
        "status": "succeeded",
        "started_at": "2026-11-20T00:00:00Z",
        "ended_at": "2026-11-20T10:00:00Z",
        "params": {"gpus": 8, "gpu_type": "H100", "mfu": {"train": 0.4}},
        "metrics": {"target": {"before": 0.41, "after": 0.55}},
        "phases": [
            {
                "phase": "train",
                "started_at": "2026-11-20T00:00:00Z",
                "ended_at": "2026-11-20T08:00:00Z",
                "resources": [{"provider": "aws", "resource_id": "i-0e55000000000001", "gpus": 8}],
            },
            {
                "phase": "eval",
                "started_at": "2026-11-20T08:00:00Z",
                "ended_at": "2026-11-20T10:00:00Z",
                "resources": [{"provider": "aws", "resource_id": "i-0e55000000000001", "gpus": 8}],
            },
        ],
    }


def test_log_writes_to_the_configured_experiment_log(run, project: Project) -> None:
    project.write_config('[experiments]\nuri = "logs/experiments.jsonl"\n')
    result = run("log", "start", "exp-cli-0702", "--resource-id", "i-0aaa", "--state", "s.json")
    assert result.exit_code == 0, result.stderr
    (line,) = (project.root / "logs/experiments.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["experiment_id"] == "exp-cli-0702"


def test_a_record_that_cannot_be_written_is_a_warning_not_a_failed_job(run, project: Project) -> None:
    (project.root / "blocker").write_text("", encoding="utf-8")
    result = run(
        "log",
        "start",
        "exp-cli-0703",
        "--resource-id",
        "i-0aaa",
        "--log",
        "blocker/x.jsonl",
        "--state",
        "s.json",
    )
    assert result.exit_code == 0
    assert (
        "trainledger: warning: could not record the start of exp-cli-0703 to blocker/x.jsonl" in result.stderr
    )


def test_no_log_anywhere_is_a_one_line_user_error(run, project: Project) -> None:
    project.write_config("")
    result = run("log", "start", "exp-cli-0704", "--state", "s.json")
    assert result.exit_code == 1
    assert result.stderr == (
        "trainledger: error: no experiment log to write to: give --log, set TRAINLEDGER_LOG, "
        "or set [experiments] uri in trainledger.toml\n"
    )


def test_end_without_a_start_on_this_machine_still_records_with_a_warning(run, project: Project) -> None:
    result = run("log", "end", "exp-cli-0705", "--status", "failed", "--log", "runs/", "--state", "none.json")
    assert result.exit_code == 0
    assert "no run state for exp-cli-0705" in result.stderr
    (record,) = [json.loads(p.read_text(encoding="utf-8")) for p in Path(project.root / "runs").iterdir()]
    assert (record["experiment_id"], record["status"]) == ("exp-cli-0705", "failed")


def test_a_metric_must_say_before_or_after(run) -> None:
    result = run("log", "end", "exp-cli-0706", "--metric", "target=0.5", "--log", "runs/")
    assert result.exit_code == 1  # a usage error is a user error
    assert "expected NAME.before=V or NAME.after=V" in result.stderr


def test_global_options_follow_the_log_group_too(run, project: Project, tmp_path: Path) -> None:
    """SPEC §7: "`--verbose` (more detail on stderr), `--debug` (tracebacks on errors) — accepted before or
    after the command": `log --verbose start` as well as `log start --verbose`."""
    other = tmp_path / "other.toml"
    other.write_text('[experiments]\nuri = "elsewhere.jsonl"\n', encoding="utf-8")
    common = ("--state", "run-state.json", "--resource-id", "i-1", "--provider", "aws")
    started = run(
        "log", "--verbose", "--config", str(other), "start", "exp-g-1", "--project", "p", "--method", "sft",
        "--at", "2026-11-20T00:00:00Z", *common,
    )  # fmt: skip
    assert started.exit_code == 0, started.stderr
    # --config after `log` chose the log file: the record went to other.toml's [experiments] uri.
    record = json.loads((tmp_path / "elsewhere.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert (record["experiment_id"], record["started_at"]) == ("exp-g-1", "2026-11-20T00:00:00Z")
