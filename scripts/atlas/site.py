"""Glue between the pipeline and MkDocs, called by ``scripts/hook.py``.

In:  the hook's state dict and MkDocs' site directory.
Out: generated pages under ``docs/`` (once per data fingerprint, so the four
     language builds of mkdocs-static-i18n generate once), redirect maps for
     renamed ids, the JSON API files, the Atom feeds, the search index and one 404 page per language.

On another core (``forks.Forked``, builds only): ``pipeline`` compiles the templates while the
data is validated and enriched, then renders half of the languages while this process renders
the other half; ``generate`` starts the search index, which runs while MkDocs renders the pages,
and ``index_search`` collects it after the last language.
"""
from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from . import api, feed, i18n, search_index
from .forks import Forked
from .enrich import Atlas, enrich
from .load import DATA, LANGS, DataError, RawData, load, url_for
from .render import DEFAULT_SITE_URL, GENERATED_DIRS, GENERATED_FILES, compile_templates, render_all, write_pages
from .provenance import find_sources_dir
from .validate import validate

log = logging.getLogger("mkdocs.plugins.atlas")
TEMPLATE_DIR = Path(__file__).resolve().parents[1] / "templates"


def _fingerprint(site_url: str = "") -> str:
    h = hashlib.sha256(site_url.encode())
    for p in sorted(DATA.rglob("*.yaml")) + sorted(TEMPLATE_DIR.glob("*.j2")):
        h.update(str(p).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def pipeline(raw: RawData, langs=LANGS, sources_dir: Path | None = None,
             site_url: str = DEFAULT_SITE_URL, fork: bool = False) -> tuple[Atlas, dict[str, str], dict]:
    """load's output -> validate -> enrich -> render (pages of ``langs``) and the JSON API, in memory.
    ``fork``: compile the templates while validating, and render half of the languages, in forked
    processes (builds only; see forks.py).

    Raises ``DataError`` (each problem ``file: id: field: message``) for any bad input;
    nothing is written, so the last good site stays.
    """
    # a checkout's first build: the templates compile into .cache/jinja on the other core meanwhile
    warm = Forked(compile_templates) if fork else None
    try:
        fb = validate(raw, sources_dir)
        missing = [str(p) for p in i18n.absent(fb)]
        if missing:
            raise DataError(missing)
        atlas = enrich(fb)
    except BaseException:
        if warm is not None:
            warm.cancel()
        raise
    if warm is not None:
        try:
            warm.result()
        except (DataError, RuntimeError):
            pass   # a broken template: render_all compiles it again and reports it
    pages = render_all(atlas, langs, site_url, fork=fork)
    try:
        api_files = api.build(atlas, site_url)
    except Exception as exc:  # noqa: BLE001
        raise DataError([f"{fb.sources_file.replace('sources.yaml', 'releases/*.yaml')}: -: api: {type(exc).__name__}: {exc}"]) from None
    return atlas, pages, api_files


def generate(state: dict) -> Atlas:
    """Run the pipeline if the data or templates changed since the last run."""
    site_url = state.get("site_url") or DEFAULT_SITE_URL
    fp = _fingerprint(site_url)
    if state.get("fingerprint") != fp:
        langs = state.get("langs") or LANGS   # `make serve SERVE_LANG=ru` renders one language
        fork = bool(state.get("building"))    # a build, not `mkdocs serve`: another core may help
        atlas, pages, api_files = pipeline(load(), langs, sources_dir=find_sources_dir(), site_url=site_url,
                                           fork=fork)   # raises DataError: the build stops, site/ untouched
        written, removed = write_pages(pages, langs=langs)
        log.info(f"atlas: {written} generated pages written, {removed} removed")
        state.update(fingerprint=fp, atlas=atlas, api_files=api_files, api_written=False)
        if state.get("building"):
            state["search_job"] = Forked(search_index.encode, atlas)   # runs while MkDocs renders the pages
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
    feed.write(state["atlas"], site_dir, state.get("site_url") or DEFAULT_SITE_URL)
    state["api_written"] = True


def write_404s(state: dict, site_dir: Path) -> None:
    """Each language's 404 at ``<lang>/404.html``; English stays at the root."""
    pages = state.get("404", {})
    for lang, html in pages.items():
        target = site_dir / url_for(lang, "404.html").lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")


def index_search(state: dict, site_dir: Path) -> None:
    """Write the search index, one JSON file per language, to ``site/search/`` (search_index.py)."""
    job = state.pop("search_job", None)   # started by generate() in every build
    sizes = search_index.write(job.result() if job else search_index.encode(state["atlas"]), site_dir / "search")
    log.info("atlas: search index written to %s (%s)", site_dir / "search",
             ", ".join(f"{lang} {n // 1024} KB" for lang, n in sizes.items()))


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
