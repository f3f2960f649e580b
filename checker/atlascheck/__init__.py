"""atlas-check: the Release Atlas upgrade checker with its rules. Installed (pip), the engine and
the rules are the copies the build put here (engine.py, rules.json); in a clone of the repository
(pre-commit, the GitHub Action) they are scripts/atlas/atlas_check.py and checker/rules.json."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _engine():
    try:
        from . import engine
        return engine, os.path.join(HERE, "rules.json")
    except ImportError:   # a clone, not a build
        path = os.path.join(HERE, "..", "..", "scripts", "atlas", "atlas_check.py")
        spec = importlib.util.spec_from_file_location("atlas_check", path)
        engine = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(engine)
        return engine, os.path.join(HERE, "..", "rules.json")


def main(argv=None):
    """Exit codes as documented: 0 ok, 1 notes only, 2 breaks, 3 usage, 4 crash, 5 incomplete."""
    engine, rules = _engine()
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--rules" not in argv:
        argv = ["--rules", rules] + argv
    return engine.run(argv)
