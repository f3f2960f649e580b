"""Provenance check: locators occur verbatim in their articles, and values in their locators.

In:  the fact base (``data/``) and the directory of source articles (default:
     the nearest ``shared/sources`` above the repository, or ``--sources DIR``).
Out: exit 0 and the counts, or exit 1 listing each problem, naming data file,
     fact id, field, and for a value the value and the locators it was looked for
     in. Also checks each article's sha256 against ``data/sources.yaml``.
     Run by ``make provenance`` and ``.ci/run``; the checks live in
     ``scripts/atlas/provenance.py`` and also run in every build's validation.

Whitespace is compared folded (runs of blanks count as one space).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from atlas.cli import UsageError, run  # noqa: E402
from atlas.load import DATA, DataError, load  # noqa: E402
from atlas.provenance import find_sources_dir  # noqa: E402
from atlas.validate import validate  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=Path, default=find_sources_dir())
    ap.add_argument("--data", type=Path, default=DATA, help="the data directory (default: data/)")
    args = ap.parse_args()
    if args.sources is None or not args.sources.is_dir():
        raise UsageError(f"{args.sources or '../shared/sources'} does not exist: it should hold the source "
                         "articles; pass --sources DIR")
    try:
        fb = validate(load(args.data), sources_dir=args.sources)
    except DataError as exc:
        for p in exc.problems:
            print(p)
        print(f"{len(exc.problems)} problem(s)")
        return 1
    r = fb.provenance
    print(f"{r.locators} locators found verbatim; {r.values} values found in their locators "
          f"({r.exempt} more marked inferred, with the derivation stated)")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
