"""Translations: lookup, consistency checks and the staleness report.

In:  a ``FactBase`` (English texts with their keys, translation entries).
Out: ``text_for(fb, key, lang)`` for rendering, ``absent(fb)`` and ``placeholder_problems(fb)`` for the build, ``problems(fb)``
     for tests, and a command line:

    atlas i18n status            # counts per language
    atlas i18n check [LANG]      # every problem, one line each
    atlas i18n todo [LANG]       # key and English text of what needs work
    atlas i18n stale [LANG]      # translations whose English changed
    atlas i18n missing [LANG]    # keys with no translation
    atlas i18n stub LANG         # add missing keys (empty text) to the files
    atlas i18n stamp LANG KEY..  # mark reviewed translations as current
    atlas i18n stamp-ui LANG [KEY..]  # the same for UI strings (data/i18n/)

Wording: an avoided rendering of ``data/glossary.yaml`` in a translation or UI
string is a ``glossary`` problem, and ASCII punctuation next to Chinese a
``punctuation`` problem (code, identifiers and placeholders are left alone).

Every translation stores ``en_hash``, the first 10 hex digits of the SHA-256 of
the English text it was made from. When the English changes, the hash no
longer matches and the translation is stale until a translator updates the
text and runs ``stamp``.
"""
from __future__ import annotations

import hashlib
import re
from functools import cache
from typing import Optional

from . import plural
from .langs import SOURCE, TRANSLATED
from .problems import Problem
from .text import bare_numbers, identifiers, mask_code, placeholders


def en_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:10]


def _problem(kind: str, lang: str, key: str, file: str, detail: str) -> Problem:
    """``file: key: [lang] kind: detail``, the pipeline's one problem type."""
    return Problem(file, key, f"[{lang}] {kind}", detail, kind=kind, lang=lang)


def text_for(fb, key: str, lang: str, en: str) -> str:
    """The template to render for ``lang``; English when asked for ``en``."""
    if lang == SOURCE:
        return en
    entry = fb.translations[lang].get(key)
    if entry is None or not entry[0].text.strip():
        raise KeyError(f"no {lang} translation for {key}; run: atlas i18n stub {lang}")
    return entry[0].text


def _absence(lang: str, t, entry) -> Problem | None:
    """A ``missing`` or ``empty`` problem for English text ``t`` and its translation entry, or None."""
    from .keys import translation_file

    if entry is None:
        return _problem("missing", lang, t.key, translation_file(lang, t.file),
                       f"no translation; run: atlas i18n stub {lang}")
    if not entry[0].text.strip():
        return _problem("empty", lang, t.key, entry[1], "translation text is empty")
    return None


def absent(fb, langs=TRANSLATED) -> list[Problem]:
    """Only the translations that are missing or empty: what stops a build (``problems`` has the rest)."""
    return [p for lang in langs for t in fb.texts
            if (p := _absence(lang, t, fb.translations.get(lang, {}).get(t.key))) is not None]


def _placeholders(lang: str, key: str, file: str, en: str, text: str) -> Optional[Problem]:
    """A translation that drops or adds a ``{placeholder}`` of its English: it would render a value
    the English does not say, or leave one out."""
    want, got = set(placeholders(en)), set(placeholders(text))
    if want == got:
        return None
    return _problem("placeholders", lang, key, file, f"placeholders {sorted(got)} differ from English {sorted(want)}")


def placeholder_problems(fb, langs=TRANSLATED) -> list[Problem]:
    """Every current fact text and UI string whose placeholders differ from the English: what stops
    a build beside ``absent`` (a wrong placeholder is a wrong or missing value on a published page)."""
    out = []
    for lang in langs:
        table = fb.translations.get(lang, {})
        for t in fb.texts:
            entry = table.get(t.key)
            # a stale translation (its English changed since) is reported as stale; it does not stop a build
            if entry is not None and entry[0].text.strip() and entry[0].en_hash == en_hash(t.en):
                p = _placeholders(lang, t.key, entry[1], t.en, entry[0].text)
                if p:
                    out.append(p)
        for key, en in fb.ui.get(SOURCE, {}).items():
            if key in fb.ui.get(lang, {}):
                p = _placeholders(lang, f"ui:{key}", f"data/i18n/{lang}.yaml", en, fb.ui[lang][key])
                if p:
                    out.append(p)
    return out


def problems(fb, langs=TRANSLATED) -> list[Problem]:
    """Every inconsistency between the English texts and their translations."""
    out: list[Problem] = []
    en_keys = {t.key for t in fb.texts}
    for lang in langs:
        table = fb.translations.get(lang, {})
        for t in fb.texts:
            entry = table.get(t.key)
            gone = _absence(lang, t, entry)
            if gone is not None:
                out.append(gone)
                continue
            tr, tfile = entry
            if tr.en_hash != en_hash(t.en):
                out.append(_problem("stale", lang, t.key, tfile,
                                   f"English changed since this was translated; update the text, then run: "
                                   f"atlas i18n stamp {lang} {t.key}"))
            p = _placeholders(lang, t.key, tfile, t.en, tr.text)
            if p:
                out.append(p)
            for num in bare_numbers(tr.text):
                out.append(_problem("number", lang, t.key, tfile,
                                   f"number '{num}' typed into the translation; use the placeholder the English uses"))
            foreign = identifiers(tr.text) - identifiers(t.en)
            if foreign:
                out.append(_problem("identifier", lang, t.key, tfile,
                                   f"identifier(s) {sorted(foreign)} not in the English text; "
                                   f"keep API names exactly as in English or use its placeholders"))
            out += wording_problems(fb, lang, t.key, tfile, tr.text)
        for key, (_, tfile) in sorted(table.items()):
            if key not in en_keys:
                out.append(_problem("orphan", lang, key, tfile, "no English text has this key; delete it"))
        out += ui_problems(fb, lang)
        for key, text in fb.ui.get(lang, {}).items():
            out += wording_problems(fb, lang, f"ui:{key}", f"data/i18n/{lang}.yaml", text)
    return out


# --- wording: the glossary, and Chinese punctuation -------------------------------------------
GLOSSARY = "data/glossary.yaml"
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_ASCII_PUNCT = re.compile(r"[,;:()!?\"']")


@cache
def _avoid_pattern(avoid: str, lang: str) -> re.Pattern:
    """An avoided rendering as a regex: whole words ("*" = any ending); Chinese: anywhere."""
    words = [re.escape(w[:-1]) + r"\w*" if w.endswith("*") else re.escape(w) for w in avoid.split()]
    body = r"\s+".join(words)
    return re.compile(body if lang == "zh" else rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


def glossary_hits(entries, lang: str, text: str) -> list[tuple[str, str, str]]:
    """(concept, avoided rendering, the words found) for every avoided rendering in ``text``."""
    prose = mask_code(text)
    hits = []
    for e in entries:
        term = e.terms.get(lang)
        for bad in term.avoid if term else ():
            for m in _avoid_pattern(bad, lang).finditer(prose):
                hits.append((e.id, bad, m.group(0)))
    return hits


def fullwidth_hits(text: str) -> list[str]:
    """Chinese: ASCII , ; : ( ) ! ? and straight quotes next to a Han character, with context.
    Code, identifiers, placeholders and link targets are left alone."""
    prose = mask_code(text)
    hits = []
    for m in _ASCII_PUNCT.finditer(prose):
        left, right = prose[:m.start()].rstrip()[-1:], prose[m.end():].lstrip()[:1]
        if _HAN.match(left) or _HAN.match(right):
            hits.append(text[max(0, m.start() - 8):m.end() + 8])
    return hits


#: Chinese full-width marks: each carries its own spacing, so no space goes next to one.
_FULL = "，。；：！？、（）“”"
_SPACED_MARK = re.compile(f"[{_FULL}][ \\t]+(?=[^\\s·])|(?<=[^\\s·])[ \\t]+[{_FULL}]")   # " · " separates items


def zh_spacing_hits(text: str) -> list[str]:
    """Chinese prose (one line per block, tags gone): a space after or before a full-width mark
    ("。 如果", "torch.qr （自"), and a full-width bracket inside another ("（…（…）…）"), with context."""
    hits = [text[max(0, m.start() - 8):m.end() + 8] for m in _SPACED_MARK.finditer(text)]
    for line in text.splitlines():
        depth = 0
        for i, ch in enumerate(line):
            depth += {"（": 1, "）": -1}.get(ch, 0)
            if ch == "（" and depth > 1:
                hits.append(line[max(0, i - 12):i + 12])
            depth = max(depth, 0)
    return hits


def wording_problems(fb, lang: str, key: str, file: str, text: str) -> list[Problem]:
    out = []
    for concept, bad, found in glossary_hits(fb.glossary, lang, text):
        use = next(e for e in fb.glossary if e.id == concept).terms[lang].use
        out.append(_problem("glossary", lang, key, file,
                           f"'{found}' for the concept '{concept}': {GLOSSARY} says use '{use}' and avoid '{bad}'"))
    if lang == "zh":
        for ctx in fullwidth_hits(text):
            out.append(_problem("punctuation", lang, key, file,
                               f"ASCII punctuation or a straight quote next to Chinese in '{ctx}'; "
                               f"use full-width ，；：（）！？ and “”"))
    return out


UI_SOURCES = "data/i18n/translated_from.yaml"


def ui_hash(fb, key: str) -> str:
    """The ``en_hash`` of an English UI string, of all its plural forms when it has them."""
    return en_hash(plural.hash_text(fb.ui_forms.get(SOURCE, {}).get(key) or fb.ui[SOURCE][key]))


def ui_problems(fb, lang: str) -> list[Problem]:
    """UI strings: a translation is stale when the English string changed after it was made."""
    made_from = (fb.ui_sources or {}).get(lang, {})
    out = []
    file = f"data/i18n/{lang}.yaml"
    for key, en in fb.ui.get(SOURCE, {}).items():
        if key not in fb.ui.get(lang, {}):
            continue  # a missing UI string is a validation error already
        text = fb.ui[lang][key]
        p = _placeholders(lang, f"ui:{key}", file, en, text)
        if p:
            out.append(p)
        for num in bare_numbers(text):
            out.append(_problem("number", lang, f"ui:{key}", file, f"number '{num}' typed into a UI string"))
        if made_from.get(key) != ui_hash(fb, key):
            out.append(_problem("stale", lang, f"ui:{key}", f"data/i18n/{lang}.yaml",
                               f"English UI string changed (or was never recorded in {UI_SOURCES}); "
                               f"update the translation, then run: atlas i18n stamp-ui {lang} {key}"))
    return out
