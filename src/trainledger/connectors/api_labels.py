"""The labels an LLM API cost carries: its project / workspace id mapped through the source's ``labels``,
or, with ``names_as_labels``, the project's / workspace's own name when that name already is a composite
cost label (a workspace named ``qwen-coder-train-rl``, SPEC §3).

The labels become the charge's tags, written with the first configured key of each label, so attribution
rule 2 places them; an id neither maps is unattributed and ``trainledger labels`` names it.
"""

from __future__ import annotations

from collections.abc import Mapping

from trainledger.core.config_labels import LabelsConfig
from trainledger.core.config_types import Strict
from trainledger.core.errors import ConfigError
from trainledger.core.labels import LabelScheme

DEFAULT_KEY = "default"  # the mapping's key for spend the provider reports without a project / workspace id


class LabelMap(Strict):
    """Labels given key by key: at least a project; phase, method and experiment as far as they are fixed."""

    project: str
    phase: str | None = None
    method: str | None = None
    experiment: str | None = None


def composite_names(names: Mapping[str, str], labels: LabelsConfig) -> dict[str, str]:
    """The ids whose name is a whole cost label, ``<project>-<phase>-<method>`` with a phase and a method of
    the configured vocabularies (``Judge workspace`` or ``qwen-coder-judge`` are not), with that name."""
    if not labels.composite:
        raise ConfigError(
            "names_as_labels reads project / workspace names as cost labels; it needs a composite key in "
            "[labels] composite"
        )
    scheme = LabelScheme(labels)
    return {ident: name for ident, name in names.items() if not scheme.parse_composite(name)[3]}


def tags_for(
    resource_id: str | None,
    mapping: Mapping[str, str | LabelMap],
    labels: LabelsConfig,
    named: Mapping[str, str],
) -> dict[str, str]:
    """The tags a cost of this project / workspace carries: its mapping (the id, or ``default`` for none),
    else its name when that is a cost label (``named``), written with the first configured key of each
    label; none when neither says (unattributed, reported by ``labels``)."""
    mapped = mapping.get(resource_id if resource_id is not None else DEFAULT_KEY)
    if mapped is None and resource_id is not None:
        mapped = named.get(resource_id)
    if mapped is None:
        return {}
    if isinstance(mapped, str):
        if not labels.composite:
            raise ConfigError("a cost label in a source's labels needs a composite key in [labels] composite")
        return {labels.composite[0]: mapped}
    given = (
        (labels.project, mapped.project),
        (labels.phase, mapped.phase),
        (labels.method, mapped.method),
        (labels.experiment, mapped.experiment),
    )
    return {keys[0]: value for keys, value in given if keys and value}
