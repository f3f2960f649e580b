"""Speed and robustness of the checker (issue 19); prints Markdown.

  .venv/bin/python scripts/dev/bench_check.py [--lines 200000] [--torchfix /tmp/torchfix-venv/bin/torchfix]

1. The CLI (``atlas_check.py code``, one process, no multiprocessing) on a generated tree of
   about 200,000 lines: lines per second.
2. TorchFix 0.7.0 on the same files, in the same run, for the rules both know (torch.cholesky,
   torch.qr): time and what each finds. TorchFix lives in its own virtualenv
   (``python3 -m venv /tmp/torchfix-venv && /tmp/torchfix-venv/bin/pip install torchfix==0.7.0``).
3. The JavaScript engine on a 2,000-line paste, timed inside node (median of 7 runs).
4. Large and hostile input: a file at the size cap and one over it (time, peak memory), one
   200 KB line with 16,000 findings, in the CLI and in node.
5. The code check over this Python's standard library and its test suite: tracebacks, files
   skipped, time.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / "scripts" / "atlas" / "atlas_check.py"
JS = ROOT / "docs" / "assets" / "atlas-check.js"
CORPUS = ROOT / "tests" / "check_cases" / "code"

FILLER = '''

class Block{n}(nn.Module):
    """A residual block ({n})."""

    def __init__(self, dim, hidden, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        h = self.fc1(self.norm(x))
        h = F.gelu(h)
        h = self.drop(self.fc2(h))
        return x + h


def train_step_{n}(model, batch, optimizer, scaler=None):
    x, y = batch
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    stats = {{"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"]}}
    return stats
'''
HITS = ["    L = torch.cholesky(cov_{n})\n", "    q, r = torch.qr(w_{n})\n", "    q, r = torch.linalg.qr(w_{n})\n"]
HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def make_tree(dst: Path, lines: int) -> tuple[int, int, dict]:
    """Files of about 500 lines: filler blocks, the tune corpus, and known torch.qr/cholesky uses."""
    rnd = random.Random(19)
    tune = [p.read_text(encoding="utf-8") for p in sorted((CORPUS / "tune").glob("*.py"))]
    total, files, planted = 0, 0, {"torch.cholesky": 0, "torch.qr": 0}
    while total < lines:
        parts, n = [HEADER], 0
        while sum(p.count("\n") for p in parts) < 500:
            if rnd.random() < 0.15:
                parts.append("\n" + rnd.choice(tune))
            else:
                body = FILLER.format(n=f"{files}_{n}")
                k = rnd.randrange(6)
                if k < 3:
                    body += f"\n\ndef decompose_{files}_{n}(cov_{files}_{n}, w_{files}_{n}):\n" + HITS[k].format(n=f"{files}_{n}") + "    return None\n"
                    if k == 0:
                        planted["torch.cholesky"] += 1
                    elif k == 1:
                        planted["torch.qr"] += 1
                parts.append(body)
            n += 1
        text = "".join(parts)
        sub = dst / f"pkg{files // 50}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"mod_{files:04d}.py").write_text(text, encoding="utf-8")
        total += text.count("\n")
        files += 1
    return total, files, planted


def run_checker(paths, rules_file, fmt="json", extra=()):
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(CHECKER), "--rules", rules_file, "code", "--from", "2.13", "--to", "2.15",
                           "--format", fmt, *extra, *map(str, paths)], capture_output=True, text=True)
    return time.perf_counter() - t0, proc


def fix_timing(tree: Path, rules_file: str, torchfix: str) -> list[str]:
    """--diff and --fix on fresh copies of the tree (best of 3 each), next to TorchFix's --fix."""
    rows = []
    for mode in ("--diff", "--fix"):
        best, res = None, None
        for _ in range(3):
            copy = tree.parent / "fixcopy"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(tree, copy)
            dt, proc = run_checker([copy], rules_file, extra=(mode,))
            if best is None or dt < best:
                best, res = dt, proc
        if mode == "--diff":
            plan = json.loads(res.stdout)
            rows.append((mode, best, len(plan["fixes"]), len(plan["suggestions"])))
        else:
            rows.append((mode, best, None, None))
    if os.path.exists(torchfix):
        copy = tree.parent / "fixcopy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy)
        t0 = time.perf_counter()
        subprocess.run([torchfix, "--fix", "-j", "1", str(copy)], capture_output=True, text=True)
        rows.append(("TorchFix 0.7.0 `--fix -j 1`", time.perf_counter() - t0, None, None))
    shutil.rmtree(tree.parent / "fixcopy", ignore_errors=True)
    return rows


def count_by_api(findings, apis=("torch.cholesky", "torch.qr")) -> dict:
    out = dict.fromkeys(apis, 0)
    for f in findings:
        if f["api"] in out and f["kind"] == "name":
            out[f["api"]] += 1
    return out


def run_torchfix(exe: str, tree: Path):
    t0 = time.perf_counter()
    proc = subprocess.run([exe, "--select", "ALL", str(tree)], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    counts = {"torch.cholesky": 0, "torch.qr": 0}
    for line in (proc.stdout + proc.stderr).splitlines():
        m = re.search(r"TOR\d+ .*?`?(torch\.(?:cholesky|qr))`?\b", line)
        if m and m.group(1) in counts:
            counts[m.group(1)] += 1
    return dt, counts, proc


def js_timing(rules: dict, paste: str) -> dict:
    script = r"""
const ac = require(process.argv[1]); const fs = require('fs');
const p = JSON.parse(fs.readFileSync(0, 'utf8'));
const times = []; let n = 0;
for (let i = 0; i < 7; i++) { const t = process.hrtime.bigint(); n = ac.checkCode(p.rules, p.text, {from: '2.13', to: '2.15'}).findings.length;
  times.push(Number(process.hrtime.bigint() - t) / 1e6); }
times.sort((a, b) => a - b);
const te = []; for (let i = 0; i < 7; i++) { const t = process.hrtime.bigint(); ac.checkEnv(p.rules, p.env, {}); te.push(Number(process.hrtime.bigint() - t) / 1e6); }
te.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({median_ms: times[3], first_ms: times[0], max_ms: times[6], findings: n, env_median_ms: te[3]}));
"""
    env = (ROOT / "tests" / "check_cases" / "env" / "tune" / "a100_collect_env.txt").read_text(encoding="utf-8")
    proc = subprocess.run(["node", "-e", script, str(JS)], input=json.dumps({"rules": rules, "text": paste, "env": env}),
                          capture_output=True, text=True, timeout=300)
    if proc.returncode:
        raise RuntimeError(proc.stderr)
    return json.loads(proc.stdout)


#: starts the measured process from a small one, so its peak memory is its own and not that of a
#: copy of this (large) process made to start it; prints "exit peak_KiB seconds"
LAUNCH = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
          "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
          "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t)")


def timed_child(cmd):
    """(seconds, peak resident MiB, exit code) of one process, from the kernel's own accounting."""
    code, kib, dt = subprocess.run([sys.executable, "-c", LAUNCH, *cmd], capture_output=True, text=True,
                                   check=True).stdout.split()
    return float(dt), int(kib) / 1024, int(code)


def hostile_sizes(rules: dict, rules_file: Path, work: Path) -> list[str]:
    """Section 5: a file just under the checker's size cap, one over it, and the pastes that froze
    the page before (a 200 KB line), in the CLI and in node."""
    from atlas.atlas_check import MAX_BYTES

    src = "\n".join(p.read_text(encoding="utf-8") for p in sorted((CORPUS / "tune").glob("*.py"))) + "\n"
    big = work / "big"
    big.mkdir()
    text = src * (MAX_BYTES // len(src.encode("utf-8")))
    (big / "at_cap.py").write_text(text, encoding="utf-8")
    over = work / "over"
    over.mkdir()
    (over / "ten_mb.py").write_text(src * (10_000_000 // len(src.encode("utf-8")) + 1), encoding="utf-8")
    line = "import torch\nx = [" + "torch.qr(a), " * 16000 + "]\n"
    rows = []
    for label, path in ((f"{len(text.encode()) / 1e6:.1f} MB file ({text.count(chr(10)):,} lines)", big),
                        ("10 MB file (over the cap: skipped, exit 5)", over)):
        dt, mib, code = timed_child([sys.executable, str(CHECKER), "--rules", str(rules_file), "code", "--from", "2.13",
                                     "--format", "json", str(path)])
        rows.append(f"| CLI, {label} | {dt:.2f} s | {mib:,.0f} MiB | {code} |")
    one = work / "line"
    one.mkdir()
    (one / "line.py").write_text(line, encoding="utf-8")
    dt, mib, code = timed_child([sys.executable, str(CHECKER), "--rules", str(rules_file), "code", "--from", "2.13",
                                 "--format", "json", str(one)])
    rows.append(f"| CLI, one 200 KB line with 16,000 findings | {dt:.2f} s | {mib:,.0f} MiB | {code} |")
    script = r"""
const ac = require(process.argv[1]); const fs = require('fs');
const p = JSON.parse(fs.readFileSync(0, 'utf8')); const out = [];
for (const t of p.texts) { const s = process.hrtime.bigint(); const r = ac.checkCode(p.rules, t, {from: '2.13', to: '2.15'});
  out.push([Number(process.hrtime.bigint() - s) / 1e6, r.findings.length]); }
process.stdout.write(JSON.stringify(out));
"""
    proc = subprocess.run(["node", "--max-old-space-size=4096", "-e", script, str(JS)], capture_output=True, text=True,
                          input=json.dumps({"rules": rules, "texts": [line, text]}), timeout=900)
    js = json.loads(proc.stdout) if proc.returncode == 0 else None
    if js:
        rows.append(f"| JS engine (node), one 200 KB line | {js[0][0] / 1000:.2f} s | | {js[0][1]:,} findings |")
        rows.append(f"| JS engine (node), the {len(text.encode()) / 1e6:.1f} MB file | {js[1][0] / 1000:.2f} s | | "
                    f"{js[1][1]:,} findings |")
    else:
        rows.append(f"| JS engine (node) | failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else proc.returncode} | | |")
    return ["", "### Large and hostile input", "",
            f"The CLI reads files up to {MAX_BYTES / 1e6:.0f} MB (a larger one is skipped and makes the run incomplete). "
            "The page draws 300 findings at a time.", "",
            "| run | wall time | peak memory | exit / findings |", "|---|---:|---:|---:|", *rows]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--torchfix", default="/tmp/torchfix-venv/bin/torchfix")
    ap.add_argument("--skip-stdlib", action="store_true")
    ap.add_argument("--write", action="store_true", help="put the result into BENCHMARKS.md")
    args = ap.parse_args(argv)

    from atlas.atlas_check import load_rules
    rules = load_rules()
    work = Path(tempfile.mkdtemp(prefix="atlas-bench-"))
    rules_file = work / "rules.json"
    rules_file.write_text(json.dumps(rules), encoding="utf-8")
    tree = work / "tree"
    total, files, planted = make_tree(tree, args.lines)
    out = ["## atlas-check: speed and robustness", "",
           f"Machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; generated tree: {files} files, {total:,} lines "
           f"({planted['torch.cholesky']} planted torch.cholesky calls, {planted['torch.qr']} torch.qr, plus the tune corpus "
           "copied in)."]

    dt, proc = run_checker([tree], str(rules_file))
    res = json.loads(proc.stdout)
    ours = count_by_api(res["findings"])
    out += ["", "### Code check on the tree", "", "| run | time | lines/s | findings | skipped |", "|---|---:|---:|---:|---:|"]
    best = dt
    for _ in range(2):
        dti, _ = run_checker([tree], str(rules_file))
        best = min(best, dti)
    out.append(f"| atlas_check.py code (best of 3, wall, incl. interpreter start) | {best:.2f} s | {total / best:,.0f} | "
               f"{len(res['findings'])} | {len(res['skipped'])} |")

    total_lines = total
    out += ["", "### --fix and --diff on the tree", "",
            "A fresh copy for each run (the fix rewrites it); `--fix` plans, writes and then checks again, so it "
            "reads every file twice. Window 2.13 -> 2.15.", "",
            "| run | time | lines/s | fixes | suggestions |", "|---|---:|---:|---:|---:|",
            f"| atlas_check.py code (plain check, from above) | {best:.2f} s | {total_lines / best:,.0f} | | |"]
    for mode, dt, nfix, nsug in fix_timing(tree, str(rules_file), args.torchfix):
        name = f"atlas_check.py code {mode} (best of 3)" if mode.startswith("--") else mode
        out.append(f"| {name} | {dt:.2f} s | {total_lines / dt:,.0f} | {'' if nfix is None else nfix} | "
                   f"{'' if nsug is None else nsug} |")
    out += ["", "### Against TorchFix 0.7.0 (same files, same run)", ""]
    if os.path.exists(args.torchfix):
        tdt, tcounts, tproc = run_torchfix(args.torchfix, tree)
        out += ["| tool | time | lines/s | torch.cholesky found | torch.qr found |", "|---|---:|---:|---:|---:|",
                f"| atlas_check.py | {best:.2f} s | {total / best:,.0f} | {ours['torch.cholesky']} | {ours['torch.qr']} |",
                f"| TorchFix 0.7.0 (`--select ALL`) | {tdt:.2f} s | {total / tdt:,.0f} | {tcounts['torch.cholesky']} | {tcounts['torch.qr']} |",
                "", f"Speed ratio: atlas_check.py is {tdt / best:.1f}x as fast. TorchFix exit code {tproc.returncode}; "
                    f"its output lines: {len(tproc.stdout.splitlines())}."]
        kinds = {}
        for line in tproc.stdout.splitlines():
            m = re.search(r"(TOR\d+)", line)
            if m:
                kinds[m.group(1)] = kinds.get(m.group(1), 0) + 1
        out.append("TorchFix findings by code: " + (", ".join(f"{k}: {v}" for k, v in sorted(kinds.items())) or "none"))
    else:
        out.append(f"TorchFix not found at {args.torchfix}; install it as the docstring says.")

    paste_lines = []
    src = [p.read_text(encoding="utf-8") for p in sorted((CORPUS / "tune").glob("*.py"))]
    i = 0
    while len(paste_lines) < 2000:
        paste_lines += src[i % len(src)].split("\n")
        i += 1
    paste = "\n".join(paste_lines[:2000]) + "\n"
    js = js_timing(rules, paste)
    out += ["", "### JavaScript engine (node, in process)", "",
            f"2,000-line paste: median {js['median_ms']:.1f} ms (fastest {js['first_ms']:.1f}, slowest {js['max_ms']:.1f}; "
            f"the slowest is the first, cold run), {js['findings']} findings; environment paste (collect_env): "
            f"median {js['env_median_ms']:.2f} ms."]

    out += hostile_sizes(rules, rules_file, work)

    if not args.skip_stdlib:
        stdlib = sysconfig.get_paths()["stdlib"]
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(CHECKER), "--rules", str(rules_file), "code", "--format", "json", stdlib],
                              capture_output=True, text=True)
        sdt = time.perf_counter() - t0
        r = json.loads(proc.stdout)
        errors = [s for s in r["skipped"] if s["reason"].startswith("checker error")]
        tb = "Traceback" in proc.stderr
        reasons = {}
        for s in r["skipped"]:
            key = re.sub(r"\(line \d+\)|: .*", "", s["reason"]).strip()
            reasons[key] = reasons.get(key, 0) + 1
        out += ["", f"### Robustness: the standard library and its tests (CPython {platform.python_version()})", "",
                f"{r['stats']['files']:,} files read, {r['stats']['lines']:,} lines, in {sdt:.1f} s; "
                f"tracebacks: {1 if tb else 0}; checker errors: {len(errors)}; skipped: {len(r['skipped'])} "
                f"({', '.join(f'{v} {k}' for k, v in sorted(reasons.items()))}); findings: {len(r['findings'])}."]
        for s in r["skipped"][:12]:
            out.append(f"- skipped {os.path.relpath(s['path'], stdlib)}: {s['reason']}")
    shutil.rmtree(work, ignore_errors=True)
    print("\n".join(out))
    if args.write:
        from benchmarks_file import write_section

        write_section(out[0].removeprefix("## "), "\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
