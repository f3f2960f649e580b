"""``atlas_check.py ckpt`` (issue 28, part 2): checkpoints read without unpickling them.

In:  the real checkpoints in tests/fixtures/ckpt/ and the ground truth beside them (manifest.json:
     ``torch.load`` really called by each installed release on each fixture, written by
     scripts/dev/make_checkpoints.py); hostile files made here. Out: pass/fail: the verdict of every
     fixture for every release the manifest recorded, never running a pickle's ``__reduce__``,
     clear errors (exit 5) for damaged and hostile files, the writer-release report, the
     add_safe_globals line, and the allow-lists in the rules against their evidence files.
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from atlas import atlas_check as ac
from atlas.wheel import read_weights_only
from atlas.wheel.evidence import read_wheels

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "ckpt"
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text(encoding="utf-8"))
CHECKER = Path(ac.__file__)


@pytest.fixture(scope="module")
def table(rules):
    return ac.ckpt_releases(rules)


def release_of(wheel, table):
    return next(rel for rel, t in table.items() if t["wheel"] == wheel)


def cli(rules_file, *args, cwd=None):
    return subprocess.run([sys.executable, str(CHECKER), "--rules", str(rules_file), "ckpt", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_every_verdict_matches_what_the_installed_release_did(table):
    """Each fixture x each release that loaded it: weights_only=True and the defaults, as the checker
    predicts them and as torch.load really did; from 2.6, the blockers are torch's own list."""
    wrong, compared = [], 0
    for name, loads in sorted(MANIFEST["loads"].items()):
        info = ac.read_checkpoint(FIXTURES / name)
        for wheel, truth in sorted(loads.items()):
            rel = release_of(wheel, table)
            v = ac.ckpt_verdict(info, rel, table[rel])
            said_wo = v["weights_only"]["loads"] and v["verdict"] != "not-loadable"
            if said_wo != truth["weights_only"]["ok"]:
                wrong.append(f"{name} on {wheel}: weights_only=True: said {said_wo}, torch: {truth['weights_only']}")
            if (v["verdict"] == "loads") != truth["default"]["ok"]:
                wrong.append(f"{name} on {wheel}: defaults: said {v['verdict']}, torch: {truth['default']}")
            if isinstance(truth["unsafe"], list) and set(truth["unsafe"]) != set(v["weights_only"]["blocked_by"]):
                wrong.append(f"{name} on {wheel}: blockers {v['weights_only']['blocked_by']}, torch: {truth['unsafe']}")
            compared += 1
    assert not wrong, "\n".join(wrong)
    kinds = {MANIFEST["fixtures"][n]["kind"] for n in MANIFEST["loads"]}
    assert {"state_dict", "model", "namespace", "numpy", "ordereddict", "legacy", "plain"} <= kinds
    assert compared >= 7 * 3 * 3, compared


def test_the_verdict_check_can_fail(table):
    """The same comparison, with the 2.6 allow-list given to 2.15: a blocked fixture is said to load."""
    info = ac.read_checkpoint(FIXTURES / "namespace-2.15.0.pt")
    lax = dict(table["2.15"], allowed=table["2.15"]["allowed"] | {"argparse.Namespace"})
    assert ac.ckpt_verdict(info, "2.15", lax)["verdict"] == "loads"
    assert MANIFEST["loads"]["namespace-2.15.0.pt"]["2.15.0"]["weights_only"]["ok"] is False


def test_a_reduce_that_would_run_code_is_not_run(rules_file, tmp_path):
    sentinel = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {sentinel}",))

    body = pickle.dumps({"model": Payload()}, protocol=2)
    arch = tmp_path / "evil.pt"
    with zipfile.ZipFile(arch, "w") as z:
        z.writestr("archive/data.pkl", body)
        z.writestr("archive/version", "3\n")
    plain = tmp_path / "evil.pkl"
    plain.write_bytes(pickle.dumps(Payload(), protocol=4))
    r = cli(rules_file, arch, plain, "--format", "json")
    assert not sentinel.exists(), "the checker ran the pickle"
    assert r.returncode == ac.EXIT_BREAKS, r.stderr
    files = json.loads(r.stdout)["files"]
    assert files[0]["verdict"] == "blocked" and files[0]["weights_only"]["blocked_by"] == ["posix.system"]
    assert files[0]["weights_only"]["not_allowable"] == ["posix.system"] and files[0]["fix"] is None
    assert files[1]["globals"] == ["posix.system"]
    # the payload is real: unpickling it does create the file
    subprocess.run([sys.executable, "-c", "import pickle,sys; pickle.load(open(sys.argv[1], 'rb'))", str(plain)], check=True)
    assert sentinel.exists()


def _zip(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def hostile(tmp: Path) -> dict[str, tuple[Path, str]]:
    """{case: (file, words its error must have)}"""
    good = (FIXTURES / "state_dict-2.15.0.pt").read_bytes()
    legacy = (FIXTURES / "legacy-2.0.1.pt").read_bytes()
    cases = {
        "zip_bomb": (_zip(tmp / "bomb.pt", {"archive/data.pkl": b"\x80\x02" + b"N" * 50_000_000 + b"."},
                          zipfile.ZIP_DEFLATED), "zip bomb"),
        "truncated_zip": (tmp / "cut.pt", "truncated"),
        "truncated_legacy": (tmp / "cut-legacy.pt", "truncated"),
        "truncated_pickle": (tmp / "cut.pkl", "truncated"),
        "deep_marks": (tmp / "deep.pkl", "nested deeper"),
        "deep_lists": (tmp / "deep-lists.pkl", "nested deeper"),
        "text": (tmp / "notes.txt", "not a pickle"),
        "empty": (tmp / "empty.pt", "empty"),
        "zip_without_pickle": (_zip(tmp / "other.zip", {"a/readme.txt": b"hi"}), "without <folder>/data.pkl"),
        "bad_memo": (tmp / "memo.pkl", "never stored"),
    }
    (tmp / "cut.pt").write_bytes(good[: len(good) // 2])
    (tmp / "cut-legacy.pt").write_bytes(legacy[:60])
    (tmp / "cut.pkl").write_bytes(pickle.dumps({"a": [1, 2, 3]})[:-6])
    (tmp / "deep.pkl").write_bytes(b"\x80\x02" + b"(" * 5000 + b"t" * 5000 + b".")
    (tmp / "deep-lists.pkl").write_bytes(b"\x80\x02" + b"]" * 1_000_001 + b".")
    (tmp / "notes.txt").write_text("these are not weights\n")
    (tmp / "empty.pt").write_bytes(b"")
    (tmp / "memo.pkl").write_bytes(b"\x80\x02h\x07.")
    return cases


def test_hostile_and_damaged_files_give_a_clear_error_and_exit_5(rules_file, tmp_path):
    for case, (path, words) in hostile(tmp_path).items():
        r = cli(rules_file, path)
        assert r.returncode == ac.EXIT_INCOMPLETE, (case, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr + r.stdout, (case, r.stderr)
        line = next(x for x in r.stdout.splitlines() if x.startswith(str(path)))
        assert "unreadable" in line and words in line, (case, line)


def test_a_huge_pickle_in_a_zip_is_refused_before_it_is_read(rules, tmp_path, monkeypatch):
    monkeypatch.setattr(ac, "CKPT_MAX_PICKLE", 1000)
    path = _zip(tmp_path / "big.pt", {"archive/data.pkl": b"\x80\x02" + b"N0" * 1000 + b"N."})
    with pytest.raises(ac.CkptError) as exc:
        ac.read_checkpoint(path)
    assert "more than" in ac.say(rules, "en", exc.value.args[0])


def test_the_writer_release_is_the_records_range_or_not_recorded(table, rules):
    order = rules["releases"]
    for name, fx in MANIFEST["fixtures"].items():
        info = ac.read_checkpoint(FIXTURES / name)
        got = ac.written_by(info, table, order)
        if info["format"] == "zip":
            assert release_of(fx["written_by"], table) in got["releases"], (name, got)
            # a contiguous run of releases, never a guess at one
            idx = [order.index(r) for r in got["releases"]]
            assert idx == list(range(idx[0], idx[-1] + 1)), (name, got)
        else:
            assert got["releases"] == [] and ac.say(rules, "en", got["text"]).startswith("not recorded"), (name, got)
    old = ac.written_by(ac.read_checkpoint(FIXTURES / "state_dict-2.0.1.pt"), table, order)["releases"]
    new = ac.written_by(ac.read_checkpoint(FIXTURES / "state_dict-2.15.0.pt"), table, order)["releases"]
    assert not set(old) & set(new)
    unknown = dict(ac.read_checkpoint(FIXTURES / "state_dict-2.15.0.pt"), records={"version": "9"})
    assert ac.say(rules, "en", ac.written_by(unknown, table, order)["text"]).startswith("not recorded")


def test_the_safe_globals_line_names_exactly_the_blockers(table):
    info = ac.read_checkpoint(FIXTURES / "namespace-2.15.0.pt")
    v = ac.ckpt_verdict(info, "2.15", table["2.15"])
    assert v["weights_only"]["blocked_by"] == ["argparse.Namespace"]
    assert v["fix"].splitlines() == ["import torch", "from argparse import Namespace",
                                     "torch.serialization.add_safe_globals([Namespace])"]
    assert "with torch.serialization.safe_globals([Namespace]):" in v["context"]
    for name in ("model-2.15.0.pt", "numpy-2.0.1.pt", "numpy-2.15.0.pt"):
        v = ac.ckpt_verdict(ac.read_checkpoint(FIXTURES / name), "2.15", table["2.15"])
        listed = v["fix"].splitlines()[-1].split("([", 1)[1].rstrip("])").split(", ")
        assert listed == [b.rsplit(".", 1)[1] for b in v["weights_only"]["blocked_by"]], (name, v["fix"])
    # a release without add_safe_globals gets no such line
    old = [r for r, t in table.items() if not t["add_safe_globals"]]
    assert old and ac.ckpt_verdict(info, old[-1], table[old[-1]])["fix"] is None


def test_cli_text_json_and_exit_codes(rules_file):
    ok = cli(rules_file, FIXTURES / "state_dict-2.0.1.pt", FIXTURES / "ordereddict-2.15.0.pt")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "loads with the defaults of" in ok.stdout
    blocked = cli(rules_file, FIXTURES / "namespace-2.6.0.pt")
    assert blocked.returncode == ac.EXIT_BREAKS and "blocked by: argparse.Namespace" in blocked.stdout
    assert "add_safe_globals([Namespace])" in blocked.stdout
    before = cli(rules_file, FIXTURES / "namespace-2.6.0.pt", "--to", "2.0", "--format", "json")
    assert before.returncode == 0
    doc = json.loads(before.stdout)["files"][0]
    assert doc["verdict"] == "loads" and doc["default_weights_only"] is False and not doc["weights_only"]["loads"]
    assert cli(rules_file, FIXTURES / "nope.pt").returncode == ac.EXIT_USAGE
    assert cli(rules_file, FIXTURES / "plain-2.6.0.pkl").returncode == ac.EXIT_BREAKS


def test_the_allow_lists_in_the_rules_are_the_evidence_of_every_release(table):
    wheels = read_wheels().versions
    runtimes = sorted(p.name[len("runtime-"):-len(".txt")] for p in (ROOT / "data" / "evidence").glob("runtime-*.txt"))
    assert sorted(wheels) == runtimes
    assert sorted(t["wheel"] for t in table.values()) == sorted(wheels)
    for rel, t in table.items():
        w = read_weights_only(t["wheel"])
        assert t["allowed"] == set(w.allowed), rel
        assert t["default_weights_only"] == w.flag("default-weights-only")
    assert [r for r, t in table.items() if t["default_weights_only"]][0] == "2.6"
    assert [r for r, t in table.items() if t["add_safe_globals"]][0] == "2.4"


def test_a_protocol_4_pickle_is_blocked_by_its_opcodes_not_its_globals(table, tmp_path):
    """torch.save(..., pickle_protocol=4) on 2.6.0 fails torch.load(weights_only=True) (tried by hand
    in that release: "Weights only load failed"): its unpickler reads no FRAME or STACK_GLOBAL."""
    import collections

    body = pickle.dumps(collections.OrderedDict(a=1), protocol=4)
    info = ac.read_checkpoint(_zip(tmp_path / "p4.pt", {"archive/data.pkl": body, "archive/version": b"3\n"}))
    assert info["globals"] == ["collections.OrderedDict"]
    v = ac.ckpt_verdict(info, "2.6", table["2.6"])
    assert v["verdict"] == "blocked" and not v["weights_only"]["blocked_by"]
    assert {"FRAME", "STACK_GLOBAL"} <= set(v["weights_only"]["opcodes"]) and v["fix"] is None
