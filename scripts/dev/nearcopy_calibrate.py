"""Calibrate the near-copy check (atlas/nearcopy.py) on the cases a language review flagged.

In:  the source articles (../shared/sources), the data as it was when the review read it (git
     revision ``--old``, default c7992e2, before the rewrites) and the data now.
Out: a Markdown table on stdout: per setting (n-gram sizes, threshold), how many of the 27 listed
     near-copies it catches in the old data, how many other old texts it flags (texts no reviewer
     flagged), and how many texts of today's data it flags. ``--write`` puts the table and the
     chosen setting into BENCHMARKS.md.

    .venv/bin/python scripts/dev/nearcopy_calibrate.py [--old REV] [--write]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from atlas import nearcopy
from atlas.load import ROOT, load
from atlas.provenance import Report, find_sources_dir, read_articles
from atlas.validate import validate
from benchmarks_file import write_section

#: issue 20's list: a key is one text; a bare id ("partial") is caught when any of its texts is
LISTED = {
    "zh": ["215-fsdp2-param-dtype-override.summary", "215-fsdp2-reduce-dtype.summary", "215-mps-fp8.summary",
           "215-python-watchdog.summary", "215-rocm-wheels.summary", "215-flight-recorder.summary",
           "215-dcp-strides.title", "215-import-once.title", "215-fsdp2-async-finalize.title",
           "215-nccl-device-binding", "215-cpp-exception-translation", "215-weights-only-nested"],
    "ru": ["214-faq-upgrade-steps.answer", "214-flight-recorder-any-backend.summary", "214-torchvision-abi.summary",
           "214-nvgemm", "214-py315-wheels", "214-clamp-grad"],
    "id": ["215-coverage-futurum.summary", "215-mps-linear-gemv.summary", "215-dcp-strides.title",
           "215-flight-recorder.title", "215-rocm-wheels", "215-one-sided-transport", "215-faq-free",
           "215-faq-before-upgrading", "215-faq-multi-node-testing"],
}


def _covers(item: str, key: str) -> bool:
    return key == item or (not re.search(r"\.(title|summary|answer|question|affected|symptom)$", item)
                           and key.startswith(item + "."))


def factbase_at(rev: str, tmp: Path):
    subprocess.run(f"git archive {rev} data | tar -x -C {tmp}", shell=True, cwd=ROOT, check=True)
    return validate(load(tmp / "data"))


def evaluate(old_fb, new_fb, articles, settings) -> dict:
    flagged_old = {(c.lang, c.key) for c in nearcopy.find(old_fb, articles, settings)}
    caught = {lang: [item for item in LISTED[lang] if any(la == lang and _covers(item, k) for la, k in flagged_old)]
              for lang in settings}
    others = sorted((la, k) for la, k in flagged_old if not any(_covers(item, k) for item in LISTED[la]))
    now = sorted((c.lang, c.key) for c in nearcopy.find(new_fb, articles, settings))
    return {"caught": caught, "others": others, "now": now}


GRID = {"zh": [(n, df, th, ms) for n in (3, 4) for df in (1, 2, 3) for th in (0.1, 0.15, 0.2) for ms in (3, 4)],
        "ru": [(n, df, th, ms) for n in (2, 3) for df in (1, 2, 3) for th in (0.1, 0.15, 0.2) for ms in (3, 4)],
        "id": [(n, df, th, ms) for n in (2, 3) for df in (1, 2, 3) for th in (0.2, 0.25, 0.3) for ms in (3, 4)]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="c7992e2")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    sources = find_sources_dir()
    if sources is None:
        print("error: ../shared/sources not found", file=sys.stderr)
        return 2
    new_fb = validate(load())
    articles = read_articles(new_fb.sources, new_fb.sources_file, sources, Report())
    with tempfile.TemporaryDirectory() as tmp:
        old_fb = factbase_at(args.old, Path(tmp))
    n_old = {lang: sum(1 for la, *_ in nearcopy.candidates(old_fb) if la == lang) for lang in LISTED}
    rows = []
    for lang, grid in GRID.items():
        best, chosen = [], nearcopy.SETTINGS[lang]
        for n, df, th, ms in grid:   # the grid varies the share measure; the 3-gram count stays as chosen
            setting = nearcopy.Setting(n, df, th, ms, chosen.long_n, chosen.long_min)
            r = evaluate(old_fb, new_fb, articles, {lang: setting})
            best.append((len(r["caught"][lang]), -len(r["others"]), setting, r))
        shown = sorted(best, key=lambda x: (x[0], x[1]), reverse=True)[:6]
        if not any(b[2] == chosen for b in shown):
            shown.append(next(b for b in best if b[2] == chosen))
        for caught, others, setting, r in shown:
            mark = " **(chosen)**" if setting == chosen else ""
            rows.append(f"| {lang} | {setting.n} {'Han characters' if lang == 'zh' else 'words'}, used by <= "
                        f"{setting.df_max} texts, >= {setting.threshold:.0%}, >= {setting.min_shared} shared{mark} | "
                        f"{caught} of {len(LISTED[lang])} | {-others} of {n_old[lang] - len(LISTED[lang])} | {len(r['now'])} |")
    final = evaluate(old_fb, new_fb, articles, nearcopy.SETTINGS)
    total = sum(len(v) for v in LISTED.values())
    caught = sum(len(v) for v in final["caught"].values())
    missed = [f"{la} {item}" for la, items in LISTED.items() for item in items if item not in final["caught"][la]]
    table = ("| language | setting | listed near-copies caught (old data) | other old texts flagged | texts flagged "
             "today |\n|---|---|---:|---:|---:|\n" + "\n".join(rows))
    section = (f"## Near-copy check (calibration)\n\nWritten by `scripts/dev/nearcopy_calibrate.py`: the check "
               f"(`atlas/nearcopy.py`, run by `make provenance`) on the data the review read (`{args.old}`, before "
               f"its rewrites) and on today's. The best settings per language by catches, then fewest other flags, "
               f"and the chosen one. Chosen: {caught} of {total} listed near-copies caught; "
               f"{len(final['others'])} other old texts flagged ({', '.join(f'{la} {k}' for la, k in final['others']) or 'none'}); "
               f"missed: {', '.join(missed) or 'none'}; flagged today: "
               f"{', '.join(f'{la} {k}' for la, k in final['now']) or 'none'}.\n\n" + table)
    print(section)
    if args.write:
        write_section("Near-copy check (calibration)", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
