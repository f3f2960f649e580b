"""``atlas build``: build the site safely, into a temporary directory, then swap it into place.

In:  the repository (data/, docs/, mkdocs.yml).
Out: ``site/`` (or ``--site-dir``), replaced only when ``mkdocs build --strict``
     succeeded. A build that fails (bad data, a strict warning, an error in MkDocs) or is
     stopped (SIGTERM from ``timeout``, SIGHUP, Ctrl-C) leaves the previous site untouched and
     removes what it made: its temporary ``.site-<pid>-*`` folder and the generated pages it
     wrote under ``docs/<lang>/`` (``generated.remove_since``). A build killed outright (SIGKILL)
     cannot clean up; the next build removes the ``.site-<pid>-*`` folders of builds that are no
     longer running, and rewrites the generated pages.

Honours SOURCE_DATE_EPOCH (defaults to the last commit time) so that the
sitemap and any build date are reproducible.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from . import generated
from .load import ROOT

#: the temporary folder of a build: ``.site-<pid of atlas build>-<random>``, beside the site
TMP_PREFIX = ".site-"
_TMP = re.compile(rf"^{re.escape(TMP_PREFIX)}(\d+)-")
#: signals that stop a build and let it clean up first
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def source_date_epoch() -> str:
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return os.environ["SOURCE_DATE_EPOCH"]
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=True)
        return out.stdout.strip() or "0"
    except (OSError, subprocess.CalledProcessError):
        return "0"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(parent: Path) -> list[Path]:
    """Remove the temporary folders left in ``parent`` by builds that were killed (their process
    is gone); a folder of a build still running is left alone. Returns the folders removed."""
    gone = [p for p in parent.glob(f"{TMP_PREFIX}*")
            if p.is_dir() and (m := _TMP.match(p.name)) and int(m.group(1)) != os.getpid() and not _running(int(m.group(1)))]
    for p in gone:
        shutil.rmtree(p, ignore_errors=True)
    return gone


def _stop(signum, frame):
    raise SystemExit(128 + signum)   # runs build()'s cleanup, then exits as the signal would


def build(site_dir: Path, config: Path = ROOT / "mkdocs.yml", extra_env: dict | None = None) -> int:
    site_dir, config = Path(site_dir).resolve(), Path(config).resolve()
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    sweep(site_dir.parent)
    docs = config.parent / "docs"   # mkdocs.yml's docs_dir
    before = generated.snapshot(docs)
    env = {**os.environ, "SOURCE_DATE_EPOCH": source_date_epoch(), "DISABLE_MKDOCS_2_WARNING": "true", **(extra_env or {})}
    tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-", dir=site_dir.parent))
    # signal handlers belong to the main thread; a build run from another thread cleans up on failure only
    main = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.signal(s, _stop) for s in STOP_SIGNALS} if main else {}
    proc, returncode = None, -1
    try:
        proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                                 "--site-dir", str(tmp)], cwd=config.parent, env=env)
        returncode = proc.wait()
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
        if proc is not None and proc.poll() is None:   # stopped by a signal: stop MkDocs too
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            removed = generated.remove_since(docs, before)
            print(f"build failed; {site_dir} was left as it was"
                  + (f", and the {removed} generated page(s) it wrote were removed" if removed else ""), file=sys.stderr)
    if returncode != 0:
        return returncode
    old = site_dir.with_name(site_dir.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if site_dir.exists():
        site_dir.rename(old)
    tmp.rename(site_dir)
    shutil.rmtree(old, ignore_errors=True)
    print(f"site built in {site_dir}")
    return 0
