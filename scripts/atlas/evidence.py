"""Evidence from the released wheels: evaluate probes and read the lock file.

In:  ``Probe``s (schema.py) and wheel files (zip archives; nothing is installed or imported).
Out: ``evaluate(probe, wheel) -> bool`` and the lock file ``data/evidence.lock.yaml``, which
     records each wheel's file name, size and sha256 and each probe's observed outcome. The
     site build reads only the lock file and never downloads; ``scripts/evidence.py``
     writes it and ``tests/test_evidence.py`` fails when it no longer matches the probes.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import zipfile
from email.parser import Parser
from pathlib import Path

import yaml

from .load import DATA
from .schema import Probe, Wheels

LOCK = DATA / "evidence.lock.yaml"


def read_wheels() -> Wheels:
    """data/wheels.yaml: which torch wheels the probes are checked against."""
    return Wheels.model_validate(yaml.safe_load((DATA / "wheels.yaml").read_text(encoding="utf-8")))


def probe_id(change_id: str, index: int) -> str:
    return f"{change_id}.probe.{index}"


def probe_hash(p: Probe) -> str:
    """Identifies a probe's definition; the lock is stale when it changes."""
    body = json.dumps(p.model_dump(), sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:12]


class Wheel:
    """A wheel opened once; METADATA parsed lazily, members read on demand."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.zip = zipfile.ZipFile(self.path)
        self.names = self.zip.namelist()
        self._meta = None
        self._members: dict[str, bytes] = {}

    def read(self, name: str) -> bytes:
        """A member's bytes, read once: several probes may grep the same 500 MB library."""
        if name not in self._members:
            self._members[name] = self.zip.read(name)
        return self._members[name]

    @property
    def metadata(self):
        if self._meta is None:
            name = next(n for n in self.names if n.endswith(".dist-info/METADATA"))
            self._meta = Parser().parsestr(self.zip.read(name).decode("utf-8"))
        return self._meta


def entry_points(wheel: Wheel) -> dict[str, dict[str, str]]:
    """entry_points.txt as {group: {name: "module:attr"}}."""
    import configparser

    name = next((n for n in wheel.names if n.endswith(".dist-info/entry_points.txt")), None)
    if name is None:
        return {}
    cp = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    cp.optionxform = str
    cp.read_string(wheel.zip.read(name).decode("utf-8"))
    return {g: dict(cp[g]) for g in cp.sections()}


def evaluate(p: Probe, wheel: Wheel) -> bool:
    if p.entry_point is not None:
        group, name = p.entry_point.split(":", 1)
        target = entry_points(wheel).get(group, {}).get(name)
        if target is None:
            return False
        module = target.split(":", 1)[0].strip().replace(".", "/")
        return f"{module}.py" in wheel.names or f"{module}/__init__.py" in wheel.names
    if p.metadata is not None:
        return any(p.contains in v for v in wheel.metadata.get_all(p.metadata) or [])
    matches = [n for n in wheel.names if fnmatch.fnmatchcase(n, p.file)]
    if p.contains is None:
        return bool(matches)
    needle = p.contains.encode("utf-8")
    return any(needle in wheel.read(n) for n in matches)


def status_of(p: Probe, observed: dict[str, bool]) -> str:
    return "confirmed" if all(observed.get(v) == want for v, want in p.expect.items()) else "contradicted"


def read_lock(path: Path = LOCK) -> dict:
    if not path.exists():
        return {"wheels": {}, "probes": {}}
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {"wheels": {}, "probes": {}}


def lock_problems(changes, lock: dict) -> list[str]:
    """Why the lock file does not describe the current probes (empty when it does)."""
    out, seen = [], set()
    for c in changes:
        for i, p in enumerate(c.probes):
            pid = probe_id(c.id, i)
            seen.add(pid)
            entry = lock.get("probes", {}).get(pid)
            if entry is None:
                out.append(f"{pid}: not in the lock file")
            elif entry.get("hash") != probe_hash(p):
                out.append(f"{pid}: the probe changed since the lock file was written")
            elif set(entry.get("observed", {})) != set(p.expect):
                out.append(f"{pid}: observed versions differ from the probe's")
    for pid in set(lock.get("probes", {})) - seen:
        out.append(f"{pid}: in the lock file but no longer a probe")
    return out
