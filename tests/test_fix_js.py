"""fixCode in docs/assets/atlas-check.js against atlas_check.py's fix planning (fix_source and
unit_dict): the shared corpus (tests/check_cases, every half) and every source tests/test_fix.py
fixes, for two windows each (from the oldest release, and from 2.4, to the newest). The new text
and each fix and suggestion (all of unit_dict's fields) must be the same."""
from __future__ import annotations

import difflib
import inspect
import shutil

import pytest

import test_fix
from atlas import atlas_check as ac
from dev import check_eval as ev

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is needed for the JS engine")

#: why the Python engine backs out a fix; JS cannot compile Python, so the corpus must never need it
BACKED_OUT = "the result would not compile"


def py_fix(rules, text, frm, to, path, lang="en"):
    index, window = ac.Index(rules, frm, to), ac.window_of(rules, frm, to)
    new, taken, suggested, _ = ac.fix_source(index, text, path, window)
    tx = ac.Text(text)
    return {"text": new, "fixes": [ac.unit_dict(rules, path, text, tx, u, lang) for u in taken],
            "suggestions": [ac.unit_dict(rules, path, text, tx, u, lang) for u in suggested]}


def fix_sources(rules, tmp_path_factory):
    """(name, text, the window's first release) of every file test_fix.py fixes with the real rules
    (its notebooks as the script the engine reads); found by running its tests with `fix` watched."""
    seen, real = [], test_fix.fix

    def watch(r, tmp_path, src, frm, to=None, name="t.py", write=True):
        if r is rules:   # not the test that breaks a copy of the rules on purpose
            text = src if isinstance(src, str) else src.decode("utf-8")
            seen.append((name, ac.Notebook(text).script if name.endswith(".ipynb") else text, frm))
        return real(r, tmp_path, src, frm, to, name, write)

    test_fix.fix = watch
    try:
        for name, fn in sorted(vars(test_fix).items()):
            if name.startswith("test_") and list(inspect.signature(fn).parameters) == ["rules", "tmp_path"]:
                fn(rules, tmp_path_factory.mktemp(name[:40]))
    finally:
        test_fix.fix = real
    return seen


def unified(old, new):
    """The hunks of atlas_check.py --diff (difflib), without the file names and line ends."""
    return [x.rstrip("\r\n") for x in list(difflib.unified_diff(old.splitlines(True), new.splitlines(True)))[2:]]


def hunk_lines(hunks):
    out = []
    for h in hunks:
        out.append(f"@@ -{h['old_start']},{h['old_lines']} +{h['new_start']},{h['new_lines']} @@")
        out += [m + x for m, x in h["lines"]]
    return out


def compare(rules, cases, js_rules=None, lang="en"):
    """cases: [(name, text, from)] -> (differences, results compared, units compared, Python's results).
    The page's diff (fixCode's hunks) is compared with the unified diff --diff prints; every field,
    the reasons worded in ``lang`` (why_text) too."""
    newest = rules["releases"][-1]
    jobs = [{"path": n, "source": t, "from": f, "to": newest, "lang": lang} for n, t, f in cases]
    js = ev.run_js({"rules": js_rules or rules, "fix": jobs})["fix"]
    diffs, units, pys = [], 0, []
    for job, j in zip(jobs, js):
        p = py_fix(rules, job["source"], job["from"], newest, job["path"], lang)
        pys.append(p)
        units += len(p["fixes"]) + len(p["suggestions"])
        for key in ("text", "fixes", "suggestions"):
            if p[key] != j[key]:
                diffs.append(f"{job['path']} from {job['from']}: {key} differ:\n  python {p[key]!r}\n  js     {j[key]!r}")
        if unified(job["source"], p["text"]) != hunk_lines(j["hunks"]):
            diffs.append(f"{job['path']} from {job['from']}: the diff differs:\n" + "\n".join(hunk_lines(j["hunks"])))
    return diffs, len(jobs), units, pys


def windows(rules):
    return (rules["releases"][0], "2.4")


def test_corpus_fix_parity(rules):
    cases = []
    for c in ev.code_cases("all"):
        text, _ = ac.read_source(str(c["path"]))
        if text is not None:
            cases += [(c["path"].name, text, frm) for frm in windows(rules)]
    assert len(cases) >= 2 * 80
    diffs, n, units, pys = compare(rules, cases)
    assert not diffs, "\n".join(diffs)
    assert units > 100 and sum(len(p["fixes"]) for p in pys) > 40   # the corpus really is fixed
    backed = [u for p in pys for u in p["suggestions"] if u.get("why") == BACKED_OUT]
    assert not backed, backed   # the step JS leaves out never changes a result on the corpus
    for (name, text, _), p in zip(cases, pys):   # and every fixed file still compiles
        if p["text"] != text:
            compile(p["text"], name, "exec", dont_inherit=True)


def test_fix_sources_parity(rules, tmp_path_factory):
    seen = fix_sources(rules, tmp_path_factory)
    assert len(seen) >= 10
    cases = [(n, t, f) for n, t, frm in seen for f in dict.fromkeys((frm,) + windows(rules))]
    diffs, n, units, pys = compare(rules, cases)
    assert not diffs, "\n".join(diffs)
    assert units >= 20
    assert not [u for p in pys for u in p["suggestions"] if u.get("why") == BACKED_OUT]


#: hand-made: imports that move (or cannot, or stay), bare uses and decorators, arguments mapped, dropped,
#: not literal or any value, positional arguments by their old names, arguments in parentheses or with
#: comments, chains written from torch, a use tied to its import, nested and adjacent fixes, f-strings,
#: guards, CRLF and non-ASCII text
EDGE = {
    "shared_import.py": "from torch.cuda.amp import GradScaler\na = GradScaler()\nb = GradScaler\n",
    "bare_after_call.py": "from torch.cuda.amp import autocast\nwith autocast():\n    pass\nf = autocast\n",
    "attr_alias.py": "import torch.cuda.amp as amp\ns = amp.GradScaler()\n",
    "dtensor.py": ("import torch.distributed._tensor as dt\nfrom torch.distributed._tensor import DTensor, Shard\n"
                   "from torch.distributed import _tensor\nx = dt.DTensor\n"),
    "decorators.py": ("import torch\n@torch.cuda.amp.custom_fwd\ndef f(x): pass\n@torch.cuda.amp.custom_bwd()\ndef g(x): pass\n"
                      "@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)\ndef h(x): pass\n"),
    "profiler.py": ("import torch\nfrom torch.autograd.profiler import profile\nwith profile(use_cuda=True) as p: pass\n"
                    "with torch.autograd.profiler.profile(use_cuda=False, record_shapes=True): pass\n"
                    "with torch.autograd.profiler.profile(enabled=True, use_cuda=flag): pass\n"),
    "qr.py": ("import torch\nq = torch.qr(A, some=False)\nq2 = torch.qr(A, False)\nq3 = torch.qr(A, True)\nq4 = torch.qr(*a)\n"
              "q5 = torch.qr((A), some=(True))\n"),
    "cholesky.py": ("import torch\nL = torch.cholesky(A, upper=True)\nL2 = torch.cholesky(A,\n  upper = False,\n)\n"
                    "L3 = torch.cholesky(upper=True, input=A)\nL4 = torch.cholesky((A), upper=True)\n"
                    "L5 = torch.cholesky(A, upper=x.y(1, 2))\nL6 = torch.cholesky(A, upper=-1)\nL7 = torch.cholesky(A, upper='x')\n"
                    "L8 = (torch.cholesky)(A, upper=True)\nL9 = torch.cholesky(A, **kw)\n"),
    "nested.py": "import torch\nL = torch.cholesky(torch.cholesky(A, upper=True), upper=True)\nx = torch.qr(A) if c else torch.cholesky(B)\n",
    "load.py": "import torch\nm = torch.load(p)\nm2 = torch.load(p, map_location='cpu')\nm3 = torch.load(\n    p,\n)\n",
    "checkpoint.py": "import torch\nfrom torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x)\n",
    "autocast.py": ("import torch\nwith torch.cuda.amp.autocast():\n    pass\nwith torch.cuda.amp.autocast(True):\n    pass\n"
                    "with torch.cpu.amp.autocast(dtype=torch.bfloat16): pass\nac = torch.cuda.amp.autocast\n"
                    "from torch.cuda.amp import autocast as AC\nwith AC(): pass\n"),
    "getattr.py": "import torch\nf = getattr(torch, 'cholesky')\ng = getattr(torch, 'cholesky')(A)\n",
    "fstring.py": "import torch\nprint(f'{torch.cholesky(A)}')\n",
    "crlf.py": "import torch\r\nx = torch.cholesky(A,\r\n  upper=True)\r\ny = 'é✓'; z = torch.qr(B)\r\n",
    "unicode.py": "import torch\nx = 'ü✓😀'; L = torch.cholesky(A, upper=True)  # ü\n",
    "star_and_assign.py": "from torch.cuda.amp import *\ns = GradScaler()\nimport torch\nC = torch.cholesky\nC(A)\n",
    "multi.py": ("import torch, torch.distributed._tensor\nfrom torch.cuda.amp import (\n    GradScaler,\n    autocast,\n)\n"
                "autocast()\nGradScaler()\ns = torch.cuda.amp.GradScaler.foo(1)\n"),
    "scopes.py": ("import torch\nf = lambda torch: torch.cholesky(A)\ng = [torch.cholesky(a) for a in x]\n"
                  "try:\n    L = torch.linalg.cholesky(A)\nexcept AttributeError:\n    L = torch.cholesky(A)\n"
                  "L = torch \\\n  .cholesky(A, upper=True)\nM = (torch\n  .cuda.amp.GradScaler())\n"),
    # each positional argument of the old autocast by its old name, after the new first argument
    "autocast_positional.py": ("import torch\nwith torch.cuda.amp.autocast(True, torch.float16):\n    pass\n"
                               "with torch.cuda.amp.autocast(True, torch.float16, True, 4): pass\n"
                               "with torch.cpu.amp.autocast((False), dtype=torch.bfloat16): pass\n"
                               "with torch.cuda.amp.autocast(\n    True,  # on\n    cache_enabled=False,\n): pass\n"),
    # "*": any other value by keyword, in parentheses unless an atom on one line
    "profiler_any_value.py": ("import torch\nP = torch.autograd.profiler.profile\nP(use_cuda=flag)\nP(use_cuda=args.cuda)\n"
                              "P(use_cuda=a or b)\nP(use_cuda=(flag))\nP(use_cuda=torch.cuda.is_available())\n"
                              "P(use_cuda=x[0])\nP(use_cuda=f'{x}')\nP(use_cuda=not x)\nP(use_cuda=None)\nP(use_cuda='yes')\n"
                              "P(use_cuda=(a\n   and b))\nP(use_cuda=f(\n   x))\nP(use_cuda=1 .real)\nP(use_cuda=-1)\nP(True, use_cuda=c)\n"
                              "torch.autograd.profiler.profile(use_cuda=cfg['cuda'], record_shapes=True)\n"),
    # a chain whose root module does not hold the new name: written from torch where torch is torch
    "chain_root.py": ("from torch.cuda import amp\nimport torch\ns = amp.GradScaler()\n"
                      "def f(torch):\n    return amp.GradScaler()\ng = lambda torch: amp.GradScaler()\n"
                      "with amp.autocast(): pass\n"),
    "chain_root_no_torch.py": "from torch.cuda import amp\ns = amp.GradScaler()\nimport torch.cuda as tc\nt = tc.amp.GradScaler()\n",
    # arguments as written between the commas: parentheses and comments kept
    "arg_spans.py": ("import torch\nL = torch.cholesky(A,  # the matrix\n  upper=False)\n"
                     "L2 = torch.cholesky(\n    A,\n    # lower\n    upper=False,\n)\n"
                     "L3 = torch.cholesky(upper=False,  # c\n  input=A)\nL4 = torch.cholesky(((A)), (False))\n"
                     "q = torch.qr((A), (False))\ns = torch.cuda.amp.GradScaler((2.0 ** 16))\n"
                     "@torch.cuda.amp.custom_fwd(cast_inputs=(torch.float32))\ndef h(x): pass\n"
                     "with torch.cuda.amp.autocast((True)): pass\n"),
    # an import proposed though not version-safe, imports whose names stay, a plain import of the old name itself
    "imports_that_stay.py": ("from torch.utils.checkpoint import checkpoint\nimport torch.utils.checkpoint.checkpoint as cp\n"
                             "from torch.cuda.amp import GradScaler\ny = checkpoint(f, x)\nz = cp(f, x)\ns = GradScaler()\n"),
    # a use that fails keeps its import, and so every other use of it
    "import_tie.py": ("from torch.cuda.amp import autocast\nwith autocast(True, 1, 2, 3): pass\nwith autocast(): pass\n"
                      "with autocast(*a): pass\n"),
    "import_tie_ok.py": "from torch.cuda.amp import GradScaler, autocast\nwith autocast(True): pass\ns = GradScaler(2.0)\n",
    # an import whose names stay ties nothing: the second call is fixed though the first cannot be
    "import_no_edit.py": ("import torch\nfrom torch.autograd.profiler import profile\n"
                          "with profile(use_cuda=True, **kw) as p: pass\nwith profile(use_cuda=True) as p: pass\n"),
    # 200 lines or more: the diff's lines seen more than n/100 + 1 times match nothing (difflib's autojunk)
    "popular_lines.py": "import torch\n" + "L = torch.cholesky(A,\n\n    upper=False)\nx = 1\n\n" * 100,
}

#: what the edge cases above must show in the Python engine's result (so none of them is vacuous):
#: (case, window's first release, where: text or a suggestion's why or new line, what)
EDGE_SHOWS = [
    ("autocast_positional.py", "2.0", "text", 'autocast("cuda", enabled=True, dtype=torch.float16)'),
    ("autocast_positional.py", "2.0", "text", 'autocast("cpu", enabled=(False), dtype=torch.bfloat16)'),
    ("autocast_positional.py", "2.0", "why", "more positional arguments than the old function takes"),
    ("profiler_any_value.py", "2.13", "text", 'P(use_device="cuda" if (a or b) else None)'),
    ("profiler_any_value.py", "2.13", "text", 'P(use_device="cuda" if flag else None)\nP(use_device="cuda" if torch.cuda'),
    ("profiler_any_value.py", "2.13", "text", "if (f(\n   x)) else None)"),
    ("profiler_any_value.py", "2.0", "new", 'P(use_device="cuda" if x[0] else None)'),
    ("chain_root.py", "2.0", "new", 's = torch.amp.GradScaler("cuda")'),
    ("chain_root.py", "2.0", "why", "does not hold torch.amp.GradScaler, and torch is not imported"),
    ("chain_root_no_torch.py", "2.0", "why", "and torch is not imported"),
    ("arg_spans.py", "2.13", "text", "L = torch.linalg.cholesky(A  # the matrix\n  )"),
    ("arg_spans.py", "2.13", "text", "L3 = torch.linalg.cholesky(  # c\n  input=A)"),
    ("arg_spans.py", "2.13", "text", "L4 = torch.linalg.cholesky(((A)))"),
    ("arg_spans.py", "2.0", "new", '@torch.amp.custom_fwd(cast_inputs=(torch.float32), device_type="cuda")'),
    ("arg_spans.py", "2.0", "text", 'autocast("cuda", enabled=(True))'),
    ("imports_that_stay.py", "2.0", "new", "from torch.amp import GradScaler"),
    # issue 42: an import's suggestion carries the edits of its uses, so following it breaks nothing
    ("imports_that_stay.py", "2.0", "new", 's = GradScaler("cuda")'),
    ("import_tie.py", "2.0", "why", "line 2: more positional arguments than the old function takes"),
    ("import_tie.py", "2.0", "why", "its import (line 1) stays: line 2: more positional"),
    ("import_tie.py", "2.0", "why", "*args or **kwargs"),
    ("import_tie_ok.py", "2.0", "why", "its import (line 1) stays: torch.amp.GradScaler does not resolve"),
    ("import_no_edit.py", "2.13", "text", 'with profile(use_device="cuda") as p: pass'),
]


def test_edge_case_fix_parity(rules):
    cases = [(n, s, f) for n, s in EDGE.items() for f in ("2.0", "2.3", "2.13")]
    diffs, n, units, pys = compare(rules, cases)
    assert not diffs, "\n".join(diffs)
    assert units > 100


def test_edge_cases_show_what_they_are_for(rules):
    newest = rules["releases"][-1]
    for name, frm, where, what in EDGE_SHOWS:
        p = py_fix(rules, EDGE[name], frm, newest, name)
        if where == "text":
            got = p["text"]
        elif where == "why":
            got = "\n".join(u.get("why") or "" for u in p["suggestions"])
        else:
            got = "\n".join("\n".join(u.get("new") or []) for u in p["suggestions"])
        assert what in got, (name, frm, where, what, got)
    unchanged = [n for n, s in EDGE.items() if s == py_fix(rules, s, "2.0", newest, n)["text"]]
    assert "imports_that_stay.py" in unchanged   # the imports whose names stay are no fix
    # from 2.13, torch.cuda.amp (deprecated in 2.4, still in force) is fixed, import and use together:
    # torch.amp.GradScaler exists in every release of that window (issue 42: in-force deprecations)
    fixed = py_fix(rules, EDGE["imports_that_stay.py"], "2.13", newest, "imports_that_stay.py")["text"]
    assert "from torch.amp import GradScaler" in fixed and 's = GradScaler("cuda")' in fixed, fixed


def test_the_parity_check_can_fail(rules):
    """The same check sees a rewrite that the JS side reads differently."""
    import copy
    broken = copy.deepcopy(rules)
    for r in broken["rules"]:
        for s in (r.get("rewrites") or {}).values():
            if s["new"].endswith("linalg.cholesky"):
                s["map"]["upper"]["values"]["True"]["suffix"] = ".mT"
    case = [("t.py", "import torch\nL = torch.cholesky(A, upper=True)\n", "2.13")]
    assert compare(rules, case)[0] == []
    diffs = compare(rules, case, js_rules=broken)[0]
    assert diffs and "text differ" in diffs[0]


@pytest.mark.parametrize("lang", ("zh", "ru", "id"))
def test_the_reasons_are_worded_the_same_in_every_language(rules, lang):
    """Why each edge case's fix stays a suggestion reads the same in both engines in zh, ru and id,
    and is worded in that language (not the English reason)."""
    cases = [(n, s, frm) for n, s in EDGE.items() for frm in windows(rules)]
    diffs, _, units, pys = compare(rules, cases, lang=lang)
    assert not diffs, "\n".join(diffs)
    whys = [u for p in pys for u in p["suggestions"] if u.get("why")]
    assert len(whys) > 5 and all(u["why_text"] != u["why"] for u in whys), whys

