"""Provenance check: every source locator occurs verbatim in its source file.

In:  the fact base (``data/``) and the directory of source articles
     (default ``../shared/sources``, or ``--sources DIR``).
Out: exit 0 and a count, or exit 1 listing each locator that is not found,
     naming data file, fact id and field. Also checks each file's sha256
     against ``data/sources.yaml``. Run by ``make provenance`` and ``.ci/run``.

Whitespace is compared folded (runs of blanks count as one space).
"""
from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from atlas.cli import UsageError, run  # noqa: E402
from atlas.load import ROOT, load  # noqa: E402
from atlas.schema import iter_cites  # noqa: E402
from atlas.validate import validate  # noqa: E402


def fold(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def check(sources_dir: Path) -> tuple[int, list[str]]:
    if not sources_dir.is_dir():
        raise UsageError(f"the source articles folder {sources_dir} does not exist; "
                         f"pass --sources DIR (default: ../shared/sources next to the repository)")
    fb = validate(load())
    errors, texts = [], {}
    for s in fb.sources.sources:
        if not s.file:
            continue  # secondary source, known only through a primary one
        p = sources_dir / s.file
        if not p.exists():
            errors.append(f"{fb.sources_file}: {s.id}: file: {p} does not exist")
            continue
        raw = p.read_bytes()
        if s.sha256 and hashlib.sha256(raw).hexdigest() != s.sha256:
            errors.append(f"{fb.sources_file}: {s.id}: sha256: {p.name} has changed")
        texts[s.id] = fold(raw.decode("utf-8"))
    secondary = {s.id: s.cited_in for s in fb.sources.sources if not s.file}
    count = 0
    for rel in fb.releases:
        for owner, path, cite in iter_cites(rel, rel.version, ""):
            count += 1
            sid = secondary.get(cite.source, cite.source)
            if sid not in texts:
                errors.append(f"{fb.release_files[rel.version]}: {owner}: {path}: source '{cite.source}' has no text")
            elif fold(cite.locator) not in texts[sid]:
                errors.append(
                    f"{fb.release_files[rel.version]}: {owner}: {path}: locator {cite.locator!r} "
                    f"not found verbatim in {cite.source}"
                )
    return count, errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=Path, default=ROOT.parent / "shared" / "sources")
    args = ap.parse_args()
    count, errors = check(args.sources)
    for e in errors:
        print(e)
    print(f"{count} locators checked, {len(errors)} not found")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(run(main))
