"""`trainledger log` keeps a run's state between commands in a folder only its user can write: a folder or
file planted by another user of a shared training node (a symlink, a world-writable folder) is refused,
never written through."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from trainledger.cli import cli


@pytest.fixture
def node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine whose temp folder is ``tmp_path/tmp``, no XDG runtime folder, nothing to detect."""
    shared = tmp_path / "tmp"
    shared.mkdir(mode=0o777)
    shared.chmod(0o1777)  # like /tmp: everyone may create entries
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("TRAINLEDGER_RUN_STATE", raising=False)
    monkeypatch.setenv("TRAINLEDGER_DETECT", "none")
    monkeypatch.chdir(tmp_path)
    return shared


def start(*args: str) -> Result:
    return CliRunner().invoke(
        cli, ["log", "start", "exp-7", "--project", "p", "--method", "sft", "--log", "runs/", *args]
    )


def test_the_state_folder_is_created_private(node: Path) -> None:
    result = start()
    assert result.exit_code == 0, result.stderr
    folder = node / f"trainledger-{os.getuid()}"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "exp-7.json").stat().st_mode) == 0o600
    assert json.loads((folder / "exp-7.json").read_text())["record"]["experiment_id"] == "exp-7"


def test_a_planted_symlink_folder_is_refused_not_followed(node: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (node / f"trainledger-{os.getuid()}").symlink_to(victim)
    result = start()
    assert result.exit_code == 0  # logging never fails the job
    assert list(victim.iterdir()) == []
    assert f"run-state folder {node / f'trainledger-{os.getuid()}'} is a symlink" in result.stderr
    assert len(list((tmp_path / "runs").iterdir())) == 1  # the record itself is written


def test_a_folder_others_can_write_is_refused(node: Path) -> None:
    folder = node / f"trainledger-{os.getuid()}"
    folder.mkdir()
    folder.chmod(0o777)
    result = start()
    assert f"run-state folder {folder} is writable by others (mode 777)" in result.stderr
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_of_another_user_is_refused(node: Path) -> None:
    folder = node / f"trainledger-{os.getuid()}"
    folder.mkdir(mode=0o700)
    os.chown(folder, 4242, 4242)
    result = start()
    assert f"run-state folder {folder} belongs to uid 4242, not to this user (0)" in result.stderr
    assert list(folder.iterdir()) == []


def test_a_planted_symlink_state_file_is_replaced_not_written_through(node: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "s.json").symlink_to(victim)
    result = start("--state", "s.json")
    assert result.exit_code == 0, result.stderr
    assert victim.read_text() == "precious\n"
    assert not (tmp_path / "s.json").is_symlink()
    # and a symlink planted later is not read as the run's state
    (tmp_path / "s.json").unlink()
    (tmp_path / "s.json").symlink_to(victim)
    phase = CliRunner().invoke(cli, ["log", "phase", "exp-7", "eval", "--log", "runs/", "--state", "s.json"])
    assert "not reading the run state at s.json" in phase.stderr
    assert victim.read_text() == "precious\n"


def test_the_xdg_runtime_folder_is_preferred(
    node: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert start().exit_code == 0
    assert (runtime / "trainledger" / "exp-7.json").is_file()
    assert not (node / f"trainledger-{os.getuid()}").exists()
