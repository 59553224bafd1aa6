"""Every source kind and the module that reads it: the one list the config, ``init`` and the CLI read.

A module is imported only when a source of its kind is configured, so cloud SDKs and readers stay
unloaded otherwise. A kind's module follows :mod:`trainledger.connectors.contract`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

KINDS: dict[str, str] = {
    "aws-cur2": "trainledger.connectors.aws_cur2",
    "aws-cur": "trainledger.connectors.aws_cur",
    "aws-focus": "trainledger.connectors.aws_focus",
    "aws-tags": "trainledger.connectors.aws_tags",
    "gcp-billing": "trainledger.connectors.gcp_billing",
    "gcp-catalog": "trainledger.connectors.gcp_catalog",
    "gcp-labels": "trainledger.connectors.gcp_labels",
    "focus": "trainledger.connectors.focus",
    "manual": "trainledger.connectors.manual",
}


def register(kind: str, module: str) -> None:
    """Add a kind read by ``module`` (a plugin, or a test's toy source)."""
    KINDS[kind] = module


def module(kind: str) -> ModuleType:
    """The module of a registered kind (KeyError for another)."""
    return importlib.import_module(KINDS[kind])
