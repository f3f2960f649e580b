"""Runs inside one installed torch release (its own venv, standard library only): every proof snippet.

In:  argv[1], a JSON file ``[{"key": the snippet's hash, "code": source}, ...]``;
     argv[2], where to write the outcomes. Started by ``atlas prove`` (and by ``atlas runtime
     --verify`` in the venvs it installs) with no ``-W`` option and no ``PYTHONWARNINGS``, so
     Python's default warning filters are the ones a user's program has.
Out: JSON ``{"torch": version, "python": "3.11", "outcomes": {key: outcome}}``; an outcome is
     ``{"error": "module.Type: first line" | null, "warnings": [[category, first line, shown], ...],
     "stderr": [lines printed to stderr, e.g. by logging], "stdout": [lines printed]}``.

Each snippet runs the way a user's code meets a release: written to its own module file and
imported by this script (so it is not ``__main__``, where Python's default filters show a
``DeprecationWarning`` they hide elsewhere). torch is imported once; each snippet then runs in a
forked child (fresh warning registries), twice: once under the default filters, recording what ``showwarning`` prints (the
warnings a user sees), once under ``always``, recording every warning. A warning is ``shown`` when
the first run printed it. Paths, hexadecimal addresses and line numbers of the venv are masked so
the lock does not depend on the machine.
"""
from __future__ import annotations

import importlib
import io
import json
import os
import re
import sys
import tempfile
import warnings

PASSES = ("shown", "all")
MAX_LINE = 400


def _mask(text: str, roots: list[str]) -> str:
    for root in roots:
        if root:
            text = text.replace(root, "<venv>" if "site-packages" in root else "<tmp>")
    text = re.sub(r"0x[0-9a-fA-F]{6,}", "0x…", text)
    # a log line's time stamp and process id, another each run: c10's "[W1207 14:18:45.436716139
    # init.cpp:3194]" and torch's Python logging "W1207 14:38:02.165000 7064 torch/onnx/_flags.py:38]"
    text = re.sub(r"\b([WEIF])\d{4} \d{2}:\d{2}:\d{2}\.\d+ (?:\d+ )?", r"\1… ", text)
    text = re.sub(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} ", "… ", text)   # logging's default asctime
    text = re.sub(re.escape(tempfile.gettempdir()) + r"/[\w.-]+", "<tmp>", text)   # a snippet's own temporary files
    return text[:MAX_LINE]


def _first_line(text: str) -> str:
    text = str(text).strip()
    return text.splitlines()[0] if text else ""


def _run_child(module: str, mode: str, out_fd: int, roots: list[str]) -> None:
    """In the forked child: run the snippet module under ``mode``'s filters; write JSON; exit."""
    seen: list[list] = []

    def record(message, category, filename, lineno, file=None, line=None):
        seen.append([category.__name__, _mask(_first_line(message), roots)])

    err_buf, out_buf = io.StringIO(), io.StringIO()
    real_stderr, real_stdout = sys.stderr, sys.stdout
    sys.stderr, sys.stdout = err_buf, out_buf
    warnings.showwarning = record
    if mode == "all":
        warnings.simplefilter("always")
    # else: the filters Python starts with are in place (the child's registries start empty)
    error = None
    try:
        importlib.import_module(module)
    except BaseException as exc:  # noqa: BLE001 - the outcome is whatever the release raises
        t = type(exc)
        mod = t.__module__ if t.__module__ not in ("builtins", "__main__") else ""
        error = _mask(f"{mod + '.' if mod else ''}{t.__qualname__}: {_first_line(exc)}", roots)
    sys.stderr, sys.stdout = real_stderr, real_stdout

    def lines(buf):
        return [_mask(ln, roots) for ln in buf.getvalue().splitlines() if ln.strip()][:20]
    payload = json.dumps({"error": error, "warnings": seen, "stderr": lines(err_buf), "stdout": lines(out_buf)})
    os.write(out_fd, payload.encode())
    os.close(out_fd)
    os._exit(0)


def _run(module: str, mode: str, roots: list[str]) -> dict:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            _run_child(module, mode, w, roots)
        finally:
            os._exit(3)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return {"error": f"the snippet ended the process (status {status})", "warnings": [], "stderr": [], "stdout": []}
    return json.loads(b"".join(chunks))


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        snippets = json.load(f)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch  # noqa: F401 - imported once; every child inherits it

    site = os.path.dirname(os.path.dirname(torch.__file__))
    work = os.path.dirname(os.path.abspath(__file__))   # copied alone into a folder: first on sys.path
    os.chdir(work)
    roots = [site + os.sep, site, work + os.sep, work]
    outcomes = {}
    for i, s in enumerate(snippets):
        module = f"proof_{i}"
        with open(os.path.join(work, module + ".py"), "w", encoding="utf-8") as f:
            f.write(s["code"])
        runs = {mode: _run(module, mode, roots) for mode in PASSES}
        shown = {tuple(x) for x in runs["shown"]["warnings"]}
        every, seen = [], set()
        for cat, msg in runs["all"]["warnings"]:
            if (cat, msg) not in seen:
                seen.add((cat, msg))
                every.append([cat, msg, (cat, msg) in shown])
        outcomes[s["key"]] = {"error": runs["all"]["error"], "warnings": every,
                                              "stderr": runs["shown"]["stderr"], "stdout": runs["all"]["stdout"]}
    head = {"torch": torch.__version__.split("+")[0], "python": ".".join(map(str, sys.version_info[:2]))}
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump({**head, "outcomes": outcomes}, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
