"""Render again only the pages an edit of fact texts or templates changes (``mkdocs serve``, pipeline.generate).

In:  the enriched facts (``Atlas``), the languages, the site URL, ``others`` (a fingerprint of
     every input that is neither a fact file's text nor a template: the other data files, by their
     bytes) and the previous run's ``Rendered`` (or None).
Out: ``Rendered``: every page's Markdown, the fact text keys and templates each page read, and
     what the next run compares against; ``rendered`` says how many pages this run rendered.

The one shortcut, and why it is safe: when the facts with every text replaced by whether it is
empty (releases, sources, translations: ``shape``) and ``others`` are unchanged, and the one part
of enrich that reads English text (the wheel checks: wheel/evidence.py ``text_roles``) gives the
same verdicts, then the texts and the templates are the only difference. A text reaches a page only
through the renderer's ``fact_html`` / ``fact_plain``, which record it, and a template only as the
page's own or one it imports (render.render_tracked records both). So only the pages that read a
changed text, in that language, or a changed template are rendered again; the others keep their
Markdown. Any other edit (a value, a date, a UI string, a release added, the code: a new process or
a reloaded pipeline) renders every page. tests/test_serve.py checks the result against a full render
after each kind of edit.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .enrich import Atlas
from .i18n import text_for
from .render import TEMPLATE_KEY, render_tracked, template_hashes
from .schema import text_fields
from .validate import FactBase


@dataclass
class Rendered:
    shape: str                         # hash of everything but the texts (see the module docstring)
    texts: dict[tuple[str, str], str]  # (language, text key) -> the text rendered for it
    checks: dict                       # Atlas.checks: the verdicts that read English text
    templates: dict[str, str]          # template name -> hash of its bytes
    pages: dict[str, str]              # "<lang>/<path>.md" -> Markdown
    reads: dict[str, frozenset]        # "<lang>/<path>.md" -> the text keys and TEMPLATE_KEY + templates it read
    rendered: int                      # pages rendered by this run


def _masked(obj: Any) -> Any:
    """``obj`` with each TEXT field of a model (schema.text_fields) replaced by whether it is
    empty, in field order; types kept apart (1, 1.0 and True differ)."""
    if isinstance(obj, BaseModel):
        texts = text_fields(type(obj))
        return (type(obj).__name__, tuple(
            (name, _blank(getattr(obj, name)) if name in texts else _masked(getattr(obj, name)))
            for name in type(obj).model_fields))
    if isinstance(obj, (list, tuple)):
        return tuple(_masked(x) for x in obj)
    if isinstance(obj, dict):
        return tuple((k, _masked(v)) for k, v in obj.items())
    return (type(obj).__name__, repr(obj))


def _blank(text: Any) -> Any:
    """A text (or a list of texts, as ``fix.steps``) -> whether each is empty."""
    if isinstance(text, (list, tuple)):
        return tuple(bool(t) for t in text)
    return None if text is None else bool(text)


def shape(fb: FactBase, langs, site_url: str, others: str) -> str:
    """A hash of every input of the pages except the texts of the facts."""
    translations = {lang: tuple((key, entry.en_hash, bool(entry.text), file) for key, (entry, file) in by_key.items())
                    for lang, by_key in fb.translations.items()}
    parts = (tuple(langs), site_url, others, fb.release_files, fb.sources_file, _masked(fb.releases),
             _masked(fb.sources), translations, tuple((t.key, t.file, t.owner, t.field) for t in fb.texts))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def texts(fb: FactBase, langs) -> dict[tuple[str, str], str]:
    """(language, key) -> the text the renderer reads for it (English, or the translation)."""
    out = {}
    for lang in langs:
        for t in fb.texts:
            try:
                out[lang, t.key] = text_for(fb, t.key, lang, t.en)
            except KeyError:    # no translation: i18n.absent stops the pipeline before rendering
                out[lang, t.key] = None
    return out


def render(atlas: Atlas, langs, site_url: str, others: str, previous: Rendered | None) -> Rendered:
    """Every page of ``langs``: rendered again only where a text or a template it read changed, when
    the texts and the templates are all that changed since ``previous``; otherwise all of them."""
    sh, tx, tpl = shape(atlas.fb, langs, site_url, others), texts(atlas.fb, langs), template_hashes()
    if previous is None or previous.shape != sh or previous.checks != atlas.checks:
        pages, reads = render_tracked(atlas, langs, site_url)
        return Rendered(sh, tx, atlas.checks, tpl, pages, reads, len(pages))
    changed = {k for k in tx.keys() | previous.texts.keys() if tx.get(k) != previous.texts.get(k)}
    edited = {TEMPLATE_KEY + n for n in tpl.keys() | previous.templates.keys() if tpl.get(n) != previous.templates.get(n)}
    only = {page for page, keys in previous.reads.items()
            if keys & edited or any((page.split("/", 1)[0], key) in changed for key in keys)}
    pages, reads = render_tracked(atlas, langs, site_url, only) if only else ({}, {})
    return Rendered(sh, tx, atlas.checks, tpl, {**previous.pages, **pages}, {**previous.reads, **reads}, len(pages))
