"""Real checkpoints, the weights_only allow-lists and the ground truth of ``atlas_check.py ckpt`` (issue 28).

  .venv/bin/python scripts/dev/make_checkpoints.py                    # makers 2.0.1 2.6.0 2.15.0, every release loads
  .venv/bin/python scripts/dev/make_checkpoints.py --makers 2.6.0 --loaders 2.6.0 2.15.0
  .venv/bin/python scripts/dev/make_checkpoints.py --big /tmp/big.pt  # a ~1 GB checkpoint for the timing (not committed)

In:  data/wheels.yaml (the releases); PyPI (``pip install torch===V`` and numpy into a virtualenv in a
     temporary folder, deleted after its release: about 4-6 GB each, so one or two at a time).
Out: - ``tests/fixtures/ckpt/<kind>-<V>.pt`` (and ``plain-<V>.pkl``), written by each maker release with
       ``torch.save``: a state_dict, a whole model, a dict holding an argparse.Namespace, numpy arrays, an
       OrderedDict, the legacy format and a plain ``pickle.dump``; every loader release also writes its
       ``state_dict-<V>.pt`` (what each release records in the archive);
     - ``data/evidence/weights-only-<V>.txt`` for every loader: its allow-list, as the installed release
       gives it (``ckpt_probe.py allow``), with header lines (default weights_only, add_safe_globals, ...);
     - ``tests/fixtures/ckpt/manifest.json``: the ground truth, ``torch.load(f, weights_only=True)`` and
       ``torch.load(f)`` really called by each loader release on each fixture there at the time
       (the makers' fixtures are made first, so every loader sees them).
``--reuse V=VENV`` uses a virtualenv that already has torch V (it is not deleted).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from atlas.wheel.evidence import read_wheels
from atlas.wheel.runtime_lock import extras

ROOT = Path(__file__).resolve().parents[2]

PROBE = Path(__file__).resolve().parent / "ckpt_probe.py"
FIXTURES = ROOT / "tests" / "fixtures" / "ckpt"
EVIDENCE = ROOT / "data" / "evidence"
MAKERS = ["2.0.1", "2.6.0", "2.15.0"]


def install(version: str, folder: Path) -> Path:
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    numpy = [e for e in extras(version) if e.startswith("numpy")]
    r = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--no-cache-dir", "--disable-pip-version-check",
                        f"torch==={version}", *numpy], capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise SystemExit(f"torch {version}: pip install failed:\n" + "\n".join(r.stderr.splitlines()[-5:]))
    return py


def probe(py: Path, *args: str) -> None:
    with tempfile.TemporaryDirectory(prefix="ckpt-probe-") as tmp:   # alone in its folder: nothing of ours on sys.path
        copy = Path(tmp) / PROBE.name
        shutil.copyfile(PROBE, copy)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TORCH_")}
        env.update(PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="", PYTHONWARNINGS="ignore")
        r = subprocess.run([str(py), str(copy), *args], capture_output=True, text=True, timeout=1800, env=env, cwd=tmp)
        if r.returncode != 0:
            raise SystemExit(f"{py}: probe {args[0]} failed:\n" + "\n".join(r.stderr.splitlines()[-8:]))


class Venvs:
    """One virtualenv per release, made on first use and deleted by ``drop`` (unless reused)."""

    def __init__(self, reuse: dict[str, str]):
        self.reuse = {v: Path(p) / "bin" / "python" for v, p in reuse.items()}
        self.made: dict[str, tuple[tempfile.TemporaryDirectory, Path]] = {}

    def get(self, version: str) -> Path:
        if version in self.reuse:
            return self.reuse[version]
        if version not in self.made:
            t0 = time.perf_counter()
            tmp = tempfile.TemporaryDirectory(prefix=f"ckpt-torch-{version}-")
            self.made[version] = (tmp, install(version, Path(tmp.name)))
            print(f"torch {version}: installed in {time.perf_counter() - t0:.0f} s", flush=True)
        return self.made[version][1]

    def drop(self, version: str) -> None:
        if version in self.made:
            self.made.pop(version)[0].cleanup()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    known = read_wheels().versions
    ap.add_argument("--makers", nargs="*", default=MAKERS)
    ap.add_argument("--loaders", nargs="*", default=known)
    ap.add_argument("--jobs", type=int, default=2, help="releases installed at a time (disk: 4-6 GB each)")
    ap.add_argument("--reuse", action="append", default=[], metavar="V=VENV")
    ap.add_argument("--big", metavar="PATH", help="write a ~1 GB checkpoint there with the first maker, and stop")
    ap.add_argument("--big-mb", type=int, default=1024)
    a = ap.parse_args(argv)
    venvs = Venvs(dict(x.split("=", 1) for x in a.reuse))
    if a.big:
        py = venvs.get(a.makers[0])
        code = (f"import torch,sys; n={a.big_mb}*1024*1024//4//8; "
                "torch.save({f'layer{i}': torch.ones(n) for i in range(8)}, sys.argv[1])")
        subprocess.run([str(py), "-c", code, a.big], check=True)
        venvs.drop(a.makers[0])
        print(f"wrote {a.big}: {os.path.getsize(a.big) / 1e9:.2f} GB")
        return 0
    FIXTURES.mkdir(parents=True, exist_ok=True)
    manifest_path = FIXTURES / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"fixtures": {}, "loads": {}}

    def make(v):
        probe(venvs.get(v), "make", str(FIXTURES), "--all")

    def load(v):
        py = venvs.get(v)
        with tempfile.TemporaryDirectory() as tmp:
            probe(py, "allow", str(EVIDENCE / f"weights-only-{v}.txt"))
            if v not in a.makers and not (FIXTURES / f"state_dict-{v}.pt").exists():
                # written aside, then moved: another release may be listing the folder
                probe(py, "make", tmp)
                for f in Path(tmp).glob("*.pt"):
                    os.replace(f, FIXTURES / f.name)
            out = Path(tmp) / "load.json"
            probe(py, "load", str(FIXTURES), str(out))
            got = json.loads(out.read_text())["loads"]
        venvs.drop(v)
        n = sum(r["weights_only"]["ok"] for r in got.values())
        print(f"torch {v}: {len(got)} fixtures loaded, {n} with weights_only=True", flush=True)
        return v, got

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        list(pool.map(make, a.makers))
        order = [v for v in a.loaders if v in a.makers] + [v for v in a.loaders if v not in a.makers]
        for v, got in pool.map(load, order):
            for name, row in got.items():
                manifest["loads"].setdefault(name, {})[v] = row
    for name in sorted(os.listdir(FIXTURES)):
        if name != "manifest.json":
            kind, rest = name.split("-", 1)
            manifest["fixtures"][name] = {"kind": kind, "written_by": rest.rsplit(".", 1)[0]}
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"wrote {manifest_path.relative_to(ROOT)}: {len(manifest['fixtures'])} fixtures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
