"""Hostile and odd input, tried as an attacker would (issue 27): code nested past what CPython's
parser takes, very long lines with many findings, and pastes that hold several reports. Both
engines give the same verdict on the same input, the Python one never passes a file it could not
read, and neither raises. Timings are in BENCHMARKS.md (scripts/dev/bench_check.py), not here."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from atlas import atlas_check as ac
from dev import check_eval as ev

CHECKER = Path(ac.__file__)


def nested_ifs(n, body="pass", indent=" "):
    return "import torch\ntorch.qr(a)\n" + "".join(indent * i + "if x:\n" for i in range(n)) + indent * n + body + "\n"


#: inputs both engines must read alike: {name: (source, skipped reason or None, findings)}
SAME = {
    "parens": ("import torch\ntorch.qr(a)\nx = " + "(" * 5000 + "\n", "too many nested parentheses (line 3)", 0),
    "brackets_200": ("import torch\ntorch.qr(a)\nx = " + "[" * 200 + "]" * 200 + "\n", None, 1),
    "brackets_201": ("import torch\ntorch.qr(a)\nx = " + "[" * 201 + "]" * 201 + "\n", "too many nested parentheses (line 3)", 0),
    "ifs_99": (nested_ifs(99, "torch.qr(b)"), None, 2),
    "ifs_100": (nested_ifs(100, "torch.qr(b)"), "too many levels of indentation (line 103)", 0),
    "ifs_3000": (nested_ifs(3000), "too many levels of indentation (line 103)", 0),
    "tabs_120": (nested_ifs(120, indent="\t"), "too many levels of indentation (line 103)", 0),
    "one_long_line": ("import torch\nx = [" + "torch.qr(a), " * 3000 + "]\n", None, 1),   # one finding per line and change
    "dict_line": ("import torch\nd = {" + ", ".join(f'"k{i}": torch.qr' for i in range(3000)) + "}\n", None, 1),
    "clamp_chain": ("import torch\ny = x.float()" + ".clamp(0)" * 300 + "\n", None, 1),
    "flat_ifs": ("import torch\n" + "if x:\n    torch.qr(a)\nelse:\n    pass\n" * 500, None, 500),
    "wide_unicode": ("import torch\n" + "s = '" + "\U0001f600" * 5000 + "'; y = torch.qr(a)\n", None, 1),
}


def py_result(rules, tmp_path, name, src):
    p = tmp_path / (name + ".py")
    p.write_text(src, encoding="utf-8")
    found, skipped, _ = ac.scan(rules, [str(p)], "2.13", "2.15", "en", "all")
    return [(f["line"], f["column"], f["rule"]) for f in found], [s["reason"] for s in skipped]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is needed for the JS engine")
def test_both_engines_read_hostile_code_alike(rules, tmp_path):
    jobs = [{"path": n + ".py", "text": src.encode("utf-8").decode("latin-1"), "from": "2.13", "to": "2.15", "notes": "all"}
            for n, (src, _, _) in SAME.items()]
    js = ev.run_js({"rules": rules, "code": jobs})["code"]
    for (name, (src, reason, count)), j in zip(SAME.items(), js):
        found, skipped = py_result(rules, tmp_path, name, src)
        assert skipped == (["does not parse: " + reason] if reason else []), name
        assert len(found) == count, name
        assert [(f["line"], f["column"], f["rule"]) for f in j["findings"]] == found, name
        assert [s["reason"] for s in j["skipped"]] == skipped, name
    emoji = next(j for (n, _), j in zip(SAME.items(), js) if n == "wide_unicode")["findings"][0]
    assert emoji["column"] == len("s = '") + 5000 + len("'; y = ") + 1   # a character, not a UTF-16 unit, per emoji


#: what CPython's own parser gives up on (its C stack): the Python engine skips the file and the
#: run is incomplete (exit 5); the JS engine reads it. Neither says "nothing found".
PARSER_LIMIT = {
    "attr_chain": "import torch\ntorch.qr(a)\ny = torch" + ".a" * 20000 + "\n",
    "binop_chain": "import torch\ny = " + "+".join(["torch.qr(a)"] * 20000) + "\n",
    "elif_chain": "import torch\nif a:\n    pass\n" + "elif b:\n    torch.qr(a)\n" * 3000,
}


def test_code_past_the_parsers_limit_makes_the_run_incomplete(rules, tmp_path):
    (tmp_path / "rules.json").write_text(json.dumps(rules), encoding="utf-8")
    for name, src in PARSER_LIMIT.items():
        d = tmp_path / name
        d.mkdir()
        (d / "a.py").write_text(src, encoding="utf-8")
        _, skipped = py_result(rules, d, "a", src)
        assert skipped and skipped[0].startswith("does not parse"), name
        p = subprocess.run([sys.executable, str(CHECKER), "--rules", str(tmp_path / "rules.json"), "code", "--from", "2.13",
                            "--format", "json", str(d)], capture_output=True, text=True, timeout=300)
        assert p.returncode == 5 and json.loads(p.stdout)["stats"]["incomplete"] is True, (name, p.stderr)
    if shutil.which("node"):
        js = ev.run_js({"rules": rules, "code": [{"path": n, "text": s, "from": "2.13", "to": "2.15"}
                                                  for n, s in PARSER_LIMIT.items()]})["code"]
        assert all(j["findings"] or j["skipped"] for j in js)


def test_hostile_pastes_split_and_pins(rules, tmp_path):
    """A thousand reports in one paste are a thousand verdicts; a paste whose second report
    blocks exits 2 even when the first is fine; a pin hidden in a long line or a URL is read."""
    many = "".join(f"PyTorch version: 2.{i % 15}.0\nPython version: 3.12.1\n" for i in range(1000))
    assert len(ac.split_pastes(many)) == 1000
    first_ok = ("PyTorch version: 2.4.1\nPython version: 3.12.1\nGPU models and configuration: GPU 0: NVIDIA H100\n"
                "PyTorch version: 2.4.1\nPython version: 3.8.10\nGPU models and configuration: GPU 0: NVIDIA GeForce GTX 780\n")
    (tmp_path / "rules.json").write_text(json.dumps(rules), encoding="utf-8")
    p = subprocess.run([sys.executable, str(CHECKER), "--rules", str(tmp_path / "rules.json"), "env", "--to", "2.5",
                        "--format", "json", "-"], input=first_ok, capture_output=True, text=True, timeout=300)
    out = json.loads(p.stdout)
    blocked = [[i["check"] for i in r["items"] if i["verdict"] == "blocked"] for r in out["pastes"]]
    assert p.returncode == 2 and blocked[0] == [] and set(blocked[1]) >= {"python", "gpu_arch"}
    pins = tmp_path / "proj"
    pins.mkdir()
    (pins / "requirements.txt").write_text("# " + "x" * 100000 + "\n" + "a" * 50000 + "==1\n"
                                           "torch @ https://h/torch-2.4.1%2Bcu121-cp311-cp311-linux_x86_64.whl\n",
                                           encoding="utf-8")
    assert ac.find_pin([str(pins)])[0] == "2.4.1"
