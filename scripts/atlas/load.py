"""Step 1: read the YAML files under ``data/``.

In:  the data directory (``data/`` by default).
Out: ``RawData``: plain dicts and lists exactly as YAML parsed them, keyed by
     their path relative to the repository, so later steps can name the file in
     every error. Nothing is checked here except that each file is valid YAML, that no
     mapping gives a key twice, and that no file uses an alias (``*name``): an alias repeats
     a node, so a 120 KB file of aliases to aliases expands to hundreds of MB of pages.
     ``dump`` is the writer every command uses for data files: it never writes an alias.
"""
from __future__ import annotations

import pickle
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .langs import LANGS, TRANSLATED
from .problems import DataError

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
@dataclass
class RawData:
    root: Path
    releases: dict[str, Any] = field(default_factory=dict)       # path -> parsed release file
    sources: tuple[str, Any] = ("", None)                         # (path, parsed sources.yaml)
    translations: dict[str, dict[str, Any]] = field(default_factory=dict)  # lang -> path -> mapping
    ui: dict[str, tuple[str, Any]] = field(default_factory=dict)  # lang -> (path, mapping)
    ledger: tuple[str, Any] = ("", None)                          # published ids and redirects
    official: tuple[str, Any] = ("", None)                        # data/ledger.yaml: the official notes' items, judged
    ui_sources: tuple[str, Any] = ("", None)                      # lang -> key -> en_hash of UI strings
    wheels: tuple[str, Any] = ("", None)                          # data/wheels.yaml
    lock: tuple[str, Any] = ("", None)                            # data/evidence.lock.yaml (written by atlas evidence)
    extra: dict[str, Any] = field(default_factory=dict)           # path -> any other data/*.yaml (read, not used)
    glossary: tuple[str, Any] = ("", None)                        # list of concepts and their renderings
    claims: tuple[str, Any] = ("", None)                          # data/claims.yaml: what the sources say is new or gone
    updated: tuple[str, Any] = ("", None)                         # data/updated.yaml: when each change last changed
    gpus: tuple[str, Any] = ("", None)                            # data/gpus.yaml: GPU models -> architecture (env check)
    builds: tuple[str, Any] = ("", None)                          # data/builds.yaml: every build of every release (issue 40)
    companions: tuple[str, Any] = ("", None)                      # data/companions.yaml: the companion packages' cited signals
    companions_lock: tuple[str, Any] = ("", None)                 # data/companions.lock.yaml (written by atlas companions)
    surfaces: dict[str, tuple[str, str]] = field(default_factory=dict)  # wheel version -> (path, text) of data/evidence/surface-<v>.txt
    deprecations: dict[str, tuple[str, str]] = field(default_factory=dict)  # wheel version -> (path, text) of data/evidence/deprecations-<v>.tsv
    runtimes: dict[str, tuple[str, str]] = field(default_factory=dict)  # wheel version -> (path, text) of data/evidence/runtime-<v>.txt
    proofs: dict[str, tuple[str, str]] = field(default_factory=dict)    # wheel version -> (path, text) of data/evidence/proofs-<v>.json
    search: dict[str, Any] = field(default_factory=dict)           # data/search/<name>.yaml: aliases, stopwords

    def yaml_files(self) -> Iterator[tuple[str, Any]]:
        """(path, parsed content) of every YAML file that was read."""
        yield from self.releases.items()
        for lang in self.translations:
            yield from self.translations[lang].items()
        yield from self.ui.values()
        for pair in (self.sources, self.ledger, self.official, self.ui_sources, self.wheels, self.lock, self.glossary, self.claims,
                     self.updated, self.gpus, self.builds, self.companions, self.companions_lock):
            if pair[0]:
                yield pair
        yield from self.extra.items()
        for name, obj in self.search.items():
            yield _rel(self.root / "search" / f"{name}.yaml", self.root), obj


_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)   # libyaml: about 10x faster than pure Python


class _Loader(_Base):
    """SafeLoader that keeps an impossible date (2026-10-99) as a string, so validation
    can report it with file, fact id and field instead of a bare ValueError, and that refuses
    a key given twice in one mapping (YAML keeps the last one silently: a corrected
    translation written above an old one would never be shown)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key = key_node.value
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"the key {key!r} is given twice (first on line {seen[key] + 1})",
                            key_node.start_mark)
                    seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)

    def construct_object(self, node, deep=False):
        # The parser gives every alias the very node its anchor names, so a node met a second
        # time (or inside itself) is an alias: refused before anything is expanded.
        if node in self.constructed_objects or node in self.recursive_objects:
            raise yaml.constructor.ConstructorError(
                None, None, f"an alias (*name) repeats the value anchored (&name) on line {node.start_mark.line + 1}: "
                "anchors and aliases are not allowed in data files (write the value out)", None)
        return super().construct_object(node, deep=deep)


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes a value shared by two places twice instead of as ``&id001`` / ``*id001``
    (the pure-Python emitter of ``yaml.safe_dump``, so files keep their line breaks)."""

    def ignore_aliases(self, data):
        return True


def dump(obj: Any, **options) -> str:
    """YAML text of ``obj`` for a data file (``yaml.safe_dump``'s options), with no alias."""
    return yaml.dump(obj, Dumper=_Dumper, **options)


def _timestamp(loader: yaml.SafeLoader, node: yaml.Node):
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except ValueError:
        return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent if root.name == "data" else root))
    except ValueError:
        return str(path)


def _read(path: Path, root: Path, problems: list[str]) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        problems.append(f"{_rel(path, root)}: -: (whole file): not UTF-8 text: {exc}")
        return None
    except OSError as exc:
        problems.append(f"{_rel(path, root)}: -: (whole file): cannot read: {exc}")
        return None
    return parse(text, _rel(path, root), problems)


#: name -> (the text last parsed under that name, its document pickled): ``mkdocs serve`` loads
#: every file again after each edit, and unpickling an unchanged file is ~10x faster than parsing it
_parsed: dict[str, tuple[str, bytes]] = {}


def parse(text: str, name: str, problems: list[str]) -> Any:
    """One YAML document; a syntax error is added to ``problems`` as ``name: -: line L, column C: ...``.
    A text parsed before under the same name gives a fresh copy of the same document."""
    last = _parsed.get(name)
    if last is not None and last[0] == text:
        return pickle.loads(last[1])  # noqa: S301 - our own pickle of a document parsed in this process
    try:
        doc = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader
        _parsed[name] = (text, pickle.dumps(doc, pickle.HIGHEST_PROTOCOL))
        return doc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(whole file)"
        what = " ".join(str(x) for x in (getattr(exc, "context", None), getattr(exc, "problem", None)) if x) or str(exc)
        problems.append(f"{name}: -: {where}: not valid YAML: {what}".replace("\n", " "))
    return None


def load(data_dir: Path = DATA) -> RawData:
    """Parse every data file. Raises DataError listing every unreadable file."""
    data_dir = Path(data_dir)
    problems: list[str] = []
    raw = RawData(root=data_dir)
    for path in sorted((data_dir / "releases").glob("*.yaml")):
        raw.releases[_rel(path, data_dir)] = _read(path, data_dir, problems)
    src = data_dir / "sources.yaml"
    raw.sources = (_rel(src, data_dir), _read(src, data_dir, problems))
    for lang in TRANSLATED:
        raw.translations[lang] = {
            _rel(p, data_dir): _read(p, data_dir, problems)
            for p in sorted((data_dir / "translations" / lang).rglob("*.yaml"))
        }
    for lang in LANGS:
        p = data_dir / "i18n" / f"{lang}.yaml"
        raw.ui[lang] = (_rel(p, data_dir), _read(p, data_dir, problems))
    ui_src = data_dir / "i18n" / "translated_from.yaml"
    if ui_src.exists():
        raw.ui_sources = (_rel(ui_src, data_dir), _read(ui_src, data_dir, problems))
    glossary = data_dir / "glossary.yaml"
    if glossary.exists():
        raw.glossary = (_rel(glossary, data_dir), _read(glossary, data_dir, problems))
    ledger = data_dir / "published_ids.yaml"
    if ledger.exists():
        raw.ledger = (_rel(ledger, data_dir), _read(ledger, data_dir, problems))
    official = data_dir / "ledger.yaml"
    if official.exists():
        raw.official = (_rel(official, data_dir), _read(official, data_dir, problems))
    wheels = data_dir / "wheels.yaml"
    raw.wheels = (_rel(wheels, data_dir), _read(wheels, data_dir, problems) if wheels.exists() else None)
    lock = data_dir / "evidence.lock.yaml"
    raw.lock = (_rel(lock, data_dir), _read(lock, data_dir, problems) if lock.exists() else None)
    for name in ("claims", "updated", "gpus", "builds", "companions"):
        p = data_dir / f"{name}.yaml"
        setattr(raw, name, (_rel(p, data_dir), _read(p, data_dir, problems) if p.exists() else None))
    p = data_dir / "companions.lock.yaml"
    raw.companions_lock = (_rel(p, data_dir), _read(p, data_dir, problems) if p.exists() else None)
    for p in sorted((data_dir / "evidence").glob("surface-*.txt")):
        try:
            raw.surfaces[p.name[len("surface-"):-len(".txt")]] = (_rel(p, data_dir), p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"{_rel(p, data_dir)}: -: (whole file): cannot read: {exc}")
    for prefix, suffix, into in (("runtime-", ".txt", raw.runtimes), ("deprecations-", ".tsv", raw.deprecations),
                                 ("proofs-", ".json", raw.proofs)):
        for p in sorted((data_dir / "evidence").glob(f"{prefix}*{suffix}")):
            try:
                into[p.name[len(prefix):-len(suffix)]] = (_rel(p, data_dir), p.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(f"{_rel(p, data_dir)}: -: (whole file): cannot read: {exc}")
    known = {"sources.yaml", "published_ids.yaml", "ledger.yaml", "wheels.yaml", "evidence.lock.yaml", "glossary.yaml", "claims.yaml",
             "updated.yaml", "gpus.yaml", "builds.yaml", "companions.yaml", "companions.lock.yaml"}
    for p in sorted(data_dir.glob("*.yaml")):
        if p.name not in known:
            raw.extra[_rel(p, data_dir)] = _read(p, data_dir, problems)
    for name in ("aliases", "stopwords"):
        p = data_dir / "search" / f"{name}.yaml"
        raw.search[name] = (_read(p, data_dir, problems) or {}) if p.exists() else None
    if problems:
        raise DataError(problems)
    return raw
