"""Every page of a built site, parsed once, for the tests that read them all (links, anchors,
feeds, what a browser fetches).

In:  a built site directory.
Out: ``parse(path)`` -> ``Page`` (one file); ``parse_site(site)`` -> ``{relative path: Page}``
     for every ``*.html`` under it. A ``Page`` holds its element ids, its heading ids, its
     ``<a href>`` targets, its ``<link>`` elements and the URLs a browser loads on its own.
"""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

#: <link rel=...> values a browser fetches by itself (a stylesheet, an icon, a preload)
FETCHED_RELS = {"stylesheet", "icon", "preload", "prefetch", "modulepreload", "manifest", "preconnect", "dns-prefetch"}


class Page(HTMLParser):
    """Element ids, heading ids, links, the head's <link> elements and the loads of one page."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.headings: list[str] = []
        self.hrefs: list[str] = []
        self.links: list[dict] = []
        self.loads: list[str] = []   # scripts, styles, images, icons, frames

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
            if a.get("href") and set((a.get("rel") or "").split()) & FETCHED_RELS:
                self.loads.append(a["href"])
        if tag in ("script", "img", "iframe", "source", "audio", "video", "embed") and a.get("src"):
            self.loads.append(a["src"])
        if tag == "object" and a.get("data"):
            self.loads.append(a["data"])


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def parse_site(site: Path) -> dict[str, Page]:
    return {str(f.relative_to(site)): parse(f) for f in sorted(site.rglob("*.html"))}
