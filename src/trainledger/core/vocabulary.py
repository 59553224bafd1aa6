"""The words labels, bills and reports share (SPEC §3, §4): the phases of a post-training run, the methods,
the cost categories. Each list is written here once; the config's defaults, `init`'s starter file, the
estimator, the manual ledger and the category rules read it."""

from __future__ import annotations

# The phases of a post-training run in pipeline order: the default vocabulary, and the order in which
# reconciliations and estimates list them (a configured phase outside it comes after).
PHASES = ("data", "train", "rollout", "eval")
PHASE_ORDER = {phase: index for index, phase in enumerate(PHASES)}

# SPEC §3 names sft, rl and opd; dpo too, since the estimator prices it (SPEC §6) and a log naming it
# would otherwise be refused whole. The default methods of `[labels]`, and what `estimate --method` and a
# stage's method may name.
METHODS = ("sft", "rl", "opd", "dpo")

# SPEC §4: what a charge is spent on.
CATEGORIES = ("compute", "storage", "network", "data", "ops", "other")


def phase_category_order(key: tuple[str, str]) -> tuple[int, str, str]:
    """Sort key of a (phase, category) pair: the phases in pipeline order, any other after, then by name."""
    return (PHASE_ORDER.get(key[0], len(PHASES)), key[0], key[1])
