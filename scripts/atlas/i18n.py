"""Translations: lookup, consistency checks and the staleness report.

In:  a ``FactBase`` (English texts with their keys, translation entries).
Out: ``text_for(fb, key, lang)`` for rendering, ``problems(fb)`` for tests and
     the build, and a command line:

    python scripts/i18n.py status            # counts per language
    python scripts/i18n.py check [LANG]      # every problem, one line each
    python scripts/i18n.py todo [LANG]       # key and English text of what needs work
    python scripts/i18n.py stale [LANG]      # translations whose English changed
    python scripts/i18n.py missing [LANG]    # keys with no translation
    python scripts/i18n.py stub LANG         # add missing keys (empty text) to the files
    python scripts/i18n.py stamp LANG KEY..  # mark reviewed translations as current
    python scripts/i18n.py stamp-ui LANG [KEY..]  # the same for UI strings (data/i18n/)

Every translation stores ``en_hash``, the first 10 hex digits of the SHA-256 of
the English text it was made from. When the English changes, the hash no
longer matches and the translation is stale until a translator updates the
text and runs ``stamp``.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

from .load import TRANSLATED
from .text import bare_numbers, identifiers, placeholders


def en_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:10]


@dataclass(frozen=True)
class Problem:
    kind: str      # missing | stale | placeholders | number | identifier | orphan | empty
    lang: str
    key: str
    file: str
    detail: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key}: [{self.lang}] {self.kind}: {self.detail}"


def text_for(fb, key: str, lang: str, en: str) -> str:
    """The template to render for ``lang``; English when asked for ``en``."""
    if lang == "en":
        return en
    entry = fb.translations[lang].get(key)
    if entry is None or not entry[0].text.strip():
        raise KeyError(f"no {lang} translation for {key}; run: python scripts/i18n.py stub {lang}")
    return entry[0].text


def problems(fb, langs=TRANSLATED) -> list[Problem]:
    """Every inconsistency between the English texts and their translations."""
    from .keys import translation_file

    out: list[Problem] = []
    en_keys = {t.key for t in fb.texts}
    for lang in langs:
        table = fb.translations.get(lang, {})
        for t in fb.texts:
            tfile = translation_file(lang, t.file)
            entry = table.get(t.key)
            if entry is None:
                out.append(Problem("missing", lang, t.key, tfile, f"no translation; run: python scripts/i18n.py stub {lang}"))
                continue
            tr, tfile = entry
            if not tr.text.strip():
                out.append(Problem("empty", lang, t.key, tfile, "translation text is empty"))
                continue
            if tr.en_hash != en_hash(t.en):
                out.append(Problem("stale", lang, t.key, tfile,
                                   f"English changed since this was translated; update the text, then run: "
                                   f"python scripts/i18n.py stamp {lang} {t.key}"))
            want, got = Counter(placeholders(t.en)), Counter(placeholders(tr.text))
            if set(want) != set(got):
                out.append(Problem("placeholders", lang, t.key, tfile,
                                   f"placeholders {sorted(got)} differ from English {sorted(want)}"))
            for num in bare_numbers(tr.text):
                out.append(Problem("number", lang, t.key, tfile,
                                   f"number '{num}' typed into the translation; use the placeholder the English uses"))
            foreign = identifiers(tr.text) - identifiers(t.en)
            if foreign:
                out.append(Problem("identifier", lang, t.key, tfile,
                                   f"identifier(s) {sorted(foreign)} not in the English text; "
                                   f"keep API names exactly as in English or use its placeholders"))
        for key, (_, tfile) in sorted(table.items()):
            if key not in en_keys:
                out.append(Problem("orphan", lang, key, tfile, "no English text has this key; delete it"))
        out += ui_problems(fb, lang)
    return out


UI_SOURCES = "data/i18n/translated_from.yaml"


def ui_problems(fb, lang: str) -> list[Problem]:
    """UI strings: a translation is stale when the English string changed after it was made."""
    made_from = (fb.ui_sources or {}).get(lang, {})
    out = []
    for key, en in fb.ui.get("en", {}).items():
        if key not in fb.ui.get(lang, {}):
            continue  # a missing UI string is a validation error already
        if made_from.get(key) != en_hash(en):
            out.append(Problem("stale", lang, f"ui:{key}", f"data/i18n/{lang}.yaml",
                               f"English UI string changed (or was never recorded in {UI_SOURCES}); "
                               f"update the translation, then run: python scripts/i18n.py stamp-ui {lang} {key}"))
    return out
