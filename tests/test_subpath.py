"""The site deployed under a sub-path (as GitHub Pages serves a project): built with
SITE_URL=http://127.0.0.1:<port>/atlas/ and served from /atlas/. Every URL in the JSON API and the
feeds, and every link in the site, resolves there, and search finds and opens a page there."""
from __future__ import annotations

import json
import re
import urllib.request
from urllib.parse import urlparse
from xml.etree import ElementTree as ET

import pytest

import check_links
from atlas.feed import feed_path
from atlas.langs import LANGS
from check_links import run as run_linkchecker
from test_reading import _urls

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def subpath_site(subpath_build):
    """conftest.subpath_build's site, served under /atlas/."""
    import static_server

    repo, base, site = subpath_build
    server, _ = static_server.serve(site.parent, int(urlparse(base).port))
    yield base, site
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
    """LinkChecker over the whole small-history site under /atlas/: every link resolves there, and
    one that leaves /atlas/ (``/changes/...`` on the same host) is fetched from outside the site and
    fails. Its ``#fragment`` links are the same relative links as at the root (the pages differ only
    in absolute URLs: canonical, Open Graph, copy link), and every fragment of the real site is checked
    in `make test` (tests/test_reading.py) and by LinkChecker in `make linkcheck` (.ci/run)."""
    base, _ = subpath_site
    proc = run_linkchecker(base, tmp_path, anchors=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert check_links.CLEAN.search(proc.stdout), proc.stdout[-1500:]
    assert int(re.search(r"(\d+) links? in", proc.stdout).group(1)) > 400, proc.stdout[-500:]   # 432 on 2026-12-01: every page of the small history


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
