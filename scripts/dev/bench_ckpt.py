"""The figures of ``atlas_check.py ckpt`` (issue 28) for BENCHMARKS.md; prints Markdown.

  .venv/bin/python scripts/dev/bench_ckpt.py --big /tmp/big.pt    # the big file: make_checkpoints.py --big

In:  checker/rules.json, data/evidence/weights-only-<v>.txt, tests/fixtures/ckpt/ (and its
     manifest.json), a large checkpoint. Out: Markdown on stdout: the allow-list size of each
     release, the checker's verdicts against the ground truth per fixture kind and release, and the
     time of ``ckpt`` on the large file and on a small one (median of --runs CLI runs, and the reader
     alone in this process). Nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from atlas import atlas_check as ac

ROOT = Path(__file__).resolve().parents[2]

FIXTURES = ROOT / "tests" / "fixtures" / "ckpt"
RULES = ROOT / "checker" / "rules.json"


def cli_seconds(path: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(Path(ac.__file__)), "--rules", str(RULES), "ckpt", str(path)],
                       capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def read_seconds(path: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        ac.read_checkpoint(path)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--big", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    rules = json.loads(RULES.read_text(encoding="utf-8"))
    table = ac.ckpt_releases(rules)
    manifest = json.loads((FIXTURES / "manifest.json").read_text(encoding="utf-8"))
    print("| release | allowed globals | default weights_only | add_safe_globals | safe_globals context |")
    print("| --- | ---: | --- | --- | --- |")
    for t in table.values():
        print(f"| {t['wheel']} | {len(t['allowed'])} | {t['default_weights_only']} | {t['add_safe_globals']} | {t['safe_globals']} |")
    by_wheel = {t["wheel"]: rel for rel, t in table.items()}
    rows: dict[str, dict[str, list[int]]] = {}   # kind -> wheel -> [right, compared, loads_wo]
    for name, loads in manifest["loads"].items():
        kind = manifest["fixtures"][name]["kind"]
        info = ac.read_checkpoint(FIXTURES / name)
        for wheel, truth in loads.items():
            v = ac.ckpt_verdict(info, by_wheel[wheel], table[by_wheel[wheel]])
            said_wo = v["weights_only"]["loads"] and v["verdict"] != "not-loadable"
            right = said_wo == truth["weights_only"]["ok"] and (v["verdict"] == "loads") == truth["default"]["ok"]
            cell = rows.setdefault(kind, {}).setdefault(wheel, [0, 0, 0])
            cell[0] += right
            cell[1] += 1
            cell[2] += truth["weights_only"]["ok"]
    wheels = [t["wheel"] for t in table.values()]
    print("\nVerdicts right / fixtures compared (weights_only=True and the defaults both right), per release that loaded them:\n")
    print("| fixture kind | " + " | ".join(wheels) + " |")
    print("| --- | " + " | ".join("---:" for _ in wheels) + " |")
    total = [0, 0]
    for kind in sorted(rows):
        cells = []
        for w in wheels:
            c = rows[kind].get(w)
            cells.append(f"{c[0]}/{c[1]}" if c else "-")
            if c:
                total[0] += c[0]
                total[1] += c[1]
        print(f"| {kind} | " + " | ".join(cells) + " |")
    print(f"\nIn all: {total[0]} of {total[1]} verdicts right.\n")
    small = FIXTURES / "state_dict-2.15.0.pt"
    print("| file | size | `ckpt` CLI (median) | reader alone (median) |")
    print("| --- | ---: | ---: | ---: |")
    for p in (small, a.big):
        print(f"| {p.name} | {os.path.getsize(p):,} bytes | {cli_seconds(p, a.runs) * 1000:.0f} ms | "
              f"{read_seconds(p, a.runs) * 1000:.2f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
