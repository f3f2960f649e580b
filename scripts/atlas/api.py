"""The JSON API: the same facts, for tools (``/api/v1/``).

In:  an ``Atlas``.
Out: ``index.json``, ``releases.json``, ``changes.json``, ``faq.json``,
     ``errors.json`` and ``upgrades/<old>-to-<new>.json`` in the given
     directory. Texts are rendered as plain text in every language; URLs are
     site-relative (``/zh/changes/<id>/``). Output is deterministic: sorted
     keys, no timestamps, so the same data gives byte-identical files.
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from .companions.pairing import PURL
from .enrich import DIFF_KINDS, Atlas
from .i18n import text_for
from .keys import CHANGE_TEXT_EXCLUDE
from .langs import LANGS
from .schema import MATRIX_KEYS
from .text import render_plain
from .urls import DEFAULT_SITE_URL, url_for

SCHEMA_VERSION = 1


def _plain(v: Any) -> Any:
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _texts(atlas: Atlas, prefix: str) -> dict[str, dict[str, str]]:
    """{lang: {field: text}} for every text key starting with ``prefix``."""
    fb = atlas.fb
    out: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
    for t in fb.texts:
        if t.key.startswith(prefix):
            field = t.key[len(prefix):]
            for lang in LANGS:
                out[lang][field] = render_plain(text_for(fb, t.key, lang, t.en), fb.scopes[t.owner], lang)
    return out


def _auto_check(v) -> dict[str, Any]:
    """One automatic wheel check of a change (evidence.Verdict) for changes.json."""
    return {"key": v.key, "what": v.what, "value": v.value, "kind": v.kind, "claim": v.role or None,
            "status": v.status, "reason": v.reason or None, "wheel": v.wheel or None, "file": v.file or None,
            "wheel_text" if v.what == "error" else "resolved_name": v.name or None,
            "observed": {w: (o.get("how") if o else None) for w, o in sorted(v.observed.items())}}


def _api_diff(d) -> Any:
    """An upgrade's public API diff as the two installed releases prove it (enrich.DIFF_KINDS),
    each name linked; ``unverified``: names one release could not judge, in no kind."""
    if d is None:
        return None
    return {"from_wheel": d["old_wheel"], "to_wheel": d["new_wheel"], "judged_by": "installed releases",
            "counts": d["counts"], "unverified": d["unverified"], **{k: d["by_kind"][k] for k in DIFF_KINDS}}


def _official(view, urls) -> dict[str, Any]:
    """A release's official notes as data/ledger.yaml judges them (enrich.OfficialView): the
    counts the release page shows and every item, with the URLs of its curated change's page."""
    return {
        "release": view.release, "notes": view.url, "sections_read": view.read,
        "counts": {"official": view.official, "curated": view.curated, "excluded": view.excluded, "open": view.open,
                   "excluded_by_reason": dict(view.reasons), "open_by_kind": dict(view.kinds)},
        "items": [{**row.item.model_dump(), "change_urls": urls(f"changes/{row.change.id}/") if row.change else None}
                  for row in view.rows],
    }


def build(atlas: Atlas, site_url: str = DEFAULT_SITE_URL) -> dict[str, Any]:
    base = site_url.rstrip("/") + "/"

    def urls(path: str) -> dict[str, str]:
        """{lang: absolute URL on site_url} of a site path (``changes/x/``, ``faq/2.15/#q``)."""
        return {lang: base + url_for(lang, path).lstrip("/") for lang in LANGS}

    releases, changes, faq = [], [], []
    for rel in atlas.releases:
        matrix = {k: _plain(getattr(rel.matrix, k).model_dump()) for k in MATRIX_KEYS if getattr(rel.matrix, k)}
        releases.append({
            "version": rel.version, "full_version": rel.full_version, "previous": rel.previous,
            "released": _plain(rel.released),
            "published_at": rel.published_at.strftime("%Y-%m-%dT%H:%M:%SZ") if rel.published_at else None,
            "commits": rel.commits, "contributors": rel.contributors, "wheel_index": rel.wheel_index,
            "counts": dict(sorted(atlas.counts[rel.version].items())),
            # false: the facts are a selection or passing mentions (enrich.partial_releases), so a
            # count of 0 breaking changes means none known, not none
            "breaking_complete": rel.version not in atlas.partial, "matrix": matrix,
            "provenance": _plain({k: [c.model_dump() for c in v] for k, v in rel.provenance.items()}),
            "text": _texts(atlas, f"{rel.version}."),
            "urls": urls(f"releases/{rel.version}/"),
        })
        for c in rel.changes:
            d = _plain(c.model_dump(exclude=CHANGE_TEXT_EXCLUDE))
            d["evidence"] = {
                "status": atlas.evidence_status(c),
                "checks": [{"probe": _plain(p.model_dump()), "observed": obs, "status": st}
                           for p, obs, st in atlas.evidence(c)],
                "from_data": [_auto_check(v) for v in atlas.auto_checks(c)],
            }
            d.pop("probes", None)
            d.update(release=rel.version, breaking=c.is_breaking, text=_texts(atlas, f"{c.id}."),
                     urls=urls(f"changes/{c.id}/"))
            changes.append(d)
        for q in rel.faq:
            faq.append({"id": q.id, "release": rel.version, "refs": q.refs, "sources": _plain([s.model_dump() for s in q.sources]),
                        "text": _texts(atlas, f"{q.id}."),
                        "urls": urls(f"faq/{rel.version}/#{q.id}")})
    errors = [{"message": m, "origin": o, "change": c.id, "release": atlas.change_release[c.id].version,
               "urls": urls(f"changes/{c.id}/")} for m, o, c in atlas.errors]
    upgrades = {}
    for up in atlas.upgrades:
        upgrades[up.slug] = {
            "from": up.old.version, "to": up.new.version,
            "breaking": [c.id for c in up.breaking], "checklist": [c.id for c in up.checklist],
            "rollbacks": [{"change": c.id, "switches": c.rollback.switches, "removed_in": c.rollback.removed_in}
                          for c in up.rollbacks],
            "matrix": [{"key": r.key, "from": _plain(r.old.value) if r.old else None,
                        "to": _plain(r.new.value) if r.new else None, "changed": r.changed,
                        "dropped": _plain(r.dropped), "added": _plain(r.added)} for r in up.matrix],
            "urls": urls(f"upgrade/{up.slug}/"),
            "api_diff": _api_diff(up.api_diff),
            "wheels": {"from": up.old.wheel.wheel if up.old.wheel else None, "to": up.new.wheel.wheel if up.new.wheel else None},
            "metadata": [{"key": r.key, "package": r.label or None, "from": r.old, "to": r.new, "changed": r.changed,
                          "dropped": r.dropped, "added": r.added} for r in up.meta],
            "not_covered_by_sources": up.uncovered_versions,
            "partial": up.partial_versions,
            "breaking_complete": not up.uncovered_versions and not up.partial_versions,
            "dropped": [{"what": d.label, "values": _plain(d.values), "from_wheels": d.wheel, "now": d.now or None}
                        for d in up.dropped_items],
            "dropped_complete": up.knows_all,
            "builds_ended": [dict(e.__dict__) for e in up.builds_ended],
        }
    official = [_official(v, urls) for v in atlas.official.values()]
    by_version = {o["release"]: o for o in official}
    for r in releases:
        r["official"] = by_version.get(r["version"])
        r["builds"] = [b.as_json() for b in atlas.builds.get(r["version"], [])]
    # every release of the history (curated or known from its wheel): its builds, as enrich derives them
    build_matrix = {v: [b.as_json() for b in rows] for v, rows in atlas.builds.items()}
    support = [{"cycle": w.cycle, "purl": PURL, "releaseDate": w.releaseDate, "latest": w.latest,
                "latestReleaseDate": w.latestReleaseDate, "eolFrom": w.eolFrom, "isEol": w.isEol}
               for w in atlas.support.values()]
    companions = {"packages": atlas.companion_packages, "support": support,
                  "releases": [{"package": r.package, "version": r.version, "uploaded": r.uploaded, "torch": r.torch,
                                "basis": r.basis, "cite": r.cite, "url": r.url, "declared": r.declared,
                                "stable_abi": r.stable_abi, "torch_minors": r.minors} for r in atlas.companion_rows]}
    for r in releases:
        w = atlas.support.get(r["version"])
        r["support"] = _plain(support[list(atlas.support).index(r["version"])]) if w else None
    files = ["releases.json", "changes.json", "faq.json", "errors.json", "official.json", "companions.json"] + \
        [f"upgrades/{s}.json" for s in upgrades]
    out = {
        "index.json": {"files": files, "wheels": atlas.lock.get("wheels", {}), "languages": list(LANGS), "docs": urls("api/")},
        "releases.json": {"releases": releases, "builds": build_matrix},
        "changes.json": {"changes": changes},
        "faq.json": {"faq": faq},
        "errors.json": {"errors": errors},
        "official.json": {"releases": official},
        "companions.json": _plain(companions),
    }
    out.update({f"upgrades/{s}.json": u for s, u in upgrades.items()})
    return {name: {"schema_version": SCHEMA_VERSION, **body} for name, body in out.items()}


def write(files: dict[str, Any], directory: Path) -> None:
    """Write the files ``build`` returned (name -> JSON body) under ``directory``."""
    for name, body in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, ensure_ascii=False, sort_keys=True, indent=1) + "\n", encoding="utf-8")
