"""Drive `mkdocs serve` from outside: start it, edit a data file, wait for the refreshed page.

In:  a repository directory (the real one or a copy), a port, optionally one language.
Out: ``Serve`` (a running ``mkdocs serve`` whose output is collected) and
     ``edit_to_refresh``: seconds from saving an edit to the served page showing it.
Used by ``scripts/dev/bench.py`` (edit-to-refresh figure) and ``tests/test_serve.py``.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path


class Serve:
    def __init__(self, repo: Path, port: int, lang: str | None = None):
        env = {**os.environ, "DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
        env.pop("SITE_URL", None)
        env["PYTHONPATH"] = str(Path(repo) / "scripts")   # the plugin and pipeline of this repository (copy)
        if lang:
            env["ATLAS_SERVE_LANG"] = lang
        self.url = f"http://127.0.0.1:{port}/"
        self.proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dirty", "--dev-addr", f"127.0.0.1:{port}"],
                                     cwd=repo, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as r:
                return r.status, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, ""
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return 0, ""

    def wait_for(self, path: str, needle: str, timeout: float = 300) -> float:
        """Seconds until ``path`` is served containing ``needle``; raises TimeoutError."""
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError("mkdocs serve exited:\n" + self.output[-3000:])
            status, body = self.get(path)
            if status == 200 and needle in body:
                return time.perf_counter() - t0
            time.sleep(0.05)
        raise TimeoutError(f"{needle!r} not on {self.url}{path} after {timeout} s\n" + self.output[-3000:])

    def wait_output(self, needle: str | tuple[str, ...], since: int = 0, timeout: float = 300) -> str:
        """The output from line ``since`` on, once it contains ``needle`` (or one of several);
        raises TimeoutError."""
        needles = (needle,) if isinstance(needle, str) else needle
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            out = "".join(self.lines[since:])
            if any(n in out for n in needles):
                return out
            time.sleep(0.1)
        raise TimeoutError(f"{needle!r} not printed by mkdocs serve after {timeout} s\n" + self.output[-3000:])

    def wait_idle(self, quiet: float = 2.0, timeout: float = 120) -> None:
        """Until the output has been quiet for ``quiet`` seconds (a rebuild has finished)."""
        t0 = time.perf_counter()
        n, since = len(self.lines), time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            time.sleep(0.1)
            if len(self.lines) != n:
                n, since = len(self.lines), time.perf_counter()
            elif time.perf_counter() - since >= quiet:
                return

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def edit_to_refresh(serve: Serve, file: Path, old: str, new: str, page: str) -> float:
    """Replace ``old`` by ``new`` in ``file``; seconds until ``page`` shows ``new``."""
    text = file.read_text(encoding="utf-8")
    assert old in text, (file, old)
    t0 = time.perf_counter()
    file.write_text(text.replace(old, new, 1), encoding="utf-8")
    serve.wait_for(page, new)
    return time.perf_counter() - t0
