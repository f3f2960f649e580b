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
      // the page's own pattern (atlas/urls.py UPGRADE_SLUG), e.g. "{old}-to-{new}"
      var slug = form.dataset.slug.replace("{old}", form.elements.from.value).replace("{new}", form.elements.to.value);
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

/* Search: docs/assets/search.js */
