"""Plural forms come from CLDR (Babel): a counted UI string gives one form per category its
language has, the renderer picks the form of the count, and a string that puts a word after its
count without forms is a validation error. Each check is shown to fail on a planted case."""
from __future__ import annotations

import re

import pytest
import yaml

from atlas import plural
from atlas import text as fmt
from atlas.langs import LANGS
from atlas.load import dump, load
from atlas.problems import DataError
from atlas.render import Renderer
from atlas.validate import validate

COUNTS = (0, 1, 2, 5, 11, 21, 22, 104)
#: CLDR's integer categories, written out by hand as the oracle (not read from Babel): Russian
#: "one" ends in 1 but not 11, "few" ends in 2-4 but not 12-14, the rest "many"; English "one" is 1.
EXPECTED = {
    "en": {0: "other", 1: "one", 2: "other", 5: "other", 11: "other", 21: "other", 22: "other", 104: "other"},
    "ru": {0: "many", 1: "one", 2: "few", 5: "many", 11: "many", 21: "one", 22: "few", 104: "few"},
    "zh": dict.fromkeys(COUNTS, "other"),
    "id": dict.fromkeys(COUNTS, "other"),
}


def counted_keys(fb) -> list[str]:
    """Every UI key that counts: it has plural forms in some language, or its English has ``{n}``."""
    keys = {k for forms in fb.ui_forms.values() for k in forms}
    keys |= {k for k, v in fb.ui["en"].items() if "{n}" in v and not k.startswith("unit.")}
    return sorted(keys)


def test_the_counted_strings_are_found(factbase):
    keys = counted_keys(factbase)
    assert {"check.found", "wheelrel.names_value", "wheelrel.in_modules", "upgrade.meta_intro"} <= set(keys)
    assert all(k in factbase.ui_forms["en"] for k in ("check.found", "wheelrel.names_value"))
    assert all(k in factbase.ui_forms["ru"] for k in ("wheelrel.names_value", "wheelrel.in_modules", "upgrade.meta_intro"))


@pytest.mark.parametrize("lang", LANGS)
def test_every_counted_string_renders_the_form_of_its_count(atlas, lang):
    """Every counted string, with n = 0, 1, 2, 5, 11, 21, 22, 104: the number appears in the
    locale's digits, and where the language has forms, the one of the count's CLDR category."""
    fb, r = atlas.fb, Renderer(atlas, lang)
    forms = fb.ui_forms.get(lang, {})
    for key in counted_keys(fb):
        others = {p: f"<{p}>" for p in fmt.placeholders(fb.ui[lang][key]) if p != "n"}
        for n in COUNTS:
            got = r.ui_text(key, n=n, **others)
            assert fmt.format_number(n, lang) in got, (lang, key, n, got)
            if key in forms:
                want = fmt.render_html(forms[key][EXPECTED[lang][n]], {"n": n, **others}, lang)
                assert got == want, (lang, key, n, got)


def test_the_rule_the_checker_ships_matches_babel():
    """``abstract()`` is what the stdlib checker evaluates: it must hold the same categories."""
    for lang in LANGS:
        tags = [t for t, _ in plural.abstract(lang)]
        assert set(tags) | {"other"} == set(plural.categories(lang))


#: Russian count and noun: the noun's form must be the count's category (one/few/many).
RU_NOUNS = {"имя": "one", "имени": "few", "имён": "many", "модуле": "one", "модулях": "few many",
            "место": "one", "места": "few", "мест": "many", "строка": "one", "строки": "few", "строк": "many"}
RU_COUNTED = re.compile(r"(?<![\d.,])(\d[\d\u00a0 ]*)\s(?:в\s)?(" + "|".join(sorted(RU_NOUNS, key=len, reverse=True)) + r")\b")


def ru_agreement_errors(text: str) -> list[str]:
    out = []
    for num, noun in RU_COUNTED.findall(text):
        n = int(re.sub(r"\D", "", num))
        if plural.category(n, "ru") not in RU_NOUNS[noun].split():
            out.append(f"{num} {noun}")
    return out


def test_russian_counts_agree_with_their_nouns_on_the_pages(real_pages):
    """'11 142 имени в 751 модуле', never '11 142 имён в 751 модулях' (the old single string)."""
    assert ru_agreement_errors("11\u00a0142 имён в 751 модулях") == ["11\u00a0142 имён", "751 модулях"]
    bad = {p: e for p, md in real_pages["ru"].items() if (e := ru_agreement_errors(md))}
    assert not bad, bad
    assert any("имени в" in md for md in real_pages["ru"].values())


def _set_ui(data_copy, lang, key, value):
    path = data_copy / "i18n" / f"{lang}.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    table[key] = value
    path.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")


@pytest.mark.parametrize("lang, key, value, says", [
    ("ru", "wheelrel.names_value", "{n} имён", "give the plural forms one, few, many, other"),
    ("ru", "wheelrel.names_value", {"one": "{n} имя", "many": "{n} имён", "other": "{n} имени"}, "plural forms few missing"),
    ("en", "check.found", "{n} findings", "give the plural forms one, other"),
    ("en", "check.found", {"one": "one finding", "other": "{n} findings"}, "must contain the count {n}"),
    ("zh", "check.found", {"one": "{n} 处", "other": "{n} 处"}, "plural forms one are not used in zh"),
    ("id", "check.found", {"several": "{n} temuan", "other": "{n} temuan"}, "not a CLDR plural category"),
    ("ru", "upgrade.meta_intro", {"one": "{n}", "few": "{n}", "many": "{n}", "other": "ещё {n} строки, {old}"},
     "placeholders"),
])
def test_a_wrong_plural_string_stops_validation_naming_file_and_key(data_copy, lang, key, value, says):
    _set_ui(data_copy, lang, key, value)
    with pytest.raises(DataError) as exc:
        validate(load(data_copy))
    line = next((x for x in str(exc.value).splitlines() if f"data/i18n/{lang}.yaml" in x and key in x), "")
    assert says in line, str(exc.value)


def test_an_edit_to_one_english_form_makes_the_translations_stale(data_copy):
    from atlas import i18n
    path = data_copy / "i18n" / "en.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    table["check.found"]["one"] = "{n} finding only"
    path.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    stale = {(p.lang, p.key) for p in i18n.problems(validate(load(data_copy))) if p.kind == "stale"}
    assert {(lang, "ui:check.found") for lang in ("zh", "ru", "id")} <= stale
