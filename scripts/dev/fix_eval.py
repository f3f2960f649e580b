"""How ``atlas_check.py code --fix`` does on real code, next to TorchFix's ``--fix``.

  .venv/bin/python scripts/dev/fix_eval.py [--from 2.0] [--torchfix /tmp/torchfix-venv/bin/torchfix] DIR...

In:  directories of Python code (fetched repositories, or a corpus half); each is copied to a
     temporary folder first, so nothing is changed in place.
Out: one Markdown table row per directory and window: the fixes applied and the suggestions left
     (by reason), the files changed, how many of them still compile (must be all), the findings the
     fixes cleared on a re-check (must be every fixed one), whether a second ``--fix`` changed
     anything (must not), and TorchFix 0.7.0's changed files and lines on another copy with the
     sites both tools rewrote. Exit 1 when a changed file does not compile, a fixed finding
     survives or the second run changes a file.
"""
from __future__ import annotations

import argparse
import collections
import difflib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / "scripts" / "atlas" / "atlas_check.py"
RULES = ROOT / "checker" / "rules.json"


def _py_files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.suffix in (".py", ".ipynb") and p.is_file()}


def _check(args: list[str]) -> dict:
    p = subprocess.run([sys.executable, str(CHECKER), "--rules", str(RULES), "code", *args, "--format", "json"],
                       capture_output=True, text=True, timeout=3600)
    if "Traceback" in p.stderr:
        raise SystemExit(p.stderr)
    return json.loads(p.stdout)


def _compiles(path: Path) -> bool:
    if path.suffix == ".ipynb":
        try:
            json.loads(path.read_text(encoding="utf-8"))
            return True
        except ValueError:
            return False
    return subprocess.run([sys.executable, "-c", "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')",
                           str(path)], capture_output=True).returncode == 0


def _changed_lines(before: dict, after: dict) -> dict[str, set[int]]:
    out = {}
    for f, old in before.items():
        new = after.get(f)
        if new is None or new == old:
            continue
        a, b = old.decode("utf-8", "replace").splitlines(), new.decode("utf-8", "replace").splitlines()
        lines = set()
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag != "equal":
                lines.update(range(i1 + 1, max(i2, i1 + 1) + 1))
        out[f] = lines
    return out


def evaluate(src: Path, frm: str, torchfix: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "atlas"
        shutil.copytree(src, work, symlinks=True)
        before = _py_files(work)
        found = _check(["--from", frm, str(work)])["findings"]
        _check(["--from", frm, "--fix", str(work)])
        after = _py_files(work)
        changed = _changed_lines(before, after)
        broken = [f for f in changed if not _compiles(work / f)]
        diff2 = _check(["--from", frm, "--diff", str(work)])
        orig = Path(tmp) / "orig"   # the plan on an untouched copy: what was fixed
        shutil.copytree(src, orig, symlinks=True)
        fixes = _check(["--from", frm, "--diff", str(orig)])
        left = _check(["--from", frm, str(work)])["findings"]

        def per(items, root):
            return collections.Counter((i["path"].replace(str(root), ""), i["rule"]) for i in items)
        was, now, fixed = per(found, work), per(left, work), per(fixes["fixes"], orig)
        # a fix clears its finding: per file and rule, the findings that went away cover the fixes
        survivors = sum(max(0, n - (was[k] - now[k])) for k, n in fixed.items())
        row = {"dir": str(src), "from": frm, "findings": len(found), "fixes": len(fixes["fixes"]),
               "suggestions": collections.Counter(s["why"] for s in fixes["suggestions"]),
               "files_changed": len(changed), "broken": broken, "findings_left": len(left),
               "cleared": len(found) - len(left), "second_run_fixes": len(diff2["fixes"]) + bool(diff2["diff"]),
               "survivors": survivors, "atlas_lines": {f: sorted(v) for f, v in changed.items()}}
        if torchfix:
            tf = Path(tmp) / "torchfix"
            shutil.copytree(src, tf, symlinks=True)
            subprocess.run([torchfix, "--fix", str(tf)], capture_output=True, text=True, timeout=3600)
            tchanged = _changed_lines(before, _py_files(tf))
            row["torchfix_files"] = len(tchanged)
            row["torchfix_lines"] = sum(len(v) for v in tchanged.values())
            row["torchfix_broken"] = [f for f in tchanged if not _compiles(tf / f)]
            row["both_lines"] = sum(len(v & changed.get(f, set())) for f, v in tchanged.items())
            row["atlas_only_lines"] = sum(len(v - tchanged.get(f, set())) for f, v in changed.items())
            row["torchfix_only_lines"] = sum(len(v - changed.get(f, set())) for f, v in tchanged.items())
            row["torchfix_diff"] = "".join(
                "".join(difflib.unified_diff(before[f].decode("utf-8", "replace").splitlines(True),
                                             (tf / f).read_text(encoding="utf-8", errors="replace").splitlines(True), f, f))
                for f in sorted(tchanged))
        row["atlas_diff"] = fixes["diff"]
        return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="frm", action="append", help="window start (repeatable; default 2.0)")
    ap.add_argument("--torchfix", default=None, help="the torchfix command (0.7.0) to compare with")
    ap.add_argument("--json", help="write every row (with both diffs) to this file")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args(argv)
    rows, bad = [], False
    print("| directory | --from | findings | fixes | suggestions (reason: n) | files changed | compile | "
          "cleared on re-check | 2nd run | TorchFix files / lines | lines both / atlas only / TorchFix only |")
    print("|---|---|---:|---:|---|---:|---|---:|---|---|---|")
    for d in args.dirs:
        for frm in args.frm or ["2.0"]:
            r = evaluate(Path(d), frm, args.torchfix)
            rows.append(r)
            bad |= bool(r["broken"]) or r["survivors"] > 0 or r["second_run_fixes"] > 0
            sugg = "; ".join(f"{k}: {n}" for k, n in r["suggestions"].most_common())
            tf = (f"{r['torchfix_files']} / {r['torchfix_lines']}" + (f" ({len(r['torchfix_broken'])} broken)" if r["torchfix_broken"] else "")
                  if "torchfix_files" in r else "n/a")
            both = f"{r['both_lines']} / {r['atlas_only_lines']} / {r['torchfix_only_lines']}" if "both_lines" in r else "n/a"
            print(f"| {Path(d).name} | {frm} | {r['findings']} | {r['fixes']} | {sugg or '-'} | {r['files_changed']} | "
                  f"{r['files_changed'] - len(r['broken'])}/{r['files_changed']} | {r['cleared']} | "
                  f"{'no change' if not r['second_run_fixes'] else 'CHANGED'} | {tf} | {both} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=list), encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
