"""The trainledger.toml model: strict, typed, with relative paths resolved against the config file.

Precedence: command-line flag > environment (``TRAINLEDGER_CONFIG``, ``TRAINLEDGER_WAREHOUSE``) > file >
default. Unknown sections and keys are errors naming the file and the key, so a typo never silently
falls back to a default. ``--lock-timeout`` > ``TRAINLEDGER_LOCK_TIMEOUT`` > ``[warehouse] lock_timeout_s``.
"""

from __future__ import annotations

import os
import re
import tomllib
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from trainledger.core.config_types import KeyList, Retries, Seconds, SourceConfig, Strict
from trainledger.core.errors import ConfigError
from trainledger.core.rate_card import RateConfig
from trainledger.core.vocabulary import METHODS, PHASES

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


DEFAULT_ALIASES = {
    "training": "train",
    "finetune-train": "train",
    "evaluation": "eval",
    "evals": "eval",
    "rollouts": "rollout",
    "sampling": "rollout",
    "grpo": "rl",
    "ppo": "rl",
    "rlhf": "rl",
    "rlvr": "rl",
    "distill": "opd",
    "distillation": "opd",
}


class LabelsConfig(Strict):
    """Which tag keys carry the attribution key, and the vocabularies (SPEC §3)."""

    project: KeyList = Field(default_factory=lambda: ["project"])
    phase: KeyList = Field(default_factory=lambda: ["phase"])
    method: KeyList = Field(default_factory=lambda: ["method"])
    experiment: KeyList = Field(default_factory=lambda: ["experiment", "experiment-id"])
    composite: KeyList = Field(default_factory=lambda: ["cost-label"])
    # Keys whose value is the project only when no other key names one, e.g. GKE's `k8s-namespace`.
    project_fallback: KeyList = Field(default_factory=list)
    phases: list[str] = Field(default_factory=lambda: list(PHASES))
    methods: list[str] = Field(default_factory=lambda: list(METHODS))
    aliases: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_ALIASES))


SLURM_FIELDS = ("comment", "wckey", "name", "account")


class SlurmConfig(Strict):
    """``[experiments.slurm]``: how ``sacct --json`` jobs become experiments (README "Slurm jobs")."""

    # Job fields read as labels, in priority order: `key=value` pairs (cost-label=..., project=..., phase=...)
    # or, without any `=`, a composite cost label.
    labels: KeyList = Field(default_factory=lambda: ["comment", "wckey"])
    project: Literal["comment", "wckey", "name", "account"] | None = (
        None  # its whole value: the fallback project
    )
    experiment: Literal["job", "name"] = (
        "job"  # experiment id: slurm-<job id> (an array's job id) or the job name
    )
    provider: str = "aws"  # the cloud the nodes run on
    nodes: str | None = None  # CSV node,resource_id[,provider]; without it the node name is the resource id
    command: str | None = None  # e.g. "sacct --json -a -S now-3days": its output is read after the files
    command_timeout_s: float = Field(default=300.0, gt=0)

    @field_validator("labels")
    @classmethod
    def _known_fields(cls, value: list[str]) -> list[str]:
        for name in value:
            if name not in SLURM_FIELDS:
                raise ValueError(f"labels: {name!r} is not one of {', '.join(SLURM_FIELDS)}")
        return value


class ExperimentsConfig(Strict):
    uri: str | None = None
    kind: Literal["jsonl", "mlflow", "slurm"] = "jsonl"
    tracking_uri: str | None = None
    experiment_name: str | None = None
    slurm: SlurmConfig = Field(default_factory=SlurmConfig)
    timeout_s: Seconds = 30.0  # per MLflow request
    retries: Retries = 2


class AllocationConfig(Strict):
    shared: Literal["separate", "proportional"] = "separate"


class ReservationConfig(Strict):
    """``[[reservations]]``: GPU capacity bought for a window (README "Reserved GPU capacity"). The charges
    on it (resource id ``id``, or an ARN ending in ``/<id>``) go to the runs on its instances by GPUs x time
    (a fee paid upfront), the rest to ``project`` as unused commitment."""

    id: str = Field(min_length=1)  # cr-... (a Capacity Block or On-Demand Capacity Reservation), a GCP name
    project: str = Field(min_length=1)  # who bought it: its unused part is this project's
    start: datetime
    end: datetime
    gpus: int = Field(gt=0)  # GPUs reserved: instances x GPUs per instance
    instances: KeyList = Field(min_length=1)  # what the log and the bill call the instances in it

    @field_validator("start", "end")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        """As the warehouse keeps times: naive UTC (a time without an offset is UTC)."""
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value

    @model_validator(mode="after")
    def _window(self) -> ReservationConfig:
        if self.end <= self.start:
            raise ValueError(f"end {self.end} must be after start {self.start}")
        return self


class CategoriesConfig(Strict):
    """Overrides of the cost-category mapping: service name or usage-type substring → category."""

    services: dict[str, str] = Field(default_factory=dict)
    usage_types: dict[str, str] = Field(default_factory=dict)
    service_categories: dict[str, str] = Field(default_factory=dict)  # FOCUS ServiceCategory → category


class MaxShare(Strict):
    phase: str
    share: Decimal


class BudgetConfig(Strict):
    name: str
    project: str | None = None
    method: str | None = None
    experiment: str | None = None
    period: str = "monthly"
    amount: Decimal | None = None
    currency: str = "USD"
    thresholds: list[Decimal] = Field(default_factory=lambda: [Decimal("0.8"), Decimal("1.0")])
    max_share: MaxShare | None = None

    @field_validator("amount", mode="before")
    @classmethod
    def _amount_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, float) else value

    @field_validator("amount")
    @classmethod
    def _amount_positive(cls, value: Decimal | None) -> Decimal | None:
        if value is not None and value <= 0:
            raise ValueError(f"expected an amount > 0, got {value}")
        return value

    @field_validator("period")
    @classmethod
    def _period_form(cls, value: str) -> str:
        if value != "monthly" and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", value):
            raise ValueError(f'expected YYYY-MM or "monthly", got {value!r}')
        return value

    @field_validator("thresholds", mode="before")
    @classmethod
    def _threshold_text(cls, value: Any) -> Any:
        return [str(v) if isinstance(v, float) else v for v in value] if isinstance(value, list) else value

    @field_validator("thresholds")
    @classmethod
    def _threshold_range(cls, value: list[Decimal]) -> list[Decimal]:
        for t in value:
            if not 0 < t <= 10:
                raise ValueError(f"expected fractions of the amount such as 0.8 or 1.0, got {t}")
        return value


ExportFormat = Literal["csv", "xlsx", "focus"]


class ExportsConfig(Strict):
    dir: str | None = None
    format: list[ExportFormat] = Field(default=["csv"])  # pydantic copies the default per instance

    @field_validator("format", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        """`format = "xlsx"` or a list `format = ["csv", "xlsx"]`."""
        if value == []:
            raise ValueError("expected at least one of csv, xlsx, focus")
        return [value] if isinstance(value, str) else value

    @property
    def formats(self) -> list[ExportFormat]:
        """The formats nightly writes, each once, in the order given."""
        return list(dict.fromkeys(self.format))

    # The static dashboard's folder (`trainledger site`), written by nightly after the exports.
    site: str | None = None

    @field_validator("site")
    @classmethod
    def _local_site(cls, value: str | None) -> str | None:
        if value is not None and "://" in value:
            raise ValueError(
                "expected a local folder; publish it afterwards (e.g. `aws s3 sync SITE s3://bucket/`)"
            )
        return value


class AlertsConfig(Strict):
    webhook_url: str | None = None
    timeout_s: Seconds = 5.0
    retries: Retries = 3


class ApiPriceConfig(Strict):
    """A model API's list price per million tokens, in USD (the bundled table's unit)."""

    input: Decimal = Field(ge=0)
    output: Decimal = Field(ge=0)


class EstimatorConfig(Strict):
    """Overrides of the estimator's assumptions (SPEC §6)."""

    gpu_peak_tflops: dict[str, float] = Field(default_factory=dict)
    mfu: dict[str, float] = Field(default_factory=dict)
    price_per_gpu_hour: dict[str, Decimal] = Field(default_factory=dict)
    instance_prices: dict[str, Decimal] = Field(default_factory=dict)
    instance_gpus: dict[str, int] = Field(default_factory=dict)
    decode_tokens_per_s_per_gpu: float | None = None
    api_prices: dict[str, ApiPriceConfig] = Field(default_factory=dict)

    @field_validator("mfu")
    @classmethod
    def _mfu_phases(cls, value: dict[str, float]) -> dict[str, float]:
        for kind, mfu in value.items():
            if kind not in ("train", "prefill", "decode"):
                raise ValueError(f"mfu.{kind}: expected one of train, prefill, decode")
            if not 0 < mfu <= 1:
                raise ValueError(f"mfu.{kind} = {mfu}: expected a fraction in (0, 1]")
        return value


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
