"""Schema and rules over every data file, and broken fixtures that must fail."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from atlas.load import dump, load
from atlas.problems import DataError
from atlas.validate import validate
from conftest import FIXTURES, ROOT

RELEASE_FILES = sorted((ROOT / "data" / "releases").glob("*.yaml"))
F = "data/releases/9.1.yaml"


def test_real_data_validates(factbase):
    """Every release file parses, oldest first; the ones before the articles are selections (issue 26)."""
    versions = [r.version for r in factbase.releases]
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split(".")))) and len(versions) == len(RELEASE_FILES)
    assert {r.version for r in factbase.releases if not r.selected} == {"2.13", "2.14", "2.15"}
    assert all(r.selected for r in factbase.releases if r.version not in ("2.13", "2.14", "2.15"))


@pytest.mark.parametrize("path", RELEASE_FILES, ids=lambda p: p.name)
def test_each_release_file_parses_alone(path, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    for other in (data / "releases").glob("*.yaml"):
        if other.name != path.name:
            other.unlink()
    # a lone release may reference others through {change-id.x}; only schema errors matter here
    try:
        validate(load(data))
    except DataError as exc:
        schema = [p for p in exc.problems if "placeholder" not in p and "published id" not in p and "redirects: target" not in p and "refs." not in p
                  and "aliases.yaml" not in p and "claims.yaml" not in p and "ledger.yaml" not in p]   # aliases may target pages of the other releases
        assert not schema, "\n".join(schema)


@pytest.mark.parametrize("edit,expected", [
    # a breaking change must say who is affected, what they see and how to fix it
    (("    title: torch.qr is removed\n    summary: The deprecated {old} is gone; use {new}.\n    affected: Code that still calls {old}.\n",
      "    title: torch.qr is removed\n    summary: The deprecated {old} is gone; use {new}.\n"),
     "affected: required for a breaking change"),
    # a removal cannot be declared non-breaking
    (("  - id: 214-remove-qr\n    type: removal\n", "  - id: 214-remove-qr\n    type: removal\n    breaking: false\n"),
     "breaking: a 'removal' change always breaks"),
])
def test_every_breaking_change_must_be_actionable(data_copy, edit, expected):
    rel = data_copy / "releases" / "2.14.yaml"
    text = rel.read_text(encoding="utf-8")
    assert edit[0] in text
    rel.write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any(p.startswith("data/releases/2.14.yaml: 214-remove-qr: ") and expected in p for p in info.value.problems), \
        info.value.problems


def test_every_quoted_error_message_is_cited(factbase):
    """A message marked 'quoted' must overlap one of the change's verbatim locators."""
    for c in factbase.changes():
        for e in c.errors:
            if e.origin == "quoted":
                locators = [s.locator for s in c.sources if len(s.locator) >= 12]
                assert any(loc in e.message or e.message in loc for loc in locators), (c.id, e.message)


def test_counts_match_the_sources(factbase):
    r215, r214 = factbase.release("2.15"), factbase.release("2.14")
    assert (r215.commits, r215.contributors, str(r215.released)) == (3117, 583, "2026-10-28")
    assert (r214.commits, r214.contributors, str(r214.released)) == (2995, 487, "2026-09-02")


def _validate_with(data: Path, fixture: str) -> list[str]:
    shutil.copy(FIXTURES / "broken" / f"{fixture}.yaml", data / "releases" / "9.1.yaml")
    with pytest.raises(DataError) as info:
        validate(load(data))
    return info.value.problems


def test_valid_fixture_is_valid(data_copy):
    shutil.copy(FIXTURES / "valid_release.yaml", data_copy / "releases" / "9.1.yaml")
    fb = validate(load(data_copy))
    assert fb.releases[-1].version == "9.1"


BROKEN = {
    "unknown_key": f"{F}: 91-sample: titel: unknown key",
    "duplicate_id": f"{F}: 91-sample: id: duplicate id",
    "dangling_faq": f"{F}: 91-faq-sample: refs.0: no change with id '91-missing'",
    "bad_date": f"{F}: 9.1: released: Input should be a valid date",
    "bad_version": f"{F}: 91-sample: rollback.removed_in: String should match pattern",
    "rollback_expiry": f"{F}: 91-sample: rollback.removed_in: 9.0 is not after the release 9.1",
    "unknown_source": f"{F}: 91-sample: sources.0.source: unknown source 'nowhere'",
    "typed_number": f"{F}: 91-sample: title: number '3.10' typed into text",
    "bad_placeholder": f"{F}: 91-sample: summary: placeholder {{nope}} names no value",
    "breaking_without_fix": f"{F}: 91-sample: fix: required for a breaking change",
    "wrong_prefix": f"{F}: 92-sample: id: must start with '91-'",
}


@pytest.mark.parametrize("fixture", sorted(BROKEN))
def test_broken_fixture_names_file_fact_and_field(data_copy, fixture):
    problems = _validate_with(data_copy, fixture)
    assert any(p.startswith(BROKEN[fixture]) for p in problems), "\n".join(problems)


def test_all_errors_are_reported_at_once(data_copy):
    problems = _validate_with(data_copy, "many_errors")
    for expected in (f"{F}: 91-other: titel: unknown key", BROKEN["dangling_faq"], BROKEN["rollback_expiry"]):
        assert any(p.startswith(expected) for p in problems), expected


def test_invalid_yaml_names_the_file(data_copy):
    (data_copy / "releases" / "9.1.yaml").write_text("version: [unclosed\n")
    with pytest.raises(DataError) as info:
        load(data_copy)
    assert info.value.problems[0].startswith("data/releases/9.1.yaml: -: line 2, column 1: not valid YAML")


def test_a_file_loaded_again_gives_its_current_document_as_a_fresh_copy(data_copy):
    """load keeps each file's last parse (``mkdocs serve`` loads every file after each edit): an
    unchanged file gives an equal document that is not the one handed out before, so a step that
    changes what it was given cannot change the next run's data; an edited file is parsed again,
    and an edit that breaks it is still an error."""
    rel = data_copy / "releases" / "2.15.yaml"
    first = load(data_copy)
    second = load(data_copy)
    assert second.releases == first.releases and second.releases["data/releases/2.15.yaml"] is not first.releases["data/releases/2.15.yaml"]
    first.releases["data/releases/2.15.yaml"]["changes"].clear()
    assert load(data_copy).releases == second.releases
    rel.write_text(rel.read_text(encoding="utf-8").replace('version: "2.15"', 'version: "2.16"', 1), encoding="utf-8")
    assert load(data_copy).releases["data/releases/2.15.yaml"]["version"] == "2.16"
    rel.write_text("version: [unclosed\n")
    with pytest.raises(DataError):
        load(data_copy)


def test_a_source_about_a_release_the_site_does_not_have_is_named(data_copy):
    """/sources/ links each source to its release's page: a source about a release with no release
    file and no wheel is a data error naming the file, the source and the field, not a broken link
    MkDocs finds later."""
    src = data_copy / "sources.yaml"
    text = src.read_text(encoding="utf-8")
    src.write_text(text.replace('about: "2.14"', 'about: "2.99"', 1), encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any(p.startswith("data/sources.yaml: ru-news-214: about: no release 2.99") for p in info.value.problems), info.value.problems


def test_published_id_without_page_or_redirect_fails(data_copy):
    ledger = data_copy / "published_ids.yaml"
    ledger.write_text(dump({"published": ["215-renamed-away"], "redirects": {}}))
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any("215-renamed-away: published.0: published id has no change and no redirect" in p
               for p in info.value.problems)
    ledger.write_text(dump({"published": ["215-renamed-away"],
                                      "redirects": {"215-renamed-away": "215-dcp-strides"}}))
    validate(load(data_copy))  # a redirect to an existing change makes it valid


def test_ledger_lists_every_change(factbase):
    published = set(factbase.ledger.get("published") or [])
    missing = {c.id for c in factbase.changes()} - published
    assert not missing, f"new change ids not in data/published_ids.yaml: {sorted(missing)}; run: make publish-ids"


def test_note_refs_and_values_are_checked(data_copy):
    rel = data_copy / "releases" / "2.15.yaml"
    text = rel.read_text(encoding="utf-8")
    text = text.replace("refs: [214-rma-windows]", "refs: [214-rma-windowz]", 1)
    text = text.replace("values: [figure.baseline]", "values: [figure.baselin]", 1)
    rel.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    problems = info.value.problems
    for expected in ("data/releases/2.15.yaml: 215-one-sided-transport: notes.0.refs.0: no change with id '214-rma-windowz'",
                     "data/releases/2.15.yaml: 215-mps-qr: notes.1.values: 'figure.baselin' is not a value of this fact"):
        assert expected in problems, "\n".join(problems)




@pytest.mark.parametrize("lang", ["en", "zh", "ru", "id"])
def test_a_key_given_twice_stops_the_load_with_file_and_line(data_copy, lang):
    """YAML keeps the last of two equal keys without a word: a corrected UI string written above
    an old one would never show. The loader names the file, the key and both lines."""
    p = data_copy / "i18n" / f"{lang}.yaml"
    lines = p.read_text(encoding="utf-8").split("\n")
    key_line = next(i for i, line in enumerate(lines) if line.startswith("check.title:"))
    lines.append(lines[key_line])
    p.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load(data_copy)
    msg = str(exc.value)
    assert f"data/i18n/{lang}.yaml" in msg and "'check.title' is given twice" in msg
    assert f"first on line {key_line + 1}" in msg and f"line {len(lines)}," in msg

