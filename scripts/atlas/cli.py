"""How the command-line scripts end: a clean message and a non-zero exit, never a traceback.

In:  a script's ``main`` function.
Out: ``run(main)`` calls it and turns a ``DataError`` (bad data: one line per problem, each
     ``file: id: field: message``) or a ``UsageError`` (a wrong command line, a missing folder,
     a failed download) into a message on stderr and exit status 1 (2 for usage).
"""
from __future__ import annotations

import sys
from typing import Callable

from .load import DataError


class UsageError(Exception):
    """The command cannot run as asked; the message says what to do instead."""


def run(main: Callable[[], int]) -> int:
    try:
        return main()
    except DataError as exc:
        print(exc, file=sys.stderr)
        return 1
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
