/* The order editor of the HTML result sheet (docs/players.md).
   Plain JavaScript without a build step or library: nothing to fetch, small,
   and readable by any player who wants to know what runs in the page.
   It reads the JSON data of the page (wdg/reports/editor.py: legal choices
   of every army and of the kingdom, reach and costs from the forecast),
   builds the form, draws the planned paths on the map and writes the sheet's
   text. Text is only ever set as text (textContent, value): no markup is
   built from data. */
/* it starts once the page is read: the maps it draws on come after it */
(function (start) {
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
}(function () {
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
  /* a number field shows exactly what was typed: it is checked, never clamped */
  function number(min, max, value) {
    return el("input", {type: "text", inputmode: "numeric", autocomplete: "off", size: 9,
      "data-min": min, "data-max": max, value: value});
  }
  function range(min, max) { return "ganze Zahl von " + gs(min) + " bis " + gs(max); }
  /* [value, error]: a whole number in min..max, or the reason it is refused */
  function intOf(input, min, max) {
    var raw = input.value.trim();
    if (raw === "") { return [null, "Angabe fehlt (" + range(min, max) + ")"]; }
    if (!/^[0-9]+$/.test(raw)) {
      return [null, "„" + raw + "“ ist keine " + (/^-/.test(raw) ? "erlaubte Zahl" : "ganze Zahl in Ziffern") +
        "; erlaubt: " + range(min, max)];
    }
    var v = parseInt(raw, 10);
    if (v < min || v > max) { return [null, gs(v) + " liegt außerhalb des Erlaubten: " + range(min, max)]; }
    return [v, ""];
  }
  /* why a name cannot be written as given ("" when it can) */
  function nameError(raw, max) {
    var marks = D.limits.comment.filter(function (m) { return raw.indexOf(m) >= 0; });
    if (marks.length) {
      return "„" + marks[0] + "“ kann nicht im Namen stehen (ab dort läse die Auswertung einen Kommentar)";
    }
    var q = raw.match(/["„“”]/);
    if (q) { return "Anführungszeichen („" + q[0] + "“) können nicht im Namen stehen"; }
    if (raw.trim().length > max) {
      return "Der Name hat " + raw.trim().length + " Zeichen, erlaubt sind " + max;
    }
    return "";
  }

  /* -- one order: a select of the legal codes and the widget of its parameter */
  function Order(list, army, part) {
    this.list = list; this.army = army; this.part = part;
    var opts = [["", "– kein Befehl –"]];
    list.forEach(function (c, i) { opts.push([String(i), c.code + " – " + c.label]); });
    this.sel = select(opts);
    /* every field says whose it is, whatever is chosen (issue #42) */
    this.name = part === "K" ? "Königreichbefehl" : "Heer " + n4(army.number) + ", Phase " + part;
    this.sel.setAttribute("aria-label", this.name);
    this.param = el("span");
    this.cost = el("span", {"class": "ed-cost"});
    this.err = el("span", {"class": "ed-err", role: "alert"});
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
      w.n.setAttribute("aria-label", this.name + ": " + c.label + " (Anzahl, " + range(c.min, c.max) + ")");
      p.appendChild(w.n);
    } else if (c.param === "gold") {
      w.n = number(c.min, c.max, 1000);
      w.n.setAttribute("aria-label", this.name + ": " + c.label + " (Goldsterne, " + range(c.min, c.max) + ")");
      p.appendChild(w.n); p.appendChild(document.createTextNode(NB + "GS"));
    } else if (c.param === "choice") {
      w.s = select(c.options.map(function (o, i) {
        return [o, c.names ? o + " – " + c.names[i] : o];
      }));
      w.s.setAttribute("aria-label", this.name + ": " + c.label);
      p.appendChild(w.s);
    } else if (c.param === "name") {
      w.t = el("input", {type: "text", size: c.max + 2, "aria-label": this.name + ": " + c.label + " (Name, bis " + c.max + " Zeichen)"});
      p.appendChild(w.t);
    } else if (c.param === "reach") {
      var r = this.army.reach.filter(function (x) { return !c.targets || c.targets.indexOf(x.to) >= 0; });
      w.s = select(r.map(function (x) {
        return [x.to, x.to + " · " + x.dirs + " · " + pct(x.cost) +
          (x.stops ? " · hält dort" : "") + (x.lost ? " · verirrt sich zu " + pct(x.lost) : "")];
      }));
      w.s.setAttribute("aria-label", this.name + ": " + c.label + " (Ziel)");
      w.reach = r;
      p.appendChild(w.s);
    } else if (c.param === "settle") {
      w.s = select(c.options.map(function (o) { return [o, o + " (×" + c.factor[o] + ")"]; }));
      w.s.setAttribute("aria-label", this.name + ": " + c.label + " (Gemark)");
      w.n = number(c.min, c.max, c.max);
      w.n.setAttribute("aria-label", this.name + ": " + c.label + " (Baueinheiten, " + range(c.min, c.max) + ")");
      p.appendChild(w.s); p.appendChild(w.n); p.appendChild(document.createTextNode(" BE"));
    } else if (c.param === "diplomacy") {
      w.s = select(c.options.map(function (o) {
        var name = D.names[o.kingdom] ? oneLine(D.names[o.kingdom]) + ", " : "";
        return [String(o.kingdom), "Königreich " + o.kingdom + " (" + name + "Status " + o.status + ")"];
      }));
      w.s.setAttribute("aria-label", this.name + ": Diplomatiestatus ändern (Königreich)");
      w.d = el("select", {"aria-label": this.name + ": Diplomatiestatus ändern (Änderung)"});
      w.steps = function () {
        var o = c.options[w.s.selectedIndex];
        while (w.d.firstChild) { w.d.removeChild(w.d.firstChild); }
        o.steps.forEach(function (st) { w.d.appendChild(el("option", {value: st, text: st})); });
      };
      w.s.addEventListener("change", w.steps);
      w.steps();
      p.appendChild(w.s); p.appendChild(w.d);
    }
    [w.n, w.s, w.t, w.d].forEach(function (x) {
      if (x) {
        x.addEventListener("input", update); x.addEventListener("change", update);
        x.addEventListener("focus", function () { focus = self.army; drawReach(); });
      }
    });
  };
  /* [text, gold, why not]: the order's text ("" for none) and its gold; an
     order whose parameter is refused is not written, the reason is shown */
  Order.prototype.text = function () {
    var c = this.choice(), w = this.w || {}, v, e;
    if (!c) { return ["", 0, ""]; }
    switch (c.param) {
      case undefined: return [c.code, c.cost || 0, ""];
      case "fixed": return [c.code + " " + c.value, 0, ""];
      case "count":
        v = intOf(w.n, c.min, c.max);
        return v[1] ? ["", 0, v[1], c.code + " " + w.n.value] : [c.code + " " + v[0], (c.each || 0) * v[0], ""];
      case "gold":
        v = intOf(w.n, c.min, c.max);
        return v[1] ? ["", 0, v[1], c.code + " " + w.n.value] : [c.code + " " + v[0], v[0], ""];
      case "choice": return [c.code + " " + w.s.value, c.cost || 0, ""];
      case "name":
        v = w.t.value.trim(); e = v ? nameError(w.t.value, c.max) : "Angabe fehlt: der neue Name";
        return e ? ["", 0, e, c.code + " " + v] : [c.code + " " + v, 0, ""];
      case "reach":
        v = w.reach[w.s.selectedIndex];
        return v ? [c.code + " " + v.dirs, 0, ""] : ["", 0, ""];
      case "settle":
        v = intOf(w.n, c.min, c.max);
        return v[1] ? ["", 0, v[1], c.code + " " + w.s.value + " " + w.n.value] :
          [c.code + " " + w.s.value + " " + v[0], v[0] * c.each * c.factor[w.s.value], ""];
      case "diplomacy": return [c.code + " " + w.s.value + " " + w.d.value, 0, ""];
    }
    return ["", 0, ""];
  };
  /* the error in place: the field is marked and says why nothing is written */
  Order.prototype.showError = function (t) {
    var f = (this.w || {}).n || (this.w || {}).t;
    if (f) { f.setAttribute("aria-invalid", t[2] ? "true" : "false"); f.className = t[2] ? "ed-invalid" : ""; }
    this.err.textContent = t[2] ? t[2] + " – nicht in den Spielzug geschrieben." : "";
  };
  /* the line for a refused order: a comment, so the sheet stays true */
  function refusedLine(prefix, t) {
    return "# nicht geschrieben: " + prefix + oneLine(t[3] || "") + " (" + t[2] + ")";
  }
  /* set the order from its text (a loaded sheet); false if the form cannot show it */
  Order.prototype.set = function (words, rest) {
    var code = (words[0] || "").toLowerCase(), i, c, w, k;
    for (i = 0; i < this.list.length; i++) {
      if (this.list[i].code.toLowerCase() === code) { break; }
    }
    if (i === this.list.length) { return "„" + words[0] + "“ ist hier keine der angebotenen Möglichkeiten"; }
    c = this.list[i];
    this.sel.value = String(i); this.build(); w = this.w;
    var arg = words[1] || "", bad = function () {
      return "„" + words.join(" ") + "“ ist keine der angebotenen Möglichkeiten";
    };
    switch (c.param) {
      case undefined: return words.length === 1 ? "" : bad();
      case "fixed": return words.length === 2 && arg.toUpperCase() === String(c.value).toUpperCase() ? "" : bad();
      case "count": case "gold": w.n.value = words.slice(1).join(" "); return "";
      case "name": w.t.value = rest.replace(/^\s*\S+\s*/, ""); return "";
      case "choice":
        k = [arg, arg.toUpperCase(), /^[0-9]{1,4}$/.test(arg) ? ("000" + arg).slice(-4) : arg].filter(function (x) {
          return c.options.indexOf(x) >= 0;
        });
        if (words.length !== 2 || !k.length) { return bad(); }
        w.s.value = k[0]; return "";
      case "reach":
        var dirs = words.slice(1).join(" ").toUpperCase();
        for (k = 0; k < w.reach.length && w.reach[k].dirs !== dirs; k++) {}
        if (k === w.reach.length) { return "der Weg „" + dirs + "“ ist keines der erreichbaren Ziele dieses Heeres"; }
        w.s.selectedIndex = k; return "";
      case "settle":
        if (c.options.indexOf(arg) < 0 || words.length !== 3) { return bad(); }
        w.s.value = arg; w.n.value = words[2]; return "";
      case "diplomacy":
        for (k = 0; k < c.options.length && String(c.options[k].kingdom) !== arg; k++) {}
        if (k === c.options.length || words.length !== 3 || c.options[k].steps.indexOf(words[2]) < 0) { return bad(); }
        w.s.selectedIndex = k; w.steps(); w.d.value = words[2]; return "";
    }
    return bad();
  };
  Order.prototype.clear = function () { this.sel.value = ""; this.build(); };

  /* -- the form */
  function row(label, kids) {
    return el("div", {"class": "ed-row"}, [el("label", {text: label})].concat(kids));
  }
  function armyBlock(a, i) {
    var gen = a.general ? "Feldherr " + a.general + (a.wizard ? " (Zauberer)" : "") : "";
    var desc = a.passive ? "passiv" + (gen ? ", " + gen : "") :
      a.position + " · " + (a.troop || "ohne Feldherrn") + ", " + gs(a.units) + " Rüstgüter" +
      (gen ? " · " + gen : "");
    var A = new Order(a.a, a, "A"), B = new Order(a.b, a, "B");
    a.A = A; a.B = B; a.colour = COLOURS[i % COLOURS.length]; a.extra = [];
    var kids = [el("legend", {text: "Heer " + n4(a.number) + " · " + oneLine(desc)}),
      row("Phase A", [A.sel, A.param, A.cost, A.err])];
    if (!a.passive) {
      kids.push(row("Phase B", [B.sel, B.param, B.cost, B.err]));
      kids.push(el("a", {href: "#karte", "class": "ed-tomap", text: "zur Karte"}));
    }
    /* pay the treasury cannot pay: the forecast's deserters of this army */
    var gone = C.gold.deserters[String(a.number)];
    if (gone) {
      kids.push(el("p", {"class": "ed-bad", text: "Sold und Unterhalt reichen nicht: voraussichtlich desertieren " +
        gs(gone) + (gone === 1 ? " Rüstgut" : " Rüstgüter") + " zu Beginn des Mondes."}));
    }
    /* what the month would not carry out is not offered; the reason stays readable */
    if ((a.left_out || []).length) {
      kids.push(el("details", {"class": "ed-left"}, [
        el("summary", {text: "Nicht angeboten (" + a.left_out.length + ")"}),
        el("ul", {}, a.left_out.map(function (x) { return el("li", {text: x.code + ": " + x.why}); }))]));
    }
    var f = el("fieldset", {"class": "ed-army", id: "ed-army-" + n4(a.number)}, kids);
    A.sel.id = "ed-a-" + n4(a.number); B.sel.id = "ed-b-" + n4(a.number);
    return f;
  }
  function kBlock() {
    var k = C.kingdom, kids = [el("legend", {text: "Königreichbefehle (erlaubt: " + k.limit +
      ", " + k.palaces + (k.palaces === 1 ? " Palast)" : " Paläste)")})];
    for (var i = 0; i < k.limit; i++) {
      var o = new Order(k.orders, null, "K");
      o.name = (i + 1) + ". Königreichbefehl";
      o.sel.setAttribute("aria-label", o.name);
      o.sel.id = "ed-k-" + (i + 1);
      kslots.push(o);
      kids.push(row((i + 1) + ". Befehl", [o.sel, o.param, o.cost, o.err]));
    }
    return el("fieldset", {"class": "ed-k"}, kids);
  }
  function textBlock(kind, to, body) {
    var t = {kind: kind, area: el("textarea", {rows: 4, cols: 60,
      "aria-label": kind === "B" ? "Text der Botschaft" : "Text der Bekanntmachung"}),
      err: el("span", {"class": "ed-err", role: "alert"})};
    var kids = [el("legend", {text: kind === "B" ? "Botschaft" : "Bekanntmachung"})];
    if (kind === "B") {
      t.to = select(C.recipients.map(function (r) {
        return [String(r), "an " + (D.names[r] ? oneLine(D.names[r]) + " (" + r + ")" : "Königreich " + r)];
      }));
      t.to.setAttribute("aria-label", "Empfänger");
      if (to !== undefined) { t.to.value = to; }
      kids.push(row("Empfänger", [t.to]));
    }
    if (body) { t.area.value = body; }
    var drop = el("button", {type: "button", "class": "ed-add", text: "Entfernen"});
    kids.push(t.area, el("div", {}, [drop, t.err]));
    t.box = el("fieldset", {"class": "ed-msg"}, kids);
    drop.addEventListener("click", function () {
      texts.splice(texts.indexOf(t), 1); t.box.parentNode.removeChild(t.box); update();
    });
    [t.area, t.to].forEach(function (x) { if (x) { x.addEventListener("input", update); x.addEventListener("change", update); } });
    texts.push(t);
    texts_box.appendChild(t.box);
    return t;
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
  function sheetText() {
    var L = ["# Spielzug für Welt der Götter - Segment " + D.segment,
      "# " + oneLine(D.month_long + ", Königreich " + D.kingdom + " (" + D.name + ")"),
      "Segment: " + D.segment, "Königreich: " + D.kingdom,
      "Passwort: " + oneLine(pw.value).trim(), "Mond: " + D.month];
    L.push.apply(L, extra.head);
    L.push("", "H: Heeresbefehle");
    var spends = {A: [], K: []}, taken = {};
    armies.forEach(function (a) {
      var ta = a.A.text(), whole = a.A.choice() && a.A.choice().whole;
      a.A.cost.className = "ed-cost";
      /* one general is on offer, a fleet carries one army: the first order counts */
      if (ta[0] === "nf" || /^bs /.test(ta[0])) {
        if (taken[ta[0]]) { ta = ["", 0, ""]; a.A.cost.className = "ed-bad"; }
        taken[ta[0]] = true;
      }
      a.B.sel.disabled = !!whole;
      if (whole && a.B.sel.value !== "") { a.B.sel.value = ""; a.B.build(); }
      var tb = a.B.text();
      a.A.showError(ta); a.B.showError(tb);
      L.push("", "Heer " + n4(a.number) + " " + a.position);
      if (ta[0]) { L.push("A: " + ta[0]); } else if (ta[2]) { L.push(refusedLine("A: ", ta)); }
      if (tb[0]) { L.push("B: " + tb[0]); } else if (tb[2]) { L.push(refusedLine("B: ", tb)); }
      L.push.apply(L, a.extra);
      a.A.cost.textContent = a.A.cost.className === "ed-bad" ? "schon einem anderen Heer befohlen" : "";
      a.B.cost.textContent = "";
      if (ta[0] && ta[1]) { spends.A.push([a.A, ta[1]]); }
    });
    L.push.apply(L, extra.armies);
    L.push("", "K: Königreichbefehle");
    var usedDs = {};
    kslots.forEach(function (o) {
      var t = o.text(), c = o.choice();
      o.showError(t);
      if (c && c.code === "DS") {
        if (usedDs[o.w.s.value]) { o.cost.textContent = "nur ein DS je Königreich"; o.cost.className = "ed-bad"; return; }
        usedDs[o.w.s.value] = 1;
      }
      o.cost.className = "ed-cost";
      o.cost.textContent = "";
      if (t[0]) { L.push(t[0]); if (t[1]) { spends.K.push([o, t[1]]); } } else if (t[2]) { L.push(refusedLine("", t)); }
    });
    L.push.apply(L, extra.kingdom);
    texts.forEach(function (t) {
      var lines = messageLines(t.area.value), n = lines.join("\n").length;
      t.err.textContent = n > D.limits.text ? "Der Text hat " + gs(n) + " Zeichen, erlaubt sind " +
        gs(D.limits.text) + " – nicht in den Spielzug geschrieben." : "";
      if (!lines.length || t.err.textContent) { return; }
      L.push("", t.kind === "B" ? "BOTSCHAFT " + t.to.value : "BEKANNTMACHUNG");
      L.push.apply(L, lines);
      L.push("ENDE");
    });
    if (extra.tail.length) { L.push(""); L.push.apply(L, extra.tail); }
    return [L.join("\n") + "\n", spends];
  }
  /* the month's treasury in order, as the engine's month spends it (the
     forecast's gold plan, wdg/orders/forecast.py gold_plan): pay and upkeep
     first (what the treasury cannot pay is unpaid, soldiers desert), then the
     orders that cost gold in the engine's sequence (K in the sheet's order,
     Phase A by army number); an order is carried out only if the treasury
     holds its whole price, else the month refuses it; the income comes at the
     end. Each order shows its price or the refusal the forecast foresees. */
  function walkGold(spends) {
    var G = C.gold, left = G.after_pay, spent = 0, refused = 0;
    G.sequence.forEach(function (part) {
      spends[part].forEach(function (s) {
        var o = s[0], price = s[1];
        if (left !== null && price > left) {
          refused += 1;
          o.cost.className = "ed-bad";
          o.cost.textContent = money(price) + " – voraussichtlich verweigert: im Reichsschatz sind dann nur " + money(left);
        } else {
          o.cost.className = "ed-cost";
          o.cost.textContent = money(price);
          spent += price;
          if (left !== null) { left -= price; }
        }
      });
    });
    return {spent: spent, refused: refused, left: left, end: left === null ? null : left + G.income};
  }
  /* the form changed: write the text from it; fromText: the text was typed
     or loaded and stays as it is (the form shows what it could read of it) */
  function update(fromText) {
    var got = sheetText(), G = C.gold, w = walkGold(got[1]), deserting = 0, k;
    if (fromText !== true) { out.value = got[0]; }
    for (k in G.deserters) { deserting += G.deserters[k]; }
    if (G.start === null) {
      goldBox.textContent = "Reichsschatz unbekannt (die Ansicht enthält ihn nicht); Befehle " + money(w.spent) + ".";
      goldBox.removeAttribute("data-end");
    } else {
      goldBox.textContent = "Reichsschatz " + money(G.start) + " − Sold und Unterhalt " + money(G.paid) +
        (G.unpaid ? " (" + money(G.unpaid) + " bleiben unbezahlt" + (deserting ? ": voraussichtlich desertieren " +
          gs(deserting) + " Rüstgüter" : "") + ")" : "") +
        " − Befehle " + money(w.spent) + " = " + money(w.left) + "; mit den Einnahmen am Ende des Mondes (" +
        money(G.income) + ") voraussichtlich " + money(w.end) +
        (w.refused ? ". Voraussichtlich verweigert, weil das Gold nicht reicht: " + w.refused +
          (w.refused === 1 ? " Befehl (an ihm vermerkt)." : " Befehle (an ihnen vermerkt).") : ".");
      goldBox.setAttribute("data-end", String(w.end));
    }
    goldBox.className = "ed-gold" + (w.refused || G.unpaid ? " ed-short" : "");
    note.textContent = pw.value.trim() ? "" : "Bitte das Passwort eintragen.";
    if (mail) {
      mail.href = "mailto:" + D.address + "?subject=" + encodeURIComponent("Spielzug " + D.segment +
        " Königreich " + D.kingdom + " " + D.month) + "&body=" + encodeURIComponent(out.value);
    }
    save();
    drawPlan();
  }

  /* -- reading a sheet back into the form (typed into the text field, pasted,
     loaded from a file or kept from the last visit). The form shows what it
     can; every other line is kept unchanged in the text and listed, and the
     checker (wdg orders check) remains the judge of the sheet. */
  var extra = {head: [], armies: [], kingdom: [], tail: []};
  var HEAD = /^\s*(segment|k(?:ö|oe)nigreich|reich|passwort|kennwort|mond|monat)\s*:\s*(.*?)\s*$/i;
  function code(line) { return line.split(/#|;|\/\//)[0].replace(/\s+$/, ""); }
  function readSheet(text) {
    var lines = text.replace(/\r\n?|[\u2028\u2029]/g, "\n").split("\n");
    var part = "head", army = null, msg = null, problems = [], shown = 0, mine = {}, seen = {};
    armies.forEach(function (a) { mine[a.number] = a; a.A.clear(); a.B.clear(); a.extra = []; });
    kslots.forEach(function (o) { o.clear(); });
    texts.slice().forEach(function (t) { t.box.parentNode.removeChild(t.box); });
    texts.length = 0;
    extra = {head: [], armies: [], kingdom: [], tail: []};
    var k = 0;
    function keep(where, n, line, why) {
      where.push(line);
      problems.push("Zeile " + (n + 1) + ": " + line.trim() + " – " + why);
    }
    lines.forEach(function (raw, n) {
      var line = code(raw), m, words, why, o;
      if (msg) {
        if (/^\s*ende\s*$/i.test(line)) {
          textBlock(msg.kind, msg.to, msg.lines.join("\n")); msg = null; shown += 1;
        } else {
          msg.lines.push(raw.slice(0, 2) === "- " && safeLine(raw.slice(2)) === raw ? raw.slice(2) : raw);
        }
        return;
      }
      if (!line.trim()) { return; }
      if ((m = line.match(/^\s*botschaft\s+([0-9]+)\s*$/i)) && C.recipients.indexOf(+m[1]) >= 0) {
        msg = {kind: "B", to: String(+m[1]), lines: []}; return;
      }
      if (/^\s*bekanntmachung\s*$/i.test(line)) { msg = {kind: "A", lines: []}; return; }
      if ((m = line.match(HEAD))) {
        var key = fold(m[1]);
        if (key === "passwort" || key === "kennwort") { pw.value = m[2]; return; }
        var want = {segment: D.segment, koenigreich: String(D.kingdom), reich: String(D.kingdom),
          mond: D.month, monat: D.month}[key];
        if (String(m[2]).toLowerCase() !== want.toLowerCase()) {
          problems.push("Zeile " + (n + 1) + ": " + line.trim() + " – dieses Formular ist für " +
            m[1] + " " + want + " und schreibt das");
        }
        return;
      }
      if (/^\s*h\s*:/i.test(line)) { part = "H"; army = null; return; }
      if (/^\s*k\s*:/i.test(line)) { part = "K"; army = null; return; }
      if ((m = line.match(/^\s*(?:heer|armee|flotte)\s+([0-9]{1,4})\b/i))) {
        part = "H"; army = mine[+m[1]] || null;
        if (army) { seen[army.number] = true; } else {
          keep(extra.armies, n, raw, "kein Heer Ihres Reiches; die Zeilen bis zum nächsten Heer bleiben im Text");
          army = {extra: extra.armies, unknown: true};
        }
        return;
      }
      if (army && army.unknown) { army.extra.push(raw); return; }
      if (part === "H" && army && (m = line.match(/^\s*([ab])\s*:\s*(.*)$/i))) {
        words = m[2].trim().split(/\s+/).filter(Boolean);
        if (!words.length) { return; }
        o = m[1].toUpperCase() === "A" ? army.A : army.B;
        if (o.sel.value !== "") { keep(army.extra, n, raw, "schon ein Befehl für Phase " + o.part); return; }
        if (o.part === "B" && army.passive) { keep(army.extra, n, raw, "ein passives Heer hat keine Phase B"); return; }
        why = o.set(words, m[2]);
        if (why) { o.clear(); keep(army.extra, n, raw, why); } else { shown += 1; }
        return;
      }
      if (part === "K") {
        words = line.trim().split(/\s+/);
        if (k >= kslots.length) { keep(extra.kingdom, n, raw, "mehr Königreichbefehle als erlaubt (" + kslots.length + ")"); return; }
        why = kslots[k].set(words, line);
        if (why) { kslots[k].clear(); keep(extra.kingdom, n, raw, why); } else { k += 1; shown += 1; }
        return;
      }
      keep(army ? army.extra : (part === "head" ? extra.head : extra.armies), n, raw, "vom Formular nicht erkannt");
    });
    if (msg) {
      keep(extra.tail, lines.length - 1, msg.kind === "B" ? "BOTSCHAFT " + msg.to : "BEKANNTMACHUNG", "ENDE fehlt");
      extra.tail.push.apply(extra.tail, msg.lines);
    }
    return {shown: shown, problems: problems};
  }
  function showRead(got, what) {
    loaded.textContent = what + ": " + got.shown + (got.shown === 1 ? " Befehl oder Text" : " Befehle und Texte") +
      " im Formular" + (got.problems.length ? "; " + got.problems.length +
      " Zeile(n) kann das Formular nicht zeigen, sie stehen unverändert im Text:" : ".");
    while (problems.firstChild) { problems.removeChild(problems.firstChild); }
    got.problems.forEach(function (p) { problems.appendChild(el("li", {text: p})); });
  }
  function loadText(text, what) {
    var got = readSheet(text);
    update();
    showRead(got, what);
  }

  /* -- kept in the browser (localStorage) per segment, kingdom and month;
     never the password */
  var KEY = "wdg-spielzug:" + D.segment + ":" + D.kingdom + ":" + D.month, saving = false;
  function store() { try { return window.localStorage; } catch (e) { return null; } }
  function save() {
    var s = store();
    if (!saving || !s) { return; }
    try {
      s.setItem(KEY, out.value.replace(/^(\s*(?:passwort|kennwort)\s*:).*$/gim, "$1 "));
    } catch (e) { loaded.textContent = "Der Browser speichert den Spielzug nicht (" + e.name + ")."; }
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
  var loaded = el("p", {id: "ed-loaded", role: "status"}), problems = el("ul", {id: "ed-problems", "class": "ed-err"});
  var file = el("input", {type: "file", id: "ed-file", accept: ".txt,text/plain", "aria-label": "Spielzug aus einer Datei laden"});
  var forget = el("button", {type: "button", "class": "ed-add", id: "ed-reset", text: "Formular leeren"});
  form.appendChild(el("p", {"class": "ed-hint", text: "Nur Befehle, die Ihre Heere und Ihr Reich nach Ihrem Wissensstand geben können; Wege und Kosten sind eine Vorschau. Der Text unten entsteht aus dieser Auswahl; Sie können ihn auch selbst ändern oder einen geschriebenen Spielzug einfügen – das Formular zeigt, was es davon lesen kann. Der Stand bleibt in diesem Browser gespeichert (ohne Passwort)."}));
  form.appendChild(row("Passwort", [pw]));
  form.appendChild(el("div", {"class": "ed-row"}, [el("label", {"for": "ed-file", text: "Spielzug laden"}), file, forget]));
  form.appendChild(loaded);
  form.appendChild(problems);
  form.appendChild(goldBox);
  C.armies.forEach(function (a, i) { armies.push(a); form.appendChild(armyBlock(a, i)); });
  form.appendChild(kBlock());
  var texts_box = el("div");
  var addB = el("button", {type: "button", "class": "ed-add", id: "ed-add-msg", text: "Botschaft hinzufügen"});
  var addA = el("button", {type: "button", "class": "ed-add", id: "ed-add-ann", text: "Bekanntmachung hinzufügen"});
  addB.addEventListener("click", function () { textBlock("B"); update(); });
  addA.addEventListener("click", function () { textBlock("A"); update(); });
  if (!C.recipients.length) { addB.disabled = true; }
  form.appendChild(texts_box);
  form.appendChild(el("p", {}, [addB, addA]));
  pw.addEventListener("input", update);
  /* the text field is editable: what is typed or pasted is read into the form */
  var typing = null;
  out.addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(function () { showRead(readSheet(out.value), "Text gelesen"); update(true); }, 250);
  });
  file.addEventListener("change", function () {
    var f = file.files && file.files[0];
    if (!f) { return; }
    var r = new FileReader();
    r.onload = function () { loadText(String(r.result), "Geladen aus " + f.name); file.value = ""; };
    r.onerror = function () { loaded.textContent = f.name + " kann nicht gelesen werden."; };
    r.readAsText(f, "utf-8");
  });
  forget.addEventListener("click", function () {
    var s = store();
    if (s) { try { s.removeItem(KEY); } catch (e) { /* nothing kept */ } }
    loadText("", "Formular geleert");
  });
  form.hidden = false;
  document.getElementById("ed-tools").hidden = false;
  document.getElementById("ed-intro").textContent = "Wählen Sie die Befehle; der Text des Spielzugs darunter entsteht daraus. Kopieren Sie ihn in eine E-Mail an den Segmentleiter" + (D.address ? " oder senden Sie ihn mit dem Verweis unten." : ".");
  document.getElementById("ed-copy").addEventListener("click", function () {
    out.select();
    var done = function () { note.textContent = "Text kopiert."; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(out.value).then(done, function () { document.execCommand("copy"); done(); });
    } else { document.execCommand("copy"); done(); }
  });
  var kept = store() ? (function () { try { return store().getItem(KEY); } catch (e) { return null; } }()) : null;
  /* kept from now on: what the player changes (the untouched form is not kept) */
  if (kept) { loadText(kept, "Ihr zuletzt bearbeiteter Spielzug (in diesem Browser gespeichert, ohne Passwort)"); } else { update(); }
  saving = true;
}));
