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
text is a near-copy when it reaches ``threshold`` with at least ``min_shared`` distinct ones. A long
text that follows the article only in places keeps a low share, so a second measure counts the
distinct rare 3-grams (``long_n``) it shares with the article: ``long_min`` or more is a near-copy
whatever the share (issue 29: zh 215-nvgemm-nvfp4-decode and 215-import-once, ru
214-faq-upgrade-steps passed the share at 14 %, 15 % and 12 %).
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
    long_n: int = 3   # the second measure's n-gram size
    long_min: int = 0  # this many distinct rare long_n-grams shared with the article is a near-copy (0: off)


#: chosen by scripts/dev/nearcopy_calibrate.py on the review's cases (BENCHMARKS.md); long_min on the
#: third review's 3-gram cases (8da641b: zh 10 and 9, ru 8 distinct rare 3-grams), above the most any
#: other text of that data or of today's shares (zh 7, ru 4, id 7)
SETTINGS = {"zh": Setting(4, 2, 0.15, 3, 3, 8), "ru": Setting(2, 3, 0.20, 3, 3, 5), "id": Setting(2, 3, 0.30, 3, 3, 8)}
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
    long: bool = False          # caught by the count of shared 3-grams, not by the share

    def __str__(self) -> str:
        how = (f"{len(self.shared)} distinct rare 3-grams are the article's" if self.long
               else f"{self.score:.0%} of its n-grams are the article's")
        return (f"{self.file}: {self.key}: text: [{self.lang}] near-copy of {self.source}: {how} "
                f"({' | '.join(self.shared[:5])}); rewrite it in your own words. Text: {self.text}")


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
        mine = [(key, file, text) for la, key, file, text in texts if la == lang]
        short = _shared(mine, articles[s.id], lang, cfg.n, cfg.df_max)
        long = _shared(mine, articles[s.id], lang, cfg.long_n, cfg.df_max) if cfg.long_min else {}
        for key, file, text in mine:
            value, distinct = short[key]
            if value >= cfg.threshold and len(distinct) >= cfg.min_shared:
                out.append(Copy(key, file, lang, s.id, value, distinct, text))
            elif key in long and len(long[key][1]) >= cfg.long_min:
                out.append(Copy(key, file, lang, s.id, long[key][0], long[key][1], text, long=True))
    return out


def _shared(mine: list[tuple[str, str, str]], article: str, lang: str, n: int, df_max: int) -> dict:
    """key -> (share of the text's n-grams that are rare and the article's, those distinct n-grams)."""
    in_article = frozenset(grams(article, lang, n))
    own = {key: grams(text, lang, n) for key, _, text in mine}
    used = Counter(g for gs in own.values() for g in set(gs))
    out = {}
    for key, gs in own.items():
        shared = [g for g in gs if used[g] <= df_max and g in in_article]
        out[key] = (len(shared) / len(gs) if gs else 0.0, tuple(dict.fromkeys(shared)))
    return out
