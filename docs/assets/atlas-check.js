/* atlas-check.js: the Release Atlas checker for the browser (/check/) and node.
 *
 * The same rules JSON and the same findings as scripts/atlas/atlas_check.py (which parses with
 * Python's ast); here a tokenizer (comments, every string form including triple-quoted and
 * f-strings, line continuation, brackets) feeds a statement tree and the same binding model:
 * imports with aliases, `x = a.b` aliases, locals of functions, lambdas and comprehensions,
 * class bodies, the except/None rule for optional imports, star imports. tests/test_check_js.py
 * runs the shared corpus through both and fails on any difference.
 *
 * API: AtlasCheck.checkCode(rules, text, {from, to, lang, path, notes}) -> {findings, skipped, hidden, cleared}
 *      (cleared: the torch.load calls the code shows to be safe, with why, as atlas_check.py code --explain)
 *      AtlasCheck.checkEnv(rules, text, {to, lang}) -> {from, to, torch, upgrade_url, items}
 *      AtlasCheck.detectKind(text) -> "code" | "env"
 * No dependencies; a global `AtlasCheck` in the browser, module.exports in node.
 */
(function (root) {
  "use strict";

  var BUILTINS = Object.assign(dict(), { getattr: 1, isinstance: 1, issubclass: 1, dict: 1, type: 1, print: 1 });
  // strings that are text for a person: the value of these keywords, and the arguments of these calls
  var DOC_KEYWORDS = Object.assign(dict(), { help: 1, description: 1, epilog: 1, usage: 1 });
  var MESSAGE_CALLS = Object.assign(dict(), { "builtins.print": 1, "warnings.warn": 1 });
  // new_group() without a backend uses the default group's, which init_process_group() sets (atlas_check.INHERITS)
  var INHERITS = {}, SETTERS = {};
  ["torch.distributed.", "torch.distributed.distributed_c10d."].forEach(function (p) {
    INHERITS[p + "new_group"] = ["backend", "init_process_group"];
    SETTERS[p + "init_process_group"] = ["init_process_group", "backend", 0];
  });
  var INHERIT_UNKNOWN = " (its backend is the default group's, set outside this file)";
  var MESSAGE_METHODS = Object.assign(dict(), { debug: 1, info: 1, warning: 1, warn: 1, error: 1, exception: 1, critical: 1 });
  var KEYWORDS = ("False None True and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try while with yield").split(" ");
  var KW = Object.create(null);
  KEYWORDS.forEach(function (k) { KW[k] = 1; });

  function dict() { return Object.create(null); }
  function vkey(v) { var p = String(v).split("."); return [parseInt(p[0], 10), parseInt(p[1], 10)]; }
  function vcmp(a, b) { var x = vkey(a), y = vkey(b); return x[0] - y[0] || x[1] - y[1]; }

  // Every word either engine prints is a UI string of the site, shipped in the rules (rules.ui[lang], keys
  // check.*) with each language's CLDR plural rule (rules.plural[lang]): a message is {key, args}, worded
  // by say() as atlas_check.say words it; a value may be a message, or a list of values or messages.
  function msg(key, args) { return { key: key, args: args || {} }; }
  function operand(node, n) {   // a CLDR plural operand of an integer count (atlas_check._operand)
    if (node[0] === "value") return node[1][0];
    if (node[0] === "mod") return operand(node[1][0], n) % operand(node[1][1], n);
    return node[0] === "n" || node[0] === "i" ? Math.abs(Math.trunc(n)) : 0;
  }
  function holds(node, n) {
    var op = node[0], args = node[1];
    if (op === "and") return args.every(function (a) { return holds(a, n); });
    if (op === "or") return args.some(function (a) { return holds(a, n); });
    if (op === "not") return !holds(args[0], n);
    var v = operand(args[1], n);   // relation: in / within a range list
    return args[2][1].some(function (r) { return operand(r[0], n) <= v && v <= operand(r[1], n); });
  }
  function pluralCategory(rule, n) {
    for (var i = 0; i < rule.length; i++) if (holds(rule[i][1], n)) return rule[i][0];
    return "other";
  }
  function say(rules, lang, m) {
    if (m === null || m === undefined) return "";
    if (typeof m === "string" || typeof m === "number") return String(m);
    if (Array.isArray(m)) return m.map(function (x) { return say(rules, lang, x); }).join(rules.ui[lang]["check.cli.sep"]);
    var value = rules.ui[lang][m.key], args = m.args;
    if (typeof value !== "string") value = value[pluralCategory(rules.plural[lang], args.n || 0)] || value.other;
    return value.replace(/\{(\w+)\}/g, function (all, k) { return hasOwn(args, k) ? say(rules, lang, args[k]) : all; });
  }

  function releaseOf(version, releases) {   // [release, null or a message]
    var m = /^\s*v?(\d+)\.(\d+)/.exec(version || "");
    if (!m) return [null, msg("check.note.not_version", { version: pyRepr(version) })];
    var rel = m[1] + "." + m[2];
    if (releases.indexOf(rel) >= 0) return [rel, null];
    if (vcmp(rel, releases[0]) < 0) return [releases[0], msg("check.note.older", { version: version, oldest: releases[0] })];
    return [null, msg("check.note.unknown_release", { version: version, releases: releases.join(", ") })];
  }
  function pyRepr(s) { return s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' + s + '"' : "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "'"; }

  // a deprecation made at or before "from" and still in force at "to" (atlas_check.earlier_deprecation)
  var IN_FORCE = ["deprecated", "deprecated-switch"];
  function earlierDeprecation(rule, frm, to) {
    return IN_FORCE.indexOf(rule.severity) >= 0 && vcmp(rule.introduced_in, frm) <= 0 && vcmp(frm, to) < 0 &&
      !(rule.back_in && rule.back_in.indexOf(to) >= 0) && !(rule.removed_in && vcmp(rule.removed_in, to) <= 0);
  }

  function ruleSeverity(rule, frm, to) {
    if (rule.back_in && rule.back_in.indexOf(to) >= 0) return null;   // the name or keyword is back in "to"
    var hit = (vcmp(frm, rule.introduced_in) < 0 && vcmp(rule.introduced_in, to) <= 0) || earlierDeprecation(rule, frm, to);
    if (!hit && !(rule.removed_in && vcmp(frm, rule.removed_in) < 0 && vcmp(rule.removed_in, to) <= 0)) return null;
    if (rule.removed_in && vcmp(to, rule.removed_in) >= 0) return "breaks";
    return rule.severity;
  }

  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  function Index(rules, frm, to) {
    var ix = this;
    ix.to = to;
    // tables keyed by names from the code have no prototype: a keyword argument named constructor= or
    // toString= must find nothing, not Object's own methods
    ix.name = []; ix.call = dict(); ix.param = dict(); ix.isinst = dict(); ix.method = dict(); ix.keyword = dict(); ix.key = dict();
    ix.strings = []; ix.env = []; ix.reload = []; ix.severity = dict(); ix.earlier = dict();
    var words = dict();
    function add(table, k, r) { (table[k] = table[k] || []).push(r); }
    rules.rules.forEach(function (r) {
      var sev = ruleSeverity(r, frm, to);
      if (sev === null) return;
      ix.severity[r.id] = sev;
      if (earlierDeprecation(r, frm, to)) ix.earlier[r.id] = r.introduced_in;
      var last = function (t) { return t.split(".").pop(); };
      if (r.kind === "name") r.targets.forEach(function (t) { ix.name.push([t, r]); words[last(t)] = 1; });
      else if (r.kind === "call" || r.kind === "param" || r.kind === "isinstance") {
        var table = r.kind === "call" ? ix.call : r.kind === "param" ? ix.param : ix.isinst;
        r.targets.forEach(function (t) { add(table, t, r); words[last(t)] = 1; });
      } else if (r.kind === "method") { add(ix.method, r.target, r); words[r.target] = 1; }
      else if (r.kind === "keyword") { add(ix.keyword, r.target, r); words[r.target] = 1; }
      else if (r.kind === "string") { if (r.key) add(ix.key, r.target, r); ix.strings.push(r); words[r.target] = 1; }
      else if (r.kind === "env") { ix.env.push(r); words[r.target] = 1; }
      else if (r.kind === "reload") { ix.reload.push(r); words[r.how === "del" ? "modules" : "reload"] = 1; }
    });
    ix.prefixes = dict();
    var addPrefixes = function (t) { var p = t.split("."); for (var i = 1; i <= p.length; i++) ix.prefixes[p.slice(0, i).join(".")] = 1; };
    ix.name.forEach(function (x) { addPrefixes(x[0]); });
    [ix.call, ix.param, ix.isinst].forEach(function (tb) { Object.keys(tb).forEach(addPrefixes); });
    ix.words = words;   // the last part of every target: what a guard's hasattr may probe
    var ws = Object.keys(words).sort();
    ix.pattern = ws.length ? new RegExp(ws.map(escapeRe).join("|")) : null;
  }

  // a keyword rule's value: exact, except a backend name, which torch lower-cases (atlas_check.kw_eq)
  function kwEq(v, r) {
    if (v === r.value) return true;
    return r.target === "backend" && typeof v === "string" && typeof r.value === "string" && v.toLowerCase() === r.value.toLowerCase();
  }
  function valueMatch(s, v, split) {
    if (s === v) return true;
    return !!split && s.split(/[,:]/).map(function (p) { return p.trim(); }).indexOf(v) >= 0;
  }
  function envMatch(s, v) { return s === v || new RegExp("(?<![A-Za-z0-9_])" + escapeRe(v) + "=").test(s); }

  // ------------------------------------------------------------------------ tokenizer
  function SyntaxErr(msg, line) { this.msg = msg; this.line = line; }

  var NAME_RE = /[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff]*/y;
  var NUM_RE = /(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJlL]?)/y;
  var OPS = ["**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "<>",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">",
    "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=", "`", "!"];

  function unescape(body, raw) {
    if (raw) return body;
    return body.replace(/\\(\n|\\|'|"|n|t|r|0|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, function (m, c) {
      if (c === "\n") return "";
      if (c === "\\" || c === "'" || c === "\"") return c;
      if (c === "n") return "\n"; if (c === "t") return "\t"; if (c === "r") return "\r"; if (c === "0") return "\0";
      if (c[0] === "x" || c[0] === "u") return String.fromCharCode(parseInt(c.slice(1), 16));
      return m;
    });
  }

  var MAX_BRACKETS = 200, MAX_INDENT = 100;   // CPython's MAXLEVEL and MAXINDENT: deeper code does not parse there either
  function tokenize(text) {
    var toks = [], i = 0, n = text.length, line = 1, lineStart = 0, depth = 0, stack = [];
    var atLineStart = true, indent = 0;
    // the column of text[at] in code points, counted on from the last one asked on this line: linear in the line
    var cLine = -1, cAt = 0, cVal = 1;
    function col(at) {
      if (cLine !== lineStart || at < cAt) { cLine = lineStart; cAt = lineStart; cVal = 1; }
      for (; cAt < at; cAt++) {
        var c = text.charCodeAt(cAt), p = cAt > lineStart ? text.charCodeAt(cAt - 1) : 0;
        if (!(c >= 0xDC00 && c <= 0xDFFF && p >= 0xD800 && p <= 0xDBFF)) cVal++;   // a pair is one code point
      }
      return cVal;
    }
    while (i < n) {
      var ch = text[i];
      if (atLineStart) {
        var j = i, w = 0;
        while (j < n && (text[j] === " " || text[j] === "\t" || text[j] === "\f")) { w += text[j] === "\t" ? 8 - (w % 8) : 1; j++; }
        if (j < n && (text[j] === "\n" || text[j] === "#" || text[j] === "\r")) { i = j; atLineStart = false; indent = -1; continue; }
        indent = w; i = j; atLineStart = false; if (i >= n) break; ch = text[i];
      }
      if (ch === "\n") {
        if (depth === 0 && indent >= 0 && toks.length && toks[toks.length - 1].t !== "NL") toks.push({ t: "NL", v: "", line: line, col: col(i) });
        i++; line++; lineStart = i; if (depth === 0) atLineStart = true; continue;
      }
      if (ch === " " || ch === "\t" || ch === "\r" || ch === "\f") { i++; continue; }
      if (ch === "#") { while (i < n && text[i] !== "\n") i++; continue; }
      if (ch === "\\" && (text[i + 1] === "\n" || (text[i + 1] === "\r" && text[i + 2] === "\n"))) {
        i += text[i + 1] === "\n" ? 2 : 3; line++; lineStart = i; continue;
      }
      var startLine = line, startCol = col(i);
      var pm = /^([rRbBuUfF]{0,2})(['"])/.exec(text.slice(i, i + 4));
      if (pm && (pm[1] === "" || /^(r|u|b|f|br|rb|fr|rf)$/i.test(pm[1]))) {
        var prefix = pm[1].toLowerCase(), q = pm[2], k = i + pm[1].length, triple = text.substr(k, 3) === q + q + q;
        if (prefix.indexOf("u") >= 0 && prefix.length > 1) throw new SyntaxErr("invalid string prefix", line);
        var delim = triple ? q + q + q : q, p = k + delim.length, raw = prefix.indexOf("r") >= 0, fstr = prefix.indexOf("f") >= 0;
        var brace = 0;
        for (;;) {
          if (p >= n) throw new SyntaxErr("unterminated string literal", startLine);
          var c = text[p];
          if (c === "\\") { if (text[p + 1] === "\n") { line++; lineStart = p + 2; } p += 2; continue; }
          if (fstr && c === "{") { if (text[p + 1] === "{" && brace === 0) { p += 2; continue; } brace++; p++; continue; }
          if (fstr && c === "}" && brace > 0) { brace--; p++; continue; }
          if (brace > 0 && (c === "'" || c === "\"") && !text.startsWith(delim, p)) {   // a nested string in a replacement field
            var e = p + 1; while (e < n && text[e] !== c && text[e] !== "\n") e++; p = e + 1; continue;
          }
          if (text.startsWith(delim, p) && brace === 0) break;
          if (c === "\n") { if (!triple) throw new SyntaxErr("unterminated string literal", startLine); line++; lineStart = p + 1; }
          p++;
        }
        var body = text.slice(k + delim.length, p);
        toks.push({ t: "STR", v: fstr ? null : unescape(body, raw), bytes: prefix.indexOf("b") >= 0, f: fstr, body: fstr ? body : null, raw: raw, line: startLine, col: startCol, at: i, end: p + delim.length });
        i = p + delim.length; continue;
      }
      NAME_RE.lastIndex = i;
      var m = NAME_RE.exec(text);
      if (m) { toks.push({ t: "NAME", v: m[0], line: line, col: startCol, at: i, end: i + m[0].length }); i += m[0].length; continue; }
      if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(text[i + 1] || ""))) {
        NUM_RE.lastIndex = i; m = NUM_RE.exec(text);
        var num = m ? m[0] : ch;
        if (/^0\d*[1-9]/.test(num) && !/[.eEjJ]/.test(num)) throw new SyntaxErr("leading zeros in decimal integer literals", line);
        if (/[lL]$/.test(num)) throw new SyntaxErr("invalid decimal literal", line);
        toks.push({ t: "NUM", v: num, line: line, col: startCol, at: i, end: i + num.length }); i += num.length; continue;
      }
      var op = null;
      for (var o = 0; o < OPS.length; o++) if (text.startsWith(OPS[o], i)) { op = OPS[o]; break; }
      if (!op) throw new SyntaxErr("invalid character", line);
      if (op === "`" || op === "<>" || op === "!") throw new SyntaxErr("invalid syntax", line);
      if (op === "(" || op === "[" || op === "{") {
        depth++; stack.push(op);
        if (depth > MAX_BRACKETS) throw new SyntaxErr("too many nested parentheses", line);   // as CPython's parser
      }
      if (op === ")" || op === "]" || op === "}") {
        var open = stack.pop();
        if (!open || "([{".indexOf(open) !== ")]}".indexOf(op)) throw new SyntaxErr("unmatched '" + op + "'", line);
        depth--;
      }
      var tok = { t: "OP", v: op, line: line, col: startCol, at: i, end: i + op.length };
      if (toks.length && toks[toks.length - 1].t === "NL" || toks.length === 0) tok.indent = indent;
      toks.push(tok); i += op.length;
      continue;
    }
    if (depth) throw new SyntaxErr("'" + stack[stack.length - 1] + "' was never closed", line);
    if (toks.length && toks[toks.length - 1].t !== "NL") toks.push({ t: "NL", v: "", line: line, col: 1 });
    // the indentation of each logical line is that of its first token
    var lines = [], cur = [], curIndent = null;
    // the indentation of a logical line: the column of its first token
    var levels = [0];   // the indentation levels open, as CPython's tokenizer keeps them
    toks.forEach(function (tk) {
      if (tk.t === "NL") { if (cur.length) lines.push({ toks: cur, indent: curIndent }); cur = []; curIndent = null; return; }
      if (!cur.length) {
        curIndent = tk.col - 1;
        while (levels.length > 1 && levels[levels.length - 1] > curIndent) levels.pop();
        if (curIndent > levels[levels.length - 1]) levels.push(curIndent);
        if (levels.length > MAX_INDENT) throw new SyntaxErr("too many levels of indentation", tk.line);
      }
      cur.push(tk);
    });
    return lines;
  }

  // f-string bodies: the text between fields and the fields' expressions (as Python's ast splits them)
  function skipQuoted(body, i) { var q = body[i], j = i + 1; while (j < body.length && body[j] !== q) j += body[j] === "\\" ? 2 : 1; return j + 1; }
  function fieldEnd(body, i) {   // from the start of an expression to the !, : or } that ends it
    var d = 0;
    for (; i < body.length; i++) {
      var c = body[i];
      if (c === "'" || c === "\"") { i = skipQuoted(body, i) - 1; continue; }
      if (c === "(" || c === "[" || c === "{") d++;
      else if ((c === ")" || c === "]" || c === "}") && d > 0) d--;
      else if (d === 0 && (c === "}" || c === ":" || (c === "!" && body[i + 1] !== "="))) return i;
    }
    return i;
  }
  // -> index after the closing } of the field opened at body[i - 1]; pushes [kind, text] to parts
  function scanField(body, i, parts, top) {
    var e = fieldEnd(body, i), src = body.slice(i, e);
    var self = /^([\s\S]*?[^=!<>])=(\s*)$/.exec(src);   // f"{x=}": the text "x=" comes before the value
    if (self && top) parts.push(["text", src]);
    parts.push(["expr", self ? self[1] : src]);
    if (body[e] === "!") e += 2;
    if (body[e] === ":") {   // the format spec: its own fields are code, its text is not matched
      e++;
      while (e < body.length && body[e] !== "}") {
        if (body[e] === "{") e = scanField(body, e + 1, parts, false); else e++;
      }
    }
    return e + 1;
  }
  function fstringParts(toks) {   // [["text", s] | ["expr", source]] for a run of adjacent strings with an f-string
    var parts = [], lit = "";
    function flush() { if (lit) parts.push(["text", lit]); lit = ""; }
    toks.forEach(function (t) {
      if (!t.f) { lit += t.v; return; }
      var b = t.body, i = 0, chunk = "";
      while (i < b.length) {
        var c = b[i];
        if ((c === "{" && b[i + 1] === "{") || (c === "}" && b[i + 1] === "}")) { chunk += c; i += 2; continue; }
        if (c === "\\" && !t.raw) { chunk += b.substr(i, 2); i += 2; continue; }
        if (c === "{") { lit += unescape(chunk, t.raw); chunk = ""; flush(); i = scanField(b, i + 1, parts, true); continue; }
        chunk += c; i++;
      }
      lit += unescape(chunk, t.raw);
    });
    flush();
    // Python merges the text around a self-documenting field's "x=" with the text before it
    var out = [];
    parts.forEach(function (p) {
      var last = out[out.length - 1];
      if (p[0] === "text" && last && last[0] === "text") last[1] += p[1]; else out.push(p.slice());
    });
    return out;
  }

  // ------------------------------------------------------------------------ statement tree
  function topIndex(toks, pred, from) {
    var d = 0;
    for (var i = from || 0; i < toks.length; i++) {
      var t = toks[i];
      if (t.t === "OP") {
        if (t.v === "(" || t.v === "[" || t.v === "{") d++;
        else if (t.v === ")" || t.v === "]" || t.v === "}") d--;
        else if (d === 0 && pred(t, i)) return i;
      } else if (t.t === "NAME" && t.v === "lambda" && d === 0) {   // a lambda's ':' is not the header's
        var j = topIndex(toks, function (x) { return x.v === ":"; }, i + 1);
        if (j < 0) return -1;
        i = j;
      }
    }
    return -1;
  }

  var COMPOUND = { "if": 1, "elif": 1, "else": 1, "for": 1, "while": 1, "try": 1, "except": 1, "finally": 1, "with": 1, "def": 1, "class": 1, "async": 1 };

  function splitSemis(toks) {
    var out = [], start = 0;
    for (;;) {
      var k = topIndex(toks, function (t) { return t.v === ";"; }, start);
      if (k < 0) { if (start < toks.length) out.push(toks.slice(start)); return out; }
      if (k > start) out.push(toks.slice(start, k));
      start = k + 1;
    }
  }

  function buildTree(lines) {
    // -> [{toks, body: [...]|null}]
    var pos = 0;
    function block(indent) {
      var out = [];
      while (pos < lines.length) {
        var L = lines[pos];
        if (L.indent < indent) break;
        if (L.indent > indent) throw new SyntaxErr("unexpected indent", L.toks[0].line);
        pos++;
        var first = L.toks[0];
        var isCompound = first.t === "NAME" && COMPOUND[first.v] && !(first.v === "async" && !(L.toks[1] && /^(def|for|with)$/.test(L.toks[1].v)));
        if (first.t === "NAME" && (first.v === "match" || first.v === "case") && L.toks.length > 2 &&
            L.toks[L.toks.length - 1].v === ":" && !(L.toks[1].t === "OP" && /^(=|\.|:|\[)$/.test(L.toks[1].v))) isCompound = true;
        if (isCompound) {
          var c = topIndex(L.toks, function (t) { return t.v === ":"; });
          if (c < 0) throw new SyntaxErr("expected ':'", first.line);
          var header = L.toks.slice(0, c), rest = L.toks.slice(c + 1), node = { toks: header, body: [] };
          if (rest.length) node.body = splitSemis(rest).map(function (s) { return { toks: s, body: null }; });
          else if (pos < lines.length && lines[pos].indent > indent) node.body = block(lines[pos].indent);
          else throw new SyntaxErr("expected an indented block", first.line);
          out.push(node);
        } else {
          splitSemis(L.toks).forEach(function (s) { out.push({ toks: s, body: null }); });
        }
      }
      return out;
    }
    var tree = block(lines.length ? lines[0].indent : 0);
    if (pos < lines.length) throw new SyntaxErr("unindent does not match any outer indentation level", lines[pos].toks[0].line);
    return tree;
  }

  // ------------------------------------------------------------------------ analysis
  // kwdicts: name -> [[key, token]] of a dict literal or dict(...) bound to it, for `f(**name)`
  function Scope(kind, parent) { this.kind = kind; this.names = {}; this.parent = parent; this.stars = []; this.imported = {}; this.kwdicts = {}; this.ints = {}; this.origins = {}; }
  var hasOwn = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };

  function matching(toks, i) {   // index of the bracket closing toks[i]
    var d = 0;
    for (var j = i; j < toks.length; j++) {
      var v = toks[j].t === "OP" ? toks[j].v : "";
      if (v === "(" || v === "[" || v === "{") d++;
      else if (v === ")" || v === "]" || v === "}") { d--; if (d === 0) return j; }
    }
    return toks.length - 1;
  }

  function splitTop(toks, sep) {
    var out = [], cur = [], d = 0;
    toks.forEach(function (t) {
      if (t.t === "OP") {
        if (t.v === "(" || t.v === "[" || t.v === "{") d++;
        else if (t.v === ")" || t.v === "]" || t.v === "}") d--;
        else if (d === 0 && t.v === sep) { out.push(cur); cur = []; return; }
      }
      cur.push(t);
    });
    if (cur.length || out.length) out.push(cur);
    return out;
  }

  function isChain(toks) {   // NAME (. NAME)*
    if (!toks.length || toks[0].t !== "NAME" || KW[toks[0].v]) return false;
    for (var i = 1; i < toks.length; i += 2) {
      if (!(toks[i].t === "OP" && toks[i].v === "." && toks[i + 1] && toks[i + 1].t === "NAME")) return false;
    }
    return toks.length % 2 === 1;
  }
  function enclosing(toks, i) {   // the bracket that encloses toks[i] within this run, or null
    var depth = 0;
    for (var k = i - 1; k >= 0; k--) {
      var v = toks[k].t === "OP" ? toks[k].v : null;
      if (v === ")" || v === "]" || v === "}") depth++;
      else if (v === "(" || v === "[" || v === "{") { if (depth === 0) return v; depth--; }
    }
    return null;
  }
  function strGroup(toks) {   // a run of adjacent string literals: {value|null (f-string), bytes}
    if (!toks.length || !toks.every(function (t) { return t.t === "STR"; })) return null;
    if (toks.some(function (t) { return t.f; })) return { value: null, f: true };
    return { value: toks.map(function (t) { return t.v; }).join(""), bytes: toks[0].bytes };
  }

  // compat guards (atlas_check.GUARD_EXCEPTIONS, GUARD_NAMES): a use inside one is severity "guarded"
  var GUARD_EXCEPTIONS = { AttributeError: 1, ImportError: 1, ModuleNotFoundError: 1, RuntimeError: 1 };
  var FALLBACK_EXCEPTIONS = { AttributeError: 1, ImportError: 1, ModuleNotFoundError: 1, TypeError: 1 };   // atlas_check.FALLBACK_EXCEPTIONS
  var SIGNATURE_PROBES = { signature: 1, getfullargspec: 1, getargspec: 1, get_func_args: 1, co_varnames: 1 };   // atlas_check.SIGNATURE_PROBES
  var SKIP_DECORATORS = { skipif: 1, skipIf: 1, skipUnless: 1 };   // atlas_check.SKIP_DECORATORS
  function catches(n, names) {   // an except clause naming one of names
    var hs = n.toks.slice(1), as = hs.map(function (x) { return x.v; }).lastIndexOf("as");
    return (as >= 0 ? hs.slice(0, as) : hs).some(function (x) { return x.t === "NAME" && names[x.v] === 1; });
  }
  var GUARD_NAMES = { hasattr: 1, getattr: 1 };
  // contexts and decorators that run code without gradients: a grad_only rule stays quiet there (atlas_check.NO_GRAD)
  var NO_GRAD = { "torch.no_grad": 1, "torch.inference_mode": 1, "torch.autograd.no_grad": 1, "torch.autograd.inference_mode": 1,
    "torch.autograd.grad_mode.no_grad": 1, "torch.autograd.grad_mode.inference_mode": 1 };
  // integer tensors have no gradients: a grad_only rule is quiet on one (atlas_check.INT_DTYPES)
  var INT_DTYPES = {}, INT_METHODS = {}, INT_FUNCS = {}, CAST_METHODS = { to: 1, type: 1 };
  ["long", "int", "int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64", "short", "bool",
   "LongTensor", "IntTensor", "ShortTensor", "ByteTensor", "CharTensor", "BoolTensor"].forEach(function (d) {
    INT_DTYPES["torch." + d] = 1;
    if (/Tensor$/.test(d)) INT_DTYPES["torch.cuda." + d] = 1;
  });
  ["long", "int", "short", "byte", "char", "bool", "argmax", "argmin", "argsort", "nonzero"].forEach(function (m) { INT_METHODS[m] = 1; });
  ["argmax", "argmin", "argsort", "nonzero", "randint", "randint_like", "randperm", "bucketize", "searchsorted", "multinomial",
   "count_nonzero"].forEach(function (f) { INT_FUNCS["torch." + f] = 1; });
  function Analyzer(ix) { this.ix = ix; this.cleared = []; this.text = ""; this.tree = null; this.flat = null; this.cur = null; this.findings = []; this.seen = {}; this.inExcept = 0; this.guard = 0; this.newer = []; this.guardNames = {}; this.noGrad = 0; this.inits = []; this.pending = []; this.fixing = false; this.sites = []; this.inF = 0; }
  var A = Analyzer.prototype;

  A.emit = function (rule, tok, api, flow) {
    if (this.noGrad && rule.grad_only) return false;   // an autograd change, in code that runs without gradients
    var key = tok.line + ":" + tok.col + ":" + rule.id;
    if (this.seen[key]) return false;
    this.seen[key] = 1;
    this.findings.push([tok.line, tok.col, rule, api, this.guardsRule(rule, tok), flow || null]);
    return true;
  };
  // Analyzer.guards_rule: a branch for older releases, or the newer branch of a version test that names the
  // change's release or a later one
  A.guardsRule = function (rule, tok) {
    if (this.guard > 0 || tok.ifGuard) return true;
    var newer = tok.ifNewer ? this.newer.concat([tok.ifNewer]) : this.newer;
    if (!newer.length || IN_FORCE.indexOf(this.ix.severity[rule.id]) >= 0) return false;
    var r = rule.removed_in && vcmp(rule.removed_in, this.ix.to) <= 0 ? rule.removed_in : rule.introduced_in;
    return newer.some(function (t) { return vcmp(t, r) >= 0; });
  };
  // [guard of the body, of the else, newer release of the body, of the else] of an if on toks (Analyzer.branches)
  A.branches = function (toks, scope) {
    if (!this.isGuardTest(toks, scope)) return [0, 0, null, null];
    var ge = this.mixedAnd(toks, scope) ? 0 : 1, d = versionDirection(toks), t = d === null ? null : versionThreshold(toks);
    if (t === null) return [1, ge, null, null];
    return d ? [0, ge, t, null] : [1, 0, null, ge ? t : null];
  };
  A.settle = function () {   // Analyzer.settle: findings whose backend is inherited, after the walk
    var self = this, drop = {};
    this.pending.forEach(function (p) {
      var i = p[0], r = p[1], kw = INHERITS[p[2]][0], setter = INHERITS[p[2]][1];
      var states = self.inits.filter(function (x) { return x[0] === setter; }).map(function (x) { return x[1]; });
      var cond = r.args.filter(function (c) { return c.keyword === kw; })[0];
      if (!states.length) self.findings[i][3] += INHERIT_UNKNOWN;
      else if (!states.some(function (st) { return condOk(st, cond); })) drop[i] = 1;
    });
    this.findings = this.findings.filter(function (f, i) { return !drop[i]; });
  };
  function openOf(toks, close) {   // index of the bracket that toks[close] closes
    var d = 0;
    for (var j = close; j >= 0; j--) {
      var v = toks[j].t === "OP" ? toks[j].v : "";
      if (v === ")" || v === "]" || v === "}") d++;
      else if (v === "(" || v === "[" || v === "{") { d--; if (!d) return j; }
    }
    return -1;
  }
  function receiverStart(toks, end) {   // where the postfix expression ending at toks[end] starts (x.f(a)[0]); -1 if none
    var j = end;
    while (j >= 0) {
      var t = toks[j];
      if (t.t === "OP" && (t.v === ")" || t.v === "]")) {
        j = openOf(toks, j);
        if (j < 0) return -1;
        var p = toks[j - 1];
        if (p && ((p.t === "NAME" && !KW[p.v]) || (p.t === "OP" && (p.v === ")" || p.v === "]")))) { j--; continue; }
        return j;
      }
      if (t.t === "NAME" || t.t === "NUM" || t.t === "STR") {
        if (j > 1 && toks[j - 1].t === "OP" && toks[j - 1].v === ".") { j -= 2; continue; }
        return t.t === "NAME" && KW[t.v] ? -1 : j;
      }
      return -1;
    }
    return -1;
  }
  A.isInt = function (toks, scope) {   // Analyzer.is_int on a whole expression
    return toks.length > 0 && receiverStart(toks, toks.length - 1) === 0 && this.isIntEnd(toks, toks.length - 1, scope);
  };
  // the postfix expression that ends at toks[end] is an integer tensor (Analyzer.is_int); reads back
  // over the last call only, so a long chain x.clamp().clamp()... costs linear time
  A.isIntEnd = function (toks, end, scope) {
    var self = this, t = toks[end], s;
    var named = function (name) {
      for (s = scope; s; s = s.parent) if (hasOwn(s.names, name)) return !!s.ints[name];
      return false;
    };
    if (!t) return false;
    if (t.t === "NAME") return !KW[t.v] && !(end > 0 && toks[end - 1].t === "OP" && toks[end - 1].v === ".") && named(t.v);
    if (t.t !== "OP" || t.v !== ")") return false;
    var open = openOf(toks, end);
    if (open < 0) return false;
    var p = open > 0 ? toks[open - 1] : null;
    if (!p || p.t !== "NAME" || KW[p.v]) {   // (x): the name itself; any other bracketed expression is not shown to be one
      return !(p && p.t === "OP" && (p.v === ")" || p.v === "]")) && end - open === 2 && toks[open + 1].t === "NAME" &&
        !KW[toks[open + 1].v] && named(toks[open + 1].v);
    }
    var cs = open - 1;
    while (cs >= 2 && toks[cs - 1].t === "OP" && toks[cs - 1].v === "." && toks[cs - 2].t === "NAME" && !KW[toks[cs - 2].v]) cs -= 2;
    var f = toks.slice(cs, open), args = this.parseArgs(toks.slice(open + 1, end));
    var dtype = function (v) { return isChain(v) && INT_DTYPES[self.resolveChain(v, scope)] === 1; };
    if (args.some(function (a) { return a.kind === "kw" && a.name === "dtype" && dtype(a.value); })) return true;
    var viaExpr = cs > 0 && toks[cs - 1].t === "OP" && toks[cs - 1].v === ".";   // f(x).long(): a method of a result
    var q = viaExpr ? null : this.resolveChain(f, scope);
    if (q !== null) return INT_FUNCS[q] === 1;
    if (f.length === 1 && !viaExpr) return false;
    var m = f[f.length - 1].v;
    return INT_METHODS[m] === 1 || (CAST_METHODS[m] === 1 && args.some(function (a) { return a.kind === "pos" && dtype(a.value); }));
  };
  A.mixedAnd = function (toks, scope) {   // Analyzer.mixed_and: a guard `and` another condition; its else is no fallback
    var parts = [], cur = [], d = 0, or = false, self = this;
    toks.forEach(function (x) {
      if (x.t === "OP" && "([{".indexOf(x.v) >= 0) d++;
      else if (x.t === "OP" && ")]}".indexOf(x.v) >= 0) d--;
      if (!d && x.t === "NAME" && (x.v === "or" || x.v === "if" || x.v === "lambda")) or = true;
      if (!d && x.t === "NAME" && x.v === "and") { parts.push(cur); cur = []; } else cur.push(x);
    });
    parts.push(cur);
    return !or && parts.length > 1 && !parts.every(function (p) { return self.isGuardTest(p, scope); });
  };
  A.isNoGrad = function (toks, scope) {   // torch.no_grad(), torch.inference_mode() (a call, or a bare decorator)
    var e = toks;
    if (e.length && e[e.length - 1].v === ")") {
      for (var k = 0; k < e.length; k++) if (e[k].v === "(") { if (matching(e, k) === e.length - 1) e = e.slice(0, k); break; }
    }
    return e.length && isChain(e) && NO_GRAD[this.resolveChain(e, scope)] === 1 ? 1 : 0;
  };
  // whether a version test is true on newer releases (true), older ones (false) or neither (null) (atlas_check.version_direction)
  var NEWER = /(?:^|_)(?:ge|gt|greater|newer|at_least|after|plus|min)(?:_|$)|^with_(?:pt|torch)_?\d|^has_torch_?\d/;
  var OLDER = /(?:^|_)(?:le|lt|less|older|before|below|max)(?:_|$)/;
  function versionDirection(toks) {
    if (toks.length && toks[0].t === "NAME" && toks[0].v === "not") {
      var d = versionDirection(toks.slice(1));
      return d === null ? null : !d;
    }
    if (toks.length > 2 && toks[0].v === "(" && matching(toks, 0) === toks.length - 1) return versionDirection(toks.slice(1, -1));
    var ops = [], depth = 0;
    toks.forEach(function (x, k) {
      if (x.t === "OP" && "([{".indexOf(x.v) >= 0) depth++;
      else if (x.t === "OP" && ")]}".indexOf(x.v) >= 0) depth--;
      else if (!depth && x.t === "OP" && /^(<|<=|>|>=|==|!=)$/.test(x.v)) ops.push(k);
      else if (!depth && x.t === "NAME" && /^(in|is|and|or)$/.test(x.v)) ops.push(-1);
    });
    if (ops.length === 1 && ops[0] >= 0) {
      var op = toks[ops[0]].v;
      if (op === "==" || op === "!=") return null;
      var left = toks.slice(0, ops[0]).some(function (x) { return x.t === "NAME" && isVersionName(x.v); });
      var newer = op === ">" || op === ">=";
      return left ? newer : !newer;
    }
    if (ops.length) return null;
    // a name, an attribute chain or a call: its last name before the call's bracket
    var end = toks.length - 1;
    if (toks[end] && toks[end].v === ")") {   // a call: the name before its first bracket, which must close at the end
      var o = -1;
      for (var k = 0; k < toks.length; k++) if (toks[k].v === "(") { o = k; break; }
      if (o < 1 || matching(toks, o) !== end) return null;
      end = o - 1;
    }
    for (var q = 0; q <= end; q++) if (!(toks[q].t === "NAME" || (toks[q].t === "OP" && toks[q].v === "."))) return null;
    var name = toks[end] && toks[end].t === "NAME" ? toks[end].v : null;
    if (!name || !isVersionName(name)) return null;
    var low = name.toLowerCase();
    return NEWER.test(low) ? true : OLDER.test(low) ? false : null;
  }
  // the torch release (X.Y) a version test names, when it names exactly one (atlas_check.version_threshold)
  function versionThreshold(toks) {
    var found = {};
    toks.forEach(function (x, k) {
      var m = null;
      if (x.t === "STR" && !x.f && typeof x.v === "string") m = /^v?([12])\.(\d+)/.exec(x.v);
      else if (x.t === "NAME" && isVersionName(x.v)) {
        m = /(?<![0-9])([12])_(\d{1,2})(?![0-9])|(?<![0-9])([12])(\d{1,2})$/.exec(x.v);
        if (m) m = [m[0], m[1] || m[3], m[2] || m[4]];
      } else if (x.t === "OP" && x.v === "(" && !calls(toks[k - 1]) && toks[k + 1] && toks[k + 1].t === "NUM" && /^[12]$/.test(toks[k + 1].v) &&
                 isOp(toks[k + 2], ",") && toks[k + 3] && toks[k + 3].t === "NUM" && /^\d+$/.test(toks[k + 3].v)) {
        m = [null, toks[k + 1].v, toks[k + 3].v];
      }
      if (m) found[parseInt(m[1], 10) + "." + parseInt(m[2], 10)] = 1;
    });
    var keys = Object.keys(found);
    return keys.length === 1 ? keys[0] : null;
  }
  function isVersionName(n) {   // atlas_check.is_version_name
    var low = n.toLowerCase();
    // a torch-named constant that compares versions too: _TORCH_GREATER_EQUAL_2_4, TORCH_GE_2_14 (atlas_check._VERSION_WORD)
    return low === "version" || low === "__version__" || /^with_pt_?\d/.test(low) || (low.indexOf("torch") >= 0 && (low.indexOf("version") >= 0 ||
      /(?:^|_)(?:ge|gt|le|lt|greater|less|newer|older|at_least|before|after)(?:_|$)|\d_\d/.test(low)));
  }
  A.isGuardTest = function (toks, scope) {
    var self = this;
    return toks.some(function (x, i) {
      if (x.t !== "NAME") return false;
      if (GUARD_NAMES[x.v] === 1 && toks[i + 1] && toks[i + 1].v === "(" && (i === 0 || toks[i - 1].v !== ".")) {
        // a probe of torch itself (its first argument resolves to torch or a torch module), not of any object
        var close = matching(toks, i + 1), arg = splitTop(toks.slice(i + 2, close), ",")[0] || [];
        var args = splitTop(toks.slice(i + 2, close), ","), name = args[1] ? strGroup(args[1]) : null;
        var q = arg.length && isChain(arg) ? self.resolveChain(arg, scope) : null;
        if (q && (q === "torch" || q.indexOf("torch.") === 0)) return true;
        return !!(name && !name.f && typeof name.value === "string" && hasOwn(self.ix.words, name.value));
      }
      return isVersionName(x.v) || hasOwn(self.guardNames, x.v) || SIGNATURE_PROBES[x.v] === 1;
    });
  };
  // a decorator (its tokens after "@") that runs a test only on some releases (Analyzer.skips_by_release)
  A.skipsByRelease = function (toks, scope) {
    var p = toks.map(function (x) { return x.v; }).indexOf("(");
    if (p < 1 || toks[p - 1].t !== "NAME" || SKIP_DECORATORS[toks[p - 1].v] !== 1) return false;
    var first = splitTop(toks.slice(p + 1, matching(toks, p)), ",")[0] || [];
    return first.length > 0 && this.isGuardTest(first, scope);
  };
  A.lookup = function (name, scope, shadow) {
    if (shadow && shadow[name]) return null;
    for (var s = scope; s; s = s.parent) if (hasOwn(s.names, name)) return s.names[name];
    for (s = scope; s; s = s.parent) {
      for (var i = 0; i < s.stars.length; i++) { var c = s.stars[i] + "." + name; if (this.ix.prefixes[c]) return c; }
    }
    return BUILTINS[name] ? "builtins." + name : null;
  };
  A.bind = function (scope, name, qual, imported, valueToks, origin) {
    var isNone = valueToks && valueToks.length === 1 && valueToks[0].t === "NAME" && valueToks[0].v === "None";
    if (scope.imported[name] && !imported && (this.inExcept || isNone)) return;
    if (imported && this.inExcept && scope.imported[name]) return;
    scope.names[name] = qual;
    if (origin) scope.origins[name] = origin; else delete scope.origins[name];   // the import that bound it (fixCode)
    delete scope.kwdicts[name];
    delete scope.ints[name];
    if (imported) scope.imported[name] = 1; else delete scope.imported[name];
  };
  A.dictKeys = function (toks, scope) {   // [[key, tok]] for {"k": v, ...} or dict(k=v, ...); else null
    var self = this;
    if (!toks.length) return null;
    if (toks[0].v === "{" && matching(toks, 0) === toks.length - 1) {
      var items = splitTop(toks.slice(1, -1), ",").filter(function (a) { return a.length; }), out = [];
      for (var i = 0; i < items.length; i++) {
        var it = items[i], colon = topIndex(it, function (x) { return x.t === "OP" && x.v === ":"; });
        var g = colon === 1 ? strGroup(it.slice(0, 1)) : null;
        if (!g || g.f || g.bytes) return null;
        out.push([g.value, it[0]]);
      }
      return out;
    }
    if (toks.length >= 3 && toks[0].t === "NAME" && toks[1].v === "(" && matching(toks, 1) === toks.length - 1 &&
        self.lookup(toks[0].v, scope) === "builtins.dict") {
      var args = this.parseArgs(toks.slice(2, -1));
      if (!args.every(function (a) { return a.kind === "kw"; })) return null;
      return args.map(function (a) { return [a.name, a.tok]; });
    }
    return null;
  };
  A.kwdict = function (name, scope) {
    for (var s = scope; s; s = s.parent) if (hasOwn(s.names, name)) return hasOwn(s.kwdicts, name) ? s.kwdicts[name] : null;
    return null;
  };
  A.funcParent = function (scope) { while (scope.kind === "class") scope = scope.parent; return scope; };
  A.checkName = function (q, tok, where) {
    var self = this;
    this.ix.name.forEach(function (x) {
      if ((q === x[0] || q.indexOf(x[0] + ".") === 0) && self.emit(x[1], tok, x[0])) self.site(x[1], x[0], where);
    });
  };
  // fixCode: where a finding of a rule with rewrites is (Analyzer.site): an import statement, a
  // name or attribute chain (with the call it is the function of), or a call
  A.site = function (rule, api, where) {
    if (!this.fixing || !rule.rewrites || !where) return;
    if (typeof where === "function") where = where();
    var s = { finding: this.findings[this.findings.length - 1], rule: rule, api: api, guard: this.findings[this.findings.length - 1][4], fstring: this.inF > 0 };
    for (var k in where) if (hasOwn(where, k)) s[k] = where[k];
    this.sites.push(s);
  };
  A.origin = function (name, scope) {   // Analyzer.origin: the import that bound name where it resolves
    for (var s = scope; s; s = s.parent) if (hasOwn(s.names, name)) return hasOwn(s.origins, name) ? s.origins[name] : null;
    return null;
  };
  // a chain toks[i..e] as a site: its resolved prefixes (longest first), what bound its root, the call it is the function of
  A.chainWhere = function (toks, i, e, scope, sh, q, callOpen) {
    var self = this;
    return function () {
      for (var w = 1; callOpen < 0 && i - w >= 0 && toks[i - w].v === "(" && toks[e + w] && toks[e + w].v === ")" && matching(toks, i - w) === e + w; w++) {
        if (toks[e + w + 1] && toks[e + w + 1].v === "(") callOpen = e + w + 1;   // (torch.qr)(a): still the call's function
      }
      var deco = i === 1 && toks[0].t === "OP" && toks[0].v === "@" && e === toks.length - 1;   // a bare decorator
      return self.chainSite(toks, i, e, scope, sh, q, callOpen >= 0 ? callInfo(toks, callOpen, toks[e].end) : null, deco);
    };
  };
  A.chainSite = function (toks, i, e, scope, sh, q, call, deco) {
    var prefixes = [];
    for (var k = e - 2; k >= i; k -= 2) prefixes.push({ end: toks[k].end, q: this.resolveChain(toks.slice(i, k + 1), scope, sh[i]) });
    return { kind: e > i ? "attr" : "name", start: toks[i].at, end: toks[e].end, prefixes: prefixes,
      origin: this.origin(toks[i].v, scope), q: q, call: call, deco: !!deco, torch: this.lookup("torch", scope, sh[i]) === "torch" };
  };
  A.resolveChain = function (toks, scope, shadow) {
    var q = this.lookup(toks[0].v, scope, shadow);
    if (!q) return null;
    for (var i = 2; i < toks.length; i += 2) q += "." + toks[i].v;
    return q;
  };

  // shadows of lambdas and comprehensions inside one statement: token index -> {name: 1}
  A.shadows = function (toks) {
    var at = new Array(toks.length);
    function mark(from, to, names) {
      for (var i = from; i < to; i++) { var o = at[i] = Object.assign({}, at[i] || {}); names.forEach(function (n) { o[n] = 1; }); }
    }
    for (var i = 0; i < toks.length; i++) {
      var t = toks[i];
      if (t.t === "NAME" && t.v === "lambda") {
        var names = [], j = i + 1, d = 0;
        for (; j < toks.length; j++) {
          var v = toks[j].v;
          if (toks[j].t === "OP" && (v === "(" || v === "[" || v === "{")) d++;
          else if (toks[j].t === "OP" && (v === ")" || v === "]" || v === "}")) d--;
          else if (d === 0 && v === ":") break;
          if (toks[j].t === "NAME" && d === 0 && (j === i + 1 || toks[j - 1].v === "," || toks[j - 1].v === "*" || toks[j - 1].v === "**")) names.push(v);
        }
        var end = j + 1; d = 0;
        for (; end < toks.length; end++) {
          var u = toks[end].t === "OP" ? toks[end].v : "";
          if (u === "(" || u === "[" || u === "{") d++;
          else if (u === ")" || u === "]" || u === "}") { if (d === 0) break; d--; }
          else if (u === "," && d === 0) break;
        }
        mark(j + 1, end, names);
      }
      if (t.t === "OP" && (t.v === "(" || t.v === "[" || t.v === "{")) {
        var close = matching(toks, i), dd = 0, found = [];
        for (var k = i + 1; k < close; k++) {
          var w = toks[k].t === "OP" ? toks[k].v : "";
          if (w === "(" || w === "[" || w === "{") dd++;
          else if (w === ")" || w === "]" || w === "}") dd--;
          else if (dd === 0 && toks[k].t === "NAME" && toks[k].v === "for") {
            for (var m = k + 1; m < close && !(toks[m].t === "NAME" && toks[m].v === "in"); m++) if (toks[m].t === "NAME") found.push(toks[m].v);
          }
        }
        if (found.length) mark(i + 1, close, found);
      }
    }
    return at;
  };

  A.valueState = function (toks) {
    if (!toks.length) return ["dynamic", null];
    var g = strGroup(toks);
    if (g) return g.f ? ["dynamic", null] : ["literal", g.bytes ? null : g.value];
    if (toks.length === 1) {
      var t = toks[0];
      if (t.t === "NAME" && t.v === "None") return ["missing", null];
      if (t.t === "NUM" || (t.t === "NAME" && (t.v === "True" || t.v === "False")) || (t.t === "OP" && t.v === "...")) return ["literal", null];
    }
    if (toks.length === 2 && ((toks[0].t === "OP" && /^[-+~]$/.test(toks[0].v)) || toks[0].v === "not") &&
        (toks[1].t === "NUM" || (toks[1].t === "NAME" && /^(True|False|None)$/.test(toks[1].v)))) return ["literal", null];
    return ["dynamic", null];
  };
  A.parseArgs = function (toks) {   // toks between the call's brackets
    var self = this;
    return splitTop(toks, ",").filter(function (a) { return a.length; }).map(function (a) {
      if (a[0].t === "OP" && a[0].v === "**") return { kind: "kwstar", value: a.slice(1) };
      if (a[0].t === "OP" && a[0].v === "*") return { kind: "star", value: a.slice(1) };
      if (a.length > 1 && a[0].t === "NAME" && a[1].t === "OP" && a[1].v === "=") return { kind: "kw", name: a[0].v, tok: a[0], value: a.slice(2) };
      return { kind: "pos", value: a };
    });
  };
  A.argState = function (args, keyword, position, scope) {
    for (var i = 0; i < args.length; i++) if (args[i].kind === "kw" && args[i].name === keyword) return this.valueState(args[i].value);
    var starred = false, p = 0;
    for (i = 0; i < args.length; i++) {
      if (args[i].kind === "star") { starred = position !== null && position !== undefined; break; }   // keyword-only: by name
      if (args[i].kind !== "pos") continue;
      if (position !== null && position !== undefined && p === position) return this.valueState(args[i].value);
      p++;
    }
    var self = this, stars = args.filter(function (a) { return a.kind === "kwstar"; });
    if (starred || stars.length) {   // may pass it or not, unless a dict literal here names it (Analyzer.arg_state)
      var keys = stars.map(function (a) { return a.value.length === 1 && a.value[0].t === "NAME" && scope ? self.kwdict(a.value[0].v, scope) : null; });
      if (!starred && keys.every(function (k) { return k; }) && keys.some(function (k) { return k.some(function (x) { return x[0] === keyword; }); })) return ["dynamic", null];
      return ["unknown", null];
    }
    return ["missing", null];
  };
  function condOk(st, c) {   // torch lower-cases backend names
    var when = c.when;
    return (when.indexOf(st[0]) >= 0 && st[0] !== "literal") || (st[0] === "literal" && (when.indexOf("literal") >= 0 ||
      (when.indexOf("value") >= 0 && st[1] !== null && valueMatch(c.keyword === "backend" ? st[1].toLowerCase() : st[1], c.value, true))));
  }
  A.argsMatch = function (args, conds, scope) {
    for (var i = 0; i < conds.length; i++) if (!condOk(this.argState(args, conds[i].keyword, conds[i].position, scope), conds[i])) return false;
    return true;
  };

  // one expression (token run) in a scope
  // a conditional expression whose test is a guard (new_form if TORCH_GE_2_4 else old_form): its
  // tokens, test and both branches, are marked guarded (the IfExp branch of Analyzer.expr)
  A.markIfGuards = function (toks, scope) {
    var STOP = { ",": 1, "(": 1, "[": 1, "{": 1, "=": 1, ":": 1, ":=": 1, ")": 1, "]": 1, "}": 1 };
    for (var i = 1; i < toks.length; i++) {
      if (toks[i].t !== "NAME" || toks[i].v !== "if") continue;
      var d = 0, j = -1;
      for (var k = i + 1; k < toks.length; k++) {
        var v = toks[k].t === "OP" ? toks[k].v : "";
        if (v === "(" || v === "[" || v === "{") d++;
        else if (v === ")" || v === "]" || v === "}") { if (!d) break; d--; }
        else if (!d && v === ",") break;
        if (!d && toks[k].t === "NAME" && toks[k].v === "else") { j = k; break; }
      }
      if (j < 0 || !this.isGuardTest(toks.slice(i + 1, j), scope)) continue;
      var a = i, e = j;
      for (d = 0; a > 0; a--) {
        var p = toks[a - 1].t === "OP" ? toks[a - 1].v : toks[a - 1].v === "return" || toks[a - 1].v === "lambda" ? "," : "";
        if (p === ")" || p === "]" || p === "}") d++;
        else if ((p === "(" || p === "[" || p === "{") && d) d--;
        else if (!d && STOP[p]) break;
      }
      for (d = 0; e + 1 < toks.length; e++) {
        var q = toks[e + 1].t === "OP" ? toks[e + 1].v : "";
        if (q === "(" || q === "[" || q === "{") d++;
        else if ((q === ")" || q === "]" || q === "}") && d) d--;
        else if (!d && ((STOP[q] && q !== "=" && q !== ":") || (toks[e + 1].t === "NAME" && toks[e + 1].v === "for"))) break;
      }
      var br = this.branches(toks.slice(i + 1, j), scope);   // as an if's branches, with both arms a fallback
      if (br[2] === null && br[3] === null) br[1] = 1;
      for (k = a; k <= e; k++) {
        var part = k < i ? 0 : k > j ? 1 : -1;   // the body, the else arm, the test
        if (part < 0 || br[part]) toks[k].ifGuard = true;
        else if (br[part + 2]) toks[k].ifNewer = br[part + 2];
      }
    }
  };
  A.expr = function (toks, scope, shadowAt, base) {
    var ix = this.ix, self = this;
    base = base || 0;
    this.markIfGuards(toks, scope);
    var sh = shadowAt || this.shadows(toks);
    for (var c = 0; c < toks.length; c++) {   // class tests by type (chains below step over these names)
      if (toks[c].t === "NAME" && (toks[c].v === "type" || toks[c].v === "__class__")) this.compare(toks, c, scope, sh);
    }
    for (var i = 0; i < toks.length; i++) {
      var t = toks[i];
      if (t.t === "STR") {
        var j = i; while (j + 1 < toks.length && toks[j + 1].t === "STR") j++;
        var g = strGroup(toks.slice(i, j + 1));
        if (g.f) { this.fstring(toks.slice(i, j + 1), scope, sh[i]); i = j; continue; }
        if (!g.bytes && !t.doc) {
          ix.strings.forEach(function (r) { if (valueMatch(g.value, r.target, r.split)) self.emit(r, t, r.target); });
          ix.env.forEach(function (r) { if (envMatch(g.value, r.target)) self.emit(r, t, r.target); });
          // {"acc_policy": "balanced"}: options kept in a dict for f(**options)
          if (ix.keyword[g.value] && toks[j + 1] && toks[j + 1].v === ":" && enclosing(toks, i) === "{" &&
              (i === 0 || toks[i - 1].v === "{" || toks[i - 1].v === ",")) {
            var k = j + 2, e = k; while (e < toks.length && toks[e].t === "STR") e++;
            var gv = e > k && (e === toks.length || toks[e].v === "," || toks[e].v === "}") ? strGroup(toks.slice(k, e)) : null;
            if (gv && !gv.f && !gv.bytes) ix.keyword[g.value].forEach(function (r) { if (kwEq(gv.value, r)) self.emit(r, t, r.target + "=\"" + r.value + "\""); });
          }
        }
        i = j; continue;
      }
      if (t.t === "OP" && t.v === "(" && i > 0 && toks[i - 1].t === "OP" && (toks[i - 1].v === ")" || toks[i - 1].v === "]")) {
        this.callAt(toks, i, null, null, scope, sh);   // a call of a call's result: f(x)(use_cuda=True)
        continue;
      }
      if (t.t === "OP" && t.v === "." && toks[i + 1] && toks[i + 1].t === "NAME") {   // an attribute of an expression
        var at = toks[i + 1];
        (ix.key[at.v] || []).forEach(function (r) { self.emit(r, at, r.target); });
        if (toks[i + 2] && toks[i + 2].v === "(" && ix.method[at.v]) {
          ix.method[at.v].forEach(function (r) { if (!(r.grad_only && self.isIntEnd(toks, i - 1, scope))) self.emit(r, at, "." + at.v + "()"); });
        }
        if (toks[i + 2] && toks[i + 2].v === "(") this.callAt(toks, i + 2, null, null, scope, sh, at.v);
        i++; continue;
      }
      if (t.t === "NAME" && !KW[t.v] && !(i > 0 && toks[i - 1].t === "OP" && toks[i - 1].v === ".")) {
        var e = i; while (e + 2 < toks.length && toks[e + 1].v === "." && toks[e + 1].t === "OP" && toks[e + 2].t === "NAME") e += 2;
        var chain = toks.slice(i, e + 1);
        if (toks[i + 1] && toks[i + 1].t === "OP" && toks[i + 1].v === "=" || (toks[i + 1] && toks[i + 1].v === ":=")) {
          // a keyword argument's name or a walrus target: not a reference
          if (toks[i + 1].v === ":=") this.bind(this.funcParent(scope), t.v, null, false, null);
          continue;
        }
        var q = this.resolveChain(chain, scope, sh[i]);
        var callOpen = toks[e + 1] && toks[e + 1].t === "OP" && toks[e + 1].v === "(" ? e + 1 : -1;
        if (q && ix.name.length) this.checkName(q, t, this.fixing && this.chainWhere(toks, i, e, scope, sh, q, callOpen));
        for (var k = 2; k < chain.length; k += 2) (ix.key[chain[k].v] || []).forEach(function (r) { self.emit(r, chain[k], r.target); });
        if (callOpen >= 0) {
          var last = chain[chain.length - 1];
          if (chain.length > 1 && ix.method[last.v]) {
            var rq = this.resolveChain(chain.slice(0, -2), scope, sh[i]);
            var recvChain = chain.slice(0, -2);
            if (rq === null) ix.method[last.v].forEach(function (r) { if (!(r.grad_only && self.isInt(recvChain, scope))) self.emit(r, last, "." + last.v + "()"); });
          }
          this.callAt(toks, callOpen, q, chain, scope, sh, chain.length > 1 ? last.v : null);
        } else if (q && i === 1 && toks[0].t === "OP" && toks[0].v === "@" && e === toks.length - 1) {
          // @torch.jit.script without parentheses calls its target with the function
          (ix.call[q] || []).forEach(function (r) { if (!(r.args || []).length) self.emit(r, t, q); });
        }
        i = e; continue;
      }
    }
  };

  // the fields of an f-string (a run of adjacent strings with an f-string): code, found at its first token
  A.fstring = function (group, scope, shadow) {
    var self = this, ix = this.ix, at = group[0], parts = fstringParts(group);
    var fields = parts.filter(function (p) { return p[0] === "expr"; }).length;
    parts.forEach(function (p) {
      if (p[0] === "text") {
        if (at.doc) return;
        if (!fields) ix.strings.forEach(function (r) { if (valueMatch(p[1], r.target, r.split)) self.emit(r, at, r.target); });
        ix.env.forEach(function (r) { if (envMatch(p[1], r.target)) self.emit(r, at, r.target); });
        return;
      }
      var sub;
      try { sub = tokenize("(" + p[1] + "\n)"); } catch (e) { return; }
      if (sub.length !== 1) return;
      sub = sub[0].toks.slice(1, -1);
      sub.forEach(function (x) { x.line = at.line; x.col = at.col; });
      var inner = self.shadows(sub).map(function (o) { return Object.assign({}, shadow || {}, o || {}); });
      for (var k = 0; k < sub.length; k++) if (!inner[k]) inner[k] = shadow || undefined;
      self.inF++;
      try { self.expr(sub, scope, inner); } finally { self.inF--; }
    });
  };

  // type(x).__name__ == "C", x.__class__.__name__ in ("C", ...), type(x) is C, x.__class__ == C: class tests
  var OPEN_BOUND = { "(": 1, "[": 1, "{": 1, ",": 1, "=": 1, ":": 1, ";": 1, and: 1, or: 1, not: 1, "if": 1, elif: 1, "while": 1, "else": 1, "return": 1, assert: 1, lambda: 1 };
  var CLOSE_BOUND = { ")": 1, "]": 1, "}": 1, ",": 1, ":": 1, ";": 1, and: 1, or: 1, "if": 1, "else": 1, "for": 1 };
  function bounded(tok, table) { return !tok || (table[tok.v] === 1 && (tok.t === "OP" || tok.t === "NAME")); }
  function operandStart(toks, i) {   // the first token of the primary ending at toks[i] (NAME, .NAME, calls, subscripts)
    for (;;) {
      var t = toks[i];
      if (t.t === "OP" && (t.v === ")" || t.v === "]")) {
        var d = 0, k = i;
        for (; k >= 0; k--) { var v = toks[k].t === "OP" ? toks[k].v : ""; if (v === ")" || v === "]") d++; else if (v === "(" || v === "[") { d--; if (!d) break; } }
        if (k <= 0) return k;
        i = k - 1;
        if (!(toks[i].t === "NAME" || (toks[i].t === "OP" && (toks[i].v === ")" || toks[i].v === "]")))) return k;
        continue;
      }
      if (t.t !== "NAME" && t.t !== "STR") return i;
      if (i >= 2 && toks[i - 1].t === "OP" && toks[i - 1].v === ".") { i -= 2; continue; }
      return i;
    }
  }
  A.compare = function (toks, i, scope, sh) {
    var ix = this.ix, self = this, t = toks[i], end, start;
    if (!Object.keys(ix.isinst).length) return;
    if (t.v === "type") {
      if (i > 0 && toks[i - 1].v === "." || this.lookup("type", scope, sh[i]) !== "builtins.type" || !toks[i + 1] || toks[i + 1].v !== "(") return;
      end = matching(toks, i + 1);
      var a = this.parseArgs(toks.slice(i + 2, end));
      if (a.length !== 1 || a[0].kind !== "pos") return;
      start = i;
    } else {
      if (!(i >= 2 && toks[i - 1].t === "OP" && toks[i - 1].v === ".")) return;
      end = i; start = operandStart(toks, i - 2);
    }
    var n = end + 1, named = false;
    if (toks[n] && toks[n].v === "." && toks[n + 1] && (toks[n + 1].v === "__name__" || toks[n + 1].v === "__qualname__")) { named = true; n += 2; }
    if (!bounded(toks[start - 1], OPEN_BOUND) || !toks[n]) return;
    var op = toks[n].v, nx = toks[n + 1];
    if (op === "not" && nx && nx.v === "in") { op = "not in"; n++; }
    else if (op === "is" && nx && nx.v === "not") { op = "is not"; n++; }
    var r0 = n + 1, r1;
    if (named) {
      if (!/^(==|!=|in|not in)$/.test(op)) return;
      if (!toks[r0]) return;
      var items = [];
      if (toks[r0].t === "STR") { r1 = r0; while (toks[r1 + 1] && toks[r1 + 1].t === "STR") r1++; items = [toks.slice(r0, r1 + 1)]; }
      else if (/^[([{]$/.test(toks[r0].v)) { r1 = matching(toks, r0); items = splitTop(toks.slice(r0 + 1, r1), ",").filter(function (x) { return x.length; }); }
      else return;
      if (!bounded(toks[r1 + 1], CLOSE_BOUND)) return;
      items.forEach(function (it) {
        var g = strGroup(it);
        if (!g || g.f || g.bytes) return;
        Object.keys(ix.isinst).forEach(function (cq) {
          if (cq.split(".").pop() === g.value) ix.isinst[cq].forEach(function (r) { self.emit(r, it[0], cq); });
        });
      });
      return;
    }
    if (!/^(is|is not|==|!=)$/.test(op)) return;
    r1 = r0; while (r1 + 2 < toks.length && toks[r1 + 1].v === "." && toks[r1 + 2].t === "NAME") r1 += 2;
    var chain = toks.slice(r0, r1 + 1);
    if (!isChain(chain) || !bounded(toks[r1 + 1], CLOSE_BOUND)) return;
    var cq = this.resolveChain(chain, scope, sh[r0]);
    (ix.isinst[cq] || []).forEach(function (r) { self.emit(r, chain[0], cq); });
  };

  // ------------------------------------------------------------------------ what a load's value is used as
  // (Analyzer.load_flow of the Python engine, on the statement tokens): a rule with `into` (torch.load) is no
  // finding when the value goes only into those methods (load_state_dict) or is read as tensors and plain
  // values; "breaks" when a use reads it as an object (an attribute, a call); "review" when it leaves the
  // function or the code does not show what it holds. A name bound to it is followed through the
  // statements after it in its function (and one more name bound to a value read from it).
  var DICT_METHODS = set1("items keys values get pop copy update setdefault"), READS = set1("get pop");
  var TENSOR_ATTRS = set1("shape size numel dim ndim dtype item tolist numpy view reshape squeeze unsqueeze permute " +
    "transpose T detach clone contiguous copy_ long int bool sum mean norm abs data is_floating_point new_tensor new_zeros");
  var SHARED_ATTRS = set1("to cuda cpu float half double bfloat16 type requires_grad_ share_memory");
  var PLAIN_FUNCS = set1("len isinstance print sorted list dict set str repr type bool int float");
  // the tokens around a plain read: a comparison, arithmetic, a truth test, a loop's iterable
  var PLAIN_BEFORE = set1("in is not and or if elif while assert del == != < > <= >= + - * / // % ** @ ~ | & ^ << >> " +
    "+= -= *= /= //= %= **= @= |= &= ^= <<= >>=");
  var PLAIN_AFTER = set1("in is not and or == != < > <= >= + - * / // % ** @ | & ^ << >>");
  function set1(words) { var o = dict(); words.split(" ").forEach(function (w) { o[w] = 1; }); return o; }
  function attrUse(attr, line) {   // [kind, why] of reading attr of a loaded value (atlas_check.attr_use)
    if (DICT_METHODS[attr] === 1 || TENSOR_ATTRS[attr] === 1) return ["plain", null];
    if (SHARED_ATTRS[attr] === 1) return ["leaves", msg("check.load.shared", { line: line, attr: attr })];
    return ["object", msg("check.load.object_attr", { line: line, attr: attr })];
  }
  function isOp(tok, v) { return !!tok && tok.t === "OP" && tok.v === v; }
  function opens(toks, i) {   // index of the bracket that encloses toks[i], or -1
    for (var k = i - 1, depth = 0; k >= 0; k--) {
      var v = toks[k].t === "OP" ? toks[k].v : null;
      if (v === ")" || v === "]" || v === "}") depth++;
      else if (v === "(" || v === "[" || v === "{") { if (depth === 0) return k; depth--; }
    }
    return -1;
  }
  function calls(tok) {   // a token after which "(" opens a call's arguments
    return !!tok && ((tok.t === "NAME" && !KW[tok.v]) || isOp(tok, ")") || isOp(tok, "]") || tok.t === "STR");
  }
  function isDef(toks) {
    var f = toks[0] && toks[0].t === "NAME" ? toks[0].v : null;
    return f === "def" || f === "class" || (f === "async" && toks[1] && toks[1].v === "def");
  }
  // the statements in source order, each with the end of the function it is in (the flat index after it)
  A.flatten = function () {
    var flat = [];
    (function walk(nodes, fn) {
      nodes.forEach(function (n) {
        flat.push({ node: n, fn: fn });
        n._k = flat.length - 1;
        if (!n.body) return;
        var own = n.toks[0] && (n.toks[0].v === "def" || (n.toks[0].v === "async" && n.toks[1] && n.toks[1].v === "def")) ? { start: n._k, end: 0 } : fn;
        walk(n.body, own);
        if (own !== fn) own.end = flat.length;
      });
    })(this.tree || [], null);
    this.flat = flat;
  };
  A.loadFlow = function (start, closeTok, rule) {
    var S = this.cur ? this.cur.toks : [], i0 = S.indexOf(start), j = S.indexOf(closeTok);
    if (this.flat === null) this.flatten();
    if (i0 < 0 || j < 0 || this.cur._k === undefined) return ["review", msg("check.load.leaves", { line: start.line })];
    var use = decide([this.useOf(this.cur._k, i0, j + 1, rule, null, 0)]);
    var got = [use[0] === "object" ? "breaks" : use[0] === "leaves" ? "review" : null, use[1] || msg("check.load.plain")];
    if (got[0] === null || !this.allows(rule, this.flat[this.cur._k].fn)) return got;   // a file that allowlists (Analyzer.load_flow)
    return got[0] === "breaks" ? ["review", msg("check.load.allowlisted_object", { why: got[1] })] : [null, msg("check.load.allowlisted")];
  };
  // Analyzer.allows: the load's function (fn, from flatten), or the module's top level, calls one of the rule's allowed_by
  A.allows = function (rule, fn) {
    var names = (rule.allowed_by || []).map(function (a) { return escapeRe(a.split(".").pop()); });
    if (!names.length) return false;
    var lines = this.text.replace(/\r\n?/g, "\n").split("\n"), own = [];
    if (fn) {
      var last = this.flat[fn.end - 1].node.toks;
      own = lines.slice(this.flat[fn.start].node.toks[0].line - 1, last[last.length - 1].line);
    }
    var top = lines.filter(function (l) { return /^\S/.test(l); });
    return new RegExp("(?<![\\w.])(?:[\\w.]+\\.)?(?:" + names.join("|") + ")\\s*\\(").test(own.concat(top).join("\n"));
  };
  // the use that decides what a loaded value is, as [kind, why] (atlas_check.decide)
  function decide(uses) {
    var kinds = ["object", "leaves"];
    for (var a = 0; a < kinds.length; a++) {
      for (var b = 0; b < uses.length; b++) if (uses[b][0] === kinds[a]) return uses[b];
    }
    if (!uses.length) return ["leaves", msg("check.load.unused")];
    return uses.filter(function (u) { return u[0] === "state"; })[0] || ["plain", null];
  }
  // [kind, why] of one use: statement k's tokens S[i0..j) are the loaded call (name null) or a name that holds its value
  A.useOf = function (k, i0, j, rule, name, depth) {
    var S = this.flat[k].node.toks, line = S[i0].line;
    if (S[i0].t === "STR") return fieldUse(S[i0], name, line);   // f"{ckpt['step']}", f"{ckpt.epoch}"
    for (;;) {   // the postfix reads: ckpt["model"], ckpt.get("args"), ckpt["args"].lr, model.eval()
      if (isOp(S[j], "[")) {
        j = matching(S, j) + 1;
        if (S[j] && S[j].t === "OP" && /^(=|[-+*\/%@|&^]=|\/\/=|\*\*=|<<=|>>=)$/.test(S[j].v)) return ["plain", null];   // ckpt["step"] = 3
        continue;
      }
      if (isOp(S[j], ".") && S[j + 1] && S[j + 1].t === "NAME") {
        var a = S[j + 1].v;
        if (READS[a] === 1 && isOp(S[j + 2], "(")) { j = matching(S, j + 2) + 1; continue; }
        return attrUse(a, S[j + 1].line);
      }
      if (isOp(S[j], "(")) return ["object", msg("check.load.object_call", { line: line })];
      break;
    }
    // parentheses around the value that only group it
    while (i0 > 0 && isOp(S[i0 - 1], "(") && isOp(S[j], ")") && matching(S, i0 - 1) === j && !calls(S[i0 - 2])) { i0--; j++; }
    var before = i0 > 0 ? S[i0 - 1] : null, after = S[j] || null, bv = before ? before.v : null, av = after ? after.v : null;
    var item = (before && before.t === "OP" && (bv === "(" || bv === ",")) && (after && after.t === "OP" && (av === ")" || av === ","));
    var o = opens(S, i0);
    var kw = isOp(before, "=") && S[i0 - 2] && S[i0 - 2].t === "NAME" && (isOp(S[i0 - 3], "(") || isOp(S[i0 - 3], ",")) &&
      after && after.t === "OP" && (av === ")" || av === ",");
    // the call it is an argument of: f(ckpt), f(state=ckpt)
    var owner = (item || kw) && o >= 0 && isOp(S[o], "(") && S[o - 1] && S[o - 1].t === "NAME" ? S[o - 1].v : null;
    if (owner && isOp(S[o - 2], ".") && (rule.into || []).indexOf(owner) >= 0) {
      return ["state", msg("check.load.state", { line: line, method: owner })];   // m.load_state_dict(sd)
    }
    if (before && before.t === "NAME" && (bv === "if" || bv === "in")) return ["plain", null];   // a test, an iterable
    if ((after && after.t === "NAME" && av === "if") || (before && before.t === "NAME" && bv === "else")) {   // x if c else ckpt
      if (name && o < 0 && S.length > 2 && S[0].v === name && isOp(S[1], "=")) return ["plain", null];
      return ["leaves", msg("check.load.leaves", { line: line })];
    }
    if (i0 === 2 && j === S.length && S[0].t === "NAME" && !KW[S[0].v] && isOp(S[1], "=")) {
      var target = S[0].v;
      if (target === name) return ["plain", null];   // state = state["state_dict"]: its uses are followed already
      var self = this;
      if (depth < 2) return decide(this.usesOf(target, k).map(function (u) { return self.useOf(u[0], u[1], u[1] + 1, rule, target, depth + 1); }));
      return ["leaves", msg("check.load.leaves", { line: line })];
    }
    if (name === null && i0 === 0 && j === S.length) return ["leaves", msg("check.load.leaves", { line: line })];   // torch.load(p) on its own
    var star = (bv === "*" || bv === "**") && !(S[i0 - 2] && (S[i0 - 2].t === "NAME" && !KW[S[i0 - 2].v] || S[i0 - 2].t === "STR" ||
      S[i0 - 2].t === "NUM" || isOp(S[i0 - 2], ")") || isOp(S[i0 - 2], "]") || isOp(S[i0 - 2], "}")));
    if ((before && PLAIN_BEFORE[bv] === 1 && (before.t === "OP" || before.t === "NAME") && !star) ||
        (after && PLAIN_AFTER[av] === 1 && (after.t === "OP" || after.t === "NAME")) || (i0 === 0 && j === S.length)) {
      return ["plain", null];
    }
    if (item && o >= 0 && isOp(S[o], "(") && S[o - 1] && S[o - 1].t === "NAME" && PLAIN_FUNCS[S[o - 1].v] === 1 &&
        !isOp(S[o - 2], ".") && !star) {
      return ["plain", null];
    }
    if (i0 === 1 && j === S.length && S[0].t === "NAME" && S[0].v === "return") return ["leaves", msg("check.load.returned", { line: line })];
    if (owner && !KW[owner]) return ["leaves", msg("check.load.passed", { line: line, func: owner })];
    return ["leaves", msg("check.load.leaves", { line: line })];
  };
  // [kind, why] of an f-string's reads of `name` (Analyzer.field_use): a whole field or a subscript is plain, an
  // attribute is read as in useOf, a call reads an object, anything else leaves
  function fieldUse(tok, name, line) {
    var word = new RegExp("(?<![\\w.])" + escapeRe(name) + "(?!\\w)", "g"), kinds = [];
    fstringParts([tok]).forEach(function (p) {
      if (p[0] !== "expr") return;
      // a field's code, its string literals blanked: f"{ckpt['global_step']}" reads ckpt, not global_step
      var src = p[1].replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, function (q) { return q[0] + " ".repeat(q.length - 2) + q[0]; }), m;
      word.lastIndex = 0;
      while ((m = word.exec(src)) !== null) {
        var rest = src.slice(m.index + name.length), a = /^\s*\.\s*([A-Za-z_]\w*)/.exec(rest);
        if (/^\s*\[/.test(rest) || (/^\s*=?\s*$/.test(rest) && !src.slice(0, m.index).trim())) kinds.push(["plain", null]);
        else if (a) kinds.push(attrUse(a[1], line));
        else if (/^\s*\(/.test(rest)) kinds.push(["object", msg("check.load.object_call", { line: line })]);
        else kinds.push(["leaves", msg("check.load.leaves", { line: line })]);
      }
    });
    return decide(kinds);
  }
  // [statement index, token index] of each read of `name` in the statements after statement k in its function
  A.usesOf = function (name, k) {
    var f = this.flat[k].fn, end = f ? f.end : this.flat.length, out = [];
    var word = new RegExp("(?<![\\w.])" + escapeRe(name) + "(?!\\w)");
    for (var m = k + 1; m < end; m++) {
      var S = this.flat[m].node.toks;
      if (isDef(S) || isOp(S[0], "@")) continue;   // a def's or class's header, a decorator
      var inn = S[0] && S[0].v === "for" ? topIndex(S, function (x) { return x.t === "NAME" && x.v === "in"; }) : -1;
      for (var i = 0; i < S.length; i++) {
        var t = S[i];
        if (t.t === "STR" && t.f && fstringParts([t]).some(function (x) { return x[0] === "expr" && word.test(x[1]); })) {
          out.push([m, i]);   // read inside an f-string's field: the code there is not followed (useOf: leaves)
          continue;
        }
        if (t.t !== "NAME" || t.v !== name || isOp(S[i - 1], ".") || isOp(S[i + 1], "=") || i < inn || (i === 0 && isOp(S[1], ":"))) continue;
        var p = i > 0 ? S[i - 1] : null;
        if (p && p.t === "NAME" && (p.v === "for" || p.v === "as" || p.v === "global" || p.v === "nonlocal" || p.v === "lambda")) continue;
        if (p && p.t === "NAME" && p.v === "del" && !(isOp(S[i + 1], "[") || isOp(S[i + 1], "."))) continue;
        out.push([m, i]);
      }
    }
    return out;
  };

  A.callAt = function (toks, open, q, chain, scope, sh, method) {
    var ix = this.ix, self = this;
    var close = matching(toks, open);
    var args = this.parseArgs(toks.slice(open + 1, close));
    var start = chain ? chain[0] : null;
    var message = (q && MESSAGE_CALLS[q]) || (method && MESSAGE_METHODS[method]);
    args.forEach(function (a) {   // a message's text is for a person (see DOC_KEYWORDS)
      if ((message && a.kind === "pos") || (a.kind === "kw" && DOC_KEYWORDS[a.name])) {
        var v = a.value;
        while (v.length >= 2 && v[0].v === "(" && matching(v, 0) === v.length - 1) v = v.slice(1, -1);
        if (v.length && v.every(function (x) { return x.t === "STR"; })) v[0].doc = 1;
      }
    });
    if (q) {
      if (SETTERS[q]) self.inits.push([SETTERS[q][0], self.argState(args, SETTERS[q][1], SETTERS[q][2], scope)]);
      var first = args[0] && args[0].kind === "pos" ? args[0].value : null;
      (ix.call[q] || []).forEach(function (r) {
        if (r.grad_only && first && self.isInt(first, scope)) return;   // torch.clamp(idx.long(), ...): no gradient to change
        var flow = null;
        var matched = self.argsMatch(args, r.args || [], scope);
        if (r.into && matched) {
          flow = self.loadFlow(start, toks[close], r);
          if (flow[0] === null) { self.cleared.push([start.line, start.col, r, flow[1]]); return; }   // model.load_state_dict(torch.load(p))
        }
        if (!matched || !self.emit(r, start, q, flow)) return;
        self.site(r, q, function () { return { kind: "call", start: start.at, call: callInfo(toks, open, toks[open - 1].end) }; });
        if (!INHERITS[q]) return;
        var c = (r.args || []).filter(function (x) { return x.keyword === INHERITS[q][0]; })[0];
        if (c && self.argState(args, c.keyword, c.position, scope)[0] === "missing") self.pending.push([self.findings.length - 1, r, q]);
      });
      (ix.param[q] || []).forEach(function (r) {
        args.forEach(function (a) {
          if (a.kind === "kw" && a.name === r.keyword) {
            if (self.emit(r, a.tok, q + "(" + r.keyword + "=)") && chain) {
              self.site(r, q, function () {
                return self.chainSite(toks, open - chain.length, open - 1, scope, sh, q, callInfo(toks, open, toks[open - 1].end), false);
              });
            }
          }
          else if (a.kind === "kwstar" && a.value.length === 1 && a.value[0].t === "NAME")   // f(**opts)
            (self.kwdict(a.value[0].v, scope) || []).forEach(function (k) { if (k[0] === r.keyword) self.emit(r, k[1], q + "(" + r.keyword + "=)"); });
        });
      });
      if ((q === "builtins.isinstance" || q === "builtins.issubclass") && args.length === 2 && args.every(function (a) { return a.kind === "pos"; })) {
        var cls = args[1].value, parts = [cls];
        if (cls.length && cls[0].v === "(" && matching(cls, 0) === cls.length - 1) parts = splitTop(cls.slice(1, -1), ",");
        parts.forEach(function (c) {
          if (!isChain(c)) return;
          var cq = self.resolveChain(c, scope, sh[toks.indexOf(c[0])]);
          (ix.isinst[cq] || []).forEach(function (r) { self.emit(r, c[0], cq); });
        });
      }
      if ((q === "importlib.reload" || q === "imp.reload") && args.length && args[0].kind === "pos" && isChain(args[0].value)) {
        var mq = this.resolveChain(args[0].value, scope, sh[toks.indexOf(args[0].value[0])]);
        ix.reload.forEach(function (r) { if (r.how === "reload" && mq === r.target) self.emit(r, start, "importlib.reload(" + r.target + ")"); });
      }
      if (q === "sys.modules.pop" && args.length && args[0].kind === "pos") {
        var g = strGroup(args[0].value);
        ix.reload.forEach(function (r) { if (r.how === "del" && g && !g.f && g.value === r.target) self.emit(r, start, "del sys.modules[\"" + r.target + "\"]"); });
      }
      if (q === "builtins.getattr" && args.length === 2 && args.every(function (a) { return a.kind === "pos"; }) && isChain(args[0].value)) {
        var s = strGroup(args[1].value);
        if (s && !s.f && !s.bytes) {
          var bq = this.resolveChain(args[0].value, scope, sh[toks.indexOf(args[0].value[0])]);
          if (bq) this.checkName(bq + "." + s.value, start, this.fixing && function () {   // the getattr call is the site
            return { kind: "call", start: start.at, call: callInfo(toks, open, toks[open - 1].end), q: null, origin: null, prefixes: [] };
          });
        }
      }
    }
    args.forEach(function (a) {
      if (a.kind !== "kw") return;
      (ix.keyword[a.name] || []).forEach(function (r) {
        var st = strGroup(a.value);
        if (st && !st.f && !st.bytes && kwEq(st.value, r)) self.emit(r, a.tok, r.target + "=\"" + r.value + "\"");
      });
      (ix.key[a.name] || []).forEach(function (r) { self.emit(r, a.tok, r.target); });
      ix.env.forEach(function (r) { if (a.name === r.target) self.emit(r, a.tok, r.target); });
    });
  };

  // names a statement list binds (for a function's locals), not inside nested functions or classes
  A.localNames = function (body, out, declared) {   // except the names declared global or nonlocal
    var self = this, top = !declared;
    declared = declared || {};
    body.forEach(function (node) {
      var t = node.toks, f = t[0];
      if (f.t === "NAME" && (f.v === "def" || f.v === "class" || (f.v === "async" && t[1] && t[1].v === "def"))) {
        var nm = f.v === "async" ? t[2] : t[1];
        if (nm) out[nm.v] = 1;
        return;
      }
      if (f.t === "NAME" && (f.v === "global" || f.v === "nonlocal")) {
        t.slice(1).forEach(function (x) { if (x.t === "NAME") declared[x.v] = 1; });
        return;
      }
      self.boundNames(t).forEach(function (n) { out[n] = 1; });
      if (node.body) self.localNames(node.body, out, declared);
    });
    if (top) Object.keys(declared).forEach(function (n) { delete out[n]; });
    return out;
  };
  function targetNames(toks) {   // the names a target list binds (a, (b, *c)); not attributes or subscripts
    var out = [];
    splitTop(toks, ",").forEach(function (p) {
      if (!p.length) return;
      if (p[0].v === "*") p = p.slice(1);
      if (p.length && (p[0].v === "(" || p[0].v === "[") && matching(p, 0) === p.length - 1) { out = out.concat(targetNames(p.slice(1, -1))); return; }
      if (p.length === 1 && p[0].t === "NAME") out.push(p[0].v);
    });
    return out;
  }
  A.boundNames = function (t) {
    var f = t[0], out = [];
    if (f.t !== "NAME") return out;
    if (f.v === "import") {
      splitTop(t.slice(1), ",").forEach(function (p) {
        var as = p.map(function (x) { return x.v; }).indexOf("as");
        out.push(as >= 0 ? p[as + 1].v : p[0].v);
      });
      return out;
    }
    if (f.v === "from") {
      var imp = t.map(function (x) { return x.v; }).indexOf("import"), names = t.slice(imp + 1);
      if (names[0] && names[0].v === "(") names = names.slice(1, -1);
      splitTop(names, ",").forEach(function (p) {
        if (!p.length || p[0].v === "*") return;
        out.push(p.length >= 3 && p[1].v === "as" ? p[2].v : p[0].v);
      });
      return out;
    }
    if (f.v === "for" || (f.v === "async" && t[1] && t[1].v === "for")) {
      var s = f.v === "async" ? 2 : 1, inn = topIndex(t, function (x) { return x.t === "NAME" && x.v === "in"; }, s);
      return targetNames(t.slice(s, inn < 0 ? t.length : inn));
    }
    if (f.v === "with" || (f.v === "async" && t[1] && t[1].v === "with")) {
      for (var i = 0; i < t.length - 1; i++) if (t[i].t === "NAME" && t[i].v === "as") {
        var e = i + 1, d = 0;
        for (; e < t.length; e++) { var v = t[e].v; if (v === "(" || v === "[") d++; else if (v === ")" || v === "]") d--; if (d < 0 || (d === 0 && v === ",")) break; }
        out = out.concat(targetNames(t.slice(i + 1, e)));
      }
      return out;
    }
    if (f.v === "except") {
      var a = t.map(function (x) { return x.v; }).lastIndexOf("as");
      return a >= 0 && t[a + 1] ? [t[a + 1].v] : [];
    }
    if (f.v === "del") return targetNames(t.slice(1));
    if (COMPOUND[f.v] || KW[f.v]) return this.walrusNames(t);
    var eqs = [], k = -1;
    while ((k = topIndex(t, function (x) { return x.t === "OP" && x.v === "="; }, k + 1)) >= 0) eqs.push(k);
    var aug = topIndex(t, function (x) { return x.t === "OP" && /^(\+|-|\*|\/|\/\/|%|\*\*|>>|<<|&|\||\^|@)=$/.test(x.v); });
    var ann = topIndex(t, function (x) { return x.t === "OP" && x.v === ":"; });
    if (ann > 0 && (!eqs.length || ann < eqs[0])) return (ann === 1 && t[0].t === "NAME") ? [t[0].v] : [];
    if (aug > 0) return targetNames(t.slice(0, aug));
    var start = 0;
    eqs.forEach(function (q) { out = out.concat(targetNames(t.slice(start, q))); start = q + 1; });
    return out.concat(this.walrusNames(t));
  };
  A.walrusNames = function (t) {
    var out = [];
    for (var i = 0; i + 1 < t.length; i++) if (t[i].t === "NAME" && t[i + 1].v === ":=") out.push(t[i].v);
    return out;
  };

  A.target = function (toks, scope, valueToks, assignValue) {
    var self = this;
    var parts = splitTop(toks, ",");
    if (parts.length > 1 || (toks[0] && toks[0].v === "*")) { parts.forEach(function (p) { if (p.length) self.target(p[0].v === "*" ? p.slice(1) : p, scope, null); }); return; }
    if (toks.length && (toks[0].v === "(" || toks[0].v === "[") && matching(toks, 0) === toks.length - 1) { this.target(toks.slice(1, -1), scope, null); return; }
    if (toks.length === 1 && toks[0].t === "NAME") {
      var q = valueToks && isChain(valueToks) ? this.resolveChain(valueToks, scope) : null;
      var isInt = valueToks && this.isInt(valueToks, scope);
      this.bind(scope, toks[0].v, q, false, valueToks);
      if (isInt) scope.ints[toks[0].v] = 1;
      return;
    }
    var n = toks.length;
    if (n >= 3 && toks[n - 2].v === "." && toks[n - 1].t === "NAME" && assignValue) {
      var g = strGroup(assignValue), at = toks[n - 1];
      if (g && !g.f && !g.bytes) (this.ix.keyword[at.v] || []).forEach(function (r) { if (kwEq(g.value, r)) self.emit(r, at, r.target + "=\"" + r.value + "\""); });
    }
    this.expr(toks, scope);
  };

  A.arguments = function (paramToks, scope) {   // defaults and annotations, evaluated where the def is
    var self = this, names = [];
    splitTop(paramToks, ",").forEach(function (p) {
      if (!p.length) return;
      var s = 0; while (s < p.length && (p[s].v === "*" || p[s].v === "**")) s++;
      if (p[s] && p[s].t === "NAME") names.push(p[s].v);
      var eq = topIndex(p, function (x) { return x.t === "OP" && x.v === "="; });
      var colon = topIndex(p, function (x) { return x.t === "OP" && x.v === ":"; });
      if (colon > 0) self.expr(p.slice(colon + 1, eq > 0 ? eq : p.length), scope);
      if (eq > 0) self.expr(p.slice(eq + 1), scope);
    });
    return names;
  };

  A.body = function (nodes, scope) {
    var after = 0;   // below an early exit taken on newer releases: the rest runs on older ones only (Analyzer.body)
    try {
      for (var i = 0; i < nodes.length; i++) {
        this.stmt(nodes, i, scope);
        if (this.exitsOnNew(nodes, i, scope)) { this.guard++; after++; }
      }
    } finally { this.guard -= after; }
  };
  // if <a version test true on newer releases>: ... return (or raise), with no elif/else (Analyzer.exits_on_new)
  A.exitsOnNew = function (nodes, i, scope) {
    var n = nodes[i], t = n.toks;
    if (t[0].t !== "NAME" || t[0].v !== "if" || !n.body || !n.body.length || clauses(nodes, i, ["elif", "else"]).length) return false;
    var last = n.body[n.body.length - 1].toks[0];
    if (last.t !== "NAME" || (last.v !== "return" && last.v !== "raise")) return false;
    var test = t.slice(1, t[t.length - 1].v === ":" ? t.length - 1 : t.length);
    return this.isGuardTest(test, scope) && !this.mixedAnd(test, scope) && versionDirection(test) === true;
  };

  // a statement inside a compat guard: an except or else of a guard (marked by the try or if before it)
  A.stmt = function (nodes, idx, scope) {
    var g = nodes[idx].guarded ? 1 : 0, newer = nodes[idx].newer || null;
    this.guard += g;
    if (newer) this.newer.push(newer);
    try { this.stmt1(nodes, idx, scope); } finally { this.guard -= g; if (newer) this.newer.pop(); }
  };
  // the except / elif / else nodes that follow nodes[idx] (a try or an if), up to the next other statement
  function clauses(nodes, idx, words) {
    var out = [];
    for (var j = idx + 1; j < nodes.length && nodes[j].toks[0].t === "NAME" && words.indexOf(nodes[j].toks[0].v) >= 0; j++) out.push(nodes[j]);
    return out;
  }
  A.stmt1 = function (nodes, idx, scope) {
    var node = nodes[idx], t = node.toks, f = t[0], self = this, ix = this.ix;
    this.cur = node;   // the statement a load's flow starts from (loadFlow)
    var v = f.t === "NAME" ? f.v : f.v;
    if (f.t === "NAME" && v === "async" && t[1] && /^(def|for|with)$/.test(t[1].v)) { t = t.slice(1); f = t[0]; v = f.v; }
    var core = t;   // a string on its own (a docstring, quoted-out code) is documentation, not a use
    while (core.length >= 2 && core[0].v === "(" && matching(core, 0) === core.length - 1) core = core.slice(1, -1);
    if (core.length && !node.body && core.every(function (x) { return x.t === "STR"; }) && !strGroup(core).f) return;
    if (f.t !== "NAME") { this.expr(t, scope); if (node.body) this.body(node.body, scope); return; }
    var stmt = this.fixing && (v === "import" || v === "from") ? { kind: "import", toks: t, from: v === "from", names: [] } : null;
    if (v === "import") {
      splitTop(t.slice(1), ",").forEach(function (p) {
        var as = p.map(function (x) { return x.v; }).indexOf("as"), dotted = (as >= 0 ? p.slice(0, as) : p).map(function (x) { return x.v; }).join("");
        var alias = { name: dotted, asname: as >= 0 ? p[as + 1].v : null };
        if (stmt) stmt.names.push(alias);
        self.checkName(dotted, f, stmt && { kind: "import", stmt: stmt });
        if (as >= 0) self.bind(scope, p[as + 1].v, dotted, true, null, stmt && { stmt: stmt, alias: alias });
        else self.bind(scope, dotted.split(".")[0], dotted.split(".")[0], true);
      });
      return;
    }
    if (v === "from") {
      var imp = -1;
      for (var i = 1; i < t.length; i++) if (t[i].t === "NAME" && t[i].v === "import") { imp = i; break; }
      var mod = t.slice(1, imp).map(function (x) { return x.v; }).join(""), relative = mod[0] === ".";
      var names = t.slice(imp + 1);
      if (names[0] && names[0].v === "(") names = names.slice(1, -1);
      if (stmt) { stmt.module = mod; stmt.relative = relative; }
      splitTop(names, ",").forEach(function (p) {
        if (!p.length) return;
        var alias = { name: p[0].v, asname: p.length >= 3 && p[1].v === "as" ? p[2].v : null };
        if (stmt) stmt.names.push(alias);
        if (p[0].v === "*") { if (!relative) scope.stars.push(mod); return; }
        var nm = p[0].v, as = p.length >= 3 && p[1].v === "as" ? p[2].v : nm;
        if (relative || !mod) { self.bind(scope, as, null); return; }
        self.checkName(mod + "." + nm, f, stmt && { kind: "import", stmt: stmt });
        self.bind(scope, as, mod + "." + nm, true, null, stmt && { stmt: stmt, alias: alias });
      });
      return;
    }
    if (v === "def") {
      var open = 2, close = matching(t, open);
      var params = this.arguments(t.slice(open + 1, close), scope);
      var arrow = -1;
      for (i = close + 1; i < t.length; i++) if (t[i].v === "->") arrow = i;
      if (arrow > 0) this.expr(t.slice(arrow + 1), scope);
      this.bind(scope, t[1].v, null);
      var inner = new Scope("function", this.funcParent(scope));
      var locals = this.localNames(node.body, {});
      params.concat(Object.keys(locals).sort()).forEach(function (n) { inner.names[n] = null; });
      var ng = 0, sk = 0;   // the decorators are the statements just before the def
      for (var d = idx - 1; d >= 0 && nodes[d].toks[0].t === "OP" && nodes[d].toks[0].v === "@"; d--) {
        ng = ng || this.isNoGrad(nodes[d].toks.slice(1), scope);
        sk = sk || (this.skipsByRelease(nodes[d].toks.slice(1), scope) ? 1 : 0);   // a test for some releases only
      }
      this.noGrad += ng;
      this.guard += sk;
      try { this.body(node.body, inner); } finally { this.noGrad -= ng; this.guard -= sk; }
      return;
    }
    if (v === "class") {
      if (t[2] && t[2].v === "(") {
        var c = matching(t, 2);
        splitTop(t.slice(3, c), ",").forEach(function (b) {
          if (b.length > 1 && b[0].t === "NAME" && b[1].v === "=") self.expr(b.slice(2), scope); else self.expr(b, scope);
        });
      }
      var cs = new Scope("class", scope), csk = 0;
      for (var cd = idx - 1; cd >= 0 && nodes[cd].toks[0].t === "OP" && nodes[cd].toks[0].v === "@"; cd--) csk = csk || (this.skipsByRelease(nodes[cd].toks.slice(1), scope) ? 1 : 0);
      this.guard += csk;
      try { this.body(node.body, cs); } finally { this.guard -= csk; }
      this.bind(scope, t[1].v, null);
      return;
    }
    if (v === "for") {
      var inn = topIndex(t, function (x) { return x.t === "NAME" && x.v === "in"; }, 1);
      this.expr(t.slice(inn + 1), scope);
      this.target(t.slice(1, inn), scope, null);
      this.body(node.body, scope);
      return;
    }
    if (v === "with") {
      var wg = 0;
      splitTop(t.slice(1), ",").forEach(function (item) {
        var as = -1;
        for (var k = 0; k < item.length; k++) if (item[k].t === "NAME" && item[k].v === "as") { as = k; }
        self.expr(as >= 0 ? item.slice(0, as) : item, scope);
        if (as >= 0) self.target(item.slice(as + 1), scope, null);
        wg = wg || self.isNoGrad(as >= 0 ? item.slice(0, as) : item, scope);
      });
      this.noGrad += wg;
      try { this.body(node.body, scope); } finally { this.noGrad -= wg; }
      return;
    }
    if (v === "except") {
      var asI = t.map(function (x) { return x.v; }).lastIndexOf("as");
      this.expr(t.slice(1, asI >= 0 ? asI : t.length), scope);
      this.inExcept++;
      if (asI >= 0) this.bind(scope, t[asI + 1].v, null);
      this.body(node.body, scope);
      this.inExcept--;
      return;
    }
    if (v === "try") {
      var handlers = clauses(nodes, idx, ["except", "else", "finally"]).filter(function (n) { return n.toks[0].v === "except"; });
      var tg = handlers.some(function (n) { return catches(n, GUARD_EXCEPTIONS); }) ? 1 : 0;   // the try body
      handlers.forEach(function (n) { if (catches(n, FALLBACK_EXCEPTIONS)) n.guarded = true; });   // an old-API fallback
      this.guard += tg;
      try { this.body(node.body, scope); } finally { this.guard -= tg; }
      return;
    }
    if (v === "else" || v === "finally") { this.body(node.body, scope); return; }
    if (v === "if" || v === "elif") {
      // the test, and the branches that run on older releases only (Analyzer.stmt): the body unless the test
      // is true on newer releases, every elif / else after it unless the test is true on older ones
      var ig = this.isGuardTest(t.slice(1), scope) ? 1 : 0, br = ig ? this.branches(t.slice(1), scope) : [0, 0, null, null];
      clauses(nodes, idx, ["elif", "else"]).forEach(function (n) { if (br[1]) n.guarded = true; if (br[3]) n.newer = br[3]; });
      this.guard += ig;
      try { this.expr(t.slice(1), scope); } finally { this.guard -= ig; }
      this.guard += br[0];
      if (br[2]) this.newer.push(br[2]);
      try { this.body(node.body, scope); } finally { this.guard -= br[0]; if (br[2]) this.newer.pop(); }
      return;
    }
    if (v === "while") { this.expr(t.slice(1), scope); this.body(node.body, scope); return; }
    if (v === "del") {
      splitTop(t.slice(1), ",").forEach(function (p) {
        var n = p.length;
        if (n >= 4 && p[n - 1].v === "]") {
          var ob = -1;
          for (var k = n - 1; k >= 0; k--) if (p[k].v === "[" && matching(p, k) === n - 1) { ob = k; break; }
          if (ob > 0 && isChain(p.slice(0, ob)) && self.resolveChain(p.slice(0, ob), scope) === "sys.modules") {
            var g = strGroup(p.slice(ob + 1, n - 1));
            if (g && !g.f) ix.reload.forEach(function (r) { if (r.how === "del" && g.value === r.target) self.emit(r, p[0], "del sys.modules[\"" + r.target + "\"]"); });
          }
        }
        self.target(p, scope, null);
      });
      return;
    }
    if (v === "global" || v === "nonlocal" || v === "pass" || v === "break" || v === "continue") return;
    if (KW[v] || node.body) {
      this.expr(/^(return|raise|assert|yield|await)$/.test(v) ? t.slice(1) : t, scope);
      if (node.body) this.body(node.body, scope);
      return;
    }
    // assignment forms
    var eqs = [], k2 = -1;
    while ((k2 = topIndex(t, function (x) { return x.t === "OP" && x.v === "="; }, k2 + 1)) >= 0) eqs.push(k2);
    var ann = topIndex(t, function (x) { return x.t === "OP" && x.v === ":"; });
    var aug = topIndex(t, function (x) { return x.t === "OP" && /^(\+|-|\*|\/|\/\/|%|\*\*|>>|<<|&|\||\^|@)=$/.test(x.v); });
    if (ann > 0 && (!eqs.length || ann < eqs[0])) {
      var target = t.slice(0, ann);
      this.expr(t.slice(ann + 1, eqs.length ? eqs[0] : t.length), scope);
      if (eqs.length) { var val = t.slice(eqs[0] + 1); this.expr(val, scope); this.target(target, scope, val, val); }
      else if (!(target.length === 1 && target[0].t === "NAME")) this.expr(target, scope);
      return;
    }
    if (aug > 0) { this.expr(t.slice(aug + 1), scope); this.target(t.slice(0, aug), scope, null); return; }
    if (eqs.length) {
      var value = t.slice(eqs[eqs.length - 1] + 1), start = 0;
      this.expr(value, scope);
      eqs.forEach(function (q) { self.target(t.slice(start, q), scope, eqs.length === 1 ? value : null, value); start = q + 1; });
      if (eqs.length === 1 && eqs[0] === 1 && t[0].t === "NAME") {
        if (scope.kind === "module" && this.isGuardTest(value, scope)) this.guardNames[t[0].v] = 1;
        var keys = this.dictKeys(value, scope);
        if (keys) scope.kwdicts[t[0].v] = keys;
      }
      return;
    }
    this.expr(t, scope);
  };

  function decodeBytes(bytes) {
    if (bytes.indexOf(0) >= 0) return [null, msg("check.skip.binary")];
    var head = "";
    for (var i = 0, nl = 0; i < bytes.length && nl < 2; i++) { if (bytes[i] === 10) nl++; head += String.fromCharCode(bytes[i]); }
    var m = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/m.exec(head.split("\n").slice(0, 2).join("\n"));
    var enc = m ? m[1].toLowerCase().replace(/_/g, "-") : "utf-8";
    if (/^(utf-8|utf8)(-|$)/.test(enc)) enc = "utf-8";
    if (/^(latin-1|iso-8859-1|iso8859-1|l1)$/.test(enc)) enc = "iso-8859-1";
    try {
      var text = new TextDecoder(enc, { fatal: true }).decode(new Uint8Array(bytes));
      return [text.replace(/^\ufeff/, ""), null];
    } catch (e) {
      return [null, msg("check.skip.not_text", { encoding: enc, error: "UnicodeDecodeError" })];
    }
  }

  function py2(tree) {   // statements Python 3 rejects that the tokenizer alone accepts
    var bad = null;
    (function walk(nodes) {
      nodes.forEach(function (n) {
        var t = n.toks, f = t[0];
        if (f.t === "NAME" && (f.v === "print" || f.v === "exec") && t[1] && (t[1].t === "STR" || t[1].t === "NUM" || (t[1].t === "NAME" && !KW[t[1].v]))) bad = bad || f.line;
        if (f.t === "NAME" && f.v === "except" && topIndex(t.slice(1), function (x) { return x.v === ","; }) >= 0) bad = bad || f.line;
        if (n.body) walk(n.body);
      });
    })(tree);
    return bad;
  }

  function checkSource(ix, text) {
    var tree;
    try {
      tree = buildTree(tokenize(text.replace(/\r\n?/g, "\n")));
    } catch (e) {
      if (e instanceof SyntaxErr) return { findings: [], skipped: msg("check.skip.no_parse_line", { error: e.msg, line: e.line }), cleared: [] };
      throw e;
    }
    var bad = py2(tree);
    if (bad) return { findings: [], skipped: msg("check.skip.python2", { major: 2, line: bad }), cleared: [] };
    if (!(ix.pattern && ix.pattern.test(text))) return { findings: [], skipped: null, cleared: [] };
    var a = new Analyzer(ix);
    a.text = text;
    a.tree = tree;
    a.body(tree, new Scope("module", null));
    a.settle();
    a.findings.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1] || (x[2].id < y[2].id ? -1 : x[2].id > y[2].id ? 1 : 0); });
    return { findings: a.findings, skipped: null, cleared: a.cleared };
  }

  // `# atlas: ignore` on a line drops its findings; `# atlas: ignore[<change-id>, <rule-id>]` only those (atlas_check.IGNORE)
  function splitIgnored(text, found) {
    var lines = text.replace(/\r\n?/g, "\n").split("\n"), directive = {};   // read once per line
    return found.filter(function (f) {
      if (!hasOwn(directive, f[0])) {
        var line = f[0] > 0 && f[0] <= lines.length ? lines[f[0] - 1] : "";
        directive[f[0]] = line.indexOf("atlas") >= 0 ? /#\s*atlas:\s*ignore(?:\[([^\]\n]*)\])?/.exec(line) : null;
      }
      var m = directive[f[0]];
      if (!m) return true;
      if (m[1] === undefined) return false;
      var ids = m[1].split(",").map(function (x) { return x.trim(); });
      return !(ids.indexOf(f[2].change) >= 0 || ids.indexOf(f[2].id) >= 0 ||
               (f[2].was || []).some(function (w) { return ids.indexOf(w) >= 0; }));   // a renamed change's old id
    });
  }

  function guardNote(r) { return msg("check.note.guard", { release: r.introduced_in }); }

  // one finding per cause (atlas_check.one_per_cause): a line keeps its first finding of each change, and a
  // use of a name is dropped where the line that imports it was reported for the same rule
  function isImportLine(line) {
    var t = line.replace(/^[ \t\f]+/, "");
    return (t.indexOf("import ") === 0 || t.indexOf("from ") === 0) && t.indexOf("from __future__") !== 0;
  }
  function onePerCause(text, found) {
    var lines = text.replace(/\r\n?/g, "\n").split("\n"), atLine = {}, imported = {};
    return found.filter(function (f) {
      var r = f[2], api = f[3], k = f[0] + "\u0000" + (r.change || r.id);
      if (hasOwn(atLine, k)) return false;
      if (isImportLine(f[0] > 0 && f[0] <= lines.length ? lines[f[0] - 1] : "")) {
        (imported[r.id] = imported[r.id] || []).push(api);
      } else if ((imported[r.id] || []).some(function (a) { return api === a || api.indexOf(a + ".") === 0; })) {
        return false;
      }
      atLine[k] = 1;
      return true;
    });
  }
  // a test file by its path, and in one, one finding per deprecated change (atlas_check.one_per_test_file)
  function isTestPath(path) {
    var p = "/" + String(path).replace(/\\/g, "/"), base = p.slice(p.lastIndexOf("/") + 1);
    return base.indexOf("test_") === 0 || /_test\.py$/.test(base) || base === "conftest.py" || p.indexOf("/tests/") >= 0 || p.indexOf("/test/") >= 0;
  }
  function onePerTestFile(found, path, severity) {
    if (!isTestPath(path)) return found;
    var seen = {};
    return found.filter(function (f) {
      var c = f[2].change || f[2].id;
      if (severity[f[2].id] !== "deprecated" || f[4]) return true;
      if (hasOwn(seen, c)) return false;
      seen[c] = 1;
      return true;
    });
  }
  // skipped files, each reason in English (reason, as the JSON has it) and in lang (atlas_check.worded)
  function worded(rules, lang, skipped) {
    return skipped.map(function (x) { return { path: x.path, reason: say(rules, "en", x.reason), reason_text: say(rules, lang, x.reason) }; });
  }

  // [findings shown, how many hidden] (atlas_check.quiet_notes): a rule with shown_if (a note nearly always
  // noise on real code) is shown only in a file whose text matches it, or with notes "all"
  function quietNotes(found, text, notes) {
    if (notes === "all") return [found, 0];
    var cache = {};
    var shown = found.filter(function (f) {
      var pat = f[2].shown_if;
      if (!pat) return true;
      if (!hasOwn(cache, pat)) cache[pat] = new RegExp(pat).test(text);
      return cache[pat];
    });
    return [shown, found.length - shown.length];
  }

  function checkCode(rules, input, opts) {
    opts = opts || {};
    var frm = opts.from || rules.releases[0], to = opts.to || rules.releases[rules.releases.length - 1], lang = opts.lang || "en";
    var path = opts.path || "<paste>";
    var ix = new Index(rules, frm, to);
    var text = input;
    if (typeof input !== "string") {
      var d = decodeBytes(input);
      if (d[1]) return { findings: [], skipped: worded(rules, lang, [{ path: path, reason: d[1] }]) };
      text = d[0];
    }
    var res = checkSource(ix, text);
    var cleared = res.cleared.map(function (c) {   // the loads the code shows to be safe (atlas_check.py code --explain)
      return { path: path, line: c[0], column: c[1], change: c[2].change, rule: c[2].id, why: say(rules, "en", c[3]), why_text: say(rules, lang, c[3]) };
    });
    var unignored = splitIgnored(text, res.findings), quiet = quietNotes(onePerTestFile(onePerCause(text, unignored), path, ix.severity), text, opts.notes);
    var kept = quiet[0];
    return {
      from: frm, to: to, ignored: res.findings.length - unignored.length, hidden: quiet[1], cleared: cleared,
      findings: kept.map(function (f) {
        var r = f[2];
        var why = f[5] ? f[5][1] : null;
        return { path: path, line: f[0], column: f[1], change: r.change, api: f[3], severity: f[4] ? "guarded" : f[5] ? f[5][0] : ix.severity[r.id], rule: r.id,
          why: why ? say(rules, "en", why) : null, why_text: why ? say(rules, lang, why) : null,
          kind: r.kind, title: r.title[lang], fix: r.fix ? r.fix[lang] : null, url: r.url[lang],
          guard: f[4] ? say(rules, "en", guardNote(r)) : null, guard_text: f[4] ? say(rules, lang, guardNote(r)) : null,
          earlier: hasOwn(ix.earlier, r.id) ? ix.earlier[r.id] : null,
          earlier_text: hasOwn(ix.earlier, r.id) ? say(rules, lang, msg("check.note.earlier", { release: ix.earlier[r.id] })) : null };
      }),
      skipped: worded(rules, lang, res.skipped ? [{ path: path, reason: res.skipped }] : [])
    };
  }

  // ------------------------------------------------------------------------ fixes (atlas_check.py code --fix / --diff)
  // The same rewrite data (a rule's `rewrites`) and the same plan as atlas_check.plan_fixes: a rewrite is
  // applied only where its new name, and each keyword it passes, are proven in every release of the window
  // (from..to); `apply: never`, guarded code and `# atlas: ignore` lines are never rewritten. Offsets are
  // into the text as given; every byte outside an edited span stays. JS cannot compile Python: where the
  // Python engine backs out a fix that would not compile, this backs out one its own reader rejects.
  var NEEDS_PERSON = msg("check.why.needs_person");

  // the call whose "(" is toks[open]: its end, the end of its function, and its arguments as ast places them
  function callInfo(toks, open, funcEnd) {
    var close = matching(toks, open), items = [];
    splitTop(toks.slice(open + 1, close), ",").forEach(function (a) {
      if (!a.length) return;
      // span: the argument as written (atlas_check._arg_spans: its tokens between the call's commas)
      var it = { toks: a, start: a[0].at, end: a[a.length - 1].end, span: [a[0].at, a[a.length - 1].end] };
      if (a[0].t === "OP" && a[0].v === "**") it.kind = "kwstar";
      else if (a[0].t === "OP" && a[0].v === "*") it.kind = "star";
      else if (a.length > 1 && a[0].t === "NAME" && a[1].t === "OP" && a[1].v === "=") {
        it.kind = "kw"; it.name = a[0].v; it.value = a.slice(2);
        var vn = unparen(it.value);   // the value's node: its place, and whether it is an atom (Name, Attribute, Call, Subscript, Constant)
        if (vn.length) { it.vspan = [vn[0].at, vn[vn.length - 1].end]; it.atom = isAtom(vn); }
      }
      else {   // a positional argument's node is the expression inside any parentheses around it
        it.kind = "pos"; it.value = a;
        var inner = unparen(a);
        it.start = inner[0].at; it.end = inner[inner.length - 1].end;
      }
      items.push(it);
    });
    return { end: toks[close].end, funcEnd: funcEnd, items: items };
  }
  function unparen(v) {   // (x) -> x; a tuple, a generator or () keeps its parentheses
    while (v.length > 2 && v[0].v === "(" && v[0].t === "OP" && matching(v, 0) === v.length - 1) {
      var inner = v.slice(1, -1);
      if (topIndex(inner, function (x) { return x.v === "," || x.v === "for" || x.v === "yield"; }) >= 0) break;
      v = inner;
    }
    return v;
  }
  // whether tokens v (no parentheses around them) are one Name, Attribute, Call, Subscript or Constant node
  function isAtom(v) {
    var k = 0, n = v.length, x = v[0], trailers = 0;
    if (x.t === "NAME") { if (KW[x.v] && !/^(True|False|None)$/.test(x.v)) return false; k = 1; }
    else if (x.t === "NUM") k = 1;
    else if (x.t === "OP" && x.v === "...") k = 1;
    else if (x.t === "STR") { var f = false; while (k < n && v[k].t === "STR") { f = f || v[k].f; k++; } if (f && k === n) return false; }
    else if (x.t === "OP" && /^[(\[{]$/.test(x.v)) k = matching(v, 0) + 1;
    else return false;
    while (k < n) {
      var y = v[k];
      if (y.t === "OP" && y.v === "." && v[k + 1] && v[k + 1].t === "NAME") k += 2;
      else if (y.t === "OP" && (y.v === "(" || y.v === "[")) k = matching(v, k) + 1;
      else return false;
      trailers++;
    }
    return trailers > 0 || x.t !== "OP" || x.v === "...";
  }
  function pyRepr(s) {   // repr() of a str
    var q = s.indexOf("'") >= 0 && s.indexOf("\"") < 0 ? "\"" : "'";
    return q + s.replace(/[\\\n\r\t]/g, function (c) { return { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" }[c]; })
      .replace(new RegExp(q, "g"), "\\" + q) + q;
  }
  function pyNum(v) {   // repr() of a number literal, for the common spellings
    var t = v.replace(/_/g, "");
    if (/^0[xXoObB]/.test(t)) return String(parseInt(t.slice(2), { x: 16, o: 8, b: 2 }[t[1].toLowerCase()]));
    if (/^\d+$/.test(t)) return String(BigInt(t));
    return t;
  }
  function literal(v) {   // atlas_check._literal: the Python spelling of a literal argument, or null
    v = unparen(v);
    if (v.length === 1 && v[0].t === "NAME" && /^(True|False|None)$/.test(v[0].v)) return v[0].v;
    if (v.length === 1 && v[0].t === "NUM") return pyNum(v[0].v);
    if (v.length === 2 && v[0].t === "OP" && v[0].v === "-" && v[1].t === "NUM") return "-" + pyNum(v[1].v);
    var g = strGroup(v);
    if (g && !g.f) return (g.bytes ? "b" : "") + pyRepr(g.value);
    return null;
  }
  // ast.unparse of an argument, for the simple ones a reason names (x, a.b, f(), -1, 'cuda')
  function unparse(v) {
    v = unparen(v);
    var lit = literal(v);
    if (lit !== null) return lit;
    var out = "";
    v.forEach(function (x, k) {
      var p = v[k - 1], s = x.t === "STR" ? (x.f ? "f" + pyRepr(x.body) : literal([x])) : x.v;
      if (x.t === "OP" && /^[.)\]]$/.test(x.v)) out += s;
      else if (x.t === "OP" && x.v === ",") out += ", ";
      else if (x.t === "OP" && /^[(\[]$/.test(x.v)) out += (p && (p.t === "NAME" && !KW[p.v] || p.t === "STR" || /^[)\]]$/.test(p.v)) ? "" : (p && !/^[(\[.]$/.test(p.v) ? " " : "")) + s;
      else if (x.t === "OP" && x.v === "=" ) out += s;
      else if (!p || (p.t === "OP" && /^[(\[.,=]$/.test(p.v)) ||
               (p.t === "OP" && /^[-+~]$/.test(p.v) && (!v[k - 2] || (v[k - 2].t === "OP" && !/^[)\]]$/.test(v[k - 2].v))))) out += s;
      else out += " " + s;
    });
    return out;
  }
  function kwNames(texts) { return texts.map(function (t) { return t.split("=")[0].trim(); }); }
  function windowOf(rules, frm, to) { return rules.releases.filter(function (v) { return vcmp(frm, v) <= 0 && vcmp(v, to) <= 0; }); }

  function unsafe(spec, name, window, keywords) {   // atlas_check._unsafe
    var ok = hasOwn(spec.safe_in, name) ? spec.safe_in[name] : null;
    if (ok === null) return msg("check.why.no_lock", { name: name });
    var miss = window.filter(function (v) { return ok.indexOf(v) < 0; });
    if (miss.length) return msg("check.why.not_resolving", { name: name, releases: miss.join(", ") });
    keywords = keywords || [];
    for (var i = 0; i < keywords.length; i++) {
      var k = keywords[i];
      if (k.indexOf(".") >= 0) { var why = unsafe(spec, k, window); if (why) return why; continue; }
      var acc = hasOwn(spec.accepts, k) ? spec.accepts[k] : [];
      miss = window.filter(function (v) { return acc.indexOf(v) < 0; });
      if (miss.length) return msg("check.why.not_proven", { call: spec["new"] + "(" + k + "=)", releases: miss.join(", ") });
    }
    return null;
  }

  // atlas_check.call_edits: [edits, keywords written, why not]; call null: a bare use
  function callEdits(text, spec, call, deco) {
    var args = spec.args.slice(), kws = spec.keywords.slice();
    if (!call) {
      if (!(args.length || kws.length) || spec.bare === "keep") return [[], [], null];
      if (spec.bare === "call" && deco) return [[["ins", null, "(" + args.concat(kws).join(", ") + ")"]], kwNames(kws), null];
      return [null, [], msg("check.why.bare_use")];
    }
    var items = call.items, pos = items.filter(function (x) { return x.kind === "pos" || x.kind === "star"; });
    var starred = items.some(function (x) { return x.kind === "star" || x.kind === "kwstar"; });
    if (spec.positional === "suggest" && pos.length) return [null, [], msg("check.why.positional_shift")];
    if (starred && (Object.keys(spec.map).length || args.length)) return [null, [], msg("check.why.starred")];
    var om = /^\s*\(/.exec(text.slice(call.funcEnd)), opener = om ? call.funcEnd + om[0].length : null;
    if (opener === null) return [null, [], msg("check.why.paren")];
    var spans = items.map(function (x) { return x.span; });
    var edits = [], written = kwNames(kws), drops = [], reads = [];
    if (Array.isArray(spec.positional) && pos.length) {   // each positional argument by its old name
      if (pos.length > spec.positional.length) return [null, [], msg("check.why.too_many_positional")];
      pos.forEach(function (x, k) { edits.push(["at", x.span[0], spec.positional[k] + "="]); written.push(spec.positional[k]); });
    }
    var mapKeys = Object.keys(spec.map);
    for (var mi = 0; mi < mapKeys.length; mi++) {
      var kw = mapKeys[mi], m = spec.map[kw];
      var item = items.filter(function (x) { return x.kind === "kw" && x.name === kw; })[0] || null, node = item ? item.value : null;
      if (!item && m.position !== null && m.position !== undefined && m.position < pos.length) { item = pos[m.position]; node = item.kind === "star" ? item.toks : item.value; }
      if (!item) continue;
      var lit = item.kind === "star" ? null : literal(node), act = hasOwn(m.values, lit || "") ? m.values[lit || ""] : null;
      if (!act && hasOwn(m.values, "*") && item.kind === "kw") {   // any other value: {value} is its source
        act = Object.assign({}, m.values["*"]);
        var src = text.slice(item.vspan[0], item.vspan[1]), atom = item.atom && src.indexOf("\n") < 0;
        act.text = act.text.split("{value}").join(atom ? src : "(" + src + ")");
      }
      if (!act) return [null, [], msg("check.why.literal_only", { arg: kw + "=" + unparse(node) })];
      if (act.suffix) { edits.push(["at", call.end, act.suffix]); reads.push("torch.Tensor" + act.suffix); }
      if (act.drop) drops.push(items.indexOf(item));
      else { edits.push(["span", item.span, act.text]); written = written.concat(kwNames([act.text])); }
    }
    if (drops.length > 1) return [null, [], msg("check.why.drop_many")];
    drops.forEach(function (i) {   // the argument and one comma go; a comment between them stays
      var span, gap;
      if (i > 0) { span = [spans[i - 1][1], spans[i][1]]; gap = text.slice(span[0], spans[i][0]); }
      else if (items.length > 1) { span = [spans[i][0], spans[i + 1][0]]; gap = text.slice(spans[i][1], span[1]); }
      else { var mm = /^\s*,/.exec(text.slice(spans[i][1])); span = [spans[i][0], mm ? spans[i][1] + mm[0].length : spans[i][1]]; gap = ""; }
      edits.push(["span", span, gap.indexOf("#") >= 0 ? gap.replace(",", "") : ""]);
    });
    var have = {};
    items.forEach(function (x) { if (x.kind === "kw") have[x.name] = 1; });
    var newKws = kws.filter(function (k) { return !have[kwNames([k])[0]]; });
    var left = items.length - drops.length;
    if (args.length) edits.unshift(["at", opener, args.join(", ") + (left || newKws.length ? ", " : "")]);   // first: before a positional argument's new keyword at the same place
    if (newKws.length) {
      var kept = spans.filter(function (x, j) { return drops.indexOf(j) < 0; });
      if (kept.length) edits.push(["at", kept[kept.length - 1][1], ", " + newKws.join(", ")]);
      else if (!args.length) edits.push(["at", opener, newKws.join(", ")]);
      else edits[0] = ["at", opener, args.concat(newKws).join(", ")];
    }
    return [edits, written.concat(reads), null];
  }

  function dottedSpans(toks) {   // atlas_check._dotted_spans over [string, start, end]
    var out = [], cur = null, ident = function (s) { return /^[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff]*$/.test(s); };
    toks.forEach(function (x) {
      var s = x[0];
      if (cur && s === ".") { cur[0] += "."; cur[2] = x[2]; }
      else if (cur && cur[0].slice(-1) === "." && ident(s)) { cur[0] += s; cur[2] = x[2]; }
      else { if (cur) out.push(cur); cur = ident(s) ? [s, x[1], x[2]] : null; }
    });
    if (cur) out.push(cur);
    return out;
  }

  // atlas_check.import_edits: [edits, why not] for an import statement whose names move; edits with a
  // reason are a proposal that is not version-safe, null edits no proposal
  function importEdits(st, specsOf, window, at) {
    var toks = st.toks.filter(function (x) { return x.t === "NAME" || x.t === "OP"; }).map(function (x) { return [x.v, at(x.at), at(x.end)]; });
    if (st.from) {
      if (st.relative || !st.module) return [null, msg("check.why.relative_import")];
      var kw = -1;
      for (var i = 0; i < toks.length; i++) if (toks[i][0] === "import") { kw = i; break; }
      var mod = dottedSpans(toks.slice(1, kw)).filter(function (d) { return d[0] === st.module; });
      if (!mod.length) return [null, msg("check.why.split_module")];
      var parents = {}, unsafeWhy = null;
      for (i = 0; i < st.names.length; i++) {
        var a = st.names[i];
        if (a.name === "*") return [null, msg("check.why.star_import")];
        var q = st.module + "." + a.name, got = specsOf(q);
        if (!got) return [null, msg("check.why.not_moving", { name: a.name })];
        var t = got[0], spec = got[1];
        if (spec.apply === "never") return [null, NEEDS_PERSON];
        var nw = spec["new"] + q.slice(t.length), dot = nw.lastIndexOf("."), parent = nw.slice(0, Math.max(dot, 0)), last = nw.slice(dot + 1);
        if (last !== a.name) return [null, msg("check.why.renamed", { name: q, "new": nw })];
        unsafeWhy = unsafeWhy || unsafe(spec, nw, window);
        parents[parent] = 1;
      }
      var ps = Object.keys(parents);
      if (ps.length !== 1) return [null, msg("check.why.split_import")];
      if (ps[0] === st.module) return [[], null];   // the names stay where they are (only their calls change)
      return [[["span", [mod[0][1], mod[0][2]], ps[0]]], unsafeWhy];
    }
    unsafeWhy = null;
    var edits = [], names = dottedSpans(toks.slice(1)).filter(function (d) { return d[0] !== "as"; });
    for (i = 0; i < st.names.length; i++) {
      a = st.names[i];
      got = specsOf(a.name);
      if (!got) continue;
      t = got[0]; spec = got[1];
      nw = spec["new"] + a.name.slice(t.length);
      if (nw === a.name) continue;
      unsafeWhy = unsafeWhy || unsafe(spec, nw, window);
      var span = names.filter(function (d) { return d[0] === a.name; })[0];
      if (!span) return [null, msg("check.why.split_module")];
      edits.push(["span", [span[1], span[2]], nw]);
    }
    return [edits, unsafeWhy];
  }

  function bound(origin) {   // atlas_check._bound
    return origin.stmt.from && origin.stmt.module ? origin.stmt.module + "." + origin.alias.name : origin.alias.name;
  }
  function under(q, t) { return q === t || q.indexOf(t + ".") === 0; }

  // atlas_check.plan_fixes: [unit] for one text; at(offset) maps the tokenizer's offsets to the text's
  function planFixes(text, sites, window, at) {
    var units = [], byImport = new Map();
    function specsOf(q) {
      for (var i = 0; i < sites.length; i++) {
        var rw = sites[i].rule.rewrites, ts = Object.keys(rw);
        for (var j = 0; j < ts.length; j++) if (under(q, ts[j])) return [ts[j], rw[ts[j]]];
      }
      return null;
    }
    function importUnit(st, s) {
      var u = byImport.get(st);
      if (u) return u;
      var got = importEdits(st, specsOf, window, at);
      u = { edits: got[0] || [], ok: got[0] !== null && got[1] === null, why: got[1], site: s, rule: s.rule, line: st.toks[0].line };
      byImport.set(st, u);
      units.push(u);
      return u;
    }
    sites.forEach(function (s) {
      var rule = s.rule, t = s.api, spec = hasOwn(rule.rewrites, t) ? rule.rewrites[t] : null;
      if (s.guard || !spec) return;   // guarded: code that already handles both releases
      if (s.fstring) { units.push({ edits: [], ok: false, why: msg("check.why.fstring"), site: s, rule: rule }); return; }
      if (s.kind === "import") { importUnit(s.stmt, s); return; }
      var unit = { edits: [], ok: true, why: null, site: s, rule: rule };
      units.push(unit);
      var q = s.q || t, nw = q.indexOf(t) === 0 ? spec["new"] + q.slice(t.length) : spec["new"];
      var origin = s.origin, moved = !!origin && under(bound(origin), t);
      if (spec.apply === "never") { unit.ok = false; unit.why = spec.choice ? msg(spec.choice) : NEEDS_PERSON; }   // the person's choices, named; or the edit, shown and never applied
      else if (moved) {
        var par = importUnit(origin.stmt, s);
        if (par.edits.length || !par.ok) unit.parent = par;   // an import that stays as it is ties nothing
      }
      else if (q !== nw && s.kind === "attr") {
        var p = s.prefixes.filter(function (x) { return x.q && q.indexOf(x.q + ".") === 0 && nw.indexOf(x.q + ".") === 0; })[0];
        if (!p && s.torch && nw.indexOf("torch.") === 0) unit.edits.push(["span", [at(s.start), at(s.end)], nw]);   // from torch.cuda import amp; amp.X
        else if (!p) { unit.ok = false; unit.why = msg("check.why.not_reached", { name: nw }); }
        else unit.edits.push(["span", [at(p.end), at(s.end)], "." + nw.slice(p.q.length + 1)]);
      } else if (q !== nw) { unit.ok = false; unit.why = msg("check.why.bound_name"); }
      if (unit.ok || unit.why === NEEDS_PERSON) {
        var c = s.call ? mapCall(s.call, at) : null;
        var ce = callEdits(text, spec, c, s.deco);
        if (ce[2]) { unit.ok = false; unit.why = ce[2]; unit.edits = []; return; }
        ce[0].forEach(function (e) { unit.edits.push(e[0] === "ins" ? ["at", at(s.end), e[2]] : e); });
        var why = unsafe(spec, nw, window, ce[1]);
        if (why && unit.ok) { unit.ok = false; unit.why = why; }
      }
    });
    units.forEach(function (u) {   // a use that cannot be fixed keeps its import where it is...
      var par = u.parent;
      if (par && !u.ok && par.ok) { par.ok = false; par.why = msg("check.why.at_line", { line: u.site.finding[0], why: u.why }); }
    });
    units.forEach(function (u) {   // ...and an import that stays keeps every use of it as it is (no half-proposal):
      var par = u.parent;           // its suggestion shows the edits of every use with it, or, where a use
      if (par && !par.ok) {         // has none to give, no edit at all (only the reason)
        if (u.ok || u.edits.length) par.uses = (par.uses || []).concat(u.edits);
        else par.blocked = true;
        u.why = !u.ok ? u.why : msg("check.why.import_stays", { line: par.line, why: par.why });
        u.ok = false; u.edits = [];
      }
    });
    units.forEach(function (u) {
      var uses = u.uses || [], blocked = !!u.blocked;
      delete u.uses; delete u.blocked;
      if (blocked) u.edits = [];
      else if (u.edits.length) u.edits = u.edits.concat(uses);
    });
    return units;
  }
  function mapCall(c, at) {   // a callInfo with the text's offsets
    return { end: at(c.end), funcEnd: at(c.funcEnd), items: c.items.map(function (x) {
      return { kind: x.kind, name: x.name, value: x.value, toks: x.toks, start: at(x.start), end: at(x.end), span: [at(x.span[0]), at(x.span[1])],
        vspan: x.vspan && [at(x.vspan[0]), at(x.vspan[1])], atom: x.atom };
    }) };
  }

  function normEdits(edits) {
    return edits.map(function (e) { return e[0] === "at" ? [e[1], e[1], e[2]] : [e[1][0], e[1][1], e[2]]; })
      .sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
  }
  function applyEdits(text, edits) {   // atlas_check.apply_edits; throws on overlapping edits
    var out = [], at = 0;
    normEdits(edits).forEach(function (e) {
      if (e[0] < at) throw new Error("overlapping edits");
      out.push(text.slice(at, e[0]), e[2]); at = e[1];
    });
    out.push(text.slice(at));
    return out.join("");
  }
  function lineStarts(text) {
    var starts = [0];
    for (var i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
    return starts;
  }
  function lineOf(starts, off) {   // bisect_right
    var lo = 0, hi = starts.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (off < starts[mid]) hi = mid; else lo = mid + 1; }
    return lo;
  }
  function region(text, edits, tx) {   // atlas_check._region: [first line, old lines, new lines]
    var starts = tx.starts, lines = tx.lines, offs = [];
    edits.forEach(function (e) { offs.push(e[0] === "at" ? e[1] : e[1][0]); });
    edits.forEach(function (e) { offs.push(e[0] === "at" ? e[1] : e[1][1]); });
    var first = lineOf(starts, Math.min.apply(null, offs)), last = lineOf(starts, Math.max.apply(null, offs));
    var a = starts[first - 1], b = starts[last - 1] + lines[last - 1].length;
    var shifted = edits.map(function (e) { return e[0] === "at" ? ["at", e[1] - a, e[2]] : ["span", [e[1][0] - a, e[1][1] - a], e[2]]; });
    return [first, text.slice(a, b).split("\n"), applyEdits(text.slice(a, b), shifted).split("\n")];
  }
  function unitDict(rules, path, text, u, lang, tx) {   // atlas_check.unit_dict
    var f = u.site.finding, r = u.rule;
    var d = { path: path, line: f[0], column: f[1], rule: r.id, change: r.change, api: f[3], title: r.title[lang], url: r.url[lang] };
    if (u.edits.length) { var g = region(text, u.edits, tx); d.line = g[0]; d.old = g[1]; d.new = g[2]; }
    if (!u.ok) { d.why = say(rules, "en", u.why); d.why_text = say(rules, lang, u.why); }
    return d;
  }
  var ekey = function (e) { return JSON.stringify(e); };
  // the edits taken so far, sorted as apply_edits sorts them: whether more edits fit among them without
  // an overlap is the question apply_edits(text, taken + more) answers, asked without applying anything
  function Taken() { this.list = []; }
  function ekeyLess(x, y) { return x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]); }
  Taken.prototype.at = function (x) {   // where x goes: after every edit that sorts before it or equal to it
    var lo = 0, hi = this.list.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (ekeyLess(x, this.list[mid])) hi = mid; else lo = mid + 1; }
    return lo;
  };
  Taken.prototype.fits = function (edits) {
    var self = this, mine = normEdits(edits), all = [];
    mine.forEach(function (x) {   // each new edit with the taken ones next to it
      var i = self.at(x);
      if (i > 0) all.push([self.list[i - 1], 0, i - 1]);
      all.push([x, 1, i]);
      if (i < self.list.length) all.push([self.list[i], 0, i]);
    });
    all.sort(function (p, q) { return p[0][0] - q[0][0] || p[0][1] - q[0][1] || p[2] - q[2] || p[1] - q[1]; });
    for (var k = 1; k < all.length; k++) {
      var p = all[k - 1], q = all[k];
      if ((p[1] || q[1]) && !(p[1] === 0 && q[1] === 0 && p[2] === q[2]) && q[0][0] < p[0][1]) return false;
    }
    return true;
  };
  Taken.prototype.add = function (e) {
    var x = normEdits([e])[0];
    this.list.splice(this.at(x), 0, x);
  };
  // difflib.SequenceMatcher(None, a, b).get_matching_blocks() without its sentinel: [[i, j, k]]; popular
  // lines of b (its autojunk) start no match, as there
  function matchingBlocks(a, b, popular) {
    var out = [], queue = [[0, a.length, 0, b.length]], b2j = new Map();
    b.forEach(function (x, j) { if (!popular.has(x)) { if (!b2j.has(x)) b2j.set(x, []); b2j.get(x).push(j); } });
    while (queue.length) {
      var q = queue.pop(), alo = q[0], ahi = q[1], blo = q[2], bhi = q[3];
      var bi = alo, bj = blo, bk = 0, j2len = new Map();
      for (var i = alo; i < ahi; i++) {
        var next = new Map(), js = b2j.get(a[i]) || [];
        for (var n = 0; n < js.length; n++) {
          var j = js[n];
          if (j < blo) continue;
          if (j >= bhi) break;
          var k = (j2len.get(j - 1) || 0) + 1;
          next.set(j, k);
          if (k > bk) { bi = i - k + 1; bj = j - k + 1; bk = k; }
        }
        j2len = next;
      }
      while (bi > alo && bj > blo && a[bi - 1] === b[bj - 1]) { bi--; bj--; bk++; }
      while (bi + bk < ahi && bj + bk < bhi && a[bi + bk] === b[bj + bk]) bk++;
      if (!bk) continue;
      out.push([bi, bj, bk]);
      if (alo < bi && blo < bj) queue.push([alo, bi, blo, bj]);
      if (bi + bk < ahi && bj + bk < bhi) queue.push([bi + bk, ahi, bj + bk, bhi]);
    }
    return out.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
  }
  function popularLines(lines) {   // difflib's autojunk: of 200 lines or more, a line seen more than n/100 + 1 times
    var n = lines.length, count = new Map(), out = new Set();
    if (n < 200) return out;
    for (var i = 0; i < n; i++) count.set(lines[i], (count.get(lines[i]) || 0) + 1);
    count.forEach(function (c, x) { if (c > Math.floor(n / 100) + 1) out.add(x); });
    return out;
  }
  // the applied edits as a unified diff's hunks: {old_start, old_lines, new_start, new_lines, lines: [[" "|"-"|"+", text]]}
  // with `context` unchanged lines around each change (difflib's default is 3)
  function hunks(text, edits, context) {
    // the changed lines as difflib.unified_diff finds them: the matching blocks of the whole old and new
    // lines (with their line ends), so lines left alike inside an edit (a kept comment) are context
    var lines = text.split("\n"), ends = /[^\n]*\n|[^\n]+/g;
    var old = text.match(ends) || [], nw = (edits.length ? applyEdits(text, edits) : text).match(ends) || [];
    var changes = [], i = 0, j = 0, cut = function (x) { return x.replace(/\r?\n$/, ""); };
    matchingBlocks(old, nw, popularLines(nw)).concat([[old.length, nw.length, 0]]).forEach(function (mb) {
      if (i < mb[0] || j < mb[1]) changes.push({ first: i + 1, old: old.slice(i, mb[0]).map(cut), "new": nw.slice(j, mb[1]).map(cut) });
      i = mb[0] + mb[2]; j = mb[1] + mb[2];
    });
    var out = [], delta = 0, cur = null, strip = function (x) { return x.replace(/\r$/, ""); };
    changes.forEach(function (c) {
      var from = Math.max(1, c.first - context);
      if (cur && c.first - cur.end - 1 <= 2 * context) from = cur.end + 1;   // close to the one before: the same hunk (difflib)
      else {
        if (cur) { for (var i = cur.end + 1; i <= Math.min(lines.length, cur.end + context); i++) { cur.h.lines.push([" ", strip(lines[i - 1])]); cur.h.old_lines++; cur.h.new_lines++; } out.push(cur.h); }
        cur = { h: { old_start: from, new_start: from + delta, old_lines: 0, new_lines: 0, lines: [] }, end: from - 1 };
      }
      for (var j = from; j < c.first; j++) { cur.h.lines.push([" ", strip(lines[j - 1])]); cur.h.old_lines++; cur.h.new_lines++; }
      c.old.forEach(function (x) { cur.h.lines.push(["-", strip(x)]); });
      c["new"].forEach(function (x) { cur.h.lines.push(["+", strip(x)]); });
      cur.h.old_lines += c.old.length; cur.h.new_lines += c["new"].length;
      cur.end = c.first + c.old.length - 1;
      delta += c["new"].length - c.old.length;
    });
    if (cur) {
      var endCtx = lines.length - (text.slice(-1) === "\n" ? 1 : 0);   // the empty "line" after a final newline is none
      for (var i = cur.end + 1; i <= Math.min(endCtx, cur.end + context); i++) { cur.h.lines.push([" ", strip(lines[i - 1])]); cur.h.old_lines++; cur.h.new_lines++; }
      out.push(cur.h);
    }
    return out;
  }
  // the stand-in for Python's compile(): JS reads the result as it reads a snippet (brackets, strings,
  // indentation, Python 2 statements); the text it started from parsed, so only an edit can break it
  function parses(text) {
    try { return !py2(buildTree(tokenize(text.replace(/\r\n?/g, "\n")))); } catch (e) { if (e instanceof SyntaxErr) return false; throw e; }
  }

  // the fixes for one snippet: {text, fixes, suggestions, skipped} (atlas_check.fix_source and unit_dict)
  function fixCode(rules, input, opts) {
    opts = opts || {};
    var frm = opts.from || rules.releases[0], to = opts.to || rules.releases[rules.releases.length - 1], lang = opts.lang || "en";
    var path = opts.path || "<paste>", text = input;
    if (typeof input !== "string") {
      var dec = decodeBytes(input);
      if (dec[1]) return { text: null, fixes: [], suggestions: [], skipped: worded(rules, lang, [{ path: path, reason: dec[1] }]), hunks: [] };
      text = dec[0];
    }
    var none = { text: text, fixes: [], suggestions: [], skipped: [], hunks: [] };
    var ix = new Index(rules, frm, to), norm = text.replace(/\r\n?/g, "\n"), tree;
    try { tree = buildTree(tokenize(norm)); } catch (e) {
      if (e instanceof SyntaxErr) { none.skipped = worded(rules, lang, [{ path: path, reason: msg("check.skip.no_parse_line", { error: e.msg, line: e.line }) }]); return none; }
      throw e;
    }
    if (py2(tree) || !(ix.pattern && ix.pattern.test(text))) return none;
    // the tokenizer reads the text with \n line ends: its offsets, mapped back to the text's
    var back = null;
    if (norm !== text) {
      back = new Int32Array(norm.length + 1);   // a line end maps to its first character (the \r of \r\n)
      for (var i = 0, j = 0; j <= norm.length; j++) {
        back[j] = i;
        i += text[i] === "\r" && text[i + 1] === "\n" ? 2 : 1;
      }
    }
    var at = back ? function (o) { return back[o]; } : function (o) { return o; };
    var a = new Analyzer(ix);
    a.text = text;
    a.fixing = true;
    a.tree = tree;
    a.body(tree, new Scope("module", null));
    a.settle();
    var kept = new Set(splitIgnored(text, a.findings));
    var units = planFixes(text, a.sites.filter(function (s) { return kept.has(s.finding); }), windowOf(rules, frm, to), at);
    var taken = [], edits = [], seen = new Set(), taken1 = new Taken();
    units.forEach(function (u) {   // a unit whose edits overlap one taken before is left as a suggestion
      if (!(u.ok && u.edits.length)) return;
      var more = u.edits.filter(function (e) { return !seen.has(ekey(e)); });
      if (!taken1.fits(u.edits)) { u.ok = false; u.why = msg("check.why.overlaps"); return; }
      taken.push(u);
      more.forEach(function (e) { seen.add(ekey(e)); taken1.add(e); });
      edits = edits.concat(more);
    });
    var out = edits.length ? applyEdits(text, edits) : text;
    if (out !== text && !parses(out)) {   // one at a time, keeping each that still parses (atlas_check.fix_source)
      var ok = [];
      edits = [];
      taken.forEach(function (u) {
        var seen = {};
        edits.forEach(function (e) { seen[ekey(e)] = 1; });
        var trial = edits.concat(u.edits.filter(function (e) { return !seen[ekey(e)]; }));
        if (parses(applyEdits(text, trial))) { edits = trial; ok.push(u); } else { u.ok = false; u.why = msg("check.why.no_compile"); }
      });
      taken = ok;
      out = edits.length ? applyEdits(text, edits) : text;
    }
    var applied = new Set(taken), lines = { starts: lineStarts(text), lines: text.split("\n") };
    return {
      text: out, skipped: [], hunks: hunks(text, edits, 3),
      fixes: taken.map(function (u) { return unitDict(rules, path, text, u, lang, lines); }),
      suggestions: units.filter(function (u) { return !applied.has(u) && !(u.ok && !u.edits.length); }).map(function (u) { return unitDict(rules, path, text, u, lang, lines); })
    };
  }

  // ------------------------------------------------------------------------ environment
  function first(re, text) { var m = re.exec(text); return m ? m[1].trim() : null; }
  function na(v) { return v && !/^(n\/?a|none|could not collect|no cuda|false)\b/i.test(v) ? v : null; }
  function words(name) { return name.toUpperCase().split(/[\s\-_/(),]+/).filter(function (w) { return w && w !== "NVIDIA" && w !== "AMD"; }); }
  function uniq(a) { var s = {}; return a.filter(function (x) { if (!x || s[x]) return false; s[x] = 1; return true; }); }
  function all(re, text) { var out = [], m; re.lastIndex = 0; while ((m = re.exec(text))) out.push(m); return out; }

  // the paste as the field patterns read it (atlas_check.normalize_paste): no terminal escapes, no indent
  // or "> " quote marks, and "Key      : value" as "Key: value"; line by line
  function normalizePaste(text) {
    text = text.replace(/\r\n/g, "\n").replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b[@-Z\\\-_]/g, "");
    // collect_env's banner and its first field glued on one line (atlas_check.normalize_paste)
    text = text.replace(/(Collecting environment information\.*)[ \t]*(?=PyTorch version:)/g, "$1\n");
    return text.split("\n").map(function (ln) {
      ln = ln.slice(/^[ \t]*(?:>[ \t]*)*/.exec(ln)[0].length);
      var i = ln.indexOf(":");
      if (i > 0 && (ln[i - 1] === " " || ln[i - 1] === "\t")) {
        var key = ln.slice(0, i).replace(/[ \t]+$/, "");
        if (/^[A-Za-z][\w .()\/+-]*$/.test(key)) ln = key + ln.slice(i);
      }
      return ln;
    }).join("\n");
  }
  function parseEnv(text) {
    text = normalizePaste(text);
    var env = { torch: null, python: null, free_threaded: false, driver: null, gpus: [], macos: null, gfx: [], amd_names: [], rocm: null, cuda: null, formats: [], amd_pci: [], os: null, arch: null, glibc: null, gpu_cc: {}, gpu_archs: {} };
    var fm = env.formats;
    if (/^PyTorch version:/m.test(text)) {
      fm.push("collect_env");
      env.torch = na(first(/^PyTorch version:\s*(\S+)/m, text));
      var py = first(/^Python version:\s*(\d+\.\d+(?:\.\d+)?\S*)/m, text);
      if (py) {
        env.python = /\d+\.\d+(?:\.\d+)?/.exec(py)[0];
        var rest = py.slice(env.python.length);
        env.free_threaded = rest ? rest.split(/\s+/)[0].indexOf("t") >= 0 : false;
      }
      env.driver = na(first(/^Nvidia driver version:\s*(.*)$/m, text));
      env.cuda = na(first(/^CUDA used to build PyTorch:\s*(.*)$/m, text));
      env.rocm = na(first(/^ROCM used to build PyTorch:\s*(.*)$/m, text));
      var osv = first(/^OS:\s*(.*)$/m, text);
      if (osv) {
        var mm = /^(?:macOS|Mac OSX?|Mac OS X)\s+(\d+(?:\.\d+)*)/.exec(osv); if (mm) env.macos = mm[1];
        var am = /\((x86_64|arm64|aarch64|AMD64)\)\s*$/.exec(osv);
        env.os = mm ? "macos" : (/^microsoft windows/i.test(osv) ? "windows" : "linux");
        env.arch = am ? am[1].toLowerCase().replace("amd64", "x86_64") : null;
        if (env.arch === null) {  // the processor from "Python platform: Linux-...-aarch64-with-glibc2.35"
          var ap = /-(x86_64|arm64|aarch64|AMD64)(?:-|$)/.exec(first(/^Python platform:\s*(\S+)/m, text) || "");
          env.arch = ap ? ap[1].toLowerCase().replace("amd64", "x86_64") : null;
        }
        if (env.arch === null && env.os === "windows") {   // Windows: the processor of Python's own build, "[MSC v.1929 64 bit (AMD64)]"
          var aw = /\[MSC [^\]]*\((AMD64|ARM64)\)\]/.exec(first(/^Python version:\s*(.*)$/m, text) || "");
          env.arch = aw ? (aw[1] === "AMD64" ? "x86_64" : "aarch64") : null;
        }
        if (env.arch === "arm64" || env.arch === "aarch64") env.arch = env.os === "macos" ? "arm64" : "aarch64";
      }
      env.glibc = first(/^Libc version:\s*glibc-(\d+\.\d+)/m, text);
      var g = /^GPU models and configuration:[ \t]*(.*)\n((?:GPU \d+:.*\n?)*)/m.exec(text);
      if (g) {
        var names = g[1].trim() ? [g[1].trim()] : [];
        all(/^GPU \d+:\s*(.*)$/gm, g[2]).forEach(function (x) { names.push(x[1]); });
        names.forEach(function (n) {
          n = n.replace(/^GPU \d+:\s*/, "").trim();
          if (!na(n)) return;
          var gf = /\((gfx[0-9a-f]+)/.exec(n), dev = /^(?:AMD\s+)?Device\s+([0-9a-fA-F]{4})\b/.exec(n);
          if (dev) env.amd_pci.push(dev[1].toLowerCase());   // a ROCm build names a GPU by its PCI device id
          else if (gf) { env.gfx.push(gf[1]); env.amd_names.push(n.split("(")[0].trim()); }
          else if (/\b(amd|radeon|instinct)\b/i.test(n)) env.amd_names.push(n);
          else env.gpus.push(n);
        });
      }
      if (/^Is free-threading build:\s*True/m.test(text)) env.free_threaded = true;
    }
    var m = /^(?:\[(?:pip3?|conda)\]\s+)?torch\s*==\s*(\d+\.\d+\.\d+\S*)/im.exec(text);
    if (m) { if (fm.indexOf("collect_env") < 0) fm.push("pip"); env.torch = env.torch || m[1]; }
    else if (!env.torch) {
      m = /^torch\s*(?:>=|~=|===?)\s*(\d+\.\d+(?:\.\d+)?\S*)/im.exec(text);
      if (m) { fm.push("requirements"); env.torch = m[1]; }
      else {   // pip list: "torch    2.9.1+cu128"
        m = /^torch[ \t]+(\d+\.\d+\.\d+[^\s]*)[ \t]*$/im.exec(text);
        if (m) { fm.push("pip list"); env.torch = m[1]; }
        else {   // pip freeze of a wheel from a file or URL: "torch @ file:///w/torch-2.4.1%2Bcu121-cp311-...whl"
          m = /^torch[ \t]*@[ \t]*\S*?torch-(\d+\.\d+\.\d+)((?:%2B|\+)[A-Za-z0-9.]+)?-/im.exec(text);
          if (m) { fm.push("pip"); env.torch = m[1] + (m[2] ? "+" + m[2].slice(m[2][0] === "%" ? 3 : 1) : ""); }
        }
      }
    }
    if (/NVIDIA-SMI|Driver Version\s*:/.test(text)) {
      fm.push("nvidia-smi");
      env.driver = env.driver || first(/Driver Version\s*:\s*([\d.]+)/, text);
      smiRows(text).forEach(function (x) { env.gpus.push(x); });
      var pname = null;   // nvidia-smi -q / -a: the architecture of the GPU named above it
      all(/^(Product Name|Product Architecture)\s*:[ \t]*(.+)$/gm, text).forEach(function (x) {
        if (x[1] === "Product Name") { pname = x[2].trim(); env.gpus.push(pname); }
        else if (pname) env.gpu_archs[pname] = x[2].trim();
      });
    }
    capabilityWarnings(text).forEach(function (x) {
      if (fm.indexOf("torch warning") < 0) fm.push("torch warning");
      env.gpus.push(x[0]); env.gpu_cc[x[0]] = x[1];
    });
    smiList(text).forEach(function (x) { if (fm.indexOf("nvidia-smi") < 0) fm.push("nvidia-smi"); env.gpus.push(x); });
    var v = first(/^ProductVersion:\s*(\d+(?:\.\d+)*)/m, text);
    if (v && /^ProductName:\s*(macOS|Mac OS X)/m.test(text)) {
      fm.push("sw_vers"); env.macos = env.macos || v; env.os = env.os || "macos";
      if (env.arch === null) { var ua = /^(x86_64|arm64)[ \t]*$/m.exec(text); env.arch = ua ? ua[1] : null; }   // `uname -m`
    }
    // an agent's "Name: gfx942" line says it alone, also in an excerpt without rocminfo's headers
    if (/HSA System Attributes|HSA Agents|ROCk module|^\s*Name:\s*gfx[0-9a-f]+\s*$/m.test(text)) {
      fm.push("rocminfo");
      all(/^\s*Name:\s*(gfx[0-9a-f]+)\s*$/gm, text).forEach(function (x) { env.gfx.push(x[1]); });
      all(/^\s*Marketing Name:\s*(.+)$/gm, text).forEach(function (x) { if (/radeon|instinct|\bMI\d/i.test(x[1])) env.amd_names.push(x[1].trim()); });
    }
    if (/ROCm System Management Interface|AMD SMI|GFX Version/.test(text)) {
      fm.push("rocm-smi");
      all(/GFX Version:\s*(gfx[0-9a-f]+)/g, text).forEach(function (x) { env.gfx.push(x[1]); });
      all(/Card [Ss]eries:\s*(.+)$/gm, text).forEach(function (x) { env.amd_names.push(x[1].trim()); });
      all(/^\s*\d+\s+\d+\s+0x([0-9a-fA-F]{4}),/gm, text).forEach(function (x) { env.amd_pci.push(x[1].toLowerCase()); });
    }
    all(/\[1002:([0-9a-fA-F]{4})\]/g, text).forEach(function (x) {   // lspci -nn: AMD's vendor id 1002
      if (fm.indexOf("lspci") < 0) fm.push("lspci");
      env.amd_pci.push(x[1].toLowerCase());
    });
    env.rocm = env.rocm || first(/ROCm version:\s*(\d+\.\d+(?:\.\d+)?)/, text);
    env.python = env.python || first(/^Python (\d+\.\d+\.\d+)\s*$/m, text);   // `python -V`
    if (env.torch) {
      m = /\+cu(\d+)(\d)$/.exec(env.torch);
      if (m && !env.cuda) env.cuda = m[1] + "." + m[2];
      m = /\+rocm(\d+\.\d+)/.exec(env.torch);
      if (m && !env.rocm) env.rocm = m[1];
    }
    env.gpus = uniq(env.gpus); env.gfx = uniq(env.gfx); env.amd_names = uniq(env.amd_names); env.amd_pci = uniq(env.amd_pci);
    env.packages = installedPackages(text);
    return env;
  }

  // the words of a GPU name to match; a name cut short ("RTX 30...") loses its partial last word (atlas_check.name_words)
  function nameWords(name) {
    name = name.trim();
    var cut = /(\.\.\.|\u2026)$/.test(name), w = words(name.replace(/[.\u2026]+$/, ""));
    return cut ? w.slice(0, -1) : w;
  }
  function lookupGpu(name, table) {
    var w = nameWords(name), best = [], bestLen = 0;
    table.forEach(function (row) {
      var n = row.words.length;
      if (n < bestLen) return;
      for (var i = 0; i + n <= w.length; i++) {
        if (w.slice(i, i + n).join(" ") === row.words.join(" ")) {
          if (n > bestLen) { best = [row]; bestLen = n; } else best.push(row);
          return;
        }
      }
    });
    if (!best.length) return null;
    var key = "cc" in best[0] ? "cc" : "gfx";
    return uniq(best.map(function (r) { return r[key]; })).length === 1 ? best[0] : null;
  }
  // what the paste and the table tell of an NVIDIA GPU: {ccs, arch, inferred} (atlas_check.nvidia_gpu)
  function nvidiaGpu(name, env, gpus) {
    var cc = hasOwn(env.gpu_cc, name) ? env.gpu_cc[name] : null;
    if (cc) {
      // the generation whose first capability is the highest at or below it (not the table's order)
      var before = Object.keys(gpus.arch_ccs).filter(function (a) { return !cclt(cc, gpus.arch_ccs[a][0]); }), top = null;
      before.forEach(function (a) { if (top === null || cclt(gpus.arch_ccs[top][0], gpus.arch_ccs[a][0])) top = a; });
      return { ccs: [cc], arch: top, inferred: null };
    }
    var row = lookupGpu(name, gpus.nvidia);
    if (row) return { ccs: [row.cc], arch: row.arch, inferred: null };
    var arch = hasOwn(env.gpu_archs, name) ? env.gpu_archs[name] : null;
    if (arch) {
      var known = Object.keys(gpus.arch_ccs).filter(function (a) { return arch.split(/\s+/)[0].toLowerCase() === a.toLowerCase(); });
      if (known.length) return { ccs: gpus.arch_ccs[known[0]], arch: known[0], inferred: "arch" };
    }
    var w = nameWords(name), hits = [];
    gpus.series.forEach(function (sr) {
      var re = new RegExp("^(?:" + sr.number + ")$");
      for (var i = 0; i + 1 < w.length; i++) if (w[i] === sr.word && re.test(w[i + 1])) hits.push(sr);
    });
    if (hits.length && uniq(hits.map(function (h) { return h.series; })).length === 1) return { ccs: hits[0].ccs, arch: hits[0].arch, inferred: "series" };
    return null;
  }
  function gpuText(name, g) {   // a message (atlas_check.gpu_text)
    if (!g) return msg("check.found.gpu_unknown", { name: name });
    var sm = g.ccs.map(function (c) { return "sm_" + c.replace(".", ""); }).join("/");
    if (g.inferred) return msg("check.found.gpu_inferred", { name: name, sms: sm, arch: g.arch, how: msg("check.found.by_" + g.inferred) });
    return msg("check.found.gpu", { name: name, sms: sm, arch: g.arch });
  }
  // (name, compute capability) from the warnings torch prints for a GPU its wheel has no code for (atlas_check.capability_warnings)
  function capabilityWarnings(text) {
    var out = [];
    text.split("\n").forEach(function (ln) {
      var k = ln.indexOf(" with CUDA capability sm_"), m, name;
      if (k > 0) {
        m = /^(\d+)(\d)\b/.exec(ln.slice(k + 25)); name = ln.slice(0, k).split("Warning:").pop().trim();
        if (m && name) out.push([name, m[1] + "." + m[2]]);
        return;
      }
      k = ln.indexOf(" which is of cuda capability ");
      if (k > 0 && ln.slice(0, k).indexOf("Found GPU") >= 0) {
        m = /^(\d+)\.(\d+)/.exec(ln.slice(k + 29));
        name = ln.slice(ln.indexOf("Found GPU"), k).replace(/^Found GPU\d*\s*/, "").trim();
        if (m && name) out.push([name, m[1] + "." + m[2]]);
      }
    });
    return out;
  }
  // two or more collect_env reports pasted one after the other, as separate texts (atlas_check.split_pastes)
  function splitPastes(text) {
    var parts = [], cur = [], hasVersion = false;
    normalizePaste(text).split("\n").forEach(function (ln) {
      var version = ln.indexOf("PyTorch version:") === 0;
      if (hasVersion && (version || ln.indexOf("Collecting environment information") === 0)) { parts.push(cur.join("\n")); cur = []; hasVersion = false; }
      cur.push(ln); hasVersion = hasVersion || version;
    });
    parts.push(cur.join("\n"));
    parts = parts.filter(function (x) { return x.trim(); });
    return parts.length ? parts : [text];
  }
  // the checks that apply to the machine of the paste (atlas_check.applies)
  function applies(env) {
    var mac = env.os === "macos" || !!env.macos, nv = !!(env.gpus.length || env.driver || env.cuda);
    var amd = !!(env.gfx.length || env.amd_names.length || env.amd_pci.length || env.rocm), otherOs = env.os !== null && env.os !== "macos";
    var hide = {};
    if (!mac && (otherOs || nv || amd)) hide.macos_mps = 1;
    if (!amd && (mac || nv || env.os === "windows")) { hide.rocm_target = 1; hide.rocm_wheel = 1; }   // ROCm builds are Linux-only
    if (!nv && (mac || amd)) { hide.nvidia_driver = 1; hide.gpu_arch = 1; hide.cuda_wheel = 1; }
    return hide;
  }
  // nvidia-smi's table rows and -L lines, split by cells and words (linear in the line; see atlas_check.smi_rows)
  function smiRows(text) {
    var out = [];
    text.split("\n").forEach(function (ln) {
      var cells = ln.trim().split("|");
      if (cells.length < 3 || cells[0].trim()) return;
      var words = cells[1].split(/\s+/).filter(Boolean), bus = cells[2].trim();
      if (words.length >= 3 && /^\d+$/.test(words[0]) && ["On", "Off", "WDDM", "TCC"].indexOf(words[words.length - 1]) >= 0 &&
          /^[0-9A-Fa-f]{4,8}:/.test(bus)) out.push(words.slice(1, -1).join(" "));
    });
    return out;
  }
  function smiList(text) {
    var out = [];
    text.split("\n").forEach(function (ln) {
      var m = /^GPU \d+:/.exec(ln), k = m ? ln.indexOf("(UUID:", m[0].length) : -1;
      if (k >= 0 && ln.slice(m[0].length, k).trim()) out.push(ln.slice(m[0].length, k).trim());
    });
    return out;
  }
  // [major, shown] of a driver version; the Windows form 32.0.15.8129 is 581.29 (see atlas_check.driver_version)
  function driverVersion(drv) {
    var d = drv.trim(), m = /^(\d+)\.\d+\.(\d+)\.(\d+)$/.exec(d);
    if (m && parseInt(m[1], 10) >= 10) {
      var digits = (m[2] + m[3]).slice(-5);
      if (digits.length === 5) return [parseInt(digits.slice(0, 3), 10), digits.slice(0, 3) + "." + digits.slice(3)];
    }
    m = /^(\d{2,4})(?:\.\d+)*$/.exec(d);
    return m ? [parseInt(m[1], 10), d] : [null, drv];
  }
  function ccv(s) { return s.split(".").map(Number); }
  function cclt(a, b) { var x = ccv(a), y = ccv(b); for (var i = 0; i < Math.max(x.length, y.length); i++) { var d = (x[i] || 0) - (y[i] || 0); if (d) return d < 0; } return false; }

  function gpuRuns(cc, archs) {
    var p = cc.split(".");
    return archs.some(function (a) { var m = /^sm_(\d+)(\d)[a-z]?$/.exec(a); return m && m[1] === p[0] && parseInt(m[2], 10) <= parseInt(p[1], 10); });
  }

  // the packages a paste pins or lists (atlas_check.installed_packages): {canonical name: version without its local part}
  var PKG_PIN = /^(?:\[(?:pip3?|conda)\][ \t]+)?([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]*==[ \t]*(\d[^\s;#,]*)/gm;
  var VLLM_ENV = /^vLLM Version[ \t]*:[ \t]*v?(\d+\.\d+[^\s(]*)/m;
  // a package named with a colon on a line of its own: Lightning's environment report, "torch : 2.2.1" (atlas_check._PKG_COLON)
  var PKG_COLON = /^[ \t]*(?:[-*][ \t]+)?([A-Za-z][A-Za-z0-9._-]*)[ \t]*:[ \t]*v?(\d+\.\d+[^\s,;]*)[ \t]*$/gm;
  var PKG_LIST = /^(?:\[(?:pip3?|conda)\][ \t]+)?([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]+(\d+\.\d+[^\s]*)(?:[ \t].*)?$/gm;
  function canonical(name) { return name.replace(/[-_.]+/g, "-").toLowerCase(); }
  function installedPackages(text) {
    var out = {};
    [PKG_PIN, PKG_LIST, PKG_COLON].forEach(function (rx) {
      all(rx, text).forEach(function (m) { var k = canonical(m[1]); if (!hasOwn(out, k)) out[k] = m[2].split("+")[0]; });
    });
    var v = VLLM_ENV.exec(text);   // vLLM's own collect_env names its version on a line of its own
    if (v && !hasOwn(out, "vllm")) out.vllm = v[1].split("+")[0];
    return out;
  }
  // the packages built against torch that the paste shows, judged at release "to" (atlas_check.check_companions)
  function checkCompanions(rules, env, to, lang) {
    var C = rules.companions || {}, items = [], pins = [];
    (C.packages || []).forEach(function (pkg) {
      var have = hasOwn(env.packages || {}, canonical(pkg)) ? env.packages[canonical(pkg)] : null;
      if (!have) return;
      var facts = C.by_package[pkg], at = hasOwn(facts.at, to) ? facts.at[to] : { state: "none", newest: null };
      var minors = hasOwn(facts.versions, have) ? facts.versions[have] : false, verdict, note;
      var a = { "package": pkg, version: have, release: to, newest: at.newest };
      if (minors === false) { verdict = "unknown"; note = msg("check.companion.unread", a); }
      else if (minors === null) { verdict = "unknown"; note = msg("check.companion.undeclared", a); }
      else if (minors.indexOf(to) >= 0) { verdict = "ok"; note = msg("check.companion.ok", a); }
      else if (at.newest) { verdict = "install"; note = msg("check.companion.install", a); }
      else if (at.state === "undeclared") { verdict = "unknown"; note = msg("check.companion.target_undeclared", a); }
      else { verdict = "none"; note = msg("check.companion.none", a); }
      var install = verdict === "install" ? at.newest : null;
      if (install && !facts.pinned_by_torch) pins.push(pkg + "==" + install);   // torch's wheel brings the one it pins
      items.push({ "package": pkg, found: have, verdict: verdict, install: install, note: say(rules, "en", note), note_text: say(rules, lang, note) });
    });
    return { items: items, pip: pins.length ? "pip install torch==" + to + ".* " + pins.join(" ") : null, url: (C.url || {})[lang] || null };
  }

  // the build the paste's torch is (cu118, rocm6.1, cpu), from its local version or its CUDA (atlas_check.running_build)
  function runningBuild(env) {
    var m = /\+(cu\d+|rocm[\d.]+|cpu|xpu)\b/.exec(env.torch || "");
    if (m) return m[1];
    if (env.cuda) return "cu" + (env.cuda.match(/\d+/g) || []).slice(0, 2).join("");
    return null;
  }
  // the builds that could serve this machine (atlas_check.build_candidates)
  function buildCandidates(env, builds) {
    if (env.gpus.length || env.driver) return builds.filter(function (b) { return b.kind === "cuda"; });
    if (env.gfx.length || env.amd_names.length || env.amd_pci.length || env.rocm) return builds.filter(function (b) { return b.kind === "rocm"; });
    if (env.os === "macos" || env.macos) return [];   // the matrix's builds are Linux and Windows ones
    if (env.os === "windows") return builds.filter(function (b) { return b.kind === "cpu"; });   // plain pip on Windows: CPU
    var d = builds.filter(function (b) { return b.default; });
    return d.length ? d : builds.filter(function (b) { return b.kind === "cpu"; });
  }
  // the row plain pip install torch installs here: the CPU row on Windows, none on a Mac, else the default row
  function defaultBuild(env, builds) {
    if (env.os === "macos" || env.macos) return null;
    if (env.os === "windows") return builds.filter(function (b) { return b.kind === "cpu"; })[0] || null;
    return builds.filter(function (b) { return b.default; })[0] || null;
  }
  function major(v) { var m = /^\d+/.exec(String(v || "")); return m ? parseInt(m[0], 10) : null; }
  // build b of release v on this machine: [blocking messages, checks not judged] (atlas_check.judge_build)
  function judgeBuild(rules, env, v, b) {
    var fr = env.torch ? releaseOf(env.torch, rules.releases) : [null, null];
    if (fr[0] === v && !fr[1] && runningBuild(env) === b.build) return [[], []];
    var blocked = [], unknown = [];
    if (b.kind === "cuda") {
      var need = env.os === "windows" ? b.driver_windows : b.driver_linux;
      if (env.driver) {
        var have = driverVersion(env.driver)[0];
        if (have === null || need === null || need === undefined) unknown.push("nvidia_driver");
        else if (have < major(need)) blocked.push(msg("check.note.build_driver", { build: b.build, version: need }));
      }
      if (env.gpus.length) {
        var gp = rules.env.gpus, rows = env.gpus.map(function (g) { return nvidiaGpu(g, env, gp); });
        var floor = (gp.toolkit_min_cc || {})[(b.cuda || "").split(".")[0]] || null, low;
        if (b.archs && b.archs.length) low = rows.filter(function (r) { return r && !r.ccs.some(function (c) { return gpuRuns(c, b.archs); }); });
        else low = rows.filter(function (r) { return r && floor && r.ccs.every(function (c) { return cclt(c, floor); }); });
        if (low.length) blocked.push(msg("check.note.build_arch", { build: b.build, sms: low[0].ccs.map(function (c) { return "sm_" + c.replace(".", ""); }).join("/") }));
        else if (!(b.archs && b.archs.length) || rows.some(function (r) { return !r; })) unknown.push("gpu_arch");
      }
    }
    return [blocked, unknown];
  }
  // Whether an item the paste shows nothing for leaves the newest release unjudged: Python always,
  // the driver and the GPU when the answer is a CUDA build (missing_fact in the Python engine).
  function missingFact(check, build) {
    return check === "python" || (!!build && build.kind === "cuda" && (check === "nvidia_driver" || check === "gpu_arch"));
  }

  // the newest release none of whose items is blocked and one of whose builds runs here, with that
  // build and its pip command; the newest whose default wheel runs; what blocks the release after it
  // (atlas_check.newest_runnable)
  function newestRunnable(rules, env, lang) {
    var after = null, best = null, defaultWheel = null, rel = rules.releases;
    for (var i = rel.length - 1; i >= 0; i--) {
      var v = rel[i], items = checkEnvParsed(rules, env, v, lang);
      var cands = buildCandidates(env, rules.env.releases[v].builds || []);
      var byBuild = cands.some(function (b) { return b.kind === "cuda"; });
      // the installed CUDA / ROCm build is a choice of wheel, not the machine (atlas_check.BUILD_CHOICES);
      // with a build matrix, each build decides the driver and the GPU (atlas_check.BUILD_ITEMS)
      var skip = { cuda_wheel: 1, rocm_wheel: 1 };
      if (byBuild) { skip.nvidia_driver = 1; skip.gpu_arch = 1; }
      var blocked = items.filter(function (x) { return x.verdict === "blocked" && !skip[x.check]; });
      var judged = cands.map(function (b) { var j = judgeBuild(rules, env, v, b); return [b, j[0], j[1]]; });
      var runs = judged.filter(function (j) { return !j[1].length; });
      runs.sort(function (x, y) {
        return (x[2].length - y[2].length) || ((x[0].default ? 0 : 1) - (y[0].default ? 0 : 1)) ||
          (parseFloat(y[0].cuda || 0) - parseFloat(x[0].cuda || 0));
      });
      var dflt = defaultBuild(env, rules.env.releases[v].builds || []);
      if (!blocked.length && defaultWheel === null) {   // what plain pip install torch gets here (atlas_check.default_build)
        var dj = judged.filter(function (j) { return j[0] === dflt; })[0];
        var amd = !!(env.gfx.length || env.amd_names.length || env.amd_pci.length || env.rocm);
        if ((!dj || !dj[1].length) && !(amd && dflt && dflt.kind === "cuda")) defaultWheel = { release: v, build: dflt ? dflt.build : null, pip: dflt ? dflt.pip : "pip install torch==" + v + ".*" };
      }
      if (!blocked.length && (runs.length || !cands.length)) {
        if (best === null) {
          var r0 = runs.length ? runs[0] : [null, [], []], b0 = r0[0];
          var found = items.filter(function (x) { return x.verdict === "unknown" && x.found && !skip[x.check]; }).map(function (x) { return x.check; });
          var missing = items.filter(function (x) { return x.verdict === "unknown" && !x.found && missingFact(x.check, b0); }).map(function (x) { return x.check; });
          var unk = [];
          missing.concat(found, r0[2]).forEach(function (c) { if (unk.indexOf(c) < 0) unk.push(c); });
          best = { release: v, build: b0 ? b0.build : null, pip: b0 ? b0.pip : "pip install torch==" + v + ".*", "default": !b0 || b0 === dflt, unknown: unk, blocked_by: after };
        }
        if (defaultWheel !== null) break;
        continue;
      }
      if (best === null) {
        var out = blocked.map(function (x) { return { check: x.check, found: x.found, note: x.note, url: x.url, note_text: x.note_text }; });
        if (!blocked.length) {   // every build is blocked: the reasons, build by build
          var why = [];
          judged.forEach(function (j) { why = why.concat(j[1]); });
          var note = msg("check.note.no_build", { release: v, builds: why });
          out = [{ check: "build", found: null, note: say(rules, "en", note), url: rules.release_urls[v][lang], note_text: say(rules, lang, note) }];
        }
        after = { release: v, items: out };
      }
    }
    if (best === null) best = { release: null, build: null, pip: null, "default": false, unknown: [], blocked_by: after };
    best.default_wheel = defaultWheel;
    return best;
  }

  function checkEnvParsed(rules, env, to, lang) {
    var E = rules.env, facts = E.releases[to], links = facts.links, items = [];
    var upto = rules.releases.filter(function (v) { return vcmp(v, to) <= 0; });
    function url(cid) { return cid ? E.changes[cid].url[lang] : rules.release_urls[to][lang]; }
    // found (a value or a message) and note (a message) in English, and in lang beside them (check_env's item)
    function item(check, found, verdict, cid, note) {
      cid = cid || null;
      items.push({ check: check, found: say(rules, "en", found) || null, verdict: verdict, change: cid, title: cid ? E.changes[cid].title[lang] : null,
        url: url(cid), note: say(rules, "en", note), found_text: say(rules, lang, found) || null, note_text: say(rules, lang, note) });
    }
    function droppedIn(key, value) {
      for (var i = 0; i < upto.length; i++) {
        var lst = (E.releases[upto[i]][key] || []).map(String);
        if (lst.indexOf(value) >= 0) return E.releases[upto[i]].links[key] || null;
      }
      return false;
    }
    var py = env.python;
    if (!py) item("python", null, "unknown", null, msg("check.note.no_python"));
    else if (!facts.python_min || !facts.python_max) item("python", py, "unknown", null, msg("check.note.no_python_range", { release: to }));
    else {
      var xy = py.split(".").slice(0, 2).join("."), shown = py + (env.free_threaded ? "t" : "");
      // a blocked row names the change that dropped this Python, in whichever release on the way it was (check_env)
      var dropped = null;
      upto.forEach(function (v) {
        var m = E.releases[v].python_min, c = E.releases[v].links.python_min;
        if (m && c && !dropped && cclt(xy, m)) dropped = c;
      });
      var oldest = E.releases[rules.releases[0]].python_min;   // dropped before the oldest release known here
      if (cclt(xy, facts.python_min) && oldest && cclt(xy, oldest)) item("python", shown, "blocked", null, msg("check.note.python_before", { release: rules.releases[0], version: oldest, python: xy }));
      else if (cclt(xy, facts.python_min)) item("python", shown, "blocked", dropped || links.python_min, msg("check.note.python_min", { release: to, version: facts.python_min }));
      else if (cclt(facts.python_max, xy)) item("python", shown, "blocked", links.python_max, msg("check.note.python_max", { release: to, version: facts.python_max }));
      else if (env.free_threaded && facts.python_free_threaded !== null && facts.python_free_threaded.indexOf(xy + "t") < 0) item("python", shown, "blocked", links.python_min, msg("check.note.no_free_threaded", { version: xy + "t" }));
      else item("python", shown, "ok", links.python_min);
    }
    var drv = env.driver;
    if (!drv) item("nvidia_driver", null, "unknown", null, msg("check.note.no_driver"));
    else if (facts.nvidia_min_driver === null) item("nvidia_driver", drv, "unknown", null, msg("check.note.no_driver_req", { release: to }));
    else {
      var dv = driverVersion(drv);
      if (dv[0] === null) item("nvidia_driver", drv, "unknown", null, msg("check.note.driver_unreadable"));
      else {
        var ok = dv[0] >= parseInt(facts.nvidia_min_driver, 10);
        item("nvidia_driver", dv[1] === drv ? drv : dv[1] + " (" + drv + ")", ok ? "ok" : "blocked", links.nvidia_min_driver, ok ? null : msg("check.note.driver_min", { release: to, version: facts.nvidia_min_driver }));
      }
    }
    if (!env.gpus.length) item("gpu_arch", null, "unknown", null, msg("check.note.no_gpu"));
    else {   // a GPU is judged when every compute capability it may have gets the same verdict
      var rows = env.gpus.map(function (g) { return [g, nvidiaGpu(g, env, E.gpus)]; });
      var found = rows.map(function (x) { return gpuText(x[0], x[1]); });
      var archs = facts.nvidia_archs;
      var judge = function (runs, blocked, mixed) {   // check_env's judge: one verdict for every GPU
        var low = rows.filter(function (x) { return x[1] && !x[1].ccs.some(runs); });
        if (low.length) item("gpu_arch", found, "blocked", links.nvidia_min_arch, blocked(low[0][1]));
        else if (rows.some(function (x) { return !x[1]; })) item("gpu_arch", found, "unknown", null, msg("check.note.gpu_not_in_table"));
        else if (rows.some(function (x) { return !x[1].ccs.every(runs); })) item("gpu_arch", found, "unknown", null, mixed);
        else item("gpu_arch", found, "ok", links.nvidia_min_arch);
      };
      // the GPU code the wheel holds: a GPU runs code of its own major version and an equal or lower minor
      if (archs && archs.length) judge(function (c) { return gpuRuns(c, archs); },
        function (r) { return msg("check.note.wheel_archs", { release: to, archs: archs.join(" "), sms: r.ccs.map(function (c) { return "sm_" + c.replace(".", ""); }).join("/") }); },
        msg("check.note.wheel_archs_mixed", { release: to }));
      else if (facts.nvidia_min_cc === null) item("gpu_arch", found, "unknown", null, msg("check.note.no_gpu_req", { release: to }));
      else judge(function (c) { return !cclt(c, facts.nvidia_min_cc); },
        function () { return msg("check.note.arch_min", { release: to, arch: facts.nvidia_min_arch }); },
        msg("check.note.arch_min_mixed", { release: to, arch: facts.nvidia_min_arch }));
    }
    var mac = env.macos;
    if (!mac) item("macos_mps", null, "unknown", null, msg("check.note.no_macos"));
    else if (facts.macos_min_mps === null) item("macos_mps", mac, "unknown", null, msg("check.note.no_macos_req", { release: to }));
    else {
      var mok = parseInt(mac, 10) >= parseInt(String(facts.macos_min_mps), 10);
      item("macos_mps", mac, mok ? "ok" : "blocked", links.macos_min_mps, mok ? null : msg("check.note.macos_min", { release: to, version: facts.macos_min_mps }));
    }
    var gfx = env.gfx.slice();
    env.amd_names.forEach(function (n) { var r = lookupGpu(n, E.gpus.amd); if (r) gfx.push(r.gfx); });
    (env.amd_pci || []).forEach(function (d) { if (E.gpus.amd_pci_ids[d]) gfx.push(E.gpus.amd_pci_ids[d]); });
    gfx = uniq(gfx);
    if (!gfx.length) {
      var unk = env.amd_names.length || (env.amd_pci || []).length;
      item("rocm_target", unk ? env.amd_names.concat(env.amd_pci.map(function (d) { return msg("check.found.pci", { id: d }); })) : null, "unknown", null,
        unk ? msg("check.note.amd_not_in_table") : msg("check.note.no_amd"));
    } else if (!(facts.rocm_wheels || facts.rocm_dropped_targets)) item("rocm_target", gfx.join(", "), "unknown", null, msg("check.note.no_rocm_facts", { release: to }));
    else {
      var bad = gfx.map(function (g) { return [g, droppedIn("rocm_dropped_targets", g)]; }).filter(function (x) { return x[1] !== false; });
      if (bad.length) item("rocm_target", gfx.join(", "), "blocked", bad[0][1], msg("check.note.gfx_dropped", { target: bad[0][0] }));
      else item("rocm_target", gfx.join(", "), "ok", links.rocm_dropped_targets);
    }
    var rocm = env.rocm;
    if (!rocm) item("rocm_wheel", null, "unknown", null, msg("check.note.no_rocm"));
    else if (facts.rocm_wheels === null) item("rocm_wheel", rocm, "unknown", null, msg("check.note.no_rocm_wheels", { release: to }));
    else {
      var rxy = (rocm.match(/\d+/g) || []).slice(0, 2).join(".");
      if (facts.rocm_wheels.map(String).indexOf(rxy) >= 0) item("rocm_wheel", rocm, "ok", links.rocm_wheels);
      else item("rocm_wheel", rocm, "blocked", droppedIn("rocm_dropped_wheels", rxy) || links.rocm_wheels, msg("check.note.rocm_wheels", { release: to, versions: facts.rocm_wheels.join(", ") }));
    }
    var cuda = env.cuda;
    if (!cuda) item("cuda_wheel", null, "unknown", null, msg("check.note.no_cuda"));
    else if (facts.cuda_wheels === null) {
      var exy = (cuda.match(/\d+/g) || []).slice(0, 2).join(".");
      var ended = droppedIn("cuda_ended", exy);  // a release on the way ended this CUDA build
      if (ended !== false) item("cuda_wheel", cuda, "blocked", ended, msg("check.note.cuda_ended", { version: exy, release: to }));
      else item("cuda_wheel", cuda, "unknown", null, msg("check.note.no_cuda_wheels", { release: to }));
    }
    else {
      var cxy = (cuda.match(/\d+/g) || []).slice(0, 2).join(".");
      if (facts.cuda_wheels.indexOf(cxy) >= 0) item("cuda_wheel", cuda, "ok", cxy === facts.cuda_wheels[0] ? links.cuda_default_wheel : links.cuda_other_wheels);
      else {
        var cdrop = droppedIn("cuda_dropped_wheels", "cu" + cxy.replace(".", ""));
        var cend = cdrop ? false : droppedIn("cuda_ended", cxy);  // a release on the way ended this CUDA build
        if (cend) item("cuda_wheel", cuda, "blocked", cend, msg("check.note.cuda_ended", { version: cxy, release: to }));
        else item("cuda_wheel", cuda, "blocked", cdrop || links.cuda_default_wheel, msg("check.note.cuda_wheels", { release: to, versions: facts.cuda_wheels.join(", ") }));
      }
    }
    // the platform: a wheel on PyPI for this OS and processor at all (the registry's file list), and
    // the oldest glibc or macOS that wheel installs on; only when the paste names the OS and processor
    var plat = E.platform || {};
    var fam = env.os && env.arch ? env.os + "-" + env.arch : null;
    var label = (plat.labels || {})[fam] || fam;  // atlas/wheel/extract.FAMILIES
    var wheels = facts.wheels || null;
    var pcid = (plat.changes || {})[fam] || (env.os === "linux" ? (facts.glibc_change || null) : null);
    if (fam && wheels) {
      if (!(fam in wheels)) {
        var lastw = null;
        upto.slice().reverse().some(function (v) { if (fam in (E.releases[v].wheels || {})) { lastw = v; return true; } return false; });
        item("platform", label, "blocked", pcid, lastw ? msg("check.note.no_platform_wheel_last", { release: lastw }) : msg("check.note.no_platform_wheel"));
      } else {
        var floors = wheels[fam];
        var pxy = env.python ? env.python.split(".").slice(0, 2).join(".") + (env.free_threaded ? "t" : "") : null;
        var vals = Object.keys(floors).map(function (k) { return floors[k]; }).filter(Boolean);
        var need = pxy !== null && pxy in floors ? floors[pxy] : (vals.length ? vals.reduce(function (m, x) { return cclt(x, m) ? x : m; }) : "");
        var have = env.os === "linux" ? env.glibc : (env.os === "macos" ? env.macos : null);
        var what = env.os === "linux" ? "glibc" : (env.os === "macos" ? "macOS" : null);
        if (!need || what === null) item("platform", label, "ok", pcid);
        else if (!have) item("platform", label, "unknown", pcid, msg("check.note.no_os_version", { what: what }));
        else {
          var pok = !cclt(have, need);
          item("platform", label + ", " + what + " " + have, pok ? "ok" : "blocked", pcid, pok ? null : msg("check.note.platform_min", { release: to, what: what, version: need }));
        }
      }
    } else if (fam) {
      item("platform", label, "unknown", null, msg("check.note.platforms_unread", { release: to }));
    }
    var hide = applies(env);
    return items.filter(function (x) { return !hide[x.check]; });
  }

  // one report per paste; two pastes in one text give {schema_version, pastes: [...]} (atlas_check main_env)
  function checkEnv(rules, text, opts) {
    var reports = splitPastes(text).map(function (t) { return envReport(rules, t, opts); });
    return reports.length === 1 ? reports[0] : { schema_version: 1, pastes: reports };
  }
  function envReport(rules, text, opts) {
    opts = opts || {};
    var to = opts.to || rules.releases[rules.releases.length - 1], lang = opts.lang || "en";
    var env = parseEnv(text), items = checkEnvParsed(rules, env, to, lang);
    var fr = env.torch ? releaseOf(env.torch, rules.releases) : [null, msg("check.note.no_torch")];
    var up = fr[0] && vcmp(fr[0], to) < 0 ? rules.upgrade_url[lang].replace("{old}", fr[0]).replace("{new}", to) : null;
    return { schema_version: 1, from: fr[0], to: to, torch: env.torch, from_note: say(rules, "en", fr[1]) || null, from_note_text: say(rules, lang, fr[1]) || null, upgrade_url: up, formats: env.formats, items: items, newest: newestRunnable(rules, env, lang), companions: checkCompanions(rules, env, to, lang) };
  }

  // a row of a package list without its header (atlas_check.LIST_LINE)
  var LIST_LINE = /^(?:-\s+)?[A-Za-z][\w.\-]*(?:\s{2,}|\s*:\s*)v?\d[\w.+!-]*(?:\s+\S+){0,2}$/;
  function detectKind(text) {   // read as parseEnv reads it (atlas_check.detect_kind)
    text = normalizePaste(text);
    var markers = [/^PyTorch version:/m, /NVIDIA-SMI \d/, /Driver Version\s*:/, /^ProductVersion:/m, /HSA System Attributes/,
      /ROCm System Management Interface/, /^GPU \d+: .*\(UUID:/m, /^Marketing Name:/m, /^Is CUDA available:/m,
      /^Package[ \t]+Version[ \t]*$/m, / with CUDA capability sm_\d/, / which is of cuda capability \d/, /\[1002:[0-9a-fA-F]{4}\]/,
      /^Product Architecture:/m, /^Versions of relevant libraries/m, /^\[(?:pip3?|conda)\] \S/m];
    if (markers.some(function (r) { return r.test(text); })) return "env";
    var lines = text.split("\n").map(function (x) { return x.trim(); }).filter(function (x) { return x && x[0] !== "#"; });
    if (!lines.length) return "code";
    var req = lines.filter(function (x) { return /^(?:-e\s+\S+|--[\w-]+.*|[A-Za-z0-9][\w.\-]*(?:\[[\w,\s-]*\])?\s*(?:(?:===|==|>=|<=|~=|!=|<|>|=(?=\d)|@)\s*[\w.*+!<>=,~ -]+|@\s*[A-Za-z][\w+.-]*:\/\/\S+))$/.test(x) || LIST_LINE.test(x); }).length;
    return req * 2 > lines.length ? "env" : "code";
  }

  // node: many cases in one call (tests/test_check_js.py, scripts/dev/check_eval.py)
  function batch(p) {
    var out = { code: [], env: [] };
    (p.code || []).forEach(function (c) {
      var input = c.bytes ? c.bytes : c.text !== null && c.text !== undefined ? Array.from(c.text, function (ch) { return ch.charCodeAt(0); }) : c.source;
      if (c.source !== undefined && c.source !== null) input = c.source;
      out.code.push(checkCode(p.rules, input, { from: c.from, to: c.to, lang: c.lang, path: c.path, notes: c.notes }));
    });
    (p.fix || []).forEach(function (c) { (out.fix = out.fix || []).push(fixCode(p.rules, c.source, { from: c.from, to: c.to, lang: c.lang, path: c.path })); });
    (p.env || []).forEach(function (e) { out.env.push(checkEnv(p.rules, e.text, { to: e.to, lang: e.lang })); });
    (p.detect || []).forEach(function (t) { (out.detect = out.detect || []).push(detectKind(t)); });
    return out;
  }

  var api = { say: say, msg: msg, checkCode: checkCode, fixCode: fixCode, checkEnv: checkEnv, splitPastes: splitPastes, parseEnv: parseEnv, detectKind: detectKind, releaseOf: releaseOf, ruleSeverity: ruleSeverity, batch: batch, tokenize: tokenize, vcmp: vcmp };
  if (typeof module !== "undefined" && module.exports) module.exports = api; else root.AtlasCheck = api;
})(typeof self !== "undefined" ? self : this);
