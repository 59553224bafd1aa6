"""From an experiment's ``params`` to FLOPs, GPU hours and money (SPEC §6), saying what it assumed.

Training costs 6·N FLOPs per token, a forward-only pass (prefill, teacher, reference, reward model) 2·N;
GPU hours = FLOPs / (peak x MFU). Decoding is memory-bandwidth bound, so generated tokens are turned into
GPU hours through a decode rate in tokens/s/GPU (given, or derived from the decode MFU as
peak x MFU / 2·N); its nominal 2·N FLOPs are reported but do not drive the hours.

Phases: ``rollout`` is everything that makes experience (generation, reward/reference/teacher scoring),
``train`` the updates of the policy or student, ``eval`` prefill plus generation over eval samples, and
``data``/``storage`` costs are money given directly. A missing input is reported in ``missing`` and the
part that needs it is left out; neutral multipliers (epochs, ppo_epochs, group_size) default to 1 and
say so. Arithmetic is Decimal with 34 significant digits: GPU hours x price per GPU hour, summed per
phase and rounded half-even to the cent; the total is the sum of the phase amounts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from typing import Any

from trainledger.core.config import PHASE_ORDER, EstimatorConfig
from trainledger.core.errors import InputError
from trainledger.core.money import fmt, to_decimal
from trainledger.estimate.catalog import Catalog
from trainledger.estimate.gpus import GPUS, canonical_gpu
from trainledger.estimate.prices import INSTANCES, REFERENCE_INSTANCE

CENT = Decimal("0.01")
ARITHMETIC = Context(prec=34, rounding=ROUND_HALF_EVEN)
BILLION = Decimal(10) ** 9
TERA = Decimal(10) ** 12
HOUR = Decimal(3600)
DEFAULT_MFU = {"train": Decimal("0.40"), "prefill": Decimal("0.50"), "decode": Decimal("0.10")}
MFU_DEFAULT_SOURCE = "default (typical: training 35-45%, prefill/scoring 40-60%, decode 5-20%)"
NUMERIC_PARAMS = (
    "model_params_b",
    "teacher_params_b",
    "reward_params_b",
    "reference_params_b",
    "gpus",
    "price_per_gpu_hour",
    "train_samples",
    "avg_tokens_per_sample",
    "epochs",
    "steps",
    "rollout_prompts",
    "group_size",
    "prompt_tokens",
    "response_tokens",
    "ppo_epochs",
    "eval_samples",
    "eval_tokens_per_sample",
    "eval_prompt_tokens",
    "decode_tokens_per_s_per_gpu",
    "data_cost",
)
ROUNDING = "GPU hours x price, summed per phase, rounded half-even to the cent; total = sum of phases"


@dataclass(frozen=True)
class Assumption:
    value: str
    source: str


@dataclass
class Component:
    """One piece of work (or money given directly) inside a phase."""

    phase: str
    work: str
    category: str = "compute"
    params_b: Decimal | None = None
    tokens: Decimal | None = None
    flops: Decimal | None = None
    rate: str = ""
    gpu_hours: Decimal | None = None
    money: Decimal | None = None


@dataclass
class PhaseTotal:
    phase: str
    category: str
    flops: Decimal | None
    gpu_hours: Decimal | None
    cost: Decimal | None


@dataclass
class Estimate:
    method: str | None
    currency: str
    gpu: str | None
    gpus: int | None
    peak_tflops: Decimal | None
    price_per_gpu_hour: Decimal | None
    components: list[Component] = field(default_factory=list)
    assumptions: dict[str, Assumption] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    def component_cost(self, c: Component) -> Decimal | None:
        if c.money is not None:
            return c.money
        if c.gpu_hours is None or self.price_per_gpu_hour is None:
            return None
        with localcontext(ARITHMETIC):
            return c.gpu_hours * self.price_per_gpu_hour

    def phases(self) -> list[PhaseTotal]:
        keys: list[tuple[str, str]] = []
        for c in self.components:
            if (c.phase, c.category) not in keys:
                keys.append((c.phase, c.category))
        keys.sort(key=lambda k: (PHASE_ORDER.get(k[0], 9), k[0], k[1]))
        totals = []
        for phase, category in keys:
            parts = [c for c in self.components if (c.phase, c.category) == (phase, category)]
            flops = [c.flops for c in parts if c.flops is not None]
            hours = [c.gpu_hours for c in parts if c.gpu_hours is not None]
            costs = [self.component_cost(c) for c in parts]
            with localcontext(ARITHMETIC):
                cost = (
                    None
                    if any(x is None for x in costs)
                    else sum((x for x in costs if x is not None), Decimal(0)).quantize(CENT, ROUND_HALF_EVEN)
                )
                totals.append(
                    PhaseTotal(
                        phase,
                        category,
                        sum(flops, Decimal(0)) if flops else None,
                        sum(hours, Decimal(0)) if hours else None,
                        cost,
                    )
                )
        return totals

    @property
    def total(self) -> Decimal | None:
        costs = [p.cost for p in self.phases()]
        if not costs or any(c is None for c in costs):
            return None
        return sum((c for c in costs if c is not None), Decimal(0))

    @property
    def gpu_hours(self) -> Decimal | None:
        hours = [c.gpu_hours for c in self.components if c.gpu_hours is not None]
        return sum(hours, Decimal(0)) if hours else None

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "currency": self.currency,
            "phases": [
                {
                    "phase": p.phase,
                    "category": p.category,
                    "flops": _int(p.flops),
                    "gpu_hours": _hours(p.gpu_hours),
                    "cost": None if p.cost is None else fmt(p.cost),
                }
                for p in self.phases()
            ],
            "components": [
                {
                    "phase": c.phase,
                    "category": c.category,
                    "work": c.work,
                    "params_b": None if c.params_b is None else f"{c.params_b:f}",
                    "tokens": _int(c.tokens),
                    "flops": _int(c.flops),
                    "rate": c.rate,
                    "gpu_hours": _hours(c.gpu_hours),
                    "cost": _money(self.component_cost(c)),
                }
                for c in self.components
            ],
            "total": None if self.total is None else fmt(self.total),
            "gpu_hours": _hours(self.gpu_hours),
            "assumptions": {k: {"value": a.value, "source": a.source} for k, a in self.assumptions.items()},
            "missing": list(self.missing),
        }


def _int(value: Decimal | None) -> int | None:
    return None if value is None else int(value.to_integral_value(ROUND_HALF_EVEN))


def _hours(value: Decimal | None) -> str | None:
    return None if value is None else f"{value.quantize(Decimal('0.0001'), ROUND_HALF_EVEN):f}"


def _money(value: Decimal | None) -> str | None:
    return None if value is None else fmt(value.quantize(CENT, ROUND_HALF_EVEN))


def _num(value: Decimal) -> str:
    """A quantity for people: ``7``, ``0.4``, ``1500`` (no exponent, no trailing zeros)."""
    text = f"{value.normalize():f}"
    return text


class _Params:
    """Typed access to ``params``; a bad value is an InputError naming ``where`` and the key."""

    def __init__(self, raw: dict[str, Any], where: str) -> None:
        if not isinstance(raw, dict):
            raise InputError(f"{where}: params: expected an object, got {type(raw).__name__}")
        self.raw = raw
        self.where = where

    def number(self, name: str, *, positive: bool = False) -> Decimal | None:
        value = self.raw.get(name)
        if value is None:
            return None
        try:
            number = to_decimal(value)
        except ValueError:
            raise InputError(f"{self.where}: params.{name}: expected a number, got {value!r}") from None
        if number < 0 or (positive and number == 0):
            bound = "> 0" if positive else ">= 0"
            raise InputError(f"{self.where}: params.{name}: expected a number {bound}, got {value!r}")
        return number

    def text(self, name: str) -> str | None:
        value = self.raw.get(name)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{self.where}: params.{name}: expected a non-empty string, got {value!r}")
        return value.strip()

    def fraction(self, value: Any, name: str) -> Decimal:
        try:
            number = to_decimal(value)
        except ValueError:
            raise InputError(f"{self.where}: params.{name}: expected a number, got {value!r}") from None
        if not 0 < number <= 1:
            raise InputError(f"{self.where}: params.{name}: expected a fraction in (0, 1], got {value!r}")
        return number


class _Builder:
    def __init__(
        self,
        method: str | None,
        params: _Params,
        config: EstimatorConfig,
        catalog: Catalog | None,
    ) -> None:
        self.p = params
        self.config = config
        self.catalog = catalog
        self.est = Estimate(method, "USD", None, None, None, None)

    # -- assumptions -------------------------------------------------------------------------------

    def note(self, key: str, value: str, source: str) -> None:
        self.est.assumptions[key] = Assumption(value, source)

    def missing(self, text: str) -> None:
        if text not in self.est.missing:
            self.est.missing.append(text)

    def hardware(self) -> None:
        p = self.p
        instance_type = p.text("instance_type")
        gpu_raw = p.text("gpu_type")
        instance = INSTANCES.get(instance_type) if instance_type else None
        gpu = canonical_gpu(gpu_raw) if gpu_raw else (instance.gpu if instance else None)
        if gpu_raw:
            self.note("gpu_type", gpu or gpu_raw, "params.gpu_type")
        elif instance:
            self.note("gpu_type", instance.gpu, f"from params.instance_type {instance_type}")
        else:
            self.missing("gpu_type: not given, so no peak FLOP/s and no GPU hours")
        self.est.gpu = gpu
        gpus = p.number("gpus", positive=True)
        if gpus is not None:
            if gpus != gpus.to_integral_value():
                raise InputError(f"{p.where}: params.gpus: expected a whole number, got {p.raw['gpus']!r}")
            self.est.gpus = int(gpus)
            self.note("gpus", str(self.est.gpus), "params.gpus (wall-clock hours = GPU hours / gpus)")
        if gpu:
            overrides = {canonical_gpu(k): v for k, v in self.config.gpu_peak_tflops.items()}
            if gpu in overrides:
                self.est.peak_tflops = to_decimal(overrides[gpu])
                self.note("peak_tflops", _num(self.est.peak_tflops), f"[estimator] gpu_peak_tflops.{gpu}")
            elif gpu in GPUS:
                self.est.peak_tflops = GPUS[gpu].peak_tflops
                self.note("peak_tflops", _num(GPUS[gpu].peak_tflops), GPUS[gpu].source)
            else:
                self.missing(
                    f"peak FLOP/s of GPU {gpu!r} unknown (known: {', '.join(sorted(GPUS))}; "
                    f"or set [estimator] gpu_peak_tflops.{gpu})"
                )
        self.price(instance_type)

    def price(self, instance_type: str | None) -> None:
        p, est = self.p, self.est
        given = p.number("price_per_gpu_hour")
        if given is not None:
            est.price_per_gpu_hour = given
            self.note("price_per_gpu_hour", _num(given), "params.price_per_gpu_hour")
            return
        if instance_type:
            sheet = INSTANCES.get(instance_type)
            configured = self.config.instance_prices.get(instance_type)
            count = self.config.instance_gpus.get(instance_type) or (sheet.gpus if sheet else None)
            if configured is not None and count:
                est.price_per_gpu_hour = configured / count
                self.note(
                    "price_per_gpu_hour",
                    _num(est.price_per_gpu_hour),
                    f"[estimator] instance_prices.{instance_type} {_num(configured)}/h / {count} GPUs",
                )
                return
            if configured is not None:
                self.missing(
                    f"GPUs per {instance_type} unknown: set [estimator] instance_gpus.{instance_type} "
                    "to use its configured price"
                )
            elif sheet:
                est.price_per_gpu_hour = sheet.per_gpu_hour
                est.currency = sheet.currency
                self.note(
                    "price_per_gpu_hour",
                    _num(sheet.per_gpu_hour),
                    f"{instance_type} on-demand {_num(sheet.price_per_hour)}/h / {sheet.gpus} GPUs "
                    f"({sheet.source}, {sheet.as_of})",
                )
                return
            else:
                self.missing(f"instance_type {instance_type!r} is not in the price sheet; priced by GPU type")
        gpu = est.gpu
        if gpu is None:
            self.missing("price per GPU hour: no gpu_type, instance_type or price_per_gpu_hour")
            return
        configured_gpu = {canonical_gpu(k): v for k, v in self.config.price_per_gpu_hour.items()}
        if gpu in configured_gpu:
            est.price_per_gpu_hour = configured_gpu[gpu]
            self.note(
                "price_per_gpu_hour", _num(configured_gpu[gpu]), f"[estimator] price_per_gpu_hour.{gpu}"
            )
            return
        catalog_price = self.catalog.price(gpu, p.text("region")) if self.catalog else None
        if catalog_price:
            est.price_per_gpu_hour = catalog_price.price_per_gpu_hour
            est.currency = catalog_price.currency
            self.note("price_per_gpu_hour", _num(catalog_price.price_per_gpu_hour), catalog_price.source)
            return
        reference = REFERENCE_INSTANCE.get(gpu)
        if reference:
            sheet = INSTANCES[reference]
            est.price_per_gpu_hour = sheet.per_gpu_hour
            est.currency = sheet.currency
            self.note(
                "price_per_gpu_hour",
                _num(sheet.per_gpu_hour),
                f"{reference} on-demand {_num(sheet.price_per_hour)}/h / {sheet.gpus} GPUs "
                f"({sheet.source}, {sheet.as_of})",
            )
            return
        self.missing(
            f"price per GPU hour for {gpu}: none bundled; set params.price_per_gpu_hour or "
            f"[estimator] price_per_gpu_hour.{gpu}"
        )

    def mfu(self, kind: str) -> Decimal:
        given = self.p.raw.get("mfu")
        if given is not None and not isinstance(given, dict):
            raise InputError(f'{self.p.where}: params.mfu: expected an object like {{"train": 0.4}}')
        if given and given.get(kind) is not None:
            value, source = self.p.fraction(given[kind], f"mfu.{kind}"), f"params.mfu.{kind}"
        elif kind in self.config.mfu:
            value, source = to_decimal(self.config.mfu[kind]), f"[estimator] mfu.{kind}"
        else:
            value, source = DEFAULT_MFU[kind], MFU_DEFAULT_SOURCE
        self.note(f"mfu_{kind}", _num(value), source)
        return value

    def decode_rate(self, params_b: Decimal) -> tuple[Decimal | None, str]:
        given = self.p.number("decode_tokens_per_s_per_gpu", positive=True)
        if given is not None:
            self.note("decode_tokens_per_s_per_gpu", _num(given), "params.decode_tokens_per_s_per_gpu")
            return given, f"{_num(given)} tok/s/GPU"
        if self.config.decode_tokens_per_s_per_gpu:
            value = to_decimal(self.config.decode_tokens_per_s_per_gpu)
            self.note("decode_tokens_per_s_per_gpu", _num(value), "[estimator] decode_tokens_per_s_per_gpu")
            return value, f"{_num(value)} tok/s/GPU"
        mfu = self.mfu("decode")
        if self.est.peak_tflops is None:
            return None, "decode rate unknown"
        with localcontext(ARITHMETIC):
            rate = self.est.peak_tflops * TERA * mfu / (2 * params_b * BILLION)
        shown = f"{rate.quantize(Decimal(1), ROUND_HALF_EVEN):f}"
        self.note(
            f"decode_tokens_per_s_per_gpu@{_num(params_b)}B",
            shown,
            f"derived: peak {_num(self.est.peak_tflops)} TFLOP/s x decode MFU {_num(mfu)} / (2 x {_num(params_b)}B)",
        )
        return rate, f"{shown} tok/s/GPU (derived)"

    # -- work ----------------------------------------------------------------------------------------

    def flops_work(
        self, phase: str, work: str, params_b: Decimal, tokens: Decimal, factor: int, kind: str
    ) -> None:
        mfu = self.mfu(kind)
        with localcontext(ARITHMETIC):
            flops = factor * params_b * BILLION * tokens
            hours = (
                None if self.est.peak_tflops is None else flops / (self.est.peak_tflops * TERA * mfu * HOUR)
            )
        self.est.components.append(
            Component(
                phase, work, "compute", params_b, tokens, flops, f"{factor}·N·T at MFU {_num(mfu)}", hours
            )
        )

    def decode_work(self, phase: str, work: str, params_b: Decimal, tokens: Decimal) -> None:
        rate, shown = self.decode_rate(params_b)
        with localcontext(ARITHMETIC):
            flops = 2 * params_b * BILLION * tokens
            hours = None if rate is None else tokens / (rate * HOUR)
        self.est.components.append(Component(phase, work, "compute", params_b, tokens, flops, shown, hours))

    def multiplier(self, name: str, why: str) -> Decimal:
        value = self.p.number(name, positive=True)
        if value is None:
            self.note(name, "1", f"default ({why})")
            return Decimal(1)
        self.note(name, _num(value), f"params.{name}")
        return value

    def need(self, names: list[str], what: str) -> dict[str, Decimal] | None:
        values = {n: self.p.number(n) for n in names}
        absent = [n for n, v in values.items() if v is None]
        if absent:
            self.missing(f"{', '.join(absent)}: needed for {what}; not estimated")
            return None
        return {n: v for n, v in values.items() if v is not None}

    def sft(self) -> None:
        got = self.need(["model_params_b", "train_samples", "avg_tokens_per_sample"], "SFT training")
        if got is None:
            return
        epochs = self.multiplier("epochs", "one pass over the data")
        tokens = got["train_samples"] * got["avg_tokens_per_sample"] * epochs
        self.flops_work("train", "SFT forward+backward", got["model_params_b"], tokens, 6, "train")

    def rollouts(self, scorer: str) -> None:
        """RL (scorer 'rl') or OPD (scorer 'opd'): generation, scoring, updates."""
        label = "policy" if scorer == "rl" else "student"
        got = self.need(
            ["model_params_b", "steps", "rollout_prompts", "response_tokens"], f"{label} rollouts and updates"
        )
        if got is None:
            return
        group = self.multiplier("group_size", "one sample per prompt")
        prompt = self.p.number("prompt_tokens")
        if prompt is None:
            self.missing(
                "prompt_tokens: not given; prompts count as 0 tokens (prefill and their updates left out)"
            )
            prompt = Decimal(0)
        n = got["model_params_b"]
        sequences = got["steps"] * got["rollout_prompts"] * group
        seq_tokens = sequences * (prompt + got["response_tokens"])
        if prompt:
            self.note(
                "prompt_prefill", "per sample", "prompt prefill counted for every sample (no prefix cache)"
            )
            self.flops_work("rollout", f"{label} prompt prefill", n, sequences * prompt, 2, "prefill")
        self.decode_work("rollout", f"{label} generation (decode)", n, sequences * got["response_tokens"])
        if scorer == "rl":
            for key, work, why in (
                ("reward_params_b", "reward model forward", "a rule-based verifier needs no GPU"),
                ("reference_params_b", "reference model forward (KL)", "no KL penalty"),
            ):
                size = self.p.number(key)
                if size is None:
                    self.missing(f"{key}: not given; no {work} counted (set 0 when there is none: {why})")
                elif size > 0:
                    self.flops_work("rollout", work, size, seq_tokens, 2, "prefill")
        else:
            teacher = self.p.number("teacher_params_b")
            if teacher is None:
                self.missing(
                    "teacher_params_b: needed for the teacher forward on the student's tokens; not estimated"
                )
            elif teacher > 0:
                self.flops_work(
                    "rollout", "teacher forward on student tokens", teacher, seq_tokens, 2, "prefill"
                )
        ppo = self.multiplier("ppo_epochs", "one update pass per batch")
        self.flops_work("train", f"{label} update (forward+backward)", n, seq_tokens * ppo, 6, "train")

    def evaluation(self) -> None:
        samples = self.p.number("eval_samples")
        if samples is None:
            return
        got = self.need(["model_params_b", "eval_tokens_per_sample"], "evaluation generation")
        if got is None:
            return
        n = got["model_params_b"]
        prompt = self.p.number("eval_prompt_tokens")
        if prompt is None:
            self.missing("eval_prompt_tokens: not given; eval prompt prefill not counted")
        elif prompt > 0:
            self.flops_work("eval", "eval prompt prefill", n, samples * prompt, 2, "prefill")
        self.decode_work("eval", "eval generation (decode)", n, samples * got["eval_tokens_per_sample"])

    def money(self) -> None:
        data = self.p.number("data_cost")
        if data is not None:
            self.est.components.append(Component("data", "data cost (given)", "data", money=data))
        storage = self.p.raw.get("storage_cost")
        if isinstance(storage, dict):
            for phase, amount in storage.items():
                value = _Params({f"storage_cost.{phase}": amount}, self.p.where).number(
                    f"storage_cost.{phase}"
                )
                self.est.components.append(
                    Component(str(phase), "storage cost (given)", "storage", money=value)
                )
        elif storage is not None:
            value = self.p.number("storage_cost")
            self.note(
                "storage_cost_phase", "train", "a storage_cost number is booked to train (checkpoints, logs)"
            )
            self.est.components.append(Component("train", "storage cost (given)", "storage", money=value))


def estimate(
    method: str | None,
    params: dict[str, Any],
    config: EstimatorConfig | None = None,
    catalog: Catalog | None = None,
    where: str = "params",
) -> Estimate:
    """Estimate one experiment; never raises for what is missing (see ``Estimate.missing``)."""
    checked = _Params(params, where)
    for name in NUMERIC_PARAMS:  # every bad value is an error, even one this method does not use
        checked.number(name)
    b = _Builder(method, checked, config or EstimatorConfig(), catalog)
    b.hardware()
    if method == "sft":
        b.sft()
    elif method in ("rl", "opd"):
        b.rollouts(method)
    else:
        b.missing(f"method {method!r} is not sft, rl or opd: only eval, data and storage are estimated")
    b.evaluation()
    b.money()
    b.note("rounding", "cents, half-even", ROUNDING)
    if not b.est.components:
        b.missing("nothing to estimate from these params")
    return b.est
