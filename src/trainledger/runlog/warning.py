"""The one way the run logger reports trouble: a ``RunlogWarning``, never an exception (the job goes on)."""

from __future__ import annotations

import warnings


class RunlogWarning(UserWarning):
    """A run could not be (fully) recorded; the job goes on."""


def warn(message: str) -> None:
    warnings.warn(message, RunlogWarning, stacklevel=3)
