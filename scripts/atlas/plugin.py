"""The MkDocs plugin (``plugins: [atlas]`` in mkdocs.yml): dispatches to the pipeline, holds no logic.

on_startup       notes whether this is `mkdocs serve` (no search index; code edits reload the pipeline,
                 except the unchanged modules that import nothing of the package: their caches, such
                 as the parsed runtime locks and their API diffs, stay)
on_serve         a failed rebuild keeps serving the last good pages; docs/ is watched without the generated
                 pages; the garbage collector waits until a rebuild has ended
on_config        the pipeline (pipeline.generate): load -> validate -> enrich -> render -> docs/<lang>/...,
                 early, so a data error stops the build before anything is written
on_page_markdown / on_page_content
                 raw HTML blocks (the API diffs) kept out of Markdown and put back after it (rawhtml)
on_env           UI strings for the theme templates (404, Open Graph tags); the theme's compiled
                 templates kept in memory for the next language and the next rebuild (MkDocs makes a
                 new Jinja environment for each, and compiling Material's templates costs ~0.1 s each time)
on_post_template keeps each language's 404 page
on_post_build    after the last language (mkdocs-static-i18n builds the others inside its own
                 on_post_build, so ours runs once per language and the outermost one last): the
                 JSON API, the feeds, the search index, 404s, redirects, robots.txt (pipeline.write_outputs)

A data error becomes MkDocs' ``PluginError`` with the validator's lines: no traceback, and
``atlas build`` keeps the last good site.
"""
from __future__ import annotations

import ast
import gc
import importlib
import logging
import sys
from html import escape
from pathlib import Path

import jinja2
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority

from . import rawhtml
from .langs import SOURCE

#: the title Python-Markdown's toc extension gives every heading anchor (``permalink: true``)
PERMALINK = 'title="Permanent link"'

log = logging.getLogger("mkdocs.plugins.atlas")
PACKAGE = Path(__file__).resolve().parent


class AtlasConfig(Config):
    #: one language only (``make serve SERVE_LANG=ru``); mkdocs.yml passes $ATLAS_SERVE_LANG
    serve_lang = c.Optional(c.Type(str))


def _code_stamp() -> tuple:
    """Changes when a module of the pipeline is edited (wheel/ too)."""
    return tuple(sorted((str(p.relative_to(PACKAGE)), p.stat().st_mtime_ns) for p in PACKAGE.rglob("*.py")))


def _self_contained(module, edited: set[str]) -> bool:
    """Whether ``module`` is unchanged (not in ``edited``, paths relative to the package) and
    imports nothing of the package, so that keeping it across a reload cannot keep old code."""
    path = Path(getattr(module, "__file__", None) or PACKAGE)
    if path.suffix != ".py" or str(path.relative_to(PACKAGE)) in edited:
        return False
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "atlas"):
            return False
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "atlas" for a in node.names):
            return False
    return True


class _CompiledInMemory(jinja2.BytecodeCache):
    """Compiled templates by name, for this process. Jinja stores each with its source's checksum
    and compiles again a template whose source changed (an edited theme override)."""

    def __init__(self):
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket):
        self.code[bucket.key] = bucket.bytecode_to_string()


class AtlasPlugin(BasePlugin[AtlasConfig]):
    def __init__(self):
        self.state: dict = {}
        self.serving = False
        self.depth = 0          # builds in progress: the outer one and mkdocs-static-i18n's nested ones
        self.stamp = _code_stamp()
        self.steps = importlib.import_module("atlas.pipeline")
        self.raw: dict[str, list[str]] = {}   # page -> its raw HTML blocks, between the two page events
        self.compiled = _CompiledInMemory()   # the theme's templates, compiled once

    def _reload_if_edited(self) -> None:
        """Under `mkdocs serve`, an edited module of the pipeline takes effect at the next rebuild:
        the pipeline's modules are imported again and the pages generated again. A module that is
        unchanged and imports nothing of the package is kept (``_self_contained``), with its caches:
        wheel/runtime.py's parsed locks and API diffs are most of the first run's enrich step."""
        stamp = _code_stamp()
        if stamp == self.stamp:
            return
        edited = {name for name, _ in set(stamp) ^ set(self.stamp)}
        keep = {"atlas", __name__}
        dropped = [n for n in sys.modules if n.startswith("atlas.") and n not in keep
                   and not _self_contained(sys.modules[n], edited)]
        for name in dropped:
            del sys.modules[name]
            parent, _, child = name.rpartition(".")
            if parent in sys.modules and hasattr(sys.modules[parent], child):
                # else `from . import x` finds the old module on the package and never imports it again
                delattr(sys.modules[parent], child)
        self.steps = importlib.import_module("atlas.pipeline")
        self.stamp, self.state = stamp, {"404": self.state.get("404", {})}
        log.info(f"atlas: pipeline code changed; reloaded ({len(dropped)} modules imported again)")

    def _guarded(self, step, *args):
        try:
            return step(*args)
        except self.steps.DataError as exc:   # a clean message, no traceback; the build stops
            raise PluginError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - still a message, never a traceback; the build stops
            raise PluginError(f"the fact pipeline failed: {type(exc).__name__}: {exc}") from None

    def on_startup(self, *, command, dirty):
        self.serving = command == "serve"

    def on_serve(self, server, *, config, builder):
        """A rebuild that fails (bad data) leaves the last good pages served instead of a stuck server.

        Python's collector is paused during a rebuild: the server holds the last build's pages and
        facts, millions of objects, and each full collection scans all of them while a rebuild makes
        hardly any reference cycle to find (0.1-0.6 s of a 3-4 s rebuild, BENCHMARKS.md). It runs
        again as soon as the rebuild has ended or failed."""
        def build_or_keep_last_good(config=None):
            collecting = gc.isenabled()
            gc.disable()
            try:
                builder(config)
            except Abort:  # mkdocs has printed the validator's message
                self.depth = 0
                log.error("atlas: the last good pages are still served; fix the data and save again")
            finally:
                if collecting:
                    gc.enable()

        server.builder = build_or_keep_last_good
        # Watching all of docs/ would see the pages the pipeline writes there and build every edit
        # twice; watch the hand-written files instead (data/, scripts/, overrides/ are in `watch:`).
        server.unwatch(config.docs_dir)
        for path in self.steps.hand_written(Path(config.docs_dir)):
            server.watch(str(path))
        return server

    def on_config(self, config):
        if self.depth:          # a nested language build: the pipeline already ran for this build
            return config
        if self.serving:
            self._reload_if_edited()
        lang = self.config.serve_lang
        self.state["langs"] = (lang,) if lang else None
        self.state["site_url"] = config.site_url   # absolute URLs (copy link, API, feeds) follow the deployment path
        self.state["building"] = not self.serving
        self._guarded(self.steps.generate, self.state)
        return config

    def on_pre_build(self, *, config):
        self.depth += 1

    def on_build_error(self, *, error):
        self.depth = 0

    def on_page_markdown(self, markdown, *, page, config, files):
        markdown, blocks = rawhtml.cut(markdown)
        if blocks:
            self.raw[page.file.src_uri] = blocks
        return markdown

    def on_page_content(self, html, *, page, config, files):
        blocks = self.raw.pop(page.file.src_uri, None)
        html = self._guarded(rawhtml.paste, html, blocks) if blocks else html
        # the toc extension's heading anchors say "Permanent link" in every language; say it in the page's
        lang = str(config.theme.get("language") or SOURCE)
        title = self.steps.ui_string(self.state, lang, "change.permalink")
        return html.replace(PERMALINK, f'title="{escape(title, quote=True)}"') if lang != SOURCE else html

    def on_env(self, env, *, config, files):
        if env.bytecode_cache is None:
            env.bytecode_cache = self.compiled
        env.globals["atlas_ui"] = lambda lang, key: self.steps.ui_string(self.state, lang, key)
        env.globals["url_for"] = self.steps.url_for   # url_for(lang, "changes/x/") -> "/zh/changes/x/"
        return env

    def on_post_template(self, output_content, *, template_name, config):
        if template_name == "404.html":
            self.state.setdefault("404", {})[str(config.theme.get("language") or SOURCE)] = output_content
        return output_content

    @event_priority(-200)   # after mkdocs-static-i18n (-100), whose on_post_build builds the other languages
    def on_post_build(self, *, config):
        self.depth -= 1
        if self.depth == 0:
            self._guarded(self.steps.write_outputs, self.state, Path(config.site_dir))
