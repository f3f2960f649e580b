"""Chinese text for the search index: character bigrams.

In:  a run of Chinese characters.
Out: its overlapping character bigrams ("显存不足" -> "显存 存不 不足").

Both the index (``search_index.tokens``) and the browser (``docs/assets/search.js``)
cut Chinese this way, so a word in the middle of a sentence (显存, 张量) matches
without a dictionary on either side, and index and query always agree. (Measured
earlier with Pagefind: its own Chinese segmenter missed such words mid-sentence.)
"""
from __future__ import annotations


def bigrams(run: str) -> str:
    if len(run) < 2:
        return run
    return " ".join(run[i:i + 2] for i in range(len(run) - 1))
