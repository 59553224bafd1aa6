"""The warehouse's schema version: stored in it (table ``trainledger_meta``), checked on every open.

Version 1 was the layout of unreleased 0.1 development builds (text charge ids, allocations as a table);
version 2 keys charges by number and reads allocations through a view; version 3 names providers by the
provider table (a FOCUS file's ``Microsoft`` is ``azure``, no longer ``microsoft``) and keeps a charge's
FOCUS 1.3 host provider; version 4 stores only the shares of split charges and writes a charge with one
share by reference (``allocation_refs``, ``allocation_tuples``), the view ``allocations`` reading both;
version 5 keeps those charges summed per tuple, kind and day (``allocation_cells``, the view
``allocation_days``), which reports and exports read. A
warehouse written before the version was stored is told apart once by its layout
(``schema/unversioned_layout``). A version with a migration (:data:`MIGRATIONS`) is brought up to date in
place the next time it is opened for writing, and refused by a reader until then with one line saying so;
an older layout is rebuilt from the sources, never patched; a newer one is left alone for the trainledger
that wrote it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import duckdb

from trainledger.core import queries
from trainledger.core.errors import TrainledgerError

SCHEMA_VERSION = 5

# Version -> the statements that bring it to the next one, run in one transaction after schema/warehouse
# (which adds new columns in place). 2 -> 3: the provider ids stored before the provider table, mapped
# through it, and attribution done again (a charge kind's id hashes its provider). 3 -> 4: the allocations
# already stored stay readable through the new view (every share a stored row); the next attribution runs in
# full and writes whole charges by reference. 4 -> 5: attribution's own statements sum the references into
# allocation_cells (their kinds into charge_kinds first) over every period, so reports read the same figures at
# once; and attribution done again, which writes the cells of a Spark warehouse (these statements reach the
# DuckDB file only). A statement is given those of its parameters it names: every period, every charge id.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (
        "schema/migrate_v3_charges",
        "schema/migrate_v3_charge_kinds",
        "schema/migrate_v3_charge_categories",
        "schema/migrate_v3_experiment_resources",
        "schema/migrate_v3_unpriced_usage",
        "ingest/forget_attribution",
    ),
    3: ("ingest/forget_attribution",),
    4: ("attribute/kinds", "attribute/cells", "ingest/forget_attribution"),
}

# Version -> what its migration changed, for the one line a writer prints when it brought a warehouse up.
CHANGES: dict[int, str] = {
    2: "providers named by the provider table: microsoft is azure, oracle is oci",
    3: "charges with one share become allocations by reference, not copies",
    4: "the charges placed whole summed once per tuple, kind and day, for reports and exports",
}


def stored_version(con: duckdb.DuckDBPyConnection) -> int:
    """The version the warehouse was written with; for one written before versions were stored, the
    version its layout is (a new, empty file counts as the current one)."""
    try:
        found = con.execute(queries.load("schema/version_read")).fetchall()
    except duckdb.CatalogException:  # no trainledger_meta: written before versions were stored
        found = []
    if not found:
        found = con.execute(queries.load("schema/unversioned_layout"), {"current": SCHEMA_VERSION}).fetchall()
    return int(found[0][0])


def check(con: duckdb.DuckDBPyConnection, path: Path, *, write: bool = False) -> int:
    """Refuse a warehouse this trainledger cannot read (or, for a writer, cannot bring up to date), with
    what to do about it; returns its version."""
    version = stored_version(con)
    if version < SCHEMA_VERSION and version in MIGRATIONS:
        if write:
            return version
        raise TrainledgerError(
            f"{path}: written by an older trainledger (schema {version}, this version reads "
            f"{SCHEMA_VERSION}): run `trainledger nightly` once to bring it up to date in place (nothing is "
            "read again from the sources)"
        )
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


def create(con: duckdb.DuckDBPyConnection, path: Path, notify: Callable[[str], None] | None = None) -> None:
    """For a writer: check the version, create what is missing, migrate an older version in place (saying
    so to ``notify``), and stamp the version if not yet stored. A warehouse last brought up to date by these
    very statements (their digest stored beside the version) is left as it is: running them again costs
    every command 50 ms."""
    version = check(con, path, write=True)
    layout = _layout_digest()
    if version == SCHEMA_VERSION and _stored_layout(con) == layout:
        return
    con.begin()  # one commit: statement by statement, a new warehouse took 70-190 ms instead of 20
    try:
        con.execute(queries.load("schema/warehouse"))
        for older in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[older]:
                _migrate(con, statement)
        if version < SCHEMA_VERSION or not con.execute(queries.load("schema/version_read")).fetchall():
            con.execute(queries.load("schema/version_write"), {"version": SCHEMA_VERSION})
        con.execute(queries.load("schema/layout_write"), {"digest": layout})
    except BaseException:
        con.rollback()
        raise
    con.commit()
    if version < SCHEMA_VERSION and notify is not None:
        upgraded = range(version, SCHEMA_VERSION)
        changes = "; ".join(CHANGES[v] for v in upgraded)
        again = any("ingest/forget_attribution" in MIGRATIONS[v] for v in upgraded)
        notify(
            f"{path}: brought from schema {version} to {SCHEMA_VERSION} in place ({changes})"
            + ("; the next attribution runs in full" if again else "")
        )


def _migrate(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Run a migration's statement over the whole warehouse: of ``$periods`` (every period the charges have),
    ``$low`` and ``$high`` (every charge id), it gets those its body names."""
    text = queries.load(name)
    body = "\n".join(line for line in text.splitlines() if not line.startswith("--"))
    named = set(re.findall(r"\$(\w+)", body))
    params: dict[str, object] = {}
    if "periods" in named:
        params["periods"] = [r[0] for r in con.execute(queries.load("attribute/periods")).fetchall()]
    if named & {"low", "high"}:
        params |= {"low": 0, "high": 2**63 - 1}
    con.execute(text, params)


@cache
def _layout_digest() -> str:
    return hashlib.sha256(queries.load("schema/warehouse").encode("utf-8")).hexdigest()


def _stored_layout(con: duckdb.DuckDBPyConnection) -> str | None:
    try:
        found = con.execute(queries.load("schema/layout_read")).fetchone()
    except duckdb.CatalogException:  # no trainledger_meta yet
        return None
    return None if found is None else str(found[0])
