"""The tools around the pipeline: one language list, a fifth language, clean errors from every
`atlas` subcommand, `make clean` without a virtualenv, and a house a fresh clone can live in."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from atlas.langs import LANGS
from conftest import HOSTILE_ID, HOSTILE_PLAIN, ROOT, repo_copy
from conftest import run_atlas as _atlas

UNKNOWN_NOTE_SOURCE = "data/releases/2.15.yaml: 2.15: notes.0.sources.0.source: unknown source 'no-such-source'"


def test_mkdocs_languages_are_the_one_language_list():
    """mkdocs.yml repeats the languages for the i18n plugin: it must list exactly LANGS, English default."""
    cfg = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_MkDocsLoader)
    i18n = next(p["i18n"] for p in cfg["plugins"] if isinstance(p, dict) and "i18n" in p)
    assert [lang["locale"] for lang in i18n["languages"]] == list(LANGS)
    assert [lang["locale"] for lang in i18n["languages"] if lang.get("default")] == [LANGS[0]]
    assert cfg["theme"]["language"] == LANGS[0]
    for lang in LANGS:  # the hand-written page and the UI strings exist for every language
        assert (ROOT / "docs" / lang / "about.md").exists(), lang
        assert (ROOT / "data" / "i18n" / f"{lang}.yaml").exists(), lang


class _MkDocsLoader(yaml.SafeLoader):
    pass


_MkDocsLoader.add_constructor("!ENV", lambda loader, node: None)


@pytest.fixture(scope="module")
def broken_repo(tmp_path_factory) -> Path:
    """A repository copy whose release note cites an unknown source (the validator used to skip notes)."""
    repo = repo_copy(tmp_path_factory.mktemp("broken") / "repo")
    rel = repo / "data" / "releases" / "2.15.yaml"
    text = rel.read_text(encoding="utf-8")
    rel.write_text(text.replace('      - {source: zh-arex-215, locator: "北京时间', '      - {source: no-such-source, locator: "北京时间', 1),
                   encoding="utf-8")
    return repo


@pytest.mark.parametrize("args", [
    ["build", "--site-dir", "out"],
    ["i18n", "status"],
    ["i18n", "check"],
    ["provenance", "--sources", "."],
    ["evidence", "--check"],
    ["publish-ids"],
    ["feed", "check"],
    ["check", "code", "data"],
], ids=lambda a: "-".join(a[:2]))
def test_every_subcommand_reports_bad_data_as_file_id_field_message(broken_repo, args):
    proc = _atlas(broken_repo, *args)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-2000:]
    assert "Traceback" not in out, out[-3000:]
    assert UNKNOWN_NOTE_SOURCE in out, out[-2000:]


@pytest.mark.parametrize("args,message", [
    (["i18n", "stub"], "'stub' needs a language"),
    (["i18n", "stamp", "zh", "no-such.key"], "no English text has the key(s) no-such.key"),
    (["i18n", "stamp-ui", "ru", "no.such.ui"], "no UI string no.such.ui"),
    (["i18n", "stub", "xx"], "unknown language 'xx'"),
    (["i18n", "frobnicate"], "unknown command 'frobnicate'"),
    (["provenance", "--sources", "/nonexistent/sources"], "/nonexistent/sources does not exist"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_subcommands_report_usage_errors_without_a_traceback(args, message):
    proc = _atlas(ROOT, *args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert message in proc.stderr, proc.stderr


def test_atlas_help_lists_every_subcommand():
    proc = _atlas(ROOT, "--help")
    assert proc.returncode == 0
    for name in ("build", "serve", "i18n", "provenance", "evidence", "publish-ids", "feed", "check", "clean"):
        assert f"    {name}" in proc.stdout, name


def test_one_bad_date_gives_one_to_three_messages(tmp_path):
    """A typo in a release's header used to drop the whole release, and every reference into it
    (translations, the ledger, search aliases, FAQ links) was reported too: 75 messages."""
    repo = repo_copy(tmp_path / "repo")
    rel = repo / "data" / "releases" / "2.15.yaml"
    text = rel.read_text(encoding="utf-8")
    assert text.count("\nreleased: 2026-10-28\n") == 1
    rel.write_text(text.replace("\nreleased: 2026-10-28\n", "\nreleased: 2026-10-99\n"), encoding="utf-8")
    proc = _atlas(repo, "i18n", "status")
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("data/")]
    assert proc.returncode == 1 and 1 <= len(lines) <= 3, proc.stderr
    assert lines[0].startswith("data/releases/2.15.yaml: 2.15: released: "), lines


def test_make_clean_needs_no_virtualenv(tmp_path):
    """`make clean` removes generated pages (and only those) with the bare Python, no .venv."""
    repo = repo_copy(tmp_path / "repo")
    generated = repo / "docs" / "zh" / "changes" / "x.md"
    generated.parent.mkdir(parents=True, exist_ok=True)
    generated.write_text("---\ntitle: x\n---\n")
    (repo / "site").mkdir()
    bare = getattr(sys, "_base_executable", sys.executable)
    proc = subprocess.run(["make", "clean", f"PY={bare}"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not generated.exists() and not (repo / "site").exists()
    assert (repo / "docs" / "zh" / "about.md").exists(), "a hand-written page was removed"


def _tracked() -> list[str]:
    return subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()


def test_no_symlink_and_no_machine_path_is_tracked():
    """A committed symlink (.cache -> a path on one machine) broke every fresh clone."""
    links = [ln.split("\t", 1)[1] for ln in _tracked() if ln.startswith("120000 ")]
    assert not links, f"symlinks in git: {links}"
    # this workplace's checkout root anywhere; any home or install folder outside the tests (whose
    # pasted tracebacks are sample input, not paths anything reads)
    here = re.compile(r"(?<![\w.])/work/[\w.+-]+")
    machine = re.compile(r"(?<![\w.])/(?:root|home|Users|opt|srv)/[\w.+-]+/")
    hits = []
    for ln in _tracked():
        rel = ln.split("\t", 1)[1]
        path = ROOT / rel
        if path.suffix in {".png", ".svg", ".txt"} or not path.is_file():
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if here.search(line) or (not rel.startswith("tests/") and machine.search(line)):
                hits.append(f"{rel}:{i}: {line.strip()[:100]}")
    assert not hits, "absolute paths of a machine:\n" + "\n".join(hits)


def test_gitignore_ignores_exactly_the_generated_pages():
    from atlas.generated import GENERATED_DIRS, GENERATED_FILES

    lines = set((ROOT / ".gitignore").read_text(encoding="utf-8").splitlines())
    wanted = {f"/docs/*/{d}/" for d in GENERATED_DIRS} | {f"/docs/*/{f}" for f in GENERATED_FILES}
    listed = {ln for ln in lines if ln.startswith("/docs/")}
    assert listed == wanted, (sorted(listed - wanted), sorted(wanted - listed))


def test_no_two_modules_share_a_name():
    """`scripts/feed.py` and `atlas/feed.py`, `scripts/build.py` shadowing PyPA's `build`: never again."""
    names: dict[str, list[str]] = {}
    for p in sorted((ROOT / "scripts").rglob("*.py")):
        if p.name not in ("__init__.py", "__main__.py"):
            names.setdefault(p.stem, []).append(str(p.relative_to(ROOT)))
    twice = {k: v for k, v in names.items() if len(v) > 1}
    assert not twice, twice
    import importlib.util

    shadowed = [k for k in names if k not in ("atlas",) and importlib.util.find_spec(k) is not None
                and not (importlib.util.find_spec(k).origin or "").startswith(str(ROOT))]
    assert not shadowed, f"names of installed modules: {shadowed}"


def test_the_package_needs_no_sys_path_edits():
    edits = re.compile(r"^\s*sys\.path\.(insert|append)\(", re.M)
    hits = [str(p.relative_to(ROOT)) for d in ("scripts", "tests") for p in (ROOT / d).rglob("*.py")
            if edits.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert not hits, hits


@pytest.mark.slow
def test_a_fifth_language_is_config_plus_translations(variant_site):
    site, new = variant_site, "fr"
    page = (site / new / "changes" / "215-dcp-strides" / "index.html").read_text(encoding="utf-8")
    assert f'<html lang="{new}"' in page
    assert "CheckpointException: too many values to unpack (expected 5)" in page
    release = (site / new / "releases" / "2.15" / "index.html").read_text(encoding="utf-8")
    assert "3\u202f117" in release or "3&nbsp;117" in release or "3\u00a0117" in release   # French digit grouping
    # the English page links its new translation (built in the same run, after English)
    assert f'href="../../{new}/changes/215-dcp-strides/" hreflang="{new}"' in (
        site / "changes" / "215-dcp-strides" / "index.html").read_text(encoding="utf-8")
    assert f'<html lang="{new}"' in (site / new / "404.html").read_text(encoding="utf-8")
    changes = json.loads((site / "api" / "v1" / "changes.json").read_text(encoding="utf-8"))["changes"]
    assert changes[0]["urls"][new].endswith(f"/{new}/changes/{changes[0]['id']}/")   # absolute, on site_url
    assert (site / new / "changes" / changes[0]["id"] / "index.html").exists()


class _Head(HTMLParser):
    """Meta tags, <title> and the tags seen inside <head>."""

    def __init__(self):
        super().__init__()
        self.meta, self.tags, self.in_head, self.title, self.h1, self._where = {}, [], False, "", "", None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "head":
            self.in_head = True
        elif self.in_head:
            self.tags.append(tag)
        if tag == "meta" and (a.get("property") or a.get("name")):
            self.meta[a.get("property") or a.get("name")] = a.get("content")
        if tag in ("title", "h1") and self._where is None:
            self._where = tag

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False
        if tag == self._where:
            self._where = None

    def handle_data(self, data):
        if self._where == "title":
            self.title += data
        elif self._where == "h1":
            self.h1 += data


@pytest.mark.slow
def test_a_hostile_title_is_escaped_in_head_page_and_json(variant_site):
    html = (variant_site / "changes" / HOSTILE_ID / "index.html").read_text(encoding="utf-8")
    head = _Head()
    head.feed(html)
    for name in ("og:title", "twitter:title"):
        assert head.meta[name] == HOSTILE_PLAIN, (name, head.meta.get(name))
    assert "b" not in head.tags, "a tag from the title became markup in <head>"
    assert head.title == HOSTILE_PLAIN + " - Release Atlas", head.title
    assert head.h1.replace("\u00b6", "").strip() == HOSTILE_PLAIN
    changes = json.loads((variant_site / "api" / "v1" / "changes.json").read_text(encoding="utf-8"))["changes"]
    assert next(c for c in changes if c["id"] == HOSTILE_ID)["text"]["en"]["title"] == HOSTILE_PLAIN


def test_a_serve_rebuild_pauses_the_collector_and_always_resumes_it(tmp_path):
    """plugin.on_serve: during a rebuild of `mkdocs serve` Python's collector is off (it would scan
    the server's millions of objects); after the rebuild, after a failed one (bad data: MkDocs'
    Abort) and after a crash, it is on again."""
    import gc

    from mkdocs.exceptions import Abort

    from atlas.plugin import AtlasPlugin

    class Server:
        builder = None

        def unwatch(self, path):
            pass

        def watch(self, path):
            pass

    seen = []

    def builder(config=None):
        seen.append(gc.isenabled())
        if config == "bad data":
            raise Abort("the validator's message")
        if config == "crash":
            raise RuntimeError("boom")

    class Config:
        docs_dir = str(tmp_path / "docs")

    (tmp_path / "docs").mkdir()
    server = AtlasPlugin().on_serve(Server(), config=Config(), builder=builder)
    assert gc.isenabled()
    server.builder()
    assert gc.isenabled()
    server.builder("bad data")
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        server.builder("crash")
    assert gc.isenabled() and seen == [False, False, False]
