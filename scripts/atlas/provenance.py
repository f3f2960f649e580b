"""Provenance: locators occur in their articles, and values occur in their locators.

In:  parsed releases and sources (``schema`` models), the data file of each
     release, and the directory of source articles (``find_sources_dir()``).
Out: a ``Report``: how many locators and values were checked, and one problem
     per failure as ``<file>: <fact id>: <field>: <what is wrong>``.

Two checks, both run by ``validate.py`` when the articles are on disk and by
``make provenance`` (``atlas provenance``):

1. every locator occurs verbatim (whitespace folded) in its article, and each
   article still has the sha256 recorded in ``data/sources.yaml``;
2. every value-bearing field with a citation (release counts and dates, matrix
   cells, a change's ``values``, figures and their hardware, rollback versions,
   error messages marked ``quoted``, coverage outlets and dates, event times,
   speakers and hosts) is found, in some locale form (3,117 / 3.117 / 3 117; 1.5 / 1,5;
   28 Oktober / 10 月 28 日 / 2 сентября), in at least one locator it cites.
   A value is exempt only when the data marks it as inferred and says how:
   a matrix cell with ``inferred: true`` and a ``note``, or a note of kind
   ``inferred`` whose ``values:`` names it.

   Two rules keep this honest without weakening it. A string longer than a
   locator may be (``schema.LOCATOR_MAX``, e.g. a full error message) is found
   when a cited locator is part of it and the whole string occurs verbatim in
   that locator's article. A label with a description in parentheses,
   ``nccl (rewritten)``, is checked on the part before the parenthesis.
"""
from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from babel import dates

from .langs import LOCALES
from .load import ROOT
from .schema import LOCATOR_MAX, Release, Sources, iter_cites

#: Release fields that hold a value from a source; each needs a ``provenance`` entry.
RELEASE_VALUE_FIELDS = ("full_version", "released", "published_at", "commits", "contributors", "wheel_index")



@functools.lru_cache(maxsize=1)
def _months() -> list[list[str]]:
    """Each site language's month names as a date in running text writes them (Babel's CLDR
    data, format context: "28 Oktober", "2 сентября")."""
    out = []
    for locale in LOCALES.values():
        names = dates.get_month_names("wide", context="format", locale=locale)
        out.append([names[m] for m in range(1, 13)])
    return out


def find_sources_dir(start: Path = ROOT) -> Path | None:
    """The nearest ``shared/sources`` above the repository (main checkout or a worktree)."""
    for parent in start.parents:
        d = parent / "shared" / "sources"
        if d.is_dir():
            return d
    return None


def fold(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@dataclass
class Report:
    locators: int = 0
    values: int = 0
    exempt: int = 0
    problems: list[str] = field(default_factory=list)
    #: "<file>: <fact id>: <field>: <source id> <url> «locator»" of each locator quoted from an
    #: official web page: it cannot be re-read offline, so it is listed, never counted as found
    offline: list[str] = field(default_factory=list)


# --- locale forms of a value -------------------------------------------------
def _bounded(body: str, first: str, last: str) -> str:
    """A regex for ``body`` that does not match inside a longer number or word."""
    # a digit may follow a "v" (v2.15.0) but not another letter, digit or dot (sm_75 is not 75)
    left = r"(?<![\d.])(?<![^\W\dvV])" if first.isdigit() else (r"(?<!\w)" if first.isalnum() else "")
    right = r"(?!\w|[.,]\d)" if last.isdigit() else (r"(?!\w)" if last.isalnum() else "")
    return left + body + right


def _number_patterns(value: float) -> list[str]:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        digits = str(abs(value))
        groups = [digits[max(0, i - 3):i] for i in range(len(digits), 0, -3)][::-1]
        seps = [",", ".", " ", "\u00a0", "\u202f", ""] if len(groups) > 1 else [""]
        return [_bounded(re.escape(s.join(groups)), "0", "0") for s in seps]
    whole, frac = repr(value).split(".")
    return [_bounded(re.escape(whole) + "[.,]" + re.escape(frac), "0", "0")]


def _date_patterns(d: dt.date) -> list[str]:
    pats = [re.escape(d.isoformat())]
    for months in _months():
        pats.append(_bounded(rf"0?{d.day}\s+{months[d.month - 1]}", "0", "a"))
    pats.append(rf"(?<!\d){d.month}\s*月\s*{d.day}\s*日")
    return pats


def value_patterns(value: Any) -> list[list[str]]:
    """Alternatives per part: the value is found when every part has a matching alternative."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [_number_patterns(value)]
    if isinstance(value, dt.datetime):
        # the article's own form: a day and an hour (10 月 29 日 ... 1 时; 5 November ... 11)
        hours = "|".join(sorted({str(value.hour), str(value.hour % 12 or 12)}))
        return [_date_patterns(value.date()),
                [rf"(?:上午|下午|凌晨|pukul|at|в)\s*0?(?:{hours})(?!\d)",
                 rf"(?<![\d.])0?(?:{hours})\s*(?:时|点|:\d\d|[ap]\.?m\b)"]]
    if isinstance(value, dt.date):
        return [_date_patterns(value)]
    if isinstance(value, list):
        return [alt for item in value for alt in value_patterns(item)]
    text = _label(str(value))
    return [[_bounded(re.escape(text), text[0], text[-1])]] if text else []


def _label(text: str) -> str:
    """``nccl (rewritten)`` -> ``nccl``: the parenthesis describes the value, the source names it."""
    return re.sub(r"\s+\([^()]*\)$", "", fold(text).strip())


def found_in(value: Any, locators: list[str], articles: list[str] = ()) -> bool:
    """Whether ``value`` occurs in one of ``locators`` (``articles``: the article of each)."""
    texts = [fold(loc) for loc in locators]
    if isinstance(value, dt.datetime):
        iso = value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if value.tzinfo else value.isoformat()
        if any(iso in t for t in texts):
            return True
    if isinstance(value, str) and len(fold(value).strip()) > LOCATOR_MAX:
        whole = fold(value).strip()
        return any(t in whole and whole in art for t, art in zip(texts, articles))
    for alternatives in value_patterns(value):
        rx = re.compile("|".join(alternatives), re.IGNORECASE)
        if not any(rx.search(t) for t in texts):
            return False
    return True


# --- which values cite which locators -----------------------------------------
@dataclass(frozen=True)
class Cited:
    owner: str          # fact id, or the release version for release fields and matrix cells
    field: str          # field path for messages
    value: Any
    cites: tuple        # the Cite objects the value may be found in
    exempt: bool        # marked inferred, with the derivation stated


def _inferred_names(notes) -> set[str]:
    return {name for n in notes if n.kind == "inferred" for name in n.values}


def iter_cited_values(rel: Release) -> Iterator[Cited]:
    v = rel.version
    for name in RELEASE_VALUE_FIELDS:
        value = getattr(rel, name)
        if value is not None:
            yield Cited(v, name, value, tuple(rel.provenance.get(name, ())), name in _inferred_names(rel.notes))
    for key, cell in rel.matrix:
        if cell is not None:
            yield Cited(v, f"matrix.{key}.value", cell.value, tuple(cell.sources), cell.inferred and bool(cell.note))
    for c in rel.changes:
        inferred = _inferred_names(c.notes)
        for name, value in c.values.items():
            yield Cited(c.id, f"values.{name}", value, tuple(c.sources), name in inferred)
        if c.figure is not None:
            for name in ("value", "max", "baseline", "hardware"):
                value = getattr(c.figure, name)
                if value is not None:
                    yield Cited(c.id, f"figure.{name}", value, tuple(c.sources), f"figure.{name}" in inferred)
        if c.rollback is not None and c.rollback.removed_in:
            yield Cited(c.id, "rollback.removed_in", c.rollback.removed_in, tuple(c.sources),
                        "rollback.removed_in" in inferred)
        for i, e in enumerate(c.errors):
            if e.origin == "quoted":     # the other origins say the wording is not from a source
                yield Cited(c.id, f"errors.{i}.message", e.message, tuple(c.sources), False)
    for cov in rel.coverage:
        yield Cited(cov.id, "outlet", cov.outlet, tuple(cov.sources), False)
        yield Cited(cov.id, "date", cov.date, tuple(cov.sources), False)
        for name, value in cov.values.items():
            yield Cited(cov.id, f"values.{name}", value, tuple(cov.sources), False)
        if cov.figure is not None:
            yield Cited(cov.id, "figure.value", cov.figure.value, tuple(cov.sources), False)
    for e in rel.events:
        yield Cited(e.id, "start", e.start, tuple(e.sources), False)
        people = [(f"speakers.{i}", p) for i, p in enumerate(e.speakers)] + ([("host", e.host)] if e.host else [])
        for where, person in people:
            yield Cited(e.id, f"{where}.name", person.name, tuple(e.sources), False)
            if person.affiliation:
                yield Cited(e.id, f"{where}.affiliation", person.affiliation, tuple(e.sources), False)


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(x) for x in value) + "]"
    return str(value)


def check_values(releases: list[Release], files: dict[str, str], sources: Sources,
                 texts: dict[str, str], report: Report) -> None:
    secondary = {s.id: s.cited_in for s in sources.sources if not s.file}
    for rel in releases:
        file = files[rel.version]
        for item in iter_cited_values(rel):
            if item.exempt:
                report.exempt += 1
                continue
            report.values += 1
            if not item.cites:
                report.problems.append(
                    f"{file}: {item.owner}: {item.field}: {_show(item.value)} has no citation; "
                    f"add `provenance: {{{item.field}: [...]}}` with a locator that contains it")
                continue
            locators = [c.locator for c in item.cites]
            articles = [texts.get(secondary.get(c.source, c.source), "") for c in item.cites]
            if not found_in(item.value, locators, articles):
                shown = "; ".join(f"{c.source} «{c.locator}»" for c in item.cites)
                report.problems.append(
                    f"{file}: {item.owner}: {item.field}: value {_show(item.value)} not found in any cited "
                    f"locator ({shown}); cite a locator that contains it, or mark it inferred and say how")


def read_articles(sources: Sources, sources_file: str, sources_dir: Path, report: Report) -> dict[str, str]:
    """Source id -> folded article text; a missing file, a changed sha256 or a title (the opening
    words of the headline) not in the text is a problem."""
    texts = {}
    for s in sources.sources:
        if not s.file:
            continue  # secondary source, known only through a primary one
        p = sources_dir / s.file
        if not p.resolve().is_relative_to(sources_dir.resolve()):   # a link out of the folder
            report.problems.append(f"{sources_file}: {s.id}: file: {s.file} leads outside the sources folder")
            continue
        if not p.exists():
            report.problems.append(f"{sources_file}: {s.id}: file: {p} does not exist")
            continue
        raw = p.read_bytes()
        if s.sha256 and hashlib.sha256(raw).hexdigest() != s.sha256:
            report.problems.append(f"{sources_file}: {s.id}: sha256: {p.name} has changed")
        texts[s.id] = fold(raw.decode("utf-8"))
        if s.title and fold(s.title.removesuffix(" …")) not in texts[s.id]:   # a locator of the headline
            report.problems.append(f"{sources_file}: {s.id}: title: {s.title!r} not found verbatim in {p.name}")
    return texts


def check_locators(releases: list[Release], files: dict[str, str], sources: Sources,
                   texts: dict[str, str], report: Report) -> None:
    secondary = {s.id: s.cited_in for s in sources.sources if not s.file}
    web = {s.id: s.url for s in sources.sources if s.url and not s.file}
    for rel in releases:
        for owner, path, cite in iter_cites(rel, rel.version, ""):
            if cite.source in web:
                report.offline.append(f"{files[rel.version]}: {owner}: {path}: {cite.source} {web[cite.source]} "
                                      f"«{cite.locator}»")
                continue
            report.locators += 1
            sid = secondary.get(cite.source, cite.source)
            if sid not in texts:
                report.problems.append(f"{files[rel.version]}: {owner}: {path}: source '{cite.source}' has no text")
            elif fold(cite.locator) not in texts[sid]:
                report.problems.append(
                    f"{files[rel.version]}: {owner}: {path}: locator {cite.locator!r} "
                    f"not found verbatim in {cite.source}")


def check(releases: list[Release], files: dict[str, str], sources: Sources, sources_file: str,
          sources_dir: Path) -> Report:
    report = Report()
    texts = read_articles(sources, sources_file, sources_dir, report)
    check_locators(releases, files, sources, texts, report)
    check_values(releases, files, sources, texts, report)
    return report
