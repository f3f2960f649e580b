"""The site deployed under a sub-path (as GitHub Pages serves a project): built with
SITE_URL=http://127.0.0.1:<port>/atlas/ and served from /atlas/. Every URL in the JSON API and the
feeds, and every link in the site, resolves there, and search finds and opens a page there."""
from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlparse
from xml.etree import ElementTree as ET

import pytest

from atlas.feed import feed_path
from atlas.langs import LANGS
from conftest import repo_copy, run_atlas, small_history
from test_reading import _urls
from test_site import run_linkchecker

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def subpath_site(tmp_path_factory):
    """The site of a repository copy on the small history (conftest.small_history: every page
    type, 6 upgrade pairs), built for /atlas/ and served there."""
    import static_server

    port = static_server.free_port()
    root = tmp_path_factory.mktemp("subpath")
    base = f"http://127.0.0.1:{port}/atlas/"
    repo = small_history(repo_copy(root / "repo"))
    proc = run_atlas(repo, "build", "--site-dir", str(root / "atlas"), env={"SITE_URL": base})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    server, _ = static_server.serve(root, port)
    yield base, root / "atlas"
    server.shutdown()


def status(url: str) -> int:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status


def test_every_api_and_feed_url_resolves_under_the_sub_path(subpath_site):
    base, site = subpath_site
    urls = []
    for f in sorted((site / "api" / "v1").rglob("*.json")):
        urls += list(_urls(json.loads(f.read_text(encoding="utf-8"))))
    for lang in LANGS:
        feed = ET.parse(site / feed_path(lang)).getroot()
        urls += [link.get("href") for link in feed.iter("{http://www.w3.org/2005/Atom}link")]
    assert len(urls) > 300
    bad = [u for u in urls if not u.startswith(base)]
    assert not bad, bad[:5]
    paths = sorted({urlparse(u).path for u in urls})
    assert all(status(f"http://{urlparse(base).netloc}{p}") == 200 for p in paths)


def test_copy_links_use_the_sub_path(subpath_site):
    base, site = subpath_site
    html = (site / "zh" / "changes" / "215-dcp-strides" / "index.html").read_text(encoding="utf-8")
    assert f'data-url="{base}zh/changes/215-dcp-strides/"'.replace(":", "&#58;") in html


def test_linkchecker_under_the_sub_path(subpath_site, tmp_path):
    """Every link resolves under /atlas/; one that leaves it (``/changes/...`` on the same host) is
    fetched from outside the site and fails. Fragments are left to the root build's run
    (tests/test_site.py): the pages differ only in absolute URLs (canonical, Open Graph, copy
    link), which hold no fragment links, so their ``#...`` links are the same relative links."""
    base, _ = subpath_site
    proc = run_linkchecker(base, tmp_path, anchors=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " 0 errors found" in proc.stdout, proc.stdout[-1500:]


@pytest.mark.parametrize("lang,query", [("en", "torch.linalg.qr"), ("ru", "torch.linalg.qr")])
def test_search_works_under_the_sub_path(page, subpath_site, lang, query):
    base, _ = subpath_site
    page.goto(base + ("" if lang == "en" else f"{lang}/"))
    box = page.locator("#atlas-search-input")
    box.click()
    box.fill(query)
    box.press("End")
    first = page.locator("#atlas-search-results a").first
    first.wait_for(timeout=20000)
    href = first.evaluate("a => a.href")
    assert href.startswith(base), href
    with page.expect_navigation():
        first.click()
    assert page.url == href
    assert page.evaluate("document.documentElement.lang") == lang
    assert "qr" in page.locator("article").inner_text().lower()
