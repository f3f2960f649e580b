"""The ``weights_only`` allow-lists of the releases (issue 28): ``data/evidence/weights-only-<v>.txt``.

In:  the files ``scripts/dev/make_checkpoints.py`` writes from each installed release: ``#`` header
     lines (``# key: value``: default-weights-only, add-safe-globals, safe-globals-context,
     blocklisted-modules, writes, opcodes), then one fully-qualified global a line.
Out: ``read_weights_only(version)`` -> ``WeightsOnly`` or None; ``weights_only_table(wheels)``: the
     compact table the checker's rules carry, ``{release: {"wheel", "add", "drop", "opcodes_add",
     "opcodes_drop", "default_weights_only", "add_safe_globals", "safe_globals", "blocked_modules",
     "writes"}}``, each release's lists given as what it adds to and drops from the release before.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..load import DATA

EVIDENCE = DATA / "evidence"


@dataclass
class WeightsOnly:
    version: str
    head: dict[str, str]
    allowed: list[str] = field(default_factory=list)

    def flag(self, key: str) -> bool:
        return self.head.get(key) == "True"

    def words(self, key: str) -> list[str]:
        return sorted(self.head.get(key, "").split())


def parse_weights_only(version: str, text: str) -> WeightsOnly:
    head, names = {}, []
    for line in text.splitlines():
        if line.startswith("# ") and ": " in line:
            k, _, v = line[2:].partition(": ")
            head[k.strip()] = v.strip()
        elif line.strip() and not line.startswith("#"):
            names.append(line.strip())
    return WeightsOnly(version, head, sorted(set(names)))


def read_weights_only(version: str) -> Optional[WeightsOnly]:
    path = EVIDENCE / f"weights-only-{version}.txt"
    return parse_weights_only(version, path.read_text(encoding="utf-8")) if path.exists() else None


def weights_only_table(wheels: dict[str, Optional[str]]) -> dict[str, dict]:
    """``wheels``: release -> wheel version, oldest first. Releases without evidence are left out."""
    out: dict[str, dict] = {}
    allowed: set[str] = set()
    opcodes: set[str] = set()
    for rel, wheel in wheels.items():
        w = read_weights_only(wheel) if wheel else None
        if w is None:
            continue
        now, ops = set(w.allowed), set(w.words("opcodes"))
        out[rel] = {"wheel": wheel, "add": sorted(now - allowed), "drop": sorted(allowed - now),
                    "opcodes_add": sorted(ops - opcodes), "opcodes_drop": sorted(opcodes - ops),
                    "default_weights_only": w.flag("default-weights-only"), "add_safe_globals": w.flag("add-safe-globals"),
                    "safe_globals": w.flag("safe-globals-context"), "blocked_modules": w.words("blocklisted-modules"),
                    "writes": w.words("writes")}
        allowed, opcodes = now, ops
    return out
