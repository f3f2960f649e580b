"""Every release the site knows: the curated ones (data/releases/) and those known from their wheel alone.

In:  the validated releases, ``data/wheels.yaml`` and what ``atlas evidence`` read from each wheel
     (``data/evidence.lock.yaml``: METADATA, entry points, the registry's CPython wheels; the
     surfaces in ``data/evidence/``), all through the ``FactBase``; nothing here opens a file.
Out: ``WheelRelease`` (what one wheel shows), ``Point`` (one release of the history: its curated
     facts if any, its wheel if read) and ``meta_diff`` (the wheel metadata of two releases side by
     side: Python range, CPython wheels, CUDA runtime, every pin of Requires-Dist, entry points).
     Only what an artifact shows is kept: the one date is the date the wheel's files carry, which
     is when it was built, not when the release was published.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from packaging.requirements import InvalidRequirement, Requirement

from ..keys import version_key
from ..schema import Release


def minor(version: str) -> str:
    """``2.9.1`` -> ``2.9``: the release a wheel belongs to."""
    return ".".join(version.split(".")[:2])


@dataclass
class Pin:
    key: str          # the package without its CUDA suffix (nvidia-cudnn-cu12 -> nvidia-cudnn), for diffing
    name: str         # as the wheel names it
    spec: str         # ==9.1.0.70, >=4.10.0, "" when unpinned
    marker: str       # the environment marker, "" if none
    extra: str        # the extra it belongs to ("" for a default requirement)

    @property
    def shown(self) -> str:
        return f"{self.name}{self.spec}"


def parse_pins(requires_dist: list[str]) -> list[Pin]:
    out = []
    for line in requires_dist:
        try:
            r = Requirement(line)
        except InvalidRequirement:
            continue
        marker = str(r.marker) if r.marker else ""
        m = re.search(r"""extra\s*==\s*["']([^"']+)["']""", marker)
        spec = ",".join(sorted(str(s) for s in r.specifier))
        out.append(Pin(re.sub(r"-cu\d+$", "", r.name.lower()), r.name, spec, marker, m.group(1) if m else ""))
    return out


@dataclass
class PlatformRow:
    """The wheels of one release for one platform family: ``groups`` pairs the oldest system (a
    glibc or macOS version, of kind ``floor_kind``; "" for Windows) with the CPython versions
    whose wheel installs there. No groups: the registry has no wheel of this release for it."""
    family: str
    label: str
    floor_kind: str
    groups: list[tuple[str, list[str]]]


@dataclass
class WheelRelease:
    """What the released wheel of one release shows."""
    wheel: str                        # 2.9.1
    file: str
    size: int
    sha256: str
    file_date: str                    # the date on the wheel's files: when it was built
    requires_python: str
    python_classifiers: list[str]
    python_wheels: list[str]          # CPython versions the registry has a wheel of this release for
    pins: list[Pin]
    entry_points: list[tuple[str, str]]   # (group:name, module:attr)
    names: int                        # public API names in its surface
    modules: int
    variants: list[str] = field(default_factory=list)   # other builds of this version the registry lists (2.13.0+cpu)
    cuda_archs: Optional[list[str]] = None               # GPU architectures its binaries hold (torch.cuda.get_arch_list()); None: not read
    cxx11_abi: Optional[bool] = None                     # its C++ library uses the C++11 ABI (None: not read)
    # per platform family (linux-x86_64, macos-arm64, ...; wheel/extract.FAMILIES), each CPython
    # version the registry has a wheel of this release for, and that wheel's platform tag
    platform_wheels: dict[str, dict[str, str]] = field(default_factory=dict)
    platforms_seen: list[str] = field(default_factory=list)   # the families any read release has wheels for

    @property
    def platform(self) -> str:
        """The platform tag of the wheel file (manylinux1_x86_64, manylinux_2_28_x86_64)."""
        return self.file[:-len(".whl")].rsplit("-", 1)[-1] if self.file.endswith(".whl") else ""

    @property
    def glibc(self) -> str:
        """The glibc minimum the platform tag implies (``tag_floor``); "" for another platform."""
        return tag_floor(self.platform) if self.platform.startswith("manylinux") else ""

    def floor(self, family: str) -> str:
        """The oldest system any wheel of ``family`` installs on (glibc or macOS); "" for none."""
        floors = [f for f in self.platform_floors.get(family, {}).values() if f]
        return min(floors, key=version_key) if floors else ""

    def floor_text(self, family: str) -> str:
        """``floor`` with its kind: "glibc 2.28", "macOS 14.0"; "" for none."""
        f = self.floor(family)
        return f"{floor_kind(family)} {f}" if f else ""

    @property
    def platform_table(self) -> list[PlatformRow]:
        """One row per platform family any read release has wheels for, in FAMILIES order: its
        CPython wheels, grouped by the oldest system each installs on (empty: no wheel at all)."""
        rows = []
        for fam in self.platforms_seen:
            groups: dict[str, list[str]] = {}
            for py, floor in self.platform_floors.get(fam, {}).items():
                groups.setdefault(floor, []).append(py)
            rows.append(PlatformRow(fam, FAMILY_LABELS.get(fam, fam), floor_kind(fam),
                                    sorted(groups.items(), key=lambda kv: version_key(kv[0]) if kv[0] else ())))
        return rows

    @property
    def platform_floors(self) -> dict[str, dict[str, str]]:
        """Per platform family, each CPython wheel's floor (``tag_floor``: glibc or macOS)."""
        return {fam: {py: tag_floor(tag) for py, tag in row.items()} for fam, row in self.platform_wheels.items()}

    @property
    def size_mb(self) -> float:
        return round(self.size / 1e6, 1)

    @property
    def cuda(self) -> str:
        """The CUDA runtime the default wheel pins (nvidia-cuda-runtime, or cuda-toolkit from 2.15 on)."""
        for key in ("nvidia-cuda-runtime", "cuda-toolkit"):
            p = next((p for p in self.pins if p.key == key and not p.extra), None)
            if p and p.spec.startswith(("==", "~=")):
                return p.spec.lstrip("=~")
        return ""

    @property
    def required(self) -> list[Pin]:
        return [p for p in self.pins if not p.extra]

    @property
    def extras(self) -> list[str]:
        return sorted({p.extra for p in self.pins if p.extra})


#: The platform families a wheel's platform tag belongs to (PEP 425 tags: manylinux1_x86_64,
#: manylinux_2_28_aarch64, macosx_11_0_arm64, win_amd64), their names on pages and in the
#: environment check, and the tag pattern; the order is the pages' order.
FAMILIES = (("linux-x86_64", "Linux x86_64", r"manylinux\w*_x86_64"),
            ("linux-aarch64", "Linux aarch64", r"manylinux\w*_aarch64"),
            ("macos-arm64", "macOS arm64", r"macosx_\d+_\d+_arm64"),
            ("macos-x86_64", "macOS x86_64", r"macosx_\d+_\d+_x86_64"),
            ("windows-x86_64", "Windows x86_64", r"win_amd64"),
            ("windows-arm64", "Windows arm64", r"win_arm64"))
FAMILY_LABELS = {f: label for f, label, _ in FAMILIES}


def family_of(platform_tag: str) -> Optional[str]:
    return next((f for f, _, rx in FAMILIES if re.fullmatch(rx, platform_tag)), None)


def floor_kind(family: str) -> str:
    """What a family's platform tag sets a floor on: glibc (Linux), macOS, or nothing (Windows)."""
    return "glibc" if family.startswith("linux") else ("macOS" if family.startswith("macos") else "")


@functools.cache   # a pure function of a few dozen tags, asked ~35,000 times a run
def tag_floor(tag: str) -> str:
    """The oldest system a platform tag installs on: for manylinux the glibc (PEP 513/571/599/600:
    manylinux1 2.5, manylinux2010 2.12, manylinux2014 2.17, manylinux_X_Y X.Y), for macosx_X_Y the
    macOS version X.Y; "" for a tag without one (win_amd64)."""
    legacy = {"manylinux1": "2.5", "manylinux2010": "2.12", "manylinux2014": "2.17"}
    for k, v in legacy.items():
        if tag.startswith(k + "_"):
            return v
    m = re.match(r"(?:manylinux|macosx)_(\d+)_(\d+)_", tag)
    return f"{m.group(1)}.{m.group(2)}" if m else ""


def _sort_py(v: str) -> tuple:
    return (*version_key(v.rstrip("t")), v.endswith("t"))


def wheel_release(version: str, lock: dict, surfaces: dict) -> Optional[WheelRelease]:
    w = (lock.get("wheels") or {}).get(version)
    if not w or "requires_dist" not in w:
        return None
    registry = lock.get("registry") or {}
    reg = registry.get("python_wheels") or {}
    names = surfaces.get(version, ({}, {}))[1]
    eps = (lock.get("entry_points") or {}).get(version) or {}
    return WheelRelease(
        wheel=version, file=w.get("file", ""), size=int(w.get("size") or 0), sha256=w.get("sha256", ""),
        file_date=str(w.get("file_date", "")), requires_python=w.get("requires_python", ""),
        python_classifiers=list(w.get("python_classifiers") or []),
        python_wheels=sorted((py for py, vs in reg.items() if version in vs), key=_sort_py),
        pins=parse_pins(list(w.get("requires_dist") or [])),
        entry_points=sorted((ep, info.get("target", "")) for ep, info in eps.items()),
        names=len(names), modules=sum(1 for s in names.values() if s == "module"),
        variants=[v for v in registry.get("versions") or [] if v.startswith(version + "+")],
        cuda_archs=w.get("cuda_archs"), cxx11_abi=w.get("cxx11_abi"),
        platform_wheels=dict((registry.get("platform_wheels") or {}).get(version) or {}),
        platforms_seen=[f for f in FAMILY_LABELS if any(f in fams for fams in (registry.get("platform_wheels") or {}).values())],
    )


@dataclass
class Point:
    """One release of the history: curated facts from data/releases/ (``release``), its wheel, or both."""
    version: str                      # 2.9
    release: Optional[Release]
    wheel: Optional[WheelRelease]
    previous: Optional[str] = None    # the release before it in the history
    #: deprecations its wheel announces that the wheel before it did not (wheel.deprecations; enrich sets them)
    deprecations: list = field(default_factory=list)
    deprecations_total: int = 0       # every deprecation its wheel announces
    deprecations_read: bool = False   # its wheel's deprecations were read
    deprecations_first: bool = False  # read, but no earlier wheel was, so none can be called new
    #: default values its installed release changed against the release before it (enrich sets
    #: them from the two runtime locks): {"name", "param", "old", "new"}; None when not both were read
    defaults: Optional[list] = None
    #: its defaults that only became None or stopped being None (wheel.runtime: ``default_none``),
    #: the same dicts with ``to_none``; not flips, so not in ``defaults``
    defaults_none: list = field(default_factory=list)

    @property
    def changes(self) -> list:
        return self.release.changes if self.release else []

    @property
    def deprecations_named(self) -> int:
        """How many of its new deprecations name a replacement."""
        return sum(1 for d in self.deprecations if d.replacement)

    @property
    def curated(self) -> bool:
        return self.release is not None


def history(releases: list[Release], wheel_versions: list[str], lock: dict, surfaces: dict) -> list[Point]:
    """Every release, oldest first: each curated release, and each minor release whose wheel was read."""
    by_version: dict[str, Point] = {r.version: Point(r.version, r, None) for r in releases}
    for v in wheel_versions:
        w = wheel_release(v, lock, surfaces)
        if w is None:
            continue
        p = by_version.setdefault(minor(v), Point(minor(v), None, None))
        if p.wheel is None:
            p.wheel = w
    points = sorted(by_version.values(), key=lambda p: version_key(p.version))
    for a, b in zip(points, points[1:]):
        b.previous = a.version
    return points


@dataclass
class MetaRow:
    key: str                          # requires_python | python_wheels | cuda | entry_points | pin
    label: str = ""                   # the package for a pin row
    old: Any = None
    new: Any = None
    changed: bool = False
    dropped: list = field(default_factory=list)
    added: list = field(default_factory=list)


def meta_diff(a: Optional[WheelRelease], b: Optional[WheelRelease]) -> list[MetaRow]:
    """The two wheels' metadata side by side; lists also give what was dropped and added."""
    if a is None or b is None:
        return []

    def row(key, old, new, label=""):
        r = MetaRow(key, label, old, new, changed=old != new)
        if isinstance(old, list) and isinstance(new, list):
            r.dropped = [x for x in old if x not in new]
            r.added = [x for x in new if x not in old]
        return r

    rows = [row("requires_python", a.requires_python, b.requires_python),
            row("python_wheels", a.python_wheels, b.python_wheels),
            row("platform", a.platform, b.platform)]
    if a.cxx11_abi is not None and b.cxx11_abi is not None:      # rows for what both wheels were read for
        rows.append(row("cxx11_abi", a.cxx11_abi, b.cxx11_abi))
    rows.append(row("cuda", a.cuda or None, b.cuda or None))
    if a.cuda_archs is not None and b.cuda_archs is not None:
        rows.append(row("cuda_archs", a.cuda_archs, b.cuda_archs))
    pa, pb = {p.key: p for p in a.required}, {p.key: p for p in b.required}
    for key in sorted(set(pa) | set(pb)):
        rows.append(row("pin", pa[key].shown if key in pa else None, pb[key].shown if key in pb else None, key))
    rows.append(row("entry_points", [e for e, _ in a.entry_points], [e for e, _ in b.entry_points]))
    rows.append(row("names", a.names, b.names))
    return rows
