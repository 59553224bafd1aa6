"""Slurm hostlists (``gpu-[01-02],login1``) expanded into node names.

Syntax, from Slurm's hostlist documentation: hostnames or bracketed hostlists separated by commas or
whitespace; a bracketed hostlist is a common prefix followed by numeric ranges in brackets, e.g.
``tux[0-5,12,20-25]``. Leading zeros are kept by width (``gpu-[08-10]`` → gpu-08, gpu-09, gpu-10), and a
name may hold several bracket groups (``rack[1-2]-n[1-2]``). BlueGene's 3-D form (``bgl[123x456]``) is refused.
"""

from __future__ import annotations

import re

from trainledger.core.errors import InputError

_GROUP = re.compile(r"\[([^\]]*)\]")
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
MAX_NODES = 100_000  # a typo such as n[1-999999999] must not exhaust memory


def _split_top(text: str) -> list[str]:
    """Split on commas and whitespace outside brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if depth == 0 and (char == "," or char.isspace()):
            if current:
                parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return parts


def _numbers(group: str, where: str) -> list[str]:
    out: list[str] = []
    for item in group.split(","):
        match = _RANGE.match(item.strip())
        if not match:
            raise InputError(f"{where}: hostlist range {item!r} is not N or N-M")
        low, high = match.group(1), match.group(2) or match.group(1)
        if int(high) < int(low) or int(high) - int(low) >= MAX_NODES:
            raise InputError(f"{where}: hostlist range {item!r} is empty or too large")
        width = len(low) if low.startswith("0") else 0
        out.extend(str(n).zfill(width) for n in range(int(low), int(high) + 1))
    return out


def _expand_one(name: str, where: str) -> list[str]:
    match = _GROUP.search(name)
    if not match:
        if "[" in name or "]" in name:
            raise InputError(f"{where}: hostlist {name!r} has an unbalanced bracket")
        return [name]
    prefix, rest = name[: match.start()], name[match.end() :]
    tails = _expand_one(rest, where)
    return [f"{prefix}{n}{tail}" for n in _numbers(match.group(1), where) for tail in tails]


def expand(hostlist: str, where: str) -> list[str]:
    """The node names of ``hostlist`` in order, without repeats; ``""`` / ``None assigned`` give none."""
    text = (hostlist or "").strip()
    if not text or text.lower() in ("none assigned", "(null)"):
        return []
    nodes: list[str] = []
    seen: set[str] = set()
    for part in _split_top(text):
        for node in _expand_one(part, where):
            if node not in seen:
                seen.add(node)
                nodes.append(node)
            if len(nodes) > MAX_NODES:
                raise InputError(f"{where}: hostlist {hostlist!r} names more than {MAX_NODES} nodes")
    return nodes


def check(hostlist: str | None, key: str) -> None:
    """For a config model's validator: ValueError (pydantic's way) unless ``hostlist`` expands, without the
    key, which pydantic names itself."""
    if hostlist is not None:
        try:
            expand(hostlist, key)
        except InputError as exc:
            raise ValueError(str(exc).removeprefix(f"{key}: ")) from None
