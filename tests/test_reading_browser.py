"""Reading and linking in Chromium (issue 11): tables that fit 1280 px without splitting words,
cards under 600 px, filters, the copy-link control in five markups, the checklist as a task list,
and copy buttons on error messages. Uses the Chromium fixtures of conftest.py."""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import markdown
import pytest

from atlas.langs import LANGS

pytestmark = pytest.mark.slow

TABLE_PAGES = ["breaking/", "upgrade/2.13-to-2.15/", "releases/2.15/"]

#: Returns what scrolls sideways and which words (Latin or Cyrillic letters) are split across lines.
MEASURE = r"""() => {
  const over = [];
  const de = document.documentElement;
  if (de.scrollWidth > de.clientWidth + 1) over.push("document " + de.scrollWidth + ">" + de.clientWidth);
  document.querySelectorAll("article *").forEach(el => {
    const ox = getComputedStyle(el).overflowX;
    if ((ox === "auto" || ox === "scroll") && el.scrollWidth > el.clientWidth + 1)
      over.push(el.tagName + "." + el.className + " " + el.scrollWidth + ">" + el.clientWidth);
  });
  const broken = [];
  const re = /[A-Za-z\u00C0-\u024F\u0400-\u04FF]{2,}/g;
  const walker = document.createTreeWalker(document.querySelector("article"), NodeFilter.SHOW_TEXT);
  let n, words = 0;
  while ((n = walker.nextNode())) {
    const el = n.parentElement;
    if (!el.closest("table") || el.closest("code, pre, [hidden]") || !el.getClientRects().length) continue;
    let m; re.lastIndex = 0;
    while ((m = re.exec(n.data))) {
      const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const tops = new Set(Array.from(r.getClientRects()).filter(x => x.width > 0).map(x => Math.round(x.top)));
      words++;
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return {over, broken, words};
}"""


def url(base: str, lang: str, path: str) -> str:
    return base + ("" if lang == "en" else f"{lang}/") + path


@pytest.mark.parametrize("lang", LANGS)
def test_tables_fit_1280_without_splitting_words(page, served_site, lang):
    for path in TABLE_PAGES:
        page.goto(url(served_site, lang, path))
        closed = page.evaluate(MEASURE)
        page.evaluate("() => document.querySelectorAll('article details').forEach(d => d.open = true)")
        opened = page.evaluate(MEASURE)
        for state, m in (("closed", closed), ("details open", opened)):
            assert not m["over"], (lang, path, state, m["over"])
            assert not m["broken"], (lang, path, state, m["broken"][:10])
        assert opened["words"] > closed["words"] > 20, (path, closed["words"], opened["words"])


def test_the_layout_check_can_fail(page, served_site):
    """A table too wide for the column, and a cell too narrow for its word, are both reported."""
    page.goto(url(served_site, "ru", "breaking/"))
    page.evaluate("""() => { const a = document.querySelector('article');
        const w = document.createElement('div'); w.style.overflowX = 'auto';
        w.innerHTML = '<table><tr><td style="white-space:nowrap">' + 'широкая таблица '.repeat(40) + '</td></tr></table>';
        a.prepend(w);
        const t = document.createElement('table');
        t.innerHTML = '<tr><td style="width:3em;max-width:3em;overflow-wrap:anywhere">Переписанный</td></tr>';
        a.prepend(t); }""")
    m = page.evaluate(MEASURE)
    assert m["over"] and "Переписанный" in m["broken"], m


@pytest.mark.parametrize("lang", LANGS)
def test_rows_become_cards_under_600px(browser, served_site, lang):
    ctx = browser.new_context(viewport={"width": 400, "height": 800})
    pg = ctx.new_page()
    try:
        for path in ("breaking/", "upgrade/2.13-to-2.15/"):
            pg.goto(url(served_site, lang, path))
            cards = pg.evaluate("""() => Array.from(document.querySelectorAll('table.atlas-table tbody tr')).slice(0, 5).map(tr => {
                const r = tr.getBoundingClientRect();
                const cells = Array.from(tr.cells).map(td => [getComputedStyle(td).display, getComputedStyle(td, '::before').content, td.dataset.label]);
                return {display: getComputedStyle(tr).display, left: r.left, right: r.right, height: r.height, cells}; })""")
            assert len(cards) == 5, path
            for card in cards:
                assert card["display"] == "block" and card["left"] >= 0 and card["right"] <= 400, card
                for display, before, label in card["cells"]:
                    assert display == "block" and before == f'"{label}"', card
            assert pg.evaluate("() => document.querySelector('table.atlas-table thead').getBoundingClientRect().height") <= 1
            assert pg.evaluate("() => document.documentElement.scrollWidth") <= 400
        pg.goto(url(served_site, lang, "breaking/"))
        pg.select_option("select[name=release]", "2.14")  # the filters still work on cards
        shown = pg.eval_on_selector_all("table[data-atlas-table] tbody tr",
                                        "els => els.filter(e => e.getBoundingClientRect().height > 0).map(e => e.dataset.release)")
        assert shown and set(shown) == {"2.14"}, shown
    finally:
        ctx.close()


# --- copy link ----------------------------------------------------------------------------------------

class _Anchor(HTMLParser):
    def __init__(self):
        super().__init__()
        self.href, self.text, self.count = None, "", 0

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.count += 1
            self.href = dict(attrs).get("href")

    def handle_data(self, data):
        self.text += data


def _unescape_backslash(s: str, specials: str) -> str:
    """Undo backslash escapes; fail if one of ``specials`` appears unescaped."""
    out, i = "", 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out += s[i + 1]
            i += 2
            continue
        assert s[i] not in specials, f"unescaped {s[i]!r} in {s!r}"
        out += s[i]
        i += 1
    return out


def parse_link(fmt: str, s: str) -> tuple[str, str]:
    """(text, url) of a link in each wiki markup, parsed the way that markup reads it."""
    if fmt == "Markdown":
        p = _Anchor()
        p.feed(markdown.markdown(s))
        assert p.count == 1, s
        return p.text, p.href
    if fmt == "HTML":
        p = _Anchor()
        p.feed(s)
        assert p.count == 1, s
        return p.text, p.href
    if fmt == "Confluence":
        m = re.fullmatch(r"\[(.*)\|([^|\\\]\[ ]+)\]", s, re.S)
        assert m, s
        return _unescape_backslash(m.group(1), "|[]{}"), m.group(2)
    if fmt == "MediaWiki":
        m = re.fullmatch(r"\[(\S+) ([^\]\[]*)\]", s, re.S)
        assert m, s
        assert "''" not in m.group(2) and "<" not in m.group(2), s
        return html.unescape(m.group(2)), m.group(1)
    if fmt == "reStructuredText":
        m = re.fullmatch(r"`(.*) <(\S+)>`__", s, re.S)
        assert m, s
        return _unescape_backslash(m.group(1), "`<>"), m.group(2)
    assert fmt == "URL"
    return None, s


FORMATS = ["Markdown", "Confluence", "MediaWiki", "reStructuredText", "HTML", "URL"]


@pytest.fixture
def clip(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"])
    pg = ctx.new_page()
    yield pg
    ctx.close()


def copy_formats(pg, control) -> dict[str, str]:
    control.locator(".atlas-copy__button").click()
    got = {}
    for fmt in FORMATS:
        pg.evaluate("() => navigator.clipboard.writeText('')")
        control.locator(f'button[data-format="{fmt}"]').click()
        pg.wait_for_function("() => navigator.clipboard.readText().then(t => t.length > 0)", timeout=5000)
        got[fmt] = pg.evaluate("() => navigator.clipboard.readText()")
    return got


@pytest.mark.parametrize("lang", LANGS)
def test_copy_link_gives_the_page_and_its_sections_in_five_markups(clip, served_site, lang):
    for path in ("changes/215-dcp-strides/", "releases/2.15/", "upgrade/2.14-to-2.15/"):
        clip.goto(url(served_site, lang, path))
        box = clip.locator(".atlas-copy")
        page_url = box.get_attribute("data-url")
        title = box.get_attribute("data-title")
        assert page_url.endswith(("" if lang == "en" else f"/{lang}") + "/" + path)
        assert title and clip.title().startswith(title)
        got = copy_formats(clip, box.locator(".atlas-copy__control").first)
        for fmt, s in got.items():
            text, href = parse_link(fmt, s)
            assert href == page_url, (fmt, s)
            assert text in (None, title), (fmt, s, title)
        assert clip.locator(".atlas-copy__out").first.inner_text().endswith(got["URL"])
    clip.goto(url(served_site, lang, "changes/215-dcp-strides/"))
    heading = clip.locator("h2#fix")
    name = clip.evaluate("() => { const h = document.querySelector('h2#fix').cloneNode(true);"
                         " h.querySelectorAll('.headerlink, .atlas-copy__control').forEach(x => x.remove()); return h.textContent.trim(); }")
    got = copy_formats(clip, heading.locator(".atlas-copy__control"))
    text, href = parse_link("Markdown", got["Markdown"])
    assert href.endswith("/changes/215-dcp-strides/#fix") and href.startswith("http")
    assert text.endswith(name) and text.startswith(clip.locator(".atlas-copy").get_attribute("data-title"))


def test_copy_link_escapes_a_hostile_title_in_every_markup(clip, served_site):
    hostile = "A|B [c] <d> `e` *f* _g_ {h} 'i' \"j\" & ~k~ \\l ]] ''m''"

    def swap(route):
        body = route.fetch().text()
        body = re.sub(r'data-title="[^"]*"', lambda m: 'data-title="' + html.escape(hostile, quote=True) + '"', body, count=1)
        route.fulfill(body=body, headers={"content-type": "text/html; charset=utf-8"})

    clip.route("**/changes/215-dcp-strides/", swap)
    clip.goto(url(served_site, "ru", "changes/215-dcp-strides/"))
    assert clip.locator(".atlas-copy").get_attribute("data-title") == hostile
    got = copy_formats(clip, clip.locator(".atlas-copy .atlas-copy__control").first)
    for fmt in FORMATS[:-1]:
        text, href = parse_link(fmt, got[fmt])
        assert text == hostile, (fmt, got[fmt])
        assert href.endswith("/ru/changes/215-dcp-strides/"), (fmt, got[fmt])


@pytest.mark.parametrize("lang", LANGS)
def test_without_javascript_the_absolute_url_is_text(browser, served_site, lang):
    ctx = browser.new_context(java_script_enabled=False)
    pg = ctx.new_page()
    try:
        pg.goto(url(served_site, lang, "changes/215-dcp-strides/"))
        shown = pg.locator(".atlas-copy__url")
        assert shown.is_visible()
        assert re.fullmatch(r"https?://\S+/changes/215-dcp-strides/", shown.inner_text())
        assert shown.inner_text() == pg.locator(".atlas-copy").get_attribute("data-url")
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", LANGS)
def test_upgrade_checklist_copies_as_a_markdown_task_list(clip, served_site, lang):
    clip.goto(url(served_site, lang, "upgrade/2.13-to-2.15/"))
    items = clip.locator(".atlas-checklist li")
    n = items.count()
    assert n > 10
    clip.locator(".atlas-checklist__copy").click()
    clip.wait_for_function("() => navigator.clipboard.readText().then(t => t.startsWith('- [ ] '))", timeout=5000)
    text = clip.evaluate("() => navigator.clipboard.readText()")
    lines = text.strip("\n").split("\n")
    assert len(lines) == n
    first_title = items.first.locator("a").inner_text().strip()
    rendered = markdown.markdown(text.replace("- [ ] ", "- "))
    assert rendered.count("<li>") == n and rendered.count("<a href=\"http") == n, rendered[:500]
    assert lines[0].startswith("- [ ] [") and html.escape(first_title, quote=False).split(" ")[0] in rendered


@pytest.mark.parametrize("lang", LANGS)
def test_error_messages_have_a_copy_button(clip, served_site, factbase, lang):
    c = next(c for c in factbase.changes() if c.id == "215-dcp-strides")
    clip.goto(url(served_site, lang, f"changes/{c.id}/"))
    button = clip.locator("article pre .md-code__button[data-md-type=copy], article pre .md-clipboard").first
    button.click()
    clip.wait_for_function("() => navigator.clipboard.readText().then(t => t.length > 0)", timeout=5000)
    assert clip.evaluate("() => navigator.clipboard.readText()").strip() == c.errors[0].message
