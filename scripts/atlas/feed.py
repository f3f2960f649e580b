"""Atom feeds: one per language, one entry per change (``/feed.xml``, ``/<lang>/feed.xml``).

In:  an ``Atlas`` (its ``fb.updated``: ``data/updated.yaml``) and ``site_url``.
Out: the feed files in the site directory. Each entry's ``id`` and link are the
     change's permanent URL (absolute, on ``site_url``); ``title`` and ``summary``
     are in the feed's language; ``updated`` is when the fact last changed.

Why ``updated`` is recorded in data and not taken from git: CI builds a fresh,
shallow clone (``actions/checkout`` fetches one commit), where every file's last
commit is the same, and a rebase or squash rewrites those dates; builds must be
reproducible from the files alone. So ``data/updated.yaml`` records, per change,
the date it last changed and a hash of the fact (English texts and values; the
wheel probes are evidence about the fact, not the fact, and are left out).
``tests/test_feed.py`` fails when a fact's hash no longer matches, and names the
command that bumps the date: ``atlas feed stamp``.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from xml.etree import ElementTree as ET

from .enrich import Atlas
from .i18n import text_for
from .langs import LANGS
from .load import DATA
from .schema import Change
from .text import render_plain
from .urls import absolute_url, feed_path, page_path

UPDATED = DATA / "updated.yaml"   # read by load/validate (FactBase.updated); written by `atlas feed stamp`
ATOM = "http://www.w3.org/2005/Atom"


def fact_hash(c: Change) -> str:
    """Identifies what a reader is told about a change; its feed entry is 'updated' when it moves."""
    # wheel claims are tooling like probes; a change without them hashes as it did before they existed
    d = c.model_dump(mode="json", exclude={"probes", "wheel"})
    for n in d.get("notes") or []:   # and so does a note that names no earlier wheel
        if n.get("earlier") is None:
            n.pop("earlier", None)
    if d.get("proof") is None:       # and a change with no proof (what a proof shows does move it)
        d.pop("proof", None)
    elif d["proof"].get("package") is None:   # and a proof run beside no package
        d["proof"].pop("package", None)
    body = json.dumps(d, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def stale(changes, recorded: dict) -> list[str]:
    """Change ids whose recorded hash is missing or differs from the fact's hash."""
    return [c.id for c in changes if (recorded.get(c.id) or {}).get("hash") != fact_hash(c)]


def entry_updated(atlas: Atlas, c: Change, recorded: dict) -> dt.date:
    """The recorded date; a change not yet stamped falls back to its release date (or 1970)."""
    if recorded.get(c.id):
        return recorded[c.id]["updated"]
    return atlas.change_release[c.id].released or dt.date(1970, 1, 1)


def _stamp(d: dt.date) -> str:
    return f"{d.isoformat()}T00:00:00Z"


def build(atlas: Atlas, lang: str, site_url: str, recorded: dict) -> bytes:
    fb = atlas.fb
    texts = {t.key: t for t in fb.texts}

    def plain(key: str) -> str:
        t = texts[key]
        return render_plain(text_for(fb, key, lang, t.en), fb.scopes[t.owner], lang)

    entries = sorted(((entry_updated(atlas, c, recorded), c) for r in atlas.releases for c in r.changes),
                     key=lambda e: (e[0], e[1].id), reverse=True)
    ET.register_namespace("", ATOM)
    root = ET.Element(f"{{{ATOM}}}feed", {"{http://www.w3.org/XML/1998/namespace}lang": lang})
    base = site_url.rstrip("/") + "/"
    ET.SubElement(root, f"{{{ATOM}}}id").text = base + feed_path(lang)
    ET.SubElement(root, f"{{{ATOM}}}title").text = fb.ui[lang]["feed.title"]
    ET.SubElement(root, f"{{{ATOM}}}subtitle").text = fb.ui[lang]["feed.subtitle"]
    ET.SubElement(root, f"{{{ATOM}}}link", {"rel": "self", "type": "application/atom+xml", "href": base + feed_path(lang)})
    ET.SubElement(root, f"{{{ATOM}}}link", {"rel": "alternate", "type": "text/html",
                                           "href": absolute_url(site_url, lang, "index.md")})
    ET.SubElement(root, f"{{{ATOM}}}updated").text = _stamp(max(d for d, _ in entries))
    ET.SubElement(ET.SubElement(root, f"{{{ATOM}}}author"), f"{{{ATOM}}}name").text = "Release Atlas"
    for d, c in entries:
        url = absolute_url(site_url, lang, page_path("change", c.id))
        e = ET.SubElement(root, f"{{{ATOM}}}entry")
        ET.SubElement(e, f"{{{ATOM}}}id").text = url
        ET.SubElement(e, f"{{{ATOM}}}title").text = plain(f"{c.id}.title")
        ET.SubElement(e, f"{{{ATOM}}}link", {"rel": "alternate", "type": "text/html", "href": url})
        ET.SubElement(e, f"{{{ATOM}}}updated").text = _stamp(d)
        ET.SubElement(e, f"{{{ATOM}}}category", {"term": c.type})
        ET.SubElement(e, f"{{{ATOM}}}summary").text = plain(f"{c.id}.summary")
    ET.indent(root, space=" ")
    return ('<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n").encode()


def write(atlas: Atlas, site_dir: Path, site_url: str) -> None:
    recorded = atlas.fb.updated
    for lang in LANGS:
        path = site_dir / feed_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(build(atlas, lang, site_url, recorded))
