"""Proofs: a curated change executed in the real releases (issue 39).

The runner (``wheel/prove_runtime.py``) is run here against a fake ``torch`` package, so that what
it records (an error, a warning printed or hidden by Python's default filters, a printed line) is
what Python does, not what the test says. The judge (``wheel/proofs.py``) is given locks in which a
false symptom, a wrong release, a wrong visibility or a fix that fails in its stated range is
planted; each must stop the build with the file, the change and the field.
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from atlas.schema import Change, Proof
from atlas.wheel.proofs import digest, judge, parse_lock, snippets
from atlas.wheel.prove_runtime import __file__ as RUNNER

VERSIONS = ["1.0.0", "1.1.0", "1.2.0", "1.3.0"]

# A fake torch per release: 1.1 starts to warn (FutureWarning, shown by default), 1.2 raises, and a
# helper's DeprecationWarning (no stacklevel: attributed to torch) is hidden by the default filters.
FAKE = {
    "1.0.0": "def load(x, flag=None):\n    return x\n",
    "1.1.0": "import warnings\ndef load(x, flag=None):\n    if flag is None:\n"
             "        warnings.warn('flag will default to True', FutureWarning, stacklevel=2)\n    return x\n",
    "1.2.0": "def load(x, flag=None):\n    if flag is None:\n        raise TypeError('flag is required now')\n    return x\n",
    "1.3.0": "import warnings\ndef load(x, flag=None):\n    if flag is None:\n        raise TypeError('flag is required now')\n"
             "    warnings.warn('load is deprecated', DeprecationWarning)\n    return x\n",
}
CODE = "import torch\nprint('loaded', torch.load(3))\n"
AFTER = "import torch\ntorch.load(3, flag=True)\n"
ROLLBACK = "import torch\ntorch.load(3, flag=False)\n"
SNIPPETS = {"code": CODE, "after": AFTER, "rollback.0": ROLLBACK}


def _run(tmp_path: Path, version: str) -> dict:
    root = tmp_path / version
    (root / "torch").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text(FAKE[version] + f"__version__ = '{version}'\n", encoding="utf-8")
    runner = root / "runner" / "prove_runtime.py"      # alone in its folder, as atlas prove copies it
    runner.parent.mkdir()
    runner.write_text(Path(RUNNER).read_text(encoding="utf-8"), encoding="utf-8")
    todo = root / "todo.json"
    todo.write_text(json.dumps([{"key": digest(code), "code": code} for code in SNIPPETS.values()]))
    out = root / "out.json"
    subprocess.run([sys.executable, str(runner), str(todo), str(out)], check=True, cwd=root,
                   env={"PYTHONPATH": str(root), "PYTHONHASHSEED": "0"})
    data = json.loads(out.read_text(encoding="utf-8"))
    for key, o in data["outcomes"].items():
        o["for"] = [f"11-x/{part}" for part, code in SNIPPETS.items() if digest(code) == key]
    return parse_lock(json.dumps(data))


@pytest.fixture(scope="module")
def locks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("proofs")
    return {v: _run(tmp, v) for v in VERSIONS}


def test_the_runner_records_what_python_does(locks):
    code = {v: locks[v]["outcomes"][digest(CODE)] for v in VERSIONS}
    assert code["1.0.0"] == {"error": None, "warnings": [], "stderr": [], "stdout": ["loaded 3"], "for": ["11-x/code"]}
    assert code["1.1.0"]["warnings"] == [["FutureWarning", "flag will default to True", True]]
    assert code["1.1.0"]["stderr"] == [] and code["1.1.0"]["stdout"] == ["loaded 3"]   # the warning went to the recorder
    assert code["1.2.0"]["error"] == "TypeError: flag is required now"
    after = locks["1.3.0"]["outcomes"][digest(AFTER)]
    # no stacklevel: attributed to torch, not __main__, so the default filters hide it
    assert after["warnings"] == [["DeprecationWarning", "load is deprecated", False]] and after["error"] is None


def _proof(cid: str = "11-x", removed_in: str | None = None, fix: dict | None = None, **kw) -> Change:
    """A change whose proof is ``kw`` over a true base (the code raises from 1.2, the fix is clean from 1.0)."""
    base = {"code": CODE, "symptom": {"error": "TypeError", "message": "flag is required"}, "after": AFTER, "fix_from": "1.0"}
    data = {"id": cid, "type": "behavior", "area": "frontend", "title": "A change", "summary": "What changed.",
            "sources": [{"source": "s", "locator": "ab"}], "proof": {k: v for k, v in {**base, **kw}.items() if v is not None}}
    if removed_in:
        data["rollback"] = {"switches": ["flag=False"], "note": "The old way.", "removed_in": removed_in}
    if fix:
        data["fix"] = {"steps": ["Do it."], **fix}
    return Change(**data)


def test_a_true_proof_passes_and_says_what_each_release_did(locks):
    v = judge(_proof(fix_from="1.0"), "1.2", VERSIONS[:3], locks)
    assert v.ok, v.problems
    assert v.before.warnings == (("FutureWarning", "flag will default to True", True),)
    assert v.now.error == "TypeError: flag is required now" and v.fix_range == ("1.0", "1.2")
    w = judge(_proof(symptom={"warning": "FutureWarning", "message": "default to True", "shown": True},
                             fix_from="1.0"), "1.1", VERSIONS[:3], locks)
    assert w.ok and w.shown is True and w.first == "1.1.0"


def test_terminal_codes_in_a_message_are_not_shown(locks):
    """2.6.0's weights_only error bolds a phrase with terminal codes: the page and the symptom
    match read the text without them; the lock keeps what the release printed."""
    planted = copy.deepcopy(locks)
    planted["1.2.0"]["outcomes"][digest(CODE)]["error"] = "TypeError: flag is \x1b[1mrequired\x1b[0m now"
    v = judge(_proof(), "1.2", VERSIONS[:3], planted)
    assert v.ok and v.now.error == "TypeError: flag is required now"


def test_a_planted_false_symptom_stops_it(locks):
    v = judge(_proof(symptom={"error": "TypeError", "message": "flag is missing"}), "1.2", VERSIONS[:3], locks)
    assert not v.ok and v.problems[0][0] == "proof.symptom" and "does not show it" in v.problems[0][1]
    v = judge(_proof(symptom={"error": "ValueError", "message": "flag is required"}), "1.2", VERSIONS[:3], locks)
    assert not v.ok


def test_a_wrong_release_stops_it(locks):
    later = judge(_proof(), "1.3", VERSIONS, locks)          # 1.2 already raises
    assert not later.ok and "torch 1.2.0 already shows it, before the change's release 1.3" in later.problems[0][1]
    earlier = judge(_proof(), "1.1", VERSIONS, locks)        # 1.1 only warns
    assert not earlier.ok and "torch 1.1.0 does not show it" in earlier.problems[0][1]
    assert "torch 1.2.0 is the first after it that does" in earlier.problems[0][1]


def test_a_wrong_visibility_stops_it(locks):
    shown = _proof(symptom={"warning": "FutureWarning", "message": "default to True", "shown": False})
    v = judge(shown, "1.1", VERSIONS[:3], locks)
    assert not v.ok and v.problems == [("proof.symptom.shown", "torch 1.1.0: Python's default filters print this "
                                        "FutureWarning when the code runs in an imported module")]


def test_a_fix_that_fails_in_its_stated_range_stops_it(locks):
    v = judge(_proof(), "1.2", VERSIONS, locks)              # 1.3 warns on the fixed call
    assert not v.ok and ("proof.fix_from", "the fix does not run clean in torch 1.3.0: it warns DeprecationWarning: "
                         "load is deprecated (hidden by default)") in v.problems
    narrow = judge(_proof(fix_from="1.1"), "1.2", VERSIONS[:3], locks)   # it is clean from 1.0 on
    assert not narrow.ok and "already runs clean from torch 1.0.0" in narrow.problems[0][1]


def test_a_release_where_the_fix_warns_is_named_or_it_stops_the_build(locks):
    """1.3 deprecates the fixed call with a hidden DeprecationWarning: the range holds only if
    fix_warns names 1.3, and naming a release where the fix is clean is refused too."""
    v = judge(_proof(fix_warns=["1.3"]), "1.2", VERSIONS, locks)
    assert v.ok and v.fix_range == ("1.0", "1.3")
    assert v.fix_warnings == [("1.3", "1.3", ("DeprecationWarning", "load is deprecated", False))]
    wrong = judge(_proof(fix_warns=["1.1", "1.3"]), "1.2", VERSIONS, locks)
    assert ("proof.fix_warns", "the fix runs clean in torch 1.1.0: it is no exception") in wrong.problems


def test_an_edited_snippet_or_a_missing_release_needs_a_new_run(locks):
    edited = judge(_proof(code=CODE + "# edited\n"), "1.2", VERSIONS[:3], locks)
    assert not edited.ok and edited.problems[0] == ("proof.code", "new or edited: the proof locks of torch 1.0.0, "
                                                    "1.1.0, 1.2.0 have not run this code; run: atlas prove 1.0.0 1.1.0 1.2.0")
    gone = {k: v for k, v in locks.items() if k != "1.1.0"}
    missing = judge(_proof(), "1.2", VERSIONS[:3], gone)
    assert not missing.ok and "the proof locks of torch 1.1.0 have not run" in missing.problems[0][1]
    moved = judge(_proof(cid="21-moved"), "1.2", VERSIONS[:3], locks)   # a renamed change keeps its outcomes
    assert moved.ok, moved.problems


def test_a_rollback_switch_must_work_until_the_release_that_removes_it(locks):
    run = [{"switch": "flag=False", "code": ROLLBACK}]
    ok = judge(_proof(rollback=run), "1.2", VERSIONS[:3], locks)
    assert ok.ok and ok.rollbacks == [("flag=False", "1.2", "1.2")]
    kept = judge(_proof(rollback=run, removed_in="1.3"), "1.2", VERSIONS, locks)
    assert ("proof.rollback.0", "flag=False still works in torch 1.3.0, the release said to remove it") in kept.problems
    planted = copy.deepcopy(locks)      # a switch that changes nothing: the run shows the symptom again
    planted["1.2.0"]["outcomes"][digest(ROLLBACK)].update(error="TypeError: flag is required now")
    v = judge(_proof(rollback=run), "1.2", VERSIONS[:3], planted)
    assert not v.ok and v.problems[-1][0] == "proof.rollback.0" and "does not restore" in v.problems[-1][1]


def test_the_schema_refuses_a_proof_without_its_parts():
    for bad in ({"code": CODE}, {"after": AFTER}, {"cannot_run": "gpu"}, {"symptom": {"error": "E", "message": "m"}, "cannot_run": "gpu", "artifact": "wheel-tags"},
                {"code": CODE, "symptom": {"warning": "UserWarning", "message": "x"}},
                {"code": CODE, "symptom": {"error": "TypeError", "message": "x", "shown": True}}):
        with pytest.raises(ValueError):
            Proof(**bad)
    assert [s["part"] for s in snippets(_proof())] == ["code", "after"]


def test_a_proof_runs_the_pages_own_code_where_it_can(locks):
    """No code of its own: setup + the page's fix.before / fix.after run, so the page shows what ran."""
    page = _proof(code=None, after=None, setup="import torch", fix={"before": "print('loaded', torch.load(3))\n",
                                                                    "after": "torch.load(3, flag=True)\n"})
    assert [s["code"] for s in snippets(page)] == [CODE, AFTER]
    assert judge(page, "1.2", VERSIONS[:3], locks).ok
    with pytest.raises(ValueError, match="the page's fix.before"):
        _proof(code=None, fix=None)
    with pytest.raises(ValueError, match="the page's fix.after"):
        _proof(after=None, fix={"before": "x = 1", "after": "pip install x", "language": "bash"})


def test_a_contradicted_proof_stops_the_build_naming_file_change_and_field(data_copy):
    """The real data and locks: move a proven change's symptom, and the build names it."""
    from atlas.load import load
    from atlas.problems import DataError
    from atlas.validate import validate

    fb = validate(load(data_copy))
    proven = [(c.id, r.version) for r in fb.releases for c in r.changes if c.proof and c.proof.symptom]
    assert proven and all(fb.proofs[cid].ok for cid, _ in proven)
    cid, version = proven[0]
    f = data_copy / "releases" / f"{version}.yaml"
    c = next(c for r in fb.releases for c in r.changes if c.id == cid)
    text = f.read_text(encoding="utf-8")
    quoted = f'message: "{c.proof.symptom.message}"'      # the symptom's own line, not a value that shares its words
    assert text.count(quoted) == 1, quoted
    f.write_text(text.replace(quoted, f'message: "{c.proof.symptom.message} (planted)"'), encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any(p.startswith(f"data/releases/{version}.yaml: {cid}: proof.symptom: torch ") for p in info.value.problems)


def test_every_curated_change_of_the_official_releases_has_a_proof(factbase):
    """Each curated change of 2.2-2.12 is run, or says why it cannot be and which artifact proves it."""
    for r in factbase.releases:
        if (2, 2) <= tuple(map(int, r.version.split("."))) <= (2, 12):
            assert [c.id for c in r.changes if c.proof is None] == [], r.version


def test_a_cpp_log_line_keeps_no_time_stamp():
    """c10's warnings printed to stderr carry the time of the run ("[W1207 14:18:45.436716139 ...]"):
    the lock keeps them without it, or CI's re-run would differ from the lock every time."""
    from atlas.wheel.prove_runtime import _mask

    line = "[rank0]:[W1207 14:18:45.436716139 init.cpp:3194] Warning: Work::result API is being deprecated"
    assert _mask(line, []) == "[rank0]:[W… init.cpp:3194] Warning: Work::result API is being deprecated"
    assert _mask(line, []) == _mask(line.replace("14:18:45.436716139", "09:01:02.000000001"), [])
    py = "W1207 14:38:02.165000 7064 torch/onnx/_flags.py:38] Experimental flag TORCH_ONNX_ENABLE_DRAFT_EXPORT is enabled."
    assert _mask(py, []) == "W… torch/onnx/_flags.py:38] Experimental flag TORCH_ONNX_ENABLE_DRAFT_EXPORT is enabled."
    assert _mask("2026-12-07 14:08:28,617 _dedup_tensors.py:44 INFO p:MainProcess", []) == "… _dedup_tensors.py:44 INFO p:MainProcess"


def _beside(locks: dict, package: str, absent: tuple = ()) -> dict:
    """The fake locks with every snippet also run beside ``package`` (its release per torch named
    in the outcome), and not run where ``absent`` says no release of it is built."""
    out = copy.deepcopy(locks)
    for v, lock in out.items():
        for code in SNIPPETS.values():
            o = dict(lock["outcomes"][digest(code)])
            if v in absent:
                o = {"error": None, "warnings": [], "stdout": [], "stderr": [], "absent": package, "for": o["for"]}
            else:
                o["package"] = f"{package}=={v}"
            lock["outcomes"][digest(f"# beside {package}\n{code}")] = o
    return out


def test_a_proof_beside_a_package_is_judged_where_the_package_exists(locks):
    """Issue 41: a torchaudio change runs beside the torchaudio built for each torch; a torch release
    with no such release is left out (here 1.3.0, whose fix would warn), and the page names it."""
    planted = _beside(locks, "fakeaudio", absent=("1.3.0",))
    v = judge(_proof(package="fakeaudio"), "1.2", VERSIONS, planted)
    assert v.ok, v.problems
    assert v.package_absent == ["1.3.0"] and v.fix_range == ("1.0", "1.2")
    assert v.now.package == "fakeaudio==1.2.0" and v.package_runs["1.0.0"] == "fakeaudio==1.0.0"
    everywhere = judge(_proof(package="fakeaudio"), "1.2", VERSIONS, _beside(locks, "fakeaudio"))
    assert not everywhere.ok and "torch 1.3.0" in everywhere.problems[0][1]   # 1.3's fix warns: judged there
    gone = judge(_proof(package="fakeaudio"), "1.2", VERSIONS, _beside(locks, "fakeaudio", absent=("1.2.0",)))
    assert not gone.ok and gone.problems[0][0] == "proof.package"


def test_the_same_code_beside_a_package_is_another_outcome(locks):
    """The package is part of a snippet's hash: the locks of the code run alone do not prove it."""
    shas = {s["sha"] for s in snippets(_proof(package="fakeaudio"))}
    assert not shas & {digest(c) for c in SNIPPETS.values()}
    v = judge(_proof(package="fakeaudio"), "1.2", VERSIONS[:3], locks)
    assert not v.ok and "have not run this code" in v.problems[0][1]
    with pytest.raises(ValueError, match="package"):
        Proof(cannot_run="gpu", artifact="release-notes", package="fakeaudio")


def test_an_error_said_to_be_printed_by_the_run_must_be_in_the_proof(data_copy):
    """An ``errors`` entry with origin ``run`` is checked against what the proof's code printed in
    the change's release; a planted message stops the build, and so does an unknown package."""
    from atlas.load import load
    from atlas.problems import DataError
    from atlas.validate import validate

    fb = validate(load(data_copy))
    run = [(c, r.version) for r in fb.releases for c in r.changes for e in c.errors if e.origin == "run"]
    assert run, "no error of origin run: the test reads nothing"
    c, version = run[0]
    f = data_copy / "releases" / f"{version}.yaml"
    text = f.read_text(encoding="utf-8")
    msg = next(e.message for e in c.errors if e.origin == "run")
    planted = text.replace(f'message: "{msg}", origin: run', f'message: "{msg} (planted)", origin: run', 1)
    assert planted != text
    f.write_text(planted, encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any(p.startswith(f"data/releases/{version}.yaml: {c.id}: errors.") and "does not print it" in p
               for p in info.value.problems), info.value.problems
    proof = f"    proof:\n      package: {c.proof.package}\n"
    assert proof in text
    f.write_text(text.replace(proof, "    proof:\n      package: nosuchpkg\n", 1), encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any(f"{c.id}: proof.package: 'nosuchpkg' is not a package" in p for p in info.value.problems)


def _fake_wheel(folder: Path, name: str, version: str, body: str) -> None:
    import zipfile
    folder.mkdir(exist_ok=True)
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as z:
        z.writestr(f"{name}/__init__.py", body)
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")


def test_prove_runs_the_snippets_beside_a_package_after_the_others(tmp_path, monkeypatch):
    """``atlas prove``'s runner in one venv: the snippets of torch alone, then those of a proof with
    a package, with that package installed (from a local index here); where the package has no
    release for the torch, their outcome says so and nothing runs."""
    from atlas.wheel import runtime_lock

    wheels = tmp_path / "wheels"
    _fake_wheel(wheels, "torch", "1.2.0", "__version__ = '1.2.0'\n")
    _fake_wheel(wheels, "fakeaudio", "1.2.0", "def info(p):\n    raise ImportError('fakecodec is required')\n")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setattr(runtime_lock, "PROOF_EXTRAS", [])
    runtime_lock._pip(py, "torch==1.2.0")
    alone = {"id": "12-a", "part": "code", "code": "import torch\nprint(torch.__version__)\n", "package": None}
    beside = {"id": "12-b", "part": "code", "code": "import fakeaudio\nfakeaudio.info('x.wav')\n", "package": "fakeaudio"}
    snips = [{**s, "sha": digest(s["code"] if s["package"] is None else f"# beside {s['package']}\n{s['code']}")}
             for s in (alone, beside)]
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / "out.json"
    runtime_lock.prove(py, work, snips, out, {"fakeaudio": "1.2.0"})
    got = parse_lock(out.read_text(encoding="utf-8"))["outcomes"]
    assert got[snips[0]["sha"]]["stdout"] == ["1.2.0"] and "package" not in got[snips[0]["sha"]]
    assert got[snips[1]["sha"]]["error"] == "ImportError: fakecodec is required"
    assert got[snips[1]["sha"]]["package"] == "fakeaudio==1.2.0"
    (tmp_path / "work2").mkdir()
    runtime_lock.prove(py, tmp_path / "work2", snips[1:], out, {"fakeaudio": None})
    assert parse_lock(out.read_text(encoding="utf-8"))["outcomes"][snips[1]["sha"]]["absent"] == "fakeaudio"
