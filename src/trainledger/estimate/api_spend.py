"""LLM API spend of a run (SPEC §6): judge calls on the rollouts and synthetic samples, priced per token.

Each is its own line, spend ``llm_api``, category compute (an API bill's charges are compute), in the phase
the realized spend lands in: judge calls in ``rollout``, synthetic data in ``data``, so `reconcile` sets the
estimate beside the provider's bill. Money = input tokens / 10^6 x input price + output tokens / 10^6 x
output price, exact; a model with no price (not bundled, not in config) is reported missing, never zero.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

from trainledger.core.providers import LLM_API
from trainledger.estimate.api_prices import API_PRICES, MILLION
from trainledger.estimate.builder import Builder
from trainledger.estimate.result import ARITHMETIC, Component, num

ROLLOUT_METHODS = ("rl", "opd")


def api_spend(b: Builder, method: str | None) -> None:
    judge(b, method)
    synthetic(b)


def judge(b: Builder, method: str | None) -> None:
    """Judge calls on every generated sample: steps x rollout_prompts x group_size x calls per rollout."""
    if b.p.number("judge_calls_per_rollout") is None:
        return
    if method not in ROLLOUT_METHODS:  # a stage's: the plan's RL stages count the judge calls
        b.warn(
            f"params.judge_calls_per_rollout: method {method!r} has no rollouts (rl, opd); judge calls not "
            "estimated"
        )
        return
    got = b.need(
        [
            "steps",
            "rollout_prompts",
            "judge_calls_per_rollout",
            "judge_input_tokens",
            "judge_output_tokens",
        ],
        "judge calls",
    )
    model = _model(b, "judge_model", "judge calls")
    if got is None or model is None:
        return
    group = b.p.number("group_size", positive=True) or Decimal(1)
    with localcontext(ARITHMETIC):
        calls = got["steps"] * got["rollout_prompts"] * group * got["judge_calls_per_rollout"]
    _priced(
        b,
        "rollout",
        f"LLM API judge calls ({model})",
        model,
        calls,
        got["judge_input_tokens"],
        got["judge_output_tokens"],
        f"{num(got['steps'])} steps x {num(got['rollout_prompts'])} prompts x {num(group)} group x "
        f"{num(got['judge_calls_per_rollout'])} calls",
        "steps x rollout_prompts x group_size x judge_calls_per_rollout",
    )


def synthetic(b: Builder) -> None:
    """Synthetic samples generated on a model API: the data phase."""
    if b.p.number("synthetic_samples") is None:
        return
    got = b.need(
        ["synthetic_samples", "synthetic_input_tokens_per_sample", "synthetic_output_tokens_per_sample"],
        "synthetic data",
    )
    model = _model(b, "synthetic_model", "synthetic data")
    if got is None or model is None:
        return
    _priced(
        b,
        "data",
        f"LLM API synthetic samples ({model})",
        model,
        got["synthetic_samples"],
        got["synthetic_input_tokens_per_sample"],
        got["synthetic_output_tokens_per_sample"],
        f"{num(got['synthetic_samples'])} samples",
        "synthetic_samples",
    )


def _model(b: Builder, key: str, what: str) -> str | None:
    """The model named by ``key`` when it has a price (config first, then the bundled table)."""
    model = b.p.text(key)
    if model is None:
        b.missing(f"{key}: needed to price {what}; not estimated")
        return None
    if model in b.config.api_prices:
        price = b.config.api_prices[model]
        b.note(
            f"api_price@{model}",
            f"{num(price.input)} in / {num(price.output)} out per million tokens",
            f'[estimator.api_prices."{model}"]',
        )
        return model
    if model in API_PRICES:
        found = API_PRICES[model]
        b.note(
            f"api_price@{model}",
            f"{num(found.input_per_million)} in / {num(found.output_per_million)} out per million tokens",
            f"{found.source}, read {found.as_of}",
        )
        return model
    b.missing(
        f"{key} {model!r}: no price per million tokens (bundled: {', '.join(sorted(API_PRICES))}; or set "
        f'[estimator.api_prices."{model}"] input and output); {what} not estimated'
    )
    return None


def _priced(
    b: Builder,
    phase: str,
    work: str,
    model: str,
    count: Decimal,
    input_each: Decimal,
    output_each: Decimal,
    counted: str,
    where: str,
) -> None:
    if model in b.config.api_prices:
        given, made = b.config.api_prices[model].input, b.config.api_prices[model].output
    else:
        given, made = API_PRICES[model].input_per_million, API_PRICES[model].output_per_million
    with localcontext(ARITHMETIC):
        tokens_in = count * input_each
        tokens_out = count * output_each
        money = tokens_in / MILLION * given + tokens_out / MILLION * made
    b.est.components.append(
        Component(
            phase,
            work,
            "compute",
            tokens=tokens_in + tokens_out,
            rate=f"{num(given)}/M in, {num(made)}/M out",
            money=money,
            formula=(
                f"{counted} = {num(count)} x ({num(input_each)} in x {num(given)}/M + {num(output_each)} out x "
                f"{num(made)}/M) = {num(money)} {b.est.currency}"
            ),
            source=f"{where}; price: {b.est.assumptions[f'api_price@{model}'].source}",
            spend=LLM_API,
        )
    )
