"""The README's screenshots, taken from a built site in headless Chromium.

In:  a built site (``--site DIR``, default: build one into a temporary directory).
Out: ``.github/screenshot.png`` (a change page with a pasted error message found by the search
     box), ``.github/breaking-index.png`` (the Russian breaking-change index, one row open) and
     ``.github/copy-link.png`` (the copy-link control on a Chinese change page).

    .venv/bin/python scripts/dev/screenshots.py [--site DIR]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import static_server
from ensure_browser import CHROMIUM_ARGS, chromium

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / ".github"


def shoot(site: Path) -> None:
    from playwright.sync_api import sync_playwright

    server, base = static_server.serve(site)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium() or "/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(base + "changes/215-dcp-strides/")
            box = page.locator("#atlas-search-input")
            box.click()
            box.fill("torch.distributed.checkpoint.api.CheckpointException: too many values to unpack (expected 5)")
            box.press("End")
            page.wait_for_selector("#atlas-search-results a")
            page.screenshot(path=str(OUT / "screenshot.png"))
            page.goto(base + "ru/breaking/")
            page.locator("details.atlas-more summary").nth(1).click()
            page.screenshot(path=str(OUT / "breaking-index.png"))
            page.set_viewport_size({"width": 1280, "height": 400})
            page.goto(base + "zh/changes/215-dcp-strides/")
            page.locator(".atlas-copy button").first.click()
            page.wait_for_timeout(200)
            page.screenshot(path=str(OUT / "copy-link.png"))
            browser.close()
    finally:
        server.shutdown()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path)
    args = ap.parse_args()
    if args.site:
        shoot(args.site)
        return 0
    import build

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        if build.build(site) != 0:
            return 1
        shoot(site)
    return 0


if __name__ == "__main__":
    sys.exit(main())
