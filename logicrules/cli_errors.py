"""The errors of the command line: what :func:`logicrules.cli.main` reports as one line on stderr."""

from __future__ import annotations


class CommandError(Exception):
    """A problem with the user's data or files, reported as one line on stderr (exit status 1)."""

    status = 1


class UsageError(CommandError):
    """Options that do not fit together (exit status 2, as argparse's own usage errors)."""

    status = 2
