"""What the proof locks say of a curated change's ``proof:`` (its snippets run in every release).

In:  one ``schema.Proof``, the change's release, the wheel versions oldest first, and the parsed
     proof locks ``{wheel version: parse_lock(text)}`` that ``atlas prove`` wrote
     (``data/evidence/proofs-<v>.json``: each snippet's outcome in that release installed).
Out: ``proof_code(change)`` and ``snippets(change)``: what ``atlas prove`` runs (the page's own
     code where it can), each with the hash its outcome is kept under; ``judge(...) -> ProofVerdict``: ``ok`` when the locks agree with every claim (the
     release whose code first shows the symptom, the symptom's text and whether Python's default
     filters show it: the change's release shows it and the one before does not; and the range
     the fix runs clean in), the outcomes the change page shows,
     and ``problems`` (``(field, sentence)``) for the build error when not. Nothing here imports
     torch or installs anything.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Optional

from .history import minor


def digest(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()[:16]


def proof_code(change) -> dict[str, str]:
    """What a change's proof runs, by part: ``code`` (its own, or ``setup`` + the page's
    ``fix.before``), ``after`` (its own, or ``setup`` + ``fix.after``) and ``rollback.<n>``."""
    p = change.proof
    if p is None or p.cannot_run:
        return {}
    setup = p.setup.rstrip("\n") + "\n" if p.setup else ""
    out = {}
    if p.symptom is not None:
        out["code"] = p.code if p.code is not None else setup + change.fix.before
    if p.fix_from is not None:
        out["after"] = p.after if p.after is not None else setup + change.fix.after
    out.update({f"rollback.{i}": r.code for i, r in enumerate(p.rollback)})
    return out


def snippets(change) -> list[dict]:
    """The snippets of one change's proof, as ``prove_runtime.py`` takes them, each with the hash its
    outcome is kept under and the companion package it runs beside (``package``, or None); the
    package is part of the hash, so the same code with and without it are two outcomes."""
    pkg = change.proof.package if change.proof else None
    return [{"id": change.id, "part": part, "code": code, "package": pkg,
             "sha": digest(code if pkg is None else f"# beside {pkg}\n{code}")}
            for part, code in proof_code(change).items()]


def parse_lock(text: str) -> dict:
    """A proof lock's text -> ``{"torch", "python", "outcomes": {snippet hash: outcome}}``; each
    outcome also says which snippets (``"<id>/<part>"``) have that code (``for``), so a renamed or
    moved change keeps its outcomes. Raises ValueError naming what is wrong."""
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("outcomes"), dict) or "torch" not in data:
        raise ValueError("no 'torch' and 'outcomes' at the top")
    for key, o in data["outcomes"].items():
        if not isinstance(o, dict) or not {"error", "warnings", "for"} <= set(o):
            raise ValueError(f"{key}: an outcome needs 'error', 'warnings' and 'for'")
    return data


@dataclass(frozen=True)
class Run:
    wheel: str
    error: Optional[str]
    warnings: tuple            # ((category, message, shown), ...)
    output: tuple              # lines printed
    package: Optional[str] = None   # "torchaudio==2.9.1": the companion installed beside torch
    absent: bool = False            # the proof's package has no release for this torch: not run

    @property
    def clean(self) -> bool:
        return self.error is None and not self.warnings


#: a terminal's colour and style codes, which some releases put in their messages (2.6's weights_only
#: error bolds a phrase): the lock keeps what the release printed, pages and matching read the text
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _plain(text):
    return _ANSI.sub("", text) if isinstance(text, str) else text


def _run(wheel: str, o: dict) -> Run:
    return Run(wheel, _plain(o.get("error")), tuple((c, _plain(m), shown) for c, m, shown in o.get("warnings", ())),
               tuple(_plain(x) for x in o.get("stdout", ())), o.get("package"), bool(o.get("absent")))


def matches(symptom, run: Run) -> Optional[tuple]:
    """The warning, error or printed line of ``run`` that is ``symptom``, or None."""
    if symptom.warning is not None:
        return next((w for w in run.warnings if w[0] == symptom.warning and symptom.message in w[1]), None)
    if symptom.error is not None:
        if run.error and run.error.startswith(symptom.error + ": ") and symptom.message in run.error:
            return (run.error,)
        return None
    return next(((line,) for line in run.output if symptom.message in line), None)


@dataclass
class ProofVerdict:
    change: str
    ok: bool = True
    problems: list = field(default_factory=list)     # (field, sentence)
    wheel: Optional[str] = None                      # the change's release's wheel
    before: Optional[Run] = None                     # code in the release before the change's
    now: Optional[Run] = None                        # code in the change's release
    first: Optional[str] = None                      # the first wheel of the unbroken run up to the change's that shows it
    shown: Optional[bool] = None                     # the symptom warning printed under default filters
    fix_range: tuple = ()                            # (first release, newest release) the fix is proven in
    fix_warnings: list = field(default_factory=list) # (first, last release, (category, message, shown)) of fix_warns
    rollbacks: list = field(default_factory=list)    # (switch, first release, last release) each is proven to work in
    python: str = ""                                 # the CPython the proofs ran on (the locks' header)
    code: Optional[str] = None                       # the code run for the symptom (the page's fix.before, or the proof's own)
    after: Optional[str] = None                      # the fix run
    cannot_run: Optional[str] = None
    artifact: Optional[str] = None
    package: Optional[str] = None                    # the companion the proof ran beside (its name)
    package_runs: dict = field(default_factory=dict) # wheel -> "torchaudio==2.9.1" installed beside it
    package_absent: list = field(default_factory=list)   # wheels no release of the package admits: not run

    def fail(self, where: str, why: str) -> None:
        self.ok = False
        self.problems.append((where, why))


def judge(change, release: str, versions: list[str], locks: dict) -> ProofVerdict:
    """``change`` (a ``schema.Change`` with a ``proof``) of ``release``, judged by the locks."""
    proof = change.proof
    removed_in = change.rollback.removed_in if change.rollback else None
    ran = proof_code(change)
    v = ProofVerdict(change.id, cannot_run=proof.cannot_run, artifact=proof.artifact, code=ran.get("code"),
                     after=ran.get("after"))
    if proof.cannot_run:
        return v
    wheel = next((w for w in versions if minor(w) == release), None)
    if wheel is None:
        v.fail("proof", f"no wheel of {release} in data/wheels.yaml to run it in")
        return v
    v.wheel = wheel
    v.python = (locks.get(wheel) or {}).get("python", "")
    runs: dict[str, dict[str, Run]] = {}
    for s in snippets(change):
        runs[s["part"]] = {}
        missing = []
        for w in versions:
            o = (locks.get(w) or {}).get("outcomes", {}).get(s["sha"])
            if o is None:
                missing.append(w)
            else:
                runs[s["part"]][w] = _run(w, o)
        if missing:
            v.fail(f"proof.{s['part']}", f"new or edited: the proof locks of torch {_span(missing)} have not run "
                                         f"this code; run: atlas prove {' '.join(missing) if len(missing) < 4 else ''}".rstrip())
    if not v.ok:
        return v
    if proof.package:
        v.package = proof.package
        v.package_absent = [w for w in versions if any(r[w].absent for r in runs.values())]
        versions = [w for w in versions if w not in v.package_absent]
        v.package_runs = {w: next(r[w].package for r in runs.values()) for w in versions}
        if wheel not in versions:
            v.fail("proof.package", f"no release of {proof.package} is built for torch {wheel}, the change's release")
            return v
    i = versions.index(wheel)
    if proof.symptom is not None:
        code = runs["code"]
        v.now, v.before = code[wheel], (code[versions[i - 1]] if i else None)
        # the run of releases, ending with the change's, whose code shows the symptom
        j = i
        while j >= 0 and matches(proof.symptom, code[versions[j]]):
            j -= 1
        v.first = versions[j + 1] if j < i else None
        if v.first is None:
            later = next((w for w in versions[i:] if matches(proof.symptom, code[w])), None)
            v.fail("proof.symptom", f"torch {wheel} does not show it (it {describe(v.now)})"
                   + (f"; torch {later} is the first after it that does" if later else ""))
        elif v.first != wheel:
            v.fail("proof.symptom", f"torch {v.first} already shows it, before the change's release {release} "
                                    f"(there it {describe(code[v.first])})")
        hit = matches(proof.symptom, v.now)
        if hit and proof.symptom.warning is not None:
            v.shown = hit[2]
            if hit[2] != proof.symptom.shown:
                v.fail("proof.symptom.shown", f"torch {wheel}: Python's default filters "
                       f"{'print' if hit[2] else 'hide'} this {proof.symptom.warning} when the code runs in an imported module")
    if proof.fix_from is not None:
        after = runs["after"]
        warns = set(proof.fix_warns)

        def ok(w: str) -> bool:
            """Clean, or (in a release ``fix_warns`` names) no error and only hidden warnings."""
            r = after[w]
            if minor(w) in warns:
                return r.error is None and bool(r.warnings) and not any(x[2] for x in r.warnings)
            return r.clean

        first_ok = None
        for w in reversed(versions):
            if not ok(w):
                break
            first_ok = w
        stated = next((w for w in versions if minor(w) == proof.fix_from), None)
        if stated is None:
            v.fail("proof.fix_from", f"no wheel of {proof.fix_from} in data/wheels.yaml")
        elif first_ok is None or versions.index(first_ok) > versions.index(stated):
            bad = next(w for w in reversed(versions) if not ok(w) and versions.index(w) >= versions.index(stated))
            v.fail("proof.fix_warns" if minor(bad) in warns else "proof.fix_from",
                   f"the fix does not run clean in torch {bad}: it {describe(after[bad])}"
                   + (" (fix_warns allows only warnings the default filters hide)" if minor(bad) in warns else ""))
        elif first_ok != stated:
            v.fail("proof.fix_from", f"the fix already runs clean from torch {first_ok}, not only from {proof.fix_from}")
        for w in versions:
            if minor(w) in warns and after[w].clean:
                v.fail("proof.fix_warns", f"the fix runs clean in torch {w}: it is no exception")
        if set(warns) - {minor(w) for w in versions}:
            v.fail("proof.fix_warns", f"no wheel of {', '.join(sorted(set(warns) - {minor(w) for w in versions}))}")
        if proof.symptom is None and proof.fix_from != release:
            v.fail("proof.fix_from", f"with no symptom, the fix's first release proves the change's release "
                                     f"{release}; it says {proof.fix_from}")
        if v.ok:
            v.fix_range = (proof.fix_from, minor(versions[-1]))
            for w in versions:          # consecutive releases with the same first warning: one range
                if minor(w) in warns:
                    first = after[w].warnings[0]
                    if v.fix_warnings and v.fix_warnings[-1][2] == first and v.fix_warnings[-1][3] == versions.index(w) - 1:
                        v.fix_warnings[-1] = (v.fix_warnings[-1][0], minor(w), first, versions.index(w))
                    else:
                        v.fix_warnings.append((minor(w), minor(w), first, versions.index(w)))
            v.fix_warnings = [(a, b, first) for a, b, first, _ in v.fix_warnings]
    for k, r in enumerate(proof.rollback):
        _rollback(v, k, r, runs[f"rollback.{k}"], proof.symptom, versions[i:], removed_in)
    return v


def _rollback(v: ProofVerdict, k: int, r, runs: dict, symptom, versions: list[str], removed_in: Optional[str]) -> None:
    """A rollback switch works (no error, no symptom) from the change's release up to ``removed_in``,
    and no longer there."""
    def works(run: Run) -> bool:
        return run.error is None and (symptom is None or matches(symptom, run) is None)

    gone = next((w for w in versions if removed_in and minor(w) == removed_in), None)
    kept = versions[:versions.index(gone)] if gone else versions
    bad = next((w for w in kept if not works(runs[w])), None)
    if bad:
        v.fail(f"proof.rollback.{k}", f"{r.switch} does not restore the old behaviour in torch {bad}: it {describe(runs[bad])}")
    elif gone and works(runs[gone]):
        v.fail(f"proof.rollback.{k}", f"{r.switch} still works in torch {gone}, the release said to remove it")
    else:
        v.rollbacks.append((r.switch, minor(kept[0]), minor(kept[-1])))


def _span(wheels: list[str]) -> str:
    return ", ".join(wheels) if len(wheels) < 4 else f"{wheels[0]} ... {wheels[-1]} ({len(wheels)} releases)"


def describe(run: Run) -> str:
    """One line for a build error: what a snippet did in a release (English; pages use UI strings)."""
    if run.error:
        return f"raises {run.error}"
    if run.warnings:
        return "warns " + "; ".join(f"{c}: {m}" + ("" if s else " (hidden by default)") for c, m, s in run.warnings[:2])
    return "runs clean"
