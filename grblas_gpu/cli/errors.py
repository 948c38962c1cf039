"""The command's own error: a problem with its input, reported on one line."""

from __future__ import annotations

__all__ = ["CliError"]


class CliError(Exception):
    """A problem with the command's input, reported as one line on stderr (exit status 1)."""
