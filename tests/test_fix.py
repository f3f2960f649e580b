"""atlas_check.py code --fix / --diff: rewrites from the change data, applied only where the
runtime locks prove them for every release of the window; everything else a suggestion."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from atlas import atlas_check as ac

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ROOT / "scripts" / "atlas" / "atlas_check.py"


def spec_of(rules, target):
    for r in rules["rules"]:
        if target in (r.get("rewrites") or {}):
            return r, r["rewrites"][target]
    raise AssertionError(f"no rewrite for {target} in the rules")


def since(spec, name=None):
    """The first release from which the fix's new name resolves without a gap to the newest."""
    ok = spec["safe_in"][name or spec["new"]]
    return ok[0]


def fix(rules, tmp_path, src, frm, to=None, name="t.py", write=True):
    p = tmp_path / name
    p.write_bytes(src.encode("utf-8") if isinstance(src, str) else src)
    diff, fixes, suggestions, skipped = ac.fix_paths(rules, [str(p)], frm, to or rules["releases"][-1], "en", write)
    return p.read_bytes().decode("utf-8"), fixes, suggestions, skipped, diff


def run_cli(*args):
    proc = subprocess.run([sys.executable, str(CHECKER), *args], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


SRC = """import torch
import torch as th
from torch.cuda.amp import GradScaler

L = torch.cholesky(A, upper=True)   # a comment stays
Q, R = torch.qr(A)
scaler = GradScaler(init_scale=1024)
with th.cuda.amp.autocast(dtype=torch.bfloat16):
    pass
"""


def test_fix_rewrites_what_the_data_says_and_a_second_run_changes_nothing(rules, tmp_path):
    _, chol = spec_of(rules, "torch.cholesky")
    _, qr = spec_of(rules, "torch.qr")
    _, scaler = spec_of(rules, "torch.cuda.amp.GradScaler")
    _, cast = spec_of(rules, "torch.cuda.amp.autocast")
    frm = max((since(s) for s in (chol, qr, scaler, cast)), key=ac.vkey)
    new, fixes, suggestions, skipped, diff = fix(rules, tmp_path, SRC, frm)
    assert not skipped and not suggestions, suggestions
    assert len(fixes) == 5   # cholesky, qr, the import, the scaler call, autocast
    assert chol["new"] + "(A)" + next(a["suffix"] for a in chol["map"]["upper"]["values"].values() if a.get("suffix")) in new
    assert qr["new"] + "(A)" in new
    assert "from {} import GradScaler".format(scaler["new"].rpartition(".")[0]) in new
    assert "GradScaler({}, init_scale=1024)".format(scaler["args"][0]) in new
    assert "th.{}({}, dtype=torch.bfloat16)".format(cast["new"].partition(".")[2], cast["args"][0]) in new
    assert "   # a comment stays\n" in new
    compile(new, "t.py", "exec")
    found = ac.scan(rules, [str(tmp_path / "t.py")], frm, rules["releases"][-1], "en")[0]
    fixed = {f["rule"] for f in fixes}
    assert not [f for f in found if f["rule"] in fixed], found   # a re-check no longer reports them
    again, fixes2, _, _, diff2 = fix(rules, tmp_path, new, frm)
    assert again == new and fixes2 == [] and diff2 == ""


def test_a_fix_whose_new_name_is_missing_from_a_release_of_the_window_is_only_a_suggestion(rules, tmp_path):
    """torch.amp.GradScaler exists from 2.3: code that must still run on 2.2 keeps torch.cuda.amp."""
    _, scaler = spec_of(rules, "torch.cuda.amp.GradScaler")
    first = since(scaler)
    older = rules["releases"][rules["releases"].index(first) - 1]
    src = "import torch\nscaler = torch.cuda.amp.GradScaler()\n"
    new, fixes, suggestions, _, _ = fix(rules, tmp_path, src, older)
    assert new == src and not fixes
    assert len(suggestions) == 1 and older in suggestions[0]["why"] and scaler["new"] in suggestions[0]["why"]
    assert scaler["new"] in suggestions[0]["new"][0]    # the proposed line is shown, not written
    new, fixes, suggestions, _, _ = fix(rules, tmp_path, src, first)
    assert len(fixes) == 1 and scaler["new"] in new and not suggestions


def test_a_choice_for_a_person_is_named_and_never_applied(rules, tmp_path):
    """Issue 42: torch.load's suggestion names the choices (the file as it is, add_safe_globals,
    weights_only=False) instead of proposing the new default, which would change nothing."""
    rule, load = spec_of(rules, "torch.load")
    assert load["apply"] == "never" and load["choice"]
    src = "import torch\nm = torch.load(path)\n"
    before = rules["releases"][rules["releases"].index(rule["introduced_in"]) - 1]
    new, fixes, suggestions, _, diff = fix(rules, tmp_path, src, before)
    assert new == src and not fixes and diff == ""
    assert suggestions[0]["why"] == ac.say(rules, "en", (load["choice"], {})) and "new" not in suggestions[0]
    assert "add_safe_globals" in suggestions[0]["why"] and "weights_only=False" in suggestions[0]["why"]


def test_an_import_suggestion_shows_the_uses_it_needs_or_no_edit(rules, tmp_path):
    """Issue 42: `from torch.amp import autocast` alone would leave `autocast()` without its device
    type (a TypeError): the import's suggestion carries every use's edit; where a use has none to
    give, the suggestion shows no edit, only why."""
    src = "from torch.cuda.amp import autocast, GradScaler\ns = GradScaler()\nwith autocast():\n    pass\n"
    _, _, suggestions, _, _ = fix(rules, tmp_path, src, "2.1")
    imp = next(u for u in suggestions if u["line"] == 1 and u.get("new"))
    assert imp["new"] == ["from torch.amp import autocast, GradScaler", 's = GradScaler("cuda")', 'with autocast("cuda"):'], imp
    tied = "from torch.cuda.amp import autocast\nwith autocast(True, torch.float16, True, 4, 5): pass\n"
    _, _, suggestions, _, _ = fix(rules, tmp_path, tied, "2.1")
    assert suggestions and not any(u.get("new") for u in suggestions), suggestions


def test_formatting_outside_the_edit_is_kept_byte_for_byte(rules, tmp_path):
    src = ("# -*- coding: utf-8 -*-\r\nimport torch\r\n\r\nx = 1  # ünïcode ✓\r\n"
           "L = torch.cholesky(\tA )  # keep\r\ny = torch.cholesky(B,\r\n    upper=False)\r\n")
    new, fixes, _, _, _ = fix(rules, tmp_path, src, "2.13")
    assert len(fixes) == 2
    raw = (tmp_path / "t.py").read_bytes()
    assert raw.count(b"\r\n") == src.count("\r\n") - 1   # the dropped argument took one line break
    old_lines, new_lines = src.split("\r\n"), new.split("\r\n")
    assert old_lines[:4] == new_lines[:4]                   # untouched lines, byte for byte
    assert new_lines[4].endswith("(\tA )  # keep") and new_lines[5].endswith("(B)")


def test_an_ignored_line_and_a_compat_guard_are_not_rewritten(rules, tmp_path):
    src = ("import torch\n"
           "L = torch.cholesky(A)  # atlas: ignore\n"
           "try:\n    from torch.amp import GradScaler\nexcept ImportError:\n"
           "    from torch.cuda.amp import GradScaler\n")
    new, fixes, suggestions, _, _ = fix(rules, tmp_path, src, "2.3")
    assert new == src and not fixes and not suggestions


def test_an_import_that_cannot_move_as_a_whole_keeps_its_uses(rules, tmp_path):
    src = "from torch.cuda.amp import GradScaler, common\ns = GradScaler()\n"
    new, fixes, suggestions, _, _ = fix(rules, tmp_path, src, "2.3")
    assert new == src and not fixes
    assert any("split the import" in s["why"] for s in suggestions)


def test_a_fix_that_would_not_compile_is_backed_out(rules, tmp_path):
    broken = copy.deepcopy(rules)
    for r in broken["rules"]:
        for s in (r.get("rewrites") or {}).values():
            if s["new"].endswith("linalg.cholesky"):
                s["args"] = ["lambda:"]   # a data mistake: the call would not parse
    src = "import torch\nL = torch.cholesky(A)\nQ = torch.qr(A)\n"
    new, fixes, suggestions, _, _ = fix(broken, tmp_path, src, "2.13")
    assert "torch.cholesky(A)" in new and "linalg.qr(A)" in new   # the other fix stays
    assert [s["why"] for s in suggestions] == ["the result would not compile"]
    compile(new, "t.py", "exec")


def _nb(cells):
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}


def _code(lines):
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": lines}


def test_a_notebook_is_fixed_cell_by_cell_and_keeps_its_layout(rules, tmp_path):
    nb = _nb([{"cell_type": "markdown", "metadata": {}, "source": ["torch.cholesky(A) in prose\n"]},
              _code(["%matplotlib inline\n", "import torch\n"]),
              _code(["%%bash\n", "echo torch.cholesky\n"]),
              _code(["!pip list\n", "L = torch.cholesky(A)  # ü\n", "m = torch.load(p)"])])
    text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    new, fixes, suggestions, skipped, _ = fix(rules, tmp_path, text, "2.5", name="n.ipynb")
    assert not skipped
    out = json.loads(new)
    assert out["cells"][0] == nb["cells"][0] and out["cells"][1] == nb["cells"][1] and out["cells"][2] == nb["cells"][2]
    _, chol = spec_of(rules, "torch.cholesky")
    assert out["cells"][3]["source"] == ["!pip list\n", "L = {}(A)  # ü\n".format(chol["new"]), "m = torch.load(p)"]
    assert new == json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    assert [(f["cell"], f["line"]) for f in fixes] == [(4, 2)]
    assert [(s["cell"], s["line"]) for s in suggestions] == [(4, 3)]
    found = ac.scan(rules, [str(tmp_path / "n.ipynb")], "2.5", rules["releases"][-1], "en")[0]
    assert [(f["cell"], f["line"]) for f in found] == [(4, 3)]   # the load is left; magic and %%bash cells are not code


def test_a_notebook_whose_json_layout_cannot_be_kept_is_not_written(rules, tmp_path):
    text = '{"cells": [{"cell_type": "code", "source": ["import torch\\n", "torch.cholesky(A)"]}],   "nbformat": 4}'
    new, fixes, suggestions, skipped, _ = fix(rules, tmp_path, text, "2.13", name="n.ipynb")
    assert new == text and not fixes and "layout" in skipped[0]["reason"] and suggestions


def test_cli_diff_writes_nothing_and_fix_reports_what_is_left(rules_file, tmp_path):
    p = tmp_path / "t.py"
    p.write_text(SRC + "m = torch.load(path)\nm.eval()\n", encoding="utf-8")   # a model: it breaks
    d = run_cli("--rules", rules_file, "code", "--from", "2.4", "--diff", str(p))
    assert d.returncode == 1 and d.stdout.startswith("--- a/") and "suggestion [26-load-weights-only-default]" in d.stdout
    assert p.read_text(encoding="utf-8") == SRC + "m = torch.load(path)\nm.eval()\n"
    j = json.loads(run_cli("--rules", rules_file, "code", "--from", "2.4", "--diff", "--format", "json", str(p)).stdout)
    assert j["diff"] == d.stdout[:len(j["diff"])] and len(j["suggestions"]) == 1
    f = run_cli("--rules", rules_file, "code", "--from", "2.4", "--fix", "--format", "json", str(p))
    left = json.loads(f.stdout)["findings"]
    assert [x["change"] for x in left] == ["26-load-weights-only-default"] and f.returncode == 2
    assert p.read_text(encoding="utf-8") != SRC
    bad = run_cli("--rules", rules_file, "code", "--fix", "--diff", str(p))
    assert bad.returncode == 3


def test_positional_arguments_pass_by_their_old_names_and_any_value_fills_a_template(rules, tmp_path):
    """autocast(True, torch.bfloat16) shifts under the new signature: each positional argument is
    passed by the old parameter's name; use_cuda=<expression> becomes the data's template."""
    _, cast = spec_of(rules, "torch.cuda.amp.autocast")
    names = cast["positional"]
    _, prof = spec_of(rules, "torch.autograd.profiler.profile")
    star = prof["map"]["use_cuda"]["values"]["*"]["text"]
    src = ("import torch\nfrom torch.cuda import amp\n"
           "with torch.cuda.amp.autocast(on, torch.bfloat16):\n    pass\n"
           "with torch.cuda.amp.autocast(*flags):\n    pass\n"
           "s = amp.GradScaler()\n"
           "with torch.autograd.profiler.profile(use_cuda=a or b) as p:\n    pass\n")
    new, fixes, suggestions, _, _ = fix(rules, tmp_path, src, "2.3")
    lines = new.splitlines()
    assert lines[2] == "with {}({}, {}=on, {}=torch.bfloat16):".format(cast["new"], cast["args"][0], names[0], names[1])
    assert lines[4] == "with torch.cuda.amp.autocast(*flags):" and "*args" in suggestions[0]["why"]
    _, scaler = spec_of(rules, "torch.cuda.amp.GradScaler")
    assert lines[6] == "s = {}({})".format(scaler["new"], scaler["args"][0])   # reached through `import torch`
    assert lines[7] == "with torch.autograd.profiler.profile({}) as p:".format(star.replace("{value}", "(a or b)"))
    assert len(fixes) == 3
    compile(new, "t.py", "exec")


CORPUS = ROOT / "tests" / "check_cases" / "code"


@pytest.mark.parametrize("frm", ["2.0", "2.3"])
def test_every_corpus_file_still_compiles_after_fix_and_a_second_fix_changes_nothing(rules, frm):
    """Over every half of the corpus (tuned and held out): each fixed file compiles, fixing it
    again changes nothing, and a re-check reports none of the fixed findings."""
    index = ac.Index(rules, frm, rules["releases"][-1])
    window = ac.window_of(rules, frm, rules["releases"][-1])
    files = sorted(CORPUS.rglob("*.py"))
    fixed_files = 0
    for f in files:
        text, _ = ac.read_source(str(f))
        try:
            compile(text or "", str(f), "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            text = None
        if text is None:
            continue   # the corpus has files that do not read or parse, on purpose
        new, applied, _, _ = ac.fix_source(index, text, str(f), window)
        if new == text:
            assert not applied
            continue
        fixed_files += 1
        compile(new, str(f), "exec", dont_inherit=True)
        assert ac.fix_source(index, new, str(f), window)[0] == new, f
        before = ac.check_source(index, text, str(f))[0]
        after = ac.check_source(index, new, str(f))[0]
        for u in applied:
            rid = u["rule"]["id"]
            assert sum(x[2]["id"] == rid for x in after) < sum(x[2]["id"] == rid for x in before), (f, rid)
    assert fixed_files >= 10   # the corpus holds rewritable uses in both windows


def test_a_use_that_cannot_be_fixed_keeps_its_import_and_every_other_use(rules, tmp_path):
    """Half a fix is worse than none: autocast("cuda") with the old import passes "cuda" as enabled."""
    src = "from torch.cuda.amp import autocast\nwith autocast():\n    pass\nf = autocast\n"
    new, fixes, suggestions, _, _ = fix(rules, tmp_path, src, "2.3")
    assert new == src and not fixes
    by_line = {s["line"]: s for s in suggestions}
    assert "line 4" in by_line[1]["why"] and "its import (line 1) stays" in by_line[2]["why"]
    assert "new" not in by_line[2]   # no proposed line that would be wrong without the import


def test_arguments_in_parentheses_and_comments_between_arguments(rules, tmp_path):
    _, chol = spec_of(rules, "torch.cholesky")
    src = ("import torch\nL = torch.cholesky((A), upper=(True))\n"
           "x = torch.cholesky(B,  # the matrix\n                   upper=False)\n")
    new, fixes, suggestions, _, _ = fix(rules, tmp_path, src, "2.13")
    assert len(fixes) == 2 and not suggestions
    assert "L = {}((A)).mH\n".format(chol["new"]) in new
    assert "# the matrix" in new
    compile(new, "t.py", "exec")


def test_an_import_that_stays_where_it_is_is_no_fix(rules, tmp_path):
    src = "from torch.autograd.profiler import profile\nwith profile(use_cuda=True) as p:\n    pass\n"
    new, fixes, suggestions, _, _ = fix(rules, tmp_path, src, "2.13")
    assert [f["line"] for f in fixes] == [2] and not suggestions
    assert new.splitlines()[0] == src.splitlines()[0]
