"""data/ledger.yaml, the ledger of the official notes (issue 39, part 5): the schema refuses an
unjudged item, each status needs its field, and the release pages show the counts enrich computes
from the data (never numbers written here)."""
from __future__ import annotations

import html
import re

import pytest
import yaml

from atlas.load import dump, load
from atlas.problems import DataError
from atlas.validate import OFFICIAL_RELEASES, validate

LEDGER = "data/ledger.yaml"


def _edit(data_copy, change) -> list[str]:
    """Apply ``change`` to the first item of 2.7 in a copy of data/ledger.yaml; the problems it gives."""
    path = data_copy / "ledger.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    rel = next(r for r in doc["releases"] if r["release"] == "2.7")
    item = rel["items"][0]
    change(item, rel, doc)
    path.write_text(dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    try:
        validate(load(data_copy))
    except DataError as exc:
        return exc.problems
    return []


def _first_id(data_copy) -> str:
    doc = yaml.safe_load((data_copy / "ledger.yaml").read_text(encoding="utf-8"))
    return next(r for r in doc["releases"] if r["release"] == "2.7")["items"][0]["id"]


def _has(problems: list[str], prefix: str) -> bool:
    return any(p.startswith(prefix) for p in problems)


def test_an_item_without_a_status_is_refused(data_copy):
    iid = _first_id(data_copy)
    problems = _edit(data_copy, lambda it, rel, doc: it.pop("status"))
    assert _has(problems, f"{LEDGER}: {iid}: status: Field required"), problems


def test_an_excluded_item_needs_a_known_reason(data_copy):
    iid = _first_id(data_copy)

    def excluded_without_reason(it, rel, doc):
        for k in ("change", "reason", "kind"):
            it.pop(k, None)
        it["status"] = "excluded"
    problems = _edit(data_copy, excluded_without_reason)
    assert _has(problems, f"{LEDGER}: {iid}: reason: missing: an item with status excluded needs `reason:`"), problems

    def unknown_reason(it, rel, doc):
        excluded_without_reason(it, rel, doc)
        it["reason"] = "boring"
    problems = _edit(data_copy, unknown_reason)
    assert _has(problems, f"{LEDGER}: {iid}: reason: Input should be 'internal'"), problems


def test_a_curated_item_needs_a_change_that_exists(data_copy):
    iid = _first_id(data_copy)

    def curated(target):
        def edit(it, rel, doc):
            for k in ("change", "reason", "kind"):
                it.pop(k, None)
            it["status"] = "curated"
            if target:
                it["change"] = target
        return edit
    problems = _edit(data_copy, curated("27-no-such-change"))
    assert _has(problems, f"{LEDGER}: {iid}: change: no change with id '27-no-such-change'"), problems
    problems = _edit(data_copy, curated(None))
    assert _has(problems, f"{LEDGER}: {iid}: change: missing: an item with status curated needs `change:`"), problems
    assert not _edit(data_copy, curated("27-new-tensor-device"))   # an existing change makes it valid


def test_an_open_item_needs_a_kind_and_carries_no_reason(data_copy):
    iid = _first_id(data_copy)

    def open_with_reason(it, rel, doc):
        for k in ("change", "reason", "kind"):
            it.pop(k, None)
        it.update(status="open", reason="internal")
    problems = _edit(data_copy, open_with_reason)
    assert _has(problems, f"{LEDGER}: {iid}: kind: missing"), problems
    assert _has(problems, f"{LEDGER}: {iid}: reason: an item with status open has no `reason:`"), problems


def test_duplicate_ids_and_releases_outside_the_range_are_named(data_copy):
    iid = _first_id(data_copy)

    def duplicate(it, rel, doc):
        rel["items"].append(dict(it))
    assert _has(_edit(data_copy, duplicate), f"{LEDGER}: {iid}: id: duplicate id"), iid

    def outside(it, rel, doc):
        doc["releases"].append({"release": "2.13", "url": "https://github.com/pytorch/pytorch/releases/tag/v2.13.0",
                                "read": ["bc"], "items": []})
    assert _has(_edit(data_copy, outside), f"{LEDGER}: 2.13: release: 2.13 is outside 2.1-2.12")

    def wrong_prefix(it, rel, doc):
        it["id"] = "2.8-" + it["id"].split("-", 1)[1]
    assert _has(_edit(data_copy, wrong_prefix), f"{LEDGER}: 2.8-"), "an id of another release"


def test_every_release_is_accounted_for(factbase):
    """Each of 2.1-2.12 has an entry; each whose notes could be read has at least one item. The
    sections with no readable copy are named here (whole releases and single sections), so that
    set cannot grow or shrink unnoticed; data/ledger.yaml's header says where each was sought."""
    led = {r.release: r for r in factbase.official.releases}
    assert sorted(led, key=lambda v: int(v.split(".")[1])) == list(OFFICIAL_RELEASES)
    for v, r in led.items():
        assert bool(r.items) == bool(r.read), f"{v}: read {r.read} but {len(r.items)} items"
        for it in r.items:
            assert it.section in r.read or it.section == "other", f"{it.id}: section {it.section} not read"
    assert {v for v, r in led.items() if not r.read} == {"2.1", "2.2"}
    unread = {(v, s) for v, r in led.items() for s in ("bc", "deprecation") if s not in r.read}
    assert unread == {("2.1", "bc"), ("2.1", "deprecation"), ("2.2", "bc"), ("2.2", "deprecation"),
                      ("2.4", "bc")}


def test_the_known_user_facing_items_are_on_the_to_do_list_or_curated(factbase):
    items = {it.id: it for r in factbase.official.releases for it in r.items}
    for iid in ("2.11-172598", "2.12-179072", "2.7-142214", "2.11-169151", "2.8-145000"):
        assert items[iid].status in ("open", "curated"), iid


def _coverage(md: str) -> list[int]:
    """The numbers of a page's coverage line, in order (official, curated, excluded [by reason], open [by kind])."""
    line = re.search(r'<p class="atlas-ledger-coverage">(.*?)</p>', md)
    assert line, "no coverage line"
    text = html.unescape(re.sub(r"<[^>]+>", "", line.group(1)))   # the page escapes every ":" and "+"
    return [int(re.sub(r"\D", "", n)) for n in re.findall(r"\d[\d,\u00a0\u202f]*", text)]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_release_pages_show_the_counts_computed_from_the_data(atlas, real_pages, lang):
    for v in OFFICIAL_RELEASES:
        view = atlas.official[v]
        page = next((md for p, md in real_pages[lang].items() if p.endswith(f"releases/{v}.md")), None)
        assert page is not None, v
        if not view.read:
            assert "atlas-ledger-coverage" not in page and "github.com/pytorch/pytorch/releases/tag/v" + v in page
            continue
        want = [view.official, view.curated, view.excluded]
        want += [n for _, n in view.reasons] + [view.open] + [n for _, n in view.kinds]
        assert _coverage(page) == want, v
        assert len(re.findall(r"^\| <q>", page, flags=re.M)) == view.official, v


def test_a_hostile_title_stays_text(atlas, lang="en"):
    """A title is a quote of the notes: a `|`, a backtick or <script> must not break the table."""
    from atlas.enrich import OfficialRow
    from atlas.render import Renderer
    from atlas.schema import OfficialItem

    hostile = OfficialItem(id="2.7-1", section="bc", title="a | b `c` <script>alert(1)</script> [x](y)",
                           pr=1, status="excluded", reason="internal")
    view = atlas.official["2.7"]
    saved = view.rows
    view.rows = [OfficialRow(hostile)]
    try:
        md = Renderer(atlas, lang, only={f"{lang}/releases/2.7.md"}).pages()[f"{lang}/releases/2.7.md"]
    finally:
        view.rows = saved
    row = next(line for line in md.splitlines() if line.startswith("| <q>"))
    assert "<script>" not in row and "`" not in row and row.count("|") == 5, row
