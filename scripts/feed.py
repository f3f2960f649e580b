"""Record when each change last changed, for the Atom feeds (``data/updated.yaml``).

    .venv/bin/python scripts/feed.py stamp   # new or edited changes get today's date (UTC) and their new hash
    .venv/bin/python scripts/feed.py check   # exit 1 and list the changes whose date was not bumped

In:  the fact base (``data/``). Out: ``data/updated.yaml``, one ``{updated, hash}`` per change id.
Why this is data and not git history: see ``scripts/atlas/feed.py``.
"""
from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from atlas.feed import UPDATED, fact_hash, read_updated, stale  # noqa: E402
from atlas.load import load  # noqa: E402
from atlas.validate import validate  # noqa: E402

HEADER = ("# When each change's fact last changed: the <updated> of its Atom feed entry.\n"
          "# Written by `.venv/bin/python scripts/feed.py stamp`; tests/test_feed.py fails when a\n"
          "# change's hash no longer matches (its text or values changed without a new date).\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["stamp", "check"])
    ap.add_argument("--date", type=dt.date.fromisoformat, default=None, help="date to record (default: today, UTC)")
    args = ap.parse_args()
    changes = validate(load()).changes()
    recorded = read_updated()
    todo = stale(changes, recorded)
    if args.command == "check":
        for cid in todo:
            print(f"{UPDATED.name}: {cid}: updated: the fact changed; run `.venv/bin/python scripts/feed.py stamp`")
        return 1 if todo else 0
    day = args.date or dt.datetime.now(dt.timezone.utc).date()
    ids = {c.id for c in changes}
    out = {cid: v for cid, v in recorded.items() if cid in ids}
    for c in changes:
        if c.id in todo:
            out[c.id] = {"updated": day, "hash": fact_hash(c)}
    UPDATED.write_text(HEADER + yaml.safe_dump(dict(sorted(out.items())), sort_keys=True), encoding="utf-8")
    print(f"{len(todo)} change(s) stamped {day.isoformat()} in {UPDATED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
