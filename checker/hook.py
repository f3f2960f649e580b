#!/usr/bin/env python3
"""atlas-check from a clone of this repository (pre-commit, the GitHub Action): the package in
checker/atlascheck, which finds the engine and the rules in the clone. Python 3.9+, standard
library only. Arguments are atlas_check.py's (`hook.py code --from 2.4 --to 2.15 FILE...`)."""
import sys

import atlascheck  # a script's own folder is first on sys.path


def main(argv):
    return atlascheck.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
