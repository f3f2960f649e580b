"""One rendering per concept per language (data/glossary.yaml), and Chinese punctuation.

The fact texts and UI strings are checked by ``i18n.problems`` (kinds ``glossary`` and
``punctuation``, run for real data in tests/test_i18n.py); this file checks what is outside the
fact base (docs/<lang>/about.md, mkdocs.yml), proves each check can fail, and validates the
glossary itself.
"""
from __future__ import annotations

import html
import re
import shutil

import pytest
import yaml

from atlas import i18n
from atlas.i18n import fullwidth_hits, glossary_hits
from atlas.langs import TRANSLATED
from atlas.load import dump, load
from atlas.problems import DataError
from atlas.validate import validate
from conftest import ROOT


class _MkdocsLoader(yaml.SafeLoader):
    """mkdocs.yml uses !ENV; its value does not matter here."""


_MkdocsLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def _mkdocs_descriptions() -> dict[str, str]:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_MkdocsLoader)  # noqa: S506
    plugin = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    return {lang["locale"]: lang["site_description"] for lang in plugin["languages"]}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_about_page_uses_the_glossary(factbase, lang):
    text = (ROOT / "docs" / lang / "about.md").read_text(encoding="utf-8")
    assert not glossary_hits(factbase.glossary, lang, text)
    if lang == "zh":
        assert not fullwidth_hits(text)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_mkdocs_site_description_is_the_ui_string_and_uses_the_glossary(factbase, lang):
    """mkdocs.yml cannot read data/i18n, so its per-language description must say the same words."""
    described = _mkdocs_descriptions()[lang]
    assert described == factbase.ui[lang]["site_description"]
    assert not glossary_hits(factbase.glossary, lang, described)


def test_every_concept_has_one_rendering_in_every_translated_language(factbase):
    ids = [e.id for e in factbase.glossary]
    assert {"release", "checkpoint", "breaking-change", "wheel", "default", "error", "file", "extension",
            "profiler", "toolkit"} <= set(ids)
    for entry in factbase.glossary:
        assert set(entry.terms) == set(TRANSLATED), entry.id


# --- the checks can fail ----------------------------------------------------------------------
@pytest.mark.parametrize("lang,text,concept", [
    ("id", "Build gagal dengan pesan galat di header.", "error"),
    ("id", "Daftar berkas di bawah ini", "file"),
    ("id", "Build extension dengan compiler baru.", "extension"),
    ("ru", "Что ломается в этом выпуске", "release"),
    ("ru", "Контрольные точки, сохранённые новой версией", "checkpoint"),
    ("ru", "Ломающие изменения этой версии", "breaking-change"),
    ("zh", "全部不兼容变更", "breaking-change"),
    ("zh", "标准报错信息", "error"),
])
def test_an_avoided_rendering_is_flagged(factbase, lang, text, concept):
    assert concept in {c for c, _, _ in glossary_hits(factbase.glossary, lang, text)}


@pytest.mark.parametrize("lang,text", [
    ("id", "Pesan error dari torch.utils.cpp_extension dan {extension}."),  # API names and placeholders
    ("id", "Build ekstensi dengan {standard}; secara default aktif."),
    ("ru", "Версия {version} выпускает wheel-пакеты; в этом релизе чекпоинты несовместимы."),  # the verb is fine
    ("ru", "Несовместимые изменения в CUDA toolkit по умолчанию."),
    ("zh", "破坏性变更的错误信息写入文件。"),
])
def test_the_rendering_to_use_and_code_are_not_flagged(factbase, lang, text):
    assert not glossary_hits(factbase.glossary, lang, text)


@pytest.mark.parametrize("lang,text,concept", [
    # the drift a second review found, one rendering per concept (the English word included)
    ("zh", "升级前先备份分布式 checkpoint。", "checkpoint"),
    ("zh", "在 CUDA graph 录制期间调用会失败。", "graph-capture"),
    ("zh", "新的快路径默认开启。", "fast-path"),
    ("zh", "梯度累加的结果不同。", "accumulation"),
    ("zh", "每个次要版本都会移除一些接口。", "minor-version"),
    ("zh", "印度尼西亚语的说明文章", "indonesian"),
    ("zh", "下载对应的 wheel 包。", "wheel"),
    ("ru", "В отчёте о релизе сказано иначе.", "report"),
    ("ru", "Переконфигурация группы процессов на месте.", "reconfiguration"),
    ("ru", "Собственные реализации операций для MPS.", "native"),
    ("id", "Jejak tumpukan menunjuk ke baris ini.", "stack-trace"),
    ("id", "Pustaka ini tidak lagi dibangun.", "library"),
    ("id", "Seminar daring tentang rilis ini.", "webinar"),
    ("id", "Inilah apa yang rusak di rilis ini.", "breaking-change"),
    ("zh", "PyTorch 2.15 在线答疑直播", "webinar"),
    ("ru", "Запись онлайн-семинара о релизе.", "webinar"),
    ("zh", "包括 free-threaded 构建", "free-threaded"),
    ("ru", "Свободнопоточная сборка Python.", "free-threaded"),
    ("id", "Termasuk build thread bebas.", "free-threaded"),
])
def test_the_reviewed_drift_is_flagged(factbase, lang, text, concept):
    assert concept in {c for c, _, _ in glossary_hits(factbase.glossary, lang, text)}


PLANTED = {   # lang -> (translation file, key, text with drift; UI key, its drifted value)
    "zh": ("215-dcp-strides.title", "旧版分布式 checkpoint 无法读取新格式", "nav.breaking", "不兼容变更"),
    "ru": ("215-dcp-strides.title", "Отчёт о контрольных точках", "nav.breaking", "Ломающие изменения"),
    "id": ("215-cxx20.title", "Extension native memerlukan C++20", "col.file", "Berkas"),
}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_planted_drift_in_a_translation_and_a_ui_string_is_reported_in_each_language(data_copy, lang):
    key, text, ui_key, ui_value = PLANTED[lang]
    tr = data_copy / "translations" / lang / "releases" / "2.15.yaml"
    table = yaml.safe_load(tr.read_text(encoding="utf-8"))
    table[key]["text"] = text
    tr.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    ui_path = data_copy / "i18n" / f"{lang}.yaml"
    ui = yaml.safe_load(ui_path.read_text(encoding="utf-8"))
    assert ui_key in ui
    ui[ui_key] = ui_value
    ui_path.write_text(dump(ui, allow_unicode=True, sort_keys=False), encoding="utf-8")
    found = {p.key for p in i18n.problems(validate(load(data_copy)), [lang]) if p.kind == "glossary"}
    assert {key, f"ui:{ui_key}"} <= found, found


def _prose(markdown_page: str) -> str:
    """A generated page as a reader sees it: no front matter, code, tags or quoted source text."""
    body = markdown_page.split("-->", 1)[-1]
    body = re.sub(r"<code>.*?</code>|`[^`\n]*`", "X", body)
    body = re.sub(r"\{ #[\w-]+ \}", " ", body)     # a heading's anchor is part of the URL, not prose
    body = re.sub(r'<div class="atlas-names">.*?</div>', "X", body, flags=re.S)   # API names of a diff, one a line
    body = re.sub(r"“[^”]*”|«[^»]*»", "X", body)   # a quoted locator is the source's own words
    body = re.sub(r"<q>.*?</q>", "X", body)         # so is an official item's title (data/ledger.yaml)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_generated_page_uses_the_glossary(real_pages, factbase, lang):
    """Templates, UI strings and fact texts together, as each generated page of ``lang`` shows them."""
    bad = {path: hits for path, md in real_pages[lang].items()
           if (hits := glossary_hits(factbase.glossary, lang, _prose(md)))}
    assert len(real_pages[lang]) > 50 and not bad, bad


def test_an_avoided_rendering_in_a_translation_and_a_ui_string_is_reported(data_copy):
    tr = data_copy / "translations" / "id" / "releases" / "2.15.yaml"
    table = yaml.safe_load(tr.read_text(encoding="utf-8"))
    table["215-cxx20.title"]["text"] = "Extension native memerlukan C++20"
    tr.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    ui = data_copy / "i18n" / "id.yaml"
    ui.write_text(ui.read_text(encoding="utf-8").replace("col.file: File", "col.file: Berkas"), encoding="utf-8")
    found = {(p.key, p.file) for p in i18n.problems(validate(load(data_copy)), ["id"]) if p.kind == "glossary"}
    assert found == {("215-cxx20.title", "data/translations/id/releases/2.15.yaml"),
                     ("ui:col.file", "data/i18n/id.yaml")}


def test_an_avoided_rendering_in_a_copy_of_the_about_page_is_flagged(factbase, tmp_path):
    about = tmp_path / "about.md"
    shutil.copy(ROOT / "docs" / "ru" / "about.md", about)
    about.write_text(about.read_text(encoding="utf-8") + "\nВыпуски обновляются каждый квартал.\n", encoding="utf-8")
    assert [c for c, _, _ in glossary_hits(factbase.glossary, "ru", about.read_text(encoding="utf-8"))] == ["release"]


# --- Chinese punctuation ----------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "代码回退到 CPU 执行; 在显式请求时失败。",
    "在显式请求 \"mps\" 设备的地方失败。",
    "详见来源(中文报道)。",
    "是否需要改代码? 不需要。",
    "注意: 默认开启。",
])
def test_ascii_punctuation_between_chinese_is_flagged(text):
    assert fullwidth_hits(text)


@pytest.mark.parametrize("text", [
    "{check} 返回 False，现在已成为 backend=\"{backend:plain}\" 的默认实现。",  # code and placeholders
    "事实来自[来源](sources/index.md)页面；见 `torch.load(path, weights_only=True)`。",
    "NVIDIA 驱动（580 以上）与 “mps” 设备：默认开启！",
    "PyTorch (CUDA 13.2) wheel",  # no Chinese next to it
])
def test_code_full_width_marks_and_latin_text_are_not_flagged(text):
    assert not fullwidth_hits(text)


def test_ascii_punctuation_in_a_zh_translation_is_reported(data_copy):
    tr = data_copy / "translations" / "zh" / "releases" / "2.15.yaml"
    table = yaml.safe_load(tr.read_text(encoding="utf-8"))
    table["215-mps-macos15.symptom"]["text"] = table["215-mps-macos15.symptom"]["text"].replace("“mps”", '"mps"')
    tr.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    found = [p for p in i18n.problems(validate(load(data_copy)), ["zh"]) if p.kind == "punctuation"]
    assert {p.key for p in found} == {"215-mps-macos15.symptom"} and "“”" in found[0].detail


# --- the glossary itself goes through validation ----------------------------------------------
def _glossary_problems(data_copy, edit) -> list[str]:
    path = data_copy / "glossary.yaml"
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(entries)
    path.write_text(dump(entries, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data_copy))
    return info.value.problems


def _entry(entries, concept):
    return next(e for e in entries if e["id"] == concept)


@pytest.mark.parametrize("edit,expected", [
    (lambda es: _entry(es, "wheel")["terms"].pop("ru"),
     "data/glossary.yaml: wheel: terms.ru: missing"),
    (lambda es: _entry(es, "wheel")["terms"]["ru"].update(avoid=["пакет*", "wheel-пакет"]),
     "data/glossary.yaml: wheel: terms.ru.avoid.1: 'wheel-пакет' also matches the rendering to use"),
    (lambda es: _entry(es, "file")["terms"]["id"].update(usee="file"),
     "data/glossary.yaml: file: terms.id.usee: unknown key"),
    (lambda es: _entry(es, "file")["terms"]["id"].pop("use"),
     "data/glossary.yaml: file: terms.id.use: Field required"),
    (lambda es: es.append(dict(_entry(es, "file"))),
     "data/glossary.yaml: file: id: duplicate concept"),
    (lambda es: _entry(es, "toolkit").update(id="Tool Kit"),
     "data/glossary.yaml: Tool Kit: id: String should match pattern"),
])
def test_a_bad_glossary_entry_names_file_concept_and_field(data_copy, edit, expected):
    problems = _glossary_problems(data_copy, edit)
    assert any(p.startswith(expected) for p in problems), problems
