"""Plural forms of UI strings, from CLDR's plural rules (Babel).

In:  a UI string's value from ``data/i18n/<lang>.yaml``: either text, or a mapping of CLDR plural
     categories to text (``{one: "{n} finding", other: "{n} findings"}``; Russian writes
     ``one``/``few``/``many``/``other``), and a count ``n``.
Out: ``categories(lang)``: the categories a language's strings must give; ``category(n, lang)``:
     the one a count takes; ``forms_problem``: what is wrong with a mapping (None when nothing);
     ``hash_text``: the text a translation's ``en_hash`` is taken of; ``abstract(lang)``: the rule
     as JSON for the checker's own evaluators (``atlas_check.py`` and ``atlas-check.js`` are
     stdlib-only and cannot import Babel).

The count is the placeholder ``n``: a string that counts two things is split so that each part
counts one. Chinese and Indonesian have one form; a plain string there is the whole answer.
"""
from __future__ import annotations

import functools
import re

from babel import Locale

from .langs import LOCALES

#: Every category CLDR knows; ``other`` is the form every language has.
CATEGORIES = ("zero", "one", "two", "few", "many", "other")
#: Where the count goes.
COUNT = "n"


@functools.cache
def _rule(lang: str):
    return Locale.parse(LOCALES[lang]).plural_form


@functools.cache
def categories(lang: str) -> tuple[str, ...]:
    """The categories a counted string must give in ``lang``, in CLDR order (``other`` last)."""
    tags = set(_rule(lang).tags) | {"other"}
    return tuple(c for c in CATEGORIES if c in tags)


def counted(lang: str) -> bool:
    """Whether a count changes the words in ``lang`` (en and ru: yes; zh and id: no)."""
    return len(categories(lang)) > 1


@functools.lru_cache(maxsize=4096)
def category(n: float, lang: str) -> str:
    """The CLDR category of the count ``n`` in ``lang`` ("one" for 21 in Russian, "many" for 11)."""
    return _rule(lang)(n)


def choose(value: str | dict, n, lang: str) -> str:
    """The text for count ``n``: the category's form, or ``other``; a plain string as it is."""
    if isinstance(value, str):
        return value
    if isinstance(n, bool) or not isinstance(n, (int, float)):
        return value["other"]
    return value.get(category(n, lang), value["other"])


def template(fb, lang: str, key: str, values) -> str:
    """The UI string ``key`` of ``lang`` for these placeholder ``values``: the plural form for the
    count ``values["n"]`` when the string has forms (``fb.ui_forms``), else the string."""
    forms = fb.ui_forms.get(lang, {}).get(key)
    return choose(forms, values.get(COUNT), lang) if forms else fb.ui[lang][key]


def forms_problem(forms: dict, lang: str) -> str | None:
    """What is wrong with a mapping of plural forms in ``lang``, or None."""
    unknown = [k for k in forms if k not in CATEGORIES]
    if unknown:
        return f"{', '.join(map(str, unknown))}: not a CLDR plural category (use {', '.join(categories(lang))})"
    missing = [c for c in categories(lang) if c not in forms]
    if missing:
        return f"plural forms {', '.join(missing)} missing ({lang} needs {', '.join(categories(lang))})"
    extra = [k for k in forms if k not in categories(lang)]
    if extra:
        return f"plural forms {', '.join(extra)} are not used in {lang} (it has {', '.join(categories(lang))})"
    bad = [k for k, v in forms.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        return f"plural form {', '.join(bad)} must be non-empty text"
    if not all("{" + COUNT + "}" in v or "{" + COUNT + ":" in v for v in forms.values()):
        return f"every plural form must contain the count {{{COUNT}}}"
    return None


#: ``{n}`` and the word after it: the words after a count agree with it ("1 finding", "21 находка").
_AFTER_COUNT = re.compile(r"\{" + COUNT + r"\}\s+(\w+)")
#: "{n} of {m}", "{n} из {m}": a position, not a count of things.
_POSITION = {"of", "из"}


def needs_forms(text: str) -> bool:
    """Whether a string puts a word after its count, so it needs plural forms ("{n} findings",
    "{n} keep"; not a unit symbol such as "{n} MB", "{n} МБ" or "{n} s", nor "{n} of {m}", a position)."""
    return any(w[0].isalpha() and w[0].islower() and len(w) > 1 and w not in _POSITION
               for w in _AFTER_COUNT.findall(text))


def hash_text(value: str | dict) -> str:
    """What a translation's ``en_hash`` is taken of: the text, or every form in category order, so an
    edit to any English form makes the translations stale."""
    if isinstance(value, str):
        return value
    return "\n".join(f"{c}: {value[c]}" for c in CATEGORIES if c in value)


def abstract(lang: str) -> list:
    """The language's rule as Babel's abstract syntax tree (JSON-ready): a list of
    ``[category, condition]``; no entry matches means ``other``."""
    return [[tag, _jsonable(ast)] for tag, ast in _rule(lang).abstract]


def _jsonable(node):
    if isinstance(node, (tuple, list)):
        return [_jsonable(x) for x in node]
    return node
