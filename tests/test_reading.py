"""Reading and linking (issue 11), on the built site: fixed section anchors in every language,
internal links to sections, Atom feeds, absolute API URLs, the copy-link markup, the change page."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlparse
from xml.etree import ElementTree as ET

import pytest

from atlas.feed import fact_hash, stale
from atlas.langs import LANGS
from atlas.urls import DEFAULT_SITE_URL, feed_path

pytestmark = pytest.mark.slow
ATOM = "{http://www.w3.org/2005/Atom}"


def prefix(lang: str) -> str:
    return "" if lang == "en" else f"{lang}/"


class _Page(HTMLParser):
    """Element ids, heading ids, links, and the head's <link> elements of one page."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.headings: list[str] = []
        self.hrefs: list[str] = []
        self.links: list[dict] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
            if tag in ("h1", "h2", "h3"):
                self.headings.append(a["id"])
        if a.get("name"):
            self.ids.add(a["name"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag == "link":
            self.links.append(a)


def parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def page_file(site: Path, lang: str, path: str) -> Path:
    return site / prefix(lang) / path / "index.html"


# --- section anchors ----------------------------------------------------------------------------------

SECTIONS = {"affected": "affected", "symptom": "symptom", "fix": "fix", "rollback": "rollback"}


def test_change_sections_have_the_same_short_anchors_in_every_language(built_site, factbase):
    for c in factbase.changes():
        ids = {lang: parse(page_file(built_site, lang, f"changes/{c.id}")).headings for lang in LANGS}
        assert len({tuple(v) for v in ids.values()}) == 1, (c.id, ids)
        heads = ids["en"]
        for field, anchor in SECTIONS.items():
            assert (anchor in heads) == bool(getattr(c, field)), (c.id, anchor, heads)
        assert {"title", "evidence", "sources"} <= set(heads), (c.id, heads)
        assert ("faq" in heads) == any(c.id in q.refs for r in factbase.releases for q in r.faq), (c.id, heads)
        assert all(re.fullmatch(r"[a-z][a-z0-9-]*", h) for h in heads), (c.id, heads)  # no _1, no 215-214


@pytest.mark.parametrize("kind", ["releases/2.15", "releases/2.14", "releases/2.13", "upgrade/2.13-to-2.15", "upgrade/2.14-to-2.15"])
def test_release_and_upgrade_anchors_match_across_languages(built_site, kind):
    ids = {lang: parse(page_file(built_site, lang, kind)).headings for lang in LANGS}
    assert len({tuple(v) for v in ids.values()}) == 1, ids
    assert not [h for h in ids["en"] if re.fullmatch(r"_\d+|\d[\d-]*", h)], ids["en"]


def test_every_internal_link_to_a_section_resolves(built_site):
    """Each href with a #fragment to a page of this site names an id that exists on that page."""
    cache: dict[Path, set[str]] = {}
    bad, checked = [], 0
    for f in built_site.rglob("*.html"):
        base = "http://site/" + str(f.relative_to(built_site))
        for href in parse(f).hrefs:
            url = urlparse(urljoin(base, href))
            if url.netloc != "site" or not url.fragment:
                continue
            target = built_site / url.path.lstrip("/")
            if target.is_dir() or url.path.endswith("/"):
                target = target / "index.html"
            if not target.exists():
                continue  # a missing page is LinkChecker's job (test_site.py)
            checked += 1
            if target not in cache:
                cache[target] = parse(target).ids
            if url.fragment not in cache[target]:
                bad.append((str(f.relative_to(built_site)), href))
    assert checked > 300, checked
    assert not bad, bad[:10]


# --- feeds ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_atom_feed_per_language(built_site, factbase, lang):
    root = ET.parse(built_site / feed_path(lang)).getroot()
    assert root.tag == f"{ATOM}feed" and root.get("{http://www.w3.org/XML/1998/namespace}lang") == lang
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == len(factbase.changes())
    ids = [e.find(f"{ATOM}id").text for e in entries]
    assert len(set(ids)) == len(ids)
    recorded = factbase.updated
    en_titles = {c.id: c.title for c in factbase.changes()}
    for e in entries:
        url = e.find(f"{ATOM}id").text
        assert e.find(f"{ATOM}link").get("href") == url
        assert url.startswith(DEFAULT_SITE_URL + prefix(lang) + "changes/"), url
        cid = url.rstrip("/").rsplit("/", 1)[1]
        assert page_file(built_site, lang, f"changes/{cid}").exists(), url
        assert e.find(f"{ATOM}updated").text == f"{recorded[cid]['updated'].isoformat()}T00:00:00Z"
        summary = e.find(f"{ATOM}summary").text
        assert summary and "{" not in summary
        if lang == "zh":  # the feed speaks its language
            assert re.search(r"[\u4e00-\u9fff]", summary), summary
        if lang == "ru":
            assert re.search(r"[а-яё]", summary), summary
    titles = [e.find(f"{ATOM}title").text for e in entries]
    assert (lang == "en") == (sum(t in en_titles.values() for t in titles) > len(titles) // 2)


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_links_its_languages_feed(built_site, lang):
    pages = [p for p in (built_site / prefix(lang)).rglob("index.html")
             if lang != "en" or p.relative_to(built_site).parts[0] not in ("zh", "ru", "id")]
    assert len(pages) > 50
    for p in pages:
        feeds = [link for link in parse(p).links if link.get("type") == "application/atom+xml"]
        assert len(feeds) == 1 and feeds[0].get("rel") == "alternate", p
        target = (p.parent / feeds[0]["href"]).resolve()
        assert target == (built_site / feed_path(lang)).resolve(), (p, feeds[0]["href"])


def test_updated_dates_follow_the_facts(factbase):
    """data/updated.yaml has the current hash of every change (so each feed date is honest)."""
    recorded = factbase.updated
    todo = stale(factbase.changes(), recorded)
    assert not todo, f"{todo}: the fact changed but its date did not; run `atlas feed stamp`"


def test_editing_a_fact_makes_its_date_stale(factbase):
    """The check above can fail: a changed title, value or error message changes the hash."""
    recorded = factbase.updated
    c = factbase.changes()[0]
    assert fact_hash(c) == recorded[c.id]["hash"]
    for edit in ({"title": c.title + " (corrected)"}, {"values": {**c.values, "extra": 1}}):
        changed = c.model_copy(update=edit)
        assert stale([changed], recorded) == [c.id], edit
    assert stale([c.model_copy(update={"probes": []})], recorded) == []  # evidence is not the fact


# --- API and copy-link markup -------------------------------------------------------------------------

def _urls(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("urls", "docs"):
                yield from x.values()
            else:
                yield from _urls(x)
    elif isinstance(v, list):
        for x in v:
            yield from _urls(x)


def test_api_urls_are_absolute_and_resolve(built_site):
    api = built_site / "api" / "v1"
    n = 0
    for f in api.rglob("*.json"):
        for url in _urls(json.loads(f.read_text(encoding="utf-8"))):
            assert url.startswith(DEFAULT_SITE_URL), (f.name, url)
            path = urlparse(url).path.lstrip("/")
            assert (built_site / path / "index.html").exists(), (f.name, url)
            n += 1
    assert n > 300


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", ["changes/215-dcp-strides", "releases/2.15", "upgrade/2.14-to-2.15"])
def test_copy_link_markup_carries_the_absolute_url_and_title(built_site, lang, path):
    html = page_file(built_site, lang, path).read_text(encoding="utf-8")
    m = re.search(r'<div class="atlas-copy" data-url="([^"]+)" data-title="([^"]+)"', html)
    assert m, path
    import html as h
    url, title = h.unescape(m.group(1)), h.unescape(m.group(2))
    assert url == DEFAULT_SITE_URL + prefix(lang) + path + "/"
    assert h.unescape(re.search(r"<title>(.*?)</title>", html).group(1)).startswith(title)
    assert f'<code class="atlas-copy__url">{m.group(1)}</code>' in html  # readable without JavaScript


# --- the change page for a reader -------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_change_page_collapses_values_and_tabs_before_after(built_site, factbase, lang):
    c = next(c for c in factbase.changes() if c.fix and c.fix.before and c.fix.after and c.values)
    html = page_file(built_site, lang, f"changes/{c.id}").read_text(encoding="utf-8")
    assert re.search(r'<details class="atlas-values" id="values">', html)  # closed: no `open`
    tabs = re.search(r'<div class="tabbed-set tabbed-alternate".*?</div>\s*</div>', html, re.S)
    assert tabs and tabs.group(0).count('type="radio"') == 2, c.id
    labels = re.findall(r'<label for="__tabbed_\d+_\d+">(.*?)</label>', html)
    assert labels[:2] == [factbase.ui[lang][k].rstrip(":：") for k in ("change.before", "change.after")]
