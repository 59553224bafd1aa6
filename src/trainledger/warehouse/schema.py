"""The warehouse's schema version: stored in it (table ``trainledger_meta``), checked on every open.

Version 1 was the layout of unreleased 0.1 development builds (text charge ids, allocations as a table);
version 2 keys charges by number and reads allocations through a view. A warehouse written before the
version was stored is told apart once by its layout (``schema/unversioned_layout``) and, when it already
has version 2's layout, stamped in place on its next write. An older layout is rebuilt from the sources,
never patched; a newer one is left alone for the trainledger that wrote it.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from trainledger.core import queries
from trainledger.core.errors import TrainledgerError

SCHEMA_VERSION = 2


def stored_version(con: duckdb.DuckDBPyConnection) -> int:
    """The version the warehouse was written with; for one written before versions were stored, the
    version its layout is (a new, empty file counts as the current one)."""
    try:
        found = con.execute(queries.load("schema/version_read")).fetchall()
    except duckdb.CatalogException:  # no trainledger_meta: written before versions were stored
        found = []
    if not found:
        found = con.execute(queries.load("schema/unversioned_layout")).fetchall()
    return int(found[0][0])


def check(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Refuse a warehouse this trainledger cannot read, with what to do about it; returns its version."""
    version = stored_version(con)
    if version < SCHEMA_VERSION:
        raise TrainledgerError(
            f"{path}: written by an older trainledger (schema {version}, this version reads "
            f"{SCHEMA_VERSION}): move it aside and run `trainledger nightly` to rebuild it from the sources"
        )
    if version > SCHEMA_VERSION:
        raise TrainledgerError(
            f"{path}: written by a newer trainledger (schema {version}, this version reads "
            f"{SCHEMA_VERSION}): upgrade trainledger to read it"
        )
    return version


def create(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """For a writer: check the version, create what is missing, and stamp the version if not yet stored."""
    check(con, path)
    con.execute(queries.load("schema/warehouse"))
    if not con.execute(queries.load("schema/version_read")).fetchall():
        con.execute(queries.load("schema/version_write"), {"version": SCHEMA_VERSION})
