"""Glue between the pipeline and MkDocs, called by ``scripts/hook.py``.

In:  the hook's state dict and MkDocs' site directory.
Out: generated pages under ``docs/`` (once per data fingerprint, so the four
     language builds of mkdocs-static-i18n generate once), redirect maps for
     renamed ids, the JSON API files, the Atom feeds and one 404 page per language.
"""
from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import sys

from pathlib import Path

from . import api, feed, i18n
from .enrich import Atlas, enrich
from .load import DATA, LANGS, DataError, load
from .render import DEFAULT_SITE_URL, GENERATED_DIRS, GENERATED_FILES, render_all, write_pages
from .validate import validate

log = logging.getLogger("mkdocs.plugins.atlas")
TEMPLATE_DIR = Path(__file__).resolve().parents[1] / "templates"


def _fingerprint(site_url: str = "") -> str:
    h = hashlib.sha256(site_url.encode())
    for p in sorted(DATA.rglob("*.yaml")) + sorted(TEMPLATE_DIR.glob("*.j2")):
        h.update(str(p).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def generate(state: dict) -> Atlas:
    """Run the pipeline if the data or templates changed since the last run."""
    site_url = state.get("site_url") or DEFAULT_SITE_URL
    fp = _fingerprint(site_url)
    if state.get("fingerprint") != fp:
        fb = validate(load())              # raises DataError: the build stops, site/ untouched
        missing = [str(p) for p in i18n.problems(fb) if p.kind in ("missing", "empty")]
        if missing:
            raise DataError(missing)
        atlas = enrich(fb)
        langs = state.get("langs") or LANGS   # `make serve SERVE_LANG=ru` renders one language
        written, removed = write_pages(render_all(atlas, site_url, langs), langs=langs)
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
    api.write(state["atlas"], site_dir / "api" / "v1", state.get("site_url") or DEFAULT_SITE_URL)
    feed.write(state["atlas"], site_dir, state.get("site_url") or DEFAULT_SITE_URL)
    state["api_written"] = True


def write_404s(state: dict, site_dir: Path) -> None:
    """Each language's 404 at ``<lang>/404.html``; English stays at the root."""
    pages = state.get("404", {})
    for lang, html in pages.items():
        target = site_dir / "404.html" if lang == "en" else site_dir / lang / "404.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")


def index_search(site_dir: Path) -> None:
    """Build the Pagefind index: one index per <html lang>, Chinese segmented (extended build)."""
    # permalink pilcrows would show up in result excerpts
    cmd = [sys.executable, "-m", "pagefind", "--site", str(site_dir), "--silent", "--exclude-selectors", ".headerlink"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"pagefind failed ({proc.returncode}): {proc.stderr or proc.stdout}")
    # Pagefind writes its language map in hash-map order; sort it so builds are byte-identical
    entry = site_dir / "pagefind" / "pagefind-entry.json"
    entry.write_text(json.dumps(json.loads(entry.read_text(encoding="utf-8")), sort_keys=True,
                                separators=(",", ":")), encoding="utf-8")
    log.info("atlas: search index written to %s", site_dir / "pagefind")


def write_robots(site_dir: Path, site_url: str | None) -> None:
    """robots.txt allowing everything and naming the sitemap (absolute, from site_url)."""
    lines = ["User-agent: *", "Allow: /"]
    if site_url:
        lines.append(f"Sitemap: {site_url.rstrip('/')}/sitemap.xml")
    (site_dir / "robots.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def hand_written(docs: Path) -> list[Path]:
    """What `mkdocs serve` should watch under docs/: everything the pipeline does not write."""
    out = [docs / "assets"]
    for lang in LANGS:
        for p in sorted((docs / lang).rglob("*")) if (docs / lang).is_dir() else []:
            rel = p.relative_to(docs / lang).parts
            if p.is_file() and rel[0] not in GENERATED_DIRS and not (len(rel) == 1 and rel[0] in GENERATED_FILES):
                out.append(p)
    return out
