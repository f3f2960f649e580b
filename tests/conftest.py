"""Fixtures only. The built site is made once per session, in a temp directory."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from atlas.enrich import enrich  # noqa: E402
from atlas.load import load  # noqa: E402
from atlas.provenance import find_sources_dir  # noqa: E402
from atlas.validate import validate  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: What a copy of the repository leaves out: caches, the virtualenv, built sites, artifacts.
COPY_IGNORE = shutil.ignore_patterns(".venv", ".git", ".cache", ".pytest_cache", "site", "site.old", ".site-*",
                                     "test-artifacts", "__pycache__", "*.pyc")


def repo_copy(dst: Path) -> Path:
    """A copy of the repository without caches or built output (tests that build or break it)."""
    shutil.copytree(ROOT, dst, ignore=COPY_IGNORE)
    return dst


@pytest.fixture(scope="session")
def factbase():
    """The real data, validated with the source articles (locators and values checked)."""
    return validate(load(), find_sources_dir())


@pytest.fixture(scope="session")
def atlas(factbase):
    return enrich(factbase)


@pytest.fixture
def data_copy(tmp_path) -> Path:
    """A writable copy of data/, for tests that break it on purpose."""
    dst = tmp_path / "data"
    shutil.copytree(ROOT / "data", dst)
    return dst


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built once with scripts/build.py (mkdocs build --strict)."""
    import build

    site = tmp_path_factory.mktemp("site") / "site"
    assert build.build(site) == 0, "mkdocs build --strict failed; run `make build` to see why"
    return site


@pytest.fixture(scope="session")
def served_site(built_site):
    import static_server

    server, url = static_server.serve(built_site)
    yield url
    server.shutdown()


from ensure_browser import chromium  # noqa: E402

# --- Chromium (shared by every browser test module: Playwright allows one sync session per process) ---
CHROMIUM = chromium()   # scripts/ensure_browser.py: the one place that finds the browser
#: Flags that keep headless Chromium off the network (this machine has none) and quiet.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-default-apps"]


@pytest.fixture(scope="session")
def browser():
    if CHROMIUM is None:
        pytest.fail("Chromium not found: run `sudo apt-get install chromium fonts-noto-cjk` (make test does it as root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    outside = []
    pg.on("request", lambda r: outside.append(r.url) if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None)
    yield pg
    ctx.close()
    assert not outside, f"requests to other hosts: {outside[:5]}"
