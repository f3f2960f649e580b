"""Glue between the pipeline and MkDocs, called by ``scripts/hook.py``.

In:  the hook's state dict and MkDocs' site directory.
Out: generated pages under ``docs/`` (once per data fingerprint, so the four
     language builds of mkdocs-static-i18n generate once), redirect maps for
     renamed ids, the JSON API files, the search index and one 404 page per language.
"""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from . import api, i18n, search_index
from .enrich import Atlas, enrich
from .load import DATA, LANGS, DataError, load
from .render import render_all, write_pages
from .validate import validate

log = logging.getLogger("mkdocs.plugins.atlas")
TEMPLATE_DIR = Path(__file__).resolve().parents[1] / "templates"


def _fingerprint() -> str:
    h = hashlib.sha256()
    for p in sorted(DATA.rglob("*.yaml")) + sorted(TEMPLATE_DIR.glob("*.j2")):
        h.update(str(p).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def generate(state: dict) -> Atlas:
    """Run the pipeline if the data or templates changed since the last run."""
    fp = _fingerprint()
    if state.get("fingerprint") != fp:
        fb = validate(load())              # raises DataError: the build stops, site/ untouched
        missing = [str(p) for p in i18n.problems(fb) if p.kind in ("missing", "empty")]
        if missing:
            raise DataError(missing)
        atlas = enrich(fb)
        written, removed = write_pages(render_all(atlas))
        log.info(f"atlas: {written} generated pages written, {removed} removed")
        state.update(fingerprint=fp, atlas=atlas, api_written=False)
    return state["atlas"]


def ui_string(state: dict, lang: str, key: str) -> str:
    ui = state["atlas"].fb.ui
    return ui.get(lang, ui["en"])[key]


_REDIRECT = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{new}</title>
<link rel="canonical" href="{href}"><meta name="robots" content="noindex">
<meta http-equiv="refresh" content="0; url={href}">
<script>location.replace("{href}" + location.hash)</script></head>
<body><p><a href="{href}">{href}</a></p></body></html>
"""


def write_redirects(state: dict, site_dir: Path) -> None:
    """``/<lang>/changes/<old>/`` -> ``../<new>/`` for every renamed id in the ledger, in every language."""
    for old, new in (state["atlas"].fb.ledger.get("redirects") or {}).items():
        for lang in LANGS:
            target = site_dir / ("" if lang == "en" else lang) / "changes" / old / "index.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_REDIRECT.format(lang=lang, new=new, href=f"../{new}/"), encoding="utf-8")


def write_api(state: dict, site_dir: Path) -> None:
    if state.get("api_written"):
        return
    api.write(state["atlas"], site_dir / "api" / "v1")
    state["api_written"] = True


def write_404s(state: dict, site_dir: Path) -> None:
    """Each language's 404 at ``<lang>/404.html``; English stays at the root."""
    pages = state.get("404", {})
    for lang, html in pages.items():
        target = site_dir / "404.html" if lang == "en" else site_dir / lang / "404.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")


def index_search(state: dict, site_dir: Path) -> None:
    """Write the search index, one JSON file per language, to ``site/search/`` (search_index.py)."""
    sizes = search_index.write(state["atlas"], site_dir / "search")
    log.info("atlas: search index written to %s (%s)", site_dir / "search",
             ", ".join(f"{lang} {n // 1024} KB" for lang, n in sizes.items()))


def write_robots(site_dir: Path, site_url: str | None) -> None:
    """robots.txt allowing everything and naming the sitemap (absolute, from site_url)."""
    lines = ["User-agent: *", "Allow: /"]
    if site_url:
        lines.append(f"Sitemap: {site_url.rstrip('/')}/sitemap.xml")
    (site_dir / "robots.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
