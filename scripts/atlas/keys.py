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

from dataclasses import dataclass
from typing import Iterator

from .schema import MATRIX_KEYS, Release, Sources


#: The text fields of a change, in key order (``<id>.title`` ...). Nested texts: ``fix.steps``,
#: ``rollback.note``, ``notes[].text``. The JSON API leaves all of them out of a fact's values.
CHANGE_TEXTS = ("title", "summary", "affected", "symptom")
CHANGE_TEXT_EXCLUDE = {**{f: True for f in CHANGE_TEXTS}, "fix": {"steps"}, "rollback": {"note"},
                       "notes": {"__all__": {"text"}}}


@dataclass(frozen=True)
class TextItem:
    key: str
    en: str
    file: str          # data file that holds the English text, relative to data/
    owner: str         # fact id (or release version) whose scope resolves placeholders
    field: str         # field path inside the fact, for error messages


def release_texts(rel: Release, file: str) -> Iterator[TextItem]:
    v = rel.version
    yield TextItem(f"{v}.headline", rel.headline, file, v, "headline")
    for i, n in enumerate(rel.notes):
        yield TextItem(f"{v}.note.{i}", n.text, file, v, f"notes.{i}.text")
    for k in MATRIX_KEYS:
        cell = getattr(rel.matrix, k)
        if cell is not None and cell.note:
            yield TextItem(f"{v}.matrix.{k}.note", cell.note, file, f"{v}.matrix.{k}", f"matrix.{k}.note")
    for c in rel.changes:
        for f in CHANGE_TEXTS:
            if getattr(c, f):
                yield TextItem(f"{c.id}.{f}", getattr(c, f), file, c.id, f)
        if c.fix:
            for i, s in enumerate(c.fix.steps):
                yield TextItem(f"{c.id}.fix.{i}", s, file, c.id, f"fix.steps.{i}")
        if c.rollback:
            yield TextItem(f"{c.id}.rollback", c.rollback.note, file, c.id, "rollback.note")
        for i, n in enumerate(c.notes):
            yield TextItem(f"{c.id}.note.{i}", n.text, file, c.id, f"notes.{i}.text")
    for q in rel.faq:
        yield TextItem(f"{q.id}.question", q.question, file, q.id, "question")
        yield TextItem(f"{q.id}.answer", q.answer, file, q.id, "answer")
        for i, n in enumerate(q.notes):
            yield TextItem(f"{q.id}.note.{i}", n.text, file, q.id, f"notes.{i}.text")
    for e in rel.events:
        yield TextItem(f"{e.id}.title", e.title, file, e.id, "title")
        yield TextItem(f"{e.id}.summary", e.summary, file, e.id, "summary")
        for i, n in enumerate(e.notes):
            yield TextItem(f"{e.id}.note.{i}", n.text, file, e.id, f"notes.{i}.text")
    for cov in rel.coverage:
        yield TextItem(f"{cov.id}.summary", cov.summary, file, cov.id, "summary")


def source_texts(src: Sources, file: str) -> Iterator[TextItem]:
    for s in src.sources:
        yield TextItem(f"source.{s.id}.form", s.form, file, f"source.{s.id}", "form")
        yield TextItem(f"source.{s.id}.description", s.description, file, f"source.{s.id}", "description")
        if s.date_note:
            yield TextItem(f"source.{s.id}.date_note", s.date_note, file, f"source.{s.id}", "date_note")
        yield TextItem(f"source.{s.id}.contribution", s.contribution, file, f"source.{s.id}", "contribution")


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


def scopes(releases: list[Release], sources: Sources | None = None) -> dict[str, dict]:
    """owner id -> the mapping that resolves its placeholders.

    An owner sees its release's values (plus ``{next}``, the following known
    release), its own ``values``, and every change's values as
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
            out[c.id] = {**base, **c.values}
        for item in (*rel.faq, *rel.events):
            out[item.id] = base
        for cov in rel.coverage:
            out[cov.id] = {**base, **cov.values}
    for s in sources.sources if sources else []:
        out[f"source.{s.id}"] = {**cross, "about": s.about}
    return out
