/* The /check/ page: paste code or an environment, get what the upgrade breaks (atlas-check.js does the
   checking; this file only reads the form and lays out the results). The rules are the site's own
   /api/v1/rules.json, the same file `atlas_check.py` embeds; nothing leaves the browser. */
(function () {
  "use strict";
  var form = document.querySelector("form[data-atlas-check]");
  if (!form || !window.AtlasCheck) return;
  var AC = window.AtlasCheck, lang = form.dataset.lang, rules = null;
  var status = form.querySelector(".atlas-check-status"), out = form.querySelector(".atlas-check-results");
  var SEVERITIES = ["breaks", "behavior", "deprecated", "deprecated-switch", "platform"];

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (m, k) { return k in values ? String(values[k]) : m; });
  }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text != null) e.textContent = text;
    return e;
  }
  function link(url, text) { var a = el("a", { href: url }, text); return a; }

  function loadRules() {
    if (rules) return Promise.resolve(rules);
    return fetch(new URL(form.dataset.rules, location.href).href).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).then(function (j) { rules = j; return j; });
  }

  function showCode(res) {
    var groups = {};
    res.findings.forEach(function (f) { (groups[f.severity] = groups[f.severity] || []).push(f); });
    SEVERITIES.forEach(function (sev) {
      if (!groups[sev]) return;
      var section = el("section", { "class": "atlas-check-group", "data-severity": sev });
      section.appendChild(el("h3", {}, form.dataset["sev" + sev.replace(/(^|-)(\w)/g, function (m, d, c) { return c.toUpperCase(); })] + " (" + groups[sev].length + ")"));
      var ul = el("ul");
      groups[sev].forEach(function (f) {
        var li = el("li", { "data-change": f.change || "", "data-api": f.api });
        li.appendChild(el("code", {}, f.line + ":" + f.column));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(link(f.url, f.title));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("code", {}, f.api));
        if (f.fix) li.appendChild(el("p", {}, f.fix));
        ul.appendChild(li);
      });
      section.appendChild(ul);
      out.appendChild(section);
    });
    res.skipped.forEach(function (s) { out.appendChild(el("p", {}, fill(form.dataset.skipped, { reason: s.reason }))); });
    status.textContent = res.findings.length ? fill(form.dataset.found, { n: res.findings.length }) : form.dataset.none;
  }

  function showEnv(res) {
    var ul = el("ul", { "class": "atlas-check-env" });
    res.items.forEach(function (i) {
      var li = el("li", { "data-check": i.check, "data-verdict": i.verdict, "data-change": i.change || "" });
      li.appendChild(el("strong", {}, form.dataset["item" + i.check.replace(/(^|_)(\w)/g, function (m, d, c) { return c.toUpperCase(); })] || i.check));
      li.appendChild(document.createTextNode(" " + (i.found || "–") + " — " + form.dataset["v" + i.verdict.charAt(0).toUpperCase() + i.verdict.slice(1)]));
      if (i.change) { li.appendChild(document.createTextNode(" · ")); li.appendChild(link(i.url, i.title)); }
      if (i.note) li.appendChild(el("small", {}, " (" + i.note + ")"));
      ul.appendChild(li);
    });
    if (res.upgrade_url) {
      var p = el("p");
      p.appendChild(link(res.upgrade_url, fill(form.dataset.upgrade, { old: res.from, "new": res.to })));
      out.appendChild(p);
    }
    out.appendChild(ul);
    if (res.newest) {
      var n = el("p", { "class": "atlas-check-newest", "data-release": res.newest.release || "" });
      n.appendChild(el("strong", {}, res.newest.release ? fill(form.dataset.newest, { release: res.newest.release }) : form.dataset.newestNone));
      var b = res.newest.blocked_by;
      if (b) {
        n.appendChild(document.createTextNode(" " + fill(form.dataset.newestBlocked, { release: b.release }) + " "));
        b.items.forEach(function (i, k) { if (k) n.appendChild(document.createTextNode("; ")); n.appendChild(link(i.url, i.note || i.check)); });
      }
      out.appendChild(n);
    }
    var blocked = res.items.filter(function (i) { return i.verdict === "blocked"; }).length;
    status.textContent = fill(form.dataset.envDone, { n: res.items.length, blocked: blocked });
  }

  function run() {
    var text = form.elements.text.value, kind = form.elements.kind.value;
    if (kind === "auto") kind = AC.detectKind(text);
    return loadRules().then(function (r) {
      out.textContent = "";
      var t0 = performance.now();
      if (kind === "env") showEnv(AC.checkEnv(r, text, { to: form.elements.to.value, lang: lang }));
      else showCode(AC.checkCode(r, text, { from: form.elements.from.value, to: form.elements.to.value, lang: lang }));
      form.dataset.kind = kind;
      form.dataset.ms = (performance.now() - t0).toFixed(1);
    }).catch(function (e) { status.textContent = fill(form.dataset.failed, { error: e.message }); });
  }

  form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
  form.hidden = false;
})();
