"""The trainledger.toml model: strict, typed, with relative paths resolved against the config file.

Precedence: command-line flag > environment (``TRAINLEDGER_CONFIG``, ``TRAINLEDGER_WAREHOUSE``) > file >
default. Unknown sections and keys are errors naming the file and the key, so a typo never silently
falls back to a default. ``--lock-timeout`` > ``TRAINLEDGER_LOCK_TIMEOUT`` > ``[warehouse] lock_timeout_s``.
"""

from __future__ import annotations

import os
import re
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from trainledger.core.errors import ConfigError

DEFAULT_CONFIG = "trainledger.toml"
DEFAULT_WAREHOUSE = ".trainledger/ledger.duckdb"

SOURCE_KINDS = (
    "aws-cur2",
    "aws-cur",
    "aws-focus",
    "aws-tags",
    "gcp-billing",
    "gcp-catalog",
    "gcp-labels",
    "focus",
    "manual",
)


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


KeyList = Annotated[list[str], BeforeValidator(_as_list)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WarehouseConfig(Strict):
    path: str = DEFAULT_WAREHOUSE
    lock_timeout_s: float = Field(default=30.0, ge=0)  # how long a run waits for another to finish
    # DuckDB's memory for one command; beyond it, joins and sorts spill to <warehouse>.tmp/ (owner-only).
    # Bounded by default so a nightly job on a tens-of-millions-row month leaves the machine usable.
    memory_limit: str = Field(default="1GB", pattern=r"^\s*\d+(\.\d+)?\s*([KMGT]i?B)\s*$")
    threads: int | None = Field(default=None, ge=1)  # DuckDB's default: one per core
    # "spark": the bill's big tables (charges, allocations) on Apache Spark, the rest in the DuckDB file.
    engine: Literal["duckdb", "spark"] = "duckdb"
    master: str = (
        "local[*]"  # Spark's master: local[N], yarn, spark://host:7077, or sc://host (Spark Connect)
    )
    location: str | None = None  # folder of Spark's tables; default: "spark" next to the DuckDB file
    table_format: Literal["parquet"] = "parquet"
    spark_conf: dict[str, str] = Field(default_factory=dict)  # extra Spark settings (s3a, memory, partitions)


class SourceConfig(Strict):
    """One ``[[sources]]`` entry; which optional keys apply depends on ``kind``."""

    name: str
    kind: Literal[
        "aws-cur2",
        "aws-cur",
        "aws-focus",
        "aws-tags",
        "gcp-billing",
        "gcp-catalog",
        "gcp-labels",
        "focus",
        "manual",
    ]
    uri: str | None = None
    profile: str | None = None
    role_arn: str | None = None
    region: str | None = None
    regions: list[str] = Field(default_factory=list)
    endpoint_url: str | None = None
    table: str | None = None
    project: str | None = None
    api_endpoint: str | None = None
    cache_dir: str | None = None
    overlap_days: int = 3
    enabled: bool = True


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


# The phases of a post-training run in pipeline order: the default vocabulary, and the order in which
# reconciliations and estimates list them (a configured phase outside it comes after).
PHASES = ("data", "train", "rollout", "eval")
PHASE_ORDER = {phase: index for index, phase in enumerate(PHASES)}


class LabelsConfig(Strict):
    """Which tag keys carry the attribution key, and the vocabularies (SPEC §3)."""

    project: KeyList = Field(default_factory=lambda: ["project"])
    phase: KeyList = Field(default_factory=lambda: ["phase"])
    method: KeyList = Field(default_factory=lambda: ["method"])
    experiment: KeyList = Field(default_factory=lambda: ["experiment", "experiment-id"])
    composite: KeyList = Field(default_factory=lambda: ["cost-label"])
    phases: list[str] = Field(default_factory=lambda: list(PHASES))
    methods: list[str] = Field(default_factory=lambda: ["sft", "rl", "opd"])
    aliases: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_ALIASES))


class ExperimentsConfig(Strict):
    uri: str | None = None
    kind: Literal["jsonl", "mlflow"] = "jsonl"
    tracking_uri: str | None = None
    experiment_name: str | None = None


class AllocationConfig(Strict):
    shared: Literal["separate", "proportional"] = "separate"


class CategoriesConfig(Strict):
    """Overrides of the cost-category mapping: service name or usage-type substring → category."""

    services: dict[str, str] = Field(default_factory=dict)
    usage_types: dict[str, str] = Field(default_factory=dict)


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


class ExportsConfig(Strict):
    dir: str | None = None
    format: Literal["csv", "focus"] = "csv"


class AlertsConfig(Strict):
    webhook_url: str | None = None
    timeout_s: float = 5.0
    retries: int = 3


class EstimatorConfig(Strict):
    """Overrides of the estimator's assumptions (SPEC §6)."""

    gpu_peak_tflops: dict[str, float] = Field(default_factory=dict)
    mfu: dict[str, float] = Field(default_factory=dict)
    price_per_gpu_hour: dict[str, Decimal] = Field(default_factory=dict)
    instance_prices: dict[str, Decimal] = Field(default_factory=dict)
    instance_gpus: dict[str, int] = Field(default_factory=dict)
    decode_tokens_per_s_per_gpu: float | None = None

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
    budgets: list[BudgetConfig] = Field(default_factory=list)
    exports: ExportsConfig = Field(default_factory=ExportsConfig)
    alerts: AlertsConfig = Field(default_factory=AlertsConfig)
    estimator: EstimatorConfig = Field(default_factory=EstimatorConfig)

    # Not read from the file: where it was, so relative paths mean "next to the config".
    base_dir: Path = Field(default_factory=Path.cwd, exclude=True)

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
    """Turn pydantic's ``('sources', 0, 'kidn')`` into ``[[sources]] #1 (name "cur").kidn``."""
    parts: list[str] = []
    node: Any = data
    for item in loc:
        if isinstance(item, int):
            name = node[item].get("name") if isinstance(node, list) and isinstance(node[item], dict) else None
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
        if err["type"] == "extra_forbidden":
            raise ConfigError(f"{origin}: unknown key {where!r}") from None
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
        raise ConfigError(f"{config_path}: config file not found (create one with `trainledger init`)")
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


STARTER = """\
# trainledger configuration. Relative paths are relative to this file.
# Reference: README.md, section "Configuration".

[warehouse]
path = ".trainledger/ledger.duckdb"
# lock_timeout_s = 30           # how long a run waits for another to release the warehouse
# memory_limit = "1GB"          # DuckDB's working memory; bigger bills spill to disk beyond it

# One [[sources]] entry per bill or inventory. kind is one of:
# aws-cur2, aws-cur, aws-focus, aws-tags, gcp-billing, gcp-catalog, gcp-labels, focus, manual.
[[sources]]
name = "aws-cur2"
kind = "aws-cur2"
uri = "s3://my-billing-bucket/cur/ml-cur2"   # or a local folder in the Data Exports layout
# profile = "payer"
# role_arn = "arn:aws:iam::111122223333:role/trainledger-read"
# region = "us-east-1"

[experiments]
uri = "experiments.jsonl"        # JSON Lines file, folder, s3:// or gs:// prefix

[labels]
project = "project"
phase = "phase"
method = "method"
experiment = "experiment"
composite = "cost-label"        # cost-label = <project>-<phase>-<method>
phases = ["data", "train", "rollout", "eval"]
methods = ["sft", "rl", "opd"]

[labels.aliases]
training = "train"
grpo = "rl"

[allocation]
shared = "separate"             # or "proportional"

# [exports]
# dir = "exports"

# [[budgets]]
# name = "qwen-coder-monthly"
# project = "qwen-coder"
# period = "monthly"
# amount = "1000.00"
# currency = "USD"
# thresholds = [0.8, 1.0]

# Estimator overrides (SPEC §6); each value used is printed with the estimate, with its source.
# [estimator]
# mfu = { train = 0.40, prefill = 0.50, decode = 0.10 }
# decode_tokens_per_s_per_gpu = 2500
# gpu_peak_tflops = { H100 = 989 }
# price_per_gpu_hour = { H100 = "6.88" }
# instance_prices = { "p5.48xlarge" = "55.04" }
# instance_gpus = { "p5.48xlarge" = 8 }
"""
