"""The search index (scripts/atlas/search_index.py) and its data (data/search/, search_data.py).

Browser behaviour of the search box is in tests/test_browser.py; quality on the held-out
query set in tests/test_search_quality.py.
"""
from __future__ import annotations

import gzip
import json
import shutil

import pytest
import yaml

from atlas import search_index as si
from atlas.langs import LANGS
from atlas.load import dump, load
from atlas.problems import DataError
from atlas.render import Renderer
from atlas.validate import validate
from conftest import FIXTURES


@pytest.fixture(scope="module")
def index(atlas):
    return si.build(atlas)


def doc_terms(idx: dict, url: str) -> set[str]:
    """Every term whose postings include the document at ``url``."""
    i = next(n for n, d in enumerate(idx["docs"]) if d[0] == url)
    return {t for t, post in idx["terms"].items() if i in post[0::2]}


def doc_of(idx: dict, i: int) -> str:
    return idx["docs"][i][0]


# ------------------------------------------------------------------ error normaliser
@pytest.mark.parametrize("line,tokens", [
    ("torch.distributed.checkpoint.api.CheckpointException: too many values to unpack (expected 5)",
     ["checkpointexception", "too", "many", "values", "to", "unpack", "expected", "#"]),
    ("RuntimeError: Expected tensor on cuda:1 but found tensor on cuda:0",
     ["runtimeerror", "expected", "tensor", "on", "cuda", "#", "but", "found", "tensor", "on", "cuda", "#"]),
    ('  File "/usr/lib/python3.11/site-packages/torch/serialization.py", line 1024, in load', []),
    ("Tried to allocate 20.00 MiB; 1.5GiB free", ["tried", "to", "allocate", "#", "#", "free"]),
    ("AttributeError: module 'torch' has no attribute 'qr'", ["attributeerror", "module", "#q", "has", "no", "attribute", "#q"]),
    ("open /home/me/data/x.pt failed", ["open", "#", "failed"]),
    ("AttributeError: pipeline_per_direction_p2p on sm_75", ["attributeerror", "pipeline_per_direction_p2p", "on", "sm_75"]),
])
def test_normaliser_replaces_what_varies_between_pastes(line, tokens):
    assert si.normalise_error(line)[0] == tokens


def test_normaliser_keeps_quoted_names_and_numbers_as_literals():
    assert si.normalise_error("module 'torch' has no attribute `qr`, expected 5")[1] == ["torch", "qr", "5"]


def test_template_placeholders_match_any_value():
    template, _ = si.normalise_error("Expected tensor on cuda:X but found tensor on cuda:Y", template=True)
    assert "x" not in template and template.count("#") == 2
    score, cover = si.match_error("RuntimeError: Expected tensor on cuda:3 but found tensor on cuda:7", template)
    assert cover == 1 and score > 1
    # without template=True an X is a word, so the same line would not match the data
    plain, _ = si.normalise_error("Expected tensor on cuda:X but found tensor on cuda:Y")
    assert "x" in plain


def test_a_quoted_name_decides_between_messages_of_the_same_shape():
    qr = si.normalise_error("AttributeError: module 'torch' has no attribute 'qr'", template=True)
    chol = si.normalise_error("AttributeError: module 'torch' has no attribute 'cholesky'", template=True)
    line = "AttributeError: module 'torch' has no attribute 'qr'. Did you mean: 'dr'?"
    assert si.match_error(line, *qr)[0] > si.match_error(line, *chol)[0] > 0


def test_a_message_quoting_another_name_is_another_error():
    split = si.normalise_error("AttributeError: object has no attribute 'comm_split_count'", template=True)
    assert si.match_error("AttributeError: 'ProcessGroupNCCL' object has no attribute 'comm_split_count'", *split)[0] > 0
    assert si.match_error("AttributeError: module 'torch' has no attribute 'qr'", *split)[0] == 0


def test_a_word_of_the_message_matches_a_quoted_name_in_the_paste():
    short = si.normalise_error("AttributeError: pipeline_per_direction_p2p", template=True)
    other = si.normalise_error("AttributeError: object has no attribute 'comm_split_count'", template=True)
    line = "AttributeError: 'ConfigModule' object has no attribute 'pipeline_per_direction_p2p'"
    assert si.match_error(line, *short)[0] > si.match_error(line, *other)[0]


def test_a_fragment_of_a_long_message_matches_but_unrelated_words_do_not():
    long = si.normalise_error("ImportError: `torch` can only be initialized once per process, so this module "
                              "cannot be imported again", template=True)
    assert si.match_error("torch can only be initialized once per process", *long)[0] > 0
    assert si.match_error("once per process", *long)[0] > 0          # three words, all in order
    assert si.match_error("process once per", *long)[0] == 0         # not in order
    assert si.match_error("cannot import torch", *long)[0] == 0


# ------------------------------------------------------------------ identifiers and tokens
def test_identifier_keys_are_the_name_and_its_trailing_parts():
    assert si.ident_keys("ProcessGroupNCCL.Options.lazy_init") == [
        "processgroupnccl.options.lazy_init", "options.lazy_init", "lazy_init"]
    assert si.ident_keys("TORCH_DIST_USE_NCCL2=0") == ["torch_dist_use_nccl2=0", "torch_dist_use_nccl2"]
    assert "qr" not in si.ident_keys("torch.linalg.qr")           # too short to stand alone


def test_identifiers_are_found_in_text_and_code():
    found = si.identifiers('opts = dist.ProcessGroupNCCL.Options(); export TORCH_DIST_USE_NCCL2=0; acc_policy="balanced"')
    assert {"dist.processgroupnccl.options", "torch_dist_use_nccl2=0", 'acc_policy="balanced'} <= set(found)


def test_tokens_keep_compounds_and_cut_chinese_into_bigrams():
    assert si.tokens("torch.linalg.qr") == ["torch.linalg.qr", "torch", "linalg", "qr"]
    assert si.tokens("显存不足") == ["显存", "存不", "不足"]


@pytest.mark.parametrize("lang", LANGS)
def test_every_error_message_is_in_the_matcher_of_every_language(atlas, index, lang):
    expected = {(m, c.id) for m, _, c in atlas.errors}
    got = {(tuple(e[0]), doc_of(index[lang], e[2])) for e in index[lang]["errors"]}
    for message, cid in expected:
        toks = tuple(si.normalise_error(message, template=True)[0])
        assert (toks, f"changes/{cid}/") in got, (lang, message)


def test_identifier_map_finds_a_dotted_name_by_its_tail(atlas, index):
    # the change whose values name ProcessGroupNCCL.Options.lazy_init
    owner = next(f"changes/{c.id}/" for r in atlas.releases for c in r.changes
                 if "ProcessGroupNCCL.Options.lazy_init" in map(str, c.values.values()))
    for lang in LANGS:
        for key in ("processgroupnccl.options.lazy_init", "options.lazy_init", "lazy_init"):
            assert {doc_of(index[lang], i) for i in index[lang]["ids"][key]} == {owner}, (lang, key)


# ------------------------------------------------------------------ coverage
@pytest.mark.parametrize("lang", LANGS)
def test_the_webinar_is_a_document_with_date_time_and_speakers(atlas, index, lang):
    event = next(e for r in atlas.releases for e in r.events)
    url = f"releases/2.15/#{event.id}"
    terms = doc_terms(index[lang], url)
    assert event.start.date().isoformat() in terms
    assert event.start.strftime("%H:%M") in terms
    for p in event.speakers:
        assert set(si.tokens(p.name)) <= terms, p.name


@pytest.mark.parametrize("lang", LANGS)
def test_release_counts_dates_and_matrix_values_are_indexed(atlas, index, lang):
    for rel in atlas.releases:
        terms = doc_terms(index[lang], f"releases/{rel.version}/")
        for n in (rel.commits, rel.contributors):
            if n is not None:
                assert str(n) in terms, (rel.version, n)
        if rel.released:
            assert rel.released.isoformat() in terms
        for key in ("nvidia_min_driver", "python_min", "python_max", "cuda_default_wheel", "rocm_wheels", "macos_min_mps"):
            cell = getattr(rel.matrix, key)
            if cell is None:
                continue
            for v in cell.value if isinstance(cell.value, list) else [cell.value]:
                assert si.tokens(str(v))[0] in terms, (rel.version, key, v)


@pytest.mark.parametrize("lang", LANGS)
def test_every_faq_entry_is_a_document_at_its_anchor(atlas, index, lang):
    renderer = Renderer(atlas, lang)
    urls = {d[0] for d in index[lang]["docs"]}
    for rel in atlas.releases:
        for q in rel.faq:
            url = f"faq/{rel.version}/#{q.id}"
            assert url in urls
            answer = si.tokens(renderer.fact_plain(f"{q.id}.answer"))     # as the page shows it
            words = [t for t in answer if t.isalpha() and len(t) > 3][:5]
            assert words and set(words) <= doc_terms(index[lang], url), (url, words)


def test_faq_anchors_exist_on_the_built_pages(index, built_site):
    for d in index["en"]["docs"]:
        if d[3] in ("faq", "event"):
            page, anchor = d[0].split("#")
            html = (built_site / page / "index.html").read_text(encoding="utf-8")
            assert f'id="{anchor}"' in html, d[0]


@pytest.mark.parametrize("lang", LANGS)
def test_every_change_release_faq_and_event_is_a_document(atlas, index, lang):
    urls = [d[0] for d in index[lang]["docs"]]
    assert len(urls) == len(set(urls))
    want = {f"changes/{c.id}/" for r in atlas.releases for c in r.changes}
    want |= {f"releases/{r.version}/" for r in atlas.releases}
    assert want <= set(urls)


# ------------------------------------------------------------------ aliases
def test_aliases_reach_pages_in_their_language_only(index):
    def docs_for(lang, term):
        post = index[lang]["terms"].get(term, [])
        return {doc_of(index[lang], i) for i in post[0::2]}

    assert "changes/215-cuda13-driver-arch/" in docs_for("en", "v100")        # V100 -> Volta
    assert "changes/215-rocm-dropped/" in docs_for("id", "mi50")              # MI50 -> gfx906
    assert "changes/215-dcp-strides/" in docs_for("ru", "контрольная")
    assert "changes/215-dcp-strides/" in docs_for("zh", "检查")
    assert not docs_for("en", "контрольная") and not docs_for("ru", "pemeriksaan")


def test_aliases_are_hidden_text_not_page_text(built_site):
    html = (built_site / "changes" / "215-cuda13-driver-arch" / "index.html").read_text(encoding="utf-8")
    assert "Volta" in html and "V100" not in html


def test_broken_aliases_are_reported_with_file_id_and_field(data_copy):
    shutil.copy(FIXTURES / "search" / "broken_aliases.yaml", data_copy / "search" / "aliases.yaml")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    problems = info.value.problems
    f = "data/search/aliases.yaml"
    for expected in (f"{f}: #0: id: 'Bad_Id' is not a kebab-case id",
                     f"{f}: no-target: targets.0: no change, FAQ entry, event or release '299-no-such-change'",
                     f"{f}: wrong-language: words.fr: not `all` or one of",
                     f"{f}: empty-word: words.all.0: must be a non-empty string",
                     f"{f}: nothing-to-attach: means: give `means`",
                     f"{f}: typo-key: wrods: unknown key"):
        assert any(p.startswith(expected) for p in problems), (expected, problems)
    assert len(problems) == 6, problems


def test_an_alias_that_attaches_to_no_page_stops_the_build(data_copy):
    path = data_copy / "search" / "aliases.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["aliases"].append({"id": "ghost", "means": ["Zorblax9000"], "words": {"all": ["zb"]}})
    path.write_text(dump(data, allow_unicode=True), encoding="utf-8")
    from atlas.enrich import enrich
    with pytest.raises(DataError, match=r"data/search/aliases.yaml: ghost: means: no page contains any of Zorblax9000"):
        si.build(enrich(validate(load(data_copy))))


@pytest.mark.parametrize("bad,message", [
    ({"en": ["how", "How"]}, "data/search/stopwords.yaml: en: list.1: 'How' must be one lower-case word"),
    ({"en": ["how", "how"]}, "data/search/stopwords.yaml: en: list: duplicate stop words how"),
    ({"en": [True]}, "data/search/stopwords.yaml: en: list.0: must be a non-empty string"),
    ({"fr": ["le"]}, "data/search/stopwords.yaml: fr: (list): not a site language"),
])
def test_broken_stop_words_are_reported(data_copy, bad, message):
    path = data_copy / "search" / "stopwords.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.update(bad)
    path.write_text(dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any(p.startswith(message) for p in info.value.problems), info.value.problems


# ------------------------------------------------------------------ the files
def test_index_is_reproducible_and_small(atlas, index):
    again = si.build(atlas)
    for lang in LANGS:
        text = si.dumps(index[lang])
        assert text == si.dumps(again[lang])
        assert json.loads(text)["lang"] == lang
        # the budget for the search data a query downloads: the index, fetched once, as a host sends it
        assert len(gzip.compress(text.encode("utf-8"))) < 150_000, lang


def test_the_built_site_ships_one_index_per_language_and_no_pagefind(built_site, index):
    for lang in LANGS:
        assert (built_site / "search" / f"{lang}.json").read_text(encoding="utf-8") == si.dumps(index[lang])
    assert not (built_site / "pagefind").exists()
