"""The build matrix (data/builds.yaml, issue 40): the schema refuses bad rows, pages show the data.

Facts the data is checked against, each from a cited source:
- 2.7's CUDA 12.8 build brings Blackwell (sm_120): PyTorch 2.7 release blog, "compatibility with
  Blackwell GPUs"; 2.6 has no CUDA 12.8 build and its builds stop at Hopper (RELEASE.md 2.6 row
  "CUDA 11.8, CUDA 12.4 (CUDNN 9.1.0.70)" and the 2.6 wheel's arch list, sm_50..sm_90).
- 2.11 removed Volta (sm_70) from its CUDA 12.8 and 12.9 builds and kept it in 12.6: v2.11.0
  notes, "Volta (SM 7.0) GPU support removed from CUDA 12.8 and 12.9 binary builds"; RELEASE.md
  (PR #175253) "| 12.6.3 | Maxwell(5.0), Pascal(6.0), Volta(7.0) ...".
"""
from __future__ import annotations

import copy
import re

import pytest

from atlas.builds import check
from atlas.enrich import enrich
from atlas.load import load
from atlas.problems import Problems
from atlas.render import Renderer
from atlas.validate import validate


@pytest.fixture(scope="module")
def atlas():
    return enrich(validate(load(), judge_proofs=False))


@pytest.fixture(scope="module")
def raw_builds():
    return load().builds


def _problems(data, source_ids=frozenset()):
    p = Problems()
    check("data/builds.yaml", data, set(source_ids), p)
    return [str(x) for x in p]


def test_the_data_is_clean(raw_builds):
    assert _problems(raw_builds[1], {"gh-notes-28", "gh-notes-211", "zh-arex-215", "ru-news-214"}) == []


def test_a_row_without_a_source_is_refused(raw_builds):
    data = copy.deepcopy(raw_builds[1])
    row = data["releases"][8]["builds"][1]          # 2.8 cu126
    row["sources"] = [s for s in row["sources"] if "archs" not in s["fields"]]
    problems = _problems(data, {"gh-notes-28", "gh-notes-211", "zh-arex-215", "ru-news-214"})
    assert problems == ["data/builds.yaml: 2.8/cu126: sources (archs): no source for `archs`: cite one with "
                        "`fields: [archs]`, or give `inferred: {archs: <how>}`"]


def test_an_unknown_build_name_is_refused(raw_builds):
    data = copy.deepcopy(raw_builds[1])
    data["releases"][8]["builds"][1]["build"] = "cuda12.6"
    problems = _problems(data, {"gh-notes-28", "gh-notes-211", "zh-arex-215", "ru-news-214"})
    assert any(p.startswith("data/builds.yaml: 2.8/cuda12.6: build: unknown build name") for p in problems), problems


def test_an_unknown_source_is_refused(raw_builds):
    data = copy.deepcopy(raw_builds[1])
    data["releases"][0]["builds"][1]["sources"][0]["source"] = "no-such-source"
    problems = _problems(data, {"gh-notes-28", "gh-notes-211", "zh-arex-215", "ru-news-214"})
    assert any("2.0/cu117: sources.0.source: unknown source 'no-such-source'" in p for p in problems), problems


def _row(atlas, version, build):
    return next(b for b in atlas.builds[version] if b.build == build)


def test_sm120_in_27_cu128_and_in_no_26_row(atlas):
    assert "sm_120" in _row(atlas, "2.7", "cu128").archs
    assert all("sm_120" not in (b.archs or []) for b in atlas.builds["2.6"])


def test_volta_leaves_211_cu128_and_stays_in_cu126(atlas):
    assert "sm_70" not in _row(atlas, "2.11", "cu128").archs
    assert "sm_70" in _row(atlas, "2.11", "cu126").archs
    assert "cu129" not in {b.build for b in atlas.builds["2.11"]}   # RELEASE.md's 2.11 row has 12.6, 12.8, 13.0
    assert "sm_70" not in _row(atlas, "2.8", "cu129").archs or "sm_70" in _row(atlas, "2.8", "cu129").archs_script


def test_the_default_build_is_the_wheels_pin_and_its_archs_are_the_wheels(atlas):
    lock = atlas.lock["wheels"]
    for version, rows in atlas.builds.items():
        defaults = [b for b in rows if b.default]
        assert len(defaults) == 1, version
        wheel = next(w for v, w in lock.items() if v.rsplit(".", 1)[0] == version)
        assert defaults[0].archs == wheel["cuda_archs"]
        assert defaults[0].pip == f"pip install torch=={version}.*"


def _page(atlas, version, lang="en"):
    pages = Renderer(atlas, lang, only={f"{lang}/releases/{version}.md"}).pages()
    return pages[f"{lang}/releases/{version}.md"]


def _table_rows(md):
    sec = md.split("{ #builds }", 1)[1].split("</div>", 1)[0]
    return [line for line in sec.splitlines() if line.startswith("| <code>")]


@pytest.mark.parametrize("version", ["2.0", "2.8", "2.15"])
def test_the_rendered_table_has_the_datas_rows(atlas, version):
    rows = _table_rows(_page(atlas, version))
    assert [re.search(r"<code>([^<]+)</code>", r).group(1) for r in rows] == [b.build for b in atlas.builds[version]]


def test_a_script_wheel_disagreement_is_shown_and_data_text_is_escaped(atlas):
    row = _row(atlas, "2.8", "cu128")
    saved = (row.archs_script, row.disagree, row.pip)
    try:
        row.archs_script = ["sm_75", "sm_80|x<script>"]
        row.disagree = True
        row.pip = "pip install torch==2.8.0 | <script>"   # hostile text in a value
        md = _page(atlas, "2.8")
    finally:
        row.archs_script, row.disagree, row.pip = saved
    line = next(r for r in _table_rows(md) if "<code>cu128</code>" in r)
    assert "The build script lists" in line and "sm&#95;70" in line
    assert "<script>" not in md
    assert line.count(" | ") == 4       # five cells: a | in a value did not open another


def test_upgrade_names_the_generations_that_lose_a_build(atlas):
    up = next(u for u in atlas.upgrades if u.old.version == "2.7" and u.new.version == "2.8")
    pascal = [e for e in up.builds_ended if e.family == "Pascal"]
    assert pascal and pascal[0].use == ["cu126"] and pascal[0].kind == "default"
    assert any(e.kind == "build" and e.build == "cu118" for e in up.builds_ended)
