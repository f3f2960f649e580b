"""LinkChecker over a site on 127.0.0.1: every internal link and every ``#fragment``.

In:  ``python scripts/dev/check_links.py SITE_DIR`` (a built site, served here on a free port), or,
     from the tests, ``run(base_url, workdir)`` for a site already served.
Out: LinkChecker's report; exit 0 only when it found 0 warnings and 0 errors.

Where it runs:
- ``make linkcheck`` (and ``.ci/run``, after ``make test``): the whole real site, every release
  and every upgrade pair.
- ``make test``: the small history's site under a sub-path, links only (tests/test_subpath.py: every
  page type, four languages), and hand-made sites with a broken link and anchor that must fail
  (tests/test_site.py). Every link and fragment of the whole site is checked in-process there
  (tests/test_reading.py), so the whole-site run repeats that over HTTP.

LinkChecker itself runs through ``linkcheck_site.py`` (root, plugin and speed notes there).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
CLEAN = re.compile(r"\d+ links? in \d+ URLs? checked\. 0 warnings found\. 0 errors found")


def _origin(url: str) -> str:
    """http://127.0.0.1:8000/atlas/ -> http://127.0.0.1:8000/"""
    u = urlparse(url)
    return f"{u.scheme}://{u.netloc}/"


def run(base_url: str, workdir: Path, env: dict | None = None, anchors: bool = True) -> subprocess.CompletedProcess:
    """LinkChecker from ``base_url``: internal links and (``anchors``) fragments; other hosts are
    ignored (a link that leaves the site's sub-path for the same host is checked, and fails)."""
    cfg = Path(workdir) / "linkcheckerrc"
    # the server answers with a LinkChecker header, which lifts the per-host throttle to this rate
    cfg.write_text("[checking]\nmaxrequestspersecond=1000\n[filtering]\nignorewarnings=http-redirected\n"
                   + ("[AnchorCheck]\n" if anchors else "") + "[output]\n")
    return subprocess.run(
        [sys.executable, str(HERE / "linkcheck_site.py"), "--config", str(cfg), "--no-status",
         "--check-extern", "--no-robots", "--ignore-url", "^(?!" + re.escape(_origin(base_url)) + ")", "--threads", "8",
         base_url],
        capture_output=True, text=True, timeout=1200, env={**os.environ, **(env or {})})


def main(argv: list[str]) -> int:
    import static_server

    if len(argv) != 1 or not (Path(argv[0]) / "index.html").is_file():
        print("usage: check_links.py SITE_DIR   (a built site: `atlas build --site-dir SITE_DIR`)", file=sys.stderr)
        return 2
    server, url = static_server.serve(Path(argv[0]))
    try:
        with tempfile.TemporaryDirectory(prefix="linkcheck-") as tmp:
            proc = run(url, Path(tmp))
    finally:
        server.shutdown()
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    if proc.returncode != 0 or not CLEAN.search(proc.stdout):
        print(f"LinkChecker found broken links or anchors in {argv[0]} (exit {proc.returncode})", file=sys.stderr)
        return proc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
