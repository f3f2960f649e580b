"""Benchmarks: build time against plain Material (other core idle and busy), edit-to-refresh under
`mkdocs serve`, page weight, search cost, Lighthouse, and 10x synthetic data.

In:  the repository; Debian's Chromium for the browser figures; npm for Lighthouse
     (``npx lighthouse``, skipped with a note when npm is missing).
Out: a Markdown table on stdout, written to BENCHMARKS.md (``make bench``; ``--no-write``
     only prints). Timings are measurements, never assertions: tests do not depend on them.

    .venv/bin/python scripts/dev/bench.py [--no-write] [--no-lighthouse] [--ratio-only] [--serve-only] [--lighthouse-only]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

import serve_watch
import static_server
from atlas.langs import TRANSLATED
from atlas.load import dump
from benchmarks_file import write_section
from ensure_browser import CHROMIUM_ARGS, chromium

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = chromium() or "/usr/bin/chromium"   # scripts/dev/ensure_browser.py finds the browser
PAGE_TYPES = {"home": "", "release": "releases/2.15/", "change": "changes/215-dcp-strides/",
              "breaking index": "breaking/", "upgrade": "upgrade/2.14-to-2.15/", "errors": "errors/",
              "heaviest upgrade": "upgrade/2.0-to-2.15/", "release from its wheel": "releases/2.9/"}
#: Timing queries (not the quality query set): identifiers, a pasted error line, questions, typos.
QUERIES = {"en": ["torch.linalg.qr", "RuntimeError: Expected tensor on cuda:1 but found tensor on cuda:0",
                  "does 2.15 still support python 3.10", "nested tensors", "V100", "chekpoint"],
           "zh": ["分布式检查点", "torch.linalg.qr", "显存", "2.15 多少贡献者", "只能初始化一次", "V100 还能用吗"],
           "ru": ["чекпоинт", "torch.linalg.qr", "сколько коммитов в 2.15", "градиент clamp", "macOS 15", "вебинар"],
           "id": ["checkpoint terdistribusi", "torch.linalg.qr", "berapa kontributor 2.15", "gradien", "macOS 15",
                  "kehabisan memori"]}


ROUNDS = 9   # build-ratio rounds: on this VM one process runs now and then about 40% slower (the same
             # build took 4.4 s or 6.4 s), so medians of several, and the fastest of each kind beside them
PORT = static_server.free_port()  # the site is built for the address it is served on (canonical URLs)


def timed_build(repo: Path, site: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "atlas", "build", "--site-dir", str(site)],
                          cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "SITE_URL": f"http://127.0.0.1:{PORT}/", "PYTHONPATH": str(repo / "scripts")})
    if proc.returncode != 0:
        raise SystemExit(proc.stdout[-2000:] + proc.stderr[-2000:])
    return time.perf_counter() - t


def repo_copy(dst: Path) -> Path:
    shutil.copytree(ROOT, dst, ignore=shutil.ignore_patterns(".venv", ".git", ".cache", ".pytest_cache", "site",
                                                             "site.old", ".site-*", "test-artifacts", "__pycache__"))
    return dst


def plain_material_config(repo: Path) -> Path:
    """mkdocs.yml without our plugin and theme overrides: Material, the same i18n plugin and the same
    (already generated) pages."""
    text = (repo / "mkdocs.yml").read_text(encoding="utf-8")
    plain = re.sub(r"\n  - atlas:\n(      .*\n)+", "\n", text)
    assert plain != text, "mkdocs.yml has no atlas plugin to remove"
    plain = re.sub(r"\n  custom_dir: overrides\n", "\n", plain)   # our overrides call the hook's helpers
    path = repo / "mkdocs-plain.yml"
    path.write_text(plain, encoding="utf-8")
    return path


def timed_plain_build(repo: Path, config: Path, site: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--config-file", str(config), "--site-dir", str(site)],
                          cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "SITE_URL": f"http://127.0.0.1:{PORT}/", "DISABLE_MKDOCS_2_WARNING": "true"})
    if proc.returncode != 0:
        raise SystemExit(proc.stdout[-2000:] + proc.stderr[-2000:])
    return time.perf_counter() - t


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def build_ratio(repo: Path, tmp: Path, rounds: int = ROUNDS) -> dict:
    """`atlas build` (pipeline, plugin, search index, strict) against a plain Material build of the
    same generated pages, side by side. Each of ``rounds`` rounds builds, each into a new folder:
    ours with the templates and the pipeline's modules compiled (``.cache/jinja``, ``__pycache__``,
    as every build after a checkout's first), ours without them (``cold``, a fresh checkout's first
    build), and plain Material. Medians of wall
    time and of CPU time (user+sys of the build processes, children included: the forked steps),
    and the fastest run of each kind (``best``: slowdowns on a shared machine only ever add time).
    Returns ``{"warm"|"cold": {"wall"|"cpu": {"ours", "plain", "ratio", "best", "runs", "plain_runs"}}}``,
    both against the same plain runs (``best``: (ours, plain, ratio) of the fastest runs; ``runs``:
    every round's seconds, in order).
    Callers build once before (the plain build reads the generated pages), which also fills ``.cache/jinja``."""
    config = plain_material_config(repo)
    runs: dict = {k: {"wall": [], "cpu": []} for k in ("warm", "cold", "plain")}

    def timed(kind: str, i: int) -> None:
        if kind == "cold":
            shutil.rmtree(repo / ".cache" / "jinja", ignore_errors=True)
            for d in (repo / "scripts" / "atlas").rglob("__pycache__"):
                shutil.rmtree(d)
        c = _cpu_children()
        site = tmp / f"ratio-{kind}-{i}"
        runs[kind]["wall"].append(timed_plain_build(repo, config, site) if kind == "plain" else timed_build(repo, site))
        runs[kind]["cpu"].append(_cpu_children() - c)

    for i in range(rounds):
        for kind in ("warm", "cold", "plain") if i % 2 == 0 else ("plain", "cold", "warm"):
            timed(kind, i)
    plain = {k: statistics.median(v) for k, v in runs["plain"].items()}
    out = {}
    for kind in ("warm", "cold"):
        ours = {k: statistics.median(v) for k, v in runs[kind].items()}
        out[kind] = {k: {"ours": ours[k], "plain": plain[k], "ratio": ours[k] / plain[k],
                         "best": (min(runs[kind][k]), min(runs["plain"][k]), min(runs[kind][k]) / min(runs["plain"][k])),
                         "runs": runs[kind][k], "plain_runs": runs["plain"][k]} for k in ("wall", "cpu")}
    return out


def clean_generated(repo: Path) -> None:
    subprocess.run([sys.executable, "-m", "atlas.generated", str(repo / "docs")], cwd=repo, check=True,
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(repo / "scripts")})


class BusyCore:
    """Keeps one core busy (a spinning process) while the block runs: CI machines are rarely idle."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def multiply_changes(repo: Path, factor: int) -> int:
    """Copy every change (and its translations) ``factor`` times under new ids."""
    total = 0
    for rel_file in (repo / "data" / "releases").glob("*.yaml"):
        data = yaml.safe_load(rel_file.read_text(encoding="utf-8"))
        originals = list(data.get("changes") or [])
        tr_files = {lang: repo / "data" / "translations" / lang / "releases" / rel_file.name for lang in TRANSLATED}
        trs = {lang: yaml.safe_load(p.read_text(encoding="utf-8")) for lang, p in tr_files.items()}
        for k in range(1, factor):
            for c in originals:
                new = json.loads(json.dumps(c, default=str))
                new["id"] = f"{c['id']}-x{k}"
                data["changes"].append(new)
                for table in trs.values():
                    for key in [key for key in list(table) if key.startswith(c["id"] + ".")]:
                        table[new["id"] + key[len(c["id"]):]] = table[key]
        total += len(data["changes"])
        rel_file.write_text(dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        for lang, p in tr_files.items():
            p.write_text(dump(trs[lang], allow_unicode=True, sort_keys=False), encoding="utf-8")
    (repo / "data" / "published_ids.yaml").write_text("published: []\nredirects: {}\n")
    return total


def site_stats(site: Path) -> dict:
    html = list(site.rglob("*.html"))
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    return {"pages": len(html), "bytes": size,
            "change_page": (site / "changes" / "215-dcp-strides" / "index.html").stat().st_size,
            "search_index": {p.stem: p.stat().st_size for p in (site / "search").glob("*.json")},
            "search_engine": (site / "assets" / "search.js").stat().st_size}


def browser_figures(site: Path) -> dict:
    from playwright.sync_api import sync_playwright

    server, base = static_server.serve(site)
    out: dict = {"weight": {}, "weight_zh": {}, "search_bytes": {}, "engine_bytes": {}, "search_ms": {}}
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for key, prefix in (("weight", ""), ("weight_zh", "zh/")):
                for name, path in PAGE_TYPES.items():
                    ctx = b.new_context()
                    pg = ctx.new_page()
                    responses = []
                    pg.on("response", lambda r: responses.append(r))   # Playwright tags the handler: no bound builtin
                    pg.goto(base + prefix + path, wait_until="networkidle")
                    # bodies are read while the page is open (reading them in the event handler raced ctx.close())
                    out[key][name] = sum(len(r.body()) for r in responses
                                         if r.ok and r.request.resource_type in ("document", "stylesheet", "script"))
                    ctx.close()
            for lang, queries in QUERIES.items():
                ctx = b.new_context()
                pg = ctx.new_page()
                got, engine = [], []   # bytes on the wire (the static server gzips like any host)
                pg.on("requestfinished", lambda r: (got if "/search/" in r.url else engine).append(
                    r.sizes()["responseBodySize"]) if "/search/" in r.url or r.url.endswith("/search.js") else None)
                pg.goto(base + ("" if lang == "en" else f"{lang}/"), wait_until="networkidle")
                times = []
                for i, q in enumerate(queries * 4):
                    box = pg.locator("#atlas-search-input")
                    box.fill("")
                    box.fill(q)
                    box.press("End")
                    pg.wait_for_function("q => { const r = document.getElementById('atlas-search-results');"
                                         " return !r.hidden && r.dataset.q === q; }", arg=q, timeout=15000)
                    if i >= len(queries):  # first round loads the index; later rounds are warm
                        # from the input event to the rendered list, the 20 ms debounce included
                        times.append(float(pg.eval_on_selector("#atlas-search-results", "e => e.dataset.ms")))
                out["search_bytes"][lang] = sum(got)
                out["engine_bytes"][lang] = sum(engine)
                out["search_ms"][lang] = statistics.median(times)
                ctx.close()
            b.close()
    finally:
        server.shutdown()
    return out


def edit_to_refresh(repo: Path, lang: str | None, edits: int = 5) -> float:
    """Median seconds from saving a title edit under data/ to `mkdocs serve` serving the new page."""
    s = serve_watch.Serve(repo, static_server.free_port(), lang)
    rel = repo / "data" / "releases" / "2.15.yaml"
    page = "changes/215-dcp-strides/"
    times, word = [], "saved by"
    try:
        s.wait_for(page, "Distributed checkpoints " + word)
        s.wait_idle()
        for i in range(edits):
            new = f"saved (edit {'abcdefghij'[i]}) by"  # digits in text fail validation
            times.append(serve_watch.edit_to_refresh(s, rel, "Distributed checkpoints " + word, "Distributed checkpoints " + new, page))
            word = new
            s.wait_idle()  # the rebuild triggered by the regenerated docs/ pages settles
    finally:
        s.stop()
        rel.write_text(rel.read_text(encoding="utf-8").replace("Distributed checkpoints " + word, "Distributed checkpoints saved by"),
                       encoding="utf-8")
    return statistics.median(times)


def _file_edit_to_refresh(repo: Path, lang: str | None, rel: str, anchor: str, edited: str, edits: int = 3) -> float:
    """Median seconds from saving an edit to ``rel`` (``anchor`` replaced by ``edited``, whose
    ``{marker}`` differs each time) to `mkdocs serve` serving a change page that shows the marker."""
    s = serve_watch.Serve(repo, static_server.free_port(), lang)
    path = repo / rel
    original = path.read_text(encoding="utf-8")
    assert original.count(anchor) == 1, (rel, anchor)
    page = "changes/215-dcp-strides/"
    times = []
    try:
        s.wait_for(page, "Distributed checkpoints")
        s.wait_idle()
        for i in range(edits):
            marker = f"atlas-bench-{'abcdefghij'[i]}"
            t = time.perf_counter()
            path.write_text(original.replace(anchor, edited.format(marker=marker)), encoding="utf-8")
            s.wait_for(page, marker)
            times.append(time.perf_counter() - t)
            s.wait_idle()
    finally:
        s.stop()
        path.write_text(original, encoding="utf-8")
    return statistics.median(times)


def code_edit_to_refresh(repo: Path, lang: str | None, edits: int = 3) -> float:
    """An edit to a module of the pipeline (the generated-page comment in render.py: every page
    changes) to `mkdocs serve` serving a page that shows it (median seconds)."""
    end = "; edit the data, then run `make build` -->"
    return _file_edit_to_refresh(repo, lang, "scripts/atlas/render.py", end,
                                 "; edit the data, then run `make build` {marker} -->", edits)


def template_edit_to_refresh(repo: Path, lang: str | None, edits: int = 3) -> float:
    """An edit to a page template (change.md.j2: the 100 change pages of each language) to
    `mkdocs serve` serving a page that shows it (median seconds)."""
    return _file_edit_to_refresh(repo, lang, "scripts/atlas/templates/change.md.j2", "{{ m.copy_link(path) }}",
                                 "{{{{ m.copy_link(path) }}}}\n\n{marker}", edits)


def heaviest_upgrade_page(site: Path) -> str:
    """The site path of the upgrade page with the most HTML, over every language (``ru/upgrade/2.0-to-2.15/``)."""
    heaviest = max(site.rglob("upgrade/*/index.html"), key=lambda p: p.stat().st_size)
    return heaviest.parent.relative_to(site).as_posix() + "/"


CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def lighthouse(site: Path, names: tuple[str, ...] = ("home", "release", "change", "heaviest upgrade"),
               runs: int = 1) -> dict:
    """Lighthouse 12 mobile scores of some page types, served with gzip; "heaviest upgrade" is the
    heaviest upgrade page of any language (``heaviest_upgrade_page``). With ``runs`` > 1 each page
    is measured that many times and each score is the median (performance moves with the machine's
    load: Lighthouse times the page's main thread and scales it)."""
    if not shutil.which("npx"):
        return {}
    server, base = static_server.serve(site, PORT)
    scores = {}
    pages = {**PAGE_TYPES, "heaviest upgrade": heaviest_upgrade_page(site)}
    try:
        for name in names:
            got = []
            for _ in range(runs):
                with tempfile.NamedTemporaryFile(suffix=".json") as f:
                    cmd = ["npx", "--yes", "lighthouse@12", base + pages[name], "--quiet", "--output=json",
                           f"--output-path={f.name}", "--form-factor=mobile",
                           "--chrome-flags=--headless=new " + " ".join(CHROMIUM_ARGS)]
                    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                                          env={**os.environ, "CHROME_PATH": CHROMIUM})
                    if proc.returncode != 0:
                        scores[name] = {"error": (proc.stderr or proc.stdout)[-300:]}
                        break
                    cats = json.loads(Path(f.name).read_text())["categories"]
                    got.append({k: cats[k]["score"] for k in CATEGORIES})
            if got and name not in scores:
                scores[name] = {k: statistics.median(g[k] for g in got) for k in CATEGORIES}
                if runs > 1:
                    scores[name]["runs"] = [g["performance"] for g in got]
    finally:
        server.shutdown()
    return scores


def lighthouse_rows(site: Path, runs: int = 3) -> list[tuple[str, str]]:
    """The heaviest upgrade page, ``runs`` times, with the load average before and after."""
    before = os.getloadavg()[0]
    sc = lighthouse(site, ("heaviest upgrade",), runs)["heaviest upgrade"]
    if "error" in sc:
        return [("Lighthouse mobile, heaviest upgrade page", "failed: " + sc["error"][:80])]
    return [(f"Lighthouse mobile, heaviest upgrade page `{heaviest_upgrade_page(site)}` (median of {runs} runs: perf / a11y / best practices / SEO)",
             " / ".join(f"{sc[k]:.2f}" for k in CATEGORIES)
             + f" (performance per run: {', '.join(f'{x:.2f}' for x in sc['runs'])}; load {before:.1f} / {os.getloadavg()[0]:.1f})")]


def ratio_rows(repo: Path, tmp: Path, rounds: int = ROUNDS) -> list[tuple[str, str]]:
    rows = []
    for load, ctx in (("other core idle", None), ("other core busy", BusyCore)):
        if ctx is None:
            ratio = build_ratio(repo, tmp / "idle", rounds)
        else:
            with ctx():
                ratio = build_ratio(repo, tmp / "busy", rounds)
        for kind, when in (("warm", "templates compiled"), ("cold", "first build of a checkout")):
            for k, label in (("wall", "wall time"), ("cpu", "CPU time")):
                r = ratio[kind][k]
                rows.append((f"`atlas build` vs plain Material build of the same pages, {label}, {when}, {load} "
                             f"(medians of {rounds} rounds, same run)",
                             f"{r['ours']:.2f} s / {r['plain']:.2f} s = {r['ratio']:.2f}x "
                             f"(fastest runs: {r['best'][0]:.2f} s / {r['best'][1]:.2f} s = {r['best'][2]:.2f}x)"))
    return rows


def _loaded(measure, *args) -> str:
    """``measure(*args)`` in seconds, with the machine's 1-minute load average before and after it
    (the figures mean little on a machine that other jobs keep busy)."""
    before = os.getloadavg()[0]
    seconds = measure(*args)
    return f"{seconds:.1f} s (load {before:.1f} / {os.getloadavg()[0]:.1f})"


def serve_rows(repo: Path) -> list[tuple[str, str]]:
    return [("`make serve SERVE_LANG=en`: edit a title in data/ to refreshed page (median of 5)", _loaded(edit_to_refresh, repo, "en")),
            ("`make serve` (4 languages): edit a title in data/ to refreshed page (median of 5)", _loaded(edit_to_refresh, repo, None)),
            ("`make serve SERVE_LANG=en`: edit a module in scripts/atlas/ to refreshed page (median of 3)",
             _loaded(code_edit_to_refresh, repo, "en")),
            ("`make serve` (4 languages): edit a module in scripts/atlas/ to refreshed page (median of 3)",
             _loaded(code_edit_to_refresh, repo, None)),
            ("`make serve SERVE_LANG=en`: edit the change-page template (100 pages) to refreshed page (median of 3)",
             _loaded(template_edit_to_refresh, repo, "en")),
            ("`make serve` (4 languages): edit the change-page template (400 pages) to refreshed page (median of 3)",
             _loaded(template_edit_to_refresh, repo, None))]


def write_table(rows: list[tuple[str, str]], title: str, write: bool) -> None:
    table = "| measure | result |\n|---|---|\n" + "\n".join(f"| {a} | {b} |" for a, b in rows)
    table = f"## {title}\n\nMeasured {time.strftime('%Y-%m-%d')} on the project machine (2 cores, 24 GiB), `make bench`.\n\n" + table
    print(table)
    if write:
        write_section(title, table)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true", help="print only; do not rewrite BENCHMARKS.md")
    ap.add_argument("--no-lighthouse", action="store_true")
    ap.add_argument("--serve-only", action="store_true", help="only the edit-to-refresh figures")
    ap.add_argument("--ratio-only", action="store_true", help="only the build-time ratio against plain Material")
    ap.add_argument("--lighthouse-only", action="store_true", help="only Lighthouse on the heaviest upgrade page, 3 runs")
    ap.add_argument("--rounds", type=int, default=ROUNDS, help=f"build-ratio rounds (default {ROUNDS})")
    args = ap.parse_args()
    write = not args.no_write
    if args.lighthouse_only:
        with tempfile.TemporaryDirectory() as tmp:
            repo = repo_copy(Path(tmp) / "repo")
            timed_build(repo, Path(tmp) / "site")
            write_table(lighthouse_rows(Path(tmp) / "site"), "Lighthouse on the heaviest upgrade page", write)
        return 0
    if args.serve_only or args.ratio_only:
        with tempfile.TemporaryDirectory() as tmp:
            repo = repo_copy(Path(tmp) / "repo")
            if args.ratio_only:
                timed_build(repo, Path(tmp) / "site")      # generates the pages the plain build reads
                write_table(ratio_rows(repo, Path(tmp), args.rounds), "Build time against plain Material", write)
            if args.serve_only:
                write_table(serve_rows(repo), "make serve: edit to refreshed page", write)
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        repo = repo_copy(tmp / "repo")
        clean_generated(repo)
        clean = timed_build(repo, tmp / "site")
        rel = repo / "data" / "releases" / "2.15.yaml"
        rel.write_text(rel.read_text(encoding="utf-8").replace("commits: 3117", "commits: 3118"), encoding="utf-8")
        incremental = timed_build(repo, tmp / "site")
        rel.write_text(rel.read_text(encoding="utf-8").replace("commits: 3118", "commits: 3117"), encoding="utf-8")
        timed_build(repo, tmp / "site")
        stats = site_stats(tmp / "site")
        serve = serve_rows(repo)
        ratio = ratio_rows(repo, tmp, args.rounds)
        figures = browser_figures(tmp / "site")
        lh = {} if args.no_lighthouse else lighthouse(tmp / "site", ("home", "release", "change"))
        lh_heaviest = [] if args.no_lighthouse else lighthouse_rows(tmp / "site")

        big = repo_copy(tmp / "big")
        n_changes = multiply_changes(big, 10)
        clean_generated(big)
        big_time = timed_build(big, tmp / "big-site")
        big_stats = site_stats(tmp / "big-site")
        base_changes = sum(len(yaml.safe_load(p.read_text(encoding="utf-8")).get("changes") or [])
                           for p in (repo / "data" / "releases").glob("*.yaml"))

    rows.append(("Clean build (4 languages, strict, with search index)", f"{clean:.1f} s"))
    rows.append(("Rebuild after changing one fact", f"{incremental:.1f} s"))
    rows += serve + ratio
    rows.append(("HTML pages / total site size", f"{stats['pages']} / {stats['bytes'] / 1e6:.1f} MB"))
    for name, size in figures["weight"].items():
        rows.append((f"Page weight, {name} (HTML+CSS+JS, uncompressed; en / zh)",
                     f"{size / 1024:.0f} KB / {figures['weight_zh'][name] / 1024:.0f} KB"))
    for lang in QUERIES:
        raw = stats["search_index"][lang]
        rows.append((f"Search data downloaded for {len(QUERIES[lang]) * 4} queries, {lang} (one index file, gzip; uncompressed)",
                     f"{figures['search_bytes'][lang] / 1024:.0f} KB ({raw / 1024:.0f} KB)"))
    rows.append(("Search engine search.js, loaded once (gzip; uncompressed)",
                 f"{max(figures['engine_bytes'].values()) / 1024:.1f} KB ({stats['search_engine'] / 1024:.1f} KB)"))
    for lang in QUERIES:
        rows.append((f"Keystroke to results rendered (median, warm index), {lang}", f"{figures['search_ms'][lang]:.0f} ms"))
    for name, sc in lh.items():
        rows.append((f"Lighthouse mobile, {name} (perf / a11y / best practices / SEO)",
                     " / ".join(f"{sc[k]:.2f}" for k in CATEGORIES) if "error" not in sc else "failed: " + sc["error"][:80]))
    rows += lh_heaviest
    rows.append((f"10x synthetic data: {n_changes} changes instead of {base_changes}, clean build", f"{big_time:.1f} s"))
    rows.append(("10x synthetic data: pages / site size", f"{big_stats['pages']} / {big_stats['bytes'] / 1e6:.1f} MB"))
    rows.append(("10x synthetic data: one change page", f"{big_stats['change_page'] / 1024:.0f} KB (real data: {stats['change_page'] / 1024:.0f} KB)"))
    write_table(rows, "The site", write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
