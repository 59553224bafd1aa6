"""Cost categories (SPEC §4) from service and usage type: rules as data, overridable in config.

A rule is ``(service fragment, usage-type fragment, category)``; both fragments are lowercase substrings
("" matches anything) and the first rule that matches wins. The rules are the provider table's
(``core/providers.py``): each provider's for its own charges, and the shared ones for every charge. Order
matters: observability services come first (CloudWatch bills log storage as ``TimedStorage-ByteHrs``), then
usage types (EC2 bills EBS and data transfer under its own service name; GCP bills GPUs, disks and egress
under "Compute Engine"), then services. The ``[categories]`` overrides come before all of these, and a FOCUS
file's own ``ServiceCategory`` (Compute, Storage, Networking, Databases, ...) right after them: a provider
knows its services better than name rules do (Azure's "Virtual Machines", "Storage Accounts").
"""

from __future__ import annotations

from trainledger.core import providers
from trainledger.core.config_spend import CategoriesConfig
from trainledger.core.errors import ConfigError
from trainledger.core.providers import Rule
from trainledger.core.vocabulary import CATEGORIES

# FOCUS 1.2 ServiceCategory values -> cost category; the others (Business Applications, Integration, Web,
# Other, ...) say nothing about the kind of cost and fall through to the rules. `[categories]
# service_categories` overrides or adds entries.
DEFAULT_SERVICE_CATEGORIES: dict[str, str] = {
    "AI and Machine Learning": "compute",
    "Compute": "compute",
    "Storage": "storage",
    "Networking": "network",
    "Databases": "data",
    "Analytics": "data",
    "Management and Governance": "ops",
    "Security": "ops",
    "Identity": "ops",
    "Developer Tools": "ops",
}

# The kinds of rule, in the order they are tried. Observability and security services first, whatever their
# usage types say (CloudWatch bills log storage as `TimedStorage-ByteHrs`). Then usage types, which say more
# than a service's name (EC2 bills EBS and data transfer under its own name; GCP bills GPUs, disks and egress
# under "Compute Engine"): network, storage, compute, data. Then service names: network, data, storage,
# compute, so that the work beats the platform it runs on ("Amazon SageMaker Ground Truth" is labelling, a
# data transfer service is network). Within a kind every rule gives the same category, so a provider's own
# rules and the shared ones may be tried in any order there.
_USAGE_KINDS = ("network", "storage", "compute", "data")
_SERVICE_KINDS = ("network", "data", "storage", "compute")


def _kind(rule: Rule) -> int:
    _, usage, category = rule
    if not usage and category == "ops":
        return 0
    kinds, first = (_USAGE_KINDS, 1) if usage else (_SERVICE_KINDS, 2 + len(_USAGE_KINDS))
    return first + (kinds.index(category) if category in kinds else len(kinds))


def default_rules(provider: str | None) -> tuple[Rule, ...]:
    """The rules for a provider's charges, in the order they are tried: its own and the shared ones, by
    kind. A provider the table does not know (an unnamed FOCUS file's) gets every
    provider's rules: nothing says whose names its bill uses."""
    known = providers.by_id(provider)
    own = known.rules if known else tuple(r for p in providers.PROVIDERS for r in p.rules)
    return tuple(sorted(own + providers.SHARED_RULES, key=_kind))


class Categorizer:
    def __init__(self, config: CategoriesConfig) -> None:
        sections = (
            ("services", config.services),
            ("usage_types", config.usage_types),
            ("service_categories", config.service_categories),
        )
        for section, mapping in sections:
            for fragment, category in mapping.items():
                if not fragment.strip():
                    raise ConfigError(f"[categories] {section}: an empty name would match every charge")
                if category not in CATEGORIES:
                    raise ConfigError(
                        f"[categories] {section}: {fragment!r} = {category!r} is not a category "
                        f"({', '.join(CATEGORIES)})"
                    )
        overrides: list[Rule] = [("", k.lower(), v) for k, v in config.usage_types.items()]
        overrides += [(k.lower(), "", v) for k, v in config.services.items()]
        self.overrides = overrides
        self.service_categories = {
            k.strip().lower(): v
            for k, v in {**DEFAULT_SERVICE_CATEGORIES, **config.service_categories}.items()
        }
        self.rules = {p: default_rules(p) for p in (None, *(p.id for p in providers.PROVIDERS))}

    def categorize(
        self,
        service_name: str | None,
        usage_type: str | None,
        service_category: str | None = None,
        provider: str | None = None,
    ) -> tuple[str, bool]:
        """(category, known) of a provider's charge; unknown services fall to `other` and are reported by
        `labels`."""
        service = (service_name or "").lower()
        usage = (usage_type or "").lower()
        for service_part, usage_part, category in self.overrides:
            if service_part in service and usage_part in usage:
                return category, True
        by_focus = self.service_categories.get((service_category or "").strip().lower())
        if by_focus:
            return by_focus, True
        for service_part, usage_part, category in self.rules.get(provider) or self.rules[None]:
            if service_part in service and usage_part in usage:
                return category, True
        return "other", False
