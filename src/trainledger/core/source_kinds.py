"""Every source kind and the module that reads it: the one list the config, ``init`` and the CLI read.

A kind's module (in ``connectors/``, following :mod:`trainledger.connectors.contract`) is named here, not
imported: it is loaded by name only when a source of its kind is configured, as a plugin is, so the config
in ``core/`` validates a kind's keys with its ``Options`` without importing the connectors, and cloud SDKs
and readers stay unloaded otherwise.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from trainledger.core import queries


@dataclass(frozen=True)
class Example:
    """A kind's entry in the starter config: what its ``uri`` points at (None: the kind reads an API, not
    files), what it reads, and its keys, each a ``key = value  # meaning`` line: ``options`` commented out
    (optional), ``required`` written as they are (the entry does not run without them)."""

    uri: str | None
    what: str
    options: tuple[str, ...] = ()
    required: tuple[str, ...] = ()


KINDS: dict[str, str] = {
    "aws-cur2": "trainledger.connectors.aws_cur2",
    "aws-cur": "trainledger.connectors.aws_cur",
    "aws-focus": "trainledger.connectors.aws_focus",
    "aws-tags": "trainledger.connectors.aws_tags",
    "gcp-billing": "trainledger.connectors.gcp_billing",
    "gcp-focus": "trainledger.connectors.gcp_focus",
    "gcp-catalog": "trainledger.connectors.gcp_catalog",
    "gcp-labels": "trainledger.connectors.gcp_labels",
    "focus": "trainledger.connectors.focus",
    "manual": "trainledger.connectors.manual",
    "openai-costs": "trainledger.connectors.openai_costs",
    "anthropic-costs": "trainledger.connectors.anthropic_costs",
    "focus-usage": "trainledger.connectors.focus_usage",
    "cluster": "trainledger.connectors.cluster",
}


def register(kind: str, module: str, query_dir: Path | None = None) -> None:
    """Add a kind read by ``module`` (a plugin, or a test's toy source); ``query_dir`` holds its
    ``ingest/normalize_<kind>.sql`` and ``ingest/validate_<kind>.sql`` when they are not in queries/."""
    KINDS[kind] = module
    if query_dir is not None:
        queries.add_directory(query_dir)


def unregister(kind: str) -> None:
    KINDS.pop(kind, None)


def module(kind: str) -> ModuleType:
    """The module of a registered kind (KeyError for another)."""
    return importlib.import_module(KINDS[kind])
