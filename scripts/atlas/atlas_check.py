#!/usr/bin/env python3
"""atlas-check: what breaks in your PyTorch code and environment when you upgrade.

  python atlas_check.py code [--from V] [--to V] [--lang en|zh|ru|id] [--format text|json|sarif] PATH...
  python atlas_check.py env  [--to V] [--lang en|zh|ru|id] [--format text|json] FILE|-
  python atlas_check.py ckpt [--to V] [--lang en|zh|ru|id] [--format text|json] FILE...

code: reads Python files (directories are walked; .git, virtualenvs and __pycache__ are left
  out) with the standard library's parser, resolves imports (import torch as th, from torch
  import qr as q, ...) and reports every use of something that changes between the two
  releases, with its title, fix and permanent URL. --from defaults to the torch version the
  project pins (requirements*.txt, pyproject.toml, setup.cfg, environment.yml), else the oldest
  release the rules know; --to to the latest.
env: reads a paste of `python -m torch.utils.collect_env`, `pip freeze` or a requirements file,
  `nvidia-smi`, `sw_vers`, `rocminfo` or `rocm-smi`, and gives a verdict per item (ok, blocked,
  unknown) for the target release. What the paste does not show is unknown, never guessed.
ckpt: reads torch.save checkpoints (the zip format's data.pkl only, the legacy format's pickles,
  or a plain pickle) with pickletools, never unpickling and never reading tensor data, lists the
  globals they name and says whether torch.load of the target release loads them with its
  defaults; for what weights_only=True blocks, the add_safe_globals line to use.

Exit codes: 0 nothing found (env: nothing blocked; ckpt: every file loads); 1 only loads to review,
behaviour changes, deprecated switches or platform notes; 2 something breaks (env: something is blocked;
ckpt: a file does not load); 3 usage error; 4 the checker itself failed; 5 incomplete: a file
could not be read or parsed (--allow-skipped; ckpt: a file is no checkpoint, damaged or hostile).
`--fail-on breaks|review|deprecated|any` makes it 2 or 0 at that level.
torch.load is judged by what the code does with what it loads (load_state_dict, tensors: no
finding; an object: breaks; unknown: review, settled on the real file with `ckpt`); `--explain`
lists the loads cleared and why.
`# atlas: ignore` (or `# atlas: ignore[<change-id>]`) on a line drops its findings; `--baseline
FILE` drops those of an earlier `--format json` run.

Standard library only, Python 3.9+. The rules are embedded (RULES below) in the published file;
run from the Release Atlas repository, it builds them from the fact base, or reads --rules FILE.
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import os
import re
import sys
import tokenize
import unicodedata

RULES = None

#: a call whose left-out argument is another call's: new_group() without a backend uses the default
#: group's, which init_process_group() sets. {call: (keyword, setter)}
_DIST = ("torch.distributed.", "torch.distributed.distributed_c10d.")
INHERITS = {p + "new_group": ("backend", "init_process_group") for p in _DIST}
#: the calls that set an argument others inherit: {call: (name, keyword, position)}
SETTERS = {p + "init_process_group": ("init_process_group", "backend", 0) for p in _DIST}
INHERIT_UNKNOWN = " (its backend is the default group's, set outside this file)"

SCHEMA_VERSION = 1
#: the oldest Python this file runs on (the /check/ page says so)
MIN_PYTHON = "3.9"
TOOL = "atlas-check"
#: the reason a file that is no text is skipped; such a file leaves a run complete
BINARY = ("check.skip.binary", {})
EXIT_OK, EXIT_NOTES, EXIT_BREAKS, EXIT_USAGE, EXIT_CRASH, EXIT_INCOMPLETE = 0, 1, 2, 3, 4, 5
#: the largest file read (a bigger one is skipped, with this reason)
MAX_BYTES = 5000000
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", ".tox", ".nox", "node_modules",
             "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs"}
PIN_FILES = ("requirements*.txt", "pyproject.toml", "setup.cfg", "environment.yml", "environment.yaml")
BUILTINS = {"getattr", "isinstance", "issubclass", "dict", "type", "print"}
#: keywords whose string is text for a person (argparse, click), and calls that show their text
#: to a person: a variable or value named there is neither set nor read
DOC_KEYWORDS = {"help", "description", "epilog", "usage"}
MESSAGE_CALLS = {"builtins.print", "warnings.warn"}
MESSAGE_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical"}
LEVEL = {"breaks": "error", "review": "warning", "behavior": "warning", "deprecated": "warning", "deprecated-switch": "warning", "platform": "note",
         "guarded": "note"}
#: a compat guard: an ``except`` naming one of these, or an ``if`` whose test probes torch with
#: hasattr/getattr, names a torch version (is_version_name) or a module-level constant assigned
#: such a test. A use inside one is severity "guarded".
GUARD_EXCEPTIONS = {"AttributeError", "ImportError", "ModuleNotFoundError", "RuntimeError"}
#: the handlers that are the old-API fallback of a guard; a RuntimeError handler guards its try
#: body (a removed function's stub raises RuntimeError) but is often a numeric fallback itself
FALLBACK_EXCEPTIONS = {"AttributeError", "ImportError", "ModuleNotFoundError", "TypeError"}
#: a signature probe in a test (``'kw' in inspect.signature(f).parameters``, ``get_func_args(f)``,
#: ``f.__code__.co_varnames``): the test asks which form of a call the installed torch takes
SIGNATURE_PROBES = {"signature", "getfullargspec", "getargspec", "get_func_args", "co_varnames"}
#: test decorators that run a test only on some releases (``pytest.mark.skipif(<version test>)``)
SKIP_DECORATORS = {"skipif", "skipIf", "skipUnless"}
GUARD_NAMES = {"hasattr", "getattr"}

#: what a loaded value's use says it holds (Analyzer.load_flow, for a rule with ``into``): a dict's
#: methods read a container (``get``/``pop`` read one value, like a subscript); a tensor's own
#: attributes read a tensor; any other attribute (``model.eval()``, ``args.lr``) or a call reads an
#: object, which the new default of torch.load refuses. Methods a module shares with a tensor
#: (``.to``, ``.cuda``, ``.float``) say neither.
DICT_METHODS = {"items", "keys", "values", "get", "pop", "copy", "update", "setdefault"}
READS = {"get", "pop"}
TENSOR_ATTRS = {"shape", "size", "numel", "dim", "ndim", "dtype", "item", "tolist", "numpy", "view", "reshape",
                "squeeze", "unsqueeze", "permute", "transpose", "T", "detach", "clone", "contiguous", "copy_", "long",
                "int", "bool", "sum", "mean", "norm", "abs", "data", "is_floating_point", "new_tensor", "new_zeros"}
SHARED_ATTRS = {"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "type", "requires_grad_", "share_memory"}
#: builtins that read a value without handing it on
PLAIN_FUNCS = {"len", "isinstance", "print", "sorted", "list", "dict", "set", "str", "repr", "type", "bool", "int", "float"}
#: the operators around a plain read (a comparison, arithmetic, a truth test)
PLAIN_NODES = (ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Expr, ast.AugAssign, ast.Assert)


#: the words of a version test that is true on newer releases, and on older ones
_NEWER = re.compile(r"(?:^|_)(?:ge|gt|greater|newer|at_least|after|plus|min)(?:_|$)|^with_(?:pt|torch)_?\d|^has_torch_?\d")
_OLDER = re.compile(r"(?:^|_)(?:le|lt|less|older|before|below|max)(?:_|$)")


def version_direction(test):
    """Whether a version test is true on newer releases (True), on older ones (False) or says
    neither (None): ``not`` flips it; a comparison with the version on its left reads its operator
    (``>=``: newer); a name reads its words (_TORCH_GREATER_EQUAL_2_4: newer; TORCH_LT_2_4: older)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        d = version_direction(test.operand)
        return None if d is None else not d
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left = any(isinstance(n, (ast.Name, ast.Attribute)) and is_version_name(n.id if isinstance(n, ast.Name) else n.attr)
                   for n in ast.walk(test.left))
        op = test.ops[0]
        newer = isinstance(op, (ast.Gt, ast.GtE)) if isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) else None
        return None if newer is None else (newer if left else not newer)
    name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else \
        (test.func.id if isinstance(test.func, ast.Name) else test.func.attr if isinstance(test.func, ast.Attribute) else None) \
        if isinstance(test, ast.Call) else None
    if not name or not is_version_name(name):
        return None
    low = name.lower()
    return True if _NEWER.search(low) else False if _OLDER.search(low) else None


_VERSION_STR = re.compile(r"^v?([12])\.(\d+)")
_VERSION_IN_NAME = re.compile(r"(?<![0-9])([12])_(\d{1,2})(?![0-9])|(?<![0-9])([12])(\d{1,2})$")


def version_threshold(test):
    """The torch release (X.Y) a version test names, when it names exactly one: a string ("2.7",
    "2.4.0"), a tuple (2, 4) or a version name's digits (_TORCH_GREATER_EQUAL_2_4, TORCH_GE_214,
    WITH_PT24); else None. A branch written for that release or later knows the changes up to it."""
    found = set()
    for n in ast.walk(test):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            m = _VERSION_STR.match(n.value)
            if m:
                found.add((int(m[1]), int(m[2])))
        elif (isinstance(n, ast.Tuple) and len(n.elts) >= 2 and all(isinstance(e, ast.Constant) and type(e.value) is int
                                                                   for e in n.elts[:2]) and n.elts[0].value in (1, 2)):
            found.add((n.elts[0].value, n.elts[1].value))
        elif isinstance(n, (ast.Name, ast.Attribute)):
            name = n.id if isinstance(n, ast.Name) else n.attr
            m = _VERSION_IN_NAME.search(name) if is_version_name(name) else None
            if m:
                found.add((int(m[1] or m[3]), int(m[2] or m[4])))
    return "%d.%d" % found.pop() if len(found) == 1 else None


def is_version_name(name):
    """A name that says a torch version: version (packaging's), __version__, or one that names both
    torch and version (TORCH_VERSION, is_torch_version) or a comparison (_TORCH_GREATER_EQUAL_2_4,
    TORCH_GE_2_14), or PyG's WITH_PT24; not sys.version_info or fsdp_version."""
    low = name.lower()
    return (low in ("version", "__version__") or bool(re.match(r"with_pt_?\d", low))
            or ("torch" in low and ("version" in low or bool(_VERSION_WORD.search(low)))))


#: a torch-named constant that compares versions: _TORCH_GREATER_EQUAL_2_4, TORCH_GE_2_14, is_torch_less_than_2
_VERSION_WORD = re.compile(r"(?:^|_)(?:ge|gt|le|lt|greater|less|newer|older|at_least|before|after)(?:_|$)|\d_\d")
#: contexts and decorators that run code without gradients: a rule with ``grad_only`` stays quiet there
NO_GRAD = {"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.inference_mode",
           "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"}
#: integer tensors have no gradients, so a ``grad_only`` rule stays quiet on one the code shows to be
#: integer: a cast (x.long(), x.to(torch.int64), x.type(torch.LongTensor)), an index-valued method or
#: function (argmax, nonzero, randint, ...), a dtype= of an integer type, or a name last assigned one
_INT_DTYPES = ("long", "int", "int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64", "short", "bool",
               "LongTensor", "IntTensor", "ShortTensor", "ByteTensor", "CharTensor", "BoolTensor")
INT_DTYPES = {"torch." + d for d in _INT_DTYPES} | {"torch.cuda." + d for d in _INT_DTYPES if d.endswith("Tensor")}
INT_METHODS = {"long", "int", "short", "byte", "char", "bool", "argmax", "argmin", "argsort", "nonzero"}
INT_FUNCS = {"torch." + f for f in ("argmax", "argmin", "argsort", "nonzero", "randint", "randint_like", "randperm",
                                    "bucketize", "searchsorted", "multinomial", "count_nonzero")}
CAST_METHODS = {"to", "type"}
#: the formats parse_env reads, as the "no known format" message names them
ENV_FORMATS = ("python -m torch.utils.collect_env", "pip freeze", "pip list", ("check.cli.format_requirements", {}), "nvidia-smi",
               "nvidia-smi -L", "nvidia-smi -q", ("check.cli.format_warning", {}), "sw_vers", "rocminfo",
               "rocm-smi", "lspci -nn")
#: items that judge the build the paste has installed, not the machine (newest_runnable leaves them out)
BUILD_CHOICES = ("cuda_wheel", "rocm_wheel")
#: the items of the environment check, in the order they are reported
ENV_CHECKS = ("python", "nvidia_driver", "gpu_arch", "macos_mps", "rocm_target", "rocm_wheel", "cuda_wheel", "platform")


# ------------------------------------------------------------------------------ words
# Every word the checker prints is a UI string of the site (data/i18n/<lang>.yaml, keys check.*),
# shipped in the rules (rules["ui"][lang]) with each language's CLDR plural rule (rules["plural"]):
# a message is (key, {placeholder: value}), worded by say(); a value may be a message itself.
def msg(key, **args):
    """A message: the UI string ``key`` with these placeholder values."""
    return (key, args)


def _operand(node, n):
    """A CLDR plural operand of the count ``n`` (an integer: i = n, no fraction digits)."""
    op, args = node
    if op == "value":
        return args[0]
    if op == "mod":
        return _operand(args[0], n) % _operand(args[1], n)
    return abs(int(n)) if op in ("n", "i") else 0


def _holds(node, n):
    op, args = node
    if op == "and":
        return all(_holds(a, n) for a in args)
    if op == "or":
        return any(_holds(a, n) for a in args)
    if op == "not":
        return not _holds(args[0], n)
    _method, expr, ranges = args   # relation: in / within a range list
    v = _operand(expr, n)
    return any(_operand(lo, n) <= v <= _operand(hi, n) for lo, hi in ranges[1])


def plural_category(rule, n):
    """The CLDR category of the count ``n`` under ``rule`` (Babel's abstract syntax, atlas.plural.abstract)."""
    return next((cat for cat, cond in rule if _holds(cond, n)), "other")


def say(rules, lang, message):
    """The text of a message in ``lang``: the form of its count ``n`` when the string has plural
    forms, placeholders filled (a message as a value is worded first); "" for None."""
    if message is None:
        return ""
    if isinstance(message, str):
        return message
    if isinstance(message, list):   # values, or messages, one after another
        return rules["ui"][lang]["check.cli.sep"].join(say(rules, lang, x) for x in message)
    key, args = message
    value = rules["ui"][lang][key]
    if isinstance(value, dict):
        value = value.get(plural_category(rules["plural"][lang], args.get("n", 0)), value["other"])
    return re.sub(r"\{(\w+)\}", lambda m: say(rules, lang, args[m.group(1)]) if isinstance(args.get(m.group(1)), (tuple, list))
                  else str(args[m.group(1)]) if m.group(1) in args else m.group(0), value)


# ------------------------------------------------------------------------------ rules
def load_rules(path=None):
    """The embedded rules, a --rules file, or (in the repository) rules built from the data."""
    if path:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    if RULES is not None:
        return RULES
    try:   # from the repository: the rules are built from its data (`atlas check`)
        from atlas.enrich import enrich
        from atlas.load import load
        from atlas.rules import build_rules
        from atlas.validate import validate
    except ImportError:
        sys.stderr.write("atlas_check: no rules: download atlas_check.py from the site's /check/ page (the rules are "
                         "built in), pass --rules FILE, or run `atlas check` in the repository's virtualenv\n")
        raise SystemExit(3) from None
    return build_rules(enrich(validate(load())))


def vkey(v):
    return tuple(int(x) for x in v.split(".")[:2])


def release_of(version, releases):
    """'2.14.1+cu130' -> ('2.14', None). Older than the oldest known release -> the oldest, with a
    note (a message, ``msg``); unknown otherwise -> (None, note)."""
    m = re.match(r"\s*v?(\d+)\.(\d+)", version or "")
    if not m:
        return None, msg("check.note.not_version", version=repr(version))
    rel = "%s.%s" % (m.group(1), m.group(2))
    if rel in releases:
        return rel, None
    if vkey(rel) < vkey(releases[0]):
        return releases[0], msg("check.note.older", version=version, oldest=releases[0])
    return None, msg("check.note.unknown_release", version=version, releases=", ".join(releases))


#: severities of a name or switch that still works but is on its way out: reported while still in
#: force at ``to``, even when deprecated at or before ``from`` (the project already runs it deprecated)
IN_FORCE = ("deprecated", "deprecated-switch")


def earlier_deprecation(rule, frm, to):
    """Whether ``rule`` applies only as a deprecation made at or before ``frm`` and still in force at
    ``to`` (not removed by then, not back): reported "since X, before your --from"."""
    k = vkey
    return (rule["severity"] in IN_FORCE and k(rule["introduced_in"]) <= k(frm) < k(to) and to not in rule.get("back_in", ())
            and not (rule.get("removed_in") and k(rule["removed_in"]) <= k(to)))


def rule_release(rule, to):
    """The release whose change a use of ``rule`` meets on the way to ``to``: its removal when that is
    reached, else the release that introduced it."""
    gone = rule.get("removed_in")
    return gone if gone and vkey(gone) <= vkey(to) else rule["introduced_in"]


def rule_severity(rule, frm, to):
    """The rule's severity for an upgrade from -> to, or None when it does not apply (also when
    the installed release ``to`` has the name or keyword back: ``back_in``). A deprecation made at
    or before ``frm`` applies while it is still in force at ``to`` (``earlier_deprecation``)."""
    k = vkey
    if to in rule.get("back_in", ()):
        return None
    if k(frm) < k(rule["introduced_in"]) <= k(to) or earlier_deprecation(rule, frm, to):
        pass
    elif not (rule.get("removed_in") and k(frm) < k(rule["removed_in"]) <= k(to)):
        return None
    if rule.get("removed_in") and k(to) >= k(rule["removed_in"]):
        return "breaks"
    return rule["severity"]


# ------------------------------------------------------------------------------ project pins
#: a torch requirement: "torch==2.4.1", "Torch>=2.2" (names are case-insensitive), "torch ~= 2.14.0",
#: conda's "pytorch=2.14.1", Poetry's 'torch = "^2.1"' and 'torch = {version = ">=2.1", source = ...}'
_PIN = re.compile(r"""(?<![\w.-])(?:torch|pytorch)(?![\w-])\s*(?:\[[^\]]*\])?\s*(?:===?|>=|~=|>|=(?=\s*\d)|"""
                  r"""\s*=\s*(?:\[\s*)?(?:\{[^}\n]*?\bversion\s*=\s*)?["']\s*(?:[\^~]=?|[>=]=|>)?)\s*v?(\d+\.\d+(?:\.\d+)?)""",
                  re.I)
#: a wheel named by URL or path: "torch @ https://.../torch-2.4.1%2Bcu121-cp311-...whl"
_WHEEL_PIN = re.compile(r"""(?:^|[/\s@=])torch-(\d+\.\d+(?:\.\d+)?)(?:%2B|\+|-)[^\s"'#]*\.whl""", re.I)
_TOML_TABLE = re.compile(r"""^\s*\[\[?\s*([A-Za-z0-9_."' -]+?)\s*\]\]?\s*(?:#.*)?$""")


def _pin_in(text):
    """(version, line) of the first torch pin in a requirements, TOML, setup.cfg or conda file; a
    pin in pyproject's [build-system] (what builds the project) only when the project pins nothing."""
    build = None
    table = ""
    for line in text.splitlines():
        t = _TOML_TABLE.match(line)
        if t:
            table = t.group(1).strip("\"' ").lower()
            continue
        line = line.split("#", 1)[0] if not line.lstrip().startswith(("'", '"')) else line
        m = _PIN.search(line) or _WHEEL_PIN.search(line)
        if not m:
            continue
        if table == "build-system":
            build = build or (m.group(1), line.strip())
            continue
        return m.group(1), line.strip()
    return build


def find_pin(paths):
    """(version, 'file: line') of the first torch pin found for the scanned paths: in the
    directory of each path and its parents, up to the first that holds a pin file or .git."""
    import glob
    for p in paths:
        d = os.path.abspath(p if os.path.isdir(p) else (os.path.dirname(p) or "."))
        while True:
            files = []
            for pattern in PIN_FILES:
                files += sorted(glob.glob(os.path.join(glob.escape(d), pattern)))
            for f in files:
                try:
                    with open(f, encoding="utf-8", errors="replace") as fh:
                        hit = _pin_in(fh.read())
                except OSError:
                    continue
                if hit:
                    return hit[0], "%s: %s" % (os.path.relpath(f), hit[1])
            if files or os.path.isdir(os.path.join(d, ".git")) or os.path.dirname(d) == d:
                break
            d = os.path.dirname(d)
    return None, ""


# ------------------------------------------------------------------------------ the code engine
class Index:
    """The applicable rules, keyed the way the engine looks them up."""

    def __init__(self, rules, frm, to):
        self.to = to
        self.name, self.call, self.param, self.isinst = [], {}, {}, {}
        self.method, self.keyword, self.key, self.strings, self.env, self.reload = {}, {}, {}, [], [], []
        self.severity, self.earlier = {}, {}
        words = set()
        for r in rules["rules"]:
            sev = rule_severity(r, frm, to)
            if sev is None:
                continue
            self.severity[r["id"]] = sev
            if earlier_deprecation(r, frm, to):
                self.earlier[r["id"]] = r["introduced_in"]
            kind = r["kind"]
            if kind == "name":
                for t in r["targets"]:
                    self.name.append((t, r))
                    words.add(t.rsplit(".", 1)[-1])
            elif kind in ("call", "param", "isinstance"):
                table = {"call": self.call, "param": self.param, "isinstance": self.isinst}[kind]
                for t in r["targets"]:
                    table.setdefault(t, []).append(r)
                    words.add(t.rsplit(".", 1)[-1])
            elif kind == "method":
                self.method.setdefault(r["target"], []).append(r)
                words.add(r["target"])
            elif kind == "keyword":
                self.keyword.setdefault(r["target"], []).append(r)
                words.add(r["target"])
            elif kind == "string":
                if r.get("key"):
                    self.key.setdefault(r["target"], []).append(r)
                self.strings.append(r)
                words.add(r["target"])
            elif kind == "env":
                self.env.append(r)
                words.add(r["target"])
            elif kind == "reload":
                self.reload.append(r)
                words.add("modules" if r["how"] == "del" else "reload")
        self.words = sorted(words)
        self.word_set = set(words)   # the last part of every target: what a guard's hasattr may probe
        self.prefixes = set()
        for t, _ in self.name:
            parts = t.split(".")
            self.prefixes.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        for table in (self.call, self.param, self.isinst):
            for t in table:
                parts = t.split(".")
                self.prefixes.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        self.pattern = re.compile("|".join(re.escape(w) for w in self.words)) if self.words else None

    def relevant(self, text):
        return bool(self.pattern and self.pattern.search(text))


def kw_eq(value, rule):
    """A keyword rule's value: exact, except a backend name, which torch lower-cases ("NCCL" is nccl)."""
    if value == rule["value"]:
        return True
    return (rule["target"] == "backend" and isinstance(value, str) and isinstance(rule["value"], str)
            and value.lower() == rule["value"].lower())


def value_match(s, v, split):
    if s == v:
        return True
    return split and v in [p.strip() for p in re.split(r"[,:]", s)]


def env_match(s, var):
    return s == var or re.search(r"(?<![A-Za-z0-9_])" + re.escape(var) + "=", s) is not None


class Scope:
    __slots__ = ("kind", "names", "parent", "stars", "imported", "kwdicts", "ints", "origins")

    def __init__(self, kind, parent):
        self.kind, self.names, self.parent, self.stars, self.imported = kind, {}, parent, [], set()
        self.origins = {}   # name -> (import statement, alias) that bound it (--fix rewrites the statement)
        self.ints = set()   # names last assigned an integer tensor (INT_DTYPES)
        #: name -> [(key, line, col)] of a dict literal or dict(...) bound to it, for `f(**name)`
        self.kwdicts = {}


def _arg_names(args):
    out = [a.arg for a in getattr(args, "posonlyargs", [])] + [a.arg for a in args.args] + [a.arg for a in args.kwonlyargs]
    if args.vararg:
        out.append(args.vararg.arg)
    if args.kwarg:
        out.append(args.kwarg.arg)
    return out


def _local_names(body):
    """Names a function body binds (not inside nested functions or classes): they are local,
    except those it declares ``global`` or ``nonlocal``."""
    out, declared = set(), set()
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, ast.Lambda) or isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                if a.name != "*":
                    out.add(a.asname or a.name.split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            declared.update(n.names)
        stack.extend(ast.iter_child_nodes(n))
    return out - declared


def decide(uses):
    """The use that decides what a loaded value is, as (kind, why): the first read as an object, else
    the first that leaves, else (no use at all) an unused value, else the first into a state-dict
    method, else a plain read."""
    for kind in ("object", "leaves"):
        for u in uses:
            if u[0] == kind:
                return u
    if not uses:
        return "leaves", msg("check.load.unused")
    return next((u for u in uses if u[0] == "state"), ("plain", None))


def attr_use(attr, line):
    """(kind, why) of reading ``attr`` of a loaded value on ``line`` (DICT_METHODS, TENSOR_ATTRS, SHARED_ATTRS)."""
    if attr in DICT_METHODS or attr in TENSOR_ATTRS:
        return "plain", None
    if attr in SHARED_ATTRS:
        return "leaves", msg("check.load.shared", line=line, attr=attr)
    return "object", msg("check.load.object_attr", line=line, attr=attr)


class Analyzer:
    """One file. Binding model (the JavaScript engine implements the same):
    - statements run in order; an import binds its name to the dotted name it imports; ``x = a.b``
      (a dotted name that resolves) makes x an alias; any other binding (assignment, def, class,
      for/with/except targets, del, parameters) makes the name local, so it no longer resolves;
    - a function's parameters and every name its body binds are local for the whole body; a
      function, lambda, comprehension or class body has its own scope; class bodies are not seen
      from the methods inside them;
    - inside an ``except`` handler, and when the value is None, a binding does not undo an import
      of that name (``try: import torch / except ImportError: torch = None``), and an import
      there does not replace one (the fallback import);
    - the expressions in f-string fields are code like any other; what they find is reported at
      the start of the f-string (positions inside f-strings differ between Python versions), and
      the f-string's text between fields is matched for environment variables only;
    - a string that is the whole argument of a message (print, warnings.warn, log.info, ...,
      or a help=/description= keyword) is text for a person: its string and environment rules
      are not matched;
    - ``type(x).__name__ == "C"`` and ``x.__class__.__name__ in (...)`` are class tests like
      ``isinstance``, and so are ``type(x) is C`` and ``x.__class__ == C``."""

    def __init__(self, index, text, path):
        self.ix = index
        self.path = path
        self.lines = text.split("\n")
        self.findings = []
        self.seen = set()
        self.in_except = 0
        self.guard = 0        # inside a compat guard (GUARD_EXCEPTIONS, GUARD_NAMES)
        self.newer = []       # the releases of the version tests whose newer branch this is (guards_rule)
        self.no_grad = 0      # inside `with torch.no_grad():` or a function decorated with it (NO_GRAD)
        self.guard_names = set()   # module-level constants assigned a guard test
        self.at = None        # (line, byte col) of the f-string being looked into
        self.doc = set()      # id() of the string nodes that are messages
        self.inits = []       # (setter, arg state) of the calls that set an argument others inherit (SETTERS)
        self.pending = []     # (finding index, rule, call) whose argument is inherited: settled after the walk
        #: --fix: where each finding of a rule with ``rewrites`` is (``site``), read by ``plan_fixes``
        self.fixing = False
        self.sites = []
        self.calls = {}       # id(func node) -> its Call
        self.parents = None   # id(node) -> its parent node, built when a load's flow is followed
        self.tree = None
        self.cleared = []     # (line, col, rule, why) of the loads the flow found no hazard in (--explain)
        self.decos = set()    # id() of decorator expressions

    # --- positions ---
    def col(self, line, byte_col):
        s = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if s.isascii():
            return byte_col + 1
        return len(s.encode("utf-8")[:byte_col].decode("utf-8", "ignore")) + 1

    def emit(self, rule, line, byte_col, api, flow=None):
        if self.at is not None:
            line, byte_col = self.at
        col = self.col(line, byte_col)
        if self.no_grad and rule.get("grad_only"):
            return False   # an autograd change, in code that runs without gradients
        key = (line, col, rule["id"])
        if key in self.seen:
            return False
        self.seen.add(key)
        self.findings.append((line, col, rule, api, self.guards_rule(rule), flow))
        return True

    # --- compat guards ---
    def guards_rule(self, rule):
        """Whether a use of ``rule`` here is in a compat guard: a branch for older releases, or the
        newer branch of a version test that names the change's release or a later one (written for
        it: ``if torch.__version__ < "2.7": ... else: <the 2.7 way>``). A deprecation still in force
        is reported in a newer branch whatever it names: that branch runs on the release you move to."""
        if self.guard > 0:
            return True
        if not self.newer or self.ix.severity.get(rule["id"]) in IN_FORCE:
            return False
        r = rule_release(rule, self.ix.to)
        return any(vkey(t) >= vkey(r) for t in self.newer)

    def branches(self, test, scope):
        """(guard of the body, of the else, newer release of the body, of the else) of an if on ``test``:
        a guard's body and else both guard unless the test points one way and names its release
        (version_direction, version_threshold); then the branch newer releases take knows the changes
        up to that release, and only the other one is a fallback."""
        if not self.is_guard_test(test, scope):
            return 0, 0, None, None
        ge = 0 if self.mixed_and(test, scope) else 1
        d = version_direction(test)
        t = version_threshold(test) if d is not None else None
        if t is None:
            return 1, ge, None, None
        return (0, ge, t, None) if d else (1, 0, None, t if ge else None)

    def branch(self, guard, newer, walk, *args):
        """``walk(*args)`` as a branch: in a compat guard (``guard``), or the newer branch of a version
        test that names release ``newer`` (see branches)."""
        self.guard += guard
        self.newer.extend([newer] if newer else [])
        try:
            walk(*args)
        finally:
            self.guard -= guard
            del self.newer[len(self.newer) - (1 if newer else 0):]

    def is_guard_test(self, node, scope):
        for n in ast.walk(node):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in GUARD_NAMES and n.args
                    and isinstance(n.args[0], (ast.Name, ast.Attribute))):
                q = self.resolve(n.args[0], scope)   # a probe of torch itself, or of a name a rule matches
                if q and (q == "torch" or q.startswith("torch.")):
                    return True
                a = n.args[1] if len(n.args) > 1 else None
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value in self.ix.word_set:
                    return True
            name = (n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute)
                    else n.arg if isinstance(n, (ast.keyword, ast.arg)) else None)
            if name and (is_version_name(name) or name in self.guard_names or name in SIGNATURE_PROBES):
                return True
        return False

    def skips_by_release(self, decorators, scope):
        """A test decorator that runs its test only on some releases: ``@pytest.mark.skipif(<a
        version test>)``, ``@unittest.skipIf(...)``, ``@unittest.skipUnless(...)``."""
        return any(isinstance(d, ast.Call) and isinstance(d.func, (ast.Attribute, ast.Name))
                   and (d.func.attr if isinstance(d.func, ast.Attribute) else d.func.id) in SKIP_DECORATORS
                   and d.args and self.is_guard_test(d.args[0], scope) for d in decorators)

    def is_int(self, node, scope):
        """Whether the code shows ``node`` to be an integer tensor (INT_DTYPES)."""
        if isinstance(node, ast.Name):
            s = scope
            while s is not None:
                if node.id in s.names:
                    return node.id in s.ints
                s = s.parent
            return False
        if not isinstance(node, ast.Call):
            return False
        def dtype(v):
            return isinstance(v, (ast.Name, ast.Attribute)) and self.resolve(v, scope) in INT_DTYPES

        if any(k.arg == "dtype" and dtype(k.value) for k in node.keywords):
            return True
        f = node.func
        q = self.resolve(f, scope) if isinstance(f, (ast.Name, ast.Attribute)) else None
        if q is not None:
            return q in INT_FUNCS
        return isinstance(f, ast.Attribute) and (f.attr in INT_METHODS or (
            f.attr in CAST_METHODS and any(dtype(a) for a in node.args)))

    def mixed_and(self, test, scope):
        """A guard and another condition (``hasattr(torch, "xpu") and torch.xpu.is_available()``):
        its else runs on new releases too, so it is no fallback for old ones."""
        return (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
                and not all(self.is_guard_test(v, scope) for v in test.values))

    def is_no_grad(self, node, scope):
        """``torch.no_grad()``, ``torch.inference_mode()`` (a call, or a bare decorator)."""
        f = node.func if isinstance(node, ast.Call) else node
        q = self.resolve(f, scope) if isinstance(f, (ast.Name, ast.Attribute)) else None
        return 1 if q in NO_GRAD else 0

    @staticmethod
    def catches_guard(handlers, names):
        return any(isinstance(n, ast.Name) and n.id in names or isinstance(n, ast.Attribute) and n.attr in names
                   for h in handlers if h.type is not None for n in ast.walk(h.type))

    def emit_node(self, rule, node, api, scope=None, flow=None):
        done = self.emit(rule, node.lineno, node.col_offset, api, flow)
        if done and self.fixing and rule.get("rewrites"):
            self.site(rule, api, node, scope)
        return done

    def site(self, rule, api, node, scope, call=None):
        """Record where a finding --fix may rewrite is: the node, the call it is the function of
        (or ``call``), the resolved prefixes of an attribute chain and what bound its root name."""
        chain, root = [], node
        while isinstance(root, ast.Attribute):
            root = root.value
            chain.append((root, self.resolve(root, scope) if scope is not None else None))
        origin = self.origin(root.id, scope) if isinstance(root, ast.Name) and scope is not None else None
        self.sites.append({"finding": self.findings[-1], "rule": rule, "api": api, "node": node,
                           "call": call or self.calls.get(id(node)),
                           "deco": id(node) in self.decos, "chain": chain, "origin": origin,
                           "guard": self.findings[-1][4], "fstring": self.at is not None,
                           "q": self.resolve(node, scope) if scope is not None else None,
                           "torch": scope is not None and self.lookup("torch", scope) == "torch"})

    def origin(self, name, scope):
        s = self.bound_in(name, scope)
        return s.origins.get(name) if s else None

    def emit_attr(self, rule, node, api):
        self.emit(rule, node.end_lineno, node.end_col_offset - len(node.attr.encode("utf-8")), api)

    # --- scopes ---
    def lookup(self, name, scope):
        s = scope
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        s = scope
        while s is not None:
            for m in s.stars:
                cand = m + "." + name
                if cand in self.ix.prefixes:
                    return cand
            s = s.parent
        if name in BUILTINS:
            return "builtins." + name
        return None

    def bind(self, scope, name, qual, imported=False, value=None, origin=None):
        if name in scope.imported and not imported and (self.in_except or (isinstance(value, ast.Constant) and value.value is None)):
            return
        if imported and self.in_except and name in scope.imported:
            return
        scope.names[name] = qual
        if origin is not None:
            scope.origins[name] = origin
        else:
            scope.origins.pop(name, None)
        scope.kwdicts.pop(name, None)
        scope.ints.discard(name)
        if imported:
            scope.imported.add(name)
        else:
            scope.imported.discard(name)

    def dict_keys(self, value, scope):
        """[(key, line, col)] when ``value`` is a dict literal with string keys or ``dict(k=...)``; else None."""
        if isinstance(value, ast.Dict):
            if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
                return [(k.value, k.lineno, k.col_offset) for k in value.keys]
            return None
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.args
                and self.resolve(value.func, scope) == "builtins.dict" and all(k.arg for k in value.keywords)):
            return [(k.arg, k.lineno, k.col_offset) for k in value.keywords]
        return None

    @staticmethod
    def bound_in(name, scope):
        """The scope where ``name`` resolves, or None."""
        s = scope
        while s is not None:
            if name in s.names:
                return s
            s = s.parent
        return None

    def kwdict(self, name, scope):
        """The keys of the dict bound to ``name`` where it resolves (see ``Scope.kwdicts``)."""
        s = self.bound_in(name, scope)
        return s.kwdicts.get(name) if s else None

    def resolve(self, node, scope):
        """The dotted name an expression stands for, or None."""
        if isinstance(node, ast.Name):
            return self.lookup(node.id, scope)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value, scope)
            return base + "." + node.attr if base else None
        return None

    def resolve_getattr(self, node, scope):
        """getattr(torch, "qr") -> torch.qr (two arguments: with a default it is a probe)."""
        if len(node.args) == 2 and not node.keywords and isinstance(node.args[0], (ast.Name, ast.Attribute)):
            a1 = node.args[1]
            if isinstance(a1, ast.Constant) and isinstance(a1.value, str):
                base = self.resolve(node.args[0], scope)
                return base + "." + a1.value if base else None
        return None

    def check_name(self, q, node, scope=None):
        for t, r in self.ix.name:
            if q == t or q.startswith(t + "."):
                self.emit_node(r, node, t, scope)

    # --- statements ---
    def run(self, tree):
        self.tree = tree
        self.body(tree.body, Scope("module", None))
        self.settle()

    def settle(self):
        """A finding on a call that leaves out an argument it inherits (INHERITS) stands when a
        call in the file that sets it matches the rule; it goes when every such call sets a
        value the rule does not name; with none in the file its api says so."""
        drop = set()
        for i, r, q in self.pending:
            kw, setter = INHERITS[q]
            states = [st for t, st in self.inits if t == setter]
            cond = next(c for c in r["args"] if c["keyword"] == kw)
            if not states:
                f = self.findings[i]
                self.findings[i] = (f[0], f[1], f[2], f[3] + INHERIT_UNKNOWN, f[4], f[5])
            elif not any(self.cond_ok(st, cond) for st in states):
                drop.add(i)
        self.findings = [f for i, f in enumerate(self.findings) if i not in drop]

    def body(self, stmts, scope):
        after = 0   # below an early exit taken on newer releases: the rest runs on older ones only
        for st in stmts:
            self.stmt(st, scope)
            if self.exits_on_new(st, scope):
                self.guard += 1
                after += 1
        self.guard -= after

    def exits_on_new(self, st, scope):
        """``if <a version test true on newer releases>: ... return`` (or raise), with no else: the
        statements after it run on older releases only (a guard). The test's direction is read
        from its words (version_direction); an unknown direction is no guard."""
        return (isinstance(st, ast.If) and not st.orelse and st.body and isinstance(st.body[-1], (ast.Return, ast.Raise))
                and self.is_guard_test(st.test, scope) and not self.mixed_and(st.test, scope)
                and version_direction(st.test) is True)

    def func_parent(self, scope):
        while scope.kind == "class":
            scope = scope.parent
        return scope

    def stmt(self, st, scope):
        t = type(st)
        if t is ast.Expr and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            return   # a string on its own (a docstring, quoted-out code) is documentation, not a use
        if t is ast.Import:
            for a in st.names:
                self.check_name(a.name, st, scope)
                if a.asname:
                    self.bind(scope, a.asname, a.name, imported=True, origin=(st, a))
                else:
                    head = a.name.split(".")[0]
                    self.bind(scope, head, head, imported=True)
        elif t is ast.ImportFrom:
            for a in st.names:
                if st.level or not st.module:
                    if a.name != "*":
                        self.bind(scope, a.asname or a.name, None)
                    continue
                if a.name == "*":
                    scope.stars.append(st.module)
                    continue
                q = st.module + "." + a.name
                self.check_name(q, st, scope)
                self.bind(scope, a.asname or a.name, q, imported=True, origin=(st, a))
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            for d in st.decorator_list:
                self.decos.add(id(d))
                self.decorator(d, scope)
                self.expr(d, scope)
            self.arguments(st.args, scope)
            if st.returns:
                self.expr(st.returns, scope)
            self.bind(scope, st.name, None)
            inner = Scope("function", self.func_parent(scope))
            for n in _arg_names(st.args) + sorted(_local_names(st.body)):
                inner.names[n] = None
            g = 1 if any(self.is_no_grad(d, scope) for d in st.decorator_list) else 0
            sk = 1 if self.skips_by_release(st.decorator_list, scope) else 0   # a test for some releases only
            self.no_grad += g
            self.guard += sk
            self.body(st.body, inner)
            self.no_grad -= g
            self.guard -= sk
        elif t is ast.ClassDef:
            for d in st.decorator_list:
                self.decorator(d, scope)
                self.expr(d, scope)
            for b in st.bases:
                self.expr(b, scope)
            for k in st.keywords:
                self.expr(k.value, scope)
            inner = Scope("class", scope)
            sk = 1 if self.skips_by_release(st.decorator_list, scope) else 0
            self.guard += sk
            self.body(st.body, inner)
            self.guard -= sk
            self.bind(scope, st.name, None)
        elif t is ast.Assign:
            if (scope.kind == "module" and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                    and self.is_guard_test(st.value, scope)):
                self.guard_names.add(st.targets[0].id)
            self.expr(st.value, scope)
            for target in st.targets:
                self.target(target, scope, st.value if len(st.targets) == 1 else None, assign_value=st.value)
            if len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                keys = self.dict_keys(st.value, scope)
                if keys is not None:
                    scope.kwdicts[st.targets[0].id] = keys
        elif t is ast.AnnAssign:
            self.expr(st.annotation, scope)
            if st.value is not None:
                self.expr(st.value, scope)
                self.target(st.target, scope, st.value, assign_value=st.value)
            elif not isinstance(st.target, ast.Name):
                self.expr(st.target, scope)
        elif t is ast.AugAssign:
            self.expr(st.value, scope)
            self.target(st.target, scope, None)
        elif t in (ast.For, ast.AsyncFor):
            self.expr(st.iter, scope)
            self.target(st.target, scope, None)
            self.body(st.body, scope)
            self.body(st.orelse, scope)
        elif t in (ast.With, ast.AsyncWith):
            g = 0
            for item in st.items:
                self.expr(item.context_expr, scope)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, scope, None)
                g = g or self.is_no_grad(item.context_expr, scope)
            self.no_grad += g
            self.body(st.body, scope)
            self.no_grad -= g
        elif t is ast.Try or t.__name__ == "TryStar":
            g = 1 if self.catches_guard(st.handlers, GUARD_EXCEPTIONS) else 0   # the try body
            self.guard += g
            self.body(st.body, scope)
            self.guard -= g
            for h in st.handlers:
                if h.type is not None:
                    self.expr(h.type, scope)
                hg = 1 if self.catches_guard([h], FALLBACK_EXCEPTIONS) else 0   # an old-API fallback
                self.guard += hg
                self.in_except += 1
                if h.name:
                    self.bind(scope, h.name, None)
                self.body(h.body, scope)
                self.in_except -= 1
                self.guard -= hg
            self.body(st.orelse, scope)
            self.body(st.finalbody, scope)
        elif t in (ast.If, ast.While):
            # a guard's test, and the branches that run on older releases only: both, unless the test
            # says which way it points (version_direction): `if TORCH_GE_2_4:` runs its body on the
            # release you move to, so only its else is the fallback
            g = 1 if t is ast.If and self.is_guard_test(st.test, scope) else 0
            gb, ge, nb, ne = self.branches(st.test, scope) if g else (0, 0, None, None)
            self.guard += g
            self.expr(st.test, scope)
            self.guard -= g
            self.branch(gb, nb, self.body, st.body, scope)
            self.branch(ge, ne, self.body, st.orelse, scope)
        elif t is ast.Delete:
            for target in st.targets:
                if isinstance(target, ast.Subscript):
                    self.del_modules(target, scope)
                self.target(target, scope, None)
        elif t in (ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue):
            pass
        else:   # Expr, Return, Raise, Assert, Match and anything newer
            self.generic(st, scope)

    def generic(self, node, scope):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.stmt(child, scope)
            elif isinstance(child, ast.expr):
                self.expr(child, scope)
            else:
                self.generic(child, scope)

    def arguments(self, args, scope):
        for d in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self.expr(d, scope)
        for a in getattr(args, "posonlyargs", []) + args.args + args.kwonlyargs + [x for x in (args.vararg, args.kwarg) if x]:
            if a.annotation is not None:
                self.expr(a.annotation, scope)

    def target(self, node, scope, value, assign_value=None):
        if isinstance(node, ast.Name):
            q = self.resolve(value, scope) if isinstance(value, (ast.Name, ast.Attribute)) else None
            is_int = value is not None and self.is_int(value, scope)
            self.bind(scope, node.id, q, value=value)
            if is_int:
                scope.ints.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for e in node.elts:
                self.target(e, scope, None)
        elif isinstance(node, ast.Starred):
            self.target(node.value, scope, None)
        else:
            if isinstance(node, ast.Attribute) and isinstance(assign_value, ast.Constant) and isinstance(assign_value.value, str):
                for r in self.ix.keyword.get(node.attr, ()):
                    if kw_eq(assign_value.value, r):
                        self.emit_attr(r, node, '%s="%s"' % (r["target"], r["value"]))
            self.expr(node, scope)

    def del_modules(self, node, scope):
        """del sys.modules["torch"]"""
        sl = node.slice
        if isinstance(sl, ast.Constant) and isinstance(sl.value, str) and self.resolve(node.value, scope) == "sys.modules":
            for r in self.ix.reload:
                if r["how"] == "del" and sl.value == r["target"]:
                    self.emit_node(r, node, 'del sys.modules["%s"]' % r["target"])

    # --- expressions ---
    def expr(self, node, scope):
        t = type(node)
        if t is ast.Name:
            if self.ix.name:
                q = self.lookup(node.id, scope)
                if q:
                    self.check_name(q, node, scope)
        elif t is ast.Attribute:
            self.chain(node, scope)
        elif t is ast.Call:
            self.call(node, scope)
        elif t is ast.Constant:
            if type(node.value) is str and id(node) not in self.doc:
                self.string(node, node.value)
        elif t is ast.JoinedStr:
            self.fstring(node, scope)
        elif t is ast.IfExp and self.is_guard_test(node.test, scope):   # new_form if TORCH_GE_2_4 else old_form
            gb, ge, nb, ne = self.branches(node.test, scope)   # as an if's branches, with both arms a fallback
            ge = 1 if nb is None and ne is None else ge
            for child, g, newer in ((node.test, 1, None), (node.body, gb, nb), (node.orelse, ge, ne)):
                self.branch(g, newer, self.expr, child, scope)
        elif t is ast.Compare:
            self.compare(node, scope)
            self.expr(node.left, scope)
            for c in node.comparators:
                self.expr(c, scope)
        elif t is ast.Dict:   # {"acc_policy": "balanced"}: options kept in a dict for f(**options)
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and type(k.value) is str and isinstance(v, ast.Constant):
                    for r in self.ix.keyword.get(k.value, ()):
                        if kw_eq(v.value, r):
                            self.emit(r, k.lineno, k.col_offset, '%s="%s"' % (r["target"], r["value"]))
            for child in ast.iter_child_nodes(node):
                self.expr(child, scope)
        elif t is ast.Lambda:
            self.arguments(node.args, scope)
            inner = Scope("function", self.func_parent(scope))
            for n in _arg_names(node.args):
                inner.names[n] = None
            self.expr(node.body, inner)
        elif t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            inner = Scope("function", self.func_parent(scope))
            for g in node.generators:
                for n in ast.walk(g.target):
                    if isinstance(n, ast.Name):
                        inner.names[n.id] = None
            for g in node.generators:
                self.expr(g.iter, inner)
                for c in g.ifs:
                    self.expr(c, inner)
            if t is ast.DictComp:
                self.expr(node.key, inner)
                self.expr(node.value, inner)
            else:
                self.expr(node.elt, inner)
        elif t is ast.NamedExpr:
            self.expr(node.value, scope)
            s = self.func_parent(scope)
            self.bind(s, node.target.id, None)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, scope)
                elif not isinstance(child, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)):
                    self.generic(child, scope)

    def fstring(self, node, scope):
        """f"...{expr!r:{width}}...": the fields' expressions, at the f-string's position."""
        outer = self.at is None
        if outer:
            self.at = (node.lineno, node.col_offset)
        fields = [v for v in node.values if isinstance(v, ast.FormattedValue)]
        if not fields and id(node) not in self.doc:
            self.string(node, "".join(v.value for v in node.values))
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                self.expr(v.value, scope)
                for w in (v.format_spec.values if v.format_spec is not None else ()):   # {x:{width}}
                    if isinstance(w, ast.FormattedValue):
                        self.expr(w.value, scope)
            elif fields and id(node) not in self.doc:
                for r in self.ix.env:
                    if env_match(v.value, r["target"]):
                        self.emit_node(r, node, r["target"])
        if outer:
            self.at = None

    def type_of(self, node, scope):
        """True when ``node`` is ``type(x)`` or ``x.__class__``."""
        if isinstance(node, ast.Call):
            return (isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords
                    and self.resolve(node.func, scope) == "builtins.type")
        return isinstance(node, ast.Attribute) and node.attr == "__class__"

    def compare(self, node, scope):
        """type(x).__name__ == "ProcessGroupNCCL", type(x) is ProcessGroupNCCL: class tests."""
        if len(node.ops) != 1 or not self.ix.isinst:
            return
        left, right, op = node.left, node.comparators[0], type(node.ops[0])
        if (isinstance(left, ast.Attribute) and left.attr in ("__name__", "__qualname__")
                and self.type_of(left.value, scope) and op in (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
            consts = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
            for c in consts:
                if isinstance(c, ast.Constant) and type(c.value) is str:
                    for cq, rs in self.ix.isinst.items():
                        if cq.rsplit(".", 1)[-1] == c.value:
                            for r in rs:
                                self.emit_node(r, c, cq)
        elif self.type_of(left, scope) and op in (ast.Is, ast.IsNot, ast.Eq, ast.NotEq) and isinstance(right, (ast.Name, ast.Attribute)):
            cq = self.resolve(right, scope)
            for r in self.ix.isinst.get(cq, ()):
                self.emit_node(r, right, cq)

    def chain(self, node, scope):
        """An attribute chain a.b.c: the dotted name it resolves to, and each attribute name."""
        inner = node
        while isinstance(inner, ast.Attribute):
            for r in self.ix.key.get(inner.attr, ()):
                self.emit_attr(r, inner, r["target"])
            inner = inner.value
        q = self.resolve(node, scope) if self.ix.name else None
        if q:
            self.check_name(q, node, scope)
        if not isinstance(inner, ast.Name):
            self.expr(inner, scope)

    def string(self, node, s):
        for r in self.ix.strings:
            if value_match(s, r["target"], r.get("split")):
                self.emit_node(r, node, r["target"])
        for r in self.ix.env:
            if env_match(s, r["target"]):
                self.emit_node(r, node, r["target"])

    # --- what a load's value is used as (a rule with ``into``) ---
    def parent(self, node):
        if self.parents is None:
            self.parents = {id(c): n for n in ast.walk(self.tree) for c in ast.iter_child_nodes(n)}
        return self.parents.get(id(node))

    def load_flow(self, call, rule):
        """(severity, why) of a load whose value the code follows inside its function: None (no
        finding) when it goes only into ``rule["into"]`` methods (load_state_dict) or is read as
        tensors and plain values; "breaks" when a use reads it as an object (an attribute, a call);
        "review" when it leaves the function or the code does not show what it holds. In a file that
        calls one of ``rule["allowed_by"]`` (add_safe_globals, safe_globals: the documented fix), a
        load to review is handled, and one read as an object is to review (does the list cover it?)."""
        kind, why = decide([self.use_of(call, rule, None)])
        sev, why = {"object": "breaks", "leaves": "review"}.get(kind), why or msg("check.load.plain")
        if sev is None or not self.allows(rule, call):
            return sev, why
        return ("review", msg("check.load.allowlisted_object", why=why)) if sev == "breaks" else \
            (None, msg("check.load.allowlisted"))

    def allows(self, rule, call):
        """Whether the load's function, or the module's top level, calls one of the rule's
        ``allowed_by`` (by its last name: it is written torch.serialization.add_safe_globals, or
        imported); the lines are read as text, as the JavaScript engine reads them."""
        names = [a.rsplit(".", 1)[-1] for a in rule.get("allowed_by") or ()]
        if not names:
            return False
        f = self.parent(call)
        while f is not None and not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            f = self.parent(f)
        own = self.lines[f.lineno - 1:f.end_lineno] if f is not None else []
        top = [line for line in self.lines if line[:1].strip()]
        return re.search(r"(?<![\w.])(?:[\w.]+\.)?(?:%s)\s*\(" % "|".join(map(re.escape, names)),
                         "\n".join(own + top)) is not None

    def use_of(self, v, rule, name, depth=0):
        """(kind, why) of one use: the loaded call itself (``name`` None) or a Name that holds its value.
        Kinds: state, plain, object, leaves."""
        line = v.lineno
        if isinstance(v, ast.JoinedStr):   # f"{ckpt['step']}", f"{ckpt.epoch}"
            return self.field_use(v, name, line)
        p = self.parent(v)
        while True:   # the postfix reads: ckpt["model"], ckpt.get("args"), ckpt["args"].lr, model.eval()
            if isinstance(p, ast.Subscript) and p.value is v:
                if not isinstance(p.ctx, ast.Load):
                    return "plain", None     # ckpt["step"] = 3, del ckpt["optimizer"]
                v, p = p, self.parent(p)
                continue
            if isinstance(p, ast.Attribute) and p.value is v:
                a = p.attr
                g = self.parent(p)
                if a in READS and isinstance(g, ast.Call) and g.func is p:
                    v, p = g, self.parent(g)
                    continue
                return attr_use(a, p.end_lineno)
            if isinstance(p, ast.Call) and p.func is v:
                return "object", msg("check.load.object_call", line=line)
            break
        # the call it is an argument of: f(ckpt), f(state=ckpt)
        owner = (self.parent(p) if isinstance(p, ast.keyword) and p.arg is not None
                 else p if isinstance(p, ast.Call) and v in p.args else None)
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Attribute) and owner.func.attr in rule["into"]:
            return "state", msg("check.load.state", line=line, method=owner.func.attr)   # m.load_state_dict(sd)
        if isinstance(p, ast.IfExp) and p.test is not v:   # state = state["model"] if "model" in state else state
            g = self.parent(p)
            if (name and isinstance(g, ast.Assign) and g.value is p and len(g.targets) == 1
                    and isinstance(g.targets[0], ast.Name) and g.targets[0].id == name):
                return "plain", None
            return "leaves", msg("check.load.leaves", line=line)
        if isinstance(p, ast.Assign) and p.value is v and len(p.targets) == 1 and isinstance(p.targets[0], ast.Name):
            target = p.targets[0].id
            if target == name:
                return "plain", None          # state = state["state_dict"]: its uses are followed already
            if depth < 2:                     # ckpt = torch.load(p), then model = ckpt["model"]: follow the name
                return decide([self.use_of(n, rule, target, depth + 1) for n in self.uses_of(target, p)])
            return "leaves", msg("check.load.leaves", line=line)
        if name is None and isinstance(p, ast.Expr):   # torch.load(p) on its own: it still loads the file
            return "leaves", msg("check.load.leaves", line=line)
        if (isinstance(p, PLAIN_NODES) or isinstance(p, (ast.If, ast.While, ast.IfExp)) and p.test is v
                or isinstance(p, (ast.For, ast.comprehension)) and p.iter is v):
            return "plain", None
        if isinstance(p, ast.Call) and v in p.args and isinstance(p.func, ast.Name) and p.func.id in PLAIN_FUNCS:
            return "plain", None
        if isinstance(p, ast.Return):
            return "leaves", msg("check.load.returned", line=line)
        if isinstance(owner, ast.Call) and isinstance(owner.func, (ast.Name, ast.Attribute)):
            return "leaves", msg("check.load.passed", line=line,
                                 func=owner.func.id if isinstance(owner.func, ast.Name) else owner.func.attr)
        return "leaves", msg("check.load.leaves", line=line)

    def field_use(self, fstring, name, line):
        """(kind, why) of an f-string's reads of ``name``: a whole field (``{ckpt}``) or a subscript is
        plain; an attribute is read as in ``use_of``; a call reads an object; anything else leaves. The
        JavaScript engine reads the fields' text the same way."""
        kinds = []
        for n in sorted((x for x in ast.walk(fstring) if isinstance(x, ast.Name) and x.id == name),
                        key=lambda x: (x.lineno, x.col_offset)):
            p = self.parent(n)
            if isinstance(p, (ast.Subscript, ast.FormattedValue)):
                kinds.append(("plain", None))
            elif isinstance(p, ast.Attribute):
                kinds.append(attr_use(p.attr, line))
            elif isinstance(p, ast.Call) and p.func is n:
                kinds.append(("object", msg("check.load.object_call", line=line)))
            else:
                kinds.append(("leaves", msg("check.load.leaves", line=line)))
        return decide(kinds)

    def uses_of(self, name, assign):
        """The Name nodes that read ``name`` after ``assign`` in its function (or module), outside
        f-strings (the JavaScript engine reads no code there), in source order."""
        f = self.parent(assign)
        while f is not None and not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
            f = self.parent(f)
        end = (assign.end_lineno, assign.end_col_offset)
        out = []
        for n in ast.walk(f if f is not None else self.tree):
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and (n.lineno, n.col_offset) > end:
                s = self.parent(n)
                while s is not None and not isinstance(s, ast.stmt):
                    s = self.parent(s)
                if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):   # not in a header
                    out.append(n)
        inside, strings = set(), []
        for n in ast.walk(f if f is not None else self.tree):
            if isinstance(n, ast.JoinedStr) and id(n) not in inside:
                inner = [x for x in ast.walk(n) if isinstance(x, ast.Name)]
                inside.update(id(x) for x in inner)
                if any(x in out for x in inner):
                    strings.append(n)   # read inside an f-string: one use, where the string starts
        return sorted([n for n in out if id(n) not in inside] + strings, key=lambda n: (n.lineno, n.col_offset))

    def arg_state(self, call, keyword, position, scope=None):
        for k in call.keywords:
            if k.arg == keyword:
                return self.value_state(k.value)
        starred = False   # f(*args) can fill a positional parameter; one with no position (use_reentrant) only by name
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred):
                starred = position is not None
                break
            if position is not None and i == position:
                return self.value_state(a)
        stars = [k.value for k in call.keywords if k.arg is None]
        if starred or stars:   # f(*args, **kwargs): may pass it or not; no condition names this state ...
            keys = [self.kwdict(v.id, scope) if isinstance(v, ast.Name) and scope is not None else None for v in stars]
            if not starred and all(k is not None for k in keys) and any(key == keyword for k in keys for key, _l, _c in k):
                return ("dynamic", None)   # ... unless a dict literal here names it: opts = dict(backend=b); f(**opts)
            return ("unknown", None)
        return ("missing", None)

    @staticmethod
    def value_state(v):
        if isinstance(v, ast.Constant):
            if v.value is None:
                return ("missing", None)
            return ("literal", v.value if isinstance(v.value, str) else None)
        if isinstance(v, ast.UnaryOp) and isinstance(v.operand, ast.Constant) and not isinstance(v.operand.value, str):
            return ("literal", None)
        return ("dynamic", None)

    @staticmethod
    def cond_ok(st, c, split=True):
        state, s = st
        when = c["when"]
        return (state in when and state != "literal") or (state == "literal" and (
            "literal" in when or ("value" in when and s is not None and value_match(
                s.lower() if c["keyword"] == "backend" else s, c["value"], split))))   # torch lower-cases backends

    def args_match(self, call, conds, split=True, scope=None):
        return all(self.cond_ok(self.arg_state(call, c["keyword"], c.get("position"), scope), c, split) for c in conds)

    def decorator(self, d, scope):
        """``@torch.jit.script`` without parentheses calls its target with the function: a ``call``
        rule without argument conditions matches it."""
        q = self.resolve(d, scope) if isinstance(d, (ast.Name, ast.Attribute)) else None
        for r in self.ix.call.get(q, ()) if q else ():
            if not r.get("args"):
                self.emit_node(r, d, q)

    def call(self, node, scope):
        func = node.func
        q = self.resolve(func, scope) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if q:
            if q in SETTERS:
                name, kw, pos = SETTERS[q]
                self.inits.append((name, self.arg_state(node, kw, pos, scope)))
            for r in self.ix.call.get(q, ()):
                if r.get("grad_only") and node.args and self.is_int(node.args[0], scope):
                    continue   # torch.clamp(idx.long(), ...): no gradient to change
                flow = None
                matched = self.args_match(node, r.get("args") or [], scope=scope)
                if r.get("into") and matched:
                    flow = self.load_flow(node, r)
                    if flow[0] is None:   # model.load_state_dict(torch.load(p)): a state dict goes in
                        self.cleared.append((node.lineno, self.col(node.lineno, node.col_offset), r, flow[1]))
                        continue
                if matched and self.emit_node(r, node, q, scope, flow) and q in INHERITS:
                    kw = INHERITS[q][0]
                    c = next((c for c in r.get("args") or [] if c["keyword"] == kw), None)
                    if c and self.arg_state(node, kw, c.get("position"), scope)[0] == "missing":
                        self.pending.append((len(self.findings) - 1, r, q))
            for r in self.ix.param.get(q, ()):
                for k in node.keywords:
                    if k.arg == r["keyword"]:
                        if self.emit(r, k.lineno, k.col_offset, "%s(%s=)" % (q, r["keyword"])) and self.fixing \
                                and r.get("rewrites"):
                            self.site(r, q, func, scope, call=node)
                    elif k.arg is None and isinstance(k.value, ast.Name):   # f(**opts), opts = dict(use_cuda=...)
                        for key, line, col in self.kwdict(k.value.id, scope) or ():
                            if key == r["keyword"]:
                                self.emit(r, line, col, "%s(%s=)" % (q, r["keyword"]))
            if q in ("builtins.isinstance", "builtins.issubclass") and len(node.args) == 2 and self.ix.isinst:
                cls = node.args[1]
                for c in (cls.elts if isinstance(cls, ast.Tuple) else [cls]):
                    cq = self.resolve(c, scope) if isinstance(c, (ast.Name, ast.Attribute)) else None
                    for r in self.ix.isinst.get(cq, ()):
                        self.emit_node(r, c, cq)
            if q in ("importlib.reload", "imp.reload") and node.args:
                mq = self.resolve(node.args[0], scope) if isinstance(node.args[0], (ast.Name, ast.Attribute)) else None
                for r in self.ix.reload:
                    if r["how"] == "reload" and mq == r["target"]:
                        self.emit_node(r, node, "importlib.reload(%s)" % r["target"])
            if q == "sys.modules.pop" and node.args and isinstance(node.args[0], ast.Constant):
                for r in self.ix.reload:
                    if r["how"] == "del" and node.args[0].value == r["target"]:
                        self.emit_node(r, node, 'del sys.modules["%s"]' % r["target"])
            if q == "builtins.getattr":
                gq = self.resolve_getattr(node, scope)
                if gq:
                    self.check_name(gq, node)
        message = q in MESSAGE_CALLS or (isinstance(func, ast.Attribute) and func.attr in MESSAGE_METHODS)
        for a in (node.args if message else ()):
            if isinstance(a, (ast.Constant, ast.JoinedStr)):
                self.doc.add(id(a))
        for k in node.keywords:
            if k.arg in DOC_KEYWORDS and isinstance(k.value, (ast.Constant, ast.JoinedStr)):
                self.doc.add(id(k.value))
        if isinstance(func, ast.Attribute) and func.attr in self.ix.method:
            if self.resolve(func.value, scope) is None:
                for r in self.ix.method[func.attr]:
                    if not (r.get("grad_only") and self.is_int(func.value, scope)):
                        self.emit_attr(r, func, ".%s()" % func.attr)
        for k in node.keywords:
            if k.arg is None:
                continue
            for r in self.ix.keyword.get(k.arg, ()):
                if isinstance(k.value, ast.Constant) and kw_eq(k.value.value, r):
                    self.emit(r, k.lineno, k.col_offset, '%s="%s"' % (r["target"], r["value"]))
            for r in self.ix.key.get(k.arg, ()):
                self.emit(r, k.lineno, k.col_offset, r["target"])
            for r in self.ix.env:
                if k.arg == r["target"]:
                    self.emit(r, k.lineno, k.col_offset, r["target"])
        self.calls[id(func)] = node
        self.expr(func, scope)
        for a in node.args:
            self.expr(a, scope)
        for k in node.keywords:
            self.expr(k.value, scope)


def read_source(path):
    """(text, None) or (None, reason) for one file. Only a regular file is opened (a FIFO or a
    device would hang or never end), and only up to MAX_BYTES."""
    import stat
    try:
        st = os.stat(path)
    except OSError as exc:
        return None, msg("check.skip.cannot_read", error=exc.strerror or exc)
    if not stat.S_ISREG(st.st_mode):
        return None, msg("check.skip.not_regular")
    if st.st_size > MAX_BYTES:
        return None, msg("check.skip.too_large", mb=MAX_BYTES // 1000000)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, msg("check.skip.cannot_read", error=exc.strerror or exc)
    if len(data) > MAX_BYTES:
        return None, msg("check.skip.too_large", mb=MAX_BYTES // 1000000)
    if b"\0" in data:
        return None, BINARY
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        return None, msg("check.skip.bad_encoding", error=exc)
    try:
        text = data.decode(enc)
    except (UnicodeDecodeError, LookupError) as exc:
        return None, msg("check.skip.not_text", encoding=enc, error=exc.__class__.__name__)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


#: the recursion limit while a parsed file is walked: Python frames only (3.11 keeps them off the C
#: stack), enough for the deepest expression CPython's parser accepts
ANALYZER_DEPTH = 20000


def analyze(index, text, path, fixing=False):
    """(the Analyzer that walked one file's text, or None, skip reason); ``fixing``: it also
    records the sites --fix rewrites. None without a reason: no rule can match the text."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        return None, msg("check.skip.no_parse_line", error=exc.msg, line=exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:
        return None, msg("check.skip.no_parse", error=exc.__class__.__name__)
    if not index.relevant(text):
        return None, None
    a = Analyzer(index, text, path)
    a.fixing = fixing
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, ANALYZER_DEPTH))   # what the parser took, the walk can follow (a long chain of calls)
    try:
        a.run(tree)
    except RecursionError:
        return None, msg("check.skip.too_deep")
    finally:
        sys.setrecursionlimit(limit)
    return a, None


def check_source(index, text, path, cleared=None):
    """(findings, skip reason) for one file's text; ``cleared`` (a list) gets the (line, column, rule,
    why) of each load whose value the code shows to be safe (Analyzer.load_flow)."""
    a, reason = analyze(index, text, path)
    if a is None:
        return [], reason
    if cleared is not None:
        cleared.extend(a.cleared)
    return sorted(a.findings, key=lambda f: (f[0], f[1], f[2]["id"])), None


#: ``# atlas: ignore`` on a line drops every finding there; ``# atlas: ignore[<change-id>, <rule-id>]`` only those
IGNORE = re.compile(r"#\s*atlas:\s*ignore(?:\[([^\]\n]*)\])?")


def source_lines(text):
    """The lines of a file as ast numbers them (\\n, \\r\\n and \\r end a line)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def split_ignored(lines, found):
    """(kept, ignored) of one file's findings (``lines``: source_lines): a finding whose line
    carries an ignore comment naming its change or rule, or a bare one, is ignored."""
    kept, ignored, directive = [], [], {}   # line number -> its ignore comment, read once per line
    for f in found:
        if f[0] not in directive:
            line = lines[f[0] - 1] if 0 < f[0] <= len(lines) else ""
            directive[f[0]] = IGNORE.search(line) if "atlas" in line else None
        m = directive[f[0]]
        ids = [x.strip() for x in m.group(1).split(",")] if m and m.group(1) is not None else None
        if m and (ids is None or f[2]["change"] in ids or f[2]["id"] in ids or any(w in ids for w in f[2].get("was", ()))):
            ignored.append(f)
        else:
            kept.append(f)
    return kept, ignored


def fingerprint(path, rule, api, line_text, nth, cache=None):
    """A finding's identity across runs (SARIF partialFingerprints, --baseline): its file, rule,
    API and the text of its line without surrounding space, and which occurrence of that on the
    file it is; not its line number, so an edit above it does not make it new. ``cache`` keeps
    the hash of all but the occurrence, so many findings on one long line hash it once."""
    import hashlib
    key = (path, rule, api, line_text)
    h = cache.get(key) if cache is not None else None
    if h is None:
        h = hashlib.sha256("\0".join((path, rule, api, line_text.strip(), "")).encode("utf-8", "surrogatepass"))
        if cache is not None:
            cache[key] = h
    h = h.copy()
    h.update(str(nth).encode("ascii"))
    return h.hexdigest()[:32]


def iter_files(paths, unread=None):
    """(path, inner path) of the Python files under ``paths``, each once (a path given twice, or
    reached twice, is read once); the inner path is the part below the directory given (a file
    given alone: its name), so a project kept under a tests/ folder is not all tests. Notebooks
    are not read; they go to ``unread`` so the run can say so."""
    seen = set()

    def once(path):
        key = os.path.realpath(path)
        if key in seen:
            return False
        seen.add(key)
        return True

    for p in paths:
        if os.path.isdir(p):
            def walk_error(exc, top=p):
                if unread is not None:
                    unread.append((exc.filename or top, msg("check.skip.cannot_read_dir", error=exc.strerror or exc)))
            for root, dirs, files in os.walk(p, onerror=walk_error):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")
                                 and not os.path.exists(os.path.join(root, d, "pyvenv.cfg")))
                for f in sorted(files):
                    full = os.path.join(root, f)
                    if f.endswith((".py", ".pyw", ".ipynb")) and once(full):
                        yield full, os.path.relpath(full, p)
        elif once(p):
            yield p, os.path.basename(p)


#: a line of IPython, not Python: a magic (%time, %%bash) or a shell escape (!pip)
_MAGIC = re.compile(r"^([ \t]*)[%!]", re.M)


class Notebook:
    """A notebook's code cells as one script (imports in one cell serve the next), same offsets
    as each cell: a magic line's ``%``/``!`` becomes ``#``, a cell that does not parse (``%%bash``)
    becomes spaces. ``cell_of(line)`` maps a script line to (cell number, line in it)."""

    def __init__(self, text):
        nb = json.loads(text)
        if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
            raise ValueError("no cells")
        self.nb, self.text = nb, text
        self.cells = []   # (cell index, start offset in the script, source text)
        parts, at = [], 0
        for i, c in enumerate(nb["cells"]):
            if not isinstance(c, dict) or c.get("cell_type") != "code":
                continue
            src = c.get("source", "")
            src = "".join(src) if isinstance(src, list) else str(src)
            py = _MAGIC.sub(lambda m: m.group(1) + "#", src)
            try:
                ast.parse(py)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                py = re.sub(r"[^\n]", " ", src)
            self.cells.append((i, at, src))
            parts.append(py)
            at += len(py) + 1
        self.script = "\n".join(parts)
        self.first_line = []
        line = 1
        for _, _, src in self.cells:
            self.first_line.append(line)
            line += src.count("\n") + 1

    def cell_of(self, line):
        import bisect
        k = bisect.bisect_right(self.first_line, line) - 1
        return self.cells[k][0] + 1, line - self.first_line[k] + 1

    def with_edits(self, edits):
        """The notebook's JSON text with script edits applied cell by cell, written the way it was
        read (indent, key order, ASCII escapes); None when its layout cannot be reproduced."""
        layout = None
        for indent in (1, 2, 4, None):
            for sort in (True, False):
                for ascii_ in (False, True):
                    dumped = json.dumps(self.nb, indent=indent, sort_keys=sort, ensure_ascii=ascii_)
                    if dumped == self.text.rstrip("\n") and self.text[len(dumped):].strip("\n") == "":
                        layout = (indent, sort, ascii_, self.text[len(dumped):])
                        break
                if layout:
                    break
            if layout:
                break
        if layout is None:
            return None
        nb = json.loads(self.text)
        for i, start, src in self.cells:
            end = start + len(src)
            mine = [e for e in edits if start <= (e[1] if e[0] == "at" else e[1][0]) <= end]
            if not mine:
                continue
            shifted = [(e[0], e[1] - start, e[2]) if e[0] == "at" else (e[0], (e[1][0] - start, e[1][1] - start), e[2])
                       for e in mine]
            new = apply_edits(src, shifted)
            old = nb["cells"][i].get("source", "")
            nb["cells"][i]["source"] = new.splitlines(True) if isinstance(old, list) else new
        return json.dumps(nb, indent=layout[0], sort_keys=layout[1], ensure_ascii=layout[2]) + layout[3]


def guard_note(rule):
    return msg("check.note.guard", release=rule["introduced_in"])


def worded(rules, lang, skipped):
    """Skipped files, each reason (a message) in English (``reason``, as the JSON has always had it)
    and in ``lang`` (``reason_text``)."""
    return [{"path": x["path"], "reason": say(rules, "en", x["reason"]), "reason_text": say(rules, lang, x["reason"])}
            for x in skipped]


def finding_dict(rules, path, f, lang, sev, since=None):
    """One finding as the JSON has it; ``since``: the release of a deprecation made at or before
    --from and still in force (``earlier`` and its words), else None."""
    line, col, r, api, guarded, flow = f
    early = msg("check.note.earlier", release=since) if since else None
    why = flow[1] if flow else None
    return {"path": path, "line": line, "column": col, "change": r["change"], "api": api,
            "severity": "guarded" if guarded else flow[0] if flow else sev,
            "why": say(rules, "en", why) if why else None, "why_text": say(rules, lang, why) if why else None, "rule": r["id"], "kind": r["kind"], "title": r["title"][lang],
            "fix": (r["fix"] or {}).get(lang), "url": r["url"][lang], "guard": say(rules, "en", guard_note(r)) if guarded else None,
            "guard_text": say(rules, lang, guard_note(r)) if guarded else None,
            "earlier": since, "earlier_text": say(rules, lang, early) if early else None}


def is_import_line(line):
    """Whether a source line starts an import statement (after its indentation)."""
    text = line.lstrip(" \t\f")
    return text.startswith(("import ", "from ")) and not text.startswith("from __future__")


def one_per_cause(found, src):
    """The findings of one file, one per cause: a line keeps its first finding of each change, and a
    use of a name is dropped where the line that imports it was reported for the same rule (the
    import is the place to change). ``found`` is sorted by line and column; ``src`` the lines."""
    kept, at_line, imported = [], set(), {}
    for f in found:
        line, _col, r, api, _guarded, _flow = f
        change = r["change"] or r["id"]
        if (line, change) in at_line:
            continue
        if is_import_line(src[line - 1] if 0 < line <= len(src) else ""):
            imported.setdefault(r["id"], []).append(api)
        elif any(api == a or api.startswith(a + ".") for a in imported.get(r["id"], ())):
            continue
        at_line.add((line, change))
        kept.append(f)
    return kept


def is_test_path(path):
    """A test file by its path: test_*.py, *_test.py, conftest.py, or a file under tests/ or test/."""
    p = "/" + str(path).replace("\\", "/")
    base = p.rsplit("/", 1)[-1]
    return (base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"
            or "/tests/" in p or "/test/" in p)


def one_per_test_file(found, path, severity):
    """In a test file, one finding per deprecated change: a suite that scripts every module with
    TorchScript, or runs every case under torch.cuda.amp, has one cause, not one per use."""
    if not is_test_path(path):
        return found
    seen, out = set(), []
    for f in found:
        change = f[2]["change"] or f[2]["id"]
        if severity.get(f[2]["id"]) == "deprecated" and not f[4]:
            if change in seen:
                continue
            seen.add(change)
        out.append(f)
    return out


def printable(name):
    """A file name as valid UTF-8 text: bytes that are not UTF-8 (kept by the OS as surrogates)
    become U+FFFD, and control characters (terminal escapes) are shown as \\xNN."""
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group(0)), name)


def sarif_uri(path, root):
    """A finding's file as SARIF wants it: a percent-encoded URI relative to the scanned root
    (%SRCROOT%), never absolute and never above the root."""
    from urllib.parse import quote
    p = path
    if os.path.isabs(p) or p == ".." or p.startswith("../"):
        p = os.path.relpath(p, root).replace(os.sep, "/")
    p = p[2:] if p.startswith("./") else p
    return quote(p, safe="/")


def sources(paths, skipped, unread=None):
    """(path, shown path, text, Notebook or None, inner path) of each file that reads; the others go to
    ``skipped`` with their reason. A notebook's text is its JSON (its code is ``nb.script``)."""
    for path, inner in iter_files(paths, unread):
        shown = printable(os.path.normpath(path).replace(os.sep, "/"))
        text, reason = read_source(path)
        nb = None
        if text is not None and path.endswith(".ipynb"):
            try:
                nb = Notebook(text)
            except (ValueError, TypeError, AttributeError) as exc:
                text, reason = None, msg("check.skip.not_notebook", error=exc)
        if text is None:
            skipped.append({"path": shown, "reason": reason})
            continue
        yield path, shown, text, nb, inner


def quiet_notes(found, text, notes):
    """(findings shown, how many hidden): a rule with ``shown_if`` (a note nearly always noise on
    real code) is shown only in a file whose text matches it, or with ``notes == "all"``."""
    if notes == "all":
        return found, 0
    shown, cache = [], {}
    for f in found:
        pat = f[2].get("shown_if")
        if pat and pat not in cache:
            cache[pat] = re.search(pat, text) is not None
        if not pat or cache[pat]:
            shown.append(f)
    return shown, len(found) - len(shown)


def scan(rules, paths, frm, to, lang, notes="some", cleared=None):
    """(findings, skipped files, stats) of the code under ``paths`` for an upgrade frm -> to;
    ``notes``: "some" hides the notes whose rule has ``shown_if`` where the file does not show the
    condition (counted in stats["hidden"]), "all" shows them. ``cleared`` (a list) gets, as dicts,
    the loads that are no finding because the code shows what they load (--explain)."""
    index = Index(rules, frm, to)
    findings, skipped, files, lines, ignored, unread, hidden = [], [], 0, 0, 0, [], 0
    for _path, shown, text, nb, inner in sources(paths, skipped, unread):
        if nb is not None:
            text = nb.script
        files += 1
        lines += text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        here = [] if cleared is not None else None
        try:
            found, reason = check_source(index, text, shown, here)
        except Exception as exc:   # never a traceback: the file is reported as skipped
            found, reason = [], msg("check.skip.checker_error", error="%s: %s" % (exc.__class__.__name__, exc))
        if reason:
            skipped.append({"path": shown, "reason": reason})
        src = source_lines(text)
        for line, col, r, why in here or ():
            d = {"path": shown, "line": line, "column": col, "change": r["change"], "rule": r["id"],
                 "why": say(rules, "en", why), "why_text": say(rules, lang, why)}
            if nb is not None:
                d["cell"], d["line"] = nb.cell_of(line)
            cleared.append(d)
        found, dropped = split_ignored(src, found)
        ignored += len(dropped)
        found = one_per_test_file(one_per_cause(found, src), inner, index.severity)
        found, n = quiet_notes(found, text, notes)
        hidden += n
        seen, stripped, hashed = {}, {}, {}
        for f in found:
            d = finding_dict(rules, shown, f, lang, index.severity[f[2]["id"]], index.earlier.get(f[2]["id"]))
            if f[0] not in stripped:   # once per line: a long line with many findings stays linear
                stripped[f[0]] = src[f[0] - 1].strip() if 0 < f[0] <= len(src) else ""
            k = (d["rule"], d["api"], stripped[f[0]])
            seen[k] = seen.get(k, 0) + 1
            d["fingerprint"] = fingerprint(shown, d["rule"], d["api"], stripped[f[0]], seen[k], hashed)
            if nb is not None:
                d["cell"], d["line"] = nb.cell_of(f[0])
            findings.append(d)
    skipped += [{"path": printable(os.path.normpath(u).replace(os.sep, "/")), "reason": why} for u, why in unread]
    return findings, worded(rules, lang, skipped), {"files": files, "lines": lines, "rules": len(index.severity), "ignored": ignored,
                                                    "hidden": hidden}


#: the order of the text report: what breaks leads, the notes follow
TEXT_ORDER = ("breaks", "review", "deprecated", "deprecated-switch", "behavior", "platform", "guarded")
#: text output says a change once when it fires GROUP_AT times or more at one severity, with its places
#: listed (a note's up to GROUP_LIST; every place of what breaks or is to review, each with its why
#: when it has one; JSON and SARIF keep every finding)
GROUPED, GROUP_AT, GROUP_LIST = ("breaks", "review", "behavior", "guarded", "deprecated", "platform"), 3, 20
EVERY_PLACE = ("breaks", "review")
#: --fail-on: the severities that fail the run (exit 2); nothing else does (exit 0)
FAIL_ON = {"breaks": {"breaks"}, "review": {"breaks", "review"}, "deprecated": {"breaks", "review", "deprecated", "deprecated-switch"},
           "any": {"breaks", "review", "behavior", "deprecated", "deprecated-switch", "platform", "guarded"}}


def exit_code(severities, fail_on=None):
    if fail_on:
        return EXIT_BREAKS if set(severities) & FAIL_ON[fail_on] else EXIT_OK
    if "breaks" in severities:
        return EXIT_BREAKS
    return EXIT_NOTES if severities else EXIT_OK


def read_baseline(path, parser):
    """The fingerprints of an earlier ``--format json`` run (a multiset: a repeated finding counts)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        prints = [x["fingerprint"] for x in data["findings"]]
    except OSError as exc:
        parser.error("--baseline: cannot read %s: %s" % (path, exc.strerror or exc))
    except (ValueError, KeyError, TypeError):
        parser.error("--baseline: %s is not the JSON output of `atlas_check.py code --format json` "
                     "(a findings list whose entries have a fingerprint)" % path)
    out = {}
    for fp in prints:
        out[fp] = out.get(fp, 0) + 1
    return out


def drop_baseline(findings, baseline):
    """The findings not in the baseline; each baseline entry absorbs one finding."""
    left, kept = dict(baseline), []
    for f in findings:
        if left.get(f["fingerprint"], 0) > 0:
            left[f["fingerprint"]] -= 1
        else:
            kept.append(f)
    return kept


def sarif(rules, findings, skipped, frm, to, lang, root="."):
    used = []
    for f in findings:
        if f["rule"] not in used:
            used.append(f["rule"])
    by_id = {r["id"]: r for r in rules["rules"]}
    descriptors = []
    for rid in used:
        r = by_id[rid]
        fix = (r["fix"] or {}).get(lang)
        descriptors.append({
            "id": rid, "name": rid.split("/")[0],
            "shortDescription": {"text": r["title"][lang]},
            "fullDescription": {"text": fix or r["title"][lang]},
            "helpUri": r["url"][lang],
            "help": {"text": ((fix + "\n") if fix else "") + r["url"][lang]},
            "defaultConfiguration": {"level": LEVEL[r["severity"]]},
            "properties": {"tags": [r["severity"], r["kind"]], "change": r["change"] or "",
                           "introduced_in": r["introduced_in"]},
        })
    results = []
    for f in findings:
        text = f["title"] + (". " + f["fix"] if f["fix"] else "") + " " + f["url"]
        results.append({
            "ruleId": f["rule"], "ruleIndex": used.index(f["rule"]), "level": LEVEL[f["severity"]],
            "message": {"text": text},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": sarif_uri(f["path"], root), "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": f["line"], "startColumn": f["column"]}}}],
            "partialFingerprints": {"atlasFinding/v1": f["fingerprint"]},
            "properties": {"api": f["api"], "severity": f["severity"]},
        })
    notes = [{"level": "warning", "message": {"text": "skipped %s: %s" % (s["path"], s["reason"])}} for s in skipped]
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL, "informationUri": rules["site_url"], "semanticVersion": "1.0.0",
                                "rules": descriptors}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes,
                             "properties": {"from": frm, "to": to,
                                            "unchecked": sum(1 for s in skipped if s["reason"] != "binary file")}}],
            "results": results,
        }],
    }


#: the workflow command of each severity (GitHub Actions annotations)
ANNOTATION = {"breaks": "error", "review": "warning", "behavior": "warning", "deprecated": "warning", "deprecated-switch": "warning",
              "platform": "warning", "guarded": "notice"}


def _gh(text, prop=False):
    """Text escaped for a workflow command: its message, or (``prop``) a property such as file=."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def annotations(findings, skipped, incomplete):
    """Findings as GitHub workflow commands (``::error file=a.py,line=3,col=5,title=...::message``),
    which show on a pull request without code scanning; a skipped file that could hold findings is
    an error on that file."""
    out = []
    for f in findings:
        msg = f["title"] + (". " + (f["guard"] or f["fix"]) if (f["guard"] or f["fix"]) else "") + " " + f["url"]
        out.append("::%s file=%s,line=%d,col=%d,title=%s::%s\n" % (
            ANNOTATION[f["severity"]], _gh(f["path"], True), f["line"], f["column"],
            _gh("atlas-check %s (%s)" % (f["change"] or f["rule"], f["severity"]), True), _gh(msg)))
    for s in skipped:
        level = "error" if s in incomplete else "notice"
        out.append("::%s file=%s,title=%s::%s\n" % (level, _gh(s["path"], True), _gh("atlas-check: not checked", True),
                                                    _gh(s["reason"])))
    return "".join(out)


# ------------------------------------------------------------------------------ fixes (--fix, --diff)
#: why a fix is left to a person; the text output says it with the suggestion
NEEDS_PERSON = ("check.why.needs_person", {})


class Text:
    """Offsets into one file's text from ast positions (1-based lines, UTF-8 byte columns)."""

    def __init__(self, text):
        self.text = text
        self.starts, at = [], 0
        for line in text.split("\n"):
            self.starts.append(at)
            at += len(line) + 1
        self.lines = text.split("\n")

    def off(self, line, byte_col):
        s = self.lines[line - 1]
        return self.starts[line - 1] + (byte_col if s.isascii() else len(s.encode("utf-8")[:byte_col].decode("utf-8", "ignore")))

    def start(self, node):
        return self.off(node.lineno, node.col_offset)

    def end(self, node):
        return self.off(node.end_lineno, node.end_col_offset)

    def line_of(self, off):
        import bisect
        return bisect.bisect_right(self.starts, off)


def window_of(rules, frm, to):
    """The releases code must run on: every one from --from to --to."""
    return [v for v in rules["releases"] if vkey(frm) <= vkey(v) <= vkey(to)]


def _unsafe(spec, name, window, keywords=()):
    """Why writing ``name`` (and passing ``keywords`` to the new callable, or reading the dotted
    attributes among them) is not version-safe in some release of ``window``, or None."""
    ok = spec["safe_in"].get(name)
    if ok is None:
        return msg("check.why.no_lock", name=name)
    miss = [v for v in window if v not in ok]
    if miss:
        return msg("check.why.not_resolving", name=name, releases=", ".join(miss))
    for k in keywords:   # a keyword it passes, or a dotted attribute it reads (``torch.Tensor.mH``)
        if "." in k:
            why = _unsafe(spec, k, window)
            if why:
                return why
            continue
        acc = spec["accepts"].get(k, [])
        miss = [v for v in window if v not in acc]
        if miss:
            return msg("check.why.not_proven", call="%s(%s=)" % (spec["new"], k), releases=", ".join(miss))
    return None


def _literal(v):
    """The Python spelling of a literal argument (``True``, ``'cuda'``, ``-1``), or None."""
    if isinstance(v, ast.Constant):
        return repr(v.value)
    if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.USub) and isinstance(v.operand, ast.Constant):
        return "-" + repr(v.operand.value)
    return None


def _open_paren(tx, call):
    """The offset just after a call's ``(``."""
    i = tx.end(call.func)
    m = re.compile(r"\s*\(").match(tx.text, i)
    return m.end() if m else None


def _arg_spans(tx, call, items, opener):
    """[(start, end)] of each argument as written: its tokens between the call's top-level
    commas, so ``f((a), b)`` gives ``(a)``, not the ``a`` of its ast node. The ast spans when
    the arguments cannot be read so."""
    close = tx.end(call) - 1   # the call's ")"
    seg = "(" + tx.text[opener:close] + ")"
    sub = Text(seg)
    regions, depth = [[]], 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(seg).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER):
                continue
            a = opener - 1 + sub.starts[tok.start[0] - 1] + tok.start[1]
            b = opener - 1 + sub.starts[tok.end[0] - 1] + tok.end[1]
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
                if depth == 1:
                    continue
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
                if depth == 0:
                    continue
            elif tok.type == tokenize.OP and tok.string == "," and depth == 1:
                regions.append([])
                continue
            regions[-1].append((a, b))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        regions = []
    spans = [(r[0][0], r[-1][1]) for r in regions if r]
    if len(spans) != len(items):
        return [(tx.start(n), tx.end(n)) for n in items]
    return spans


def call_edits(tx, spec, call, deco):
    """(edits, keywords written, why not) for reshaping one use of ``spec``'s old name. ``call`` is
    the Call the use is the function of (None: a bare use; ``deco``: it is a decorator)."""
    adds = list(spec["args"]), list(spec["keywords"])
    if call is None:
        if not (adds[0] or adds[1]) or spec["bare"] == "keep":
            return [], [], None
        if spec["bare"] == "call" and deco:
            return ([("ins", None, "(" + ", ".join(adds[0] + adds[1]) + ")")], _kw_names(adds[1]), None)
        return None, [], msg("check.why.bare_use")
    items = sorted(list(call.args) + list(call.keywords), key=lambda n: (n.lineno, n.col_offset))
    starred = any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)
    if spec["positional"] == "suggest" and call.args:
        return None, [], msg("check.why.positional_shift")
    if starred and (spec["map"] or adds[0]):
        return None, [], msg("check.why.starred")
    opener = _open_paren(tx, call)
    if opener is None:
        return None, [], msg("check.why.paren")
    spans = _arg_spans(tx, call, items, opener)
    span_of = {id(n): sp for n, sp in zip(items, spans)}
    edits, written, drops, reads = [], _kw_names(adds[1]), [], []
    if isinstance(spec["positional"], list) and call.args:   # each positional argument by its old name
        if len(call.args) > len(spec["positional"]):
            return None, [], msg("check.why.too_many_positional")
        for a, name in zip(call.args, spec["positional"]):
            edits.append(("at", span_of[id(a)][0], name + "="))
            written.append(name)
    for kw, m in spec["map"].items():
        node = next((k.value for k in call.keywords if k.arg == kw), None)
        item = next((k for k in call.keywords if k.arg == kw), None)
        if item is None and m["position"] is not None and m["position"] < len(call.args):
            item = node = call.args[m["position"]]
        if item is None:
            continue
        act = m["values"].get(_literal(node) or "")
        if act is None and "*" in m["values"] and isinstance(item, ast.keyword):   # any other value: {value} is its source
            act = dict(m["values"]["*"])
            src = tx.text[tx.start(node):tx.end(node)]
            atom = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)) and "\n" not in src
            act["text"] = act["text"].replace("{value}", src if atom else "(%s)" % src)
        if act is None:
            return None, [], msg("check.why.literal_only", arg="%s=%s" % (kw, ast.unparse(node) if hasattr(ast, "unparse") else "..."))
        if act.get("suffix"):
            edits.append(("at", tx.end(call), act["suffix"]))
            reads.append("torch.Tensor" + act["suffix"])
        if act.get("drop"):
            drops.append(items.index(item))
        else:
            edits.append(("span", span_of[id(item)], act["text"]))
            written += _kw_names([act["text"]])
    if len(drops) > 1:
        return None, [], msg("check.why.drop_many")
    for i in drops:   # the argument and one comma go; a comment between them stays
        if i > 0:
            span = (spans[i - 1][1], spans[i][1])
            gap = tx.text[span[0]:spans[i][0]]
        elif len(items) > 1:
            span = (spans[i][0], spans[i + 1][0])
            gap = tx.text[spans[i][1]:span[1]]
        else:
            m = re.compile(r"\s*,").match(tx.text, spans[i][1])
            span, gap = (spans[i][0], m.end() if m else spans[i][1]), ""
        edits.append(("span", span, gap.replace(",", "", 1) if "#" in gap else ""))
    have = {k.arg for k in call.keywords}
    new_kws = [k for k in adds[1] if _kw_names([k])[0] not in have]
    left = len(items) - len(drops)
    if adds[0]:   # first: before a positional argument's new keyword at the same place
        edits.insert(0, ("at", opener, ", ".join(adds[0]) + (", " if left or new_kws else "")))
    if new_kws:
        kept = [spans[j] for j in range(len(items)) if j not in drops]
        if kept:
            edits.append(("at", kept[-1][1], ", " + ", ".join(new_kws)))
        elif not adds[0]:
            edits.append(("at", opener, ", ".join(new_kws)))
        else:
            edits[0] = ("at", opener, ", ".join(adds[0] + new_kws))
    return edits, written + reads, None


def _kw_names(texts):
    return [t.split("=", 1)[0].strip() for t in texts]


def _tokens(tx, st):
    """The NAME and OP tokens of an import statement, with absolute offsets."""
    seg_start, seg_end = tx.start(st), tx.end(st)
    seg = tx.text[seg_start:seg_end]
    sub = Text(seg)
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(seg).readline):
        if tok.type in (tokenize.NAME, tokenize.OP):
            (l1, c1), (l2, c2) = tok.start, tok.end
            a = seg_start + sub.starts[l1 - 1] + c1
            b = seg_start + sub.starts[l2 - 1] + c2
            out.append((tok.string, a, b))
    return out


def _dotted_spans(toks):
    """[(dotted name, start, end)] of the names in ``toks`` (a.b.c joined across ``.``)."""
    out, cur = [], None
    for s, a, b in toks:
        if cur is not None and s == ".":
            cur[0] += "."
            cur[2] = b
        elif cur is not None and cur[0].endswith(".") and s.isidentifier():
            cur[0] += s
            cur[2] = b
        else:
            if cur is not None:
                out.append(tuple(cur))
            cur = [s, a, b] if s.isidentifier() else None
    if cur is not None:
        out.append(tuple(cur))
    return out


def import_edits(tx, st, specs_of, window):
    """(edits, why not) for an import statement whose names move: ``specs_of(q)`` gives
    (target, spec) of the rewrite for the dotted name ``q``, or None. Edits with a reason are a
    proposal that is not version-safe; None: no proposal."""
    toks = _tokens(tx, st)
    if isinstance(st, ast.ImportFrom):
        if st.level or not st.module:
            return None, msg("check.why.relative_import")
        kw = next(i for i, t in enumerate(toks) if t[0] == "import")
        mod = [d for d in _dotted_spans(toks[1:kw]) if d[0] == st.module]
        if not mod:
            return None, msg("check.why.split_module")
        parents, unsafe = set(), None
        for a in st.names:
            if a.name == "*":
                return None, msg("check.why.star_import")
            q = st.module + "." + a.name
            got = specs_of(q)
            if got is None:
                return None, msg("check.why.not_moving", name=a.name)
            t, spec = got
            if spec["apply"] == "never":
                return None, NEEDS_PERSON
            new = spec["new"] + q[len(t):]
            parent, _, last = new.rpartition(".")
            if last != a.name:
                return None, msg("check.why.renamed", name=q, new=new)
            unsafe = unsafe or _unsafe(spec, new, window)
            parents.add(parent)
        if len(parents) != 1:
            return None, msg("check.why.split_import")
        parent = parents.pop()
        if parent == st.module:
            return [], None   # the names stay where they are (only their calls change)
        return [("span", (mod[0][1], mod[0][2]), parent)], unsafe
    edits, unsafe = [], None
    names = [d for d in _dotted_spans(toks[1:]) if d[0] not in ("as",)]
    for a in st.names:
        got = specs_of(a.name)
        if got is None:
            continue
        t, spec = got
        new = spec["new"] + a.name[len(t):]
        if new == a.name:
            continue
        unsafe = unsafe or _unsafe(spec, new, window)
        span = next((d for d in names if d[0] == a.name), None)
        if span is None:
            return None, msg("check.why.split_module")
        edits.append(("span", (span[1], span[2]), new))
    return edits, unsafe


def _bound(origin):
    """The dotted name an import binds: ``from m import n`` -> m.n, ``import m.x as y`` -> m.x."""
    st, alias = origin
    return st.module + "." + alias.name if isinstance(st, ast.ImportFrom) and st.module else alias.name


def plan_fixes(tx, sites, window):
    """[unit] for one file: each unit is the edits that fix one use (or one import statement),
    applied all together or not at all: {"edits", "ok", "why", "site", "rule"}; a use whose
    import must move too is tied to that import's unit ("parent"): both or neither."""
    units, by_import = [], {}

    def specs_of(q):
        for s in sites:
            for t, spec in s["rule"]["rewrites"].items():
                if q == t or q.startswith(t + "."):
                    return t, spec
        return None

    def import_unit(st, s):
        if id(st) not in by_import:
            try:
                edits, why = import_edits(tx, st, specs_of, window)
            except (tokenize.TokenError, StopIteration, IndentationError):
                edits, why = None, msg("check.why.import_unreadable")
            by_import[id(st)] = {"edits": edits or [], "ok": edits is not None and why is None, "why": why, "site": s,
                                 "rule": s["rule"], "line": st.lineno}
            units.append(by_import[id(st)])
        return by_import[id(st)]

    for s in sites:
        rule, node, t = s["rule"], s["node"], s["api"]
        spec = rule["rewrites"].get(t)
        if s["guard"] or spec is None:
            continue   # guarded: code that already handles both releases
        if s["fstring"]:
            units.append({"edits": [], "ok": False, "why": msg("check.why.fstring"), "site": s, "rule": rule})
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            import_unit(node, s)
            continue
        unit = {"edits": [], "ok": True, "why": None, "site": s, "rule": rule}
        units.append(unit)
        q = s["q"] or t
        new = spec["new"] + q[len(t):] if q.startswith(t) else spec["new"]
        origin = s["origin"]
        moved = origin is not None and (_bound(origin) == t or _bound(origin).startswith(t + "."))
        if spec["apply"] == "never":   # the person's choices, named; or the edit, shown and never applied
            unit.update(ok=False, why=(spec["choice"], {}) if spec.get("choice") else NEEDS_PERSON)
        elif moved:   # the import that bound the root name moves (once); this use only gets its arguments
            par = import_unit(origin[0], s)
            if par["edits"] or not par["ok"]:   # an import that stays as it is ties nothing
                unit["parent"] = par
        elif q != new and isinstance(node, ast.Attribute):
            p = next(((n, pq) for n, pq in s["chain"] if pq and q.startswith(pq + ".") and new.startswith(pq + ".")), None)
            if p is None and s["torch"] and new.startswith("torch."):   # from torch.cuda import amp; amp.X
                unit["edits"].append(("span", (tx.start(s["chain"][-1][0]), tx.end(node)), new))
            elif p is None:
                unit.update(ok=False, why=msg("check.why.not_reached", name=new))
            else:
                unit["edits"].append(("span", (tx.end(p[0]), tx.end(node)), "." + new[len(p[1]) + 1:]))
        elif q != new:
            unit.update(ok=False, why=msg("check.why.bound_name"))
        if unit["ok"] or unit["why"] == NEEDS_PERSON:
            call = node if isinstance(node, ast.Call) else s["call"]
            ce, written, cwhy = call_edits(tx, spec, call, s["deco"])
            if cwhy:   # the rename alone would be wrong: nothing to show
                unit.update(ok=False, why=cwhy, edits=[])
                continue
            unit["edits"] += [("at", tx.end(node), e[2]) if e[0] == "ins" else e for e in ce]
            why = _unsafe(spec, new, window, written)
            if why and unit["ok"]:
                unit.update(ok=False, why=why)
    for u in units:   # a use that cannot be fixed keeps its import where it is...
        par = u.get("parent")
        if par is not None and not u["ok"] and par["ok"]:
            par.update(ok=False, why=msg("check.why.at_line", line=u["site"]["finding"][0], why=u["why"]))
    for u in units:   # ...and an import that stays keeps every use of it as it is (no half-proposal):
        par = u.get("parent")   # its suggestion shows the edits of every use with it, or, where a use
        if par is not None and not par["ok"]:   # has none to give, no edit at all (only the reason)
            if u["ok"] or u["edits"]:
                par.setdefault("uses", []).extend(u["edits"])
            else:
                par["blocked"] = True
            u.update(ok=False, edits=[], why=u["why"] if not u["ok"] else msg("check.why.import_stays", line=par["line"], why=par["why"]))
    for u in units:
        uses, blocked = u.pop("uses", []), u.pop("blocked", False)
        if blocked:
            u["edits"] = []
        elif u["edits"]:
            u["edits"] = u["edits"] + uses
    return units


def apply_edits(text, edits):
    """The text with non-overlapping edits applied: ("span", (a, b), s) replaces, ("at", i, s) inserts
    (insertions at one place in the order given)."""
    norm = sorted(((e[1], e[1], e[2]) if e[0] == "at" else (e[1][0], e[1][1], e[2]) for e in edits),
                  key=lambda e: (e[0], e[1]))
    out, at = [], 0
    for a, b, s in norm:
        if a < at:
            raise ValueError("overlapping edits")
        out.append(text[at:a])
        out.append(s)
        at = b
    out.append(text[at:])
    return "".join(out)


def _compiles(text, path):
    try:
        compile(text, path, "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False


def fix_source(index, text, path, window):
    """(new text, applied units, suggested units, edits) for one file; the file's text comes back
    unchanged when nothing is safe. A fix that would not compile is backed out."""
    a, _ = analyze(index, text, path, fixing=True)
    if a is None:
        return text, [], [], []
    kept = {id(f) for f in split_ignored(source_lines(text), a.findings)[0]}
    tx = Text(text)
    units = plan_fixes(tx, [s for s in a.sites if id(s["finding"]) in kept], window)
    good = [u for u in units if u["ok"] and u["edits"]]
    taken, edits = [], []
    for u in good:   # a unit whose edits overlap one taken before is left as a suggestion
        try:
            apply_edits(text, edits + u["edits"])
        except ValueError:
            u.update(ok=False, why=msg("check.why.overlaps"))
            continue
        taken.append(u)
        edits += [e for e in u["edits"] if e not in edits]
    new = apply_edits(text, edits) if edits else text
    if new != text and not _compiles(new, path) and _compiles(text, path):
        edits, ok = [], []
        for u in taken:   # one at a time, keeping each that still compiles (cargo fix backs out the rest)
            trial = edits + [e for e in u["edits"] if e not in edits]
            if _compiles(apply_edits(text, trial), path):
                edits, ok = trial, ok + [u]
            else:
                u.update(ok=False, why=msg("check.why.no_compile"))
        taken, new = ok, apply_edits(text, edits) if edits else text
    applied = {id(u) for u in taken}
    suggested = [u for u in units if id(u) not in applied and not (u["ok"] and not u["edits"])]
    return new, taken, suggested, edits


def _region(text, tx, edits):
    """(first line, old lines, new lines) around a unit's edits."""
    offs = [e[1] if e[0] == "at" else e[1][0] for e in edits] + [e[1] if e[0] == "at" else e[1][1] for e in edits]
    first, last = tx.line_of(min(offs)), tx.line_of(max(offs))
    a = tx.starts[first - 1]
    b = tx.starts[last - 1] + len(tx.lines[last - 1])
    shifted = [(e[0], e[1] - a, e[2]) if e[0] == "at" else (e[0], (e[1][0] - a, e[1][1] - a), e[2]) for e in edits]
    return first, text[a:b].split("\n"), apply_edits(text[a:b], shifted).split("\n")


def unit_dict(rules, path, text, tx, u, lang, nb=None):
    site, rule = u["site"], u["rule"]
    d = {"path": path, "line": site["finding"][0], "column": site["finding"][1], "rule": rule["id"],
         "change": rule["change"], "api": site["finding"][3], "title": rule["title"][lang], "url": rule["url"][lang]}
    if u["edits"]:
        first, old, new = _region(text, tx, u["edits"])
        d.update(line=first, old=old, new=new)
    if nb is not None:
        d["cell"], d["line"] = nb.cell_of(d["line"])
    if not u["ok"]:   # in English (``why``, as the JSON has always had it) and in ``lang``
        d["why"], d["why_text"] = say(rules, "en", u["why"]), say(rules, lang, u["why"])
    return d


def place(f):
    """``path:line:column``, with the cell of a notebook: ``nb.ipynb:cell 3:2:5``."""
    return "%s:%s%d:%d" % (f["path"], "cell %d:" % f["cell"] if f.get("cell") else "", f["line"], f["column"])


def _file_encoding(path):
    """(encoding, BOM) a file was read with, so it is written back byte for byte."""
    with open(path, "rb") as f:
        head = f.read(4096)
    enc, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
    bom = head.startswith(b"\xef\xbb\xbf")
    return ("utf-8" if enc == "utf-8-sig" else enc), bom


def fix_paths(rules, paths, frm, to, lang, write):
    """Fix (``write``) or only plan every file: (unified diff, fixes, suggestions, skipped)."""
    import difflib
    index, window = Index(rules, frm, to), window_of(rules, frm, to)
    diff, fixes, suggestions, skipped = [], [], [], []
    for path, shown, text, nb, _inner in sources(paths, skipped):
        try:
            script = nb.script if nb else text
            new, applied, suggested, edits = fix_source(index, script, shown, window)
            if nb is not None and edits:
                new = nb.with_edits(edits)
                if new is None:
                    skipped.append({"path": shown, "reason": msg("check.skip.notebook_layout")})
                    suggestions += [unit_dict(rules, shown, script, Text(script), u, lang, nb) for u in applied + suggested]
                    continue
            elif nb is not None:
                new = text
        except Exception as exc:   # never a traceback, and never a half-written file
            skipped.append({"path": shown, "reason": msg("check.skip.fixer_error", error="%s: %s" % (exc.__class__.__name__, exc))})
            continue
        tx = Text(script)
        fixes += [unit_dict(rules, shown, script, tx, u, lang, nb) for u in applied]
        suggestions += [unit_dict(rules, shown, script, tx, u, lang, nb) for u in suggested]
        if new == text:
            continue
        rel = shown.lstrip("/")
        diff += difflib.unified_diff(text.splitlines(True), new.splitlines(True), "a/" + rel, "b/" + rel)
        if write:
            enc, bom = _file_encoding(path)
            data = ("\ufeff" if bom else "") + new
            tmp = path + ".atlas-fix"
            with open(tmp, "w", encoding=enc, newline="") as f:
                f.write(data)
            os.replace(tmp, path)
    text = "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in diff)
    return text, fixes, suggestions, worded(rules, lang, skipped)


def suggestion_text(rules, lang, sg):
    out = [say(rules, lang, msg("check.cli.suggestion", place=place(sg), id=sg["change"] or sg["api"], why=sg["why_text"]))]
    for o in sg.get("old", ()):
        out.append("    - " + o)
    for n in sg.get("new", ()):
        out.append("    + " + n)
    out.append("    " + sg["url"])
    return "\n".join(out) + "\n"


def main_fix(args, rules, frm, to, why, out):
    """--diff: the fixes as a unified diff, and what is left to a person; --fix: apply them, then
    report what is still found. A fix is written only where it is version-safe for every release
    from --from to --to; the rest are suggestions (exit 1 when --diff has something to show)."""
    diff, fixes, suggestions, skipped = fix_paths(rules, args.paths, frm, to, args.lang, write=args.fix)

    def t(key, **values):
        return say(rules, args.lang, msg(key, **values))
    counted = {"fixes": msg("check.cli.fixes", n=len(fixes)), "suggestions": msg("check.cli.suggestions", n=len(suggestions))}
    if args.diff:
        if args.format == "json":
            out.write(json.dumps({"schema_version": SCHEMA_VERSION, "from": frm, "to": to, "from_reason": say(rules, "en", why),
                                  "from_reason_text": say(rules, args.lang, why),
                                  "diff": diff, "fixes": fixes, "suggestions": suggestions, "skipped": skipped},
                                 ensure_ascii=False, indent=1) + "\n")
        else:
            out.write(diff)
            for sg in suggestions:
                out.write(suggestion_text(rules, args.lang, sg))
            out.write(t("check.cli.diff_summary", **counted) + "\n")
        return EXIT_NOTES if diff or suggestions else EXIT_OK
    if args.format == "text":
        for f in fixes:
            out.write(t("check.cli.fixed", place=place(f), id=f["change"] or f["api"], new=" / ".join(x.strip() for x in f["new"])) + "\n")
        for sg in suggestions:
            out.write(suggestion_text(rules, args.lang, sg))
        out.write(t("check.cli.fix_summary", **counted) + "\n")
    return None


# ------------------------------------------------------------------------------ the environment
def _first(pattern, text, flags=re.M):
    m = re.search(pattern, text, flags)
    return m.group(1).strip() if m else None


def _na(v):
    return v if v and not re.match(r"(?i)(n/?a|none|could not collect|no cuda|false)\b", v) else None


def smi_rows(text):
    """The GPU names of nvidia-smi's table: a row "| 0  NVIDIA GeForce RTX 3090  On | 00000000:01:00.0 ..."
    whose first cell ends in the persistence mode (On, Off) or, on Windows, the driver model (WDDM,
    TCC). Split by cells and words, not by a pattern, so a long run of spaces costs linear time."""
    out = []
    for ln in text.split("\n"):
        cells = ln.strip().split("|")
        if len(cells) < 3 or cells[0].strip():
            continue
        words, bus = cells[1].split(), cells[2].strip()
        if (len(words) >= 3 and words[0].isdigit() and words[-1] in ("On", "Off", "WDDM", "TCC")
                and re.match(r"[0-9A-Fa-f]{4,8}:", bus)):
            out.append(" ".join(words[1:-1]))
    return out


def smi_list(text):
    """The GPU names of ``nvidia-smi -L``: "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...)"."""
    out = []
    for ln in text.split("\n"):
        m = re.match(r"GPU \d+:", ln)
        k = ln.find("(UUID:", m.end()) if m else -1
        if k >= 0 and ln[m.end():k].strip():
            out.append(ln[m.end():k].strip())
    return out


def capability_warnings(text):
    """(GPU name, compute capability) from the warnings torch prints for a GPU its wheel has no
    code for: "NVIDIA GeForce GTX 780 with CUDA capability sm_35 is not compatible with the current
    PyTorch installation." and "Found GPU0 NVIDIA GeForce GTX 780 which is of cuda capability 3.5."
    Line by line with str.find, so a long line costs linear time."""
    out = []
    for ln in text.split("\n"):
        k = ln.find(" with CUDA capability sm_")
        if k > 0:
            m = re.match(r"(\d+)(\d)\b", ln[k + 25:])
            name = ln[:k].split("Warning:")[-1].strip()
            if m and name:
                out.append((name, "%s.%s" % (m.group(1), m.group(2))))
            continue
        k = ln.find(" which is of cuda capability ")
        if k > 0 and "Found GPU" in ln[:k]:
            m = re.match(r"(\d+)\.(\d+)", ln[k + 29:])
            name = ln[ln.find("Found GPU"):k]
            name = re.sub(r"^Found GPU\d*\s*", "", name).strip()
            if m and name:
                out.append((name, "%s.%s" % (m.group(1), m.group(2))))
    return out


def driver_version(drv):
    """(major, shown) of an NVIDIA driver version: "580.65.06" -> (580, "580.65.06"); the Windows
    form "32.0.15.8129" -> (581, "581.29"), its last five digits; (None, drv) when unreadable."""
    m = re.match(r"(\d+)\.\d+\.(\d+)\.(\d+)$", drv.strip())
    if m and int(m.group(1)) >= 10:
        digits = (m.group(2) + m.group(3))[-5:]
        if len(digits) == 5:
            return int(digits[:3]), "%s.%s" % (digits[:3], digits[3:])
    m = re.match(r"(\d{2,4})(?:\.\d+)*$", drv.strip())
    return (int(m.group(1)), drv.strip()) if m else (None, drv)


#: terminal escape sequences (colours, cursor moves): removed from a paste before it is read
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
QUOTE = re.compile(r"[ \t]*(?:>[ \t]*)*")
KEY = re.compile(r"[A-Za-z][A-Za-z0-9_ .()/+-]*")


def normalize_paste(text):
    """The paste as the field patterns read it: no terminal escapes; each line without its indent
    and the "> " of a quoted reply; "Key      : value" (vLLM's collect_env, nvidia-smi -q) as
    "Key: value". Line by line, so a long run of spaces costs linear time."""
    text = ANSI.sub("", text.replace("\r\n", "\n"))
    # collect_env's banner and its first field glued on one line, as some issue forms paste it
    text = re.sub(r"(Collecting environment information\.*)[ \t]*(?=PyTorch version:)", "\\1\n", text)
    out = []
    for ln in text.split("\n"):
        ln = ln[QUOTE.match(ln).end():]
        i = ln.find(":")
        if i > 0 and ln[i - 1] in " \t":
            key = ln[:i].rstrip(" \t")
            if KEY.fullmatch(key):
                ln = key + ln[i:]
        out.append(ln)
    return "\n".join(out)


def split_pastes(text):
    """Two or more collect_env reports pasted one after the other, as separate texts: a second
    "PyTorch version:" line (or the "Collecting environment information" line before it) starts a
    new one. Anything else stays one paste: nvidia-smi or pip output after a report is that machine's."""
    parts, cur, has_version = [], [], False
    for ln in normalize_paste(text).split("\n"):
        version = ln.startswith("PyTorch version:")
        if has_version and (version or ln.startswith("Collecting environment information")):
            parts.append("\n".join(cur))
            cur, has_version = [], False
        cur.append(ln)
        has_version = has_version or version
    parts.append("\n".join(cur))
    return [x for x in parts if x.strip()] or [text]


def parse_env(text):
    """Fields found in a paste; a field that is absent stays None."""
    text = normalize_paste(text)
    env = {"torch": None, "python": None, "free_threaded": False, "driver": None, "gpus": [], "macos": None,
           "gfx": [], "amd_names": [], "rocm": None, "cuda": None, "formats": [], "os": None, "arch": None,
           "glibc": None, "amd_pci": [], "gpu_cc": {}, "gpu_archs": {}}
    fm = env["formats"]
    # collect_env
    if re.search(r"^PyTorch version:", text, re.M):
        fm.append("collect_env")
        env["torch"] = _na(_first(r"^PyTorch version:\s*(\S+)", text))
        py = _first(r"^Python version:\s*(\d+\.\d+(?:\.\d+)?\S*)", text)
        if py:
            env["python"] = re.match(r"\d+\.\d+(?:\.\d+)?", py).group(0)
            env["free_threaded"] = "t" in py[len(env["python"]):].split()[0] if py[len(env["python"]):] else False
        env["driver"] = _na(_first(r"^Nvidia driver version:\s*(.*)$", text))
        env["cuda"] = _na(_first(r"^CUDA used to build PyTorch:\s*(.*)$", text))
        env["rocm"] = _na(_first(r"^ROCM used to build PyTorch:\s*(.*)$", text))
        osv = _first(r"^OS:\s*(.*)$", text)
        if osv:
            m = re.match(r"(?:macOS|Mac OSX?|Mac OS X)\s+(\d+(?:\.\d+)*)", osv)
            if m:
                env["macos"] = m.group(1)
            a = re.search(r"\((x86_64|arm64|aarch64|AMD64)\)\s*$", osv)
            env["os"] = "macos" if m else ("windows" if re.match(r"(?i)microsoft windows", osv) else "linux")
            env["arch"] = a.group(1).lower().replace("amd64", "x86_64") if a else None
            if env["arch"] is None:   # the processor from "Python platform: Linux-...-aarch64-with-glibc2.35"
                pp = _first(r"^Python platform:\s*(\S+)", text) or ""
                a = re.search(r"-(x86_64|arm64|aarch64|AMD64)(?:-|$)", pp)
                env["arch"] = a.group(1).lower().replace("amd64", "x86_64") if a else None
            if env["arch"] is None and env["os"] == "windows":   # Windows: Python's own build, "[MSC v.1929 64 bit (AMD64)]"
                aw = re.search(r"\[MSC [^\]]*\((AMD64|ARM64)\)\]", _first(r"^Python version:\s*(.*)$", text) or "")
                env["arch"] = ("x86_64" if aw.group(1) == "AMD64" else "aarch64") if aw else None
            if env["arch"] in ("arm64", "aarch64"):   # the same processor: Linux says aarch64, macOS arm64
                env["arch"] = "arm64" if env["os"] == "macos" else "aarch64"
        env["glibc"] = _first(r"^Libc version:\s*glibc-(\d+\.\d+)", text)
        g = re.search(r"^GPU models and configuration:[ \t]*(.*)\n((?:GPU \d+:.*\n?)*)", text, re.M)
        if g:
            names = [g.group(1).strip()] if g.group(1).strip() else []
            names += re.findall(r"^GPU \d+:\s*(.*)$", g.group(2), re.M)
            for n in names:
                n = re.sub(r"^GPU \d+:\s*", "", n).strip()
                if not _na(n):
                    continue
                gf = re.search(r"\((gfx[0-9a-f]+)", n)
                dev = re.match(r"(?:AMD\s+)?Device\s+([0-9a-fA-F]{4})\b", n)
                if dev:   # a ROCm build names a GPU it has no marketing name for by its PCI device id
                    env["amd_pci"].append(dev.group(1).lower())
                elif gf:
                    env["gfx"].append(gf.group(1))
                    env["amd_names"].append(n.split("(")[0].strip())
                elif re.search(r"(?i)\b(amd|radeon|instinct)\b", n):
                    env["amd_names"].append(n)
                else:
                    env["gpus"].append(n)
        if re.search(r"(?m)^Is free-threading build:\s*True", text):
            env["free_threaded"] = True
    # pip freeze / requirements / collect_env's library list
    m = re.search(r"(?im)^(?:\[(?:pip3?|conda)\]\s+)?torch\s*==\s*(\d+\.\d+\.\d+\S*)", text)
    if m:
        if "collect_env" not in fm:
            fm.append("pip")
        env["torch"] = env["torch"] or m.group(1)
    elif not env["torch"]:
        m = re.search(r"(?im)^torch\s*(?:>=|~=|===?)\s*(\d+\.\d+(?:\.\d+)?\S*)", text)
        if m:
            fm.append("requirements")
            env["torch"] = m.group(1)
        else:   # pip list: "torch    2.9.1+cu128"
            m = re.search(r"(?im)^torch[ \t]+(\d+\.\d+\.\d+[^\s]*)[ \t]*$", text)
            if m:
                fm.append("pip list")
                env["torch"] = m.group(1)
            else:   # pip freeze of a wheel from a file or URL: "torch @ file:///w/torch-2.4.1%2Bcu121-cp311-...whl"
                m = re.search(r"(?im)^torch[ \t]*@[ \t]*\S*?torch-(\d+\.\d+\.\d+)((?:%2B|\+)[A-Za-z0-9.]+)?-", text)
                if m:
                    fm.append("pip")
                    local = m.group(2) or ""
                    env["torch"] = m.group(1) + ("+" + local[3 if local[0] == "%" else 1:] if local else "")
    # nvidia-smi
    if re.search(r"NVIDIA-SMI|Driver Version\s*:", text):
        fm.append("nvidia-smi")
        env["driver"] = env["driver"] or _first(r"Driver Version\s*:\s*([\d.]+)", text)
        for name in smi_rows(text):
            env["gpus"].append(name)
        name = None
        for key, value in re.findall(r"^(Product Name|Product Architecture)\s*:[ \t]*(.+)$", text, re.M):
            if key == "Product Name":
                name = value.strip()
                env["gpus"].append(name)
            elif name:   # nvidia-smi -q / -a: the architecture of the GPU named above it
                env["gpu_archs"][name] = value.strip()
    for name, cc in capability_warnings(text):
        if "torch warning" not in fm:
            fm.append("torch warning")
        env["gpus"].append(name)
        env["gpu_cc"][name] = cc
    for name in smi_list(text):   # nvidia-smi -L
        if "nvidia-smi" not in fm:
            fm.append("nvidia-smi")
        env["gpus"].append(name)
    # sw_vers
    v = _first(r"^ProductVersion:\s*(\d+(?:\.\d+)*)", text)
    if v and re.search(r"^ProductName:\s*(macOS|Mac OS X)", text, re.M):
        fm.append("sw_vers")
        env["macos"] = env["macos"] or v
        env["os"] = env["os"] or "macos"
        if env["arch"] is None:   # `uname -m` next to it prints the processor on a line of its own
            a = re.search(r"^(x86_64|arm64)[ \t]*$", text, re.M)
            env["arch"] = a.group(1) if a else None
    # rocminfo / rocm-smi / amd-smi
    # an agent's "Name: gfx942" line says it alone, also in an excerpt without rocminfo's headers
    if re.search(r"HSA System Attributes|HSA Agents|ROCk module|^\s*Name:\s*gfx[0-9a-f]+\s*$", text, re.M):
        fm.append("rocminfo")
        env["gfx"] += re.findall(r"^\s*Name:\s*(gfx[0-9a-f]+)\s*$", text, re.M)
        env["amd_names"] += [n.strip() for n in re.findall(r"^\s*Marketing Name:\s*(.+)$", text, re.M)
                             if re.search(r"(?i)radeon|instinct|\bMI\d", n)]
    if re.search(r"ROCm System Management Interface|AMD SMI|GFX Version", text):
        fm.append("rocm-smi")
        env["gfx"] += re.findall(r"GFX Version:\s*(gfx[0-9a-f]+)", text)
        env["amd_names"] += [n.strip() for n in re.findall(r"Card [Ss]eries:\s*(.+)$", text, re.M)]
        for did in re.findall(r"^\s*\d+\s+\d+\s+0x([0-9a-fA-F]{4}),", text, re.M):
            env["amd_pci"].append(did.lower())
    for did in re.findall(r"\[1002:([0-9a-fA-F]{4})\]", text):   # lspci -nn: AMD's vendor id 1002
        if "lspci" not in fm:
            fm.append("lspci")
        env["amd_pci"].append(did.lower())
    rv = _first(r"ROCm version:\s*(\d+\.\d+(?:\.\d+)?)", text)
    env["rocm"] = env["rocm"] or rv
    # `python -V` prints "Python 3.12.3" on a line of its own
    env["python"] = env["python"] or _first(r"^Python (\d+\.\d+\.\d+)\s*$", text)
    # the torch build says which CUDA/ROCm wheel it is
    if env["torch"]:
        m = re.search(r"\+cu(\d+)(\d)$", env["torch"])
        if m and not env["cuda"]:
            env["cuda"] = "%s.%s" % (m.group(1), m.group(2))
        m = re.search(r"\+rocm(\d+\.\d+)", env["torch"])
        if m and not env["rocm"]:
            env["rocm"] = m.group(1)
    for k in ("gpus", "gfx", "amd_names", "amd_pci"):
        env[k] = list(dict.fromkeys(x for x in env[k] if x))
    env["packages"] = installed_packages(text)
    return env


#: a package pinned (pip freeze, requirements, collect_env's "[pip3] x==1.2"), or listed (pip list,
#: collect_env's "[conda] x 1.2 build channel"): its name and version
_PKG_PIN = re.compile(r"^(?:\[(?:pip3?|conda)\][ \t]+)?([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]*==[ \t]*(\d[^\s;#,]*)", re.M)
_VLLM_ENV = re.compile(r"^vLLM Version[ \t]*:[ \t]*v?(\d+\.\d+[^\s(]*)", re.M)
_PKG_LIST = re.compile(r"^(?:\[(?:pip3?|conda)\][ \t]+)?([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]+(\d+\.\d+[^\s]*)(?:[ \t].*)?$", re.M)
#: a package named with a colon on a line of its own: Lightning's environment report ("  - torchvision:
#: 0.15.1"), and the "torch : 2.2.1" lists people type into issues
_PKG_COLON = re.compile(r"^[ \t]*(?:[-*][ \t]+)?([A-Za-z][A-Za-z0-9._-]*)[ \t]*:[ \t]*v?(\d+\.\d+[^\s,;]*)[ \t]*$", re.M)


def canonical(name):
    """A package name as the index compares it (PEP 503): lower case, runs of -_. as one -."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_packages(text):
    """{canonical name: version (its local part, +cu121, taken off)} of the packages a paste pins or lists."""
    out = {}
    for rx in (_PKG_PIN, _PKG_LIST, _PKG_COLON):
        for name, version in rx.findall(text):
            out.setdefault(canonical(name), version.split("+")[0])
    m = _VLLM_ENV.search(text)   # vLLM's own collect_env names its version on a line of its own
    if m:
        out.setdefault("vllm", m.group(1).split("+")[0])
    return out


def check_companions(rules, env, to, lang):
    """The packages built against torch that the paste shows (companions/pairing.py's facts in
    ``rules["companions"]``), judged at release ``to``: {"items": [{"package", "found", "verdict"
    (ok | install | none | unknown), "install", "note", "note_text"}], "pip": one line for torch and
    every package to install, or None}."""
    C = rules.get("companions") or {}
    items, pins = [], []
    for pkg in C.get("packages") or []:
        have = (env.get("packages") or {}).get(canonical(pkg))
        if not have:
            continue
        facts = C["by_package"][pkg]
        at = facts["at"].get(to) or {"state": "none", "newest": None}
        minors = facts["versions"].get(have, False)
        if minors is False:
            verdict, note = "unknown", msg("check.companion.unread", package=pkg, version=have)
        elif minors is None:
            verdict, note = "unknown", msg("check.companion.undeclared", package=pkg, version=have)
        elif to in minors:
            verdict, note = "ok", msg("check.companion.ok", package=pkg, version=have, release=to)
        elif at["newest"]:
            verdict, note = "install", msg("check.companion.install", package=pkg, version=have, release=to, newest=at["newest"])
        elif at["state"] == "undeclared":
            verdict, note = "unknown", msg("check.companion.target_undeclared", package=pkg, version=have, release=to)
        else:
            verdict, note = "none", msg("check.companion.none", package=pkg, version=have, release=to)
        install = at["newest"] if verdict == "install" else None
        if install and not facts.get("pinned_by_torch"):   # torch's wheel brings the one it pins
            pins.append("%s==%s" % (pkg, install))
        items.append({"package": pkg, "found": have, "verdict": verdict, "install": install,
                      "note": say(rules, "en", note), "note_text": say(rules, lang, note)})
    return {"items": items, "pip": "pip install torch==%s.* %s" % (to, " ".join(pins)) if pins else None,
            "url": (C.get("url") or {}).get(lang)}


def _words(name):
    return [w for w in re.split(r"[\s\-_/(),]+", name.upper()) if w and w not in ("NVIDIA", "AMD")]


def name_words(name):
    """The words of a GPU name to match; a name a tool cut short ("NVIDIA GeForce RTX 30...")
    loses its last, partial word, so a truncated name never becomes a guess."""
    name = name.strip()
    cut = name.endswith(("...", "\u2026"))
    w = _words(name.rstrip(".\u2026"))
    return w[:-1] if cut else w


def lookup_gpu(name, table):
    """The table row the name matches (longest match; None when unknown or ambiguous)."""
    w = name_words(name)
    best, best_len = [], 0
    for row in table:
        n = len(row["words"])
        if n < best_len:
            continue
        if any(w[i:i + n] == row["words"] for i in range(len(w) - n + 1)):
            if n > best_len:
                best, best_len = [row], n
            else:
                best.append(row)
    if not best:
        return None
    key = "cc" if "cc" in best[0] else "gfx"
    return best[0] if len({r[key] for r in best}) == 1 else None


def nvidia_gpu(name, env, gpus):
    """What the paste and the table tell of an NVIDIA GPU: {"ccs", "arch", "inferred"} or None.
    In order: torch's own warning (its compute capability), a listed model, the architecture
    nvidia-smi -a names (every compute capability the table knows for it: inferred), the model's
    series (inferred)."""
    cc = env.get("gpu_cc", {}).get(name)
    if cc:
        # the generation whose first capability is the highest at or below it (not the table's order)
        arch = [a for a, ccs in gpus["arch_ccs"].items() if ccv(ccs[0]) <= ccv(cc)]
        top = max(arch, key=lambda a: ccv(gpus["arch_ccs"][a][0])) if arch else None
        return {"ccs": [cc], "arch": top, "inferred": None}
    row = lookup_gpu(name, gpus["nvidia"])
    if row:
        return {"ccs": [row["cc"]], "arch": row["arch"], "inferred": None}
    arch = env.get("gpu_archs", {}).get(name)
    if arch:
        known = [a for a in gpus["arch_ccs"] if arch.split()[0].lower() == a.lower()]
        if known:
            return {"ccs": gpus["arch_ccs"][known[0]], "arch": known[0], "inferred": "arch"}
    w = name_words(name)
    hits = [sr for sr in gpus["series"] for i in range(len(w) - 1)
            if w[i] == sr["word"] and re.fullmatch(sr["number"], w[i + 1])]
    if hits and len({h["series"] for h in hits}) == 1:
        return {"ccs": hits[0]["ccs"], "arch": hits[0]["arch"], "inferred": "series"}
    return None


def gpu_text(name, g):
    """A GPU as the paste names it, with what the table says of it (a message)."""
    if g is None:
        return msg("check.found.gpu_unknown", name=name)
    sm = "/".join("sm_" + c.replace(".", "") for c in g["ccs"])
    if g["inferred"]:
        return msg("check.found.gpu_inferred", name=name, sms=sm, arch=g["arch"], how=msg("check.found.by_" + g["inferred"]))
    return msg("check.found.gpu", name=name, sms=sm, arch=g["arch"])


def ccv(s):
    return tuple(int(x) for x in s.split("."))


def gpu_runs(cc, archs):
    """Whether a GPU of compute capability ``cc`` ("6.1") runs code built for one of ``archs``
    (["sm_60", "sm_70"]): the same major version, an equal or lower minor."""
    major, minor = cc.split(".")
    for a in archs:
        m = re.match(r"sm_(\d+)(\d)[a-z]?$", a)
        if m and m.group(1) == major and int(m.group(2)) <= int(minor):
            return True
    return False


#: the items a build of a release decides (judged per build when the release has a build matrix)
BUILD_ITEMS = ("nvidia_driver", "gpu_arch")


def _major(v):
    m = re.match(r"\d+", str(v or ""))
    return int(m.group(0)) if m else None


def running_build(env):
    """The build the paste's torch is (``cu118``, ``rocm6.1``, ``cpu``) from its local version or
    its CUDA version; None when the paste does not say."""
    m = re.search(r"\+(cu\d+|rocm[\d.]+|cpu|xpu)\b", env.get("torch") or "")
    if m:
        return m.group(1)
    if env.get("cuda"):
        return "cu" + "".join(re.findall(r"\d+", env["cuda"])[:2])
    return None


def build_candidates(env, builds):
    """The builds of a release that could serve this machine: CUDA builds on a machine with NVIDIA
    traces (a GPU or a driver), ROCm builds on one with AMD traces, the CPU build on Windows, none
    on a Mac (its wheel is no row of the matrix), else the default wheel."""
    if env["gpus"] or env["driver"]:
        return [b for b in builds if b["kind"] == "cuda"]
    if env["gfx"] or env["amd_names"] or env["amd_pci"] or env["rocm"]:
        return [b for b in builds if b["kind"] == "rocm"]
    if env.get("os") == "macos" or env["macos"]:   # the matrix's builds are Linux and Windows ones
        return []
    if env.get("os") == "windows":   # plain pip install torch on Windows is the CPU build
        return [b for b in builds if b["kind"] == "cpu"]
    return [b for b in builds if b["default"]] or [b for b in builds if b["kind"] == "cpu"]


def default_build(env, builds):
    """The row plain ``pip install torch`` installs on this machine: the CPU row on Windows, none on
    a Mac (its wheel is no row of the matrix), else the default (Linux) row."""
    if env.get("os") == "macos" or env["macos"]:
        return None
    if env.get("os") == "windows":
        return next((b for b in builds if b["kind"] == "cpu"), None)
    return next((b for b in builds if b["default"]), None)


def judge_build(rules, env, v, b):
    """Build ``b`` of release ``v`` on this machine: (blocking messages, checks it could not judge).
    The build the paste is running is proven to run (the paste shows it)."""
    frm, note = release_of(env["torch"], rules["releases"]) if env["torch"] else (None, None)
    if frm == v and note is None and running_build(env) == b["build"]:
        return [], []
    blocked, unknown = [], []
    if b["kind"] == "cuda":
        need = b["driver_windows"] if env.get("os") == "windows" else b["driver_linux"]
        have = driver_version(env["driver"])[0] if env["driver"] else None
        if env["driver"]:
            if have is None or need is None:
                unknown.append("nvidia_driver")
            elif have < _major(need):
                blocked.append(msg("check.note.build_driver", build=b["build"], version=need))
        if env["gpus"]:
            rows = [nvidia_gpu(g, env, rules["env"]["gpus"]) for g in env["gpus"]]
            floor = (rules["env"]["gpus"].get("toolkit_min_cc") or {}).get((b["cuda"] or "").split(".")[0])
            if b["archs"]:
                low = [r for r in rows if r and not any(gpu_runs(c, b["archs"]) for c in r["ccs"])]
            else:   # no arch list known: only the toolkit's floor can rule a GPU out
                low = [r for r in rows if r and floor and all(ccv(c) < ccv(floor) for c in r["ccs"])]
            if low:
                blocked.append(msg("check.note.build_arch", build=b["build"],
                                   sms="/".join("sm_" + c.replace(".", "") for c in low[0]["ccs"])))
            elif not b["archs"] or any(r is None for r in rows):
                unknown.append("gpu_arch")
    return blocked, unknown


def missing_fact(check, build):
    """Whether an item the paste shows nothing for leaves the newest release unjudged: Python always
    (every release has a Python range), the driver and the GPU when the answer is a CUDA build (its
    driver minimum and GPU code); a paste with no machine facts is not told a build runs."""
    return check == "python" or (build is not None and build["kind"] == "cuda" and check in ("nvidia_driver", "gpu_arch"))


def newest_runnable(rules, env, lang):
    """The newest release none of whose items is blocked for this machine and one of whose builds
    runs on it (the build matrix: its GPU code and the driver its CUDA needs), with that build and
    its pip command; the newest release whose default wheel runs (``default_wheel``); and what
    blocks the release after it: {"release", "build", "pip", "unknown", "blocked_by": {"release",
    "items"}, "default_wheel": {"release", "build", "pip"}}; release None when every release is
    blocked. Unknown items do not block: the answer says which items it could not judge. The CUDA
    and ROCm build of the paste (BUILD_CHOICES) does not block either: that is a choice of wheel."""
    releases = rules["releases"]
    after, best, default_wheel = None, None, None
    for v in reversed(releases):
        items = check_env(rules, env, v, lang)
        builds = rules["env"]["releases"][v].get("builds") or []
        cands = build_candidates(env, builds)
        by_build = bool(cands) and any(b["kind"] == "cuda" for b in cands)   # the build decides driver and GPU
        skip = BUILD_CHOICES + (BUILD_ITEMS if by_build else ())
        blocked = [i for i in items if i["verdict"] == "blocked" and i["check"] not in skip]
        judged = [(b, *judge_build(rules, env, v, b)) for b in cands]
        runs = sorted((j for j in judged if not j[1]),
                      key=lambda j: (len(j[2]), not j[0]["default"], -float(j[0]["cuda"] or 0)))
        if not blocked and default_wheel is None:
            # what plain `pip install torch` gets here: the default row on Linux, the CPU row on
            # Windows, a wheel of no row on a Mac; a row that is no candidate here does not block
            d = default_build(env, builds)
            j = next((j for j in judged if j[0] is d), None)
            amd = bool(env["gfx"] or env["amd_names"] or env["amd_pci"] or env["rocm"])
            if (j is None or not j[1]) and not (amd and d is not None and d["kind"] == "cuda"):   # no CUDA wheel for an AMD GPU
                default_wheel = {"release": v, "build": d["build"] if d else None,
                                 "pip": d["pip"] if d else "pip install torch==%s.*" % v}
        if not blocked and (runs or not cands):
            if best is None:
                b, _, unk = runs[0] if runs else (None, [], [])
                found = [i["check"] for i in items if i["verdict"] == "unknown" and i["found"] and i["check"] not in skip]
                missing = [i["check"] for i in items if i["verdict"] == "unknown" and not i["found"] and missing_fact(i["check"], b)]
                best = {"release": v, "build": b["build"] if b else None,
                        "pip": b["pip"] if b else "pip install torch==%s.*" % v,
                        "default": b is None or b is default_build(env, builds),
                        "unknown": list(dict.fromkeys(missing + found + unk)), "blocked_by": after}
            if default_wheel is not None:
                break
            continue
        if best is None:
            out = [{"check": i["check"], "found": i["found"], "note": i["note"], "url": i["url"],
                    "note_text": i["note_text"]} for i in blocked]
            if not blocked:   # every build is blocked: the reasons, build by build
                note = msg("check.note.no_build", release=v, builds=[x for j in judged for x in j[1]])
                out = [{"check": "build", "found": None, "note": say(rules, "en", note),
                        "url": rules["release_urls"][v][lang], "note_text": say(rules, lang, note)}]
            after = {"release": v, "items": out}
    if best is None:
        best = {"release": None, "build": None, "pip": None, "default": False, "unknown": [], "blocked_by": after}
    best["default_wheel"] = default_wheel
    return best


def check_env(rules, env, to, lang):
    """Verdicts per item for release ``to``."""
    E = rules["env"]
    releases = rules["releases"]
    facts = E["releases"][to]
    upto = [v for v in releases if vkey(v) <= vkey(to)]
    items = []

    def change_url(cid):
        if not cid:
            return rules["release_urls"][to][lang]
        return E["changes"][cid]["url"][lang]

    def item(check, found, verdict, cid=None, note=None):
        """One row; ``found`` (a value, or a message) and ``note`` (a message) in English, as the
        JSON has always had them, and in ``lang`` beside them (``found_text``, ``note_text``)."""
        items.append({"check": check, "found": say(rules, "en", found) or None, "verdict": verdict, "change": cid,
                      "title": E["changes"][cid]["title"][lang] if cid else None,
                      "url": change_url(cid), "note": say(rules, "en", note),
                      "found_text": say(rules, lang, found) or None, "note_text": say(rules, lang, note)})

    def dropped_in(key, value):
        for v in upto:
            lst = E["releases"][v].get(key) or []
            if value in [str(x) for x in lst]:
                return E["releases"][v]["links"].get(key)
        return False

    links = facts["links"]
    # python
    py = env["python"]
    if not py:
        item("python", None, "unknown", note=msg("check.note.no_python"))
    elif not facts["python_min"] or not facts["python_max"]:
        item("python", py, "unknown", note=msg("check.note.no_python_range", release=to))
    else:
        xy = ".".join(py.split(".")[:2])
        shown = py + ("t" if env["free_threaded"] else "")
        oldest = E["releases"][releases[0]]["python_min"]
        if ccv(xy) < ccv(facts["python_min"]) and oldest and ccv(xy) < ccv(oldest):
            # dropped before the oldest release known here: no change of the atlas dropped it
            item("python", shown, "blocked", None, msg("check.note.python_before", release=releases[0], version=oldest, python=xy))
        elif ccv(xy) < ccv(facts["python_min"]):
            # the row names the change that dropped this Python, in whichever release on the way it was
            dropped = next((E["releases"][v]["links"]["python_min"] for v in upto if E["releases"][v]["python_min"]
                            and E["releases"][v]["links"].get("python_min")
                            and ccv(xy) < ccv(E["releases"][v]["python_min"])), None)
            item("python", shown, "blocked", dropped or links.get("python_min"),
                 msg("check.note.python_min", release=to, version=facts["python_min"]))
        elif ccv(xy) > ccv(facts["python_max"]):
            item("python", shown, "blocked", links.get("python_max"), msg("check.note.python_max", release=to, version=facts["python_max"]))
        elif env["free_threaded"] and facts["python_free_threaded"] is not None and xy + "t" not in facts["python_free_threaded"]:
            item("python", shown, "blocked", links.get("python_min"), msg("check.note.no_free_threaded", version=xy + "t"))
        else:
            item("python", shown, "ok", links.get("python_min"))
    # NVIDIA driver
    drv = env["driver"]
    if not drv:
        item("nvidia_driver", None, "unknown", note=msg("check.note.no_driver"))
    elif facts["nvidia_min_driver"] is None:
        item("nvidia_driver", drv, "unknown", note=msg("check.note.no_driver_req", release=to))
    elif driver_version(drv)[0] is None:
        item("nvidia_driver", drv, "unknown", note=msg("check.note.driver_unreadable"))
    else:
        major, shown = driver_version(drv)
        verdict = "ok" if major >= int(facts["nvidia_min_driver"]) else "blocked"
        item("nvidia_driver", shown if shown == drv else "%s (%s)" % (shown, drv), verdict, links.get("nvidia_min_driver"),
             None if verdict == "ok" else msg("check.note.driver_min", release=to, version=facts["nvidia_min_driver"]))
    # NVIDIA GPU architecture: a GPU is judged when every compute capability it may have (one,
    # or a series' several) gets the same verdict
    gpus = env["gpus"]
    if not gpus:
        item("gpu_arch", None, "unknown", note=msg("check.note.no_gpu"))
    else:
        rows = [(g, nvidia_gpu(g, env, E["gpus"])) for g in gpus]
        found = [gpu_text(g, r) for g, r in rows]
        archs = facts.get("nvidia_archs")

        def judge(runs, blocked, mixed):
            """One verdict for every GPU: blocked when one runs on none of the capabilities it may
            have, ok when each runs on all of them."""
            low = [r for _, r in rows if r and not any(runs(c) for c in r["ccs"])]
            if low:
                item("gpu_arch", found, "blocked", links.get("nvidia_min_arch"), blocked(low[0]))
            elif any(r is None for _, r in rows):
                item("gpu_arch", found, "unknown", note=msg("check.note.gpu_not_in_table"))
            elif any(not all(runs(c) for c in r["ccs"]) for _, r in rows):
                item("gpu_arch", found, "unknown", note=mixed)
            else:
                item("gpu_arch", found, "ok", links.get("nvidia_min_arch"))

        if archs:
            # the GPU code the wheel holds (torch.cuda.get_arch_list()): a GPU runs code built for
            # its own major version and an equal or lower minor (sm_60 code runs on sm_61)
            judge(lambda c: gpu_runs(c, archs),
                  lambda r: msg("check.note.wheel_archs", release=to, archs=" ".join(archs),
                                sms="/".join("sm_" + c.replace(".", "") for c in r["ccs"])),
                  msg("check.note.wheel_archs_mixed", release=to))
        elif facts["nvidia_min_cc"] is None:
            item("gpu_arch", found, "unknown", note=msg("check.note.no_gpu_req", release=to))
        else:
            judge(lambda c: ccv(c) >= ccv(facts["nvidia_min_cc"]),
                  lambda r: msg("check.note.arch_min", release=to, arch=facts["nvidia_min_arch"]),
                  msg("check.note.arch_min_mixed", release=to, arch=facts["nvidia_min_arch"]))
    # macOS for MPS
    mac = env["macos"]
    if not mac:
        item("macos_mps", None, "unknown", note=msg("check.note.no_macos"))
    elif facts["macos_min_mps"] is None:
        item("macos_mps", mac, "unknown", note=msg("check.note.no_macos_req", release=to))
    else:
        ok = int(mac.split(".")[0]) >= int(str(facts["macos_min_mps"]).split(".")[0])
        item("macos_mps", mac, "ok" if ok else "blocked", links.get("macos_min_mps"),
             None if ok else msg("check.note.macos_min", release=to, version=facts["macos_min_mps"]))
    # ROCm gfx target
    gfx = list(env["gfx"])
    for n in env["amd_names"]:
        r = lookup_gpu(n, E["gpus"]["amd"])
        if r:
            gfx.append(r["gfx"])
    for did in env["amd_pci"]:
        if did in E["gpus"]["amd_pci_ids"]:
            gfx.append(E["gpus"]["amd_pci_ids"][did])
    gfx = list(dict.fromkeys(gfx))
    if not gfx:
        unknown_names = env["amd_names"] or env["amd_pci"]
        item("rocm_target", env["amd_names"] + [msg("check.found.pci", id=d) for d in env["amd_pci"]]
             if unknown_names else None, "unknown",
             note=msg("check.note.amd_not_in_table") if unknown_names else msg("check.note.no_amd"))
    elif not any(E["releases"][v].get("rocm_wheels") or E["releases"][v].get("rocm_dropped_targets") for v in upto if v == to):
        item("rocm_target", ", ".join(gfx), "unknown", note=msg("check.note.no_rocm_facts", release=to))
    else:
        hit = [(g, dropped_in("rocm_dropped_targets", g)) for g in gfx]
        bad = [(g, c) for g, c in hit if c is not False]
        if bad:
            item("rocm_target", ", ".join(gfx), "blocked", bad[0][1] or None, msg("check.note.gfx_dropped", target=bad[0][0]))
        else:
            item("rocm_target", ", ".join(gfx), "ok", links.get("rocm_dropped_targets"))
    # ROCm wheel
    rocm = env["rocm"]
    if not rocm:
        item("rocm_wheel", None, "unknown", note=msg("check.note.no_rocm"))
    elif facts["rocm_wheels"] is None:
        item("rocm_wheel", rocm, "unknown", note=msg("check.note.no_rocm_wheels", release=to))
    else:
        xy = ".".join(re.findall(r"\d+", rocm)[:2])
        if xy in [str(x) for x in facts["rocm_wheels"]]:
            item("rocm_wheel", rocm, "ok", links.get("rocm_wheels"))
        else:
            c = dropped_in("rocm_dropped_wheels", xy)
            item("rocm_wheel", rocm, "blocked", c or links.get("rocm_wheels"),
                 msg("check.note.rocm_wheels", release=to, versions=", ".join(str(x) for x in facts["rocm_wheels"])))
    # CUDA wheel
    cuda = env["cuda"]
    if not cuda:
        item("cuda_wheel", None, "unknown", note=msg("check.note.no_cuda"))
    elif facts["cuda_wheels"] is None:
        xy = ".".join(re.findall(r"\d+", cuda)[:2])
        c = dropped_in("cuda_ended", xy)
        if c is not False:   # a release on the way ended this CUDA build
            item("cuda_wheel", cuda, "blocked", c, msg("check.note.cuda_ended", version=xy, release=to))
        else:
            item("cuda_wheel", cuda, "unknown", note=msg("check.note.no_cuda_wheels", release=to))
    else:
        xy = ".".join(re.findall(r"\d+", cuda)[:2])
        if xy in facts["cuda_wheels"]:   # the default wheel's change, or the other wheels' (not the default's)
            item("cuda_wheel", cuda, "ok",
                 links.get("cuda_default_wheel") if xy == facts["cuda_wheels"][0] else links.get("cuda_other_wheels"))
        else:
            c = dropped_in("cuda_dropped_wheels", "cu" + xy.replace(".", ""))
            ended = False if c else dropped_in("cuda_ended", xy)
            if ended:   # a release on the way ended this CUDA build: its change says so
                item("cuda_wheel", cuda, "blocked", ended, msg("check.note.cuda_ended", version=xy, release=to))
            else:
                item("cuda_wheel", cuda, "blocked", c or links.get("cuda_default_wheel"),
                     msg("check.note.cuda_wheels", release=to, versions=", ".join(facts["cuda_wheels"])))
    # the platform: a wheel on PyPI for this OS and processor at all (the registry's file list), and
    # the oldest glibc or macOS that wheel installs on. Reported only when the paste names the OS
    # and processor (collect_env's "OS:" line).
    osn, arch = env.get("os"), env.get("arch")
    plat = E.get("platform") or {}
    fam = osn + "-" + arch if osn and arch else None
    label = (plat.get("labels") or {}).get(fam, fam)   # atlas/wheel/extract.FAMILIES
    wheels = facts.get("wheels")
    cid = (plat.get("changes") or {}).get(fam) or (facts.get("glibc_change") if osn == "linux" else None)
    if fam and wheels:
        if fam not in wheels:
            last = next((v for v in reversed(upto) if fam in (E["releases"][v].get("wheels") or {})), None)
            item("platform", label, "blocked", cid,
                 msg("check.note.no_platform_wheel_last", release=last) if last else msg("check.note.no_platform_wheel"))
        else:
            floors = wheels[fam]
            xy = ".".join(env["python"].split(".")[:2]) + ("t" if env["free_threaded"] else "") if env["python"] else None
            vals = [x for x in floors.values() if x]
            need = floors[xy] if xy in floors else (min(vals, key=ccv) if vals else "")
            have, what = (env.get("glibc"), "glibc") if osn == "linux" else ((env.get("macos"), "macOS") if osn == "macos" else (None, None))
            if not need or what is None:
                item("platform", label, "ok", cid)
            elif not have:
                item("platform", label, "unknown", cid, msg("check.note.no_os_version", what=what))
            else:
                ok = ccv(have) >= ccv(need)
                item("platform", "%s, %s %s" % (label, what, have), "ok" if ok else "blocked", cid,
                     None if ok else msg("check.note.platform_min", release=to, what=what, version=need))
    elif fam:
        item("platform", label, "unknown", note=msg("check.note.platforms_unread", release=to))
    shown = applies(env)
    return [i for i in items if i["check"] in shown]


def applies(env):
    """The checks that apply to the machine of the paste: no macOS row on a machine the paste shows
    to be Linux, Windows or with an NVIDIA or AMD GPU; no ROCm rows on an NVIDIA or macOS machine
    without AMD traces, no NVIDIA rows on an AMD or macOS one without NVIDIA traces. A paste that
    shows none of these keeps every row; no ROCm rows on Windows without AMD traces (ROCm builds
    are Linux-only)."""
    mac = env.get("os") == "macos" or bool(env["macos"])
    nv = bool(env["gpus"] or env["driver"] or env["cuda"])
    amd = bool(env["gfx"] or env["amd_names"] or env["amd_pci"] or env["rocm"])
    other_os = env.get("os") not in (None, "macos")
    hide = set()
    if not mac and (other_os or nv or amd):
        hide.add("macos_mps")
    if not amd and (mac or nv or env.get("os") == "windows"):   # ROCm builds are Linux-only
        hide |= {"rocm_target", "rocm_wheel"}
    if not nv and (mac or amd):
        hide |= {"nvidia_driver", "gpu_arch", "cuda_wheel"}
    return [c for c in ENV_CHECKS if c not in hide]


#: A line of pip freeze or a requirements file (no quotes, no spaced single '=': not code).
REQ_LINE = (r"^(?:-e\s+\S+|--[\w-]+.*|[A-Za-z0-9][\w.\-]*(?:\[[\w,\s-]*\])?\s*(?:(?:===|==|>=|<=|~=|!=|<|>|=(?=\d)|@)"
            r"\s*[\w.*+!<>=,~ -]+|@\s*[A-Za-z][\w+.-]*://\S+))$")   # the last: "name @ https://.../x.whl"


#: a row of a package list without its header: pip list or conda list ("torch   2.7.1", with conda's
#: build and channel after it), or "name: version" as people type it ("- lightning: 2.0.4")
LIST_LINE = r"^(?:-\s+)?[A-Za-z][\w.\-]*(?:\s{2,}|\s*:\s*)v?\d[\w.+!-]*(?:\s+\S+){0,2}$"


def detect_kind(text):
    """'env' for a paste of tool output or a package list, 'code' for Python source (read as
    parse_env reads it: quote marks, indents and terminal escapes removed)."""
    text = normalize_paste(text)
    markers = (r"^PyTorch version:", r"NVIDIA-SMI \d", r"Driver Version\s*:", r"^ProductVersion:", r"HSA System Attributes",
               r"ROCm System Management Interface", r"^GPU \d+: .*\(UUID:", r"^Marketing Name:", r"^Is CUDA available:",
               r"^Package[ \t]+Version[ \t]*$", r" with CUDA capability sm_\d", r" which is of cuda capability \d",
               r"\[1002:[0-9a-fA-F]{4}\]", r"^Product Architecture:", r"^Versions of relevant libraries",
               r"^\[(?:pip3?|conda)\] \S")
    if any(re.search(m, text, re.M) for m in markers):
        return "env"
    lines = [x.strip() for x in text.splitlines() if x.strip() and not x.strip().startswith("#")]
    if not lines:
        return "code"
    req = sum(1 for x in lines if re.match(REQ_LINE, x) or re.match(LIST_LINE, x))
    return "env" if req * 2 > len(lines) else "code"


# ------------------------------------------------------------------------------ checkpoints
#: torch.save's legacy (non-zip) format starts with this number, pickled
CKPT_MAGIC = 0x1950A86A20F9469CFC6C
#: the largest pickle read (data.pkl, or the legacy format's pickles together), decompressed
CKPT_MAX_PICKLE = 256 * 1024 * 1024
#: a compressed data.pkl that expands more than this is a zip bomb (torch.save stores it uncompressed)
CKPT_MAX_RATIO = 100
#: open MARKs and stack items a pickle may hold at once (pickle.dump itself stops near 1,000 levels)
CKPT_MAX_DEPTH, CKPT_MAX_STACK = 1000, 1000000
#: the opcodes that push a string STACK_GLOBAL may take, and those that memoize or fetch
_STRING_OPS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "STRING", "BINSTRING", "SHORT_BINSTRING"}
_PUT_OPS, _GET_OPS = {"PUT", "BINPUT", "LONG_BINPUT"}, {"GET", "BINGET", "LONG_BINGET"}
_INT_OPS = {"INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4"}


class CkptError(Exception):
    """A file that cannot be read as a checkpoint; its message (``msg``, args[0]) says why, for a person."""


class _Mark:
    pass


_MARK = _Mark()


class _Capped:
    """A binary file that raises CkptError once more than ``limit`` bytes were read from it."""

    def __init__(self, f, limit):
        self.f, self.left = f, limit

    def _take(self, data):
        self.left -= len(data)
        if self.left < 0:
            raise CkptError(msg("check.ckpt.err.pickle_large", mb=CKPT_MAX_PICKLE // 2 ** 20))
        return data

    def read(self, n=-1):
        return self._take(self.f.read(n if n >= 0 else self.left + 1))

    def readline(self):
        return self._take(self.f.readline(self.left + 1))


def pickle_globals(f, fix_imports=True):
    """One pickle read from ``f`` with pickletools.genops, never unpickled: {"globals": [module.name
    ...] (as the unpickler maps Python 2 names), "opcodes": set of names, "protocol", "persistent_ids":
    count, "value": the int when the pickle is just one int (the legacy format's magic number)}."""
    import pickletools
    from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING
    stack, memo, marks, found, ops, proto, pids = [], {}, 0, [], set(), 0, 0

    def name(module, attr):
        if fix_imports and proto < 3:
            if (module, attr) in NAME_MAPPING:
                module, attr = NAME_MAPPING[(module, attr)]
            elif module in IMPORT_MAPPING:
                module = IMPORT_MAPPING[module]
        full = "%s.%s" % (module, attr)
        if full not in found:
            found.append(full)

    try:
        for op, arg, _pos in pickletools.genops(f):
            ops.add(op.name)
            if op.name == "PROTO":
                proto = arg
            before = op.stack_before
            if pickletools.markobject in before or (op.name == "POP" and stack and stack[-1] is _MARK):
                while stack and stack[-1] is not _MARK:
                    stack.pop()
                if not stack:
                    raise CkptError(msg("check.ckpt.err.damaged", detail=msg("check.ckpt.err.no_mark", op=op.name)))
                stack.pop()
                marks -= 1
                n = len(before) - 2 if before and before[-1] is pickletools.stackslice else 0
            else:
                n = len(before)
            if op.name in _PUT_OPS or op.name == "MEMOIZE":
                if not stack:
                    raise CkptError(msg("check.ckpt.err.damaged", detail=msg("check.ckpt.err.empty_stack", op=op.name)))
                memo[len(memo) if op.name == "MEMOIZE" else arg] = stack[-1]
                continue
            if len(stack) < n:
                raise CkptError(msg("check.ckpt.err.damaged", detail=msg("check.ckpt.err.short_stack", op=op.name, need=n, n=len(stack))))
            taken = stack[len(stack) - n:] if n else []
            del stack[len(stack) - n:]
            if op.name == "GLOBAL":
                module, _, attr = arg.partition(" ")
                name(module, attr)
            elif op.name == "STACK_GLOBAL":
                if not all(isinstance(x, str) for x in taken):
                    raise CkptError(msg("check.ckpt.err.stack_global"))
                name(taken[0], taken[1])
            elif op.name in ("BINPERSID", "PERSID"):
                pids += 1
            elif op.name == "STOP":
                value = taken[0] if taken and isinstance(taken[0], int) and not isinstance(taken[0], bool) else None
                return {"globals": found, "opcodes": ops, "protocol": proto, "persistent_ids": pids, "value": value}
            for item in op.stack_after:
                if item is pickletools.markobject:
                    stack.append(_MARK)
                    marks += 1
                elif op.name in _GET_OPS:
                    if arg not in memo:
                        raise CkptError(msg("check.ckpt.err.damaged", detail=msg("check.ckpt.err.memo", op=op.name, memo=repr(arg))))
                    stack.append(memo[arg])
                elif op.name in _STRING_OPS or op.name in _INT_OPS:
                    stack.append(arg.decode("latin-1") if isinstance(arg, bytes) else arg)
                else:
                    stack.append(None)
            if marks > CKPT_MAX_DEPTH or len(stack) > CKPT_MAX_STACK:
                raise CkptError(msg("check.ckpt.err.deep", levels=CKPT_MAX_DEPTH))
    except CkptError:
        raise
    except (ValueError, EOFError, UnicodeDecodeError, OverflowError) as exc:
        why = str(exc)
        if "exhausted" in why or isinstance(exc, EOFError) or "remain" in why or "not enough data" in why:
            raise CkptError(msg("check.ckpt.err.truncated_why", error=why)) from None
        raise CkptError(msg("check.ckpt.err.damaged", detail=msg("check.ckpt.err.quoted", error=why))) from None
    raise CkptError(msg("check.ckpt.err.truncated"))


def _zip_records(z, prefix):
    """The archive's members beside data.pkl and the tensor data, {name: content} (a long or odd
    content is "*"): what tells which release wrote it (the evidence files record the same)."""
    out = {}
    for info in z.infolist():
        rel = info.filename[len(prefix):]
        if not info.filename.startswith(prefix) or rel == "data.pkl" or rel.startswith("data/") or info.is_dir():
            continue
        body = ""
        if info.file_size <= 64:
            try:
                with z.open(info) as m:
                    body = m.read(65).decode("utf-8", "replace").strip()
            except Exception:   # noqa: BLE001 - a damaged record is "*", the pickle is what is judged
                body = ""
        out[rel] = body if re.match(r"^[A-Za-z0-9._-]{1,20}$", body) else "*"
    return out


def read_checkpoint(path):
    """A checkpoint's pickle, read without unpickling and without its tensor data: {"format": "zip"
    | "legacy" | "pickle", "globals", "opcodes", "protocol", "storages", "records"}. Raises CkptError."""
    import zipfile
    with open(path, "rb") as f:
        head = f.read(4)
        if not head:
            raise CkptError(msg("check.ckpt.err.empty"))
        f.seek(0)
        is_zip = head == b"PK\x03\x04" or zipfile.is_zipfile(f)
        f.seek(0)
        if is_zip:
            try:
                z = zipfile.ZipFile(f)
            except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
                raise CkptError(msg("check.ckpt.err.zip", error=str(exc))) from None
            with z:
                pkls = [i for i in z.infolist() if i.filename.endswith("data.pkl") and i.filename.count("/") == 1]
                if not pkls:
                    script = any(n.endswith("/constants.pkl") for n in z.namelist())
                    raise CkptError(msg("check.ckpt.err.no_data_pkl", what=msg("check.ckpt.err.torchscript" if script else "check.ckpt.err.a_zip")))
                if len(pkls) > 1:
                    raise CkptError(msg("check.ckpt.err.many_pkl", n=len(pkls)))
                info = pkls[0]
                if info.file_size > CKPT_MAX_PICKLE:
                    raise CkptError(msg("check.ckpt.err.pkl_large", bytes=info.file_size, mb=CKPT_MAX_PICKLE // 2 ** 20))
                if info.compress_type != zipfile.ZIP_STORED and info.file_size > CKPT_MAX_RATIO * max(info.compress_size, 1):
                    raise CkptError(msg("check.ckpt.err.bomb", times=info.file_size // max(info.compress_size, 1)))
                try:
                    with z.open(info) as m:
                        data = m.read(CKPT_MAX_PICKLE + 1)
                except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
                    raise CkptError(msg("check.ckpt.err.zip_member", member=info.filename, error=str(exc))) from None
                if len(data) > CKPT_MAX_PICKLE:
                    raise CkptError(msg("check.ckpt.err.expands", mb=CKPT_MAX_PICKLE // 2 ** 20))
                prefix = info.filename[:-len("data.pkl")]
                got = pickle_globals(io.BytesIO(data))
                got.update(format="zip", records=_zip_records(z, prefix), storages=got["persistent_ids"])
                return got
        capped = _Capped(f, CKPT_MAX_PICKLE)
        first = pickle_globals(capped)
        if first["value"] != CKPT_MAGIC:
            first.update(format="pickle", records={}, storages=first["persistent_ids"])
            return first
        # the legacy format: magic number, protocol version, sys_info, the object, its storage keys,
        # then each storage's raw bytes (not read)
        parts = [first] + [pickle_globals(capped) for _ in range(4)]
        glob = []
        for p in parts:
            glob.extend(g for g in p["globals"] if g not in glob)
        return {"format": "legacy", "globals": glob, "opcodes": set().union(*(p["opcodes"] for p in parts)),
                "protocol": parts[3]["protocol"], "storages": parts[3]["persistent_ids"], "records": {},
                "value": None, "persistent_ids": parts[3]["persistent_ids"]}


def ckpt_releases(rules):
    """{release: {"allowed": set, "opcodes": set, "default_weights_only", "add_safe_globals",
    "safe_globals", "blocked_modules", "writes": set, "wheel"}} from the rules' compact
    ``weights_only`` table (each release lists what it adds to and drops from the one before)."""
    table, out, allowed, opcodes = rules.get("weights_only") or {}, {}, set(), set()
    for rel in rules["releases"]:
        e = table.get(rel)
        if e is None:
            continue
        allowed = (allowed | set(e["add"])) - set(e["drop"])
        opcodes = (opcodes | set(e["opcodes_add"])) - set(e["opcodes_drop"])
        out[rel] = {"allowed": allowed, "opcodes": opcodes, "default_weights_only": e["default_weights_only"],
                    "add_safe_globals": e["add_safe_globals"], "safe_globals": e["safe_globals"],
                    "blocked_modules": set(e["blocked_modules"]), "writes": set(e["writes"]), "wheel": e["wheel"]}
    return out


def _ranges(rels, order):
    """['2.1', '2.2', '2.3', '2.6'] -> '2.1-2.3, 2.6' (runs in ``order``)."""
    runs, idx = [], [order.index(r) for r in rels]
    for i in sorted(idx):
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(order[a] if a == b else "%s-%s" % (order[a], order[b]) for a, b in runs)


def written_by(info, table, order):
    """Which known releases write an archive with exactly these records, or None (not recorded);
    ``text`` is a message."""
    if info["format"] != "zip":
        return {"releases": [], "text": msg("check.ckpt.by_format", format=info["format"])}
    have = {"%s=%s" % kv for kv in info["records"].items()}
    rels = [r for r in order if r in table and table[r]["writes"] == have]
    if not rels:
        return {"releases": [], "text": msg("check.ckpt.by_none", records=", ".join(sorted(have)) or msg("check.ckpt.none"))}
    return {"releases": rels, "text": msg("check.ckpt.by_records", releases=_ranges(rels, order), records=", ".join(sorted(have)),
                                          oldest=order[0])}


def safe_globals_code(names, context=False):
    """The imports and the line that allow-list ``names``: ['argparse.Namespace'] ->
    'from argparse import Namespace\\ntorch.serialization.add_safe_globals([Namespace])'."""
    lines, refs, used = ["import torch"], [], set()
    for full in names:
        module, _, attr = full.rpartition(".")
        ref = attr
        if module == "builtins":
            refs.append(attr)
            continue
        if ref in used:
            ref = "%s_%s" % (module.replace(".", "_"), attr)
            lines.append("from %s import %s as %s" % (module, attr, ref))
        else:
            lines.append("from %s import %s" % (module, attr))
        used.add(ref)
        refs.append(ref)
    lst = "[%s]" % ", ".join(refs)
    if context:
        lines += ["with torch.serialization.safe_globals(%s):" % lst, "    checkpoint = torch.load(path)"]
    else:
        lines.append("torch.serialization.add_safe_globals(%s)" % lst)
    return "\n".join(lines)


def ckpt_verdict(info, rel, t):
    """One file read by read_checkpoint judged for release ``rel`` (its ckpt_releases entry ``t``)."""
    blocked = [g for g in info["globals"] if g not in t["allowed"]]
    forbidden = [g for g in blocked if g.split(".")[0] in t["blocked_modules"] or g.rpartition(".")[0] in t["blocked_modules"]]
    ops = sorted(info["opcodes"] - t["opcodes"]) if t["opcodes"] else []
    wo = {"loads": not blocked and not ops, "blocked_by": blocked, "not_allowable": forbidden, "opcodes": ops}
    out = {"to": rel, "wheel": t["wheel"], "default_weights_only": t["default_weights_only"], "weights_only": wo,
           "fix": None, "context": None}
    if info["format"] == "pickle":
        out.update(verdict="not-loadable", why=msg("check.ckpt.why.pickle_named", globals=", ".join(blocked)) if blocked
                   else msg("check.ckpt.why.pickle"))
        return out
    if blocked and not ops and not forbidden and t["add_safe_globals"]:
        out["fix"] = safe_globals_code(blocked)
        if t["safe_globals"]:
            out["context"] = safe_globals_code(blocked, context=True)
    if not t["default_weights_only"]:
        out.update(verdict="loads", why=msg("check.ckpt.why.unsafe_default", release=rel, wo=_wo_text(wo)))
    elif wo["loads"]:
        out.update(verdict="loads", why=msg("check.ckpt.why.loads", release=rel))
    else:
        out.update(verdict="blocked", why=msg("check.ckpt.why.blocked", release=rel, wo=_wo_text(wo)))
    return out


def _wo_text(wo):
    """What torch.load with weights_only=True does with the file: a message."""
    if wo["loads"]:
        return msg("check.ckpt.wo.loads")
    parts = []
    if wo["blocked_by"]:
        parts.append(msg("check.ckpt.wo.blocked_by", globals=", ".join(wo["blocked_by"])))
    if wo["not_allowable"]:
        parts.append(msg("check.ckpt.wo.not_allowable", globals=", ".join(wo["not_allowable"])))
    if wo["opcodes"]:
        parts.append(msg("check.ckpt.wo.opcodes", opcodes=", ".join(wo["opcodes"])))
    out = parts[-1]
    for part in reversed(parts[:-1]):
        out = msg("check.ckpt.wo.then", first=part, rest=out)
    return out


def check_ckpt(rules, paths, to, lang="en"):
    """Each file judged for release ``to``: a list of dicts (``error`` set for an unreadable one); every
    sentence in English (``error``, ``why``, ``written_by.text``) and in ``lang`` beside it (``*_text``)."""
    table, order = ckpt_releases(rules), rules["releases"]
    reports = []
    for path in paths:
        r = {"path": path, "error": None}
        try:
            info = read_checkpoint(path)
        except CkptError as exc:
            r["error"] = exc.args[0]
        except OSError as exc:
            r["error"] = msg("check.skip.cannot_read", error=exc.strerror or exc)
        except RecursionError:
            r["error"] = msg("check.ckpt.err.recursion")
        if r["error"]:
            r["error"], r["error_text"] = say(rules, "en", r["error"]), say(rules, lang, r["error"])
            reports.append(r)
            continue
        by = written_by(info, table, order)
        r.update(format=info["format"], protocol=info["protocol"], storages=info["storages"],
                 globals=info["globals"], written_by=dict(by, text=say(rules, "en", by["text"])),
                 written_by_text=say(rules, lang, by["text"]))
        r.update(ckpt_verdict(info, to, table[to]))
        r["why"], r["why_text"] = say(rules, "en", r["why"]), say(rules, lang, r["why"])
        reports.append(r)
    return reports


def main_ckpt(args, rules, parser, out):
    table = ckpt_releases(rules)
    if not table:
        parser.error("these rules carry no weights_only allow-lists (rules older than the ckpt check)")
    to = args.to and _target(rules, args.to, parser, args.lang) or [r for r in rules["releases"] if r in table][-1]
    if to not in table:
        parser.error("--to: no weights_only allow-list for %s (known: %s)" % (to, ", ".join(table)))
    for p in args.files:
        if not os.path.isfile(p):
            parser.error(("not a file (a directory): %s" if os.path.isdir(p) else "no such file: %s") % p)
    reports = check_ckpt(rules, args.files, to, args.lang)
    if any(r["error"] for r in reports):
        code = EXIT_INCOMPLETE
    elif any(r["verdict"] != "loads" for r in reports):
        code = EXIT_BREAKS
    else:
        code = EXIT_OK
    if args.format == "json":
        out.write(json.dumps({"schema_version": SCHEMA_VERSION, "to": to, "wheel": table[to]["wheel"],
                              "files": reports}, ensure_ascii=False, indent=1) + "\n")
        return code

    def t(key, **values):
        return say(rules, args.lang, msg(key, **values))
    out.write(t("check.ckpt.header", tool=TOOL + " ckpt", release=to, wheel=table[to]["wheel"]) + "\n")
    for r in reports:
        path = printable(r["path"])
        if r["error"]:
            out.write(t("check.ckpt.unreadable", path=path, error=r["error_text"]) + "\n")
            continue
        out.write(t("check.ckpt.file", path=path, verdict=msg("check.ckpt.verdict." + r["verdict"]), why=r["why_text"]) + "\n")
        out.write("    %s\n" % t("check.ckpt.format", format=r["format"], protocol=r["protocol"], n=r["storages"],
                                  written=r["written_by_text"]))
        out.write("    %s\n" % t("check.ckpt.globals", globals=", ".join(r["globals"]) or msg("check.ckpt.none")))
        wo = r["weights_only"]
        if wo["blocked_by"] and not r["fix"] and r["format"] != "pickle":
            names = ", ".join(wo["not_allowable"] or wo["blocked_by"])
            key = ("check.ckpt.cannot_allow_module" if wo["not_allowable"] else
                   "check.ckpt.cannot_allow_old" if not table[r["to"]]["add_safe_globals"] else "check.ckpt.cannot_allow")
            since = next((v for v in rules["releases"] if (table.get(v) or {}).get("add_safe_globals")), "?")
            out.write("    %s\n" % t(key, globals=names, release=r["to"], since=since))
        if r["fix"]:
            out.write("    %s\n" % t("check.ckpt.to_load"))
            out.write("".join("        %s\n" % line for line in r["fix"].split("\n")))
            if r["context"]:
                out.write("    %s\n" % t("check.ckpt.for_one_load") + "".join("        %s\n" % line for line in r["context"].split("\n")))
    out.write(t("check.ckpt.summary", files=msg("check.ckpt.files", n=len(reports)),
                load=sum(1 for r in reports if not r["error"] and r["verdict"] == "loads"),
                fail=sum(1 for r in reports if not r["error"] and r["verdict"] != "loads"),
                bad=sum(1 for r in reports if r["error"])) + "\n")
    return code


# ------------------------------------------------------------------------------ command line
class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, "%s: error: %s\n" % (self.prog, message))


def _parser():
    p = _Parser(prog="atlas_check.py", description=__doc__.split("\n\n")[0],
                epilog="Exit codes: 0 nothing found (env: nothing blocked); 1 only behaviour changes, deprecated "
                       "switches or platform notes; 2 something breaks (env: something blocked); 3 usage error; "
                       "4 the checker failed; 5 (code) a file could not be read or parsed, so the run is incomplete.",
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", help="rules JSON (default: embedded, or built from the repository's data)")
    sub = p.add_subparsers(dest="cmd")
    c = sub.add_parser("code", help="check Python code", description="Check Python files and directories.",
                       epilog=p.epilog)
    c.add_argument("--from", dest="frm", help="torch version you run (default: the project's pin, else the oldest release)")
    c.add_argument("--to", help="torch version you upgrade to (default: the latest release)")
    c.add_argument("--lang", default="en", choices=["en", "zh", "ru", "id"])
    c.add_argument("--format", default="text", choices=["text", "json", "sarif", "github"],
                   help="github: workflow annotations (::error file=...::), for a repository without code scanning")
    c.add_argument("--fail-on", choices=sorted(FAIL_ON),
                   help="exit 2 when a finding of this severity or worse remains (review: also the loads to "
                        "review; deprecated: also those and deprecated switches; any: every finding), else 0; "
                        "without it: 2 breaks, 1 other findings, 0 none")
    c.add_argument("--notes", default="some", choices=["some", "all"],
                   help="all: also the notes that are nearly always noise (a clamp's gradient, MPS on macOS, a new "
                        "nccl group) where the file does not show their condition; some (default) counts them")
    c.add_argument("--explain", action="store_true",
                   help="also list each torch.load that is no finding because the code shows what it loads "
                        "(into load_state_dict, read as tensors), and why")
    c.add_argument("--allow-skipped", action="store_true",
                   help="a file that could not be read or parsed does not fail the run (exit 5 otherwise)")
    c.add_argument("--baseline", metavar="FILE",
                   help="the JSON output of an earlier run: report only findings that are not in it")
    fx = c.add_mutually_exclusive_group()
    fx.add_argument("--fix", action="store_true",
                    help="rewrite what is version-safe for every release from --from to --to (by the runtime "
                         "locks), leave the rest as suggestions, then check again")
    fx.add_argument("--diff", action="store_true", help="show the fixes as a unified diff and the suggestions; change nothing")
    c.add_argument("--rules", dest="rules_sub", help=argparse.SUPPRESS)
    c.add_argument("paths", nargs="+", metavar="PATH")
    e = sub.add_parser("env", help="check an environment paste", epilog=p.epilog,
                       description="Check a paste of collect_env, pip freeze, nvidia-smi, sw_vers, rocminfo or rocm-smi.")
    e.add_argument("--to", help="torch version you upgrade to (default: the latest release)")
    e.add_argument("--lang", default="en", choices=["en", "zh", "ru", "id"])
    e.add_argument("--format", default="text", choices=["text", "json"])
    e.add_argument("--rules", dest="rules_sub", help=argparse.SUPPRESS)
    e.add_argument("file", metavar="FILE|-")
    k = sub.add_parser("ckpt", help="check saved checkpoints against a release's weights_only allow-list",
                       description="Read torch.save checkpoints (zip, legacy) or plain pickles without unpickling "
                                   "them and say whether torch.load of the target release loads them.",
                       epilog="Exit codes: 0 every file loads; 2 one is blocked or cannot be loaded; 3 usage "
                              "error; 5 a file could not be read.")
    k.add_argument("--to", help="torch version you load with (default: the latest release)")
    k.add_argument("--format", default="text", choices=["text", "json"])
    k.add_argument("--lang", default="en", choices=["en", "zh", "ru", "id"])
    k.add_argument("--rules", dest="rules_sub", help=argparse.SUPPRESS)
    k.add_argument("files", nargs="+", metavar="FILE")
    return p


def _target(rules, to, parser, lang="en"):
    releases = rules["releases"]
    if not to:
        return releases[-1]
    rel, note = release_of(to, releases)
    if rel is None or note:
        parser.error("--to: " + say(rules, lang, note))
    return rel


def main_code(args, rules, parser, out):
    releases = rules["releases"]
    to = _target(rules, args.to, parser, args.lang)
    if args.frm:
        frm, note = release_of(args.frm, releases)
        if frm is None:
            parser.error("--from: " + say(rules, args.lang, note))
        why = msg("check.cli.from_option", version=args.frm)
    else:
        pin, where = find_pin(args.paths)
        if pin:
            frm, note = release_of(pin, releases)
            if frm is None:   # pinned to a release newer than the rules know
                frm, note = to, note
            why = msg("check.cli.from_pin", where=where)
        else:
            frm, why, note = releases[0], msg("check.cli.from_oldest"), None
    if note:
        why = msg("check.cli.from_note", why=why, note=note)
    for p in args.paths:
        if not os.path.exists(p):
            parser.error("no such file or directory: %s" % p)
    if args.fix or args.diff:
        if args.baseline or args.format in ("sarif", "github") and args.diff:
            parser.error("--diff shows text or json; --baseline does not go with --fix or --diff")
        code = main_fix(args, rules, frm, to, why, out)
        if code is not None:
            return code
    cleared = [] if args.explain else None
    findings, skipped, stats = scan(rules, args.paths, frm, to, args.lang, args.notes, cleared)
    if args.baseline:
        before = len(findings)
        findings = drop_baseline(findings, read_baseline(args.baseline, parser))
        stats["baseline"] = before - len(findings)
    code = exit_code({f["severity"] for f in findings}, args.fail_on)
    # a skipped file could hold findings: the run is incomplete (a binary file is no Python)
    incomplete = [x for x in skipped if x["reason"] != "binary file"]
    stats["incomplete"] = bool(incomplete) and not args.allow_skipped
    if stats["incomplete"]:
        code = EXIT_INCOMPLETE
    if args.format == "json":
        out.write(json.dumps({"schema_version": SCHEMA_VERSION, "from": frm, "to": to, "from_reason": say(rules, "en", why),
                              "from_reason_text": say(rules, args.lang, why),
                              "findings": findings, "skipped": skipped, "stats": stats,
                              **({"cleared": cleared} if cleared is not None else {})},
                             ensure_ascii=False, indent=1) + "\n")
    elif args.format == "sarif":
        root = args.paths[0] if os.path.isdir(args.paths[0]) else (os.path.dirname(args.paths[0]) or ".")
        out.write(json.dumps(sarif(rules, findings, skipped, frm, to, args.lang, root), ensure_ascii=False, indent=1) + "\n")
    elif args.format == "github":
        out.write(annotations(findings, skipped, incomplete))
    else:
        code_text(rules, args.lang, out, frm, to, why, findings, skipped, stats, len(incomplete), cleared)
    return code


def code_text(rules, lang, out, frm, to, why, findings, skipped, stats, incomplete, cleared=None):
    """The text report of ``code``: a header, each finding (a note that fires often, once with its
    places), the skipped files and a summary, worded in ``lang``; with ``cleared`` (--explain), the
    loads that are no finding and why."""
    def t(key, **values):
        return say(rules, lang, msg(key, **values))
    out.write(header_text(rules, lang, frm, to, why) + "\n")
    if vkey(frm) >= vkey(to):
        out.write(t("check.cli.nothing", old=frm, new=to) + "\n")
    # what breaks first, then what is deprecated, then the notes (each in file order)
    findings = sorted(findings, key=lambda f: TEXT_ORDER.index(f["severity"]) if f["severity"] in TEXT_ORDER else len(TEXT_ORDER))
    groups, settle = {}, False   # by change, so torch.clamp, .clamp() and .clamp_() are one note
    for f in findings:
        if f["severity"] in GROUPED:
            groups.setdefault((f["change"] or f["rule"], f["severity"]), []).append(f)
    for f in findings:
        group = groups.get((f["change"] or f["rule"], f["severity"]), [])
        if len(group) >= GROUP_AT and f is not group[0]:
            continue   # said once, at the first place, with the others listed
        out.write(t("check.cli.finding", place=place(f), severity=msg("check.cli.sev." + f["severity"]), title=f["title"],
                    id=f["change"] or f["api"]) + "\n")
        grouped = len(group) >= GROUP_AT
        if grouped and not any(g.get("why_text") for g in group):
            more = [place(g) for g in group[1:]]
            cap = len(more) if f["severity"] in EVERY_PLACE else GROUP_LIST
            out.write("    %s\n" % t("check.cli.more_places", n=len(more),
                                     places=", ".join(more[:cap]) + (", ..." if len(more) > cap else "")))
        if f.get("why_text"):
            out.write("    %s\n" % f["why_text"])
        if grouped and any(g.get("why_text") for g in group):   # each other place on its line, with its why
            for g in group[1:]:
                out.write("    %s\n" % t("check.cli.place_why", place=place(g), why=g.get("why_text") or ""))
        if f["severity"] == "review" and not settle:   # how to settle a load to review: said once
            settle = True
            out.write("    %s\n" % t("check.load.settle"))
        if f.get("earlier"):
            out.write("    %s\n" % f["earlier_text"])
        if f["guard"]:
            out.write("    %s\n" % f["guard_text"])
        elif f["fix"]:
            out.write("    %s\n" % f["fix"])
        out.write("    %s\n" % f["url"])
    for c in cleared or ():
        out.write(t("check.cli.cleared", place=place(c), why=c["why_text"]) + "\n")
    for s in skipped:
        out.write(t("check.cli.skipped", path=s["path"], reason=s["reason_text"]) + "\n")
    counts = {}
    for f in findings:
        counts[f["severity"]] = counts.get(f["severity"], 0) + 1
    sep = t("check.cli.sep")
    out.write(t("check.cli.summary_counts" if counts else "check.cli.summary", findings=msg("check.cli.findings", n=len(findings)),
                counts=sep.join(t("check.cli.count." + s, n=n) for s, n in sorted(counts.items())),
                files=msg("check.cli.files", n=stats["files"]), skipped=msg("check.cli.skipped_n", n=len(skipped)),
                ignored=msg("check.cli.ignored", n=stats["ignored"]) if stats["ignored"] else "",
                baseline=msg("check.cli.baseline", n=stats["baseline"]) if stats.get("baseline") else "") + "\n")
    if stats.get("hidden"):
        out.write(t("check.cli.hidden_notes", n=stats["hidden"]) + "\n")
    if stats["incomplete"]:
        out.write(t("check.cli.incomplete", n=incomplete) + "\n")


def header_text(rules, lang, frm, to, why):
    """The first line of ``code``: the two releases, and where the first comes from."""
    return say(rules, lang, msg("check.cli.header", tool=TOOL, old=frm, new=to, why=why))


def main_env(args, rules, parser, out):
    to = _target(rules, args.to, parser, args.lang)
    if args.file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as exc:
            parser.error("cannot read %s: %s" % (args.file, exc.strerror))
    envs = [parse_env(part) for part in split_pastes(text)]
    if not any(e["formats"] or e["torch"] or e["python"] for e in envs):
        sys.stderr.write(say(rules, args.lang, msg("check.cli.no_format", tool=TOOL + " env", formats=list(ENV_FORMATS),
                                                   where=msg("check.cli.the_input") if args.file == "-" else args.file)) + "\n")
        return EXIT_USAGE
    reports = [env_report(rules, e, to, args.lang) for e in envs]
    code = EXIT_BREAKS if any(i["verdict"] == "blocked" for r in reports for i in r["items"]) else EXIT_OK
    if args.format == "json":
        doc = reports[0] if len(reports) == 1 else {"schema_version": SCHEMA_VERSION, "pastes": reports}
        out.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
        return code
    lang = args.lang

    def t(key, **values):
        return say(rules, lang, msg(key, **values))
    labels = {c: t("check.cli.item." + c) for c in ENV_CHECKS}
    verdicts = {v: t("check.cli.verdict." + v) for v in ("ok", "blocked", "unknown")}
    for n, r in enumerate(reports, 1):
        if len(reports) > 1:
            out.write(("\n" if n > 1 else "") + t("check.cli.paste", n=n, m=len(reports)) + "\n")
        note = r["from_note_text"]
        torch = printable(r["torch"] or "?")
        tool = TOOL + " env"   # the command, as typed
        out.write((t("check.cli.header_env_note", tool=tool, torch=torch, new=to, note=note) if note
                   else t("check.cli.header_env", tool=tool, torch=torch, new=to)) + "\n")
        if r["upgrade_url"]:
            out.write(t("check.cli.upgrade_page", url=r["upgrade_url"]) + "\n")
        for i in r["items"]:
            out.write("%s%s%s\n" % (pad(labels[i["check"]], labels.values()), pad(verdicts[i["verdict"]], verdicts.values()),
                                     printable(i["found_text"] or "-")))
            if i["note_text"]:
                out.write("    %s\n" % i["note_text"])
            if i["change"]:
                out.write("    %s\n" % t("check.cli.title_url", title=i["title"], url=i["url"]))
        out.write(newest_text(rules, lang, r["newest"]) + "\n")
        comp = r["companions"]
        if comp["items"]:   # the packages around torch, and one pip line for all of them
            out.write(t("check.cli.companions", release=to) + "\n")
            for i in comp["items"]:
                out.write("  %s\n" % i["note_text"])
            if comp["pip"]:
                out.write("  " + t("check.cli.companions_pip", pip=comp["pip"]) + "\n")
    return code


def columns(text):
    """The terminal columns ``text`` takes (a Han character takes two)."""
    return len(text) + sum(1 for ch in text if unicodedata.east_asian_width(ch) in "WF")


def pad(text, column):
    """``text`` and the spaces that line it up with the widest of ``column``, plus two."""
    return text + " " * (max(columns(x) for x in column) + 2 - columns(text))


def env_report(rules, env, to, lang):
    """One paste (parsed by parse_env) judged for release ``to``: the JSON object of
    ``atlas_check env`` (one per paste)."""
    releases = rules["releases"]
    frm, note = (release_of(env["torch"], releases) if env["torch"] else (None, msg("check.note.no_torch")))
    upgrade = None
    if frm and vkey(frm) < vkey(to):
        upgrade = rules["upgrade_url"][lang].replace("{old}", frm).replace("{new}", to)
    return {"schema_version": SCHEMA_VERSION, "from": frm, "to": to, "torch": env["torch"],
            "from_note": say(rules, "en", note) or None, "from_note_text": say(rules, lang, note) or None,
            "upgrade_url": upgrade, "formats": env["formats"], "items": check_env(rules, env, to, lang),
            "newest": newest_runnable(rules, env, lang), "companions": check_companions(rules, env, to, lang)}


def newest_text(rules, lang, newest):
    """One paragraph: the newest release this machine can run, and why not the one after it."""
    b = newest["blocked_by"]
    why = ""
    if b:
        reasons = [i["note_text"] or say(rules, lang, msg("check.cli.item." + i["check"])) for i in b["items"]]
        why = say(rules, lang, msg("check.cli.reason_sep")).join(reasons)
    if newest["release"] is None:
        return say(rules, lang, msg("check.cli.newest_none", release=b["release"], reasons=why))
    out = say(rules, lang, msg("check.cli.newest_build", release=newest["release"], build=newest["build"], pip=newest["pip"])
              if newest.get("build") else msg("check.cli.newest", release=newest["release"]))
    if newest["unknown"]:
        out += say(rules, lang, msg("check.cli.not_judged", items=[msg("check.cli.item." + c) for c in newest["unknown"]]))
    if b:
        out += "\n    " + say(rules, lang, msg("check.cli.blocked", release=b["release"], reasons=why))
    d = newest.get("default_wheel")
    if newest.get("build") and d and d["release"] != newest["release"]:
        out += "\n    " + say(rules, lang, msg("check.cli.default_wheel", release=d["release"]))
    elif newest.get("build") and not d:
        out += "\n    " + say(rules, lang, msg("check.cli.default_wheel_none"))
    return out


def main(argv=None, out=None):
    out = out or sys.stdout
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.cmd:
        parser.print_help(out)
        return EXIT_USAGE
    rules = load_rules(args.rules_sub or args.rules)
    if rules.get("schema_version") != SCHEMA_VERSION:
        parser.error("rules have schema_version %r; this checker reads %d" % (rules.get("schema_version"), SCHEMA_VERSION))
    if args.cmd == "code":
        return main_code(args, rules, parser, out)
    if args.cmd == "ckpt":
        return main_ckpt(args, rules, parser, out)
    return main_env(args, rules, parser, out)


def run(argv=None):
    """main() for a terminal: a closed pipe (``| head``) ends quietly, and an error of the checker
    itself exits 4 with one line, never 1 (which means "only notes") and never a traceback."""
    try:
        code = main(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as exc:   # noqa: BLE001 - the one place a checker error becomes an exit code
        sys.stderr.write("%s: internal error: %s: %s\n" % (TOOL, exc.__class__.__name__, exc))
        return EXIT_CRASH


if __name__ == "__main__":
    sys.exit(run())
