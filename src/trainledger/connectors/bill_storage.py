"""Where a bill's files live, a local folder or an S3 prefix, behind one small interface.

Discovery (periods, manifests, which files are current) needs only listings and small reads, so each
layout is written once over :class:`Storage`. Data files are then made local (S3 objects are streamed into
a cache folder) and read by DuckDB, so a local copy and the S3 original give identical charges. On Spark,
S3 objects are read in place instead, by the cluster's S3 filesystem (:class:`ObjectUri`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from trainledger.core.errors import InputError, SourceError


@dataclass(frozen=True)
class Entry:
    """One object: its key relative to the storage root ('/'-separated), size and change tag."""

    key: str
    size: int
    tag: str  # the ETag on S3, a content hash on disk: changes whenever the content does


class ObjectUri(str):
    """An object's URI as Spark reads it in place (``s3a://bucket/key``), with the two parts of a local path
    a scan uses: ``name`` (its format goes by it) and ``parent`` (for messages)."""

    @property
    def name(self) -> str:
        return self.rsplit("/", 1)[-1]

    @property
    def parent(self) -> str:
        return self.rsplit("/", 1)[0]


# A data file of a bill as a scan reads it: a local file, or on Spark an object read in place.
BillFile = Path | ObjectUri


class Storage(Protocol):
    def describe(self, key: str = "") -> str:
        """The location of ``key`` (or of the root) as the user would write it, for messages."""

    def entries(self) -> list[Entry]:
        """Every object under the root, all pages, read once per ingest."""

    def read_text(self, key: str) -> str:
        """A small object (a manifest) as text."""

    def local_paths(self, keys: Sequence[str], scope: str | None = None) -> list[Path]:
        """Local files holding these objects, in order; S3 downloads them, streaming, to the cache.

        ``scope`` is the folder of the period being read: other files cached under it are removed.
        """

    def display_names(self, keys: Sequence[str]) -> dict[str, str] | None:
        """How to name the local files of ``keys`` in charges and errors (None: their own paths)."""


def fingerprint(entries: Iterable[Entry]) -> str:
    """A version string that changes when any of these objects is added, removed or rewritten."""
    digest = hashlib.sha256()
    for entry in sorted(entries, key=lambda e: e.key):
        digest.update(f"{entry.key}\0{entry.size}\0{entry.tag}\n".encode())
    return digest.hexdigest()


def resolve(storage: Storage, reference: str) -> str | None:
    """The key under the root that a manifest's reference names, or None when no such object exists.

    Manifests name objects by their full S3 key (or ``s3://bucket/key``) as delivered; the source may be a
    local copy or a replica under another bucket or prefix, so the longest trailing part of the reference
    that is an existing key is taken.
    """
    key = reference.split("://", 1)[1].split("/", 1)[-1] if "://" in reference else reference
    parts = [p for p in key.split("/") if p]
    present = _key_set(storage)
    for start in range(len(parts)):
        candidate = "/".join(parts[start:])
        if candidate in present:
            return candidate
    return None


def read_manifest(storage: Storage, key: str, field: str, what: str) -> tuple[dict[str, Any], list[Any]]:
    """A delivery manifest (JSON) and the list under ``field`` that names its data files."""
    try:
        manifest = json.loads(storage.read_text(key))
        listed = manifest[field]
        if not isinstance(listed, list):
            raise TypeError(f"{field} is not a list")
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{storage.describe(key)}: not a {what} ({exc})") from None
    return manifest, listed


def _key_set(storage: Storage) -> set[str]:
    return {e.key for e in storage.entries()}


def safe_key(key: str) -> str:
    parts = key.split("/")
    if key.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise SourceError(f"object key {key!r} is not a plain relative path; refusing to cache it")
    return key


class ContentHashes:
    """SHA-256 of local files' content, the version of a local bill (a same-size correction copied with its
    mtime kept, ``cp -p`` or ``rsync -a``, is a change).

    A file is hashed again only when its device, inode, size, mtime or ctime moved since it was last hashed:
    the kernel sets ctime on every write and on every change of mtime, and nothing can set it back, so an
    unchanged night reads no bill. The known hashes are kept in ``path`` (JSON) between runs.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._known: dict[str, list[str]] = {}
        if path is not None and path.is_file():
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
                self._known = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                self._known = {}  # a damaged cache only costs hashing again
        self._changed = False

    def of(self, file: Path) -> str:
        stat = file.stat()
        key = f"{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ctime_ns}"
        known = self._known.get(str(file))
        if isinstance(known, list) and len(known) == 2 and known[0] == key:
            return str(known[1])
        with file.open("rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
        self._known[str(file)] = [key, digest]
        self._changed = True
        return digest

    def save(self) -> None:
        """Keep the hashes for the next run (best effort: without them, files are hashed again)."""
        if self.path is None or not self._changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text(json.dumps(self._known), encoding="utf-8")
            tmp.rename(self.path)  # atomic on POSIX
            self._changed = False
        except OSError:
            pass


class LocalStorage:
    """A folder playing the bucket prefix: the same layout as in S3, read in place."""

    def __init__(self, root: Path, hashes: ContentHashes | None = None) -> None:
        self.root = root
        self.hashes = hashes or ContentHashes()
        self._entries: list[Entry] | None = None

    def describe(self, key: str = "") -> str:
        return str(self.root / key) if key else str(self.root)

    def entries(self) -> list[Entry]:
        if self._entries is None:
            found = []
            for path in sorted(self.root.rglob("*")):
                if path.is_file():
                    key = path.relative_to(self.root).as_posix()
                    found.append(Entry(key, path.stat().st_size, self.hashes.of(path)))
            self.hashes.save()
            self._entries = found
        return self._entries

    def read_text(self, key: str) -> str:
        return (self.root / key).read_text(encoding="utf-8")

    def local_paths(self, keys: Sequence[str], scope: str | None = None) -> list[Path]:
        return [self.root / safe_key(k) for k in keys]

    def display_names(self, keys: Sequence[str]) -> dict[str, str] | None:
        return None
