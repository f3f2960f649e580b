"""Raw HTML that Markdown need not read: a page's blocks between ``<!--atlas:raw-->`` and
``<!--/atlas:raw-->`` (the upgrade pages' API diffs, thousands of names of finished HTML).

in:  the page's Markdown (MkDocs' ``on_page_markdown``), later its HTML (``on_page_content``)
out: the Markdown with each block replaced by a comment ``<!--atlas-raw-N-->``, which Markdown
     passes through untouched; then the HTML with each comment replaced by its block again.

Markdown would pass such a block through unchanged anyway (it has no ``markdown`` attribute), but
only after its HTML parser has read every tag of it: on an upgrade across many releases that was
most of the build's Markdown time. The generated ``.md`` files keep the blocks in place.
"""
from __future__ import annotations

import re

START, END = "<!--atlas:raw-->", "<!--/atlas:raw-->"
_BLOCK = re.compile(re.escape(START) + r"\n?(.*?)\n?" + re.escape(END), re.S)
_MARK = re.compile(r"<!--atlas-raw-(\d+)-->")


def cut(markdown: str) -> tuple[str, list[str]]:
    """(the Markdown with each raw block replaced by its numbered comment, the blocks)."""
    blocks: list[str] = []

    def keep(m: re.Match) -> str:
        blocks.append(m.group(1))
        return f"<!--atlas-raw-{len(blocks) - 1}-->"
    return _BLOCK.sub(keep, markdown), blocks


def paste(html: str, blocks: list[str]) -> str:
    """The page's HTML with each numbered comment replaced by its block."""
    out = _MARK.sub(lambda m: blocks[int(m.group(1))], html)
    if _MARK.search(out) or len(_MARK.findall(html)) != len(blocks):
        raise ValueError("a raw HTML block was lost or duplicated by Markdown")
    return out
