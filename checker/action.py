#!/usr/bin/env python3
"""The GitHub Action's step (action.yml): the SARIF log into $ATLAS_SARIF, then the findings as
workflow annotations, failing the step at $ATLAS_FAIL_ON. Inputs come as ATLAS_* variables, so no
input is ever pasted into a shell line. Python 3.9+, standard library only."""
import os
import shlex
import sys

import hook  # a script's own folder is first on sys.path


def argv_for(fmt):
    args = ["code", "--format", fmt, "--lang", os.environ.get("ATLAS_LANG") or "en"]
    for flag, var in (("--from", "ATLAS_FROM"), ("--to", "ATLAS_TO")):
        if os.environ.get(var):
            args += [flag, os.environ[var]]
    return args + shlex.split(os.environ.get("ATLAS_PATHS") or ".")


def main():
    sarif = os.environ.get("ATLAS_SARIF") or "atlas-check.sarif"
    with open(sarif, "w", encoding="utf-8") as f:
        stdout, sys.stdout = sys.stdout, f
        try:
            code = hook.main(argv_for("sarif"))
        finally:
            sys.stdout = stdout
    if code in (3, 4):   # a usage error or a crash: the log is not worth uploading, and says nothing
        return code
    return hook.main(argv_for("github") + ["--fail-on", os.environ.get("ATLAS_FAIL_ON") or "breaks"])


if __name__ == "__main__":
    sys.exit(main())
