#!/usr/bin/env python3
"""atlas-check from a clone of this repository (pre-commit, the GitHub Action): the engine in
scripts/atlas/atlas_check.py with the rules in checker/rules.json; Python 3.9+, standard library
only. Arguments are atlas_check.py's (`hook.py code --from 2.4 --to 2.15 FILE...`)."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.join(HERE, "..", "scripts", "atlas", "atlas_check.py")
RULES = os.path.join(HERE, "rules.json")


def main(argv):
    spec = importlib.util.spec_from_file_location("atlas_check", ENGINE)
    engine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(engine)
    if "--rules" not in argv:
        argv = ["--rules", RULES] + argv
    return engine.run(argv)   # exit codes as documented: 0 ok, 1 notes only, 2 breaks, 3 usage, 4 crash, 5 incomplete


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
