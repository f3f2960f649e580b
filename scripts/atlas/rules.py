"""The code and environment checker's rules (issue 19), generated from the fact base.

In:  a validated ``FactBase`` (``validate(load())``), the committed API surfaces of the wheels
     (``data/evidence/runtime-<v>.txt``, diffed by ``wheel.runtime_diff``, linked to changes
     by ``enrich``) and ``data/gpus.yaml``.
Out: ``build_rules(fb)``: one JSON-able dict (``schema_version: 1``) that both engines read,
     ``scripts/atlas/atlas_check.py`` and ``docs/assets/atlas-check.js``;
     ``weights_only``: each release's allow-list for ``atlas_check.py ckpt``, from
     ``data/evidence/weights-only-<v>.txt`` (``wheel.weights_only``); ``ui`` and ``plural``:
     the ``check.*`` UI strings of every language and each language's CLDR plural rule, which
     both engines word their output with (``ui_strings``);
     ``standalone_script(rules)``: the checker's source with the rules embedded (published as
     ``/check/atlas_check.py``); ``ruff_config(rules, to)``: a ruff ``banned-api`` table.

Nothing is typed twice. A rule comes from what the data already says:

- a value that a change says is gone (``evidence.claim_roles``: a removal's ``old``/``param``, a
  rename's ``old``, ``data/claims.yaml``), classified by ``idents.classify``: a ``torch.*`` name
  becomes a ``name`` rule, ``kw="v"`` a ``keyword`` rule, a bare parameter a ``param`` rule on the
  callables whose signature lost it in the API diff, a bare key a ``string`` rule (``key``);
- each ``rollback.switches`` entry: an ``env`` or backend ``string`` rule, ``deprecated-switch``
  until the release that removes it;
- a change's ``check:`` blocks (schema ``Check``), whose targets refer to its values;
- the API diff between consecutive wheels: each removed name and removed parameter that no rule
  above covers, linked to the change the site links it to, or to none (``change: null``).

A rule applies to an upgrade ``from -> to`` when its release is in ``(from, to]``, or its
``removed_in`` is; a switch whose ``removed_in`` is reached ``breaks``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

from packaging.version import Version

from . import plural, rewrites
from .gpus import arch_ccs, words
from .i18n import text_for
from .idents import ALIASES, classify
from .keys import version_key
from .langs import LANGS
from .problems import DataError
from .text import punctuation, render_plain
from .urls import DEFAULT_SITE_URL, upgrade_slug, url_for
from .wheel import FAMILY_LABELS, claim_roles, weights_only_table, wheel_of

SCHEMA_VERSION = 1
CHECKER = Path(__file__).resolve().parent / "atlas_check.py"
SEVERITIES = ("breaks", "behavior", "deprecated", "deprecated-switch", "platform")
#: Change types whose code the checker looks at (features add, they do not break).
CHECKED_TYPES = {"breaking", "removal", "behavior", "deprecation", "platform"}
_REF = re.compile(r"^\{(?:([0-9]{2,4}-[a-z0-9-]+)\.)?([a-z0-9_]+)\}$")


def _severity(c) -> str:
    if c.type in ("breaking", "removal"):
        return "breaks"
    if c.type == "platform":
        return "platform"
    if c.type == "deprecation":
        return "deprecated"
    return "behavior"


class _Builder:
    def __init__(self, atlas, site_url: str):
        fb = self.fb = atlas.fb
        #: new id -> the published ids that redirect to it (data/published_ids.yaml)
        self.renamed_from: dict[str, list[str]] = {}
        for old_id, new_id in sorted(((fb.ledger or {}).get("redirects") or {}).items()):
            self.renamed_from.setdefault(new_id, []).append(old_id)
        self.base = site_url.rstrip("/")
        self.atlas = atlas
        self.texts = {t.key: t for t in fb.texts}
        self.release_of = {c.id: r for r in fb.releases for c in r.changes}
        self.by_id = {c.id: c for c in fb.changes()}
        versions = fb.wheels.versions if fb.wheels else []
        self.points = list(reversed(atlas.history))   # every release, curated or known from its wheel, oldest first
        self.wheel = {p.version: wheel_of(p.version, versions) for p in self.points}
        self.surfaces = {v: fb.surfaces[v][1] for v in versions if v in fb.surfaces}
        #: last part of a public name -> the names (in any surface) it may be; ``named`` pairs them with their surfaces
        self.by_last: dict[str, list[str]] = {}
        for n in set().union(*self.surfaces.values()):   # each name once, not once per surface
            self.by_last.setdefault(n.rsplit(".", 1)[-1], []).append(n)
        #: what each release installed and imported says of a name (wheel.runtime): the judge of every "breaks"
        self.runtimes = {p.version: fb.runtimes[self.wheel[p.version]] for p in self.points
                         if self.wheel.get(p.version) in fb.runtimes}
        self.rules: list[dict] = []
        self.problems: list[str] = []
        #: rules not written because the installed release contradicts them: {"id", "reason"}
        self.dropped: list[dict] = []

    # --- texts ------------------------------------------------------------------------
    def plain(self, key: str, lang: str) -> str:
        t = self.texts[key]
        return render_plain(text_for(self.fb, key, lang, t.en), self.fb.scopes[t.owner], lang)

    def url(self, lang: str, path: str) -> str:
        return self.base + url_for(lang, path)

    def change_texts(self, cid: str) -> dict:
        c = self.by_id[cid]
        # the steps are sentences: Chinese puts none of its space after 。
        fix = {lang: punctuation(lang)["sp"].join(self.plain(f"{cid}.fix.{i}", lang) for i in range(len(c.fix.steps)))
               for lang in LANGS} if c.fix else None
        return {"title": {lang: self.plain(f"{cid}.title", lang) for lang in LANGS}, "fix": fix,
                "url": {lang: self.url(lang, f"changes/{cid}/") for lang in LANGS}}

    def api_diff_texts(self, what: str, name: str, release: str) -> dict:
        """Title of a rule no change explains: the upgrade page's own words ("Removed",
        "not mentioned by any source"), in each language's punctuation."""
        ui = self.fb.ui
        prev = self.atlas.point(release).previous

        def title(lang: str) -> str:
            pu = punctuation(lang)
            return f"{ui[lang][f'apidiff.{what}']}{pu['colon']}{name}{pu['sp']}{pu['lp']}{ui[lang]['apidiff.unmentioned']}{pu['rp']}"
        return {"title": {lang: title(lang) for lang in LANGS}, "fix": None,
                "url": {lang: self.url(lang, f"upgrade/{upgrade_slug(prev, release)}/") for lang in LANGS}}

    # --- names ------------------------------------------------------------------------
    def named(self, last: str):
        """(name, surface) for each surface that has a public name ending in ``last``."""
        return [(n, s) for n in self.by_last.get(last, ()) for s in self.surfaces.values() if n in s]

    def _sig(self, name: str) -> Optional[str]:
        for v in sorted(self.surfaces, key=version_key, reverse=True):
            if name in self.surfaces[v]:
                return self.surfaces[v][name]
        return None

    def qualify(self, value: str) -> list[str]:
        """A name as the data writes it (``dist.new_group()``, ``ProcessGroupNCCL``,
        ``torch.qr``) -> the public dotted names it is known by in the wheels: the name itself
        (qualified through the API surface when it is bare) and its re-exports (same last part,
        same signature)."""
        name = re.sub(r"\(.*\)$", "", value.strip().lstrip("@"))
        head = name.split(".")[0]
        if head in ALIASES:
            name = ALIASES[head] + name[len(head):]
        if "." not in name:
            last = name
            cands = sorted({n for n in self.by_last.get(last, ()) if "._" not in n and not n.startswith("torch.Tensor.")},
                           key=lambda n: (n.count("."), n))
            if not cands:
                return [name]
            name = cands[0]
        sig = self._sig(name)
        if sig is None or not re.search(r"\(\w", sig):
            return [name]        # only a signature with parameters identifies a re-export
        last = name.rsplit(".", 1)[-1]
        same = sorted({n for n, s in self.named(last) if n != name and s[n] == sig and "._" not in n})
        return [name] + same

    # --- rules ------------------------------------------------------------------------
    # --- what the installed releases say ----------------------------------------------------
    def resolves(self, name: str, release: str) -> Optional[bool]:
        """Whether ``name`` resolves in ``release`` installed (None: no lock, or it could not judge)."""
        rt = self.runtimes.get(release)
        return rt.resolves(name) if rt else None

    def accepts(self, callee: str, keyword: str, release: str) -> Optional[bool]:
        """Whether ``callee`` in ``release`` installed takes ``keyword`` (by name or through ``**kw``)."""
        from .wheel.runtime import params
        rt = self.runtimes.get(release)
        row = rt.rows.get(callee) if rt else None
        if row is None or row.state not in ("public", "hidden") or not row.signature:
            return None
        ps = params(row.signature)
        return any(p == keyword and k != "pos" for p, k, _ in ps) or any(k == "**" for _, k, _ in ps)

    def aliases(self, name: str, release: str) -> set[str]:
        """The other public paths of the object ``name`` is in ``release`` installed (same module:qualname)."""
        rt = self.runtimes.get(release)
        row = rt.rows.get(name) if rt else None
        if row is None or not row.identity:
            return set()
        return set(rt.paths.get(row.identity, ())) - {name}

    def later(self, release: str) -> list[str]:
        return [p.version for p in self.points if version_key(p.version) > version_key(release)]

    def confirm(self, kind: str, release: str, severity: str, removed_in: Optional[str], match: dict) -> Optional[str]:
        """Why the installed releases contradict a rule that says a name or keyword breaks (None: they
        do not). Drops the targets that still resolve (or still take the keyword) in ``release`` and
        sets ``back_in``: the later releases where every target is back, where the rule does not apply."""
        breaks = severity == "breaks" or bool(removed_in)
        if not breaks or kind not in ("name", "param"):
            return None
        when = removed_in or release
        if kind == "name":
            kept = [t for t in match["targets"] if self.resolves(t, when) is not True]
            if not kept:
                return f"{', '.join(match['targets'])} still resolves in torch {when}"
            match["targets"] = kept
            back = [v for v in self.later(when) if all(self.resolves(t, v) is True for t in kept)]
        else:
            kw = match["keyword"]
            kept = [t for t in match["targets"] if self.accepts(t, kw, when) is not True]
            if not kept:
                return f"{', '.join(match['targets'])} still takes {kw}= in torch {when}"
            match["targets"] = kept
            back = [v for v in self.later(when) if all(self.accepts(t, kw, v) is True for t in kept)]
        if back:
            match["back_in"] = back
        return None

    def add(self, kind: str, change: Optional[str], release: str, severity: str, texts: dict, *,
            removed_in: Optional[str] = None, source: str, **match: Any) -> Optional[dict]:
        key = match.get("targets") or [match.get("target")]
        rid = f"{change or 'api-diff'}/{kind}/{key[0]}"
        if kind == "param":
            rid += f"/{match['keyword']}"
        elif kind == "keyword":
            rid += f"={match['value']}"
        elif kind == "reload":
            rid += f"/{match['how']}"
        if any(r["id"] == rid for r in self.rules):
            return next(r for r in self.rules if r["id"] == rid)
        why = self.confirm(kind, release, severity, removed_in, match)
        if why:
            self.dropped.append({"id": rid, "reason": why})
            return None
        rule = {"id": rid, "change": change, "kind": kind, "introduced_in": release, "removed_in": removed_in,
                "severity": severity, "source": source, **match, **texts}
        was = self.renamed_from.get(change or "")
        if was:     # a change renamed since it was published: `# atlas: ignore[<old id>]` still names it
            rule["was"] = was
        self.rules.append(rule)
        return rule

    def resolve_ref(self, c, text: str, where: str) -> Optional[str]:
        m = _REF.match(text)
        if not m:
            return text
        other = self.by_id.get(m.group(1)) if m.group(1) else c
        value = other.values.get(m.group(2)) if other else None
        if not isinstance(value, str):
            self.problems.append(f"{self.fb.release_files[self.release_of[c.id].version]}: {c.id}: {where}: "
                                 f"{text} does not name a string value")
            return None
        return value

    def from_values(self, c, release: str, param_removals: dict) -> None:
        texts = self.change_texts(c.id)
        sev = _severity(c)
        # a value a check: block matches is matched the block's way (more precisely), not again from the value
        by_check = {ref for ck in c.check for ref in re.findall(r"\{(\w+)\}", ck.target)}
        for k, role in sorted(claim_roles(c, self.fb.claims).items()):
            if role != "removed" or k not in c.values or k in by_check:
                continue
            v = c.values[k]
            for x in (v if isinstance(v, list) else [v]):
                if not isinstance(x, str):
                    continue
                kind, query, param, _ = classify(x)
                src = f"values.{k}"
                if kind == "api" and not param:
                    old = self.surfaces.get(self.wheel.get(self.atlas.point(release).previous) or "", {})
                    new = self.surfaces.get(self.wheel.get(release) or "", {})
                    gone = [n for n in self.qualify(query) if not old or (n in old and n not in new)] or [query]
                    self.add("name", c.id, release, sev, texts, targets=gone, source=src)
                elif kind == "kwvalue":
                    self.add("keyword", c.id, release, sev, texts, target=query, value=param, source=src)
                elif kind == "name" and "." not in query:
                    callees = param_removals.get((release, query))
                    if callees:
                        self.add("param", c.id, release, sev, texts, targets=sorted(callees), keyword=query, source=src)
                    else:
                        self.add("string", c.id, release, sev, texts, target=query, key=True, split=False, source=src)
                elif kind == "constant":
                    self.add("env", c.id, release, sev, texts, target=query, source=src)
                elif kind == "backend":
                    self.add("string", c.id, release, sev, texts, target=query, key=False, split=True, source=src)

    def from_rollback(self, c, release: str) -> None:
        if not c.rollback:
            return
        texts = self.change_texts(c.id)
        for i, x in enumerate(c.rollback.switches):
            kind, query, _, _ = classify(x)
            src = f"rollback.switches.{i}"
            if kind == "constant":
                self.add("env", c.id, release, "deprecated-switch", texts, removed_in=c.rollback.removed_in,
                         target=query, source=src)
            elif kind == "backend":
                self.add("string", c.id, release, "deprecated-switch", texts, removed_in=c.rollback.removed_in,
                         target=query, key=False, split=True, source=src)

    def from_checks(self, c, release: str) -> None:
        texts = self.change_texts(c.id)
        for i, ck in enumerate(c.check):
            where = f"check.{i}"
            sev = ck.severity or _severity(c)
            quiet = {"shown_if": ck.shown_if} if ck.shown_if else {}
            target = self.resolve_ref(c, ck.target, f"{where}.target")
            if target is None:
                continue
            if ck.kind == "reload":
                m = re.fullmatch(r"(?:importlib\.|imp\.)?reload\(\s*([A-Za-z_][\w.]*)\s*\)", target)
                d = re.fullmatch(r"del\s+sys\.modules\[\s*([\"'])([\w.]+)\1\s*\]", target)
                if not (m or d):
                    self.problems.append(f"{self.fb.release_files[release]}: {c.id}: {where}.target: "
                                         f"{target!r} is neither importlib.reload(module) nor del sys.modules[\"module\"]")
                    continue
                self.add("reload", c.id, release, sev, texts, target=m.group(1) if m else d.group(2),
                         how="reload" if m else "del", source=where, **quiet)
            elif ck.kind == "method":
                # an autograd change does not touch code the checker sees run without gradients
                grad = {"grad_only": True} if c.area == "autograd" else {}
                self.add("method", c.id, release, sev, texts, target=re.sub(r"\(.*\)$", "", target), source=where, **grad,
                         **quiet)
            else:
                args = []
                for j, a in enumerate(ck.args):
                    kw = self.resolve_ref(c, a.keyword, f"{where}.args.{j}.keyword")
                    val = self.resolve_ref(c, a.value, f"{where}.args.{j}.value") if a.value is not None else None
                    if "value" in a.when and val is None:
                        self.problems.append(f"{self.fb.release_files[release]}: {c.id}: {where}.args.{j}: "
                                             "'value' in when needs a value")
                    args.append({"keyword": kw, "position": a.position, "when": list(a.when), "value": val})
                extra = {"args": args} if ck.kind == "call" else {}
                if ck.into:
                    extra["into"] = list(ck.into)
                allowers = [self.resolve_ref(c, a, f"{where}.allowed_by") for a in ck.allowed_by]
                if any(a is None for a in allowers):
                    continue
                if allowers:
                    extra["allowed_by"] = allowers
                if c.area == "autograd":
                    extra["grad_only"] = True
                self.add(ck.kind, c.id, release, sev, texts, targets=self.qualify(target), source=where, **extra, **quiet)

    def covered(self, change: str, name: str) -> bool:
        for r in self.rules:
            if r["change"] != change:
                continue
            if r["kind"] == "name" and any(name == t or name.startswith(t + ".") for t in r["targets"]):
                return True
            if r["kind"] == "string" and r.get("key") and name.rsplit(".", 1)[-1] == r["target"]:
                return True
        return False

    def build(self) -> dict:
        steps = {u.new.version: u for u in self.atlas.upgrades if u.old.version == u.new.previous}
        # removed parameters per (release, parameter): the callables that lost them, with re-exports
        param_removals: dict[tuple, set] = {}
        param_links: dict[tuple, Optional[str]] = {}
        for rel, up in steps.items():
            for g in (up.api_diff or {}).get("groups", []):
                for e in g["changed"]:
                    for p in e["params_removed"] if not e.get("accepts_any_keyword") else ():
                        names = {e["name"]} | self.aliases(e["name"], rel)
                        param_removals.setdefault((rel, p), set()).update(names)
                        param_links.setdefault((rel, p, e["name"]), e["change"])
        for r in self.fb.releases:
            for c in r.changes:
                if c.type in CHECKED_TYPES or c.is_breaking:
                    self.from_values(c, r.version, param_removals)
                    self.from_rollback(c, r.version)
                    self.from_checks(c, r.version)
        for rel, up in sorted(steps.items(), key=lambda kv: version_key(kv[0])):
            for g in (up.api_diff or {}).get("groups", []):
                for e in g["removed"]:
                    if e["change"] and self.covered(e["change"], e["name"]):
                        continue
                    texts = self.change_texts(e["change"]) if e["change"] else self.api_diff_texts("removed", e["name"], rel)
                    self.add("name", e["change"], rel, "breaks", texts, targets=[e["name"]], source="api_diff.removed",
                             api_diff={"what": "removed", "name": e["name"], "from_wheel": up.api_diff["old_wheel"],
                                       "to_wheel": up.api_diff["new_wheel"]})
                for e in g["changed"]:
                    for p in e["params_removed"] if not e.get("accepts_any_keyword") else ():
                        link = e["change"]
                        if link and any(x["kind"] == "param" and x["change"] == link and x["keyword"] == p for x in self.rules):
                            continue
                        callees = sorted(n for n in param_removals[(rel, p)] if n.rsplit(".", 1)[-1] == e["name"].rsplit(".", 1)[-1])
                        texts = self.change_texts(link) if link else self.api_diff_texts("changed", f"{e['name']}({p}=)", rel)
                        self.add("param", link, rel, "breaks", texts, targets=callees, keyword=p, source="api_diff.changed",
                                 api_diff={"what": "changed", "name": e["name"], "param": p,
                                           "from_wheel": up.api_diff["old_wheel"], "to_wheel": up.api_diff["new_wheel"]})
        rewrites.attach(self)
        if self.problems:
            raise DataError(self.problems)
        covered = {r["change"] for r in self.rules if r["change"]}
        env = self.env()
        env_links = {cid for rel in env["releases"].values() for cid in rel["links"].values() if cid}
        # what the code check cannot see, with each change's title and page for the /check/ page
        not_checked = [{"change": c.id, "type": c.type, "env": c.id in env_links, "release": r.version,
                        **{k: v for k, v in self.change_texts(c.id).items() if k != "fix"}}
                       for r in self.fb.releases for c in r.changes
                       if (c.is_breaking or c.type in ("removal", "behavior")) and c.id not in covered]
        return {
            "schema_version": SCHEMA_VERSION,
            "site_url": self.base + "/",
            "langs": list(LANGS),
            "releases": [p.version for p in self.points],
            "release_urls": {p.version: {lang: self.url(lang, f"releases/{p.version}/") for lang in LANGS}
                             for p in self.points},
            "upgrade_url": {lang: self.url(lang, "upgrade/{old}-to-{new}/") for lang in LANGS},
            "rules": sorted(self.rules, key=lambda r: (version_key(r["introduced_in"]), r["id"])),
            "not_checked": not_checked,
            "dropped": sorted(self.dropped, key=lambda d: d["id"]),
            "env": env,
            "companions": self.companions(),
            "weights_only": weights_only_table({p.version: self.wheel[p.version] for p in self.points}),
            **ui_strings(self.fb),
        }

    # --- the packages around torch ----------------------------------------------------
    def companions(self) -> dict:
        """Per companion package (companions/pairing.py, issue 41): ``versions``, each release's
        torch minors (None: it declares no torch version), and ``at``, per torch minor, what the
        checkers tell a user moving there: ``newest`` (the newest release that admits it) or
        ``state`` undeclared | none (no release works with it, as far as any release says);
        ``pinned_by_torch`` when torch's own wheel pins it (triton), so the pip line leaves it to torch."""
        a = self.atlas
        out = {}
        basis = {p.name: p.basis for p in (a.fb.companions.packages if a.fb.companions else [])}
        for pkg in a.companion_packages:
            rows = [r for r in a.companion_rows if r.package == pkg]
            at = {}
            for p in self.points:
                cell = a.companion_cells.get((pkg, p.version))
                if cell is None:
                    continue
                newest = max(cell.rows, key=lambda r: Version(r.version)).version if cell.rows else None
                at[p.version] = {"state": cell.state, "newest": newest}
            out[pkg] = {"versions": {r.version: (r.minors if r.torch is not None else None) for r in rows}, "at": at}
            if basis.get(pkg) == "torch_pins":   # torch's own wheel pins it: pip brings it with torch
                out[pkg]["pinned_by_torch"] = True
        return {"packages": list(a.companion_packages), "by_package": out,
                "url": {lang: self.url(lang, "companions/") for lang in LANGS}}

    # --- environment ------------------------------------------------------------------
    def link(self, r, key: str) -> Optional[str]:
        """The change of release ``r`` that states the matrix value ``key``: the first (breaking
        first) whose values hold that value; for a cell inferred from another release's report, only
        a change that cites the same passage (one that only happens to hold the same number, such
        as a CUDA version, does not)."""
        cell = getattr(r.matrix, key)
        if cell is None:
            return None
        want = cell.value if isinstance(cell.value, list) else [cell.value]

        def holds(v) -> bool:
            have = v if isinstance(v, list) else [v]
            return any(str(a) == str(b) for a in have for b in want)
        # a change states the cell when it holds the value and either cites a passage the cell cites or
        # the cell is not inferred (an inferred cell is stated by no change of its own release)
        cited = {(x.source, x.locator) for x in cell.sources}
        cands = [c for c in r.changes if any(holds(v) for v in c.values.values())
                 and (not cell.inferred or cited & {(x.source, x.locator) for x in c.sources})]
        cands.sort(key=lambda c: not c.is_breaking)
        return cands[0].id if cands else None

    def env(self) -> dict:
        table = self.fb.gpus
        arch_cc = {a.name: a.compute_capability for a in table.nvidia_architectures}
        releases = {}
        links_all: set[str] = set()
        for r in self.fb.releases:
            m = r.matrix

            def val(key, m=m):
                cell = getattr(m, key)
                return None if cell is None else cell.value
            arch = val("nvidia_min_arch")
            arch_min = None
            if isinstance(arch, str):
                sm = re.fullmatch(r"sm_(\d+)(\d)", arch)
                arch_min = f"{sm.group(1)}.{sm.group(2)}" if sm else arch_cc.get(arch)
            cuda = None
            if val("cuda_default_wheel") is not None:
                cuda = [str(val("cuda_default_wheel"))] + [str(x) for x in (val("cuda_other_wheels") or [])]
            keys = ("python_min", "python_max", "nvidia_min_driver", "nvidia_min_arch", "macos_min_mps", "rocm_wheels",
                    "rocm_dropped_wheels", "rocm_dropped_targets", "cuda_default_wheel", "cuda_other_wheels",
                    "cuda_dropped_wheels")
            links = {k: self.link(r, k) for k in keys if getattr(m, k) is not None}
            links_all |= {x for x in links.values() if x}
            releases[r.version] = {
                "python_min": val("python_min"), "python_max": val("python_max"),
                "python_free_threaded": val("python_free_threaded"),
                "nvidia_min_driver": val("nvidia_min_driver"), "nvidia_min_arch": arch,
                "nvidia_min_cc": arch_min, "cuda_wheels": cuda,
                "cuda_dropped_wheels": val("cuda_dropped_wheels"),
                "rocm_wheels": val("rocm_wheels"), "rocm_dropped_wheels": val("rocm_dropped_wheels"),
                "rocm_dropped_targets": val("rocm_dropped_targets"), "macos_min_mps": val("macos_min_mps"),
                "links": links,
            }
        drivers = {d.cuda: d.min_driver for d in table.cuda_drivers}
        mps_change, releases_mps = None, None   # the MPS macOS minimum carried through the selected releases
        for pt in self.points:
            w = pt.wheel
            # known from its wheel: the CPython versions the registry has wheels for, the GPU
            # architectures its binaries hold, and the driver its CUDA runtime needs (NVIDIA's minor
            # version compatibility, data/gpus.yaml)
            pys = sorted((v for v in (w.python_wheels if w else []) if v.replace(".", "").isdigit()),
                         key=version_key)   # 3.13t, the free-threaded build, is not a bound of the range
            cuda_major = w.cuda.split(".")[0] if w and w.cuda else None
            if pt.version in releases:
                f = releases[pt.version]
                # the GPU code of its wheel (torch.cuda.get_arch_list()) decides the architecture exactly
                f["nvidia_archs"] = list(w.cuda_archs) if w and w.cuda_archs else None
                if pt.release is not None and pt.release.selected:
                    # a selection of hazards has no matrix: what its wheel shows fills the gaps, and
                    # the selected platform change that states a GPU or driver requirement is its link
                    f["wheel_cuda"] = w.cuda if w else None
                    for key, value in (("python_min", pys[0] if pys else None), ("python_max", pys[-1] if pys else None),
                                       ("nvidia_min_driver", drivers.get(cuda_major))):
                        if f[key] is None:
                            f[key] = value
                    # a CUDA build that ends in this release (``cuda_ended``) blocks that build from here on
                    ended = [c for c in pt.release.changes if c.type == "platform" and "cuda_ended" in c.values]
                    f["cuda_ended"] = [str(c.values["cuda_ended"]) for c in ended] or None
                    if ended:
                        f["links"]["cuda_ended"] = ended[0].id
                        links_all.add(ended[0].id)
                    # the macOS that MPS needs, from a selected platform change that states it, else
                    # the one stated by the newest selected release before (a minimum never falls back)
                    mps = next((c for c in pt.release.changes if c.type == "platform" and "macos_min" in c.values), None)
                    if f["macos_min_mps"] is None and mps is not None:
                        f["macos_min_mps"], mps_change = str(mps.values["macos_min"]), mps.id
                    elif f["macos_min_mps"] is None and mps_change:
                        f["macos_min_mps"] = releases_mps
                    if f["macos_min_mps"] is not None and mps_change and "macos_min_mps" not in f["links"]:
                        f["links"]["macos_min_mps"] = mps_change
                        links_all.add(mps_change)
                    releases_mps = f["macos_min_mps"]
                    for key, names in (("nvidia_min_arch", ("archs", "arch")), ("nvidia_min_driver", ("driver",)),
                                       ("python_min", ("python_min",))):
                        c = next((c for c in pt.release.changes if c.type == "platform" and set(names) & set(c.values)), None)
                        if c and key not in f["links"]:
                            f["links"][key] = c.id
                            links_all.add(c.id)
                continue
            releases[pt.version] = {
                "python_min": pys[0] if pys else None, "python_max": pys[-1] if pys else None,
                "python_free_threaded": None, "nvidia_min_driver": drivers.get(cuda_major), "nvidia_min_arch": None,
                "nvidia_min_cc": None, "nvidia_archs": list(w.cuda_archs) if w and w.cuda_archs else None,
                "cuda_wheels": None, "cuda_dropped_wheels": None, "rocm_wheels": None,
                "rocm_dropped_wheels": None, "rocm_dropped_targets": None, "macos_min_mps": None, "links": {},
                "wheel_cuda": w.cuda if w else None,
            }
        # the glibc each release's Linux wheel needs (its manylinux tag), linked to the change that
        # raised it; the last release with Intel Mac wheels, from the change that says so
        glibc_change = None
        for pt in self.points:
            w = pt.wheel
            prev = self.atlas.point(pt.previous) if pt.previous else None
            if w and prev and prev.wheel and prev.wheel.glibc and w.glibc and version_key(w.glibc) > version_key(prev.wheel.glibc):
                glibc_change = next((c.id for c in pt.changes if c.type == "platform" and "glibc" in c.values), None)
            if pt.version in releases:
                releases[pt.version]["glibc_min"] = (w.glibc or None) if w else None
                releases[pt.version]["glibc_change"] = glibc_change if w and w.glibc else None
                # per platform family, the CPython versions with a wheel on PyPI and the oldest
                # glibc or macOS each installs on (the registry's file list); None: not read
                releases[pt.version]["wheels"] = (w.platform_floors or None) if w else None
        if glibc_change:
            links_all.add(glibc_change)
        # every official build of every release (data/builds.yaml, derived in enrich): what the
        # checkers judge per build for "the newest release this machine can run, with its build"
        for v, rows in (self.atlas.builds or {}).items():
            if v in releases:
                releases[v]["builds"] = [{"build": b.build, "kind": b.kind, "cuda": b.cuda, "default": b.default,
                                          "pip": b.pip, "archs": b.archs, "driver_linux": b.driver_linux,
                                          "driver_windows": b.driver_windows, "pythons": b.pythons,
                                          "platforms": b.platforms} for b in rows]
                # a release whose own facts lack its Python range or driver: its build matrix has them
                # (the default wheel's CPython tags, else the matrix's row; its CUDA's driver floor)
                f = releases[v]
                d = next((b for b in rows if b.default), None)
                pys = sorted((p for p in (d.pythons if d else rows[0].pythons if rows else []) if p[-1].isdigit()),
                             key=version_key)
                if pys and f["python_min"] is None and f["python_max"] is None:
                    f["python_min"], f["python_max"] = pys[0], pys[-1]
                if d and d.driver_linux and f["nvidia_min_driver"] is None:
                    f["nvidia_min_driver"] = d.driver_linux.split(".")[0]
                # and its CUDA and ROCm builds (the default first), when its own facts list none
                cudas = sorted((b for b in rows if b.kind == "cuda" and b.cuda), key=lambda b: not b.default)
                if f["cuda_wheels"] is None and cudas:
                    f["cuda_wheels"] = [b.cuda for b in cudas]
                rocms = [".".join(re.findall(r"\d+", b.build)[:2]) for b in rows if b.kind == "rocm"]
                if f["rocm_wheels"] is None and rocms:
                    f["rocm_wheels"] = rocms
        # a minimum that is the same in the known releases on both sides of a release that does
        # not state it (the macOS MPS needs: 14 in 2.12 and 2.14) is that release's too
        order = sorted(releases, key=version_key)
        for key in ("macos_min_mps",):
            for i, v in enumerate(order[1:-1], 1):
                before = next((releases[w][key] for w in reversed(order[:i]) if releases[w][key] is not None), None)
                after = next((releases[w][key] for w in order[i + 1:] if releases[w][key] is not None), None)
                if releases[v][key] is None and before is not None and str(before) == str(after):
                    releases[v][key] = before
        # the change that ends a platform's wheels is the one whose wheel claim says so (no_platform)
        ends = {claim.name: c.id for c in self.fb.changes() for claim in c.wheel if claim.kind == "no_platform"}
        links_all |= set(ends.values())
        platform = {"labels": dict(FAMILY_LABELS), "changes": ends}
        return {
            "releases": releases,
            "platform": platform,
            "changes": {cid: {k: v for k, v in self.change_texts(cid).items() if k != "fix"} for cid in sorted(links_all)},
            "gpus": {
                "nvidia": [{"words": words(g.match or g.model), "model": g.model, "arch": g.arch,
                            "cc": g.compute_capability} for g in table.nvidia],
                # a series, and the compute capabilities each architecture's models have (what
                # nvidia-smi -a's "Product Architecture" alone implies): both inferred verdicts
                "series": [{"word": s.match.upper(), "number": s.number, "series": s.series, "arch": s.arch,
                            "ccs": s.compute_capabilities} for s in table.nvidia_series],
                "arch_ccs": arch_ccs(table),
                # CUDA major -> the oldest compute capability a build made with it holds code for
                "toolkit_min_cc": {t.cuda: t.min_cc for t in table.cuda_toolkits},
                "amd": [{"words": words(g.match or g.model), "model": g.model, "gfx": g.gfx} for g in table.amd],
                "amd_pci_ids": {i: row.gfx for row in table.amd_pci_ids for i in row.ids},
                "sources": {s.id: s.url for s in table.sources},
            },
        }


#: The UI strings both engines print (``data/i18n/<lang>.yaml``): every key under this prefix.
UI_PREFIX = "check."


def ui_strings(fb) -> dict:
    """``ui``: every ``check.*`` UI string of every language (a counted one as its plural forms,
    ``{one: ..., other: ...}``), and ``plural``: each language's CLDR rule (``plural.abstract``),
    so the CLI and the /check/ page word their output from the same translation and pick the
    form of a count as the site does."""
    ui = {lang: {k: dict(fb.ui_forms.get(lang, {}).get(k) or {}) or v
                 for k, v in sorted(fb.ui[lang].items()) if k.startswith(UI_PREFIX)} for lang in LANGS}
    return {"ui": ui, "plural": {lang: plural.abstract(lang) for lang in LANGS}}


def build_rules(atlas, site_url: str = DEFAULT_SITE_URL) -> dict:
    """The checker's rules from the enriched facts (``enrich.Atlas``); URLs are absolute on ``site_url``.
    Raises DataError naming file, change and field for a ``check:`` block that does not resolve."""
    return _Builder(atlas, site_url).build()


def rules_json(rules: dict) -> str:
    """Deterministic JSON of the rules (sorted keys, no timestamps): /api/v1/rules.json."""
    return json.dumps(rules, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


_RULES_LINE = "RULES = None"


def standalone_script(rules: dict) -> str:
    """``atlas_check.py`` with the rules embedded, so it runs anywhere with Python 3.9+ and
    nothing else. The line ``RULES = None`` becomes ``RULES = json.loads(<literal>)``."""
    src = CHECKER.read_text(encoding="utf-8")
    lines = src.split("\n")
    idx = [i for i, line in enumerate(lines) if line == _RULES_LINE]
    if len(idx) != 1:
        raise ValueError(f"{CHECKER.name}: expected one line {_RULES_LINE!r}")
    payload = json.dumps(rules, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    lines[idx[0]] = "RULES = json.loads(" + repr(payload) + ")"
    return "\n".join(lines)


def _applies(rule: dict, from_v: str, to_v: str) -> bool:
    k = version_key
    if to_v in rule.get("back_in", ()):
        return False
    hit = k(from_v) < k(rule["introduced_in"]) <= k(to_v)
    return hit or bool(rule.get("removed_in") and k(from_v) < k(rule["removed_in"]) <= k(to_v))


def ruff_config(rules: dict, to_version: str, from_version: Optional[str] = None) -> str:
    """A ruff configuration (``[lint.flake8-tidy-imports.banned-api]``) with every dotted name
    whose use breaks on the way to ``to_version`` (from ``from_version``, default the oldest
    release): published as ``/check/ruff-<to>.toml``. Each message names the permanent URL.
    ruff matches qualified names only, so keyword, string and environment rules stay with
    ``atlas_check.py``."""
    releases = rules["releases"]
    if to_version not in releases or (from_version and from_version not in releases):
        raise ValueError(f"unknown release; known: {', '.join(releases)}")
    from_version = from_version or releases[0]
    banned: dict[str, str] = {}
    for r in rules["rules"]:
        if r["kind"] != "name" or not _applies(r, from_version, to_version) or r["severity"] != "breaks":
            continue
        for t in r["targets"]:
            msg = f"{r['title']['en']} ({r['severity']}, torch {r['introduced_in']}). {r['fix']['en'] if r['fix'] else ''}".strip()
            banned.setdefault(t, f"{msg} {r['url']['en']}")
    out = [f"# Release Atlas: names that break on the way from torch {from_version} to {to_version}.",
           "# Generated from the fact base (scripts/atlas/rules.py); use with: ruff check --config <this file>",
           "# or copy the table into your ruff.toml. Keyword, string and environment checks: atlas_check.py.",
           "[lint]", 'extend-select = ["TID251"]', "", "[lint.flake8-tidy-imports.banned-api]"]
    for name in sorted(banned):
        out.append(f"{json.dumps(name)}.msg = {json.dumps(banned[name], ensure_ascii=False)}")
    return "\n".join(out) + "\n"
