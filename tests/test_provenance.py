"""Values are checked against the sources: a wrong number fails, naming field and locator.

These tests change the data in a temporary copy and expect the check to fail;
none of them restates a value from the data.
"""
from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys

import pytest
import yaml

from atlas.load import DataError, load
from atlas.provenance import find_sources_dir, found_in
from atlas.validate import validate
from conftest import ROOT

SOURCES = find_sources_dir()
F215 = "data/releases/2.15.yaml"


def test_the_articles_are_found():
    # the build and `make provenance` look for them here; without them nothing is checked
    assert SOURCES is not None and any(SOURCES.glob("*.txt")), "no shared/sources directory above the repository"


def test_real_data_passes_with_every_value_checked(factbase):
    report = factbase.provenance
    assert report is not None and not report.problems
    assert report.values > report.exempt > 0


def _problems(data) -> list[str]:
    with pytest.raises(DataError) as info:
        validate(load(data), SOURCES)
    return info.value.problems


def _edit(path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == count, (old, text.count(old))
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_changed_values_name_file_fact_field_value_and_locator(data_copy):
    rel = data_copy / "releases" / "2.15.yaml"
    _edit(rel, "    value: 580\n", "    value: 585\n")          # matrix.nvidia_min_driver
    _edit(rel, "      driver: 580\n", "      driver: 585\n")      # 215-cuda13-driver-arch
    _edit(rel, "contributors: 583\n", "contributors: 538\n")
    problems = _problems(data_copy)
    expected = [
        f"{F215}: 2.15: matrix.nvidia_min_driver.value: value 585 not found in any cited locator "
        "(zh-arex-215 «NVIDIA 驱动 580 以上»)",
        f"{F215}: 215-cuda13-driver-arch: values.driver: value 585 not found in any cited locator "
        "(zh-arex-215 «NVIDIA 驱动 580 以上»",
        f"{F215}: 2.15: contributors: value 538 not found in any cited locator (zh-arex-215 «583 位贡献者»; "
        "id-explainer-215 «583 kontributor»)",
    ]
    for e in expected:
        assert any(p.startswith(e) for p in problems), e + "\n--- got:\n" + "\n".join(problems)
    assert len(problems) == len(expected), "\n".join(problems)


def test_make_provenance_fails_with_the_same_message(data_copy):
    _edit(data_copy / "releases" / "2.15.yaml", "contributors: 583\n", "contributors: 538\n")
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_sources.py"), "--data", str(data_copy)],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert f"{F215}: 2.15: contributors: value 538 not found in any cited locator" in run.stdout
    assert "Traceback" not in run.stderr


def test_a_locator_must_occur_verbatim_in_its_article(data_copy):
    _edit(data_copy / "releases" / "2.15.yaml", '"583 位贡献者"', '"538 位贡献者"')
    problems = _problems(data_copy)
    assert any(p.startswith(f"{F215}: 2.15: provenance.contributors.0: locator '538 位贡献者' not found verbatim "
                            "in zh-arex-215") for p in problems), "\n".join(problems)


def test_a_source_title_must_open_its_article_headline(data_copy):
    """The title is a locator of the headline (its opening words), not a paraphrase."""
    sources = yaml.safe_load((data_copy / "sources.yaml").read_text(encoding="utf-8"))["sources"]
    titled = next(s for s in sources if s.get("title"))
    _edit(data_copy / "sources.yaml", titled["title"], titled["title"].replace(" …", "X …"))
    problems = _problems(data_copy)
    assert any(p.startswith(f"data/sources.yaml: {titled['id']}: title: ") for p in problems), "\n".join(problems)


def test_an_exemption_needs_an_inferred_note_that_names_the_value(data_copy):
    rel = data_copy / "releases" / "2.15.yaml"
    _edit(rel, "        values: [removed_in, rollback.removed_in]\n", "")
    problems = _problems(data_copy)
    for field in ("values.removed_in", "rollback.removed_in"):
        assert any(p.startswith(f"{F215}: 215-nccl-default: {field}: value 2.16 not found") for p in problems), field


def test_an_inferred_matrix_cell_needs_its_note(data_copy):
    path = data_copy / "releases" / "2.14.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    cell = data["matrix"]["cuda_other_wheels"]
    assert cell["inferred"]
    del cell["note"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    problems = _problems(data_copy)
    assert any(p.startswith("data/releases/2.14.yaml: 2.14: matrix.cuda_other_wheels.value: value [12.6] not found")
               for p in problems), "\n".join(problems)


def test_a_quoted_error_must_come_from_the_article(data_copy):
    _edit(data_copy / "releases" / "2.15.yaml", "(expected 5)\", origin: quoted", "(expected 6)\", origin: quoted")
    problems = _problems(data_copy)
    assert any(re.match(rf"{F215}: 215-dcp-strides: errors\.0\.message: value .*expected 6.* not found", p)
               for p in problems), "\n".join(problems)


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
    (dt.datetime(2026, 11, 5, 11, 0), "2026 年 11 月 5 日上午 11 时", True),
    (dt.datetime(2026, 11, 5, 10, 0), "2026 年 11 月 5 日上午 11 时", False),
    (dt.datetime(2026, 10, 28, 17, 9, 49, tzinfo=dt.timezone.utc), "2026-10-28T17:09:49Z", True),
    (["3.14t", "3.15t"], "的 3.14t 和 3.15t", True),
    (["3.14t", "3.16t"], "的 3.14t 和 3.15t", False),
])
def test_locale_forms(value, locator, found):
    assert found_in(value, [locator]) is found
