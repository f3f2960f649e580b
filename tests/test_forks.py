"""Builds render half of the languages and the search index on another core (atlas/forks.py).
The forked results must be byte-identical to the serial ones, and a failure in the child must
come back as the same clean error. Run in a subprocess: this pytest process may hold other
threads (Playwright), and forking a process with threads is what forks.py avoids."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

SCRIPT = r"""
import hashlib, sys
sys.path.insert(0, "scripts")
from atlas import render, search_index
from atlas.enrich import enrich
from atlas.forks import Forked, can_fork
from atlas.load import LANGS, DataError, load
from atlas.validate import validate

assert can_fork()
atlas = enrich(validate(load(), None))
serial = render.render_all(atlas, LANGS, "http://x/")
forked = render.render_all(atlas, LANGS, "http://x/", fork=True)
assert list(serial) == list(forked), "page order differs"
assert serial == forked, [k for k in serial if serial[k] != forked.get(k)][:5]
assert Forked(search_index.encode, atlas).result() == search_index.encode(atlas)

def bad_data():
    raise DataError(["data/releases/2.15.yaml: 215-x: title: bad"])

def crash():
    raise KeyError("boom")

try:
    Forked(bad_data).result()
    raise SystemExit("a DataError in the child was lost")
except DataError as exc:
    assert exc.problems == ["data/releases/2.15.yaml: 215-x: title: bad"], exc.problems
try:
    Forked(crash).result()
    raise SystemExit("a crash in the child was lost")
except RuntimeError as exc:
    assert str(exc) == "KeyError: 'boom'", exc
print("ok", len(serial))
"""


def test_forked_pages_and_index_equal_serial_ones_and_errors_come_back():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert proc.stdout.startswith("ok ") and int(proc.stdout.split()[1]) > 300, proc.stdout


def test_without_fork_the_step_runs_in_process_with_the_same_outcomes(monkeypatch):
    """Where fork does not exist (Windows), Forked runs the step at once, here; values and errors are the same."""
    import os

    import pytest

    from atlas import forks
    from atlas.load import DataError

    monkeypatch.setattr(forks, "can_fork", lambda: False)
    job = forks.Forked(os.getpid)
    assert job.proc is None and job.result() == os.getpid()   # ran in this process

    def bad():
        raise DataError(["data/x.yaml: y: z: bad"])

    with pytest.raises(DataError) as caught:
        forks.Forked(bad).result()
    assert caught.value.problems == ["data/x.yaml: y: z: bad"]
    with pytest.raises(RuntimeError, match="KeyError: 'k'"):
        forks.Forked(lambda: {}["k"]).result()
