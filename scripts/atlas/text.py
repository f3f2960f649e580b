"""Placeholders, locale formatting and escaping for text that comes from data.

In:  a text template (English or a translation) such as
     ``"{old} is gone; use {new}"``, a scope mapping names to canonical values,
     and a language code.
Out: the text with every placeholder replaced by the value formatted for that
     language (Babel), either as Markdown-inert HTML (``render_html``) for pages
     or as plain text (``render_plain``) for titles, meta tags and JSON.

A ``Quantity`` (a figure with its unit) renders through the language's unit
pattern ("1,5 мс", "55,4 %"); Chinese lists join with 、 and a spaced 和.

Placeholder grammar: ``{name}``, ``{change-id.name}``, optionally with a
format ``:plain`` or ``:code``. Strings render as code unless they look like a
version ("3.15", "13.2.2", "3.14t") or the placeholder says ``:plain``.
"""
from __future__ import annotations

import datetime as dt
import functools
import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from babel.dates import format_date, format_datetime, format_time
from babel.lists import format_list
from babel.numbers import format_decimal

from .langs import LOCALES

#: Babel locale per site language (the one list is ``load.LOCALES``). British English gives "28 October 2026".
BABEL_LOCALE = LOCALES

PLACEHOLDER = re.compile(r"\{([a-z0-9][a-z0-9_]*(?:-[a-z0-9_]+)*(?:\.[a-z0-9_]+)?)(?::(plain|code))?\}")
VERSION_LIKE = re.compile(r"^\d+(?:\.\d+)*(?:[a-z]+\d*)?$")

#: Characters that mean something to Markdown or HTML, as entities. A fact that
#: contains ``|``, ``<script>`` or a backtick renders as text, never as markup.
_MD_ESCAPES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\\": "&#92;", "`": "&#96;",
    "*": "&#42;", "_": "&#95;", "[": "&#91;", "]": "&#93;", "|": "&#124;", "#": "&#35;",
    "{": "&#123;", "}": "&#125;", "~": "&#126;", "^": "&#94;", "!": "&#33;", "$": "&#36;",
    "=": "&#61;", "+": "&#43;", ":": "&#58;",
}


class PlaceholderError(KeyError):
    """A placeholder names a value that the scope does not have."""


_MD_ESCAPE_TABLE = str.maketrans(_MD_ESCAPES)
_ASCII_SPACE = re.compile(r"[ \t\r\n]+")


def escape(text: str) -> str:
    """Escape text for HTML and make it inert for Markdown, tables included."""
    return _ASCII_SPACE.sub(" ", str(text)).translate(_MD_ESCAPE_TABLE)


def escape_html(text: str) -> str:
    """Escape text for a raw HTML block (``<``, ``>``, ``&``, quotes), which Markdown does not parse."""
    return html.escape(str(text), quote=True)


def placeholders(template: str) -> list[str]:
    """The placeholder names in a template, in order (duplicates kept)."""
    return [m.group(1) for m in PLACEHOLDER.finditer(template)]


def strip_placeholders(template: str) -> str:
    return PLACEHOLDER.sub(" ", template)


@functools.lru_cache(maxsize=8192, typed=True)
def format_number(value: float, lang: str) -> str:
    """A number in the language's digits and separators (3,117 / 3 117 / 3.117). Kept per value:
    the upgrade pages print the same few counts thousands of times, and Babel takes 40 µs each."""
    return format_decimal(value, locale=BABEL_LOCALE[lang])


def format_day(value: dt.date, lang: str) -> str:
    return format_date(value, "long", locale=BABEL_LOCALE[lang])


def format_moment(value: dt.datetime, lang: str, tz: str | None = None) -> str:
    """A date and time with its zone, e.g. '5 November 2026, 11:00 PST'."""
    loc = BABEL_LOCALE[lang]
    day = format_date(value, "long", locale=loc)
    time = format_time(value, "short", tzinfo=value.tzinfo, locale=loc)
    zone = format_datetime(value, "zzz", tzinfo=value.tzinfo, locale="en") if tz else "UTC"
    return f"{day}{punctuation(lang)['date_time']}{time} {zone}"


#: Punctuation that templates put between UI strings and values. Chinese uses full-width
#: marks with no space around them and “” quotes; the other languages ASCII marks and «».
PUNCTUATION = {
    "zh": {"sp": "", "lp": "（", "rp": "）", "colon": "：", "semi": "；", "comma": "、", "clause": "，", "lq": "“", "rq": "”", "period": "。",
           "date_time": " ", "label": "："},
    #: a run-in label before a whole sentence: Russian writes "Исправление. Запустите…", not a colon and a capital
    "ru": {"sp": " ", "lp": "(", "rp": ")", "colon": ": ", "semi": "; ", "comma": ", ", "clause": ", ", "lq": "«", "rq": "»",
           "period": ".", "date_time": ", ", "label": ". "},
    None: {"sp": " ", "lp": "(", "rp": ")", "colon": ": ", "semi": "; ", "comma": ", ", "clause": ", ", "lq": "«", "rq": "»", "period": ".",
           "date_time": ", ", "label": ": "},
}


def punctuation(lang: str) -> dict[str, str]:
    return PUNCTUATION.get(lang, PUNCTUATION[None])


#: Between the ends of a range: an en dash, and the wave dash of Chinese ("1.32～1.34 倍").
_RANGE_DASH = {"zh": "\uff5e"}


@dataclass(frozen=True)
class Quantity:
    """A figure with its unit: ``value`` (or the range ``value``–``upper``) placed into
    ``pattern``, the language's unit string with ``{n}`` for the number, e.g. "{n}\u00a0мс",
    "{n}\u00a0%" in Russian, "{n}×" and "{n}\u00a0ms" in English (``data/i18n/<lang>.yaml``:
    ``unit.<unit>``). The number is formatted by Babel, so ru reads "1,5 мс" and en "1.5 ms";
    the space in the pattern is a no-break space, so a figure never wraps from its unit."""

    value: float
    pattern: str
    upper: Optional[float] = None


def format_quantity(q: Quantity, lang: str) -> str:
    """Plain text of a ``Quantity`` in ``lang``: "1,32–1,34×", "55,4\u00a0%", "7\u00a0000\u00a0мс"."""
    number = format_number(q.value, lang)
    if q.upper is not None:
        number += _RANGE_DASH.get(lang, "\u2013") + format_number(q.upper, lang)
    if q.pattern.count("{n}") != 1:
        raise PlaceholderError(f"unit pattern {q.pattern!r} must contain {{n}} once")
    return q.pattern.replace("{n}", number)


def _join(items: list[str], lang: str) -> str:
    """A list in the locale's pattern. Chinese joins with 、 and a spaced 和 before the last
    item ("cu126 和 cu130", "a、b 和 c"): CLDR's "a和b" glues Latin names and code to the
    conjunction, which Chinese technical writing keeps apart with a space."""
    if lang == "zh" and len(items) > 1:
        return "、".join(items[:-1]) + " 和 " + items[-1]
    return format_list(items, locale=BABEL_LOCALE[lang]) if items else ""


def _atom(value: Any, lang: str, style: str | None, code: Callable[[str], str], plain: Callable[[str], str]) -> str:
    if isinstance(value, Quantity):
        return plain(format_quantity(value, lang))
    if isinstance(value, bool):
        return plain(str(value).lower())
    if isinstance(value, (int, float)):
        return plain(format_number(value, lang))
    if isinstance(value, dt.datetime):
        return plain(format_moment(value, lang))
    if isinstance(value, dt.date):
        return plain(format_day(value, lang))
    text = str(value)
    if style == "plain" or (style is None and VERSION_LIKE.match(text)):
        return plain(text)
    return code(text)


def format_value(value: Any, lang: str, style: str | None = None, html: bool = True) -> str:
    """One value in the reader's locale; lists use the locale's list pattern."""
    code = (lambda s: f"<code>{escape(s)}</code>") if html else (lambda s: s)
    plain = escape if html else (lambda s: s)
    if isinstance(value, list):
        return _join([_atom(v, lang, style, code, plain) for v in value], lang)
    return _atom(value, lang, style, code, plain)


def _render(template: str, scope: Mapping[str, Any], lang: str, html: bool) -> str:
    out, pos = [], 0
    for m in PLACEHOLDER.finditer(template):
        literal = template[pos:m.start()]
        out.append(escape(literal) if html else literal)
        name = m.group(1)
        if name not in scope:
            raise PlaceholderError(name)
        out.append(format_value(scope[name], lang, m.group(2), html))
        pos = m.end()
    tail = template[pos:]
    out.append(escape(tail) if html else tail)
    # collapse only ASCII whitespace: the no-break spaces of "3 117" and "2026 г." must stay
    return _ASCII_SPACE.sub(" ", "".join(out)).strip()


def render_html(template: str, scope: Mapping[str, Any], lang: str) -> str:
    """Markdown-inert HTML: safe in a paragraph, a heading or a table cell."""
    return _render(template, scope, lang, html=True)


def render_plain(template: str, scope: Mapping[str, Any], lang: str) -> str:
    """Plain text (for <title>, meta tags, JSON). Not escaped: the consumer escapes."""
    return _render(template, scope, lang, html=False)


# --- what a text may contain outside its placeholders ------------------------
#: A standalone number: "3.117", "3 117", "2.15", "580". Numbers come from
#: values through placeholders, in every language, so none may be typed.
_NUMBER = re.compile(r"(?<![\w.\-+])\d+(?:[.,\u00a0\u202f]\d+)*(?![\w])")
#: Identifier-like tokens: dotted names, snake_case, calls, and words that mix
#: letters and digits (fp32, NVFP4, M3). A translation may only use ones that
#: the English text uses too, so a mistyped API name cannot slip in.
_IDENT = re.compile(
    r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:\(\))?"      # torch.linalg.qr, dist.get_backend()
    r"|[A-Za-z]*_[\w]*"                               # snake_case, _scaled_mm
    r"|[A-Za-z]+\d[\w+]*|\d+[A-Za-z][\w]*"            # fp32, NVFP4, C++20, M3, 4bit
)


#: What is code rather than prose: placeholders, `code`, a Markdown link target, a URL, a
#: keyword argument with its quoted value (backend="nccl"), and identifier-like tokens.
_CODE = re.compile(r"`[^`]*`|\]\([^)]*\)|https?://\S+|[A-Za-z_][\w.]*=(?:\"[^\"]*\"|'[^']*')|" + _IDENT.pattern)


def mask_code(template: str) -> str:
    """The prose of a text: code, identifiers and placeholders become runs of "X" of the same
    length, so checks of wording and punctuation never look inside an API name."""
    return _CODE.sub(lambda m: "X" * len(m.group(0)), PLACEHOLDER.sub(lambda m: "X" * len(m.group(0)), template))


def bare_numbers(template: str) -> list[str]:
    """Numbers typed into a text instead of coming from a placeholder."""
    return _NUMBER.findall(strip_placeholders(template))


def identifiers(template: str) -> set[str]:
    return {t for t in _IDENT.findall(strip_placeholders(template)) if any(ch.isalpha() for ch in t)}
