"""What a source kind's module provides; the table of kinds (``core/source_kinds.py``) names the module.

Every kind has ``Options``, the model of its own ``[[sources]]`` keys (beside ``name``, ``kind`` and
``enabled``), and ``EXAMPLE`` (:class:`Example`), its commented entry in ``trainledger init``'s starter
file. Then either:

- a bill, replaced period by period (:class:`Bill`): ``deliveries`` lists its periods and their versions
  from a listing alone, ``stage`` reads one delivery into staged rows (files scanned, validated, and the
  kind's ``queries/ingest/normalize_<kind>.sql`` ready to run), and :func:`bill_loader.load_periods` does the
  rest for every kind: skip a period whose version is unchanged, replace a changed one, record its state;
- or a pull (:class:`Pull`): an inventory, a price list, an append-only export, with no period to
  replace, which writes what it read itself (sharing :func:`bill_loader.record_state` where it keeps periods).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from trainledger.core.source_kinds import Example

if TYPE_CHECKING:
    from trainledger.connectors import IngestResult
    from trainledger.connectors.rounding import Residues
    from trainledger.core.config import Config
    from trainledger.core.config_types import SourceConfig, SourceOptions
    from trainledger.core.reporter import Reporter
    from trainledger.warehouse.connection import Connection


@dataclass(frozen=True)
class Delivery:
    """One delivery of a bill: the period it restates (None: the periods its rows name), the version that
    changes whenever its content does, and what ``stage`` needs to read it (a manifest, the files)."""

    period: str | None
    version: str
    ref: Any = None


@dataclass
class Staged:
    """A delivery's rows, ready to load.

    ``query`` names the normalising query to stream straight from the files into charges (a big month is
    never held twice); without it the rows are the temporary table ``staged_charges``. ``periods`` are
    the periods the delivery restates when its layout says so (None: those its rows name). ``loaded`` is
    called with the periods replaced, e.g. to warn about what was carried over. ``residues`` gives what
    rounding the delivery's money to 12 decimal places took away, by period (``rounding.residues``).
    """

    files: list[str]
    query: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    periods: list[str] | None = None
    loaded: Callable[[list[str]], None] | None = None
    residues: Callable[[], Residues] | None = None


class Bill(Protocol):
    Options: type[SourceOptions]
    EXAMPLE: Example

    def deliveries(
        self, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
    ) -> list[Delivery]: ...

    def stage(
        self, con: Connection, source: SourceConfig, config: Config, delivery: Delivery, reporter: Reporter
    ) -> Staged: ...


class Pull(Protocol):
    Options: type[SourceOptions]
    EXAMPLE: Example

    def pull(
        self, con: Connection, source: SourceConfig, config: Config, period: str | None, reporter: Reporter
    ) -> list[IngestResult]: ...
