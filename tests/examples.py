"""The configuration examples users copy: README's ```toml blocks by section, and the commented examples of
`trainledger init`'s starter made live, so tests can run them rather than read them."""

from __future__ import annotations

import re
from pathlib import Path

from trainledger.core import starter

README = Path(__file__).parents[1] / "README.md"


def readme_toml(heading: str) -> list[str]:
    """The ```toml blocks of the README section whose ``## `` heading starts with ``heading``."""
    text = README.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```toml\n(.*?)```", section, re.S)


def init_with(*lines: str, instead_of: tuple[str, ...] = ()) -> str:
    """The starter config with the first commented line starting with each of ``lines`` uncommented, and the
    live lines ``instead_of`` (exactly as written there) removed, as a user following its comments would."""
    text = starter.starter()
    for line in lines:
        assert f"\n# {line}" in text, f"init has no commented example starting {line!r}"
        text = text.replace(f"\n# {line}", f"\n{line}", 1)
    for line in instead_of:
        assert f"\n{line}\n" in text, f"init has no live line {line!r}"
        text = text.replace(f"\n{line}\n", "\n", 1)
    return text
