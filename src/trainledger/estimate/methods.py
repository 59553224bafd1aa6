"""The work of each method (SPEC §6): what is generated, scored and trained, in which phase.

Phases: ``rollout`` is everything that makes experience (generation, reward/reference/teacher/critic
scoring), ``train`` the updates of the trained model (and DPO's reference pass), ``eval`` prefill plus
generation over eval samples. A synchronous rollout waits for its longest sample, so its generation takes
at least (rollouts x max_response_tokens / one sequence's decode speed) x GPUs held; the larger of that
and the throughput-bound hours is counted.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

from trainledger.core.errors import InputError
from trainledger.estimate.builder import HOUR, Builder, Model
from trainledger.estimate.hardware import sequence_decode_speed
from trainledger.estimate.result import ARITHMETIC, Component, hours_text, num, sci


def sft(b: Builder) -> None:
    got = b.need(["model_params_b", "train_samples", "avg_tokens_per_sample"], "SFT training")
    model = b.model("model", "model_params_b", "active_params_b")
    if got is None or model is None:
        return
    epochs = b.multiplier("epochs", "one pass over the data")
    tokens = got["train_samples"] * got["avg_tokens_per_sample"] * epochs
    factor, passes, what = b.train_passes()
    b.flops_work(
        "train",
        f"SFT {what}",
        model,
        tokens,
        factor,
        "train",
        "train_samples x avg_tokens_per_sample x epochs",
    )
    context = _packed_context(b, got["avg_tokens_per_sample"])
    b.attention("train", "SFT", tokens, context, passes, "train")
    batch = b.p.number("batch_size")
    if batch is not None:
        b.tokens_per_gpu_step(batch * context, "batch_size x (max_seq_len or avg_tokens_per_sample) / gpus")


def dpo(b: Builder) -> None:
    """The policy trains on the chosen and the rejected response of each pair; the reference scores both."""
    got = b.need(["model_params_b", "train_samples", "avg_tokens_per_sample"], "DPO training")
    model = b.model("model", "model_params_b", "active_params_b")
    if got is None or model is None:
        return
    epochs = b.multiplier("epochs", "one pass over the pairs")
    tokens = 2 * got["train_samples"] * got["avg_tokens_per_sample"] * epochs
    b.note("dpo_sequences", "2 per pair", "DPO trains on the chosen and the rejected sequence of each pair")
    factor, passes, what = b.train_passes()
    source = "2 x train_samples (pairs) x avg_tokens_per_sample x epochs"
    b.flops_work("train", f"DPO policy {what}", model, tokens, factor, "train", source)
    context = _packed_context(b, got["avg_tokens_per_sample"])
    b.attention("train", "DPO policy", tokens, context, passes, "train")
    reference = b.model("reference", "reference_params_b", "reference_active_params_b")
    if reference is None:
        reference = Model("reference", model.total_b, model.active_b)
        b.note("reference_params_b", num(model.total_b), "default: the reference is the starting policy")
    if reference.total_b > 0:
        b.flops_work(
            "train", "DPO reference forward", reference, tokens, 2, "prefill", source + " (every epoch)"
        )
        if reference == Model("reference", model.total_b, model.active_b):
            b.attention("train", "DPO reference", tokens, context, 1, "prefill")
    batch = b.p.number("batch_size")
    if batch is not None:
        b.tokens_per_gpu_step(2 * batch * context, "2 x batch_size x (max_seq_len or avg_tokens) / gpus")


def rollouts(b: Builder, scorer: str) -> None:
    """RL (scorer 'rl') or OPD (scorer 'opd'): generation, scoring, updates."""
    label = "policy" if scorer == "rl" else "student"
    got = b.need(
        ["model_params_b", "steps", "rollout_prompts", "response_tokens"], f"{label} rollouts and updates"
    )
    model = b.model(label, "model_params_b", "active_params_b")
    if got is None or model is None:
        return
    group = b.multiplier("group_size", "one sample per prompt")
    prompt = b.p.number("prompt_tokens")
    if prompt is None:
        b.missing("prompt_tokens: not given; prompts count as 0 tokens (prefill and their updates left out)")
        prompt = Decimal(0)
    response = got["response_tokens"]
    sequences = got["steps"] * got["rollout_prompts"] * group
    seq_tokens = sequences * (prompt + response)
    context = prompt + response
    where = "steps x rollout_prompts x group_size"
    if prompt:
        b.note("prompt_prefill", "per sample", "prompt prefill counted for every sample (no prefix cache)")
        b.flops_work("rollout", f"{label} prompt prefill", model, sequences * prompt, 2, "prefill", where)
        b.attention("rollout", f"{label} prompt prefill", sequences * prompt, context, 1, "prefill")
    _generation(b, model, label, sequences * response, got["steps"], response)
    if scorer == "rl":
        _scorer(
            b,
            model,
            "reward",
            "reward model forward",
            seq_tokens,
            context,
            "a rule-based verifier needs no GPU",
        )
        _scorer(b, model, "reference", "reference model forward (KL)", seq_tokens, context, "no KL penalty")
    else:
        teacher = b.model("teacher", "teacher_params_b", "teacher_active_params_b")
        if teacher is None:
            b.missing(
                "teacher_params_b: needed for the teacher forward on the student's tokens; not estimated"
            )
        elif teacher.total_b > 0:
            b.flops_work(
                "rollout", "teacher forward on student tokens", teacher, seq_tokens, 2, "prefill", where
            )
    ppo = b.multiplier("ppo_epochs", "one update pass per batch")
    factor, passes, what = b.train_passes()
    b.flops_work(
        "train", f"{label} update ({what})", model, seq_tokens * ppo, factor, "train", where + " x ppo_epochs"
    )
    b.attention("train", f"{label} update", seq_tokens * ppo, context, passes, "train")
    critic = b.p.number("value_params_b")
    if critic:
        value = Model("value", critic, critic)
        b.flops_work("rollout", "value model forward", value, seq_tokens, 2, "prefill", where)
        b.flops_work("train", f"value model update ({what})", value, seq_tokens * ppo, factor, "train", where)
    b.tokens_per_gpu_step(
        got["rollout_prompts"] * group * context, "rollout_prompts x group_size x tokens / gpus"
    )


def _packed_context(b: Builder, avg_tokens: Decimal) -> Decimal:
    packed = b.p.number("max_seq_len", positive=True)
    if packed is None:
        return avg_tokens
    b.note("max_seq_len", num(packed), "params.max_seq_len: packed sequences, the attention context")
    return packed


def _scorer(
    b: Builder, policy: Model, role: str, work: str, tokens: Decimal, context: Decimal, none_because: str
) -> None:
    key = f"{role}_params_b"
    model = b.model(role, key, f"{role}_active_params_b")
    if model is None:
        b.missing(f"{key}: not given; no {work} counted (set 0 when there is none: {none_because})")
    elif model.total_b > 0:
        b.flops_work("rollout", work, model, tokens, 2, "prefill", "steps x rollout_prompts x group_size")
        if (model.total_b, model.active_b) == (policy.total_b, policy.active_b):
            b.attention("rollout", work, tokens, context, 1, "prefill")


def _generation(
    b: Builder, model: Model, label: str, tokens: Decimal, steps: Decimal, response: Decimal
) -> None:
    component = b.decode_work("rollout", f"{label} generation (decode)", model, tokens)
    cap = b.p.number("max_response_tokens", positive=True)
    if cap is None:
        b.note(
            "straggler_bound",
            "not applied",
            "set max_response_tokens (and gpus) for synchronous rollouts: each waits for its longest sample",
        )
        return
    if cap < response:
        raise InputError(
            f"{b.p.where}: params.max_response_tokens: {num(cap)} is below response_tokens {num(response)} "
            "(the mean cannot exceed the cap)"
        )
    b.note("max_response_tokens", num(cap), "params.max_response_tokens")
    per_rollout = b.multiplier("steps_per_rollout", "one optimizer step per rollout batch")
    speed = sequence_decode_speed(b, model)
    if b.est.gpus is None:
        b.missing(
            "gpus: needed for the straggler bound (GPUs held while the longest sample decodes); not applied"
        )
        return
    if speed is None:
        return
    with localcontext(ARITHMETIC):
        rollouts = steps / per_rollout
        hours = rollouts * cap / speed / HOUR * b.est.gpus
    bound = (
        f"straggler bound {num(rollouts)} rollouts x {num(cap)} tokens / {speed.quantize(Decimal('0.1')):f} "
        f"tok/s / 3600 s x {b.est.gpus} GPUs = {hours_text(hours)} GPU-h"
    )
    _take_larger(b, component, hours, bound)


def _take_larger(b: Builder, component: Component, straggler: Decimal, bound: str) -> None:
    throughput = component.gpu_hours
    if throughput is not None and throughput >= straggler:
        component.formula += f"; {bound} (throughput-bound larger: used)"
        b.note(
            "straggler_bound", hours_text(straggler) + " GPU-h", "below the throughput-bound hours: not used"
        )
        return
    component.gpu_hours = straggler
    component.rate = "longest sample (straggler)"
    component.formula += f"; {bound} (larger: used)"
    component.source += "; a synchronous rollout waits for its longest sample"
    b.note(
        "straggler_bound",
        hours_text(straggler) + " GPU-h",
        f"used: above the throughput-bound {sci(throughput)}",
    )


def evaluation(b: Builder) -> None:
    samples = b.p.number("eval_samples")
    if samples is None:
        return
    got = b.need(["model_params_b", "eval_tokens_per_sample"], "evaluation generation")
    model = b.model("model", "model_params_b", "active_params_b")
    if got is None or model is None:
        return
    prompt = b.p.number("eval_prompt_tokens")
    if prompt is None:
        b.missing("eval_prompt_tokens: not given; eval prompt prefill not counted")
    elif prompt > 0:
        b.flops_work(
            "eval", "eval prompt prefill", model, samples * prompt, 2, "prefill", "eval_samples x prompt"
        )
    b.decode_work("eval", "eval generation (decode)", model, samples * got["eval_tokens_per_sample"])


def money(b: Builder) -> None:
    data = b.p.number("data_cost")
    if data is not None:
        b.est.components.append(
            Component("data", "data cost (given)", "data", money=data, source="params.data_cost")
        )
    storage = b.p.raw.get("storage_cost")
    if isinstance(storage, dict):
        for phase, amount in storage.items():
            value = type(b.p)({f"storage_cost.{phase}": amount}, b.p.where).number(f"storage_cost.{phase}")
            b.est.components.append(
                Component(
                    str(phase), "storage cost (given)", "storage", money=value, source="params.storage_cost"
                )
            )
    elif storage is not None:
        value = b.p.number("storage_cost")
        b.note("storage_cost_phase", "train", "a storage_cost number is booked to train (checkpoints, logs)")
        b.est.components.append(
            Component("train", "storage cost (given)", "storage", money=value, source="params.storage_cost")
        )


def overhead(b: Builder, start: int = 0) -> None:
    """Scale the compute hours of ``components[start:]`` by overhead_factor, as one line per phase."""
    factor = b.p.number("overhead_factor", positive=True)
    if factor is None:
        b.note(
            "overhead_factor", "1", "default: nothing added for evaluations, checkpoints, restarts, queueing"
        )
        return
    if factor < 1:
        raise InputError(
            f"{b.p.where}: params.overhead_factor: expected a number >= 1, got {b.p.raw['overhead_factor']!r}"
        )
    b.note("overhead_factor", num(factor), "params.overhead_factor")
    hours: dict[str, Decimal] = {}
    for c in b.est.components[start:]:
        if c.category == "compute" and c.gpu_hours is not None:
            hours[c.phase] = hours.get(c.phase, Decimal(0)) + c.gpu_hours
    for phase, total in hours.items():
        with localcontext(ARITHMETIC):
            extra = total * (factor - 1)
        b.est.components.append(
            Component(
                phase,
                f"overhead x{num(factor)} (evaluations, checkpoints, restarts, queueing)",
                gpu_hours=extra,
                rate=f"x{num(factor)}",
                formula=f"{hours_text(total)} GPU-h x ({num(factor)} - 1) = {hours_text(extra)} GPU-h",
                source="params.overhead_factor",
            )
        )
