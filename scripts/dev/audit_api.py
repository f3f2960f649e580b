"""Audit the published API-diff claims against the real, installed torch releases.

    python scripts/dev/audit_api.py draw OUT.tsv [--seed N] [--per-kind N]
    python scripts/dev/audit_api.py judge SAMPLE.tsv JUDGE_DIR

``draw`` runs today's pipeline, collects every removed, moved, no-longer-public and changed
claim of the 120 upgrade pages (one claim: kind, pair, name, and what it says), and writes a
stratified random sample (the same number per kind, a fixed seed).

``judge`` reads the verdicts of an independent resolver (``judge-<version>.json``: for every
name, ``pkgutil.resolve_name`` in a venv with that release installed, the module's ``__all__``
and ``inspect.signature``; written by the throwaway-venv run, see BENCHMARKS.md) and says per
claim whether the installed releases agree. It is a second mechanism, not the runtime lock the
new diff is computed from, so it can disagree with it.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

KINDS = ("removed", "moved", "no_longer_public", "changed", "default_changed")


def claims() -> list[dict]:
    from atlas.enrich import enrich
    from atlas.load import load
    from atlas.validate import validate

    atlas = enrich(validate(load()))
    out = []
    for up in atlas.upgrades:
        d = up.api_diff
        if not d:
            continue
        for g in d["groups"]:
            for kind in KINDS:
                for e in g.get(kind, []):
                    out.append({"kind": kind, "from": d["old_wheel"], "to": d["new_wheel"], "name": e["name"],
                                "to_name": e.get("to", ""), "first_without": e.get("first_without", "")})
    return out


def draw(path: Path, seed: int, per_kind: int) -> None:
    every = claims()
    rng = random.Random(seed)
    rows = []
    for kind in KINDS:
        pool = [c for c in every if c["kind"] == kind]
        print(f"{kind}: {len(pool)} claims over the 120 pairs", file=sys.stderr)
        rows += rng.sample(pool, min(per_kind, len(pool)))
    cols = ("kind", "from", "to", "name", "to_name", "first_without")
    path.write_text("\t".join(cols) + "\n" + "".join("\t".join(r[c] for c in cols) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} claims to {path}", file=sys.stderr)


def _params(sig: str | None) -> dict[str, str]:
    """{parameter: default or ''} of an ``inspect.signature`` string, annotations dropped."""
    if not sig:
        return {}
    sig, depth, end = sig.strip(), 0, 0
    for pos, ch in enumerate(sig):    # the parameter list ends at its own closing parenthesis, not at
        depth += ch in "([{"            # the last one of a return annotation such as List[ForwardRef('Node')]
        depth -= ch in ")]}"
        if depth == 0:
            end = pos
            break
    body = sig[1:end]
    out, depth, cur = {}, 0, ""
    for ch in body + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            p = cur.strip()
            cur = ""
            if not p or p in ("/", "*"):
                continue
            name, _, default = p.partition("=")
            out[name.split(":")[0].strip()] = default.strip()
        else:
            cur += ch
    return out


def verdict(c: dict, judge: dict[str, dict]) -> tuple[bool, str]:
    a, b = judge[c["from"]].get(c["name"]), judge[c["to"]].get(c["name"])
    if a is None or b is None:
        return False, "name not judged"
    if not a["ok"]:
        return False, f"does not resolve in {c['from']} ({a.get('err')})"
    public_a = a.get("in_all") is not False
    if c["kind"] == "removed":
        return (not b["ok"], "resolves in the newer release" if b["ok"] else "gone")
    if c["kind"] == "moved":
        if b["ok"]:
            return False, "the old path still resolves"
        t = judge[c["to"]].get(c["to_name"]) or {}
        return (t.get("ok") and t.get("id") == a.get("id"), f"target {t.get('id')} vs {a.get('id')}")
    if c["kind"] == "no_longer_public":
        if not b["ok"]:
            return False, "does not resolve at all"
        return (public_a and b.get("in_all") is False) or bool(re.search(r"(^|\.)_", b.get("module") or "")) and not re.search(
            r"(^|\.)_", a.get("module") or ""), f"in __all__: {a.get('in_all')} -> {b.get('in_all')}"
    pa, pb = _params(a.get("sig")), _params(b.get("sig"))
    if not b["ok"] or a.get("sig") is None or b.get("sig") is None:
        return False, "no signature to compare"
    if c["kind"] == "changed":
        kinds = [p.strip() for p in ("/", "*")]
        moved_kind = any((k in (a["sig"] or "")) != (k in (b["sig"] or "")) for k in kinds)   # positional-only or keyword-only
        return (set(pa) != set(pb) or list(pa) != list(pb) or moved_kind
                or any((pa[k] == "") != (pb[k] == "") for k in pa if k in pb)), f"{a['sig']} -> {b['sig']}"
    return (set(pa) == set(pb) and pa != pb), f"{a['sig']} -> {b['sig']}"


def judge_sample(sample: Path, judge_dir: Path) -> int:
    lines = sample.read_text(encoding="utf-8").splitlines()
    cols = lines[0].split("\t")
    rows = [dict(zip(cols, ln.split("\t"))) for ln in lines[1:] if ln]
    judge = {}
    for r in rows:
        for v in (r["from"], r["to"]):
            if v not in judge:
                judge[v] = json.loads((judge_dir / f"judge-{v}.json").read_text(encoding="utf-8"))
    tally: dict[str, list[int]] = {}
    for r in rows:
        ok, why = verdict(r, judge)
        tally.setdefault(r["kind"], [0, 0])[0 if ok else 1] += 1
        print(f"{'TRUE ' if ok else 'FALSE'}\t{r['kind']}\t{r['from']}->{r['to']}\t{r['name']}\t{r['to_name']}\t{why}")
    total = [sum(t[0] for t in tally.values()), sum(t[1] for t in tally.values())]
    for k, (t, f) in tally.items():
        print(f"# {k}: {t} of {t + f} true ({100 * t / (t + f):.0f}%)")
    print(f"# all: {total[0]} of {sum(total)} true ({100 * total[0] / max(1, sum(total)):.1f}%)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw")
    d.add_argument("out", type=Path)
    d.add_argument("--seed", type=int, default=25)
    d.add_argument("--per-kind", type=int, default=30)
    j = sub.add_parser("judge")
    j.add_argument("sample", type=Path)
    j.add_argument("judge_dir", type=Path)
    a = ap.parse_args()
    if a.cmd == "draw":
        draw(a.out, a.seed, a.per_kind)
        return 0
    return judge_sample(a.sample, a.judge_dir)


if __name__ == "__main__":
    sys.exit(main())
