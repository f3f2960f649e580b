"""Seeded fuzzing of the data files: every mutation ends in a named error or a good build.

Each mutation changes one data file in one random way (a deleted or renamed key, a wrong
type, an impossible date or version, broken YAML syntax, an unknown reference, a
placeholder typo, a duplicate id, a very long string, odd Unicode, a line separator, a source path
leading out of the sources folder, a YAML alias). The pipeline then runs
in-process (load -> validate -> enrich -> render -> JSON API, no MkDocs). Allowed outcomes:

- it succeeds (the mutation was harmless), or
- it raises ``DataError`` whose every line reads ``file: id: field: message``.

Anything else (a traceback: KeyError, TypeError, PlaceholderError...) fails the test and
prints the seed and the mutation, so it can be replayed. A few mutations also go through
the full build (``atlas build``) to check the exit status, the message and that the
last good site stays. Longer runs: ``make fuzz N=5000`` (``FUZZ_N``, ``FUZZ_SEED``).

The hostile cases of issue 30 also have their own tests below: every line separator
``str.splitlines`` honours in a title, a translation and a UI string; an alias bomb and an
alias in every data file the loader reads; source paths out of the sources folder (a name and
a symlink); and a build stopped by a timeout, which must leave no temporary folder, no
generated page and the last good site.
"""
from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from atlas import generated, provenance
from atlas import pipeline as steps
from atlas.langs import LANGS, TRANSLATED
from atlas.load import RawData, dump, load, parse
from atlas.problems import DataError
from atlas.schema import Sources
from conftest import ROOT, atlas_env, repo_copy, run_atlas, small_history

#: 20 in `make test` (a pipeline run costs about 2 s with 16 releases); `.ci/run` runs 200 (`make fuzz N=200`)
N = int(os.environ.get("FUZZ_N", "20"))
SEED = int(os.environ.get("FUZZ_SEED", "20261130"))
BATCH = 40
#: ``file: id: field: message``; the file is a data file (or a glob of them).
PROBLEM = re.compile(r"^data/[\w./*-]+\.yaml: [^:\s][^:]*: [^:]+?: \S")

ODD = ["\u202e", "\u200b", "\ufeff", "\u0301", "\U0001f525", "\u2028", "\x85", "e\u0301", "\u00a0", "𝔘𝔫𝔦",
       "\u0000", "\x07", "'", '"', "<script>alert(1)</script>", "|", "`", "{", "}", "{{", "%", "&amp;", "\\"]


@pytest.fixture(scope="module")
def base():
    raw = load()
    files = {}
    for path in sorted((ROOT / "data").rglob("*.yaml")):
        rel = str(path.relative_to(ROOT))
        files[rel] = path.read_text(encoding="utf-8")
    return raw, files


def _get(raw: RawData, rel: str):
    if rel in raw.releases:
        return raw.releases[rel]
    for _lang, table in raw.translations.items():
        if rel in table:
            return table[rel]
    for name in ("sources", "ledger", "ui_sources", "wheels", "lock"):
        if getattr(raw, name)[0] == rel:
            return getattr(raw, name)[1]
    for _lang, (path, obj) in raw.ui.items():
        if path == rel:
            return obj
    return raw.extra.get(rel)


def _replace(raw: RawData, rel: str, obj) -> RawData:
    """A shallow copy of ``raw`` with one file's parsed content replaced."""
    new = dataclasses.replace(raw, releases=dict(raw.releases), extra=dict(raw.extra), ui=dict(raw.ui),
                              translations={k: dict(v) for k, v in raw.translations.items()})
    if rel in new.releases:
        new.releases[rel] = obj
        return new
    for table in new.translations.values():
        if rel in table:
            table[rel] = obj
            return new
    for name in ("sources", "ledger", "ui_sources", "wheels", "lock"):
        if getattr(new, name)[0] == rel:
            setattr(new, name, (rel, obj))
            return new
    for lang, (path, _) in new.ui.items():
        if path == rel:
            new.ui[lang] = (path, obj)
            return new
    new.extra[rel] = obj
    return new


def _nodes(obj, path=()):
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _nodes(v, path + (i,))


def _set(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def _parent(obj, path):
    for p in path[:-1]:
        obj = obj[p]
    return obj


# --- structural mutations (on the parsed YAML) ------------------------------------------
def m_delete_key(rng, obj):
    keys = [p for p, _ in _nodes(obj) if p and isinstance(_parent(obj, p), dict)]
    path = rng.choice(keys)
    del _parent(obj, path)[path[-1]]
    return f"delete {'.'.join(map(str, path))}"


def m_rename_key(rng, obj):
    keys = [p for p, _ in _nodes(obj) if p and isinstance(_parent(obj, p), dict)]
    path = rng.choice(keys)
    parent = _parent(obj, path)
    new = rng.choice([str(path[-1]) + "s", str(path[-1])[:-1] or "x", str(path[-1]).upper(), "tilte", 42])
    parent[new] = parent.pop(path[-1])
    return f"rename {'.'.join(map(str, path))} -> {new}"


def m_wrong_type(rng, obj):
    path, node = rng.choice([(p, n) for p, n in _nodes(obj) if p])
    value = rng.choice([None, 0, -1, 3.5, True, "", "text", [], [1, "a"], {}, {"a": 1}, dt.date(2026, 1, 1)])
    _set(obj, path, value)
    return f"{'.'.join(map(str, path))} = {value!r}"


def m_impossible(rng, obj):
    cands = [(p, n) for p, n in _nodes(obj) if p and isinstance(n, (str, int, float, dt.date))]
    path, node = rng.choice(cands)
    value = rng.choice(["2026-02-30", "2026-13-01", "0000-00-00", "99999-01-01", "2.15.0.0.1", "-1.5", "2.x",
                        "v2.15", "3.", ".15", "1e309", -10**30, 10**30, float("nan"), "NaN", "2.15.99"])
    _set(obj, path, value)
    return f"{'.'.join(map(str, path))} = {value!r}"


def m_unknown_reference(rng, obj):
    refs = [(p, n) for p, n in _nodes(obj) if p and isinstance(n, str)
            and p[-1] in ("source", "cited_in", "about", "previous", "timezone", "removed_in")
            or (len(p) > 1 and p[-2] in ("refs", "published"))]
    if not refs:
        return m_placeholder_typo(rng, obj)
    path, node = rng.choice(refs)
    _set(obj, path, rng.choice(["no-such-source", "91-missing", "9.9", "Mars/Olympus", "zz", node + "-x"]))
    return f"{'.'.join(map(str, path))}: {node!r} -> unknown"


def m_placeholder_typo(rng, obj):
    texts = [(p, n) for p, n in _nodes(obj) if p and isinstance(n, str) and "{" in n]
    if not texts:
        texts = [(p, n) for p, n in _nodes(obj) if p and isinstance(n, str)]
    if not texts:
        return m_wrong_type(rng, obj)
    path, node = rng.choice(texts)
    new = rng.choice([
        re.sub(r"\{([a-z0-9_.-]+)", lambda m: "{" + m.group(1)[::-1], node, count=1),   # reversed name
        re.sub(r"\{([a-z0-9_.-]+)\}", lambda m: "{" + m.group(1), node, count=1),       # unclosed
        node + " {nope}", node + " {215-no-such.x}", node + " {Name}", node + " {version:bold}",
        node.replace("{", "{{", 1), node + " 3.117",
    ])
    _set(obj, path, new)
    return f"{'.'.join(map(str, path))}: placeholder typo {new[-40:]!r}"


def m_duplicate_id(rng, obj):
    lists = [(p, n) for p, n in _nodes(obj) if isinstance(n, list) and n and isinstance(n[0], dict) and "id" in n[0]]
    if not lists:
        return m_delete_key(rng, obj)
    path, lst = rng.choice(lists)
    lst.append(copy.deepcopy(rng.choice(lst)))
    return f"duplicate an item of {'.'.join(map(str, path))}"


def m_long_string(rng, obj):
    path, node = rng.choice([(p, n) for p, n in _nodes(obj) if p and isinstance(n, str)] or [((), None)])
    if node is None:
        return m_wrong_type(rng, obj)
    _set(obj, path, node + " " + "x" * rng.choice([300, 5000, 100_000]))
    return f"{'.'.join(map(str, path))}: very long"


def m_odd_unicode(rng, obj):
    path, node = rng.choice([(p, n) for p, n in _nodes(obj) if p and isinstance(n, str)] or [((), None)])
    if node is None:
        return m_wrong_type(rng, obj)
    odd = rng.choice(ODD)
    pos = rng.randrange(len(node) + 1)
    _set(obj, path, node[:pos] + odd + node[pos:])
    return f"{'.'.join(map(str, path))}: insert {odd!r} at {pos}"


#: what str.splitlines() breaks a line at besides "\n", found by asking Python (not copied from the validator)
SPLITLINES = [chr(c) for c in range(0x3000) if chr(c) != "\n" and len(f"a{chr(c)}b".splitlines()) == 2]
#: source paths that lead out of the sources folder
ESCAPES = ["../../../../etc/passwd", "/etc/passwd", "a/../../x.txt", "..", "./../x.txt"]


def m_line_break(rng, obj):
    path, node = rng.choice([(p, n) for p, n in _nodes(obj) if p and isinstance(n, str)] or [((), None)])
    if node is None:
        return m_wrong_type(rng, obj)
    sep, pos = rng.choice(SPLITLINES), rng.randrange(len(node) + 1)
    _set(obj, path, node[:pos] + sep + node[pos:])
    return f"{'.'.join(map(str, path))}: insert line break {sep!r} at {pos}"


def m_escape_path(rng, obj):
    # a source's file (data/sources.yaml: sources.N.file), not a probe's file inside a wheel
    files = [(p, n) for p, n in _nodes(obj) if len(p) == 3 and p[0] == "sources" and p[-1] == "file" and isinstance(n, str)]
    if not files:
        return m_line_break(rng, obj)
    path, node = rng.choice(files)
    _set(obj, path, rng.choice(ESCAPES))
    return f"{'.'.join(map(str, path))}: {node!r} -> out of the sources folder"


STRUCTURAL = [m_delete_key, m_rename_key, m_wrong_type, m_impossible, m_unknown_reference, m_placeholder_typo,
              m_duplicate_id, m_long_string, m_odd_unicode, m_line_break, m_escape_path]
#: mutations whose only right outcome is a named error (never a build)
MUST_FAIL = ("insert line break", "out of the sources folder", "alias at line")


# --- text mutations (on the YAML source) -----------------------------------------------
def t_broken_yaml(rng, text):
    lines = text.splitlines()
    i = rng.randrange(len(lines))
    how = rng.choice(["unclosed [", "tab", "colon", "dedent", "quote", "anchor", "truncate", "binary", "dupkey", "alias"])
    if how == "unclosed [":
        lines[i] = lines[i] + " [unclosed"
    elif how == "tab":
        lines[i] = "\t" + lines[i]
    elif how == "colon":
        lines[i] = lines[i] + ": : :"
    elif how == "dedent":
        lines[i] = "  " + lines[i].lstrip() + "\n   x: 1"
    elif how == "quote":
        lines[i] = lines[i].replace(": ", ': "', 1)
    elif how == "anchor":
        lines[i] = lines[i] + " *nowhere"
    elif how == "truncate":
        return "\n".join(lines[:i]) + "\n" + lines[i][: len(lines[i]) // 2], f"truncate at line {i + 1}"
    elif how == "binary":
        lines[i] = lines[i] + "\x00\x1b"
    elif how == "dupkey":
        lines.insert(i, lines[i])
    elif how == "alias":   # the file's first value anchored, and repeated at its end
        j = next((k for k, line in enumerate(lines) if re.match(r"^[\w.-]+: \S", line)), None)
        if j is None:
            return t_broken_yaml(rng, text)
        key = lines[j].split(":")[0]
        lines[j] = lines[j].replace(": ", ": &fuzz ", 1)
        lines.append(f"{key}-again: *fuzz")
    return "\n".join(lines) + "\n", f"{how} at line {i + 1}"


def mutate(rng: random.Random, raw: RawData, files: dict[str, str]) -> tuple[RawData, str]:
    rel = rng.choice(sorted(files))
    if rng.random() < 0.2:
        text, what = t_broken_yaml(rng, files[rel])
        problems: list[str] = []
        obj = parse(text, rel, problems)
        if problems:
            raise DataError(problems)
        return _replace(raw, rel, obj), f"{rel}: {what}"
    obj = copy.deepcopy(_get(raw, rel))
    if obj is None or not list(_nodes(obj))[1:]:
        return raw, f"{rel}: empty, unchanged"
    what = rng.choice(STRUCTURAL)(rng, obj)
    return _replace(raw, rel, obj), f"{rel}: {what}"


def _langs_for(description: str, rng: random.Random) -> tuple[str, ...]:
    """Render the language the mutated file belongs to (English otherwise); all of them now and then."""
    if rng.random() < 0.1:
        return LANGS
    for lang in TRANSLATED:
        if f"/{lang}/" in description or f"i18n/{lang}.yaml" in description:
            return (lang,)
    return (LANGS[0],)


def run_one(index: int, base) -> str:
    """One mutation; returns 'ok' or 'error', raises AssertionError on a traceback-worthy failure."""
    raw, files = base
    rng = random.Random(SEED * 100_003 + index)
    what = "?"
    try:
        mutated, what = mutate(rng, raw, files)
        steps.pipeline(mutated, _langs_for(what, rng))
        if any(m in what for m in MUST_FAIL):
            raise AssertionError(f"mutation {index} (FUZZ_SEED={SEED}) {what}: built, but must be refused")
        return "ok"
    except DataError as exc:
        bad = [p for p in exc.problems if not PROBLEM.match(p)]
        assert exc.problems and not bad, f"mutation {index} ({what}): unnamed error(s): {bad[:3]}"
        return "error"
    except Exception as exc:  # noqa: BLE001 - this is what the test is looking for
        raise AssertionError(f"mutation {index} (FUZZ_SEED={SEED}) {what}: {type(exc).__name__}: {exc}") from exc


@pytest.mark.parametrize("batch", range((N + BATCH - 1) // BATCH))
def test_mutated_data_fails_cleanly_or_builds(base, batch):
    outcomes = [run_one(i, base) for i in range(batch * BATCH, min(N, (batch + 1) * BATCH))]
    # the fuzzer must exercise both outcomes, or it is not testing anything
    assert "error" in outcomes and "ok" in outcomes, outcomes


def test_the_checker_catches_a_traceback(base, monkeypatch):
    """The fuzz check can fail: a pipeline that raises a bare KeyError is reported, not passed."""
    def broken(raw, langs):
        raise KeyError("boom")
    monkeypatch.setattr(steps, "pipeline", broken)
    with pytest.raises(AssertionError, match="KeyError"):
        run_one(0, base)


@pytest.mark.slow
def test_full_build_fails_cleanly_and_keeps_the_last_good_site(built_site, tmp_path, base):
    """A few failing mutations through `atlas build`: exit 1, the named error, no traceback, old site kept."""
    repo = repo_copy(tmp_path / "repo")
    site_dir = repo / "site"
    shutil.copytree(built_site, site_dir)
    before = (site_dir / "changes" / "215-dcp-strides" / "index.html").read_bytes()
    raw, files = base
    tried = 0
    for index in range(10_000):
        if tried == 3:
            break
        rng = random.Random(SEED + index)
        rel = rng.choice([f for f in files if "releases/" in f or "/i18n/" in f])
        text, what = (t_broken_yaml(rng, files[rel]) if tried == 0 else (None, None))
        if text is None:
            obj = copy.deepcopy(_get(raw, rel))
            what = rng.choice([m_placeholder_typo, m_unknown_reference, m_wrong_type])(rng, obj)
            text = dump(obj, allow_unicode=True, sort_keys=False)
        try:
            problems: list[str] = []
            obj = parse(text, rel, problems)
            if problems:
                raise DataError(problems)
            steps.pipeline(_replace(raw, rel, obj), LANGS)
            continue  # harmless: not what this test is about (a full good build is tested elsewhere)
        except DataError as exc:
            expected = exc.problems[0]
        original = (repo / rel).read_text(encoding="utf-8")
        (repo / rel).write_text(text, encoding="utf-8")
        proc = run_atlas(repo, "build", "--site-dir", str(site_dir))
        (repo / rel).write_text(original, encoding="utf-8")
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0, f"{rel}: {what}: the build succeeded"
        assert "Traceback" not in out, f"{rel}: {what}:\n{out[-3000:]}"
        assert expected.split(": ")[0] in out and expected[:60] in out.replace("\n", " "), (expected, out[-2000:])
        assert (site_dir / "changes" / "215-dcp-strides" / "index.html").read_bytes() == before
        tried += 1
    assert tried == 3


# --- the hostile cases of issue 30, one by one ---------------------------------------------
def _copy_raw(raw: RawData) -> RawData:
    return dataclasses.replace(raw, releases=copy.deepcopy(raw.releases), sources=copy.deepcopy(raw.sources),
                               translations=copy.deepcopy(raw.translations), ui=copy.deepcopy(raw.ui))


def _problems(raw: RawData) -> list[str]:
    with pytest.raises(DataError) as exc:
        steps.validate(raw)
    return exc.value.problems


def test_every_line_separator_is_refused_in_a_title_a_translation_and_a_ui_string(base):
    """A U+2028 in a title broke the Markdown of 17 pages; each separator splitlines() honours is
    refused with the file, the fact (or key), the field and the character."""
    assert len(SPLITLINES) >= 9, SPLITLINES   # \r \x0b \x0c \x1c-\x1e \x85 \u2028 \u2029
    raw = _copy_raw(base[0])
    rel = "data/releases/2.15.yaml"
    changes = raw.releases[rel]["changes"]
    tr_file = f"data/translations/{TRANSLATED[0]}/releases/2.15.yaml"
    tr_keys = list(raw.translations[TRANSLATED[0]][tr_file])
    ui_file, ui = raw.ui[TRANSLATED[1]]
    ui_keys = [k for k, v in ui.items() if isinstance(v, str) and len(v) > 3]
    expected = []
    for i, sep in enumerate(SPLITLINES):
        c = changes[i]
        c["title"] = c["title"][:4] + sep + c["title"][4:]
        expected.append(f"{rel}: {c['id']}: title: U+{ord(sep):04X}")
        entry = raw.translations[TRANSLATED[0]][tr_file][tr_keys[i]]
        entry["text"] = sep + entry["text"]
        expected.append(f"{tr_file}: {tr_keys[i]}: text: U+{ord(sep):04X}")
        ui[ui_keys[i]] = ui[ui_keys[i]] + sep
        expected.append(f"{ui_file}: {ui_keys[i]}: (text): U+{ord(sep):04X}")
    problems = _problems(raw)
    missing = [e for e in expected if not any(p.startswith(e) for p in problems)]
    assert not missing, (missing, problems[:5])
    assert all(PROBLEM.match(p) for p in problems), problems[:5]


def _bomb(levels: int = 9, width: int = 9) -> str:
    """A string alias bomb: a 1 KB string, aliased 9 times per level, 9 levels (400 GB expanded)."""
    lines = ['version: "2.15"', 's0: &s0 "' + "x" * 1000 + '"']
    lines += [f"s{i}: &s{i} [{', '.join([f'*s{i - 1}'] * width)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_by_the_loader():
    problems: list[str] = []
    assert parse(_bomb(), "data/releases/2.15.yaml", problems) is None
    assert len(problems) == 1 and PROBLEM.match(problems[0]) and "alias" in problems[0], problems
    assert "line 2" in problems[0], problems   # where the repeated value is anchored


def test_every_yaml_file_the_loader_reads_refuses_an_alias(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    # every YAML file under data/ but data/research/ (notes, which the loader does not read)
    expected = {str(p.relative_to(tmp_path)) for p in data.rglob("*.yaml") if "research" not in p.parts}
    for rel in expected:
        (tmp_path / rel).write_text("a: &a [1]\nb: *a\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load(data)
    named = {p.split(": ")[0] for p in exc.value.problems if "alias" in p}
    assert named == expected, sorted(expected ^ named)[:10]


def test_a_source_path_out_of_the_sources_folder_is_refused(base):
    raw = _copy_raw(base[0])
    src_file, doc = raw.sources
    with_file = doc["sources"][:len(ESCAPES)]
    for s, bad in zip(with_file, ESCAPES, strict=True):
        s["file"] = bad
    problems = _problems(raw)
    missing = [s["id"] for s in with_file if not any(p.startswith(f"{src_file}: {s['id']}: file: ") for p in problems)]
    assert not missing, (missing, problems[:5])


def test_provenance_does_not_follow_a_link_out_of_the_sources_folder(base, tmp_path):
    """A name that passes the schema can still be a symlink to /etc/passwd: provenance opens nothing outside."""
    (tmp_path / "outside.txt").write_text("a secret", encoding="utf-8")
    folder = tmp_path / "sources"
    folder.mkdir()
    (folder / "article.txt").symlink_to(tmp_path / "outside.txt")
    source = next(s for s in base[0].sources[1]["sources"] if s.get("file"))
    sources = Sources.model_validate({"sources": [{**source, "file": "article.txt", "sha256": None, "title": None}]})
    report = provenance.Report()
    texts = provenance.read_articles(sources, "data/sources.yaml", folder, report)
    assert texts == {} and report.problems == [f"data/sources.yaml: {source['id']}: file: article.txt leads "
                                               "outside the sources folder"], (texts, report.problems)


def test_the_next_build_sweeps_the_folders_of_killed_builds(tmp_path):
    from atlas.sitebuild import TMP_PREFIX, sweep
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = tmp_path / f"{TMP_PREFIX}{int(dead.stdout)}-abc"
    running = tmp_path / f"{TMP_PREFIX}{os.getppid()}-def"   # pytest's parent: alive
    for d in (killed, running):
        (d / "sub").mkdir(parents=True)
    assert sweep(tmp_path) == [killed]
    assert not killed.exists() and running.exists()


def _pages(docs):
    return {p: p.stat().st_mtime_ns for p in generated.owned(docs)}


@pytest.mark.slow
def test_full_build_stopped_by_a_timeout_leaves_nothing_and_keeps_the_last_good_site(tmp_path):
    """`timeout` sends SIGTERM to the build's process group once the pipeline has written pages:
    no `.site-*` folder, no generated page of that build is left, and the last good site stays."""
    repo = small_history(repo_copy(tmp_path / "repo"))
    site, docs = repo / "site", repo / "docs"
    site.mkdir()
    (site / "index.html").write_text("the last good site", encoding="utf-8")
    before = _pages(docs)
    with open(tmp_path / "build.log", "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "atlas", "build", "--site-dir", str(site)], cwd=repo,
                                env=atlas_env(repo), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(1200):
            if proc.poll() is not None or _pages(docs) != before:
                break
            time.sleep(0.1)
        assert proc.poll() is None, "the build ended before it could be stopped"
        time.sleep(1)   # MkDocs is under way
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=120)
    out = (tmp_path / "build.log").read_text(encoding="utf-8")
    assert proc.returncode != 0, out[-2000:]
    assert not list(repo.glob(".site-*")), out[-2000:]
    assert _pages(docs) == before, out[-2000:]
    assert [p.name for p in site.iterdir()] == ["index.html"]
    assert (site / "index.html").read_text(encoding="utf-8") == "the last good site"
