// The report's "step through the run" section (bgpsim.viz.steps): reads the JSON in #steps-data and
// redraws the view for the moment the slider names. Plain DOM, no library, no request to any server.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("steps-data").textContent);
  var G = D.graph, L = D.large;
  var SVG = "http://www.w3.org/2000/svg";
  var slider = document.getElementById("slider"), clock = document.getElementById("clock");
  var play = document.getElementById("play"), shares = document.getElementById("shares");
  var markLine = document.getElementById("mark");
  var timer = null, selected = null;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function secs(t) { return (Math.round(t * 1000) / 1000).toString(); }
  function pct(x) { return (100 * x).toFixed(1) + " %"; }

  // the moments: t = 0, then every time something changed
  var steps;
  if (G) {
    var seen = {0: true};
    [G.outcome, G.next_hop, G.loc, G.rib_in].forEach(function (list) {
      list.forEach(function (e) { seen[e[0]] = true; });
    });
    D.marks.forEach(function (m) { seen[m[0]] = true; });
    steps = Object.keys(seen).map(Number).sort(function (a, b) { return a - b; });
  } else {
    steps = L.steps;
  }
  slider.max = steps.length - 1;

  function markAt(t) {
    var last = null;
    D.marks.forEach(function (m) { if (m[0] <= t) last = m; });
    return last;
  }

  function showShares(counts) {  // counts per outcome, the attacker and the victim aside
    var total = counts.reduce(function (a, b) { return a + b; }, 0);
    shares.textContent = "";
    D.outcomes.forEach(function (name, k) {
      var s = el("span", {"class": "share", "data-outcome": name});
      var sw = el("span", {"class": "swatch"});
      sw.style.background = D.colours[k];
      s.appendChild(sw);
      s.appendChild(document.createTextNode(name + " " + pct(total ? counts[k] / total : 0)));
      shares.appendChild(s);
    });
  }

  // ---- a small graph: the ASes, their next hops, their RIBs ------------------------------------
  var state;
  function stateAt(t) {
    var s = {outcome: G.start.outcome.slice(), nh: G.start.next_hop.slice(), loc: {}, rib: {}};
    G.start.loc.forEach(function (e) { s.loc[e[0] + "," + e[1]] = [e[2], e[3]]; });
    G.start.rib_in.forEach(function (e) { s.rib[e[0] + "," + e[1] + "," + e[2]] = e[3]; });
    G.outcome.forEach(function (e) { if (e[0] <= t) s.outcome[e[1]] = e[2]; });
    G.next_hop.forEach(function (e) { if (e[0] <= t) s.nh[e[1]] = e[2]; });
    G.loc.forEach(function (e) {
      if (e[0] > t) return;
      var k = e[1] + "," + e[2];
      if (e[3] === null) delete s.loc[k]; else s.loc[k] = [e[3], e[4]];
    });
    G.rib_in.forEach(function (e) {
      if (e[0] > t) return;
      var k = e[1] + "," + e[2] + "," + e[3];
      if (e[4] === null) delete s.rib[k]; else s.rib[k] = e[4];
    });
    return s;
  }

  var graph = document.getElementById("graph"), panel = document.getElementById("panel");
  var W = 1000, H = 560, PAD = 40;
  function xy(i) {
    var a = G.ases[i];
    return [PAD + a.x * (W - 2 * PAD), PAD + a.y * (H - 2 * PAD)];
  }
  function drawGraph() {
    graph.textContent = "";
    var defs = svg("defs", {});
    D.colours.forEach(function (c, k) {
      var m = svg("marker", {id: "arrow" + k, viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7",
                             markerHeight: "7", orient: "auto-start-reverse"});
      m.appendChild(svg("path", {d: "M0,0 L10,5 L0,10 z", fill: c}));
      defs.appendChild(m);
    });
    graph.appendChild(defs);
    G.links.forEach(function (l) {
      var a = xy(l[0]), b = xy(l[1]);
      graph.appendChild(svg("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], "class": l[2] ? "p2c" : "p2p"}));
    });
    var arrows = svg("g", {id: "arrows"});
    graph.appendChild(arrows);
    G.ases.forEach(function (a, i) {
      var p = xy(i);
      var g = svg("g", {"class": "as", "data-asn": a.asn, tabindex: "0"});
      var c = svg("circle", {cx: p[0], cy: p[1], r: 13});
      if (a.adopter) c.setAttribute("class", "adopter");
      g.appendChild(c);
      var label = svg("text", {x: p[0], y: p[1] + 27, "text-anchor": "middle"});
      label.textContent = a.asn === D.attacker ? a.asn + " (attacker)" : a.asn === D.victim ? a.asn + " (victim)" : a.asn;
      g.appendChild(label);
      var title = svg("title", {});
      title.textContent = "AS" + a.asn + (a.name ? " " + a.name : "") + (a.adopter ? " (adopts the defence)" : "");
      g.appendChild(title);
      g.addEventListener("click", function () { selected = i; render(); });
      graph.appendChild(g);
      // the label's box, from the circle's centre, so that arrows stop short of it (see clear)
      var b = label.getBBox();
      boxes[i] = [b.x - p[0] - 2, b.y - p[1] - 2, b.x + b.width - p[0] + 2, b.y + b.height - p[1] + 2];
    });
  }
  // How far from AS i's centre a line leaving it along (ux, uy) is clear of its circle and its label:
  // an arrow starts and ends there, so its head never lands on the label of the AS it points to.
  var R = 13, boxes = [];
  function clear(i, ux, uy) {
    var b = boxes[i], lo = 0, hi = Infinity;
    [[ux, b[0], b[2]], [uy, b[1], b[3]]].forEach(function (s) {  // the ray through the box, slab by slab
      if (Math.abs(s[0]) < 1e-9) { if (s[1] > 0 || s[2] < 0) hi = -1; return; }
      var t1 = s[1] / s[0], t2 = s[2] / s[0];
      lo = Math.max(lo, Math.min(t1, t2)); hi = Math.min(hi, Math.max(t1, t2));
    });
    return Math.max(R, hi >= lo ? hi : 0) + 2;
  }
  function renderGraph(t) {
    state = stateAt(t);
    var nodes = graph.querySelectorAll("g.as");
    var counts = D.outcomes.map(function () { return 0; });
    var arrows = document.getElementById("arrows");
    arrows.textContent = "";
    G.ases.forEach(function (a, i) {
      var o = state.outcome[i];
      var circle = nodes[i].querySelector("circle");
      circle.setAttribute("fill", o >= 0 ? D.colours[o] : "#ffffff");
      nodes[i].setAttribute("data-outcome", o >= 0 ? D.outcomes[o] : "none");
      nodes[i].classList.toggle("selected", i === selected);
      if (a.asn !== D.attacker && a.asn !== D.victim && o >= 0) counts[o] += 1;
      var j = state.nh[i];
      if (j >= 0 && j !== i) {
        var p = xy(i), q = xy(j), dx = q[0] - p[0], dy = q[1] - p[1], n = Math.sqrt(dx * dx + dy * dy) || 1;
        var ux = dx / n, uy = dy / n, a0 = clear(i, ux, uy), a1 = n - clear(j, -ux, -uy);
        if (a1 > a0) {  // else the two ASes (and labels) touch: no room for an arrow
          arrows.appendChild(svg("line", {x1: p[0] + ux * a0, y1: p[1] + uy * a0, x2: p[0] + ux * a1,
                                          y2: p[1] + uy * a1, stroke: D.colours[o >= 0 ? o : 2], "data-from": i,
                                          "data-to": j, "class": "hop",
                                          "marker-end": "url(#arrow" + (o >= 0 ? o : 2) + ")"}));
        }
      }
    });
    showShares(counts);
    renderPanel(t);
  }
  function asLabel(i) { return "AS" + G.ases[i].asn; }
  function pathText(i, path) { return [G.ases[i].asn].concat(path.map(function (x) { return G.ases[x].asn; })).join(" "); }
  function renderPanel(t) {
    if (selected === null) return;
    var i = selected, a = G.ases[i];
    panel.textContent = "";
    var o = state.outcome[i];
    panel.appendChild(el("h3", {}, asLabel(i) + (a.name ? " " + a.name : "")));
    panel.appendChild(el("p", {}, "Its traffic to " + D.target + " goes to the " + (o >= 0 ? D.outcomes[o] : "—")
      + (a.adopter ? "; it deploys the defence." : ".")));
    var loc = el("table", {"class": "rib loc"});
    loc.appendChild(el("caption", {}, "Loc-RIB at t = " + secs(t) + " s"));
    var any = false;
    G.prefixes.forEach(function (pfx, p) {
      var e = state.loc[i + "," + p];
      if (!e) return;
      any = true;
      var tr = el("tr", {});
      tr.appendChild(el("td", {}, pfx));
      tr.appendChild(el("td", {"class": "path"}, e[1] === 0 ? "its own" : pathText(i, e[0])));
      tr.appendChild(el("td", {}, G.rel_words[e[1]] || ""));
      loc.appendChild(tr);
    });
    if (!any) loc.appendChild(el("tr", {}, "")).appendChild(el("td", {}, "no route"));
    panel.appendChild(loc);
    var rib = el("table", {"class": "rib in"});
    rib.appendChild(el("caption", {}, "Adj-RIB-In at t = " + secs(t) + " s (what its neighbours sent it)"));
    Object.keys(state.rib).sort().forEach(function (k) {
      var parts = k.split(",").map(Number);
      if (parts[0] !== i) return;
      var tr = el("tr", {});
      tr.appendChild(el("td", {}, G.prefixes[parts[2]]));
      tr.appendChild(el("td", {}, "from " + asLabel(parts[1])));
      tr.appendChild(el("td", {"class": "path"}, state.rib[k].map(function (x) { return G.ases[x].asn; }).join(" ")));
      rib.appendChild(tr);
    });
    panel.appendChild(rib);
    var history = el("ol", {"class": "history"});
    G.loc.forEach(function (e) {
      if (e[1] !== i) return;
      var li = el("li", {}, "t = " + secs(e[0]) + " s: " + G.prefixes[e[2]] + " "
        + (e[3] === null ? "no route" : e[4] === 0 ? "its own" : "via " + pathText(i, e[3])));
      if (e[0] > t) li.className = "later";
      history.appendChild(li);
    });
    panel.appendChild(el("p", {"class": "note"}, "Its Loc-RIB changes (later ones greyed):"));
    panel.appendChild(history);
    var heard = el("ol", {"class": "history"});
    G.rib_in.forEach(function (e) {
      if (e[1] !== i) return;
      var li = el("li", {}, "t = " + secs(e[0]) + " s: " + asLabel(e[2]) + " " + (e[4] === null
        ? "withdrew " + G.prefixes[e[3]]
        : "sent " + G.prefixes[e[3]] + " via " + e[4].map(function (x) { return G.ases[x].asn; }).join(" ")));
      if (e[0] > t) li.className = "later";
      heard.appendChild(li);
    });
    panel.appendChild(el("p", {"class": "note"}, "What its neighbours sent it after the start (later ones greyed):"));
    panel.appendChild(heard);
  }

  // ---- a large graph: tiers, the largest transit ASes, a searchable table ----------------------------
  function renderLarge(k) {
    var c = L.counts[k], counts = D.outcomes.map(function () { return 0; });
    var box = document.getElementById("tiers");
    box.textContent = "";
    var table = el("table", {"class": "tiers"});
    var head = el("tr", {});
    head.appendChild(el("th", {}, "tier"));
    D.outcomes.forEach(function (name) { head.appendChild(el("th", {}, name)); });
    head.appendChild(el("th", {}, "its traffic diverted"));
    table.appendChild(head);
    L.tiers.forEach(function (name, r) {
      var tr = el("tr", {"data-tier": name});
      tr.appendChild(el("th", {}, name + " (" + L.tier_sizes[r].toLocaleString("en") + ")"));
      c[r].forEach(function (n, o) {
        counts[o] += n;
        var td = el("td", {});
        var bar = el("span", {"class": "bar"});
        bar.style.width = (L.tier_sizes[r] ? 4 * n / L.tier_sizes[r] : 0).toFixed(2) + "em";  // 4em: the whole tier
        bar.style.background = D.colours[o];
        td.appendChild(bar);
        td.appendChild(document.createTextNode(" " + n.toLocaleString("en")));
        tr.appendChild(td);
      });
      var share = L.tier_traffic[r] ? L.traffic[k][r] / L.tier_traffic[r] : 0;
      tr.appendChild(el("td", {"class": "traffic"}, pct(share) + " (" + pct(L.traffic[k][r]) + " of all)"));
      table.appendChild(tr);
    });
    box.appendChild(table);
    counts[0] -= 1; counts[1] -= 1;  // the attacker and the victim are not sources
    showShares(counts);
    var top = document.getElementById("top");
    top.textContent = "";
    var list = el("ul", {"class": "top"});
    L.top.forEach(function (a, n) {
      var o = L.top_outcome[k][n];
      var li = el("li", {"data-outcome": D.outcomes[o]});
      var sw = el("span", {"class": "swatch"});
      sw.style.background = D.colours[o];
      li.appendChild(sw);
      li.appendChild(document.createTextNode("AS" + a.asn + (a.name ? " " + a.name : "") + " (cone "
        + a.cone.toLocaleString("en") + (a.adopter ? ", adopts the defence" : "") + "): " + D.outcomes[o]));
      list.appendChild(li);
    });
    top.appendChild(list);
  }
  function renderTable() {
    var q = document.getElementById("search").value.trim().toLowerCase().replace(/^as/, "");
    var rows = L.table.filter(function (r) { return !q || String(r[0]).indexOf(q) === 0; });
    var box = document.getElementById("table");
    box.textContent = "";
    var t = el("table", {"class": "ases"});
    var head = el("tr", {});
    var heads = ["AS", "where its traffic goes at the end", "first at the attacker (s)", "last change (s)"];
    if (D.defence) heads.push("adopts the defence");  // without a defence the column would be empty
    heads.forEach(function (h) { head.appendChild(el("th", {}, h)); });
    t.appendChild(head);
    rows.slice(0, 100).forEach(function (r) {
      var tr = el("tr", {});
      tr.appendChild(el("td", {}, "AS" + r[0]));
      tr.appendChild(el("td", {}, D.outcomes[r[1]]));
      tr.appendChild(el("td", {}, r[2] === "" ? "—" : secs(r[2])));
      tr.appendChild(el("td", {}, r[3] === "" ? "—" : secs(r[3])));
      if (D.defence) tr.appendChild(el("td", {}, r[4] ? "yes" : ""));
      t.appendChild(tr);
    });
    box.appendChild(t);
    document.getElementById("found").textContent = rows.length.toLocaleString("en") + (rows.length === 1 ? " AS" : " ASes")
      + (rows.length > 100 ? ", the first 100 shown" : "");
  }

  function render() {
    var k = Number(slider.value), t = steps[k];
    clock.textContent = "t = " + secs(t) + " s (moment " + (k + 1) + " of " + steps.length + ")";
    var m = markAt(t);
    markLine.textContent = m ? "Last event: " + m[1] + " (t = " + secs(m[0]) + " s)" : "Before the first event.";
    if (G) renderGraph(t); else renderLarge(k);
  }
  function stop() { clearInterval(timer); timer = null; play.textContent = "\u25b6 play"; }
  play.addEventListener("click", function () {
    if (timer) { stop(); return; }
    if (Number(slider.value) >= steps.length - 1) slider.value = 0;
    play.textContent = "\u275a\u275a pause";
    timer = setInterval(function () {
      if (Number(slider.value) >= steps.length - 1) { stop(); return; }
      slider.value = Number(slider.value) + 1;
      render();
    }, 350);
  });
  slider.addEventListener("input", render);
  if (G) drawGraph();
  else {
    document.getElementById("search").addEventListener("input", renderTable);
    renderTable();
  }
  render();
})();
