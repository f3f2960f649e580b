"""Measure the checker on its corpus (tests/check_cases, issue 19) and print a Markdown table.

  .venv/bin/python scripts/dev/check_eval.py [--half tune|heldout|heldout2|...|heldout7|all] [--engine python|js]

Code: precision and recall per rule kind, a finding being (line, kind, change) against the
expectations written beside the code (``# expect: KIND CHANGE``; see tests/check_cases/README.md).
A second figure counts a finding right by line and change alone (the kind label is the case
writer's guess at the rule's kind). Environment: the share of items whose verdict and linked
change match the expectation, per item, and the share whose verdict alone matches (the target). The corpus was split into tune/ and heldout/ before the checkers were tuned; the figures
that count are the held-out ones.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from atlas import atlas_check as ac

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "check_cases"
JS = ROOT / "docs" / "assets" / "atlas-check.js"

ENV_ITEMS = ac.ENV_CHECKS
_EXPECT = re.compile(r"#\s*expect:\s*(.+)$")
#: the corpus halves, in the order they were written; every held-out half was measured once before any change it informed
HALVES = ("tune", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "real1", "real2",
          "freeze1", "freeze2")


def code_cases(half: str) -> list[dict]:
    """Each case: path, from, to, expected {(line, kind, label)}, skip (bool)."""
    halves = HALVES if half == "all" else (half,)
    out = []
    for h in halves:
        for p in sorted((CASES / "code" / h).glob("*.py")):
            raw = p.read_bytes()
            text = raw.decode("utf-8", "replace")
            side = p.with_suffix(".expect")
            head = side.read_text(encoding="utf-8") if side.exists() else text
            m = re.search(r"atlas-check:\s*--from\s+(\S+)\s+--to\s+(\S+)", head)
            expected = set()
            for i, line in enumerate(text.split("\n"), 1):
                e = _EXPECT.search(line)
                if e:
                    for part in e.group(1).split(";"):
                        words = part.split()   # KIND CHANGE, or KIND CHANGE guarded (inside a compat guard)
                        kind = words[0] + ("/guarded" if words[2:] == ["guarded"] else "")
                        expected.add((i, kind, words[1]))
            out.append({"path": p, "half": h, "from": m.group(1) if m else None, "to": m.group(2) if m else None,
                        "expected": expected, "skip": "expect-skip" in head})
    return out


def env_cases(half: str) -> list[dict]:
    halves = HALVES if half == "all" else (half,)
    out = []
    for h in halves:
        for p in sorted((CASES / "env" / h).glob("*.txt")):
            pastes = [{"to": None, "torch": None, "expected": {}}]
            for line in p.with_suffix(".expect").read_text(encoding="utf-8").splitlines():
                parts = line.split()
                if not parts:
                    continue
                cur = pastes[-1]
                if parts[0] == "paste:":   # the expectations of the next paste in the same text
                    pastes.append({"to": cur["to"], "torch": None, "expected": {}})
                elif parts[0] == "to:":
                    cur["to"] = parts[1]
                elif parts[0] == "torch:":
                    cur["torch"] = parts[1]
                elif parts[0] == "newest:":   # the newest release and the build that runs it ("none"; "default")
                    cur["newest"] = (None, None) if parts[1] == "none" else (parts[1], parts[2] if len(parts) > 2 else None)
                elif parts[0] == "detect:":   # what the /check/ page takes the paste for, when it is no tool's output
                    cur["detect"] = parts[1]
                elif parts[0] == "default_wheel:":
                    cur["default_wheel"] = None if parts[1] == "none" else parts[1]
                elif parts[0] == "companion:":   # issue 41: PACKAGE VERDICT [VERSION to install]
                    cur.setdefault("companions", {})[ac.canonical(parts[1])] = (parts[2], parts[3] if len(parts) > 3 else None)
                else:
                    cur["expected"][parts[0]] = (parts[1], parts[2] if len(parts) > 2 else None)
            out.append({"path": p, "half": h, **pastes[0], "pastes": pastes})
    return out


def env_judged(cases: list[dict]):
    """(case, parsed paste or None, its expectations) for each paste each case expects: the text is
    split as the checker splits it (atlas_check.split_pastes); a paste it did not find is None."""
    for c in cases:
        parts = ac.split_pastes(c["path"].read_text(encoding="utf-8"))
        for i, want in enumerate(c["pastes"]):
            yield c, ac.parse_env(parts[i]) if i < len(parts) else None, want


def label(f: dict) -> str:
    return f["change"] or "api-diff:" + f["rule"].split("/")[2]


def kind(f: dict) -> str:
    """The rule kind, marked /guarded for a use inside a compat guard (severity guarded)."""
    return f["kind"] + ("/guarded" if f["severity"] == "guarded" else "")


def run_python_code(rules: dict, case: dict, notes: str = "some") -> tuple[set, bool]:
    frm = case["from"] or rules["releases"][0]
    to = case["to"] or rules["releases"][-1]
    findings, skipped, _ = ac.scan(rules, [str(case["path"])], frm, to, "en", notes)
    return {(f["line"], kind(f), label(f)) for f in findings}, bool(skipped)


def run_js(payload: dict) -> dict:
    """One call of the JS engine through node (docs/assets/atlas-check.js)."""
    script = ("const ac=require(process.argv[1]);let d='';process.stdin.on('data',c=>d+=c);"
              "process.stdin.on('end',()=>{const p=JSON.parse(d);process.stdout.write(JSON.stringify(ac.batch(p)));});")
    proc = subprocess.run(["node", "-e", script, str(JS)], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=300)
    if proc.returncode:
        raise RuntimeError(proc.stderr)
    return json.loads(proc.stdout)


def js_code_results(rules: dict, cases: list[dict], notes: str = "some") -> list[tuple[set, bool]]:
    jobs = []
    for c in cases:
        raw = c["path"].read_bytes()
        jobs.append({"path": c["path"].name, "bytes": list(raw) if b"\0" in raw else None,
                     "text": None if b"\0" in raw else raw.decode("latin-1"),
                     "from": c["from"] or rules["releases"][0], "to": c["to"] or rules["releases"][-1], "notes": notes})
    res = run_js({"rules": rules, "code": jobs})["code"]
    return [({(f["line"], kind(f), label(f)) for f in r["findings"]}, bool(r["skipped"])) for r in res]


def evaluate(rules: dict, half: str, engine: str = "python", notes: str = "some") -> dict:
    """Precision and recall of the code check on the corpus ``half``; ``notes`` as the CLI's
    --notes ("some": the default report, noisy notes hidden where the file lacks their condition)."""
    cases = code_cases(half)
    if engine == "js":
        results = js_code_results(rules, cases, notes)
    else:
        results = [run_python_code(rules, c, notes) for c in cases]
    tp, fp, fn = Counter(), Counter(), Counter()
    loose = Counter()   # by line and change alone: right, false positives, missed
    misses = []
    skip_ok = skip_n = 0
    for c, (found, skipped) in zip(cases, results):
        if c["skip"]:
            skip_n += 1
            skip_ok += skipped
            continue
        want, got = {(e[0], e[2]) for e in c["expected"]}, {(e[0], e[2]) for e in found}
        loose["tp"] += len(want & got)
        loose["fp"] += len(got - want)
        loose["fn"] += len(want - got)
        for e in c["expected"] & found:
            tp[e[1]] += 1
        for e in found - c["expected"]:
            fp[e[1]] += 1
            misses.append(("false positive", c["path"].name, e))
        for e in c["expected"] - found:
            fn[e[1]] += 1
            misses.append(("missed", c["path"].name, e))
        if skipped:
            misses.append(("skipped unexpectedly", c["path"].name, ()))
    env_total = env_ok = verdict_ok = 0
    env_rows = Counter()
    env_bad = []
    for c, env, want in env_judged(env_cases(half)):
        items = {i["check"]: i for i in ac.check_env(rules, env, want["to"], "en")} if env else {}
        if env is None:   # a paste the expectations name and the checker did not split off
            env_total += 1
            env_rows[("pastes", False)] += 1
            env_bad.append((c["path"].name, "pastes", len(c["pastes"]), "fewer"))
            continue
        for check, (verdict, change) in want["expected"].items():
            # "none": the row must not be shown (it does not apply to this machine); a row that is
            # not shown counts as unknown: not judged
            got = items.get(check) or {"verdict": "none" if verdict == "none" else "unknown", "change": None}
            ok = got["verdict"] == verdict and got["change"] == change
            env_total += 1
            env_ok += ok
            verdict_ok += got["verdict"] == verdict
            env_rows[(check, ok)] += 1
            if not ok:
                env_bad.append((c["path"].name, check, (verdict, change), (got["verdict"], got["change"])))
        if "newest" in want or "default_wheel" in want:   # issue 40: the newest release, its build, the default wheel's
            n = ac.newest_runnable(rules, env, "en")
            build = "default" if n["release"] and n["default"] and want.get("newest", (0, 0))[1] == "default" else n["build"]
            checks = []
            if "newest" in want:
                checks.append(("newest", want["newest"], (n["release"], build)))
            if "default_wheel" in want:
                checks.append(("default_wheel", want["default_wheel"], (n["default_wheel"] or {}).get("release")))
            for check, expected, got in checks:
                ok = expected == got
                env_total += 1
                env_ok += ok
                verdict_ok += ok
                env_rows[(check, ok)] += 1
                if not ok:
                    env_bad.append((c["path"].name, check, expected, got))
        if "companions" in want:   # issue 41: each package beside torch, its verdict and what to install
            got_c = {ac.canonical(i["package"]): (i["verdict"], i["install"])
                     for i in ac.check_companions(rules, env, want["to"], "en")["items"]}
            for pkg, expected in want["companions"].items():
                got = got_c.get(pkg, ("absent", None))
                ok = got == expected
                env_total += 1
                env_ok += ok
                verdict_ok += got[0] == expected[0]
                env_rows[("companion", ok)] += 1
                if not ok:
                    env_bad.append((c["path"].name, "companion " + pkg, expected, got))
        if want["torch"]:
            env_total += 1
            ok = env["torch"] == want["torch"]
            env_ok += ok
            verdict_ok += ok
            env_rows[("torch", ok)] += 1
            if not ok:
                env_bad.append((c["path"].name, "torch", want["torch"], env["torch"]))
    return {"tp": tp, "fp": fp, "fn": fn, "loose": loose, "verdicts": verdict_ok, "misses": misses, "skip": (skip_ok, skip_n),
            "env": (env_ok, env_total), "env_rows": env_rows, "env_bad": env_bad,
            "cases": (len(cases), len(env_cases(half)))}


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "n/a"


def markdown(r: dict, half: str, engine: str) -> str:
    tp, fp, fn = r["tp"], r["fp"], r["fn"]
    kinds = sorted(set(tp) | set(fp) | set(fn))
    out = [f"### Code check, {half} ({r['cases'][0]} files, {engine} engine)", "",
           "| rule kind | expected | found right | false positives | missed | precision | recall |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for k in kinds:
        out.append(f"| {k} | {tp[k] + fn[k]} | {tp[k]} | {fp[k]} | {fn[k]} | {pct(tp[k], tp[k] + fp[k])} | {pct(tp[k], tp[k] + fn[k])} |")
    T, F, N = sum(tp.values()), sum(fp.values()), sum(fn.values())
    out.append(f"| **all** | {T + N} | {T} | {F} | {N} | **{pct(T, T + F)}** | **{pct(T, T + N)}** |")
    lo = r["loose"]
    out.append(f"| by line and change alone | {lo['tp'] + lo['fn']} | {lo['tp']} | {lo['fp']} | {lo['fn']} | "
               f"{pct(lo['tp'], lo['tp'] + lo['fp'])} | {pct(lo['tp'], lo['tp'] + lo['fn'])} |")
    out += ["", f"Files expected to be skipped (do not parse): {r['skip'][0]} of {r['skip'][1]} skipped.", ""]
    for what, name, e in r["misses"]:
        out.append(f"- {what}: {name} line {e[0]} {e[1]} {e[2]}" if e else f"- {what}: {name}")
    ok, total = r["env"]
    out += ["", f"### Environment check, {half} ({r['cases'][1]} pastes)", "",
            "| item | right | wrong |", "|---|---:|---:|"]
    for item in ("torch",) + ENV_ITEMS + ("newest", "default_wheel"):
        out.append(f"| {item} | {r['env_rows'][(item, True)]} | {r['env_rows'][(item, False)]} |")
    out.append(f"| **all** | **{ok} of {total} ({pct(ok, total)})** | {total - ok} |")
    out += ["", f"Verdicts alone (ok, blocked, unknown, and the torch version), links aside: "
                f"{r['verdicts']} of {total} ({pct(r['verdicts'], total)})."]
    for name, check, want, got in r["env_bad"]:
        out.append(f"- {name}: {check}: expected {want}, got {got}")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--half", default="heldout", choices=[*HALVES, "all"])
    p.add_argument("--engine", default="python", choices=["python", "js"])
    p.add_argument("--notes", default="some", choices=["some", "all"], help="as the checker's --notes")
    args = p.parse_args(argv)
    rules = ac.load_rules()
    print(markdown(evaluate(rules, args.half, args.engine, args.notes), args.half, args.engine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
