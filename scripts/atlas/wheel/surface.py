"""The public API surface of a torch wheel, read with ``ast`` from the zip (nothing is imported).

In:  a wheel (zip) path, or any mapping of member name -> bytes (tests build small ones).
Out: ``Surface``: ``resolve("torch.linalg.qr")`` says whether a dotted name is reachable, whether
     every step of the way is public (no ``_x`` component), which file defines it and its
     parameters; ``public()`` enumerates every public name with its signature
     ({dotted name: signature}), which ``atlas evidence`` stores per wheel in
     ``data/evidence/surface-<version>.txt`` and ``atlas.evidence`` diffs between releases.

What is followed: ``def``/``class``/assignments (also inside ``if``/``try``/``with`` at module
level), ``from ..x import y [as z]``, ``import a.b as c``, ``from x import *`` (honouring the
source's ``__all__``), ``__all__`` built with ``=``, ``+=``, ``.append``, ``.extend``, the
``for n in dir(mod): globals()[n] = ...`` re-export loop of ``torch/__init__.py``, submodules
(any ``.py``/``.pyi``/package in the wheel), nested classes and bases defined in the wheel,
``.pyi`` stubs (overloads joined), and ``x = _add_docstr(obj, "x(a, b=None) -> ...")``, whose
docstring gives the parameters of a C function.
"""
from __future__ import annotations

import ast
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

ROOT_PACKAGE = "torch"
#: The signature written for a name that another release's wheel has public and this one has
#: not, while it still resolves (it left ``__all__``, or its module went private and re-exports it).
HIDDEN = "hidden"
_DOC_SIG = re.compile(r"^\s*([A-Za-z_][\w.]*)\((.*?)\)\s*(->|$)", re.M)


def signature(args: ast.arguments, drop_first: bool = False) -> str:
    """Parameter names and kinds, without defaults or annotations: ``(a, b=, *, c=, **kw)``."""
    pos = list(args.posonlyargs) + list(args.args)
    n_def = len(args.defaults)
    parts = []
    for i, a in enumerate(pos):
        if drop_first and i == 0:
            continue
        parts.append(a.arg + ("=" if i >= len(pos) - n_def else ""))
        if args.posonlyargs and i == len(args.posonlyargs) - 1:
            parts.append("/")
    if args.vararg:
        parts.append("*" + args.vararg.arg)
    elif args.kwonlyargs:
        parts.append("*")
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        parts.append(a.arg + ("=" if d is not None else ""))
    if args.kwarg:
        parts.append("**" + args.kwarg.arg)
    if drop_first and parts and parts[0] == "/":
        parts.pop(0)
    return "(" + ", ".join(parts) + ")"


def _doc_signature(doc: str) -> Optional[str]:
    m = _DOC_SIG.search(doc[:400])
    if not m:
        return None
    try:
        fn = ast.parse(f"def f({m.group(2)}): pass").body[0]
    except SyntaxError:
        return None
    return signature(fn.args)


@dataclass
class Entry:
    kind: str                       # function | class | attr | alias | module
    file: str = ""
    sigs: list[str] = field(default_factory=list)
    members: dict[str, Entry] = field(default_factory=dict)
    bases: list[str] = field(default_factory=list)
    target: tuple[str, str] = ("", "")   # alias: (module, name); name "" means the module itself
    raises: bool = False                 # a function whose body only raises (a removed API's stub)

    @property
    def sig(self) -> str:
        if self.kind == "function":
            return (" | ".join(sorted(set(self.sigs))) or "()") + (" raises" if self.raises else "")
        init = self.members.get("__init__")
        if self.kind == "class" and init is not None and init.kind == "function":
            return "class " + init.sig        # the constructor's parameters
        return self.kind


@dataclass
class Module:
    name: str
    file: str
    defs: dict[str, Entry] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)
    dir_loops: list[str] = field(default_factory=list)
    all: Optional[list[str]] = None


def _resolve_relative(module: str, is_pkg: bool, level: int, name: Optional[str]) -> str:
    if level == 0:
        return name or ""
    parts = module.split(".")
    base = parts if is_pkg else parts[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([name] if name else []))


def _dotted(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _str_list(node: ast.AST) -> Optional[list[str]]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


class _Parser:
    """Collects the module-level names of one file."""

    def __init__(self, mod: Module, is_pkg: bool, stub: bool):
        self.mod, self.is_pkg, self.stub = mod, is_pkg, stub

    def body(self, stmts, cls: Optional[Entry] = None):
        for s in stmts:
            self.stmt(s, cls)

    def _func(self, s, cls: Optional[Entry]):
        decos = {_dotted(d) or "" for d in s.decorator_list}
        static = bool(decos & {"staticmethod"})
        target = cls.members if cls else self.mod.defs
        drop = cls is not None and not static
        if decos & {"property", "cached_property", "functools.cached_property"} or any(d.endswith(".setter") for d in decos):
            target.setdefault(s.name, Entry("attr", self.mod.file))
            return
        e = target.get(s.name)
        if e is None or e.kind != "function" or not ("overload" in decos or "typing.overload" in decos or self.stub):
            e = target[s.name] = Entry("function", self.mod.file)
        e.sigs.append(signature(s.args, drop_first=drop))
        body = [b for b in s.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
        e.raises = (not self.stub and bool(body) and isinstance(body[-1], ast.Raise)
                    and not any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in ast.walk(s)))

    def stmt(self, s, cls: Optional[Entry]):
        target = cls.members if cls else self.mod.defs
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._func(s, cls)
        elif isinstance(s, ast.ClassDef):
            e = Entry("class", self.mod.file, bases=[b for b in (_dotted(x) for x in s.bases) if b])
            target[s.name] = e
            self.body(s.body, e)
        elif isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                for n in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    if isinstance(n, ast.Name):
                        if n.id == "__all__" and cls is None and s.value is not None:
                            self.mod.all = _str_list(s.value) or []
                        else:
                            target[n.id] = self._value_entry(s.value)
        elif isinstance(s, ast.AugAssign) and cls is None:
            if isinstance(s.target, ast.Name) and s.target.id == "__all__":
                self.mod.all = (self.mod.all or []) + (_str_list(s.value) or [])
        elif isinstance(s, ast.Expr) and cls is None and isinstance(s.value, ast.Call):
            f = s.value.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "__all__" and s.value.args:
                arg = s.value.args[0]
                if f.attr == "append" and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    self.mod.all = (self.mod.all or []) + [arg.value]
                elif f.attr == "extend":
                    self.mod.all = (self.mod.all or []) + (_str_list(arg) or [])
        elif isinstance(s, ast.ImportFrom) and cls is None:
            src = _resolve_relative(self.mod.name, self.is_pkg, s.level, s.module)
            for a in s.names:
                if a.name == "*":
                    self.mod.stars.append(src)
                else:
                    self.mod.defs[a.asname or a.name] = Entry("alias", self.mod.file, target=(src, a.name))
        elif isinstance(s, ast.Import) and cls is None:
            for a in s.names:
                if a.asname:
                    self.mod.defs[a.asname] = Entry("alias", self.mod.file, target=(a.name, ""))
                else:
                    head = a.name.split(".")[0]
                    self.mod.defs.setdefault(head, Entry("alias", self.mod.file, target=(head, "")))
        elif isinstance(s, ast.For) and cls is None:
            self._dir_loop(s)
        elif isinstance(s, ast.If):
            self.body(s.body, cls)
            self.body(s.orelse, cls)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            self.body(s.body, cls)
            for h in s.handlers:
                self.body(h.body, cls)
            self.body(s.orelse, cls)
            self.body(s.finalbody, cls)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            self.body(s.body, cls)
        elif isinstance(s, ast.Delete) and cls is None:
            for t in s.targets:
                if isinstance(t, ast.Name):
                    self.mod.defs.pop(t.id, None)

    def _value_entry(self, v) -> Entry:
        if isinstance(v, ast.Call):
            fn = _dotted(v.func) or ""
            if fn.split(".")[-1] in ("_add_docstr", "add_docstr") and len(v.args) >= 2:
                doc = v.args[1]
                if isinstance(doc, ast.Constant) and isinstance(doc.value, str):
                    sig = _doc_signature(doc.value)
                    if sig:
                        return Entry("function", self.mod.file, sigs=[sig])
        return Entry("attr", self.mod.file)

    def _dir_loop(self, s: ast.For):
        """``for n in dir(X): ... globals()[n] = ...`` re-exports every name of X."""
        it = s.iter
        if not (isinstance(it, ast.Call) and _dotted(it.func) == "dir" and it.args):
            return
        src = _dotted(it.args[0])
        if src is None:
            return
        sets_globals = any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Call)
                           and _dotted(n.value.func) == "globals"
                           for st in ast.walk(s) if isinstance(st, ast.Assign) for n in st.targets)
        if sets_globals:
            head, _, rest = src.partition(".")
            e = self.mod.defs.get(head)
            base = e.target[0] + ("." + e.target[1] if e.target[1] else "") if e and e.kind == "alias" else head
            self.mod.dir_loops.append(base + ("." + rest if rest else ""))


class Surface:
    """Modules of one wheel, parsed on first use."""

    def __init__(self, files: Mapping[str, bytes] | None = None, *, path: Path | None = None):
        self._zip = zipfile.ZipFile(path) if path is not None else None
        self._files = files
        names = list(files) if files is not None else self._zip.namelist()
        self.modules: dict[str, str] = {}      # dotted module -> member file (.pyi wins over .py)
        for n in names:
            if not n.startswith(ROOT_PACKAGE + "/") or not n.endswith((".py", ".pyi")):
                continue
            stem = n.rsplit(".", 1)[0]
            mod = stem[: -len("/__init__")] if stem.endswith("/__init__") else stem
            dotted = mod.replace("/", ".")
            if dotted not in self.modules or n.endswith(".pyi"):
                self.modules[dotted] = n
        self._parsed: dict[str, Module] = {}

    def read(self, name: str) -> bytes:
        return self._files[name] if self._files is not None else self._zip.read(name)

    def module(self, name: str) -> Optional[Module]:
        if name not in self.modules:
            return None
        if name not in self._parsed:
            file = self.modules[name]
            mod = Module(name, file)
            self._parsed[name] = mod
            try:
                tree = ast.parse(self.read(file))
            except (SyntaxError, ValueError):
                return mod
            _Parser(mod, file.endswith(("__init__.py", "__init__.pyi")), file.endswith(".pyi")).body(tree.body)
            # A .py next to its .pyi stub contributes what the stub lacks (e.g. __all__).
            py = file[:-1] if file.endswith(".pyi") else None
            if py and self._has(py):
                extra = Module(name, py)
                try:
                    _Parser(extra, py.endswith("__init__.py"), False).body(ast.parse(self.read(py)).body)
                except (SyntaxError, ValueError):
                    pass
                for k, v in extra.defs.items():
                    mod.defs.setdefault(k, v)
                mod.stars += extra.stars
                mod.dir_loops += extra.dir_loops
                mod.all = mod.all if mod.all is not None else extra.all
        return self._parsed[name]

    def _has(self, member: str) -> bool:
        if self._files is not None:
            return member in self._files
        try:
            self._zip.getinfo(member)
            return True
        except KeyError:
            return False

    def _loop_source(self, mod: Module, src: str) -> str:
        """The module a ``dir()`` loop reads: absolute, or a submodule of the package."""
        return src if src in self.modules else f"{mod.name}.{src}"

    # ------------------------------------------------------------------ lookup
    def exports(self, mod: Module) -> set[str]:
        """Names ``from mod import *`` brings (its ``__all__``, else its public names)."""
        if mod.all is not None:
            return set(mod.all)
        return {n for n in mod.defs if not n.startswith("_")}

    def lookup(self, modname: str, name: str, _seen=None) -> Optional[tuple[Entry, str]]:
        """(entry, defining module) for ``modname.name``, following aliases and star imports."""
        seen = _seen if _seen is not None else set()
        if (modname, name) in seen or len(seen) > 60:
            return None
        seen.add((modname, name))
        mod = self.module(modname)
        if mod is None:
            return None
        e = mod.defs.get(name)
        if e is not None:
            if e.kind != "alias":
                return e, modname
            src, attr = e.target
            if attr == "":
                return (Entry("module", self.modules.get(src, "")), src) if src in self.modules else None
            found = self.lookup(src, attr, seen)
            if found:
                return found
            sub = f"{src}.{attr}"
            if sub in self.modules:
                return Entry("module", self.modules[sub]), sub
            return None
        sub = f"{modname}.{name}"
        if sub in self.modules:
            return Entry("module", self.modules[sub]), sub
        for star in mod.stars:
            smod = self.module(star)
            if smod is not None and name in self.exports(smod):
                found = self.lookup(star, name, seen)
                if found:
                    return found
        if not name.startswith("__"):
            for src in (self._loop_source(mod, x) for x in mod.dir_loops):
                found = self.lookup(src, name, seen)
                if found:
                    return found
        return None

    def follow(self, where: str, dotted: str) -> Optional[tuple[Entry, str]]:
        """Resolve ``dotted`` as written inside module ``where`` (a base class, an alias)."""
        head, *rest = dotted.split(".")
        found = self.lookup(where, head)
        if not found:
            return None
        e, w = found
        for part in rest:
            if e.kind == "module":
                found = self.lookup(w, part)
                if not found:
                    return None
                e, w = found
            elif e.kind == "class" and part in e.members:
                e = e.members[part]
            else:
                return None
        return e, w

    def _member(self, cls: Entry, modname: str, name: str, depth: int = 0) -> Optional[Entry]:
        if name in cls.members:
            return cls.members[name]
        if depth > 8:
            return None
        for b in cls.bases:
            found = self.follow(modname, b)
            if found and found[0].kind == "class" and found[0] is not cls:
                m = self._member(found[0], found[1], name, depth + 1)
                if m is not None:
                    return m
        return None

    def resolve(self, dotted: str) -> Optional[dict]:
        """{"public", "file", "sig", "kind"} if ``dotted`` is reachable in the wheel, else None."""
        parts = dotted.split(".")
        if parts[0] != ROOT_PACKAGE or ROOT_PACKAGE not in self.modules:
            return None
        # walk from the package down: a name bound in a package wins over its submodule,
        # as in Python after `from ..switch import switch`
        i, modname = 1, ROOT_PACKAGE
        entry, where = Entry("module", self.modules[modname]), modname
        for part in parts[i:]:
            if entry.kind == "module":
                found = self.lookup(where, part)
                if not found:
                    return None
                entry, where = found
            elif entry.kind == "class":
                m = self._member(entry, where, part)
                if m is None:
                    return None
                if m.kind == "alias":
                    return None
                entry = m
            else:
                return None
        return {"public": not any(p.startswith("_") for p in parts[1:]), "file": entry.file or self.modules.get(where, ""),
                "sig": entry.sig, "kind": entry.kind}

    # ------------------------------------------------------------------ enumeration
    def public(self) -> dict[str, str]:
        """Every public dotted name -> signature (functions) or kind (class, attr, module)."""
        out: dict[str, str] = {}
        exported: list[tuple[str, Entry, str]] = []
        mods = sorted((m for m in self.modules if not any(p.startswith("_") for p in m.split(".")[1:])),
                      key=lambda m: (m.count("."), m))
        for modname in mods:
            mod = self.module(modname)
            out[modname] = "module"
            if mod.all is not None:
                names = set(mod.all)
            else:
                # defined here, or re-exported from a private module (the usual way to publish)
                names = {n for n, e in mod.defs.items() if e.kind != "alias" or (
                    e.target[1] and any(p.startswith("_") for p in e.target[0].split(".")[1:]))}
                for star in mod.stars:
                    smod = self.module(star)
                    if smod is not None:
                        names |= self.exports(smod)
            for src in mod.dir_loops:
                smod = self.module(self._loop_source(mod, src))
                if smod is not None:
                    names |= set(smod.defs)
            for n in sorted(names):
                if n.startswith("_") or f"{modname}.{n}" in out:
                    continue
                found = self.lookup(modname, n)
                if found is None or found[0].kind == "module":
                    continue      # a module is listed on its own
                out[f"{modname}.{n}"] = found[0].sig
                exported.append((f"{modname}.{n}", found[0], found[1]))
        self._public_classes = {id(e) for _, e, _ in exported if e.kind == "class"}
        done: set[int] = set()
        for name, e, where in exported:
            self._add(out, name, e, where, done, 0)
        return out

    def _add(self, out, name, e: Entry, where: str, done: set, depth: int):
        out[name] = e.sig
        if e.kind != "class" or id(e) in done or depth > 3:
            return
        done.add(id(e))
        for m, me in sorted(self._own_members(e, where).items()):
            if m.startswith("_") or me.kind == "alias":
                continue
            self._add(out, f"{name}.{m}", me, where, done, depth + 1)

    def _own_members(self, cls: Entry, where: str, depth: int = 0) -> dict[str, Entry]:
        """A class's members plus those of bases that have no public name of their own
        (``torch._C.TensorBase`` for ``torch.Tensor``); a public base lists its own members."""
        members: dict[str, Entry] = {}
        for b in cls.bases if depth < 6 else []:
            found = self.follow(where, b)
            if found and found[0].kind == "class" and found[0] is not cls and id(found[0]) not in self._public_classes:
                members.update(self._own_members(found[0], found[1], depth + 1))
        members.update(cls.members)
        return members


def write_surface(names: dict[str, str], header: str) -> str:
    """The lock text: header lines, then a tree sorted by name, one name a line: one space of
    indent per level, the last dotted component, a tab, the signature (or module/class/attr).
    A parent that is not itself public is written with an empty signature."""
    lines, stack = [header.rstrip("\n")], []
    for name in sorted(names, key=lambda n: n.split(".")):
        parts = name.split(".")
        common = 0
        while common < min(len(stack), len(parts) - 1) and stack[common] == parts[common]:
            common += 1
        for depth in range(common, len(parts) - 1):
            lines.append(" " * depth + parts[depth] + "\t")
        lines.append(" " * (len(parts) - 1) + parts[-1] + "\t" + names[name])
        stack = parts
    return "\n".join(lines) + "\n"


def read_surface(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(header fields, {dotted name: signature}) from text written by ``write_surface``."""
    head, names, stack = {}, {}, []
    for line in text.splitlines():
        if not line:
            continue
        if line[0] == "#":
            for kv in line[1:].split():
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    head[k] = v
            continue
        body = line.lstrip(" ")
        part, _, sig = body.partition("\t")
        del stack[len(line) - len(body):]   # the depth is the indent
        stack.append(part)
        if sig:
            names[".".join(stack)] = sig
    return head, names
