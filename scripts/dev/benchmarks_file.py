"""BENCHMARKS.md: each measuring tool owns one section (``## <title>``) and rewrites only it.

In:  a section's title and its Markdown body (the tool's output, starting with the ``## `` line).
Out: BENCHMARKS.md with that section replaced, or appended when it is new.
"""
from __future__ import annotations

import re
from pathlib import Path

PATH = Path(__file__).resolve().parents[2] / "BENCHMARKS.md"
HEAD = ("# Benchmarks\n\nWritten by `make bench` (scripts/dev/bench.py and the tools it names); each section says which\n"
        "tool wrote it and when. Timings are measurements on one machine, not targets that tests assert.\n")


def write_section(title: str, section: str, path: Path = PATH) -> None:
    """Replace the ``## {title}`` section of BENCHMARKS.md with ``section`` (which starts with that line)."""
    text = path.read_text(encoding="utf-8") if path.exists() else HEAD
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    body = section.strip() + "\n\n"
    text = pattern.sub(lambda m: body, text) if pattern.search(text) else text.rstrip() + "\n\n" + body
    path.write_text(text.rstrip() + "\n", encoding="utf-8")
