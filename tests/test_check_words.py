"""The checker speaks the reader's language: with --lang zh, ru or id, the CLI (``code``, ``env``,
``code --diff``, ``ckpt``) and the /check/ page's engine (atlas-check.js in node, the fields the page
prints) show no English word outside code, API names, paths, URLs and values.

What counts as an English word: a word (Latin letters, two or more) of the English UI strings the
checker prints (``rules["ui"]["en"]``, the ``check.*`` keys: the words a leak would be made of,
an untranslated string or a sentence typed into an engine), written in lower case or capitalized
(an acronym or a brand's own casing, ``CUDA``, ``macOS``, ``PyPI``, is a name). Not English:
- code and values: a chunk with a digit, ``_ . / = ( [ * @ < > ` '`` or a leading ``-``
  (``torch.load``, ``sm_61``, ``--from``, a path), a URL, the language's quotes (``“…”``, ``«…»``:
  the parser's own message, quoted as a value), and the tool's name;
- the glossary's rendering of a concept in that language (``data/glossary.yaml``, ``use``: id
  writes ``wheel``, ``file``, ``default``);
- the words the language's own texts use outside the checker (its other UI strings and its fact
  translations, reviewed by the i18n checks: ``torch``, ``Python``, ``glibc``; for Indonesian also
  ``platform``, ``model``, ``target``, which are Indonesian words too);
- what the reader gave (the words of the paste or the code) and what the data names (the titles
  and fixes of the facts in that language, GPU and platform names).
Each check is shown to fail on a planted English sentence, in a string of each language and in
each engine.
"""
from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import pytest

import test_check as tc
import test_ckpt
from atlas import atlas_check as ac
from atlas.langs import LANGS, SOURCE
from dev import check_eval as ev

TRANSLATED = [lang for lang in LANGS if lang != SOURCE]
WORD = re.compile(r"[A-Za-z]{2,}")
URL = re.compile(r"https?://\S+")
QUOTED = re.compile(r"“[^”]*”|«[^»]*»")
#: a chunk that is code, a path, an option or a value
CODE = re.compile(r"[0-9_./=(\[*@<>`'\\]|^-")
CKPTS = sorted((ev.ROOT / "tests" / "fixtures" / "ckpt").glob("*.p*"))


def latin_words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def english(rules) -> set[str]:
    """The English vocabulary of the checker: the words of its English UI strings, placeholders left out."""
    out = set()
    for v in rules["ui"][SOURCE].values():
        for form in (v.values() if isinstance(v, dict) else [v]):
            out |= {w for w in latin_words(re.sub(r"\{\w+\}", " ", form)) if w not in ("n",)}
    return out


def allowed(factbase, rules, lang: str) -> set[str]:
    """The Latin words that are no English in ``lang``'s output (see the module's docstring)."""
    ok = set()
    for entry in factbase.glossary:
        if lang in entry.terms:
            ok |= latin_words(entry.terms[lang].use)
    for key, text in factbase.ui[lang].items():
        if not key.startswith("check."):
            ok |= latin_words(text)
    for entry, _file in factbase.translations.get(lang, {}).values():
        ok |= latin_words(re.sub(r"\{\w+\}", " ", entry.text))   # a placeholder's name ({newer}) is no word of the text
    ok |= latin_words(ac.TOOL) | set(ac._parser()._subparsers._group_actions[0].choices)   # the command, as typed
    gpus = rules["env"]["gpus"]
    ok |= latin_words(" ".join([g["model"] + " " + str(g["arch"]) for g in gpus["nvidia"]] + [g["model"] for g in gpus["amd"]]
                               + [str(s["arch"]) + " " + s["series"] for s in gpus["series"]]
                               + list(rules["env"]["platform"]["labels"].values())))
    return ok


def facts_text(rules, lang: str) -> list[str]:
    """The facts' own texts in ``lang`` the output quotes (titles and fixes), longest first."""
    texts = [r["title"][lang] for r in rules["rules"]] + [r["fix"][lang] for r in rules["rules"] if r["fix"]]
    texts += [c["title"][lang] for c in rules["env"]["changes"].values()]
    return sorted(set(texts), key=len, reverse=True)


def english_words(text: str, english_vocab: set[str], ok: set[str], facts: list[str]) -> list[str]:
    """The English words of ``text`` outside code, paths, URLs, values and the facts' own texts."""
    for f in facts:
        text = text.replace(f, " ")
    text = QUOTED.sub(" ", URL.sub(" ", text))
    found = []
    for chunk in re.split(r"[\s,;:()（），。、；：!?]+", text):
        if not chunk or CODE.search(chunk):
            continue
        for w in WORD.findall(chunk):
            if (w.islower() or w[1:].islower()) and w.lower() in english_vocab and w.lower() not in ok:
                found.append(w)
    return found


def cli(rules_file, *argv) -> str:
    out = io.StringIO()
    try:
        ac.main(["--rules", rules_file, *argv], out=out)
    except SystemExit:   # a usage error is no output to judge
        pass
    return out.getvalue()


def user_code(rules_file, lang, path) -> list[str]:
    """The lines of ``code --diff`` that are the reader's own code: the diff, and each suggestion's old and new lines."""
    doc = json.loads(cli(rules_file, "code", "--diff", "--format", "json", "--lang", lang, path))
    lines = doc["diff"].splitlines()
    for sg in doc["suggestions"]:
        lines += ["    - " + x for x in sg.get("old", ())] + ["    + " + x for x in sg.get("new", ())]
    return lines


def ckpt_code(rules_file, to) -> list[str]:
    """The lines of ``ckpt`` that are Python to paste: each file's add_safe_globals code."""
    doc = json.loads(cli(rules_file, "ckpt", "--format", "json", "--to", to, *map(str, CKPTS)))
    return ["        " + x for f in doc["files"] for code in (f.get("fix"), f.get("context")) if code for x in code.split("\n")]


def without(text: str, lines: list[str]) -> str:
    drop = set(lines)
    return "\n".join(x for x in text.splitlines() if x not in drop)


def pastes(tmp: Path) -> list[tuple[Path, str]]:
    """(file, target) of every environment paste: the corpus, and test_check's pastes of platforms,
    old and new CUDA builds, two reports in one, and a bare pin (every row unknown, with its reason)."""
    out = [(c["path"], c["to"]) for c in ev.env_cases("all")]
    for i, text in enumerate((tc.VLLM, tc.INTEL_MAC, tc.OLD_GLIBC, tc.MAC_ARM_13, tc.LINUX_ARM, tc.CU118_PY38, tc.TWO_PASTES,
                              "torch==2.5.0\n")):
        (tmp / f"paste{i}.txt").write_text(text, encoding="utf-8")
        out.append((tmp / f"paste{i}.txt", "2.15"))
    return out


def cli_outputs(rules_file, lang: str, tmp: Path) -> list[tuple[str, str, set]]:
    """(what was run, its text, the words the reader gave) of each CLI run: every env paste (to its
    target and to 2.5), every code directory and its --diff (the reader's code lines left out), the checkpoints
    (the fixtures, to the newest release and to 2.3, and test_ckpt's damaged and hostile files)."""
    runs = []
    for path, to in pastes(tmp):
        given = latin_words(path.read_text(encoding="utf-8"))   # what a row found is the paste's
        runs.append((str(path), cli(rules_file, "env", "--lang", lang, "--to", to, str(path)), given))
        runs.append((f"{path} --to 2.5", cli(rules_file, "env", "--lang", lang, "--to", "2.5", str(path)), given))
    for d in sorted({str(c["path"].parent) for c in ev.code_cases("all")}):
        runs.append((d, cli(rules_file, "code", "--lang", lang, d), set()))
        runs.append((f"{d} --diff", without(cli(rules_file, "code", "--diff", "--lang", lang, d), user_code(rules_file, lang, d)), set()))
    for to in ("2.15", "2.3"):
        text = cli(rules_file, "ckpt", "--lang", lang, "--to", to, *map(str, CKPTS))
        runs.append((f"ckpt --to {to}", without(text, ckpt_code(rules_file, to)), set()))
    damaged = tmp / "damaged"
    damaged.mkdir(exist_ok=True)
    runs.append(("ckpt damaged", cli(rules_file, "ckpt", "--lang", lang, *(str(f) for f, _ in test_ckpt.hostile(damaged).values())), set()))
    return runs


def page_outputs(rules, lang: str, tmp: Path) -> list[tuple[str, str, set]]:
    """(case, the text the page prints, the words the reader gave) from the page's engine in node: each environment row (its item,
    what was found, the verdict, the reason), the newest release and what blocks the next, the paste's
    note; each finding's guard note, each skipped file's reason and each suggestion's reason."""
    def T(key, **values):
        return ac.say(rules, lang, ac.msg(key, **values))
    jobs = [{"text": path.read_text(encoding="utf-8"), "to": t, "lang": lang} for path, to in pastes(tmp) for t in ("2.5", to)]
    codes = ev.code_cases("all")
    code_jobs = [{"path": c["path"].name, "text": c["path"].read_text(encoding="utf-8", errors="replace"),
                  "from": c["from"] or rules["releases"][0], "to": c["to"] or rules["releases"][-1], "lang": lang} for c in codes]
    js = ev.run_js({"rules": rules, "env": jobs, "code": code_jobs,
                    "fix": [{"path": j["path"], "source": j["text"], "from": j["from"], "to": j["to"], "lang": lang} for j in code_jobs]})
    out = []
    for job, res in zip(jobs, js["env"]):
        for r in res.get("pastes", [res]):
            lines = [r["from_note_text"] or ""]
            for i in r["items"]:
                lines.append(T("check.row", item=ac.msg("check.item." + i["check"]), found=i["found_text"] or "–",
                               verdict=ac.msg("check.verdict." + i["verdict"])))   # as check-page.js lays a row out
                lines.append(i["note_text"])
            n = r["newest"]
            newest = ac.msg("check.newest", release=n["release"]) if n["release"] else ac.msg("check.newest_none")
            if n["blocked_by"]:
                lines.append(T("check.newest_line", newest=newest, blocked=ac.msg("check.newest_blocked", release=n["blocked_by"]["release"]),
                               reasons=T("check.cli.reason_sep").join(i["note_text"] for i in n["blocked_by"]["items"])))
            else:
                lines.append(ac.say(rules, lang, newest))
            out.append((job["text"][:40], "\n".join(lines), latin_words(job["text"])))
    for job, res, fx in zip(code_jobs, js["code"], js["fix"]):
        lines = [f["guard_text"] or "" for f in res["findings"]]
        lines += [T("check.skipped", reason=s["reason_text"]) for s in res["skipped"] + fx["skipped"]]
        lines += [T("check.suggest_why", why=s["why_text"]) for s in fx["suggestions"]]
        out.append((job["path"], "\n".join(lines), set()))
    return out


@pytest.fixture(scope="module")
def judge(factbase, rules):
    vocab = english(rules)

    def english_in(lang, runs, rules_=rules):
        ok, facts = allowed(factbase, rules_, lang), facts_text(rules_, lang)
        return {name: words for name, text, given in runs if (words := english_words(text, vocab, ok | given, facts))}
    return english_in


def test_english_is_found_where_it_is(factbase, rules):
    """The definition finds English and leaves code, values and names alone."""
    vocab, ok, facts = english(rules), allowed(factbase, rules, "zh"), facts_text(rules, "zh")
    assert {"needs", "or", "newer"} <= set(english_words("2.15 needs driver 580 or newer", vocab, ok, facts))
    assert english_words("未检查：does not parse (line 2)", vocab, ok, facts) == ["does", "not", "parse", "line"]
    assert english_words("atlas-check：torch 2.0 -> 2.15 `torch.load` sm_61 CUDA macOS PyPI https://x.org/a "
                         "“'(' was never closed” --allow-skipped Python glibc wheel", vocab, ok, facts) == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_cli_prints_no_english(judge, rules_file, lang, tmp_path):
    runs = cli_outputs(rules_file, lang, tmp_path)
    assert len(runs) > 130 and sum(len(t) for _, t, _ in runs) > 100000   # the corpus really ran
    assert not judge(lang, runs)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_release_the_rules_do_not_know_is_said_in_the_language(judge, rules_file, lang, capsys):
    """--to and --from name a release the rules do not know: the usage error's reason (after the
    option name argparse prints) is in the reader's language."""
    said = []
    for argv in (["code", "--to", "9.9", "--lang", lang, "."], ["code", "--from", "x.y", "--lang", lang, "."],
                 ["env", "--to", "9.9", "--lang", lang, "-"]):
        with pytest.raises(SystemExit):
            ac.main(["--rules", rules_file, *argv], out=io.StringIO())
        err = capsys.readouterr().err.strip().splitlines()[-1]
        said.append((" ".join(argv), err.split(": --", 1)[1].split(": ", 1)[1]))
    assert len(said) == 3 and not judge(lang, [(name, text, set()) for name, text in said]), said


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_page_prints_no_english(judge, rules, lang, tmp_path):
    runs = page_outputs(rules, lang, tmp_path)
    assert len(runs) > 130 and sum(len(t) for _, t, _ in runs) > 10000
    assert not judge(lang, runs)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_planted_english_sentence_is_found(judge, rules, lang, tmp_path):
    """An English sentence in a string of the language, and one typed into either engine, fails both checks."""
    from atlas.rules import rules_json

    planted = copy.deepcopy(rules)
    planted["ui"][lang]["check.note.python_min"] = "{release} needs Python {version} or newer"
    planted["ui"][lang]["check.cli.summary_counts"] = "{findings} ({counts}) in {files}, {skipped} skipped{ignored}{baseline}"
    planted["ui"][lang]["check.ckpt.why.loads"] = "loads with the defaults of {release} (weights_only=True): every global is allowed"
    path = tmp_path / "rules.json"
    path.write_text(rules_json(planted), encoding="utf-8")
    cli_bad = judge(lang, cli_outputs(str(path), lang, tmp_path), planted)
    assert any("needs" in w for w in cli_bad.values()) and any("skipped" in w for w in cli_bad.values()), cli_bad
    assert {"with", "every"} <= set(cli_bad["ckpt --to 2.15"]), cli_bad
    page_bad = judge(lang, page_outputs(planted, lang, tmp_path), planted)
    assert any("newer" in w for w in page_bad.values()), page_bad


def chinese_marks(rules, runs) -> dict[str, list[str]]:
    """Half-width punctuation next to Han, a space next to a full-width mark or a full-width bracket
    inside another (atlas.i18n's checks of the site's pages), in each run's text outside the facts' own texts."""
    from atlas.i18n import fullwidth_hits, zh_spacing_hits
    facts = facts_text(rules, "zh")
    out = {}
    for name, text, _ in runs:
        for f in facts:
            text = text.replace(f, "")
        if hits := fullwidth_hits(text) + zh_spacing_hits(text):
            out[name] = hits
    return out


def test_chinese_output_uses_full_width_marks_without_spaces(rules, rules_file, tmp_path):
    """zh: no '(2)' or ':' next to Han, no space next to a full-width mark, in the CLI's output and the
    page's; a heading worded the old way ('{label} (2)') and a finding line ('）[') are found."""
    runs = cli_outputs(rules_file, "zh", tmp_path) + page_outputs(rules, "zh", tmp_path)
    assert not chinese_marks(rules, runs)
    heading = ac.say(rules, "zh", ac.msg("check.group_title", label=ac.msg("check.severity.breaks"), n=2))
    assert not chinese_marks(rules, [("heading", heading, set())])
    assert chinese_marks(rules, [("old heading", rules["ui"]["zh"]["check.severity.breaks"] + " (2)", set()),
                                 ("old line", "a.py:1:1：会出错：移除：x（没有任何来源提到） [x]", set())])
