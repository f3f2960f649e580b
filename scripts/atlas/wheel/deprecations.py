"""Deprecations a wheel's own Python sources announce, read with ``ast`` (nothing is imported).

In:  the ``.py`` files of one wheel (a mapping of member name -> bytes, or a zip path).
Out: ``read(files) -> list[Deprecation]``: every place that warns or is marked deprecated:

- a call ``warnings.warn(msg, DeprecationWarning | FutureWarning | PendingDeprecationWarning)``
  (also ``warn(...)``, ``category=``), or any ``warnings.warn`` whose message says "deprecated"
  or "will be removed";
- a ``@deprecated("...")`` / ``@typing_extensions.deprecated("...")`` decorator;
- a ``.. deprecated::`` directive in a docstring.

Each gives where (``torch.cuda.amp.autocast_mode.autocast.__init__``: the module and the
enclosing classes and functions), how (warn | decorator | docstring), the category, the message
(string constants kept, f-string fields and other expressions as ``{}``), and the replacement the
message names ("use X instead", "in favor of X", "replaced by X"), if any. ``write``/``parse`` turn
the list into the committed ``data/evidence/deprecations-<version>.tsv`` and back.
"""
from __future__ import annotations

import ast
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

CATEGORIES = ("DeprecationWarning", "FutureWarning", "PendingDeprecationWarning")
_WORDS = re.compile(r"\bdeprecat|\bwill be removed\b|\bno longer (?:be )?supported\b", re.I)
_REPLACEMENT = re.compile(
    r"(?:\bplease use|\buse|\bin favou?r of|\breplaced by|\bmigrate to|\bswitch to|\bprefer)\s+"
    r"[`'\"]?((?:torch|tensor|nn|F|dist|np)\b[\w.]*(?:\([^()]{0,60}\))?|[A-Za-z_][\w]*\.[\w.]+(?:\([^()]{0,60}\))?)",
    re.I)
_MAX_MESSAGE = 300
_FIELDS = ("where", "how", "category", "replacement", "message")


@dataclass(frozen=True)
class Deprecation:
    where: str              # module.Class.function that warns (or the decorated name)
    how: str                # warn | decorator | docstring
    category: str           # DeprecationWarning | FutureWarning | ... | "" (a docstring, an unknown category)
    replacement: str        # what the message says to use instead, or ""
    message: str

    @property
    def key(self) -> str:
        """What identifies one deprecation across releases (its wording may change)."""
        return f"{self.where}|{self.how}"


def _text(node: ast.AST) -> Optional[str]:
    """The string a message expression builds: constants kept, other parts as ``{}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _text(node.left), _text(node.right)
        return None if a is None and b is None else (a or "{}") + (b or "{}")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _text(node.func.value)
    return None


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _name(node.value) + "." + node.attr
    return ""


def _clean(msg: str) -> str:
    msg = " ".join(msg.split())
    return msg if len(msg) <= _MAX_MESSAGE else msg[:_MAX_MESSAGE] + "…"


_QUOTED = re.compile(r"(?:\bplease use|\buse|\bin favou?r of|\breplaced by|\bmigrate to|\bswitch to|\bprefer)\s+"
                     r"(?:the\s+)?``?([^`\s][^`]{0,100})``?", re.I)


def replacement(message: str) -> str:
    """What the message says to use instead: a quoted name first, else a dotted one."""
    m = _QUOTED.search(message) or _REPLACEMENT.search(message)
    return m.group(1).rstrip(".,;:`'\"") if m else ""


class _Visitor(ast.NodeVisitor):
    def __init__(self, module: str):
        self.module = module
        self.stack: list[str] = []
        self.out: list[Deprecation] = []

    def where(self, extra: str = "") -> str:
        return ".".join([self.module, *self.stack] + ([extra] if extra else []))

    def add(self, where: str, how: str, category: str, message: str) -> None:
        message = _clean(message)
        self.out.append(Deprecation(where, how, category, replacement(message), message))

    def _scope(self, node, name: str):
        for d in getattr(node, "decorator_list", []):
            target = d.func if isinstance(d, ast.Call) else d
            if _name(target).split(".")[-1] == "deprecated":
                msg = _text(d.args[0]) if isinstance(d, ast.Call) and d.args else ""
                cat = next((_name(k.value).split(".")[-1] for k in getattr(d, "keywords", []) if k.arg == "category"), "")
                self.add(self.where(name), "decorator", cat or "DeprecationWarning", msg or "")
        doc = ast.get_docstring(node, clean=False) if not isinstance(node, ast.Module) else None
        if doc and ".. deprecated::" in doc:
            after = doc.split(".. deprecated::", 1)[1]
            self.add(self.where(name), "docstring", "", " ".join(after.split("\n\n", 1)[0].split()))
        self.stack.append(name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node):
        self._scope(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._scope(node, node.name)

    def visit_Call(self, node: ast.Call):
        fn = _name(node.func)
        if fn in ("warnings.warn", "warn", "_warnings.warn", "warnings.warn_explicit"):
            msg = _text(node.args[0]) if node.args else None
            cat_node = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "category"), None)
            cat = _name(cat_node).split(".")[-1] if cat_node is not None else ""
            if cat in CATEGORIES or (msg and _WORDS.search(msg)):
                self.add(self.where(), "warn", cat, msg or "")
        self.generic_visit(node)


def module_name(path: str) -> str:
    mod = path[:-3].replace("/", ".")
    return mod[: -len(".__init__")] if mod.endswith(".__init__") else mod


def read(files: Mapping[str, bytes] | None = None, *, path: Path | None = None) -> list[Deprecation]:
    """Every deprecation in the ``torch/**.py`` files (not the tests), sorted."""
    if files is None:
        with zipfile.ZipFile(path) as z:
            files = {n: z.read(n) for n in z.namelist()
                     if n.startswith("torch/") and n.endswith(".py") and "/testing/_internal/" not in n}
    out: list[Deprecation] = []
    for name, body in files.items():
        if not (name.startswith("torch/") and name.endswith(".py")) or "/testing/_internal/" in name:
            continue
        if b"deprecat" not in body.lower() and b"Warning" not in body and b"removed" not in body:
            continue        # nothing here can warn or be marked deprecated: not worth parsing
        try:
            tree = ast.parse(body.decode("utf-8", "replace"))
        except SyntaxError:
            continue
        v = _Visitor(module_name(name))
        v.visit(tree)
        out += v.out
    return sorted(set(out), key=lambda d: (d.where, d.how, d.message))


def write(items: list[Deprecation], header: str) -> str:
    def cell(s: str) -> str:
        return s.replace("\t", " ").replace("\n", " ")
    return header.rstrip("\n") + "\n" + "".join("\t".join(cell(getattr(d, f)) for f in _FIELDS) + "\n" for d in items)


def parse(text: str) -> list[Deprecation]:
    """The committed file's text -> deprecations; ValueError names a bad line."""
    out = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) != len(_FIELDS):
            raise ValueError(f"line {i}: expected {len(_FIELDS)} tab-separated fields ({', '.join(_FIELDS)})")
        out.append(Deprecation(*f))
    return out
