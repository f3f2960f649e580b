"""Search data: aliases and stop words (``data/search/*.yaml``), validated.

In:  the parsed ``data/search/aliases.yaml`` and ``data/search/stopwords.yaml``
     (``load.RawData.search``), the ids the fact base knows (changes, FAQ
     entries, events, release versions).
Out: a ``SearchData`` (aliases and stop words per language) for
     ``search_index.py``, or problems appended to the validator's list, each as
     ``file: id: field: message``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .langs import LANGS

ALIASES_FILE = "data/search/aliases.yaml"
STOPWORDS_FILE = "data/search/stopwords.yaml"
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass
class Alias:
    id: str
    means: list[str]
    targets: list[str]
    words: dict[str, list[str]]      # "all" or a language -> alias words

    def for_lang(self, lang: str) -> list[str]:
        return self.words.get("all", []) + self.words.get(lang, [])


@dataclass
class SearchData:
    aliases: list[Alias] = field(default_factory=list)
    stopwords: dict[str, list[str]] = field(default_factory=dict)


def _strings(value: Any, where: str, problems: list[str]) -> list[str]:
    if not isinstance(value, list) or not value:
        problems.append(f"{where}: must be a non-empty list of strings")
        return []
    out = []
    for i, v in enumerate(value):
        if not isinstance(v, (str, int, float)) or isinstance(v, bool) or not str(v).strip():
            problems.append(f"{where}.{i}: must be a non-empty string, got {v!r}")
        else:
            out.append(str(v).strip())
    return out


def check_aliases(data: Any, known_ids: set[str], problems: list[str], file: str = ALIASES_FILE) -> list[Alias]:
    if not isinstance(data, dict) or not isinstance(data.get("aliases"), list):
        problems.append(f"{file}: -: aliases: the file must hold a list under `aliases:`")
        return []
    out, seen = [], set()
    for n, entry in enumerate(data["aliases"]):
        if not isinstance(entry, dict):
            problems.append(f"{file}: #{n}: (entry): must be a mapping with id, means/targets and words")
            continue
        aid = str(entry.get("id", ""))
        if not _ID.match(aid):
            problems.append(f"{file}: #{n}: id: '{aid}' is not a kebab-case id")
            aid = f"#{n}"
        elif aid in seen:
            problems.append(f"{file}: {aid}: id: duplicate id")
        seen.add(aid)
        for key in sorted(set(entry) - {"id", "means", "targets", "words"}):
            problems.append(f"{file}: {aid}: {key}: unknown key (allowed: id, means, targets, words)")
        if "means" not in entry and "targets" not in entry:
            problems.append(f"{file}: {aid}: means: give `means` (words a page contains) or `targets` (ids)")
        means = _strings(entry["means"], f"{file}: {aid}: means", problems) if "means" in entry else []
        targets = _strings(entry["targets"], f"{file}: {aid}: targets", problems) if "targets" in entry else []
        for i, t in enumerate(targets):
            if t not in known_ids:
                problems.append(f"{file}: {aid}: targets.{i}: no change, FAQ entry, event or release '{t}'")
        words: dict[str, list[str]] = {}
        raw_words = entry.get("words")
        if not isinstance(raw_words, dict) or not raw_words:
            problems.append(f"{file}: {aid}: words: must map `all` or a language code to a list of words")
        else:
            for lang, lst in raw_words.items():
                if lang != "all" and lang not in LANGS:
                    problems.append(f"{file}: {aid}: words.{lang}: not `all` or one of {', '.join(LANGS)}")
                    continue
                words[lang] = _strings(lst, f"{file}: {aid}: words.{lang}", problems)
        out.append(Alias(aid, means, targets, words))
    return out


def check_stopwords(data: Any, problems: list[str], file: str = STOPWORDS_FILE) -> dict[str, list[str]]:
    if not isinstance(data, dict):
        problems.append(f"{file}: -: (whole file): must map each language to a list of stop words")
        return {}
    out = {}
    for lang in LANGS:
        if lang not in data:
            problems.append(f"{file}: {lang}: (list): stop words missing for this language")
            continue
        words = _strings(data[lang], f"{file}: {lang}: list", problems)
        for i, w in enumerate(words):
            if w != w.lower() or re.search(r"\s", w):
                problems.append(f"{file}: {lang}: list.{i}: '{w}' must be one lower-case word")
        dupes = sorted({w for w in words if words.count(w) > 1})
        if dupes:
            problems.append(f"{file}: {lang}: list: duplicate stop words {', '.join(dupes)}")
        out[lang] = sorted(set(words))
    for lang in sorted(set(data) - set(LANGS)):
        problems.append(f"{file}: {lang}: (list): not a site language ({', '.join(LANGS)})")
    return out


def check(raw: dict[str, Any], known_ids: set[str], problems: list[str]) -> SearchData:
    """Validate both files; ``raw`` maps ``aliases``/``stopwords`` to parsed YAML.

    A file that does not exist (None) means no aliases or no stop words (a data
    directory made for a test); an empty or malformed file is an error."""
    out = SearchData()
    if raw.get("aliases") is not None:
        out.aliases = check_aliases(raw["aliases"], known_ids, problems)
    if raw.get("stopwords") is not None:
        out.stopwords = check_stopwords(raw["stopwords"], problems)
    return out
