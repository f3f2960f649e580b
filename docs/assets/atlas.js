/* Material's bundle fetches "sitemap.xml" next to every <link rel="alternate"> in the head, to
   remap pages during instant navigation (which this site does not use). With per-page hreflang
   alternates that is one 404 per language on every page view. The alternates stay in the HTML
   for crawlers; they are dropped from the live DOM before Material's document$ fires. */
document.querySelectorAll('link[rel="alternate"][hreflang]').forEach(function (l) { l.remove(); });

/* Release Atlas: progressive enhancement only; every table works without JavaScript. */
(function () {
  function ready(fn) {
    if (window.document$ && window.document$.subscribe) { window.document$.subscribe(fn); }
    else if (document.readyState !== "loading") { fn(); }
    else { document.addEventListener("DOMContentLoaded", fn); }
  }

  function setupFilter(form) {
    var table = document.querySelector('[data-atlas-table="' + form.dataset.atlasFilter + '"]');
    if (!table) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var out = form.querySelector("output");
    var params = new URLSearchParams(location.search);
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && params.get(el.name)) el.value = params.get(el.name);
    });
    /* the filters live in the URL (?release=2.15&area=distributed), so a wiki can link a view;
       replaceState: changing a control does not add a history entry per click */
    function remember() {
      var q = new URLSearchParams(location.search);
      Array.prototype.forEach.call(form.elements, function (el) {
        if (!el.name) return;
        if (el.value) q.set(el.name, el.value); else q.delete(el.name);
      });
      var s = q.toString();
      history.replaceState(history.state, "", location.pathname + (s ? "?" + s : "") + location.hash);
    }
    function apply() {
      var shown = 0;
      rows.forEach(function (row) {
        var ok = Array.prototype.every.call(form.elements, function (el) {
          return !el.name || !el.value || row.dataset[el.name] === el.value;
        });
        row.hidden = !ok;
        if (ok) shown++;
      });
      if (out) out.textContent = out.dataset.template.replace("{shown}", shown).replace("{total}", rows.length);
    }
    form.addEventListener("change", function () { apply(); remember(); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    form.hidden = false;
    apply();
  }

  function setupPicker(form) {
    var links = {}, titles = {};
    document.querySelectorAll("a[data-upgrade]").forEach(function (a) {
      links[a.dataset.upgrade] = a.getAttribute("href");
      titles[a.dataset.upgrade] = a.getAttribute("title");
    });
    var why = form.querySelector(".atlas-picker__why");
    // the page's own pattern (atlas/urls.py UPGRADE_SLUG), e.g. "{old}-to-{new}"
    function slug(a, b) { return form.dataset.slug.replace("{old}", a).replace("{new}", b); }
    form.addEventListener("change", function () { if (why) why.textContent = ""; });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var from = form.elements.from.value, to = form.elements.to.value;
      var href = links[slug(from, to)], back = slug(to, from);
      if (href) { location.href = href; return; }
      if (!why) return;
      why.textContent = "";
      if (from === to) { why.textContent = why.dataset.same; return; }
      // a downgrade: say so in the reader's language, and offer the upgrade the other way round
      why.textContent = why.dataset.down.replace(/\{old\}/g, from).replace(/\{new\}/g, to) + " ";
      if (links[back]) {
        var a = document.createElement("a");
        a.href = links[back];
        a.textContent = titles[back] || back;
        why.appendChild(a);
      }
    });
    form.hidden = false;
  }

  /* An upgrade's API diff: a filter over every name, and open or close every module at once.
     Without JavaScript the names are plain HTML in closed <details>, one name a line. */
  function setupApiDiff(box) {
    var tools = box.querySelector(".atlas-apidiff__tools");
    var outer = box.querySelector(".atlas-apidiff__modules");
    if (!tools || !outer) return;
    var groups = Array.prototype.map.call(outer.querySelectorAll("details[data-module]"), function (d) {
      return {d: d, names: d.querySelector(".atlas-names")};
    });
    var input = tools.querySelector("input"), out = tools.querySelector("output"), total = -1;
    /* each module's lines and their text, read once when the reader first filters (not on load) */
    function read() {
      if (total >= 0) return;
      var t = document.createElement("div");
      total = 0;
      groups.forEach(function (g) {
        g.html = g.names.innerHTML;
        g.lines = g.html.split("\n").filter(function (l) { return l.trim(); });
        g.texts = g.lines.map(function (l) { t.innerHTML = l; return t.textContent.toLowerCase(); });
        total += g.lines.length;
      });
    }
    function filter() {
      read();
      var q = input.value.trim().toLowerCase(), shown = 0;
      groups.forEach(function (g) {
        if (!q) { g.names.innerHTML = g.html; g.d.hidden = false; shown += g.lines.length; return; }
        var keep = g.lines.filter(function (l, i) { return g.texts[i].indexOf(q) >= 0; });
        g.names.innerHTML = keep.join("\n");
        g.d.hidden = !keep.length;
        g.d.open = keep.length > 0;
        shown += keep.length;
      });
      if (q) outer.open = true;
      out.textContent = out.dataset.template.replace("{shown}", shown).replace("{total}", total);
    }
    input.addEventListener("input", filter);
    tools.querySelectorAll("button[data-open]").forEach(function (b) {
      b.addEventListener("click", function () {
        var open = b.dataset.open === "1";
        outer.open = open;
        groups.forEach(function (g) { if (!g.d.hidden) g.d.open = open; });
      });
    });
    tools.hidden = false;
  }

  ready(function () {
    document.querySelectorAll("form[data-atlas-filter]").forEach(setupFilter);
    document.querySelectorAll("form[data-atlas-picker]").forEach(setupPicker);
    document.querySelectorAll(".atlas-apidiff").forEach(setupApiDiff);
  });
})();

/* Search: docs/assets/search.js */
