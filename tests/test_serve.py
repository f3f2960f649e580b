"""`make serve` follows the data and the code: an edit under data/ or to a module of the pipeline
refreshes the served page, and a bad edit prints the validator's message while the last good
pages stay served. Runs `mkdocs serve` (one language, as `make serve SERVE_LANG=en`) in a copy of
the repository (on the small history, conftest.small_history), with the copy's own package.

Serve renders again only the pages an edit of texts changes (atlas/incremental.py): after each kind
of edit, in process, the pages it keeps and renders must be exactly those of a full render."""
from __future__ import annotations

import re
import shutil

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
    # the title is on the upgrade page too, which the incremental render must not leave stale
    s.wait_for("upgrade/2.14-to-2.15/", "Distributed checkpoints written by")
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
    s.wait_for(page, "(serve-test-edit)")
    assert "pipeline code changed; reloaded" in "".join(s.lines[before:])
    assert s.proc.poll() is None


URL = "http://127.0.0.1:8000/"
CHANGE, UPGRADE = "changes/215-dcp-strides.md", "upgrade/2.14-to-2.15.md"


def _edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_incremental_render_equals_a_full_render_after_each_kind_of_edit(tmp_path, own_templates):
    """A text edit (English, then a translation) renders only the pages that read it, and they
    show it (the change page and the upgrade page); undoing it gives back the first pages; a value
    and a UI string edit render everything; a template edit renders the pages of that template (the
    FAQ) or of every template importing it (the macros). Each time, the pages equal a full render's."""
    from atlas.langs import LANGS
    from atlas.load import DATA, load
    from atlas.pipeline import fingerprints, pipeline

    shutil.copytree(DATA, tmp_path / "data")
    data = small_history(tmp_path) / "data"

    def run(previous=None, full=False):
        built = pipeline(load(data), LANGS, URL, None if full else previous, None if full else fingerprints(URL, data)[1])
        return built.rendered

    first = run()
    total = len(first.pages)
    rel, zh = data / "releases" / "2.15.yaml", data / "translations" / "zh" / "releases" / "2.15.yaml"

    _edit(rel, "title: Distributed checkpoints saved by", "title: Distributed checkpoints kept by")
    text = run(first)
    assert text.pages == run(full=True).pages
    assert 0 < text.rendered < total / 4          # the shortcut was taken: not every page rendered
    for page in (CHANGE, UPGRADE):
        assert "Distributed checkpoints kept by" in text.pages[f"en/{page}"]
        assert "Distributed checkpoints saved by" not in text.pages[f"en/{page}"]
        assert text.pages[f"zh/{page}"] == first.pages[f"zh/{page}"]

    _edit(zh, "text: 分布式检查点：{version} 写出的文件", "text: 分布式检查点：{version} 保存的文件")
    translated = run(text)
    assert translated.pages == run(full=True).pages
    assert 0 < translated.rendered < total / 4
    assert all("保存的文件" in translated.pages[f"zh/{page}"] for page in (CHANGE, UPGRADE))

    _edit(rel, "title: Distributed checkpoints kept by", "title: Distributed checkpoints saved by")
    _edit(zh, "text: 分布式检查点：{version} 保存的文件", "text: 分布式检查点：{version} 写出的文件")
    undone = run(translated)
    assert undone.pages == first.pages

    _edit(rel, 'older: "2.14"', 'older: "2.13"')    # a value: named by the title on both pages
    value = run(undone)
    assert value.rendered == total and value.pages == run(full=True).pages
    assert all(value.pages[f"en/{page}"] != first.pages[f"en/{page}"] for page in (CHANGE, UPGRADE))

    _edit(data / "i18n" / "en.yaml", "changes.title: All changes", "changes.title: Every change")
    ui = run(value)
    assert ui.rendered == total and ui.pages == run(full=True).pages
    assert "Every change" in ui.pages["en/changes/index.md"]

    same = run(ui)    # own_templates: the renderer reads a copy of the templates, which this test edits
    assert same.rendered == 0 and same.pages == ui.pages
    _edit(own_templates / "faq.md.j2", "{% for rel in rels %}", "(template-edit)\n\n{% for rel in rels %}")
    faq = run(same)
    assert faq.pages == run(full=True).pages
    edited = {p for p, md in faq.pages.items() if md != same.pages[p]}
    assert edited and all("/faq/" in p and "(template-edit)" in faq.pages[p] for p in edited)
    assert faq.rendered == sum("/faq/" in p for p in faq.pages) < total / 10
    _edit(own_templates / "_macros.md.j2", "{% macro change_more(c, path, cls=\"\", fix=True) -%}",
          "{% macro change_more(c, path, cls=\"\", fix=True) -%}\n(macro-edit)")
    macros = run(faq)
    assert macros.pages == run(full=True).pages and total / 2 < macros.rendered < total
    assert "(macro-edit)" in macros.pages[f"en/{UPGRADE}"] and "(macro-edit)" not in macros.pages["en/api.md"]
