"""Evidence from the released wheels: evaluate probes and read the lock file.

In:  ``Probe``s (schema.py) and wheel files (zip archives; nothing is installed or imported).
Out: ``evaluate(probe, wheel) -> bool`` and the lock file ``data/evidence.lock.yaml``, which
     records each wheel's file name, size and sha256 and each probe's observed outcome. The
     site build reads only the lock file and never downloads; ``atlas evidence``
     writes it and ``tests/test_evidence.py`` fails when it no longer matches the probes.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path
from typing import Optional

import yaml

from ..load import DATA
from ..schema import Probe, Wheels

LOCK = DATA / "evidence.lock.yaml"


def read_wheels() -> Wheels:
    """data/wheels.yaml: which torch wheels the probes are checked against."""
    return Wheels.model_validate(yaml.safe_load((DATA / "wheels.yaml").read_text(encoding="utf-8")))


def probe_id(change_id: str, index: int) -> str:
    return f"{change_id}.probe.{index}"


def probe_hash(p: Probe) -> str:
    """Identifies a probe's definition; the lock is stale when it changes."""
    body = json.dumps(p.model_dump(), sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:12]


class Wheel:
    """A wheel opened once; METADATA parsed lazily, members read on demand."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.zip = zipfile.ZipFile(self.path)
        self.names = self.zip.namelist()
        self._meta = None
        self._members: dict[str, bytes] = {}

    def read(self, name: str) -> bytes:
        """A member's bytes, read once: several probes may grep the same 500 MB library."""
        if name not in self._members:
            self._members[name] = self.zip.read(name)
        return self._members[name]

    @property
    def metadata(self):
        if self._meta is None:
            name = next(n for n in self.names if n.endswith(".dist-info/METADATA"))
            self._meta = Parser().parsestr(self.zip.read(name).decode("utf-8"))
        return self._meta


def entry_points(wheel: Wheel) -> dict[str, dict[str, str]]:
    """entry_points.txt as {group: {name: "module:attr"}}."""
    import configparser

    name = next((n for n in wheel.names if n.endswith(".dist-info/entry_points.txt")), None)
    if name is None:
        return {}
    cp = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    cp.optionxform = str
    cp.read_string(wheel.zip.read(name).decode("utf-8"))
    return {g: dict(cp[g]) for g in cp.sections()}


def evaluate(p: Probe, wheel: Wheel) -> bool:
    if p.entry_point is not None:
        group, name = p.entry_point.split(":", 1)
        target = entry_points(wheel).get(group, {}).get(name)
        if target is None:
            return False
        module = target.split(":", 1)[0].strip().replace(".", "/")
        return f"{module}.py" in wheel.names or f"{module}/__init__.py" in wheel.names
    if p.metadata is not None:
        return any(p.contains in v for v in wheel.metadata.get_all(p.metadata) or [])
    matches = [n for n in wheel.names if fnmatch.fnmatchcase(n, p.file)]
    if p.contains is None:
        return bool(matches)
    needle = p.contains.encode("utf-8")
    return any(needle in wheel.read(n) for n in matches)


def status_of(p: Probe, observed: dict[str, bool]) -> str:
    return "confirmed" if all(observed.get(v) == want for v, want in p.expect.items()) else "contradicted"


def read_lock(path: Path = LOCK) -> dict:
    if not path.exists():
        return {"wheels": {}, "probes": {}}
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {"wheels": {}, "probes": {}}


def lock_problems(changes, lock: dict) -> list[str]:
    """Why the lock file does not describe the current probes (empty when it does)."""
    out, seen = [], set()
    for c in changes:
        for i, p in enumerate(c.probes):
            pid = probe_id(c.id, i)
            seen.add(pid)
            entry = lock.get("probes", {}).get(pid)
            if entry is None:
                out.append(f"{pid}: not in the lock file")
            elif entry.get("hash") != probe_hash(p):
                out.append(f"{pid}: the probe changed since the lock file was written")
            elif set(entry.get("observed", {})) != set(p.expect):
                out.append(f"{pid}: observed versions differ from the probe's")
    for pid in set(lock.get("probes", {})) - seen:
        out.append(f"{pid}: in the lock file but no longer a probe")
    return out + data_lock_problems(changes, lock)


def data_lock_problems(changes, lock: dict, surfaces_dir: Optional[Path] = None) -> list[str]:
    """Why the lock's identifier, error and entry-point observations or the surfaces do not
    describe the current data and wheels (empty when they do)."""
    from ..idents import errors, identifiers
    from .surface import read_surface

    out = []
    versions = list(lock.get("wheels") or {})
    ids = {i.key: i for i in identifiers(changes) if i.kind}
    locked = lock.get("identifiers") or {}
    for k, i in sorted(ids.items()):
        e = locked.get(k)
        if e is None:
            out.append(f"{k}: identifier {i.value!r} has no verdict in the lock file")
        elif (e.get("value"), e.get("kind"), e.get("query")) != (i.value, i.kind, i.query):
            out.append(f"{k}: identifier changed from {e.get('value')!r} to {i.value!r} since the lock file was written")
        elif set(e.get("observed") or {}) != set(versions):
            out.append(f"{k}: not looked up in every wheel")
    out += [f"{k}: in the lock file but no longer an identifier in the data" for k in sorted(set(locked) - set(ids))]
    errs = {e.key: e for e in errors(changes)}
    locked = lock.get("errors") or {}
    for k, e in sorted(errs.items()):
        if k not in locked:
            out.append(f"{k}: error message {e.message!r} has no verdict in the lock file")
        elif locked[k].get("message") != e.message:
            out.append(f"{k}: error message changed since the lock file was written")
    out += [f"{k}: in the lock file but no longer an error message in the data" for k in sorted(set(locked) - set(errs))]
    for v, w in (lock.get("wheels") or {}).items():
        if v not in (lock.get("entry_points") or {}):
            out.append(f"torch {v}: entry points not in the lock file")
        p = (surfaces_dir or SURFACES) / f"surface-{v}.txt"
        if not p.exists():
            out.append(f"torch {v}: no API surface ({p.name})")
            continue
        head = read_surface(p.read_text(encoding="utf-8"))[0]
        if head.get("sha256") != w.get("sha256"):
            out.append(f"torch {v}: {p.name} was extracted from another wheel (sha256 {head.get('sha256')})")
        d = (surfaces_dir or SURFACES) / f"deprecations-{v}.tsv"
        first = d.read_text(encoding="utf-8").split("\n", 1)[0] if d.exists() else ""
        if f"sha256={w.get('sha256')} " not in first + " ":
            out.append(f"torch {v}: {d.name} is missing or was read from another wheel")
    return out


# ---------------------------------------------------------------------------------------------
# Checks derived from the data itself (no probe needed): identifiers, error messages, entry
# points and the API surface of each wheel. atlas evidence writes the observations into
# the lock (and the surfaces into data/evidence/surface-<version>.txt); what follows turns them
# into verdicts, for enrich.py and the tests. Nothing here reads a wheel.

SURFACES = DATA / "evidence"
#: Observations that show the wheel has the thing itself; "mention" (a word match of the last
#: part of a dotted name) and "elsewhere" (defined, but not reachable under that name) do not.
PRESENT = {"public", "private", "parameter", "entry_point", "library", "text", "code"}
#: Observations that show only words: a comment or docstring that names it ("comment"), or a
#: word match of part of a dotted name ("mention"). Before the release that claims to add the
#: thing, they make the claim "mentioned before", never "contradicted".
MENTIONED = {"comment", "mention"}


def surface_path(version: str) -> Path:
    return SURFACES / f"surface-{version}.txt"


def deprecations_path(version: str) -> Path:
    return SURFACES / f"deprecations-{version}.tsv"


_SURFACES: dict[str, tuple[dict, dict]] = {}


def parse_surface(text: str) -> tuple[dict, dict]:
    """(header fields, {public name: signature}) of one committed surface's text; the header's
    ``hidden`` is the set of names that are not public in this wheel but still resolve.

    Read-only results, parsed once per text in a process (keyed by its hash): the files hold
    1.5 MB, and the fuzz test and ``mkdocs serve`` run the pipeline many times."""
    from .surface import HIDDEN, read_surface

    key = hashlib.sha1(text.encode()).hexdigest()
    if key not in _SURFACES:
        head, names = read_surface(text)
        hidden = frozenset(n for n, sig in names.items() if sig == HIDDEN)   # a stub that only raises counts as gone
        _SURFACES[key] = ({**head, "hidden": hidden}, {n: sig for n, sig in names.items() if not sig.startswith(HIDDEN)})
    return _SURFACES[key]


#: What an English title or summary says a change does to a name. Active verbs claim the first
#: name after them in the clause ("adds the {target} target", "arrives as the opt-in nccl2");
#: "new" the name right after it ("a new {backend} backend"); the passive forms the last name
#: before them ("acc_policy=... is removed", "methods such as {m} no longer exist").
_ACTIVE = {"added": r"\b(?:adds?|introduces?|arrives as)\b", "removed": r"\b(?:removes?|drops?|deletes?)\b"}
_NEW = r"\bnew\s+(?:\w+\s+)?$"
_PASSIVE = {"added": r"^\s*(?:is|are)\s+(?:now\s+)?(?:added|new)\b",
            "removed": r"^\s*(?:is|are)\s+(?:removed|dropped|deleted|gone)\b|^\s*no longer exists?\b"}
_CLAUSE = re.compile(r"[,;:]|\b(?:from|to|for|and|so|but|in|with|on)\b")


def text_roles(c) -> dict[str, str]:
    """{value key: "added" | "removed"} that the change's own English title and summary claim
    (see the patterns above). Only string values of three characters or more are claimed."""
    roles: dict[str, str] = {}
    for text in (c.title, c.summary):
        for sentence in re.split(r"(?<=[.;!?])\s+", str(text)):
            spots = []      # (start, end, key) of each value mentioned, as {key} or as written
            for k, v in c.values.items():
                if not isinstance(v, str) or len(v) < 3:
                    continue
                for m in re.finditer(re.escape("{" + k + "}") + "|(?<![\\w.])" + re.escape(v) + "(?![\\w])", sentence):
                    spots.append((m.start(), m.end(), k))
            spots.sort()
            for i, (a, b, k) in enumerate(spots):
                before = sentence[spots[i - 1][1] if i else 0:a]
                after = sentence[b:spots[i + 1][0] if i + 1 < len(spots) else len(sentence)]
                for role, rx in _ACTIVE.items():
                    last = list(re.finditer(rx, before, re.I))[-1:]
                    if last and not _CLAUSE.search(before[last[0].end():]):
                        roles.setdefault(k, role)
                if re.search(_NEW, before, re.I):
                    roles.setdefault(k, "added")
                for role, rx in _PASSIVE.items():
                    if re.search(rx, after, re.I):
                        roles.setdefault(k, role)
    return roles


def claim_roles(c, claims: dict) -> dict[str, str]:
    """{value key: "added" | "removed"} for one change (see data/claims.yaml for the rules):
    from its type, from what its English title and summary say (``text_roles``), then claims.yaml."""
    roles: dict[str, str] = dict(text_roles(c)) if c.type in ("feature", "removal", "breaking", "platform") else {}
    keys = set(c.values)
    if c.type == "removal":
        for k in keys:
            if k in ("old", "param") or k.startswith("old_"):
                roles[k] = "removed"
    if c.type == "breaking" and {"old", "new"} <= keys and all(isinstance(c.values[k], str) for k in ("old", "new")):
        roles.update(old="removed", new="added")
    for role, ks in (claims.get(c.id) or {}).items():
        for k in ks:
            roles[k] = role
    return roles


def wheel_of(release: str, versions: list[str]) -> Optional[str]:
    """The checked wheel of a release ("2.14" -> "2.14.1"), or None."""
    return next((v for v in versions if v.rsplit(".", 1)[0] == release), None)


def _present(obs) -> bool:
    return bool(obs) and obs.get("how") in PRESENT


def _is_stub(obs, surface: dict) -> bool:
    """The name is reachable but its function only raises (a removed API kept as a stub)."""
    return bool(obs) and (obs.get("stub") or (obs.get("name") in surface and surface[obs["name"]].endswith(" raises")))


def _in_package(name: str, file: str) -> bool:
    """Whether ``file`` lies in the package of the dotted ``name``'s parent (``torch.mps.Stream``:
    ``torch/mps/``); a bare name has no package, so no file is in it."""
    if "." not in name:
        return False
    parent = name.rsplit(".", 1)[0].replace(".", "/")
    return file.startswith(parent + "/") or file == parent + ".py"


@dataclass
class Verdict:
    """One automatic check of a change: an identifier or an error message against the wheels."""
    key: str
    what: str                 # ident | error | entry_point
    value: str
    kind: str                 # the identifier kind, the error origin, or "entry_point"
    role: str                 # added | removed | "" (for identifiers)
    status: str               # confirmed | contradicted | found | absent | differs | reason
    observed: dict            # version -> observation dict or None
    wheel: str = ""           # the wheel that decides the verdict
    file: str = ""            # the file in that wheel that shows it
    name: str = ""            # the name it resolved to, or the wheel's message text
    reason: str = ""          # for status "reason": why a wheel cannot show it
    first: str = ""           # first and last wheel that have it
    last: str = ""
    detail: str = ""          # which sentence explains the verdict: a key under auto.* in data/i18n

    def __post_init__(self):
        if not self.detail and self.status == "reason":
            self.detail = "reason." + self.reason


def ident_verdicts(changes, lock: dict, release_of: dict, versions: list[str], claims: dict,
                   surfaces: dict) -> dict[str, list[Verdict]]:
    """{change id: [Verdict]} for every identifier value (idents.py) of every change."""
    from ..idents import identifiers

    entries = lock.get("identifiers") or {}
    out: dict[str, list[Verdict]] = {}
    by_change = {c.id: c for c in changes}
    for ident in identifiers(changes):
        c = by_change[ident.change]
        role = claim_roles(c, claims).get(ident.field, "") if ident.field != "rollback" else ""
        if ident.kind is None:
            out.setdefault(c.id, []).append(Verdict(ident.key, "ident", ident.value, "", role, "reason", {},
                                                    reason=ident.reason))
            continue
        obs = (entries.get(ident.key) or {}).get("observed") or {}
        have = [v for v in versions if _present(obs.get(v))]
        rel = wheel_of(release_of[c.id], versions)
        prev = versions[versions.index(rel) - 1] if rel and versions.index(rel) > 0 else None
        d = Verdict(ident.key, "ident", ident.value, ident.kind, role, "", obs,
                    first=have[0] if have else "", last=have[-1] if have else "")
        if rel is None:
            d.status, d.reason, d.detail = "reason", "no_wheel", "reason.no_wheel"
        elif not obs:
            d.status = d.detail = "pending"
        elif role == "added":
            if prev and _present(obs.get(prev)):
                d.status, d.wheel, d.detail = "contradicted", prev, "already_in"
            elif prev and (obs.get(prev) or {}).get("how") == "elsewhere" and _in_package(ident.query, obs[prev].get("file", "")):
                # defined (def/class) in the wheel before, inside the package the name belongs to,
                # under another path: the feature was there (a Stream class of torch.cuda is not torch.mps's)
                d.status, d.wheel, d.detail = "contradicted", prev, "already_elsewhere"
            elif not _present(obs.get(rel)):
                d.status, d.wheel, d.detail = "contradicted", rel, "not_in"
            elif prev and (obs.get(prev) or {}).get("how") in MENTIONED:
                d.status, d.wheel, d.detail = "mentioned", prev, "mentioned_before"
            else:
                d.status, d.wheel, d.detail = "confirmed", rel, "confirmed_added"
        elif role == "removed":
            if _present(obs.get(rel)) and _is_stub(obs.get(rel), surfaces.get(rel, ({}, {}))[1]):
                d.status, d.wheel, d.detail = "confirmed", rel, "stub"
            elif _present(obs.get(rel)):
                d.status, d.wheel, d.detail = "contradicted", rel, "still_in"
            elif prev and not _present(obs.get(prev)):
                d.status, d.wheel, d.detail = "absent", prev, "absent_before"
            else:
                d.status, d.wheel, d.detail = "confirmed", rel, "confirmed_removed"
        else:
            ok = _present(obs.get(rel))
            d.status, d.wheel, d.detail = ("found" if ok else "absent"), rel, ("found" if ok else "absent")
        o = obs.get(d.wheel) if d.wheel else None
        if o:
            d.file, d.name = o.get("file") or "", o.get("name") or ""
            if o.get("how") == "elsewhere" and d.detail in ("not_in", "absent"):
                d.detail += "_elsewhere"
        out.setdefault(c.id, []).append(d)
    return out


def error_verdicts(changes, lock: dict, release_of: dict, versions: list[str]) -> dict[str, list[Verdict]]:
    """{change id: [Verdict]} for every error message: found as written, worded differently
    in the wheel (the wheel's text is given), not in the wheel, or too short to search."""
    from ..idents import errors, searchable

    entries = lock.get("errors") or {}
    out: dict[str, list[Verdict]] = {}
    for e in errors(changes):
        rel = wheel_of(release_of[e.change], versions)
        obs = (entries.get(e.key) or {}).get("observed") or {}
        d = Verdict(e.key, "error", e.message, e.origin, "", "", obs, wheel=rel or "")
        have = [v for v in versions if obs.get(v) and not obs[v].get("partial")]
        d.first, d.last = (have[0], have[-1]) if have else ("", "")
        o = obs.get(rel) if rel else None
        if e.origin == "pip":
            d.status, d.reason, d.detail = "reason", "pip", "reason.pip"
        elif e.origin == "run":      # the proof lock holds it (validate.py checks it there)
            d.status, d.reason, d.detail = "reason", "run", "reason.run"
        elif not searchable(e.fragments):
            d.status, d.reason, d.detail = "reason", "short", "reason.short"
        elif rel is None:
            d.status, d.reason, d.detail = "reason", "no_wheel", "reason.no_wheel"
        elif not obs:
            d.status = d.detail = "pending"
        elif o and not o.get("partial"):
            d.status, d.file, d.detail = "found", o["file"], "error_found"
            wt = o.get("wheel_text", "")
            if wt and " ".join(wt.split()) != " ".join(e.message.split()):
                d.name, d.detail = wt, "error_found_text"
        elif o:
            d.status, d.file, d.name, d.detail = "differs", o["file"], o.get("wheel_text", ""), "error_differs"
        else:
            # a guessed standard message is expected to be absent; a quoted one is a finding
            d.status = "absent"
            d.detail = "error_standard" if e.origin in ("python", "cuda", "loader") else "error_absent"
        out.setdefault(e.change, []).append(d)
    return out


def stub_errors(idv: dict[str, list[Verdict]], erv: dict[str, list[Verdict]]) -> None:
    """A guessed "has no attribute" error is wrong when the wheel still defines the name as a
    stub that raises: mark it contradicted, naming the stub's file (in place)."""
    for cid, errs in erv.items():
        stubs = [v for v in idv.get(cid, []) if v.detail == "stub"]
        for e in errs:
            if stubs and e.kind == "python" and "has no attribute" in e.value:
                e.status, e.detail, e.wheel, e.file = "contradicted", "error_stub", stubs[0].wheel, stubs[0].file


def entry_point_findings(lock: dict, idents_by_change: dict[str, list[Verdict]]) -> list[dict]:
    """Entry points whose module is not in the wheel: {wheel, entry, target, change or None}."""
    named = {}
    for cid, vs in idents_by_change.items():
        for v in vs:
            if v.kind in ("backend", "name"):
                named.setdefault(v.value.split("=")[-1].strip('"\''), cid)
    out = []
    for version, eps in sorted((lock.get("entry_points") or {}).items()):
        for ep, info in sorted(eps.items()):
            if not info.get("module_present"):
                out.append({"wheel": version, "entry": ep, "target": info.get("target", ""),
                            "change": named.get(ep.split(":", 1)[1])})
    return out


# ---------------------------------------------------------------------------------------------
# "New in X" against the earlier wheels: a change that calls something new which an earlier wheel
# already ships must say so in a disagreement note naming that wheel and file (schema.Earlier),
# and what the note names must be what the committed locks show. Nothing here reads a wheel.

def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split("."))


def _locked(lock: dict, cid: str, k: int, p: Probe) -> dict:
    """The locked outcomes of probe ``k`` of change ``cid``, if the lock was written from this very
    probe (else {}: a changed probe proves nothing until ``atlas evidence --probes``)."""
    entry = (lock.get("probes") or {}).get(probe_id(cid, k)) or {}
    return (entry.get("observed") or {}) if entry.get("hash") == probe_hash(p) else {}


def earlier_finds(c, rel: Optional[str], versions: list[str], idents: list, lock: dict, claims: dict) -> list[tuple[str, str]]:
    """(first wheel, what) for each thing change ``c`` calls new that the locks find in a wheel
    older than its release's wheel ``rel``: an identifier it claims ``added`` (``claim_roles``),
    present (``PRESENT``) in that wheel, or a probe that expects false there and observed true."""
    if rel is None:
        return []
    roles = claim_roles(c, claims)
    found = []
    for i in idents:
        if i.field == "rollback" or roles.get(i.field) != "added":
            continue
        obs = ((lock.get("identifiers") or {}).get(i.key) or {}).get("observed") or {}
        have = [v for v in versions if _present(obs.get(v))]
        if have and _vkey(have[0]) < _vkey(rel):
            found.append((have[0], f"{i.field} {i.value!r} ({obs[have[0]].get('file') or 'found'})"))
    for k, p in enumerate(c.probes):
        obs = _locked(lock, c.id, k, p)
        early = [v for v in versions if v in p.expect and _vkey(v) < _vkey(rel) and p.expect[v] is False and obs.get(v) is True]
        if early:
            found.append((early[0], f"probes.{k} ({p.file or p.entry_point or p.metadata})"))
    return found


def _earlier_shown(e, prev: Optional[str], owners: list, idents: dict, lock: dict) -> tuple[bool, list[str]]:
    """Whether the locks show ``e.file`` in wheel ``e.wheel`` and not in ``prev`` (the wheel before
    it), through an identifier or a probe on exactly that file of one of ``owners``; else why not."""
    why = []
    for owner in owners:
        for i in idents.get(owner.id, []):
            obs = ((lock.get("identifiers") or {}).get(i.key) or {}).get("observed") or {}
            o = obs.get(e.wheel)
            if not (_present(o) and o.get("file") == e.file):
                continue
            if prev is None or not _present(obs.get(prev)):
                return True, []
            why.append(f"{owner.id}: {i.value!r} is in torch {prev} too ({obs[prev].get('file')})")
        for k, p in enumerate(owner.probes):
            if p.file != e.file:
                continue
            obs = _locked(lock, owner.id, k, p)
            if obs.get(e.wheel) is not True:
                why.append(f"{owner.id}.probes.{k} " + ("does not find it there" if e.wheel in obs else
                                                        f"has no locked outcome for torch {e.wheel}"))
            elif prev is None or obs.get(prev) is False:
                return True, []
            elif prev not in obs:
                why.append(f"{owner.id}.probes.{k} does not look at torch {prev}, so {e.wheel} is not shown to "
                           f"be the first; add \"{prev}\": false to its expect")
            else:
                why.append(f"{owner.id}.probes.{k} finds it in torch {prev} too")
    return False, why


def earlier_problems(releases, files: dict, lock: dict, claims: dict) -> list[str]:
    """``file: id: field: message`` for every change whose "new" the committed locks find in an
    earlier wheel without a disagreement note naming the first such wheel (``earlier:``), and for
    every ``earlier:`` the locks do not show: the file in that wheel (an identifier observed in it,
    or a probe on exactly that file) and not in the wheel before, in a wheel older than the
    change's own. The wheels are the lock's (``data/wheels.yaml``'s when the lock is current).
    Probes not yet in the lock count as not shown (``atlas evidence --probes``). Run by the build
    after validation (pipeline.py) and by ``atlas evidence --check``, not by validation itself:
    ``atlas evidence`` validates the data before it writes the lock these read."""
    from ..idents import identifiers

    versions = sorted(lock.get("wheels") or {}, key=_vkey)
    by_id = {c.id: c for r in releases for c in r.changes}
    idents: dict[str, list] = {}
    for i in identifiers(list(by_id.values())):
        if i.kind:
            idents.setdefault(i.change, []).append(i)
    out = []
    fix = "and lock a probe you add with `atlas evidence --probes`"
    for r in releases:
        file = files.get(r.version, f"data/releases/{r.version}.yaml")
        for owner, notes in ((r.version, r.notes), *((x.id, x.notes) for x in (*r.faq, *r.events))):
            out += [f"{file}: {owner}: notes.{j}.earlier: only a change's note may name an earlier wheel"
                    for j, n in enumerate(notes) if n.earlier is not None]
        rel = wheel_of(r.version, versions)
        for c in r.changes:
            j, note = next(((j, n) for j, n in enumerate(c.notes) if n.earlier is not None), (None, None))
            e = note.earlier if note else None
            for first, what in earlier_finds(c, rel, versions, idents.get(c.id, []), lock, claims):
                if e is None:
                    out.append(f"{file}: {c.id}: notes: torch {first} already has what the change calls new in "
                               f"{r.version}: {what}; add a disagreement note with `earlier: {{wheel: \"{first}\", "
                               f"file: <the file>}}` that names them ({{earlier.wheel}}, {{earlier.file}}), {fix}")
                elif _vkey(e.wheel) > _vkey(first):
                    out.append(f"{file}: {c.id}: notes.{j}.earlier.wheel: torch {first} already has it, before "
                               f"{e.wheel}: {what}")
            if e is None:
                continue
            where = f"{file}: {c.id}: notes.{j}.earlier"
            if e.wheel not in versions:
                out.append(f"{where}.wheel: torch {e.wheel} is not a wheel of the lock (data/wheels.yaml)")
                continue
            if rel is not None and _vkey(e.wheel) >= _vkey(rel):
                out.append(f"{where}.wheel: torch {e.wheel} is not older than the release's wheel {rel}")
                continue
            k = versions.index(e.wheel)
            owners = [c] + [by_id[x] for x in note.refs if x in by_id]
            shown, why = _earlier_shown(e, versions[k - 1] if k else None, owners, idents, lock)
            if not shown:
                out.append(f"{where}: the wheel locks do not show {e.file} in torch {e.wheel} as the first wheel "
                           f"with it" + (f" ({'; '.join(why)})" if why else
                                         f"; add a probe `file: {e.file}` with `contains:` and expect false for "
                                         f"{versions[k - 1] if k else e.wheel} and {e.wheel}, {fix}"))
    return out
