"""Building blocks of the config model that the connectors use too: the strict base every section
derives from, key lists, network timeouts and retries, and one ``[[sources]]`` entry (whose keys are
validated by its kind's own ``Options``)."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from trainledger.core import source_kinds


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


KeyList = Annotated[list[str], BeforeValidator(_as_list)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# Network calls (a cloud API, MLflow, a webhook) wait at most ``timeout_s`` per attempt, to
# connect and for each read, and retry ``retries`` times with backoff: minutes at most, so a dead server
# never holds a night.
Seconds = Annotated[float, Field(gt=0, le=600)]
Retries = Annotated[int, Field(ge=0, le=10)]


class SourceOptions(Strict):
    """The keys of one source kind beside ``name``, ``kind`` and ``enabled``: each kind's module declares
    its own ``Options`` (connectors/contract.py), so a key another kind takes is an error naming the kind."""


OptionsT = TypeVar("OptionsT", bound=SourceOptions)
_COMMON = ("name", "kind", "enabled")


class SourceConfig(Strict):
    """One ``[[sources]]`` entry: its kind is one of the registry's, its other keys are that kind's."""

    name: str
    kind: str
    enabled: bool = True
    options: SerializeAsAny[SourceOptions] = Field(default_factory=SourceOptions)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        if value not in source_kinds.KINDS:
            expected = ", ".join(repr(k) for k in source_kinds.KINDS)
            raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
        return value

    @model_validator(mode="before")
    @classmethod
    def _kind_options(cls, data: Any) -> Any:
        """Validate every key but the common ones with the kind's own ``Options``."""
        if not isinstance(data, dict) or "options" in data or data.get("kind") not in source_kinds.KINDS:
            return data
        kind = data["kind"]
        model: type[SourceOptions] = source_kinds.module(kind).Options
        given = {k: v for k, v in data.items() if k not in _COMMON}
        try:
            options = model.model_validate(given)
        except ValidationError as exc:
            err = exc.errors()[0]
            context = {
                "option": ".".join(str(p) for p in err["loc"]),
                "kind": kind,
                "keys": ", ".join(model.model_fields),
            }
            raise PydanticCustomError(
                err["type"], err["msg"].replace("{", "{{").replace("}", "}}"), context
            ) from None
        return {**{k: v for k, v in data.items() if k in _COMMON}, "options": options}

    def options_as(self, model: type[OptionsT]) -> OptionsT:
        """The options typed as the kind's model (a connector asks for the model it declared)."""
        if not isinstance(self.options, model):
            raise TypeError(
                f"source {self.name!r}: options are {type(self.options).__name__}, not {model.__name__}"
            )
        return self.options
