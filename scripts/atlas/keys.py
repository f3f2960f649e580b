"""Which fields are text, and the translation key of each.

In:  validated models (a ``Release`` or the ``Sources``).
Out: ``TextItem``s: translation key, English template, the data file it lives in
     and the scope that resolves its placeholders. Validation, translation
     checks and rendering all walk texts through here, so a new text field is
     added in one place.

Keys look like ``215-dcp-strides.title``, ``215-dcp-strides.fix.0``,
``2.15.matrix.python_min.note`` or ``source.zh-arex-215.contribution``.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .schema import MATRIX_KEYS, Change, Fix, Note, Release, Rollback, Sources, text_fields

#: The text fields of a change (marked ``TEXT`` in schema.py), in key order (``<id>.title`` ...).
#: Nested texts: ``fix.steps``, ``rollback.note``, ``notes[].text``. The JSON API leaves all of
#: them out of a fact's values.
CHANGE_TEXTS = text_fields(Change)
CHANGE_TEXT_EXCLUDE = {**dict.fromkeys(CHANGE_TEXTS, True), **{f: set(text_fields(m)) for f, m in
                       (("fix", Fix), ("rollback", Rollback))}, "notes": {"__all__": set(text_fields(Note))}}


@dataclass(frozen=True)
class TextItem:
    key: str
    en: str
    file: str          # data file that holds the English text, relative to data/
    owner: str         # fact id (or release version) whose scope resolves placeholders
    field: str         # field path inside the fact, for error messages


def _own(model, key: str, owner: str, file: str, path: str = "") -> Iterator[TextItem]:
    """The TEXT fields of ``model``: key ``<key>.<field>``, field path ``<path><field>``."""
    for f in text_fields(type(model)):
        value = getattr(model, f)
        if value is not None:
            yield TextItem(f"{key}.{f}", value, file, owner, path + f)


def _notes(notes, key: str, owner: str, file: str) -> Iterator[TextItem]:
    """``<key>.note.<i>`` for each note's text."""
    for i, n in enumerate(notes):
        for f in text_fields(type(n)):
            yield TextItem(f"{key}.note.{i}", getattr(n, f), file, owner, f"notes.{i}.{f}")


def release_texts(rel: Release, file: str) -> Iterator[TextItem]:
    v = rel.version
    yield from _own(rel, v, v, file)
    yield from _notes(rel.notes, v, v, file)
    for k in MATRIX_KEYS:
        cell = getattr(rel.matrix, k)
        if cell is not None:
            yield from _own(cell, f"{v}.matrix.{k}", f"{v}.matrix.{k}", file, f"matrix.{k}.")
    for c in rel.changes:
        yield from _own(c, c.id, c.id, file)
        if c.fix:   # one key per step: <id>.fix.<i>
            for f in text_fields(Fix):
                for i, step in enumerate(getattr(c.fix, f)):
                    yield TextItem(f"{c.id}.fix.{i}", step, file, c.id, f"fix.{f}.{i}")
        if c.rollback:   # <id>.rollback
            for f in text_fields(Rollback):
                yield TextItem(f"{c.id}.rollback", getattr(c.rollback, f), file, c.id, f"rollback.{f}")
        yield from _notes(c.notes, c.id, c.id, file)
    for item in (*rel.faq, *rel.events, *rel.coverage):
        yield from _own(item, item.id, item.id, file)
        yield from _notes(getattr(item, "notes", []), item.id, item.id, file)


def source_texts(src: Sources, file: str) -> Iterator[TextItem]:
    for s in src.sources:
        yield from _own(s, f"source.{s.id}", f"source.{s.id}", file)


def translation_file(lang: str, en_file: str) -> str:
    """``data/releases/2.15.yaml`` -> ``data/translations/zh/releases/2.15.yaml``."""
    rel = en_file.split("data/", 1)[1] if en_file.startswith("data/") else en_file
    return f"data/translations/{lang}/{rel}"


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split("."))


def release_scope(rel: Release) -> dict:
    """Values every text of a release may name: ``{version}``, ``{commits}``, ..."""
    names = ("version", "full_version", "previous", "released", "published_at", "commits", "contributors")
    return {n: getattr(rel, n) for n in names if getattr(rel, n) is not None}


def earlier_scope(c: Change) -> dict:
    """``{earlier.wheel}`` and ``{earlier.file}``: what a disagreement note of the change says an
    earlier wheel already ships (``schema.Earlier``)."""
    e = c.earlier
    return {"earlier.wheel": e.wheel, "earlier.file": e.file} if e else {}


def scopes(releases: list[Release], sources: Sources | None = None) -> dict[str, dict]:
    """owner id -> the mapping that resolves its placeholders.

    An owner sees its release's values (plus ``{next}``, the following known
    release), its own ``values`` (a change also its ``earlier_scope``), and every change's values as
    ``{change-id.name}``. A matrix note also sees its cell as ``{value}``; a
    source text sees the release it is about as ``{about}``.
    """
    cross: dict = {}
    nexts = {r.version: n.version for r, n in zip(releases, releases[1:])}
    for rel in releases:
        base = release_scope(rel)
        for c in rel.changes:
            for name, value in {**base, **c.values}.items():
                cross[f"{c.id}.{name}"] = value
    out: dict[str, dict] = {}
    for rel in releases:
        base = {**cross, **release_scope(rel)}
        if rel.version in nexts:
            base["next"] = nexts[rel.version]
        out[rel.version] = base
        for k in MATRIX_KEYS:
            cell = getattr(rel.matrix, k)
            if cell is not None:
                out[f"{rel.version}.matrix.{k}"] = {**base, "value": cell.value}
        for c in rel.changes:
            out[c.id] = {**base, **c.values, **earlier_scope(c)}
        for item in (*rel.faq, *rel.events):
            out[item.id] = base
        for cov in rel.coverage:
            out[cov.id] = {**base, **cov.values}
    for s in sources.sources if sources else []:
        out[f"source.{s.id}"] = {**cross, "about": s.about}
    return out
