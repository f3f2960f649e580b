"""``atlas``: the one command (``python -m atlas``, or ``atlas`` in the virtualenv).

    atlas build [--site-dir DIR]      build the site (strict; bad data keeps the last good site)
    atlas serve [--lang LANG]         serve on http://127.0.0.1:8000/, rebuilt on every edit
    atlas i18n status|check|...       translations: report, stub, stamp (translate.py)
    atlas provenance                  every locator in its article, every value in its locators
    atlas evidence [--verify|--check|--probes] read the released torch wheels; write or verify the locks (wheel/extract.py)
    atlas runtime [--verify] [V...]   install each release, import it, resolve every name (wheel/runtime_lock.py)
    atlas publish-ids                 add new change ids to the ledger of permanent URLs
    atlas feed stamp|check            when each change last changed (data/updated.yaml)
    atlas check code|env ...          does an upgrade break this code or this machine? (atlas_check.py)
    atlas checker [--check]           checker/rules.json for the pre-commit hook and the Action (distribution.py)
    atlas clean                       delete the generated pages under docs/

In:  the command line. Out: the command's exit status. Bad data is reported one problem a line,
``file: id: field: message``, with exit status 1; a wrong command line or a missing folder
with ``error: ...`` and status 2; never a traceback.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from .langs import LANGS, TRANSLATED
from .problems import DataError, UsageError, report_lines

LEDGER_HEADER = """# Ledger of published change ids. An id listed here is a URL that people link to:
# /changes/<id>/ and /<lang>/changes/<id>/ must keep working forever.
# Renaming a change: keep the old id under `published`, and add
#   redirects:
#     old-id: new-id
# Validation and tests/test_site.py fail if a published id stops resolving.
# Append new ids with `atlas publish-ids` (make publish-ids); never delete a line.
"""
UPDATED_HEADER = ("# When each change's fact last changed: the <updated> of its Atom feed entry.\n"
                  "# Written by `atlas feed stamp`; `atlas feed check` and tests/test_reading.py fail when a\n"
                  "# change's hash no longer matches (its text or values changed without a new date).\n")


def _factbase(data: Path | None = None, sources: Path | None = None):
    from .load import DATA, load
    from .validate import validate

    return validate(load(data or DATA), sources)


def cmd_build(args) -> int:
    from .sitebuild import build

    return build(args.site_dir)


def cmd_serve(args) -> int:
    env = dict(os.environ)
    if args.lang:
        env["ATLAS_SERVE_LANG"] = args.lang
    from .load import ROOT

    # --dirty: MkDocs rebuilds only the pages whose Markdown changed; the pipeline renders again only the
    # pages an edit of texts changes (incremental.py) and rewrites exactly the generated pages whose
    # content changed (render.write_pages), so the others are current
    return subprocess.call([sys.executable, "-m", "mkdocs", "serve", "--dirty", "--dev-addr", args.dev_addr],
                           cwd=ROOT, env=env)


def cmd_i18n(args) -> int:
    from .translate import main

    return main(args.args)


def cmd_provenance(args) -> int:
    from .provenance import find_sources_dir

    sources = args.sources or find_sources_dir()
    if sources is None or not Path(sources).is_dir():
        where = sources or "../shared/sources"
        hint = " (CI: the articles must be checked out beside the repository)" if os.environ.get("CI") else ""
        raise UsageError(f"{where} does not exist: it should hold the source articles; pass --sources DIR{hint}")
    try:
        fb = _factbase(args.data, Path(sources))
    except DataError as exc:
        print(report_lines(exc.problems))
        return 1
    r = fb.provenance
    print(f"{r.locators} locators found verbatim; {r.values} values found in their locators "
          f"({r.exempt} more marked inferred, with the derivation stated)")
    print(f"{len(r.offline)} locators quote official web pages and are not re-verifiable offline:")
    for line in r.offline:
        print(f"  {line}")
    from . import nearcopy
    from .provenance import Report, read_articles

    copies = nearcopy.find(fb, read_articles(fb.sources, fb.sources_file, Path(sources), Report()))
    for c in copies:
        print(c)
    compared = len(nearcopy.candidates(fb))
    print(f"{compared} translated texts compared with the article in their language: {len(copies)} near-copies")
    return 1 if copies else 0


def cmd_evidence(args) -> int:
    from .wheel import extract

    if args.probes:
        return extract.run_probes()
    return extract.check() if args.check else extract.run(args.verify)


def cmd_companions(args) -> int:
    from .companions import read_index

    return read_index.run(args.verify)


def cmd_runtime(args) -> int:
    from .wheel import runtime_lock

    return runtime_lock.run(args.versions, verify=args.verify)


def cmd_prove(args) -> int:
    from .wheel import runtime_lock

    return runtime_lock.run_proofs(args.versions, verify=args.verify, every=args.all)


def cmd_publish_ids(args) -> int:
    from .load import DATA

    fb = _factbase(args.data)
    published = list(fb.ledger.get("published") or [])
    added = [c.id for c in fb.changes() if c.id not in published]
    redirects = fb.ledger.get("redirects") or {}
    lines = [LEDGER_HEADER, "published:"] + [f"  - {i}" for i in published + added]
    lines.append("redirects:" + ("" if redirects else " {}"))
    lines += [f"  {old}: {new}" for old, new in redirects.items()]
    ((args.data or DATA) / "published_ids.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(added)} id(s) added, {len(published) + len(added)} published")
    return 0


def cmd_feed(args) -> int:
    from .feed import fact_hash, stale
    from .load import DATA, dump

    fb = _factbase(args.data)
    changes, recorded = fb.changes(), fb.updated
    todo = stale(changes, recorded)
    path = (args.data or DATA) / "updated.yaml"
    if args.action == "check":
        for cid in todo:
            print(f"data/updated.yaml: {cid}: updated: the fact changed; run `atlas feed stamp`")
        return 1 if todo else 0
    day = args.date or dt.datetime.now(dt.UTC).date()
    ids = {c.id for c in changes}
    out = {cid: v for cid, v in recorded.items() if cid in ids}
    for c in changes:
        if c.id in todo:
            out[c.id] = {"updated": day, "hash": fact_hash(c)}
    path.write_text(UPDATED_HEADER + dump(dict(sorted(out.items())), sort_keys=True), encoding="utf-8")
    print(f"{len(todo)} change(s) stamped {day.isoformat()} in {path}")
    return 0


def cmd_check(args) -> int:
    """The upgrade checker (atlas_check.py) with the rules built from this repository's data."""
    from . import atlas_check

    return atlas_check.main(args.args)   # bad data is the atlas CLI's error (file: id: field)


def cmd_checker(args) -> int:
    """checker/rules.json, the rules the pre-commit hook and the GitHub Action read (distribution.py)."""
    from . import distribution
    from .enrich import enrich
    from .load import ROOT, load
    from .rules import build_rules
    from .validate import validate

    rules = build_rules(enrich(validate(load())))
    if args.check:
        why = distribution.stale(rules, ROOT)
        print(why or f"{distribution.RULES_FILE} matches the data")
        return 1 if why else 0
    print(f"wrote {distribution.write(rules, ROOT)}")
    return 0


def cmd_clean(args) -> int:
    from .generated import clean
    from .load import ROOT

    print(f"{clean(ROOT / 'docs')} generated page(s) removed")
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="atlas", description="Release Atlas: the fact pipeline and its tools.",
                                 epilog="Exit status: 0 ok, 1 bad data or a failed check, 2 a wrong command line.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, fn: Callable, help_: str, data: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.set_defaults(fn=fn)
        if data:
            p.add_argument("--data", type=Path, default=None, help="the data directory (default: data/)")
        return p

    p = add("build", cmd_build, "build the site into site/ (strict; bad data keeps the last good site)")
    p.add_argument("--site-dir", type=Path, default=None)
    p = add("serve", cmd_serve, "serve on 127.0.0.1, rebuilt on every edit under data/, scripts/, overrides/, docs/")
    p.add_argument("--lang", choices=LANGS, help="build one language only (faster rebuilds)")
    p.add_argument("--dev-addr", default="127.0.0.1:8000")
    p = add("i18n", cmd_i18n, "translations: status | check [LANG] | todo [LANG] | stale [LANG] | missing [LANG] | "
            "stub LANG | stamp LANG KEY... | stamp-ui LANG [KEY...]")
    p.add_argument("args", nargs="*", metavar="ARG", help=f"a subcommand, then a language ({', '.join(TRANSLATED)})")
    p = add("provenance", cmd_provenance, "check every locator against its article and every value against its "
            "locators", data=True)
    p.add_argument("--sources", type=Path, default=None, help="the articles (default: the nearest shared/sources above)")
    p = add("evidence", cmd_evidence, "read the torch wheels from PyPI; rewrite the locks (or --verify, --check)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--verify", action="store_true", help="fail if any outcome differs from the locks (CI)")
    g.add_argument("--check", action="store_true", help="no download: fail if the locks do not match the data")
    g.add_argument("--probes", action="store_true", help="evaluate only what the lock lacks: new or changed probes "
                   "(on the wheels they name), identifiers and error messages without a verdict; rewrite those")
    p = add("companions", cmd_companions, "read what the package index says of torchvision, torchaudio, vllm... "
            "(METADATA, wheel tags, upload dates); rewrite data/companions.lock.yaml (or --verify)")
    p.add_argument("--verify", action="store_true", help="read again and fail on any difference from the lock (CI)")
    p = add("runtime", cmd_runtime, "install each torch release into a throwaway venv and resolve every name "
            "the wheels propose; rewrite data/evidence/runtime-<v>.txt (or --verify)")
    p.add_argument("versions", nargs="*", metavar="VERSION", help="torch versions of data/wheels.yaml (default: all)")
    p.add_argument("--verify", action="store_true", help="fail if the installed release differs from its lock (CI)")
    p = add("prove", cmd_prove, "install each torch release into a throwaway venv and run every curated change's "
            "proof snippets; rewrite data/evidence/proofs-<v>.json (or --verify)")
    p.add_argument("versions", nargs="*", metavar="VERSION", help="torch versions of data/wheels.yaml (default: all)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--verify", action="store_true", help="run every snippet; fail if an outcome differs from its lock")
    g.add_argument("--all", action="store_true", help="run every snippet, not only those the locks have no outcome of")
    add("publish-ids", cmd_publish_ids, "add new change ids to the ledger of permanent URLs", data=True)
    p = add("feed", cmd_feed, "record when each change last changed (data/updated.yaml)", data=True)
    p.add_argument("action", choices=["stamp", "check"])
    p.add_argument("--date", type=dt.date.fromisoformat, default=None, help="date to record (default: today, UTC)")
    p = add("check", cmd_check, "the upgrade check on your code or environment: check code|env ... "
            "(the same as the site's /check/atlas_check.py; `atlas check code --help`)")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARG")
    p = add("checker", cmd_checker, "write checker/rules.json for the pre-commit hook and the GitHub Action "
            "(or --check that it matches the data)")
    p.add_argument("--check", action="store_true")
    add("clean", cmd_clean, "delete the generated pages under docs/")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "build" and args.site_dir is None:
        from .load import ROOT

        args.site_dir = ROOT / "site"
    try:
        return args.fn(args)
    except DataError as exc:
        print(report_lines(exc.problems), file=sys.stderr)
        return 1
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
