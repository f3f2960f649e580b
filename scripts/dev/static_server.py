"""A tiny static file server on 127.0.0.1 for tests and benchmarks.

In:  a built site directory.
Out: ``serve(directory)`` returns ``(server, base_url)`` with the server running
     in a daemon thread on a free port. Unknown paths get the site's 404 page
     for their language, as a static host configured per language would do.
     Every response carries a ``LinkChecker`` header, which tells LinkChecker
     this host may be checked at full speed. Text responses are gzip-compressed
     when the client accepts it, as any production static host does, so page
     weight and Lighthouse figures measure what a reader really downloads.
"""
from __future__ import annotations

import functools
import gzip
import http.server
import os
import sys
import threading
from pathlib import Path

from atlas.langs import TRANSLATED

LANG_DIRS = TRANSLATED   # languages served under /<lang>/ (English is at the root)


COMPRESSIBLE = (".html", ".css", ".js", ".json", ".xml", ".svg", ".txt")


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        fs_path = self.translate_path(self.path)
        url_path = self.path.split("?", 1)[0].split("#", 1)[0]
        if os.path.isdir(fs_path):
            if not url_path.endswith("/"):
                return super().do_GET()  # the base class redirects /dir to /dir/
            fs_path = os.path.join(fs_path, "index.html")
        wants_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (wants_gzip and fs_path.endswith(COMPRESSIBLE) and os.path.isfile(fs_path)):
            return super().do_GET()
        with open(fs_path, "rb") as f:
            body = gzip.compress(f.read(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(fs_path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None

    def end_headers(self):
        self.send_header("LinkChecker", "allow")
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 - keep test output quiet
        pass

    def send_error(self, code, message=None, explain=None):
        if code != 404:
            return super().send_error(code, message, explain)
        root = Path(self.directory)
        first = self.path.lstrip("/").split("/", 1)[0]
        page = root / first / "404.html" if first in LANG_DIRS else root / "404.html"
        body = page.read_bytes() if page.exists() else b"not found"
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A browser that closes a connection mid-response is normal, not an error worth a traceback."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def serve(directory: Path, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(Handler, directory=str(directory))
    server = _Server(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


if __name__ == "__main__":
    import time

    srv, url = serve(Path(sys.argv[1] if len(sys.argv) > 1 else "site"))
    print(f"serving on {url}")
    time.sleep(10**9)
