"""Which torch each release of a companion package works with, and how long each torch release
was supported: everything derived here, nothing stored.

In:  the companions lock (data/companions.lock.yaml, as ``atlas companions`` wrote it), the curated
     ``CompanionFacts`` (data/companions.yaml: README tables, build scripts, corrections, the policy),
     torch's own pins (data/evidence.lock.yaml: ``wheels.<v>.requires_dist``) and the torch minors of
     the history.
Out: ``Row`` per companion release (its torch specifier, the basis and the line it comes from), the
     ``matrix`` (package -> torch minor -> rows that admit a patch of that minor), and ``support``
     (per torch minor: endoflife.date's fields). The engines (atlas_check.py and its JS twin) read the
     same rows from /api/v1/companions.json.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

TORCH = "torch"
PURL = "pkg:pypi/torch"


@dataclass
class Row:
    package: str
    version: str
    uploaded: Optional[str]
    torch: Optional[str]         # a PEP 440 specifier on torch (``==2.1.2``, ``>=2.14``), None: not known
    basis: str                   # metadata | capped | corrected | readme | code | torch_pins | build | none
    cite: str                    # the line the pairing comes from (a METADATA line, a README row, a code line)
    url: Optional[str] = None    # where that line is, when it is not the lock
    declared: list = field(default_factory=list)   # the Requires-Dist lines on torch, verbatim
    extras: list = field(default_factory=list)     # the Requires-Dist lines on torch behind an extra (``extra == "torch"``)
    tags: list = field(default_factory=list)
    stable_abi: bool = False     # abi3 / py3-none wheels: not tied to one CPython, the sign of a stable-ABI build
    minors: list = field(default_factory=list)     # the torch minors of the history it admits (enrich)


def _version(v: str) -> Optional[Version]:
    try:
        return Version(v)
    except InvalidVersion:
        return None


def _torch_lines(meta: Optional[dict], extras: bool = False) -> list[str]:
    """The Requires-Dist lines on torch that apply to a plain install (no ``extra ==`` marker), or
    with ``extras`` those that apply only with an extra (``transformers[torch]``)."""
    out = []
    for line in (meta or {}).get("requires_dist") or []:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) == TORCH and ("extra" in str(req.marker or "")) == extras:
            out.append(line)
    return out


def _spec(line: str) -> str:
    return str(Requirement(line).specifier)


def _series_of(version: str, series: list[str]) -> Optional[str]:
    """The README row a release falls under: the longest ``series`` prefix of its version."""
    hits = [s for s in series if version == s or version.startswith(s + ".")]
    return max(hits, key=len) if hits else None


def _built_against(row: Row, meta: dict, torch_dates: dict[str, str]) -> Optional[str]:
    """A declared range with no upper bound on a release whose wheels are compiled against one
    torch (CPython-specific tags, libraries of its own, none of them stable-ABI: no ``abi3``,
    no ``_stable``) cannot hold for later torch releases: the artifact contradicts it. The bound
    it can hold to: below the minor after the newest torch released on or before its upload."""
    libs = meta.get("libraries") or []
    if not row.torch or not libs or row.stable_abi or not row.uploaded:
        return None
    if any(".abi3." in x or "_stable" in x for x in libs) or any(s.operator in ("==", "<", "<=", "~=", "===")
                                                                  for s in SpecifierSet(row.torch)):
        return None
    before = [v for v, d in torch_dates.items() if d and d <= row.uploaded and not Version(v).is_prerelease]
    if not before:
        return None
    r = max(map(Version, before)).release
    return f"{r[0]}.{r[1] + 1}"


def rows(lock: dict, facts, torch_pins: dict[str, list[str]]) -> list[Row]:
    """Every final (not pre-release, not yanked) release of every package of ``facts``, with the
    torch it works with and where that comes from. ``torch_pins``: torch version -> its
    Requires-Dist lines (for packages torch itself pins, as triton)."""
    packages = (lock or {}).get("packages") or {}
    torch_dates = {v: r.get("uploaded") for v, r in ((packages.get(TORCH) or {}).get("releases") or {}).items()
                   if _version(v) is not None}
    corrections = {(c.package, c.version): c for c in facts.corrections}
    readme = {t.package: t for t in facts.readme}
    build = {b.package: b for b in facts.build}
    out = []
    for pkg in facts.packages:
        releases = (packages.get(pkg.name) or {}).get("releases") or {}
        for v, rel in releases.items():
            ver = _version(v)
            if ver is None or ver.is_prerelease or ver.is_devrelease or rel.get("yanked"):
                continue
            meta = rel.get("metadata") or {}
            declared = _torch_lines(meta)
            tags = (rel.get("tags") or "").split()
            row = Row(pkg.name, v, rel.get("uploaded"), None, "none", "", declared=declared, tags=tags,
                      extras=list(dict.fromkeys(_torch_lines(meta, extras=True))),
                      stable_abi=bool(tags) and all("-abi3-" in t or t.startswith("py3") or "-none-" in t for t in tags))
            fix = corrections.get((pkg.name, v))
            code = meta.get("code") or {}
            if fix is not None:
                row.torch, row.basis, row.cite, row.url = fix.torch, "corrected", fix.quote, fix.url
            elif declared:   # an unversioned ``torch`` admits any release: no pairing (torch None)
                row.torch, row.basis, row.cite = ",".join(s for s in (_spec(d) for d in declared) if s) or None, \
                    "metadata", f"{meta.get('file')}: Requires-Dist: {'; '.join(declared)}"
                cap = _built_against(row, meta, torch_dates)
                if cap:
                    row.torch, row.basis = f"{row.torch},<{cap}", "capped"
                    row.cite += f"; libraries {', '.join(meta.get('libraries') or [])} in CPython-specific wheels, uploaded {row.uploaded}"
            elif pkg.name in readme:
                t = readme[pkg.name]
                s = _series_of(v, [r.series for r in t.rows])
                if s is not None:
                    r = next(r for r in t.rows if r.series == s)
                    row.torch, row.basis, row.cite, row.url = r.torch, "readme", r.quote, t.url
            elif code.get("line"):
                found = _min_version(code["line"])
                if found:
                    row.torch, row.basis, row.cite = f">={found}", "code", f"{meta.get('file')}: {code['file']}: {code['line']}"
            elif pkg.basis == "torch_pins":
                pins = [(tv, line) for tv, lines in torch_pins.items() for line in lines
                        if _pins(line, pkg.name, v)]
                if pins:
                    row.torch = _or_spec([tv for tv, _ in pins])
                    row.basis, row.cite = "torch_pins", "; ".join(f"torch {tv}: Requires-Dist: {line}" for tv, line in pins)
            elif pkg.name in build:
                b = build[pkg.name]
                row.basis, row.cite, row.url = "build", b.quote, b.url
            out.append(row)
    return out


def _min_version(line: str) -> Optional[str]:
    import re

    m = re.search(r"[\"']([0-9][0-9.]*)[\"']", line)
    return m.group(1) if m else None


def _pins(line: str, name: str, version: str) -> bool:
    try:
        req = Requirement(line)
    except InvalidRequirement:
        return False
    return canonicalize_name(req.name) == name and req.specifier.contains(version, prereleases=True)


def _or_spec(versions: list[str]) -> Optional[str]:
    """Several torch releases pin the same version (torch 2.10.0 and 2.11.0 both pin triton 3.6.0):
    the tightest one specifier that holds them, as ``==2.10.*`` or ``>=2.10,<2.12``."""
    if not versions:
        return None
    minors = sorted({tuple(Version(v).release[:2]) for v in versions})
    if len(minors) == 1:
        return f"=={minors[0][0]}.{minors[0][1]}.*"
    lo, hi = minors[0], minors[-1]
    return f">={lo[0]}.{lo[1]},<{hi[0]}.{hi[1] + 1}"


def admits(spec: Optional[str], torch_version: str) -> bool:
    if not spec:
        return False
    try:
        return SpecifierSet(spec).contains(torch_version, prereleases=False)
    except InvalidSpecifier:
        return False


def minor_of(version: str) -> str:
    r = Version(version).release
    return f"{r[0]}.{r[1]}"


def matrix(all_rows: list[Row], torch_versions: list[str], minors: list[str]) -> dict[str, dict[str, list[Row]]]:
    """package -> torch minor -> the releases whose specifier admits some final torch release of
    that minor (sets ``Row.minors`` too)."""
    finals = [v for v in torch_versions if (_version(v) and not _version(v).is_prerelease)]
    by_minor = {m: [v for v in finals if minor_of(v) == m] for m in minors}
    out: dict[str, dict[str, list[Row]]] = {}
    for row in all_rows:
        row.minors = [m for m in minors if any(admits(row.torch, v) for v in by_minor[m])]
        for m in row.minors:
            out.setdefault(row.package, {}).setdefault(m, []).append(row)
    return out


@dataclass
class Cell:
    """What a page says of one package at one torch minor. ``rows``: the releases whose torch
    specifier admits a final release of the minor (oldest first). When none does, ``undeclared``:
    the package's releases current in the minor's support window (uploaded in it, or the newest one
    before it opened) whose torch version is not known (no Requires-Dist on torch, an unversioned
    ``torch``, or a build at install). A package that declares no torch version is not a package
    with no release for the minor: only when ``undeclared`` is empty too does a page say so."""
    package: str
    minor: str
    rows: list = field(default_factory=list)
    undeclared: list = field(default_factory=list)

    @property
    def state(self) -> str:
        """versions | undeclared | none (no release works with the minor, as far as any release says)."""
        return "versions" if self.rows else "undeclared" if self.undeclared else "none"

    @property
    def signal(self) -> Optional[Row]:
        """The newest undeclared release, whose other signal (an extra's range, a build at install,
        an unversioned ``torch``) the page shows with its cite."""
        return self.undeclared[-1] if self.undeclared else None


def current(package_rows: list[Row], start: Optional[dt.date], end: Optional[dt.date]) -> list[Row]:
    """The releases a user of a torch minor could have had (oldest first): those uploaded in its
    window [start, end) and the newest uploaded before it opened. No start: every release."""
    dated = sorted((r for r in package_rows if r.uploaded), key=lambda r: (r.uploaded, Version(r.version)))
    if start is None:
        return dated
    s, e = start.isoformat(), end.isoformat() if end else None
    before = [r for r in dated if r.uploaded < s]
    inside = [r for r in dated if r.uploaded >= s and (e is None or r.uploaded < e)]
    return before[-1:] + inside


def cells(all_rows: list[Row], packages: list[str], mtx: dict[str, dict[str, list[Row]]],
          windows: dict) -> dict[tuple[str, str], Cell]:
    """(package, torch minor) -> its Cell, for every package and every minor of ``windows``."""
    by_pkg: dict[str, list[Row]] = {}
    for r in all_rows:
        by_pkg.setdefault(r.package, []).append(r)
    out = {}
    for p in packages:
        for m, w in windows.items():
            admitted = (mtx.get(p) or {}).get(m) or []
            undeclared = [] if admitted else [r for r in current(by_pkg.get(p, []), w.releaseDate, w.eolFrom)
                                              if r.torch is None]
            out[(p, m)] = Cell(p, m, list(admitted), undeclared)
    return out


@dataclass
class Window:
    """One torch minor's support window, in endoflife.date's field names."""
    cycle: str                       # 2.9
    releaseDate: Optional[dt.date]   # noqa: N815 (endoflife.date's names, so a tool reading both reads ours)
    latest: Optional[str]            # the last patch: 2.9.1
    latestReleaseDate: Optional[dt.date]  # noqa: N815
    eolFrom: Optional[dt.date]       # noqa: N815  the next minor's release date; None: no next minor yet
    isEol: bool                      # noqa: N815  eolFrom is on or before ``today``

    @property
    def patches(self) -> int:
        return 0 if self.latest is None else int(self.latest.split(".")[2]) if self.latest.count(".") == 2 else 0


def support(torch_releases: dict, minors: list[str], today: dt.date) -> list[Window]:
    """Per torch minor of the history (oldest first): its release date (the first upload of X.Y.0),
    its last patch and that patch's date, ``eolFrom`` (the next minor's release date: PyTorch
    schedules patches only until then) and whether that date has passed ``today``."""
    dates: dict[str, dt.date] = {}
    for v, rel in (torch_releases or {}).items():
        ver = _version(v)
        if ver is None or ver.is_prerelease or ver.is_devrelease or ver.local or not rel.get("uploaded"):
            continue
        dates[v] = dt.date.fromisoformat(rel["uploaded"])
    out = []
    for i, m in enumerate(minors):
        own = sorted((v for v in dates if minor_of(v) == m), key=Version)
        nxt = next((n for n in minors[i + 1:] if f"{n}.0" in dates), None)
        eol = dates.get(f"{nxt}.0") if nxt else None
        out.append(Window(cycle=m, releaseDate=dates.get(f"{m}.0"), latest=own[-1] if own else None,
                          latestReleaseDate=dates[own[-1]] if own else None, eolFrom=eol,
                          isEol=eol is not None and eol <= today))
    return out


def late_patches(windows: list[Window]) -> list[str]:
    """Patch releases uploaded after the next minor's release: none, which is what the policy
    rests on; enrich reports any as a problem of the lock."""
    return [f"{w.latest} ({w.latestReleaseDate}) after {w.eolFrom}" for w in windows
            if w.eolFrom and w.latestReleaseDate and w.latestReleaseDate > w.eolFrom]
