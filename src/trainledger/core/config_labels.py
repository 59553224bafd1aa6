"""The config's ``[labels]`` (the label scheme's keys and vocabularies, SPEC §3) and ``[experiments]`` (where
the experiment log is and, for Slurm, how jobs become experiments)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from trainledger.core.config_types import KeyList, Retries, Seconds, Strict
from trainledger.core.vocabulary import METHODS, PHASES

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
