"""Reading and linking (issue 11), on the built site: fixed section anchors in every language,
internal links to sections, Atom feeds, absolute API URLs, the copy-link markup, the change page."""
from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urljoin, urlparse
from xml.etree import ElementTree as ET

import pytest

from atlas.feed import fact_hash, stale
from atlas.langs import LANGS
from atlas.urls import DEFAULT_SITE_URL, feed_path
from sitepages import parse

pytestmark = pytest.mark.slow
ATOM = "{http://www.w3.org/2005/Atom}"


def prefix(lang: str) -> str:
    return "" if lang == "en" else f"{lang}/"


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


#: The upgrade pages' anchors before issue 30 reshaped the page (tests/fixtures: collected by
#: ``article_ids`` from the main branch's build at 8da641b). Links into upgrade pages use them.
UPGRADE_ANCHORS = Path(__file__).resolve().parent / "fixtures" / "upgrade_anchors_8da641b.json"


def article_ids(html: str) -> set[str]:
    """The element ids inside a page's <article>."""
    article = html[html.index("<article"):html.index("</article>")]
    return set(re.findall(r'\sid="([^"]+)"', article))


def test_upgrade_anchors_of_before_stay_permanent(built_site):
    """Every anchor of six upgrade pages in four languages, as the main branch built them before the
    page was reshaped (#breaking is now the checklist, which lists every breaking change), still exists."""
    before = json.loads(UPGRADE_ANCHORS.read_text(encoding="utf-8"))["pages"]
    assert len(before) == 6 * len(LANGS) and all("checklist" in ids for ids in before.values())
    missing = {path: sorted(set(ids) - article_ids((built_site / path / "index.html").read_text(encoding="utf-8")))
               for path, ids in before.items()}
    assert not any(missing.values()), {p: m for p, m in missing.items() if m}


def _target(site: Path, path: str) -> Path | None:
    """The file a static host serves for a URL path of the site (a folder: its index.html)."""
    target = site / path.lstrip("/")
    if path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target if target.is_file() else None


def broken_links(site: Path, pages: dict) -> tuple[list, int]:
    """Every link (``<a href>``, ``<link href>``, each load) from a page to this site names a file
    that exists, and each ``#fragment`` an id on that page: (the broken ones, how many checked)."""
    bad, checked = [], 0
    for rel, page in pages.items():
        base = "http://site/" + rel
        for href in dict.fromkeys(page.hrefs + [a["href"] for a in page.links if a.get("href")] + page.loads):
            url = urlparse(urljoin(base, href))
            if url.netloc != "site" or url.scheme not in ("http", "https"):
                continue
            checked += 1
            target = _target(site, url.path)
            if target is None:
                bad.append((rel, href, "no such file"))
            elif url.fragment and url.fragment not in pages[str(target.relative_to(site))].ids:
                bad.append((rel, href, "no such id"))
    return bad, checked


def test_every_internal_link_and_section_resolves(built_site, site_pages):
    """The whole site, every language: each internal link's file exists and its #fragment is an id
    there (LinkChecker reads the same over HTTP in `make linkcheck`: scripts/dev/check_links.py)."""
    bad, checked = broken_links(built_site, site_pages)
    assert checked > 20_000, checked
    assert not bad, bad[:10]


def test_the_internal_link_check_can_fail(tmp_path):
    """A missing page, a missing id, a missing stylesheet and a link above the site are caught;
    a folder link, a good fragment and another host are not."""
    from sitepages import parse_site

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h2 id="here">x</h2><link rel="stylesheet" href="../gone.css">')
    (tmp_path / "index.html").write_text('<a href="a/">ok</a> <a href="a/#here">ok</a> <a href="a/#nowhere">x</a> '
                                         '<a href="b/">x</a> <a href="https://example.org/b/">other host</a> '
                                         '<a href="mailto:x@example.org">mail</a> <img src="../../up.png">')
    bad, checked = broken_links(tmp_path, parse_site(tmp_path))
    assert sorted((r, h) for r, h, _ in bad) == [("a/index.html", "../gone.css"), ("index.html", "../../up.png"),
                                                  ("index.html", "a/#nowhere"), ("index.html", "b/")], bad
    assert checked == 6


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
    # the English title with its placeholders filled in and its code marks gone
    def english(cid: str) -> re.Pattern:
        return re.compile(re.sub(r"\\\{[\w:]+\\\}", ".+", re.escape(en_titles[cid].replace("`", ""))))
    same = sum(bool(english(e.find(f"{ATOM}id").text.rstrip("/").rsplit("/", 1)[1]).fullmatch(e.find(f"{ATOM}title").text))
               for e in entries)
    assert same == len(entries) if lang == "en" else same < len(entries) // 2, (lang, same, len(entries))


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_links_its_languages_feed(built_site, site_pages, lang):
    pages = [p for p in (built_site / prefix(lang)).rglob("index.html")
             if lang != "en" or p.relative_to(built_site).parts[0] not in ("zh", "ru", "id")]
    assert len(pages) > 50
    # a renamed change's old URL is a bare redirect page (data/published_ids.yaml), not a page to read
    redirects = [p for p in pages if 'http-equiv="refresh"' in p.read_text(encoding="utf-8")[:600]]
    assert len(redirects) < 10
    for p in sorted(set(pages) - set(redirects)):
        feeds = [link for link in site_pages[str(p.relative_to(built_site))].links if link.get("type") == "application/atom+xml"]
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
