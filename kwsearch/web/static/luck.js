// Luck against skill on the review graph (issue 30; docs/luck.md): every chance event of the review
// (the set-up deal, research cards turned up, V6 specialty tiles drawn) as a diamond at the top of the
// graph, its title each seat's luck with its 95% interval; below the summary, each seat's line
// ("Ann lost 18 ± 4 points of win % to their decisions and gained 25 ± 9 from the cards; accuracy 84%").
// app.js calls these two hooks from renderGraph; everything shown comes from the checked review.
"use strict";

window.kwLuckGraph = function (r, add, x, top, bottom) {
  const events = r.luck || [];
  const plies = r.points.map((p) => p.ply);
  for (const e of events) {
    // the decision of ply k is drawn at the node after it (ply k + 1): an event after decision k goes half way
    // to the next one, the deal before the first
    const last = Math.max(...plies, 1);
    const px = x(Math.min(last, e.ply + 1.5));
    const big = Math.max(...e.luck.map((v) => Math.abs(v)));
    const s = e.forced ? 3 : 4 + Math.min(6, 40 * big);
    add("line", {x1: px, x2: px, y1: top, y2: bottom, stroke: "#7b3fb5", "stroke-opacity": 0.35,
      "stroke-dasharray": "2 4"});
    const yc = top + 6;   // a diamond (a polygon: the graph's paths are the seats' lines)
    const g = add("polygon", {points: `${px},${yc - s} ${px + s},${yc} ${px},${yc + s} ${px - s},${yc}`,
      fill: "#7b3fb5", stroke: "#fff", class: "luck"});
    const t = document.createElementNS("http://www.w3.org/2000/svg", "title");
    t.textContent = e.title;
    g.append(t);
    g.dataset.ply = e.ply;
    if (e.node !== null && typeof goto === "function")
      g.addEventListener("click", (ev) => { ev.stopPropagation(); goto(e.node); });
  }
};

window.kwLuckSummary = function (r, box) {
  const rows = r.figures || [];
  if (!rows.length) return;
  const list = document.createElement("ul");
  list.className = "luck-lines";
  for (const f of rows) {
    const li = document.createElement("li");
    li.textContent = f.line;
    list.append(li);
  }
  const head = document.createElement("div");
  head.className = "muted";
  head.textContent = "Luck against skill (points of win %; ◆ on the graph: chance events) and accuracy " +
    "(lichess's formula on the verified losses)";
  box.append(head, list);
};
