"""The URL and page-path scheme: where each page lives, in every language.

In:  a language code and a page (a docs path such as ``changes/<id>.md``, or a kind and an id).
Out: its docs path, its directory URL, its site-absolute URL (``/zh/changes/<id>/``) or its
full URL on a deployment (``site_url`` + that). The source language is served at the root;
the others under ``/<lang>/``. Everything that builds a link or a file path imports it from
here; the JavaScript gets the patterns it needs rendered into the page (``JS_PATTERNS``).
"""
from __future__ import annotations

import posixpath

from .langs import SOURCE

#: Absolute URLs (copy-link control, feeds, API, the checker's links) are built on this when no site_url is given.
DEFAULT_SITE_URL = "http://127.0.0.1:8000/"
#: Pages per fact: ``{kind: docs path pattern}``; a published change id keeps its path forever.
PAGES = {
    "change": "changes/{id}.md",
    "release": "releases/{id}.md",
    "upgrade": "upgrade/{id}.md",
    "faq": "faq/{id}.md",
}
#: An upgrade's id, from the two releases' versions: ``2.13-to-2.15``.
UPGRADE_SLUG = "{old}-to-{new}"
#: What the browser code needs of the scheme (rendered into the page as data attributes).
JS_PATTERNS = {"upgrade_slug": UPGRADE_SLUG}


def lang_prefix(lang: str) -> str:
    """``""`` for the source language, ``"zh/"`` for the others."""
    return "" if lang == SOURCE else f"{lang}/"


def url_for(lang: str, path: str = "") -> str:
    """Site-absolute URL of a page in a language: the source language at the root, others under ``/<lang>/``.

    ``url_for("zh", "changes/x/")`` -> ``/zh/changes/x/``; ``url_for("en", "")`` -> ``/``.
    """
    return "/" + lang_prefix(lang) + path.lstrip("/")


def page_path(kind: str, ident: str) -> str:
    """Docs path (per language) of a fact's page: ``page_path("change", "x")`` -> ``changes/x.md``."""
    return PAGES[kind].format(id=ident)


def upgrade_slug(old: str, new: str) -> str:
    return UPGRADE_SLUG.format(old=old, new=new)


def page_url(path: str) -> str:
    """Directory URL of a docs path: ``changes/x.md`` -> ``changes/x/``, ``index.md`` -> ``''``."""
    if path.endswith("index.md"):
        return path[: -len("index.md")]
    return path[: -len(".md")] + "/"


def page_href(lang: str, kind: str, ident: str) -> str:
    """Site-absolute directory URL of a fact's page: ``/zh/changes/x/``."""
    return url_for(lang, page_url(page_path(kind, ident)))


def rel_href(from_path: str, to_path: str) -> str:
    """Relative URL between two generated pages of one language (directory URLs)."""
    src, dst = page_url(from_path), page_url(to_path)
    href = posixpath.relpath(dst or ".", src or ".")
    return "./" if href == "." else href + "/"


def absolute_url(site_url: str, lang: str, path: str) -> str:
    """The full URL of a docs page on a deployment: ``site_url`` + language prefix + directory URL."""
    return site_url.rstrip("/") + url_for(lang, page_url(path))


def md_link(from_path: str, to_path: str) -> str:
    """Relative link between two docs files, as MkDocs resolves (and checks) it."""
    return posixpath.relpath(to_path, posixpath.dirname(from_path) or ".")


def feed_path(lang: str) -> str:
    """The Atom feed of a language, relative to the site root."""
    return lang_prefix(lang) + "feed.xml"
