"""The checker where teams already run it: the rules file beside ``checker/`` for the pre-commit
hook and the GitHub Action, read by ``scripts/atlas/atlas_check.py`` (stdlib only).

In: the built rules (``rules.build_rules``). Out: ``checker/rules.json`` (``write``), or the
reason it is stale (``stale``). It is the one generated file the repository keeps, because a
pre-commit hook or an Action runs from a clone of it without the site's dependencies; a test
fails when it no longer matches the data (``atlas checker`` rewrites it).
"""
from __future__ import annotations

from pathlib import Path

from .rules import rules_json

RULES_FILE = Path("checker") / "rules.json"


def write(rules: dict, root: Path) -> Path:
    path = root / RULES_FILE
    path.write_text(rules_json(rules), encoding="utf-8")
    return path


def stale(rules: dict, root: Path) -> str | None:
    """Why ``checker/rules.json`` does not match the rules built from the data, or None."""
    path = root / RULES_FILE
    if not path.exists():
        return f"{RULES_FILE} is missing: run `atlas checker`"
    if path.read_text(encoding="utf-8") != rules_json(rules):
        return f"{RULES_FILE} is older than the data: run `atlas checker` and commit it"
    return None
