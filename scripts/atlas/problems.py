"""The one problem type of the pipeline, and how a command reports it.

In:  what any step finds wrong: a file, the fact id (``-`` for none), the field, the message.
Out: ``Problem`` (a ``str`` that reads ``file: id: field: message`` and keeps its four parts),
     ``Problems`` (the collector every step appends to) and ``DataError`` (raised with them;
     the build stops and the last good site stays).

Knock-on errors: when a fact cannot be parsed, the step says so once with ``broken(file, id)``;
later problems of the same fact that only follow from it (``knock_on=True``) are dropped, so
one typo gives one message, not one per reference to the fact.
"""
from __future__ import annotations

from collections.abc import Iterable


class Problem(str):
    """``file: id: field: message``. A ``str``, so it prints, sorts and compares as its text."""

    file: str
    id: str
    field: str
    message: str
    #: for a translation: its language, and what kind of problem (missing, stale, glossary...)
    lang: str
    kind: str

    def __new__(cls, file: str, id: str, field: str, message: str, *, kind: str = "", lang: str = "") -> Problem:  # noqa: A002
        self = super().__new__(cls, f"{file}: {id}: {field}: {message}")
        self.file, self.id, self.field, self.message = str(file), str(id), str(field), str(message)
        self.kind, self.lang = kind, lang
        return self

    @property
    def key(self) -> str:
        """A translation's key (``<owner>.<field>``, ``ui:<key>``): its id."""
        return self.id

    @property
    def detail(self) -> str:
        return self.message

    @classmethod
    def of(cls, text: str) -> Problem:
        """A problem from its text (``file: id: field: message``); a text that is not in that
        shape is kept whole as the message, with ``-`` for the parts it lacks."""
        if isinstance(text, Problem):
            return text
        parts = str(text).split(": ", 3)
        if len(parts) < 4:
            return cls("-", "-", "-", str(text)) if len(parts) < 2 else cls(parts[0], "-", "-", ": ".join(parts[1:]))
        return cls(*parts)


class Problems(list):
    """The collector: ``add(file, id, field, message)``, or ``append`` a problem's text.

    ``broken(file, id)`` records that a fact could not be read at all; ``add(..., knock_on=True)``
    is then dropped for that fact (its references, its translations...)."""

    def __init__(self, items: Iterable = ()):
        super().__init__(Problem.of(p) for p in items)
        self._broken: set[tuple[str, str]] = set()
        #: fact id -> the fields that failed to parse and were left out (a text naming one as a
        #: placeholder is a knock-on error, not another problem)
        self.dropped: dict[str, set[str]] = {}

    def add(self, file: str, id: str, field: str, message: str, knock_on: bool = False) -> None:  # noqa: A002
        if knock_on and ((file, id) in self._broken or ("*", id) in self._broken):
            return
        self.append(Problem(file, id, field, message))

    def append(self, item) -> None:
        super().append(Problem.of(item))

    def extend(self, items) -> None:
        for item in items:
            self.append(item)

    def __iadd__(self, items):
        self.extend(items)
        return self

    def __setitem__(self, index, value) -> None:
        super().__setitem__(index, Problem.of(value))

    def broken(self, file: str, id: str, fields=()) -> None:  # noqa: A002
        """The fact ``id`` (in ``file``; ``"*"``: wherever it is referred to) could not be read,
        or only without ``fields``."""
        self._broken.add((file, id))
        self.dropped.setdefault(id, set()).update(fields)

    def is_broken(self, id: str) -> bool:  # noqa: A002
        return any(i == id for _, i in self._broken)


class DataError(Exception):
    """Invalid data. ``problems`` holds every ``Problem``, each naming file, fact id and field."""

    def __init__(self, problems: Iterable):
        self.problems = list(Problems(problems))
        super().__init__("\n".join(self.problems))


def report_lines(problems: list[str]) -> str:
    """What a command prints for bad data: one problem a line, then their count."""
    return "\n".join([*problems, f"{len(problems)} problem(s)"])


class UsageError(Exception):
    """A command cannot run as asked (a wrong command line, a missing folder, a failed download);
    the message says what to do instead."""
