"""The one registry of what the generator writes under ``docs/``, and how to remove it.

In:  the docs directory. Out: ``GENERATED_DIRS`` and ``GENERATED_FILES`` (per language, under
``docs/<lang>/``), ``owned(docs)`` (the generated files that exist now), ``clean(docs)``, and ``snapshot(docs)`` /
``remove_since(docs, snapshot)`` (what a failed ``atlas build`` wrote, removed again).
``render.write_pages`` deletes the pages no fact needs any more, ``atlas clean`` and ``make
clean`` delete them all, ``mkdocs serve`` does not watch them, and ``tests/test_tooling.py``
checks that .gitignore ignores exactly these. Standard library only, so ``make clean`` runs
without the virtualenv: ``PYTHONPATH=scripts python3 -m atlas.generated``.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .langs import LANGS

GENERATED_DIRS = ("changes", "releases", "upgrade", "faq", "errors", "breaking", "sources", "check", "companions")
GENERATED_FILES = ("index.md", "api.md")


def owned(docs: Path, langs=LANGS) -> list[Path]:
    """Every generated page that exists under ``docs/<lang>/`` for ``langs``."""
    out = []
    for lang in langs:
        out += [docs / lang / f for f in GENERATED_FILES if (docs / lang / f).exists()]
        for d in GENERATED_DIRS:
            out += sorted((docs / lang / d).rglob("*.md"))
    return out


def is_generated(rel: tuple[str, ...]) -> bool:
    """Whether a path under ``docs/<lang>/`` (as its parts) belongs to the generator."""
    return bool(rel) and (rel[0] in GENERATED_DIRS or (len(rel) == 1 and rel[0] in GENERATED_FILES))


def snapshot(docs: Path) -> dict[Path, int]:
    """Every generated page under ``docs`` with its modification time (ns)."""
    return {p: p.stat().st_mtime_ns for p in owned(docs)}


def remove_since(docs: Path, before: dict[Path, int]) -> int:
    """Delete the generated pages written since ``snapshot`` gave ``before`` (new or rewritten), and
    the folders left empty: what a failed build generated. Returns how many pages."""
    return _remove(docs, [p for p, mtime in snapshot(docs).items() if before.get(p) != mtime])


def clean(docs: Path) -> int:
    """Delete every generated page (and the folders left empty). Returns how many pages."""
    return _remove(docs, owned(docs))


def _remove(docs: Path, pages: list[Path]) -> int:
    for p in pages:
        p.unlink(missing_ok=True)
    for lang in LANGS:
        for d in GENERATED_DIRS:
            for sub in sorted((docs / lang / d).glob("**/"), reverse=True) if (docs / lang / d).is_dir() else []:
                if not any(sub.iterdir()):
                    sub.rmdir()
    return len(pages)


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "docs"
    print(f"{clean(root)} generated page(s) removed")
