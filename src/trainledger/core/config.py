"""The trainledger.toml model: strict, typed, with relative paths resolved against the config file.

Precedence: command-line flag > environment (``TRAINLEDGER_CONFIG``, ``TRAINLEDGER_WAREHOUSE``) > file >
default. Unknown sections and keys are errors naming the file and the key, so a typo never silently
falls back to a default. ``--lock-timeout`` > ``TRAINLEDGER_LOCK_TIMEOUT`` > ``[warehouse] lock_timeout_s``.

This module holds ``[warehouse]``, the whole model and its loading; the other sections are beside it:
``config_labels`` (``[labels]``, ``[experiments]``), ``config_spend`` (``[allocation]``,
``[[reservations]]``, ``[categories]``, ``[[budgets]]``), ``config_outputs`` (``[exports]``, ``[alerts]``),
``config_estimator`` (``[estimator]``), ``rate_card`` (``[[rates]]``) and ``config_types`` (the strict base,
``[[sources]]``).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from trainledger.core.config_estimator import EstimatorConfig
from trainledger.core.config_labels import ExperimentsConfig, LabelsConfig
from trainledger.core.config_outputs import AlertsConfig, ExportsConfig
from trainledger.core.config_spend import AllocationConfig, BudgetConfig, CategoriesConfig, ReservationConfig
from trainledger.core.config_types import SourceConfig, Strict
from trainledger.core.errors import ConfigError
from trainledger.core.rate_card import RateConfig

DEFAULT_CONFIG = "trainledger.toml"
DEFAULT_WAREHOUSE = ".trainledger/ledger.duckdb"


_SPARK_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class WarehouseConfig(Strict):
    path: str = DEFAULT_WAREHOUSE
    lock_timeout_s: float = Field(default=30.0, ge=0)  # how long a run waits for another to finish
    # DuckDB's memory for one command; beyond it, joins and sorts spill to <warehouse>.tmp/ (owner-only).
    # Bounded by default so a nightly job on a tens-of-millions-row month leaves the machine usable: at
    # "800MB" a 10M-line month peaks under 1 GiB of RSS, and a 100M-line month completes under 2 GiB
    # (BENCHMARKS.md, issue 18, fifth round).
    memory_limit: str = Field(default="800MB", pattern=r"^\s*\d+(\.\d+)?\s*([KMGT]i?B)\s*$")
    threads: int | None = Field(default=None, ge=1)  # DuckDB's default: one per core
    # "spark": the bill's big tables (charges, allocations) on Apache Spark, the rest in the DuckDB file.
    engine: Literal["duckdb", "spark"] = "duckdb"
    master: str = (
        "local[*]"  # Spark's master: local[N], yarn, spark://host:7077, or sc://host (Spark Connect)
    )
    location: str | None = None  # folder of Spark's tables; default: "spark" next to the DuckDB file
    # Spark's catalog and database that name trainledger's tables (catalog.database.charges, ...); without
    # a database, the tables are read by path only. The database is created when missing.
    catalog: str | None = None
    database: str | None = None
    table_format: Literal["parquet"] = "parquet"
    spark_conf: dict[str, str] = Field(default_factory=dict)  # extra Spark settings (s3a, memory, partitions)
    # The scheme Spark reads a bill's S3 objects with, in place: s3a (hadoop-aws, Databricks) or s3 (EMR).
    s3_scheme: str = Field(default="s3a", pattern=r"^[a-z][a-z0-9+.-]*$")

    @field_validator("catalog", "database")
    @classmethod
    def _identifier(cls, value: str | None) -> str | None:
        if value is not None and not _SPARK_NAME.fullmatch(value):
            raise ValueError(
                f"{value!r} is not a Spark name: expected letters, digits and _, not starting with a digit"
            )
        return value

    @model_validator(mode="after")
    def _spark_only(self) -> WarehouseConfig:
        given = [key for key in ("catalog", "database") if getattr(self, key) is not None]
        if given and self.engine != "spark":
            raise ValueError(
                f'{given[0]} = {getattr(self, given[0])!r} is for engine = "spark" (DuckDB keeps every '
                'table in the file at path); set engine = "spark" or remove the key'
            )
        if self.catalog is not None and self.database is None:
            raise ValueError(
                f"catalog = {self.catalog!r} needs database too: the tables live in <catalog>.<database>"
            )
        return self


class Config(Strict):
    warehouse: WarehouseConfig = Field(default_factory=WarehouseConfig)
    sources: list[SourceConfig] = Field(default_factory=list)
    labels: LabelsConfig = Field(default_factory=LabelsConfig)
    experiments: ExperimentsConfig = Field(default_factory=ExperimentsConfig)
    allocation: AllocationConfig = Field(default_factory=AllocationConfig)
    categories: CategoriesConfig = Field(default_factory=CategoriesConfig)
    reservations: list[ReservationConfig] = Field(default_factory=list)
    rates: list[RateConfig] = Field(default_factory=list)  # prices usage reported without cost
    budgets: list[BudgetConfig] = Field(default_factory=list)
    exports: ExportsConfig = Field(default_factory=ExportsConfig)
    alerts: AlertsConfig = Field(default_factory=AlertsConfig)
    estimator: EstimatorConfig = Field(default_factory=EstimatorConfig)

    # Not read from the file: where it was, so relative paths mean "next to the config".
    base_dir: Path = Field(default_factory=Path.cwd, exclude=True)

    @field_validator("reservations")
    @classmethod
    def _one_entry_per_reservation(cls, value: list[ReservationConfig]) -> list[ReservationConfig]:
        ids = [r.id for r in value]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"reservation id {twice[0]!r} is given twice; one entry per reservation")
        return value

    @model_validator(mode="after")
    def _reservations_on_duckdb(self) -> Config:
        """Reserved capacity re-splits allocations in place (an UPDATE), which Spark's parquet tables
        cannot take: refused up front rather than failing mid-attribution."""
        if self.reservations and self.warehouse.engine == "spark":
            raise ValueError(
                '[[reservations]] is not supported with [warehouse] engine = "spark" yet: '
                'use engine = "duckdb" for a bill with reserved capacity, or remove [[reservations]]'
            )
        return self

    def resolve(self, location: str) -> str:
        """A local path relative to the config file; URIs (``s3://``, ``gs://``) pass through."""
        if "://" in location:
            return location
        path = Path(location).expanduser()
        return str(path if path.is_absolute() else self.base_dir / path)

    def warehouse_path(self) -> Path:
        return Path(self.resolve(self.warehouse.path))

    def source(self, name: str) -> SourceConfig:
        for source in self.sources:
            if source.name == name:
                return source
        known = ", ".join(s.name for s in self.sources) or "none"
        raise ConfigError(f"no source named {name!r} in the config (sources: {known})")


def _location(loc: tuple[Any, ...], data: dict[str, Any]) -> str:
    """Turn pydantic's ``('sources', 0, 'kidn')`` into ``[[sources]] #1 (name "cur").kidn``, and
    ``('exports', 'format', 1)`` into ``exports.format #2`` (an item of a list of values, not a table)."""
    parts: list[str] = []
    node: Any = data
    for item in loc:
        if isinstance(item, int):
            entry = node[item] if isinstance(node, list) and 0 <= item < len(node) else None
            if not isinstance(entry, dict):
                parts[-1] = f"{parts[-1]} #{item + 1}"
            else:
                name = entry.get("name")
                parts[-1] = f"[[{parts[-1]}]] #{item + 1}" + (f" (name {name!r})" if name else "")
        else:
            parts.append(str(item))
        try:
            node = node[item]
        except (KeyError, IndexError, TypeError):
            node = None
    return ".".join(parts)


def parse(text: str, origin: str, base_dir: Path) -> Config:
    """Parse config text; every problem becomes one ConfigError line naming ``origin`` and the key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: not valid TOML: {exc}") from None
    names = [s.get("name") for s in data.get("sources", []) if isinstance(s, dict)]
    duplicates = sorted({n for n in names if n and names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"{origin}: source name {duplicates[0]!r} is used twice; names must be unique")
    try:
        return Config.model_validate({**data, "base_dir": base_dir})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = _location(tuple(err["loc"]), data)
        context = err.get("ctx") or {}
        if "option" in context:  # a key of one source kind's options
            where = f"{where}.{context['option']}"
        if err["type"] == "extra_forbidden":
            kind = f" for kind {context['kind']} (its keys: {context['keys']})" if "kind" in context else ""
            raise ConfigError(f"{origin}: unknown key {where!r}{kind}") from None
        if err["type"] == "literal_error":
            expected = err.get("ctx", {}).get("expected", "")
            raise ConfigError(f"{origin}: {where} = {err['input']!r} is not one of {expected}") from None
        raise ConfigError(f"{origin}: {where}: {err['msg'].removeprefix('Value error, ')}") from None


def load(
    path: str | Path | None = None,
    warehouse: str | None = None,
    *,
    required: bool = False,
    lock_timeout: float | None = None,
) -> Config:
    """Load the config by precedence; a missing default file gives the defaults unless ``required``."""
    explicit = path or os.environ.get("TRAINLEDGER_CONFIG")
    config_path = Path(explicit or DEFAULT_CONFIG)
    if config_path.exists():
        try:
            text = config_path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{config_path}: cannot read config: {exc.strerror}") from None
        config = parse(text, str(config_path), config_path.resolve().parent)
    elif explicit or required:
        named = "named by --config or $TRAINLEDGER_CONFIG" if explicit else "in the current folder"
        raise ConfigError(
            f"no config file: looked for {config_path.resolve()} ({named}); "
            "run `trainledger init` to write one"
        )
    else:
        config = Config()
    override = warehouse or os.environ.get("TRAINLEDGER_WAREHOUSE")
    if override:
        config = config.model_copy(
            update={"warehouse": config.warehouse.model_copy(update={"path": str(Path(override).resolve())})}
        )
    timeout = lock_timeout if lock_timeout is not None else _env_seconds("TRAINLEDGER_LOCK_TIMEOUT")
    if timeout is not None:
        config = config.model_copy(
            update={"warehouse": config.warehouse.model_copy(update={"lock_timeout_s": timeout})}
        )
    return config


def _env_seconds(name: str) -> float | None:
    text = os.environ.get(name)
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also refuses nan
        raise ConfigError(f"environment {name}: expected seconds (a number >= 0), got {text!r}")
    return value
