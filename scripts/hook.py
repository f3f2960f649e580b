"""MkDocs hook: dispatches to the fact pipeline; holds no logic of its own.

on_config      runs the pipeline early, so a data error stops the build before anything is written
on_pre_build   load -> validate -> enrich -> render -> write docs/<lang>/... (once per build)
on_env         exposes UI strings to theme templates (404, Open Graph tags)
on_post_template  keeps one 404 page per language instead of the last one built
on_post_build  writes the JSON API (site/api/v1/), redirect pages for renamed ids in every
               language, and restores the English root 404;
               after the last language is built, writes the search index (atlas/search_index.py)
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mkdocs.exceptions import PluginError  # noqa: E402
from mkdocs.plugins import event_priority  # noqa: E402

from atlas import site  # noqa: E402
from atlas.load import DataError  # noqa: E402

_state: dict = {}


def _generate():
    try:
        return site.generate(_state)
    except DataError as exc:  # a clean message, no traceback; the build stops
        raise PluginError(str(exc)) from None


def _lang(config) -> str:
    return str(config.theme.get("language") or "en")


def on_config(config):
    _generate()
    return config


def on_pre_build(config):
    _generate()


def on_env(env, config, files):
    env.globals["atlas_ui"] = lambda lang, key: site.ui_string(_state, lang, key)
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
    i18n = config.plugins.get("i18n")
    if i18n is None or not getattr(i18n, "building", False):  # the outer build: every language is done
        site.index_search(_state, Path(config.site_dir))
        site.write_robots(Path(config.site_dir), config.site_url)
