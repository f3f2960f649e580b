"""`make serve` follows the data and the code: an edit under data/ or to a module of the pipeline
refreshes the served page, and a bad edit prints the validator's message while the last good
pages stay served. Runs `mkdocs serve` (one language, as `make serve SERVE_LANG=en`) in a copy of
the repository (on the small history, conftest.small_history), with the copy's own package."""
from __future__ import annotations

import re

import pytest

from conftest import repo_copy, small_history

pytestmark = pytest.mark.slow


@pytest.fixture
def serving(tmp_path):
    import serve_watch
    import static_server

    repo = small_history(repo_copy(tmp_path / "repo"))
    s = serve_watch.Serve(repo, static_server.free_port(), lang="en")
    yield repo, s
    s.stop()


def test_serve_rebuilds_on_data_edits_and_keeps_the_last_good_pages(serving):
    import serve_watch

    repo, s = serving
    page = "changes/215-dcp-strides/"
    # served only once mkdocs watches the files (it starts its observer before serving)
    s.wait_for(page, "Distributed checkpoints saved by")
    rel = repo / "data" / "releases" / "2.15.yaml"
    serve_watch.edit_to_refresh(s, rel, "Distributed checkpoints saved by", "Distributed checkpoints written by", page)
    good = s.get(page)[1]
    text = rel.read_text(encoding="utf-8")
    before = len(s.lines)
    rel.write_text(text.replace("released: 2026-10-28", "released: 2026-10-99"), encoding="utf-8")
    s.wait_output("data/releases/2.15.yaml: 2.15: released:", since=before)
    # the end of the failed rebuild (hook.on_serve), or a crash
    out = s.wait_output(("the last good pages are still served", "Traceback"), since=before)
    assert "Traceback" not in out, out[-3000:]
    assert s.proc.poll() is None, "mkdocs serve stopped on a bad edit"
    status, body = s.get(page)
    epoch = re.compile(r"livereload\(\d+, \d+\)")  # mkdocs' reload counter, not the page
    assert status == 200 and epoch.sub("", body) == epoch.sub("", good)  # the last good page, unchanged
    rel.write_text(text.replace("Distributed checkpoints written by", "Distributed checkpoints stored by"), encoding="utf-8")
    s.wait_for(page, "Distributed checkpoints stored by")  # fixing the data brings the pages back to life
    # an edit to a module of the pipeline takes effect without a restart
    render = repo / "scripts" / "atlas" / "render.py"
    code = render.read_text(encoding="utf-8")
    old = "; edit the data, then run `make build` -->"
    assert code.count(old) == 1
    render.write_text(code.replace(old, "; edit the data, then run `make build` (serve-test-edit) -->"), encoding="utf-8")
    before = len(s.lines)
    s.wait_for(page, "(serve-test-edit)", timeout=60)
    assert "pipeline code changed; reloaded" in "".join(s.lines[before:])
    assert s.proc.poll() is None
