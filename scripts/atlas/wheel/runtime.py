"""The runtime lock: what each installed release says of every name, and the API diff it proves.

In:  the text of ``data/evidence/runtime-<version>.txt``, written by ``atlas runtime``: every name
     that any release's static surface proposes, as ``probe_runtime`` resolved it in that release
     installed and imported (state, kind, identity, signature with defaults).
Out: ``parse_runtime(text) -> Runtime``; ``runtime_diff(a, b) -> dict``: the kinds of the upgrade
     page's API diff, each one true of the two installed releases:

- ``removed``: public in ``a``, does not resolve in ``b`` (a stub that only raises does not resolve);
- ``no_longer_public``: public in ``a``, still resolves in ``b`` but is not public there (it left
  its module's ``__all__``, or a step of its path is private);
- ``moved``: removed, and another path public in ``b`` resolves to the same object (the same
  defining module and qualified name); nothing else is "moved";
- ``changed``: public in both, and the parameters (names or kinds) differ; ``defaults`` lists
  the parameters of both whose default value changed too (``torch.onnx.export`` in 2.9 reorders
  its parameters and flips ``dynamo=False`` to ``True``);
- ``default_changed``: the same parameters, a default value differs (``dynamo=False -> True``);
- ``default_none``: the same parameters, and a default only became ``None`` or stopped being
  ``None`` (``scatter(src=0 -> None)``): the function decides the value in its body now, or
  writes in its signature what its body decided, so the same call may do what it did (2.9's
  ``scatter`` falls back to ``src=0``);
- ``added``: public in ``b``, not public in ``a``.

Defaults are compared as values, not as text (``same_default``): ``eta_min=0 -> 0.0`` and
``'x' -> "x"`` are no change. A move to or from ``None`` is a flip only for the ``(name, param)``
pairs in ``claimed``: the curated changes whose ``wheel:`` claims say ``kind: default`` (their
release shows the new default doing something else). Every entry of ``changed``,
``default_changed`` and ``default_none`` carries ``defaults`` (the flips) and ``defaults_none``
(the moves to or from ``None``, each with ``to_none``).

A name one of the two releases could not judge (state ``unknown``: its module needs a package the
probe did not install) is in no kind; ``unverified`` counts them. A removed or moved module or class
is listed once, not with every name under it. Nothing here imports torch or reads a wheel.
"""
from __future__ import annotations

import ast
import functools
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Optional

STATES = ("public", "hidden", "absent", "unknown")


@dataclass(frozen=True)
class Row:
    state: str          # public | hidden | absent | unknown
    kind: str           # module | class | function | instance | attr | "" (absent, unknown)
    identity: str       # module:qualname of a module, class or function; why, when absent or unknown
    signature: str      # (a, b=None, *, c=False) or ""


@dataclass(frozen=True)
class Runtime:
    head: dict          # torch, python, names, public, unknown (the header line's fields)
    rows: dict          # name -> Row

    def resolves(self, name: str) -> Optional[bool]:
        """True/False, or None when the release could not judge the name (or never saw it)."""
        r = self.rows.get(name)
        if r is None or r.state == "unknown":
            return None
        return r.state in ("public", "hidden")

    def public(self, name: str) -> bool:
        r = self.rows.get(name)
        return r is not None and r.state == "public"

    @functools.cached_property
    def paths(self) -> dict[str, list[str]]:
        """Identity (``module:qualname``) of each public class or function -> its public paths,
        in name order: one object's re-exports ("moved" and the checker's aliases read it)."""
        out: dict[str, list[str]] = {}
        for n, r in sorted(self.rows.items()):
            if r.state == "public" and r.kind in ("class", "function") and r.identity:
                out.setdefault(r.identity, []).append(n)
        return out


_PARSED: dict[str, Runtime] = {}


def parse_runtime(text: str) -> Runtime:
    """A runtime lock's text -> ``Runtime``; raises ValueError naming the bad line. Parsed once
    per text in a process (the files are read on every pipeline run of ``mkdocs serve``)."""
    key = hashlib.sha1(text.encode()).hexdigest()
    if key in _PARSED:
        return _PARSED[key]
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# torch="):
        raise ValueError("line 1: no '# torch=<version> ...' header")
    head = dict(f.split("=", 1) for f in lines[0][2:].split() if "=" in f)
    rows = {}
    for i, line in enumerate(lines[1:], start=2):
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) != 5 or f[1] not in STATES:
            raise ValueError(f"line {i}: expected name, state ({'|'.join(STATES)}), kind, identity, signature")
        rows[f[0]] = Row(f[1], f[2], f[3], f[4])
    _PARSED[key] = Runtime(head, rows)
    return _PARSED[key]


# --- signatures ---------------------------------------------------------------------------------
def split_params(sig: str) -> list[str]:
    """``(a, b=(1, 2), *, c=None)`` -> ``["a", "b=(1, 2)", "*", "c=None"]`` (brackets and quotes kept whole)."""
    body = sig.strip()
    if not body.startswith("("):
        return []
    body = body[1: body.rfind(")")] if ")" in body else body[1:]
    out, depth, cur, quote = [], 0, "", ""
    for ch in body:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch == "…":
            depth = 0       # the probe cut a long default here ("MixedPrecisionPolicy(param_dtype=None, …"): it ends
        elif ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth <= 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


@functools.lru_cache(maxsize=8192)   # a pure function of the signature, asked again on every run
def params(sig: str) -> tuple[tuple[str, str, Optional[str]], ...]:
    """(name, kind, default) of each public parameter: kind is ``pos`` (positional-only),
    ``any``, ``kw`` (keyword-only), ``*`` or ``**``; default None when there is none."""
    out, kind = [], "any"
    parts = split_params(sig)
    if "/" in parts:
        kind = "pos"
    for p in parts:
        if p == "/":
            kind = "any"
            continue
        if p == "*":
            kind = "kw"
            continue
        if p.startswith("**"):
            out.append((p[2:], "**", None))
            continue
        if p.startswith("*"):
            out.append((p[1:], "*", None))
            kind = "kw"
            continue
        name, eq, default = p.partition("=")
        if not name.startswith("_"):
            out.append((name, kind, default if eq else None))
    return tuple(out)


def takes_any_keyword(sig: str) -> bool:
    return any(k == "**" for _, k, _ in params(sig))


# --- default values -------------------------------------------------------------------------------
def _read_default(text: str) -> tuple[str, object]:
    """A default as Python reads it: its literal value (``ast.literal_eval``), or else the syntax
    tree of its expression (``torch.float32``, ``timedelta(seconds=1800)``: quotes and spaces do
    not count), or else its text (a repr such as ``<function f>``, which is no expression)."""
    try:
        return "value", ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    try:
        return "expr", ast.dump(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return "text", text.strip()


def _same_value(x: object, y: object) -> bool:
    """Python's ``==``, except that a bool equals only a bool: numbers are compared by value
    (``0 == 0.0``: arithmetic on them gives the same results), but ``True`` and ``1`` are not
    the same default, since code that takes a flag tests it with ``is True`` or
    ``isinstance(x, bool)``; a tuple is not a list. Containers compare item by item."""
    if isinstance(x, bool) or isinstance(y, bool):
        return type(x) is type(y) and x == y
    num = (int, float, complex)
    if isinstance(x, num) and isinstance(y, num):
        return x == y
    if type(x) is not type(y):
        return False
    if isinstance(x, (tuple, list)):
        return len(x) == len(y) and all(map(_same_value, x, y))
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_same_value(v, y[k]) for k, v in x.items())
    return x == y


@functools.lru_cache(maxsize=8192)
def same_default(old: str, new: str) -> bool:
    """Whether two defaults as the lock writes them are the same value: ``0`` / ``0.0``,
    ``'x'`` / ``"x"``, ``(1,2)`` / ``(1, 2)`` are; ``True`` / ``1``, ``(1, 2)`` / ``[1, 2]`` and
    ``0`` / ``None`` are not (see ``_same_value``)."""
    if old == new:
        return True
    (ka, va), (kb, vb) = _read_default(old), _read_default(new)
    if ka != kb:
        return False
    return _same_value(va, vb) if ka == "value" else va == vb


def _is_none(text: str) -> bool:
    return text.strip() == "None"


def _split_defaults(pairs: list[tuple[str, str, str]], claimed: Callable[[str], bool]) -> tuple[list, list]:
    """``(param, old, new)`` defaults that differ as text -> (flips, moves to or from None);
    equal values are dropped; ``claimed(param)`` makes a None move a flip."""
    flips, moves = [], []
    for p, old, new in pairs:
        if same_default(old, new):
            continue
        if _is_none(old) != _is_none(new) and not claimed(p):
            moves.append({"param": p, "old": old, "new": new, "to_none": _is_none(new)})
        else:
            flips.append({"param": p, "old": old, "new": new})
    return flips, moves


# --- the diff -------------------------------------------------------------------------------------
def _tops(names: set[str]) -> list[str]:
    keep = []
    for n in sorted(names, key=lambda n: (n.count("."), n)):
        parts = n.split(".")
        if not any(".".join(parts[:i]) in names for i in range(1, len(parts))):
            keep.append(n)
    return sorted(keep)


def module_path(name: str, rt: Runtime) -> str:
    """The longest dotted prefix of ``name`` that ``rt`` says is a module."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        r = rt.rows.get(".".join(parts[:i]))
        if r is not None and r.kind == "module":
            return ".".join(parts[:i])
    return parts[0]


def _is_home(module: str, home: str) -> bool:
    """Whether ``module`` is the object's defining module ``home`` or a package above it."""
    return home == module or home.startswith(module + ".")


_DIFFS: dict[tuple, dict] = {}


def runtime_diff(a: Runtime, b: Runtime, claimed: Iterable[tuple[str, str]] = ()) -> dict:
    """The API diff of releases ``a`` -> ``b`` (see the module docstring); ``claimed``: the
    ``(name, param)`` pairs curated changes claim as default flips. Computed once per pair of
    parsed locks and claims in a process."""
    claimed = frozenset(claimed)
    key = (id(a), id(b), claimed)
    if key not in _DIFFS:
        _DIFFS[key] = _diff(a, b, claimed)
    return _DIFFS[key]


def _diff(a: Runtime, b: Runtime, claimed: frozenset = frozenset()) -> dict:
    names = set(a.rows) | set(b.rows)
    unverified = 0
    gone, hidden, added, both = set(), set(), set(), []
    for n in names:
        ra, rb = a.rows.get(n), b.rows.get(n)
        sa, sb = ra.state if ra else "absent", rb.state if rb else "absent"
        if "unknown" in (sa, sb):
            unverified += sa == "public" or sb == "public"
            continue
        if sa == "public":
            if sb == "absent":
                gone.add(n)
            elif sb == "hidden":
                hidden.add(n)
            else:
                both.append(n)
        elif sb == "public":
            added.add(n)
    # moved: the old object is public in b under another path (same module:qualname)
    by_identity = b.paths
    found = {}
    for n in sorted(gone, key=lambda n: (n.count("."), n)):   # a member of a removed module may live on elsewhere
        r = a.rows[n]
        if r.kind not in ("class", "function") or not r.identity or r.identity not in by_identity:
            continue
        parent = a.rows.get(n.rsplit(".", 1)[0])
        if parent is not None and parent.kind == "class" and n.rsplit(".", 1)[0] in gone and n.rsplit(".", 1)[0] not in found:
            continue            # a member moves with its class, or not at all (inherited methods are shared)
        home = r.identity.split(":", 1)[0]
        to = [m for m in by_identity[r.identity] if _is_home(module_path(m, b), home)]
        if to:                  # only where the object's own package exports it, not an incidental import
            found[n] = sorted(to, key=lambda m: (a.public(m), m.count("."), len(m), m))[0]
    moved = [{"name": n, "to": found[n]} for n in _tops(set(found))]     # a moved class once, not each member
    removed = _tops(gone - set(found))
    # a claim names one path of the object; the diff lists the object once, under any of its paths
    claimed_ids = {(rt.rows[n].identity, p) for n, p in claimed for rt in (a, b)
                   if n in rt.rows and rt.rows[n].kind in ("class", "function") and rt.rows[n].identity}
    changed, defaults, to_none, seen = [], [], [], set()
    for n in sorted(both, key=lambda n: (n.count("."), n)):
        ra, rb = a.rows[n], b.rows[n]
        if not ra.signature or not rb.signature or ra.signature == rb.signature:
            continue
        pa, pb = params(ra.signature), params(rb.signature)
        if pa == pb:
            continue
        dedupe = (rb.identity or n, ra.signature, rb.signature)
        if dedupe in seen:
            continue        # one object re-exported by several modules is listed once
        seen.add(dedupe)
        shape_a = [(p, k, d is None) for p, k, d in pa]      # a parameter that gains or loses a default changes shape
        shape_b = [(p, k, d is None) for p, k, d in pb]
        def is_claimed(p: str, n: str = n, ident: str = rb.identity) -> bool:
            return (n, p) in claimed or (ident, p) in claimed_ids
        if shape_a == shape_b:
            flips, moves = _split_defaults([(p, d1, d2) for (p, _, d1), (_, _, d2) in zip(pa, pb) if d1 != d2], is_claimed)
            entry = {"name": n, "old": ra.signature, "new": rb.signature, "defaults": flips, "defaults_none": moves}
            if flips:
                defaults.append(entry)
            elif moves:
                to_none.append(entry)
            continue                # only equal values written another way (0 -> 0.0): no difference
        names_a, names_b = [p for p, _, _ in shape_a], [p for p, _, _ in shape_b]
        old_defaults = {p: d for p, _, d in pa if d is not None}
        flips, moves = _split_defaults([(p, old_defaults[p], d) for p, _, d in pb
                                        if d is not None and p in old_defaults and old_defaults[p] != d], is_claimed)
        changed.append({"name": n, "old": ra.signature, "new": rb.signature, "defaults": flips, "defaults_none": moves,
                        "params_added": [p for p in names_b if p not in names_a],
                        "params_removed": [p for p in names_a if p not in names_b],
                        "accepts_any_keyword": takes_any_keyword(rb.signature)})
    return {"added": _tops(added), "removed": removed, "moved": moved, "no_longer_public": _tops(hidden),
            "changed": sorted(changed, key=lambda d: d["name"]), "default_changed": sorted(defaults, key=lambda d: d["name"]),
            "default_none": sorted(to_none, key=lambda d: d["name"]), "unverified": unverified}


def params_text(sig: str) -> str:
    """A signature without default values, for the page: ``(a, b=, *, c=)``."""
    out = []
    for p in split_params(sig):
        name, eq, _ = p.partition("=")
        out.append(name + ("=" if eq else ""))
    return "(" + ", ".join(out) + ")"

