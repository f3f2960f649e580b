"""What the committed wheel locks say of a curated change's ``wheel:`` claims.

In:  one ``schema.WheelClaim``, the wheel version of the change's release and of the release
     before it (``evidence.wheel_of``), the parsed runtime locks (``runtime.Runtime`` per wheel
     version), the parsed deprecation locks (``[deprecations.Deprecation]`` per wheel version) and
     the registry's wheels per release and platform family (``registry.platform_wheels`` of the lock).
Out: ``judge(...) -> Confirmation``: ``ok`` (the locks agree), the two wheels compared, and what
     they show (the deprecation message, the two defaults), for the change page; ``why`` is the
     sentence for a build error when ``ok`` is False. Nothing here reads a wheel.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .runtime import params


@dataclass(frozen=True)
class Confirmation:
    kind: str
    name: str
    ok: bool
    wheel: Optional[str]           # the wheel of the change's release
    before: Optional[str]          # the wheel of the release before it
    shown: str = ""                # the deprecation message, or the new default
    was: str = ""                  # the old default (kind default)
    param: str = ""                # the parameter (kind default)
    why: str = ""                  # what contradicts the claim, when not ok


def _warns(deps: list, name: str, contains: Optional[str]) -> list:
    return [d for d in deps if (d.where == name or d.where.startswith(name + "."))
            and (contains is None or contains in d.message)]


def _default(rt, name: str, param: str) -> Optional[str]:
    row = rt.rows.get(name) if rt else None
    if row is None or not row.signature:
        return None
    return next((d for p, _, d in params(row.signature) if p == param), None)


def _has(platform_wheels: dict, version: str, kind: str, name: str) -> bool:
    fams = platform_wheels.get(version) or {}
    return name in fams if kind == "no_platform" else any(name in row for row in fams.values())


def judge(claim, wheel: Optional[str], before: Optional[str], runtimes: dict, deprecations: dict,
          platform_wheels: Optional[dict] = None) -> Confirmation:
    c = Confirmation
    k, n = claim.kind, claim.name
    if wheel is None:
        return c(k, n, False, wheel, before, why="the release has no read wheel")
    if k in ("no_python", "no_platform"):
        pw = platform_wheels or {}
        what = f"CPython {n}" if k == "no_python" else n
        if wheel not in pw or before not in pw:
            return c(k, n, False, wheel, before, why="the lock holds no registry file list for the wheels compared")
        if _has(pw, wheel, k, n):
            return c(k, n, False, wheel, before, why=f"the registry lists {what} wheels of torch {wheel}")
        if not _has(pw, before, k, n):
            return c(k, n, False, wheel, before, why=f"the registry lists no {what} wheel of torch {before}")
        return c(k, n, True, wheel, before)
    if k in ("warns", "stops_warning"):
        if wheel not in deprecations or (before is not None and before not in deprecations):
            return c(k, n, False, wheel, before, why="no deprecation lock for the wheels compared")
        now = _warns(deprecations[wheel], n, claim.contains)
        then = _warns(deprecations[before], n, claim.contains) if before else []
        if k == "warns":
            if not now:
                return c(k, n, False, wheel, before, why=f"torch {wheel} announces no deprecation at {n}")
            if then:
                return c(k, n, False, wheel, before, why=f"torch {before} already warns at {n}")
            return c(k, n, True, wheel, before, shown=now[0].message)
        if not then or now:
            return c(k, n, False, wheel, before,
                     why=f"torch {wheel} still warns at {n}" if now else f"torch {before} does not warn at {n}")
        return c(k, n, True, wheel, before, shown=then[0].message)
    rt, rt0 = runtimes.get(wheel), runtimes.get(before) if before else None
    if rt is None:
        return c(k, n, False, wheel, before, why=f"no runtime lock for torch {wheel}")
    if k == "default":
        new, old = _default(rt, n, claim.param), _default(rt0, n, claim.param)
        if new != claim.default:
            return c(k, n, False, wheel, before, why=f"torch {wheel} gives {n}({claim.param}={new})")
        if old == new:
            return c(k, n, False, wheel, before, why=f"torch {before} already gives {claim.param}={old}")
        return c(k, n, True, wheel, before, shown=new, was=old or "", param=claim.param)
    resolves = rt.resolves(n)
    if (k == "resolves") != bool(resolves):
        return c(k, n, False, wheel, before, why=f"{n} {'does not resolve' if k == 'resolves' else 'still resolves'} in torch {wheel}")
    return c(k, n, True, wheel, before)
