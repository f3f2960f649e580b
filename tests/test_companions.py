"""The packages built against torch (issue 41): the lock `atlas companions` wrote, the pairing
enrich derives from it, the support windows, and the pages that show them. Nothing here reads
the network; every test reads the committed data/companions.lock.yaml."""
from __future__ import annotations

import copy
import datetime as dt

import pytest
import yaml

from atlas.companions import pairing
from atlas.enrich import enrich
from atlas.load import DATA, load
from atlas.problems import DataError
from atlas.render import render_all
from atlas.schema import CompanionLock
from atlas.validate import validate


@pytest.fixture(scope="module")
def raw():
    return load()


@pytest.fixture(scope="module")
def atlas(raw):
    return enrich(validate(raw, judge_proofs=False))


@pytest.fixture(scope="module")
def pages(atlas):
    return render_all(atlas, langs=("en",))


def _row(atlas, package, version):
    return next(r for r in atlas.companion_rows if r.package == package and r.version == version)


def test_lock_parses_and_every_row_cites_its_artifact(raw, atlas):
    lock = CompanionLock.model_validate(raw.companions_lock[1])
    assert {"torch", "torchvision", "torchaudio", "torchcodec", "xformers", "vllm", "triton", "torchao",
            "flash-attn", "bitsandbytes", "deepspeed", "lightning", "transformers"} <= set(lock.packages)
    files = {(r.metadata or {}).get("file") for p in lock.packages.values() for r in p["releases"].values()}
    assert atlas.companion_rows
    for row in atlas.companion_rows:
        if row.basis == "none":
            assert row.torch is None, row
            continue
        assert row.cite, row
        if row.basis in ("metadata", "code"):
            assert row.cite.split(":", 1)[0] in files, row      # the wheel whose METADATA was read
        if row.basis in ("readme", "build", "corrected"):
            assert row.url, row


def test_torchvision_0_16_2_pairs_with_torch_2_1_2(atlas):
    """Relies on the lock's line `torchvision-0.16.2-cp311-cp311-manylinux1_x86_64.whl: Requires-Dist:
    torch (==2.1.2)` (torchvision's METADATA)."""
    row = _row(atlas, "torchvision", "0.16.2")
    assert row.basis == "metadata" and "torch (==2.1.2)" in row.cite
    assert pairing.admits(row.torch, "2.1.2") and not pairing.admits(row.torch, "2.1.1")
    assert row in atlas.companion_matrix["torchvision"]["2.1"]
    assert row not in atlas.companion_matrix["torchvision"].get("2.2", [])


def test_torchvision_0_24_pairs_with_torch_2_9(atlas):
    """Relies on the lock's lines `torchvision-0.24.0-...: Requires-Dist: torch==2.9.0` and
    `torchvision-0.24.1-...: Requires-Dist: torch==2.9.1` (torchvision's METADATA)."""
    pins = {v: _row(atlas, "torchvision", v) for v in ("0.24.0", "0.24.1")}
    assert pairing.admits(pins["0.24.0"].torch, "2.9.0") and pairing.admits(pins["0.24.1"].torch, "2.9.1")
    newest = atlas.companion_matrix["torchvision"]["2.9"][-1]
    assert newest.version == "0.24.1"
    assert all(r.minors == ["2.9"] for r in pins.values())


def test_vllm_has_no_release_for_2_15(atlas, pages):
    """vllm pins torch exactly; its newest release in the lock pins 2.14.0."""
    assert atlas.companion_matrix["vllm"].get("2.15", []) == []
    assert atlas.companion_matrix["vllm"]["2.14"]
    page = pages["en/upgrade/2.14-to-2.15.md"]
    row = page[page.index("<code>vllm</code>"):].split("</tr>", 1)[0]
    assert "no release yet" in row


def _cell(page, package, torch):
    row = page[page.index(f'<tr data-package="{package}" data-torch="{torch}">'):].split("</tr>", 1)[0]
    return row


def test_a_package_that_declares_no_torch_is_not_a_package_with_no_release(atlas, pages):
    """transformers declares torch only behind extras (``torch>=2.6; extra == "torch"``) and deepspeed's
    newest releases not at all: neither is "no release yet" at any torch release, which is for a
    package whose releases all declare a range and none admits it (vllm at 2.15). The page says the
    package declares no torch version and shows the signal the atlas has, with its cite."""
    comp = pages["en/companions/index.md"]
    for p in atlas.history:
        for pkg in ("transformers", "deepspeed"):
            cell = atlas.companion_cells[(pkg, p.version)]
            assert cell.state == "undeclared" and not cell.rows, (pkg, p.version)
            row = _cell(comp, pkg, p.version)
            assert "no release yet" not in row and "declares no torch version" in row, row
    row = _cell(comp, "transformers", "2.15")
    assert "only an extra asks for torch" in row and "extra &#61;&#61; &quot;torch&quot;" in row
    assert _cell(comp, "flash-attn", "2.15").count("built at install") == 1
    assert "no release yet" in _cell(comp, "vllm", "2.15")      # a pinning package with no release for 2.15
    rel = pages["en/releases/2.15.md"]
    sec = rel[rel.index("{ #companions }"):]
    tr = sec[sec.index("<code>transformers</code>"):].split("</tr>", 1)[0]
    assert "no release yet" not in tr and "declares no torch version" in tr


def test_an_undeclared_release_counts_only_in_its_torch_minors_window():
    """The releases a cell names are those current in the minor's support window: uploaded in it, or
    the newest before it opened; an old undeclared release does not make a later minor 'undeclared'."""
    w = {"9.0": pairing.Window("9.0", dt.date(2026, 1, 1), "9.0.0", dt.date(2026, 1, 1), dt.date(2026, 3, 1), True),
         "9.1": pairing.Window("9.1", dt.date(2026, 3, 1), "9.1.0", dt.date(2026, 3, 1), None, False)}
    old = pairing.Row("p", "1.0", "2025-06-01", None, "none", "")
    pinned = pairing.Row("p", "2.0", "2026-01-05", "==9.0.0", "metadata", "x", minors=["9.0"])
    cells = pairing.cells([old, pinned], ["p"], {"p": {"9.0": [pinned]}}, w)
    assert cells[("p", "9.0")].state == "versions"
    assert cells[("p", "9.1")].state == "none"          # 2.0 pins 9.0 and is the newest before 9.1
    late = pairing.Row("p", "3.0", "2026-04-01", None, "none", "")
    cells = pairing.cells([old, pinned, late], ["p"], {"p": {"9.0": [pinned]}}, w)
    assert cells[("p", "9.1")].state == "undeclared" and cells[("p", "9.1")].undeclared == [late]


def test_declared_none_is_corrected_with_its_source(atlas):
    """torchaudio 2.11.0 declares no torch; data/companions.yaml corrects it, citing the lock."""
    row = _row(atlas, "torchaudio", "2.11.0")
    assert row.declared == [] and row.basis == "corrected" and row.torch == ">=2.11"
    assert "abi3" in row.cite
    codec = _row(atlas, "torchcodec", "0.8.1")
    assert codec.declared == [] and codec.basis == "readme" and codec.minors == ["2.9"]
    ao = _row(atlas, "torchao", "0.18.0")
    assert ao.basis == "code" and "min_torch_version" in ao.cite and ao.torch == ">=2.11.0"


def test_a_range_the_proofs_contradict_is_corrected_from_the_proof_lock(raw, atlas):
    """torchaudio 2.11.1 declares torch>=2.11, but `atlas prove` could not load it beside torch 2.11.0 or
    2.12.1 (it loads beside 2.13.0-2.15.0): the correction cites that proof lock, whose recorded error
    must occur in its quote; a quote that no outcome there records is an error naming the field."""
    row = _row(atlas, "torchaudio", "2.11.1")
    assert row.declared == ["torch>=2.11"] and row.basis == "corrected" and row.torch == ">=2.13"
    assert "libtorchaudio.so" in row.cite and row.url == "data/evidence/proofs-2.11.0.json"
    assert pairing.admits(row.torch, "2.13.0") and not pairing.admits(row.torch, "2.12.1")
    bad = copy.deepcopy(raw)
    facts = copy.deepcopy(raw.companions[1])
    i = next(i for i, c in enumerate(facts["corrections"]) if c["version"] == "2.11.1")
    facts["corrections"][i]["quote"] = "torch 2.11.0 + torchaudio==2.11.1: it does not load"
    bad.companions = (raw.companions[0], facts)
    with pytest.raises(DataError) as exc:
        validate(bad, judge_proofs=False)
    assert any(f"corrections.{i}.quote" in p and "proofs-2.11.0.json" in p for p in exc.value.problems)


def test_a_correction_that_no_longer_matches_the_lock_is_an_error(raw):
    bad = copy.deepcopy(raw)
    facts = copy.deepcopy(raw.companions[1])
    facts["corrections"][0]["declared"] = ["torch==2.11.0"]
    bad.companions = (raw.companions[0], facts)
    with pytest.raises(DataError) as exc:
        validate(bad, judge_proofs=False)
    assert any("corrections.0.declared" in p and "torchaudio 2.11.0" in p for p in exc.value.problems)


def test_support_window_is_derived_from_the_next_minor_not_stored(raw, atlas):
    torch = raw.companions_lock[1]["packages"]["torch"]["releases"]
    w = atlas.support["2.14"]
    assert w.releaseDate == dt.date.fromisoformat(torch["2.14.0"]["uploaded"])
    assert w.latest == "2.14.1" and w.latestReleaseDate == dt.date.fromisoformat(torch["2.14.1"]["uploaded"])
    assert w.eolFrom == dt.date.fromisoformat(torch["2.15.0"]["uploaded"])
    assert atlas.support["2.15"].eolFrom is None and not atlas.support["2.15"].isEol
    # move 2.15.0's date: the window of 2.14 moves with it, so nothing stores it
    moved = copy.deepcopy(torch)
    moved["2.15.0"]["uploaded"] = "2027-01-05"
    again = {w.cycle: w for w in pairing.support(moved, list(atlas.support), dt.date(2026, 12, 7))}
    assert again["2.14"].eolFrom == dt.date(2027, 1, 5) and not again["2.14"].isEol
    text = (DATA / "companions.yaml").read_text(encoding="utf-8") + (DATA / "companions.lock.yaml").read_text(encoding="utf-8")
    for name in ("eolFrom", "isEol", "latestReleaseDate"):
        assert name not in text
    assert pairing.late_patches(list(atlas.support.values())) == []


def test_pages_show_what_the_data_says(atlas, pages):
    rel = pages["en/releases/2.1.md"]
    i = rel.index("{ #companions }")
    assert "<code>0.16.2</code>" in rel[i:] and "<code>2.1.2</code>" in rel[i:]
    up = pages["en/upgrade/2.1-to-2.9.md"]
    assert "<code>torchvision==0.24.1</code>" in up and "<code>torchaudio==2.9.1</code>" in up
    releases = pages["en/releases/index.md"]
    w = atlas.support["2.14"]
    row = releases[releases.index('<tr data-cycle="2.14">'):].split("</tr>", 1)[0]
    assert w.latest in row and str(w.eolFrom.year) in row and ">no<" in row
    assert "pkg:pypi/torch" in releases
    comp = pages["en/companions/index.md"]
    shown = sum(1 for p in atlas.history for _ in atlas.companion_packages)
    assert comp.count("<tr data-package=") == shown
    assert 'data-atlas-filter="companions"' in comp and 'name="torch"' in comp


def test_a_hostile_quote_stays_text(raw):
    facts = copy.deepcopy(raw.companions[1])
    facts["corrections"][0]["quote"] = "<script>alert(1)</script>"
    raw2 = copy.deepcopy(raw)
    raw2.companions = (raw.companions[0], facts)
    a = enrich(validate(raw2, judge_proofs=False))
    page = render_all(a, langs=("en",))["en/companions/index.md"]
    assert "<script>alert" not in page and "&lt;script&gt;" in page


def test_a_mismatch_error_is_listed_found_and_checked_against_its_quote(raw, atlas, pages):
    """Issue 41: each error a package built for another torch prints is on the companions page at its
    anchor and is a search document whose error matcher holds it; a message its quote does not hold,
    or a hostile one, is an error naming the file, the id and the field, or stays text."""
    from atlas import search_index as si

    errors = raw.companions[1]["errors"]
    assert {e["package"] for e in errors} >= {"torchvision", "torchaudio", "xformers", "flash-attn"}
    comp = pages["en/companions/index.md"]
    for e in errors:
        assert f'id="{e["id"]}"' in comp
    idx = si.build(atlas)["en"]
    urls = [d[0] for d in idx["docs"]]
    for e in errors:
        i = urls.index(f"companions/#{e['id']}")
        assert any(doc == i for _toks, _lits, doc in idx["errors"]), e["id"]
    bad = copy.deepcopy(raw)
    facts = copy.deepcopy(raw.companions[1])
    facts["errors"][0]["message"] = "RuntimeError: operator torchvision::roi_align does not exist"
    bad.companions = (raw.companions[0], facts)
    with pytest.raises(DataError) as exc:
        validate(bad, judge_proofs=False)
    assert any("companions.yaml" in p and "torchvision-nms" in p and "errors.0.message" in p for p in exc.value.problems), exc.value.problems
    facts = copy.deepcopy(raw.companions[1])
    facts["errors"][0]["message"] = facts["errors"][0]["quote"] = "<script>x</script> | `tick`"
    hostile = copy.deepcopy(raw)
    hostile.companions = (raw.companions[0], facts)
    page = render_all(enrich(validate(hostile, judge_proofs=False)), langs=("en",))["en/companions/index.md"]
    assert "<script>x" not in page and "&lt;script&gt;x&lt;/script&gt; &#124; &#96;tick&#96;" in page


def test_lock_yaml_is_the_writers_shape():
    text = (DATA / "companions.lock.yaml").read_text(encoding="utf-8")
    assert text.startswith("# Written by `atlas companions`")
    assert yaml.safe_load(text)["read"]["metadata_files"] > 0
