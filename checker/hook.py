#!/usr/bin/env python3
"""atlas-check from a clone of this repository (pre-commit, the GitHub Action): the package in
checker/atlascheck, which finds the engine and the rules in the clone. Python 3.9+, standard
library only. Arguments are atlas_check.py's (`hook.py code --from 2.4 --to 2.15 FILE...`)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atlascheck  # noqa: E402


def main(argv):
    return atlascheck.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
