"""Add every current change id to the ledger of published ids (never removes one).

In:  data/releases/*.yaml and data/published_ids.yaml.
Out: data/published_ids.yaml with new ids appended, in release order.
Run after adding a change (``make publish-ids``). Removing or renaming a change
later then fails validation until ``redirects`` points its old id somewhere.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from atlas.cli import run  # noqa: E402
from atlas.load import DATA, load  # noqa: E402
from atlas.validate import validate  # noqa: E402

HEADER = """# Ledger of published change ids. An id listed here is a URL that people link to:
# /changes/<id>/ and /<lang>/changes/<id>/ must keep working forever.
# Renaming a change: keep the old id under `published`, and add
#   redirects:
#     old-id: new-id
# Validation and tests/test_site.py fail if a published id stops resolving.
# Append new ids with `make publish-ids`; never delete a line.
"""


def main() -> int:
    fb = validate(load())
    published = list(fb.ledger.get("published") or [])
    added = [c.id for c in fb.changes() if c.id not in published]
    redirects = fb.ledger.get("redirects") or {}
    lines = [HEADER, "published:"] + [f"  - {i}" for i in published + added]
    lines.append("redirects:" + ("" if redirects else " {}"))
    lines += [f"  {old}: {new}" for old, new in redirects.items()]
    (DATA / "published_ids.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(added)} id(s) added, {len(published) + len(added)} published")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
