"""Step 3: compute everything derivable from the facts.

Rule (as in endoflife.date's enricher): what the YAML stores is what a source
says; anything that can be derived from it is computed here and never stored.

In:  a validated ``FactBase``.
Out: an ``Atlas``: releases newest first with their breaking changes and counts,
     the upgrade diff for every ordered pair of releases (breaking changes in
     between, matrix side by side with changed cells, dropped items, expiring
     rollbacks, an ordered checklist, the page's sections, the public API diff of the two
     wheels with each module's names that break code first), the
     error-message index, FAQ by release, the automatic wheel checks of every change
     (identifiers, error messages, entry points; see evidence.py), and everything a
     page would otherwise compute: the FAQ entries that refer to each change,
     evidence tallies and contradicted changes per release, events' local and UTC
     times, each release page's groupings (``ReleaseView``), the change-list rows,
     the sources page's lists and counts (``SourcesView``), and the latest release's
     upgrade slug and the releases whose facts are a selection, and per release the ledger of
     its official notes (``OfficialView``: the items with their curated change, and the counts
     curated / excluded by reason / open by kind). Templates only lay these out
     (tests/test_render.py checks it).
"""
from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Optional

from .builds import builds_ended, builds_of
from .keys import version_key
from .schema import (
    LEDGER_KINDS,
    LEDGER_REASONS,
    MATRIX_KEYS,
    Change,
    Event,
    Faq,
    OfficialItem,
    OfficialLedger,
    Release,
    iter_cites,
)
from .urls import upgrade_slug
from .validate import FactBase
from .wheel import (
    FAMILY_LABELS,
    MetaRow,
    Point,
    Verdict,
    entry_point_findings,
    error_verdicts,
    history,
    ident_verdicts,
    meta_diff,
    module_path,
    params_text,
    probe_id,
    runtime_diff,
    stub_errors,
    wheel_of,
)

#: Checklist order: what blocks installing first, then code that stops running,
#: then silent behaviour changes. Within a group, release order then id.
_CHECK_ORDER = {"platform": 0, "removal": 1, "breaking": 2, "behavior": 3, "deprecation": 4}
_AREA_ORDER = {"packaging": 0, "cuda": 0, "rocm": 0, "mps": 1, "cpp": 1}


@dataclass
class MatrixRow:
    key: str
    old: Any            # Cell or None
    new: Any
    changed: bool
    dropped: list = field(default_factory=list)   # items in old list value, not in new
    added: list = field(default_factory=list)


@dataclass
class Dropped:
    """One thing that leaves in an upgrade: ``label`` is its UI key, ``values`` what left."""
    label: str
    values: list
    wheel: bool = False               # read from the two wheels (else the curated matrix)
    now: str = ""                     # what replaces it, where one thing replaces another
    old_floor: str = ""               # the oldest glibc or macOS the wheels installed on, and now
    new_floor: str = ""


@dataclass
class Upgrade:
    old: Point                        # a release of the history (history.py): curated, from its wheel, or both
    new: Point
    slug: str                         # "2.14-to-2.15": the page and API file name
    steps: list[Point]                # releases after old, up to and including new
    breaking: list[Change]
    matrix: list[MatrixRow]           # the curated matrices side by side (both ends curated), else empty
    rollbacks: list[Change]           # the changes on the way that name a rollback switch
    checklist: list[Change]
    api_diff: Optional[dict] = None   # evidence: public API diff of the two releases' wheels (see _api_diff)
    meta: list[MetaRow] = field(default_factory=list)   # the two wheels' METADATA side by side (history.meta_diff)
    partial: frozenset = frozenset()  # the curated releases whose facts are not an account of the release (partial_releases)
    builds_ended: list = field(default_factory=list)   # builds.BuildEnd on the way: builds that end, GPU generations that lose one
    #: (package, pairing.Cell at old, at new) for every companion package with a release for either end
    companions: list = field(default_factory=list)

    @property
    def uncovered(self) -> list[Point]:
        """The releases on the way that no article in our sources covers (known from their wheel)."""
        return [p for p in self.steps if not p.curated]

    @property
    def uncovered_versions(self) -> list[str]:
        return [p.version for p in self.uncovered]

    @property
    def partial_versions(self) -> list[str]:
        """The releases on the way whose curated facts are a selection, not an account of the whole
        release (``partial_releases``): their silence says nothing."""
        return [p.version for p in self.steps if p.release is not None and p.version in self.partial]

    @property
    def matrix_count(self) -> int:
        """How many rows the matrices side by side have (the folded table's label counts them)."""
        return len(self.matrix)

    @property
    def meta_changed(self) -> list[MetaRow]:
        return [r for r in self.meta if r.changed]

    @property
    def meta_unchanged(self) -> int:
        return len(self.meta) - len(self.meta_changed)

    @property
    def dropped(self) -> list[MatrixRow]:
        """The matrix rows that lose items (a Python version, a GPU architecture) in this upgrade."""
        return [row for row in self.matrix if row.dropped]

    @property
    def dropped_items(self) -> list[Dropped]:
        """Everything the atlas knows to leave in this upgrade: the curated matrices' lost items, and
        from the two wheels the CPython versions PyPI has no wheel of any more, the platform tag
        (and the glibc minimum it implies) and the CUDA runtime the default wheel pins."""
        out = [Dropped("matrix." + r.key, r.dropped) for r in self.dropped]
        a, b = self.old.wheel, self.new.wheel
        if a and b:
            gone = [py for py in a.python_wheels if py not in b.python_wheels]
            if gone:
                out.append(Dropped("meta.python_wheels", gone, wheel=True))
            if a.platform and b.platform and a.platform != b.platform:
                out.append(Dropped("upgrade.dropped_platform", [a.platform], wheel=True, now=b.platform,
                                   old_floor=a.glibc, new_floor=b.glibc))
            if a.cuda and a.cuda != b.cuda:
                out.append(Dropped("upgrade.dropped_cuda", [a.cuda], wheel=True, now=b.cuda or "—"))
            archs = [x for x in a.cuda_archs or [] if b.cuda_archs is not None and x not in b.cuda_archs]
            if archs:
                out.append(Dropped("meta.cuda_archs", archs, wheel=True))
            if a.cxx11_abi is False and b.cxx11_abi:
                out.append(Dropped("upgrade.dropped_abi", ["_GLIBCXX_USE_CXX11_ABI=0"], wheel=True))
            # the registry's other platforms: a family with no wheel any more, or one whose wheels
            # need a newer glibc or macOS (Linux x86-64 is the platform tag above)
            for fam in a.platform_wheels:
                label = FAMILY_LABELS.get(fam, fam)
                if fam not in b.platform_wheels:
                    out.append(Dropped("upgrade.dropped_family", [label], wheel=True))
                elif fam != "linux-x86_64" and a.floor(fam) and b.floor(fam) and \
                        version_key(b.floor(fam)) > version_key(a.floor(fam)):
                    out.append(Dropped("upgrade.dropped_floor", [label], wheel=True,
                                       old_floor=a.floor_text(fam), new_floor=b.floor_text(fam)))
        return out

    @property
    def deprecations(self) -> list[Point]:
        """The releases on the way whose wheel announces new deprecations, oldest first."""
        return [p for p in self.steps if p.deprecations]

    @property
    def deprecations_unread(self) -> list[str]:
        """The releases on the way whose new deprecations are not known (no wheel read, or no earlier one)."""
        return [p.version for p in self.steps if not p.deprecations_read or p.deprecations_first]

    @property
    def none_covered(self) -> bool:
        """No release on the way has curated facts: the page cannot count breaking changes at all."""
        return len(self.uncovered) == len(self.steps)

    @property
    def sections(self) -> list[tuple[str, str]]:
        """The page's sections in order, (anchor id, UI key of its heading): its "On this page" list.
        The ids are permanent (tests/test_reading_browser.py checks them against the pages of before)."""
        out = [("checklist", "upgrade.checklist")]
        if self.matrix:
            out.append(("matrix", "upgrade.matrix"))
        out += [("metadata", "upgrade.meta"), ("builds", "upgrade.builds")]
        if self.companions:
            out.append(("companions", "companions.upgrade"))
        out += [("dropped", "upgrade.dropped"), ("rollbacks", "upgrade.rollbacks")]
        if self.deprecations or self.deprecations_unread:
            out.append(("deprecations", "upgrade.deprecations"))
        return out + [("api-diff", "apidiff.title")]

    @property
    def knows_all(self) -> bool:
        """Every release on the way has curated facts and both ends have a read wheel: only then may
        the page say that nothing breaks, or that nothing was dropped."""
        return (not self.uncovered and not self.partial_versions
                and self.old.wheel is not None and self.new.wheel is not None)


@dataclass
class ReleaseView:
    """A release's changes and matrix grouped as its page shows them."""
    breaking: list[Change]                          # in data order
    highlights: list[tuple[str, list[Change]]]      # (area, its non-breaking changes), areas sorted, empty areas left out
    matrix_cells: list[tuple[str, Any]]             # (matrix key, cell) for every known cell, in model order
    performance: list[Change]                       # changes with a figure


@dataclass
class SourcesView:
    """What the sources page lists, releases newest first. A note is (owner, release, note index)."""
    facts: dict[str, int]                                # source id -> citations of it outside caveats
    disagreements: list[tuple[str, Any, Release, int]]   # ("change" | "faq", owner, release, note index)
    self_reported: list[Change]                          # figures not independently verified
    inferred_cells: list[tuple[Release, str, Any]]       # (release, matrix key, cell) of inferred cells
    inferred_notes: list[tuple[str, Any, int]]           # ("release" | "change", owner, note index) with values


def sources_view(newest: list[Release], cites: dict[str, list]) -> SourcesView:
    def noted(items, kind: str, rel: Optional[Release] = None, with_values: bool = False):
        return [(kind, it, rel, i) if rel else (kind, it, i) for it in items for i, n in enumerate(it.notes)
                if n.kind == ("inferred" if with_values else "disagreement") and (n.values or not with_values)]
    return SourcesView(
        facts={sid: len(v) for sid, v in cites.items()},
        disagreements=[d for r in newest for d in noted(r.changes, "change", r) + noted(r.faq, "faq", r)],
        self_reported=[c for r in newest for c in r.changes if c.figure and c.figure.verification != "independent"],
        inferred_cells=[(r, k, cell) for r in newest for k, cell in r.matrix if cell is not None and cell.inferred],
        inferred_notes=[n for r in newest for n in noted([r], "release", with_values=True)
                        + noted(r.changes, "change", with_values=True)],
    )


def release_view(rel: Release, areas: list[str]) -> ReleaseView:
    rest = [c for c in rel.changes if not c.is_breaking]
    return ReleaseView(
        breaking=[c for c in rel.changes if c.is_breaking],
        highlights=[(a, items) for a in areas if (items := [c for c in rest if c.area == a])],
        matrix_cells=[(k, cell) for k, cell in rel.matrix if cell is not None],
        performance=[c for c in rel.changes if c.figure],
    )


@dataclass
class OfficialRow:
    item: OfficialItem
    change: Optional[Change] = None   # the curated change, when the item is curated


@dataclass
class OfficialView:
    """A release's official notes as data/ledger.yaml judges them, with the counts its page shows."""
    release: str
    url: str
    read: list[str]                   # the sections read verbatim ("bc", "deprecation"); empty: none
    rows: list[OfficialRow]           # in the notes' order
    curated: int = 0
    excluded: int = 0
    open: int = 0
    reasons: list[tuple[str, int]] = field(default_factory=list)   # (reason code, items), schema order, none empty
    kinds: list[tuple[str, int]] = field(default_factory=list)     # (kind, open items), schema order, none empty

    @property
    def official(self) -> int:
        return len(self.rows)

    @property
    def unread(self) -> list[str]:
        """The sections of the notes that could not be read, in the notes' order."""
        return [s for s in ("bc", "deprecation") if s not in self.read]


def official_views(led: Optional[OfficialLedger], changes: dict[str, Change]) -> dict[str, OfficialView]:
    """version -> the ledger of its official notes, counted (data/ledger.yaml)."""
    out = {}
    for r in led.releases if led else []:
        status = Counter(it.status for it in r.items)
        reasons = Counter(it.reason for it in r.items if it.status == "excluded")
        kinds = Counter(it.kind for it in r.items if it.status == "open")
        out[r.release] = OfficialView(
            release=r.release, url=r.url, read=list(r.read),
            rows=[OfficialRow(it, changes.get(it.change) if it.change else None) for it in r.items],
            curated=status["curated"], excluded=status["excluded"], open=status["open"],
            reasons=[(k, reasons[k]) for k in LEDGER_REASONS if reasons[k]],
            kinds=[(k, kinds[k]) for k in LEDGER_KINDS if kinds[k]],
        )
    return out


@dataclass
class EventTime:
    local: dt.datetime                # the start in the event's own time zone (aware)
    utc: dt.datetime                  # the same instant in UTC


def event_time(e: Event) -> EventTime:
    """An event's naive local start placed in its ``timezone``, and the same instant in UTC."""
    local = e.start.replace(tzinfo=zoneinfo.ZoneInfo(e.timezone))
    return EventTime(local=local, utc=local.astimezone(dt.UTC))


@dataclass
class Atlas:
    fb: FactBase
    releases: list[Release]           # newest first
    latest: Release
    change_release: dict[str, Release]
    upgrades: list[Upgrade]
    errors: list[tuple[str, str, Change]]   # (message, origin, change), sorted by message
    counts: dict[str, Counter]              # version -> Counter of change types (+ "breaking")
    areas: list[str]
    types: list[str]
    #: curated releases whose breaking changes the atlas cannot count in full (partial_releases):
    #: a page never shows their zero as "0 breaking"
    partial: frozenset = frozenset()
    lock: dict = field(default_factory=dict)              # data/evidence.lock.yaml
    wheels: dict = field(default_factory=dict)            # data/wheels.yaml
    checks: dict = field(default_factory=dict)            # change id -> [Verdict] (identifiers, errors)
    entry_point_findings: list = field(default_factory=list)   # entry points whose module is absent
    faq_refs: dict[str, list[tuple[Faq, Release]]] = field(default_factory=dict)   # change id -> FAQ entries citing it
    event_times: dict[str, EventTime] = field(default_factory=dict)                # event id -> local and UTC start
    change_rows: dict[str, list[tuple[Change, Release]]] = field(default_factory=dict)  # "changes"/"breaking" -> rows
    latest_upgrade_slug: Optional[str] = None   # upgrade page from the latest release's predecessor to it
    evidence_tally: dict[str, Counter] = field(default_factory=dict)   # version -> Counter of evidence statuses (+ "unchecked")
    contradicted: dict[str, list[Change]] = field(default_factory=dict)   # version -> changes the wheels contradict
    views: dict[str, ReleaseView] = field(default_factory=dict)           # version -> its page's groupings
    sources_view: Optional[SourcesView] = None                          # the sources page's lists
    history: list[Point] = field(default_factory=list)      # every release, curated or from its wheel, newest first
    wheel_only: list[Point] = field(default_factory=list)   # the releases known from their wheel alone, newest first
    #: the upgrade index's grid: (from release, [upgrade to each later release, or None]), columns oldest first
    upgrade_grid: list[tuple[Point, list[Optional[Upgrade]]]] = field(default_factory=list)
    grid_columns: list[Point] = field(default_factory=list)
    upgrades_from: dict[str, list[Upgrade]] = field(default_factory=dict)   # version -> its upgrades, newest target first
    upgrade_into: dict[str, Optional[Upgrade]] = field(default_factory=dict)   # version -> upgrade from the release before
    official: dict[str, OfficialView] = field(default_factory=dict)   # version -> its official notes' ledger (2.1-2.12)
    builds: dict[str, list] = field(default_factory=dict)   # version -> [builds.BuildView] of data/builds.yaml, derived
    #: the packages built against torch (companions/pairing.py): every final release with its torch
    #: specifier and basis, the matrix (package -> torch minor -> releases), the packages in order
    companion_rows: list = field(default_factory=list)
    companion_matrix: dict = field(default_factory=dict)
    companion_packages: list[str] = field(default_factory=list)
    #: (package, torch minor) -> pairing.Cell: the releases that admit it, or the undeclared ones current then
    companion_cells: dict = field(default_factory=dict)
    #: torch minor -> its support window (endoflife.date's fields), computed, never stored
    support: dict = field(default_factory=dict)

    def companions_for(self, version: str) -> list:
        """Every package's pairing.Cell at torch ``version``, in the packages' order."""
        from .companions.pairing import Cell

        return [self.companion_cells.get((p, version)) or Cell(p, version) for p in self.companion_packages]

    def companion_upgrade(self, old: str, new: str) -> list[tuple[str, Any, Any]]:
        """(package, its Cell at ``old``, at ``new``) for every package with a release that admits either."""
        pairs = zip(self.companions_for(old), self.companions_for(new))
        return [(o.package, o, n) for o, n in pairs if o.rows or n.rows]

    def check_wheels(self, c: Change) -> list[str]:
        """The wheels a change's check table shows: the one before its release, its release's
        and the newest (the verdicts name the first wheel that has a name)."""
        versions = self.wheels.get("versions") or []
        rel = wheel_of(self.change_release[c.id].version, versions)
        if rel is None:
            return versions[-1:]
        i = versions.index(rel)
        return list(dict.fromkeys(versions[max(i - 1, 0):i + 1] + versions[-1:]))

    def auto_checks(self, c: Change) -> list[Verdict]:
        """The automatic wheel checks of a change: its identifiers, then its error messages."""
        return self.checks.get(c.id, [])

    def evidence(self, c: Change) -> list[tuple]:
        """(probe, observed or None, status) for each probe of a change; status 'pending' if unlocked."""
        out = []
        for i, p in enumerate(c.probes):
            entry = (self.lock.get("probes") or {}).get(probe_id(c.id, i))
            out.append((p, entry["observed"] if entry else None, entry["status"] if entry else "pending"))
        return out

    def evidence_status(self, c: Change) -> str:
        """confirmed | contradicted | pending | none_speed | none_platform | none_probe"""
        rows = self.evidence(c)
        states = {s for _, _, s in rows} | {v.status for v in self.auto_checks(c)}
        if "contradicted" in states or any(f["change"] == c.id for f in self.entry_point_findings):
            return "contradicted"
        if "pending" in states:
            return "pending"
        if "confirmed" in states:
            return "confirmed"
        if c.figure is not None or c.type == "performance":
            return "none_speed"
        if c.area in ("rocm", "xpu", "mps"):
            return "none_platform"
        return "none_probe"

    def evidence_versions(self, c: Change) -> list[str]:
        """The torch versions a change's probes expect something of, sorted: its evidence table's columns."""
        return sorted({v for p in c.probes for v in p.expect})

    def entry_point_findings_of(self, cid: Optional[str]) -> list:
        """Entry points whose module is absent, attributed to change ``cid`` (None: to no change)."""
        return [f for f in self.entry_point_findings if f["change"] == cid]

    def point(self, version: str) -> Optional[Point]:
        """A release of the history by version (curated or from its wheel), or None."""
        return next((p for p in self.history if p.version == version), None)

    def change(self, cid: str) -> Change:
        return next(c for r in self.releases for c in r.changes if c.id == cid)


def matrix_diff(old: Release, new: Release) -> list[MatrixRow]:
    rows = []
    for key in MATRIX_KEYS:
        a, b = getattr(old.matrix, key), getattr(new.matrix, key)
        if a is None and b is None:
            continue
        va = a.value if a else None
        vb = b.value if b else None
        same = va == vb and a is not None and b is not None and a.qualifier == b.qualifier
        row = MatrixRow(key, a, b, changed=(a is not None and b is not None and not same))
        if isinstance(va, list) and isinstance(vb, list):
            row.dropped = [x for x in va if x not in vb]
            row.added = [x for x in vb if x not in va]
        rows.append(row)
    return rows


def _stops_one_build(c: Change) -> bool:
    """A platform change that stops only the users of one build: the end of one optional CUDA build
    (``cuda_ended``), or a new platform tag of the aarch64 wheels alone (``tag``)."""
    return c.type == "platform" and ("cuda_ended" in c.values or str(c.values.get("tag", "")).endswith("_aarch64"))


def _checklist_key(c: Change, rel_of: dict[str, Release]) -> tuple:
    # a change that stops the users of one build comes after the code that breaks for everyone,
    # not first with the platform blockers
    kind = _CHECK_ORDER["breaking"] + 0.5 if _stops_one_build(c) else _CHECK_ORDER.get(c.type, 5)
    return (kind, _AREA_ORDER.get(c.area, 2), version_key(rel_of[c.id].version), c.id)


def oldest_between(old, new, releases: list) -> list:
    """The releases an upgrade from ``old`` to ``new`` goes through (after old, up to new)."""
    return [r for r in releases if version_key(old.version) < version_key(r.version) <= version_key(new.version)]


#: _api_diff's results in this process, for the links they were made with: {"links": ..., "diffs": {key: diff}}.
#: A fact base that names the same things gives the same diffs, so a run of the pipeline after the
#: first (`mkdocs serve`, the fuzz test) only diffs the pairs whose releases or runtime locks changed.
_API_DIFFS: dict = {"links": None, "diffs": {}}
#: The kinds of an API diff, in the order the page lists them (wheel/runtime.py says what each means).
DIFF_KINDS = ("removed", "moved", "no_longer_public", "changed", "default_changed", "default_none", "added")


def claimed_defaults(fb: FactBase) -> frozenset:
    """The (name, param) pairs curated changes claim as default flips (``wheel:`` claims of kind
    ``default``, judged by wheel/confirm.py): a default that becomes None, or stops being None,
    is a flip only for these (wheel.runtime_diff)."""
    return frozenset((w.name, w.param) for r in fb.releases for c in r.changes for w in c.wheel or ()
                     if w.kind == "default")


def _api_diffs(upgrades: list, runtimes: dict, links: dict[str, list[tuple[str, bool]]], points: list[Point],
               claimed: frozenset = frozenset()) -> None:
    """Each upgrade's ``api_diff`` (see _api_diff), reusing this process's earlier results: the key
    is everything _api_diff reads (the two runtime locks and those of the releases between, by
    identity as wheel.runtime_diff keys them, and the changes of those releases); the links reset them."""
    frozen = (tuple(sorted((k, tuple(v)) for k, v in links.items())), claimed)
    if _API_DIFFS["links"] != frozen:
        _API_DIFFS.update(links=frozen, diffs={})
    diffs = _API_DIFFS["diffs"]

    def ident(p: Point) -> tuple:
        w = p.wheel.wheel if p.wheel else None
        return (p.version, w, id(runtimes[w]) if w in runtimes else None, tuple(c.id for c in p.changes))
    for up in upgrades:
        key = (ident(up.old), ident(up.new), tuple(ident(p) for p in up.steps))
        if key not in diffs:
            diffs[key] = _api_diff(up.old, up.new, runtimes, links, points, claimed)
        up.api_diff = diffs[key]


def _deprecations(points: list[Point], found: dict[str, list]) -> None:
    """Each release's deprecations that the wheel before it did not announce (by where and how:
    the wording of one deprecation may change between releases), in place on the points."""
    before: Optional[set] = None
    for p in points:
        d = found.get(p.wheel.wheel) if p.wheel else None
        if d is None:
            before = None
            continue
        p.deprecations_read, p.deprecations_total, p.deprecations_first = True, len(d), before is None
        p.deprecations = [x for x in d if before is not None and x.key not in before]
        before = {x.key for x in d}


def _defaults(points: list[Point], runtimes: dict, claimed: frozenset) -> None:
    """Each release's changed default values against the release before it, read from the two
    installed releases (wheel.runtime_diff: same parameters with another default, and the flips
    inside signatures that also changed otherwise), in place on the points; the defaults that only
    became None or stopped being None (unless claimed) apart, in ``defaults_none``."""
    for a, b in zip(points, points[1:]):
        wa, wb = (a.wheel.wheel if a.wheel else None), (b.wheel.wheel if b.wheel else None)
        if wa not in runtimes or wb not in runtimes:
            continue
        d = runtime_diff(runtimes[wa], runtimes[wb], claimed)
        entries = sorted(d["default_changed"] + d["default_none"] + d["changed"], key=lambda e: e["name"])
        b.defaults = [{"name": e["name"], **x} for e in entries for x in e["defaults"]]
        b.defaults_none = [{"name": e["name"], **x} for e in entries for x in e["defaults_none"]]


def _api_diff(old: Point, new: Point, runtimes: dict, links: dict[str, list[tuple[str, bool]]],
              points: list[Point], claimed: frozenset = frozenset()) -> Optional[dict]:
    """The API diff of two releases as their installed wheels prove it (wheel.runtime_diff: the
    two ends compared, so a name that leaves and comes back on the way is in no kind), grouped by
    module, each name linked to the change whose data names it (or None: no source mentions it);
    a removed name gives the first release on the way whose installed wheel no longer resolves it,
    a name no longer public the first where it is not public. None when either release has no
    runtime lock: then nothing is claimed."""
    a = old.wheel.wheel if old.wheel else None
    b = new.wheel.wheel if new.wheel else None
    if a not in runtimes or b not in runtimes:
        return None
    ra, rb = runtimes[a], runtimes[b]
    diff = runtime_diff(ra, rb, claimed)
    steps = [p for p in oldest_between(old, new, points) if p.wheel and p.wheel.wheel in runtimes]
    in_steps = {c.id for p in steps for c in p.changes}

    def first(key: str, strong_only: bool = False) -> Optional[str]:
        return next((cid for cid, strong in links.get(key, []) if cid in in_steps and (strong or not strong_only)), None)

    def link(name: str, changed_params: Optional[list[str]]) -> Optional[str]:
        """A removed name: the change naming it (or its class/module). A changed signature:
        the change naming a parameter that changed, or claiming the function itself."""
        parts = name.split(".")
        for i in range(len(parts), 1, -1):
            cid = first(".".join(parts[:i]), strong_only=changed_params is not None)
            if cid:
                return cid
        return next((first(p) for p in changed_params or [] if first(p)), None)

    def first_without(name: str, resolving: bool) -> str:
        """The first release on the way whose installed wheel lacks the name (at all, or public)."""
        for p in steps:
            rt = runtimes[p.wheel.wheel]
            if (rt.resolves(name) is False) if resolving else (rt.resolves(name) is not None and not rt.public(name)):
                return p.version
        return new.version

    groups: dict[str, dict] = {}
    for what in DIFF_KINDS:
        for item in diff[what]:
            name = item["name"] if isinstance(item, dict) else item
            g = groups.setdefault(module_path(name, rb if what == "added" else ra), {k: [] for k in DIFF_KINDS})
            changed_params = (item["params_added"] + item["params_removed"] if what == "changed"
                              else [d["param"] for d in item["defaults"] + item["defaults_none"]]
                              if what in ("default_changed", "default_none") else None)
            entry = {"name": name, "change": link(name, changed_params) if what != "added" else None}   # added: counted only
            if isinstance(item, dict):
                entry.update({k: v for k, v in item.items() if k != "name"})
            if what == "changed":
                entry["old_params"], entry["new_params"] = params_text(item["old"]), params_text(item["new"])
            if what in ("removed", "moved"):
                entry["first_without"] = first_without(name, resolving=True)
            elif what == "no_longer_public":
                entry["first_without"] = first_without(name, resolving=False)
            g[what].append(entry)
    listed = [{"module": m, **g,
               "shown": sum(len(g[k]) for k in DIFF_KINDS if k != "added"),
               "added_short": [e["name"][len(m) + 1:] if e["name"] != m else e["name"] for e in g["added"]]}
              for m, g in sorted(groups.items())]
    for g in listed:
        g["added_few"] = len(g["added"]) <= 6    # few added names are listed; more are only counted
        # what the group's summary counts: the kinds it has, never "0 removed" beside "2 changed"
        g["tally"] = [(k, len(g[k])) for k in DIFF_KINDS if k != "added" and g[k]]
        # the page lists first what breaks code: the names the checker has rules for (rules.py: a
        # removed name, a removed parameter, a name a change explains) and the removed or moved
        # ones; then the rest (no longer public, other signature and default changes)
        lead, rest = [], []
        for what in DIFF_KINDS[:-1]:
            for e in g[what]:
                ruled = what in ("removed", "moved") or e["change"] or (
                    what == "changed" and e["params_removed"] and not e.get("accepts_any_keyword"))
                (lead if ruled else rest).append((what, e))
        g["first"], g["rest"] = lead, rest
    return {"old_wheel": a, "new_wheel": b, "counts": {k: len(diff[k]) for k in DIFF_KINDS},
            "unverified": diff["unverified"],
            "groups": listed, "added_groups": [g for g in listed if g["added"]],
            "shown_groups": [g for g in listed if g["shown"]],     # the modules with more than added names
            "versions": [p.version for p in steps] + [new.version], **{k: diff[k] for k in DIFF_KINDS},
            # the JSON API's view: each kind's entries with their module, by name (made once per diff:
            # the diffs are kept for the next run, see _API_DIFFS)
            "by_kind": {k: sorted(({**e, "module": g["module"]} for g in listed for e in g[k]), key=lambda e: e["name"])
                        for k in DIFF_KINDS}}


#: Change types that explain a public API difference (a feature that merely uses a name does not).
_EXPLAINS = {"removal", "breaking", "behavior", "deprecation"}


def _name_links(checks: dict[str, list[Verdict]], types: dict[str, str]) -> dict[str, list[tuple[str, bool]]]:
    """Public name, or a bare parameter/key name, -> the changes that explain a difference in it:
    a public name named by a change that claims it was added or removed or by a removal,
    breaking or behaviour change; a bare parameter or key only from a claim or a removal."""
    links: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for cid, vs in sorted(checks.items()):
        for v in vs:
            if v.what != "ident" or v.status == "reason" or not (v.role or types[cid] in _EXPLAINS):
                continue
            strong = bool(v.role) or types[cid] == "removal"     # the change is about this very name
            for o in v.observed.values():
                if o and o.get("name") and o.get("how") in ("public", "private") and (cid, strong) not in links[o["name"]]:
                    links[o["name"]].append((cid, strong))
            if v.kind in ("name", "kwvalue") and strong:
                bare = v.value.split("(")[0].split("=")[0].lstrip("@")
                for key in ([bare] if bare.isidentifier() else []) + re.findall(r"\((\w+)=", v.value):
                    if (cid, strong) not in links[key]:
                        links[key].append((cid, strong))
    return dict(links)


def release_builds(fb: FactBase, versions: list[str], lock: dict) -> dict[str, list]:
    """Every release's builds (data/builds.yaml) with what the wheel and the driver table add: the
    default build, its own architectures, Pythons and tags, the pip command, the driver floors."""
    if fb.builds is None:
        return {}
    wheel_versions = fb.wheels.versions if fb.wheels else []
    sources = {s.id: (s.url, s.title) for s in fb.builds.sources}
    sources.update({s.id: (s.url or "", s.title or s.id) for s in fb.sources.sources})
    drivers = fb.gpus.cuda_drivers if fb.gpus is not None else []
    out = {}
    for v in versions:
        w = wheel_of(v, wheel_versions)
        wheel = ((lock or {}).get("wheels") or {}).get(w) if w else None
        pw = (((lock or {}).get("registry") or {}).get("platform_wheels") or {}).get(w) or {}
        out[v] = builds_of(fb.builds, v, wheel, drivers, pw, sources)
    return out


def partial_releases(fb: FactBase) -> frozenset:
    """The curated releases whose facts are not an account of the whole release: a selection of
    hazards from PyTorch's own pages (``selected: true``), or what articles about other releases
    mention in passing (no source in data/sources.yaml is ``about`` it, as 2.13)."""
    about = {s.about for s in fb.sources.sources}
    return frozenset(r.version for r in fb.releases if r.selected or r.version not in about)


def enrich(fb: FactBase, lock: Optional[dict] = None) -> Atlas:
    oldest_first = fb.releases
    rel_of = {c.id: r for r in oldest_first for c in r.changes}
    lock = fb.lock if lock is None else lock
    wheels = fb.wheels
    surfaces = {v: fb.surfaces[v] for v in wheels.versions if v in fb.surfaces}
    points = history(oldest_first, wheels.versions, lock, surfaces)
    _deprecations(points, fb.deprecations)
    claimed = claimed_defaults(fb)
    _defaults(points, fb.runtimes, claimed)
    upgrades = []
    partial = partial_releases(fb)
    per_release = release_builds(fb, [p.version for p in points], lock)
    for old, new in combinations(points, 2):
        steps = oldest_between(old, new, points)
        breaking = [c for p in steps for c in p.changes if c.is_breaking]
        # every change on the way that names a way back, breaking or not (a behaviour change too)
        rollbacks = [c for p in steps for c in p.changes if c.rollback is not None]
        upgrades.append(Upgrade(
            old=old, new=new, slug=upgrade_slug(old.version, new.version), steps=steps, breaking=breaking,
            matrix=matrix_diff(old.release, new.release) if old.release and new.release else [], rollbacks=rollbacks,
            checklist=sorted(breaking, key=lambda c: _checklist_key(c, rel_of)),
            meta=meta_diff(old.wheel, new.wheel), partial=partial,
            builds_ended=builds_ended(per_release, [(p.previous, p.version) for p in steps if p.previous], fb.gpus),
        ))
    errors = sorted(
        ((e.message, e.origin, c) for r in oldest_first for c in r.changes for e in c.errors),
        key=lambda t: (t[0].lower(), t[2].id),
    )
    counts = {}
    for r in oldest_first:
        cnt = Counter(c.type for c in r.changes)
        cnt["breaking"] = sum(c.is_breaking for c in r.changes)
        cnt["all"] = len(r.changes)
        counts[r.version] = cnt
    cites: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in oldest_first:
        for owner, where, c in iter_cites(r, r.version):
            if ".notes." not in f".{where}.":   # a caveat's citation does not add a supported fact
                cites[c.source].append((owner, c.locator))
    newest = list(reversed(oldest_first))
    latest = next(r for r in newest if r.released is not None)
    all_changes = [c for r in oldest_first for c in r.changes]
    release_of = {cid: r.version for cid, r in rel_of.items()}
    idv = ident_verdicts(all_changes, lock, release_of, wheels.versions, fb.claims, surfaces)
    erv = error_verdicts(all_changes, lock, release_of, wheels.versions)
    stub_errors(idv, erv)
    checks = {c.id: idv.get(c.id, []) + erv.get(c.id, []) for c in all_changes}
    links = _name_links(checks, {c.id: c.type for c in all_changes})
    _api_diffs(upgrades, fb.runtimes, links, points, claimed)
    faq_refs: dict[str, list[tuple[Faq, Release]]] = defaultdict(list)
    for r in newest:
        for q in r.faq:
            for cid in dict.fromkeys(q.refs):
                faq_refs[cid].append((q, r))
    areas = sorted({c.area for c in all_changes})
    atlas = Atlas(
        fb=fb, releases=newest, latest=latest, change_release=rel_of, upgrades=upgrades,
        history=list(reversed(points)), wheel_only=[p for p in reversed(points) if not p.curated],
        errors=errors, counts=counts, partial=partial,
        areas=areas, types=sorted({c.type for c in all_changes}),
        lock=lock, wheels=wheels.model_dump(),
        checks=checks, entry_point_findings=entry_point_findings(lock, idv),
        faq_refs=dict(faq_refs),
        event_times={e.id: event_time(e) for r in oldest_first for e in r.events},
        change_rows={"changes": [(c, r) for r in newest for c in r.changes],
                     "breaking": [(c, r) for r in newest for c in r.changes if c.is_breaking]},
        latest_upgrade_slug=upgrade_slug(latest.previous, latest.version) if latest.previous else None,
        views={r.version: release_view(r, areas) for r in newest}, sources_view=sources_view(newest, cites),
        official=official_views(fb.official, {c.id: c for c in all_changes}),
        builds=per_release,
    )
    _companions(atlas, fb, lock, [p.version for p in points])
    by_pair = {(u.old.version, u.new.version): u for u in upgrades}
    atlas.grid_columns = points[1:]
    atlas.upgrade_grid = [(a, [by_pair.get((a.version, b.version)) for b in points[1:]]) for a in points[:-1]]
    atlas.upgrades_from = {p.version: [u for u in reversed(upgrades) if u.old.version == p.version] for p in points}
    atlas.upgrade_into = {p.version: by_pair.get((p.previous, p.version)) for p in points}
    for r in newest:   # needs the atlas: a change's evidence status reads the lock and the wheel checks
        tally = Counter(atlas.evidence_status(c) for c in r.changes)
        tally["unchecked"] = tally["none_speed"] + tally["none_platform"] + tally["none_probe"]
        atlas.evidence_tally[r.version] = tally
        atlas.contradicted[r.version] = [c for c in r.changes if atlas.evidence_status(c) == "contradicted"]
    return atlas


def build_date() -> dt.date:
    """The day a build speaks of ("supported today"): SOURCE_DATE_EPOCH (the last commit, so a
    build is reproducible), else today in UTC."""
    import os

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    return dt.datetime.fromtimestamp(int(epoch), dt.UTC).date() if epoch else dt.datetime.now(dt.UTC).date()


def _companions(atlas: Atlas, fb: FactBase, lock: dict, minors: list[str]) -> None:
    """The companion rows, their matrix over the history's minors, and the support windows: all
    derived from data/companions.lock.yaml, data/companions.yaml and torch's own pins."""
    from .companions import pairing

    if fb.companions is None:
        return
    pins = {v: w.get("requires_dist") or [] for v, w in (lock.get("wheels") or {}).items()}
    rows = pairing.rows(fb.companions_lock, fb.companions, pins)
    torch_releases = ((fb.companions_lock.get("packages") or {}).get(pairing.TORCH) or {}).get("releases") or {}
    atlas.companion_rows = rows
    atlas.companion_packages = [p.name for p in fb.companions.packages]
    atlas.companion_matrix = pairing.matrix(rows, list(torch_releases), minors)
    atlas.support = {w.cycle: w for w in pairing.support(torch_releases, minors, build_date())}
    atlas.companion_cells = pairing.cells(rows, atlas.companion_packages, atlas.companion_matrix, atlas.support)
    for u in atlas.upgrades:
        u.companions = atlas.companion_upgrade(u.old.version, u.new.version)
