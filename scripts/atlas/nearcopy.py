"""Near-copies: translated texts whose wording follows the source article in the same language.

In:  a ``FactBase`` (translations, UI strings) and the folded text of each source article
     (``provenance.read_articles``), keyed by source id.
Out: ``find(fb, articles)``: one ``Copy`` per translated text whose n-grams are largely the
     article's (key, file, source, score, what they share), for ``atlas provenance`` to report.

How a text is compared: placeholders (``{name}``), code (backticks), and Latin-script tokens with
a digit, a dot or an underscore (versions, API names, values) are removed first, since they are
shared by nature. Russian and Indonesian are cut into words and stemmed (Snowball); Chinese into
runs of Han characters, cut into character n-grams. An n-gram that more than ``df_max`` of our own
texts in that language use is the site's vocabulary (technical terms, the glossary's words) and
does not count. The score is the share of the text's n-grams that are rare and the article's; a
text is a near-copy when it reaches ``threshold`` with at least ``min_shared`` distinct ones.
N-grams catch wording that follows the article, not a close paraphrase: the rewrites are the real
fix. ``scripts/dev/nearcopy_calibrate.py`` chose ``SETTINGS`` on the cases a review flagged and
the texts it did not (BENCHMARKS.md).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from .i18n import text_for


@dataclass(frozen=True)
class Setting:
    n: int            # n-gram size: words (ru, id) or Han characters (zh)
    df_max: int       # an n-gram used by more of our own texts than this is the site's vocabulary, not a copy
    threshold: float  # share of the text's n-grams that are rare and also the article's
    min_shared: int   # and at least this many distinct such n-grams


#: chosen by scripts/dev/nearcopy_calibrate.py on the review's cases (BENCHMARKS.md)
SETTINGS = {"zh": Setting(4, 2, 0.15, 3), "ru": Setting(2, 3, 0.20, 3), "id": Setting(2, 3, 0.30, 3)}
STEMMERS = {"ru": "russian", "id": "indonesian"}
_CODE = re.compile(r"`[^`]*`|\{[^{}]*\}")
_TECH = re.compile(r"\b[\w-]*[\d._][\w.+-]*\b")
_WORD = re.compile(r"[^\W\d_]+", re.U)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class Copy:
    key: str
    file: str
    lang: str
    source: str
    score: float
    shared: tuple[str, ...]     # the shared rare n-grams, in the text's order
    text: str

    def __str__(self) -> str:
        return (f"{self.file}: {self.key}: text: [{self.lang}] near-copy of {self.source}: {self.score:.0%} of "
                f"its n-grams are the article's ({' | '.join(self.shared[:5])}); rewrite it in your own words. "
                f"Text: {self.text}")


@lru_cache(maxsize=4)
def _stemmer(lang: str):
    return snowballstemmer.stemmer(STEMMERS[lang])


def grams(text: str, lang: str, n: int) -> list[str]:
    """The n-grams of ``text`` outside placeholders, code and canonical values."""
    text = _TECH.sub(" ", _CODE.sub(" ", text)).lower()
    if lang == "zh":
        return [run[i:i + n] for run in _HAN.findall(text) for i in range(len(run) - n + 1)]
    words = _stemmer(lang).stemWords(_WORD.findall(text))
    return [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]


def candidates(fb) -> list[tuple[str, str, str, str]]:
    """(lang, key, file, translated text) for every translated fact text of zh, ru and id."""
    out = []
    for lang in SETTINGS:
        for t in fb.texts:
            entry = fb.translations.get(lang, {}).get(t.key)
            if entry is not None and entry[0].text.strip():
                out.append((lang, t.key, entry[1], text_for(fb, t.key, lang, t.en)))
    return out


def find(fb, articles: dict[str, str], settings: dict[str, Setting] | None = None) -> list[Copy]:
    """Every translated text that is a near-copy of the source article in its language."""
    settings = settings or SETTINGS
    texts = candidates(fb)
    out = []
    for s in fb.sources.sources:
        if s.id not in articles or s.language not in settings:
            continue
        cfg, lang = settings[s.language], s.language
        article = frozenset(grams(articles[s.id], lang, cfg.n))
        own = [(key, file, text, grams(text, lang, cfg.n)) for la, key, file, text in texts if la == lang]
        used = Counter(g for *_, gs in own for g in set(gs))
        for key, file, text, gs in own:
            if not gs:
                continue
            shared = [g for g in gs if used[g] <= cfg.df_max and g in article]
            value, distinct = len(shared) / len(gs), tuple(dict.fromkeys(shared))
            if value >= cfg.threshold and len(distinct) >= cfg.min_shared:
                out.append(Copy(key, file, lang, s.id, value, distinct, text))
    return out
