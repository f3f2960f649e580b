"""``data/builds.yaml``: every official build of every release (issue 40), and what follows from it.

In:  ``data/builds.yaml`` (read by ``load.py``), checked here through ``validate.py`` with the ids of
     ``data/sources.yaml``; for the derivations, the evidence lock (the default wheel's CUDA pin,
     GPU architectures and tags) and ``data/gpus.yaml`` (NVIDIA's driver floors, GPU generations).
Out: ``BuildMatrix`` (the rows as the sources give them) on ``FactBase.builds``; ``builds_of`` (one
     release's rows with everything a page or a checker needs: default or index, pip command, the
     architectures a wheel shows beside the script's, the driver floors) and ``builds_ended`` (per
     upgrade, the builds that end on the way and the GPU generations that lose a build), both
     called by ``enrich.py``. Problems read ``data/builds.yaml: <release>/<build>: <field>: message``.

Raw versus computed: the YAML holds what a source says; the default flag, the pip command, the
driver and the wheel's own values are derived here, never typed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from pydantic import Field, ValidationError

from .gpus import GpuSource as BuildSource  # the same shape: id, url, title
from .schema import LOCATOR_MAX, Strict

#: the names PyTorch's index uses for its builds; any other name is refused
BUILD_NAME = re.compile(r"^(cpu|xpu|cu(1[0-9])([0-9])|rocm\d+\.\d+(\.\d+)?)$")
BuildField = Literal["build", "archs", "platforms", "pythons"]
Platform = Literal["linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64", "macos-x86_64"]


class BuildCite(Strict):
    source: str
    locator: str = Field(min_length=2, max_length=LOCATOR_MAX)
    fields: list[BuildField] = Field(min_length=1)


class BuildRow(Strict):
    build: str
    archs: Optional[list[str]] = None
    platforms: list[Platform] = Field(min_length=1)
    pythons: Optional[list[str]] = None
    sources: list[BuildCite] = []
    inferred: dict[BuildField, str] = {}


class BuildRelease(Strict):
    release: str = Field(pattern=r"^\d+\.\d+$")
    pythons: list[str] = Field(min_length=1)
    sources: list[BuildCite] = []
    inferred: dict[BuildField, str] = {}
    builds: list[BuildRow] = Field(min_length=1)


class BuildMatrix(Strict):
    index_url: str = Field(pattern=r"^https://\S+\{build\}\S*$")
    sources: list[BuildSource] = Field(min_length=1)
    releases: list[BuildRelease] = []

    def release(self, version: str) -> Optional[BuildRelease]:
        return next((r for r in self.releases if r.release == version), None)


def check(file: str, data: Any, source_ids: set[str], problems) -> Optional[BuildMatrix]:
    """The schema, then what it cannot say: a known build name, each build once per release, a
    cited (or inferred) value for every field a row gives, sources that exist, architectures named
    ``sm_XX`` or ``gfx…``. Each problem names ``<release>/<build>: <field>``."""
    if data is None:
        return None
    try:
        matrix = BuildMatrix.model_validate(data)
    except ValidationError as exc:
        for e in exc.errors():
            loc = list(e["loc"])
            owner, where = "-", ".".join(map(str, loc))
            if loc[:1] == ["releases"] and len(loc) > 1 and isinstance(loc[1], int):
                rels = data.get("releases") if isinstance(data, dict) else None
                rel = rels[loc[1]] if isinstance(rels, list) and loc[1] < len(rels) else {}
                owner = str(rel.get("release", loc[1])) if isinstance(rel, dict) else str(loc[1])
                rest = loc[2:]
                if rest[:1] == ["builds"] and len(rest) > 1 and isinstance(rest[1], int):
                    rows = rel.get("builds") if isinstance(rel, dict) else None
                    row = rows[rest[1]] if isinstance(rows, list) and rest[1] < len(rows) else {}
                    owner += "/" + str(row.get("build", rest[1]) if isinstance(row, dict) else rest[1])
                    rest = rest[2:]
                where = ".".join(map(str, rest)) or "(entry)"
            problems.add(file, owner, where, e["msg"])
        return None
    known = {s.id for s in matrix.sources} | source_ids
    seen_rel: set[str] = set()
    for rel in matrix.releases:
        if rel.release in seen_rel:
            problems.add(file, rel.release, "release", "given twice; one entry per release")
        seen_rel.add(rel.release)
        _check_cites(file, rel.release, rel.sources, rel.inferred, {"pythons"}, known, problems)
        seen: set[str] = set()
        for row in rel.builds:
            owner = f"{rel.release}/{row.build}"
            if not BUILD_NAME.match(row.build):
                problems.add(file, owner, "build", "unknown build name; one of cpu, xpu, cu<major><minor> "
                             "(cu128), rocm<version> (rocm6.4)")
            if row.build in seen:
                problems.add(file, owner, "build", "given twice in this release")
            seen.add(row.build)
            given = {"build", "platforms"} | ({"archs"} if row.archs is not None else set()) \
                | ({"pythons"} if row.pythons is not None else set())
            _check_cites(file, owner, row.sources, row.inferred, given, known, problems)
            for a in row.archs or []:
                if not re.fullmatch(r"sm_\d{2,3}a?|gfx[0-9a-f]{3,4}", a):
                    problems.add(file, owner, "archs", f"'{a}' is neither sm_XX nor a gfx target")
            if row.archs is not None and row.build == "cpu":
                problems.add(file, owner, "archs", "a CPU build compiles no GPU architecture")
    return matrix


def _check_cites(file, owner, cites, inferred, given, known, problems) -> None:
    covered = {f for c in cites for f in c.fields} | set(inferred)
    for f in sorted(given - covered):
        problems.add(file, owner, f"sources ({f})", f"no source for `{f}`: cite one with `fields: [{f}]`, "
                     f"or give `inferred: {{{f}: <how>}}`")
    for i, c in enumerate(cites):
        if c.source not in known:
            problems.add(file, owner, f"sources.{i}.source", f"unknown source '{c.source}' (neither in "
                         "data/builds.yaml sources nor in data/sources.yaml)")


# ------------------------------------------------------------------ derived

def cuda_version(build: str) -> Optional[str]:
    """'cu128' -> '12.8' (None for other builds)."""
    m = BUILD_NAME.match(build)
    return f"{m.group(2)}.{m.group(3)}" if m and m.group(2) else None


def kind(build: str) -> str:
    return "cuda" if build.startswith("cu") else "rocm" if build.startswith("rocm") else build


def runs_on(archs: list[str], cc: str) -> bool:
    """Whether code compiled for ``archs`` runs on a GPU of compute capability ``cc``: SASS for
    sm_XY runs on X.Z with Z >= Y (same major)."""
    major, minor = (int(x) for x in cc.split("."))
    for a in archs:
        m = re.fullmatch(r"sm_(\d+?)(\d)a?", a)
        if m and int(m.group(1)) == major and int(m.group(2)) <= minor:
            return True
    return False


@dataclass
class BuildView:
    build: str
    kind: str                              # cpu | cuda | rocm | xpu
    cuda: Optional[str]                    # '12.8'
    default: bool                          # the wheel plain `pip install torch` gets on Linux x86-64
    pip: str
    archs: Optional[list[str]]             # what the page shows: the wheel's, else the script's
    archs_script: Optional[list[str]]      # as a script or RELEASE.md gives it
    archs_wheel: Optional[list[str]]       # as the default wheel shows it (lock)
    disagree: bool                         # script and wheel differ
    driver_linux: Optional[str]
    driver_windows: Optional[str]
    platforms: list[str]
    pythons: list[str]
    pythons_from_wheel: bool
    sources: list[dict]                    # {source, url, title, locator, fields}
    inferred: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict:
        return dict(self.__dict__)


def _pin(wheel: dict) -> Optional[str]:
    """The CUDA major.minor the default wheel pins (nvidia-cuda-runtime-cuXX / cuda-toolkit)."""
    for req in wheel.get("requires_dist") or []:
        m = re.match(r"(?:nvidia-cuda-runtime-cu\d+\s*\(?==|cuda-toolkit\[[^\]]*\]==)(\d+)\.(\d+)", req)
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def builds_of(matrix: Optional[BuildMatrix], version: str, wheel: Optional[dict], drivers: list,
              platform_wheels: dict, sources: dict[str, tuple[str, str]]) -> list[BuildView]:
    """One release's rows, derived. ``wheel`` is the lock's entry of the release's wheel,
    ``platform_wheels`` the lock's registry for it, ``drivers`` gpus.yaml's ``cuda_drivers``,
    ``sources`` id -> (url, title) of both source lists."""
    rel = matrix.release(version) if matrix else None
    if rel is None:
        return []
    pin = _pin(wheel or {})
    floor = {d.cuda: (d.linux or d.min_driver, d.windows or d.min_driver) for d in drivers}
    out = []
    for row in rel.builds:
        cu = cuda_version(row.build)
        default = cu is not None and cu == pin
        wheel_archs = list(wheel.get("cuda_archs") or []) if default and wheel else None
        archs = wheel_archs if wheel_archs else row.archs
        pythons, from_wheel = row.pythons or rel.pythons, False
        linux = (platform_wheels or {}).get("linux-x86_64")
        if default and linux:
            pythons, from_wheel = sorted(linux, key=_pykey), True
        lin, win = floor.get(cu.split(".")[0], (None, None)) if cu else (None, None)
        pip = f"pip install torch=={version}.*" if default else \
            f"pip install torch=={version}.* --index-url {matrix.index_url.replace('{build}', row.build)}"
        cites = [{"source": c.source, "url": sources.get(c.source, ("", ""))[0], "title": sources.get(c.source, ("", ""))[1],
                  "locator": c.locator, "fields": list(c.fields)} for c in [*rel.sources, *row.sources]]
        out.append(BuildView(
            build=row.build, kind=kind(row.build), cuda=cu, default=default, pip=pip, archs=archs,
            archs_script=row.archs, archs_wheel=wheel_archs,
            disagree=bool(wheel_archs and row.archs is not None and set(wheel_archs) != set(row.archs)),
            driver_linux=lin, driver_windows=win if "windows-x86_64" in row.platforms else None,
            platforms=list(row.platforms), pythons=list(pythons), pythons_from_wheel=from_wheel,
            sources=cites, inferred={**rel.inferred, **row.inferred},
        ))
    return out


def _pykey(v: str) -> tuple:
    return tuple(int(x) for x in v.rstrip("t").split(".")) + (v.endswith("t"),)


@dataclass
class BuildEnd:
    """On the way from one release to the next: a build that ends, or a GPU generation that a
    build (the default one, or one of the same name) no longer has code for."""
    release: str                     # the first release without it
    last: str                        # the release before
    kind: Literal["build", "default", "same"]
    build: str                       # the build that ends / that loses the generation
    family: Optional[str] = None     # NVIDIA generation (Pascal)
    cc: Optional[str] = None         # its first compute capability (6.0)
    series: list[str] = field(default_factory=list)   # the GPU series of that generation (GeForce GTX 10)
    use: list[str] = field(default_factory=list)      # builds of ``release`` that still run it (or continue)


def builds_ended(per_release: dict[str, list[BuildView]], steps: list[tuple[str, str]], gpus) -> list[BuildEnd]:
    """For each step (before, after) of an upgrade: builds of ``before`` that ``after`` lacks, and the
    NVIDIA generations that lose the default wheel or a build of the same name, with the builds of
    ``after`` that still run them (none: stay on ``before``)."""
    fams = []
    if gpus is not None:
        for a in gpus.nvidia_architectures:
            series = [s.series for s in gpus.nvidia_series if s.arch == a.name]
            fams.append((a.name, a.compute_capability, series))
    out: list[BuildEnd] = []
    for before, after in steps:
        old, new = per_release.get(before) or [], per_release.get(after) or []
        if not old or not new:
            continue
        names_new = {b.build for b in new}
        for b in old:
            if b.build not in names_new:
                out.append(BuildEnd(after, before, "build", b.build,
                                    use=[n.build for n in new if n.kind == b.kind]))
        od = next((b for b in old if b.default), None)
        nd = next((b for b in new if b.default), None)
        by_name = {b.build: b for b in new}
        for name, cc, series in fams:
            def ok(b, cc=cc):
                return b.archs is not None and runs_on(b.archs, cc)
            use = [n.build for n in new if ok(n)]
            if od and nd and ok(od) and nd.archs is not None and not ok(nd):
                out.append(BuildEnd(after, before, "default", nd.build, name, cc, series, use))
            for b in old:
                n = by_name.get(b.build)
                if n is not None and not n.default and ok(b) and n.archs is not None and not ok(n):
                    out.append(BuildEnd(after, before, "same", b.build, name, cc, series, use))
    return out
