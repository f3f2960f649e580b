"""The checker's machine-readable fixes (``atlas_check.py code --fix``), attached to its rules.

In:  the rules ``rules._Builder`` made, the changes' ``rewrite:`` blocks (schema ``Rewrite``) and
     the runtime locks (``data/evidence/runtime-<v>.txt``: what each installed release resolves and
     which keywords its callables take).
Out: ``attach(builder)``: each rule whose target is a rewrite's ``old`` (or a path of the same
     object) gets ``rewrites: {target: spec}``. ``spec["safe_in"]`` maps each name the fix may write
     to the releases where it resolves, ``spec["accepts"]`` each keyword it may add to the releases
     whose ``new`` takes it: the checker applies a fix only when every release of the upgrade window
     is in both for what that edit writes. A moved module brings every name under its new path that
     any lock knows, so ``from old.x import y`` is judged on ``new.x.y`` itself; a name no lock
     knows, or a keyword of a callable with no signature there, is never proven, so never applied.
"""
from __future__ import annotations

import re

#: a keyword the fix writes: ``use_device="cuda"`` -> use_device
_KW = re.compile(r"^\s*([A-Za-z_]\w*)\s*=")


def _keywords(texts: list[str], rw) -> set[str]:
    """Every keyword a use of the new name will pass after the fix."""
    out = set(rw.positional) if isinstance(rw.positional, list) else set()
    for t in texts + [act.text or "" for m in rw.map.values() for act in m.values.values()]:
        k = _KW.match(t)
        if k:
            out.add(k.group(1))
    return out


def _suffixes(rw) -> list[str]:
    """An attribute a fix appends to the call's result (``.mH``), as the tensor attribute it reads."""
    return sorted({"torch.Tensor" + a.suffix for m in rw.map.values() for a in m.values.values()
                   if a.suffix and a.suffix.startswith(".")})


def _names(b, new: str) -> list[str]:
    """``new``, and when it is a module: every name under it that any lock knows."""
    out = {new}
    if any(rt.rows.get(new) is not None and rt.rows[new].kind == "module" for rt in b.runtimes.values()):
        for rt in b.runtimes.values():
            out.update(n for n in rt.rows if n.startswith(new + "."))
    return sorted(out)


def spec(b, c, i: int, rw) -> tuple[str, dict] | None:
    """(old, the JSON the engines read) for one rewrite, or None (a problem is recorded)."""
    where = f"rewrite.{i}"
    old = b.resolve_ref(c, rw.old, f"{where}.old")
    new = b.resolve_ref(c, rw.new, f"{where}.new")
    if old is None or new is None:
        return None
    texts = [b.resolve_ref(c, k, f"{where}.keywords.{j}") for j, k in enumerate(rw.keywords)]
    if None in texts:
        return None
    bad = [t for t in texts if not _KW.match(t)]
    if bad:
        b.problems.append(f"{b.fb.release_files[b.release_of[c.id].version]}: {c.id}: {where}.keywords: "
                          f"{bad[0]!r} is not name=value")
        return None
    if rw.choice and rw.choice not in b.fb.ui.get("en", {}):
        b.problems.append(f"{b.fb.release_files[b.release_of[c.id].version]}: {c.id}: {where}.choice: no UI string "
                          f"'{rw.choice}' in data/i18n/en.yaml")
        return None
    kws = _keywords(texts, rw)
    out = {"new": new, "args": list(rw.args), "keywords": texts,
           "map": {b.resolve_ref(c, k, f"{where}.map"): {"position": m.position, "values": {v: a.model_dump(exclude_defaults=True) for v, a in m.values.items()}}
                   for k, m in rw.map.items()},
           "positional": list(rw.positional) if isinstance(rw.positional, list) else rw.positional, "bare": rw.bare, "apply": rw.apply, "choice": rw.choice,
           "safe_in": {n: [v for v in b.runtimes if b.resolves(n, v) is True] for n in _names(b, new) + _suffixes(rw)},
           "accepts": {k: [v for v in b.runtimes if b.accepts(new, k, v) is True] for k in sorted(kws)}}
    return old, out


def attach(b) -> None:
    """Give each rule of a change with ``rewrite:`` blocks the fixes of its targets."""
    for r in b.fb.releases:
        for c in r.changes:
            for i, rw in enumerate(c.rewrite):
                got = spec(b, c, i, rw)
                if got is None:
                    continue
                old, js = got
                same = {old} | {a for v in b.runtimes for a in b.aliases(old, v)}
                hit = False
                for rule in b.rules:
                    if rule["change"] != c.id:
                        continue
                    for t in rule.get("targets") or [rule.get("target")]:
                        if t in same:
                            rule.setdefault("rewrites", {})[t] = js
                            hit = True
                if not hit and not any(d["id"].startswith(c.id + "/") for d in b.dropped):   # not a contradicted rule
                    b.problems.append(f"{b.fb.release_files[r.version]}: {c.id}: rewrite.{i}.old: "
                                      f"{old} is the target of none of the change's rules")
