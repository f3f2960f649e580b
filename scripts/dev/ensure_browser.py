"""Make sure the real-browser tests can run: Debian's Chromium and CJK fonts.

In:  the machine.
Out: exit 0 when /usr/bin/chromium (or $CHROMIUM) and a CJK font are present. When
     they are missing and we are root, installs them with apt-get
     (``chromium fonts-noto-cjk``); otherwise exits 1 with the one command to run.
     ``make test`` calls this first, so browser tests never skip silently.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

PACKAGES = ["chromium", "fonts-noto-cjk"]


#: Flags that keep headless Chromium off the network (this machine has none) and quiet; every
#: script and test that starts the browser uses these.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-default-apps"]


def chromium() -> str | None:
    """The Chromium the tests and benchmarks drive: $CHROMIUM, /usr/bin/chromium, or `chromium` on PATH.
    The one place that says where the browser is (tests/test_browser.py and scripts/dev/bench.py import it)."""
    path = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    return path if os.path.exists(path) else shutil.which("chromium")


def has_cjk_font() -> bool:
    if not shutil.which("fc-list"):
        return False
    out = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    return bool(out.strip())


def main() -> int:
    if chromium() and has_cjk_font():
        return 0
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("installing Debian packages for the browser tests:", " ".join(PACKAGES), flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", *PACKAGES], check=True, env=env)
        if chromium() and has_cjk_font():
            return 0
    print("The browser tests need Chromium and CJK fonts. Install them, then rerun `make test`:\n"
          "    sudo apt-get install chromium fonts-noto-cjk", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
