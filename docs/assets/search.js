/* Release Atlas search box and engine (no library). The index is one JSON file per language,
   built by scripts/atlas/search_index.py; the tokeniser and the error normaliser below follow the
   same rules as that module (tokens, normalise_error, ident_keys), so index and query agree.

   Ranking, highest first:
   1. a pasted error line (or the best line of a pasted traceback) that matches an error message of
      the data, after normalising module paths, numbers, device ids, quoted names, paths and sizes;
   2. identifiers matched exactly or by their trailing parts (Options.lazy_init -> lazy_init);
   3. prose: every query term (stop words dropped) looked up exactly, by stem, by prefix and, when
      nothing else matched, with one typo; a page scores the sum of its terms' weights times the
      square of the share of terms it matched. Pages that miss some terms are still listed, under
      a "closest matches" label.
   The box is a WAI-ARIA combobox with a listbox; result titles are set as text, never as HTML. */
(function () {
  "use strict";
  var form = document.querySelector("form.atlas-search");
  if (!form) return;
  var input = document.getElementById("atlas-search-input");
  var box = document.getElementById("atlas-search-results");
  var list = document.getElementById("atlas-search-listbox");
  var status = document.getElementById("atlas-search-status");
  var indexUrl = new URL(form.dataset.index, location.href);
  var root = new URL(form.dataset.root, location.href);
  var MAX = 8, DEBOUNCE = 20;

  // ---------------------------------------------------------------- tokens (= search_index.tokens)
  var HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var TOKEN = /[\p{L}\p{N}\p{M}_]+(?:[.\-:=\/][\p{L}\p{N}\p{M}_]+)*/gu;
  var SPLIT = /[.\-:=\/]/;
  var IDENT = /[A-Za-z_]\w*(?:[.=][\w"'.\-]+)+|[A-Za-z]\w*_\w+|[A-Z][a-z0-9]+[A-Z]\w*|[a-z]+[A-Z]\w*/g;

  function norm(s) { return s.normalize("NFKC").toLowerCase(); }
  function bigrams(run) {
    if (run.length < 2) return run;
    var out = [];
    for (var i = 0; i < run.length - 1; i++) out.push(run.slice(i, i + 2));
    return out.join(" ");
  }
  /* Query groups: [token, parts, han]. A compound keeps its parts ("torch.linalg.qr" ->
     torch, linalg, qr); a Chinese run is one group whose parts are its bigrams. */
  function groups(s) {
    var out = [], m;
    s = norm(s).replace(HAN, function (r) {
      out.push([r, r.length < 2 ? [] : bigrams(r).split(" "), true]);
      return " ";
    });
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(s))) {
      var parts = m[0].split(SPLIT).filter(Boolean);
      out.push([m[0], parts.length > 1 ? parts : [], false]);
    }
    return out;
  }

  // ---------------------------------------------------------------- errors (= normalise_error)
  var FILE_LINE = /File "[^"]*", line \d+(?:, in [\w<>.]+)?/g;
  var QUALIFIED = /\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*(?:Error|Exception|Warning|Interrupt|Exit))\b/g;
  var PATH = /(?:[A-Za-z]:)?(?:[\\\/][\w.+\-]+){2,}[\\\/]?/g;
  var SIZE = /\b\d+(?:\.\d+)?\s*(?:[KMGT]i?B|bytes?|B)\b/gi;
  var QUOTED = /'([^'\s]{1,80})'|"([^"\s]{1,80})"|`([^`]{1,80})`/g;
  var NUMBER = /(?<![\w.])\d+(?:[.,]\d+)*(?!\w)/g;
  var ERRTOK = /#q|#|[\p{L}\p{M}_][\p{L}\p{M}\p{N}_]*/gu;

  function normaliseError(line) {
    var quoted = [], numbers = [];
    var s = line.replace(FILE_LINE, " ").replace(QUALIFIED, "$1")
      .replace(QUOTED, function (m, a, b, c) { quoted.push((a || b || c).toLowerCase()); return " #q "; })
      .replace(PATH, " # ").replace(SIZE, " # ")
      .replace(NUMBER, function (m) { numbers.push(m); return " # "; });
    var toks = norm(s).match(ERRTOK) || [], k = 0;
    return { toks: toks, qlit: toks.map(function (t) { return t === "#q" ? quoted[k++] : null; }),
             lits: quoted.concat(numbers), nq: quoted.length };
  }

  /* = search_index.match_error: template words in order; a word also matches a quoted name. */
  function errorScores(idx, q) {
    var best = null;
    q.split(/\r?\n/).forEach(function (line) {
      var n = normaliseError(line), qt = n.toks;
      if (qt.length < 2) return;
      var per = {};
      idx.errors.forEach(function (e) {
        var t = e[0], pos = 0, matched = 0, lit = 0;
        for (var i = 0; i < t.length; i++) {
          for (var j = pos; j < qt.length; j++) {
            if (qt[j] === t[i] || (qt[j] === "#q" && n.qlit[j] === t[i])) {
              matched++; pos = j + 1; if (qt[j] !== t[i]) lit++; break;
            }
          }
        }
        var cover = matched / Math.min(t.length, qt.length);
        if (matched < Math.min(3, t.length) || cover < 0.75) return;
        // a message that quotes a name does not match a line that quotes only other names
        var names = e[1].filter(function (l) { return !/^[\d.,]+$/.test(l); }), quotedQ = n.lits.slice(0, n.nq);
        if (t.indexOf("#q") >= 0 && quotedQ.length && names.length &&
            !names.some(function (l) { return quotedQ.indexOf(l) >= 0; })) return;
        lit += e[1].filter(function (l) { return n.lits.indexOf(l) >= 0; }).length;
        var sc = cover + 0.001 * matched + 0.05 * lit;
        if (!(per[e[2]] >= sc)) per[e[2]] = sc;
      });
      var top = Math.max.apply(null, Object.values(per).concat([0]));
      if (top > 0 && (!best || top > best.top)) best = { top: top, per: per };
    });
    return best ? best.per : {};
  }

  // ---------------------------------------------------------------- identifiers (= ident_keys)
  // Python's own wording names the attribute: module 'torch' has no attribute 'qr' -> torch.qr
  var ATTR = /(?:module )?['"]([\w.]+)['"](?: object)? has no attribute ['"](\w+)['"]/g;

  function queryIdents(q) {
    var m, found = [];
    IDENT.lastIndex = 0;
    while ((m = IDENT.exec(q))) found.push(m[0]);
    ATTR.lastIndex = 0;
    while ((m = ATTR.exec(q))) found.push(m[1] + "." + m[2]);
    QUOTED.lastIndex = 0;    // a quoted name in an error line ('cholesky') is an identifier too
    while ((m = QUOTED.exec(q))) { var nm = m[1] || m[2] || m[3]; if (nm.length >= 2 && found.indexOf(nm) < 0) found.push(nm); }
    return found;
  }

  function identScores(idx, q) {
    var out = {};
    queryIdents(q).forEach(function (raw) {
      var ident = raw.replace(/^["'.]+|["'.]+$/g, "").toLowerCase();
      var keys = [ident];
      if (ident.indexOf("=") > 0) keys.push(ident.split("=")[0]);
      var parts = ident.split("=")[0].split(".");
      for (var i = 1; i < parts.length; i++) keys.push(parts.slice(i).join("."));
      for (var k = 0; k < keys.length; k++) {
        var docs = idx.ids[keys[k]];
        if (!docs) continue;
        var w = keys[k].split(".").length + (k === 0 ? 1 : 0);
        docs.forEach(function (d) { out[d] = (out[d] || 0) + w; });
        break;
      }
    });
    return out;
  }

  // ---------------------------------------------------------------- prose
  var ID_PREFIX = /^(?:di|ke|se|ter|ber|per|mem|men|meng|meny|me|pem|pen|peng|peny|pe)(?=\p{L}{4,})/u;
  var ID_SUFFIX = /(?:kan|an|i|nya|lah|kah)$/;

  function editOne(a, b) {
    if (Math.abs(a.length - b.length) > 1 || a === b) return false;
    var i = 0, j = 0, diff = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) { i++; j++; continue; }
      if (++diff > 1) return false;
      if (a.length > b.length) i++; else if (b.length > a.length) j++; else { i++; j++; }
    }
    return diff + (a.length - i) + (b.length - j) <= 1;
  }

  function lookup(idx, t) {
    var hits = [], terms = idx.terms;
    if (terms[t]) hits.push([terms[t], 1]);
    if (idx.stem && /^\p{L}{4,}$/u.test(t)) {
      var forms = [t];
      if (idx.lang === "id") { var s = t.replace(ID_PREFIX, ""); forms.push(s, s.replace(ID_SUFFIX, ""), t.replace(ID_SUFFIX, "")); }
      outer: for (var f = 0; f < forms.length; f++) {
        for (var k = forms[f].length; k >= Math.max(3, forms[f].length - 4); k--) {
          var p = terms["~" + forms[f].slice(0, k)];
          if (p) { hits.push([p, 0.75]); break outer; }
        }
      }
    }
    if (!terms[t] && t.length >= 3) {           // a word being typed: its completions
      var lo = 0, hi = idx.vocab.length, n = 0;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (idx.vocab[mid] < t) lo = mid + 1; else hi = mid; }
      for (var v = lo; v < idx.vocab.length && idx.vocab[v].lastIndexOf(t, 0) === 0 && n < 30; v++, n++) {
        hits.push([terms[idx.vocab[v]], 0.6]);
      }
    }
    if (!hits.length && t.length >= 4 && !/^\d/.test(t)) {   // one typo
      idx.vocab.forEach(function (w) { if (editOne(t, w)) hits.push([terms[w], 0.45]); });
    }
    var out = {};
    hits.forEach(function (h) {
      var post = h[0];
      for (var i = 0; i < post.length; i += 2) {
        var sc = post[i + 1] * h[1];
        if (!(out[post[i]] >= sc)) out[post[i]] = sc;
      }
    });
    return out;
  }

  function prose(idx, q) {
    var stop = idx.stopSet;
    if (idx.lang === "zh") {
      idx.stop.forEach(function (w) {
        // a particle (吗, 的) only where a run ends: 还原 and 存在 keep their characters
        q = w.length > 1 ? q.split(w).join(" ") : q.replace(new RegExp(w + "(?=$|[^\\u3400-\\u9fff])", "g"), " ");
      });
    }
    var all = groups(q), seen = {};
    var gs = all.filter(function (g) { return !stop[g[0]]; });
    if (!gs.length) gs = all;
    gs = gs.filter(function (g) { if (seen[g[0]]) return false; seen[g[0]] = 1; return true; });
    var score = {}, matched = {};
    prose.last = [];
    gs.forEach(function (g) {
      var best = {}, share = {};
      if (g[2] && g[1].length) {             // Chinese: the sum of its bigrams, matched in part
        g[1].forEach(function (b) {
          var p = lookup(idx, b);
          Object.keys(p).forEach(function (d) {
            best[d] = (best[d] || 0) + p[d];
            share[d] = (share[d] || 0) + 1 / g[1].length;
          });
        });
      } else {
        best = lookup(idx, g[0]);
        if (g[1].length) {                    // a compound: also its parts, averaged
          var parts = g[1].map(function (p) { return lookup(idx, p); }), docs = {};
          parts.forEach(function (p) { Object.keys(p).forEach(function (d) { docs[d] = (docs[d] || 0) + p[d]; }); });
          Object.keys(docs).forEach(function (d) {
            var sc = 0.8 * docs[d] / parts.length;
            if (!(best[d] >= sc)) best[d] = sc;
          });
        }
      }
      prose.last.push([g[0], best]);
      Object.keys(best).forEach(function (d) {
        score[d] = (score[d] || 0) + best[d];
        matched[d] = (matched[d] || 0) + (share[d] || 1);
      });
    });
    // a release named in the query ("2.15") favours that release's pages
    var named = gs.filter(function (g) { return idx.versions[g[0]]; }).map(function (g) { return g[0]; });
    var n = gs.length, out = {};
    Object.keys(score).forEach(function (d) {
      var c = matched[d] / n, v = !named.length ? 1 : named.indexOf(idx.docs[d][4]) >= 0 ? 1.5 : 0.6;
      out[d] = [score[d] * c * c * v, matched[d] > n - 1e-9];
    });
    return out;
  }

  /* A query naming two releases ("2.9 to 2.15", "2.4.1 → 2.15", "с 2.14 на 2.15", "2.14 升级到 2.15"):
     the upgrade page of that pair, older first, whatever the words around the versions. */
  function pairScores(idx, q) {
    var out = {}, vs = [], re = /(?:^|[^\d.])(\d+\.\d+)(?:\.\d+)?(?![\d])/g, m;
    while ((m = re.exec(q))) { if (vs.indexOf(m[1]) < 0) vs.push(m[1]); }
    if (vs.length !== 2 || !idx.pairs) return out;
    var key = idx.pairs[vs[0] + " " + vs[1]] !== undefined ? vs[0] + " " + vs[1] : vs[1] + " " + vs[0];
    if (idx.pairs[key] !== undefined) out[idx.pairs[key]] = 1;
    return out;
  }

  /* The ranked documents: [{doc, full}], full = matched by an error, an identifier or every term. */
  function search(idx, q) {
    var err = errorScores(idx, q), ids = identScores(idx, q), txt = prose(idx, q), pair = pairScores(idx, q);
    var ranked = [];
    Object.keys(txt).concat(Object.keys(err), Object.keys(ids), Object.keys(pair)).forEach(function (d) {
      if (ranked[d]) return;
      var t = txt[d] || [0, false];
      ranked[d] = { doc: +d, score: 1e6 * (err[d] || 0) + 1e5 * (pair[d] || 0) + 1e4 * (ids[d] || 0) + t[0],
                    full: !!(err[d] || ids[d] || pair[d] || t[1]) };
    });
    return Object.keys(ranked).map(function (d) { return ranked[d]; })
      .sort(function (a, b) { return b.score - a.score || a.doc - b.doc; }).slice(0, MAX);
  }

  // ---------------------------------------------------------------- loading (retried once)
  var loading = null;
  function fetchIndex() {
    return fetch(indexUrl.href).then(function (r) {
      if (!r.ok) throw new Error(r.status + " " + indexUrl.href);
      return r.json();
    }).then(function (idx) {
      idx.vocab = Object.keys(idx.terms).filter(function (t) { return t[0] !== "~"; }).sort();
      idx.versions = {};
      idx.docs.forEach(function (d) { idx.versions[d[4]] = 1; });
      idx.stopSet = {};
      idx.stop.forEach(function (w) { idx.stopSet[w] = 1; });
      return idx;
    });
  }
  function load() {
    if (!loading) {
      loading = fetchIndex().catch(function () {
        return new Promise(function (ok) { setTimeout(ok, 300); }).then(fetchIndex);
      }).catch(function (e) { loading = null; throw e; });   // the next keystroke tries again
    }
    return loading;
  }

  /* For scripts/dev/bench.py and debugging: the engine without the box. */
  window.AtlasSearch = {
    search: function (q) { return load().then(function (idx) { return search(idx, q); }); },
    idents: queryIdents,   // the identifiers a query names (tests/test_browser.py)
    explain: function (q, url) {
      return load().then(function (idx) {
        var d = idx.docs.findIndex(function (x) { return x[0] === url; });
        prose(idx, q);
        return prose.last.map(function (t) { return [t[0], t[1][d] || 0]; });
      });
    }
  };

  // ---------------------------------------------------------------- the combobox
  var active = -1, seq = 0, timer = 0, t0 = 0;

  function options() { return list.querySelectorAll('[role="option"]'); }
  function setActive(i) {
    var opts = options();
    if (active >= 0 && opts[active]) opts[active].setAttribute("aria-selected", "false");
    active = i;
    if (i >= 0 && opts[i]) {
      opts[i].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", opts[i].id);
      if (opts[i].scrollIntoView) opts[i].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }
  function open() { if (box.dataset.q) { box.hidden = false; input.setAttribute("aria-expanded", "true"); } }
  function close() {
    box.hidden = true;
    input.setAttribute("aria-expanded", "false");
    setActive(-1);
  }
  function message(cls, text) {
    var p = document.createElement("p");
    p.className = cls;
    p.textContent = text;
    box.insertBefore(p, list);
  }
  function announce(text) { status.textContent = text; }

  function render(idx, hits, q) {
    box.querySelectorAll("p").forEach(function (p) { p.remove(); });
    list.textContent = "";
    active = -1;
    input.removeAttribute("aria-activedescendant");
    if (!hits.length) {
      message("atlas-search__none", box.dataset.none);
      announce(box.dataset.none);
    } else {
      if (!hits[0].full) message("atlas-search__partial", box.dataset.closest);
      hits.forEach(function (h, i) {
        var d = idx.docs[h.doc], u = new URL(d[0], root);
        var a = document.createElement("a"), title = document.createElement("span"), desc = document.createElement("span");
        a.setAttribute("href", u.pathname + u.search + u.hash);
        a.id = "atlas-search-option-" + i;
        a.setAttribute("role", "option");
        a.setAttribute("aria-selected", "false");
        a.tabIndex = -1;
        a.className = "atlas-search__link";
        a.dataset.kind = d[3];
        title.className = "atlas-search__title";
        title.textContent = d[1];          // text, never HTML: acc_policy="balanced" shows whole
        desc.className = "atlas-search__desc";
        desc.textContent = d[2];
        a.appendChild(title);
        a.appendChild(desc);
        list.appendChild(a);
      });
      announce(box.dataset.count.replace("{n}", hits.length) + (hits[0].full ? "" : " · " + box.dataset.closest));
    }
    list.hidden = !hits.length;
    box.dataset.q = q;
    box.hidden = false;
    input.setAttribute("aria-expanded", "true");
    box.dataset.ms = String(Math.round(performance.now() - t0));
  }

  function run() {
    var q = input.value, mine = ++seq;
    if (!q.trim()) { delete box.dataset.q; close(); announce(""); return; }
    load().then(function (idx) {
      if (mine === seq) render(idx, search(idx, q), q);
    }, function () {
      if (mine !== seq) return;
      box.querySelectorAll("p").forEach(function (p) { p.remove(); });
      list.textContent = "";
      list.hidden = true;
      message("atlas-search__none atlas-search__error", box.dataset.error);
      announce(box.dataset.error);
      box.hidden = false;
      input.setAttribute("aria-expanded", "true");
    });
  }

  input.addEventListener("focus", function () { load().catch(function () {}); open(); });
  input.addEventListener("input", function () {
    t0 = performance.now();
    clearTimeout(timer);
    timer = setTimeout(run, DEBOUNCE);    // one search per burst of keystrokes
  });
  input.addEventListener("keydown", function (e) {
    var n = options().length;
    if (e.key === "ArrowDown") {
      e.preventDefault();
      if (box.hidden) { open(); return; }
      if (n) setActive(active + 1 < n ? active + 1 : 0);
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      if (n) setActive(active > 0 ? active - 1 : n - 1);
    } else if (e.key === "Enter") {
      e.preventDefault();
      var opts = options(), pick = opts[active >= 0 ? active : 0];
      if (pick && !box.hidden) location.href = pick.href;
    } else if (e.key === "Escape") {
      if (!box.hidden) { e.preventDefault(); close(); }
      input.focus();
    }
  });
  list.addEventListener("mousemove", function (e) {
    var a = e.target.closest && e.target.closest('[role="option"]');
    if (a) setActive(Array.prototype.indexOf.call(options(), a));
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  form.addEventListener("focusout", function (e) {
    if (!e.relatedTarget || !form.contains(e.relatedTarget)) close();
  });
  box.addEventListener("keydown", function (e) {        // focus on a result (clicked): Escape returns
    if (e.key === "Escape") { close(); input.focus(); }
  });
})();
