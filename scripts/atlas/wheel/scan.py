"""Look up the fact base's identifiers, error messages and entry points in one wheel.

In:  a wheel path (a zip; nothing is installed or imported) and the ``Ident``s / ``ErrorRef``s
     of ``idents.py``.
Out: JSON-ready observations for ``data/evidence.lock.yaml``: for an identifier, where the
     wheel has it (``{"how", "file", "name"}``, or None when absent); for an error message,
     the file that contains its template and, for Python sources, the wheel's own text; for
     each entry point, whether the module it names is in the wheel. ``atlas evidence``
     runs this once per wheel; the site only reads the lock.

Where an identifier is looked for, in order: the public API surface (``surface.py``: a dotted
name that resolves, a class member or function parameter of that name), the entry points,
Python sources and C++ headers as text (as a whole word, or as a quoted string for backend
names), then the strings of the shared libraries.
"""
from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
import zipfile
from pathlib import Path
from typing import Optional

from ..idents import ErrorRef, Ident, template
from .surface import Surface

TEXT_EXT = (".py", ".pyi", ".h", ".hpp", ".cuh")
#: Shared libraries whose strings are searched, smallest first (most messages live in the
#: Python bindings or the CPU library; libtorch_cuda.so is read only when still needed).
LIBS = ("torch/lib/libc10.so", "torch/lib/libc10_cuda.so", "torch/lib/libtorch_python.so",
        "torch/lib/libtorch_cpu.so", "torch/lib/libtorch_cuda.so")


class WheelIndex:
    """One wheel: its surface, its text files concatenated for fast search, its libraries."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.zip = zipfile.ZipFile(self.path)
        self.surface = Surface(path=self.path)
        self._text: Optional[str] = None
        self._starts: list[int] = []
        self._files: list[str] = []
        self._libs: dict[str, bytes] = {}
        self._public: Optional[dict[str, str]] = None
        self._last: Optional[dict[str, list[str]]] = None
        self._prose: dict[str, list[tuple[int, int]]] = {}

    # --------------------------------------------------------------- reading
    @property
    def text(self) -> str:
        if self._text is None:
            parts, pos = [], 0
            for info in self.zip.infolist():
                if info.filename.startswith("torch/") and info.filename.endswith(TEXT_EXT):
                    body = self.zip.read(info).decode("utf-8", "replace")
                    self._starts.append(pos)
                    self._files.append(info.filename)
                    parts.append(body)
                    pos += len(body) + 1
                    parts.append("\0")
            self._text = "".join(parts)
        return self._text

    def file_at(self, pos: int) -> str:
        return self._files[bisect.bisect_right(self._starts, pos) - 1]

    def file_text(self, name: str) -> str:
        i = self._files.index(name)
        end = self._starts[i + 1] - 1 if i + 1 < len(self._starts) else len(self.text)
        return self.text[self._starts[i]:end]

    def lib(self, name: str, strings_only: bool = True) -> bytes:
        """A shared library's bytes; with ``strings_only``, only its read-only data sections
        (where C++ string literals live), which is what messages are searched in."""
        if name not in self._libs:
            try:
                self._libs[name] = self.zip.read(name)
            except KeyError:
                self._libs[name] = b""
        data = self._libs[name]
        if not strings_only:
            return data
        key = name + ":ro"
        if key not in self._libs:
            self._libs[key] = b"\0".join(bytes(data[a:b]) for a, b in elf_sections(data, (".rodata", ".dynstr"))) or data
        return self._libs[key]

    def public(self) -> dict[str, str]:
        if self._public is None:
            self._public = self.surface.public()
        return self._public

    def by_last(self) -> dict[str, list[str]]:
        """Last dotted component -> public names ending with it."""
        if self._last is None:
            self._last = {}
            for n in self.public():
                self._last.setdefault(n.rsplit(".", 1)[-1], []).append(n)
        return self._last

    def entry_points(self) -> dict[str, str]:
        """{"group:name": "module:attr"} from entry_points.txt."""
        import configparser

        name = next((n for n in self.zip.namelist() if n.endswith(".dist-info/entry_points.txt")), None)
        if name is None:
            return {}
        cp = configparser.ConfigParser(delimiters=("=",), interpolation=None)
        cp.optionxform = str
        cp.read_string(self.zip.read(name).decode("utf-8"))
        return {f"{g}:{k}": v.strip() for g in cp.sections() for k, v in cp[g].items()}

    # --------------------------------------------------------------- searching
    def find_text(self, pattern: str, word: bool = True, quoted: bool = False) -> Optional[str]:
        """The first text file containing ``pattern`` (as a word, or as a quoted string)."""
        text = self.text
        if quoted:
            for q in ('"', "'"):
                i = text.find(q + pattern + q)
                if i >= 0:
                    return self.file_at(i)
            return None
        if not word:
            i = text.find(pattern)
            return self.file_at(i) if i >= 0 else None
        rx = re.compile(r"(?<![\w.])" + re.escape(pattern) + r"(?!\w)")
        start = 0
        while True:
            i = text.find(pattern, start)
            if i < 0:
                return None
            if rx.match(text, i - 1 if i else 0) or rx.match(text, i):
                return self.file_at(i)
            start = i + 1

    def find_word(self, pattern: str) -> Optional[tuple[str, bool]]:
        """(file, in_code) of ``pattern`` as a word: the first file where it is code (a name, a
        string, a key: not only a comment or a docstring), else the first file that only mentions
        it in a comment or docstring (in_code False); None when no text file has it."""
        text = self.text
        rx = re.compile(r"(?<![\w.])" + re.escape(pattern) + r"(?!\w)")
        mention, i = None, text.find(pattern)
        # str.find jumps to each occurrence; the regex only judges the word boundaries there (a
        # regex that starts with a lookbehind scans the ~300 MB text position by position)
        while i >= 0:
            if rx.match(text, i):
                f = self.file_at(i)
                if not self._in_prose(f, i - self._starts[bisect.bisect_right(self._starts, i) - 1]):
                    return f, True
                mention = mention or f
            i = text.find(pattern, i + 1)
        return (mention, False) if mention else None

    def _in_prose(self, file: str, offset: int) -> bool:
        """Whether ``offset`` of ``file`` is inside a comment or a docstring."""
        if file not in self._prose:
            self._prose[file] = _prose_spans(self.file_text(file), file.endswith((".py", ".pyi")))
        spans = self._prose[file]
        i = bisect.bisect_right(spans, (offset, float("inf"))) - 1
        return i >= 0 and spans[i][0] <= offset < spans[i][1]

    def find_lib(self, needles: list[bytes], libs=LIBS, strings_only: bool = True, whole: str = "") -> Optional[str]:
        """The first library whose strings contain every needle; ``whole="string"`` asks for a
        complete C string, ``whole="word"`` for a word (no letter, digit or _ around it)."""
        for lib in libs:
            data = self.lib(lib, strings_only)
            if not data or not all(n in data for n in needles):
                continue
            if not whole:
                return lib
            n, start = needles[0], 0
            for _ in range(2000):
                i = data.find(n, start)
                if i < 0:
                    break
                before, after = data[i - 1:i], data[i + len(n):i + len(n) + 1]
                if whole == "string" and before == b"\0" and after == b"\0":
                    return lib
                if whole == "word" and not (before.isalnum() or before == b"_") and not (after.isalnum() or after == b"_"):
                    return lib
                start = i + 1
        return None

    def find_definition(self, last: str) -> Optional[str]:
        """A Python file that defines ``last`` (def/class), for a name that does not resolve."""
        for pat in (f"def {last}(", f"class {last}(", f"class {last}:", f"\n{last} = "):
            f = self.find_text(pat, word=False)
            if f:
                return f
        return None


_C_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _prose_spans(src: str, python: bool) -> list[tuple[int, int]]:
    """Sorted (start, end) character spans of the comments and docstrings of a source text: the
    comments and the string statements of Python (tokenize), or // and /* */ comments of C/C++."""
    if not python:
        return [m.span() for m in _C_COMMENT.finditer(src)]
    lines = src.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def off(pos: tuple[int, int]) -> int:
        return starts[pos[0] - 1] + pos[1] if pos[0] - 1 < len(starts) else len(src)
    spans, prev = [], tokenize.NEWLINE
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.COMMENT or tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.NL):
                spans.append((off(tok.start), off(tok.end)))
            if tok.type not in (tokenize.COMMENT,):
                prev = tok.type
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass        # a file tokenize cannot read to its end: what was read so far counts
    return sorted(spans)


def elf_sections(data: bytes, names: tuple[str, ...]) -> list[tuple[int, int]]:
    """(start, end) offsets of the named sections of a 64-bit little-endian ELF file."""
    import struct

    if data[:4] != b"\x7fELF" or data[4] != 2:
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab_off = heads[shstrndx][4]
    out = []
    for name_off, _type, _flags, _addr, off, size in heads:
        end = data.index(b"\0", strtab_off + name_off)
        if data[strtab_off + name_off:end].decode("ascii", "replace") in names:
            out.append((off, off + size))
    return out


def _found(how: str, file: str, name: str = "") -> dict:
    d = {"how": how, "file": file}
    if name:
        d["name"] = name
    return d


def find_ident(w: WheelIndex, ident: Ident) -> Optional[dict]:
    """Where the wheel has the identifier, or None."""
    kind, q = ident.kind, ident.query
    if kind == "api":
        r = w.surface.resolve(q)
        if r and not (ident.param and ident.param not in r["sig"] and not w.surface.resolve(f"{q}.{ident.param}")):
            found = _found("public" if r["public"] else "private", r["file"], q)
            if r["sig"].endswith(" raises"):
                found["stub"] = True      # kept only to raise an error: a removed API
            return found
        where = w.find_definition(q.rsplit(".", 1)[-1])
        return {"how": "elsewhere", "file": where} if where else None
    if kind == "target":     # GPU code for a target is in the CUDA library, not only its name
        lib = w.find_lib([q.encode()], libs=("torch/lib/libtorch_cuda.so",), strings_only=False)
        return _found("library", lib) if lib else None
    if kind == "message":
        exc, frags = template(q)
        found = find_error(w, ErrorRef(ident.key, ident.change, q, "", exc, frags))
        if found and found.get("partial"):
            found["how"] = "mention"      # worded differently: not this message
        return found
    if kind == "constant":
        f = w.find_text(q)
        if f:
            return _found("text", f)
        lib = w.find_lib([q.encode()])
        return _found("library", lib) if lib else None
    if kind == "backend":
        for ep, _target in w.entry_points().items():
            if ep.split(":", 1)[1] == q:
                return _found("entry_point", "entry_points.txt", ep)
        f = w.find_text(q, quoted=True)
        if f:
            return _found("text", f)
        lib = w.find_lib([q.encode()], whole="string")
        return _found("library", lib) if lib else None
    if kind == "kwvalue":
        for q_ in ('"', "'"):
            lit = q_ + ident.param + q_
            start = 0
            while True:
                i = w.text.find(lit, start)
                if i < 0:
                    break
                f = w.file_at(i)
                if re.search(r"(?<!\w)" + re.escape(q) + r"(?!\w)", w.file_text(f)):
                    return _found("text", f)
                start = i + 1
        return None
    if kind == "name":
        parts = q.split(".")
        last = parts[-1]
        # qualified by a module the same change names (Transport.read_stream in torch.distributed._transport)
        for ctx in ident.context:
            r = w.surface.resolve(f"{ctx}.{q}")
            if r and not (ident.param and ident.param not in r["sig"]):
                return _found("public" if r["public"] else "private", r["file"], f"{ctx}.{q}")
        # a public name ending with the dotted query (Transport.read_stream, ProcessGroupNCCL.Options.lazy_init)
        for n in sorted(w.by_last().get(last, []), key=lambda n: (n.count("."), n)):
            if n.endswith("." + q):
                sig = w.public()[n]
                if ident.param and ident.param not in sig and f"{n}.{ident.param}" not in w.public():
                    continue
                r = w.surface.resolve(n)
                return _found("public", r["file"] if r else "", n)
        if len(parts) == 1 and not ident.param:
            for ep in w.entry_points():
                if ep.split(":", 1)[1] == q:
                    return _found("entry_point", "entry_points.txt", ep)
            # a parameter of a public function
            rx = re.compile(r"[(, *]" + re.escape(q) + r"[=,)]")
            for n, sig in sorted(w.public().items()):
                if sig.startswith("(") and rx.search(sig):
                    r = w.surface.resolve(n)
                    return _found("parameter", r["file"] if r else "", n)
        needle = ident.param or last
        weak = len(parts) > 1 or bool(ident.param)   # only a word match of part of the name
        hit = w.find_word(needle)
        if hit:
            # in code (a config key, a string the code compares): the feature; only in a comment or
            # a docstring: a mention, which never shows that the wheel has the thing
            return _found("mention" if weak else ("code" if hit[1] else "comment"), hit[0])
        lib = w.find_lib([needle.encode()], whole="word")
        return _found("mention" if weak else "library", lib) if lib else None
    return None


def _norm(t: str) -> str:
    return " ".join(t.split())


def _literals(source: str) -> list[tuple[str, str]]:
    """(exception raised with it or "", text) of every string literal of a Python file;
    f-string fields become ``{}``, implicitly concatenated parts are one literal."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    exc_of: dict[int, str] = {}
    for r in ast.walk(tree):
        if isinstance(r, ast.Raise) and isinstance(r.exc, ast.Call):
            f = r.exc.func
            name = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")
            for n in ast.walk(r.exc):
                exc_of[id(n)] = name
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}   # docstrings, bare strings
    out = []
    for node in ast.walk(tree):
        if id(node) in docs:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((exc_of.get(id(node), ""), node.value))
        elif isinstance(node, ast.JoinedStr):
            out.append((exc_of.get(id(node), ""),
                        "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)))
    return out


def find_error(w: WheelIndex, e: ErrorRef) -> Optional[dict]:
    """Where the wheel has the message: a Python string literal that contains every literal
    fragment (its text, as the wheel has it, is returned too), a header, or a library.
    A literal that contains the start of the message but not all of it is returned with
    ``"partial": True``: the wheel words the message differently."""
    frags = [_norm(f) for f in e.fragments]
    if len(frags[0]) < 12 or " " not in frags[0]:
        return None          # a bare name is not a message; idents.py gives the reason
    seed = frags[0][:24]
    text, start, partial = w.text, 0, None
    seen: set[str] = set()
    while True:
        i = text.find(seed, start)
        if i < 0:
            break
        f = w.file_at(i)
        start = i + 1
        if f in seen:
            continue
        seen.add(f)
        if f.endswith(".py"):
            for exc, lit in _literals(w.file_text(f)):
                n = _norm(lit)
                if seed in n or (len(n) > 20 and n in frags[0]):
                    found = _found("text", f)
                    found["wheel_text"] = (f"{exc}: " if exc else "") + n
                    if all(fr in n for fr in frags):
                        return found
                    same_exc = not e.exception or e.exception.split(".")[-1] == exc
                    if e.origin in ("quoted", "wheel", "torch", "") and same_exc:   # a standard Python message is not torch's
                        partial = partial or {**found, "partial": True}
        elif all(fr in _norm(w.file_text(f)) for fr in frags):
            return _found("text", f)
    if partial:
        return partial
    lib = w.find_lib([fr.encode() for fr in frags])
    if lib:
        return _found("library", lib)
    # a message quoted with a concrete value at its end ("... the namespace triton"):
    # C++ builds it from a literal prefix, so look for the prefix without the last word
    head = frags[0].rsplit(" ", 1)[0]
    if head != frags[0] and len(head) >= 30:
        lib = w.find_lib([head.encode()])
        if lib:
            return {**_found("library", lib), "without_last_word": True}
    return None


def entry_point_report(w: WheelIndex) -> dict[str, dict]:
    """{"group:name": {"target": "module:attr", "module_present": bool}} for every entry point."""
    out = {}
    for ep, target in sorted(w.entry_points().items()):
        module = target.split(":", 1)[0].strip()
        present = module in w.surface.modules
        out[ep] = {"target": target, "module_present": present}
    return out
