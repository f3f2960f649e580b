"""``atlas i18n``: the translators' commands (see ``i18n.py`` for what each check means).

In:  the validated fact base. Out: a report on stdout, or updated files under
``data/translations/<lang>/`` and ``data/i18n/translated_from.yaml`` (``stub``, ``stamp``,
``stamp-ui``). Exit 1 when a report finds problems.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import yaml

from .i18n import en_hash, problems, ui_hash
from .keys import translation_file
from .langs import SOURCE, TRANSLATED
from .load import ROOT, dump, load
from .problems import UsageError
from .validate import validate


def _dump(path: Path, mapping: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump(mapping, allow_unicode=True, sort_keys=False, width=100), encoding="utf-8")


def _file_map(path: Path) -> dict:
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.exists() else {}


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "status"
    if cmd not in COMMANDS:
        raise UsageError(f"unknown command '{cmd}'\n{USAGE}")
    if cmd in ("stub", "stamp", "stamp-ui") and len(argv) < 2:
        raise UsageError(f"'{cmd}' needs a language: one of {', '.join(TRANSLATED)}\n{USAGE}")
    if len(argv) > 1 and argv[1] not in TRANSLATED:
        raise UsageError(f"unknown language '{argv[1]}': one of {', '.join(TRANSLATED)}")
    fb = validate(load(), judge_proofs=False)   # a translator is not stopped by a proof lock
    langs = [argv[1]] if len(argv) > 1 else list(TRANSLATED)
    if cmd == "status":
        found = problems(fb)
        for lang in TRANSLATED:
            c = Counter(p.kind for p in found if p.lang == lang)
            print(f"{lang}: {len(fb.texts)} texts, " + (", ".join(f"{n} {k}" for k, n in sorted(c.items())) or "all current"))
        return 1 if found else 0
    if cmd in ("stale", "missing"):
        kinds = {"stale"} if cmd == "stale" else {"missing", "empty"}
        found = [p for p in problems(fb, langs) if p.kind in kinds]
        for p in found:
            print(p)
        print(f"{len(found)} {cmd} translation(s)")
        return 1 if found else 0
    if cmd == "check":
        found = problems(fb, langs)
        for p in found:
            print(p)
        print(f"{len(found)} problem(s)")
        return 1 if found else 0
    if cmd == "todo":
        bad = {p.key for p in problems(fb, langs) if p.kind != "orphan"}
        for t in fb.texts:
            if t.key in bad:
                print(f"{t.key}\t{t.en}")
        for key, en in fb.ui[SOURCE].items():
            if f"ui:{key}" in bad:
                print(f"ui:{key}\t{en}")
        return 0
    if cmd == "stub":
        lang = langs[0]
        by_file: dict[str, list] = {}
        for t in fb.texts:
            by_file.setdefault(translation_file(lang, t.file), []).append(t)
        added = 0
        for rel, items in by_file.items():
            path = ROOT / rel
            current = _file_map(path)
            out = {}
            for t in items:  # keep the English order, so files read like the data
                if t.key in current:
                    out[t.key] = current[t.key]
                else:
                    out[t.key] = {"en_hash": en_hash(t.en), "text": ""}
                    added += 1
            _dump(path, out)
        print(f"{lang}: added {added} empty entries; fill in 'text' for each")
        return 0
    if cmd == "stamp-ui":
        lang, keys = argv[1], set(argv[2:]) or set(fb.ui[SOURCE])
        unknown = sorted(keys - set(fb.ui[SOURCE]))
        if unknown:
            raise UsageError(f"no UI string {', '.join(unknown)} in data/i18n/en.yaml")
        path = ROOT / "data" / "i18n" / "translated_from.yaml"
        table = _file_map(path)
        table.setdefault(lang, {})
        for key in sorted(keys):
            table[lang][key] = ui_hash(fb, key)
        table[lang] = dict(sorted(table[lang].items()))
        path.write_text("# en_hash of the English UI string each translation was made from (atlas i18n stamp-ui).\n"
                        + dump(table, allow_unicode=True, sort_keys=True), encoding="utf-8")
        print(f"{lang}: {len(keys)} UI string(s) marked current")
        return 0
    if cmd == "stamp":
        lang, keys = langs[0], set(argv[2:])
        en = {t.key: t for t in fb.texts}
        if not keys:
            raise UsageError("'stamp' needs the keys to mark current, e.g. stamp ru 215-dcp-strides.title")
        unknown = sorted(k for k in keys if k not in en)
        if unknown:
            raise UsageError(f"no English text has the key(s) {', '.join(unknown)}")
        for key in sorted(keys):
            rel = translation_file(lang, en[key].file)
            path = ROOT / rel
            current = _file_map(path)
            if not isinstance(current.get(key), dict):
                raise UsageError(f"{rel}: {key}: no {lang} translation to stamp; run: atlas i18n stub {lang}")
            current[key]["en_hash"] = en_hash(en[key].en)
            _dump(path, current)
            print(f"{lang}: {key} marked current")
        return 0
    raise AssertionError(cmd)  # every command in COMMANDS returns above


COMMANDS = ("status", "check", "todo", "stale", "missing", "stub", "stamp", "stamp-ui")
USAGE = ("usage: atlas i18n status | check [LANG] | todo [LANG] | stale [LANG] | missing [LANG] | stub LANG "
         "| stamp LANG KEY... | stamp-ui LANG [KEY...]")

