/* Release Atlas (wip/reading): "copy link" for wikis. Progressive enhancement: without
   JavaScript the page shows its absolute URL as text (.atlas-copy, rendered from site_url).
   With it, the page and each of its sections offer the link as Markdown, Confluence wiki
   markup, MediaWiki, reStructuredText, HTML or a bare URL, with the page title as link text;
   the upgrade page also copies its checklist as a Markdown task list. */
/* The Atom feed link stays in the HTML for feed readers; like the hreflang alternates (atlas.js),
   it is dropped from the live DOM so Material's bundle does not fetch a sitemap.xml next to it. */
document.querySelectorAll('link[rel="alternate"][type="application/atom+xml"]').forEach(function (l) { l.remove(); });

(function () {
  "use strict";

  function sub(s, re, fn) { return String(s).replace(re, fn); }
  function entity(c) { return "&#" + c.charCodeAt(0) + ";"; }
  function pct(c) { return "%" + c.charCodeAt(0).toString(16).toUpperCase(); }

  /* Markdown text: backslash for emphasis and brackets; entities for what CommonMark would take
     as HTML (<, &) or a table-cell border (|), since not every Markdown accepts \< or \|. */
  function mdText(t) {
    return sub(sub(t, /[\\`*_[\]]/g, function (c) { return "\\" + c; }), /[<>&|]/g, entity);
  }

  /* Each format: link text escaped for that markup; the URL made safe for it. */
  var FORMATS = {
    "Markdown": function (t, u) { return "[" + mdText(t) + "](" + sub(u, /[ ()<>]/g, pct) + ")"; },
    "Confluence": function (t, u) {
      return "[" + sub(t, /[\\[\]|{}*_^~+\-!]/g, function (c) { return "\\" + c; }) + "|" + sub(u, /[ |\]\[]/g, pct) + "]";
    },
    "MediaWiki": function (t, u) {
      return "[" + sub(u, /[ \]\[<>"]/g, pct) + " " + sub(t, /[&<>[\]'{}|~=]/g, entity) + "]";
    },
    "reStructuredText": function (t, u) {
      return "`" + sub(t, /[\\`<>*|_]/g, function (c) { return "\\" + c; }) + " <" + sub(u, /[ <>`]/g, pct) + ">`__";
    },
    "HTML": function (t, u) {
      return '<a href="' + sub(u, /[&"<>]/g, entity) + '">' + sub(t, /[&<>"]/g, entity) + "</a>";
    },
    "URL": function (t, u) { return u; }
  };

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { legacyCopy(text); });
    }
    legacyCopy(text);
    return Promise.resolve();
  }
  function legacyCopy(text) {
    var ta = document.createElement("textarea");
    ta.value = text; ta.setAttribute("readonly", ""); ta.style.position = "fixed"; ta.style.opacity = "0";
    document.body.appendChild(ta); ta.select();
    try { document.execCommand("copy"); } catch (e) { /* the text stays visible in the menu */ }
    ta.remove();
  }

  var uid = 0;
  /* A button that opens a small menu: one button per format, and what was copied, as text. */
  function control(cfg, url, title, label, cls) {
    var wrap = document.createElement("span"), btn = document.createElement("button"), menu = document.createElement("span");
    var id = "atlas-copy-menu-" + (++uid);
    wrap.className = "atlas-copy__control " + (cls || "");
    btn.type = "button"; btn.className = "atlas-copy__button"; btn.textContent = label;
    btn.setAttribute("aria-expanded", "false"); btn.setAttribute("aria-controls", id);
    menu.id = id; menu.className = "atlas-copy__menu"; menu.hidden = true; menu.setAttribute("role", "group");
    menu.setAttribute("aria-label", label);
    var out = document.createElement("output");
    out.className = "atlas-copy__out";
    Object.keys(FORMATS).forEach(function (name) {
      var b = document.createElement("button");
      b.type = "button"; b.textContent = name; b.dataset.format = name;
      b.addEventListener("click", function () {
        var text = FORMATS[name](title, url);
        copy(text).then(function () { out.textContent = cfg.copied + ": " + text; });
      });
      menu.appendChild(b);
    });
    menu.appendChild(out);
    btn.addEventListener("click", function () {
      menu.hidden = !menu.hidden;
      btn.setAttribute("aria-expanded", String(!menu.hidden));
    });
    wrap.appendChild(btn); wrap.appendChild(menu);
    return wrap;
  }

  function headingText(h) {
    var c = h.cloneNode(true);
    c.querySelectorAll(".headerlink, .atlas-copy__control").forEach(function (x) { x.remove(); });
    return c.textContent.trim();
  }

  function checklist(box, base, cfg) {
    var btn = document.createElement("button");
    btn.type = "button"; btn.className = "atlas-copy__button atlas-checklist__copy"; btn.textContent = box.dataset.label;
    var out = document.createElement("output");
    out.className = "atlas-copy__out";
    btn.addEventListener("click", function () {
      var lines = Array.prototype.map.call(box.querySelectorAll("li"), function (li) {
        var a = li.querySelector("a"), rest = li.cloneNode(true), link = rest.querySelector("a");
        if (link) link.remove();
        // an item's disclosure (symptom, error messages, fix): only its first fix step is copied
        var more = rest.querySelector("details"), fix = more && more.querySelector(".atlas-fix");
        if (more) more.remove();
        var tail = (rest.textContent + (fix ? " " + fix.textContent : "")).replace(/\s+/g, " ").trim();
        tail = mdText(tail);
        return "- [ ] " + (a ? FORMATS.Markdown(a.textContent.trim(), new URL(a.getAttribute("href"), base).href) + " " : "") + tail;
      });
      var text = lines.join("\n") + "\n";
      copy(text).then(function () { out.textContent = box.dataset.copied; });
    });
    // one bar, first in the box: atlas.css keeps its room from the first paint (no layout shift)
    var bar = document.createElement("div");
    bar.className = "atlas-checklist__bar";
    bar.appendChild(btn); bar.appendChild(out);
    box.insertBefore(bar, box.firstChild);
  }

  function setup() {
    var page = document.querySelector(".atlas-copy[data-url]");
    if (!page || page.dataset.ready) return;
    page.dataset.ready = "1";
    var cfg = { copied: page.dataset.copied };
    var url = page.dataset.url, title = page.dataset.title;
    page.appendChild(document.createTextNode(" "));
    page.appendChild(control(cfg, url, title, page.dataset.label));
    document.querySelectorAll("article h2[id]").forEach(function (h) {
      var c = control(cfg, url + "#" + h.id, title + " \u2014 " + headingText(h), page.dataset.section, "atlas-copy__control--section");
      c.querySelector(".atlas-copy__button").setAttribute("aria-label", page.dataset.section + ": " + headingText(h));
      // a link icon drawn here (no icon font, no glyph the reader's fonts may lack); constant markup, no data
      c.querySelector(".atlas-copy__button").innerHTML = '<svg viewBox="0 0 24 24" width="14" height="14" ' +
        'aria-hidden="true" focusable="false"><path fill="currentColor" d="M3.9 12c0-1.71 1.39-3.1 3.1-3.1h4V7H7a5 ' +
        '5 0 0 0 0 10h4v-1.9H7c-1.71 0-3.1-1.39-3.1-3.1M8 13h8v-2H8v2m9-6h-4v1.9h4c1.71 0 3.1 1.39 3.1 3.1s-1.39 ' +
        '3.1-3.1 3.1h-4V17h4a5 5 0 0 0 0-10Z"/></svg>';
      h.appendChild(c);
    });
    document.querySelectorAll(".atlas-checklist[data-label]").forEach(function (box) { checklist(box, url, cfg); });
  }

  if (document.readyState !== "loading") setup();
  else document.addEventListener("DOMContentLoaded", setup);
})();
