"""Glue between the pipeline and MkDocs, called by ``scripts/hook.py``.

In:  the hook's state dict and MkDocs' site directory.
Out: generated pages under ``docs/`` (once per data fingerprint, so the four
     language builds of mkdocs-static-i18n generate once), redirect maps for
     renamed ids, the JSON API files, the Atom feeds, the search index and one 404 page per language.

On another core (``forks.Forked``, builds only): ``pipeline`` compiles the templates and diffs
the API surfaces while the data is loaded and validated, then renders the languages after the
first while MkDocs builds the first; ``write_later`` writes them before the second language
builds and starts ``write_outputs`` (JSON API, feeds, search index), which runs while MkDocs
builds the others; ``index_search`` collects it after the last.
"""
from __future__ import annotations

import gc
import hashlib
import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, NamedTuple

from . import api, evidence, feed, i18n, search_index
from .forks import Forked
from .enrich import Atlas, enrich
from .load import DATA, LANGS, DataError, RawData, load, url_for
from .render import (DEFAULT_SITE_URL, GENERATED_DIRS, GENERATED_FILES, compile_templates, render_all, render_later,
                     reserve_pages, write_pages)
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


class Built(NamedTuple):
    atlas: Atlas
    pages: dict[str, str]           # {"<lang>/<path>.md": Markdown}
    api_files: dict
    later: Forked | None = None     # the pages of the languages after the first, still rendering


def pipeline(raw: RawData | Callable[[], RawData], langs=LANGS, sources_dir: Path | None = None,
             site_url: str = DEFAULT_SITE_URL, fork: bool = False) -> Built:
    """load's output (or ``load`` itself) -> validate -> enrich -> render (pages of ``langs``) and
    the JSON API, in memory. ``fork`` (builds only; see forks.py): while the data is loaded and
    validated, the templates compile and the API surfaces are parsed and diffed in forked
    processes; then the languages after the first render in another, so ``pages`` holds the first
    language and ``later.result()`` the others, while MkDocs builds the first.

    Raises ``DataError`` (each problem ``file: id: field: message``) for any bad input;
    nothing is written, so the last good site stays. With ``fork``, a problem in a later
    language's pages is raised by ``later.result()`` instead.
    """
    # on the other core meanwhile: a checkout's first build compiles the templates into .cache/jinja,
    # and every build parses and diffs the API surfaces (evidence.py)
    warm, surfaces = (Forked(compile_templates), evidence.prefetch_surfaces()) if fork else (None, None)
    try:
        fb = validate(raw() if callable(raw) else raw, sources_dir)
        missing = [str(p) for p in i18n.absent(fb)]
        if missing:
            raise DataError(missing)
        if surfaces is not None:
            evidence.take_surfaces(surfaces)
        atlas = enrich(fb)
    except BaseException:
        for job in (warm, surfaces):
            if job is not None:
                job.cancel()
        raise
    if warm is not None:
        try:
            warm.result()
        except (DataError, RuntimeError):
            pass   # a broken template: rendering compiles it again and reports it
    langs = tuple(langs)
    later = render_later(atlas, langs[1:], site_url) if fork and len(langs) > 1 else None
    try:
        pages = render_all(atlas, langs[:1] if later else langs, site_url)
        try:
            api_files = api.build(atlas, site_url)
        except Exception as exc:  # noqa: BLE001
            raise DataError([f"{fb.sources_file.replace('sources.yaml', 'releases/*.yaml')}: -: api: "
                             f"{type(exc).__name__}: {exc}"]) from None
    except BaseException:
        if later is not None:
            later.cancel()
        raise
    return Built(atlas, pages, api_files, later)


@contextmanager
def _collector_paused():
    """The pipeline builds about 100,000 objects that all live until it returns; the cyclic
    collector would scan them again and again meanwhile (about 15% of the pipeline's time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def generate(state: dict) -> Atlas:
    """Run the pipeline if the data or templates changed since the last run, and write the pages.

    In a build the first language's pages are written now, and an empty file stands for each
    page of the others until ``write_later`` writes them (called before the second language
    builds). What exists once the pipeline is done (the modules, the facts, the pages) stays
    until the process exits: ``gc.freeze()`` takes it out of the collector's view, so MkDocs'
    language builds do not scan it again at every collection. Not under ``mkdocs serve``,
    whose rebuilds would pile up frozen objects.
    """
    site_url = state.get("site_url") or DEFAULT_SITE_URL
    fp = _fingerprint(site_url)
    if state.get("fingerprint") != fp:
        langs = tuple(state.get("langs") or LANGS)   # `make serve SERVE_LANG=ru` renders one language
        building = bool(state.get("building"))      # a build, not `mkdocs serve`: another core may help
        with _collector_paused():
            built = pipeline(load, langs, sources_dir=find_sources_dir(), site_url=site_url,
                             fork=building)   # raises DataError: the build stops, site/ untouched
        now = langs[:1] if built.later else langs
        written, removed = write_pages(built.pages, langs=now)
        log.info(f"atlas: {written} generated pages written, {removed} removed")
        state.update(fingerprint=fp, atlas=built.atlas, api_files=built.api_files, api_written=False)
        if built.later:
            reserve_pages(built.pages, langs[1:])
            state["later"] = (built.later, langs[1:])
        if building:
            gc.freeze()
    return state["atlas"]


def write_later(state: dict, site_dir: Path) -> None:
    """Write the pages of the languages after the first (rendered in a fork while MkDocs built the
    first; ``generate``), then start writing the files MkDocs does not build (``write_outputs``)
    in another fork, while MkDocs builds those languages; ``index_search`` collects it.
    Raises ``DataError`` from their rendering."""
    job, langs = state.pop("later", (None, ()))
    if job is None:
        return
    written, removed = write_pages(job.result(), langs=langs)
    log.info(f"atlas: {written} generated pages written for {', '.join(langs)}, {removed} removed")
    state["outputs"] = Forked(write_outputs, state["atlas"], state["api_files"], site_dir,
                              state.get("site_url") or DEFAULT_SITE_URL)
    state["api_written"] = True


def write_outputs(atlas: Atlas, api_files: dict, site_dir: Path, site_url: str) -> dict[str, int]:
    """The JSON API, the Atom feeds and the search index, into ``site_dir``. Returns the index's
    bytes per language. (In a fork that starts after MkDocs cleaned ``site_dir`` for the first
    language: the other languages' builds do not clean it.)"""
    _write_api_and_feeds(atlas, api_files, site_dir, site_url)
    return search_index.write(search_index.encode(atlas), site_dir / "search")


def _write_api_and_feeds(atlas: Atlas, api_files: dict, site_dir: Path, site_url: str) -> None:
    api.write(api_files, site_dir / "api" / "v1")
    feed.write(atlas, site_dir, site_url)


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
    _write_api_and_feeds(state["atlas"], state["api_files"], site_dir, state.get("site_url") or DEFAULT_SITE_URL)
    state["api_written"] = True


def write_404s(state: dict, site_dir: Path) -> None:
    """Each language's 404 at ``<lang>/404.html``; English stays at the root."""
    pages = state.get("404", {})
    for lang, html in pages.items():
        target = site_dir / url_for(lang, "404.html").lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")


def index_search(state: dict, site_dir: Path) -> None:
    """The search index, one JSON file per language in ``site/search/`` (search_index.py): collected
    from ``write_later``'s fork, or computed here (a build of one language)."""
    job = state.pop("outputs", None)
    sizes = job.result() if job else search_index.write(search_index.encode(state["atlas"]), site_dir / "search")
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
