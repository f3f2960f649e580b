"""Chinese text for the search index.

In:  the HTML of a rendered Chinese page (``on_page_content``).
Out: the same HTML followed by a hidden, index-only copy that holds just the
     Chinese runs written as overlapping character bigrams ("显存不足" ->
     "显存 存不 不足"), keeping the heading structure so titles still weigh more.
     The browser turns a Chinese query into bigrams the same way
     (docs/assets/atlas.js), so a word in the middle of a sentence matches.

Why not jieba with U+200B? Measured: Pagefind's extended build re-segments
Chinese with its own dictionary, ignores inserted separators, and then misses
words such as 显存 or 张量 mid-sentence. Bigrams need no dictionary on either
side, so index and query always agree. The visible text stays indexed as well,
so API names and error messages are found as on every other language.
"""
from __future__ import annotations

import re

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_TEXT = re.compile(r">([^<]*)<")
_ATTRS = re.compile(r"<(\w+)\b[^>]*>")
_SKIP = re.compile(r"<(table|pre|code|a)\b.*?</\1>", re.S)
_EMPTY = re.compile(r"<(\w+)>\s*</\1>")


def bigrams(run: str) -> str:
    if len(run) < 2:
        return run
    return " ".join(run[i:i + 2] for i in range(len(run) - 1))


def index_text(text: str) -> str:
    """Only the Chinese of a text node, as bigrams."""
    return " ".join(bigrams(m.group(0)) for m in _HAN.finditer(text))


_IGNORED = re.compile(r"<(\w+)\b[^>]*\bdata-pagefind-ignore\b[^>]*>")


def drop_ignored(html: str) -> str:
    """``html`` without the elements marked ``data-pagefind-ignore`` (nesting counted), which
    Pagefind leaves out of the index, so their Chinese must stay out of the copy too."""
    out, pos = [], 0
    for m in _IGNORED.finditer(html):
        if m.start() < pos:
            continue
        tag, depth, i = m.group(1), 1, m.end()
        opener, closer = re.compile(rf"<{tag}\b"), f"</{tag}>"
        while depth and i < len(html):
            c = html.find(closer, i)
            if c < 0:
                c = len(html)
            depth += len(opener.findall(html, i, c)) - 1
            i = c + len(closer)
        out.append(html[pos:m.start()])
        pos = min(i, len(html))
    return "".join(out) + html[pos:]


def segment(html: str) -> str:
    copy = _SKIP.sub("", drop_ignored(html))       # tables, code and link texts stay visible-only
    copy = _ATTRS.sub(lambda m: f"<{m.group(1)}>", copy)   # no duplicate ids
    copy = _TEXT.sub(lambda m: ">" + index_text(m.group(1)) + "<", ">" + copy + "<")[1:-1]
    for _ in range(3):
        copy = _EMPTY.sub("", copy)
    return f'{html}\n<div hidden aria-hidden="true" class="atlas-search-index">{copy.strip()}</div>'
