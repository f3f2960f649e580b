"""Chinese text for the search index.

In:  the HTML of a rendered Chinese page (``on_page_content``).
Out: the same HTML, marked ``data-pagefind-ignore="index"``, followed by a hidden
     copy whose Chinese runs are written as overlapping character bigrams
     ("显存不足" -> "显存 存不 不足"). The browser turns a Chinese query into
     bigrams the same way (docs/assets/atlas.js), so a word in the middle of a
     sentence matches whatever the dictionary segmenter would have cut.

Why not jieba with U+200B? Measured: Pagefind's extended build re-segments
Chinese with its own dictionary and ignores inserted separators, and then
misses words such as 显存 or 张量 mid-sentence. Bigrams need no dictionary on
either side, so index and query always agree. Non-Chinese text (API names,
error messages) is copied unchanged.
"""
from __future__ import annotations

import re

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_TEXT = re.compile(r">([^<]+)<")
_ID = re.compile(r'\s(?:id|href|class|title)="[^"]*"')


def bigrams(run: str) -> str:
    if len(run) < 2:
        return run
    return " ".join(run[i:i + 2] for i in range(len(run) - 1))


def index_text(text: str) -> str:
    return _HAN.sub(lambda m: f" {bigrams(m.group(0))} ", text)


def segment(html: str) -> str:
    """Visible HTML unchanged but not indexed; a hidden bigram copy is indexed instead."""
    copy = _ID.sub("", html)                      # no duplicate ids or links in the copy
    copy = re.sub(r"</?a\b[^>]*>", "", copy)
    copy = _TEXT.sub(lambda m: ">" + index_text(m.group(1)) + "<", copy)
    return (f'<div data-pagefind-ignore="index">{html}</div>\n'
            f'<div hidden aria-hidden="true" class="atlas-search-index">{copy}</div>')
