"""The JavaScript engine (docs/assets/atlas-check.js) against the Python one (atlas_check.py):
the shared corpus (tests/check_cases, both halves) and a few hand-made edge cases run through
both, and any difference in findings, skipped files or environment verdicts fails."""
from __future__ import annotations

import re
import shutil

import pytest

from atlas import atlas_check as ac
from dev import check_eval as ev

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is needed for the JS engine")

EDGE = {
    "strings.py": 'import torch\ns = """\ntorch.qr(a)\n"""\nt = f"{torch.qr}"\nu = r\'\\\\\' + "x"\nv = torch.qr\n',
    "continuation.py": "import torch as th\nx = 1 + \\\n    th.cholesky(a)\ny = (th\n     .qr(b))\n",
    "brackets.py": "import torch\nd = {\n  'a': [torch.qr,\n        (1, 2)],\n}\n",
    "imports.py": "from torch import (\n    qr as q,\n    cholesky,\n)\nq(a); cholesky(b)\nfrom . import qr\nqr(c)\n",
    "shadow.py": "import torch\nclass C:\n    torch = None\n    def m(self):\n        return torch.qr(a)\nf = lambda torch: torch.qr\n[torch.qr for torch in x]\n",
    "unicode.py": "import torch\nprint('模型', torch.qr(a)); x = 'é'; y = torch.cholesky(b)\n",
    "py2.py": "print 'hello'\n",
    "py2b.py": "import sys\nprint >>sys.stderr, 'x'\n",
    "unterminated.py": "x = '''abc\n",
    "badindent.py": "def f():\n        x = 1\n    y = 2\n",
    "env.py": "import os\nos.environ.setdefault('TORCH_DIST_USE_NCCL2', '0')\nos.putenv('TORCH_DIST_USE_NCCL2x', '1')\n",
    "kw.py": "import torch.distributed as dist\nopts = {}\ndist.init_process_group(**opts)\ndist.init_process_group('nccl', *a)\n",
    "star_kwonly.py": ("import torch.distributed as dist\nfrom torch.utils.checkpoint import checkpoint\n"
                       "dist.init_process_group(*a)\ndist.init_process_group(*a, device_id=d)\n"),
    "decorators.py": "import torch\n@torch.compile(shapes_spec=1)\ndef f(x: torch.qr = torch.cholesky) -> torch.qr:\n    pass\n",
    "async.py": "import torch\nasync def f():\n    async with g() as torch:\n        torch.qr(a)\n    return torch.qr(b)\n",
    "fstrings.py": (
        "import os, torch\n"
        "a = f\"{torch.cholesky(x)!r:>{torch.qr(w)}}\"\n"          # 2: both, at the f-string's start
        "b = f'{{torch.qr}} {qr}' f\"{os.environ['TORCH_DIST_USE_NCCL2']}\"\n"   # 3: env only ({{ is text), at the start of the joined strings
        "c = f'TORCH_DIST_USE_NCCL2={v} {[torch.qr for torch in z]}'\n"   # 4: env in the text; the comprehension's torch is local
        "d = f'''\n{torch.qr(\n  m)}'''\n"                    # 5: a multi-line f-string, found at its start
        "e = f'{x=}' f'{y!s}'\n"),
    "messages.py": (
        "import argparse, logging, os, warnings\n"
        "log = logging.getLogger(__name__)\n"
        "p = argparse.ArgumentParser(description='set TORCH_DIST_USE_NCCL2=0 to roll back')\n"
        "p.add_argument('--legacy', help=f'export TORCH_DIST_USE_NCCL2=0 (see {url})')\n"
        "print('TORCH_DIST_USE_NCCL2=0 is set')\n"
        "warnings.warn(('nccl-legacy' 'x'))\n"
        "log.info('backend %s', 'nccl-legacy')\n"
        "os.environ['TORCH_DIST_USE_NCCL2'] = '0'\n"                # 8: a real setting
        "print(os.environ.get('TORCH_DIST_USE_NCCL2'))\n"           # 9: a real read inside a message
        "p.add_argument('--b', choices=['nccl-legacy'], help='nccl-legacy')\n"),   # 10: the choice, not the help
    "ignore.py": (
        "import torch\n"
        "a = torch.qr(x)  # atlas: ignore\n"                      # 2: dropped
        "b = torch.qr(x)  # atlas: ignore[213-some-other-change]\n"   # 3: kept: another change
        "c = torch.qr(x)  #atlas:ignore[ 214-remove-qr , x]\n"   # 4: the change named
        "d = torch.qr(x)  # see atlas: ignore\n"),                 # 5: kept: not a comment directive
    # issue 42: what torch.load's value is used as, followed in its function (LOAD_FLOW below)
    "into_state_dict.py": (
        "import torch\ndef f(model, scaler, p):\n    model.load_state_dict(torch.load(p))\n"
        "    model.load_state_dict(torch.load(p, map_location='cpu'), strict=False)\n"
        "    model.load_state_dict((torch.load(p)))\n    scaler.load_state_dict(torch.load(p))\n"
        "    model.load_state_dict(torch.load(p)['model'])\n    model.load_state_dict(state_dict=torch.load(p))\n"
        "    x = torch.load(p)\n    load_state_dict(torch.load(p))\n"
        "    return [m.load_state_dict(torch.load(q)) for m, q in p]\n"),
    # names that are also JavaScript's Object methods: found nowhere, and no crash (tianshou has constructor=)
    "object_names.py": ("import torch\nf(constructor=1, toString=2, hasOwnProperty=3)\nx.constructor(torch.qr(a))\n"
                        "def valueOf(constructor):\n    return constructor.toString()\n"),
    # a second name read inside an f-string, beside a string that spells it: the string is no read
    "fstring_key.py": ("import torch\ndef f(p, m):\n    ck = torch.load(p)\n    step = ck['step']\n"
                       "    print(f\"{ck['step']} {step}\")\n    m.load_state_dict(ck['model'])\n"),
    "kwstar.py": ("import torch\nimport torch.distributed as dist\ndef a(m, x, f, **kw):\n    return torch.onnx.export(m, x, f, **kw)\n"
                  "def b(m, x, f, axes):\n    return torch.onnx.export(m, x, f, dynamic_axes=axes)\n"
                  "def c(b, url):\n    kw = dict(backend=b, init_method=url)\n    dist.init_process_group(**kw)\n"
                  "    o = {'dynamic_axes': 1}\n    torch.onnx.export(m, x, f, **o)\n"),
    "guards.py": None,   # test_check.GUARDS
    "as_torch.py": None,   # test_check.MATCH_AS_TORCH
    "typename.py": (
        "import torch.distributed as dist\n"
        "from torch.distributed import ProcessGroupNCCL as PG\n"
        "if type(b).__name__ == 'ProcessGroupNCCL': pass\n"          # 3
        "ok = self.pg().__class__.__name__ in ('ProcessGroupGloo', 'ProcessGroupNCCL')\n"   # 4
        "if type(b) is PG or b.__class__ != dist.ProcessGroupNCCL: pass\n"   # 5: twice
        "x = a + type(b).__name__ == 'ProcessGroupNCCL'\n"           # 6: not a class test
        "y = type(b).__name__ == 'ProcessGroupNCCL' == z\n"          # 7: a chain, not a class test
        "def f(type):\n    return type(b).__name__ == 'ProcessGroupNCCL'\n"   # 9: type is a parameter
        "z = 'ProcessGroupNCCL' == type(b).__name__\n"),              # 10: the class name on the left is not read
}


def py_code(rules, path, frm, to, notes="some"):
    findings, skipped, _ = ac.scan(rules, [str(path)], frm, to, "en", notes)
    return [(f["line"], f["column"], f["rule"], f["api"], f["severity"], f["title"], f["url"], f["earlier"], f["earlier_text"])
            for f in findings], bool(skipped)


def js_jobs(rules, jobs):
    res = ev.run_js({"rules": rules, "code": jobs})["code"]
    return [([(f["line"], f["column"], f["rule"], f["api"], f["severity"], f["title"], f["url"], f["earlier"], f["earlier_text"])
              for f in r["findings"]],
             bool(r["skipped"])) for r in res]


def test_corpus_parity(rules):
    cases = ev.code_cases("all")
    assert len(cases) >= 16
    jobs = []
    for c in cases:
        raw = c["path"].read_bytes()
        jobs.append({"path": c["path"].name, "text": raw.decode("latin-1"),
                     "from": c["from"] or rules["releases"][0], "to": c["to"] or rules["releases"][-1]})
    js = js_jobs(rules, jobs)
    diffs = []
    for c, job, j in zip(cases, jobs, js):
        p = py_code(rules, c["path"], job["from"], job["to"])
        if p != j:
            diffs.append((c["path"].name, sorted(set(p[0]) - set(j[0])), sorted(set(j[0]) - set(p[0])), p[1], j[1]))
    assert not diffs, "\n".join(f"{n}: python only {a}, js only {b}, skipped py={s1} js={s2}" for n, a, b, s1, s2 in diffs)
    assert sum(len(p[0]) for p in js) > 40   # the corpus really finds things


def test_earlier_deprecations_and_one_finding_per_cause_parity(rules, tmp_path):
    """Both engines report a deprecation made before --from that is still in force (with its
    release), and one finding per cause (the import, not the uses of the name it binds)."""
    from test_check import HAZARDS

    (tmp_path / "h.py").write_text(HAZARDS, encoding="utf-8")
    jobs = [{"path": "h.py", "text": HAZARDS, "from": frm, "to": to} for frm, to in (("2.6", "2.8"), ("2.3", "2.15"))]
    js = js_jobs(rules, jobs)
    for job, j in zip(jobs, js):
        assert py_code(rules, tmp_path / "h.py", job["from"], job["to"]) == j, job
    early = [(f[0], f[7]) for f in js[0][0] if f[7]]
    assert early == [(3, "2.4"), (4, "2.5"), (17, "2.4")], early
    assert 16 not in [f[0] for f in js[1][0]]          # GradScaler() uses the name line 3 imports


def test_edge_case_parity(rules, tmp_path):
    from test_check import CLAMP_INT, DIRECTED, EARLY_EXITS, GUARDS, GUARDS2, MATCH_AS_TORCH, NEW_GROUP

    EDGE["guards.py"], EDGE["as_torch.py"], EDGE["guards2.py"] = GUARDS, MATCH_AS_TORCH, GUARDS2
    EDGE["early_exits.py"], EDGE["directed.py"] = EARLY_EXITS, DIRECTED
    EDGE.update({"new_group_" + k: v for k, v in NEW_GROUP.items()}, **{"clamp_int.py": CLAMP_INT})
    jobs = []
    for name, src in EDGE.items():
        (tmp_path / name).write_text(src, encoding="utf-8")
        jobs.append({"path": name, "text": src.encode("utf-8").decode("latin-1"), "from": "2.13", "to": "2.15", "notes": "all"})
    js = js_jobs(rules, jobs)
    for (name, _), j in zip(EDGE.items(), js):
        assert py_code(rules, tmp_path / name, "2.13", "2.15", "all") == j, name
    by = dict(zip(EDGE, js))
    assert [f[0] for f in by["strings.py"][0]] == [5, 7]       # not in the triple-quoted string; in the f-string's field
    assert [(f[0], f[1], f[3]) for f in by["fstrings.py"][0]] == [
        (2, 5, "torch.cholesky"), (2, 5, "torch.qr"), (3, 5, "TORCH_DIST_USE_NCCL2"), (4, 5, "TORCH_DIST_USE_NCCL2"),
        (5, 5, "torch.qr")]
    assert [(f[0], f[3]) for f in by["messages.py"][0]] == [(8, "TORCH_DIST_USE_NCCL2"), (9, "TORCH_DIST_USE_NCCL2"), (10, "nccl-legacy")]
    assert [(f[0], f[3]) for f in by["typename.py"][0] if "isinstance" in f[2]] == [
        (3, "torch.distributed.ProcessGroupNCCL"), (4, "torch.distributed.ProcessGroupNCCL"),
        (5, "torch.distributed.ProcessGroupNCCL")]   # line 5 names it twice: one finding per line and change
    assert [f[0] for f in by["ignore.py"][0]] == [3, 5]   # ignore comments: bare, and naming the change
    assert [(f[0], f[4]) for f in by["guards.py"][0] if f[3] in ("torch.qr", "torch.cholesky")] == [
        (3, "guarded"), (7, "guarded"), (9, "guarded"), (12, "guarded"), (14, "guarded"), (16, "breaks"), (19, "breaks"),
        (23, "breaks"), (25, "breaks"), (27, "guarded"), (29, "guarded"), (31, "breaks"), (35, "guarded")]
    assert [f[0] for f in by["new_group_gloo.py"][0] if f[2].startswith("215-nccl-eager")] == [4]   # line 3 inherits gloo
    assert not by["py2b.py"][1]   # print >>f, x is a Python 3 expression
    assert by["py2.py"][1] and by["unterminated.py"][1] and by["badindent.py"][1]
    assert [(f[0], f[1]) for f in by["unicode.py"][0]] == [(2, 13), (2, 40)]   # columns in characters


def test_env_parity(rules):
    cases = ev.env_cases("all")
    js = ev.run_js({"rules": rules, "env": [{"text": c["path"].read_text(encoding="utf-8"), "to": c["to"]} for c in cases]})["env"]
    for c, j in zip(cases, js):
        parts = ac.split_pastes(c["path"].read_text(encoding="utf-8"))
        reports = j.get("pastes", [j])
        assert len(reports) == len(parts), c["path"].name
        for part, r in zip(parts, reports):   # several reports in one paste: each on its own
            py = ac.check_env(rules, ac.parse_env(part), c["to"], "en")
            assert [(i["check"], i["found"], i["verdict"], i["change"], i["url"]) for i in py] == \
                   [(i["check"], i["found"], i["verdict"], i["change"], i["url"]) for i in r["items"]], c["path"].name
            # the newest release, its build and pip command, the default wheel's, what blocks the next
            assert ac.newest_runnable(rules, ac.parse_env(part), "en") == r["newest"], c["path"].name


def test_newest_build_parity(rules):
    """Issue 40's machines: both engines name the same release, build, pip command and default wheel."""
    from test_check import MACHINES

    js = ev.run_js({"rules": rules, "env": [{"text": t, "to": "2.15"} for t in MACHINES.values()]})["env"]
    got = {name: j["newest"] for name, j in zip(MACHINES, js)}
    for name, text in MACHINES.items():
        assert ac.newest_runnable(rules, ac.parse_env(text), "en") == got[name], name
    assert [(got[n]["release"], got[n]["build"]) for n in ("walk", "rtx5090", "v100")] == [
        ("2.4", "cu118"), ("2.11", "cu128"), ("2.14", "cu126")]
    assert got["py37"]["release"] is None


def test_detect_kind_parity(rules):
    texts = [c["path"].read_text(encoding="utf-8", errors="replace") for c in ev.code_cases("all")]
    texts += [c["path"].read_text(encoding="utf-8") for c in ev.env_cases("all")]
    js = ev.run_js({"rules": rules, "detect": texts})["detect"]
    assert js == [ac.detect_kind(t) for t in texts]
    # every environment case reads as one, except a prose issue body its .expect says is read as code
    assert js[-len(ev.env_cases("all")):] == [c.get("detect", "env") for c in ev.env_cases("all")]
    # the exceptions stay few: a prose issue body, a diff of a requirements file, a typed list in prose
    assert js.count("env") >= len(ev.env_cases("all")) - 3


def test_env_platform_parity(rules):
    """The platform row (a wheel for the platform at all, its glibc or macOS floor) is the same in both engines."""
    from test_check import CU118_PY38, INTEL_MAC, LINUX_ARM, MAC_ARM_13, OLD_GLIBC, VLLM

    pastes = ("ProductName:\t\tmacOS\nProductVersion:\t\t13.6.9\n% uname -m\nx86_64\ntorch==2.2.2\n", VLLM, "\n".join("> " + ln for ln in VLLM.split("\n")), INTEL_MAC, OLD_GLIBC, MAC_ARM_13, LINUX_ARM, LINUX_ARM.replace("glibc-2.35", "glibc-2.17"), CU118_PY38,
              CU118_PY38.replace(": 11.8", ": 12.1"), CU118_PY38.replace(": 11.8", ": 12.4"))
    jobs = [{"text": t, "to": to} for t in pastes for to in ("2.2", "2.3", "2.5", "2.6", "2.7", "2.11", "2.12", "2.15")]
    js = ev.run_js({"rules": rules, "env": jobs})["env"]
    rows = 0
    for job, j in zip(jobs, js):
        py = ac.check_env(rules, ac.parse_env(job["text"]), job["to"], "en")
        assert [(i["check"], i["found"], i["verdict"], i["change"], i["note"]) for i in py] == \
               [(i["check"], i["found"], i["verdict"], i["change"], i["note"]) for i in j["items"]], job["to"]
        rows += sum(i["check"] == "platform" for i in py)
    assert rows == len(jobs)


def test_env_layout_and_multi_paste_parity(rules):
    """The layouts issue 27 added (a GPU placed by series or by nvidia-smi -q's architecture, a
    truncated name, torch's capability warnings, a ROCm GPU by PCI id, lspci) and two reports pasted
    together read the same in both engines, paste by paste, and the page sees them as pastes."""
    from test_check import COLLECT_ENV, TWO_PASTES

    pastes = [
        "GPU 0: NVIDIA GeForce GTX 770 (UUID: GPU-1)\nNvidia driver version: 470.256.02\n",
        "GPU 0: NVIDIA RTX A4500 (UUID: GPU-1)\n", "GPU 0: Quadro RTX 4000 (UUID: GPU-1)\n",
        "|   0  NVIDIA RTX A45...  On | 00000000:01:00.0 Off |\n| NVIDIA-SMI 580.1  Driver Version: 580.1 |\n",
        "UserWarning:\nNVIDIA GeForce GTX 780 with CUDA capability sm_35 is not compatible with the current PyTorch installation.\n",
        "Found GPU0 NVIDIA GeForce GTX 780 which is of cuda capability 3.5.\n",
        "Driver Version       : 550.54.15\n    Product Name   : NVIDIA Graphics Device\n    Product Architecture : Turing\n",
        "PyTorch version: 2.3.0+rocm6.0\nROCM used to build PyTorch: 6.0.32830\nGPU models and configuration: Device 66a1\n",
        "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Vega 20 [1002:66af] (rev c1)\n",
        "numpy==1.26.4\ntorch @ file:///wheels/torch-2.4.1%2Bcu121-cp311-cp311-linux_x86_64.whl\n",
        "torch @ https://h/torch-2.3.0+rocm6.0-cp311-cp311-linux_x86_64.whl\nrocm-smi==6.0\n",
        TWO_PASTES, COLLECT_ENV + TWO_PASTES, TWO_PASTES + "| NVIDIA-SMI 580.95.05  Driver Version: 580.95.05 |\n",
    ]
    jobs = [{"text": t, "to": to} for t in pastes for to in ("2.0", "2.5", "2.9", "2.15")]
    js = ev.run_js({"rules": rules, "env": jobs, "detect": pastes})
    assert js["detect"] == [ac.detect_kind(t) for t in pastes] == ["env"] * len(pastes)
    several = 0
    for job, j in zip(jobs, js["env"]):
        parts = ac.split_pastes(job["text"])
        reports = j.get("pastes", [j])
        assert len(reports) == len(parts), job["text"][:60]
        several += len(parts) > 1
        for part, r in zip(parts, reports):
            py = ac.env_report(rules, ac.parse_env(part), job["to"], "en")
            assert [(i["check"], i["found"], i["verdict"], i["change"], i["url"], i["note"]) for i in py["items"]] == \
                   [(i["check"], i["found"], i["verdict"], i["change"], i["url"], i["note"]) for i in r["items"]], part[:60]
            assert (py["from"], py["newest"]) == (r["from"], r["newest"]), part[:60]
    assert several == 12   # three texts hold several reports, at each of four targets


#: the languages whose words the parity tests below compare (English is compared above)
TRANSLATED = ("zh", "ru", "id")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_translated_text_is_the_same_in_both_engines(rules, tmp_path, lang):
    """Every worded field (a row's found_text and note_text, the newest release's reasons, the paste's
    from_note_text; a finding's guard_text, a skipped file's reason_text) reads the same in both
    engines in each language, on the environment corpus and the code edge cases."""
    from test_check import GUARDS

    cases = ev.env_cases("all")
    jobs = [{"text": c["path"].read_text(encoding="utf-8"), "to": to, "lang": lang} for c in cases for to in ("2.5", c["to"])]
    js = ev.run_js({"rules": rules, "env": jobs})["env"]
    worded = 0
    for job, j in zip(jobs, js):
        for part, r in zip(ac.split_pastes(job["text"]), j.get("pastes", [j])):
            py = ac.env_report(rules, ac.parse_env(part), job["to"], lang)
            assert py["items"] == r["items"] and py["newest"] == r["newest"], part[:60]
            assert py["from_note_text"] == r["from_note_text"], part[:60]
            worded += sum(1 for i in py["items"] if i["note_text"] and i["note_text"] != i["note"])
    assert worded > 50   # the rows really are worded in the language, not in English
    sources = {"guards.py": GUARDS, "unterminated.py": EDGE["unterminated.py"], "py2.py": EDGE["py2.py"]}
    code = []
    for name, src in sources.items():
        (tmp_path / name).write_text(src, encoding="utf-8")
        code.append({"path": name, "text": src, "from": "2.13", "to": "2.15", "lang": lang})
    binary = {"path": "b.py", "bytes": [0, 1, 2], "text": None, "from": "2.13", "to": "2.15", "lang": lang}
    res = ev.run_js({"rules": rules, "code": code + [binary]})["code"]
    for job, r in zip(code, res):
        findings, skipped, _ = ac.scan(rules, [str(tmp_path / job["path"])], "2.13", "2.15", lang)
        assert [f["guard_text"] for f in findings] == [f["guard_text"] for f in r["findings"]], job["path"]
        if job["path"] == "unterminated.py":   # the same frame; the parser's own message (quoted) is each parser's
            assert [re.split("[“«]", x["reason_text"])[0] for x in skipped] == [re.split("[“«]", x["reason_text"])[0] for x in r["skipped"]]
        assert [x["reason_text"] != x["reason"] for x in r["skipped"]] == [True] * len(r["skipped"]), r["skipped"]
    assert any(f["guard_text"] for f in res[0]["findings"]) and res[1]["skipped"] and res[2]["skipped"]
    (tmp_path / "b.py").write_bytes(bytes([0, 1, 2]))
    assert ac.scan(rules, [str(tmp_path / "b.py")], "2.13", "2.15", lang)[1][0]["reason_text"] == res[3]["skipped"][0]["reason_text"]



QUIET = {
    # clamp on an eps floor and an integer length: the file shows no tensor that requires grad
    "clamp_plain.py": "import torch\ndef f(x, n):\n    return x.clamp(min=1e-6), torch.clamp(n, 0, 10)\n",
    "clamp_grad.py": "import torch\nw = torch.zeros(3, requires_grad=True)\ny = w.clamp(0, 1)\n",
    "mps_picker.py": "import torch\nok = torch.backends.mps.is_available()\n",
    "mps_device.py": "import torch\nd = 'mps' if torch.backends.mps.is_available() else 'cpu'\n",
    "group.py": "import torch.distributed as dist\ng = dist.new_group([0, 1])\n",
    "group_nccl.py": "import torch.distributed as dist\ndist.init_process_group('nccl')\ng = dist.new_group([0, 1])\n",
}


def test_noisy_notes_are_shown_only_where_the_code_shows_their_condition(rules, tmp_path):
    """A note whose rule has shown_if is hidden (and counted) in a file that does not match it, in
    both engines; --notes all shows it (issue 42, part 4)."""
    assert sum(1 for r in rules["rules"] if r.get("shown_if")) >= 3
    jobs = [{"path": n, "text": src, "from": "2.13", "to": "2.15", "notes": notes}
            for notes in ("some", "all") for n, src in QUIET.items()]
    res = ev.run_js({"rules": rules, "code": jobs})["code"]
    by = {(j["path"], j["notes"]): r for j, r in zip(jobs, res)}
    for j in jobs:
        (tmp_path / j["path"]).write_text(j["text"], encoding="utf-8")
        found, _, stats = ac.scan(rules, [str(tmp_path / j["path"])], "2.13", "2.15", "en", j["notes"])
        r = by[(j["path"], j["notes"])]
        assert [(f["line"], f["rule"]) for f in found] == [(f["line"], f["rule"]) for f in r["findings"]], j["path"]
        assert stats["hidden"] == r["hidden"], j["path"]

    def changes(path, notes="some"):
        return {f["change"] for f in by[(path, notes)]["findings"]}

    assert "214-clamp-grad" not in changes("clamp_plain.py") and by[("clamp_plain.py", "some")]["hidden"] == 1   # two clamps, one line
    assert "214-clamp-grad" in changes("clamp_plain.py", "all") and "214-clamp-grad" in changes("clamp_grad.py")
    assert "215-mps-macos15" not in changes("mps_picker.py") and "215-mps-macos15" in changes("mps_device.py")
    assert "215-mps-macos15" in changes("mps_picker.py", "all")
    assert "215-nccl-eager-communicators" not in changes("group.py")
    assert "215-nccl-eager-communicators" in changes("group_nccl.py") and "215-nccl-eager-communicators" in changes("group.py", "all")


def test_a_shown_if_pattern_must_read_alike_in_both_engines():
    import pydantic

    from atlas.schema import Check

    assert Check(kind="name", target="torch.x", shown_if="[\"']mps").shown_if == "[\"']mps"
    for bad in ("(", "(?<=a)b", "(?P<n>a)", "a\\Z"):
        with pytest.raises(pydantic.ValidationError):
            Check(kind="name", target="torch.x", shown_if=bad)


def test_read_pastes_parity(rules):
    """What real pastes show (a GPU's family from its capability, Windows' processor, a Python older
    than every release) is read and judged the same in both engines."""
    from test_check import READ_PASTES

    texts = list(READ_PASTES.values())
    js = ev.run_js({"rules": rules, "env": [{"text": t, "to": "2.15"} for t in texts]})["env"]
    for t, j in zip(texts, js):
        py = ac.check_env(rules, ac.parse_env(t), "2.15", "en")
        assert [(i["check"], i["found"], i["verdict"], i["change"], i["note"]) for i in py] == \
               [(i["check"], i["found"], i["verdict"], i["change"], i["note"]) for i in j["items"]], t


def test_companions_parity(rules):
    """The packages around torch are read and judged the same in both engines (issue 41)."""
    from test_check import FREEZE_COMPANIONS, FREEZE_VLLM

    jobs = [(FREEZE_COMPANIONS, "2.9"), (FREEZE_COMPANIONS, "2.1"), (FREEZE_VLLM, "2.15")]
    # and every real freeze of the corpus (tests/check_cases/env/freeze*), at its target
    jobs += [(c["path"].read_text(encoding="utf-8"), c["to"]) for h in ("freeze1", "freeze2") for c in ev.env_cases(h)]
    js = ev.run_js({"rules": rules, "env": [{"text": t, "to": to} for t, to in jobs]})["env"]
    for (t, to), j in zip(jobs, js):
        assert ac.check_companions(rules, ac.parse_env(t), to, "en") == j["companions"], (to, t)
    assert [i["verdict"] for i in js[2]["companions"]["items"]] == ["install", "none"]


def test_test_file_grouping_parity(rules, tmp_path):
    """Both engines give a test file one finding per deprecated change, and library code every use."""
    from test_check import SCRIPTED_TESTS

    (tmp_path / "tests").mkdir()
    jobs = []
    for name in ("tests/test_models.py", "models.py"):
        (tmp_path / name).write_text(SCRIPTED_TESTS, encoding="utf-8")
        jobs.append({"path": name, "text": SCRIPTED_TESTS, "from": "2.9", "to": "2.15"})
    js = js_jobs(rules, jobs)
    for job, j in zip(jobs, js):
        assert py_code(rules, tmp_path / job["path"], "2.9", "2.15") == j, job["path"]
    assert len(js[0][0]) < len(js[1][0])



#: issue 42: each torch.load, and what the code does with its value -> the finding's severity (None: no
#: finding, the code shows a state dict or tensors); the why names the line of the deciding use
LOAD_FLOW = ("import torch\n"
             "def f(model, opt, p):\n"
             "    model.load_state_dict(torch.load(p))\n"                          # 3 straight in: none
             "    sd = torch.load(p, map_location='cpu')\n"                        # 4 none: line 5
             "    model.load_state_dict(sd)\n"
             "    ck = torch.load(p)\n"                                            # 6 none: a key into a state dict,
             "    if 'model' in ck:\n"                                             #   a test, arithmetic, get()
             "        model.load_state_dict(ck['model'], strict=False)\n"
             "    opt.load_state_dict(ck.get('optimizer'))\n"
             "    epoch = ck['epoch'] + 1\n"
             "    net = torch.load(p)\n"                                           # 11 breaks: .eval()
             "    net.eval()\n"
             "    blob = torch.load(p)\n"                                          # 13 breaks: a key read by attribute,
             "    args = blob['args']\n"                                           #    through a second name
             "    print(f'{args.lr}')\n"
             "    w = torch.load(p)\n"                                             # 16 none: a tensor's shape
             "    print(w.shape)\n"
             "    x = torch.load(p)\n"                                             # 18 review: it leaves the function
             "    helper(x)\n"
             "    y = torch.load(p)\n"                                             # 20 review: unused here
             "    return torch.load(p)\n")                                         # 21 review: returned
LOAD_EXPECTED = {3: None, 4: None, 6: None, 11: "breaks", 13: "breaks", 16: None, 18: "review", 20: "review", 21: "review"}


def test_a_load_is_judged_by_what_the_code_does_with_its_value_in_both_engines(rules, tmp_path):
    """Issue 42: a load whose value goes into load_state_dict or is read as tensors is no finding
    (``--explain`` lists it with its reason); one read as an object breaks, naming the line; one the
    code does not follow is ``review``. Both engines agree, finding for finding, and so does the
    older one-line form (into_state_dict.py)."""
    cases = {"flow.py": LOAD_FLOW, "s.py": EDGE["into_state_dict.py"]}
    for name, src in cases.items():
        (tmp_path / name).write_text(src, encoding="utf-8")
    js = ev.run_js({"rules": rules, "code": [{"path": n, "text": t, "from": "2.5", "to": "2.6", "notes": "all"}
                                             for n, t in cases.items()]})["code"]
    for (name, _), res in zip(cases.items(), js):
        cleared = []
        py, _, _ = ac.scan(rules, [str(tmp_path / name)], "2.5", "2.6", "en", "all", cleared)
        assert [(f["line"], f["severity"], f["why"]) for f in py] == [(f["line"], f["severity"], f["why"]) for f in res["findings"]]
        assert [(c["line"], c["why"]) for c in cleared] == [(c["line"], c["why"]) for c in res["cleared"]]
        if name == "flow.py":
            loads = {f["line"]: f["severity"] for f in py if f["change"] == "26-load-weights-only-default"}
            loads.update({c["line"]: None for c in cleared})
            assert loads == LOAD_EXPECTED
            why = {f["line"]: f["why"] for f in py}
            assert "line 12" in why[11] and ".eval" in why[11] and "line 15" in why[13] and ".lr" in why[13]
            assert "helper()" in why[18] and "returned" in why[21]
            assert cleared[1]["why"].startswith("line 5 passes it to .load_state_dict()")
        else:   # a subscript or a keyword into load_state_dict is a state dict too; a bare function is not a method
            assert [(f["line"], f["severity"]) for f in py] == [(9, "review"), (10, "review")]


#: a package list written with colons: Lightning's environment report and a list typed into an issue
COLON_LISTS = ("* Lightning:\n        - lightning:         2.0.4\n        - torch:             2.0.0\n"
               "        - torchvision:       0.15.1\n* System:\n        - OS:                Linux\n",
               "CUDA: 12.0.1\ntorch : 2.2.1\ntransformers: 4.38.2\nvllm: 0.3.2\nPython version: 3.10.12\n")


def test_packages_written_with_colons_are_read_in_both_engines(rules):
    """Issue 41 (the two freeze2 pastes the first run missed): "- torchvision: 0.15.1" and "vllm: 0.3.2"
    name installed packages; "OS: Linux", "CUDA: 12.0.1" and "Python version: ..." name none of them."""
    js = ev.run_js({"rules": rules, "env": [{"text": t, "to": "2.9"} for t in COLON_LISTS]})["env"]
    for t, j in zip(COLON_LISTS, js):
        assert ac.check_companions(rules, ac.parse_env(t), "2.9", "en") == j["companions"]
    assert {k: v for k, v in ac.installed_packages(COLON_LISTS[0]).items() if k in ("torchvision", "lightning", "os")} == {
        "torchvision": "0.15.1", "lightning": "2.0.4"}
    got = ac.installed_packages(COLON_LISTS[1])
    assert got.get("vllm") == "0.3.2" and got.get("torch") == "2.2.1" and "python" not in got
    assert {i["package"] for i in js[0]["companions"]["items"]} >= {"torchvision"}
    assert "vllm" in {i["package"] for i in js[1]["companions"]["items"]}


ALLOWLISTED = ("import torch\n"
               "from torch.serialization import safe_globals\n"
               "def a(p):\n"
               "    with safe_globals([MyConfig]):\n"
               "        return torch.load(p)\n"                 # 5: no finding (its function allowlists)
               "def b(p):\n"
               "    m = torch.load(p)\n"                        # 7: breaks (an object; nothing here allowlists)
               "    m.eval()\n"
               "def c(p):\n"
               "    torch.serialization.add_safe_globals([Net])\n"
               "    m = torch.load(p)\n"                        # 11: review (an object: does the list cover it?)
               "    m.eval()\n"
               "def d(p):\n"
               "    return torch.load(p)\n")                    # 14: review (returned; nothing here allowlists)


def test_a_function_that_allowlists_has_handled_its_loads_in_both_engines(rules, tmp_path):
    """Issue 42: a function (or a module's top level) that calls safe_globals or add_safe_globals, the
    documented fix, has handled its loads: one to review is no finding, one read as an object is to
    review, not breaks. Another function of the same file is judged on its own."""
    (tmp_path / "a.py").write_text(ALLOWLISTED, encoding="utf-8")
    cleared = []
    py, _, _ = ac.scan(rules, [str(tmp_path / "a.py")], "2.5", "2.6", "en", "all", cleared)
    js = ev.run_js({"rules": rules, "code": [{"path": "a.py", "text": ALLOWLISTED, "from": "2.5", "to": "2.6"}]})["code"][0]
    assert [(f["line"], f["severity"], f["why"]) for f in py] == [(f["line"], f["severity"], f["why"]) for f in js["findings"]]
    assert [(f["line"], f["severity"]) for f in py] == [(7, "breaks"), (11, "review"), (14, "review")]
    assert "allowlists" in py[1]["why"] and "allowlists" not in py[0]["why"]
    assert [(c["line"], c["why"]) for c in cleared] == [(c["line"], c["why"]) for c in js["cleared"]] and cleared[0]["line"] == 5


def test_a_load_whose_value_is_dropped_is_to_review_in_both_engines(rules, tmp_path):
    """`torch.load(p)` on its own line still unpickles the file: the code shows nothing of what it holds."""
    src = "import torch\ndef f(p):\n    torch.load(p)\n"
    (tmp_path / "b.py").write_text(src, encoding="utf-8")
    py, _, _ = ac.scan(rules, [str(tmp_path / "b.py")], "2.5", "2.6", "en", "all")
    js = ev.run_js({"rules": rules, "code": [{"path": "b.py", "text": src, "from": "2.5", "to": "2.6"}]})["code"][0]
    assert [(f["line"], f["severity"], f["why"]) for f in py] == [(f["line"], f["severity"], f["why"]) for f in js["findings"]]
    assert [(f["line"], f["severity"]) for f in py] == [(3, "review")]
