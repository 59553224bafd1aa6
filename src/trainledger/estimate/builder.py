"""The arithmetic shared by every method: FLOPs to GPU hours, decode rates, attention, what was assumed.

Training costs 6·N·T FLOPs (8·N·T with activation recompute; LoRA ~4·N·T, no weight gradients), a
forward-only pass 2·N·T, with N the parameters active per token (MoE: ``active_params_b``). Attention
adds 2·n_layers·ctx·d per token forward (Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
Table 1), three times that to train. GPU hours = FLOPs / (peak x MFU). Decoding is memory-bandwidth bound,
so generated tokens become GPU hours through a decode rate in tokens/s/GPU (given, or peak x decode MFU /
2·N); its nominal 2·N FLOPs are reported but do not drive the hours.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, localcontext

from trainledger.core.config_estimator import EstimatorConfig
from trainledger.core.errors import InputError
from trainledger.core.money import to_decimal
from trainledger.estimate.calibration import Calibration
from trainledger.estimate.gpu_list_prices import GpuListPrices
from trainledger.estimate.params import Params
from trainledger.estimate.result import ARITHMETIC, Assumption, Component, Estimate, hours_text, num, sci

BILLION = Decimal(10) ** 9
TERA = Decimal(10) ** 12
HOUR = Decimal(3600)
DEFAULT_MFU = {"train": Decimal("0.40"), "prefill": Decimal("0.50"), "decode": Decimal("0.10")}
MFU_DEFAULT_SOURCE = "default (typical: training 35-45%, prefill/scoring 40-60%, decode 5-20%)"
# An MoE's decode throughput at large batch, published: DeepSeek-V3/R1 on H800 (37B active).
MOE_DECODE_CHECK = (
    "MoE at large batch, measured: DeepSeek-V3/R1 serve 14.8k output tok/s per 8-H800 node (inference system "
    "overview, 2025-03-01), 1,850 tok/s/GPU = 2 x 37B x 1,850 = 14% of 989 TFLOP/s, inside the decode range"
)


@dataclass(frozen=True)
class Model:
    """A model as the arithmetic needs it: total parameters (memory, decode speed), active (FLOPs)."""

    role: str
    total_b: Decimal
    active_b: Decimal

    def size(self) -> str:
        if self.active_b == self.total_b:
            return f"{num(self.total_b)}B"
        return f"{num(self.active_b)}B active of {num(self.total_b)}B"


class Builder:
    def __init__(
        self,
        method: str | None,
        params: Params,
        config: EstimatorConfig,
        catalog: GpuListPrices | None,
        calibration: Calibration | None = None,
    ) -> None:
        self.p = params
        self.config = config
        self.catalog = catalog
        self.calibration = calibration
        self.est = Estimate(method, "USD", None, None, None, None)

    # -- what was assumed ----------------------------------------------------------------------------

    def note(self, key: str, value: str, source: str) -> None:
        self.est.assumptions[key] = Assumption(value, source)

    def missing(self, text: str) -> None:
        if text not in self.est.missing:
            self.est.missing.append(text)

    def warn(self, text: str) -> None:
        if text not in self.est.warnings:
            self.est.warnings.append(text)

    def model(self, role: str, key: str, active_key: str) -> Model | None:
        total = self.p.number(key)
        if total is None:
            return None
        active = self.p.number(active_key)
        if active is None:
            return Model(role, total, total)
        if active > total:
            raise InputError(
                f"{self.p.where}: params.{active_key}: {num(active)} is more than {key} {num(total)} "
                "(the total, MoE experts included)"
            )
        self.note(active_key, num(active), f"params.{active_key} (MoE: FLOPs use it; {key} stays the total)")
        return Model(role, total, active)

    def multiplier(self, name: str, why: str) -> Decimal:
        value = self.p.number(name, positive=True)
        if value is None:
            self.note(name, "1", f"default ({why})")
            return Decimal(1)
        self.note(name, num(value), f"params.{name}")
        return value

    def need(self, names: list[str], what: str) -> dict[str, Decimal] | None:
        values = {n: self.p.number(n) for n in names}
        absent = [n for n, v in values.items() if v is None]
        if absent:
            self.missing(f"{', '.join(absent)}: needed for {what}; not estimated")
            return None
        return {n: v for n, v in values.items() if v is not None}

    # -- utilisation -------------------------------------------------------------------------------

    def explicit_mfu(self, kind: str) -> tuple[Decimal, str] | None:
        given = self.p.raw.get("mfu")
        if given is not None and not isinstance(given, dict):
            raise InputError(f'{self.p.where}: params.mfu: expected an object like {{"train": 0.4}}')
        if given and given.get(kind) is not None:
            return self.p.fraction(given[kind], f"mfu.{kind}"), f"params.mfu.{kind}"
        if kind in self.config.mfu:
            return to_decimal(self.config.mfu[kind]), f"[estimator] mfu.{kind}"
        return None

    def calibrated(self, phase: str) -> Decimal | None:
        found = self.calibration.phases.get(phase) if self.calibration else None
        if found is None or self.calibration is None:
            return None
        value = found.value.quantize(Decimal("0.0001"))  # the value stated is the value used
        self.note(f"mfu_{phase}", num(value), self.calibration.source(phase))
        return value

    def mfu(self, kind: str, phase: str) -> Decimal:
        """Params, then config, then this method's reconciled runs on this GPU, then the textbook value."""
        explicit = self.explicit_mfu(kind)
        if explicit is not None:
            self.note(f"mfu_{kind}", num(explicit[0]), explicit[1])
            return explicit[0]
        calibrated = self.calibrated(phase)
        if calibrated is not None:
            return calibrated
        self.note(f"mfu_{kind}", num(DEFAULT_MFU[kind]), MFU_DEFAULT_SOURCE)
        return DEFAULT_MFU[kind]

    def mfu_source(self, kind: str, phase: str) -> str:
        key = f"mfu_{kind}" if f"mfu_{kind}" in self.est.assumptions else f"mfu_{phase}"
        found = self.est.assumptions.get(key)
        return found.source if found else ""

    def decode_rate(self, active_b: Decimal, moe_model: bool = False) -> tuple[Decimal | None, str]:
        given = self.p.number("decode_tokens_per_s_per_gpu", positive=True)
        if given is not None:
            self.note("decode_tokens_per_s_per_gpu", num(given), "params.decode_tokens_per_s_per_gpu")
            return given, f"{num(given)} tok/s/GPU"
        if self.config.decode_tokens_per_s_per_gpu:
            value = to_decimal(self.config.decode_tokens_per_s_per_gpu)
            self.note("decode_tokens_per_s_per_gpu", num(value), "[estimator] decode_tokens_per_s_per_gpu")
            return value, f"{num(value)} tok/s/GPU"
        mfu = self.mfu("decode", "rollout")
        if self.est.peak_tflops is None:
            return None, "decode rate unknown"
        with localcontext(ARITHMETIC):
            rate = self.est.peak_tflops * TERA * mfu / (2 * active_b * BILLION)
        shown = f"{rate.to_integral_value():f}"
        moe = f"; {MOE_DECODE_CHECK}" if moe_model else ""
        self.note(
            f"decode_tokens_per_s_per_gpu@{num(active_b)}B",
            shown,
            f"derived: peak {num(self.est.peak_tflops)} TFLOP/s x decode MFU {num(mfu)} / (2 x {num(active_b)}B)"
            + moe,
        )
        return rate, f"{shown} tok/s/GPU (derived)"

    # -- work ----------------------------------------------------------------------------------------

    def flops_work(
        self,
        phase: str,
        work: str,
        model: Model,
        tokens: Decimal,
        factor: int,
        kind: str,
        source: str,
    ) -> Component:
        with localcontext(ARITHMETIC):
            flops = factor * model.active_b * BILLION * tokens
        return self.add_flops(
            phase,
            work,
            flops,
            f"{factor} x {model.size()} x {sci(tokens)} tokens",
            kind,
            source,
            model,
            tokens,
        )

    def add_flops(
        self,
        phase: str,
        work: str,
        flops: Decimal,
        formula: str,
        kind: str,
        source: str,
        model: Model | None = None,
        tokens: Decimal | None = None,
    ) -> Component:
        mfu = self.mfu(kind, phase)
        hours = None
        text = f"{formula} = {sci(flops)} FLOPs"
        if self.est.peak_tflops is not None:
            with localcontext(ARITHMETIC):
                hours = flops / (self.est.peak_tflops * TERA * mfu * HOUR)
            text += f" / ({num(self.est.peak_tflops)} TFLOP/s x MFU {num(mfu)} x 3600 s) = {hours_text(hours)} GPU-h"
        sources = "; ".join(s for s in (source, f"MFU: {self.mfu_source(kind, phase)}") if s)
        component = Component(
            phase,
            work,
            "compute",
            None if model is None else model.active_b,
            tokens,
            flops,
            f"MFU {num(mfu)}",
            hours,
            formula=text,
            source=sources,
        )
        self.est.components.append(component)
        return component

    def decode_work(self, phase: str, work: str, model: Model, tokens: Decimal) -> Component:
        with localcontext(ARITHMETIC):
            flops = 2 * model.active_b * BILLION * tokens
        explicit = (
            self.p.number("decode_tokens_per_s_per_gpu") or self.config.decode_tokens_per_s_per_gpu
        ) or self.explicit_mfu("decode")
        if not explicit and self.calibrated(phase) is not None:
            return self.add_flops(
                phase,
                work,
                flops,
                f"2 x {model.size()} x {sci(tokens)} tokens",
                "decode",
                "nominal decode FLOPs, at the phase's calibrated MFU",
                model,
                tokens,
            )
        rate, shown = self.decode_rate(model.active_b, model.active_b < model.total_b)
        hours = None
        text = f"{sci(tokens)} tokens (nominal 2 x {model.size()} x T = {sci(flops)} FLOPs)"
        if rate is not None:
            with localcontext(ARITHMETIC):
                hours = tokens / (rate * HOUR)
            text += f" / {shown} / 3600 s = {hours_text(hours)} GPU-h"
        component = Component(
            phase,
            work,
            "compute",
            model.active_b,
            tokens,
            flops,
            shown,
            hours,
            formula=text,
            source="decode is memory-bound: hours from a decode rate, not from FLOPs",
        )
        self.est.components.append(component)
        return component

    def attention(
        self, phase: str, work: str, tokens: Decimal, context: Decimal, passes: int, kind: str
    ) -> None:
        """2·n_layers·ctx·d FLOPs per token and forward pass, as its own line; said when it cannot be."""
        layers, width = self.p.whole("num_layers"), self.p.whole("hidden_size")
        if layers is None or width is None:
            self.note(
                "attention",
                "ignored",
                "set num_layers and hidden_size to count attention FLOPs (2·n_layers·ctx·d per token); "
                "it grows with the context and matters past a few thousand tokens",
            )
            return
        if not tokens or not context:
            return
        self.note("attention", f"{layers} layers x d {width}", "params.num_layers, params.hidden_size")
        with localcontext(ARITHMETIC):
            flops = passes * 2 * layers * context * width * tokens
        self.add_flops(
            phase,
            f"{work} attention",
            flops,
            f"{passes} x 2 x {layers} layers x {num(context)} ctx x {width} x {sci(tokens)} tokens",
            kind,
            "Kaplan et al. 2020, Table 1: 2·n_layers·n_ctx·d_attn per token and forward pass",
            None,
            tokens,
        )

    def train_passes(self) -> tuple[int, int, str]:
        """(FLOPs per parameter and token, forward passes of attention, what it is) of one training pass."""
        recompute = self.p.flag("activation_recompute")
        lora = self.p.whole("lora_rank")
        if lora is not None:
            self.note("lora_rank", str(lora), "params.lora_rank: no weight gradients, adapter FLOPs ignored")
            return (6, 3, "LoRA + recompute") if recompute else (4, 2, "LoRA")
        if recompute:
            self.note("activation_recompute", "true", "params.activation_recompute: one more forward pass")
            return 8, 4, "forward+backward+recompute"
        return 6, 3, "forward+backward"

    def tokens_per_gpu_step(self, tokens_per_step: Decimal, where: str) -> None:
        """Warn when each GPU gets few tokens per optimizer step: the textbook MFU does not hold there."""
        gpus = self.est.gpus
        if gpus is None or "mfu_train" not in self.est.assumptions:
            return
        if self.est.assumptions["mfu_train"].source != MFU_DEFAULT_SOURCE:
            return
        with localcontext(ARITHMETIC):
            per_gpu = tokens_per_step / gpus
        self.note("tokens_per_gpu_step", f"{per_gpu.to_integral_value():f}", where)
        if per_gpu < LOW_TOKENS_PER_GPU_STEP:
            self.warn(
                f"{per_gpu.to_integral_value():,f} tokens per GPU per optimizer step (under "
                f"{LOW_TOKENS_PER_GPU_STEP:,}): the default train MFU {num(DEFAULT_MFU['train'])} is optimistic "
                "for small steps (communication and optimizer time are not amortised); Alpaca 7B at 8,192 took "
                "3.3x the GPU hours it gives. Set params.mfu.train, or calibrate from your own runs"
            )


# Below this many tokens per GPU per optimizer step, fixed per-step costs are not amortised; Alpaca 7B
# (128 x 512 tokens on 8 GPUs) took 3.3x the default-MFU estimate (tests/test_reference_points.py).
LOW_TOKENS_PER_GPU_STEP = 10_000
