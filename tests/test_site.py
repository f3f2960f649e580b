"""The built site: pages in every language, links, permanent ids, no third-party hosts, API."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from atlas.keys import version_key
from atlas.langs import LANGS
from atlas.urls import url_for
from check_links import run as run_linkchecker
from conftest import repo_copy, run_atlas

pytestmark = pytest.mark.slow


def prefix(lang: str) -> str:
    return url_for(lang)[1:]


def page(site: Path, lang: str, path: str) -> Path:
    return site / url_for(lang, path)[1:] / "index.html"


PAGE_TYPES = ["", "releases/", "releases/2.15/", "releases/2.14/", "releases/2.13/", "breaking/", "changes/",
              "changes/215-dcp-strides/", "upgrade/", "upgrade/2.14-to-2.15/", "upgrade/2.13-to-2.15/",
              "upgrade/2.13-to-2.14/", "errors/", "faq/", "faq/2.15/", "faq/2.14/", "sources/", "api/", "about/"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", PAGE_TYPES)
def test_every_page_type_exists_in_every_language(built_site, lang, path):
    """...and links the same page in every other language (not that language's home page)."""
    html = page(built_site, lang, path.rstrip("/")).read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html
    here = "http://h" + url_for(lang, path)
    for other in LANGS:
        hrefs = re.findall(rf'<link rel="alternate" href="([^"]*)" hreflang="{other}">', html)
        assert [urljoin(here, h) for h in hrefs] == ["http://h" + url_for(other, path)], (lang, path, other, hrefs)


@pytest.mark.parametrize("lang", LANGS)
def test_every_published_id_resolves_in_every_language(built_site, factbase, lang):
    ledger = factbase.ledger
    redirects = ledger.get("redirects") or {}
    for cid in ledger["published"]:
        target = page(built_site, lang, f"changes/{cid}")
        assert target.exists(), f"/{prefix(lang)}changes/{cid}/ is gone; add a redirect in data/published_ids.yaml"
        if cid in redirects:
            assert f"{redirects[cid]}/" in target.read_text(encoding="utf-8")   # a relative link to the new page


def test_every_change_has_a_page_in_every_language(built_site, factbase):
    for c in factbase.changes():
        for lang in LANGS:
            html = page(built_site, lang, f"changes/{c.id}").read_text(encoding="utf-8")
            for e in c.errors:  # the exact error text is on the page, unescaped once rendered
                text = re.sub(r"<[^>]+>", "", html).replace("&quot;", '"').replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
                assert e.message in text, (lang, c.id, e.message)


@pytest.mark.parametrize("lang", LANGS)
def test_change_page_title_and_open_graph(built_site, factbase, lang):
    html = page(built_site, lang, "changes/215-dcp-strides").read_text(encoding="utf-8")
    title = re.search(r"<title>(.*?)</title>", html).group(1)
    assert "2.15" in title and "2.14" in title and "Release Atlas" in title
    assert re.search(r'<meta property="og:title" content="[^"]*2\.15', html)
    assert re.search(r'<meta property="og:url" content="[^"]*/changes/215-dcp-strides/"', html)
    assert '<meta name="description"' in html


@pytest.mark.parametrize("lang,number", [("en", "3,117"), ("zh", "3,117"), ("ru", "3\u00a0117"), ("id", "3.117")])
def test_numbers_are_rendered_in_the_readers_locale(built_site, lang, number):
    html = page(built_site, lang, "releases/2.15").read_text(encoding="utf-8")
    assert number in html.replace("&nbsp;", "\u00a0")


def test_no_third_party_host_is_loaded(built_site, site_pages):
    """No page makes the browser fetch anything from another host (scripts, styles, fonts, images)."""
    bad = [(rel, u) for rel, page in site_pages.items() for u in page.loads if urlparse(u).netloc]
    assert sum(len(p.loads) for p in site_pages.values()) > 5 * len(site_pages)
    for css in built_site.rglob("*.css"):
        bad += [(str(css.relative_to(built_site)), u) for u in re.findall(r"url\((?:['\"])?(https?:)?//[^)]+\)", css.read_text(encoding="utf-8", errors="replace"))]
    assert not bad, bad[:10]


@pytest.mark.parametrize("lang", LANGS)
def test_404_page_speaks_the_language(built_site, factbase, lang):
    f = built_site / prefix(lang) / "404.html"
    html = f.read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html
    assert factbase.ui[lang]["notfound.title"] in html


def test_navigation_does_not_list_change_pages(built_site):
    html = page(built_site, "en", "").read_text(encoding="utf-8")
    nav = html.split('class="md-nav md-nav--primary"', 1)[1].split("</nav>", 1)[0]
    assert "changes/215-" not in nav


def test_json_api(built_site, factbase):
    api = built_site / "api" / "v1"
    index = json.loads((api / "index.json").read_text(encoding="utf-8"))
    assert index["schema_version"] == 1
    for name in index["files"]:
        assert json.loads((api / name).read_text(encoding="utf-8"))["schema_version"] == 1
    changes = json.loads((api / "changes.json").read_text(encoding="utf-8"))["changes"]
    assert len(changes) == len(factbase.changes())
    dcp = next(c for c in changes if c["id"] == "215-dcp-strides")
    assert dcp["urls"]["zh"].endswith("/zh/changes/215-dcp-strides/") and set(dcp["text"]) == set(LANGS)
    assert dcp["errors"][0]["message"] == "CheckpointException: too many values to unpack (expected 5)"
    for c in changes:  # every URL in the API resolves to a built page
        for _lang, url in c["urls"].items():
            assert (built_site / urlparse(url).path.strip("/") / "index.html").exists(), url
    up = json.loads((api / "upgrades" / "2.14-to-2.15.json").read_text(encoding="utf-8"))
    assert "215-dcp-strides" in up["breaking"] and up["checklist"]
    # a count of breaking changes is complete only for a release an article is about, whole
    about = {s.about for s in factbase.sources.sources}
    whole = {r.version for r in factbase.releases if r.version in about and not r.selected}
    releases = json.loads((api / "releases.json").read_text(encoding="utf-8"))["releases"]
    assert {r["version"] for r in releases if r["breaking_complete"]} == whole
    assert any(not r["breaking_complete"] for r in releases)
    for path in (api / "upgrades").glob("*.json"):
        up = json.loads(path.read_text(encoding="utf-8"))
        on_way = {r["version"] for r in releases
                  if version_key(up["from"]) < version_key(r["version"]) <= version_key(up["to"])}
        assert up["breaking_complete"] == (not up["not_covered_by_sources"] and on_way <= whole), path.name


def test_the_whole_site_link_check_fails_on_a_broken_site(tmp_path, capsys):
    """`make linkcheck` (scripts/dev/check_links.py, run by .ci/run over the whole site) exits
    non-zero on a site with a missing page, and 0 on a good one."""
    import check_links

    site = tmp_path / "mini"
    site.mkdir()
    (site / "index.html").write_text('<html><body><a href="ok.html#here">a</a></body></html>')
    (site / "ok.html").write_text('<html><body><h1 id="here">x</h1></body></html>')
    assert check_links.main([str(site)]) == 0
    (site / "index.html").write_text('<html><body><a href="gone.html">a</a></body></html>')
    assert check_links.main([str(site)]) != 0
    assert "gone.html" in capsys.readouterr().out
    assert check_links.main([str(tmp_path / "nothing-built-here")]) == 2


def test_linkchecker_catches_a_broken_anchor_and_link(tmp_path):
    """The check above can fail: a page with a missing anchor and a missing page is caught."""
    import static_server

    site = tmp_path / "mini"
    site.mkdir()
    # other.html is reached through a good fragment first, then through a missing one and from a second page:
    # scripts/dev/linkcheck_site.py reads each page's anchors once, and must still check every fragment
    (site / "index.html").write_text('<html><body><a href="other.html#here">a</a> <a href="third.html">c</a> '
                                     '<a href="other.html#nowhere">a</a> <a href="gone.html">b</a></body></html>')
    (site / "third.html").write_text('<html><body><a href="other.html#here">ok</a> <a href="other.html#missing">x</a>'
                                     '</body></html>')
    (site / "other.html").write_text('<html><body><h1 id="here">x</h1></body></html>')
    server, url = static_server.serve(site)
    try:
        proc = run_linkchecker(url, tmp_path)
    finally:
        server.shutdown()
    assert proc.returncode != 0
    assert "gone.html" in proc.stdout and "nowhere" in proc.stdout and "missing" in proc.stdout
    # two missing fragments (warnings) and one missing page (error): nothing else, nothing less
    assert "2 warnings found. 1 error found." in proc.stdout, proc.stdout[-1500:]
    # as root, LinkChecker would switch to `nobody` and, in a mode-700 checkout, lose its plugins
    assert "dropping privileges" not in proc.stdout + proc.stderr


def test_linkchecker_under_a_sub_path_catches_a_link_that_leaves_it(tmp_path):
    """Deployed under /atlas/, a link to /page.html (the host's root, not the site's) is checked
    and fails."""
    import static_server

    root = tmp_path / "root"
    (root / "atlas" / "big").mkdir(parents=True)
    (root / "atlas" / "index.html").write_text('<html><body><a href="/page.html">out</a> <a href="big/">in</a></body></html>')
    (root / "atlas" / "page.html").write_text("<html><body>here, not at the root</body></html>")
    (root / "atlas" / "big" / "index.html").write_text('<html><body><a href="../page.html">ok</a></body></html>')
    server, url = static_server.serve(root)
    try:
        proc = run_linkchecker(url + "atlas/", tmp_path, anchors=False)
    finally:
        server.shutdown()
    assert proc.returncode != 0 and "/page.html" in proc.stdout, proc.stdout[-1500:]
    assert "1 error found" in proc.stdout, proc.stdout[-1500:]


def test_linkchecker_fails_loudly_when_a_plugin_did_not_load(tmp_path):
    """If a required plugin (as AnchorCheck would be, were it unreadable) is missing, the run fails."""
    import static_server

    site = tmp_path / "mini"
    site.mkdir()
    (site / "index.html").write_text("<html><body>ok</body></html>")
    server, url = static_server.serve(site)
    try:
        proc = run_linkchecker(url, tmp_path, env={"LINKCHECK_REQUIRE": "NoSuchPlugin"})
    finally:
        server.shutdown()
    assert proc.returncode == 3 and "NoSuchPlugin" in proc.stderr, proc.stderr[-500:]


def test_bad_data_keeps_the_last_good_site(built_site, tmp_path):
    """A broken fact stops the build with the validator's message; the old site stays."""

    repo = repo_copy(tmp_path / "repo")
    site = repo / "site"
    shutil.copytree(built_site, site)
    before = (site / "changes" / "215-dcp-strides" / "index.html").read_bytes()
    rel = repo / "data" / "releases" / "2.15.yaml"
    rel.write_text(rel.read_text(encoding="utf-8").replace("released: 2026-10-28", "released: 2026-10-99"), encoding="utf-8")
    proc = run_atlas(repo, "build", "--site-dir", str(site))
    assert proc.returncode != 0
    assert "data/releases/2.15.yaml: 2.15: released:" in proc.stdout + proc.stderr
    assert (site / "changes" / "215-dcp-strides" / "index.html").read_bytes() == before


def _differ(a: Path, b: Path) -> list[str]:
    """Files that are not byte-identical in two built sites (or exist in only one)."""
    files = {p.relative_to(a) for p in a.rglob("*") if p.is_file()} | {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    return sorted(str(f) for f in files if not ((a / f).is_file() and (b / f).is_file()
                                                  and (a / f).read_bytes() == (b / f).read_bytes()))


def test_build_is_reproducible(subpath_build, tmp_path):
    """A second build of conftest.subpath_build's copy, in another process with another hash seed
    (set and dict order of strings) and into another folder, is byte-identical to the first (the
    sitemap's date is SOURCE_DATE_EPOCH, which atlas build takes from the last commit:
    sitebuild.py). On the small history: every page type and output file; the 120 pairs of the
    real history run the same code."""
    repo, base, first = subpath_build
    again = tmp_path / "again"
    proc = run_atlas(repo, "build", "--site-dir", str(again), env={"SITE_URL": base, "PYTHONHASHSEED": "2"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert len(list(again.rglob("*.html"))) > 200
    differ = _differ(first, again)
    assert not differ, differ[:10]


def test_the_reproducibility_check_can_fail(tmp_path):
    """_differ sees one changed byte and a file present on one side only."""
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        (d / "x").mkdir(parents=True)
        (d / "x" / "index.html").write_text("<p>same</p>")
    (b / "x" / "index.html").write_text("<p>samE</p>")
    (a / "only.json").write_text("{}")
    assert _differ(a, b) == ["only.json", "x/index.html"]


def test_renamed_change_redirects_in_every_language(data_copy, tmp_path):
    """Rename a published change: without a redirect validation fails; with one, the old URL
    redirects to the new page in all four languages (in-process: the pipeline and the redirect
    writer that the MkDocs hook runs after the build; the real build checks every published id)."""
    from atlas import pipeline as steps
    from atlas.load import load
    from atlas.problems import DataError

    rel = data_copy / "releases" / "2.15.yaml"
    # the id, every refs list and every {215-dcp-strides.x} placeholder
    rel.write_text(rel.read_text(encoding="utf-8").replace("215-dcp-strides", "215-dcp-stride-metadata"), encoding="utf-8")
    for lang in LANGS[1:]:
        tr = data_copy / "translations" / lang / "releases" / "2.15.yaml"
        tr.write_text(tr.read_text(encoding="utf-8").replace("215-dcp-strides.", "215-dcp-stride-metadata."), encoding="utf-8")
    aliases = data_copy / "search" / "aliases.yaml"   # search aliases name their target pages by id
    aliases.write_text(aliases.read_text(encoding="utf-8").replace("215-dcp-strides", "215-dcp-stride-metadata"), encoding="utf-8")
    ledger = data_copy / "published_ids.yaml"
    with pytest.raises(DataError) as info:
        steps.pipeline(load(data_copy))
    assert any("215-dcp-strides: published" in p for p in info.value.problems), "rename without redirect must fail"
    text = ledger.read_text(encoding="utf-8").replace("redirects: {}", "redirects:")
    ledger.write_text(text.replace("\nredirects:", "\nredirects:\n  215-dcp-strides: 215-dcp-stride-metadata", 1), encoding="utf-8")
    built = steps.pipeline(load(data_copy))
    atlas, pages = built.atlas, built.pages
    out = tmp_path / "site"
    steps.write_redirects(atlas, out)
    for lang in LANGS:
        old = out / prefix(lang) / "changes" / "215-dcp-strides" / "index.html"
        assert old.exists(), f"/{prefix(lang)}changes/215-dcp-strides/ no longer resolves"
        html = old.read_text(encoding="utf-8")
        assert 'href="../215-dcp-stride-metadata/"' in html and 'http-equiv="refresh"' in html, html[:500]
        assert f"{lang}/changes/215-dcp-stride-metadata.md" in pages and f"{lang}/changes/215-dcp-strides.md" not in pages


def test_open_graph_title_keeps_quotes(built_site):
    """Real data with a quote in a title: the attribute holds the whole title, not a cut-off one."""
    html = page(built_site, "en", "changes/214-acc-policy-balanced").read_text(encoding="utf-8")
    metas = {}

    class P(HTMLParser):
        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "meta" and a.get("property", a.get("name", "")).endswith(":title"):
                metas[a.get("property") or a.get("name")] = a["content"]

    P().feed(html)
    title = 'acc_policy="balanced" is removed from LinearCrossEntropyOptions'
    assert metas == {"og:title": title, "twitter:title": title}, metas


@pytest.mark.parametrize("lang", LANGS)
def test_evidence_is_shown_in_every_language(built_site, factbase, lang):
    ui = factbase.ui[lang]
    contra = page(built_site, lang, "changes/215-cxx20").read_text(encoding="utf-8")
    assert 'id="evidence"' in contra and ui["evidence.contradicted"] in contra
    confirmed = page(built_site, lang, "changes/215-pipeline-per-edge-p2p").read_text(encoding="utf-8")
    assert ui["evidence.confirmed"] in confirmed
    speed = page(built_site, lang, "changes/215-mps-qr").read_text(encoding="utf-8")
    assert ui["evidence.none_speed"] in speed


def test_json_api_carries_evidence(built_site):
    changes = json.loads((built_site / "api" / "v1" / "changes.json").read_text(encoding="utf-8"))["changes"]
    by_id = {c["id"]: c for c in changes}
    assert by_id["215-cxx20"]["evidence"]["status"] == "contradicted"
    assert by_id["215-pipeline-per-edge-p2p"]["evidence"]["checks"][0]["observed"] == {"2.14.1": False, "2.15.0": True}
    assert by_id["215-mps-qr"]["evidence"]["status"] == "none_speed"


def test_the_published_checker_runs_alone_with_the_sites_rules(built_site, tmp_path):
    """/check/atlas_check.py: one file, standard library only, the rules of /api/v1/rules.json built in."""
    rules = json.loads((built_site / "api" / "v1" / "rules.json").read_text(encoding="utf-8"))
    assert rules["schema_version"] == 1 and rules["rules"]
    tool = tmp_path / "atlas_check.py"
    shutil.copy(built_site / "check" / "atlas_check.py", tool)
    (tmp_path / "train.py").write_text("import torch\nL = torch.cholesky(A)\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-I", str(tool), "code", "--format", "json", "--from", "2.13",
                           str(tmp_path / "train.py")], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr   # something breaks
    out = json.loads(proc.stdout)
    assert [(f["line"], f["change"]) for f in out["findings"]] == [(2, "214-remove-cholesky")]
    assert out["findings"][0]["url"] == next(r for r in rules["rules"] if r["change"] == "214-remove-cholesky")["url"]["en"]
    for version in rules["releases"]:
        assert "banned-api" in (built_site / "check" / f"ruff-{version}.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["en", "zh", "ru", "id"])
def test_the_footer_and_the_heading_anchors_speak_the_pages_language(built_site, factbase, lang):
    """The footer's sentence and each heading anchor's tooltip come from the page's UI strings;
    no English "Permanent link" or footer sentence is left on a zh, ru or id page."""
    import html as _html
    ui = factbase.ui[lang] if isinstance(factbase.ui, dict) else None
    pages = [p for p in (built_site if lang == "en" else built_site / lang).rglob("index.html")
             if lang != "en" or not any(part in ("zh", "ru", "id") for part in p.relative_to(built_site).parts)]
    assert len(pages) > 50
    anchors = 0
    for p in pages[:400]:
        text = p.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in text[:600]:    # a renamed change's old URL: a bare redirect page
            continue
        assert 'class="md-copyright__highlight"' in text, p
        anchors += text.count('class="headerlink"')
        if lang != "en":
            assert 'title="Permanent link"' not in text, p
            assert "Facts from the sources listed on each page" not in text, p
    assert anchors > 100
    if ui is not None:
        sample = pages[0].read_text(encoding="utf-8")
        assert _html.escape(ui["footer.copyright"], quote=False) in sample
        if lang != "en":
            assert f'title="{_html.escape(ui["change.permalink"])}"' in "".join(
                p.read_text(encoding="utf-8") for p in pages[:50])


@pytest.mark.parametrize("lang", ["ru", "id"])
def test_no_sentence_ends_in_two_full_stops_on_a_rendered_page(built_site, lang):
    """A date that ends in an abbreviation ("1 октября 2026 г.") at the end of a sentence gave
    "г.."; the rendered text, outside code, has no word followed by two full stops."""
    bad = []
    for p in (built_site / lang).rglob("index.html"):
        text = p.read_text(encoding="utf-8")
        text = re.sub(r"<(pre|code|script|style)\b.*?</\1>", " ", text, flags=re.S)
        text = re.sub(r"<[^>]+>", " ", text)
        for m in re.finditer(r"\w\.\.(?!\.)", text):
            bad.append(f"{p.relative_to(built_site)}: ...{text[max(0, m.start() - 30):m.end() + 5]!r}")
    assert not bad, bad[:10]


def test_no_table_header_cell_is_empty(built_site):
    """axe's empty-table-header: a header cell with no text (the upgrade matrix's badge column, the
    sources' key-value tables) names nothing to a screen reader. Visually hidden text counts."""
    empty = re.compile(r"<th[^>]*>\s*</th>")
    bad = [str(p.relative_to(built_site)) for p in sorted(built_site.rglob("*.html"))
           if empty.search(p.read_text(encoding="utf-8"))]
    assert not bad, f"{len(bad)} pages, e.g. {bad[:5]}"


@pytest.mark.parametrize("lang", LANGS)
def test_the_footer_link_is_a_link_not_text(built_site, lang):
    """The 'Made with' line names Material for MkDocs with a real link in every language; the
    translated string is escaped, the link is not (issue 43: the tag was shown as text)."""
    page = (built_site / ("index.html" if lang == "en" else f"{lang}/index.html")).read_text(encoding="utf-8")
    footer = page[page.index('class="md-copyright"'):][:1500]
    assert '<a href="https://squidfunk.github.io/mkdocs-material/"' in footer and "&lt;a" not in footer, footer


def test_no_list_item_runs_into_the_next(built_site, site_pages):
    """A Markdown list whose item line ended in a block tag lost its line end, and the items ran
    together in one bullet ("...(read from the wheels)- Platform tag ..."; issue 43). Every upgrade
    page's Dropped list has one <li> per item."""
    run = [rel for rel in site_pages if re.search(r"</(?:small|code)>- ", (built_site / rel).read_text(encoding="utf-8"))]
    assert not run, run[:5]
    page = (built_site / "upgrade" / "2.3-to-2.9" / "index.html").read_text(encoding="utf-8")
    dropped = page[page.index('id="dropped"'):]
    dropped = dropped[:dropped.index("</ul>")]
    assert dropped.count("<li>") >= 3, dropped


@pytest.mark.parametrize("lang", LANGS)
def test_a_proof_run_beside_a_package_shows_its_table(built_site, factbase, lang):
    """The proof section of a change run beside a companion package (issue 41) is a table of the
    releases with the package each had, in every language, not table syntax shown as text."""
    beside = [c for c in factbase.changes() if c.proof and c.proof.package and c.proof.symptom]
    assert beside, "no proof runs beside a package: the test reads nothing"
    for c in beside:
        html = page(built_site, lang, f"changes/{c.id}").read_text(encoding="utf-8")
        proof = html[html.index('id="proof"'):]
        proof = proof[:proof.index("<h2")] if "<h2" in proof else proof
        assert "<table>" in proof and "|---|" not in proof, (lang, c.id)
        assert re.search(r"torch \d+\.\d+\.\d+ \+ " + c.proof.package + r" \d", proof), (lang, c.id)
