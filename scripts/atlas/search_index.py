"""Step 5b: the search index, one compact JSON file per language.

In:  an ``Atlas`` (``enrich.py``) with its ``SearchData`` (aliases, stop words).
Out: ``build(atlas) -> {lang: index dict}``, ``encode(atlas) -> {lang: JSON bytes}`` and
     ``write(encoded, dir)`` writing ``<dir>/<lang>.json`` (sorted keys, no whitespace: byte-identical builds).
     ``docs/assets/search.js`` searches it in the browser.

Documents (``[url, title, description, kind, release]``): every change page, every release page (dates, counts and matrix
values with their labels), every FAQ entry (``faq/<v>/#<faq-id>``) and every
event (``releases/<v>/#<event-id>``). URLs are relative to the language root.

Fields and weights: title, identifiers (values, switches, names in code),
error messages, aliases (``data/search/aliases.yaml``, hidden text) and body.
Each posting holds ``idf * sum(field weight * tf / (tf + k))``, rounded, with BM25's
length normalisation ``k = 1.2 * (1 - b + b * length / average length)`` for the body.
Words of four letters or more also index their Snowball stem (``~stem``), so
"чекпоинты" finds "чекпоинт" and "pemeriksaan" finds "periksa"; Chinese is cut
into character bigrams on both sides (``segment.bigrams``).

Two matchers rank above prose:
- ``ids``: every identifier and each of its trailing dotted parts
  (``ProcessGroupNCCL.Options.lazy_init`` -> ``Options.lazy_init``, ``lazy_init``);
- ``errors``: each error message of the data, normalised by ``normalise_error``
  (module-qualified exception names, numbers, device ids, quoted names, paths,
  memory sizes; the data's placeholders X/Y/N match any value).
"""
from __future__ import annotations

import builtins
import functools
import json
import math
import re
import unicodedata
from collections import defaultdict
from pathlib import Path

from . import plural
from . import text as fmt
from .enrich import Atlas
from .keys import release_scope
from .langs import LANGS
from .problems import DataError
from .render import Renderer
from .schema import MATRIX_KEYS
from .search_data import ALIASES_FILE
from .segment import bigrams

FORMAT = 1
#: facts: a release page's table (date, counts, matrix labels and values), what figure queries ask for
WEIGHTS = {"title": 4.0, "ids": 5.0, "errors": 3.0, "facts": 3.0, "aliases": 2.5, "body": 1.0}
B = {"body": 0.75, "facts": 0.75}    # length normalisation per field (BM25's b); 0 elsewhere
STEMMERS = {"en": "english", "ru": "russian", "id": "indonesian"}
DESC_LEN = 180

_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: A word or a compound joined by . - : = / (identifiers, versions, key=value).
_TOKEN = re.compile(r"[^\W]+(?:[.\-:=/][^\W]+)*")
_SPLIT = re.compile(r"[.\-:=/]")
#: Identifier-like: dotted, snake_case, KEY=value, or CamelCase with an inner capital.
_IDENT = re.compile(r"[A-Za-z_][\w]*(?:[.=][\w\"'.\-]+)+|[A-Za-z]\w*_\w+|[A-Z][a-z0-9]+[A-Z]\w*|[a-z]+[A-Z]\w*")


# ------------------------------------------------------------------ tokens
def norm(text: str) -> str:
    return unicodedata.normalize("NFKC", str(text)).lower()


def tokens(text: str) -> list[str]:
    """Index/query tokens: words, compounds and their parts; Chinese as bigrams.

    ``torch.linalg.qr`` -> ``torch.linalg.qr, torch, linalg, qr``. The same rules
    are in ``docs/assets/search.js`` (``tokens``)."""
    text = _HAN_RUN.sub(lambda m: " " + bigrams(m.group(0)) + " ", norm(text))
    out = []
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        out.append(tok)
        parts = [p for p in _SPLIT.split(tok) if p]
        if len(parts) > 1:
            out += parts
    return out


#: Python's own exception names (AttributeError, TypeError ...) name no change: as identifiers
#: they would tie every message of that type to each other.
_BUILTIN_EXCEPTIONS = {n.lower() for n in dir(builtins) if n.endswith(("Error", "Exception", "Warning"))}


def identifiers(text: str) -> list[str]:
    """Identifier-like names in a text or code, lower-cased, with quotes stripped."""
    out = []
    for m in _IDENT.finditer(str(text)):
        out.append(m.group(0).strip("\"'.").lower())
    return out


def ident_keys(ident: str) -> list[str]:
    """An identifier and its trailing parts that are still identifier-like.

    ``processgroupnccl.options.lazy_init`` -> itself, ``options.lazy_init``, ``lazy_init``;
    ``torch_dist_use_nccl2=0`` -> itself and ``torch_dist_use_nccl2``."""
    ident = ident.lower()
    keys = [ident]
    if "=" in ident:
        keys.append(ident.split("=", 1)[0])
    parts = ident.split("=", 1)[0].split(".")
    for i in range(1, len(parts)):
        tail = ".".join(parts[i:])
        if "." in tail or "_" in tail or i == len(parts) - 1 and len(tail) >= 6:
            keys.append(tail)
    return list(dict.fromkeys(k for k in keys if k))


# ------------------------------------------------------------------ errors
_FILE_LINE = re.compile(r'File "[^"]*", line \d+(?:, in [\w<>.]+)?')
_QUALIFIED = re.compile(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*(?:Error|Exception|Warning|Interrupt|Exit))\b")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+\-]+){2,}[\\/]?")
_SIZE = re.compile(r"\b\d+(?:\.\d+)?\s*(?:[KMGT]i?B|bytes?|B)\b", re.I)
_QUOTED = re.compile(r"'([^'\s]{1,80})'|\"([^\"\s]{1,80})\"|`([^`]{1,80})`")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?!\w)")   # not the 2 of p2p or sm_75
_PLACEHOLDER = re.compile(r"(?<![\w.])[XYN](?![\w.])")


def _normalise(line: str, template: bool = False) -> tuple[list[str], list[str], list[str]]:
    s = _FILE_LINE.sub(" ", str(line))
    s = _QUALIFIED.sub(r"\1", s)
    quoted: list[str] = []
    numbers: list[str] = []

    def quote(m: re.Match) -> str:
        quoted.append((m.group(1) or m.group(2) or m.group(3)).lower())
        return " #q "

    s = _QUOTED.sub(quote, s)
    s = _PATH.sub(" # ", s)
    s = _SIZE.sub(" # ", s)
    if template:
        s = _PLACEHOLDER.sub(" # ", s)

    def number(m: re.Match) -> str:
        numbers.append(m.group(0))
        return " # "

    s = _NUMBER.sub(number, s)
    return re.findall(r"#q|#|[^\W\d]\w*", norm(s)), quoted, numbers


def normalise_error(line: str, template: bool = False) -> tuple[list[str], list[str]]:
    """(tokens, literals) of one error line.

    Tokens: lower-case words with ``#`` for every number, device index, memory
    size and path, ``#q`` for a quoted name. Literals: the quoted names and the
    numbers themselves, which break ties (``'qr'`` versus ``'cholesky'``). With
    ``template=True`` a standalone ``X``, ``Y`` or ``N`` is a placeholder (``#``).
    The browser applies the same rules (``docs/assets/search.js``, ``normaliseError``).
    """
    toks, quoted, numbers = _normalise(line, template)
    return toks, quoted + numbers


_NUMERIC = re.compile(r"[\d.,]+")


def match_error(query_line: str, template: list[str], literals: list[str] = ()) -> tuple[int, float]:
    """How well one pasted line matches one normalised message: (score, coverage).

    The template's tokens are looked for in order in the line; a word of the
    template also matches a quoted name with that text (``'pipeline_per_direction_p2p'``).
    Coverage is matched / min(len(template), len(line)), so a fragment of a long
    message counts. A match needs coverage >= 0.75 and at least min(3, len(template))
    tokens; otherwise the score is 0. A message that quotes a name (``'comm_split_count'``)
    does not match a line that quotes only other names. Each literal in common adds 0.05.
    Mirrored by ``errorScores`` in docs/assets/search.js.
    """
    q, quoted, numbers = _normalise(query_line)
    qlit = []
    it = iter(quoted)
    for t in q:
        qlit.append(next(it, None) if t == "#q" else None)
    pos = matched = lit = 0
    for t in template:
        for j in range(pos, len(q)):
            if q[j] == t or (q[j] == "#q" and qlit[j] == t):
                matched, pos = matched + 1, j + 1
                lit += q[j] != t
                break
    cover = matched / (min(len(template), len(q)) or 1)
    if matched < min(3, len(template)) or cover < 0.75:
        return 0, cover
    names = [x for x in literals if not _NUMERIC.fullmatch(x)]
    if "#q" in template and quoted and names and not any(x in quoted for x in names):
        return 0, cover   # the line quotes another name: another error ('qr' is not 'comm_split_count')
    lit += sum(1 for x in set(literals) if x in quoted or x in numbers)
    return cover + 0.001 * matched + 0.05 * lit, cover


# ------------------------------------------------------------------ documents
class _Doc:
    def __init__(self, url: str, kind: str, title: str, desc: str, key: str, version: str):
        self.url, self.kind, self.title, self.key, self.version = url, kind, title, key, version
        self.desc = desc if len(desc) <= DESC_LEN else desc[: DESC_LEN - 1].rstrip() + "…"
        self.fields: dict[str, list[str]] = defaultdict(list)   # field -> texts
        self.idents: list[str] = []
        self.errors: list[str] = []

    def add(self, fld: str, *texts) -> None:
        self.fields[fld] += [str(t) for t in texts if t not in (None, "")]

    def add_error(self, message: str) -> None:
        """An error message the document explains: its words, its matcher entry and its names."""
        self.add("errors", message)
        self.errors.append(message)
        self.idents += [i for i in identifiers(_QUOTED.sub(" ", message)) if i not in _BUILTIN_EXCEPTIONS]


def _value_texts(value, lang: str) -> list[str]:
    vals = value if isinstance(value, list) else [value]
    out = []
    for v in vals:
        out.append(fmt.format_value(v, lang, None, html=False))
        out.append(str(v))
    return out


def _docs(atlas: Atlas, lang: str) -> list[_Doc]:
    r = Renderer(atlas, lang)
    ui = atlas.fb.ui[lang]
    by_owner: dict[str, list[str]] = defaultdict(list)
    for t in atlas.fb.texts:
        by_owner[t.owner].append(t.key)
    docs = []

    def plain(key: str, **values) -> str:
        return fmt.render_plain(plural.template(atlas.fb, lang, key, values), values, lang)

    for rel in atlas.releases:
        scope = release_scope(rel)
        rtitle = plain("release.title", **scope)
        for c in rel.changes:
            d = _Doc(f"changes/{c.id}/", "change", r.fact_plain(f"{c.id}.title"), r.fact_plain(f"{c.id}.summary"), c.id, rel.version)
            d.add("title", d.title)
            for key in by_owner[c.id]:
                if not key.endswith(".title"):
                    d.add("body", r.fact_plain(key))
            d.add("body", rtitle, ui[f"area.{c.area}"], ui[f"type.{c.type}"], c.area, c.type)
            if c.rollback:
                d.add("body", ui["change.rollback"])
            for v in c.values.values():
                d.add("ids", *_value_texts(v, lang))
                for s in (v if isinstance(v, list) else [v]):
                    d.idents += identifiers(s) + ([str(s).lower()] if isinstance(s, str) and _IDENT.fullmatch(str(s)) else [])
            if c.rollback:
                d.add("ids", *c.rollback.switches)
                for s in c.rollback.switches:
                    d.idents += identifiers(s)
            if c.fix:
                for code in (c.fix.before, c.fix.after):
                    if code:
                        d.add("body", code)
                        d.idents += identifiers(code)
            for p in c.probes:
                if p.contains:
                    d.idents += identifiers(p.contains)
            for e in c.errors:
                d.add_error(e.message)
            d.add("ids", c.id)
            docs.append(d)

        d = _Doc(f"releases/{rel.version}/", "release", rtitle, r.fact_plain(f"{rel.version}.headline"), rel.version, rel.version)
        d.add("title", rtitle, rel.version, rel.full_version)
        d.add("body", r.fact_plain(f"{rel.version}.headline"))
        cnt = atlas.counts[rel.version]
        if rel.released:
            d.add("facts", plain("release.released"), fmt.format_day(rel.released, lang), rel.released.isoformat())
        if rel.published_at:
            d.add("facts", plain("release.published_at"), rel.published_at.strftime("%Y-%m-%dT%H:%M:%SZ"))
        for name in ("commits", "contributors"):
            n = getattr(rel, name)
            if n is not None:
                d.add("facts", plain(f"release.{name}"), fmt.format_number(n, lang), n)
        d.add("facts", plain("release.changes"), cnt["all"],
              plain("release.breaking_none_known") if rel.version in atlas.partial and not cnt["breaking"]
              else plain("release.breaking_count", n=cnt["breaking"]))
        for key in by_owner[rel.version]:
            if key != f"{rel.version}.headline":
                d.add("body", r.fact_plain(key))
        for k in MATRIX_KEYS:
            cell = getattr(rel.matrix, k)
            if cell is not None:
                d.add("facts", plain(f"matrix.{k}"))
                d.add("ids", *_value_texts(cell.value, lang))
                for s in (cell.value if isinstance(cell.value, list) else [cell.value]):
                    d.idents += identifiers(s)
                if cell.note:
                    d.add("body", r.fact_plain(f"{rel.version}.matrix.{k}.note"))
        docs.append(d)

        for q in rel.faq:
            d = _Doc(f"faq/{rel.version}/#{q.id}", "faq", r.fact_plain(f"{q.id}.question"), r.fact_plain(f"{q.id}.answer"), q.id, rel.version)
            d.add("title", d.title)
            d.add("body", r.fact_plain(f"{q.id}.answer"), rtitle)
            docs.append(d)

        for e in rel.events:
            local, utc = atlas.event_times[e.id].local, atlas.event_times[e.id].utc   # computed in enrich
            title = r.fact_plain(f"{e.id}.title")
            when = fmt.format_moment(local, lang, e.timezone)
            d = _Doc(f"releases/{rel.version}/#{e.id}", "event", title, f"{when} · {r.fact_plain(f'{e.id}.summary')}", e.id, rel.version)
            d.add("title", title, plain(f"search.kind.{e.kind}"))
            d.add("body", r.fact_plain(f"{e.id}.summary"), when, fmt.format_moment(utc, lang),
                  local.date().isoformat(), local.strftime("%H:%M"), e.timezone, rtitle,
                  plain("event.speakers"), plain("event.local_time"))
            for p in e.speakers + ([e.host] if e.host else []):
                d.add("ids", p.name, p.affiliation)
            for key in by_owner[e.id]:
                if ".note." in key:
                    d.add("body", r.fact_plain(key))
            docs.append(d)
    for p in atlas.wheel_only:      # releases known from their wheel: title and what the wheel says
        w = p.wheel
        title = plain("release.title", version=p.version)
        d = _Doc(f"releases/{p.version}/", "release", title, plain("releases.wheel_only_intro"), p.version, p.version)
        d.add("title", title, p.version, w.wheel)
        d.add("facts", plain("wheelrel.requires_python"), w.requires_python, plain("wheelrel.cuda"), w.cuda)
        docs.append(d)
    for up in atlas.upgrades:       # every pair; the pair matcher (search.js) finds it by its two versions
        title = plain("upgrade.pair_title", old=up.old.version, new=up.new.version)
        d = _Doc(f"upgrade/{up.slug}/", "upgrade", title, plain("upgrade.meta"), up.slug, up.new.version)
        d.add("title", title, plain("upgrade.title"))
        docs.append(d)
    # the errors of a package built for another torch (data/companions.yaml): the companions page's anchors
    for e in (atlas.fb.companions.errors if atlas.fb.companions else []):
        desc = plain("companions.error_desc", package=e.package)
        d = _Doc(f"companions/#{e.id}", "companion", f"{e.package}: {e.message}", desc, e.id, "")
        d.add("title", e.package, plain("companions.errors"))
        d.add("body", desc)
        d.add_error(e.message)
        docs.append(d)
    return docs


def _attach_aliases(docs_by_lang: dict[str, list[_Doc]], atlas: Atlas) -> None:
    problems = []
    have = {id(d): {t for txts in d.fields.values() for x in txts for t in tokens(x)} | set(d.idents)
            for docs in docs_by_lang.values() for d in docs}      # before any alias is added
    for a in atlas.fb.search.aliases:
        hits = 0
        means = [set(tokens(m)) | {norm(m)} for m in a.means]
        for lang, docs in docs_by_lang.items():
            words = a.for_lang(lang)
            for d in docs:
                hit = d.key in a.targets
                if not hit and means:
                    hit = any(norm(m) in have[id(d)] or (len(mt) > 1 and mt <= have[id(d)])
                              for m, mt in zip(a.means, means))
                if hit:
                    hits += 1
                    d.add("aliases", *words)
                    d.idents += [norm(w) for w in words if _IDENT.fullmatch(w)]
        if not hits:
            problems.append(f"{ALIASES_FILE}: {a.id}: means: no page contains any of {', '.join(a.means)}")
    if problems:
        raise DataError(problems)


def _stems(lang: str):
    if lang not in STEMMERS:
        return lambda w: None
    import snowballstemmer  # here: a build encodes the index in a forked process, so MkDocs' never imports it

    st = snowballstemmer.stemmer(STEMMERS[lang])

    @functools.cache          # most words repeat; stemming is most of the index's time
    def stem(w: str) -> str | None:
        return st.stemWord(w) if len(w) >= 4 and w.isalpha() else None
    return stem


def _index(docs: list[_Doc], lang: str, atlas: Atlas) -> dict:
    stem = _stems(lang)
    tf: dict[str, dict[int, dict[str, int]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    length: dict[tuple[int, str], int] = defaultdict(int)
    for i, d in enumerate(docs):
        for fld, texts in d.fields.items():
            for x in texts:
                for t in tokens(x):
                    tf[t][i][fld] += 1
                    length[i, fld] += 1
                    s = stem(t)
                    if s:
                        tf["~" + s][i][fld] += 1
    n = len(docs)
    avg = {f: sum(v for (_, g), v in length.items() if g == f) / n for f in WEIGHTS}
    # BM25's length normalisation per field: a word in a short FAQ answer says more than in a long page
    k = {(i, f): 1.2 * (1 - B.get(f, 0) + B.get(f, 0) * length[i, f] / (avg[f] or 1)) for i, f in length}
    terms = {}
    for t, per_doc in tf.items():
        df = len(per_doc)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        post = []
        for i in sorted(per_doc):
            score = idf * sum(WEIGHTS[f] * c / (c + k[i, f]) for f, c in per_doc[i].items())
            post += [i, max(1, round(score * 10))]
        terms[t] = post
    ids: dict[str, set[int]] = defaultdict(set)
    for i, d in enumerate(docs):
        for ident in d.idents:
            for k in ident_keys(ident):
                ids[k].add(i)
    errors = []
    for i, d in enumerate(docs):
        for msg in d.errors:
            toks, lits = normalise_error(msg, template=True)
            errors.append([toks, sorted(set(lits)), i])
    errors.sort(key=lambda e: (e[2], e[0]))
    return {
        "format": FORMAT, "lang": lang,
        "docs": [[d.url, d.title, d.desc, d.kind, d.version] for d in docs],
        "terms": terms,
        "ids": {k: sorted(v) for k, v in ids.items()},
        "errors": errors,
        # "<old> <new>" -> the upgrade page of that pair (old before new), for a query naming two versions
        "pairs": {f"{d.key.split('-to-')[0]} {d.key.split('-to-')[1]}": i for i, d in enumerate(docs) if d.kind == "upgrade"},
        "stop": atlas.fb.search.stopwords.get(lang, []),
        "stem": lang in STEMMERS,
    }


def build(atlas: Atlas) -> dict[str, dict]:
    docs_by_lang = {lang: _docs(atlas, lang) for lang in LANGS}
    _attach_aliases(docs_by_lang, atlas)
    return {lang: _index(docs, lang, atlas) for lang, docs in docs_by_lang.items()}


def dumps(index: dict) -> str:
    return json.dumps(index, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def encode(atlas: Atlas) -> dict[str, bytes]:
    """``{lang: the index as UTF-8 JSON}``."""
    return {lang: dumps(index).encode("utf-8") for lang, index in build(atlas).items()}


def write(encoded: dict[str, bytes], out_dir: Path) -> dict[str, int]:
    """Write ``<out_dir>/<lang>.json`` from ``encode``'s output; returns bytes per language."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for lang, data in encoded.items():
        (out_dir / f"{lang}.json").write_bytes(data)
    return {lang: len(data) for lang, data in encoded.items()}
