"""One exception tree, so the CLI has one error boundary and one exit code per kind of failure."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes (SPEC §7); a scheduler alerts on BUDGET."""

    OK = 0
    USER_ERROR = 1
    BUDGET = 2
    INTERNAL = 3
    BUSY = 75  # sysexits.h EX_TEMPFAIL: another run holds the warehouse; try again later


class TrainledgerError(Exception):
    """Root of every error the user can act on; the message is one line, shown as is."""

    exit_code = ExitCode.USER_ERROR


class ConfigError(TrainledgerError):
    """The config file is missing, unreadable or has an unknown or invalid key."""


class InputError(TrainledgerError):
    """A billing file, experiment log or ledger is not what its kind promises."""


class SourceError(TrainledgerError):
    """A source could not be reached or read (permissions, missing bucket, network)."""


class WarehouseBusy(TrainledgerError):
    """Another trainledger process holds the warehouse for writing."""

    exit_code = ExitCode.BUSY


class WarehouseFault(TrainledgerError):
    """The warehouse file is truncated or corrupt, or its disk is full: the machine's fault, not the input's."""


class NotFound(TrainledgerError):
    """A named experiment, period or object does not exist in the warehouse."""


class InvariantViolation(TrainledgerError):
    """Allocations no longer add up to the bill; the run is rolled back."""

    exit_code = ExitCode.INTERNAL
