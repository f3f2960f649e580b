"""Step 2: validate the raw data and turn it into typed models.

In:  ``RawData`` from ``load.py``.
Out: ``FactBase`` (typed, cross-checked), or ``DataError`` listing *every*
     problem at once, each as ``<file>: <fact id>: <field>: <what is wrong>``.

Checks: the schema (unknown keys, types, dates, versions, ids), duplicate ids,
ids prefixed by their release, citations of unknown sources, FAQ references to
missing changes, placeholders that resolve, no number typed into English text,
breaking changes that say who is affected and how to fix it, rollbacks that
expire after their release, UI strings with the same keys in every language,
and the ledger of published ids. Translation consistency is ``i18n.py``'s job.
"""
from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from .keys import TextItem, release_texts, scopes, source_texts, version_key
from .load import LANGS, TRANSLATED, DataError, RawData
from . import search_data
from .search_data import SearchData
from .schema import Change, Coverage, Event, Faq, Release, Sources, Translation
from .text import bare_numbers, placeholders


@dataclass
class FactBase:
    releases: list[Release]                       # oldest first
    release_files: dict[str, str]                 # version -> data file
    sources: Sources
    sources_file: str
    texts: list[TextItem]                         # every English text, in file order
    scopes: dict[str, dict]                       # owner id -> placeholder values
    translations: dict[str, dict[str, tuple[Translation, str]]]  # lang -> key -> (entry, file)
    ui: dict[str, dict[str, str]]
    ledger: dict[str, Any] = field(default_factory=dict)
    ui_sources: dict[str, dict[str, str]] = field(default_factory=dict)   # lang -> key -> en_hash
    search: SearchData = field(default_factory=SearchData)                # data/search: aliases, stop words

    def release(self, version: str) -> Release:
        return next(r for r in self.releases if r.version == version)

    def changes(self):
        return [c for r in self.releases for c in r.changes]


def _fact_path(raw: Any, loc: tuple) -> tuple[str, str]:
    """Map a pydantic error location to (fact id, field path inside the fact)."""
    fact, start, node = "-", 0, raw
    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
        fact = raw["id"]
    for i, part in enumerate(loc):
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and isinstance(node.get("id"), str):
            fact, start = node["id"], i + 1
    if fact == "-" and isinstance(raw, dict) and isinstance(raw.get("version"), str):
        fact = str(raw["version"])
    rest = ".".join(str(p) for p in loc[start:]) or "(whole fact)"
    return fact, rest


def _parse(model: type[BaseModel], raw: Any, file: str, problems: list[str]):
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        for err in exc.errors():
            fact, where = _fact_path(raw, err["loc"])
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = "unknown key (typo? see scripts/atlas/schema.py for the allowed keys)"
            problems.append(f"{file}: {fact}: {where}: {msg}")
    return None


_ITEM_MODELS = {"changes": Change, "faq": Faq, "events": Event, "coverage": Coverage}


def _parse_release(raw: Any, file: str, problems: list[str]) -> Release | None:
    """Parse a release item by item, so one bad change does not hide the others' errors."""
    if not isinstance(raw, dict):
        return _parse(Release, raw, file, problems)
    head = {k: v for k, v in raw.items() if k not in _ITEM_MODELS}
    items: dict[str, list] = {}
    for kind, model in _ITEM_MODELS.items():
        items[kind] = []
        entries = raw.get(kind) or []
        if not isinstance(entries, list):
            problems.append(f"{file}: {raw.get('version', '-')}: {kind}: must be a list")
            continue
        for i, entry in enumerate(entries):
            before = len(problems)
            parsed = _parse(model, entry, file, problems)
            for j in range(before, len(problems)):  # name the list position when the id is missing
                if isinstance(entry, dict) and not isinstance(entry.get("id"), str):
                    problems[j] = problems[j].replace(f"{file}: -: ", f"{file}: {kind}.{i}: ", 1)
            if parsed is not None:
                items[kind].append(parsed)
    rel = _parse(Release, head, file, problems)
    return rel.model_copy(update=items) if rel is not None else None


def _check_release(rel: Release, file: str, source_ids: set[str], problems: list[str]) -> None:
    v = rel.version
    prefix = v.replace(".", "") + "-"
    expected_file = f"{v}.yaml"
    if not file.endswith("/" + expected_file):
        problems.append(f"{file}: {v}: version: file must be named {expected_file}")
    if rel.previous and version_key(rel.previous) >= version_key(v):
        problems.append(f"{file}: {v}: previous: {rel.previous} is not older than {v}")
    if rel.published_at and rel.released:
        utc = rel.published_at.astimezone(dt.timezone.utc).date()
        if utc != rel.released:
            problems.append(f"{file}: {v}: released: {rel.released} differs from published_at in UTC ({utc})")
    for name in rel.provenance:
        if getattr(rel, name, None) is None:
            problems.append(f"{file}: {v}: provenance.{name}: cites a field that is not set")

    def cites(owner: str, where: str, cite_list) -> None:
        for i, cite in enumerate(cite_list):
            if cite.source not in source_ids:
                problems.append(f"{file}: {owner}: {where}.{i}.source: unknown source '{cite.source}'")

    for name, lst in rel.provenance.items():
        cites(v, f"provenance.{name}", lst)
    for k, cell in rel.matrix:
        if cell is not None:
            cites(v, f"matrix.{k}.sources", cell.sources)
    for kind in ("changes", "faq", "events", "coverage"):
        for item in getattr(rel, kind):
            if not item.id.startswith(prefix):
                problems.append(f"{file}: {item.id}: id: must start with '{prefix}' (the release it belongs to)")
            cites(item.id, "sources", item.sources)
            for i, n in enumerate(getattr(item, "notes", [])):
                cites(item.id, f"notes.{i}.sources", n.sources)
    for c in rel.changes:
        if c.is_breaking:
            for f in ("affected", "symptom", "fix"):
                if getattr(c, f) is None:
                    problems.append(f"{file}: {c.id}: {f}: required for a breaking change")
        if c.rollback and c.rollback.removed_in and version_key(c.rollback.removed_in) <= version_key(v):
            problems.append(
                f"{file}: {c.id}: rollback.removed_in: {c.rollback.removed_in} is not after the release {v}"
            )
        if c.type == "performance" and c.figure is None and not c.notes:
            problems.append(f"{file}: {c.id}: figure: a performance change needs a figure or a note saying why not")
    for e in rel.events:
        try:
            zoneinfo.ZoneInfo(e.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            problems.append(f"{file}: {e.id}: timezone: unknown time zone '{e.timezone}'")


def _check_texts(texts: list[TextItem], scope: dict[str, dict], problems: list[str]) -> None:
    for t in texts:
        for name in placeholders(t.en):
            if name not in scope.get(t.owner, {}):
                problems.append(f"{t.file}: {t.owner}: {t.field}: placeholder {{{name}}} names no value")
        for num in bare_numbers(t.en):
            problems.append(
                f"{t.file}: {t.owner}: {t.field}: number '{num}' typed into text; "
                f"put it in `values` and write a placeholder"
            )


def validate(raw: RawData) -> FactBase:
    problems: list[str] = []
    src_file, src_raw = raw.sources
    sources = _parse(Sources, src_raw, src_file, problems)
    source_ids = {s.id for s in sources.sources} if sources else set()

    releases, files, unparsed = [], {}, 0
    for file, data in raw.releases.items():
        rel = _parse_release(data, file, problems)
        unparsed += rel is None
        if rel is not None:
            _check_release(rel, file, source_ids, problems)
            releases.append(rel)
            files[rel.version] = file
    releases.sort(key=lambda r: version_key(r.version))

    seen: dict[str, str] = {}
    for rel in releases:
        for item in (*rel.changes, *rel.faq, *rel.events, *rel.coverage):
            if item.id in seen:
                problems.append(f"{files[rel.version]}: {item.id}: id: duplicate id (also in {seen[item.id]})")
            seen[item.id] = files[rel.version]
    change_ids = {c.id for r in releases for c in r.changes}
    for rel in releases:
        for q in rel.faq:
            for i, ref in enumerate(q.refs):
                if ref not in change_ids:
                    problems.append(f"{files[rel.version]}: {q.id}: refs.{i}: no change with id '{ref}'")

    texts = [t for r in releases for t in release_texts(r, files[r.version])]
    if sources:
        texts += list(source_texts(sources, src_file))
    scope = scopes(releases, sources)
    _check_texts(texts, scope, problems)

    translations: dict[str, dict[str, tuple[Translation, str]]] = {}
    for lang in TRANSLATED:
        translations[lang] = {}
        for file, data in raw.translations.get(lang, {}).items():
            if data is None:
                continue
            if not isinstance(data, dict):
                problems.append(f"{file}: -: (whole file): must map translation keys to entries")
                continue
            for key, entry in data.items():
                tr = _parse(Translation, entry, f"{file}: {key}", problems)
                if tr is not None:
                    translations[lang][key] = (tr, file)

    ui: dict[str, dict[str, str]] = {}
    for lang in LANGS:
        file, data = raw.ui.get(lang, ("", None))
        if not isinstance(data, dict):
            problems.append(f"{file or f'data/i18n/{lang}.yaml'}: -: (whole file): missing or not a mapping")
            continue
        ui[lang] = {str(k): str(v) for k, v in data.items()}
    if "en" in ui:
        for lang in LANGS[1:]:
            if lang in ui:
                for k in sorted(set(ui["en"]) - set(ui[lang])):
                    problems.append(f"data/i18n/{lang}.yaml: -: {k}: UI string missing (present in en)")
                for k in sorted(set(ui[lang]) - set(ui["en"])):
                    problems.append(f"data/i18n/{lang}.yaml: -: {k}: UI string not in en (remove it)")

    ledger_file, ledger = raw.ledger
    ledger = ledger or {}
    # a release that failed to parse would make all its ids look unpublished: report that first
    for i, pid in enumerate((ledger.get("published", []) or []) if not unparsed else []):
        redirect = (ledger.get("redirects") or {}).get(pid)
        if pid not in change_ids and redirect is None:
            problems.append(
                f"{ledger_file}: {pid}: published.{i}: published id has no change and no redirect; "
                f"add `redirects: {{{pid}: <new-id>}}`"
            )
        if redirect is not None and pid in change_ids:
            problems.append(f"{ledger_file}: {pid}: redirects: '{pid}' is still a change; a redirect would hide its page")
        if redirect is not None and redirect not in change_ids:
            problems.append(f"{ledger_file}: {pid}: redirects: target '{redirect}' is not a change")

    known = change_ids | {r.version for r in releases} | {i.id for r in releases for i in (*r.faq, *r.events)}
    search = search_data.check(raw.search, known, problems)

    if problems:
        raise DataError(problems)
    ui_sources = raw.ui_sources[1] or {}
    return FactBase(releases, files, sources, src_file, texts, scope, translations, ui, ledger, ui_sources, search)
