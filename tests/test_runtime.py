"""The runtime judge: the probe that runs inside an installed release, the runtime lock, and the
API diff it proves (issue 25).

The probe is run here on a small fake ``torch`` package written to a temporary folder, which has
each mechanism that fooled the static reader: a name deleted and served again by a module
``__getattr__``, a re-export from a C-like private module, an instance attribute known only from
``__init__``, a class listed under two public paths, a stub that only raises, and a default that
flips. The committed locks are checked against the committed surfaces they were asked about.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from atlas.wheel import parse_runtime, runtime_diff
from atlas.wheel.probe_runtime import __file__ as PROBE
from atlas.wheel.runtime import params, params_text, split_params

FAKE_V1 = {
    "torch/__init__.py": """
        from . import _C, linalg, utils, optim
        from .optim import Adam
        __all__ = ["Adam", "old_fn", "seq", "export", "abstract", "frozen"]
        def old_fn(x, y=None):
            return x
        def seq(x):
            return x
        def export(model, dynamo=False):
            return model
        def abstract(x):
            return x
        def frozen(x):
            raise TypeError("frozen objects do not support mutation")
    """,
    "torch/_C.py": """
        class _LinAlgError(RuntimeError):
            pass
    """,
    "torch/linalg.py": """
        from torch._C import _LinAlgError as LinAlgError
        __all__ = ["LinAlgError", "qr"]
        def qr(a, mode="reduced"):
            return a
    """,
    "torch/optim/__init__.py": """
        from .adam import Adam
        from . import lr_scheduler
    """,
    "torch/optim/adam.py": """
        __all__ = ["Adam"]
        class Adam:
            def __init__(self, params, lr=1e-3):
                self.lr = lr
            def step(self, closure=None):
                return closure
    """,
    "torch/optim/lr_scheduler.py": """
        class StepLR:
            def __init__(self, opt, step_size, gamma=0.1):
                self.gamma = gamma
    """,
    "torch/utils/__init__.py": "from . import cpp_extension\n",
    "torch/utils/cpp_extension.py": """
        __all__ = ["BuildExtension", "load"]
        class BuildExtension:
            pass
        def load(name):
            return name
    """,
}

FAKE_V2 = {
    **FAKE_V1,
    "torch/__init__.py": """
        from . import _C, linalg, utils, optim
        from .optim import Adam
        __all__ = ["Adam", "export", "abstract", "frozen"]
        def old_fn(*args, **kwargs):
            msg = "old_fn was removed; use new_fn"
            raise RuntimeError(msg)
        def abstract(x):
            raise NotImplementedError
        def frozen(x):
            msg = "frozen objects do not support mutation"
            raise TypeError(msg)
        def export(model, dynamo=True):
            return model
        from .optim.adam import Adam as Adam2
        def _hidden_seq(x):
            return x
        seq = _hidden_seq
    """,
    "torch/utils/cpp_extension.py": """
        __all__ = ["BuildExtension", "load"]
        class BuildExtension:
            pass
        _BE = BuildExtension
        del BuildExtension
        def load(name):
            return name
        def __getattr__(name):
            if name == "BuildExtension":
                return _BE
            raise AttributeError(name)
    """,
    "torch/optim/lr_scheduler.py": """
        class StepLR:
            def __init__(self, opt, step_size, gamma=0.1):
                self.gamma = gamma
                self.last_epoch = -1
    """,
}

NAMES = ["torch", "torch.abstract", "torch.frozen", "torch.Adam", "torch.Adam.step", "torch.optim.Adam.step", "torch.optim.adam.Adam",
         "torch.linalg.LinAlgError", "torch.linalg.qr", "torch.old_fn", "torch.seq", "torch.export",
         "torch.optim.lr_scheduler.StepLR.gamma", "torch.optim.lr_scheduler.StepLR.momentum",
         "torch.utils.cpp_extension.BuildExtension", "torch.utils.cpp_extension.load", "torch.nothing",
         "torch.utils.tensorboard.SummaryWriter"]


def _probe(tmp_path: Path, files: dict[str, str], tag: str) -> str:
    root = tmp_path / tag
    for rel, src in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(src), encoding="utf-8")
    (root / "torch" / "utils" / "tensorboard").mkdir(exist_ok=True)
    (root / "torch" / "utils" / "tensorboard" / "__init__.py").write_text("import tensorboard_not_installed\n")
    (root / "torch" / "version.py").write_text("")
    (root / "torch" / "__init__.py").write_text((root / "torch" / "__init__.py").read_text() + f"\n__version__ = '{tag}'\n")
    names = tmp_path / "names.txt"
    names.write_text("\n".join(NAMES) + "\n")
    out = tmp_path / f"runtime-{tag}.txt"
    subprocess.run([sys.executable, PROBE, str(names), str(out)], check=True, cwd=root,
                   env={"PYTHONPATH": str(root), "PYTHONHASHSEED": "0"})
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def locks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runtime")
    return parse_runtime(_probe(tmp, FAKE_V1, "1.0")), parse_runtime(_probe(tmp, FAKE_V2, "2.0"))


def test_probe_resolves_what_the_static_reader_got_wrong(locks):
    v1, v2 = locks
    row = v2.rows
    assert row["torch.utils.cpp_extension.BuildExtension"].state == "public"      # del + module __getattr__
    assert row["torch.linalg.LinAlgError"].state == "public"                      # re-exported from torch._C
    assert row["torch.linalg.LinAlgError"].identity == "torch._C:_LinAlgError"
    assert row["torch.optim.lr_scheduler.StepLR.gamma"].kind == "instance"        # set in __init__ only
    assert row["torch.optim.lr_scheduler.StepLR.momentum"].state == "absent"
    assert row["torch.optim.Adam.step"].state == row["torch.Adam.step"].state == "public"   # members under every alias
    assert row["torch.old_fn"].state == "absent" and row["torch.old_fn"].identity == "stub torch:old_fn"   # "removed"
    assert row["torch.frozen"].state == "public"        # raises by design: its words do not say it is gone
    assert row["torch.abstract"].state == "public"      # raising NotImplementedError marks an abstract method, not a removal
    assert row["torch.seq"].state == "hidden"            # left __all__, still resolves
    assert row["torch.nothing"].state == "absent"
    assert row["torch.utils.tensorboard.SummaryWriter"].state == "unknown"
    assert "tensorboard_not_installed" in row["torch.utils.tensorboard.SummaryWriter"].identity
    assert v1.rows["torch.export"].signature == "(model, dynamo=False)"
    assert v2.rows["torch.export"].signature == "(model, dynamo=True)"
    assert v1.head["torch"] == "1.0" and v2.head["names"] == str(len(NAMES))


def test_diff_kinds_mean_what_they_say(locks):
    v1, v2 = locks
    d = runtime_diff(v1, v2)
    assert d["removed"] == ["torch.old_fn"]
    assert d["no_longer_public"] == ["torch.seq"]     # left __all__, still resolves
    assert "torch.utils.cpp_extension.BuildExtension" not in d["removed"] + d["no_longer_public"]
    assert "torch.linalg.LinAlgError" not in d["removed"]
    assert "torch.optim.lr_scheduler.StepLR.gamma" not in d["removed"]
    assert [e["name"] for e in d["default_changed"]] == ["torch.export"]
    assert d["default_changed"][0]["defaults"] == [{"param": "dynamo", "old": "False", "new": "True"}]
    assert d["unverified"] == 0          # unknown in both: never public anywhere


def test_left_all_is_no_longer_public(locks):
    v1, v2 = locks
    assert v1.rows["torch.seq"].state == "public"
    d = runtime_diff(v1, v2)
    assert "torch.seq" not in d["removed"]
    assert runtime_diff(v2, v1)["added"] == ["torch.old_fn", "torch.seq"]


def _lock(rows: dict[str, tuple]) -> str:
    return f"# torch=x python=3.11 names={len(rows)}\n" + "".join(
        "\t".join((n, *r)) + "\n" for n, r in sorted(rows.items()))


def test_moved_needs_the_same_object_and_changed_needs_other_parameters():
    a = parse_runtime(_lock({
        "torch.a.Foo": ("public", "class", "torch.a:Foo", "(x)"),
        "torch.a.Bar": ("public", "class", "torch.a:Bar", "(x)"),
        "torch.b.Foo": ("absent", "", "AttributeError", ""),
        "torch.c.Bar": ("absent", "", "AttributeError", ""),
        "torch.f": ("public", "function", "torch:f", "(a, b=1)"),
        "torch.g": ("public", "function", "torch:g", "(a, b=1)"),
        "torch.u": ("public", "function", "torch:u", "(a)"),
        "torch.x": ("public", "module", "torch.x:", ""),
        "torch.y": ("public", "module", "torch.y:", ""),
        "torch.x.tree_map": ("public", "function", "torch.utils._pytree:tree_map", "(fn, tree)"),
        "torch.y.tree_map": ("absent", "", "AttributeError", ""),
    }))
    b = parse_runtime(_lock({
        "torch.a.Foo": ("absent", "", "AttributeError", ""),
        "torch.a.Bar": ("absent", "", "AttributeError", ""),
        "torch.b.Foo": ("public", "class", "torch.a:Foo", "(x)"),           # the same object: moved
        "torch.c.Bar": ("public", "class", "torch.c:Bar", "(x)"),           # same last part, another object: not moved
        "torch.f": ("public", "function", "torch:f", "(a, *, b=1)"),        # kind changed
        "torch.g": ("public", "function", "torch:g", "(a, b=1)"),
        "torch.u": ("unknown", "", "needs yaml", ""),
        "torch.x": ("public", "module", "torch.x:", ""),
        "torch.y": ("public", "module", "torch.y:", ""),
        "torch.x.tree_map": ("absent", "", "AttributeError", ""),
        "torch.y.tree_map": ("public", "function", "torch.utils._pytree:tree_map", "(fn, tree)"),   # an incidental import
    }))
    d = runtime_diff(a, b)
    assert d["moved"] == [{"name": "torch.a.Foo", "to": "torch.b.Foo"}]
    assert d["removed"] == ["torch.a.Bar", "torch.x.tree_map"]     # not "moved" to another module's import of it
    assert [e["name"] for e in d["changed"]] == ["torch.f"]
    assert d["changed"][0]["defaults"] == []
    assert d["unverified"] == 1 and "torch.u" not in d["removed"]


def test_signature_helpers():
    assert split_params("(a, b=(1, 2), *, c='x,y', d={1: 2})") == ["a", "b=(1, 2)", "*", "c='x,y'", "d={1: 2}"]
    # a default the probe cut short leaves a bracket open: the cut ends it
    assert split_params("(m, *, p=Policy(a=None, b=None, c…, q=None, r=None)") == ["m", "*", "p=Policy(a=None, b=None, c…", "q=None", "r=None"]
    assert params("(a, /, b=1, *args, c, _p=2, **kw)") == (("a", "pos", None), ("b", "any", "1"), ("args", "*", None),
                                                          ("c", "kw", None), ("kw", "**", None))
    assert params_text("(a, b=1, *, c=None)") == "(a, b=, *, c=)"


# --------------------------------------------------------------------------------------------
# Issue 39: a default written another way is no flip, and a default that only became None (the
# function decides it in its body) is a flip only when a curated change claims it.

def _fn_locks(before: dict[str, str], after: dict[str, str]):
    return tuple(parse_runtime(_lock({n: ("public", "function", f"{n.rsplit('.', 1)[0]}:{n.rsplit('.', 1)[1]}", sig)
                                      for n, sig in sigs.items()})) for sigs in (before, after))


def test_equal_default_values_are_no_flip():
    a, b = _fn_locks({"torch.optim.lr_scheduler.CosineAnnealingLR": "(optimizer, T_max, eta_min=0, last_epoch=-1)",
                      "torch.nn.Softplus": "(beta=1, threshold=20)",
                      "torch.f": "(a, mode='x', shape=(1,2), d={'k': 1})",
                      "torch.flag": "(a, flag=True)",
                      "torch.shape": "(a, shape=(1, 2))",
                      "torch.moved": "(a, *, eta_min=0, extra=None)"},
                     {"torch.optim.lr_scheduler.CosineAnnealingLR": "(optimizer, T_max, eta_min=0.0, last_epoch=-1)",
                      "torch.nn.Softplus": "(beta=1.0, threshold=20.0)",
                      "torch.f": '(a, mode="x", shape=(1, 2), d={"k": 1.0})',
                      "torch.flag": "(a, flag=1)",             # a bool is not an int: `flag is True` now fails
                      "torch.shape": "(a, shape=[1, 2])",      # a tuple is not a list
                      "torch.moved": "(a, *, eta_min=0.0)"})   # another shape: changed, with no default flip
    d = runtime_diff(a, b)
    assert [e["name"] for e in d["default_changed"]] == ["torch.flag", "torch.shape"]
    assert d["default_changed"][0]["defaults"] == [{"param": "flag", "old": "True", "new": "1"}]
    assert d["default_none"] == []
    assert [(e["name"], e["defaults"], e["defaults_none"]) for e in d["changed"]] == [("torch.moved", [], [])]


def test_a_default_that_becomes_none_is_no_flip_unless_a_curated_change_claims_it():
    a, b = _fn_locks({"torch.distributed.scatter": "(tensor, scatter_list=None, src=0, group=None, async_op=False)",
                      "torch.distributed.gather": "(tensor, gather_list=None, dst=0, group=None)",
                      "torch.optim.sgd.sgd": "(params, has_sparse_grad=None)",
                      "torch.onnx.export": "(model, args, f=None, dynamo=False)"},
                     {"torch.distributed.scatter": "(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None)",
                      "torch.distributed.gather": "(tensor, gather_list=None, dst=None, group=None)",
                      "torch.optim.sgd.sgd": "(params, has_sparse_grad=False)",
                      "torch.onnx.export": "(model, args, f=None, dynamo=True)"})
    d = runtime_diff(a, b)
    assert [e["name"] for e in d["default_changed"]] == ["torch.onnx.export"]        # False -> True stays a flip
    assert d["default_changed"][0]["defaults"] == [{"param": "dynamo", "old": "False", "new": "True"}]
    assert [(e["name"], e["defaults"], e["defaults_none"]) for e in d["default_none"]] == [
        ("torch.distributed.gather", [], [{"param": "dst", "old": "0", "new": "None", "to_none": True}]),
        ("torch.optim.sgd.sgd", [], [{"param": "has_sparse_grad", "old": "None", "new": "False", "to_none": False}])]
    scatter = d["changed"][0]                    # gained group_src: changed, and src=0 -> None is no flip in it
    assert scatter["params_added"] == ["group_src"]
    assert scatter["defaults"] == [] and scatter["defaults_none"] == [{"param": "src", "old": "0", "new": "None", "to_none": True}]
    claimed = runtime_diff(a, b, {("torch.distributed.scatter", "src"), ("torch.distributed.gather", "dst")})
    assert claimed["changed"][0]["defaults"] == [{"param": "src", "old": "0", "new": "None"}]
    assert [e["name"] for e in claimed["default_changed"]] == ["torch.distributed.gather", "torch.onnx.export"]
    assert [e["name"] for e in claimed["default_none"]] == ["torch.optim.sgd.sgd"]


def test_committed_locks_no_flip_for_eta_min_or_scatter_src(factbase):
    """The audit's false flips, in the committed locks: CosineAnnealingLR writes eta_min=0 in 2.4.1
    and 0.0 from 2.5.1; scatter's src=0 becomes None in 2.6.0 (2.9 falls back to 0). Neither is
    a flip; torch.onnx.export's dynamo=False -> True (2.9) and the curated hub flip (2.11) stay."""
    from atlas.enrich import claimed_defaults

    rt, claimed = factbase.runtimes, claimed_defaults(factbase)
    cos, scatter = "torch.optim.lr_scheduler.CosineAnnealingLR", "torch.distributed.scatter"
    assert "eta_min=0," in rt["2.4.1"].rows[cos].signature and "eta_min=0.0," in rt["2.5.1"].rows[cos].signature
    assert "src=0," in rt["2.5.1"].rows[scatter].signature and "src=None," in rt["2.6.0"].rows[scatter].signature
    assert ("torch.onnx.export", "dynamo") in claimed and (scatter, "src") not in claimed

    def entries(old: str, new: str, names=(cos, scatter, "torch.onnx.export", "torch.hub.load")) -> dict[str, list]:
        d = runtime_diff(rt[old], rt[new], claimed)
        return {k: [e for e in d[k] if e["name"] in names] for k in ("changed", "default_changed", "default_none")}
    assert entries("2.4.1", "2.5.1", [cos]) == {"changed": [], "default_changed": [], "default_none": []}
    far = entries("2.4.1", "2.9.1")          # verbose= left CosineAnnealingLR: changed, eta_min is no flip in it
    assert {e["name"]: e["defaults"] for e in far["changed"]} == {cos: [], scatter: [], "torch.onnx.export": [
        {"param": "dynamo", "old": "False", "new": "True"}]}
    assert next(e for e in far["changed"] if e["name"] == scatter)["defaults_none"] == [
        {"param": "src", "old": "0", "new": "None", "to_none": True}]
    assert [e["name"] for e in entries("2.10.0", "2.11.0")["default_changed"]] == ["torch.hub.load"]   # None -> 'check', claimed


def test_a_bad_lock_names_its_line():
    with pytest.raises(ValueError, match="line 3"):
        parse_runtime("# torch=x\ntorch\tpublic\tmodule\ttorch:\t\ntorch.a\tgone\t\t\t\n")
    with pytest.raises(ValueError, match="line 1"):
        parse_runtime("torch\tpublic\tmodule\ttorch:\t\n")


def test_committed_locks_answer_every_name_the_surfaces_propose(factbase):
    """Each runtime lock was asked about exactly the names the committed surfaces propose (a
    surface rewritten by `atlas evidence` makes the locks stale: rerun `atlas runtime`)."""
    from atlas.wheel.runtime_lock import names_asked

    asked = set(names_asked(factbase))
    assert factbase.runtimes, "no runtime lock committed"
    assert set(factbase.runtimes) == set(factbase.surfaces), "a release has a surface and no runtime lock"
    for v, rt in factbase.runtimes.items():
        assert set(rt.rows) == asked, f"runtime-{v}.txt: asked about other names than the surfaces propose"
        assert rt.head["torch"].split("+")[0] == v


# --------------------------------------------------------------------------------------------
# Issue 26: a curated change's `wheel:` claims are judged by the committed locks; one they
# contradict stops the build with the file, the change and the claim.

def test_wheel_claims_judge_each_kind_and_can_fail():
    from atlas.schema import WheelClaim
    from atlas.wheel import judge, parse_runtime
    from atlas.wheel.deprecations import Deprecation

    head = "# torch={v} python=3.11.7 names=1 public=1 unknown=0\n"
    rt = {"9.0.0": parse_runtime(head.format(v="9.0.0") + "torch.f\tpublic\tfunction\ttorch:f\t(a, *, flag=False)\n"),
          "9.1.0": parse_runtime(head.format(v="9.1.0") + "torch.f\tpublic\tfunction\ttorch:f\t(a, *, flag=True)\n"
                                 "torch.g\tpublic\tfunction\ttorch:g\t(a)\n")}
    warn = Deprecation("torch.mod.h", "warn", "FutureWarning", "torch.g", "`torch.mod.h` is deprecated, use torch.g")
    deps = {"9.0.0": [], "9.1.0": [warn]}

    def verdict(**kw):
        return judge(WheelClaim(**kw), "9.1.0", "9.0.0", rt, deps)

    assert verdict(kind="default", name="torch.f", param="flag", default="True").ok
    assert (verdict(kind="default", name="torch.f", param="flag", default="True").was) == "False"
    bad = verdict(kind="default", name="torch.f", param="flag", default="False")
    assert not bad.ok and bad.why == "torch 9.1.0 gives torch.f(flag=True)"
    assert verdict(kind="warns", name="torch.mod.h").ok
    assert verdict(kind="warns", name="torch.mod.h").shown.startswith("`torch.mod.h` is deprecated")
    assert not verdict(kind="warns", name="torch.mod.h", contains="removed").ok
    assert not verdict(kind="stops_warning", name="torch.mod.h").ok      # it starts, it does not stop
    assert verdict(kind="resolves", name="torch.g").ok and not verdict(kind="absent", name="torch.g").ok
    assert not verdict(kind="resolves", name="torch.nothing").ok
    # the registry's file list: a CPython version or a platform whose wheels end in this release
    pw = {"9.0.0": {"linux-x86_64": {"3.9": "manylinux1_x86_64", "3.10": "manylinux1_x86_64"},
                    "macos-x86_64": {"3.10": "macosx_10_9_x86_64"}},
          "9.1.0": {"linux-x86_64": {"3.10": "manylinux_2_28_x86_64"}}}

    def reg(kind, name):
        return judge(WheelClaim(kind=kind, name=name), "9.1.0", "9.0.0", rt, deps, pw)

    assert reg("no_python", "3.9").ok and reg("no_platform", "macos-x86_64").ok
    assert not reg("no_python", "3.10").ok and reg("no_python", "3.10").why == "the registry lists CPython 3.10 wheels of torch 9.1.0"
    assert not reg("no_python", "3.8").ok          # never had one: nothing ended
    assert not reg("no_platform", "linux-x86_64").ok
    assert not judge(WheelClaim(kind="no_python", name="3.9"), "9.1.0", "9.0.0", rt, deps, {}).ok   # no file list read


def test_a_contradicted_wheel_claim_stops_the_build_naming_file_change_and_claim(data_copy):
    from atlas.load import load
    from atlas.problems import DataError
    from atlas.validate import validate

    assert validate(load(data_copy)).confirmations["29-onnx-dynamo-default"][0].ok
    f = data_copy / "releases" / "2.9.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace('param: dynamo, default: "True"', 'param: dynamo, default: "False"'),
                 encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert ("data/releases/2.9.yaml: 29-onnx-dynamo-default: wheel.0: the wheel locks contradict "
            "'default torch.onnx.export': torch 2.9.1 gives torch.onnx.export(dynamo=True)") in info.value.problems


def test_the_registry_file_list_is_read_per_platform_family():
    """Each CPython wheel per platform family, its tag; a rebuild (build tag) wins, a local variant
    (+cpu) and an sdist are not counted; the free-threaded ABI is 3.13t."""
    from atlas.wheel.extract import platform_files

    names = ["torch-2.10.0-2-cp310-none-macosx_14_0_arm64.whl", "torch-2.10.0-cp310-none-macosx_11_0_arm64.whl",
             "torch-2.10.0+cpu-cp310-cp310-win_amd64.whl", "torch-2.10.0-cp313-cp313t-manylinux_2_28_x86_64.whl",
             "torch-2.10.0-cp312-cp312-win_amd64.whl", "torch-2.10.0.tar.gz", "torch-2.9.1-cp310-cp310-win_amd64.whl"]
    assert platform_files(names, ["2.10.0"]) == {"2.10.0": {
        "linux-x86_64": {"3.13t": "manylinux_2_28_x86_64"},
        "macos-arm64": {"3.10": "macosx_14_0_arm64"},
        "windows-x86_64": {"3.12": "win_amd64"}}}
