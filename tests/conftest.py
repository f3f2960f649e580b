"""Fixtures only. The real site is built once per session (built_site); one variant (a fifth
language and a hostile fact title, variant_site) once more, for the tests that need it."""
from __future__ import annotations

import gc
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from babel import Locale

from atlas import generated
from atlas.enrich import enrich
from atlas.keys import version_key
from atlas.langs import LANGS, LOCALES
from atlas.load import ROOT, dump, load
from atlas.plural import CATEGORIES
from atlas.validate import validate
from ensure_browser import CHROMIUM_ARGS, chromium

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: the upgrade checker's corpus is code to read, not tests to run (some of it is named test_*.py on purpose)
collect_ignore_glob = ["check_cases/*"]
#: What a copy of the repository leaves out: caches, the virtualenv, built sites, artifacts.
COPY_IGNORE = shutil.ignore_patterns(".venv", ".git", ".cache", ".pytest_cache", "site", "site.old", ".site-*",
                                     "test-artifacts", "__pycache__", "*.pyc")


def repo_copy(dst: Path) -> Path:
    """A copy of the repository without caches or built output (tests that build or break it): the
    generated pages under docs/ are left out too, so a copy is what a fresh clone holds."""
    shutil.copytree(ROOT, dst, ignore=COPY_IGNORE)
    generated.clean(dst / "docs")
    return dst


#: The first release small_history keeps: the releases the articles are about (2.14, 2.15) and the
#: one before them. Its wheels start one release earlier, so the oldest kept release has a diff too.
SMALL_FROM = (2, 13)


def small_history(repo: Path) -> Path:
    """Trim a repository copy's history to the releases from SMALL_FROM on (their release files,
    translations, published ids and the sources about them; the ledger of the 2.1-2.12 notes goes) and the wheels from the release before: every page type, 6
    upgrade pairs instead of 120, about 390 pages instead of 990. For the tests of build mechanics
    (sub-path, reproducibility, fifth language, serve, the fuzz's full build), whose subject does
    not grow with the history; the real site is built and checked whole."""
    data = repo / "data"
    gone = []
    for p in sorted((data / "releases").glob("*.yaml")):
        if version_key(p.stem)[:2] < SMALL_FROM:
            doc = yaml.safe_load(p.read_text(encoding="utf-8"))
            gone += [c["id"] for c in doc.get("changes") or []]
            p.unlink()
            for t in (data / "translations").glob(f"*/releases/{p.name}"):
                t.unlink()
    # the sources about a release no longer there (its page would be a broken link), and their texts
    sources = yaml.safe_load((data / "sources.yaml").read_text(encoding="utf-8"))
    old = {x["id"] for x in sources["sources"] if version_key(str(x["about"]))[:2] < SMALL_FROM}
    sources["sources"] = [x for x in sources["sources"] if x["id"] not in old]
    (data / "sources.yaml").write_text(dump(sources, sort_keys=False, allow_unicode=True), encoding="utf-8")
    for t in (data / "translations").glob("*/sources.yaml"):
        texts = yaml.safe_load(t.read_text(encoding="utf-8"))
        t.write_text(dump({k: v for k, v in texts.items() if k.split(".")[1] not in old}, sort_keys=False,
                          allow_unicode=True), encoding="utf-8")
    # the ledger of the official notes is about 2.1-2.12 only, and names their changes
    (data / "ledger.yaml").unlink(missing_ok=True)
    ledger = data / "published_ids.yaml"
    text = ledger.read_text(encoding="utf-8")
    # a redirect to a change no longer there goes, with the published id it kept working
    moved = {a for a, b in re.findall(r"^  (\S+): (\S+)$", text, flags=re.M) if b in gone}
    text = re.sub(r"^  (\S+): (\S+)\n", lambda m: "" if m.group(2) in gone else m.group(0), text, flags=re.M)
    text = re.sub(r"^  - (\S+)\n", lambda m: "" if m.group(1) in gone or m.group(1) in moved else m.group(0), text, flags=re.M)
    text = re.sub(r"^redirects:\n(?!  )", "redirects: {}\n", text, flags=re.M)
    ledger.write_text(text, encoding="utf-8")
    wheels = data / "wheels.yaml"
    text = wheels.read_text(encoding="utf-8")
    versions = yaml.safe_load(text)["versions"]
    keep = [v for v in versions if version_key(v)[:2] >= (SMALL_FROM[0], SMALL_FROM[1] - 1)]
    text, n = re.subn(r"^versions: \[.*?\]\n", "versions: " + json.dumps(keep) + "\n", text, flags=re.S | re.M)
    assert n == 1 and gone and len(keep) < len(versions), keep
    wheels.write_text(text, encoding="utf-8")
    _trim_probes(data, [v for v in versions if v not in keep])
    # the build matrix keeps the releases whose wheels stay (their rows cite sources about the
    # releases dropped above, e.g. 2.11's notes, which would be unknown sources)
    builds = data / "builds.yaml"
    if builds.exists():
        matrix = yaml.safe_load(builds.read_text(encoding="utf-8"))
        first = (SMALL_FROM[0], SMALL_FROM[1] - 1)
        matrix["releases"] = [r for r in matrix["releases"] if version_key(str(r["release"]))[:2] >= first]
        builds.write_text(dump(matrix, sort_keys=False, allow_unicode=True, width=200), encoding="utf-8")
    return repo


def _trim_probes(data: Path, dropped: list[str]) -> None:
    """The kept releases' probes lose the wheels small_history dropped (a probe may only name wheels of
    data/wheels.yaml); their lock entries are re-keyed to the trimmed probes and keep every outcome, so
    what a disagreement note says of an earlier wheel (``earlier:``) is still shown by the lock."""
    from atlas.schema import Probe
    from atlas.wheel.evidence import probe_hash, probe_id

    lock_file = data / "evidence.lock.yaml"
    lock = yaml.safe_load(lock_file.read_text(encoding="utf-8"))
    drop = re.compile(r'"(?:' + "|".join(re.escape(v) for v in dropped) + r')": (?:true|false), ')
    for p in sorted((data / "releases").glob("*.yaml")):
        text = p.read_text(encoding="utf-8")
        trimmed = "\n".join(drop.sub("", ln) if ln.lstrip().startswith("expect: {") else ln for ln in text.split("\n"))
        if trimmed == text:
            continue
        p.write_text(trimmed, encoding="utf-8")
        for c in yaml.safe_load(trimmed).get("changes") or []:
            for i, probe in enumerate(c.get("probes") or []):
                lock["probes"][probe_id(c["id"], i)]["hash"] = probe_hash(Probe.model_validate(probe))
    lock_file.write_text(dump(lock, sort_keys=False, allow_unicode=True, width=200), encoding="utf-8")


def kept(obj):
    """A session fixture's value, built once and kept to the end: ``gc.freeze()`` takes it (and what
    lives beside it) out of the cyclic collector's view, so the collections of 700 later tests do not
    rescan it (the real facts, rendered pages and parsed site are millions of objects), as
    pipeline.generate does for MkDocs' four builds."""
    gc.freeze()
    return obj


def atlas_env(repo: Path) -> dict:
    """The environment that runs ``python -m atlas`` (and MkDocs' ``atlas`` plugin) from the
    package in ``repo`` (a copy of the repository), not from the checkout it was installed from."""
    return {**os.environ, "PYTHONPATH": str(Path(repo) / "scripts")}


@pytest.fixture(scope="session")
def factbase():
    """The real data, validated (the provenance check against the articles is `make provenance`)."""
    return kept(validate(load()))


@pytest.fixture(scope="session")
def atlas(factbase):
    return kept(enrich(factbase))


@pytest.fixture(scope="module")
def rules(atlas):
    """The checker's rules built from the real data (one copy per test module: some change it)."""
    from atlas.rules import build_rules
    return build_rules(atlas)


@pytest.fixture(scope="module")
def rules_file(rules, tmp_path_factory):
    """Those rules as a --rules file."""
    from atlas.rules import rules_json
    p = tmp_path_factory.mktemp("rules") / "rules.json"
    p.write_text(rules_json(rules), encoding="utf-8")
    return str(p)


@pytest.fixture(scope="session")
def real_pages(atlas) -> dict[str, dict[str, str]]:
    """Every generated page of every language, rendered in memory: {lang: {"<lang>/<path>.md": Markdown}}."""
    from atlas.render import Renderer

    return kept({lang: Renderer(atlas, lang).pages() for lang in LANGS})


@pytest.fixture
def own_templates(tmp_path, monkeypatch) -> Path:
    """A copy of the templates that the renderer reads instead of the repository's
    (render.TEMPLATES), for tests that edit them; Jinja's environment, whose loader reads
    TEMPLATES, is made again on both sides of the test."""
    from atlas import render

    templates = tmp_path / "templates"
    shutil.copytree(render.TEMPLATES, templates)
    monkeypatch.setattr(render, "TEMPLATES", templates)
    render.environment.cache_clear()
    yield templates
    render.environment.cache_clear()


@pytest.fixture
def data_copy(tmp_path) -> Path:
    """A writable copy of data/, for tests that break it on purpose."""
    dst = tmp_path / "data"
    shutil.copytree(ROOT / "data", dst)
    return dst


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built once with `atlas build` (mkdocs build --strict)."""
    from atlas.sitebuild import build

    site = tmp_path_factory.mktemp("site") / "site"
    assert build(site) == 0, "mkdocs build --strict failed; run `make build` to see why"
    return site


@pytest.fixture(scope="session")
def subpath_build(tmp_path_factory) -> tuple[Path, str, Path]:
    """A repository copy on the small history (every page type, 6 upgrade pairs), built for
    http://127.0.0.1:<free port>/atlas/ with hash seed 1: (the copy, SITE_URL, the built folder,
    which test_subpath.py serves as /atlas/ and test_site.py builds again to compare)."""
    import static_server

    root = tmp_path_factory.mktemp("subpath")
    base = f"http://127.0.0.1:{static_server.free_port()}/atlas/"
    repo = small_history(repo_copy(root / "repo"))
    proc = run_atlas(repo, "build", "--site-dir", str(root / "atlas"), env={"SITE_URL": base, "PYTHONHASHSEED": "1"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return repo, base, root / "atlas"


@pytest.fixture(scope="session")
def site_pages(built_site) -> dict:
    """Every page of the real site, parsed once (tests/sitepages.py): {"zh/faq/index.html": Page}."""
    from sitepages import parse_site

    return kept(parse_site(built_site))


@pytest.fixture(scope="session")
def served_site(built_site):
    import static_server

    server, url = static_server.serve(built_site)
    yield url
    server.shutdown()


# --- Chromium (shared by every browser test module: Playwright allows one sync session per process) ---
CHROMIUM = chromium()   # scripts/dev/ensure_browser.py: the one place that finds the browser


@pytest.fixture(scope="session")
def browser():
    if CHROMIUM is None:
        pytest.fail("Chromium not found: run `sudo apt-get install chromium fonts-noto-cjk` (make test does it as root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    outside = []
    pg.on("request", lambda r: outside.append(r.url) if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None)
    yield pg
    ctx.close()
    assert not outside, f"requests to other hosts: {outside[:5]}"


def run_script(repo: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``python <args>`` in a repository (copy), with that copy's package (and ``env``), output captured."""
    return subprocess.run([sys.executable, *args], cwd=repo, capture_output=True, text=True, timeout=600,
                          env={**atlas_env(repo), **(env or {})})


def run_atlas(repo: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``atlas <args>`` in a repository (copy), with that copy's package (and ``env``), output captured."""
    return run_script(repo, "-m", "atlas", *args, env=env)


HOSTILE_ID = "214-acc-policy-balanced"
#: A title with every character that could break an attribute, a tag or JSON; {options} is a value.
HOSTILE_TITLE = """Zebrafish "double" and 'single' quotes, <b>bold</b> & {options}"""
HOSTILE_PLAIN = HOSTILE_TITLE.replace("{options}", "LinearCrossEntropyOptions")


@pytest.fixture(scope="session")
def variant_site(tmp_path_factory) -> Path:
    """One extra build for two tests: French added as a fifth language (following README
    "Adding a language", with English text as its 'translation'), and a hostile fact title
    (on the small history: neither depends on how many releases there are)."""
    repo = small_history(repo_copy(tmp_path_factory.mktemp("variant") / "repo"))
    new, locale = "fr", "fr_FR"
    assert new not in LANGS
    # the hostile title (the other languages' translations go stale, which does not stop a build)
    rel = repo / "data" / "releases" / "2.14.yaml"
    text = rel.read_text(encoding="utf-8")
    old_title = """    title: acc_policy="balanced" is removed from LinearCrossEntropyOptions\n"""
    assert old_title in text
    rel.write_text(text.replace(old_title, "    title: " + json.dumps(HOSTILE_TITLE) + "\n"), encoding="utf-8")
    # 1. one line of config
    load_py = repo / "scripts" / "atlas" / "langs.py"
    line = "LOCALES = " + repr(LOCALES).replace("'", '"')
    assert line in load_py.read_text(encoding="utf-8")
    load_py.write_text(load_py.read_text(encoding="utf-8").replace(
        line, "LOCALES = " + repr({**LOCALES, new: locale}).replace("'", '"')), encoding="utf-8")
    # 2. the language for the i18n plugin in mkdocs.yml
    mk = repo / "mkdocs.yml"
    text = mk.read_text(encoding="utf-8")
    anchor = "\n  - atlas:"   # the plugin after i18n's language list
    assert text.count(anchor) == 1
    mk.write_text(text.replace(anchor, f"\n        - locale: {new}\n          name: Français\n          build: true{anchor}", 1),
                  encoding="utf-8")
    # 3. UI strings, the hand-written page, and the fact texts (stub, then fill in)
    # (a counted string gives the forms the language's CLDR rule has: fr has one, many, other)
    ui = yaml.safe_load((repo / "data" / "i18n" / "en.yaml").read_text(encoding="utf-8"))
    cats = [c for c in CATEGORIES if c in set(Locale.parse(locale).plural_form.tags) | {"other"}]
    ui = {k: ({c: v.get(c, v["other"]) for c in cats} if isinstance(v, dict) else v) for k, v in ui.items()}
    (repo / "data" / "i18n" / f"{new}.yaml").write_text(dump(ui, allow_unicode=True, sort_keys=False),
                                                         encoding="utf-8")
    # the language's own words: its glossary renderings and its search stop words (English here)
    gl = repo / "data" / "glossary.yaml"
    entries = yaml.safe_load(gl.read_text(encoding="utf-8"))
    for e in entries:
        e["terms"][new] = {"use": e["en"], "avoid": [], "why": "test language: the English term"}
    gl.write_text(dump(entries, allow_unicode=True, sort_keys=False), encoding="utf-8")
    sw = repo / "data" / "search" / "stopwords.yaml"
    stop = yaml.safe_load(sw.read_text(encoding="utf-8"))
    sw.write_text(dump({**stop, new: stop["en"]}, allow_unicode=True), encoding="utf-8")
    (repo / "docs" / new).mkdir()
    shutil.copy(repo / "docs" / "en" / "about.md", repo / "docs" / new / "about.md")
    proc = run_atlas(repo, "i18n", "stub", new)
    assert proc.returncode == 0, proc.stderr
    en = english_texts(repo)
    for path in (repo / "data" / "translations" / new).rglob("*.yaml"):
        table = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key, entry in table.items():
            entry["text"] = en[key]
        path.write_text(dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    proc = run_atlas(repo, "build", "--site-dir", str(repo / "site"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return repo / "site"


def english_texts(repo: Path) -> dict[str, str]:
    proc = run_script(repo, "-c", "import json;"
                "from atlas.load import load; from atlas.validate import validate;"
                "print(json.dumps({t.key: t.en for t in validate(load()).texts}))")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
