"""Glue between the pipeline and MkDocs, called by ``scripts/hook.py``.

In:  the hook's state dict and MkDocs' site directory.
Out: generated pages under ``docs/`` (once per data fingerprint, so the four
     language builds of mkdocs-static-i18n generate once), redirect maps for
     renamed ids, the JSON API files and one 404 page per language.
"""
from __future__ import annotations

import hashlib
import logging
import subprocess
import sys

from pathlib import Path

from . import api
from .enrich import Atlas, enrich
from .load import DATA, LANGS, load
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
        atlas = enrich(validate(load()))   # raises DataError: the build stops, site/ untouched
        written, removed = write_pages(render_all(atlas))
        log.info(f"atlas: {written} generated pages written, {removed} removed")
        state.update(fingerprint=fp, atlas=atlas, api_written=False)
    return state["atlas"]


def ui_string(state: dict, lang: str, key: str) -> str:
    ui = state["atlas"].fb.ui
    return ui.get(lang, ui["en"])[key]


def redirect_maps(atlas: Atlas) -> dict[str, str]:
    """``changes/<old>.md -> changes/<new>.md`` in every language, from the ledger."""
    out = {}
    for old, new in (atlas.fb.ledger.get("redirects") or {}).items():
        for lang in LANGS:
            prefix = "" if lang == "en" else f"{lang}/"
            out[f"{prefix}changes/{old}.md"] = f"{prefix}changes/{new}.md"
    return out


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


def index_search(site_dir: Path) -> None:
    """Build the Pagefind index: one index per <html lang>, Chinese segmented (extended build)."""
    cmd = [sys.executable, "-m", "pagefind", "--site", str(site_dir), "--silent"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"pagefind failed ({proc.returncode}): {proc.stderr or proc.stdout}")
    log.info("atlas: search index written to %s", site_dir / "pagefind")
