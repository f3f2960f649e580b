"""The checker where teams already run it (issue 28): the pre-commit hook (`pre-commit try-repo`
on a real git repository), the GitHub Action's step (run as the runner runs it, with its
inputs as variables), and the rules file both read, which must match the data."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from atlas import distribution

ROOT = Path(__file__).resolve().parents[1]


def test_the_rules_file_the_hook_and_the_action_read_matches_the_data(rules, tmp_path):
    assert distribution.stale(rules, ROOT) is None, distribution.stale(rules, ROOT)
    changed = json.loads(json.dumps(rules))
    changed["rules"] = changed["rules"][1:]
    assert "atlas checker" in distribution.stale(changed, ROOT)   # the test can fail
    assert "missing" in distribution.stale(rules, tmp_path)


def git(cwd, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)


def test_pre_commit_runs_the_hook_from_this_repository(tmp_path):
    exe = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    assert exe, "pin pre-commit in requirements-test.txt"
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["atlas-check"] and hooks[0]["language"] == "script"
    assert os.access(ROOT / hooks[0]["entry"].split()[0], os.X_OK)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text("import torch\nQ, R = torch.qr(A)\n", encoding="utf-8")
    (proj / "clean.py").write_text("import torch\nQ, R = torch.linalg.qr(A)\n", encoding="utf-8")
    git(proj, "init", "-q")
    git(proj, "add", ".")
    git(proj, "commit", "-qm", "x")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    run = subprocess.run([exe, "try-repo", str(ROOT), "atlas-check", "--verbose", "--files", "model.py"], cwd=proj,
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "model.py:2:" in run.stdout and "214-remove-qr" in run.stdout
    ok = subprocess.run([exe, "try-repo", str(ROOT), "atlas-check", "--files", "clean.py"], cwd=proj, env=env,
                        capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0 and "Passed" in ok.stdout, ok.stdout + ok.stderr


def test_the_action_step_writes_sarif_and_annotations_and_fails_on_breaks(tmp_path):
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    step = action["runs"]["steps"][0]
    assert "${{" not in step["run"]   # inputs reach the script as variables, never pasted into the shell line
    upload = action["runs"]["steps"][1]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@") and "upload-sarif" in upload["if"]
    (tmp_path / "src dir").mkdir()
    (tmp_path / "src dir" / "m.py").write_text("import torch\nQ, R = torch.qr(A)\nx = y.clamp(0, 1)\n"
                                               "y = torch.ones(2, requires_grad=True)\n", encoding="utf-8")   # the clamp note's condition
    env = {**os.environ, "GITHUB_ACTION_PATH": str(ROOT)}
    for name, spec in action["inputs"].items():
        env.setdefault("ATLAS_" + name.upper().replace("-", "_"), spec["default"])
    env.update({"ATLAS_PATHS": "'src dir'", "ATLAS_FROM": "2.13", "ATLAS_TO": "2.15", "ATLAS_SARIF": "out.sarif"})
    run = subprocess.run(["bash", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, run.stderr
    lines = run.stdout.splitlines()
    assert any(ln.startswith("::error file=src dir/m.py,line=2,col=") and "214-remove-qr" in ln for ln in lines), lines
    assert any(ln.startswith("::warning file=src dir/m.py,line=3,") for ln in lines), lines
    log = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    assert {r["ruleId"].split("/")[0] for r in log["runs"][0]["results"]} >= {"214-remove-qr", "214-clamp-grad"}
    env["ATLAS_FAIL_ON"] = "any"
    env["ATLAS_TO"] = "2.13"   # nothing between 2.13 and 2.13: passes
    assert subprocess.run(["bash", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300).returncode == 0


def test_pip_install_gives_the_atlas_check_command_without_the_site_dependencies(tmp_path):
    """The wheel of checker/ holds the engine and the rules and needs nothing but Python: a fresh
    virtualenv gets one package, whose `atlas-check` finds what the engine finds."""
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(dist),
                    str(ROOT / "checker")], check=True, capture_output=True, text=True, timeout=600)
    wheel = next(dist.glob("atlas_check-*.whl"))
    assert not (ROOT / "checker" / "atlascheck" / "engine.py").exists()   # the build's copies are gone: a clone runs the live engine
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=600)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "--quiet", "--no-index", str(wheel)], check=True, capture_output=True, timeout=600)
    names = {p["name"].lower() for p in json.loads(subprocess.run([*pip, "list", "--format", "json"], check=True,
                                                                   capture_output=True, text=True).stdout)}
    assert "atlas-check" in names and names <= {"atlas-check", "pip", "setuptools"}, names   # no site dependency
    (tmp_path / "m.py").write_text("import torch\nQ, R = torch.qr(A)\n", encoding="utf-8")
    run = subprocess.run([str(venv / "bin" / "atlas-check"), "code", "--from", "2.13", "--format", "json",
                          str(tmp_path / "m.py")], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert [f["change"] for f in json.loads(run.stdout)["findings"]] == ["214-remove-qr"]
