"""``atlas runtime`` and ``atlas prove``: install each torch release into a throwaway virtualenv, then
resolve every name in it, or run every curated change's proof snippets in it.

    atlas runtime                       # every release of data/wheels.yaml; rewrite the runtime locks
    atlas runtime 2.6.0 2.15.0          # only these
    atlas runtime --verify 2.6.0        # re-install; fail on any difference from the runtime and proof locks (CI)
    atlas prove [2.6.0 ...]             # run the proofs the locks lack (--all: every one); rewrite
                                        # data/evidence/proofs-<v>.json (--verify: run all, compare)

In:  the committed static surfaces (``data/evidence/surface-<v>.txt``): the union of every name any
     release's wheel proposes (public, or still resolving) is what each release is asked about.
Out: ``data/evidence/runtime-<v>.txt``, one line per name (see ``probe_runtime``), with a header
     naming the release and Python. One release at a time: a venv in a temporary folder gets
     ``torch==V`` with its dependencies (about 3-4 GB with the CUDA packages), numpy (below 2 for
     the releases built before it) and tensorboard (``torch.utils.tensorboard`` imports it); the
     probe runs with a fixed hash seed, then the folder is deleted. Times and sizes are printed.
     ``data/evidence/proofs-<v>.json``: each proof snippet's outcome (``prove_runtime``), with the
     hash of the snippet it ran, judged against the change's claims by ``proofs.judge`` at build time.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..load import DATA, load
from ..problems import UsageError
from ..validate import validate
from .proofs import snippets
from .runtime import parse_runtime

PROBE = Path(__file__).resolve().parent / "probe_runtime.py"
PROVE = Path(__file__).resolve().parent / "prove_runtime.py"
RUNTIMES = DATA / "evidence"
INSTALL_TIMEOUT = 3600      # seconds for one release's install (about 4 GB)
PROBE_TIMEOUT = 1800        # seconds for resolving every name in one release


def runtime_path(version: str) -> Path:
    return RUNTIMES / f"runtime-{version}.txt"


def names_asked(fb) -> list[str]:
    """Every name a static surface proposes, public or still resolving, in any release."""
    out: set[str] = set()
    for head, names in fb.surfaces.values():
        out.update(names)
        out.update(head.get("hidden", ()))
    return sorted(out)


def extras(version: str) -> list[str]:
    major_minor = tuple(int(x) for x in version.split(".")[:2])
    # tensorboard: torch.utils.tensorboard imports it; pyyaml and urllib3: a few torch modules do
    return ["numpy<2" if major_minor < (2, 3) else "numpy", "tensorboard", "pyyaml", "urllib3"]


#: Installed into a release's venv after the runtime probe, for the proofs only (so the runtime locks
#: stay what the torch install alone resolves): the TorchScript ONNX exporter needs onnx. A change
#: here makes every proof run again (the locks record the list).
PROOF_EXTRAS = ["onnx==1.17.0"]


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


@contextlib.contextmanager
def release_venv(version: str, python: str = sys.executable):
    """``torch==version`` installed into a fresh venv in a temporary folder: yields (the venv's
    python, the folder, timings); the folder and the venv are deleted on leaving."""
    with tempfile.TemporaryDirectory(prefix=f"atlas-torch-{version}-") as tmp:
        venv = Path(tmp) / "venv"
        t0 = time.perf_counter()
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        py = venv / "bin" / "python"
        pip = [str(py), "-m", "pip", "install", "--quiet", "--no-cache-dir", "--disable-pip-version-check",
               f"torch==={version}", *extras(version)]   # === : not a local build such as 2.13.0+cpu
        r = subprocess.run(pip, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        if r.returncode != 0:
            raise UsageError(f"torch {version}: pip install failed ({r.returncode}); its last lines:\n"
                             + "\n".join(r.stderr.strip().splitlines()[-5:]))
        yield py, Path(tmp), {"install_s": time.perf_counter() - t0, "disk_bytes": _du(venv)}


def _run_alone(script: Path, py: Path, tmp: Path, args: list[str], timeout: int, env: dict) -> None:
    """Run ``script`` with the release's python, copied alone into its own folder (nothing of ours
    on sys.path); a failure is a UsageError with its last lines."""
    folder = tmp / script.stem
    folder.mkdir(exist_ok=True)   # a second run in the same venv (the snippets beside a package)
    copy = folder / script.name
    shutil.copyfile(script, copy)
    r = subprocess.run([str(py), str(copy), *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp)
    if r.returncode != 0:
        raise UsageError(f"{script.stem} failed in {py.parent.parent} ({r.returncode}); its last lines:\n"
                         + "\n".join(r.stderr.strip().splitlines()[-5:]))


def probe(py: Path, tmp: Path, names_file: Path, out: Path) -> float:
    """Resolve every name of ``names_file`` in the installed release; seconds taken."""
    t = time.perf_counter()
    env = {**os.environ, "PYTHONHASHSEED": "0", "CUDA_VISIBLE_DEVICES": "", "PYTHONWARNINGS": "ignore"}
    _run_alone(PROBE, py, tmp, [str(names_file), str(out)], PROBE_TIMEOUT, env)
    return time.perf_counter() - t


def _pip(py: Path, *args: str) -> None:
    r = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--no-cache-dir", "--disable-pip-version-check",
                        *args], capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    if r.returncode != 0:
        raise UsageError(f"pip install {' '.join(args)} failed ({r.returncode}); its last lines:\n"
                         + "\n".join(r.stderr.strip().splitlines()[-5:]))


def prove(py: Path, tmp: Path, snippets: list[dict], out: Path, packages: dict | None = None) -> float:
    """Run every proof snippet in the installed release (``prove_runtime.py``, Python's default
    warning filters: no -W, no PYTHONWARNINGS); the outcomes, each with its snippet's hash, go to
    ``out``. Snippets of a proof with a ``package`` run after the others, with the release of that
    package named in ``packages`` ({name: version, or None where no release is built for this
    torch}) installed beside torch (``--no-deps``: torch stays as installed); where there is none,
    their outcome says so (``absent``) and nothing runs. Seconds taken."""
    t = time.perf_counter()
    if PROOF_EXTRAS:
        _pip(py, *PROOF_EXTRAS)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "PYTHONDEVMODE")}
    env.update({"PYTHONHASHSEED": "0", "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"})
    groups: dict = {None: {}}   # torch alone always runs once (its header: the torch and CPython versions)
    for s in snippets:
        groups.setdefault(s.get("package"), {})[s["sha"]] = s["code"]     # one run per distinct code
    data: dict = {}
    for pkg in sorted(groups, key=lambda p: (p is not None, p or "")):
        by_sha, version = groups[pkg], (packages or {}).get(pkg) if pkg else None
        if pkg and version is None:
            data.setdefault("outcomes", {}).update({k: {"error": None, "warnings": [], "stdout": [], "stderr": [],
                                                        "absent": pkg} for k in by_sha})
            continue
        if pkg:
            _pip(py, "--no-deps", f"{pkg}=={version}")
        todo, part = tmp / f"snippets-{pkg or 'torch'}.json", tmp / f"outcomes-{pkg or 'torch'}.json"
        todo.write_text(json.dumps([{"key": k, "code": c} for k, c in by_sha.items()]), encoding="utf-8")
        _run_alone(PROVE, py, tmp, [str(todo), str(part)], PROBE_TIMEOUT, env)
        got = json.loads(part.read_text(encoding="utf-8"))
        if pkg:
            for o in got["outcomes"].values():
                o["package"] = f"{pkg}=={version}"
        outcomes = {**data.get("outcomes", {}), **got["outcomes"]}
        data = {**data, **got, "outcomes": outcomes}
    for key, o in data["outcomes"].items():
        o["for"] = sorted(f"{s['id']}/{s['part']}" for s in snippets if s["sha"] == key)
    data["extras"] = PROOF_EXTRAS
    out.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return time.perf_counter() - t


def companion_versions(fb, version: str, names: set) -> dict:
    """{package: the newest final release of it whose torch specifier admits torch ``version``, or
    None} for the companion packages ``names`` (companions/pairing.py reads the same lock the pages do)."""
    from packaging.version import Version

    from ..companions import pairing

    if not names:
        return {}
    pins = {v: w.get("requires_dist") or [] for v, w in ((fb.lock or {}).get("wheels") or {}).items()}
    rows = pairing.rows(fb.companions_lock, fb.companions, pins) if fb.companions else []
    out = {}
    for name in sorted(names):
        fit = [r.version for r in rows if r.package == name and pairing.admits(r.torch, version)]
        out[name] = max(fit, key=Version) if fit else None
    return out


def proof_snippets(fb) -> list[dict]:
    """Every runnable snippet of every curated change's proof, in file order."""
    return [s for r in fb.releases for c in r.changes for s in snippets(c)]


def _packages(snippets: list[dict]) -> set:
    return {s["package"] for s in snippets if s.get("package")}


def proof_path(version: str) -> Path:
    return RUNTIMES / f"proofs-{version}.json"


def _compare(lock: Path, out: Path, what: str, problems: list[str]) -> None:
    if not lock.exists():
        problems.append(f"{lock.relative_to(DATA.parent)}: missing; run: atlas {what}")
    elif lock.read_text(encoding="utf-8") != out.read_text(encoding="utf-8"):
        detail = ""
        if lock.name.startswith("proofs-"):    # name the snippets and the fields that moved
            a = json.loads(lock.read_text(encoding="utf-8")).get("outcomes", {})
            b = json.loads(out.read_text(encoding="utf-8")).get("outcomes", {})
            moved = [f"{', '.join((a.get(k) or b.get(k))['for'])} ({', '.join(f for f in ('error', 'warnings', 'stdout', 'stderr') if (a.get(k) or {}).get(f) != (b.get(k) or {}).get(f))})"
                     for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            detail = ": " + "; ".join(moved[:5])
        problems.append(f"{lock.relative_to(DATA.parent)}: differs from the release installed{detail}; see: diff "
                        f"against a fresh `atlas {what}`")


def _versions(fb, versions: list[str]) -> list[str]:
    known = fb.wheels.versions if fb.wheels else []
    for v in versions:
        if v not in known:
            raise UsageError(f"torch {v} is not in data/wheels.yaml (versions: {', '.join(known)})")
    return versions or list(known)


def run(versions: list[str], verify: bool = False) -> int:
    """``atlas runtime``: resolve every name in each release; with ``--verify`` the proofs run in
    the same venvs and their locks are compared too (CI installs each release once)."""
    fb = validate(load(), judge_proofs=False)
    versions = _versions(fb, versions)
    names = names_asked(fb)
    todo = proof_snippets(fb)
    problems = []
    with tempfile.TemporaryDirectory(prefix="atlas-runtime-") as work:
        names_file = Path(work) / "names.txt"
        names_file.write_text("\n".join(names) + "\n", encoding="utf-8")
        for v in versions:
            out = Path(work) / f"runtime-{v}.txt"
            with release_venv(v) as (py, tmp, t):
                t["probe_s"] = probe(py, tmp, names_file, out)
                if verify:
                    proofs_out = Path(work) / f"proofs-{v}.json"
                    t["prove_s"] = prove(py, tmp, todo, proofs_out, companion_versions(fb, v, _packages(todo)))
                    _compare(proof_path(v), proofs_out, f"prove {v}", problems)
            got = parse_runtime(out.read_text(encoding="utf-8"))
            print(f"torch {v}: {len(got.rows)} names, {got.head.get('public')} public, {got.head.get('unknown')} "
                  f"unknown; install {t['install_s']:.0f} s, probe {t['probe_s']:.0f} s"
                  + (f", proofs {t['prove_s']:.0f} s" if verify else "") + f", venv {t['disk_bytes'] / 1e9:.2f} GB",
                  flush=True)
            if verify:
                lock = runtime_path(v)
                if lock.exists() and lock.read_text(encoding="utf-8") != out.read_text(encoding="utf-8"):
                    old = parse_runtime(lock.read_text(encoding="utf-8")).rows
                    differ = sorted(n for n in set(old) | set(got.rows) if old.get(n) != got.rows.get(n))
                    problems.append(f"{lock.relative_to(DATA.parent)}: {len(differ)} names differ from torch {v} "
                                    f"installed, e.g. " + ", ".join(differ[:5]))
                elif not lock.exists():
                    _compare(lock, out, f"runtime {v}", problems)
            else:
                shutil.copyfile(out, runtime_path(v))
    for p in problems:
        print(p)
    if problems:
        print("review the difference, then run `atlas runtime <version>` or `atlas prove <version>` to rewrite the lock")
        return 1
    print("the runtime and proof locks match the installed releases" if verify else f"wrote {len(versions)} runtime locks")
    return 0


def run_proofs(versions: list[str], verify: bool = False, every: bool = False) -> int:
    """``atlas prove``: for each release (one at a time, installed and deleted after), run the proof
    snippets its lock has no outcome of (a new or edited snippet; with ``every``, all of them) and
    rewrite ``data/evidence/proofs-<v>.json``; a release with nothing to run is not installed.
    With ``verify``, run everything and compare with the locks instead."""
    fb = validate(load(), judge_proofs=False)
    versions = _versions(fb, versions)
    todo = proof_snippets(fb)
    wanted: dict[str, list[str]] = {}
    for s in todo:
        wanted.setdefault(s["sha"], []).append(f"{s['id']}/{s['part']}")
    problems: list[str] = []
    total = {"install_s": 0.0, "prove_s": 0.0, "disk_bytes": 0, "releases": 0}
    with tempfile.TemporaryDirectory(prefix="atlas-prove-") as work:
        for v in versions:
            lock = proof_path(v)
            old = json.loads(lock.read_text(encoding="utf-8")) if lock.exists() and not (verify or every) else {}
            if old.get("extras") != PROOF_EXTRAS:       # another environment: every outcome runs again
                old = {}
            kept = {k: {**o, "for": sorted(wanted[k])} for k, o in old.get("outcomes", {}).items() if k in wanted}
            run = [s for s in todo if s["sha"] not in kept]
            if not run:
                print(f"torch {v}: every snippet's outcome is in {lock.name}; not installed", flush=True)
                if kept != old.get("outcomes", {}):
                    lock.write_text(json.dumps({**old, "outcomes": kept}, indent=1, sort_keys=True, ensure_ascii=False)
                                    + "\n", encoding="utf-8")
                continue
            out = Path(work) / f"proofs-{v}.json"
            with release_venv(v) as (py, tmp, t):
                t["prove_s"] = prove(py, tmp, run, out, companion_versions(fb, v, _packages(run)))
            print(f"torch {v}: {len(run)} of {len(todo)} snippets; install {t['install_s']:.0f} s, proofs "
                  f"{t['prove_s']:.0f} s, venv {t['disk_bytes'] / 1e9:.2f} GB", flush=True)
            total["install_s"] += t["install_s"]
            total["prove_s"] += t["prove_s"]
            total["disk_bytes"] = max(total["disk_bytes"], t["disk_bytes"])
            total["releases"] += 1
            if verify:
                _compare(lock, out, f"prove {v}", problems)
                continue
            new = json.loads(out.read_text(encoding="utf-8"))
            new["outcomes"] = {**kept, **new["outcomes"]}
            lock.write_text(json.dumps(new, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{total['releases']} of {len(versions)} releases installed: install {total['install_s']:.0f} s, proofs "
          f"{total['prove_s']:.0f} s, largest venv {total['disk_bytes'] / 1e9:.2f} GB (one at a time)")
    for p in problems:
        print(p)
    return 1 if problems else 0
