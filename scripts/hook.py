"""MkDocs hook: dispatches to the fact pipeline; holds no logic of its own.

on_startup     notes `mkdocs serve`: no search index, SERVE_LANG renders one language
on_serve       a failed rebuild keeps serving the last good pages (the validator's message is printed)
on_config      load -> validate -> enrich -> render -> write docs/<lang>/... (once per data fingerprint),
               early, so a data error stops the build before anything is written
on_pre_build   in the builds of the languages after the first, writes their pages (rendered in a fork
               while MkDocs built the first)
on_env         exposes UI strings to theme templates (404, Open Graph tags)
on_post_template  keeps one 404 page per language instead of the last one built
on_post_build  writes the JSON API (site/api/v1/) and the Atom feeds (unless a build's fork writes them,
               site.write_later), redirect pages for renamed ids in every language, and restores the
               English root 404; after the last language is built, collects the search index
               (atlas/search_index.py) from that fork
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
if sys.dont_write_bytecode:
    # With PYTHONDONTWRITEBYTECODE set (as on some CI machines) every build would compile the pipeline's
    # modules from source again (0.05-0.12 s); compile them once into __pycache__, as pip does for
    # installed packages (a read-only checkout just compiles in memory, as before).
    import compileall
    compileall.compile_dir(Path(__file__).resolve().parent / "atlas", quiet=2)
# `mkdocs serve` reloads this hook on every rebuild; when a file under scripts/atlas/ changed,
# dropping the pipeline's modules makes the edit take effect (mkdocs.yml `watch:` triggers the rebuild).
_stamp = max(p.stat().st_mtime_ns for p in (Path(__file__).resolve().parent / "atlas").glob("*.py"))
if getattr(sys.modules.get("atlas"), "loaded_stamp", _stamp) != _stamp:
    for _name in [n for n in sys.modules if n == "atlas" or n.startswith("atlas.")]:
        del sys.modules[_name]

import logging  # noqa: E402

from mkdocs.exceptions import Abort, PluginError  # noqa: E402
from mkdocs.plugins import event_priority  # noqa: E402

import atlas  # noqa: E402
from atlas import site  # noqa: E402
from atlas.load import DataError, url_for  # noqa: E402

atlas.loaded_stamp = _stamp

_state: dict = {}


def _serving() -> bool:
    return os.environ.get("ATLAS_SERVING") == "1"


def _guarded(step, *args):
    try:
        return step(*args)
    except DataError as exc:  # a clean message, no traceback; the build stops
        # (under `mkdocs serve` the rebuild stops the same way and the last good pages stay served)
        raise PluginError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - still a message, never a traceback; the build stops
        raise PluginError(f"the fact pipeline failed: {type(exc).__name__}: {exc}") from None


def on_serve(server, config, builder):
    """A rebuild that fails (bad data) leaves the last good pages served instead of a stuck server."""
    def build_or_keep_last_good(config=None):
        try:
            builder(config)
        except Abort:  # mkdocs has printed the validator's message
            logging.getLogger("mkdocs.plugins.atlas").error(
                "atlas: the last good pages are still served; fix the data and save again")

    server.builder = build_or_keep_last_good
    # Watching all of docs/ would see the pages the pipeline writes there and build every edit twice;
    # watch the hand-written files instead (data/, scripts/, overrides/ are in mkdocs.yml `watch:`).
    server.unwatch(config.docs_dir)
    for path in site.hand_written(Path(config.docs_dir)):
        server.watch(str(path))
    return server


def on_startup(command, dirty):
    if command == "serve":  # survives the hook's reloads: fast rebuilds, no search index
        os.environ["ATLAS_SERVING"] = "1"


def _lang(config) -> str:
    return str(config.theme.get("language") or "en")


def on_config(config):
    if os.environ.get("ATLAS_SERVE_LANG"):   # mkdocs.yml's build_only_locale: the one language MkDocs builds
        _state["langs"] = (os.environ["ATLAS_SERVE_LANG"],)
    _state["site_url"] = config.site_url  # absolute URLs (copy link, API, feeds) follow the deployment path
    # a build (not `mkdocs serve`): writes the search index (serve leaves it out, README "make serve")
    # and may fork (serve runs threads, so it does not; atlas/forks.py)
    _state["building"] = not _serving()
    _guarded(site.generate, _state)
    return config


def _outer_build(config) -> bool:
    """The first language's build, which mkdocs-static-i18n's on_post_build extends with the others."""
    i18n = config.plugins.get("i18n")
    return i18n is None or not getattr(i18n, "building", False)


def on_pre_build(config):
    # (the pipeline itself ran in this build's on_config, which MkDocs always calls first)
    if not _outer_build(config):
        _guarded(site.write_later, _state, Path(config.site_dir))


def on_env(env, config, files):
    env.globals["atlas_ui"] = lambda lang, key: site.ui_string(_state, lang, key)
    env.globals["url_for"] = url_for   # url_for(lang, "changes/x/") -> "/zh/changes/x/"
    return env


def on_post_template(output, template_name, config):
    if template_name == "404.html":
        _state.setdefault("404", {})[_lang(config)] = output
    return output


@event_priority(-200)  # after mkdocs-static-i18n (-100), which builds the other languages in its own hook
def on_post_build(config):
    site.write_api(_state, Path(config.site_dir))
    site.write_404s(_state, Path(config.site_dir))
    site.write_redirects(_state, Path(config.site_dir))
    if _outer_build(config):  # every language is done
        if _state["building"]:   # written by site.write_later's fork; collected here
            _guarded(site.index_search, _state, Path(config.site_dir))
        site.write_robots(Path(config.site_dir), config.site_url)
