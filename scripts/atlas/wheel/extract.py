"""Verify facts against the released torch wheels and write the lock files.

    python atlas evidence            # download missing wheels, extract and check everything, write the locks
    python atlas evidence --verify   # same, but fail on any difference from the locks (CI)
    python atlas evidence --check    # no download: fail if the locks do not match the data
    python atlas evidence --probes   # only new or changed probes, on only the wheels they name

In:  data/releases/*.yaml (probes, every identifier value, every error message),
     data/wheels.yaml (which wheels).
Out: data/evidence.lock.yaml (wheel file names, sizes, sha256; each probe's outcome; where each
     wheel has each identifier and error message; each entry point and whether its module is in
     the wheel) and data/evidence/surface-<version>.txt (the public API surface of each wheel,
     keyed by its sha256, see wheel/surface.py). Wheels are cached in
     $ATLAS_WHEEL_CACHE (default .cache/wheels) and fetched from PyPI with
     `pip --isolated download --no-deps`, so a machine-wide pip constraint or mirror does
     not change which file is read. Every message names the command that fixes it.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

from ..enrich import enrich
from ..idents import errors, identifiers
from ..load import ROOT, dump, load
from ..problems import UsageError
from ..schema import Wheels
from ..validate import validate
from . import deprecations
from .evidence import (
    LOCK,
    Wheel,
    deprecations_path,
    earlier_problems,
    evaluate,
    lock_problems,
    probe_hash,
    probe_id,
    read_lock,
    read_wheels,
    status_of,
    surface_path,
)
from .history import FAMILY_LABELS, family_of
from .scan import WheelIndex, entry_point_report, find_error, find_ident
from .surface import HIDDEN, write_surface

CACHE = Path(os.environ.get("ATLAS_WHEEL_CACHE", ROOT / ".cache" / "wheels"))
NET_TIMEOUT = 30            # seconds without data before pip gives up on a connection
DOWNLOAD_TIMEOUT = 1800     # seconds for one wheel (the CUDA wheels are about 900 MB)
INDEX = "https://pypi.org/simple"


def _platforms(cfg: Wheels) -> list[str]:
    return cfg.platforms or [cfg.platform]


def _cached(version: str, cfg: Wheels) -> Optional[Path]:
    """The cached wheel of ``version`` for the configured Python and platforms; with a build
    tag (``torch-2.10.0-3-...``, a rebuild), the highest, which is the one pip installs."""
    tag = "cp" + cfg.python.replace(".", "")
    found = []
    for plat in _platforms(cfg):
        for p in CACHE.glob(f"torch-{version}-*{tag}-{tag}-{plat}.whl"):
            build = p.name[len(f"torch-{version}-"):].split("-")[0]
            found.append((int(build) if build.isdigit() else -1, p))
    return max(found)[1] if found else None


def fetch(version: str, cfg: Wheels) -> Path:
    path = _cached(version, cfg)
    tag = "cp" + cfg.python.replace(".", "")
    name = f"torch-{version}-{tag}-{tag}-{{{'|'.join(_platforms(cfg))}}}.whl"
    if path is None:
        CACHE.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "--isolated", "download", "--timeout", str(NET_TIMEOUT), "--retries", "2",
               "--no-deps", "--only-binary=:all:", "--python-version", cfg.python,
               *(a for plat in _platforms(cfg) for a in ("--platform", plat)), "--index-url", INDEX,
               "-d", str(CACHE), f"torch=={version}"]
        print(f"downloading {name} ...", flush=True)
        try:
            subprocess.run(cmd, check=True, timeout=DOWNLOAD_TIMEOUT, env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
        except subprocess.TimeoutExpired:
            raise UsageError(f"downloading {name} took more than {DOWNLOAD_TIMEOUT} s; check the network to "
                             f"pypi.org, or put the wheel in {CACHE} by hand") from None
        except subprocess.CalledProcessError as exc:
            raise UsageError(f"pip could not download {name} (exit {exc.returncode}, see its message above); "
                             f"check the network to pypi.org, or put the wheel in {CACHE} by hand") from None
        path = _cached(version, cfg)
    if path is None:
        raise UsageError(f"{name} not found in {CACHE} after download; does data/wheels.yaml name a real wheel?")
    return path


def _pip_index(args: list[str]) -> list[str]:
    """The versions ``pip index versions torch`` lists for the given installer options (the
    installer reads the registry's file list; nothing is downloaded)."""
    cmd = [sys.executable, "-m", "pip", "--isolated", "index", "versions", "torch", "--timeout", str(NET_TIMEOUT),
           "--index-url", INDEX, *args]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PIP_CONFIG_FILE": os.devnull}).stdout
    except subprocess.CalledProcessError as exc:
        if "No matching distribution" in (exc.stderr or "") or "ERROR: No matching" in (exc.stderr or ""):
            return []
        raise UsageError(f"pip index versions torch {' '.join(args)} failed (exit {exc.returncode}): "
                         f"{(exc.stderr or '').strip()[-300:]}") from None
    except subprocess.TimeoutExpired:
        raise UsageError("pip index versions torch took more than 300 s; check the network to pypi.org") from None
    line = next((ln for ln in out.splitlines() if ln.startswith("Available versions:")), "")
    return [v.strip() for v in line.split(":", 1)[1].split(",")] if line else []


def _ask_registry(job: tuple) -> tuple[str, list[str]]:
    py, platforms = job
    if py == "":
        return py, _pip_index([])
    ver, free = py.rstrip("t"), py.endswith("t")
    args = ["--only-binary=:all:", "--python-version", ver, "--implementation", "cp",
            *(a for plat in platforms for a in ("--platform", plat))]
    if free:
        args += ["--abi", "cp" + ver.replace(".", "") + "t"]
    return py, _pip_index(args)


def _py_key(py: str) -> tuple:
    return (*map(int, py.rstrip("t").split(".")), py.endswith("t"))


def platform_files(filenames: list[str], versions: list[str]) -> dict:
    """From the registry's file names of torch, for each of ``versions``: per platform family, each
    CPython version with a wheel (``3.13t``: the free-threaded build) and the platform tag of that
    wheel (the macOS tag names the oldest macOS it installs on). A build tag
    (``torch-2.10.0-3-...``) is a rebuild of the same version and its tag wins; local variants
    (``2.13.0+cpu``) are other builds and are not counted."""
    out: dict = {v: {} for v in versions}
    split = [n[:-len(".whl")].split("-") for n in filenames if n.endswith(".whl")]
    build = lambda parts: int(parts[2]) if len(parts) == 6 and parts[2].isdigit() else -1  # noqa: E731
    for parts in sorted(split, key=lambda p: (build(p), p)):
        if len(parts) not in (5, 6) or parts[1] not in out:
            continue
        py, abi, plat = parts[-3:]
        fam = family_of(plat)
        m = re.fullmatch(r"cp(\d)(\d+)", py)
        if fam is None or m is None:
            continue
        cp = f"{m.group(1)}.{m.group(2)}" + ("t" if abi.endswith("t") else "")
        out[parts[1]].setdefault(fam, {})[cp] = plat
    order = list(FAMILY_LABELS)
    return {v: {f: dict(sorted(row.items(), key=lambda kv: _py_key(kv[0])))
                for f, row in sorted(fams.items(), key=lambda kv: order.index(kv[0]))}
            for v, fams in out.items()}


def _simple_files() -> list[str]:
    """The file names the registry's simple API (PEP 691, JSON) lists for torch: one request."""
    import json
    import urllib.request
    req = urllib.request.Request(INDEX + "/torch/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return [f["filename"] for f in json.load(r)["files"]]
    except OSError as exc:
        raise UsageError(f"could not read {INDEX}/torch/ ({exc}); check the network to pypi.org") from None


def registry_drift(old: dict, new: dict) -> tuple[list[str], list[str]]:
    """The registry read now against the lock: (problems, notes). A release the index lists and the
    lock does not is the world moving on (PyTorch published a new one): a note that says how to add
    it, never a failure. A recorded release the index no longer lists, or any other difference in
    what the lock recorded (the CPython wheels and platform files of its releases), is a problem."""
    problems, notes = [], []
    before, now = old.get("versions") or [], new.get("versions") or []
    added = [v for v in now if v not in before]
    gone = [v for v in before if v not in now]
    if added:
        notes.append(f"note: the index lists {len(added)} release(s) the lock does not ({', '.join(added)}); "
                     "`make evidence` adds them (data/wheels.yaml names the ones the site reads)")
    if gone:
        problems.append(f"the index no longer lists {', '.join(gone)} (registry versions)")
    if {k: v for k, v in old.items() if k != "versions"} != {k: v for k, v in new.items() if k != "versions"}:
        problems.append("the registry's files of the recorded releases differ from the lock (registry)")
    return problems, notes


def registry(cfg: Wheels, pool) -> dict:
    """What the registry says about its torch files: every version the installer lists (local
    variants such as ``2.13.0+cpu`` included), for each CPython of ``pythons`` the versions
    with a binary wheel for the configured platforms (as the installer answers), and per release
    the CPython wheels of every platform family (from the simple API's file list). Nothing is
    downloaded."""
    answers = dict(pool.map(_ask_registry, [("", [])] + [(py, _platforms(cfg)) for py in cfg.pythons]))
    wanted = set(cfg.versions)
    return {"index": INDEX, "platforms": _platforms(cfg), "versions": answers[""],
            "python_wheels": {py: [v for v in answers[py] if v in wanted] for py in cfg.pythons},
            "platform_wheels": platform_files(_simple_files(), list(cfg.versions))}


def wheel_metadata(path: Path) -> dict:
    """What the wheel's METADATA says about installing it, the date its files carry (the time
    the wheel was built, not when the release was published), and what its binaries were built
    for (``binaries``)."""
    import zipfile
    from email.parser import Parser

    with zipfile.ZipFile(path) as z:
        info = next(i for i in z.infolist() if i.filename.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(z.read(info).decode("utf-8"))
        built = binaries(z)
    y, mo, d, h, mi, _ = info.date_time
    return {
        **built,
        "version": meta.get("Version", ""),
        "requires_python": meta.get("Requires-Python", ""),
        "python_classifiers": [c.rsplit("::", 1)[1].strip() for c in meta.get_all("Classifier") or []
                               if c.startswith("Programming Language :: Python :: 3.")],
        "requires_dist": list(meta.get_all("Requires-Dist") or []),
        "file_date": f"{y:04d}-{mo:02d}-{d:02d}",
    }


#: The GPU architectures torch was compiled for: the string ``torch.cuda.get_arch_list()`` returns,
#: stored in libtorch_python.so ("sm_50 sm_60 sm_70 ...").
_ARCH_LIST = re.compile(rb"sm_\d{2,3}[a-z]?(?: sm_\d{2,3}[a-z]?)+")


def binaries(z) -> dict:
    """What the wheel's binaries were built for: ``cuda_archs``, the GPU architectures (the list
    ``torch.cuda.get_arch_list()`` gives, [] for a build without CUDA), and ``cxx11_abi``, whether
    its C++ library uses the C++11 ABI (TorchConfig.cmake's ``-D_GLIBCXX_USE_CXX11_ABI=0|1``; with
    no such flag, the compiler's default, which is the C++11 ABI). A C++ extension must be built
    with the same ABI."""
    names = set(z.namelist())
    archs: Optional[list[str]] = None       # no libtorch_python.so: not known
    if "torch/lib/libtorch_python.so" in names:
        archs = []
        found = _ARCH_LIST.findall(z.read("torch/lib/libtorch_python.so"))
        if found:
            archs = max(found, key=len).decode().split()
    abi = None
    cmake = "torch/share/cmake/Torch/TorchConfig.cmake"
    if cmake in names:
        flag = re.search(r"_GLIBCXX_USE_CXX11_ABI=([01])", z.read(cmake).decode("utf-8", "replace"))
        abi = flag.group(1) == "1" if flag else True
    return {"cuda_archs": archs, "cxx11_abi": abi}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def extract(job: tuple) -> dict:
    """Everything the lock records about one wheel (runs in a worker process)."""
    version, path, sha, idents, errs = job
    t0, c0 = time.perf_counter(), time.process_time()
    w = WheelIndex(path)
    names = w.public()
    t1, c1 = time.perf_counter(), time.process_time()
    found = deprecations.read(path=Path(path))
    t2 = time.perf_counter()
    out = {
        "deprecations": found,
        "names": names,
        "metadata": wheel_metadata(Path(path)),
        "identifiers": {i.key: find_ident(w, i) for i in idents},
        "errors": {e.key: find_error(w, e) for e in errs},
        "entry_points": entry_point_report(w),
    }
    out["times"] = {"surface": t1 - t0, "deprecations": t2 - t1, "lookups": time.perf_counter() - t2,
                    "surface_cpu": c1 - c0, "lookups_cpu": time.process_time() - c1}
    return out


def still_resolves(job: tuple) -> list[tuple[str, str]]:
    """Of ``names`` (public in some other wheel, not public in this one), those that still
    resolve in this wheel: no longer public, but not removed; ``hidden raises`` when what is
    left is a function that only raises (a removed API's stub). Runs in a worker process."""
    path, names = job
    from .surface import Surface

    s = Surface(path=Path(path))
    out = []
    for n in names:
        r = s.resolve(n)
        if r is not None:
            out.append((n, HIDDEN + (" raises" if r["sig"].endswith(" raises") else "")))
    return out


def surface_text(version: str, path: Path, sha: str, names: dict[str, str], hidden: list[tuple[str, str]]) -> str:
    header = (f"# torch={version} file={Path(path).name} sha256={sha} names={len(names)}\n"
              "# Public API surface, written by `atlas evidence` (make evidence); do not edit.\n"
              "# One name a line: indent = depth, last dotted part, tab, parameters or module/class/attr;\n"
              "# `hidden`: public in another release's wheel, not public here, but it still resolves\n"
              "# (`hidden raises`: what resolves is a stub that only raises, which counts as removed).")
    return write_surface({**names, **dict(hidden)}, header)


def evaluate_all(fb, lock: dict, n_jobs: int) -> str:
    """Turn every observation into verdicts and API diffs, as the site build does; timed."""
    t0, c0 = time.perf_counter(), time.process_time()
    atlas = enrich(fb, lock=lock)
    n = sum(len(atlas.auto_checks(c)) for c in fb.changes()) + len(atlas.entry_point_findings)
    t1, c1 = time.perf_counter(), time.process_time()
    sizes = ", ".join(f"{u.slug}: -{u.api_diff['counts']['removed']} ~{u.api_diff['counts']['changed']} "
                      f"+{u.api_diff['counts']['added']}" for u in atlas.upgrades if u.api_diff)
    return (f"evaluating {n} checks and {len(atlas.upgrades)} API diffs: {t1 - t0:.2f} s ({c1 - c0:.2f} s CPU); "
            f"API diffs (removed ~changed +added): {sizes}")


def run(verify: bool) -> int:
    from multiprocessing import Pool

    fb = validate(load(), judge_proofs=False)   # the proofs are judged by the build, not here
    cfg = fb.wheels or read_wheels()
    changes = fb.changes()
    t0 = time.perf_counter()
    paths = {v: fetch(v, cfg) for v in cfg.versions}
    shas = {v: sha256(p) for v, p in paths.items()}
    t1 = time.perf_counter()
    wheels = {v: Wheel(p) for v, p in paths.items()}
    probes, counts = {}, {"confirmed": 0, "contradicted": 0}
    for c in changes:
        for i, p in enumerate(c.probes):
            observed = {v: evaluate(p, wheels[v]) for v in sorted(p.expect)}
            status = status_of(p, observed)
            counts[status] += 1
            probes[probe_id(c.id, i)] = {"hash": probe_hash(p), "observed": observed, "status": status}
    wheels.clear()
    t2 = time.perf_counter()
    idents = [i for i in identifiers(changes) if i.kind]
    errs = errors(changes)
    jobs = [(v, str(paths[v]), shas[v], idents, errs) for v in cfg.versions]
    with Pool(min(2, len(jobs))) as pool:
        results = dict(zip(cfg.versions, pool.map(extract, jobs, chunksize=1)))
        union = set().union(*(r["names"] for r in results.values()))
        hidden = dict(zip(cfg.versions, pool.map(still_resolves, [
            (str(paths[v]), sorted(union - set(results[v]["names"]))) for v in cfg.versions], chunksize=1)))
        t3 = time.perf_counter()
        reg = registry(cfg, pool) if cfg.pythons else {}
    t4 = time.perf_counter()
    lock = {
        "wheels": {v: {"file": p.name, "size": p.stat().st_size, "sha256": shas[v], **results[v]["metadata"]}
                   for v, p in paths.items()},
        "probes": dict(sorted(probes.items())),
        "identifiers": {i.key: {"value": i.value, "kind": i.kind, "query": i.query,
                                "observed": {v: results[v]["identifiers"][i.key] for v in cfg.versions}}
                        for i in sorted(idents, key=lambda i: i.key)},
        "errors": {e.key: {"message": e.message,
                           "observed": {v: results[v]["errors"][e.key] for v in cfg.versions}}
                   for e in sorted(errs, key=lambda e: e.key)},
        "entry_points": {v: results[v]["entry_points"] for v in cfg.versions},
        "registry": reg,
    }
    surfaces = {v: surface_text(v, paths[v], shas[v], results[v]["names"], hidden[v]) for v in cfg.versions}
    deps = {v: deprecations.write(results[v]["deprecations"], (
        f"# torch={v} file={paths[v].name} sha256={shas[v]} deprecations={len(results[v]['deprecations'])}\n"
        "# Deprecations the wheel's Python sources announce, written by `atlas evidence`; do not edit.\n"
        "# where, how (warn | decorator | docstring), category, the replacement the message names, message"))
        for v in cfg.versions}
    for v in cfg.versions:
        tm = results[v]["times"]
        print(f"torch {v}: {len(results[v]['names'])} public names, {len(hidden[v])} no longer public, "
              f"{len(results[v]['deprecations'])} deprecations ({tm['deprecations']:.1f} s); surface {tm['surface']:.1f} s "
              f"({tm['surface_cpu']:.1f} s CPU), lookups {tm['lookups']:.1f} s ({tm['lookups_cpu']:.1f} s CPU)")
    print(f"{len(probes)} probes: {counts['confirmed']} confirmed, {counts['contradicted']} contradicted; "
          f"{len(idents)} identifiers, {len(errs)} error messages, "
          f"{sum(len(e) for e in lock['entry_points'].values())} entry points looked up")
    print(f"download + sha256 {t1 - t0:.1f} s, probes {t2 - t1:.1f} s, extraction (surfaces + lookups, "
          f"{len(jobs)} wheels on {min(2, len(jobs))} processes) {t3 - t2:.1f} s, registry {t4 - t3:.1f} s")
    if verify:
        old = read_lock()
        problems = []
        for section in ("probes", "identifiers", "errors"):
            for k in sorted(set(old.get(section) or {}) | set(lock[section])):
                a = ((old.get(section) or {}).get(k) or {}).get("observed")
                b = (lock[section].get(k) or {}).get("observed")
                if a != b:
                    problems.append(f"{section} {k}: lock {a} -> wheels {b}")
        if (old.get("entry_points") or {}) != lock["entry_points"]:
            problems.append("entry points differ from the lock")
        drift, news = registry_drift(old.get("registry") or {}, lock["registry"])
        problems += drift
        for n in news:
            print(n)
        for v in cfg.versions:
            if (old.get("wheels", {}).get(v) or {}).get("sha256") != lock["wheels"][v]["sha256"]:
                problems.append(f"wheel changed: torch {v} sha256 differs from the lock")
            elif old["wheels"][v] != lock["wheels"][v]:
                problems.append(f"torch {v}: METADATA read differently from the lock")
            p = surface_path(v)
            if not p.exists() or p.read_text(encoding="utf-8") != surfaces[v]:
                problems.append(f"surface of torch {v} differs from {p.relative_to(ROOT)}")
            p = deprecations_path(v)
            if not p.exists() or p.read_text(encoding="utf-8") != deps[v]:
                problems.append(f"deprecations of torch {v} differ from {p.relative_to(ROOT)}")
        for p in problems:
            print(p)
        if problems:
            print("run `make evidence` to rewrite the locks after reviewing the change")
            return 1
        print(evaluate_all(fb, lock, len(jobs)))
        print("the lock files match the wheels")
        return 0
    header = "# Written by `atlas evidence` (make evidence); do not edit. Outcomes per wheel version.\n"
    LOCK.write_text(header + dump(lock, sort_keys=False, allow_unicode=True, width=200), encoding="utf-8")
    for v in cfg.versions:
        surface_path(v).parent.mkdir(parents=True, exist_ok=True)
        surface_path(v).write_text(surfaces[v], encoding="utf-8")
        deprecations_path(v).write_text(deps[v], encoding="utf-8")
    size = LOCK.stat().st_size + sum(surface_path(v).stat().st_size for v in cfg.versions)
    print(f"wrote {LOCK.relative_to(ROOT)} and {len(cfg.versions)} surfaces: {size / 1e6:.2f} MB in total")
    print(evaluate_all(fb, lock, len(jobs)))
    return 0


def run_probes() -> int:
    """Evaluate again only what the lock does not describe: new or changed probes (on the wheels
    they name), and identifiers and error messages that have no verdict yet (on every wheel), each
    wheel checked against the sha256 the lock records for it; rewrite those sections of the lock and
    nothing else. Minutes instead of the full extraction, for a data change that adds probes, names
    or messages (``make evidence`` still rewrites everything; CI's ``--verify`` re-reads it all)."""
    fb = validate(load(), judge_proofs=False)
    cfg = fb.wheels or read_wheels()
    lock = read_lock()
    old = lock.get("probes") or {}
    probes, todo = {}, []
    for c in fb.changes():
        for i, p in enumerate(c.probes):
            pid = probe_id(c.id, i)
            entry = old.get(pid)
            if entry and entry.get("hash") == probe_hash(p) and set(entry.get("observed") or {}) == set(p.expect):
                probes[pid] = entry
            else:
                todo.append((pid, p))
    changes = fb.changes()
    new_idents = [i for i in identifiers(changes) if i.kind and i.key not in (lock.get("identifiers") or {})]
    new_errs = [e for e in errors(changes) if e.key not in (lock.get("errors") or {})]
    wanted = sorted({v for _, p in todo for v in p.expect} | (set(cfg.versions) if new_idents or new_errs else set()),
                    key=lambda v: tuple(map(int, v.split("."))))
    known = lock.get("wheels") or {}
    missing = [v for v in wanted if v not in known]
    if missing:
        raise UsageError(f"torch {', '.join(missing)}: not in the lock's wheels; run: make evidence")
    found_i: dict[str, dict] = {i.key: {} for i in new_idents}
    found_e: dict[str, dict] = {e.key: {} for e in new_errs}
    for v in wanted:
        path = fetch(v, cfg)
        got = sha256(path)
        if got != known[v]["sha256"]:
            raise UsageError(f"{path.name}: sha256 {got} is not the {known[v]['sha256']} the lock was written from; "
                             "run: make evidence")
        w = Wheel(path)
        for pid, p in todo:
            if v in p.expect:
                probes.setdefault(pid, {"hash": probe_hash(p), "observed": {}})["observed"][v] = evaluate(p, w)
        if new_idents or new_errs:
            idx = WheelIndex(str(path))
            for i in new_idents:
                found_i[i.key][v] = find_ident(idx, i)
            for e in new_errs:
                found_e[e.key][v] = find_error(idx, e)
        print(f"torch {v}: {sum(v in p.expect for _, p in todo)} probes, {len(new_idents)} identifiers, "
              f"{len(new_errs)} error messages looked up", flush=True)
    for pid, p in todo:
        entry = probes[pid]
        entry["observed"] = dict(sorted(entry["observed"].items()))
        entry["status"] = status_of(p, entry["observed"])
    gone = sorted(set(old) - set(probes))
    lock["probes"] = dict(sorted(probes.items()))
    idents = dict(lock.get("identifiers") or {})
    idents.update({i.key: {"value": i.value, "kind": i.kind, "query": i.query, "observed": found_i[i.key]}
                   for i in new_idents})
    lock["identifiers"] = dict(sorted(idents.items()))
    errs = dict(lock.get("errors") or {})
    errs.update({e.key: {"message": e.message, "observed": found_e[e.key]} for e in new_errs})
    lock["errors"] = dict(sorted(errs.items()))
    header = "# Written by `atlas evidence` (make evidence); do not edit. Outcomes per wheel version.\n"
    LOCK.write_text(header + dump(lock, sort_keys=False, allow_unicode=True, width=200), encoding="utf-8")
    print(f"{len(todo)} probes evaluated on {len(wanted)} wheels, {len(gone)} dropped; {len(new_idents)} identifiers "
          f"and {len(new_errs)} error messages added; wrote {LOCK.relative_to(ROOT)}")
    return 0


def check() -> int:
    fb = validate(load(), judge_proofs=False)
    lock = read_lock()
    problems = lock_problems(fb.changes(), lock) + earlier_problems(fb.releases, fb.release_files, lock, fb.claims)
    for p in problems:
        print(p)
    if problems:
        print("the lock files are out of date with the data; run: make evidence")
        return 1
    print("the lock files match the data (probes, identifiers, error messages, surfaces)")
    return 0
