"""The run's state between `trainledger log` commands: one small JSON file per experiment.

The default folder is ``$XDG_RUNTIME_DIR/trainledger`` (private to the user by design), else
``<temp folder>/trainledger-<uid>``. A temp folder is shared with every user of the machine (a training
node often is), so another user could create that folder first, or plant a symlink in it, and make the
job overwrite any file its user can write. So the folder is created 0700 and refused unless it is a real
folder owned by this user that no one else can write; files are read without following symlinks and only
when this user owns them, and written to a new file (exclusive create) renamed into place, which replaces
a planted symlink instead of writing through it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import uuid
from pathlib import Path
from typing import Any

from trainledger.runlog.warning import warn

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class UnsafeState(OSError):
    """The state folder or file could be another user's: it is not used."""


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def default_folder() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_absolute() and Path(runtime).is_dir():
        return Path(runtime) / "trainledger"
    return Path(tempfile.gettempdir()) / f"trainledger-{_uid() if _uid() is not None else 'user'}"


def state_file(experiment_id: str, explicit: str | None = None) -> Path:
    """``explicit`` (``--state``), else ``$TRAINLEDGER_RUN_STATE``, else one file per experiment in the
    default folder."""
    chosen = explicit or os.environ.get("TRAINLEDGER_RUN_STATE")
    if chosen:
        return Path(chosen)
    return default_folder() / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', experiment_id)}.json"


def private_folder(folder: Path) -> None:
    """Create ``folder`` 0700, or check that the existing one is this user's alone; UnsafeState if not."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = os.lstat(folder)
    uid = _uid()
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeState(f"run-state folder {folder} is a symlink")
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeState(f"run-state folder {folder} is not a folder")
    if uid is not None and info.st_uid != uid:
        raise UnsafeState(f"run-state folder {folder} belongs to uid {info.st_uid}, not to this user ({uid})")
    if info.st_mode & 0o022:
        raise UnsafeState(f"run-state folder {folder} is writable by others (mode {info.st_mode & 0o777:o})")


def _checked(path: Path) -> None:
    """The default folder is checked (and created); a folder the user named is theirs to choose."""
    if path.parent == default_folder():
        private_folder(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)


def save(path: Path, state: dict[str, Any]) -> None:
    """Write ``state`` to ``path`` (a new 0600 file renamed into place); a warning when it cannot."""
    try:
        _checked(path)
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(state))
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        warn(f"trainledger: cannot keep the run state at {path}: {exc.strerror or exc}")


def load(path: Path) -> dict[str, Any] | None:
    """The state at ``path``; None when there is none, or it is a symlink, or another user's file."""
    try:
        if path.parent == default_folder():
            private_folder(path.parent)
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        warn(f"trainledger: not reading the run state at {path}: {exc.strerror or exc}")
        return None
    with os.fdopen(fd, encoding="utf-8") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or (_uid() is not None and info.st_uid != _uid()):
            warn(f"trainledger: not reading the run state at {path}: not a file of this user")
            return None
        try:
            data = json.loads(handle.read())
        except (ValueError, UnicodeDecodeError):
            return None
    return data if isinstance(data, dict) else None


def remove(path: Path) -> None:
    """Remove the state file (unlink never follows a symlink)."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        warn(f"trainledger: cannot remove the run state at {path}: {exc.strerror or exc}")
