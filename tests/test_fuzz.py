"""Seeded fuzzing of the data files: every mutation ends in a named error or a good build.

Each mutation changes one data file in one random way (a deleted or renamed key, a wrong
type, an impossible date or version, broken YAML syntax, an unknown reference, a
placeholder typo, a duplicate id, a very long string, odd Unicode). The pipeline then runs
in-process (load -> validate -> enrich -> render -> JSON API, no MkDocs). Allowed outcomes:

- it succeeds (the mutation was harmless), or
- it raises ``DataError`` whose every line reads ``file: id: field: message``.

Anything else (a traceback: KeyError, TypeError, PlaceholderError...) fails the test and
prints the seed and the mutation, so it can be replayed. A few mutations also go through
the full build (``atlas build``) to check the exit status, the message and that the
last good site stays. Longer runs: ``make fuzz N=5000`` (``FUZZ_N``, ``FUZZ_SEED``).
"""
from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import os
import random
import re
import shutil

import pytest

from atlas import pipeline as steps
from atlas.langs import LANGS, TRANSLATED
from atlas.load import RawData, load, parse
from atlas.problems import DataError
from conftest import ROOT, repo_copy, run_atlas

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


STRUCTURAL = [m_delete_key, m_rename_key, m_wrong_type, m_impossible, m_unknown_reference, m_placeholder_typo,
              m_duplicate_id, m_long_string, m_odd_unicode]


# --- text mutations (on the YAML source) -----------------------------------------------
def t_broken_yaml(rng, text):
    lines = text.splitlines()
    i = rng.randrange(len(lines))
    how = rng.choice(["unclosed [", "tab", "colon", "dedent", "quote", "anchor", "truncate", "binary", "dupkey"])
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
            import yaml
            text = yaml.safe_dump(obj, allow_unicode=True, sort_keys=False)
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
