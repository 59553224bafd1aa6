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
from trainledger.estimate import padding
from trainledger.estimate.builder import HOUR, Builder, Model
from trainledger.estimate.hardware import BYTES_PER_PARAM, sequence_decode_speed
from trainledger.estimate.result import ARITHMETIC, Component, hours_text, num

# Weight sync between trainer and rollout engines, measured: checkpoint-engine (MoonshotAI, README
# benchmark, vLLM 0.10.2rc1) updates DeepSeek-V3.1 (671B, FP8: ~671 GB) on 256 H20 in 0.80 s of metadata
# plus 11.33 s of broadcast.
SYNC_GB_PER_S = Decimal(671) / (Decimal("0.80") + Decimal("11.33"))
SYNC_SOURCE = (
    "checkpoint-engine README benchmark (github.com/MoonshotAI/checkpoint-engine): DeepSeek-V3.1, ~671 GB "
    "in FP8, on 256 H20 in 0.80 + 11.33 s; Kimi-K2 (1T) 'about 20 s' across thousands of GPUs"
)
OLD_LOG_PROBS = (
    "the PPO/GRPO ratio pi/pi_old needs the rollout policy's log-probs (Schulman et al. 2017, arXiv:1707.06347; "
    "Shao et al. 2024, arXiv:2402.03300, eq. 3); veRL recomputes them with a trainer forward every step "
    "(ray_trainer 'recompute old_log_probs'; HybridFlow, arXiv:2409.19256)"
)


def sft(b: Builder) -> None:
    read = _training_sequences(b, "SFT", "one pass over the data", 1)
    if read is None:
        return
    model, tokens, context, per_sample = read
    factor, passes, what = b.train_passes()
    b.flops_work(
        "train", f"SFT {what}", model, tokens, factor, "train", f"train_samples x {per_sample} x epochs"
    )
    b.attention("train", "SFT", tokens, context, passes, "train")
    _tokens_per_step(b, 1, context)


def dpo(b: Builder) -> None:
    """The policy trains on the chosen and the rejected response of each pair; the reference scores both."""
    read = _training_sequences(b, "DPO", "one pass over the pairs", 2)
    if read is None:
        return
    model, tokens, context, per_sample = read
    b.note("dpo_sequences", "2 per pair", "DPO trains on the chosen and the rejected sequence of each pair")
    factor, passes, what = b.train_passes()
    source = f"2 x train_samples (pairs) x {per_sample} x epochs"
    b.flops_work("train", f"DPO policy {what}", model, tokens, factor, "train", source)
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
    _tokens_per_step(b, 2, context)


def _training_sequences(
    b: Builder, method: str, one_pass: str, per_sample: int
) -> tuple[Model, Decimal, Decimal, str] | None:
    """SFT and DPO train one model on train_samples x epochs (a DPO sample is a pair: two sequences):
    (the model, the tokens trained, the attention context, what a sequence's length is), or None when a
    needed key is missing (the builder has said which)."""
    got = b.need(["model_params_b", "train_samples", "avg_tokens_per_sample"], f"{method} training")
    model = b.model("model", "model_params_b", "active_params_b")
    if got is None or model is None:
        return None
    epochs = b.multiplier("epochs", one_pass)
    length, context, what = _sample_length(b, got["avg_tokens_per_sample"])
    return model, per_sample * got["train_samples"] * length * epochs, context, what


def _tokens_per_step(b: Builder, per_sample: int, context: Decimal) -> None:
    """The tokens a GPU holds per optimizer step, when the batch size is given (the low-utilisation check)."""
    batch = b.p.number("batch_size")
    if batch is not None:
        times = "" if per_sample == 1 else f"{per_sample} x "
        b.tokens_per_gpu_step(per_sample * batch * context, f"{times}batch_size x {_step_length(b)} / gpus")


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
    per_rollout = b.multiplier("steps_per_rollout", "one optimizer step per rollout batch")
    with localcontext(ARITHMETIC):
        rounds = got["steps"] / per_rollout
    _generation(b, model, label, sequences * response, rounds, response)
    _weight_sync(b, model, label, rounds)
    if scorer == "rl":
        b.flops_work("rollout", "policy old log-probs forward", model, seq_tokens, 2, "prefill", where)
        b.attention("rollout", "policy old log-probs", seq_tokens, context, 1, "prefill")
        b.note("old_log_probs", "2·N·T forward", OLD_LOG_PROBS)
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


def _sample_length(b: Builder, avg_tokens: Decimal) -> tuple[Decimal, Decimal, str]:
    """(tokens each sample costs, the attention context, what that length is) for SFT and DPO.

    Packed (the default), a sample costs its mean length and attends within the packed sequence. Padded,
    every sample of a GPU's micro-batch costs the micro-batch's longest (``padding``).
    """
    cut = b.p.number("max_seq_len", positive=True)
    if b.p.flag("packing", default=True):
        b.note("packing", "true", "default: samples packed into sequences, FLOPs on the mean length")
        if cut is None:
            return avg_tokens, avg_tokens, "avg_tokens_per_sample"
        b.note("max_seq_len", num(cut), "params.max_seq_len: packed sequences, the attention context")
        return avg_tokens, cut, "avg_tokens_per_sample"
    b.note("packing", "false", "params.packing: each micro-batch padded to its longest sample")
    if cut is None:
        b.missing(
            "max_seq_len: needed with packing false (the padded length); FLOPs on avg_tokens_per_sample"
        )
        return avg_tokens, avg_tokens, "avg_tokens_per_sample"
    if avg_tokens > cut:
        raise InputError(
            f"{b.p.where}: params.avg_tokens_per_sample: {num(avg_tokens)} is above max_seq_len {num(cut)} "
            "(padded batches cut every sample at max_seq_len)"
        )
    samples = _micro_batch(b)
    if samples is None:
        b.note(
            "padded_tokens_per_sample",
            num(cut),
            "max_seq_len: micro-batch unknown, every sample padded to it",
        )
        return cut, cut, "max_seq_len (padded)"
    padded = padding.expected_longest(avg_tokens, cut, samples)
    b.note(
        "padded_tokens_per_sample",
        f"{padded.quantize(Decimal('0.1')):f}",
        f"expected longest of {samples} samples averaging {num(avg_tokens)} tokens, cut at {num(cut)}: "
        "lengths taken as exponential (the maximum-entropy law given a mean), truncated at max_seq_len",
    )
    return padded, padded, "padded_tokens_per_sample"


def _micro_batch(b: Builder) -> int | None:
    given = b.p.whole("micro_batch_size")
    if given is not None:
        b.note("micro_batch_size", str(given), "params.micro_batch_size")
        return given
    batch = b.p.number("batch_size", positive=True)
    if batch is None or b.est.gpus is None:
        return None
    samples = max(1, int(batch / b.est.gpus))
    b.note("micro_batch_size", str(samples), "batch_size / gpus: no gradient accumulation assumed")
    return samples


def _step_length(b: Builder) -> str:
    return (
        "padded_tokens_per_sample"
        if "padded_tokens_per_sample" in b.est.assumptions
        else ("(max_seq_len or avg_tokens_per_sample)")
    )


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
    b: Builder, model: Model, label: str, tokens: Decimal, rollouts: Decimal, response: Decimal
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
    speed = sequence_decode_speed(b, model)
    if b.est.gpus is None:
        b.missing(
            "gpus: needed for the straggler bound (GPUs held while the longest sample decodes); not applied"
        )
        return
    if speed is None:
        return
    with localcontext(ARITHMETIC):
        hours = rollouts * cap / speed / HOUR * b.est.gpus
    longest = (
        f"longest sample {num(rollouts)} rollouts x {num(cap)} tokens / {speed.quantize(Decimal('0.1')):f} "
        f"tok/s / 3600 s x {b.est.gpus} GPUs = {hours_text(hours)} GPU-h"
    )
    _add_longest_sample(b, component, hours, longest)


def _weight_sync(b: Builder, model: Model, label: str, rollouts: Decimal) -> None:
    """Each rollout starts from new weights: the trainer's copy is sent to the rollout engines, GPUs held."""
    if b.est.gpus is None:
        b.note(
            "weight_sync",
            "not counted",
            "set gpus: every GPU waits while the new weights reach the rollout engine before each rollout",
        )
        return
    with localcontext(ARITHMETIC):
        weights_gb = BYTES_PER_PARAM * model.total_b
        seconds = weights_gb / SYNC_GB_PER_S
        hours = rollouts * seconds / HOUR * b.est.gpus
    b.note("weight_sync_gb_per_s", f"{SYNC_GB_PER_S.quantize(Decimal('0.1')):f}", SYNC_SOURCE)
    b.est.components.append(
        Component(
            "rollout",
            f"{label} weight sync to the rollout engine",
            params_b=model.total_b,
            rate=f"{SYNC_GB_PER_S.quantize(Decimal('0.1')):f} GB/s",
            gpu_hours=hours,
            formula=(
                f"{num(rollouts)} rollouts x {num(weights_gb)} GB of BF16 weights / "
                f"{SYNC_GB_PER_S.quantize(Decimal('0.1')):f} GB/s / 3600 s x {b.est.gpus} GPUs = "
                f"{hours_text(hours)} GPU-h"
            ),
            source="steps / steps_per_rollout; 2 bytes x model_params_b; " + SYNC_SOURCE,
        )
    )


def _add_longest_sample(b: Builder, component: Component, longest: Decimal, formula: str) -> None:
    """A synchronous rollout's decode steps: as many as its longest sample, each carrying every sequence.

    A decode step's time is the weights' load plus each live sequence's own work (KV-cache reads and
    FLOPs): the rollout takes (longest sample's steps x weight-bound step) + (every token's share at the
    throughput rate), on all GPUs held. The throughput hours alone miss the weight-bound steps of the
    tail; the longest sample alone misses the other sequences slowing every step it runs in.
    """
    throughput = component.gpu_hours or Decimal(0)
    with localcontext(ARITHMETIC):
        component.gpu_hours = throughput + longest
    component.rate = "longest sample + throughput"
    component.formula += f"; + {formula} = {hours_text(component.gpu_hours)} GPU-h"
    component.source += "; a synchronous rollout waits for its longest sample"
    b.note(
        "straggler_bound",
        f"{hours_text(longest)} GPU-h added to the throughput-bound {hours_text(throughput)}",
        "a synchronous rollout runs as many decode steps as its longest sample, every GPU held; each step "
        "costs the weights' load plus every live sequence's KV-cache reads and FLOPs (Pope et al. 2022, "
        "'Efficiently Scaling Transformer Inference', arXiv:2211.05102, sec. 2), so the throughput hours "
        "and the longest sample's weight-bound steps add",
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
