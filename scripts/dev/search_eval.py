"""Measure search quality in a real browser, on the query set of issue 8 (item 7).

In:  tests/search/queries.yaml (queries with their acceptable target URLs and a fixed
     tune/heldout split) and a built site (``--site DIR``, or a fresh build in a temp dir).
Out: top-1 %, top-3 % and the zero-result count per language and per category, and the list
     of failures (query, expected, top 3 got); printed, and as JSON with ``--json OUT``.
     ``evaluate()`` returns the same summary as a dict, for scripts/dev/bench.py.

How a query runs: the site is served on 127.0.0.1 (scripts/dev/static_server.py), Debian Chromium
opens the language's home page (``/`` for en, ``/<lang>/`` otherwise) once per language, and
for each query the harness fills ``#atlas-search-input``, presses End (a real keyup), waits
until ``#atlas-search-results`` is shown with ``data-q`` equal to the text in the box (ignoring
leading and trailing spaces), and reads
the result links ``#atlas-search-results a`` in rank order. No answer within the timeout counts
as zero results (marked ``timeout``), never as a crash.

A multi-line traceback is filled as it is, and Chromium does to it what it does when a user pastes
a traceback into a one-line ``<input>``: every line break becomes a space. So ``data-q`` is
compared with the value the box really holds (``typed`` in the results), not the YAML string.

Scoring: a result matches a target when the paths are equal (relative to the language root)
and, if the target has an ``#anchor``, the anchors are equal too. Results pointing into another
language never match.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import yaml

from atlas.langs import LANGS

ROOT = Path(__file__).resolve().parents[2]

QUERIES = ROOT / "tests" / "search" / "queries.yaml"
SPLITS = ("tune", "heldout")
CATEGORIES = ("error", "identifier", "question", "hardware", "typo", "abbreviation", "concept", "figure", "event", "upgrade", "platform")
TIMEOUT_MS = 8000
#: the categories of pasted error lines, each of which must rank its page first
PASTED = ("error", "platform")


def load_queries(split: str = "all", path: Path = QUERIES) -> list[dict]:
    """The queries of one split (``tune``, ``heldout``) or ``all``, in file order."""
    queries = yaml.safe_load(path.read_text(encoding="utf-8"))["queries"]
    if split not in (*SPLITS, "all"):
        raise ValueError(f"unknown split {split!r}: use tune, heldout or all")
    return [q for q in queries if split == "all" or q["split"] == split]


def lang_root(lang: str) -> str:
    """The URL path of a language's home page."""
    return "/" if lang == LANGS[0] else f"/{lang}/"


def normalise(href: str, lang: str, base: str = "http://127.0.0.1/") -> str:
    """A result href as a URL relative to the language root, keeping its #anchor.

    ``/zh/changes/x/`` searched from zh gives ``changes/x/``; a link into another language keeps
    its leading slash (``/ru/changes/x/``), so it can never equal a target.
    """
    parts = urlsplit(urljoin(base, href))
    path = parts.path
    if path.endswith("/index.html"):
        path = path[: -len("index.html")]
    root = lang_root(lang)
    others = tuple(f"/{other}/" for other in LANGS if other != LANGS[0] and other != lang)
    if path.startswith(others) or not path.startswith(root):
        rel = path
    else:
        rel = path[len(root):]
    return rel + (f"#{parts.fragment}" if parts.fragment else "")


def matches(result: str, target: str) -> bool:
    """Equal paths, and equal anchors when the target names one."""
    r_path, _, r_anchor = result.partition("#")
    t_path, has_anchor, t_anchor = target.partition("#")
    return r_path == t_path and (not has_anchor or r_anchor == t_anchor)


def rank_of(results: list[str], expect: list[str]) -> int | None:
    """1-based rank of the first result matching any target, or None."""
    for i, res in enumerate(results, 1):
        if any(matches(res, t) for t in expect):
            return i
    return None


def _results(page, query: str, timeout_ms: int) -> tuple[list[str], str, bool]:
    """Type one query into the open page; return (hrefs in rank order, text in the box, timed out)."""
    box = page.locator("#atlas-search-input")
    box.click()
    box.fill(query)
    box.press("End")  # a real keyup, as a typing user produces
    typed = box.input_value()
    try:
        page.wait_for_function(
            "q => { const r = document.getElementById('atlas-search-results');"
            " return r && !r.hidden && (r.dataset.q || '').trim() === q.trim(); }",
            arg=typed, timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - Playwright's TimeoutError; a slow or silent engine = zero results
        return [], typed, True
    hrefs = page.eval_on_selector_all("#atlas-search-results a", "els => els.map(e => e.getAttribute('href'))")
    return hrefs, typed, False


def run(page, base_url: str, queries: list[dict], timeout_ms: int = TIMEOUT_MS) -> list[dict]:
    """Run every query in its language's home page; one navigation per language."""
    out = []
    by_lang: dict[str, list[dict]] = defaultdict(list)
    for q in queries:
        by_lang[q["lang"]].append(q)
    for lang in [lang for lang in LANGS if lang in by_lang]:
        home = urljoin(base_url, lang_root(lang))
        page.goto(home)
        for q in by_lang[lang]:
            hrefs, typed, timed_out = _results(page, q["query"], timeout_ms)
            got = [normalise(h, lang, home) for h in hrefs]
            out.append({**q, "typed": typed, "got": got, "timeout": timed_out, "rank": rank_of(got, q["expect"])})
    return out


def _cell(rows: list[dict]) -> dict:
    n = len(rows)
    top1 = sum(1 for r in rows if r["rank"] == 1)
    top3 = sum(1 for r in rows if r["rank"] is not None and r["rank"] <= 3)
    mrr = sum(1 / r["rank"] for r in rows if r["rank"]) / n if n else 0.0
    return {"n": n, "top1": top1, "top3": top3, "mrr": round(mrr, 3), "zero": sum(1 for r in rows if not r["got"]),
            "timeouts": sum(1 for r in rows if r["timeout"]),
            "top1_pct": round(100 * top1 / n, 1) if n else 0.0, "top3_pct": round(100 * top3 / n, 1) if n else 0.0}


def summarise(results: list[dict], split: str = "") -> dict:
    """Figures per language, per category and per (language, category), plus the failures."""
    group = lambda key: {k: _cell([r for r in results if key(r) == k])  # noqa: E731
                         for k in dict.fromkeys(key(r) for r in results)}
    langs = [lang for lang in LANGS if any(r["lang"] == lang for r in results)]
    cats = [c for c in CATEGORIES if any(r["category"] == c for r in results)]
    return {
        "split": split,
        "overall": _cell(results),
        "by_lang": {lang: _cell([r for r in results if r["lang"] == lang]) for lang in langs},
        "by_category": {c: _cell([r for r in results if r["category"] == c]) for c in cats},
        "by_lang_category": group(lambda r: f"{r['lang']}/{r['category']}"),
        "errors_not_first": [r["id"] for r in results if r["category"] in PASTED and r["rank"] != 1],
        "failures": [{"id": r["id"], "lang": r["lang"], "category": r["category"], "query": r["typed"],
                      "expect": r["expect"], "got": r["got"][:3], "rank": r["rank"], "timeout": r["timeout"]}
                     for r in results if r["rank"] != 1],
    }


def chromium():
    """Debian Chromium's path and the flags the browser tests use (one home: scripts/dev/ensure_browser.py)."""
    from ensure_browser import CHROMIUM_ARGS
    from ensure_browser import chromium as find

    return find() or "/usr/bin/chromium", CHROMIUM_ARGS


def evaluate(split: str = "heldout", site: Path | None = None, browser=None, timeout_ms: int = TIMEOUT_MS) -> dict:
    """Serve ``site`` (or build one), run the split in Chromium and return ``summarise()``'s dict,
    with the per-query results under ``results``.

    For scripts/dev/bench.py: ``evaluate("heldout", site)["by_lang"]`` / ``["by_category"]`` hold
    ``n, top1, top3, mrr, zero, top1_pct, top3_pct`` per language / category; ``markdown()`` renders them.
    Pass ``browser`` to reuse an open Playwright browser."""
    import static_server

    queries = load_queries(split)
    with tempfile.TemporaryDirectory(prefix="search-eval-") as tmp:
        if site is None:
            import build

            site = Path(tmp) / "site"
            if build.build(site) != 0:
                raise SystemExit("the site did not build; run `make build` to see why")
        server, url = static_server.serve(site)
        try:
            if browser is not None:
                results = _run_in(browser, url, queries, timeout_ms)
            else:
                from playwright.sync_api import sync_playwright

                path, args = chromium()
                with sync_playwright() as p:
                    b = p.chromium.launch(executable_path=path, args=args)
                    try:
                        results = _run_in(b, url, queries, timeout_ms)
                    finally:
                        b.close()
        finally:
            server.shutdown()
    summary = summarise(results, split)
    summary["results"] = results
    return summary


def _run_in(browser, url: str, queries: list[dict], timeout_ms: int) -> list[dict]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        return run(ctx.new_page(), url, queries, timeout_ms)
    finally:
        ctx.close()


def report(summary: dict) -> str:
    """The summary as plain-text tables and a failure list."""
    lines = [f"split: {summary['split'] or '-'}   queries: {summary['overall']['n']}", ""]

    def table(title: str, cells: dict) -> None:
        lines.append(f"{title:<22} {'n':>4} {'top-1':>7} {'top-3':>7} {'MRR':>6} {'zero':>5}")
        for k, c in cells.items():
            lines.append(f"{k:<22} {c['n']:>4} {c['top1_pct']:>6.1f}% {c['top3_pct']:>6.1f}% {c['mrr']:>6.3f} {c['zero']:>5}")
        lines.append("")

    table("language", {**summary["by_lang"], "all": summary["overall"]})
    table("category", summary["by_category"])
    lines.append(f"error lines not first: {len(summary['errors_not_first'])}")
    lines.append("")
    lines.append(f"failures (not first): {len(summary['failures'])}")
    for f in summary["failures"]:
        rank = "timeout" if f["timeout"] else ("none" if f["rank"] is None else f"rank {f['rank']}")
        q = f["query"] if len(f["query"]) <= 90 else f["query"][:87] + "..."
        lines.append(f"- {f['id']} [{rank}] {q!r}")
        lines.append(f"    expected {', '.join(f['expect'])}")
        lines.append(f"    got      {', '.join(f['got']) or '(nothing)'}")
    return "\n".join(lines)


def markdown(summary: dict) -> str:
    """Markdown tables of the summary: per language, per category, and top-3 per (category, language)."""
    out = []
    for title, cells in (("language", {**summary["by_lang"], "all": summary["overall"]}),
                         ("category", summary["by_category"])):
        out += [f"| {title} | queries | top-1 | top-3 | zero results |", "|---|---:|---:|---:|---:|"]
        out += [f"| {k} | {c['n']} | {c['top1_pct']:.1f}% | {c['top3_pct']:.1f}% | {c['zero']} |" for k, c in cells.items()]
        out.append("")
    langs = list(summary["by_lang"])
    out += ["| top-3 (found/queries) | " + " | ".join(langs) + " |", "|---|" + "---:|" * len(langs)]
    for cat in summary["by_category"]:
        cells = [summary["by_lang_category"].get(f"{lang}/{cat}") for lang in langs]
        out.append(f"| {cat} | " + " | ".join(f"{c['top3']}/{c['n']}" if c else "-" for c in cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=[*SPLITS, "all"], default="heldout")
    ap.add_argument("--site", type=Path, help="a built site directory (default: build into a temp dir)")
    ap.add_argument("--json", type=Path, help="write the summary and per-query results as JSON here")
    ap.add_argument("--markdown", type=Path, help="write the figures as Markdown tables here")
    ap.add_argument("--timeout-ms", type=int, default=TIMEOUT_MS, help="per-query wait for results")
    args = ap.parse_args(argv)
    if args.site is not None and not (args.site / "index.html").exists():
        print(f"{args.site}: not a built site (no index.html); run `make build` first", file=sys.stderr)
        return 2
    summary = evaluate(args.split, args.site, timeout_ms=args.timeout_ms)
    print(report(summary))
    if args.json:
        args.json.write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(markdown(summary), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
