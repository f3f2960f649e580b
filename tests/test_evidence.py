"""Evidence probes: the evaluator on a wheel made here, and the lock file against the probes."""
from __future__ import annotations

import zipfile

import pytest

from atlas.evidence import Wheel, evaluate, lock_problems, probe_id, read_lock, status_of
from atlas.load import DataError, load
from atlas.schema import Probe
from atlas.validate import validate


@pytest.fixture
def fake_wheel(tmp_path):
    path = tmp_path / "torch-9.9.0-cp311-cp311-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("torch-9.9.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 9.9.0\n"
                   "Requires-Python: >=3.11\nRequires-Dist: cuda-toolkit[cudart]==13.2.2\nRequires-Dist: filelock\n")
        z.writestr("torch/distributed/config.py", "pipeline_per_edge_p2p: bool = False\n")
        z.writestr("torch/_transport/__init__.py", "")
        z.writestr("torch-9.9.0.dist-info/entry_points.txt",
                   "[console_scripts]\ntorchrun = torch.distributed.run:main\n"
                   "[torch.distributed.backends]\nnccl-lazy = torch._transport:_register\n")
    return Wheel(path)


@pytest.mark.parametrize("probe,expected", [
    ({"file": "torch/distributed/config.py", "contains": "pipeline_per_edge_p2p"}, True),
    ({"file": "torch/distributed/config.py", "contains": "pipeline_per_direction_p2p"}, False),
    ({"file": "torch/_transport/__init__.py"}, True),
    ({"file": "torch/*/config.py", "contains": "edge"}, True),
    ({"file": "torch/missing.py"}, False),
    ({"metadata": "Requires-Python", "contains": ">=3.11"}, True),
    ({"metadata": "Requires-Dist", "contains": "==13.2.2"}, True),
    ({"metadata": "Requires-Dist", "contains": "==13.0.3"}, False),
    ({"entry_point": "torch.distributed.backends:nccl-lazy"}, True),      # module torch/_transport/ exists
    ({"entry_point": "console_scripts:torchrun"}, False),                  # torch/distributed/run.py is missing
    ({"entry_point": "console_scripts:nothing"}, False),
])
def test_evaluate_reads_the_zip(fake_wheel, probe, expected):
    p = Probe.model_validate({**probe, "expect": {"9.9.0": True}})
    assert evaluate(p, fake_wheel) is expected


def test_status_compares_every_version():
    p = Probe.model_validate({"file": "x", "expect": {"2.14.1": False, "2.15.0": True}})
    assert status_of(p, {"2.14.1": False, "2.15.0": True}) == "confirmed"
    assert status_of(p, {"2.14.1": True, "2.15.0": True}) == "contradicted"   # existed earlier


def test_lock_file_matches_the_probes(factbase):
    problems = lock_problems(factbase.changes(), read_lock())
    assert not problems, "\n".join(problems) + "\nrun: make evidence"


def test_lock_statuses_agree_with_the_observations(factbase):
    lock = read_lock()
    for c in factbase.changes():
        for i, p in enumerate(c.probes):
            entry = lock["probes"][probe_id(c.id, i)]
            assert entry["status"] == status_of(p, entry["observed"]), probe_id(c.id, i)
    assert set(lock["wheels"]) >= {v for c in factbase.changes() for p in c.probes for v in p.expect}
    for w in lock["wheels"].values():
        assert len(w["sha256"]) == 64 and w["size"] > 100_000_000


def test_a_changed_probe_makes_the_lock_stale(data_copy):
    rel = data_copy / "releases" / "2.15.yaml"
    rel.write_text(rel.read_text(encoding="utf-8").replace('contains: "max_outstanding_sends"', 'contains: "max_outstanding"'),
                   encoding="utf-8")
    fb = validate(load(data_copy))
    problems = lock_problems(fb.changes(), read_lock())
    assert problems == ["215-pipeline-memory.probe.0: the probe changed since the lock file was written"]


def test_a_probe_must_name_one_target(data_copy):
    rel = data_copy / "releases" / "2.15.yaml"
    rel.write_text(rel.read_text(encoding="utf-8").replace(
        "      - file: torch/distributed/_watchdog.py\n", "      - file: torch/distributed/_watchdog.py\n        metadata: Version\n"),
        encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any(p.startswith("data/releases/2.15.yaml: 215-python-watchdog: probes.0:") and "exactly one" in p
               for p in info.value.problems), info.value.problems


def test_known_contradictions_are_recorded(factbase):
    """The findings this site reports: a wrong message wording, a C++ standard and a decorator that predate their claims."""
    lock = read_lock()["probes"]
    assert lock["215-cxx20.probe.0"]["observed"] == {"2.14.1": True, "2.15.0": True}
    assert lock["214-dynamic-spec.probe.0"]["observed"] == {"2.13.0": True, "2.14.1": True}
    assert lock["215-import-once.probe.1"]["status"] == "contradicted"
    assert lock["215-import-once.probe.0"]["status"] == "confirmed"
    assert lock["215-nccl-lazy.probe.1"]["observed"] == {"2.14.1": True, "2.15.0": True}   # registered before 2.15
    assert lock["214-sm107-rubin.probe.0"]["status"] == "contradicted"   # no sm_107 code in the PyPI wheel
