"""The config's sections on what leaves trainledger: ``[exports]`` (nightly's files, the dashboard) and
``[alerts]`` (the webhook)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from trainledger.core.config_types import Retries, Seconds, Strict

ExportFormat = Literal["csv", "xlsx", "focus"]
# The FOCUS versions `export --format focus` writes; 1.2 until users opt in to 1.3's split cost allocation.
FocusVersion = Literal["1.2", "1.3"]
FOCUS_VERSIONS: tuple[FocusVersion, ...] = ("1.2", "1.3")


class ExportsConfig(Strict):
    dir: str | None = None
    format: list[ExportFormat] = Field(default=["csv"])  # pydantic copies the default per instance

    @field_validator("format", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        """`format = "xlsx"` or a list `format = ["csv", "xlsx"]`."""
        if value == []:
            raise ValueError("expected at least one of csv, xlsx, focus")
        return [value] if isinstance(value, str) else value

    focus_version: FocusVersion = "1.2"  # of the FOCUS file when format has focus (README "FOCUS export")

    @field_validator("focus_version", mode="before")
    @classmethod
    def _version_as_text(cls, value: Any) -> Any:
        """`focus_version = 1.3` written as a TOML number means "1.3" too."""
        return str(value) if isinstance(value, float) else value

    @property
    def formats(self) -> list[ExportFormat]:
        """The formats nightly writes, each once, in the order given."""
        return list(dict.fromkeys(self.format))

    # The static dashboard's folder (`trainledger site`), written by nightly after the exports.
    site: str | None = None

    @field_validator("site")
    @classmethod
    def _local_site(cls, value: str | None) -> str | None:
        if value is not None and "://" in value:
            raise ValueError(
                "expected a local folder; publish it afterwards (e.g. `aws s3 sync SITE s3://bucket/`)"
            )
        return value


class AlertsConfig(Strict):
    webhook_url: str | None = None
    timeout_s: Seconds = 5.0
    retries: Retries = 3
