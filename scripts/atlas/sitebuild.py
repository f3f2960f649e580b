"""``atlas build``: build the site safely, into a temporary directory, then swap it into place.

In:  the repository (data/, docs/, mkdocs.yml).
Out: ``site/`` (or ``--site-dir``), replaced only when ``mkdocs build --strict``
     succeeded. A bad data file stops the build with the validator's errors and
     leaves the previous site untouched.

Honours SOURCE_DATE_EPOCH (defaults to the last commit time) so that the
sitemap and any build date are reproducible.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .load import ROOT


def source_date_epoch() -> str:
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return os.environ["SOURCE_DATE_EPOCH"]
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=True)
        return out.stdout.strip() or "0"
    except (OSError, subprocess.CalledProcessError):
        return "0"


def build(site_dir: Path, config: Path = ROOT / "mkdocs.yml", extra_env: dict | None = None) -> int:
    site_dir, config = Path(site_dir).resolve(), Path(config).resolve()
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".site-", dir=site_dir.parent))
    env = {**os.environ, "SOURCE_DATE_EPOCH": source_date_epoch(), "DISABLE_MKDOCS_2_WARNING": "true", **(extra_env or {})}
    try:
        proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                               "--site-dir", str(tmp)], cwd=config.parent, env=env)
    except KeyboardInterrupt:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"build failed; {site_dir} was left as it was", file=sys.stderr)
        return proc.returncode
    old = site_dir.with_name(site_dir.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if site_dir.exists():
        site_dir.rename(old)
    tmp.rename(site_dir)
    shutil.rmtree(old, ignore_errors=True)
    print(f"site built in {site_dir}")
    return 0
