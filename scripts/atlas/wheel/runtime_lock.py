"""``atlas runtime``: install each torch release into a throwaway virtualenv and resolve every name.

    atlas runtime                       # every release of data/wheels.yaml; rewrite the runtime locks
    atlas runtime 2.6.0 2.15.0          # only these
    atlas runtime --verify 2.6.0        # re-install and fail on any difference from the committed lock (CI)

In:  the committed static surfaces (``data/evidence/surface-<v>.txt``): the union of every name any
     release's wheel proposes (public, or still resolving) is what each release is asked about.
Out: ``data/evidence/runtime-<v>.txt``, one line per name (see ``probe_runtime``), with a header
     naming the release and Python. One release at a time: a venv in a temporary folder gets
     ``torch==V`` with its dependencies (about 3-4 GB with the CUDA packages), numpy (below 2 for
     the releases built before it) and tensorboard (``torch.utils.tensorboard`` imports it); the
     probe runs with a fixed hash seed, then the folder is deleted. Times and sizes are printed.
"""
from __future__ import annotations

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
from .runtime import parse_runtime

PROBE = Path(__file__).resolve().parent / "probe_runtime.py"
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


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def probe(version: str, names_file: Path, out: Path, python: str = sys.executable) -> dict:
    """Install ``torch==version`` into a fresh venv, run the probe, delete the venv; timings."""
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
        t1 = time.perf_counter()
        disk = _du(venv)
        env = {**os.environ, "PYTHONHASHSEED": "0", "CUDA_VISIBLE_DEVICES": "", "PYTHONWARNINGS": "ignore"}
        probe_copy = Path(tmp) / "probe" / PROBE.name      # alone in its folder: nothing of ours on sys.path
        probe_copy.parent.mkdir()
        shutil.copyfile(PROBE, probe_copy)
        r = subprocess.run([str(py), str(probe_copy), str(names_file), str(out)], capture_output=True, text=True,
                           timeout=PROBE_TIMEOUT, env=env, cwd=tmp)
        if r.returncode != 0 or not out.exists():
            raise UsageError(f"torch {version}: the probe failed ({r.returncode}); its last lines:\n"
                             + "\n".join(r.stderr.strip().splitlines()[-5:]))
        t2 = time.perf_counter()
    return {"install_s": t1 - t0, "probe_s": t2 - t1, "disk_bytes": disk}


def run(versions: list[str], verify: bool = False) -> int:
    fb = validate(load())
    known = fb.wheels.versions if fb.wheels else []
    for v in versions:
        if v not in known:
            raise UsageError(f"torch {v} is not in data/wheels.yaml (versions: {', '.join(known)})")
    versions = versions or list(known)
    names = names_asked(fb)
    problems = []
    with tempfile.TemporaryDirectory(prefix="atlas-runtime-") as tmp:
        names_file = Path(tmp) / "names.txt"
        names_file.write_text("\n".join(names) + "\n", encoding="utf-8")
        for v in versions:
            out = Path(tmp) / f"runtime-{v}.txt"
            t = probe(v, names_file, out)
            got = parse_runtime(out.read_text(encoding="utf-8"))
            print(f"torch {v}: {len(got.rows)} names, {got.head.get('public')} public, {got.head.get('unknown')} "
                  f"unknown; install {t['install_s']:.0f} s, probe {t['probe_s']:.0f} s, venv {t['disk_bytes'] / 1e9:.2f} GB",
                  flush=True)
            if verify:
                lock = runtime_path(v)
                if not lock.exists():
                    problems.append(f"{lock.relative_to(DATA.parent)}: missing; run: atlas runtime {v}")
                elif lock.read_text(encoding="utf-8") != out.read_text(encoding="utf-8"):
                    old = parse_runtime(lock.read_text(encoding="utf-8")).rows
                    differ = sorted(n for n in set(old) | set(got.rows) if old.get(n) != got.rows.get(n))
                    problems.append(f"{lock.relative_to(DATA.parent)}: {len(differ)} names differ from torch {v} "
                                    f"installed, e.g. " + ", ".join(differ[:5]))
            else:
                shutil.copyfile(out, runtime_path(v))
    for p in problems:
        print(p)
    if problems:
        print("review the difference, then run `atlas runtime <version>` to rewrite the lock")
        return 1
    print("the runtime locks match the installed releases" if verify else f"wrote {len(versions)} runtime locks")
    return 0
