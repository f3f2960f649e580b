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
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    form.hidden = false;
    apply();
  }

  function setupPicker(form) {
    var links = {};
    document.querySelectorAll("a[data-upgrade]").forEach(function (a) { links[a.dataset.upgrade] = a.getAttribute("href"); });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var slug = form.elements.from.value + "-to-" + form.elements.to.value;
      var href = links[slug];
      if (href) { location.href = href; }
      else { form.elements.to.setCustomValidity("\u2260"); form.reportValidity(); form.elements.to.setCustomValidity(""); }
    });
    form.hidden = false;
  }

  ready(function () {
    document.querySelectorAll("form[data-atlas-filter]").forEach(setupFilter);
    document.querySelectorAll("form[data-atlas-picker]").forEach(setupPicker);
  });
})();

/* Search: Pagefind's per-language index (the one matching <html lang>), loaded on first use. */
(function () {
  var form = document.querySelector("form.atlas-search");
  if (!form) return;
  var input = form.querySelector("input"), box = document.getElementById("atlas-search-results");
  var bundle = new URL(form.dataset.bundle, location.href);
  var pagefind = null, seq = 0, bigramIndex = document.documentElement.lang === "zh";

  function load() {
    if (!pagefind) {
      pagefind = import(bundle.href + "pagefind.js").then(function (pf) {
        pf.options({ baseUrl: bundle.pathname.replace(/pagefind\/$/, ""), excerptLength: 24 });
        return pf;
      });
    }
    return pagefind;
  }

  function close() { box.hidden = true; input.setAttribute("aria-expanded", "false"); }

  function render(items, mine, q) {
    if (mine !== seq) return;            // a newer keystroke already asked again
    box.dataset.q = q;
    box.textContent = "";
    if (!items.length) {
      var p = document.createElement("p");
      p.className = "atlas-search__none";
      p.textContent = box.dataset.none;
      box.appendChild(p);
    } else {
      var ol = document.createElement("ol");
      items.forEach(function (d) {
        var li = document.createElement("li"), a = document.createElement("a"), ex = document.createElement("p");
        a.href = d.url;
        a.className = "atlas-search__link";
        a.textContent = (d.meta && d.meta.title) || d.url;
        if (bigramIndex && d.meta && d.meta.description) ex.textContent = d.meta.description;  // no bigram excerpts
        else ex.innerHTML = d.excerpt;     // Pagefind escapes page text; only <mark> is markup
        li.appendChild(a); li.appendChild(ex); ol.appendChild(li);
      });
      box.appendChild(ol);
    }
    box.hidden = false;
    input.setAttribute("aria-expanded", "true");
    box.dataset.ms = String(Math.round(performance.now() - box._t0));
  }

  function run() {
    var q = input.value.trim(), mine = ++seq;
    if (!q) { close(); return; }
    box._t0 = performance.now();
    // Pagefind's Chinese query segmenter keeps only the first part of a snake_case or
    // KEY=VALUE token; splitting them into words matches every index the same way.
    // Chinese pages are indexed as character bigrams (scripts/atlas/segment.py); so is the query.
    var terms = q.replace(/[_=]+/g, " ").replace(/[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}/g, function (run) {
      var out = [];
      for (var i = 0; i < run.length - 1; i++) out.push(run.slice(i, i + 2));
      return " " + out.join(" ") + " ";
    });
    load().then(function (pf) { return pf.search(terms); }).then(function (res) {
      return Promise.all(res.results.slice(0, 8).map(function (r) { return r.data(); }));
    }).then(function (items) { render(items, mine, input.value); });
  }

  input.addEventListener("focus", load, { once: true });
  input.addEventListener("input", run);
  input.addEventListener("keyup", function (e) { if (e.key !== "Enter" && e.key !== "Escape") run(); });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { close(); }
    if (e.key === "ArrowDown") { var a = box.querySelector("a"); if (a) { e.preventDefault(); a.focus(); } }
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var first = box.querySelector("a");
    if (first) location.href = first.href;
  });
  document.addEventListener("click", function (e) { if (!form.contains(e.target)) close(); });
})();
