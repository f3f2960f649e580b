"""The site's languages: the one list every step, test and tool reads.

In:  nothing. Out: ``LOCALES`` (code -> Babel locale), ``SOURCE`` (the language facts are
written in, served at the site root), ``LANGS`` (source first) and ``TRANSLATED`` (the rest).
Adding a language: one line in ``LOCALES`` and one in ``mkdocs.yml`` (CONTRIBUTING.md
"Adding a language"); ``tests/test_site.py`` checks that the two agree.
"""
from __future__ import annotations

#: The language the facts and UI strings are written in; every translation says which of its texts it follows.
SOURCE = "en"
LOCALES = {"en": "en_GB", "zh": "zh_Hans_CN", "ru": "ru_RU", "id": "id_ID"}
LANGS = (SOURCE, *(code for code in LOCALES if code != SOURCE))
TRANSLATED = LANGS[1:]
