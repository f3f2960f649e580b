"""atlas-check: the Release Atlas upgrade checker with the rules it was built with
(engine.py is scripts/atlas/atlas_check.py; both files are copied in when the package is built)."""
import os
import sys

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules.json")


def main(argv=None):
    from . import engine

    argv = sys.argv[1:] if argv is None else list(argv)
    if "--rules" not in argv:
        argv = ["--rules", RULES] + argv
    return engine.run(argv)
