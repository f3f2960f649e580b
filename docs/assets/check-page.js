/* The /check/ page: paste code or an environment, get what the upgrade breaks (atlas-check.js does the
   checking; this file only reads the form and lays out the results). The rules are the site's own
   /api/v1/rules.json, the same file `atlas_check.py` embeds; nothing leaves the browser. Every word
   comes from the UI strings that rules.json carries (rules.ui, worded by AtlasCheck.say with the
   language's plural rule), as the CLI's do; only the message for rules that cannot load is on the form. */
(function () {
  "use strict";
  var form = document.querySelector("form[data-atlas-check]");
  if (!form || !window.AtlasCheck) return;
  var AC = window.AtlasCheck, lang = form.dataset.lang, rules = null;
  var status = form.querySelector(".atlas-check-status"), out = form.querySelector(".atlas-check-results");
  var SEVERITIES = ["breaks", "review", "behavior", "deprecated", "deprecated-switch", "platform", "guarded"];

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (m, k) { return k in values ? String(values[k]) : m; });
  }
  // a UI string into parent, each placeholder a node or text (the rest of the string as text)
  function fillNodes(parent, template, parts) {
    template.split(/(\{\w+\})/).forEach(function (bit) {
      var k = /^\{(\w+)\}$/.exec(bit);
      var part = k && k[1] in parts ? parts[k[1]] : bit;
      if (part !== "") parent.appendChild(typeof part === "string" ? document.createTextNode(part) : part);
    });
  }
  function T(key, values) { return AC.say(rules, lang, AC.msg(key, values)); }   // a UI string of check.*, worded
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text != null) e.textContent = text;
    return e;
  }
  // the rules carry absolute URLs (the downloaded CLI needs them); on the page every link is
  // root-relative like the rest of the site, so a copy served elsewhere links to itself
  var siteRoot = new URL("../../", new URL(form.dataset.rules, location.href)).pathname;
  function local(url) {
    return rules && url && url.indexOf(rules.site_url) === 0 ? siteRoot + url.slice(rules.site_url.length) : url;
  }
  function link(url, text) { var a = el("a", { href: local(url) }, text); return a; }
  var SHOWN = 300;   // findings drawn at once; the rest behind a button

  function loadRules() {
    if (rules) return Promise.resolve(rules);
    return fetch(new URL(form.dataset.rules, location.href).href).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).then(function (j) { rules = j; return j; });
  }

  function finding(f) {
    var li = el("li", { "data-change": f.change || "", "data-api": f.api });
    li.appendChild(el("code", {}, f.line + ":" + f.column));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(link(f.url, f.title));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(el("code", {}, f.api));
    if (f.why_text) li.appendChild(el("p", { "class": "atlas-check-why" }, f.why_text));   // what the code does with a load
    if (f.severity === "review") li.appendChild(el("p", { "class": "atlas-check-why" }, T("check.load.settle")));
    if (f.earlier_text) li.appendChild(el("p", { "class": "atlas-check-earlier" }, f.earlier_text));
    if (f.fix && f.severity !== "guarded") li.appendChild(el("p", {}, f.fix));
    return li;
  }

  // items drawn SHOWN at a time into list, each time with a button for the next ones that says how
  // many are left; `later`: nothing drawn until the button is pressed
  function paged(items, list, draw, later) {
    var at = 0;
    var button = function () {
      var more = el("button", { type: "button", "class": "md-button atlas-check-more" }, T("check.more", { n: items.length - at }));
      more.addEventListener("click", function () { more.remove(); next(); });
      list.parentNode.insertBefore(more, list.nextSibling);
    };
    var next = function () {
      items.slice(at, at + SHOWN).forEach(function (x) { list.appendChild(draw(x)); });
      at += SHOWN;
      if (at < items.length) button();
    };
    if (later) button(); else next();
  }

  // what fixCode proposes for the snippet: the diff of the rewrites that are safe on every release from
  // frm to to, then the suggestions with why each is not applied. Nothing is written into the textarea.
  // Every text from the snippet or the data goes in as text (textContent), never as markup.
  function diffLine(mark, text) {
    return el(mark === "-" ? "del" : mark === "+" ? "ins" : "span", { "class": "atlas-check-diff__" + ({ "-": "old", "+": "new", " ": "same" })[mark] }, mark + text + "\n");
  }
  function showFixes(fx, frm, to) {
    if (!fx || !(fx.fixes.length || fx.suggestions.length)) return;
    var sec = el("section", { "class": "atlas-check-fixes" });
    sec.appendChild(el("h3", {}, T("check.fix_title")));
    if (fx.fixes.length) {
      sec.appendChild(el("p", {}, T("check.fix_intro", { n: fx.fixes.length, old: frm, "new": to })));
      var pre = el("pre", { "class": "atlas-check-diff", tabindex: "0", "aria-label": T("check.fix_diff") });
      fx.hunks.forEach(function (h) {
        pre.appendChild(el("span", { "class": "atlas-check-diff__hunk" }, "@@ -" + h.old_start + "," + h.old_lines + " +" + h.new_start + "," + h.new_lines + " @@\n"));
        h.lines.forEach(function (l) { pre.appendChild(diffLine(l[0], l[1])); });
      });
      sec.appendChild(pre);
    }
    if (fx.suggestions.length) {
      sec.appendChild(el("h4", {}, T("check.suggest_title", { n: fx.suggestions.length })));
      var ul = el("ul", { "class": "atlas-check-suggestions" });
      fx.suggestions.forEach(function (sg) {
        var li = el("li", { "data-suggestion": sg.change || sg.rule, "data-api": sg.api });
        li.appendChild(el("code", {}, sg.line + ":" + sg.column));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(link(sg.url, sg.title));
        li.appendChild(el("p", { "class": "atlas-check-why" }, T("check.suggest_why", { why: sg.why_text })));
        if (sg.old || sg["new"]) {
          var p = el("pre", { "class": "atlas-check-diff", tabindex: "0", "aria-label": T("check.suggest_diff") });
          (sg.old || []).forEach(function (x) { p.appendChild(diffLine("-", x.replace(/\r$/, ""))); });
          (sg["new"] || []).forEach(function (x) { p.appendChild(diffLine("+", x.replace(/\r$/, ""))); });
          li.appendChild(p);
        }
        ul.appendChild(li);
      });
      sec.appendChild(ul);
    }
    out.appendChild(sec);
  }

  function showCode(res, frm, to, fx) {
    var groups = {}, drawn = 0, rest = [];
    res.findings.forEach(function (f) { (groups[f.severity] = groups[f.severity] || []).push(f); });
    SEVERITIES.forEach(function (sev) {
      if (!groups[sev]) return;
      var section = el("section", { "class": "atlas-check-group", "data-severity": sev });
      section.appendChild(el("h3", {}, T("check.group_title", { label: AC.msg("check.severity." + sev), n: groups[sev].length })));
      var ul = el("ul"), byRule = {};
      groups[sev].forEach(function (f) { var k = f.change || f.rule; (byRule[k] = byRule[k] || []).push(f); });   // clamp and .clamp_(): one note
      Object.keys(byRule).forEach(function (rid) {
        var fs = byRule[rid];
        if (drawn >= SHOWN) { rest.push.apply(rest, fs); return; }
        if (fs.length < 3) { fs.forEach(function (f) { ul.appendChild(finding(f)); drawn++; }); return; }
        // one rule, many places: said once, the places behind a disclosure
        var li = finding(fs[0]);
        li.setAttribute("data-places", String(fs.length));
        var d = el("details"), sm = el("summary", {}, T("check.places", { n: fs.length }));
        d.appendChild(sm);
        var places = el("ul");
        d.appendChild(places);
        paged(fs, places, function (f) { return el("li", {}, f.line + ":" + f.column); });
        li.appendChild(d);
        ul.appendChild(li);
        drawn++;
      });
      section.appendChild(ul);
      out.appendChild(section);
    });
    if (rest.length) {
      var restList = el("ul", { "class": "atlas-check-rest" });
      out.appendChild(restList);
      paged(rest, restList, finding, true);
    }
    if (res.hidden) out.appendChild(el("p", { "class": "atlas-check-hidden" }, T("check.cli.hidden_notes", { n: res.hidden })));
    showFixes(fx, frm, to);
    res.skipped.forEach(function (s) { out.appendChild(el("p", {}, T("check.skipped", { reason: s.reason_text }))); });
    // what the code check cannot see between the two releases: the changes no rule matches
    var blind = (rules.not_checked || []).filter(function (n) { return AC.vcmp(n.release, frm) > 0 && AC.vcmp(n.release, to) <= 0; });
    if (blind.length) {
      var sec = el("section", { "class": "atlas-check-blind" });
      sec.appendChild(el("h3", {}, T("check.blind_title")));
      sec.appendChild(el("p", {}, T("check.blind_intro")));
      var bl = el("ul");
      blind.forEach(function (n) { var li = el("li", { "data-unchecked": n.change }); li.appendChild(link(n.url[lang], n.title[lang])); bl.appendChild(li); });
      sec.appendChild(bl);
      out.appendChild(sec);
    }
    status.textContent = res.findings.length ? T("check.found", { n: res.findings.length }) : T("check.none");
  }

  function showEnv(res, box) {   // one paste's rows, into box; returns them
    var ul = el("ul", { "class": "atlas-check-env" });
    res.items.forEach(function (i) {
      var li = el("li", { "data-check": i.check, "data-verdict": i.verdict, "data-change": i.change || "" });
      // the row as the language lays it out (check.row), the item's name in bold
      fillNodes(li, rules.ui[lang]["check.row"], { item: el("strong", {}, T("check.item." + i.check)), found: i.found_text || "–",
        verdict: T("check.verdict." + i.verdict) });
      if (i.change) { li.appendChild(document.createTextNode(" · ")); li.appendChild(link(i.url, i.title)); }
      if (i.note_text) { li.appendChild(el("br")); li.appendChild(el("small", { "class": "atlas-check-note" }, i.note_text)); }   // its own line: no brackets to word
      ul.appendChild(li);
    });
    if (res.upgrade_url) {
      var p = el("p");
      p.appendChild(link(res.upgrade_url, T("check.upgrade_page", { old: res.from, "new": res.to })));
      box.appendChild(p);
    }
    box.appendChild(ul);
    if (res.newest) {
      var n = el("p", { "class": "atlas-check-newest", "data-release": res.newest.release || "" });
      var nb = res.newest.build;
      var newest = el("strong", {}, res.newest.release ? (nb ? T("check.newest_build", { release: res.newest.release, build: nb })
        : T("check.newest", { release: res.newest.release })) : T("check.newest_none"));
      var b = res.newest.blocked_by;
      if (b) {   // what blocks the next release, each reason a link, laid out as the language does (check.newest_line)
        var reasons = el("span");
        b.items.forEach(function (i, k) {
          if (k) reasons.appendChild(document.createTextNode(T("check.cli.reason_sep")));
          reasons.appendChild(link(i.url, i.note_text || T("check.item." + i.check)));
        });
        fillNodes(n, rules.ui[lang]["check.newest_line"], { newest: newest, blocked: T("check.newest_blocked", { release: b.release }), reasons: reasons });
      } else {
        n.appendChild(newest);
      }
      box.appendChild(n);
      if (nb) {   // the build's pip command, and the newest release whose default wheel runs (atlas_check.newest_text)
        var pip = el("p", { "class": "atlas-check-pip" });
        pip.appendChild(el("code", {}, res.newest.pip));
        box.appendChild(pip);
        var dw = res.newest.default_wheel;
        if (!dw || dw.release !== res.newest.release) {
          box.appendChild(el("p", { "class": "atlas-check-default-wheel", "data-release": dw ? dw.release : "" },
            dw ? T("check.default_wheel", { release: dw.release }) : T("check.default_wheel_none")));
        }
      }
    }
    var comp = res.companions;
    if (comp && comp.items.length) {   // the packages around torch, each with its verdict, and one pip line for all
      var sec = el("div", { "class": "atlas-check-companions" });
      var h = el("p");
      h.appendChild(comp.url ? link(comp.url, T("check.companions", { release: res.to })) : el("strong", {}, T("check.companions", { release: res.to })));
      sec.appendChild(h);
      var cl = el("ul");
      comp.items.forEach(function (i) { cl.appendChild(el("li", { "data-verdict": i.verdict, "data-package": i["package"] }, i.note_text)); });
      sec.appendChild(cl);
      if (comp.pip) {
        var cp = el("p", {}, T("check.companions_pip") + " ");
        cp.appendChild(el("code", {}, comp.pip));
        sec.appendChild(cp);
      }
      box.appendChild(sec);
    }
    return res.items;
  }

  // several collect_env reports pasted together: each is judged on its own, under its own heading
  function showEnvAll(res) {
    var reports = res.pastes || [res], all = [];
    reports.forEach(function (r, k) {
      var box = out;
      if (reports.length > 1) {
        box = el("section", { "class": "atlas-check-paste", "data-paste": String(k + 1) });
        box.appendChild(el("h3", {}, T("check.paste_n", { n: k + 1, m: reports.length, torch: r.torch || "?" })));
        out.appendChild(box);
      }
      all = all.concat(showEnv(r, box));
    });
    var blocked = all.filter(function (i) { return i.verdict === "blocked"; }).length;
    status.textContent = T("check.env_done", { n: all.length, blocked: blocked });
  }

  function run() {
    var text = form.elements.text.value, kind = form.elements.kind.value;
    if (kind === "auto") kind = AC.detectKind(text);
    return loadRules().then(function (r) {
      out.textContent = "";
      var t0 = performance.now(), frm = form.elements.from.value, to = form.elements.to.value;
      if (kind === "env") {
        var res = AC.checkEnv(r, text, { to: to, lang: lang });
        if (res.from && form.elements.from.value !== res.from) {   // the paste says which release it runs
          form.elements.from.value = res.from;                      // (several pastes: each names its own)
          out.appendChild(el("p", { "class": "atlas-check-from" }, T("check.from_paste", { release: res.from })));
        }
        showEnvAll(res);
      } else if (AC.vcmp(frm, to) >= 0) {
        status.textContent = T("check.reversed", { old: frm, "new": to });
      } else {
        var fx = null;
        try { fx = AC.fixCode(r, text, { from: frm, to: to, lang: lang }); } catch (err) { fx = null; }   // the findings stand without it
        showCode(AC.checkCode(r, text, { from: frm, to: to, lang: lang }), frm, to, fx);
      }
      form.dataset.kind = kind;
      form.dataset.ms = (performance.now() - t0).toFixed(1);
    }).catch(function (e) { status.textContent = fill(form.dataset.failed, { error: e.message }); });
  }

  form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
  // a changed picker runs the check again, so no result stays on screen for another pair
  ["from", "to", "kind"].forEach(function (name) {
    var els = form.elements[name];
    (els.length && !els.tagName ? Array.prototype.slice.call(els) : [els]).forEach(function (e) {
      e.addEventListener("change", function () { if (form.dataset.kind !== undefined && form.elements.text.value.trim()) run(); });
    });
  });
  form.hidden = false;
})();
