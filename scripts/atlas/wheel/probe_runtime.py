"""Resolve dotted names in a real, installed torch: the runtime judge of every API claim.

Runs inside a throwaway virtualenv that has exactly one torch release installed (``atlas
runtime`` makes it); standard library only, so it runs under any interpreter that torch does.

In:  argv[1], a file of dotted names (one a line); argv[2], the output path.
Out: one tab-separated line per name, sorted: ``name, state, kind, identity, signature``.

- ``state``: ``public`` (it resolves, and every step of the way is public: no ``_x`` part, and
  the module-level name is in its module's ``__all__`` when the module has one), ``hidden`` (it
  resolves, but is not public by that rule), ``absent`` (it does not resolve; ``identity`` says
  why: the exception, or ``stub module:qualname`` for a removed API's stub: a function that only
  raises, with words that say the API is gone),
  ``unknown`` (it could not be judged: importing its module needs a package that is not
  installed, or failed; ``identity`` says which).
- ``kind``: module, class, function, instance (an attribute set on instances: annotated, a
  dataclass field, a slot, or ``self.<name> =`` in the class's source), attr.
- ``identity``: ``module:qualname`` of a module, class or function (what "moved" compares).
- ``signature``: parameters with kinds and default values, no annotations, object addresses
  removed: ``(input, dim=None, *, keepdim=False)``; empty where Python gives none.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
import textwrap
import types
import warnings

_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")
_MAX_DEFAULT = 80


def _import(path: str):
    """(module, None) or (None, reason): reason ``missing`` when no such module exists."""
    try:
        return importlib.import_module(path), None
    except ModuleNotFoundError as e:
        name = e.name or ""
        if name == path or path.startswith(name + ".") or (name.startswith(path.split(".")[0]) and path.startswith(name)):
            return None, "missing"
        if not name.startswith("torch"):
            return None, f"needs {name}"
        return None, "missing"
    except Exception as e:      # noqa: BLE001 - any failure to import is recorded, not raised
        return None, f"import fails: {type(e).__name__}: {str(e)[:80]}"


#: What a removed API's stub says when it raises: "... is now removed", "was deprecated ...",
#: "no longer supported", "use X instead". A method that raises by design (an immutable container's
#: ``pop``, an abstract method) says something else.
_REMOVAL = re.compile(r"\bremoved\b|\bdeprecat|\bno longer\b|\bnot supported anymore\b|\buse\b.{0,80}\binstead\b",
                      re.I | re.S)


def _stub(fn) -> str:
    """``module:qualname`` of a Python function that is a removed API's stub, else "": it never
    returns (no ``return`` or ``yield``, no branch or loop at its top level), it ends by raising,
    and the words it raises with say the API is gone. ``torch.qr`` in 2.14 builds its message in a
    variable first, then raises."""
    fn = inspect.unwrap(fn)
    if not isinstance(fn, types.FunctionType):
        return ""
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        node = ast.parse(src).body[0]
    except Exception:       # noqa: BLE001
        return ""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    if not body or not isinstance(body[-1], ast.Raise):
        return ""
    if any(isinstance(s, (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.AsyncFor, ast.AsyncWith, ast.Match))
           for s in body):
        return ""
    if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for s in body for n in ast.walk(s)):
        return ""
    words = " ".join(n.value for s in body for n in ast.walk(s) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return _identity(fn) or "?" if _REMOVAL.search(words) else ""


def _instance_attr(cls, name: str) -> bool:
    for k in getattr(cls, "__mro__", (cls,)):
        if name in (getattr(k, "__annotations__", None) or {}) or name in (getattr(k, "__dataclass_fields__", None) or {}):
            return True
        slots = getattr(k, "__slots__", ())
        if name in ((slots,) if isinstance(slots, str) else slots):
            return True
        if k.__module__ == "builtins":
            continue
        try:
            src = inspect.getsource(k)
        except Exception:       # noqa: BLE001
            continue
        if re.search(r"\bself\." + re.escape(name) + r"\s*(?::[^=\n]+)?=[^=]", src):
            return True
    return False


def _kind(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "attr"


def _identity(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return f"{obj.__name__}:"
    if inspect.isclass(obj) or inspect.isroutine(obj) or isinstance(obj, (classmethod, staticmethod, property)):
        target = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
        mod = getattr(target, "__module__", None) or ""
        qual = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or ""
        return f"{mod}:{qual}" if qual else ""
    return ""


def _default(v) -> str:
    r = _ADDR.sub("", repr(v)).replace("\t", " ").replace("\n", " ")
    return r if len(r) <= _MAX_DEFAULT else r[:_MAX_DEFAULT] + "…"


def _signature(obj) -> str:
    if not callable(obj) or isinstance(obj, types.ModuleType):
        return ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sig = inspect.signature(obj)
    except Exception:       # noqa: BLE001 - C functions without text signatures
        return ""
    parts, star = [], False
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append("*" + p.name)
            star = True
            continue
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is p.VAR_KEYWORD:
            parts.append("**" + p.name)
            continue
        parts.append(p.name if p.default is p.empty else f"{p.name}={_default(p.default)}")
    pos_only = [p for p in sig.parameters.values() if p.kind is p.POSITIONAL_ONLY]
    if pos_only:
        parts.insert(len(pos_only), "/")
    return "(" + ", ".join(parts) + ")"


def _public_in(module, attr: str) -> bool:
    if attr.startswith("_"):
        return False
    names = getattr(module, "__all__", None)
    return names is None or attr in list(names)


def resolve(name: str) -> tuple[str, str, str, str]:
    """(state, kind, identity, signature) of one dotted name."""
    parts = name.split(".")
    obj, reason = _import(parts[0])
    if obj is None:
        return "unknown" if reason != "missing" else "absent", "", reason, ""
    public = not parts[0].startswith("_")
    owner_is_module = True
    kind = "module"
    for i, part in enumerate(parts[1:], start=1):
        path = ".".join(parts[: i + 1])
        nxt, why = None, "AttributeError"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                nxt = getattr(obj, part)
        except AttributeError:
            nxt = None
        except Exception as e:      # noqa: BLE001 - a module __getattr__ that raises: gone
            return "absent", "", f"raises {type(e).__name__}", ""
        if owner_is_module and (nxt is None or isinstance(nxt, types.ModuleType)):
            mod, reason = _import(path)
            if mod is not None:
                nxt = mod
            elif nxt is None and reason != "missing":
                return "unknown", "", reason, ""
        if nxt is None:
            if inspect.isclass(obj) and _instance_attr(obj, part):
                kind = "instance"
                public = public and not part.startswith("_")
                if i != len(parts) - 1:
                    return "unknown", "", "below an instance attribute", ""
                return ("public" if public else "hidden"), kind, "", ""
            return "absent", "", why, ""
        if owner_is_module:
            public = public and _public_in(obj, part) if not isinstance(nxt, types.ModuleType) else public and not part.startswith("_")
        else:
            public = public and not part.startswith("_")
        obj = nxt
        owner_is_module = isinstance(obj, types.ModuleType)
        kind = _kind(obj)
    stub = _stub(obj) if kind == "function" else ""
    if stub:
        return "absent", "", "stub " + stub, ""
    return ("public" if public else "hidden"), kind, _identity(obj), _signature(obj)


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        names = sorted({n.strip() for n in f if n.strip()})
    warnings.simplefilter("ignore")
    import torch
    rows = []
    for n in names:
        try:
            state, kind, ident, sig = resolve(n)
        except RecursionError:
            state, kind, ident, sig = "unknown", "", "RecursionError", ""
        except Exception as e:      # noqa: BLE001 - one odd object never stops the walk
            state, kind, ident, sig = "unknown", "", f"probe fails: {type(e).__name__}", ""
        rows.append("\t".join((n, state, kind, ident.replace("\t", " "), sig)))
    head = (f"# torch={torch.__version__} python={sys.version.split()[0]} names={len(rows)} "
            f"public={sum(r.split(chr(9))[1] == 'public' for r in rows)} "
            f"unknown={sum(r.split(chr(9))[1] == 'unknown' for r in rows)}\n")
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(head + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
