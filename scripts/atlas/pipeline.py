"""The pipeline run for MkDocs, called by the plugin (``plugin.py``).

In:  the plugin's state dict (``site_url``, ``langs``, ``building``) and MkDocs' site directory.
Out: the generated pages under ``docs/`` (once per data fingerprint, so mkdocs-static-i18n's
     four language builds generate once; under ``mkdocs serve`` an edit of fact texts renders
     again only the pages that read them, incremental.py); after the last language is built, the files MkDocs
     does not build: the JSON API (with the upgrade checker's rules.json), the standalone
     checker and ruff configurations under /check/, the Atom feeds, the search index (not under
     ``mkdocs serve``), one 404 page per language, the redirect pages of renamed ids and robots.txt.

Everything runs in this process, in order: load -> validate -> enrich -> render -> write.
"""
from __future__ import annotations

import gc
import hashlib
import logging
from pathlib import Path
from typing import NamedTuple

from . import api, feed, i18n, incremental, rules, search_index
from .enrich import Atlas, enrich
from .langs import LANGS, SOURCE
from .load import DATA, RawData, load
from .problems import DataError
from .render import hand_written, template_hashes, write_pages
from .urls import DEFAULT_SITE_URL, url_for
from .validate import validate
from .wheel import earlier_problems

log = logging.getLogger("mkdocs.plugins.atlas")
PACKAGE = Path(__file__).resolve().parent


def fingerprint(site_url: str = "") -> str:
    """Changes when the data, the templates or the site URL change (the pages are then generated again)."""
    return fingerprints(site_url)[0]


def fingerprints(site_url: str = "", data_dir: Path = DATA) -> tuple[str, str]:
    """(``fingerprint``, the same without the templates and the files that hold fact texts:
    data/releases/, data/translations/, data/sources.yaml; incremental.py compares those by their
    facts, and the templates one by one)."""
    everything, others = hashlib.sha256(site_url.encode()), hashlib.sha256()
    everything.update(repr(sorted(template_hashes().items())).encode())
    facts = (data_dir / "releases", data_dir / "translations")
    for p in sorted(data_dir.rglob("*.yaml")) + sorted(data_dir.rglob("*.txt")):
        data = p.read_bytes()
        text = p.parent in facts or facts[1] in p.parents or p == data_dir / "sources.yaml"
        for h in (everything,) if text else (everything, others):
            h.update(str(p).encode())
            h.update(data)
    return everything.hexdigest(), others.hexdigest()


class Built(NamedTuple):
    atlas: Atlas
    pages: dict[str, str]   # {"<lang>/<path>.md": Markdown}
    api_files: dict         # {"<name>.json": JSON-able}, rules.json (the upgrade checker's rules) among them
    check_files: dict       # {"check/atlas_check.py" | "check/ruff-<v>.toml": text}, beside the /check/ page
    rendered: incremental.Rendered | None = None   # what the next run of mkdocs serve compares against


def pipeline(raw: RawData | None = None, langs=LANGS, site_url: str = DEFAULT_SITE_URL,
             previous: incremental.Rendered | None = None, others: str | None = None) -> Built:
    """(load ->) validate -> enrich -> render, in memory: (the facts, ``{"<lang>/<path>.md": Markdown}``
    for ``langs``, the JSON API files). ``raw`` is load's output (default: ``load()`` of data/).
    ``previous`` (the last run's ``Built.rendered``) with ``others`` (``fingerprints()[1]`` of the
    data it was loaded from) renders again only the pages an edit of texts changed (incremental.py).
    Raises ``DataError`` (each problem ``file: id: field: message``) for any bad input; nothing is
    written, so the last good site stays."""
    fb = validate(raw if raw is not None else load())
    missing = [str(p) for p in i18n.absent(fb) + i18n.placeholder_problems(fb)]
    missing += earlier_problems(fb.releases, fb.release_files, fb.lock, fb.claims)
    if missing:
        raise DataError(missing)
    atlas = enrich(fb)
    rendered = incremental.render(atlas, langs, site_url, others or "", previous if others is not None else None)
    try:
        api_files = api.build(atlas, site_url)
    except Exception as exc:  # noqa: BLE001 - a clean message, never a traceback
        raise DataError([f"data/releases/*.yaml: -: api: {type(exc).__name__}: {exc}"]) from None
    found = rules.build_rules(atlas, site_url)   # raises DataError for a check: block that does not resolve
    api_files["rules.json"] = found
    check_files = {"check/atlas_check.py": rules.standalone_script(found)}
    check_files.update({f"check/ruff-{p.version}.toml": rules.ruff_config(found, p.version) for p in atlas.history})
    return Built(atlas, rendered.pages, api_files, check_files, rendered)


def generate(state: dict) -> Atlas:
    """Run the pipeline if the data or templates changed since the last run, and write the pages.

    In a build, what the pipeline leaves (the facts, the pages) lives until the process exits;
    ``gc.freeze()`` takes it out of the collector's view, so that MkDocs' four language builds
    do not scan it again at every collection (0.3-0.5 s a build, BENCHMARKS.md). Not under
    ``mkdocs serve``, whose rebuilds would pile up frozen objects."""
    site_url = state.get("site_url") or DEFAULT_SITE_URL
    fp, others = fingerprints(site_url)
    if state.get("fingerprint") != fp:
        langs = tuple(state.get("langs") or LANGS)   # `make serve SERVE_LANG=ru` renders one language
        before = state.get("rendered")
        # raises DataError: the build stops, site/ untouched, and the last good run stays `before`
        built = pipeline(None, langs, site_url, before, others)
        written, removed = write_pages(built.pages, langs=langs, before=before.pages if before else None)
        log.info(f"atlas: {built.rendered.rendered} pages rendered, {written} generated pages written, {removed} removed")
        state.update(fingerprint=fp, atlas=built.atlas, api_files=built.api_files, check_files=built.check_files,
                     rendered=built.rendered if not state.get("building") else None)
        if state.get("building"):
            gc.freeze()
    return state["atlas"]


def write_outputs(state: dict, site_dir: Path) -> None:
    """After the last language's build: the files MkDocs does not build, into ``site_dir``. Under
    ``mkdocs serve`` (which keeps ``site_dir``), only the JSON files that changed since the last
    rebuild are written again (encoding all of them costs about 0.5 s)."""
    atlas, site_url = state["atlas"], state.get("site_url") or DEFAULT_SITE_URL
    last = state.get("api_written") if not state.get("building") else None
    if last is None or last[0] != site_dir:
        last = (site_dir, {})
    api_files = {name: body for name, body in state["api_files"].items() if last[1].get(name) != body}
    api.write(api_files, site_dir / "api" / "v1")
    if not state.get("building"):
        state["api_written"] = (site_dir, {**last[1], **api_files})
    for name, text in state["check_files"].items():
        (site_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (site_dir / name).write_text(text, encoding="utf-8")
    feed.write(atlas, site_dir, site_url)
    write_404s(state, site_dir)
    write_redirects(atlas, site_dir)
    write_robots(site_dir, state.get("site_url"))
    if state.get("building"):   # `mkdocs serve` leaves the search index out (README "make serve")
        sizes = search_index.write(search_index.encode(atlas), site_dir / "search")
        log.info("atlas: search index written to %s (%s)", site_dir / "search",
                 ", ".join(f"{lang} {n // 1024} KB" for lang, n in sizes.items()))


def ui_string(state: dict, lang: str, key: str) -> str:
    ui = state["atlas"].fb.ui
    return ui.get(lang, ui[SOURCE])[key]


_REDIRECT = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{new}</title>
<link rel="canonical" href="{href}"><meta name="robots" content="noindex">
<meta http-equiv="refresh" content="0; url={href}">
<script>location.replace("{href}" + location.hash)</script></head>
<body><p><a href="{href}">{href}</a></p></body></html>
"""


def write_redirects(atlas: Atlas, site_dir: Path) -> None:
    """``/<lang>/changes/<old>/`` -> ``../<new>/`` for every renamed id in the ledger, in every language."""
    for old, new in (atlas.fb.ledger.get("redirects") or {}).items():
        for lang in LANGS:
            target = site_dir / url_for(lang, f"changes/{old}/index.html").lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_REDIRECT.format(lang=lang, new=new, href=f"../{new}/"), encoding="utf-8")


def write_404s(state: dict, site_dir: Path) -> None:
    """Each language's 404 at ``<lang>/404.html``; the source language's stays at the root."""
    for lang, html in state.get("404", {}).items():
        target = site_dir / url_for(lang, "404.html").lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")


def write_robots(site_dir: Path, site_url: str | None) -> None:
    """robots.txt allowing everything and naming the sitemap (absolute, from site_url)."""
    lines = ["User-agent: *", "Allow: /"]
    if site_url:
        lines.append(f"Sitemap: {site_url.rstrip('/')}/sitemap.xml")
    (site_dir / "robots.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


__all__ = ["fingerprint", "generate", "hand_written", "pipeline", "ui_string", "write_outputs"]
