"""Read what the package index says about the packages installed beside torch, and lock it.

    atlas companions            # read the index, rewrite data/companions.lock.yaml
    atlas companions --verify   # read it again and fail on any difference from the lock (CI)

In:  ``PACKAGES`` (and torch itself, for its release dates).
Out: data/companions.lock.yaml: for every release of every package, the date of its first file
     on the index, whether it is yanked, the tag of every wheel (``cp311-cp311-manylinux_2_28_x86_64``,
     ``py3-none-any``, a stable-ABI ``cp39-abi3-...``; space-separated), whether it has an sdist, and, read from one
     wheel's METADATA, ``Requires-Python`` and each ``Requires-Dist`` line that names torch or
     another companion, verbatim, with the file it came from and that file's sha256. The site
     build reads only the lock, never the network.

The pip client is the only way to the index: its own HTTP session (``PipSession``: its
retries, certificates and user agent) and its default index (``pip --isolated``'s, so a
machine-wide mirror or constraint does not change what is read; no host is named here). Per
package it reads the simple API's JSON page once (PEP 691; PEP 700 gives each file's
``upload-time``), and per release one wheel's METADATA through pip's ``lazy_wheel`` (what
``pip --use-feature=fast-deps`` does: the zip's directory and the one member, by HTTP ranges).
The index this machine reaches serves no PEP 658 METADATA files (``<wheel>.metadata`` answers
404), so ``pip install --dry-run --report`` would download every wheel it reads; the ranges read
a few tens of KB of each instead. ``--verify``
also asks the pip command line (``pip --isolated install --dry-run --no-deps --report``) for one
release of each package and compares what it reports with the lock. Times and bytes are printed.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from email.parser import Parser
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from ..load import DATA, dump
from ..problems import UsageError

LOCK = DATA / "companions.lock.yaml"

#: The packages read (issue 41): those built against one torch, then those that only declare it.
PACKAGES = ("torchvision", "torchaudio", "torchcodec", "xformers", "vllm", "triton", "torchao", "flash-attn",
            "bitsandbytes", "deepspeed", "lightning", "transformers")
#: torch is read for its release dates and wheel tags only.
TORCH = "torch"
#: Requires-Dist lines kept: those naming torch or a companion (vllm pins torchvision and torchaudio too).
NAMED = {TORCH, *PACKAGES}
NET_TIMEOUT = 60
WORKERS = 8                 # network-bound requests in flight; the CPU work is parsing small files
ACCEPT = {"Accept": "application/vnd.pypi.simple.v1+json"}


def _session():
    from pip._internal.models.index import PyPI
    from pip._internal.network.session import PipSession

    return PipSession(retries=3), PyPI.simple_url.rstrip("/")


class Reader:
    """One pip session, counting requests and bytes (as received, after decompression)."""

    def __init__(self) -> None:
        self.session, self.index = _session()
        self.requests = 0
        self.bytes = 0
        self.session.hooks["response"].append(self._count)

    def _count(self, r, *args, **kwargs) -> None:
        """Every request; the bytes of every ranged read (a HEAD's length is the whole file's)."""
        self.requests += 1
        if r.request.method == "GET" and r.status_code == 206:
            self.bytes += int(r.headers.get("Content-Length", 0))

    def get(self, url: str, headers: dict | None = None) -> bytes:
        try:
            r = self.session.get(url, headers=headers or {}, timeout=NET_TIMEOUT)
            r.raise_for_status()
        except Exception as exc:        # any network or HTTP failure is one message, never a traceback
            raise UsageError(f"pip's session could not read {url} ({exc}); check the network to the index") from None
        self.bytes += len(r.content)
        return r.content

    def page(self, name: str) -> dict:
        return json.loads(self.get(f"{self.index}/{name}/", ACCEPT))


def _version_of(filename: str) -> tuple[str, str | None]:
    """(version, wheel tag or None for an sdist) of a file name; ('', None) when it is neither."""
    try:
        if filename.endswith(".whl"):
            v = parse_wheel_filename(filename)[1]
            return str(v), "-".join(filename[:-len(".whl")].split("-")[-3:])
        return str(parse_sdist_filename(filename)[1]), None
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return "", None


def _preference(f: dict) -> tuple:
    """Which wheel's METADATA to read: CPython 3.11 on Linux x86-64 (the site's wheel), then any
    Linux x86-64, a pure-Python wheel, any other."""
    name = f["filename"]
    return ("cp311" not in name, "x86_64" not in name or "linux" not in name,
            "py3-none-any" not in name, name)


def _requires(meta) -> list[str]:
    out = []
    for line in meta.get_all("Requires-Dist") or []:
        try:
            name = canonicalize_name(Requirement(line).name)
        except InvalidRequirement:
            continue
        if name in NAMED:
            out.append(line.strip())
    return out


#: What a package's own code says about the torch it needs, read from the wheel when its METADATA
#: cannot say it: torchao's ``min_torch_version`` in ``torchao/__init__.py``.
CODE_SIGNALS = {"torchao": ("torchao/__init__.py", re.compile(r"^.*min_torch_version\s*=.*$", re.M))}


def _libraries(names: list[str]) -> list[str]:
    """The extension libraries the package itself ships (``torchvision/_C.so``), not the
    vendored ones auditwheel puts in ``<pkg>.libs/``."""
    libs = [n for n in names if re.search(r"\.(so|pyd)(\.[\d.]+)?$", n) and ".libs/" not in n
            and not n.startswith(("nvidia/", "triton/backends/"))]
    return sorted(libs)[:40]


def read_wheel(reader: Reader, f: dict) -> dict:
    """From one wheel, read as pip's ``fast-deps`` reads it (``lazy_wheel``: the zip's directory
    and single members, by HTTP ranges, never the whole file): its METADATA, the extension
    libraries it ships, and the line of its code that ``CODE_SIGNALS`` names."""
    import zipfile

    from pip._internal.network.lazy_wheel import LazyZipOverHTTP

    url = f["url"].split("#", 1)[0]
    package = canonicalize_name(f["filename"].split("-", 1)[0])
    try:
        with LazyZipOverHTTP(url, reader.session) as lazy:
            z = zipfile.ZipFile(lazy)
            names = z.namelist()
            meta_name = next(n for n in names if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
            text = z.read(meta_name).decode("utf-8", "replace")
            code = None
            if package in CODE_SIGNALS and CODE_SIGNALS[package][0] in names:
                member, pattern = CODE_SIGNALS[package]
                found = pattern.search(z.read(member).decode("utf-8", "replace"))
                code = {"file": member, "line": found.group(0).strip()} if found else {"file": member, "line": None}
    except Exception as exc:        # a wheel the lazy reader cannot open is recorded, never a crash
        return {"file": f["filename"], "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    meta = Parser().parsestr(text)
    out = {"file": f["filename"], "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
           "requires_python": meta.get("Requires-Python", "") or "", "requires_dist": _requires(meta),
           "libraries": _libraries(names)}
    if code is not None:
        out["code"] = code
    return out


def releases(page: dict, with_metadata: bool) -> dict[str, dict]:
    """Group the page's files by version: first upload date, yanked, wheel tags, sdist, and the
    wheel whose METADATA to read (``_pick``)."""
    by: dict[str, list[dict]] = {}
    for f in page["files"]:
        v, _ = _version_of(f["filename"])
        if v:
            by.setdefault(v, []).append(f)
    out = {}
    for v in sorted(by, key=Version):
        files = by[v]
        tags = sorted({t for t in (_version_of(f["filename"])[1] for f in files) if t})
        wheels = [f for f in files if f["filename"].endswith(".whl")]
        pick = min(wheels, key=_preference) if with_metadata and wheels else None
        out[v] = {
            "uploaded": min(f.get("upload-time", "") for f in files)[:10] or None,
            "yanked": all(bool(f.get("yanked")) for f in files),
            "sdist": any(not f["filename"].endswith(".whl") for f in files),
            "tags": " ".join(tags),      # one string: a thousand releases of lists cost the build a second to parse
            "_pick": pick,
        }
    return out


def read_all() -> tuple[dict, dict]:
    """(packages, stats): every package's releases, and what reading them cost."""
    reader = Reader()
    t0 = time.perf_counter()
    pages = {}
    with ThreadPoolExecutor(WORKERS) as pool:
        for name, page in zip((TORCH, *PACKAGES), pool.map(reader.page, (TORCH, *PACKAGES))):
            pages[name] = page
    t1, b1 = time.perf_counter(), reader.bytes
    packages = {name: releases(pages[name], with_metadata=name != TORCH) for name in (TORCH, *PACKAGES)}
    jobs = [(name, v, row["_pick"]) for name, rows in packages.items() for v, row in rows.items() if row["_pick"]]
    with ThreadPoolExecutor(WORKERS) as pool:
        metas = list(pool.map(lambda j: read_wheel(reader, j[2]), jobs))
    for (name, v, _), meta in zip(jobs, metas):
        packages[name][v]["metadata"] = meta
    for rows in packages.values():
        for row in rows.values():
            row.pop("_pick")
            row.setdefault("metadata", None)
    t2 = time.perf_counter()
    stats = {"pages": len(pages), "page_bytes": b1, "page_seconds": round(t1 - t0, 1),
             "metadata_files": len(jobs), "metadata_bytes": reader.bytes - b1, "metadata_seconds": round(t2 - t1, 1),
             "requests": reader.requests}
    return packages, stats


def _pip_version() -> str:
    from pip import __version__

    return __version__


def lock_of(packages: dict, stats: dict, index: str) -> dict:
    return {
        "read": {"by": f"pip {_pip_version()} (its session and default index)", "index": index,
                 "date": dt.datetime.now(dt.UTC).date().isoformat(), **stats},
        "packages": {name: {"releases": rows} for name, rows in packages.items()},
    }


def cross_check(packages: dict) -> list[str]:
    """Ask the pip command line (its resolver, which downloads the wheel when the index serves no
    METADATA file) for the newest release with METADATA of each package; a Requires-Dist line it reports and the lock lacks is a problem."""
    problems = []
    for name in PACKAGES:
        rows = packages.get(name) or {}
        v = next((v for v in reversed(list(rows)) if rows[v].get("metadata")), None)
        if v is None:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "report.json"
            cmd = [sys.executable, "-m", "pip", "--isolated", "install", "--dry-run", "--no-deps", "--ignore-installed",
                   "--only-binary=:all:", "--quiet", "--report", str(report), f"{name}=={v}"]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                                  env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
            if done.returncode != 0:
                print(f"pip --dry-run {name}=={v}: not installable on this machine, not compared")
                continue
            got = json.loads(report.read_text(encoding="utf-8"))["install"][0]["metadata"].get("requires_dist") or []
        wanted = set(rows[v]["metadata"]["requires_dist"])
        seen = {line.strip() for line in got if line.strip() in wanted or _named(line)}
        if seen != wanted:
            problems.append(f"{name} {v}: pip reports {sorted(seen)}, the lock has {sorted(wanted)}")
        else:
            print(f"pip --dry-run {name}=={v}: the same Requires-Dist lines as the lock")
    return problems


def _named(line: str) -> bool:
    try:
        return canonicalize_name(Requirement(line).name) in NAMED
    except InvalidRequirement:
        return False


HEADER = ("# Written by `atlas companions` (make companions); do not edit. What the package index says about\n"
          "# torch and the packages built against it: per release the first upload date, yanked, wheel tags,\n"
          "# sdist, and from one wheel's METADATA (ranged reads) Requires-Python and the Requires-Dist lines that\n"
          "# name torch or a companion, verbatim. data/companions.yaml adds what the metadata cannot say.\n")


def run(verify: bool) -> int:
    from ..load import load

    t0 = time.perf_counter()
    packages, stats = read_all()
    index = _session()[1]
    lock = lock_of(packages, stats, index)
    n = sum(len(r) for name, r in packages.items() if name != TORCH)
    print(f"read {n} releases of {len(PACKAGES)} packages and {len(packages[TORCH])} of torch: "
          f"{stats['pages']} index pages ({stats['page_bytes'] / 1e6:.2f} MB, {stats['page_seconds']} s), "
          f"{stats['metadata_files']} METADATA files ({stats['metadata_bytes'] / 1e6:.2f} MB, "
          f"{stats['metadata_seconds']} s), {stats['requests']} requests")
    if verify:
        problems = cross_check(packages)
        old = (load().companions_lock[1] or {}).get("packages") or {}
        for name in (TORCH, *PACKAGES):
            for v in sorted(set(old.get(name, {}).get("releases", {})) | set(packages[name]), key=Version):
                a = old.get(name, {}).get("releases", {}).get(v)
                b = packages[name].get(v)
                if a != b:
                    problems.append(f"{name} {v}: lock {a} -> index {b}")
        for p in problems:
            print(p)
        if problems:
            print("run `make companions` to rewrite data/companions.lock.yaml after reviewing the change")
            return 1
        print("data/companions.lock.yaml matches the index")
        return 0
    LOCK.write_text(HEADER + dump(lock, sort_keys=False, allow_unicode=True, width=200), encoding="utf-8")
    print(f"wrote {LOCK.name}: {LOCK.stat().st_size / 1e6:.2f} MB in {time.perf_counter() - t0:.1f} s")
    return 0
