"""Runs inside a throwaway virtualenv that has one torch release (``make_checkpoints.py`` copies it
there, alone in its folder): the ``weights_only`` allow-list, the fixtures, the ground truth.

  python ckpt_probe.py allow OUT.txt           # the allow-list of the installed release
  python ckpt_probe.py make DIR [--all]        # the fixtures this release writes (--all: every kind)
  python ckpt_probe.py load DIR OUT.json       # torch.load of every fixture in DIR, both ways

In:  the installed torch (and numpy); fixtures in DIR. Out: OUT.txt (one fully-qualified global a
     line after ``#`` header lines); fixture files ``<kind>-<torch version>.<ext>``; OUT.json
     ``{file: {"weights_only": {"ok", "error"}, "default": {...}, "unsafe": [...] | null}}``.
Standard library, torch and numpy only: it is run by the release's own Python.
"""
import argparse
import collections
import inspect
import json
import os
import pickle
import re
import sys
import warnings
import zipfile

import torch

warnings.simplefilter("ignore")
V = torch.__version__.split("+")[0]


def allow(out):
    import torch.serialization as ts
    from torch import _weights_only_unpickler as wu
    names = sorted(wu._get_allowed_globals())
    default = inspect.signature(torch.load).parameters["weights_only"].default
    if default is None:   # resolved at call time: 2.4-2.5 take None as False (with a warning), 2.6 on
        # serialization._default_to_weights_only(pickle_module), True when no pickle module is given
        default = observed_default()
    head = [
        f"# torch {V}: torch._weights_only_unpickler._get_allowed_globals() of the installed release "
        f"(pip install torch==={V} in a throwaway venv; scripts/dev/make_checkpoints.py)",
        f"# default-weights-only: {default}",
        f"# add-safe-globals: {hasattr(ts, 'add_safe_globals')}",
        f"# safe-globals-context: {hasattr(ts, 'safe_globals')}",
        "# blocklisted-modules: " + " ".join(getattr(wu, "_blocklisted_modules", [])),
        "# writes: " + " ".join(writes()),
        "# opcodes: " + " ".join(opcodes(wu)),
    ]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(head + names) + "\n")


def observed_default():
    """Whether torch.load(f) with its defaults refuses a file holding an argparse.Namespace."""
    import argparse as ap
    path = f"/tmp/_ckpt_probe_ns_{os.getpid()}.pt"
    torch.save({"args": ap.Namespace(a=1)}, path)
    try:
        torch.load(path)
        return False
    except pickle.UnpicklingError:
        return True
    finally:
        os.remove(path)


def opcodes(wu):
    """The pickle opcodes the weights_only unpickler reads (the names its load loop tests, X[0])."""
    return sorted(set(re.findall(r"\b([A-Z][A-Z_0-9]*)\[0\]", inspect.getsource(wu.Unpickler.load))))


def writes():
    """What this release's torch.save records beside data.pkl (member name=content, for small ones)."""
    path = f"/tmp/_ckpt_probe_{os.getpid()}.pt"
    torch.save({"w": torch.ones(1)}, path)
    out = []
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            rel = info.filename.split("/", 1)[1]
            if rel == "data.pkl" or rel.startswith("data/"):
                continue
            body = z.read(info).decode("utf-8", "replace").strip()
            out.append(f"{rel}={body if re.fullmatch(r'[A-Za-z0-9._-]{1,20}', body) else '*'}")
    os.remove(path)
    return sorted(out)


def make(folder, every):
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
    sd = model.state_dict()
    p = lambda kind, ext="pt": os.path.join(folder, f"{kind}-{V}.{ext}")  # noqa: E731
    torch.save(sd, p("state_dict"))
    if not every:
        return
    import argparse as ap

    import numpy as np
    torch.save(model, p("model"))
    torch.save({"model": sd, "args": ap.Namespace(lr=0.1, epochs=2)}, p("namespace"))
    torch.save({"w": np.arange(4, dtype=np.float32), "step": 3}, p("numpy"))
    torch.save(collections.OrderedDict([("a", torch.ones(2)), ("b", 3)]), p("ordereddict"))
    torch.save(sd, p("legacy"), _use_new_zipfile_serialization=False)
    with open(p("plain", "pkl"), "wb") as f:
        pickle.dump({"epoch": 3, "loss": [0.5, 0.25], "order": collections.OrderedDict(a=1)}, f)


def _try(fn):
    try:
        fn()
        return {"ok": True, "error": None}
    except Exception as exc:   # noqa: BLE001 - the outcome is the data
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}".splitlines()[0][:300]}


def load(folder, out):
    import torch.serialization as ts
    got = {}
    for name in sorted(n for n in os.listdir(folder) if n.endswith((".pt", ".pkl"))):   # not manifest.json
        path = os.path.join(folder, name)
        row = {"weights_only": _try(lambda p=path: torch.load(p, map_location="cpu", weights_only=True)),
               "default": _try(lambda p=path: torch.load(p, map_location="cpu")), "unsafe": None}
        if hasattr(ts, "get_unsafe_globals_in_checkpoint"):
            try:
                row["unsafe"] = sorted(ts.get_unsafe_globals_in_checkpoint(path))
            except Exception as exc:   # noqa: BLE001
                row["unsafe"] = f"{type(exc).__name__}: " + str(exc).splitlines()[0][:200]
        got[name] = row
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"torch": V, "loads": got}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    a = argparse.ArgumentParser()
    a.add_argument("mode", choices=["allow", "make", "load"])
    a.add_argument("args", nargs="+")
    a.add_argument("--all", action="store_true")
    ns = a.parse_args()
    os.environ.pop("TORCH_FORCE_WEIGHTS_ONLY_LOAD", None)
    {"allow": lambda: allow(ns.args[0]), "make": lambda: make(ns.args[0], ns.all),
     "load": lambda: load(ns.args[0], ns.args[1])}[ns.mode]()
    sys.exit(0)
