"""The project's one error type for bad input.

Every parser of outside input raises `InputError` with the position of the fault, so the command line
can print exactly one line ("FILE:LINE: what was wanted") and exit with status 2.
"""

from __future__ import annotations

import sys


class InputError(Exception):
    """Bad input: a file, a line or key in it, and what was wanted."""

    def __init__(self, message: str, source: str | None = None, where: str | int | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.where = where

    def __str__(self) -> str:
        place = ""
        if self.source:
            place = str(self.source)
            if self.where is not None:
                place += f":{self.where}"
            place += ": "
        elif self.where is not None:
            place = f"{self.where}: "
        return place + self.message


def stderr_warning(message: str) -> None:
    """The readers' default for a warning about damaged input: one line on standard error."""
    print(f"bgpsim: warning: {message}", file=sys.stderr)
