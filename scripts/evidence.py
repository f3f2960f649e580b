"""Verify facts against the released torch wheels and write the lock file.

    python scripts/evidence.py            # download missing wheels, evaluate every probe, write the lock
    python scripts/evidence.py --verify   # same, but fail if any outcome differs from the lock (CI)
    python scripts/evidence.py --check    # no download: fail if the lock does not match the probes

In:  the probes in data/releases/*.yaml and the wheel list in data/wheels.yaml.
Out: data/evidence.lock.yaml (wheel file names, sizes, sha256; each probe's outcome per
     wheel and whether it confirms or contradicts the sources). Wheels are cached in
     $ATLAS_WHEEL_CACHE (default .cache/wheels) and fetched from PyPI with
     `pip --isolated download --no-deps`, so a machine-wide pip constraint or mirror does
     not change which file is read. Every message names the command that fixes it.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from atlas.evidence import (LOCK, Wheel, evaluate, lock_problems, probe_hash, probe_id,  # noqa: E402
                            read_lock, read_wheels, status_of)
from atlas import cli  # noqa: E402
from atlas.cli import UsageError  # noqa: E402
from atlas.load import ROOT, load  # noqa: E402
from atlas.schema import Wheels  # noqa: E402
from atlas.validate import validate  # noqa: E402

CACHE = Path(os.environ.get("ATLAS_WHEEL_CACHE", ROOT / ".cache" / "wheels"))
NET_TIMEOUT = 30            # seconds without data before pip gives up on a connection
DOWNLOAD_TIMEOUT = 1800     # seconds for one wheel (the CUDA wheels are about 900 MB)


def fetch(version: str, cfg: Wheels) -> Path:
    tag = "cp" + cfg.python.replace(".", "")
    name = f"torch-{version}-{tag}-{tag}-{cfg.platform}.whl"
    path = CACHE / name
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "--isolated", "download", "--timeout", str(NET_TIMEOUT), "--retries", "2",
               "--no-deps", "--only-binary=:all:",
               "--python-version", cfg.python, "--platform", cfg.platform, "--index-url", "https://pypi.org/simple",
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
    if not path.exists():
        raise UsageError(f"{name} not found in {CACHE} after download; does data/wheels.yaml name a real wheel?")
    return path


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(verify: bool) -> int:
    fb = validate(load())
    cfg = fb.wheels or read_wheels()
    changes = fb.changes()
    t0 = time.perf_counter()
    paths = {v: fetch(v, cfg) for v in cfg.versions}
    t1 = time.perf_counter()
    wheels = {v: Wheel(p) for v, p in paths.items()}
    probes, counts = {}, {"confirmed": 0, "contradicted": 0}
    for c in changes:
        for i, p in enumerate(c.probes):
            observed = {v: evaluate(p, wheels[v]) for v in sorted(p.expect)}
            status = status_of(p, observed)
            counts[status] += 1
            probes[probe_id(c.id, i)] = {"hash": probe_hash(p), "observed": observed, "status": status}
    t2 = time.perf_counter()
    lock = {
        "wheels": {v: {"file": p.name, "size": p.stat().st_size, "sha256": sha256(p)} for v, p in paths.items()},
        "probes": dict(sorted(probes.items())),
    }
    print(f"{len(probes)} probes: {counts['confirmed']} confirmed, {counts['contradicted']} contradicted; "
          f"download {t1 - t0:.1f} s, evaluation {t2 - t1:.1f} s")
    if verify:
        old = read_lock()
        diff = [k for k in set(old.get("probes", {})) | set(probes)
                if (old.get("probes", {}).get(k) or {}).get("observed") != (probes.get(k) or {}).get("observed")]
        wheel_diff = [v for v in lock["wheels"] if (old.get("wheels", {}).get(v) or {}).get("sha256") != lock["wheels"][v]["sha256"]]
        if diff or wheel_diff:
            for k in sorted(diff):
                print(f"outcome changed: {k}: lock {old.get('probes', {}).get(k, {}).get('observed')} "
                      f"-> wheel {probes.get(k, {}).get('observed')}")
            for v in wheel_diff:
                print(f"wheel changed: torch {v} sha256 differs from the lock")
            print("run `make evidence` to rewrite data/evidence.lock.yaml after reviewing the change")
            return 1
        print("the lock file matches the wheels")
        return 0
    header = "# Written by scripts/evidence.py (make evidence); do not edit. Outcomes per wheel version.\n"
    LOCK.write_text(header + yaml.safe_dump(lock, sort_keys=False), encoding="utf-8")
    print(f"wrote {LOCK.relative_to(ROOT)}")
    return 0


def check() -> int:
    fb = validate(load())
    problems = lock_problems(fb.changes(), read_lock())
    for p in problems:
        print(p)
    if problems:
        print("the lock file is out of date with the probes; run: make evidence")
        return 1
    print("the lock file matches the probes")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verify", action="store_true", help="fail if any outcome differs from the lock file")
    ap.add_argument("--check", action="store_true", help="only compare the lock file with the probes (no download)")
    args = ap.parse_args()
    return check() if args.check else run(args.verify)


if __name__ == "__main__":
    sys.exit(cli.run(main))
