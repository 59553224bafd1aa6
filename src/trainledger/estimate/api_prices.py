"""The bundled LLM API price table: model -> list price per million input and output tokens, source, date.

Standard (not batch, not cached) text prices in USD. The provider's bill always wins; these prices only turn
judge calls and synthetic samples into money before there is one, and `[estimator.api_prices."<model>"]`
overrides any of them (or adds a model). A model in neither is reported missing, never priced at zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

MILLION = Decimal(10) ** 6
ANTHROPIC_SOURCE = (
    "Anthropic pricing page, base input / output tokens "
    "(https://platform.claude.com/docs/en/about-claude/pricing)"
)
OPENAI_SOURCE = "OpenAI API pricing page, standard tier (https://developers.openai.com/api/docs/pricing)"
# When the prices were read (through copies of those pages: the Anthropic table as updated 2025-11-15, the
# OpenAI one as published March to November 2026); Opus 4.5's lower price is from the copy of March 2026.
AS_OF = "2026-12-05"


@dataclass(frozen=True)
class ApiPrice:
    model: str
    input_per_million: Decimal
    output_per_million: Decimal
    currency: str
    as_of: str
    source: str


def _anthropic(model: str, given: str, made: str) -> ApiPrice:
    return ApiPrice(model, Decimal(given), Decimal(made), "USD", AS_OF, ANTHROPIC_SOURCE)


def _openai(model: str, given: str, made: str) -> ApiPrice:
    return ApiPrice(model, Decimal(given), Decimal(made), "USD", AS_OF, OPENAI_SOURCE)


API_PRICES: dict[str, ApiPrice] = {
    p.model: p
    for p in (
        _anthropic("claude-opus-4-5", "5", "25"),
        _anthropic("claude-opus-4-1", "15", "75"),
        _anthropic("claude-opus-4", "15", "75"),
        _anthropic("claude-sonnet-4-5", "3", "15"),
        _anthropic("claude-sonnet-4", "3", "15"),
        _anthropic("claude-haiku-4-5", "1", "5"),
        _anthropic("claude-3-5-haiku", "0.80", "4"),
        _openai("gpt-5", "1.25", "10"),
        _openai("gpt-5-mini", "0.25", "2"),
        _openai("gpt-4.1", "2", "8"),
        _openai("gpt-4.1-mini", "0.40", "1.60"),
        _openai("gpt-4.1-nano", "0.10", "0.40"),
        _openai("gpt-4o", "2.50", "10"),
        _openai("gpt-4o-mini", "0.15", "0.60"),
        _openai("o3", "2", "8"),
        _openai("o4-mini", "1.10", "4.40"),
    )
}
