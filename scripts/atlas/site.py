"""Glue between the pipeline and MkDocs, called by ``scripts/hook.py``.

In:  the hook's state dict and MkDocs' site directory.
Out: generated pages under ``docs/`` (once per data fingerprint, so the four
     language builds of mkdocs-static-i18n generate once), redirect maps for
     renamed ids, the JSON API files and one 404 page per language.
"""
from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import sys

from pathlib import Path

from . import api, i18n
from .enrich import Atlas, enrich
from .load import DATA, LANGS, DataError, RawData, load, url_for
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


def pipeline(raw: RawData, langs=LANGS) -> tuple[Atlas, dict[str, str], dict]:
    """load's output -> validate -> enrich -> render (pages of ``langs``) and the JSON API, in memory.

    Raises ``DataError`` (each problem ``file: id: field: message``) for any bad input;
    nothing is written, so the last good site stays.
    """
    fb = validate(raw)
    missing = [str(p) for p in i18n.problems(fb) if p.kind in ("missing", "empty")]
    if missing:
        raise DataError(missing)
    atlas = enrich(fb)
    pages = render_all(atlas, langs)
    try:
        api_files = api.build(atlas)
    except Exception as exc:  # noqa: BLE001
        raise DataError([f"{fb.sources_file.replace('sources.yaml', 'releases/*.yaml')}: -: api: {type(exc).__name__}: {exc}"]) from None
    return atlas, pages, api_files


def generate(state: dict) -> Atlas:
    """Run the pipeline if the data or templates changed since the last run."""
    fp = _fingerprint()
    if state.get("fingerprint") != fp:
        atlas, pages, api_files = pipeline(load())   # raises DataError: the build stops, site/ untouched
        written, removed = write_pages(pages)
        log.info(f"atlas: {written} generated pages written, {removed} removed")
        state.update(fingerprint=fp, atlas=atlas, api_files=api_files, api_written=False)
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
            target = site_dir / url_for(lang, f"changes/{old}/index.html").lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_REDIRECT.format(lang=lang, new=new, href=f"../{new}/"), encoding="utf-8")


def write_api(state: dict, site_dir: Path) -> None:
    if state.get("api_written"):
        return
    api.write(state["api_files"], site_dir / "api" / "v1")
    state["api_written"] = True


def write_404s(state: dict, site_dir: Path) -> None:
    """Each language's 404 at ``<lang>/404.html``; English stays at the root."""
    pages = state.get("404", {})
    for lang, html in pages.items():
        target = site_dir / url_for(lang, "404.html").lstrip("/")
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
