"""Every language has every text, agrees with the canonical values, and is current."""
from __future__ import annotations

import datetime as dt
import html
import re

import pytest
import yaml

from atlas import i18n
from atlas.i18n import fullwidth_hits
from atlas.langs import LANGS, TRANSLATED
from atlas.load import dump, load
from atlas.problems import DataError
from atlas.text import (
    Quantity,
    bare_numbers,
    format_day,
    format_number,
    format_quantity,
    format_value,
    identifiers,
    render_plain,
)
from atlas.validate import validate


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("kind", ["missing", "empty", "stale", "placeholders", "number", "identifier", "orphan",
                                  "glossary", "punctuation"])
def test_translations_are_complete_and_consistent(factbase, lang, kind):
    found = [str(p) for p in i18n.problems(factbase, [lang]) if p.kind == kind]
    assert not found, f"{len(found)} {kind} translation(s) in {lang}:\n" + "\n".join(found[:20])


@pytest.mark.parametrize("lang", LANGS)
def test_every_text_renders_in_every_language(factbase, lang):
    """Each text resolves all its placeholders with real values in each language."""
    for t in factbase.texts:
        out = render_plain(i18n.text_for(factbase, t.key, lang, t.en), factbase.scopes[t.owner], lang)
        assert out and "{" not in out, (lang, t.key, out)


def test_english_ui_strings_have_no_typed_numbers(factbase):
    typed = {key: bare_numbers(text) for key, text in factbase.ui["en"].items() if bare_numbers(text)}
    assert not typed


@pytest.mark.parametrize("replacement,kinds,token", [
    ("home.latest: 'Последний релиз: PyTorch {versoin}'", None, "versoin"),          # misspelt: the validator stops
    ("home.latest: 'Последний релиз: PyTorch 2.15'", None, "version"),               # typed in: the validator stops
    ("home.latest: 'Последний релиз: PyTorch {version} (2.15)'", ["number"], "2.15"),  # added: a translation problem
])
def test_a_translated_ui_string_that_disagrees_with_english_fails(data_copy, replacement, kinds, token):
    """Translated UI strings keep the English placeholders (else the validator stops the build,
    naming file and key) and type no numbers (the check the translation tests run)."""
    ru = data_copy / "i18n" / "ru.yaml"
    text = ru.read_text(encoding="utf-8")
    assert "home.latest: 'Последний релиз: PyTorch {version}'" in text
    ru.write_text(text.replace("home.latest: 'Последний релиз: PyTorch {version}'", replacement), encoding="utf-8")
    if kinds is None:
        with pytest.raises(DataError) as info:
            validate(load(data_copy))
        assert any(p.startswith("data/i18n/ru.yaml: ") and "home.latest" in p and token in p
                   for p in info.value.problems), info.value.problems
        return
    found = [p for p in i18n.problems(validate(load(data_copy)), ["ru"]) if p.key == "ui:home.latest"]
    assert [p.kind for p in found] == kinds and token in found[0].detail, found


def _id_text(data, key):
    path = data / "translations" / "id" / "releases" / "2.15.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    return path, table


@pytest.mark.parametrize("key,addition,kind,token", [
    # 3.171 typed instead of {commits}: must be caught
    ("2.15.headline", " Rilis ini berisi 3.171 commit.", "number", "3.171"),
    # a mistyped API name that the English does not contain
    ("215-dcp-strides.summary", " Lihat torch.distributed.checkpiont.", "identifier", "checkpiont"),
])
def test_a_wrong_value_typed_into_a_translation_fails(data_copy, key, addition, kind, token):
    path, table = _id_text(data_copy, None)
    table[key]["text"] += addition
    path.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    found = [p for p in i18n.problems(validate(load(data_copy)), ["id"]) if p.key == key]
    assert [p.kind for p in found] == [kind] and token in found[0].detail


def test_a_dropped_placeholder_fails(data_copy):
    path, table = _id_text(data_copy, None)
    key = "215-dcp-strides.title"
    table[key]["text"] = "Checkpoint terdistribusi tidak kompatibel"
    path.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    found = [p for p in i18n.problems(validate(load(data_copy)), ["id"]) if p.key == key]
    assert [p.kind for p in found] == ["placeholders"]


@pytest.mark.parametrize("lang", ["zh", "ru", "id"])
def test_a_dropped_placeholder_stops_the_build_with_its_file_and_key(data_copy, lang):
    """A fact text that types the value instead of its placeholder stops the pipeline (it would
    publish a value the fact does not hold), named by file and key; a UI string's placeholders are
    checked by validation already."""
    from atlas.pipeline import pipeline
    from atlas.problems import DataError
    tfile = data_copy / "translations" / lang / "releases" / "2.15.yaml"
    table = yaml.safe_load(tfile.read_text(encoding="utf-8"))
    key = next(k for k, v in table.items() if "{version}" in v["text"])
    table[key]["text"] = table[key]["text"].replace("{version}", "PyTorch")
    tfile.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(DataError) as exc:
        pipeline(load(data_copy), langs=["en"])
    msg = str(exc.value)
    assert f"data/translations/{lang}/releases/2.15.yaml" in msg and key in msg and "placeholders" in msg


def test_changing_english_makes_every_translation_stale(data_copy):
    rel = data_copy / "releases" / "2.15.yaml"
    text = rel.read_text(encoding="utf-8")
    rel.write_text(text.replace("title: One-sided transports with NIXL as the first backend",
                                "title: One-sided transports, with NIXL first"), encoding="utf-8")
    stale = {(p.lang, p.key) for p in i18n.problems(validate(load(data_copy))) if p.kind == "stale"}
    assert stale == {(lang, "215-one-sided-transport.title") for lang in TRANSLATED}


def test_missing_translation_is_reported_with_the_fix(data_copy):
    path, table = _id_text(data_copy, None)
    del table["215-dcp-strides.title"]
    path.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    found = [p for p in i18n.problems(validate(load(data_copy)), ["id"]) if p.key == "215-dcp-strides.title"]
    assert found[0].kind == "missing" and "atlas i18n stub id" in found[0].detail


@pytest.mark.parametrize("lang,number,date", [
    ("en", "3,117", "28 October 2026"),
    ("zh", "3,117", "2026年10月28日"),
    ("ru", "3\u00a0117", "28 октября 2026\u202fг."),
    ("id", "3.117", "28 Oktober 2026"),
])
def test_locale_formatting(lang, number, date):
    assert format_number(3117, lang) == number
    assert format_day(dt.date(2026, 10, 28), lang) == date


@pytest.mark.parametrize("lang,expected", [("en", "1.32"), ("ru", "1,32"), ("id", "1,32"), ("zh", "1.32")])
def test_decimal_formatting(lang, expected):
    assert format_number(1.32, lang) == expected


def test_rendered_commit_count_is_localised_in_every_language(factbase):
    """The same fact, rendered in the UI sentence of the home page, in each locale."""
    rel = factbase.release("2.15")
    for lang, expected in [("en", "3,117"), ("zh", "3,117"), ("ru", "3\u00a0117"), ("id", "3.117")]:
        out = render_plain(factbase.ui[lang]["home.glance"], {"date": rel.released, "commits": rel.commits,
                                                               "contributors": rel.contributors,
                                                               "previous": rel.previous}, lang)
        assert expected in out, (lang, out)


def test_token_rules():
    assert bare_numbers("Python {v} and 3.10") == ["3.10"]
    assert bare_numbers("fp32 and NVFP4 and sm_75") == []
    assert {"torch.linalg.qr", "fp32"} <= identifiers("use torch.linalg.qr in fp32")


def test_changing_an_english_ui_string_makes_its_translations_stale(data_copy):
    en = data_copy / "i18n" / "en.yaml"
    en.write_text(en.read_text(encoding="utf-8").replace("upgrade.go: Show the guide", "upgrade.go: Open the guide"),
                  encoding="utf-8")
    stale = {(p.lang, p.key) for p in i18n.problems(validate(load(data_copy))) if p.kind == "stale"}
    assert stale == {(lang, "ui:upgrade.go") for lang in TRANSLATED}


# --- units, lists and punctuation per locale -------------------------------------------------
NB = "\u00a0"


@pytest.mark.parametrize("lang,unit,value,upper,expected", [
    ("en", "ms", 1.5, None, f"1.5{NB}ms"),
    ("ru", "ms", 1.5, None, f"1,5{NB}мс"),
    ("id", "ms", 1.5, None, f"1,5{NB}ms"),
    ("zh", "ms", 1.5, None, f"1.5{NB}毫秒"),
    ("ru", "ms", 7000, None, f"7{NB}000{NB}мс"),
    ("en", "percent", 55.4, None, "55.4%"),
    ("ru", "percent", 55.4, None, f"55,4{NB}%"),
    ("id", "percent", 55.4, None, "55,4%"),
    ("ru", "x", 1.32, 1.34, "1,32\u20131,34×"),
    ("zh", "x", 1.32, 1.34, f"1.32～1.34{NB}倍"),
    ("ru", "MiB", 200, None, f"200{NB}МиБ"),
])
def test_figures_use_the_locales_number_and_unit(factbase, lang, unit, value, upper, expected):
    """The unit patterns in data/i18n/<lang>.yaml with Babel's numbers give the locale's own form."""
    assert format_quantity(Quantity(value, factbase.ui[lang][f"unit.{unit}"], upper), lang) == expected


@pytest.mark.parametrize("lang,page,expected,wrong", [
    ("en", "changes/215-mps-qr.md", f"1.5{NB}ms", "1.5ms"),
    ("ru", "changes/215-mps-qr.md", f"1,5{NB}мс", "1,5ms"),
    ("ru", "changes/215-mps-qr.md", f"7{NB}000{NB}мс", "7 000ms"),
    ("ru", "releases/2.15.md", f": 55,4{NB}%", ": 55,4%"),  # the locator quotes "55,4%" verbatim
    ("zh", "releases/2.15.md", f"1.32～1.34{NB}倍", "1.32–1.34×"),
])
def test_rendered_figures_are_spaced_and_localised(real_pages, lang, page, expected, wrong):
    got = real_pages[lang][f"{lang}/{page}"]
    assert expected in got and wrong not in got


def test_a_unit_pattern_without_its_number_fails():
    with pytest.raises(KeyError, match="must contain"):
        format_quantity(Quantity(1.5, " ms"), "en")


@pytest.mark.parametrize("lang,items,expected", [
    ("zh", ["cu126", "cu130"], "cu126 和 cu130"),
    ("zh", ["a", "b", "c"], "a、b 和 c"),
    ("en", ["a", "b", "c"], "a, b and c"),
    ("ru", ["a", "b"], "a и b"),
    ("id", ["a", "b", "c"], "a, b, dan c"),
])
def test_lists_join_in_the_locales_pattern(lang, items, expected):
    assert format_value(items, lang, "plain", html=False) == expected


def test_rendered_zh_lists_keep_latin_apart_from_the_conjunction(real_pages):
    page = real_pages["zh"]["zh/releases/2.15.md"]
    assert "</code> 和 <code>" in page and "</code>和<code>" not in page


@pytest.mark.parametrize("lang,expected", [
    ("en", "**<code>nccl</code> (rewritten)**"),
    ("ru", "**<code>nccl</code> (новая реализация)**"),
    ("zh", "**<code>nccl</code>（重写版）**"),
])
def test_matrix_words_are_translated_and_still_diffed(real_pages, lang, expected):
    """The value stays canonical ("nccl"); the word comes from the language's UI strings, and the
    upgrade page still marks original -> rewritten as a change."""
    assert expected in real_pages[lang][f"{lang}/upgrade/2.14-to-2.15.md"]


def test_words_in_a_matrix_value_are_a_validation_error(data_copy):
    rel = data_copy / "releases" / "2.15.yaml"
    rel.write_text(rel.read_text(encoding="utf-8").replace("value: nccl\n    qualifier: rewritten",
                                                           'value: "nccl (rewritten)"'), encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    assert any(p.startswith("data/releases/2.15.yaml: 2.15: matrix.nccl_default_backend.value: 'nccl (rewritten)'")
               for p in info.value.problems), info.value.problems


def _zh_prose(markdown_page: str) -> str:
    """What a Chinese reader sees as running text: no front matter, code, tags or admonition syntax."""
    body = markdown_page.split("-->", 1)[-1]
    body = re.sub(r"<code>.*?</code>", "X", body)
    # an upgrade's API diff lists names and signatures as plain lines (no element per name): code, not prose
    body = re.sub(r'<div class="atlas-names">.*?</div>', "X", body, flags=re.S)
    body = re.sub(r"^!!! .*$", "", body, flags=re.M)
    body = re.sub(r'^=== ".*"$', "", body, flags=re.M)   # content-tab syntax, not prose
    body = re.sub(r"“[^”]*”", "X", body)  # a quoted locator is the source's own text, verbatim
    return html.unescape(re.sub(r"<[^>]+>", " | ", body))


@pytest.mark.parametrize("kind", ["changes", "releases", "upgrade", "faq", "breaking", "errors", "sources", "index.md",
                                  "api.md", "check"])
def test_generated_zh_pages_use_full_width_punctuation(real_pages, kind):
    """Templates put ：（）“”、 between UI strings and values in Chinese (text.PUNCTUATION): no
    half-width , ; : ( ) next to a Han character on any kind of generated page, /check/ included."""
    found = {path: fullwidth_hits(_zh_prose(md)) for path, md in real_pages["zh"].items()
             if path.split("/")[1] == kind}
    assert found and not {p: h for p, h in found.items() if h}


def test_punctuation_between_ui_strings_follows_the_locale(real_pages):
    zh, en = real_pages["zh"]["zh/releases/2.15.md"], real_pages["en"]["en/releases/2.15.md"]
    assert "：“" in zh and "（“" not in zh and ": «" in en and " («" not in en


def test_russian_run_in_labels_end_with_a_period_before_a_sentence(real_pages):
    """«Исправление: Запустите…» reads wrong in Russian: a colon takes a lower-case word. A label
    before a whole sentence ends with a period instead (text.PUNCTUATION["ru"]["label"])."""
    pages = real_pages["ru"]
    labelled = [md for md in pages.values() if "<strong>Исправление</strong>" in md]
    assert labelled, "no breaking table shows a fix step"
    bad = sorted({m for md in pages.values() for m in re.findall(r"[а-яё]</strong>: [А-ЯЁ]\w*", md)})
    assert not bad, bad


def test_chinese_dates_sit_in_the_sentence_without_spaces(real_pages):
    """"于 2026年9月1日 发布" puts Latin-style spaces around a date inside Chinese prose."""
    spaced = re.compile(r"[\u4e00-\u9fff] \d{4}年\d{1,2}月\d{1,2}日|\d{4}年\d{1,2}月\d{1,2}日 [\u4e00-\u9fff]")
    bad = {path: spaced.findall(_zh_prose(md)) for path, md in real_pages["zh"].items()}
    assert not {p: h for p, h in bad.items() if h}


#: words that make a sentence about {versions} plural: wrong when the list holds one release
#: ("what changed in them" for 2.12); en pronouns, zh 这些版本/它们, ru эти релизы/их, id rilis-rilis
PLURAL_ONLY = {"en": r"\b(?:them|their|those releases|these releases)\b", "zh": r"这些版本|它们",
               "ru": r"\b(?:эти релизы|этих релизов|их|описаны)\b", "id": r"\brilis-rilis (?:itu|tersebut)\b"}


def plural_only_hits(ui: dict, lang: str) -> list[str]:
    """The UI strings with a {versions} list whose wording assumes more than one release."""
    return [f"{lang}: {key}: {value}" for key, value in ui.items()
            if isinstance(value, str) and "{versions}" in value and re.search(PLURAL_ONLY[lang], value, re.I)]


@pytest.mark.parametrize("lang", LANGS)
def test_a_sentence_about_a_list_of_releases_reads_right_for_one(factbase, lang):
    """{versions} is often one release: the sentence around it must not say them, those releases,
    这些版本 or эти релизы (issue 29: upgrade.uncovered said "in them" for 2.12)."""
    ui = factbase.ui[lang]
    assert sum("{versions}" in v for v in ui.values() if isinstance(v, str)) >= 10
    planted = {"k": {"en": "No article covers {versions}: what changed in them is unknown.", "zh": "{versions} 中的变化：这些版本没有文章。",
                     "ru": "Статьи про {versions} нет: эти релизы не описаны.", "id": "Rilis-rilis tersebut ({versions}) tidak dibahas."}[lang]}
    assert plural_only_hits(planted, lang)
    assert not plural_only_hits(ui, lang)


#: how an answer says yes or no at its start, per language (zh: 可以/不能 answer with the verb)
POLARITY = {
    "zh": {"yes": ("是", "可以", "会", "能", "需要", "对"), "no": ("不", "否", "没", "无")},
    "ru": {"yes": ("Да",), "no": ("Нет",)},
    "id": {"yes": ("Ya",), "no": ("Tidak", "Bukan")},
}


def test_a_faq_answer_that_starts_with_yes_or_no_keeps_its_polarity(factbase):
    """An answer whose English starts with Yes (No) starts with a yes (no) in every language;
    "Tidak." before "it costs nothing" told Indonesian readers the opposite."""
    from atlas.i18n import text_for
    checked, wrong = 0, []
    for r in factbase.releases:
        for f in r.faq:
            first = f.answer.split()[0].strip(".,!").lower()
            if first not in ("yes", "no"):
                continue
            for lang, words in POLARITY.items():
                text = text_for(factbase, f"{f.id}.answer", lang, f.answer).lstrip()
                checked += 1
                if not text.startswith(words[first]) or text.startswith(words["no" if first == "yes" else "yes"]):
                    wrong.append(f"{lang}: {f.id}.answer: the English says {first}, the translation starts {text[:12]!r}")
    assert checked >= 3 and not wrong, wrong


#: block-level tags end a line of prose; inline tags vanish (they add no space to what is read)
_BLOCK = re.compile(r"</?(?:p|li|ul|ol|tr|td|th|table|thead|tbody|div|details|summary|h[1-6]|br|pre|section|dl|dt|dd)\b[^>]*>")


def zh_reading_text(markdown_page: str) -> str:
    """The text of a generated zh page as a reader sees it: front matter, code, HTML tags, link
    targets and table pipes gone, one line per block."""
    body = markdown_page.split("-->", 1)[-1]
    if body.startswith("---"):
        body = body.split("---", 2)[-1]
    body = re.sub(r"<code>.*?</code>|`[^`]*`", "X", body)
    body = re.sub(r"“[^”]*”", "“X”", body)   # a quoted locator is the source's own text, verbatim
    body = re.sub(r'<div class="atlas-names">.*?</div>', "\n", body, flags=re.S)
    body = re.sub(r"```.*?```", "\n", body, flags=re.S)
    body = _BLOCK.sub("\n", body)
    body = re.sub(r"<[^>]+>", "", body)
    body = re.sub(r"\]\([^)]*\)", "]", body)          # a Markdown link's target
    body = re.sub(r"\{ *#[^}]*\}|\{:[^}]*\}", "", body)   # attribute lists
    body = re.sub(r"^[ \t]*(?:[-*]|\d+\.|#+|!!!.*|===.*|\|?[-: |]+\|?)[ \t]*$", "", body, flags=re.M)
    body = re.sub(r"^[ \t]*(?:[-*]|\d+\.|#+)[ \t]+", "", body, flags=re.M)   # list and heading marks
    body = re.sub(r"[ \t]*\|[ \t]*", "\n", body)       # table cells
    return html.unescape(body)


def test_rendered_zh_pages_keep_no_space_next_to_a_full_width_mark(real_pages):
    """"。 如果", "torch.qr （自 2.14 起没有）" and nested （…（…）…） read as typos in Chinese; checked on
    every rendered page, not only on the raw strings."""
    planted = zh_reading_text("<p>第一步。 如果失败</p>\n<li><code>torch.qr</code> （自 2.14 起没有）</li>\n"
                              "| 说明（含义（嵌套）） | x |")
    assert len(i18n.zh_spacing_hits(planted)) == 3, i18n.zh_spacing_hits(planted)
    found = {path: h for path, md in real_pages["zh"].items() if (h := i18n.zh_spacing_hits(zh_reading_text(md)))}
    assert not found, dict(list(found.items())[:10])


def test_russian_never_says_older_or_younger_of_a_version_or_driver():
    """ru «старше»/«младше» next to a version or driver number reads as newer/older the wrong way
    round («драйвер старше 580» is a newer driver); write «ниже»/«раньше» (issue 43)."""
    import yaml

    from atlas.load import DATA

    bad = []
    files = [DATA / "i18n" / "ru.yaml", *sorted((DATA / "translations" / "ru").rglob("*.yaml"))]
    def walk(x, where):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{where}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{where}.{i}")
        elif isinstance(x, str) and re.search(r"(?:старше|младше)\s+(?:версии\s+)?[«\"{]?\s*[\d{]", x):
            bad.append(f"{where}: {x[:80]}")

    for f in files:
        walk(yaml.safe_load(f.read_text(encoding="utf-8")), f.name)
    assert not bad, bad
