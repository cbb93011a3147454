/* The order editor of the HTML result sheet (docs/players.md).
   Plain JavaScript without a build step or library: nothing to fetch, small,
   and readable by any player who wants to know what runs in the page.
   It reads the JSON data of the page (wdg/reports/editor.py: legal choices
   of every army and of the kingdom, reach and costs from the forecast),
   builds the form, draws the planned paths on the map and writes the sheet's
   text. Text is only ever set as text (textContent, value): no markup is
   built from data. */
(function () {
  "use strict";
  var src = document.getElementById("ed-data");
  if (!src || !window.JSON) { return; }
  var D = JSON.parse(src.textContent), C = D.choices;
  var form = document.getElementById("ed-form"), out = document.getElementById("ed-text");
  var note = document.getElementById("ed-note"), mail = document.getElementById("ed-mail");
  var SVGNS = "http://www.w3.org/2000/svg";
  var COLOURS = ["#1a3c8f", "#b03a2e", "#117a65", "#7d3c98", "#b9770e", "#0e6655"];
  var armies = [], kslots = [], texts = [], pw, goldBox, focus = null;

  function el(tag, attrs, kids) {
    var e = document.createElement(tag), k;
    for (k in attrs || {}) {
      if (k === "text") { e.textContent = attrs[k]; } else { e.setAttribute(k, attrs[k]); }
    }
    (kids || []).forEach(function (c) { if (c) { e.appendChild(c); } });
    return e;
  }
  function gs(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, "."); }
  /* amounts and shares as on the sheets: the unit after a no-break space */
  var NB = "\u00a0";
  function money(n) { return gs(n) + NB + "GS"; }
  function pct(n) { return n + NB + "%"; }
  function minus(n) { return n < 0 ? "−" + gs(-n) : gs(n); }
  function n4(n) { return ("000" + n).slice(-4); }
  function oneLine(s) { return String(s).replace(/[\r\n\u2028\u2029]+/g, " "); }
  function select(options, id) {
    var s = el("select", id ? {id: id} : {});
    options.forEach(function (o) {
      var opt = el("option", {value: o[0], text: o[1]});
      s.appendChild(opt);
    });
    return s;
  }
  function number(min, max, value) {
    return el("input", {type: "number", min: min, max: max, step: 1, value: value});
  }
  function intOf(input, min, max) {
    var v = parseInt(input.value, 10);
    if (isNaN(v)) { return null; }
    return Math.max(min, Math.min(max, v));
  }

  /* -- one order: a select of the legal codes and the widget of its parameter */
  function Order(list, army, part) {
    this.list = list; this.army = army; this.part = part;
    var opts = [["", "– kein Befehl –"]];
    list.forEach(function (c, i) { opts.push([String(i), c.code + " – " + c.label]); });
    this.sel = select(opts);
    this.sel.setAttribute("aria-label", part === "K" ? "Königreichbefehl" : "Phase " + part);
    this.param = el("span");
    this.cost = el("span", {"class": "ed-cost"});
    var self = this;
    this.sel.addEventListener("change", function () { self.build(); update(); });
    this.sel.addEventListener("focus", function () { focus = army; drawReach(); });
  }
  Order.prototype.choice = function () {
    return this.sel.value === "" ? null : this.list[+this.sel.value];
  };
  Order.prototype.build = function () {
    var c = this.choice(), p = this.param, self = this, w = {};
    while (p.firstChild) { p.removeChild(p.firstChild); }
    this.w = w;
    if (!c || !c.param || c.param === "fixed") { return; }
    if (c.param === "count") {
      w.n = number(c.min, c.max, c.code === "nr" ? Math.min(100, c.max) : c.min);
      w.n.setAttribute("aria-label", "Anzahl");
      p.appendChild(w.n);
    } else if (c.param === "gold") {
      w.n = number(c.min, c.max, 1000);
      w.n.setAttribute("aria-label", "Goldsterne");
      p.appendChild(w.n); p.appendChild(document.createTextNode(NB + "GS"));
    } else if (c.param === "choice") {
      w.s = select(c.options.map(function (o, i) {
        return [o, c.names ? o + " – " + c.names[i] : o];
      }));
      p.appendChild(w.s);
    } else if (c.param === "name") {
      w.t = el("input", {type: "text", maxlength: c.max, size: c.max + 2, "aria-label": "Name"});
      p.appendChild(w.t);
    } else if (c.param === "reach") {
      var r = this.army.reach.filter(function (x) { return !c.targets || c.targets.indexOf(x.to) >= 0; });
      w.s = select(r.map(function (x) {
        return [x.to, x.to + " · " + x.dirs + " · " + pct(x.cost) +
          (x.stops ? " · hält dort" : "") + (x.lost ? " · verirrt sich zu " + pct(x.lost) : "")];
      }));
      w.s.setAttribute("aria-label", "Ziel");
      w.reach = r;
      p.appendChild(w.s);
    } else if (c.param === "settle") {
      w.s = select(c.options.map(function (o) { return [o, o + " (×" + c.factor[o] + ")"]; }));
      w.n = number(c.min, c.max, c.max);
      w.n.setAttribute("aria-label", "Baueinheiten");
      p.appendChild(w.s); p.appendChild(w.n); p.appendChild(document.createTextNode(" BE"));
    } else if (c.param === "diplomacy") {
      w.s = select(c.options.map(function (o) {
        var name = D.names[o.kingdom] ? oneLine(D.names[o.kingdom]) + ", " : "";
        return [String(o.kingdom), "Königreich " + o.kingdom + " (" + name + "Status " + o.status + ")"];
      }));
      w.d = el("select", {"aria-label": "Änderung"});
      var steps = function () {
        var o = c.options[w.s.selectedIndex];
        while (w.d.firstChild) { w.d.removeChild(w.d.firstChild); }
        o.steps.forEach(function (st) { w.d.appendChild(el("option", {value: st, text: st})); });
      };
      w.s.addEventListener("change", steps);
      steps();
      p.appendChild(w.s); p.appendChild(w.d);
    }
    [w.n, w.s, w.t, w.d].forEach(function (x) {
      if (x) {
        x.addEventListener("input", update); x.addEventListener("change", update);
        x.addEventListener("focus", function () { focus = self.army; drawReach(); });
      }
    });
  };
  /* the order's text ("" for none) and its gold */
  Order.prototype.text = function () {
    var c = this.choice(), w = this.w || {}, v;
    if (!c) { return ["", 0]; }
    switch (c.param) {
      case undefined: return [c.code, c.cost || 0];
      case "fixed": return [c.code + " " + c.value, 0];
      case "count":
        v = intOf(w.n, c.min, c.max);
        return v === null ? ["", 0] : [c.code + " " + v, (c.each || 0) * v];
      case "gold":
        v = intOf(w.n, c.min, c.max);
        return v === null ? ["", 0] : [c.code + " " + v, v];
      case "choice": return [c.code + " " + w.s.value, c.cost || 0];
      case "name":
        v = w.t.value.replace(/\/\/|[#;"„“”]/g, "").trim().slice(0, c.max);
        return v ? [c.code + " " + v, 0] : ["", 0];
      case "reach":
        v = w.reach[w.s.selectedIndex];
        return v ? [c.code + " " + v.dirs, 0] : ["", 0];
      case "settle":
        v = intOf(w.n, c.min, c.max);
        return v === null ? ["", 0] :
          [c.code + " " + w.s.value + " " + v, v * c.each * c.factor[w.s.value]];
      case "diplomacy": return [c.code + " " + w.s.value + " " + w.d.value, 0];
    }
    return ["", 0];
  };

  /* -- the form */
  function row(label, kids) {
    return el("div", {"class": "ed-row"}, [el("label", {text: label})].concat(kids));
  }
  function armyBlock(a, i) {
    var desc = a.passive ? "passiv" + (a.general ? ", Feldherr " + a.general : "") :
      a.position + " · " + (a.troop || "ohne Feldherrn") + ", " + gs(a.units) + " Rüstgüter" +
      (a.general ? " · Feldherr " + a.general : "");
    var A = new Order(a.a, a, "A"), B = new Order(a.b, a, "B");
    a.A = A; a.B = B; a.colour = COLOURS[i % COLOURS.length];
    var kids = [el("legend", {text: "Heer " + n4(a.number) + " · " + oneLine(desc)}),
      row("Phase A", [A.sel, A.param, A.cost])];
    if (!a.passive) { kids.push(row("Phase B", [B.sel, B.param, B.cost])); }
    var f = el("fieldset", {"class": "ed-army", id: "ed-army-" + n4(a.number)}, kids);
    A.sel.id = "ed-a-" + n4(a.number); B.sel.id = "ed-b-" + n4(a.number);
    return f;
  }
  function kBlock() {
    var k = C.kingdom, kids = [el("legend", {text: "Königreichbefehle (erlaubt: " + k.limit +
      ", " + k.palaces + (k.palaces === 1 ? " Palast)" : " Paläste)")})];
    for (var i = 0; i < k.limit; i++) {
      var o = new Order(k.orders, null, "K");
      o.sel.id = "ed-k-" + (i + 1);
      kslots.push(o);
      kids.push(row((i + 1) + ". Befehl", [o.sel, o.param, o.cost]));
    }
    return el("fieldset", {"class": "ed-k"}, kids);
  }
  function textBlock(kind) {
    var t = {kind: kind, area: el("textarea", {rows: 4, cols: 60, maxlength: D.limits.text,
      "aria-label": kind === "B" ? "Text der Botschaft" : "Text der Bekanntmachung"})};
    var kids = [el("legend", {text: kind === "B" ? "Botschaft" : "Bekanntmachung"})];
    if (kind === "B") {
      t.to = select(C.recipients.map(function (r) {
        return [String(r), "an " + (D.names[r] ? oneLine(D.names[r]) + " (" + r + ")" : "Königreich " + r)];
      }));
      t.to.setAttribute("aria-label", "Empfänger");
      kids.push(row("Empfänger", [t.to]));
    }
    var drop = el("button", {type: "button", "class": "ed-add", text: "Entfernen"});
    kids.push(t.area, el("div", {}, [drop]));
    t.box = el("fieldset", {"class": "ed-msg"}, kids);
    drop.addEventListener("click", function () {
      texts.splice(texts.indexOf(t), 1); t.box.parentNode.removeChild(t.box); update();
    });
    [t.area, t.to].forEach(function (x) { if (x) { x.addEventListener("input", update); x.addEventListener("change", update); } });
    texts.push(t);
    return t.box;
  }
  /* a message line the sheet's parser would read as structure (ENDE, a
     section, an army, a header, a quote or signature) gets "- " before it */
  var RISKY = /^\s*(?:>|\|>|--|__|ende\b|n(?:ä|ae)chster\b|(?:heer|armee|flotte)\b|botschaft\b|bekanntmachung\b|heeresbefehle\b|k(?:ö|oe)nigreichs?befehle\b|[hk]\s*(?::|$)|(?:am|on)\b.*\b(?:schrieb|wrote)\b|(?:von|from)\s*:)/i;
  var KEYS = ["segment", "koenigreich", "reich", "passwort", "kennwort", "mond", "monat"];
  function fold(s) { return s.toLowerCase().replace(/ä/g, "ae").replace(/ö/g, "oe").replace(/ü/g, "ue").replace(/ß/g, "ss"); }
  function safeLine(line) {
    var code = line.split(/#|;|\/\//)[0], i = code.indexOf(":");
    var key = i < 0 ? "" : fold(code.slice(0, i)).replace(/\s+/g, "");
    var header = key.length > 0 && KEYS.some(function (k) { return k === key || (key.length >= 3 && k.indexOf(key) === 0); });
    return RISKY.test(code) || RISKY.test(line) || header ? "- " + line : line;
  }
  function messageLines(text) {
    var lines = [];
    text.replace(/\r\n?|[\u2028\u2029]/g, "\n").split("\n").forEach(function (l) {
      for (l = safeLine(l); l.length > D.limits.line; l = l.slice(D.limits.line)) {
        lines.push(l.slice(0, D.limits.line));
      }
      lines.push(l);
    });
    while (lines.length && !lines[lines.length - 1].trim()) { lines.pop(); }
    while (lines.length && !lines[0].trim()) { lines.shift(); }
    return lines;
  }

  /* -- the sheet's text and the gold */
  function update() {
    var L = ["# Spielzug für Welt der Götter - Segment " + D.segment,
      "# " + oneLine(D.month_long + ", Königreich " + D.kingdom + " (" + D.name + ")"),
      "Segment: " + D.segment, "Königreich: " + D.kingdom,
      "Passwort: " + oneLine(pw.value).trim(), "Mond: " + D.month, "", "H: Heeresbefehle"];
    var cost = 0, fixed = 0;
    var taken = {};
    armies.forEach(function (a) {
      var ta = a.A.text(), whole = a.A.choice() && a.A.choice().whole;
      a.A.cost.className = "ed-cost";
      /* one general is on offer, a fleet carries one army: the first order counts */
      if (ta[0] === "nf" || /^bs /.test(ta[0])) {
        if (taken[ta[0]]) { ta = ["", 0]; a.A.cost.className = "ed-bad"; }
        taken[ta[0]] = true;
      }
      a.B.sel.disabled = !!whole;
      if (whole && a.B.sel.value !== "") { a.B.sel.value = ""; a.B.build(); }
      var tb = a.B.text();
      L.push("", "Heer " + n4(a.number) + " " + a.position);
      if (ta[0]) { L.push("A: " + ta[0]); }
      if (tb[0]) { L.push("B: " + tb[0]); }
      a.A.cost.textContent = a.A.cost.className === "ed-bad" ? "schon einem anderen Heer befohlen" :
        ta[1] ? money(ta[1]) : "";
      cost += ta[1];
      fixed += a.running;
    });
    L.push("", "K: Königreichbefehle");
    var usedDs = {};
    kslots.forEach(function (o) {
      var t = o.text(), c = o.choice();
      if (c && c.code === "DS") {
        if (usedDs[o.w.s.value]) { o.cost.textContent = "nur ein DS je Königreich"; o.cost.className = "ed-bad"; return; }
        usedDs[o.w.s.value] = 1;
      }
      o.cost.className = "ed-cost";
      o.cost.textContent = t[1] ? money(t[1]) : "";
      if (t[0]) { L.push(t[0]); cost += t[1]; }
    });
    texts.forEach(function (t) {
      var lines = messageLines(t.area.value);
      if (!lines.length) { return; }
      L.push("", t.kind === "B" ? "BOTSCHAFT " + t.to.value : "BEKANNTMACHUNG");
      L.push.apply(L, lines);
      L.push("ENDE");
    });
    out.value = L.join("\n") + "\n";
    /* what the orders may spend: the treasury less pay, upkeep and the orders;
       the month's income comes only at its end */
    var left = C.treasury - fixed - cost, end = left + C.income;
    goldBox.textContent = "Reichsschatz " + money(C.treasury) + " − Sold und Unterhalt " +
      money(fixed) + " − Befehle " + money(cost) + " = " + minus(left) + NB + "GS; mit den Einnahmen am Ende des Mondes (" +
      money(C.income) + ") voraussichtlich " + minus(end) + NB + "GS" + (left < 0 ? ". Es fehlt Gold: Befehle werden verweigert." : "");
    goldBox.className = "ed-gold" + (left < 0 ? " ed-short" : "");
    note.textContent = pw.value.trim() ? "" : "Bitte das Passwort eintragen.";
    if (mail) {
      mail.href = "mailto:" + D.address + "?subject=" + encodeURIComponent("Spielzug " + D.segment +
        " Königreich " + D.kingdom + " " + D.month) + "&body=" + encodeURIComponent(out.value);
    }
    drawPlan();
  }

  /* -- the map: planned paths and the focused army's reach */
  /* a gemark's row and column (province blocks of 8 x 6, docs/addresses.md),
     its neighbour in a direction (odd rows shifted right), its centre on a map */
  function cell(addr) {
    var p = addr.split("."), prov = +p[0], g = +p[1] - 1;
    return [(Math.floor(prov / 100) - 1) * 6 + Math.floor(g / 8), (prov % 100 - 1) * 8 + g % 8];
  }
  var STEP = {NW: [-1, -1, 0], NO: [-1, 0, 1], W: [0, -1, -1], O: [0, 1, 1], SW: [1, -1, 0], SO: [1, 0, 1]};
  function path(from, dirs) {
    var rc = cell(from), out = [rc];
    dirs.split(" ").forEach(function (d) {
      var s = STEP[d], odd = rc[0] & 1;
      rc = [rc[0] + s[0], rc[1] + (s[0] ? (odd ? s[2] : s[1]) : s[1])];
      out.push(rc);
    });
    return out;
  }
  function centre(m, rc) {
    var s = m.s, w = Math.sqrt(3) * s;
    return [s + w * (rc[1] - m.c0 + 0.5 * (rc[0] & 1)) + w / 2, 2 * s + 1.5 * s * (rc[0] - m.r0)];
  }
  function layers(cls) {
    var svgs = document.querySelectorAll(".mappage .map svg"), got = [];
    for (var i = 0; i < svgs.length && i < D.maps.length; i++) {
      var g = svgs[i].querySelector("g." + cls);
      if (!g) { g = document.createElementNS(SVGNS, "g"); g.setAttribute("class", cls); svgs[i].appendChild(g); }
      while (g.firstChild) { g.removeChild(g.firstChild); }
      got.push([D.maps[i], g]);
    }
    return got;
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    return e;
  }
  /* the armies' number tags below the end's hexagon: a gemark's number is in
     its top part (exploration.py), its lower neighbours' numbers lie 0.6 s and
     more to the side and the next one straight below starts 2.27 s down, so a
     column of tags 0.3 s apart from 0.8 s below the centre covers none of them;
     TAGS fit, the last one says "+n" when more paths end there */
  var TAGS = 5, TAG = 0.27;
  function drawPlan() {
    layers("ed-plan").forEach(function (mg) {
      var m = mg[0], g = mg[1], ends = {}, total = {};
      var plans = armies.map(function (a) {
        var c = a.B.choice(), w = a.B.w || {}, r = w.reach && w.s ? w.reach[w.s.selectedIndex] : null;
        if (!c || c.param !== "reach" || !r) { return null; }
        total[r.to] = (total[r.to] || 0) + 1;
        return [c, r];
      });
      armies.forEach(function (a, i) {
        if (!plans[i]) { return; }
        var c = plans[i][0], r = plans[i][1];
        /* each army's line a little apart, so that paths on the same gemarks all show */
        var off = ((i % 4) - 1.5) * m.s * 0.18;
        var pts = path(a.position, r.dirs).map(function (x) { var p = centre(m, x); return [p[0] + off, p[1] + off]; });
        var k = ends[r.to] = (ends[r.to] || 0) + 1;
        g.appendChild(svgEl("polyline", {points: pts.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "),
          stroke: a.colour, "stroke-width": m.s * 0.35, "stroke-opacity": 0.85, "stroke-dasharray": c.code === "e" ? "3,2" : "none"}));
        var end = pts[pts.length - 1];
        g.appendChild(svgEl("circle", {cx: end[0].toFixed(1), cy: end[1].toFixed(1), r: m.s * 0.35, fill: a.colour}));
        if (k > TAGS) { return; }
        var more = k === TAGS && total[r.to] > TAGS, at = centre(m, cell(r.to));
        var t = svgEl("text", {x: at[0].toFixed(1), y: (at[1] + m.s * (0.8 + 0.3 * (k - 1))).toFixed(1),
          fill: more ? "#333" : a.colour, "font-size": (m.s * TAG).toFixed(1), "text-anchor": "middle",
          stroke: "#fff", "stroke-width": (m.s * 0.08).toFixed(1), "paint-order": "stroke"});
        t.textContent = more ? "+" + (total[r.to] - TAGS + 1) : n4(a.number);
        g.appendChild(t);
      });
    });
  }
  function drawReach() {
    layers("ed-reachable").forEach(function (mg) {
      var m = mg[0], g = mg[1];
      if (!focus) { return; }
      focus.reach.forEach(function (x) {
        var p = centre(m, cell(x.to)), dot = svgEl("circle", {cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: m.s * 0.22, "class": "ed-reach"});
        var tip = svgEl("title", {});
        tip.textContent = "Heer " + n4(focus.number) + " erreicht " + x.to + " (" + pct(x.cost) + ")";
        dot.appendChild(tip);
        dot.addEventListener("click", function () { pick(focus, x.to); });
        g.appendChild(dot);
      });
    });
  }
  /* a click on a reachable gemark: move there (b), or keep e if it may be taken */
  function pick(a, to) {
    var B = a.B, i, code = B.choice() ? B.choice().code : "b";
    for (i = 0; i < a.b.length; i++) {
      if (a.b[i].code === code && a.b[i].param === "reach" && (!a.b[i].targets || a.b[i].targets.indexOf(to) >= 0)) { break; }
    }
    if (i === a.b.length) { for (i = 0; i < a.b.length && a.b[i].code !== "b"; i++) {} }
    if (i === a.b.length || B.sel.disabled) { return; }
    if (B.sel.value !== String(i)) { B.sel.value = String(i); B.build(); }
    B.w.s.value = to;
    update();
  }

  /* -- start */
  pw = el("input", {type: "password", id: "ed-pw", autocomplete: "off", size: 20, "aria-label": "Passwort"});
  goldBox = el("p", {"class": "ed-gold", "aria-live": "polite"});
  form.appendChild(el("p", {"class": "ed-hint", text: "Nur Befehle, die Ihre Heere und Ihr Reich nach Ihrem Wissensstand geben können; Wege und Kosten sind eine Vorschau. Der Text unten entsteht aus dieser Auswahl."}));
  form.appendChild(row("Passwort", [pw]));
  form.appendChild(goldBox);
  C.armies.forEach(function (a, i) { armies.push(a); form.appendChild(armyBlock(a, i)); });
  form.appendChild(kBlock());
  var texts_box = el("div");
  var addB = el("button", {type: "button", "class": "ed-add", id: "ed-add-msg", text: "Botschaft hinzufügen"});
  var addA = el("button", {type: "button", "class": "ed-add", id: "ed-add-ann", text: "Bekanntmachung hinzufügen"});
  addB.addEventListener("click", function () { texts_box.appendChild(textBlock("B")); update(); });
  addA.addEventListener("click", function () { texts_box.appendChild(textBlock("A")); update(); });
  if (!C.recipients.length) { addB.disabled = true; }
  form.appendChild(texts_box);
  form.appendChild(el("p", {}, [addB, addA]));
  pw.addEventListener("input", update);
  out.readOnly = true;
  form.hidden = false;
  document.getElementById("ed-tools").hidden = false;
  document.getElementById("ed-intro").textContent = "Wählen Sie die Befehle; der Text des Spielzugs darunter entsteht daraus. Kopieren Sie ihn in eine E-Mail an den Segmentleiter" + (D.address ? " oder senden Sie ihn mit dem Verweis unten." : ".");
  document.getElementById("ed-copy").addEventListener("click", function () {
    out.readOnly = false; out.select(); out.readOnly = true;
    var done = function () { note.textContent = "Text kopiert."; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(out.value).then(done, function () { document.execCommand("copy"); done(); });
    } else { document.execCommand("copy"); done(); }
  });
  update();
}());
