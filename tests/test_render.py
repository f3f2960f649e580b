"""Golden files for the templates, and hostile data that must stay text."""
from __future__ import annotations

import os
import re
import shutil
from html import unescape
from pathlib import Path

import jinja2
import jinja2.meta
import markdown
import pytest
import yaml

from atlas.enrich import enrich
from atlas.langs import LANGS, TRANSLATED
from atlas.load import dump, load
from atlas.render import Renderer, environment, fence
from atlas.text import escape, render_html
from atlas.validate import validate
from conftest import FIXTURES, ROOT

GOLDEN = FIXTURES / "golden"
#: One page (at least) per template in scripts/atlas/templates/ (test_every_template_has_a_golden_page checks it).
PAGES = {
    "changes/91-sample.md": "change", "releases/9.1.md": "release", "faq/9.1.md": "faq",
    "index.md": "home", "releases/index.md": "releases", "breaking/index.md": "change_index",
    "changes/index.md": "change_index", "upgrade/index.md": "upgrade_index", "upgrade/9.0-to-9.1.md": "upgrade",
    "errors/index.md": "errors", "faq/index.md": "faq", "sources/index.md": "sources", "api.md": "api",
    "check/index.md": "check",
    "releases/2.0.md": "wheel_release", "upgrade/2.0-to-9.1.md": "upgrade",
    "companions/index.md": "companions",
}


def _fixture_data(tmp_path: Path, release: Path, zh: dict | None = None) -> Path:
    """A data dir with the real sources and UI strings and one fixture release."""
    data = tmp_path / "data"
    (data / "releases").mkdir(parents=True)
    shutil.copy(ROOT / "data" / "sources.yaml", data / "sources.yaml")
    shutil.copy(ROOT / "data" / "wheels.yaml", data / "wheels.yaml")
    shutil.copytree(ROOT / "data" / "i18n", data / "i18n")
    for lang in TRANSLATED:
        shutil.copytree(ROOT / "data" / "translations" / lang, data / "translations" / lang,
                        ignore=shutil.ignore_patterns("releases"))
    shutil.copy(release, data / "releases" / "9.1.yaml")
    if release.parent == GOLDEN:
        # the article the golden release cites is about it: 9.1's facts are an account of the
        # release, 9.0's (cited from an article about 9.1) a partial one (enrich.partial_releases)
        doc = yaml.safe_load((data / "sources.yaml").read_text(encoding="utf-8"))
        next(s for s in doc["sources"] if s["id"] == "zh-arex-215")["about"] = "9.1"
        (data / "sources.yaml").write_text(dump(doc, allow_unicode=True), encoding="utf-8")
        shutil.copy(GOLDEN / "9.0.yaml", data / "releases" / "9.0.yaml")
        shutil.copy(GOLDEN / "evidence.lock.yaml", data / "evidence.lock.yaml")   # one wheel: a release read from it
        for name in ("companions.yaml", "companions.lock.yaml"):   # a few packages around 9.0 and 9.1
            shutil.copy(GOLDEN / name, data / name)
    if zh:
        (data / "translations" / "zh" / "releases").mkdir(parents=True)
        (data / "translations" / "zh" / "releases" / "9.1.yaml").write_text(
            dump(zh, allow_unicode=True), encoding="utf-8")
    return data


@pytest.fixture(scope="module")
def golden_atlas(tmp_path_factory):
    zh = yaml.safe_load((GOLDEN / "translations_zh.yaml").read_text(encoding="utf-8"))
    data = _fixture_data(tmp_path_factory.mktemp("golden"), GOLDEN / "9.1.yaml", zh)
    return enrich(validate(load(data)))


@pytest.fixture(scope="module")
def golden_pages(golden_atlas):
    return {lang: Renderer(golden_atlas, lang).pages() for lang in ("en", "zh")}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", sorted(PAGES))
def test_golden(golden_pages, lang, page):
    got = golden_pages[lang][f"{lang}/{page}"]
    expected = GOLDEN / "expected" / f"{lang}-{page.replace('/', '-')}"
    if os.environ.get("UPDATE_GOLDEN") and (not expected.exists() or expected.read_text(encoding="utf-8") != got):
        expected.write_text(got, encoding="utf-8")
        pytest.fail(f"UPDATE_GOLDEN: rewrote {expected.name}; review `git diff`, then rerun without UPDATE_GOLDEN")
    assert expected.exists(), f"no golden file {expected}; run: UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_render.py"
    assert got == expected.read_text(encoding="utf-8"), (
        f"{page} ({lang}) differs from {expected.name}; if the change is intended run: "
        f"UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_render.py")


#: Computations that live in enrich.py (see its docstring), never in a template again:
#: time zones, the upgrade slug, lists built with append, filters on evidence status, changes, matrix
#: cells or notes, the language prefix.
_COMPUTED_IN_ENRICH = {
    "astimezone": r"astimezone", "zone(": r"\bzone\(", "utc": r"(?<![\w.'\"])utc\b", "upgrade slug": r"""["']-to-["']""",
    "list built by append": r"\.append\(", "filter by evidence status": r"evidence_status\([^)]*\)\s*[!=]=", "rejectattr": r"rejectattr",
    "language prefix": r"lang\s*[!=]=", "release filtered": r"\b(rel|r)\.changes\s*\|",
    "matrix filtered": r"\.matrix\s*\|", "namespace": r"namespace\(", "notes filtered": r"\{%\s*if n\.kind\b",
    "selectattr": r"selectattr", "arithmetic on lengths": r"\|\s*length\s*[-+*/]", "slicing": r"\w\[[\w\s|.+-]*:[\w\s|.+-]*\]",
}


def _template_code(path: Path) -> str:
    """The Jinja code of a template ({{ }} and {% %} only; Markdown and comments left out)."""
    return "\n".join(re.findall(r"\{\{.*?\}\}|\{%.*?%\}", path.read_text(encoding="utf-8"), re.S))


def test_templates_leave_computing_to_enrich():
    found = [f"{p.name}: {what}" for p in (ROOT / "scripts" / "atlas" / "templates").glob("*.j2")
             for what, pattern in _COMPUTED_IN_ENRICH.items() if re.search(pattern, _template_code(p))]
    assert not found, f"computed in a template, belongs in scripts/atlas/enrich.py: {found}"


def test_template_code_check_sees_a_computation(tmp_path):
    """The check above reads the template code: a time-zone conversion inside {{ }} is caught, the word in text is not."""
    page = tmp_path / "x.md.j2"
    page.write_text("Times are astimezone-free. {{ moment_html(e.start.astimezone(utc)) }}\n", encoding="utf-8")
    code = _template_code(page)
    assert code == "{{ moment_html(e.start.astimezone(utc)) }}"
    assert re.search(_COMPUTED_IN_ENRICH["astimezone"], code) and re.search(_COMPUTED_IN_ENRICH["utc"], code)
    for what, sample in (("selectattr", '{% set a = d.groups | selectattr("added") | list %}'),
                         ("arithmetic on lengths", "{{ ui_text('x', n=c.fix.steps | length - 1) }}"),
                         ("slicing", "{{ s.sha256[:12] }}")):
        assert re.search(_COMPUTED_IN_ENRICH[what], sample), what
    assert not re.search(_COMPUTED_IN_ENRICH["slicing"], '{{ fence(\'{"errors": [{"message": "..."}]}\') }}')


def test_every_template_global_is_used(golden_atlas):
    """A helper passed to the templates that no template (or macro) names is dead code."""
    env = environment()
    used = set().union(*(jinja2.meta.find_undeclared_variables(env.parse(p.read_text(encoding="utf-8")))
                         for p in (ROOT / "scripts" / "atlas" / "templates").glob("*.j2")))
    unused = set(Renderer(golden_atlas, "en").globals) - used
    assert not unused, f"template globals no template uses (delete them from Renderer.globals): {sorted(unused)}"


def test_every_template_has_a_golden_page():
    templates = {p.name.split(".")[0] for p in (ROOT / "scripts" / "atlas" / "templates").glob("*.md.j2")
                 if not p.name.startswith("_")}   # _macros, _evidence: partials, covered by the pages that import them
    assert templates == set(PAGES.values()), templates ^ set(PAGES.values())


@pytest.fixture(scope="module")
def hostile_html(tmp_path_factory):
    data = _fixture_data(tmp_path_factory.mktemp("hostile"), FIXTURES / "hostile_release.yaml")
    pages = Renderer(enrich(validate(load(data))), "en").pages()
    md = markdown.Markdown(extensions=["tables", "attr_list", "md_in_html", "admonition", "pymdownx.superfences"])
    body = lambda p: md.reset().convert(pages[p].split("-->", 1)[1])  # noqa: E731 - skip front matter
    return {p: body(p) for p in ("en/changes/91-hostile.md", "en/releases/9.1.md", "en/breaking/index.md",
                                 "en/errors/index.md")}


def test_hostile_text_never_becomes_markup(hostile_html):
    for page, html in hostile_html.items():
        assert "<script" not in html, page
        assert "<img" not in html, page
        assert "<b>" not in html, page
        assert 'href="http://evil' not in html, page


def test_hostile_text_keeps_tables_intact(hostile_html):
    for page, html in hostile_html.items():
        for table in re.findall(r"<table.*?</table>", html, flags=re.S):
            head = len(re.findall(r"<th\b", table.split("</tr>", 1)[0]))
            for row in re.findall(r"<tr.*?</tr>", table, flags=re.S)[1:]:
                assert len(re.findall(r"<td\b", row)) == head, (page, row[:200])


def test_hostile_text_is_shown_as_text(hostile_html):
    html = hostile_html["en/changes/91-hostile.md"]
    assert "&lt;script&gt;" in html and "|" in html.replace("&#124;", "|")
    assert "&lt;b&gt;tags&lt;/b&gt;" in html


def test_fence_outgrows_backticks_in_code():
    assert fence("a ``` b").startswith("````text")
    assert fence("plain").startswith("```text")


def test_escape_neutralises_markdown():
    assert escape("a|b") == "a&#124;b"
    assert "<" not in escape("<script>") and "`" not in escape("`x`")
    assert render_html("{x}", {"x": "a|b"}, "en") == "<code>a&#124;b</code>"


def test_compiled_templates_cache_is_optional_and_survives_damage(tmp_path):
    """.cache/jinja only saves time: an unwritable folder or a damaged file still renders correctly."""
    from atlas.render import _CompiledTemplates

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    templates = {"t.j2": "{{ 6 * 7 }}"}
    env = jinja2.Environment(loader=jinja2.DictLoader(templates), bytecode_cache=_CompiledTemplates(blocker / "jinja"))
    assert env.get_template("t.j2").render() == "42"
    folder = tmp_path / "jinja"
    env = jinja2.Environment(loader=jinja2.DictLoader(templates), bytecode_cache=_CompiledTemplates(folder))
    assert env.get_template("t.j2").render() == "42"
    files = list(folder.iterdir())
    assert files, "nothing was cached"
    for f in files:
        f.write_bytes(b"garbage")
    env = jinja2.Environment(loader=jinja2.DictLoader(templates), bytecode_cache=_CompiledTemplates(folder))
    assert env.get_template("t.j2").render() == "42"


def test_raw_html_blocks_skip_markdown_and_come_back_unchanged():
    """rawhtml: a block between the atlas:raw comments is not read by Markdown and is put back
    byte for byte; a block Markdown would have mangled proves it was not read."""
    from atlas import rawhtml

    block = '<div class="atlas-names">\n*not emphasis* <b>a &amp; b</b>\n\n    not code\n</div>'
    md = f"# Title\n\nText *here*.\n\n{rawhtml.START}\n{block}\n{rawhtml.END}\n\nAfter.\n"
    cut, blocks = rawhtml.cut(md)
    assert blocks == [block] and block not in cut
    html = rawhtml.paste(markdown.markdown(cut), blocks)
    assert block in html and "<em>here</em>" in html and html.index("Title") < html.index(block) < html.index("After")
    with pytest.raises(ValueError):
        rawhtml.paste(markdown.markdown(cut).replace("<!--atlas-raw-0-->", ""), blocks)


def test_raw_html_inside_a_line_skips_markdown_too():
    """A raw block inside a list item or a table cell (a change's disclosure) comes back byte for
    byte, and the Markdown around it is still Markdown."""
    from atlas import rawhtml

    block = "<details><summary>*not emphasis*</summary><p>a_b_c `not code`</p></details>"
    md = (f"1. [link](x.md) *yes*{rawhtml.START}{block}{rawhtml.END}\n2. two\n\n"
          f"| a | b |\n|---|---|\n| *cell* | {rawhtml.START}{block}{rawhtml.END} |\n")
    cut, blocks = rawhtml.cut(md)
    assert blocks == [block, block] and block not in cut
    html = rawhtml.paste(markdown.markdown(cut, extensions=["tables"]), blocks)
    assert html.count(block) == 2 and "<em>yes</em>" in html and "<em>cell</em>" in html
    assert "<li>" in html and "<td>" in html


def test_upgrade_pages_keep_their_finished_html_out_of_markdown(real_pages):
    """The upgrade pages' API diff, deprecation lines and each change's disclosure are raw blocks:
    Markdown reads none of it (most of a build's Markdown time otherwise, and of a rebuild's)."""
    from atlas import rawhtml

    for lang, pages in real_pages.items():
        ups = {p: md for p, md in pages.items() if "/upgrade/" in p and p.endswith("-to-2.15.md")}
        assert len(ups) == 15, lang
        for p, md in ups.items():
            cut, blocks = rawhtml.cut(md)
            assert sum('class="atlas-apidiff"' in b for b in blocks) == 1, p
            for finished in ('class="atlas-apidiff"', 'class="atlas-names"', "<details class=\"atlas-more"):
                assert finished not in cut, (p, finished)
        deps = [md for p, md in pages.items() if "/upgrade/" in p and 'class="atlas-names"' in rawhtml.cut(md)[0]]
        assert not deps, lang


@pytest.mark.parametrize("lang", ["en", *TRANSLATED])
def test_api_diff_group_summaries_count_only_what_the_group_has(atlas, real_pages, lang):
    """Issue 29: a module's summary in the API diff names the kinds of difference it has, each with
    its count in the language's plural form, and never a zero ("не публичны 0", "0 removed")."""
    from atlas.enrich import DIFF_KINDS

    r, kinds = Renderer(atlas, lang), [k for k in DIFF_KINDS if k != "added"]
    zeros = [r.ui_text("apidiff.tally." + k, n=0) for k in kinds]
    checked = 0
    for up in atlas.upgrades:
        if not up.api_diff or up.old.version != "2.0":
            continue
        summaries = {unescape(m): text for m, text in re.findall(
            r"<summary><code>([^<]*)</code>(.*?)</summary>", real_pages[lang][f"{lang}/upgrade/{up.slug}.md"])}
        for g in up.api_diff["groups"]:
            if not g["shown"]:
                continue
            summary, checked = summaries[g["module"]], checked + 1
            assert not any(re.search(r"(?<!\d)" + re.escape(z), summary) for z in zeros), (up.slug, g["module"], summary)
            for k in kinds:
                assert (r.ui_text("apidiff.tally." + k, n=len(g[k])) in summary) == bool(g[k]), (up.slug, k, summary)
    assert checked > 1000


@pytest.mark.parametrize("lang", ["en", *TRANSLATED])
def test_api_diff_lines_say_in_which_release_each_name_went(atlas, real_pages, lang):
    """Each removed or no-longer-public name of 2.0 -> 2.15 is one line: the language's word, the
    name and, in the language's words, the first release without it (looked up once per page for
    each release on the way, so a wrong lookup would move names to another release)."""
    from atlas.text import punctuation

    r, pu = Renderer(atlas, lang), punctuation(lang)
    up = next(u for u in atlas.upgrades if u.slug == "2.0-to-2.15")
    lines = real_pages[lang][f"{lang}/upgrade/2.0-to-2.15.md"].splitlines()
    entries = [("removed", "first_without", e) for g in up.api_diff["groups"] for e in g["removed"]]
    entries += [("no_longer_public", "hidden_from", e) for g in up.api_diff["groups"] for e in g["no_longer_public"]]
    assert len({e["first_without"] for _, _, e in entries}) > 5 and len(entries) > 500
    starts = {line.split(" · ")[0] for line in lines}
    for word, when, e in entries:
        line = (f'{r.ui_text("apidiff." + word)} {e["name"]} '
                f'{pu["lp"]}{r.ui_text("apidiff." + when, version=e["first_without"])}{pu["rp"]}')
        assert line in starts, line


def test_no_upgrade_page_turns_missing_facts_into_reassurance(atlas, real_pages):
    """Issue 25: where a release on the way has no curated facts, the page says so; it never says
    "0 breaking changes", "no breaking change" or "nothing was dropped"."""
    ui, unknown_pages = atlas.fb.ui, 0
    for lang in LANGS:
        nothing_dropped = render_html(ui[lang]["upgrade.nothing_dropped"], {}, lang)
        no_breaking = render_html(ui[lang]["release.no_breaking"], {}, lang)
        zero = render_html(ui[lang]["upgrade.summary_sources"], {"n": 0}, lang)
        for up in atlas.upgrades:
            page = real_pages[lang][f"{lang}/upgrade/{up.slug}.md"]
            if not up.knows_all:
                assert nothing_dropped not in page, (lang, up.slug)
            if up.uncovered:
                unknown_pages += 1
                assert zero not in page and no_breaking not in page, (lang, up.slug)
                assert up.breaking or render_html(ui[lang]["upgrade.summary_unknown" if up.none_covered else "upgrade.summary_partial_none"],
                                                  {"old": up.old.version, "new": up.new.version,
                                                   "versions": up.uncovered_versions}, lang) in page, (lang, up.slug)
                assert render_html(ui[lang]["upgrade.checklist_incomplete"], {"versions": up.uncovered_versions}, lang) in page
            if up.none_covered:
                assert render_html(ui[lang]["upgrade.summary_unknown"],
                                   {"old": up.old.version, "new": up.new.version}, lang) in page, (lang, up.slug)
            if up.partial_versions:
                # issue 26: a release whose facts are a selection is never read as "nothing breaks"
                unknown_pages += not up.uncovered
                assert zero not in page and no_breaking not in page, (lang, up.slug)
                assert render_html(ui[lang]["upgrade.selected"], {"versions": up.partial_versions}, lang) in page
                assert render_html(ui[lang]["upgrade.checklist_selected"], {"versions": up.partial_versions}, lang) in page
    assert unknown_pages > 100 * len(LANGS)


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_counts_zero_breaking_changes_where_the_facts_are_partial(atlas, real_pages, lang):
    """Issue 29: silence is never "safe". A release whose facts are a selection or passing mentions
    (no article about it: 2.13) shows no "0 breaking" on its page, the home page or the release
    list, and no upgrade page through such a release (or one known only from its wheel) says its
    zero count of breaking changes; each says what the atlas holds instead."""
    # the rule itself: a release's facts account for it only when an article in our sources is about it
    about = {s.about for s in atlas.fb.sources.sources}
    accounted = {r.version for r in atlas.releases if r.version in about and not r.selected}
    zero = sorted(r.version for r in atlas.releases if r.version not in accounted and not atlas.counts[r.version]["breaking"])
    unsure = [up for up in atlas.upgrades if not up.breaking and any(p.version not in accounted for p in up.steps)]
    assert "2.13" in zero and accounted and unsure
    r, pages = Renderer(atlas, lang), real_pages[lang]
    none_known = r.ui_text("release.breaking_none_known")
    for v in zero:
        page = pages[f"{lang}/releases/{v}.md"]
        assert r.ui_text("release.breaking_count", n=0) not in page, v
        assert r.ui_text("release.no_breaking") not in page and none_known in page, v
        for listing, link in ((f"{lang}/index.md", f"](releases/{v}.md"), (f"{lang}/releases/index.md", f"]({v}.md)")):
            row = next(line for line in pages[listing].splitlines() if link in line)
            cell = row.rstrip(" |").rsplit("|", 1)[1].strip()
            assert not re.fullmatch(r"\[?0\]?(\(.*\))?", cell) and none_known in cell, (listing, row)
    for up in unsure:
        page = pages[f"{lang}/upgrade/{up.slug}.md"]
        for key in ("upgrade.summary", "upgrade.summary_sources"):
            assert r.ui_text(key, n=0, old=up.old.version, new=up.new.version) not in page, (up.slug, key)


def test_dropped_reads_the_wheels_too(atlas, real_pages):
    """What left is listed from every source: 2.4 -> 2.15 loses the CPython 3.8 and 3.9 wheels, which
    the curated matrix (2.13-2.15 only) cannot show."""
    up = next(u for u in atlas.upgrades if u.slug == "2.4-to-2.15")
    gone = {v for d in up.dropped_items if d.label == "meta.python_wheels" for v in d.values}
    assert {"3.8", "3.9"} <= gone
    page = real_pages["en"]["en/upgrade/2.4-to-2.15.md"]
    dropped = page.split("{ #dropped }", 1)[1].split("\n## ", 1)[0]
    assert "<code>3.8</code>" in dropped or "3.8" in dropped
    assert render_html(atlas.fb.ui["en"]["upgrade.nothing_dropped"], {}, "en") not in dropped


def test_home_counts_every_curated_release_and_never_a_partial_one_as_zero(atlas, real_pages):
    """Issue 30: the home page's per-release table has a row for every release with curated facts;
    a release whose facts are partial (a selection, or passing mentions) never shows its zero as 0."""
    for lang in LANGS:
        ui = atlas.fb.ui[lang]
        page = real_pages[lang][f"{lang}/index.md"]
        rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| \[([\d.]+)\]\(releases/[\d.]+\.md\).*$", page, re.M)}
        assert set(rows) == {r.version for r in atlas.releases}, (lang, sorted(rows))
        for r in atlas.releases:
            last = rows[r.version].rstrip(" |").rsplit("| ", 1)[1]
            n = atlas.counts[r.version]["breaking"]
            if r.version in atlas.partial and not n:
                assert render_html(ui["release.breaking_none_known"], {}, lang) in last and not re.search(r"\[0\]", last), (lang, last)
            else:
                assert re.search(rf"\[{n}\]", last), (lang, r.version, last)
        assert any(r.version in atlas.partial and not atlas.counts[r.version]["breaking"]
                   for r in atlas.releases)   # the case is tested


def test_upgrade_pages_lead_with_what_really_breaks_on_the_way(atlas, real_pages):
    """Issue 26: the curated changes of 2.3-2.11 are in the checklist of every upgrade that passes
    them, oldest release first within a kind, platform blockers before code; 2.5 -> 2.6 leads with
    torch.load in every language."""
    for lang in LANGS:
        page = real_pages[lang][f"{lang}/upgrade/2.5-to-2.6.md"]
        checklist = page.split("\n1. ", 1)[1].split("\n\n", 1)[0]
        assert "changes/26-load-weights-only-default" in checklist.splitlines()[0], (lang, checklist[:300])
    up = next(u for u in atlas.upgrades if u.slug == "2.4-to-2.15")
    ids = [c.id for c in up.checklist]
    for cid in ("26-load-weights-only-default", "27-manylinux-228-cxx11-abi", "28-cuda128-drops-old-gpus",
                "29-onnx-dynamo-default", "211-pypi-cuda13-default"):
        assert cid in ids, (cid, ids)
    # the end of one optional build and the aarch64 wheels' new platform come later
    kinds = [c.type for c in up.checklist if "cuda_ended" not in c.values and "_aarch64" not in str(c.values.get("tag"))]
    assert ids.index("26-aarch64-manylinux-228") > ids.index("26-load-weights-only-default"), ids
    assert kinds.index("platform") < kinds.index("breaking")
    assert kinds[:kinds.count("platform")] == ["platform"] * kinds.count("platform")   # every platform blocker first
    ended = [ids.index(c) for c in ("26-cuda121-builds-end", "27-cuda124-builds-end", "28-cuda118-builds-end")]
    assert min(ended) > ids.index("26-load-weights-only-default"), ids
    page = real_pages["en"]["en/upgrade/2.4-to-2.15.md"]
    checklist = page.split("\n1. ", 1)[1].split("\n\n", 1)[0]
    assert checklist.index("27-manylinux-228-cxx11-abi") < checklist.index("26-load-weights-only-default")


def test_every_release_page_shows_the_defaults_its_installed_release_changed(atlas, real_pages):
    """Issue 26: the default values a release changed, from the runtime locks, on its page: 2.9 lists
    torch.onnx.export(dynamo=False -> True), in every language."""
    p = atlas.point("2.9")
    flip = [d for d in p.defaults if d["name"] == "torch.onnx.export" and d["param"] == "dynamo"]
    assert flip == [{"name": "torch.onnx.export", "param": "dynamo", "old": "False", "new": "True"}]
    for lang in LANGS:
        page = real_pages[lang][f"{lang}/releases/2.9.md"]
        section = page.split("{ #defaults }", 1)[1].split("\n## ", 1)[0]
        assert "| <code>torch.onnx.export</code> | <code>dynamo</code> | <code>False</code> | <code>True</code> |" in section
    assert all(atlas.point(v).defaults is not None for v in ("2.1", "2.5", "2.12", "2.15"))
    assert atlas.point("2.0").defaults is None          # no release before it was installed
    assert "{ #defaults }" not in real_pages["en"]["en/releases/2.0.md"]


def test_a_broken_template_is_a_named_error_and_its_imports_are_read(golden_atlas, own_templates):
    """A page's reads name its template and the ones it imports (incremental.py renders again the
    pages that read an edited template); a template Jinja cannot parse stops the render with the
    template's name, not a traceback."""
    from atlas import render
    from atlas.problems import DataError

    pages, reads = render.render_tracked(golden_atlas, ("en",))
    faq = next(p for p in reads if "/faq/" in p)
    assert {k for k in reads[faq] if k.startswith(render.TEMPLATE_KEY)} == {
        render.TEMPLATE_KEY + "faq.md.j2", render.TEMPLATE_KEY + "_macros.md.j2"}
    (own_templates / "faq.md.j2").write_text("{% for x in %}\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        render.render_tracked(golden_atlas, ("en",))
    assert "faq.md.j2" in str(info.value) and "Traceback" not in str(info.value)
