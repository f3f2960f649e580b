"""The provenance check, on a tiny fact base and articles these tests write themselves.

Locators must occur verbatim in their article, every cited value in one of its locators (in
some locale form), each article must keep the sha256 recorded for it, and ``atlas provenance``
reports a problem as ``file: id: field: message``. Checking the real data against the real
articles (outside the repository) is ``make provenance``, which CI runs.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from atlas.load import dump, load
from atlas.problems import DataError
from atlas.provenance import found_in
from atlas.validate import validate
from conftest import ROOT, atlas_env

ARTICLE = """PyTorch 9.1 shipped on 10 January 2027 with 3,117 commits.
The function torch.sample is removed; the switch TORCH_SAMPLE=1 goes away in 9.2.
"""
RELEASE = """version: "9.1"
released: 2027-01-10
commits: 3117
provenance:
  released: [{source: tiny-a, locator: "shipped on 10 January 2027"}]
  commits: [{source: tiny-a, locator: "3,117 commits"}]
headline: A fixture release for the tests.
changes:
  - id: 91-sample
    type: removal
    area: frontend
    values:
      api: torch.sample
      removed_in: "9.2"
    title: The {api} function is removed
    summary: "{api} is gone."
    affected: Users of {api}.
    symptom: AttributeError when calling it.
    fix:
      steps: ["Stop calling {api}."]
    sources:
      - {source: tiny-a, locator: "torch.sample is removed"}
      - {source: tiny-a, locator: "goes away in 9.2"}
"""
F91 = "data/releases/9.1.yaml"


@pytest.fixture
def tiny(tmp_path):
    """(data dir, articles dir): one release, one change, one article; valid with its article."""
    data, arts = tmp_path / "data", tmp_path / "sources"
    (data / "releases").mkdir(parents=True)
    arts.mkdir()
    shutil.copytree(ROOT / "data" / "i18n", data / "i18n")
    (data / "search").mkdir()
    shutil.copy(ROOT / "data" / "search" / "stopwords.yaml", data / "search")
    shutil.copy(ROOT / "data" / "glossary.yaml", data)
    shutil.copy(ROOT / "data" / "wheels.yaml", data)
    (data / "releases" / "9.1.yaml").write_text(RELEASE, encoding="utf-8")
    write_article(data, arts, ARTICLE)
    return data, arts


def write_article(data, arts, text: str, recorded: str | None = None) -> None:
    (arts / "a.txt").write_text(text, encoding="utf-8")
    sha = hashlib.sha256((recorded or text).encode()).hexdigest()
    source = {"id": "tiny-a", "file": "a.txt", "language": "en", "description": "a test article",
              "form": "news report", "published": dt.date(2027, 1, 11), "about": "9.1", "sha256": sha,
              "contribution": "Everything about {about}."}
    (data / "sources.yaml").write_text(dump({"sources": [source]}), encoding="utf-8")


def edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (old, text.count(old))
    path.write_text(text.replace(old, new), encoding="utf-8")


def problems(data, arts) -> list[str]:
    with pytest.raises(DataError) as info:
        validate(load(data), arts)
    return info.value.problems


def test_the_tiny_fact_base_passes_with_every_value_checked(tiny):
    report = validate(load(tiny[0]), tiny[1]).provenance
    assert report is not None and not report.problems
    assert report.locators == 4 and report.values == 4   # released, commits, api, removed_in


def test_a_changed_value_names_file_fact_field_value_and_locator(tiny):
    data, arts = tiny
    edit(data / "releases" / "9.1.yaml", "commits: 3117\n", "commits: 3171\n")
    assert problems(data, arts) == [
        f"{F91}: 9.1: commits: value 3171 not found in any cited locator (tiny-a «3,117 commits»); "
        "cite a locator that contains it, or mark it inferred and say how"]


def test_a_locator_must_occur_verbatim_in_its_article(tiny):
    data, arts = tiny
    edit(data / "releases" / "9.1.yaml", '"torch.sample is removed"', '"torch.sample was removed"')
    found = problems(data, arts)
    assert any(p.startswith(f"{F91}: 91-sample: sources.0: locator 'torch.sample was removed' not found verbatim "
                            "in tiny-a") for p in found), found


def test_an_edited_article_no_longer_matches_its_recorded_hash(tiny):
    data, arts = tiny
    write_article(data, arts, ARTICLE + "One more line.\n", recorded=ARTICLE)
    found = problems(data, arts)
    assert any(p.startswith("data/sources.yaml: tiny-a: sha256: ") for p in found), found


def test_an_exemption_needs_an_inferred_note_that_names_the_value(tiny):
    data, arts = tiny
    edit(data / "releases" / "9.1.yaml", '{source: tiny-a, locator: "goes away in 9.2"}',
         '{source: tiny-a, locator: "TORCH_SAMPLE=1"}')
    found = problems(data, arts)
    assert any(p.startswith(f"{F91}: 91-sample: values.removed_in: value 9.2 not found") for p in found), found
    rel = yaml.safe_load((data / "releases" / "9.1.yaml").read_text(encoding="utf-8"))
    rel["changes"][0]["notes"] = [{"kind": "inferred", "text": "The report implies it.", "values": ["removed_in"]}]
    (data / "releases" / "9.1.yaml").write_text(dump(rel, sort_keys=False), encoding="utf-8")
    assert validate(load(data), arts).provenance.exempt == 1


def test_atlas_provenance_reports_the_same_message_without_a_traceback(tiny):
    data, arts = tiny
    ok = subprocess.run([sys.executable, "-m", "atlas", "provenance", "--data", str(data), "--sources", str(arts)],
                        capture_output=True, text=True, env=atlas_env(ROOT))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert re.search(r"^4 locators found verbatim", ok.stdout, re.M)
    edit(data / "releases" / "9.1.yaml", "commits: 3117\n", "commits: 3171\n")
    run = subprocess.run([sys.executable, "-m", "atlas", "provenance", "--data", str(data), "--sources", str(arts)],
                         capture_output=True, text=True, env=atlas_env(ROOT))
    assert run.returncode == 1
    assert f"{F91}: 9.1: commits: value 3171 not found in any cited locator" in run.stdout + run.stderr
    assert "Traceback" not in run.stderr


def test_without_the_articles_atlas_provenance_fails_loudly_under_ci(tiny, tmp_path):
    data, _ = tiny
    missing = tmp_path / "no-such-dir"
    for ci in ("true", ""):
        run = subprocess.run([sys.executable, "-m", "atlas", "provenance", "--data", str(data), "--sources",
                              str(missing)], capture_output=True, text=True, env={**atlas_env(ROOT), "CI": ci})
        assert run.returncode == 2, (ci, run.stdout, run.stderr)
        assert str(missing) in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("value,locator,found", [
    (3117, "3,117 个 commit", True),
    (3117, "3.117 commit dari", True),
    (3117, "2 995 коммитов", False),
    (2995, "2\u00a0995 коммитов", True),
    (3171, "3,117 个 commit", False),
    (580, "驱动 580 以上", True),
    (58, "驱动 580 以上", False),
    (1.5, "menjadi 1,5 milidetik", True),
    (1.5, "最高快 21.5 倍", False),
    (75, "Turing（sm_75）", False),          # an identifier is not a number
    ("sm_75", "Turing（sm_75）", True),
    ("3.15", "Python 3.15+", True),
    ("3.1", "Python 3.15+", False),
    ("3.15", "free-threaded 3.15t", False),
    ("2.15.0", "发布 v2.15.0", True),
    ("nccl (rewritten)", "接管所有 nccl 进程组", True),
    ("nccl2", "接管所有 nccl 进程组", False),
    (dt.date(2026, 10, 28), "pada 28 Oktober 2026", True),
    (dt.date(2026, 10, 28), "北京时间 10 月 28 日", True),
    (dt.date(2026, 9, 2), "Foundation 2 сентября", True),
    (dt.date(2026, 9, 2), "Foundation 12 сентября", False),
    (dt.date(2026, 10, 29), "pada 28 Oktober 2026", False),
    (dt.date(2026, 10, 28), "on 28 October 2026", True),
    (dt.datetime(2026, 11, 5, 11, 0), "2026 年 11 月 5 日上午 11 时", True),
    (dt.datetime(2026, 11, 5, 10, 0), "2026 年 11 月 5 日上午 11 时", False),
    (dt.datetime(2026, 10, 28, 17, 9, 49, tzinfo=dt.UTC), "2026-10-28T17:09:49Z", True),
    (["3.14t", "3.15t"], "的 3.14t 和 3.15t", True),
    (["3.14t", "3.16t"], "的 3.14t 和 3.15t", False),
])
def test_locale_forms(value, locator, found):
    assert found_in(value, [locator]) is found


# --- near-copies of the source articles (atlas/nearcopy.py), on articles these tests write ---------
NEAR_ARTICLE = ("Разработчики переписали бэкенд целиком и теперь он принимает группы процессов на лету, "
                "а старый код продолжает работать без изменений в большинстве случаев.")


def _near(text: str, others: list[str], lang: str = "ru", article: str = NEAR_ARTICLE, settings=None):
    """Copies found in a one-language fact base: ``text`` and ``others`` as ``lang`` translations,
    compared with ``article`` (source ``ru-a``)."""
    from types import SimpleNamespace

    from atlas import nearcopy

    items = [SimpleNamespace(key=f"x{i}.summary", en="English.") for i in range(len(others) + 1)]
    translations = {lang: {t.key: (SimpleNamespace(text=s), f"data/translations/{lang}/x.yaml")
                           for t, s in zip(items, [text, *others])}}
    fb = SimpleNamespace(texts=items, translations=translations,
                         sources=SimpleNamespace(sources=[SimpleNamespace(id="ru-a", language=lang)]))
    return nearcopy.find(fb, {"ru-a": article}, settings)


OTHERS = ["Версия меняет формат файлов.", "Компиляция требует новый драйвер.", "Профилировщик пишет трассу."]


def test_a_sentence_that_follows_the_article_is_a_near_copy_and_named():
    found = _near("Разработчики переписали бэкенд целиком, теперь он принимает группы процессов на лету.", OTHERS)
    assert [c.key for c in found] == ["x0.summary"]
    assert "near-copy of ru-a" in str(found[0]) and "data/translations/ru/x.yaml: x0.summary: text:" in str(found[0])
    assert any("групп процесс" in g for g in found[0].shared)


def test_own_words_for_the_same_fact_are_not_a_near_copy():
    assert not _near("Бэкенд написан заново; группы процессов теперь можно менять во время работы.", OTHERS)


def test_wording_many_of_our_own_texts_share_is_vocabulary_not_a_copy():
    """An n-gram more than df_max of our texts use (a term of the site) does not count as copied."""
    copy = "Разработчики переписали бэкенд целиком, теперь он принимает группы процессов на лету."
    assert _near(copy, OTHERS) and not _near(copy, [copy] * 4)


#: (article, a long text that copies one stretch of it, the same text with that stretch in its own words)
LONG_COPIES = {
    "ru": ("Перед обновлением стоит свериться с матрицей сборок на странице релиза и проверить версии драйверов "
           "для вашей видеокарты, а затем прогнать тесты на новой версии.",
           "Команда советует не торопиться: свериться с матрицей сборок на странице релиза, потом собрать окружение "
           "заново, запустить модели на небольшом наборе данных, сравнить метрики с прежними значениями и только после "
           "этого переключать рабочие задания на новую версию библиотеки, сохранив старое окружение на случай отката "
           "и записав результаты в журнал.",
           "открыть таблицу поддерживаемых платформ"),
    "id": ("Sebelum memperbarui, periksa matriks build di halaman rilis untuk memastikan versi driver yang cocok dengan "
           "kartu grafis Anda, lalu jalankan pengujian pada versi baru.",
           "Tim menyarankan agar tidak terburu-buru: periksa matriks build di halaman rilis untuk memastikan versi driver, "
           "kemudian susun ulang lingkungan kerja, coba model pada kumpulan data kecil, bandingkan metrik dengan nilai "
           "sebelumnya, dan baru sesudah itu alihkan pekerjaan produksi ke pustaka yang baru beserta seluruh skrip "
           "pendukungnya.",
           "lihat dulu tabel platform yang didukung beserta kebutuhan perangkat"),
    "zh": ("升级之前，最好先对照发布页上的构建矩阵核对显卡驱动版本，然后在新版本上把测试完整跑一遍。",
           "团队建议不要急于切换：先对照发布页上的构建矩阵，确认所需的硬件条件，再重新搭建运行环境，用一小份数据把模型跑一遍，"
           "把各项指标和以前的数值逐一比较，确认没有退化之后，才把线上任务和相关脚本迁移到新的库上，并保留旧环境一段时间以便回退。",
           "先查看支持平台的表格"),
}
COPIED = {"ru": "свериться с матрицей сборок на странице релиза", "zh": "先对照发布页上的构建矩阵",
          "id": "periksa matriks build di halaman rilis untuk memastikan versi driver"}


@pytest.mark.parametrize("lang", sorted(LONG_COPIES))
def test_a_long_text_that_follows_the_article_in_one_stretch_is_a_near_copy(lang):
    """Issue 29: a long text that copies one stretch keeps a low share of copied n-grams (the first
    measure passes it, as it passed zh 215-nvgemm-nvfp4-decode); the count of distinct rare 3-grams
    it shares with the article catches it, and the same text in its own words is not flagged."""
    from dataclasses import replace

    from atlas.nearcopy import SETTINGS

    article, copy, own_words = LONG_COPIES[lang]
    found = _near(copy, [], lang, article)
    assert [c.key for c in found] == ["x0.summary"] and found[0].long, found
    assert "distinct rare 3-grams are the article's" in str(found[0])
    assert not _near(copy, [], lang, article, {lang: replace(SETTINGS[lang], long_min=0)})   # the share alone passes it
    assert not _near(copy.replace(COPIED[lang], own_words), [], lang, article)


def _add_web_source(data) -> None:
    """An official web page as a second source of the tiny release (issue 26)."""
    doc = yaml.safe_load((data / "sources.yaml").read_text(encoding="utf-8"))
    doc["sources"].append({"id": "tiny-web", "url": "https://pytorch.org/blog/tiny-9-1/", "language": "en",
                           "description": "the project's blog", "form": "release announcement",
                           "published": dt.date(2027, 1, 10), "about": "9.1", "contribution": "The announcement."})
    (data / "sources.yaml").write_text(dump(doc), encoding="utf-8")


def test_a_web_locator_is_listed_as_not_re_verifiable_never_counted_as_found(tiny):
    data, arts = tiny
    _add_web_source(data)
    edit(data / "releases" / "9.1.yaml", '      - {source: tiny-a, locator: "goes away in 9.2"}\n',
         '      - {source: tiny-a, locator: "goes away in 9.2"}\n      - {source: tiny-web, locator: "sample is gone now"}\n')
    report = validate(load(data), arts).provenance
    assert report.locators == 4                         # the article's locators only
    assert report.offline == [f"{F91}: 91-sample: sources.2: tiny-web https://pytorch.org/blog/tiny-9-1/ "
                              "«sample is gone now»"]
    r = subprocess.run([sys.executable, "-m", "atlas", "provenance", "--sources", str(arts), "--data", str(data)],
                       capture_output=True, text=True, env=atlas_env(ROOT))
    assert "1 locators quote official web pages and are not re-verifiable offline:" in r.stdout, r.stdout + r.stderr
    assert "tiny-web https://pytorch.org/blog/tiny-9-1/" in r.stdout


def test_a_value_cited_only_by_a_web_page_must_still_be_in_its_locator(tiny):
    data, arts = tiny
    _add_web_source(data)
    edit(data / "releases" / "9.1.yaml", '{source: tiny-a, locator: "goes away in 9.2"}',
         '{source: tiny-web, locator: "the switch goes away soon"}')
    found = problems(data, arts)
    assert any(p.startswith(f"{F91}: 91-sample: values.removed_in: value 9.2 not found in any cited locator")
               for p in found), found


def test_a_web_source_url_must_be_https_without_markup(tiny):
    data, _ = tiny
    _add_web_source(data)
    text = (data / "sources.yaml").read_text(encoding="utf-8").replace("https://pytorch.org/blog/tiny-9-1/",
                                                                       "javascript:alert(1)")
    (data / "sources.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as info:
        validate(load(data))
    assert any("tiny-web: url:" in p for p in info.value.problems), info.value.problems
