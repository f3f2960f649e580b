"""Builds render the languages after the first, and the search index, on another core
(atlas/forks.py, site.pipeline). The forked results must be byte-identical to the serial ones,
and a failure in the child must come back as the same clean error. Run in a subprocess: this
pytest process may hold other threads (Playwright), and forking a process with threads is what
forks.py avoids."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

SCRIPT = r"""
import hashlib, sys
sys.path.insert(0, "scripts")
from atlas import render, search_index, site
from atlas.forks import Forked, can_fork
from atlas.load import LANGS, DataError, load

assert can_fork()
serial = site.pipeline(load(), LANGS, site_url="http://x/")
forked = site.pipeline(load(), LANGS, site_url="http://x/", fork=True)
assert serial.later is None and forked.later is not None
assert {k.split("/")[0] for k in forked.pages} == {LANGS[0]}, "only the first language renders at once"
pages = {**forked.pages, **forked.later.result()}
assert list(serial.pages) == list(pages), "page order differs"
assert serial.pages == pages, [k for k in serial.pages if serial.pages[k] != pages.get(k)][:5]
assert serial.api_files == forked.api_files
atlas = serial.atlas
assert Forked(search_index.encode, atlas).result() == search_index.encode(atlas)

# a later language that fails to render: the first language's pages are fine, the error comes back
pages_of = render.Renderer.pages
def failing(self):
    if self.lang == LANGS[-1]:
        raise DataError([f"data/translations/{self.lang}/releases/2.15.yaml: 215-x: title: broken"])
    return pages_of(self)
render.Renderer.pages = failing
broken = site.pipeline(load(), LANGS, fork=True)
assert broken.pages
try:
    broken.later.result()
    raise SystemExit("a later language's DataError was lost")
except DataError as exc:
    assert exc.problems == [f"data/translations/{LANGS[-1]}/releases/2.15.yaml: 215-x: title: broken"], exc.problems
render.Renderer.pages = pages_of

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
print("ok", len(serial.pages))
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


INJECT = '''
import sys
sys.path.insert(0, {scripts!r})
from atlas import render
from atlas.load import DataError

_pages = render.Renderer.pages

def pages(self):
    if self.lang == {lang!r}:
        raise DataError([{problem!r}])
    return _pages(self)

render.Renderer.pages = pages
'''


def test_a_later_language_that_fails_to_render_stops_the_build_cleanly(built_site, tmp_path):
    """The languages after the first render while MkDocs builds the first: an error there stops the
    build before the next language, with the named error and no traceback, and the last good site stays."""
    import os
    import shutil

    from atlas.load import LANGS
    from conftest import repo_copy

    repo = repo_copy(tmp_path / "repo")
    site_dir = repo / "site"
    shutil.copytree(built_site, site_dir)
    before = {p: p.read_bytes() for p in (site_dir / "changes" / "215-dcp-strides").rglob("*") if p.is_file()}
    problem = f"data/translations/{LANGS[-1]}/releases/2.15.yaml: 215-dcp-strides: title: broken on purpose"
    inject = tmp_path / "inject"
    inject.mkdir()   # sitecustomize runs first in every Python process started with this PYTHONPATH
    (inject / "sitecustomize.py").write_text(
        INJECT.format(scripts=str(repo / "scripts"), lang=LANGS[-1], problem=problem), encoding="utf-8")
    proc = subprocess.run([sys.executable, "scripts/build.py", "--site-dir", str(site_dir)], cwd=repo,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(inject)})
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-2000:]
    assert problem in out and "Traceback" not in out, out[-3000:]
    assert f"Building '{LANGS[0]}' documentation" in out and f"Building '{LANGS[-1]}'" not in out, out[-3000:]
    assert {p: p.read_bytes() for p in before} == before, "the last good site was changed"
