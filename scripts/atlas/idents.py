"""What in the fact base can be looked up in a wheel: identifiers and error messages.

In:  ``Change``s (schema.py).
Out: ``Ident``s: every string value of a change (``values``, rollback switches) classified as
     something a wheel can show (an API name, a config key or parameter, an environment
     variable, a backend or entry-point name, a GPU target) with the query to look up, or
     with the reason why a wheel cannot show it (a version, an address, prose...); and
     ``ErrorRef``s: each error message as a template (placeholders match anything).
     Pure functions of the data: the wheels are read by ``scan.py``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

#: Short module names used in the facts' code, as Python code writes them.
ALIASES = {"dist": "torch.distributed", "F": "torch.nn.functional", "nn": "torch.nn"}

_EXC = re.compile(r"^((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning|Interrupt)|ERROR):\s*")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|<[^<>]*>|\.\.\.|%[sdr]|(?<![A-Za-z])[A-Z](?![A-Za-z])")


@dataclass(frozen=True)
class Ident:
    key: str                 # lock key: <change-id>.<value key>[.<index>] or <change-id>.rollback.<i>
    change: str
    field: str               # the value key ("api", "old", ...) or "rollback"
    value: str
    kind: Optional[str]      # api | name | constant | backend | target | kwvalue | message | None
    query: str               # what is looked up (a dotted name, an identifier, a literal)
    param: str = ""          # for calls like f(x=...): the keyword named in the value
    reason: str = ""         # why a wheel cannot show it (kind None): a key of auto.reason.* in data/i18n
    context: tuple[str, ...] = ()   # torch.* names of the same change, to qualify a bare name


@dataclass(frozen=True)
class ErrorRef:
    key: str                 # <change-id>.error.<i>
    change: str
    message: str
    origin: str
    exception: str           # "ImportError" or ""
    fragments: tuple[str, ...]   # literal parts between placeholders, longest first


def classify(value: str) -> tuple[Optional[str], str, str, str]:
    """(kind, query, param, reason) for one string value."""
    v = value.strip()
    if "://" in v:
        return None, "", "", "address"
    if re.fullmatch(r"v?\d+(\.\d+)*([a-z]+\d*)?", v):
        return None, "", "", "version"
    if re.fullmatch(r"cu\d+|rocm[\d.]+", v):
        return None, "", "", "variant"
    if re.fullmatch(r"gfx\d+[a-z]?", v):
        return None, "", "", "rocm"
    if re.fullmatch(r"sm_\d+[a-z]?", v):
        return "target", v, "", ""
    m = re.fullmatch(r"([A-Z][A-Z0-9]*_[A-Z0-9_]+)(=\S*)?", v)
    if m:
        return "constant", m.group(1), "", ""
    if " " in v and (_EXC.match(v) or len(v.split()) >= 5):
        return "message", v, "", ""
    if re.fullmatch(r"C\+\+\d+", v):
        return None, "", "", "standard"
    if v.startswith("-"):
        return None, "", "", "flag"
    m = re.fullmatch(r"(\w+)=([\"'])(.+)\2", v)
    if m and m.group(1) == "backend":
        return "backend", m.group(3), "", ""
    if m:
        return "kwvalue", m.group(1), m.group(3), ""
    m = re.fullmatch(r"(\w+)=\w+", v)
    if m:
        return "name", m.group(1), "", ""
    if re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)+", v):
        return "backend", v, "", ""
    m = re.fullmatch(r"@?([A-Za-z_][\w.]*)(\((.*)\))?", v)
    if not m:
        return None, "", "", "prose"
    name, args = m.group(1), m.group(3) or ""
    head = name.split(".")[0]
    if head in ALIASES:
        name = ALIASES[head] + name[len(head):]
    elif "." in name and head != "torch" and head[:1].islower():
        return None, "", "", "not_torch"       # importlib.reload, sys.modules...
    if name.endswith(".*"):
        return None, "", "", "prose"
    km = re.match(r"\s*(\w+)\s*=", args)
    param = km.group(1) if km else ""
    if name.startswith("torch."):
        return "api", name, param, ""
    return "name", name, param, ""


def identifiers(changes) -> list[Ident]:
    out = []
    for c in changes:
        context = tuple(sorted({classify(x)[1] for v in c.values.values() for x in (v if isinstance(v, list) else [v])
                                if isinstance(x, str) and classify(x)[0] == "api"}))
        for k, v in c.values.items():
            items = v if isinstance(v, list) else [v]
            # in a list such as [torch.mps.Stream, current_stream()], bare names share the module
            mods = {q.rsplit(".", 1)[0] for q in (classify(x)[1] for x in items if isinstance(x, str)
                                                   and classify(x)[0] == "api")} - {"torch"}
            for i, x in enumerate(items):
                key = f"{c.id}.{k}" + (f".{i}" if isinstance(v, list) else "")
                if not isinstance(x, str):
                    out.append(Ident(key, c.id, k, str(x), None, "", reason="number"))
                    continue
                kind, query, param, reason = classify(x)
                if kind == "name" and "." not in query and len(mods) == 1 and query[:1].islower():
                    kind, query = "api", f"{next(iter(mods))}.{query}"
                out.append(Ident(key, c.id, k, x, kind, query, param, reason, context))
        if c.rollback:
            for i, x in enumerate(c.rollback.switches):
                kind, query, param, reason = classify(x)
                out.append(Ident(f"{c.id}.rollback.{i}", c.id, "rollback", x, kind, query, param, reason))
    return out


def template(message: str) -> tuple[str, tuple[str, ...]]:
    """(exception name, literal fragments) of an error message; placeholders match anything."""
    m = _EXC.match(message)
    exc = m.group(1) if m and m.group(1) != "ERROR" else ""
    body = message[m.end():] if m else message
    parts = [p.strip() for p in _PLACEHOLDER.split(body)]
    frags = tuple(sorted((p for p in parts if len(p) >= 4), key=len, reverse=True))
    return exc, frags or (body.strip(),)


def searchable(frags: tuple[str, ...]) -> bool:
    """A message is searched as text only if a literal part is long enough to identify it."""
    return len(frags[0]) >= 12 and " " in frags[0]


def errors(changes) -> list[ErrorRef]:
    out = []
    for c in changes:
        for i, e in enumerate(c.errors):
            exc, frags = template(e.message)
            out.append(ErrorRef(f"{c.id}.error.{i}", c.id, e.message, e.origin, exc, frags))
    return out
