"""Search quality, measured honestly (issue 8, item 7).

The query set tests/search/queries.yaml is split once into `tune` and `heldout`; the engine may
be tuned on `tune` only. The browser tests run the HELD-OUT half in Chromium through
scripts/dev/search_eval.py and fail if top-3 drops below 90% in any language, or if any pasted error
line is not the first result. This is a quality check, not a timed test.

The other tests check the query file itself (size, categories, balanced splits, every expected
target is a real page or anchor of the built site) and the harness's URL matching rules.
"""
from __future__ import annotations

from collections import Counter

import pytest

import search_eval
from atlas.langs import LANGS

pytestmark = pytest.mark.slow

TOP3_MIN = 90.0
#: The issue's minimums for the whole set.
CATEGORY_MIN = {"error": 50, "identifier": 30, "question": 40}


@pytest.fixture(scope="module")
def heldout(browser, served_site):  # `browser` is the session Chromium of conftest.py
    results = search_eval._run_in(browser, served_site, search_eval.load_queries("heldout"), search_eval.TIMEOUT_MS)
    return {**search_eval.summarise(results, "heldout"), "results": results}


def test_heldout_top3_in_every_language(heldout):
    low = {lang: c["top3_pct"] for lang, c in heldout["by_lang"].items() if c["top3_pct"] < TOP3_MIN}
    assert set(heldout["by_lang"]) == set(LANGS)
    assert not low, f"held-out top-3 below {TOP3_MIN}%: {low}\n\n{search_eval.report(heldout)}"


def test_heldout_error_lines_come_first(heldout, factbase):
    """Every held-out pasted error line (categories ``error`` and ``platform``: what GPU owners and
    platform users paste, issue 30) ranks its page first; where the data gives the very same
    message to several changes (the generic "Weights only load failed." of 2.6 and of 2.15), the
    error match cannot choose between them, and the expected page must be among the first two."""
    assert all(heldout["by_category"][c]["n"] > 0 for c in search_eval.PASTED)
    shared = {m for m, n in Counter(e.message for c in factbase.changes() for e in c.errors).items() if n > 1}
    owners = {c.id for c in factbase.changes() for e in c.errors if e.message in shared}
    tied = {r["id"] for r in heldout["results"] if r["category"] in search_eval.PASTED and r["rank"] == 2
            and any(t.strip("/").split("/")[-1] in owners for t in r["expect"])}
    late = [q for q in heldout["errors_not_first"] if q not in tied]
    assert not late, f"pasted error lines not ranked first: {late}\n\n{search_eval.report(heldout)}"
    assert len(tied) <= 1, tied


def test_query_file_is_well_formed():
    queries = search_eval.load_queries("all")
    assert len(queries) >= 200
    ids = [q["id"] for q in queries]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    for q in queries:
        assert set(q) == {"id", "lang", "split", "category", "query", "expect"}, q["id"]
        assert q["lang"] in LANGS and q["split"] in search_eval.SPLITS, q["id"]
        assert q["category"] in search_eval.CATEGORIES, q["id"]
        assert q["query"].strip() and q["expect"], q["id"]
    texts = Counter((q["lang"], " ".join(q["query"].split())) for q in queries)
    assert all(n == 1 for n in texts.values()), [k for k, n in texts.items() if n > 1]
    per_lang = Counter(q["lang"] for q in queries)
    assert all(per_lang[lang] >= 40 for lang in LANGS), per_lang
    per_cat = Counter(q["category"] for q in queries)
    assert all(per_cat[c] >= n for c, n in CATEGORY_MIN.items()), per_cat
    # every category, hardware names and typos included, appears in every language
    missing = [(lang, c) for lang in LANGS for c in search_eval.CATEGORIES
               if not any(q["lang"] == lang and q["category"] == c for q in queries)]
    assert not missing, missing
    # pasted tracebacks are there, not only single lines
    assert sum(1 for q in queries if q["category"] == "error" and "\n" in q["query"].strip()) >= 8


def test_splits_are_balanced_per_language_and_category():
    queries = search_eval.load_queries("all")
    groups = Counter((q["lang"], q["category"], q["split"]) for q in queries)
    for lang in LANGS:
        for c in search_eval.CATEGORIES:
            assert abs(groups[lang, c, "tune"] - groups[lang, c, "heldout"]) <= 1, (lang, c)
        tune = sum(groups[lang, c, "tune"] for c in search_eval.CATEGORIES)
        held = sum(groups[lang, c, "heldout"] for c in search_eval.CATEGORIES)
        assert abs(tune - held) <= 2 and held >= 20, (lang, tune, held)


def test_every_expected_target_is_a_built_page_or_anchor(built_site):
    bad = []
    for q in search_eval.load_queries("all"):
        root = built_site if q["lang"] == LANGS[0] else built_site / q["lang"]
        for target in q["expect"]:
            path, _, anchor = target.partition("#")
            page = root / path / "index.html"
            if not path.endswith("/") or not page.is_file():
                bad.append((q["id"], target, "no such page"))
            elif anchor and f'id="{anchor}"' not in page.read_text(encoding="utf-8"):
                bad.append((q["id"], target, "no such anchor"))
    assert not bad, bad


def test_result_urls_are_normalised_per_language():
    home = "http://127.0.0.1:8000/zh/"
    assert search_eval.normalise("/zh/changes/215-dcp-strides/", "zh", home) == "changes/215-dcp-strides/"
    assert search_eval.normalise("http://127.0.0.1:8000/zh/faq/2.15/#215-faq-free", "zh", home) == "faq/2.15/#215-faq-free"
    assert search_eval.normalise("../zh/releases/2.15/index.html", "zh", home) == "releases/2.15/"
    assert search_eval.normalise("/changes/215-dcp-strides/", "en") == "changes/215-dcp-strides/"
    # a result in another language never looks like a page of this one
    assert search_eval.normalise("/ru/changes/215-dcp-strides/", "en") == "/ru/changes/215-dcp-strides/"
    assert search_eval.normalise("/changes/215-dcp-strides/", "zh", home) == "/changes/215-dcp-strides/"


def test_matching_needs_equal_paths_and_the_targets_anchor():
    m = search_eval.matches
    assert m("releases/2.15/#215-webinar", "releases/2.15/")
    assert m("faq/2.15/#215-faq-free", "faq/2.15/#215-faq-free")
    assert not m("faq/2.15/", "faq/2.15/#215-faq-free")
    assert not m("faq/2.15/#215-faq-python", "faq/2.15/#215-faq-free")
    assert not m("changes/215-dcp-strides-old/", "changes/215-dcp-strides/")
    assert search_eval.rank_of(["a/", "b/", "faq/2.15/#x"], ["faq/2.15/#x", "c/"]) == 3
    assert search_eval.rank_of(["a/"], ["b/"]) is None
