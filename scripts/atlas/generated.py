"""The one registry of what the generator writes under ``docs/``, and how to remove it.

In:  the docs directory. Out: ``GENERATED_DIRS`` and ``GENERATED_FILES`` (per language, under
``docs/<lang>/``), ``owned(docs)`` (the generated files that exist now) and ``clean(docs)``.
``render.write_pages`` deletes the pages no fact needs any more, ``atlas clean`` and ``make
clean`` delete them all, ``mkdocs serve`` does not watch them, and ``tests/test_tooling.py``
checks that .gitignore ignores exactly these. Standard library only, so ``make clean`` runs
without the virtualenv: ``PYTHONPATH=scripts python3 -m atlas.generated``.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .langs import LANGS

GENERATED_DIRS = ("changes", "releases", "upgrade", "faq", "errors", "breaking", "sources", "check")
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


def clean(docs: Path) -> int:
    """Delete every generated page (and the folders left empty). Returns how many pages."""
    pages = owned(docs)
    for p in pages:
        p.unlink()
    for lang in LANGS:
        for d in GENERATED_DIRS:
            for sub in sorted((docs / lang / d).glob("**/"), reverse=True) if (docs / lang / d).is_dir() else []:
                if not any(sub.iterdir()):
                    sub.rmdir()
    return len(pages)


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "docs"
    print(f"{clean(root)} generated page(s) removed")
