"""Evidence probes: the evaluator on a wheel made here, and the lock file against the probes."""
from __future__ import annotations

import zipfile

import pytest
import yaml

from atlas.load import load
from atlas.problems import DataError
from atlas.schema import Probe
from atlas.validate import validate
from atlas.wheel.evidence import Wheel, evaluate, lock_problems, probe_id, read_lock, status_of


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
    assert lock["215-cxx20.probe.0"]["observed"] == {"2.11.0": False, "2.12.1": True, "2.14.1": True, "2.15.0": True}
    assert lock["214-dynamic-spec.probe.0"]["observed"] == {"2.13.0": True, "2.14.1": True}
    assert lock["215-import-once.probe.1"]["status"] == "contradicted"
    assert lock["215-import-once.probe.0"]["status"] == "confirmed"
    assert lock["215-nccl-lazy.probe.1"]["observed"] == {"2.14.1": True, "2.15.0": True}   # registered before 2.15
    assert lock["214-sm107-rubin.probe.0"]["status"] == "contradicted"   # no sm_107 code in the PyPI wheel


# --------------------------------------------------------------------------------------------
# Automatic checks from the data: the surface resolver on a small wheel built here, the
# identifier classifier, error templates, the lock's staleness, and the recorded findings.

import json  # noqa: E402

from atlas import api  # noqa: E402
from atlas.idents import classify, template  # noqa: E402
from atlas.wheel.evidence import claim_roles, data_lock_problems, surface_path  # noqa: E402
from atlas.wheel.scan import WheelIndex, entry_point_report, find_error, find_ident  # noqa: E402
from atlas.wheel.surface import Surface, read_surface, write_surface  # noqa: E402

MINI = {
    "torch/__init__.py": (
        "from torch._C import *\n"
        "from torch._higher_order_ops import cond as cond\n"
        "from torch import linalg as linalg\n"
        "from torch._tensor import Tensor\n"
        "from torch._linalg_utils import cholesky\n"
        "__all__ = ['cond', 'Tensor']\n"
        "__all__.extend(['e'])\n"
        "e = 2.718\n"
        "for __name in dir(_C._VariableFunctions):\n"
        "    if __name.startswith('__'):\n"
        "        continue\n"
        "    __obj = getattr(_C._VariableFunctions, __name)\n"
        "    globals()[__name] = __obj\n"
        "def _hidden(): pass\n"
        "if True:\n"
        "    raise ImportError('`torch` can only be initialized once per process, so this module '\n"
        "                      'cannot be imported again.')\n"),
    "torch/_C/__init__.pyi": (
        "from torch._C._VariableFunctions import *\n"
        "class TensorBase:\n"
        "    def record_stream(self, s: Stream) -> None: ...\n"
        "    @property\n"
        "    def grad(self): ...\n"
        "class Generator: ...\n"),
    "torch/_C/_VariableFunctions.pyi": (
        "from typing import overload\n"
        "@overload\n"
        "def qr(input, some: bool = True, *, out=None): ...\n"
        "@overload\n"
        "def qr(input, *, out): ...\n"
        "def _private_op(x): ...\n"),
    "torch/_C/_distributed_c10d.pyi": (
        "class Backend:\n"
        "    class Options:\n"
        "        timeout: int\n"
        "class ProcessGroupNCCL(Backend):\n"
        "    class Options(Backend.Options):\n"
        "        lazy_init: bool\n"
        "        def __init__(self, is_high_priority_stream: bool = False) -> None: ...\n"),
    "torch/_tensor.py": "import torch\nclass Tensor(torch._C.TensorBase):\n    def numpy(self, *, force=False): ...\n",
    "torch/_linalg_utils.py": "def cholesky(input, upper=False, *, out=None):\n    msg = 'gone'\n    raise RuntimeError(msg)\n",
    "torch/_higher_order_ops/__init__.py": "from .cond import cond\nfrom .switch import switch\n__all__ = ['cond', 'switch']\n",
    "torch/_higher_order_ops/cond.py": "def cond(pred, true_fn, false_fn, operands=()): ...\n",
    "torch/_higher_order_ops/switch.py": "def switch(index, branches, operands): ...\n",
    "torch/linalg/__init__.py": (
        "from torch._C import _add_docstr, _linalg\n"
        "qr = _add_docstr(_linalg.linalg_qr, r'''\nqr(A, mode='reduced', *, out=None) -> (Tensor, Tensor)\n\nQR.''')\n"),
    "torch/distributed/__init__.py": "from torch._C._distributed_c10d import ProcessGroupNCCL, Backend\n",
    "torch/distributed/config.py": "pipeline_per_edge_p2p: bool = False\n",
    "torch/distributed/_watchdog.py": "def watch(): ...\n",
    "torch/mps/__init__.py": "from .streams import current_stream, Stream\n__all__ = ['current_stream', 'Stream']\n",
    "torch/mps/streams.py": "class Stream:\n    def __init__(self, device=None, *, priority=0): ...\n    def query(self): ...\ndef current_stream(device=None): ...\n",
    "torch-9.9.0.dist-info/entry_points.txt": (
        "[torch.distributed.backends]\nnccl-lazy = torch.distributed.distributed_c10d:_register\n"
        "[console_scripts]\ntorchrun = torch.distributed.run:main\n"),
}


@pytest.fixture(scope="module")
def mini_surface():
    return Surface({k: v.encode() for k, v in MINI.items()})


@pytest.mark.parametrize("name,public,sig", [
    ("torch.switch", None, None),                                        # only a private module defines it
    ("torch._higher_order_ops.switch", False, "(index, branches, operands)"),
    ("torch.cond", True, "(pred, true_fn, false_fn, operands=)"),
    ("torch.linalg.qr", True, "(A, mode=, *, out=)"),                   # from the _add_docstr docstring
    ("torch.qr", True, "(input, *, out) | (input, some=, *, out=)"),     # dir() loop over a stub, overloads
    ("torch._private_op", False, "(x)"),
    ("torch.mps.current_stream", True, "(device=)"),
    ("torch.mps.Stream", True, "class (device=, *, priority=)"),
    ("torch.mps.Stream.query", True, "()"),
    ("torch.distributed.ProcessGroupNCCL.Options.lazy_init", True, "attr"),
    ("torch.distributed.ProcessGroupNCCL.Options.timeout", True, "attr"),   # inherited from a nested base
    ("torch.distributed.ProcessGroupNCCL.Options.missing", None, None),
    ("torch.Tensor.record_stream", True, "(s)"),                        # through torch._C.TensorBase
    ("torch.Tensor.grad", True, "attr"),                                 # a property
    ("torch.cholesky", True, "(input, upper=, *, out=) raises"),         # a removed API's stub
    ("torch.distributed._watchdog", False, "module"),
    ("torch.distributed.config.pipeline_per_direction_p2p", None, None),
    ("numpy.array", None, None),
])
def test_surface_resolves_dotted_names(mini_surface, name, public, sig):
    r = mini_surface.resolve(name)
    if public is None:
        assert r is None, r
    else:
        assert r is not None, name
        assert (r["public"], r["sig"]) == (public, sig)


def test_public_surface_lists_public_names_only(mini_surface):
    names = mini_surface.public()
    assert {"torch.qr", "torch.cond", "torch.Tensor", "torch.Tensor.record_stream", "torch.Tensor.numpy",
            "torch.e", "torch.linalg.qr", "torch.mps.Stream.query", "torch.distributed.config.pipeline_per_edge_p2p"} <= set(names)
    assert not [n for n in names if any(p.startswith("_") for p in n.split("."))]
    assert "torch.switch" not in names
    text = write_surface(names, "# torch=9.9.0 sha256=abc")
    head, back = read_surface(text)
    assert back == names and head == {"torch": "9.9.0", "sha256": "abc"}


@pytest.mark.parametrize("value,kind,query", [
    ("torch.linalg.qr", "api", "torch.linalg.qr"),
    ("dist.get_backend_impl()", "api", "torch.distributed.get_backend_impl"),
    ("F.scaled_dot_product_attention", "api", "torch.nn.functional.scaled_dot_product_attention"),
    ("@compile_fn", "name", "compile_fn"),
    ("Options.lazy_init", "name", "Options.lazy_init"),
    ("TORCH_NCCL_BLOCKING_WAIT=1", "constant", "TORCH_NCCL_BLOCKING_WAIT"),
    ("gloo-lazy", "backend", "gloo-lazy"),
    ('backend="nccl-legacy"', "backend", "nccl-legacy"),
    ('mode="fast"', "kwvalue", "mode"),
    ("sm_120", "target", "sm_120"),
    ("RuntimeError: CUDA error: device-side assert triggered", "message", "RuntimeError: CUDA error: device-side assert triggered"),
    ("3.12", None, ""), ("cu128", None, ""), ("gfx942", None, ""), ("https://x.org/", None, ""),
    ("importlib.import_module(m)", None, ""), ("-O3", None, ""), ("nccl (rewritten)", None, ""),
])
def test_classify_values(value, kind, query):
    k, q, _, reason = classify(value)
    assert (k, q) == (kind, query)
    assert (reason == "") == (kind is not None)


def test_error_template_placeholders():
    exc, frags = template("RuntimeError: Expected tensor on cuda:X but found {dtype} on <device> ...")
    assert exc == "RuntimeError"
    assert frags == ("Expected tensor on cuda:", "but found", "on")[:2]


@pytest.fixture(scope="module")
def mini_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("wheel") / "torch-9.9.0-cp311-cp311-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(path, "w") as z:
        for k, v in MINI.items():
            z.writestr(k, v)
        z.writestr("torch/lib/libtorch_cpu.so", b"\x00junk\x00Only a single TORCH_LIBRARY can be used to register the namespace \x00")
    return WheelIndex(path)


def test_error_messages_are_found_as_templates(mini_index):
    from atlas.idents import ErrorRef

    def ref(msg, origin="quoted"):
        exc, frags = template(msg)
        return ErrorRef("x.error.0", "x", msg, origin, exc, frags)

    hit = find_error(mini_index, ref("ImportError: `torch` can only be initialized once per process, so this module cannot be imported again."))
    assert hit["file"] == "torch/__init__.py" and not hit.get("partial")
    assert hit["wheel_text"].startswith("ImportError: `torch` can only")
    differs = find_error(mini_index, ref("ImportError: `torch` can only be initialized once per process, full stop."))
    assert differs["partial"] and "cannot be imported again" in differs["wheel_text"]
    lib = find_error(mini_index, ref("Only a single TORCH_LIBRARY can be used to register the namespace {ns}"))
    assert lib == {"how": "library", "file": "torch/lib/libtorch_cpu.so"}
    assert find_error(mini_index, ref("AttributeError: module 'torch' has no attribute 'qr'", "python")) is None


def test_entry_points_whose_module_is_missing(mini_index):
    report = entry_point_report(mini_index)
    assert report["console_scripts:torchrun"]["module_present"] is False
    assert report["torch.distributed.backends:nccl-lazy"]["module_present"] is False


def test_identifiers_are_looked_up_where_they_live(mini_index):
    from atlas.idents import Ident

    def look(value):
        kind, q, param, reason = classify(value)
        return find_ident(mini_index, Ident("x.v", "x", "v", value, kind, q, param, reason))

    assert look("torch.switch") == {"how": "elsewhere", "file": "torch/_higher_order_ops/switch.py"}
    assert look("ProcessGroupNCCL.Options.lazy_init")["name"] == "torch.distributed.ProcessGroupNCCL.Options.lazy_init"
    assert look("nccl-lazy")["how"] == "entry_point"
    assert look("pipeline_per_edge_p2p")["how"] == "public"
    assert look("pipeline_per_direction_p2p") is None
    assert look("Stream(priority=...)")["name"] == "torch.mps.Stream"
    assert look("Stream(color=...)") is None or look("Stream(color=...)")["how"] != "public"


def test_data_lock_is_complete_and_matches_the_surfaces(factbase):
    lock = read_lock()
    assert data_lock_problems(factbase.changes(), lock) == []
    surfaces = {v: factbase.surfaces[v] for v in lock["wheels"] if v in factbase.surfaces}
    assert set(surfaces) == set(lock["wheels"])
    checked = 0
    for key, entry in lock["identifiers"].items():
        for v, o in entry["observed"].items():
            if entry["kind"] == "api" and entry["query"] in surfaces[v][1]:
                # a name in a wheel's public surface must have been found public in that wheel
                assert o and o["how"] == "public", f"{key}: {entry['query']} is in the surface of torch {v} but the lock says {o}"
                checked += 1
    assert checked > 20


def test_a_new_identifier_in_the_data_makes_the_lock_stale(data_copy):
    rel = data_copy / "releases" / "2.15.yaml"
    rel.write_text(rel.read_text(encoding="utf-8").replace(
        "      budget: max_outstanding_sends\n", "      budget: max_outstanding_sends\n      extra: torch.mps.brand_new_api\n"),
        encoding="utf-8")
    fb = validate(load(data_copy))
    problems = data_lock_problems(fb.changes(), read_lock())
    assert problems == ["215-pipeline-memory.extra: identifier 'torch.mps.brand_new_api' has no verdict in the lock file"]


def test_a_surface_from_another_wheel_is_stale(factbase, tmp_path):
    lock = read_lock()
    for v in lock["wheels"]:
        text = surface_path(v).read_text(encoding="utf-8")
        (tmp_path / f"surface-{v}.txt").write_text(text.replace(lock["wheels"][v]["sha256"], "0" * 64) if v == "2.14.1" else text,
                                                   encoding="utf-8")
        deps = (surface_path(v).parent / f"deprecations-{v}.tsv").read_text(encoding="utf-8")
        (tmp_path / f"deprecations-{v}.tsv").write_text(
            deps.replace(lock["wheels"][v]["sha256"], "1" * 64) if v == "2.6.0" else deps, encoding="utf-8")
    problems = data_lock_problems(factbase.changes(), lock, surfaces_dir=tmp_path)
    assert len(problems) == 2
    assert problems[0].startswith("torch 2.6.0: deprecations-2.6.0.tsv is missing or was read from another wheel")
    assert problems[1].startswith("torch 2.14.1: surface-2.14.1.txt was extracted from another wheel")


def test_claims_name_existing_values(factbase):
    changes = {c.id: c for c in factbase.changes()}
    for cid, roles in factbase.claims.items():
        assert cid in changes, f"data/claims.yaml: {cid} is not a change"
        for role, keys in roles.items():
            assert role in ("added", "removed"), f"data/claims.yaml: {cid}: unknown claim {role}"
            for k in keys:
                assert k in changes[cid].values, f"data/claims.yaml: {cid}: {k} is not a value of the change"
    assert claim_roles(changes["215-pipeline-per-edge-p2p"], {}) == {"old": "removed", "new": "added"}


def test_every_named_thing_has_a_verdict_or_a_reason(atlas):
    for r in atlas.releases:
        for c in r.changes:
            if not any(isinstance(v, str) for v in c.values.values()) and not c.errors:
                continue
            checks = atlas.auto_checks(c)
            assert checks, c.id
            for v in checks:
                assert v.status != "pending", f"{v.key}: not looked up"
                assert v.status != "reason" or v.reason, v.key


def test_recorded_findings_from_the_data(atlas):
    """What the automatic checks found in the wheels (see README, Evidence)."""
    def check(key):
        cid = key.split(".")[0]
        return next(v for v in atlas.auto_checks(atlas.change(cid)) if v.key == key)

    assert check("214-torch-switch.api").detail == "not_in_elsewhere"      # torch.switch is not public in 2.14.1
    assert check("214-torch-switch.api").file == "torch/_higher_order_ops/switch.py"
    assert check("214-remove-qr.old").detail == "stub"                      # torch.qr still resolves, and raises
    assert check("214-remove-qr.error.0").status == "found"                 # so the message is the stub's
    assert check("214-remove-qr.error.0").file == "torch/_linalg_utils.py"
    assert check("214-profiler-use-cuda.param").file == "torch/autograd/profiler_legacy.py"   # still accepted there
    assert check("214-nccl2.backend").status == "confirmed"
    # "2.14 adds NVGEMM": the 2.13.0 wheel already selects it in Inductor's code (not only in a comment)
    assert (check("214-nvgemm.backend").status, check("214-nvgemm.backend").wheel) == ("contradicted", "2.13.0")
    assert check("214-nvgemm.backend").file == "torch/_inductor/utils.py"
    assert check("215-pipeline-per-edge-p2p.old").status == "confirmed"
    assert check("215-pipeline-per-edge-p2p.new").status == "confirmed"
    assert any(f["entry"] == "torch.distributed.backends:nccl4py" and f["wheel"] == "2.15.0" for f in atlas.entry_point_findings)


def test_api_diff_links_only_changes_of_the_upgrade(atlas):
    by_slug = {u.slug: u.api_diff for u in atlas.upgrades}
    def linked(slug):
        return {e["name"]: e["change"] for g in by_slug[slug]["groups"] for w in ("removed", "changed") for e in g[w]}
    assert linked("2.13-to-2.14")["torch.qr"] == "214-remove-qr"
    assert linked("2.13-to-2.14")["torch.profiler.profile"] == "214-profiler-use-cuda"       # use_cuda left its signature
    assert linked("2.14-to-2.15")["torch.distributed.config.pipeline_per_direction_p2p"] == "215-pipeline-per-edge-p2p"
    for slug in by_slug:
        steps = {c.id for u in atlas.upgrades if u.slug == slug for r in u.steps for c in r.changes}
        assert {cid for cid in linked(slug).values() if cid} <= steps, slug
    assert None in linked("2.14-to-2.15").values()        # "not mentioned by any source" happens


def test_every_upgrade_json_carries_the_api_diff(atlas):
    files = api.build(atlas)
    for up in atlas.upgrades:
        body = files[f"upgrades/{up.slug}.json"]
        d = body["api_diff"]
        assert set(d) >= {"added", "removed", "changed"}
        assert d["removed"] or d["changed"] or d["added"], up.slug
        for e in d["removed"] + d["changed"] + d["added"]:
            assert not any(p.startswith("_") for p in e["name"].split(".")), e
        json.dumps(body)


def test_claims_are_judged_by_the_first_and_last_wheel(factbase):
    """The verdict logic on the real changes with observations altered here."""
    import copy

    from atlas.wheel.evidence import error_verdicts, ident_verdicts, stub_errors

    lock = copy.deepcopy(read_lock())
    release_of = {c.id: r.version for r in factbase.releases for c in r.changes}
    versions = list(lock["wheels"])
    obs = lock["identifiers"]["214-nccl2.backend"]["observed"]
    obs["2.13.0"] = {"how": "text", "file": "torch/distributed/x.py"}
    lock["identifiers"]["215-pipeline-per-edge-p2p.old"]["observed"]["2.15.0"] = {"how": "public", "file": "torch/distributed/config.py"}
    lock["identifiers"]["215-pipeline-memory.budget"]["observed"]["2.15.0"] = {"how": "mention", "file": "torch/y.py"}
    v = {x.key: x for vs in ident_verdicts(factbase.changes(), lock, release_of, versions, factbase.claims, {}).values() for x in vs}
    assert (v["214-nccl2.backend"].status, v["214-nccl2.backend"].wheel, v["214-nccl2.backend"].file) == \
        ("contradicted", "2.13.0", "torch/distributed/x.py")
    assert v["215-pipeline-per-edge-p2p.old"].detail == "still_in"
    assert v["215-pipeline-memory.budget"].detail == "not_in"             # a mention is not the name
    # feature evidence before the release that says it adds the thing: only words in a comment or
    # docstring make it "mentioned before", never a contradiction; a definition inside the name's
    # own package contradicts it; one in another package does not
    obs["2.13.0"] = {"how": "comment", "file": "torch/distributed/x.py"}
    again = {x.key: x for vs in ident_verdicts(factbase.changes(), lock, release_of, versions, factbase.claims, {}).values() for x in vs}
    assert (again["214-nccl2.backend"].status, again["214-nccl2.backend"].detail) == ("mentioned", "mentioned_before")
    key = next(k for k, x in again.items() if x.value == "torch.mps.Stream")
    lock["identifiers"][key]["observed"]["2.14.1"] = {"how": "elsewhere", "file": "torch/cuda/streams.py"}
    assert {x.key: x for vs in ident_verdicts(factbase.changes(), lock, release_of, versions, factbase.claims, {}).values()
            for x in vs}[key].status == "confirmed"
    lock["identifiers"][key]["observed"]["2.14.1"] = {"how": "elsewhere", "file": "torch/mps/_streams.py"}
    assert {x.key: x for vs in ident_verdicts(factbase.changes(), lock, release_of, versions, factbase.claims, {}).values()
            for x in vs}[key].detail == "already_elsewhere"
    assert v["214-py315-wheels.index"].status == "reason" and v["214-py315-wheels.index"].reason == "address"
    # a guessed "has no attribute" message is wrong when the wheel keeps a raising stub
    lock["errors"]["214-remove-qr.error.0"]["observed"] = dict.fromkeys(versions)
    errs = error_verdicts(factbase.changes(), lock, release_of, versions)
    e = errs["214-remove-qr"][0]
    assert e.status == "absent" and e.kind == "wheel"
    e.kind, e.value = "python", "AttributeError: module 'torch' has no attribute 'qr'"
    stub = ident_verdicts(factbase.changes(), read_lock(), release_of, versions, factbase.claims, {})
    stub_errors(stub, errs)
    assert (e.status, e.detail, e.file) == ("contradicted", "error_stub", "torch/_linalg_utils.py")




# --------------------------------------------------------------------------------------------
# The API diff across several releases (issues 18, 25), judged at runtime: three small fake
# releases written here as packages, each imported by the probe that `atlas runtime` runs in a
# release's venv. removed = no longer resolves (a stub that only raises does not resolve); a name
# that left __all__ or whose module went private and still imports is "no longer public"; "moved"
# is the same object (module:qualname) at a new public path of the package that defines it, never a
# look-alike or an incidental import elsewhere; each removed
# name gives the first release without it.

HISTORY = {
    "1.0.0": {
        "torch/__init__.py": "from torch.util import helper\n__all__ = ['helper', 'gone', 'quiet', 'stubbed']\n"
                             "def gone(x): pass\ndef quiet(): pass\ndef stubbed(a): return a\n",
        "torch/util.py": "def helper(a, b=None): pass\n",
        "torch/old_place.py": "from torch.new_place._impl import mover\n",
        "torch/looks_alike.py": "def twin(x, y): pass\n",
        "torch/new_place/__init__.py": "",
        "torch/new_place/_impl.py": "def mover(x, y): pass\n",
        "torch/keeps.py": "from torch._impl import Thing\n",
        "torch/_impl.py": "class Thing:\n    def __init__(self, n): pass\n",
    },
    "1.1.0": {
        "torch/__init__.py": "from torch.util import helper\n__all__ = ['helper', 'stubbed']\n"
                             "def quiet(): pass\n"
                             "def stubbed(a):\n    raise RuntimeError('stubbed was removed')\n",
        "torch/util.py": "def helper(a): pass\n",
        "torch/new_place/__init__.py": "from torch.new_place._impl import mover\ndef twin(x, y): pass\n",
        "torch/new_place/_impl.py": "def mover(x, y): pass\n",
        "torch/keeps.py": "from torch._impl import Thing\n__all__ = []\n",
        "torch/_impl.py": "class Thing:\n    def __init__(self, n): pass\n",
    },
    "1.2.0": {
        "torch/__init__.py": "from torch.util import helper\n__all__ = ['helper']\n"
                             "def stubbed(a):\n    raise RuntimeError('stubbed was removed')\n",
        "torch/util.py": "def helper(a): pass\n",
        "torch/new_place/__init__.py": "from torch.new_place._impl import mover\ndef twin(x, y): pass\n",
        "torch/new_place/_impl.py": "def mover(x, y): pass\n",
        "torch/keeps.py": "from torch._impl import Thing\n__all__ = []\n",
        "torch/_impl.py": "class Thing:\n    def __init__(self, n): pass\n",
    },
}


@pytest.fixture(scope="module")
def history_runtimes(tmp_path_factory):
    """{version: Runtime}: the names the static surfaces of the three releases propose, each
    resolved by the probe with that release on the path."""
    import subprocess
    import sys

    from atlas.wheel import parse_runtime
    from atlas.wheel.probe_runtime import __file__ as probe

    d = tmp_path_factory.mktemp("history")
    names: set[str] = set()
    for v, files in HISTORY.items():
        path = d / f"torch-{v}-cp311-cp311-manylinux_2_28_x86_64.whl"
        with zipfile.ZipFile(path, "w") as z:
            for n, body in files.items():
                z.writestr(n, body)
        names |= set(Surface(path=path).public())
        for n, body in files.items():
            (d / v / n).parent.mkdir(parents=True, exist_ok=True)
            (d / v / n).write_text(body + (f"__version__ = '{v}'\n" if n == "torch/__init__.py" else ""))
    (d / "names.txt").write_text("\n".join(sorted(names)) + "\n")
    out = {}
    for v in HISTORY:
        subprocess.run([sys.executable, probe, str(d / "names.txt"), str(d / f"runtime-{v}.txt")], check=True,
                       cwd=d / v, env={"PYTHONPATH": str(d / v), "PYTHONHASHSEED": "0"})
        out[v] = parse_runtime((d / f"runtime-{v}.txt").read_text())
    return out


def test_removed_means_the_name_no_longer_resolves(history_runtimes):
    from atlas.wheel import runtime_diff

    d = runtime_diff(history_runtimes["1.0.0"], history_runtimes["1.1.0"])
    assert "torch.gone" in d["removed"] and "torch.stubbed" in d["removed"]   # a stub that only raises is gone
    assert "torch.quiet" in d["no_longer_public"]              # left __all__, still defined
    assert "torch.keeps.Thing" in d["no_longer_public"]        # its module emptied __all__, it still imports
    assert "torch.quiet" not in d["removed"] and "torch.keeps.Thing" not in d["removed"]
    assert d["moved"] == [{"name": "torch.old_place.mover", "to": "torch.new_place.mover"}]   # the same object
    assert "torch.looks_alike" in d["removed"]                 # same last part and signature elsewhere: not "moved"
    assert [c["name"] for c in d["changed"]] == ["torch.helper"]
    late = runtime_diff(history_runtimes["1.0.0"], history_runtimes["1.2.0"])
    assert "torch.quiet" in late["removed"]


def test_first_release_without_each_removed_name(history_runtimes):
    from types import SimpleNamespace

    from atlas.enrich import _api_diff
    from atlas.wheel import Point

    points = [Point(v.rsplit(".", 1)[0], None, SimpleNamespace(wheel=v)) for v in HISTORY]
    d = _api_diff(points[0], points[2], history_runtimes, {}, points)
    entries = {e["name"]: (kind, e.get("first_without")) for g in d["groups"]
               for kind in ("removed", "moved", "no_longer_public") for e in g[kind]}
    assert entries["torch.gone"] == ("removed", "1.1")       # gone in the first step
    assert entries["torch.quiet"] == ("removed", "1.2")      # hidden in 1.1, gone in 1.2
    assert entries["torch.keeps.Thing"] == ("no_longer_public", "1.1")
    assert entries["torch.old_place.mover"] == ("moved", "1.1")
    assert entries["torch.stubbed"] == ("removed", "1.1")    # only a raising stub from 1.1 on


@pytest.mark.parametrize("title,summary,values,expected", [
    ("Foo arrives as the opt-in nccl9", "A new {backend} backend, next to the old one.", {"backend": "nccl9"}, {"backend": "added"}),
    ("The builds add the {target} target", "For new GPUs.", {"target": "sm_999"}, {"target": "added"}),
    ('acc="x" is removed from Options', "Passing {old} to {options} is no longer accepted.",
     {"old": 'acc="x"', "options": "Options"}, {"old": "removed"}),
    ("Old methods are gone", "Methods such as {m} no longer exist, and {keep} stays.", {"m": "split()", "keep": "Keep"},
     {"m": "removed"}),
    ("torch.bar generalizes torch.foo", "It uses {api} from a new module.", {"api": "torch.bar"}, {}),
])
def test_claims_are_read_from_the_changes_own_text(title, summary, values, expected):
    from types import SimpleNamespace

    from atlas.wheel.evidence import text_roles

    assert text_roles(SimpleNamespace(title=title, summary=summary, values=values)) == expected


def test_api_diffs_are_reused_only_for_the_same_facts(factbase):
    """enrich keeps this process's API diffs (a second pipeline run under `mkdocs serve` or the
    fuzz test diffs nothing again), but a fact base that names other things gets new ones."""
    import dataclasses

    from atlas.enrich import enrich

    def diff(a, slug="2.13-to-2.14"):
        return next(u for u in a.upgrades if u.slug == slug).api_diff

    def qr(a):
        return next(e for g in diff(a)["groups"] for e in g["removed"] if e["name"] == "torch.qr")

    first, again = enrich(factbase), enrich(factbase)
    assert diff(again) is diff(first) and qr(first)["change"] == "214-remove-qr"
    # 214-remove-qr under another id (its wheel checks are recorded under the old one): the diffs
    # are made again, and torch.qr is no longer linked to 214-remove-qr
    releases = [r.model_copy(update={"changes": [
        c.model_copy(update={"id": "214-remove-qr-renamed"}) if c.id == "214-remove-qr" else c
        for c in r.changes]}) for r in factbase.releases]
    other = enrich(dataclasses.replace(factbase, releases=releases))
    assert diff(other) is not diff(first) and qr(other)["change"] != "214-remove-qr"
    assert qr(enrich(factbase))["change"] == "214-remove-qr"   # and back


def test_deprecations_are_read_from_the_python_sources():
    """Issue 26: a warn with a deprecation category (or words), a @deprecated decorator and a
    `.. deprecated::` docstring, each with where it is and the replacement its message names."""
    from atlas.wheel.deprecations import parse, read, write

    src = b'''import warnings
from typing_extensions import deprecated
class GradScaler:
    @deprecated("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
                category=FutureWarning)
    def __init__(self): pass
def f(x):
    warnings.warn(f"f({x}) is deprecated, use torch.g instead", DeprecationWarning)
def g():
    warnings.warn("something else happened", UserWarning)
def h():
    """Old.

    .. deprecated:: 2.5
        Use torch.k instead.
    """
def quiet():
    warnings.warn("this path will be removed in 2.9")
'''
    files = {"torch/cuda/amp/grad_scaler.py": src,
             "torch/testing/_internal/common.py": b"import warnings\nwarnings.warn('x is deprecated', DeprecationWarning)\n"}
    got = read(files)
    assert [(d.where, d.how, d.category, d.replacement) for d in got] == [
        ("torch.cuda.amp.grad_scaler.GradScaler.__init__", "decorator", "FutureWarning", "torch.amp.GradScaler('cuda', args...)"),
        ("torch.cuda.amp.grad_scaler.f", "warn", "DeprecationWarning", "torch.g"),
        ("torch.cuda.amp.grad_scaler.h", "docstring", "", "torch.k"),
        ("torch.cuda.amp.grad_scaler.quiet", "warn", "", ""),
    ]
    assert got[1].message == "f({}) is deprecated, use torch.g instead"
    assert parse(write(got, "# header")) == got
    with pytest.raises(ValueError, match="line 2"):
        parse("# header\nonly\ttwo\n")


def test_each_release_shows_the_deprecations_its_wheel_adds(atlas, factbase):
    """Every release whose wheel and the wheel before it were read lists what is new, by where
    it is (not by wording); the oldest says none can be dated."""
    from atlas.keys import version_key

    read = sorted((p for p in atlas.history if p.deprecations_read), key=lambda p: version_key(p.version))
    assert len(read) == len(factbase.deprecations) >= 16
    assert read[0].deprecations_first and not read[0].deprecations
    for before, p in zip(read, read[1:]):
        old = {d.key for d in factbase.deprecations[before.wheel.wheel]}
        assert all(d.key not in old for d in p.deprecations)
    amp = [d for p in read for d in p.deprecations if d.where.startswith("torch.cuda.amp.")]
    assert sum(len(p.deprecations) for p in read) > 100
    assert amp and all(d.replacement.startswith("torch.amp.") for d in amp if d.how == "decorator")


def test_a_default_that_flips_is_on_the_page(atlas, real_pages):
    """Issue 25: torch.onnx.export's dynamo=False -> True in 2.9 (with its parameters reordered) is
    read from the installed releases and shown on the upgrade page in every language."""
    from atlas.langs import LANGS

    up = next(u for u in atlas.upgrades if u.slug == "2.8-to-2.9")
    e = next(e for g in up.api_diff["groups"] for e in g["changed"] + g["default_changed"] if e["name"] == "torch.onnx.export")
    assert {"param": "dynamo", "old": "False", "new": "True"} in e["defaults"]
    for lang in LANGS:
        page = real_pages[lang][f"{lang}/upgrade/2.8-to-2.9.md"]
        diff = page.split('<div class="atlas-apidiff">', 1)[1]   # the API diff, not the deprecations' messages
        line = next(x for x in diff.splitlines() if "torch.onnx.export" in x and "dynamo=" in x)
        assert "dynamo=False → dynamo=True" in line, (lang, line)


def test_a_default_that_only_became_none_is_shown_as_decided_inside_the_function(atlas, real_pages):
    """Issue 39: scatter's src=0 -> None (2.6) is no default flip: the upgrade page says the
    function decides it now, in every language, and the release page counts it apart from the
    flips; CosineAnnealingLR's eta_min=0 -> 0.0 (2.5) is on neither page."""
    from atlas.langs import LANGS

    up = next(u for u in atlas.upgrades if u.slug == "2.5-to-2.6")
    e = next(e for e in up.api_diff["changed"] if e["name"] == "torch.distributed.scatter")
    assert e["defaults"] == [] and {"param": "src", "old": "0", "new": "None", "to_none": True} in e["defaults_none"]
    assert not any(d["name"] == "torch.distributed.scatter" for d in atlas.point("2.6").defaults)
    assert any(d["name"] == "torch.distributed.scatter" for d in atlas.point("2.6").defaults_none)
    assert not any(d["param"] == "eta_min" for p in atlas.history for d in (p.defaults or []) + p.defaults_none)
    for lang in LANGS:
        page = real_pages[lang][f"{lang}/upgrade/2.5-to-2.6.md"]
        diff = page.split('<div class="atlas-apidiff">', 1)[1]
        line = next(x for x in diff.splitlines() if "torch.distributed.scatter" in x and "src=" in x)
        assert "src=0 → src=None" in line and atlas.fb.ui[lang]["apidiff.none_inside"] in line, (lang, line)
        release = real_pages[lang][f"{lang}/releases/2.6.md"].split("{ #defaults }", 1)[1].split("\n## ", 1)[0]
        assert "torch.distributed.scatter" not in release
        assert "eta_min" not in real_pages[lang][f"{lang}/upgrade/2.4-to-2.5.md"]


# --------------------------------------------------------------------------------------------
# "New in X" against the earlier wheels (wheel.evidence.earlier_problems): what an earlier wheel
# already ships is said in a disagreement note that names the first such wheel and its file, and
# the locks must show that file there and not in the wheel before.

def _earlier(data_dir=None, edit=None):
    """earlier_problems of the real data, or of a copy after ``edit(text of a release file)``."""
    from atlas.wheel import earlier_problems

    if edit is not None:
        for name, (old, new) in edit.items():
            p = data_dir / "releases" / name
            text = p.read_text(encoding="utf-8")
            assert text.count(old) == 1, old
            p.write_text(text.replace(old, new), encoding="utf-8")
    fb = validate(load(data_dir)) if data_dir is not None else validate(load())
    return earlier_problems(fb.releases, fb.release_files, fb.lock, fb.claims)


def test_every_earlier_wheel_is_named_and_shown(factbase):
    from atlas.wheel import earlier_problems

    assert earlier_problems(factbase.releases, factbase.release_files, factbase.lock, factbase.claims) == []
    named = {c.id: (c.earlier.wheel, c.earlier.file) for c in factbase.changes() if c.earlier}
    assert named["214-nvgemm"] == ("2.11.0", "torch/_inductor/codegen/nv_universal_gemm/nv_universal_gemm.py")
    assert named["214-xpu-graph-capture"] == ("2.11.0", "torch/xpu/graphs.py")
    assert named["213-cutedsl-groundwork"][0] == "2.9.1" and named["213-torchcomms"][0] == "2.11.0"


def test_a_name_called_new_that_an_earlier_wheel_has_needs_the_note(data_copy):
    # torch.xpu.Event is in every wheel from 2.3.1: a title that says 2.15 adds it is flagged
    problems = _earlier(data_copy, {"2.15.yaml": ("title: XPU events can be shared between processes",
                                                  "title: XPU adds {api}, shared between processes")})
    assert problems == [p for p in problems if p.startswith("data/releases/2.15.yaml: 215-xpu-event-ipc: notes: "
                                                            "torch 2.3.1 already has")] and len(problems) == 1, problems
    assert "earlier: {wheel: \"2.3.1\"" in problems[0] and "torch/xpu/streams.py" in problems[0]


def test_a_removed_note_is_required_again(data_copy):
    from atlas.load import dump

    for f in data_copy.glob("translations/*/releases/2.14.yaml"):
        table = yaml.safe_load(f.read_text(encoding="utf-8"))
        del table["214-xpu-graph-capture.note.0"]
        f.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    rel = (data_copy / "releases" / "2.14.yaml").read_text(encoding="utf-8")
    start = rel.index("    notes:\n", rel.index("  - id: 214-xpu-graph-capture"))
    end = rel.index("    probes:\n", start)
    problems = _earlier(data_copy, {"2.14.yaml": (rel[start:end], "")})
    # the probe's outcome in 2.11.0 asks for the note again
    assert any(p.startswith("data/releases/2.14.yaml: 214-xpu-graph-capture: notes: torch 2.11.0 already has")
               for p in problems), problems


@pytest.mark.parametrize("old,new,says", [
    # a file the wheel does not have
    ("file: torch/xpu/graphs.py}", "file: torch/xpu/graph.py}", "do not show torch/xpu/graph.py in torch 2.11.0"),
    # a later wheel than the first one that has it
    ('earlier: {wheel: "2.11.0", file: torch/xpu/graphs.py}', 'earlier: {wheel: "2.13.0", file: torch/xpu/graphs.py}',
     "torch 2.11.0 already has it, before 2.13.0"),
    # an earlier wheel than the first one that has it
    ('earlier: {wheel: "2.11.0", file: torch/xpu/graphs.py}', 'earlier: {wheel: "2.10.0", file: torch/xpu/graphs.py}',
     "does not find it there"),
    # a wheel that is not older than the release's own
    ('earlier: {wheel: "2.11.0", file: torch/xpu/graphs.py}', 'earlier: {wheel: "2.14.1", file: torch/xpu/graphs.py}',
     "is not older than the release's wheel 2.14.1"),
])
def test_the_note_names_what_the_locks_show(data_copy, old, new, says):
    problems = _earlier(data_copy, {"2.14.yaml": (old, new)})
    assert any(p.startswith("data/releases/2.14.yaml: 214-xpu-graph-capture: notes.0.earlier") and says in p
               for p in problems), problems


def test_the_first_wheel_must_be_shown_to_be_the_first(data_copy):
    # without 2.10.0 in the probe (and its lock entry), nothing shows that 2.11.0 is the first wheel with the file
    from atlas.load import dump
    from atlas.wheel.evidence import probe_hash

    lock_file = data_copy / "evidence.lock.yaml"
    lock = yaml.safe_load(lock_file.read_text(encoding="utf-8"))
    entry = lock["probes"]["214-xpu-graph-capture.probe.0"]
    del entry["observed"]["2.10.0"]
    entry["hash"] = probe_hash(Probe(file="torch/xpu/graphs.py", contains="class XPUGraph(",
                                     expect={"2.11.0": False, "2.13.0": False, "2.14.1": True}))
    lock_file.write_text(dump(lock, sort_keys=False, allow_unicode=True, width=200), encoding="utf-8")
    problems = _earlier(data_copy, {"2.14.yaml": ('expect: {"2.10.0": false, "2.11.0": false, "2.13.0": false, "2.14.1": true}\n'
                                                  "    sources:\n      - {source: ru-news-214, locator: \"захват",
                                                  'expect: {"2.11.0": false, "2.13.0": false, "2.14.1": true}\n'
                                                  "    sources:\n      - {source: ru-news-214, locator: \"захват")})
    assert any("214-xpu-graph-capture: notes.0.earlier" in p and "does not look at torch 2.10.0" in p for p in problems), problems


def test_an_identifier_in_the_lock_shows_the_file(data_copy):
    # 214-dynamic-spec's file is shown by its identifier's lookup, with no probe on 2.12.1
    assert not [p for p in _earlier(data_copy) if "214-dynamic-spec" in p]
    problems = _earlier(data_copy, {"2.14.yaml": ("file: torch/fx/experimental/dynamic_spec.py}",
                                                  "file: torch/fx/experimental/_spec_binding.py}")})
    assert any(p.startswith("data/releases/2.14.yaml: 214-dynamic-spec: notes.0.earlier: the wheel locks do not show "
                            "torch/fx/experimental/_spec_binding.py in torch 2.13.0") for p in problems), problems


def test_earlier_belongs_to_a_disagreement(data_copy):
    rel = data_copy / "releases" / "2.14.yaml"
    text = rel.read_text(encoding="utf-8")
    old = "      - kind: disagreement\n        text: >-\n          The released wheels disagree with the report: the wheel of torch {earlier.wheel} already\n          has {earlier.file}, with"
    assert text.count(old) == 1
    rel.write_text(text.replace(old, old.replace("kind: disagreement", "kind: unverified")), encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any("214-xpu-graph-capture: notes.0" in p and "'earlier' belongs to a note of kind 'disagreement'" in p
               for p in info.value.problems), info.value.problems


def test_a_changed_probe_shows_nothing_until_locked(data_copy):
    problems = _earlier(data_copy, {"2.14.yaml": ('contains: "class XPUGraph("', 'contains: "class XPUGraph"')})
    assert any("214-xpu-graph-capture: notes.0.earlier" in p and "has no locked outcome for torch 2.11.0" in p
               for p in problems), problems


def test_a_new_upstream_release_is_a_note_not_a_failure():
    """CI survives the world (issue 44): the index answering with a release the lock lacks (PyTorch
    published 2.16) is a note; a recorded release gone, or its files changed, is still a problem."""
    from atlas.wheel.extract import registry_drift

    lock = read_lock()["registry"]
    newer = {**lock, "versions": [*lock["versions"], "2.16.0"]}        # a fake index answer with a newer release
    problems, notes = registry_drift(lock, newer)
    assert problems == [] and len(notes) == 1 and "2.16.0" in notes[0]
    gone = {**lock, "versions": [v for v in lock["versions"] if v != "2.6.0"]}
    assert registry_drift(lock, gone)[0] and "2.6.0" in registry_drift(lock, gone)[0][0]
    moved = {**lock, "python_wheels": {**lock["python_wheels"], "3.11": []}}
    assert registry_drift(lock, moved)[0]
    assert registry_drift(lock, lock) == ([], [])
