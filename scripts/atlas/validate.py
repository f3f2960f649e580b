"""Step 2: validate the raw data and turn it into typed models.

In:  ``RawData`` from ``load.py``.
Out: ``FactBase`` (typed, cross-checked), or ``DataError`` listing *every*
     problem at once, each as ``<file>: <fact id>: <field>: <what is wrong>``.

Checks: no line or paragraph separator but ``\n`` in any string of any file (``LINE_BREAKS``),
the schema (unknown keys, types, dates, versions, ids), duplicate ids,
ids prefixed by their release, citations of unknown sources, FAQ references to
missing changes, placeholders that resolve, no number typed into English text,
breaking changes that say who is affected and how to fix it, rollbacks that
expire after their release, UI strings with the same keys in every language,
the ledger of published ids, the ledger of the official notes (``data/ledger.yaml``: every item
judged, a curated item naming a change, an excluded one a reason, releases 2.1-2.12), probe versions listed in ``data/wheels.yaml``, and
placeholders of translations and UI strings that resolve (so rendering cannot fail
on them). When the source articles are given (``sources_dir``; the build passes
``provenance.find_sources_dir()``), also that every locator occurs in its article and
every cited value in its locators (``provenance.py``). Translation consistency
(stale, missing) is ``i18n.py``'s job.

Matrix values hold no words, and the glossary (``data/glossary.yaml``) has one
rendering per concept and translated language. Each data file ``load.py`` names has its
check here; any other ``data/*.yaml`` is read (a YAML error stops the build) and not used.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import zoneinfo
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import TypeAdapter, ValidationError

from . import plural, provenance, search_data
from .builds import check as check_builds
from .gpus import GpuTable
from .keys import TextItem, release_texts, scopes, source_texts, version_key
from .langs import LANGS, SOURCE, TRANSLATED
from .load import RawData
from .problems import DataError, Problems
from .schema import (
    BREAKING_TYPES,
    LEDGER_KINDS,
    LEDGER_REASONS,
    Change,
    CompanionFacts,
    CompanionLock,
    Coverage,
    Event,
    Faq,
    GlossaryEntry,
    Ledger,
    Lock,
    OfficialLedger,
    Release,
    Sources,
    Translation,
    UpdatedEntry,
    Wheels,
    iter_cites,
)
from .search_data import SearchData
from .text import bare_numbers, placeholders
from .wheel import (
    describe_run,
    judge,
    judge_proof,
    parse_deprecations,
    parse_proof_lock,
    parse_runtime,
    parse_surface,
    wheel_of,
)
from .wheel.history import minor


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
    wheels: Wheels | None = None                  # data/wheels.yaml
    lock: dict[str, Any] = field(default_factory=dict)   # data/evidence.lock.yaml
    provenance: provenance.Report | None = None   # locators and values checked, when the articles were given
    glossary: list[GlossaryEntry] = field(default_factory=list)   # data/glossary.yaml
    search: SearchData = field(default_factory=SearchData)                # data/search: aliases, stop words
    claims: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # data/claims.yaml
    surfaces: dict[str, tuple[dict, dict]] = field(default_factory=dict)   # wheel version -> parsed API surface
    updated: dict[str, dict] = field(default_factory=dict)                 # data/updated.yaml: change id -> {updated, hash}
    gpus: Any = None                                                       # data/gpus.yaml: a gpus.GpuTable
    runtimes: dict[str, Any] = field(default_factory=dict)                 # wheel version -> wheel.runtime.Runtime (installed and imported)
    deprecations: dict[str, list] = field(default_factory=dict)            # wheel version -> [wheel.deprecations.Deprecation]
    confirmations: dict[str, list] = field(default_factory=dict)           # change id -> [wheel.confirm.Confirmation] of its wheel: claims
    ui_forms: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)  # lang -> key -> plural forms (plural.py); ui holds "other"
    proofs: dict[str, Any] = field(default_factory=dict)                   # change id -> wheel.proofs.ProofVerdict of its proof:
    official: Optional[OfficialLedger] = None                              # data/ledger.yaml: the official notes' items
    builds: Any = None                                                     # data/builds.yaml: a builds.BuildMatrix
    companions: Optional[CompanionFacts] = None                            # data/companions.yaml: cited signals
    companions_lock: dict[str, Any] = field(default_factory=dict)          # data/companions.lock.yaml

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


def _errors(model, raw: Any) -> list[dict]:
    """pydantic's errors for ``raw`` as ``model`` (empty when it is valid)."""
    try:
        model.model_validate(raw)
    except ValidationError as exc:
        return exc.errors()
    return []


def _parse(model, raw: Any, file: str, problems: list[str]):
    try:
        if not isinstance(model, type):   # a TypeAdapter
            return model.validate_python(raw)
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
    if rel is None:
        # Keep the release's facts without its bad header fields, so that every reference into it
        # (translations, the ledger, FAQ refs, search aliases) is not reported as another problem.
        bad = {err["loc"][0] for err in _errors(Release, head) if err["loc"]}
        rel = _parse(Release, {k: v for k, v in head.items() if k not in bad}, file, Problems())
        problems.broken(file, str(head.get("version", "-")), {str(b) for b in bad})
    return rel.model_copy(update=items) if rel is not None else None


def _check_release(rel: Release, file: str, source_ids: set[str], wheels: Wheels | None, problems: list[str]) -> None:
    v = rel.version
    prefix = v.replace(".", "") + "-"
    expected_file = f"{v}.yaml"
    if not file.endswith("/" + expected_file):
        problems.append(f"{file}: {v}: version: file must be named {expected_file}")
    if rel.previous and version_key(rel.previous) >= version_key(v):
        problems.append(f"{file}: {v}: previous: {rel.previous} is not older than {v}")
    if rel.published_at and rel.released:
        utc = rel.published_at.astimezone(dt.UTC).date()
        if utc != rel.released:
            problems.append(f"{file}: {v}: released: {rel.released} differs from published_at in UTC ({utc})")
    for name in rel.provenance:
        if getattr(rel, name, None) is None:
            problems.add(file, v, f"provenance.{name}", "cites a field that is not set", knock_on=True)

    for owner, where, cite in iter_cites(rel, v):   # every citation, wherever it is (release notes too)
        if cite.source not in source_ids:
            problems.append(f"{file}: {owner}: {where}.source: unknown source '{cite.source}'")
    for k, cell in rel.matrix:
        if cell is not None:
            # a matrix value is shown as is in every language, so it may hold no words
            for item in cell.value if isinstance(cell.value, list) else [cell.value]:
                if isinstance(item, str) and re.search(r"\s", item):
                    problems.append(f"{file}: {v}: matrix.{k}.value: '{item}' contains words; a matrix value is "
                                    f"language-neutral: keep the bare value and put the word in `qualifier`")
    for kind in ("changes", "faq", "events", "coverage"):
        for item in getattr(rel, kind):
            if not item.id.startswith(prefix):
                problems.append(f"{file}: {item.id}: id: must start with '{prefix}' (the release it belongs to)")
            for i, n in enumerate(getattr(item, "notes", [])):
                derivable = {f"values.{k}" for k in getattr(item, "values", {})} | {"figure.value", "figure.max",
                                                                                 "figure.baseline", "rollback.removed_in"}
                for name in n.values:
                    if n.kind != "inferred":
                        problems.append(f"{file}: {item.id}: notes.{i}.values: only an inferred note may name values")
                    elif f"values.{name}" not in derivable and name not in derivable:
                        problems.append(f"{file}: {item.id}: notes.{i}.values: '{name}' is not a value of this fact")
    for i, n in enumerate(rel.notes):
        for name in n.values:
            if n.kind != "inferred" or name not in provenance.RELEASE_VALUE_FIELDS:
                problems.append(f"{file}: {v}: notes.{i}.values: '{name}' must be a release field named by an inferred note")
    for c in rel.changes:
        if c.type in BREAKING_TYPES and c.breaking is False:
            problems.append(f"{file}: {c.id}: breaking: a '{c.type}' change always breaks an upgrade; remove `breaking: false`")
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
        for i, probe in enumerate(c.probes):
            for ver in probe.expect:
                if wheels is not None and ver not in wheels.versions:
                    problems.append(f"{file}: {c.id}: probes.{i}.expect.{ver}: torch {ver} is not in data/wheels.yaml "
                                    f"(versions: {', '.join(wheels.versions)})")
    for e in rel.events:
        try:
            zoneinfo.ZoneInfo(e.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
            problems.append(f"{file}: {e.id}: timezone: unknown time zone '{e.timezone}'")


def _check_texts(texts: list[TextItem], scope: dict[str, dict], problems: list[str]) -> None:
    for t in texts:
        for name in placeholders(t.en):
            if name not in scope.get(t.owner, {}) and name not in problems.dropped.get(t.owner, ()):
                problems.append(f"{t.file}: {t.owner}: {t.field}: placeholder {{{name}}} names no value")
        for num in bare_numbers(t.en):
            problems.append(
                f"{t.file}: {t.owner}: {t.field}: number '{num}' typed into text; "
                f"put it in `values` and write a placeholder"
            )


def _check_translation_placeholders(translations, texts: list[TextItem], scope: dict[str, dict],
                                   problems: list[str]) -> None:
    """A translation may only name values its English text can see: otherwise rendering would fail."""
    owner = {t.key: t.owner for t in texts}
    for _lang, table in translations.items():
        for key, (tr, file) in table.items():
            if key not in owner:
                continue  # an orphan: i18n.py reports it
            for name in placeholders(tr.text):
                if name not in scope.get(owner[key], {}) and name not in problems.dropped.get(owner[key], ()):
                    problems.append(f"{file}: {key}: text: placeholder {{{name}}} names no value "
                                    f"(the English text's placeholders are listed in data/releases/)")


#: What ``str.splitlines`` breaks a line at besides ``\n``: inside a title or a value they end a table row, a
#: link or a heading in the Markdown of every page that shows the text ("](../changes/x.md)" left as text).
LINE_BREAKS = {"\r": "CARRIAGE RETURN", "\x0b": "LINE TABULATION", "\x0c": "FORM FEED", "\x1c": "FILE SEPARATOR",
               "\x1d": "GROUP SEPARATOR", "\x1e": "RECORD SEPARATOR", "\x85": "NEXT LINE (NEL)",
               "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR"}
_LINE_BREAK = re.compile("[" + "".join(LINE_BREAKS) + "]")


def _strings(obj: Any, loc: tuple = ()):
    """(location, string) of every key and string value in a parsed YAML file."""
    if isinstance(obj, str):
        yield loc, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield loc + (k,), str(k)
            yield from _strings(v, loc + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, loc + (i,))


def _check_line_breaks(raw: RawData, problems: Problems) -> None:
    """Refuse the line and paragraph separators of ``LINE_BREAKS`` in every string of every data file.

    Refused, not replaced: values, error messages, locators and ids are compared verbatim with the
    wheels and the articles, so changing them would detach them from their evidence; in prose (titles,
    summaries, translations, UI strings) the character is invisible in an editor and stands for
    different things (U+2028 a soft line break pasted from a word processor, U+0085 a "…" decoded as
    Latin-1), so the author, told where it is, chooses. A ``\n`` in a text is not refused here."""
    keyed = {path for table in raw.translations.values() for path in table} | {path for path, _ in raw.ui.values()}
    for file, data in raw.yaml_files():
        for loc, text in _strings(data):
            m = _LINE_BREAK.search(text)
            if not m:
                continue
            if file in keyed and loc:   # translations and UI strings: the key is the id
                fact, where = str(loc[0]), ".".join(map(str, loc[1:])) or "(text)"
            else:
                fact, where = _fact_path(data, loc)
            problems.add(file, fact, where, f"U+{ord(m.group()):04X} {LINE_BREAKS[m.group()]} at character "
                         f"{m.start() + 1}: a line or paragraph separator breaks the Markdown of the pages showing "
                         "this text; remove it (a space where a break was meant)")


def validate(raw: RawData, sources_dir: Path | None = None, judge_proofs: bool = True) -> FactBase:
    """Validate everything; with ``sources_dir``, also check locators and values against the articles.
    ``judge_proofs=False`` (``atlas prove`` and ``atlas runtime``, which write the locks the proofs are
    judged by) leaves the proof locks unjudged."""
    problems = Problems()
    _check_line_breaks(raw, problems)
    src_file, src_raw = raw.sources
    sources = _parse(Sources, src_raw, src_file, problems)
    source_ids = {s.id for s in sources.sources} if sources else set()
    wheels_file, wheels_raw = raw.wheels
    wheels = None
    if wheels_raw is None:
        problems.add(wheels_file, "-", "(whole file)", "missing or empty: it names the torch wheels the evidence was read from")
    else:
        wheels = _parse(Wheels, wheels_raw, wheels_file, problems)
    lock_file, lock_raw = raw.lock
    lock = _parse(Lock, lock_raw or {}, lock_file, problems)

    releases, files, unparsed = [], {}, 0
    for file, data in raw.releases.items():
        rel = _parse_release(data, file, problems)
        unparsed += rel is None
        if rel is not None:
            _check_release(rel, file, source_ids, wheels, problems)
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
        for item in (*rel.changes, *rel.faq, *rel.events):
            for i, n in enumerate(item.notes):
                for j, ref in enumerate(n.refs):
                    if ref not in change_ids:
                        problems.append(f"{files[rel.version]}: {item.id}: notes.{i}.refs.{j}: no change with id '{ref}'")
        for q in rel.faq:
            for i, ref in enumerate(q.refs):
                if ref not in change_ids:
                    problems.append(f"{files[rel.version]}: {q.id}: refs.{i}: no change with id '{ref}'")

    # a source is about a release the site has a page for: a release file, or a wheel read for it
    pages = {r.version for r in releases} | {minor(v) for v in (wheels.versions if wheels else [])}
    for s in sources.sources if sources and pages else []:
        if s.about not in pages:
            problems.append(f"{src_file}: {s.id}: about: no release {s.about} here (no release file, no wheel in data/wheels.yaml)")

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
                    translations[lang][str(key)] = (tr, file)
    _check_translation_placeholders(translations, texts, scope, problems)

    ui: dict[str, dict[str, str]] = {}
    ui_forms: dict[str, dict[str, dict[str, str]]] = {}
    for lang in LANGS:
        file, data = raw.ui.get(lang, ("", None))
        if not isinstance(data, dict):
            problems.append(f"{file or f'data/i18n/{lang}.yaml'}: -: (whole file): missing or not a mapping")
            continue
        ui[lang], ui_forms[lang] = {}, {}
        for k, v in data.items():
            if isinstance(v, dict):   # plural forms: plural.py
                bad = plural.forms_problem(v, lang)
                if bad:
                    problems.append(f"{file}: -: {k}: {bad}")
                else:
                    ui[lang][str(k)], ui_forms[lang][str(k)] = v["other"], dict(v)
            elif not isinstance(v, str) or not v.strip():
                problems.append(f"{file}: -: {k}: a UI string must be non-empty text (or a mapping of plural forms)")
            else:
                ui[lang][str(k)] = v
    if SOURCE in ui:
        for lang in TRANSLATED:
            if lang in ui:
                for k in sorted(set(ui[SOURCE]) - set(ui[lang])):
                    problems.append(f"data/i18n/{lang}.yaml: -: {k}: UI string missing (present in en)")
                for k in sorted(set(ui[lang]) - set(ui[SOURCE])):
                    problems.append(f"data/i18n/{lang}.yaml: -: {k}: UI string not in en (remove it)")
                for k in sorted(set(ui[lang]) & set(ui[SOURCE])):
                    want = set(placeholders(ui[SOURCE][k]))
                    for form, text in (ui_forms[lang].get(k) or {"": ui[lang][k]}).items():
                        got = set(placeholders(text))
                        if want != got:
                            problems.append(f"data/i18n/{lang}.yaml: -: {k}{'.' + form if form else ''}: placeholders "
                                            f"{sorted(got)} differ from English {sorted(want)}")
        for lang in (x for x in LANGS if x in ui and plural.counted(x)):
            for k, text in ui[lang].items():
                if k not in ui_forms[lang] and not k.startswith("unit.") and plural.needs_forms(text):
                    problems.append(f"data/i18n/{lang}.yaml: -: {k}: a word follows the count {{{plural.COUNT}}}; "
                                    f"give the plural forms {', '.join(plural.categories(lang))}")
    ui_src_file, ui_src_raw = raw.ui_sources
    ui_sources = _parse(TypeAdapter(dict[str, dict[str, str]]), ui_src_raw or {}, ui_src_file, problems) or {}

    ledger_file, ledger_raw = raw.ledger
    ledger_model = _parse(Ledger, ledger_raw or {}, ledger_file, problems)
    ledger = ledger_model.model_dump() if ledger_model else {}
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

    official = _check_official(*raw.official, change_ids, problems) if raw.official[0] else None

    report = None
    if sources_dir is not None and sources is not None:
        report = provenance.check(releases, files, sources, src_file, Path(sources_dir))
        problems += report.problems

    glossary = _parse_glossary(*raw.glossary, problems)
    known = change_ids | {r.version for r in releases} | {i.id for r in releases for i in (*r.faq, *r.events)}
    search = search_data.check(raw.search, known, problems)

    claims_file, claims_raw = raw.claims
    claims = _parse(TypeAdapter(dict[str, dict[Literal["added", "removed"], list[str]]]), claims_raw or {},
                    claims_file, problems) or {}
    for cid in sorted(set(claims) - change_ids):
        problems.add(claims_file, cid, "(entry)", "no change with this id", knock_on=True)
    def per_wheel(files: dict, parse, what: str) -> dict:
        """{version: parsed} of one kind of file the wheel commands write; a damaged file is a
        problem with its name, not a traceback."""
        out = {}
        for version, (file, text) in files.items():
            try:
                out[version] = parse(text)
            except Exception as exc:  # noqa: BLE001
                problems.add(file, version, "(whole file)", f"not {what}: {exc}")
        return out
    surfaces = per_wheel(raw.surfaces, parse_surface, "a surface written by `atlas evidence`")
    runtimes = per_wheel(raw.runtimes, parse_runtime, "a runtime lock written by `atlas runtime`")
    deprecations = per_wheel(raw.deprecations, parse_deprecations, "a deprecation list written by `atlas evidence`")
    platform_wheels = ((lock.registry if lock else {}) or {}).get("platform_wheels") or {}
    confirmations = _confirm(releases, files, wheels, runtimes, deprecations, platform_wheels, problems)
    proof_locks = per_wheel(raw.proofs, parse_proof_lock, "a proof lock written by `atlas prove`")
    proofs = _prove(releases, files, wheels, proof_locks, problems) if judge_proofs else {}
    updated_file, updated_raw = raw.updated
    updated = _parse(TypeAdapter(dict[str, UpdatedEntry]), updated_raw or {}, updated_file, problems) or {}
    gpus_file, gpus_raw = raw.gpus
    gpus = _parse(GpuTable, gpus_raw, gpus_file, problems) if gpus_raw is not None else None
    builds = check_builds(*raw.builds, source_ids, problems) if raw.builds[0] else None

    companions, companions_lock = _check_companions(raw.companions, raw.companions_lock, problems, raw.proofs)
    known = {p.name for p in companions.packages} if companions else set()
    for rel in releases:
        for c in rel.changes:
            if c.proof is not None and c.proof.package and c.proof.package not in known:
                problems.append(f"{files[rel.version]}: {c.id}: proof.package: '{c.proof.package}' is not a package "
                                f"of data/companions.yaml ({', '.join(sorted(known)) or 'none'})")

    if problems:
        raise DataError(problems)
    return FactBase(releases, files, sources, src_file, texts, scope, translations, ui, ledger, ui_sources,
                    wheels, lock.model_dump() if lock else {}, report, glossary, search, claims, surfaces,
                    {k: v.model_dump(exclude_none=True) for k, v in updated.items()}, gpus, runtimes, deprecations,
                    confirmations, ui_forms, proofs, official, builds, companions, companions_lock)


def _prove(releases: list[Release], files: dict[str, str], wheels: Wheels | None, locks: dict,
           problems: list[str]) -> dict[str, Any]:
    """Each change's ``proof:`` judged by the proof locks (wheel/proofs.py); what they contradict
    (release, symptom, visibility, fix range) is a problem naming the file, the change and the field."""
    versions = sorted(wheels.versions, key=version_key) if wheels else []
    out: dict[str, Any] = {}
    for rel in releases:
        for c in rel.changes:
            if c.proof is None:
                continue
            switches = c.rollback.switches if c.rollback else []
            for k, r in enumerate(c.proof.rollback):
                if r.switch not in switches:
                    problems.append(f"{files[rel.version]}: {c.id}: proof.rollback.{k}.switch: '{r.switch}' is not "
                                    f"one of the change's rollback.switches {switches}")
            if not c.proof.cannot_run:
                for s in sorted(set(switches) - {r.switch for r in c.proof.rollback}):
                    problems.append(f"{files[rel.version]}: {c.id}: rollback.switches: '{s}' has no proof run "
                                    f"(proof.rollback: the change's code with the switch)")
            verdict = judge_proof(c, rel.version, versions, locks)
            for where, why in verdict.problems:
                problems.append(f"{files[rel.version]}: {c.id}: {where}: {why}")
            out[c.id] = verdict
            for k, e in enumerate(c.errors):
                if e.origin == "run" and verdict.ok and not _printed(e.message, verdict.now):
                    problems.append(f"{files[rel.version]}: {c.id}: errors.{k}.message: origin 'run', but the proof's code "
                                    f"in torch {verdict.wheel or rel.version} does not print it"
                                    + (f" (it {describe_run(verdict.now)})" if verdict.now else " (the proof runs no code)"))
    return out


def _printed(message: str, run) -> bool:
    """Whether a proof run printed ``message`` (an error or a warning, "Type: text" as pages show it)."""
    if run is None:
        return False
    lines = ([run.error] if run.error else []) + [f"{c}: {m}" for c, m, _ in run.warnings] + list(run.output)
    return any(message in line or line.endswith(message) for line in lines)


#: The releases whose official notes the ledger accounts for (issue 39).
OFFICIAL_RELEASES = tuple(f"2.{n}" for n in range(1, 13))
#: What each status of an official item needs, and what it must not carry.
_STATUS_FIELD = {"curated": "change", "excluded": "reason", "open": "kind"}


def _check_official(file: str, data: Any, change_ids: set[str], problems: Problems) -> Optional[OfficialLedger]:
    """data/ledger.yaml: the schema (every item has a status; a reason is one of the codes), then
    what the schema cannot say: each release of 2.1-2.12 once, with its notes' address; ids
    prefixed by their release and unique; a curated item names a change that exists, an excluded
    one a reason, an open one a kind, and none carries the field of another status; an item of a
    section the release's copy did not let us read is an error (it cannot have been quoted)."""
    led = _parse(OfficialLedger, data, file, problems)
    if led is None:
        return None
    seen_rel: set[str] = set()
    seen_id: dict[str, str] = {}
    for r in led.releases:
        if r.release not in OFFICIAL_RELEASES:
            problems.add(file, r.release, "release", f"{r.release} is outside {OFFICIAL_RELEASES[0]}-{OFFICIAL_RELEASES[-1]}, "
                         "the releases whose official notes the ledger accounts for")
        if r.release in seen_rel:
            problems.add(file, r.release, "release", "given twice; one entry per release")
        seen_rel.add(r.release)
        want = f"https://github.com/pytorch/pytorch/releases/tag/v{r.release}.0"
        if r.url != want:
            problems.add(file, r.release, "url", f"must be the release's notes, {want}")
        for it in r.items:
            if not it.id.startswith(f"{r.release}-"):
                problems.add(file, it.id, "id", f"must start with its release, '{r.release}-'")
            if it.id in seen_id:
                problems.add(file, it.id, "id", f"duplicate id (also in release {seen_id[it.id]})")
            seen_id[it.id] = r.release
            if it.section != "other" and it.section not in r.read:
                problems.add(file, it.id, "section", f"the {it.section} section of {r.release}'s notes is not in its "
                             f"`read:` list, so no item of it can be quoted")
            need = _STATUS_FIELD[it.status]
            if getattr(it, need) is None:
                hint = {"change": "the id of the atlas change that covers it",
                        "reason": f"one of {', '.join(LEDGER_REASONS)}",
                        "kind": f"one of {', '.join(LEDGER_KINDS)}"}[need]
                problems.add(file, it.id, need, f"missing: an item with status {it.status} needs `{need}:` ({hint})")
            for other in set(_STATUS_FIELD.values()) - {need}:
                if getattr(it, other) is not None:
                    owner = next(k for k, v in _STATUS_FIELD.items() if v == other)
                    problems.add(file, it.id, other, f"an item with status {it.status} has no `{other}:` "
                                 f"(only status {owner} has one)")
            if it.change is not None and it.change not in change_ids:
                problems.add(file, it.id, "change", f"no change with id '{it.change}'")
    for v in OFFICIAL_RELEASES:
        if v not in seen_rel:
            problems.add(file, "-", "releases", f"release {v} has no entry; give it one (with `read: []` when its notes "
                         "could not be read)")
    return led


def _confirm(releases: list[Release], files: dict[str, str], wheels: Wheels | None, runtimes: dict,
             deprecations: dict, platform_wheels: dict, problems: list[str]) -> dict[str, list]:
    """Each change's ``wheel:`` claims judged by the committed locks (wheel/confirm.py); a claim
    they contradict is a problem naming the file, the change and the claim."""
    versions = sorted(wheels.versions, key=version_key) if wheels else []
    out: dict[str, list] = {}
    for rel in releases:
        w = wheel_of(rel.version, versions)
        before = versions[versions.index(w) - 1] if w and versions.index(w) > 0 else None
        for c in rel.changes:
            for i, claim in enumerate(c.wheel):
                verdict = judge(claim, w, before, runtimes, deprecations, platform_wheels)
                if not verdict.ok:
                    problems.append(f"{files[rel.version]}: {c.id}: wheel.{i}: the wheel locks contradict "
                                    f"'{claim.kind} {claim.name}': {verdict.why}")
                out.setdefault(c.id, []).append(verdict)
    return out


def _parse_glossary(file: str, data: Any, problems: list[str]) -> list[GlossaryEntry]:
    """The glossary's entries: one per concept, every translated language, no avoided
    rendering that would flag the rendering to use."""
    from .i18n import glossary_hits  # the matcher lives with the other translation checks

    if data is None:
        return []
    if not isinstance(data, list):
        problems.append(f"{file}: -: (whole file): must be a list of concepts")
        return []
    entries, seen = [], set()
    for i, raw_entry in enumerate(data):
        before = len(problems)
        entry = _parse(GlossaryEntry, raw_entry, file, problems)
        for j in range(before, len(problems)):  # name the list position when the id is missing
            if not (isinstance(raw_entry, dict) and isinstance(raw_entry.get("id"), str)):
                problems[j] = problems[j].replace(f"{file}: -: ", f"{file}: {i}: ", 1)
        if entry is None:
            continue
        if entry.id in seen:
            problems.append(f"{file}: {entry.id}: id: duplicate concept")
        seen.add(entry.id)
        for lang in sorted(set(TRANSLATED) - set(entry.terms)):
            problems.append(f"{file}: {entry.id}: terms.{lang}: missing; every translated language needs its rendering")
        for lang in sorted(set(entry.terms) - set(TRANSLATED)):
            problems.append(f"{file}: {entry.id}: terms.{lang}: not a translated language {list(TRANSLATED)}")
        for lang, term in entry.terms.items():
            for k, bad in enumerate(term.avoid):
                probe = GlossaryEntry(id=entry.id, en=entry.en, terms={lang: term.model_copy(update={"avoid": [bad]})})
                if glossary_hits([probe], lang, term.use):
                    problems.append(f"{file}: {entry.id}: terms.{lang}.avoid.{k}: '{bad}' also matches the "
                                    f"rendering to use '{term.use}'")
        entries.append(entry)
    return entries


def _message_in_quote(message: str, quote: str) -> bool:
    """Whether an error message occurs in a verbatim quote, X matching a path or a name and N a
    number, runs of white space matching any white space."""
    parts = re.split(r"(\bX\b|\bN\b|\s+)", message)
    pattern = "".join({"X": r"\S+?", "N": r"\d+"}.get(p, r"\s+" if p.isspace() else re.escape(p)) for p in parts if p)
    return re.search(pattern, quote) is not None


def _check_companions(facts_pair: tuple, lock_pair: tuple, problems: Problems,
                      proof_texts: Optional[dict] = None) -> tuple[Optional[CompanionFacts], dict]:
    """data/companions.yaml against data/companions.lock.yaml: every package it names is in the
    lock; a README row's specifier parses and its versions occur in its quote; a correction names a
    release the lock has, and its ``declared`` is what that release's METADATA says (so a correction
    goes stale, loudly, when the index changes). A correction sourced from a proof lock
    (``url: data/evidence/proofs-<torch>.json``, what `atlas prove` saw when it ran the package beside
    that torch) quotes the error an outcome of that package there records."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from .companions.pairing import _torch_lines

    facts_file, facts_raw = facts_pair
    lock_file, lock_raw = lock_pair
    if facts_raw is None and lock_raw is None:
        return None, {}
    if facts_raw is None or lock_raw is None:
        problems.add(facts_file or lock_file, "-", "(whole file)", "data/companions.yaml and data/companions.lock.yaml "
                     "go together; run `atlas companions` to write the lock")
        return None, {}
    facts = _parse(CompanionFacts, facts_raw, facts_file, problems)
    lock = _parse(CompanionLock, lock_raw, lock_file, problems)
    if facts is None or lock is None:
        return None, {}
    known = lock_raw["packages"]
    for i, pkg in enumerate(facts.packages):
        if pkg.name not in known:
            problems.add(facts_file, pkg.name, f"packages.{i}", f"not in {lock_file}; run `atlas companions`")
    named = {p.name for p in facts.packages}
    for kind, entries in (("readme", facts.readme), ("build", facts.build), ("corrections", facts.corrections),
                          ("errors", facts.errors)):
        for i, e in enumerate(entries):
            if e.package not in named:
                problems.add(facts_file, e.package, f"{kind}.{i}.package", "not one of `packages:`")
    for t in facts.readme:
        for j, row in enumerate(t.rows):
            try:
                spec = SpecifierSet(row.torch)
            except InvalidSpecifier:
                problems.add(facts_file, t.package, f"rows.{j}.torch", f"not a PEP 440 specifier: {row.torch!r}")
                continue
            for s in spec:
                v = s.version.removesuffix(".*")
                if not re.search(rf"(?<![\d.]){re.escape(v)}(?![\d])", row.quote):
                    problems.add(facts_file, t.package, f"rows.{j}.torch", f"{v} does not occur in its quote {row.quote!r}")
            if not re.search(rf"`{re.escape(row.series)}`", row.quote):
                problems.add(facts_file, t.package, f"rows.{j}.series", f"{row.series} does not occur in its quote")
    seen = set()
    for i, e in enumerate(facts.errors):
        if e.id in seen:
            problems.add(facts_file, e.id, f"errors.{i}.id", "duplicate id")
        seen.add(e.id)
        if not _message_in_quote(e.message, e.quote):
            problems.add(facts_file, e.id, f"errors.{i}.message",
                         f"does not occur in its quote (X stands for a path or name, N for a number): {e.quote!r}")
    for i, c in enumerate(facts.corrections):
        rel = ((known.get(c.package) or {}).get("releases") or {}).get(c.version)
        if rel is None:
            problems.add(facts_file, f"{c.package} {c.version}", f"corrections.{i}.version", f"no such release in {lock_file}")
            continue
        got = _torch_lines(rel.get("metadata"))
        if got != c.declared:
            problems.add(facts_file, f"{c.package} {c.version}", f"corrections.{i}.declared",
                         f"the lock reads {got}, not {c.declared}: review the correction")
        proof = re.fullmatch(r"data/evidence/proofs-(.+)\.json", c.url)
        if proof:
            _, text = (proof_texts or {}).get(proof.group(1), (None, None))
            errors = [o.get("error") or "" for o in (json.loads(text).get("outcomes") or {}).values()
                      if o.get("package") == f"{c.package}=={c.version}"] if text else []
            if not any(e and e in c.quote for e in errors):
                problems.add(facts_file, f"{c.package} {c.version}", f"corrections.{i}.quote",
                             f"{c.url} records no outcome of {c.package}=={c.version} whose error occurs in the quote")
    return facts, lock_raw
