/* The HTML sheet's map for planning (docs/players.md, wdg/reports/mapview.py).
   Plain JavaScript, no library, nothing fetched. It reads the JSON data of
   the page (what the kingdom's report says of every gemark it knows) and
   adds to each map page: the land of foreign owners in their colour with a
   legend, a gemark's details on hover or tap, and zoom and pan. Text is only
   ever set as text (textContent): no markup is built from data. */
(function (start) {
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
}(function () {
  "use strict";
  var src = document.getElementById("map-data");
  if (!src || !window.JSON) { return; }
  var M = JSON.parse(src.textContent), SVGNS = "http://www.w3.org/2000/svg", R3 = Math.sqrt(3);
  var cells = {};
  M.cells.forEach(function (c) { cells[c[0] + "," + c[1]] = c; });

  function el(tag, attrs, kids) {
    var e = document.createElement(tag), k;
    for (k in attrs || {}) {
      if (k === "text") { e.textContent = attrs[k]; } else { e.setAttribute(k, attrs[k]); }
    }
    (kids || []).forEach(function (c) { if (c) { e.appendChild(c); } });
    return e;
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    return e;
  }
  function pad(n, w) { return ("000" + n).slice(-w); }
  /* the address of a row and column (province blocks of 8 x 6, docs/addresses.md) */
  function address(r, c) {
    return pad((Math.floor(r / 6) + 1) * 100 + Math.floor(c / 8) + 1, 3) + "." + pad((r % 6) * 8 + c % 8 + 1, 2);
  }
  /* a hexagon's centre on a map page, as exploration.py draws it */
  function centre(m, r, c) {
    var w = R3 * m.s;
    return [m.s + w * (c - m.c0 + 0.5 * (r & 1)) + w / 2, 2 * m.s + 1.5 * m.s * (r - m.r0)];
  }
  function hexPath(m, r, c, k) {
    var p = centre(m, r, c), d = "";
    for (var i = 0; i < 6; i++) {
      var a = Math.PI / 180 * (60 * i - 30);
      d += (i ? "L" : "M") + (p[0] + k * m.s * Math.cos(a)).toFixed(1) + "," + (p[1] + k * m.s * Math.sin(a)).toFixed(1);
    }
    return d + "Z";
  }
  /* the gemark under a point of the map (user units), or null */
  function hexAt(m, x, y, bottom) {
    if (y > bottom) { return null; }
    var best = null, bd = Infinity, rr = Math.round((y - 2 * m.s) / (1.5 * m.s)) + m.r0;
    for (var r = rr - 1; r <= rr + 1; r++) {
      var cc = Math.round((x - m.s - R3 * m.s / 2) / (R3 * m.s) - 0.5 * (r & 1)) + m.c0;
      for (var c = cc - 1; c <= cc + 1; c++) {
        if (r < 0 || c < 0 || r >= M.rows || c >= M.cols) { continue; }
        var p = centre(m, r, c), d = (p[0] - x) * (p[0] - x) + (p[1] - y) * (p[1] - y);
        if (d < bd) { bd = d; best = [r, c]; }
      }
    }
    return bd <= m.s * m.s ? best : null;
  }
  function ownerText(o) {
    if (o === -2) { return "eigenes Reichsgebiet"; }
    if (o === -3) { return "herrenlos"; }
    if (o < 0) { return "unbekannt"; }
    return M.owners[o].name + " (" + M.owners[o].k + ")";
  }
  /* the details of a gemark, line by line */
  function details(r, c) {
    var at = address(r, c), cell = cells[r + "," + c], marks = M.marks[at] || [];
    if (!cell) { return ["Gemark " + at, "unbekannt: nie erkundet"]; }
    return ["Gemark " + at + " · " + cell[3], "Besitzer: " + ownerText(cell[4]),
      "Siedlung: " + cell[5],
      "Heere und Fabelwesen: " + (marks.length ? marks.join("; ") : "keine gesehen"),
      "zuletzt gesehen: " + cell[6]];
  }

  var HATCH = [45, -45, 0, 90, 22, -68, 68, -22], pageNo = 0;
  function page(section, m) {
    var box = section.querySelector(".map"), svg = box && box.querySelector("svg");
    if (!svg) { return; }
    var legend = svg.querySelector("g.legend"), bottom = Infinity;
    if (legend && legend.transform.baseVal.numberOfItems) {
      bottom = legend.transform.baseVal.consolidate().matrix.f;
    }
    /* foreign owners' land: a tint and an inner border in the owner's colour */
    var paths = {};
    M.cells.forEach(function (c) {
      if (c[4] >= 0) { paths[c[4]] = (paths[c[4]] || "") + hexPath(m, c[0], c[1], 0.8); }
    });
    var g = svgEl("g", {"class": "map-owners"}), before = svg.querySelector("g.labels");
    /* not by colour alone (issue #42): each owner's land also has a hatching
       of its own (angle and spacing by the owner's place in the legend) and
       the owner's number in every gemark */
    var defs = svgEl("defs", {}), pid = "map-own-" + (pageNo++) + "-";
    M.owners.forEach(function (o, i) {
      var w = m.s * (0.45 + 0.15 * (i % 3)), pat = svgEl("pattern", {id: pid + i, "class": "map-owner-pattern",
        patternUnits: "userSpaceOnUse", width: w.toFixed(1), height: w.toFixed(1),
        patternTransform: "rotate(" + HATCH[i % HATCH.length] + ")"});
      pat.appendChild(svgEl("line", {x1: 0, y1: 0, x2: 0, y2: w.toFixed(1), stroke: o.colour,
        "stroke-width": (m.s * 0.09).toFixed(1), "stroke-opacity": 0.7}));
      if (i >= HATCH.length) { pat.appendChild(svgEl("circle", {cx: (w / 2).toFixed(1), cy: (w / 2).toFixed(1), r: (m.s * 0.07).toFixed(1), fill: o.colour})); }
      defs.appendChild(pat);
    });
    g.appendChild(defs);
    Object.keys(paths).forEach(function (o) {
      var col = M.owners[o].colour;
      g.appendChild(svgEl("path", {d: paths[o], fill: col, "fill-opacity": 0.22, stroke: col,
        "stroke-width": (m.s * 0.16).toFixed(1), "stroke-linejoin": "round"}));
    });
    Object.keys(paths).forEach(function (o) {
      g.appendChild(svgEl("path", {d: paths[o], fill: "url(#" + pid + o + ")", stroke: "none", "class": "map-hatch"}));
    });
    M.cells.forEach(function (c) {
      if (c[4] < 0) { return; }
      var p = centre(m, c[0], c[1]), t = svgEl("text", {"class": "map-owner-no", x: p[0].toFixed(1),
        y: (p[1] + m.s * 0.62).toFixed(1), "font-size": (m.s * 0.3).toFixed(1), "text-anchor": "middle",
        fill: M.owners[c[4]].colour, stroke: "#fff", "stroke-width": (m.s * 0.07).toFixed(1), "paint-order": "stroke"});
      t.textContent = M.owners[c[4]].k;
      g.appendChild(t);
    });
    svg.insertBefore(g, before);
    var hover = svgEl("path", {"class": "map-hover", d: ""});
    svg.appendChild(hover);

    /* the legend of owners below the map */
    var key = el("div", {"class": "map-key"}, [el("strong", {text: "Besitzer fremder Gemarken, wie zuletzt gesehen: "})]);
    if (!M.owners.length) { key.appendChild(document.createTextNode("keine bekannt. ")); }
    M.owners.forEach(function (o, i) {
      var sw = el("span", {"class": "map-swatch", "aria-hidden": "true"});
      sw.style.borderColor = o.colour; sw.style.backgroundColor = o.colour + "38";
      var mini = svgEl("svg", {width: 18, height: 12, focusable: "false"});
      mini.appendChild(svgEl("rect", {width: 18, height: 12, fill: "url(#" + pid + i + ")"}));
      sw.appendChild(mini);
      key.appendChild(el("span", {"class": "map-owner"}, [sw, document.createTextNode(o.name + " (" + o.k + ")")]));
    });
    key.appendChild(el("span", {"class": "map-hint", text: "Rot umrandet: Ihr Reich; fremdes Land getönt, schraffiert und mit der Nummer des Besitzers; ohne Farbe: herrenlos oder Besitzer unbekannt. Zeigen oder tippen Sie auf eine Gemark für ihre Angaben – oder wählen Sie die Karte mit der Tabulatortaste und eine Gemark mit den Pfeiltasten (Esc schließt die Angaben)."}));
    box.parentNode.insertBefore(key, box.nextSibling);

    /* details on hover and tap */
    var info = el("div", {"class": "map-info", role: "status", "aria-live": "polite", hidden: "hidden"});
    box.appendChild(info);
    var pinned = null, shown = null;
    function point(ev) {
      var pt = svg.createSVGPoint(), ctm = svg.getScreenCTM();
      if (!ctm) { return null; }
      pt.x = ev.clientX; pt.y = ev.clientY;
      var p = pt.matrixTransform(ctm.inverse());
      return hexAt(m, p.x, p.y, bottom);
    }
    function show(rc, ev) {
      if (!rc) { info.hidden = true; hover.setAttribute("d", ""); shown = null; return; }
      if (!shown || shown[0] !== rc[0] || shown[1] !== rc[1]) {
        while (info.firstChild) { info.removeChild(info.firstChild); }
        details(rc[0], rc[1]).forEach(function (line, i) { info.appendChild(el(i ? "div" : "strong", {text: line})); });
        hover.setAttribute("d", hexPath(m, rc[0], rc[1], 1));
        shown = rc;
      }
      info.hidden = false;
      var b = box.getBoundingClientRect();
      var x = ev.clientX - b.left + box.scrollLeft + 14, y = ev.clientY - b.top + box.scrollTop + 14;
      var maxX = box.scrollLeft + box.clientWidth - info.offsetWidth - 4;
      info.style.left = Math.max(box.scrollLeft + 4, Math.min(x, maxX)) + "px";
      if (z > 1 && y + info.offsetHeight > box.scrollTop + box.clientHeight) { y -= info.offsetHeight + 28; }
      info.style.top = Math.max(box.scrollTop, y) + "px";
    }
    svg.addEventListener("mousemove", function (ev) { if (!pinned && !drag.moved) { show(point(ev), ev); } });
    svg.addEventListener("mouseleave", function () { if (!pinned && !cursor) { show(null); } });
    /* by keyboard (issue #42): the map is one stop of the tab order; the arrow
       keys move a cursor from gemark to gemark (row by row, as the map is
       drawn), whose details the info box shows and reads out (a live region) */
    var cursor = null, mark = svgEl("path", {"class": "map-cursor", d: ""});
    svg.appendChild(mark);
    svg.setAttribute("tabindex", "0");
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", "Karte: mit den Pfeiltasten eine Gemark wählen, ihre Angaben stehen darunter; Esc schließt sie");
    function toCell(rc) {
      var p = centre(m, rc[0], rc[1]), pt = svg.createSVGPoint(), ctm = svg.getScreenCTM();
      pt.x = p[0]; pt.y = p[1];
      var q = ctm ? pt.matrixTransform(ctm) : {x: 0, y: 0};
      cursor = rc; pinned = rc;
      mark.setAttribute("d", hexPath(m, rc[0], rc[1], 0.95));
      show(rc, {clientX: q.x, clientY: q.y});
    }
    svg.addEventListener("keydown", function (ev) {
      var d = {ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0]}[ev.key];
      if (ev.key === "Escape") { cursor = null; pinned = null; mark.setAttribute("d", ""); show(null); return; }
      if (!d) { return; }
      ev.preventDefault();
      /* the first press: the kingdom's own first gemark (else the first known) */
      var home = M.cells.filter(function (c) { return c[4] === -2; })[0] || M.cells[0] || [m.r0, m.c0];
      var rc = cursor ? [cursor[0] + d[0], cursor[1] + d[1]] : [home[0], home[1]];
      var rows = m.rows || M.rows, cols = m.cols || M.cols;
      rc[0] = Math.max(m.r0, Math.min(m.r0 + rows - 1, rc[0], M.rows - 1));
      rc[1] = Math.max(m.c0, Math.min(m.c0 + cols - 1, rc[1], M.cols - 1));
      toCell(rc);
    });
    svg.addEventListener("blur", function () { mark.setAttribute("d", ""); });
    svg.addEventListener("click", function (ev) {
      var rc = point(ev);
      pinned = rc && !(pinned && pinned[0] === rc[0] && pinned[1] === rc[1]) ? rc : null;
      show(rc, ev);
    });

    /* zoom (buttons) and pan (drag with the mouse; touch scrolls the box itself) */
    /* at zoom 1 the map fills the width of its box, but is never drawn more
       than 1.8 times its printed size (a small realm's map is not blown up) */
    var z = 1, label = el("span", {"class": "map-zoom", text: "100 %"}), natural = svg.width.baseVal.value;
    function zoom(to) {
      var fx = (box.scrollLeft + box.clientWidth / 2) / box.scrollWidth;
      var fy = (box.scrollTop + box.clientHeight / 2) / box.scrollHeight;
      z = Math.max(1, Math.min(6, to));
      pinned = null; show(null);
      box.classList.toggle("zoomed", z > 1);
      svg.style.width = Math.round(Math.min(section.clientWidth, natural * 1.8) * z) + "px";
      svg.style.maxWidth = "none";
      label.textContent = Math.round(z * 100) + " %";
      box.scrollLeft = fx * box.scrollWidth - box.clientWidth / 2;
      box.scrollTop = fy * box.scrollHeight - box.clientHeight / 2;
    }
    var plus = el("button", {type: "button", "class": "map-plus", "aria-label": "Karte vergrößern", text: "+"});
    var less = el("button", {type: "button", "class": "map-minus", "aria-label": "Karte verkleinern", text: "−"});
    var all = el("button", {type: "button", "class": "map-all", text: "ganze Karte"});
    plus.addEventListener("click", function () { zoom(z * 1.5); });
    less.addEventListener("click", function () { zoom(z / 1.5); });
    all.addEventListener("click", function () { zoom(1); });
    var tools = el("div", {"class": "map-tools"}, [less, label, plus, all,
      document.getElementById("spielzug") ? el("a", {href: "#spielzug", text: "zum Spielzug"}) : null,
      el("a", {href: "#top", text: "zum Anfang"})]);
    box.parentNode.insertBefore(tools, box);
    zoom(1);
    window.addEventListener("resize", function () { zoom(z); });
    /* printed from the browser: the map at its printed size, as without the script */
    window.addEventListener("beforeprint", function () { svg.style.width = ""; svg.style.maxWidth = ""; });
    window.addEventListener("afterprint", function () { zoom(z); });
    var drag = {on: false, moved: false};
    box.addEventListener("mousedown", function (ev) {
      if (ev.button !== 0 || z === 1) { return; }
      drag = {on: true, moved: false, x: ev.clientX, y: ev.clientY, l: box.scrollLeft, t: box.scrollTop};
      ev.preventDefault();
    });
    window.addEventListener("mousemove", function (ev) {
      if (!drag.on) { return; }
      if (Math.abs(ev.clientX - drag.x) + Math.abs(ev.clientY - drag.y) > 4) { drag.moved = true; }
      box.scrollLeft = drag.l - (ev.clientX - drag.x); box.scrollTop = drag.t - (ev.clientY - drag.y);
    });
    window.addEventListener("mouseup", function () { drag.on = false; });
    /* a drag is no click: it does not pin a gemark nor give a move */
    box.addEventListener("click", function (ev) {
      if (drag.moved) { ev.stopPropagation(); ev.preventDefault(); drag.moved = false; }
    }, true);
  }

  var sections = document.querySelectorAll(".mappage");
  for (var i = 0; i < sections.length && i < M.pages.length; i++) { page(sections[i], M.pages[i]); }
}));
