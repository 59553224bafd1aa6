"""The config's ``[estimator]``: overrides of the estimator's assumptions (SPEC §6) and API list prices."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field, field_validator

from trainledger.core.config_types import Strict


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
