"""Real-browser tests: Playwright driving Debian's Chromium against the built site on 127.0.0.1.

Chromium is required: when it is missing these tests fail (``make test`` installs it first
with scripts/dev/ensure_browser.py), they never skip.
"""
from __future__ import annotations

import re

import pytest

from atlas.langs import LANGS
from atlas.urls import url_for
from conftest import HOSTILE_ID, HOSTILE_PLAIN, ROOT  # the `browser` and `page` fixtures are in conftest.py

pytestmark = pytest.mark.slow
ARTIFACTS = ROOT / "test-artifacts"


def search(page, base: str, lang: str, query: str) -> list[str]:
    page.goto(base + url_for(lang)[1:])
    return type_query(page, query)


def type_query(page, query: str) -> list[str]:
    """Type ``query`` into the open page's search box; the hrefs of the results, in order."""
    box = page.locator("#atlas-search-input")
    box.click()
    box.fill(query)
    box.press("End")  # a real keyup, as a typing user produces
    page.wait_for_function(
        "q => { const r = document.getElementById('atlas-search-results');"
        " return !r.hidden && r.dataset.q === q; }",
        arg=box.input_value(), timeout=15000)  # a one-line box turns line breaks into spaces
    return page.eval_on_selector_all("#atlas-search-results a", "els => els.map(e => e.getAttribute('href'))")


# (language, query, change id that must be the first result)
SEARCH_CASES = [
    ("en", "torch.linalg.qr", "214-remove-qr"),
    ("en", "pipeline_per_edge_p2p", "215-pipeline-per-edge-p2p"),
    ("en", "TORCH_DIST_USE_NCCL2", "215-nccl-default"),
    ("en", "macOS 15", "215-mps-macos15"),
    ("en", "Python 3.10", "215-python-310-dropped"),
    ("en", "CheckpointException: too many values to unpack (expected 5)", "215-dcp-strides"),
    ("en", "ImportError: torch can only be initialized once per process", "215-import-once"),
    ("en", "Expected tensor on cuda:X but found tensor on cuda:Y", "215-nccl-device-binding"),
    ("en", "RuntimeError: This function was deprecated since version 1.9 and is now removed. `torch.cholesky` is deprecated", "214-remove-cholesky"),
    ("en", "acc_policy balanced", "214-acc-policy-balanced"),
    ("en", "float8_e4m3fn", "215-mps-fp8"),
    ("en", "nested tensors", "215-weights-only-nested"),
    ("en", "clamp gradient", "214-clamp-grad"),
    ("zh", "torch.linalg.qr", "214-remove-qr"),
    ("zh", "pipeline_per_edge_p2p", "215-pipeline-per-edge-p2p"),
    ("zh", "TORCH_DIST_USE_NCCL2", "215-nccl-default"),
    ("zh", "macOS 15", "215-mps-macos15"),
    ("zh", "Python 3.10", "215-python-310-dropped"),
    ("zh", "CheckpointException: too many values to unpack (expected 5)", "215-dcp-strides"),
    ("zh", "ImportError: torch can only be initialized once per process", "215-import-once"),
    ("zh", "分布式检查点", "215-dcp-strides"),
    ("zh", "只能初始化一次", "215-import-once"),
    ("zh", "梯度 边界", "214-clamp-grad"),
    ("zh", "通信器 显存", "215-nccl-eager-communicators"),
    ("zh", "嵌套张量", "215-weights-only-nested"),
    ("zh", "显存", "215-nccl-eager-communicators"),
    ("zh", "float8_e4m3fn", "215-mps-fp8"),
    ("ru", "torch.linalg.qr", "214-remove-qr"),
    ("ru", "pipeline_per_edge_p2p", "215-pipeline-per-edge-p2p"),
    ("ru", "TORCH_DIST_USE_NCCL2", "215-nccl-default"),
    ("ru", "macOS 15", "215-mps-macos15"),
    ("ru", "Python 3.10", "215-python-310-dropped"),
    ("ru", "CheckpointException: too many values to unpack (expected 5)", "215-dcp-strides"),
    ("ru", "ImportError: torch can only be initialized once per process", "215-import-once"),
    ("ru", "распределённые чекпоинты", "215-dcp-strides"),
    ("ru", "градиент clamp", "214-clamp-grad"),
    ("ru", "коммуникаторы видеопамять", "215-nccl-eager-communicators"),
    ("ru", "инициализирует один раз", "215-import-once"),
    ("ru", "float8_e4m3fn", "215-mps-fp8"),
    ("id", "torch.linalg.qr", "214-remove-qr"),
    ("id", "pipeline_per_edge_p2p", "215-pipeline-per-edge-p2p"),
    ("id", "TORCH_DIST_USE_NCCL2", "215-nccl-default"),
    ("id", "macOS 15", "215-mps-macos15"),
    ("id", "Python 3.10", "215-python-310-dropped"),
    ("id", "CheckpointException: too many values to unpack (expected 5)", "215-dcp-strides"),
    ("id", "ImportError: torch can only be initialized once per process", "215-import-once"),
    # names no release: either change of distributed checkpoint explains it
    ("id", "checkpoint terdistribusi", ("215-dcp-strides", "23-dcp-coordinator-rank-no-dist-removed")),
    ("id", "gradien clamp skalar", "214-clamp-grad"),
    ("id", "komunikator memori GPU", "215-nccl-eager-communicators"),
    ("id", "inisialisasi sekali", "215-import-once"),
    ("id", "float8_e4m3fn", "215-mps-fp8"),
]


@pytest.fixture(scope="module")
def home_page(browser, served_site):
    """One home page per language, kept open from one search case to the next, as a reader types
    query after query (a new page per case cost 0.6 s each); no request may leave 127.0.0.1."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pages: dict = {}
    outside: list = []

    def open_home(lang: str):
        if lang not in pages:
            pg = ctx.new_page()
            pg.on("request", lambda r: outside.append(r.url) if not r.url.startswith("http://127.0.0.1") else None)
            pg.goto(served_site + url_for(lang)[1:])
            pages[lang] = pg
        return pages[lang]

    yield open_home
    ctx.close()
    assert not outside, f"requests to other hosts: {outside[:5]}"


@pytest.mark.parametrize("lang,query,expected", SEARCH_CASES, ids=[f"{l}:{q[:30]}" for l, q, _ in SEARCH_CASES])
def test_search_puts_the_explaining_change_first(home_page, lang, query, expected):
    results = type_query(home_page(lang), query)
    prefix = url_for(lang).rstrip("/")
    assert results, f"no result for {query!r} in {lang}"
    assert results[0] in {f"{prefix}/changes/{e}/" for e in ((expected,) if isinstance(expected, str) else expected)}, results[:5]
    assert all(r.startswith(f"{prefix}/") and (lang != LANGS[0] or r.split("/")[1] not in LANGS) for r in results[:3]), \
        f"another language leads: {results[:3]}"


#: Issue 41: errors of a package built for another torch, as other threads than the cited ones paste
#: them (another path, another symbol, another build), and the companions page's anchor each must reach.
COMPANION_PASTES = [
    ("RuntimeError: operator torchvision::nms does not exist", "torchvision-nms"),
    ("OSError: /usr/local/lib/python3.8/dist-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: "
     "_ZNK3c107SymBool10guard_boolEPKcl", "torchaudio-undefined-symbol"),
    ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for: "
     "PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)", "xformers-built-for"),
    ("ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
     "undefined symbol: _ZN3c104cuda9SetDeviceEi", "flash-attn-undefined-symbol"),
]


@pytest.mark.parametrize("lang", LANGS)
def test_a_pasted_companion_error_leads_to_the_companions_page(home_page, lang):
    prefix = url_for(lang).rstrip("/")
    page = home_page(lang)
    for query, anchor in COMPANION_PASTES:
        results = type_query(page, query)
        assert results and results[0] == f"{prefix}/companions/#{anchor}", (query, results[:3])


# ------------------------------------------------------------------ the search box (issue 8)
def _options(page) -> list[dict]:
    return page.eval_on_selector_all(
        "#atlas-search-listbox [role=option]",
        "els => els.map(e => ({id: e.id, selected: e.getAttribute('aria-selected'), href: e.getAttribute('href')}))")


def test_search_box_is_a_combobox_driven_by_the_keyboard(page, served_site):
    results = search(page, served_site, "en", "nccl")
    assert len(results) >= 3
    box = page.locator("#atlas-search-input")
    assert box.get_attribute("role") == "combobox" and box.get_attribute("aria-expanded") == "true"
    assert box.get_attribute("aria-controls") == "atlas-search-listbox"
    assert page.get_attribute("#atlas-search-listbox", "role") == "listbox"
    box.press("ArrowDown")
    opts = _options(page)
    assert box.get_attribute("aria-activedescendant") == opts[0]["id"] and opts[0]["selected"] == "true"
    box.press("ArrowDown")
    opts = _options(page)
    assert box.get_attribute("aria-activedescendant") == opts[1]["id"]
    assert [o["selected"] for o in opts[:2]] == ["false", "true"]
    box.press("ArrowUp")
    assert box.get_attribute("aria-activedescendant") == opts[0]["id"]
    assert page.evaluate("document.activeElement.id") == "atlas-search-input"   # focus never leaves the box
    box.press("Escape")
    assert page.locator("#atlas-search-results").is_hidden()
    assert box.get_attribute("aria-expanded") == "false" and box.get_attribute("aria-activedescendant") is None
    assert page.evaluate("document.activeElement.id") == "atlas-search-input"
    box.press("ArrowDown")                       # reopens the list
    box.press("ArrowDown")
    box.press("ArrowDown")
    with page.expect_navigation():
        box.press("Enter")                       # opens the second result
    assert page.url.endswith(results[1])


def test_search_list_closes_when_focus_leaves(page, served_site):
    search(page, served_site, "en", "python")
    page.locator("#atlas-search-input").press("Tab")
    assert page.locator("#atlas-search-results").is_hidden()
    assert page.get_attribute("#atlas-search-input", "aria-expanded") == "false"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_search_announces_the_number_of_results(page, served_site, lang):
    results = search(page, served_site, lang, "fsdp2")
    status = page.locator("#atlas-search-status")
    assert status.get_attribute("role") == "status" and status.get_attribute("aria-live") == "polite"
    assert str(len(results)) in status.text_content()
    search(page, served_site, lang, "zzzqqqxxjjj")
    assert status.text_content() == page.get_attribute("#atlas-search-results", "data-none")


def test_search_reads_the_attribute_python_names_as_an_identifier(page, served_site):
    """`module 'X' has no attribute 'Y'` and `'X' object has no attribute 'Y'` name X.Y (search.js ATTR)."""
    page.goto(served_site)
    page.wait_for_function("() => window.AtlasSearch")
    idents = lambda q: page.evaluate("q => window.AtlasSearch.idents(q)", q)  # noqa: E731
    assert "torch.linalg.solve_ex" in idents("AttributeError: module 'torch.linalg' has no attribute 'solve_ex'")
    assert "Tensor.storage_offset" in idents('AttributeError: "Tensor" object has no attribute "storage_offset"')
    assert not any("." in i for i in idents("AttributeError: module torch has no attribute qr"))   # no quotes: no name


def test_search_runs_once_per_burst_of_keystrokes(page, served_site):
    page.goto(served_site)
    box = page.locator("#atlas-search-input")
    box.click()
    page.wait_for_function("() => window.AtlasSearch")
    page.evaluate("""() => { window.__renders = 0;
        new MutationObserver(() => window.__renders++).observe(
            document.getElementById('atlas-search-results'), {attributes: true, attributeFilter: ['data-q']}); }""")
    # keystrokes typed faster than the debounce: one search for the burst
    page.evaluate("""() => { const box = document.getElementById('atlas-search-input');
        for (const ch of 'lazy_init') { box.value += ch; box.dispatchEvent(new Event('input', {bubbles: true})); } }""")
    page.wait_for_function("() => document.getElementById('atlas-search-results').dataset.q === 'lazy_init'")
    page.wait_for_timeout(200)
    assert page.evaluate("window.__renders") == 1
    # real keystrokes, however slow: never more than one search per keystroke (input and keyup once ran two)
    box.press_sequentially("x y", delay=60)
    page.wait_for_function("() => document.getElementById('atlas-search-results').dataset.q === 'lazy_initx y'")
    page.wait_for_timeout(200)
    assert 2 <= page.evaluate("window.__renders") <= 1 + 3


def test_search_retries_when_the_index_failed_to_load(page, served_site):
    failed = []

    def flaky(route):
        if not failed:
            failed.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/search/en.json", flaky)
    results = search(page, served_site, "en", "torch.linalg.qr")
    assert failed and results[0] == "/changes/214-remove-qr/"


def test_search_result_titles_are_text_not_html(page, served_site):
    search(page, served_site, "en", 'acc_policy="balanced"')
    first = page.locator("#atlas-search-listbox [role=option]").first
    assert first.locator(".atlas-search__title").text_content().startswith('acc_policy="balanced" is removed')


def test_search_labels_partial_matches_and_keeps_them(page, served_site):
    results = search(page, served_site, "en", "fsdp2 flibbertigibbet")
    assert results and results[0].startswith("/changes/215-fsdp2")
    label = page.locator("#atlas-search-results .atlas-search__partial")
    assert label.is_visible() and label.evaluate("e => e.closest('a') === null")
    search(page, served_site, "en", "fsdp2")
    assert page.locator("#atlas-search-results .atlas-search__partial").count() == 0


@pytest.mark.parametrize("lang", ["en", "zh", "ru", "id"])
def test_a_pasted_traceback_finds_its_change_first(page, served_site, lang):
    trace = ("Traceback (most recent call last):\n"
             '  File "/srv/job/train.py", line 88, in <module>\n'
             "    state = dcp.load(sd, checkpoint_id=path)\n"
             '  File "/opt/venv/lib/python3.12/site-packages/torch/distributed/checkpoint/api.py", line 41\n'
             "torch.distributed.checkpoint.api.CheckpointException: too many values to unpack (expected 5)")
    prefix = "" if lang == "en" else f"/{lang}"
    assert search(page, served_site, lang, trace)[0] == f"{prefix}/changes/215-dcp-strides/"


def test_search_works_under_a_sub_path(page, built_site, tmp_path):
    import static_server

    (tmp_path / "atlas").symlink_to(built_site, target_is_directory=True)
    server, url = static_server.serve(tmp_path)
    try:
        results = search(page, url + "atlas/", "zh", "V100")
        assert results and results[0].startswith("/atlas/zh/changes/")
    finally:
        server.shutdown()


def test_search_with_no_match_says_so(page, served_site):
    search(page, served_site, "en", "zzzqqqxxjjj")
    assert page.locator("#atlas-search-results .atlas-search__none").is_visible()


@pytest.mark.parametrize("lang", LANGS)
def test_language_switcher_keeps_the_page(page, served_site, lang):
    start = served_site + url_for(lang, "changes/215-dcp-strides/")[1:]
    for target in LANGS:
        page.goto(start)
        href = page.locator(f'.md-select__link[hreflang="{target}"]').get_attribute("href")
        page.goto(page.url.rsplit("/changes/", 1)[0] + "/changes/215-dcp-strides/" if href is None else
                  page.evaluate("h => new URL(h, location.href).href", href))
        assert page.evaluate("document.documentElement.lang") == target
        assert page.url.endswith(url_for(target, "changes/215-dcp-strides/")), page.url


@pytest.mark.parametrize("lang", LANGS)
def test_permanent_change_url_opens_directly(page, served_site, lang):
    url = served_site + url_for(lang, "changes/215-dcp-strides/")[1:]
    resp = page.goto(url)
    assert resp.status == 200
    assert "CheckpointException: too many values to unpack (expected 5)" in page.locator("article").inner_text()


def test_breaking_index_filters_by_release_area_and_type(page, served_site, factbase):
    page.goto(served_site + "breaking/")
    rows = page.locator("table[data-atlas-table] tbody tr")
    total = rows.count()
    visible = lambda: page.locator("table[data-atlas-table] tbody tr:not([hidden])").count()  # noqa: E731
    assert total > 20 and visible() == total
    page.select_option("select[name=release]", "2.14")
    n214 = visible()
    assert 0 < n214 < total
    assert all(v == "2.14" for v in page.eval_on_selector_all(
        "table[data-atlas-table] tbody tr:not([hidden])", "els => els.map(e => e.dataset.release)"))
    page.select_option("select[name=type]", "removal")
    assert 0 < visible() < n214
    page.select_option("select[name=area]", "linalg")
    assert visible() == 2  # torch.cholesky and torch.qr
    # the live count says exactly how many rows are shown, in the page's words
    expected = factbase.ui["en"]["filter.shown"].replace("{shown}", "2").replace("{total}", str(total))
    assert page.locator(".atlas-filter-count").inner_text() == expected


def test_upgrade_picker_opens_the_pair(page, served_site):
    page.goto(served_site + "ru/upgrade/")
    page.select_option("select[name=from]", "2.13")
    page.select_option("select[name=to]", "2.15")
    page.click("form[data-atlas-picker] button")
    page.wait_for_url("**/ru/upgrade/2.13-to-2.15/")
    assert "2.13" in page.locator("h1").inner_text() and "2.15" in page.locator("h1").inner_text()


CHECK_CODE = """import torch as th
from torch.autograd import profiler
# torch.cholesky in a comment is not a finding, nor is a string "torch.qr"
def qr(x):
    return x
L = th.cholesky(A)
Q, R = qr(A)
with profiler.profile(use_cuda=True) as prof:
    pass
"""
CHECK_ENV = """PyTorch version: 2.13.0+cu126
Is debug build: False
CUDA used to build PyTorch: 12.6
OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.10.14 (main, Mar 21 2024, 16:24:04) [GCC 11.2.0] (64-bit runtime)
Is CUDA available: True
GPU models and configuration: GPU 0: Tesla V100-SXM2-32GB
Nvidia driver version: 535.104.05
"""


def _check(page, served_site, lang, text, kind="auto", frm="2.13", to="2.15"):
    page.goto(served_site + url_for(lang)[1:] + "check/")
    page.fill("#atlas-check-input", text)
    page.check(f"input[name=kind][value={kind}]")
    page.select_option("form[data-atlas-check] select[name=from]", frm)
    page.select_option("form[data-atlas-check] select[name=to]", to)
    page.click("form[data-atlas-check] button[type=submit]")
    page.wait_for_function("() => document.querySelector('form[data-atlas-check]').dataset.ms !== undefined")
    return page.locator(".atlas-check-status").inner_text()


@pytest.mark.parametrize("lang", LANGS)
def test_check_page_finds_the_changes_in_pasted_code(page, served_site, factbase, lang):
    status = _check(page, served_site, lang, CHECK_CODE)
    changes = page.eval_on_selector_all(".atlas-check-results li[data-change]", "els => els.map(e => e.dataset.change)")
    # th.cholesky and the profiler's use_cuda; qr is the file's own function, comments and strings do not count
    assert sorted(changes) == ["214-profiler-use-cuda", "214-remove-cholesky"], changes
    titles = page.eval_on_selector_all(".atlas-check-results li a", "els => els.map(e => [e.textContent, e.href])")
    cholesky = next(t for t in titles if "214-remove-cholesky" in t[1])
    assert cholesky[1].endswith(url_for(lang, "changes/214-remove-cholesky/"))
    assert page.locator("form[data-atlas-check]").get_attribute("data-kind") == "code"
    assert status == factbase.ui[lang]["check.found"].replace("{n}", "2")
    # grouped by severity, the group named in the page's language
    heading = page.locator(".atlas-check-group[data-severity=breaks] h3").inner_text()
    assert heading.startswith(factbase.ui[lang]["check.severity.breaks"])


def test_check_page_reads_an_environment_paste(page, served_site):
    _check(page, served_site, "en", CHECK_ENV)
    assert page.locator("form[data-atlas-check]").get_attribute("data-kind") == "env"
    verdicts = dict(page.eval_on_selector_all(".atlas-check-env li", "els => els.map(e => [e.dataset.check, e.dataset.verdict])"))
    # Volta (V100) is not built by the default wheels of 2.15; Python 3.10 wheels stop with 2.15
    assert verdicts["gpu_arch"] == "blocked" and verdicts["python"] == "blocked", verdicts
    assert not {"macos_mps", "rocm_target"} & set(verdicts)   # a Linux NVIDIA box: no macOS or ROCm rows
    assert page.locator(".atlas-check-results a", has_text="2.13").count() >= 1   # the upgrade page from->to


def test_check_page_judges_two_pastes_one_by_one(page, served_site, factbase):
    from test_check import TWO_PASTES

    status = _check(page, served_site, "ru", TWO_PASTES, to="2.5")
    heads = page.eval_on_selector_all(".atlas-check-paste h3", "els => els.map(e => e.textContent)")
    tmpl = factbase.ui["ru"]["check.paste_n"]
    assert heads == [tmpl.format(n=1, m=2, torch="2.4.1+cu121"), tmpl.format(n=2, m=2, torch="2.1.2+cu121")]
    gpu = page.eval_on_selector_all(".atlas-check-paste li[data-check=gpu_arch]", "els => els.map(e => e.dataset.verdict)")
    assert gpu == ["ok", "blocked"]   # the 3090 is not judged by the 780
    rows = page.locator(".atlas-check-paste li[data-check]").count()
    blocked = page.locator(".atlas-check-paste li[data-verdict=blocked]").count()
    assert status == factbase.ui["ru"]["check.env_done"].format(n=rows, blocked=blocked) and blocked >= 1


def test_check_page_says_when_nothing_is_affected(page, served_site, factbase):
    status = _check(page, served_site, "zh", "import torch\nQ, R = torch.linalg.qr(A)\n", kind="code")
    assert status == factbase.ui["zh"]["check.none"]
    assert page.locator(".atlas-check-group li").count() == 0
    assert page.locator(".atlas-check-blind li").count() >= 1   # what it cannot see is still said


def test_check_page_keeps_up_with_its_pickers(page, served_site, factbase):
    """Repeated notes are grouped, links are root-relative, what the check cannot see is listed,
    a changed picker runs the check again and explains a reversed pair, and an environment paste
    sets From to its own torch version."""
    ui = factbase.ui["en"]
    # x requires grad, so the clamp note is shown (a file without the condition hides it: shown_if)
    code = ("import torch\nQ, R = torch.qr(A)\nx = torch.zeros(3, requires_grad=True)\n"
            + "".join(f"y{i} = x.clamp(0, {i})\n" for i in range(5)) + "w = torch.clamp(v, 0)\n")
    _check(page, served_site, "en", code, kind="code")
    grouped = page.locator(".atlas-check-results li[data-places]")   # .clamp() and torch.clamp: one change, one note
    assert grouped.count() == 1 and grouped.get_attribute("data-places") == "6"
    assert grouped.locator("summary").inner_text() == ui["check.places"].replace("{n}", "6")
    hrefs = page.eval_on_selector_all(".atlas-check-results a", "els => els.map(e => e.getAttribute('href'))")
    assert hrefs and all(h.startswith("/") and "://" not in h for h in hrefs), hrefs
    blind = page.eval_on_selector_all(".atlas-check-blind li", "els => els.map(e => e.dataset.unchecked)")
    assert blind and all(c.startswith(("214-", "215-")) for c in blind), blind
    box = page.locator("#atlas-check-input").bounding_box()
    form = page.locator("form[data-atlas-check]").bounding_box()
    assert box["width"] >= 0.9 * form["width"], (box, form)
    page.select_option("form[data-atlas-check] select[name=to]", "2.13")   # no click: the change runs it
    page.wait_for_function("t => document.querySelector('.atlas-check-status').textContent === t",
                           arg=ui["check.reversed"].replace("{old}", "2.13").replace("{new}", "2.13"))
    assert page.locator(".atlas-check-group li").count() == 0   # no stale result left on screen
    _check(page, served_site, "en", CHECK_ENV, frm="2.15")
    torch_rel = ".".join(re.search(r"PyTorch version: (\d+\.\d+)", CHECK_ENV).group(1).split(".")[:2])
    assert page.locator("select[name=from]").input_value() == torch_rel
    assert page.locator(".atlas-check-from").inner_text() == ui["check.from_paste"].replace("{release}", torch_rel)


@pytest.mark.parametrize("lang", LANGS)
def test_screenshots(page, served_site, lang):
    """Home, a release page, a change page and a search result, kept as artifacts."""
    ARTIFACTS.mkdir(exist_ok=True)
    pre = served_site + url_for(lang)[1:]
    for name, path in [("home", ""), ("release", "releases/2.15/"), ("change", "changes/215-dcp-strides/")]:
        page.goto(pre + path)
        box = page.locator("article h1").first.bounding_box()   # the page's heading is drawn on screen
        assert box and box["width"] > 50 and 0 <= box["y"] < 900, (name, box)
        page.screenshot(path=str(ARTIFACTS / f"{lang}-{name}.png"), full_page=False)
    search(page, served_site, lang, "torch.linalg.qr")
    page.screenshot(path=str(ARTIFACTS / f"{lang}-search.png"))
    if lang == "zh":  # Chinese must render with a real CJK font, not as boxes
        width = page.evaluate("""() => { const c = document.createElement('canvas').getContext('2d');
            c.font = '16px sans-serif'; return [c.measureText('检查点').width, c.measureText('\\u0378\\u0379\\u0380').width]; }""")
        assert width[0] > 0 and width[0] != width[1], width
    shots = {name: (ARTIFACTS / f"{lang}-{name}.png").read_bytes() for name in ("home", "release", "change", "search")}
    assert len(set(shots.values())) == len(shots), "two screenshots are identical: a page did not render"


A11Y_PAGES = ["", "releases/", "releases/2.15/", "changes/215-dcp-strides/", "breaking/", "changes/", "upgrade/",
              "upgrade/2.14-to-2.15/", "upgrade/2.4-to-2.15/", "errors/", "faq/", "faq/2.15/", "sources/", "api/", "about/", "check/", "404.html"]


#: axe reports every violating node in full; ``resultTypes`` limits only the passes, incomplete and
#: inapplicable lists to one node each, which is most of axe's time on long pages (about 35% here).
AXE_OPTIONS = {"resultTypes": ["violations"]}


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def serious_violations(axe, page) -> list[dict]:
    return [v for v in axe.run(page, options=AXE_OPTIONS).response["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("lang", LANGS)
def test_no_serious_or_critical_accessibility_violation(page, served_site, axe, lang):
    """axe-core on every page type (and an open search) in every language."""
    found = []
    pre = served_site + url_for(lang)[1:]
    for path in A11Y_PAGES:
        page.goto(pre + path)
        found += [(path, v["id"], v["impact"], v["nodes"][0]["target"]) for v in serious_violations(axe, page)]
    # the upgrade picker's sentence on a downgrade, with its link to the upgrade the other way round
    page.goto(pre + "upgrade/")
    page.select_option("select[name=from]", "2.14")
    page.select_option("select[name=to]", "2.12")
    page.click("form[data-atlas-picker] button")
    found += [("picker", v["id"], v["impact"], v["nodes"][0]["target"]) for v in serious_violations(axe, page)]
    search(page, served_site, lang, "torch.linalg.qr")
    found += [("search", v["id"], v["impact"], v["nodes"][0]["target"]) for v in serious_violations(axe, page)]
    assert not found, found


def test_axe_catches_a_violation(page, served_site, axe):
    """The accessibility check can fail: an unlabeled input with low contrast is reported."""
    page.goto(served_site)
    page.evaluate("""() => { const i = document.createElement('input'); i.type = 'text';
        document.querySelector('article').prepend(i);
        const p = document.createElement('p'); p.textContent = 'faint'; p.style.color = '#eee';
        document.querySelector('article').prepend(p); }""")
    ids = {v["id"] for v in serious_violations(axe, page)}
    assert {"label", "color-contrast"} <= ids, ids


@pytest.mark.slow
def test_a_hostile_title_is_text_in_search_results(variant_site, browser):
    """Through the search box's DOM contract (#atlas-search-input, #atlas-search-results a)."""
    import static_server

    server, url = static_server.serve(variant_site)
    ctx = browser.new_context()
    try:
        pg = ctx.new_page()
        results = search(pg, url, "en", "Zebrafish")
        assert results and results[0] == f"/changes/{HOSTILE_ID}/", results[:3]
        first = pg.locator("#atlas-search-results a").first
        assert first.locator(".atlas-search__title").text_content().strip() == HOSTILE_PLAIN
        assert first.locator("b").count() == 0, "the title's <b> became an element"
    finally:
        ctx.close()
        server.shutdown()


def test_check_page_draws_a_few_hundred_places_at_a_time(page, served_site, factbase):
    """A thousand uses of one removed function are one finding with its places, drawn a few
    hundred at a time behind a button that says how many are left; every place is reachable."""
    code = "import torch\n" + "".join(f"q{i} = torch.qr(a)\n" for i in range(1000))
    _check(page, served_site, "en", code, kind="code")
    grouped = page.locator(".atlas-check-results li[data-places]")
    assert grouped.get_attribute("data-places") == "1000"
    grouped.locator("summary").click()
    def drawn():
        return grouped.locator("details > ul > li").count()

    first = drawn()
    assert 100 <= first < 1000
    more = grouped.locator("button.atlas-check-more")
    assert more.inner_text() == factbase.ui["en"]["check.more"].replace("{n}", str(1000 - first))
    clicks = 0
    while more.count() and clicks < 20:
        more.click()
        clicks += 1
    assert drawn() == 1000 and clicks == -(-1000 // first) - 1


#: from 2.5: torch.cholesky is rewritten (its new name and .mH are in every release since 2.0);
#: torch.load's weights_only is a choice for a person: a suggestion with its proposed line
FIX_CODE = "import torch\nL = torch.cholesky(A, upper=True)  # <img src=x onerror=alert(1)>\nm = torch.load(path)\n"


def test_check_page_shows_the_proposed_diff_and_the_suggestions(page, served_site, factbase, axe):
    ui = factbase.ui["en"]
    _check(page, served_site, "en", FIX_CODE, kind="code", frm="2.5", to="2.15")
    fixes = page.locator(".atlas-check-fixes")
    assert fixes.locator("h3").inner_text() == ui["check.fix_title"]
    diff = fixes.locator("pre.atlas-check-diff").first
    # real text: each line says what it is with its "-" or "+", in <del> and <ins>, below a hunk header
    assert diff.locator(".atlas-check-diff__hunk").all_inner_texts() == ["@@ -1,3 +1,3 @@\n"]
    assert diff.locator("del").all_inner_texts() == ["-L = torch.cholesky(A, upper=True)  # <img src=x onerror=alert(1)>\n"]
    assert diff.locator("ins").all_inner_texts() == ["+L = torch.linalg.cholesky(A).mH  # <img src=x onerror=alert(1)>\n"]
    assert diff.inner_text().splitlines()[1:] == [" import torch", "-L = torch.cholesky(A, upper=True)  # <img src=x onerror=alert(1)>",
                                                 "+L = torch.linalg.cholesky(A).mH  # <img src=x onerror=alert(1)>", " m = torch.load(path)"]
    assert page.locator(".atlas-check-results img").count() == 0   # the snippet is text, never markup
    sg = fixes.locator("li[data-suggestion='26-load-weights-only-default']")
    # torch.load's suggestion names the choices and proposes no edit (issue 42: the new default alone changes nothing)
    assert sg.locator(".atlas-check-why").inner_text() == ui["check.suggest_why"].replace("{why}", ui["check.why.load_choice"])
    assert sg.locator("ins").count() == 0
    assert page.input_value("#atlas-check-input") == FIX_CODE   # a proposal: the paste is not rewritten
    # the findings are still there, above the proposal
    assert page.locator(".atlas-check-group li[data-change='214-remove-cholesky']").count() == 1
    assert page.evaluate("() => { const g = document.querySelector('.atlas-check-group'), f = document.querySelector('.atlas-check-fixes');"
                         " return !!(g.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING); }")
    assert not serious_violations(axe, page)
    # code with nothing to rewrite shows no proposal
    _check(page, served_site, "en", "import torch\nQ, R = torch.linalg.qr(A)\n", kind="code")
    assert page.locator(".atlas-check-fixes").count() == 0
