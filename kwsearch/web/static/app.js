// kwsearch analysis board: the page. Plain JavaScript, no build step, no network beyond this server.
//
// The server holds everything (documents, games, searches); the page shows what it sends and asks
// for changes through /api (see kwsearch/web/app.py). Two modes share the board:
//   doc  — a record or position opened for exploring: a tree of nodes, what-if variations, review graph;
//   game — a game being played against bots (or a mirror game): only the seat at the screen's view.
"use strict";

const S = {
  mode: null,          // "doc" | "game"
  doc: null,           // document summary: {id, name, kind, players, names, nodes, review}
  node: 0,             // current node of the document
  view: null,          // what the board shows now (node view or game view)
  forward: {},         // node -> the child last visited from it (→ follows the line you came back on)
  views: new Map(),    // "doc:node" -> node view (nodes never change, so views can be kept)
  seq: 0,              // request counter: only the latest navigation is drawn
  colours: ["#d55e00", "#0072b2", "#009e73", "#cc79a7"],
  analysis: null,      // the running analysis: {id, ctrl, t0, first, last, target}
  analysing: false,    // the analysis toggle (on: follows the shown position)
  lastResult: null,    // the latest analysis update shown
  busy: false,         // a game request is under way
};
window.kwsLatencies = [];   // click → first analysis update, in ms (read by the end-to-end test)

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
};
// One numbering everywhere: a decision is numbered by its ply, the number of decisions before it -- the
// "ply" of a review (kwsearch review: its JSON, text and HTML) and of `kwsearch show --ply N`.
const plyOf = (node) => node.ply - 1;    // a node's ply counts the root: its decision is one less
const plyTitle = (p) => `ply ${p}: ${p} decision${p === 1 ? "" : "s"} before it (kwsearch show --ply ${p})`;
const fmt = (n) => Math.round(n).toLocaleString("en-US");
const pct = (x) => (100 * x).toFixed(1) + "%";

// ---------------------------------------------------------------- server access

class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

async function api(path, body) {
  const opt = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const res = await fetch(path, opt);
  let data;
  try { data = await res.json(); } catch (e) { data = {error: `${res.status} ${res.statusText}`}; }
  if (!res.ok) throw new ApiError(data.error || `${res.status} ${res.statusText}`, res.status);
  return data;
}

function showError(message) {
  const box = el("div", {class: "error"}, message,
    el("button", {type: "button", title: "dismiss", onclick: () => box.remove(), text: "×"}));
  $("#errors").append(box);
  setTimeout(() => box.remove(), 15000);
}

function clearErrors() {   // a later success: the errors before it no longer apply (and would cover the board)
  $("#errors").replaceChildren();
}

async function guarded(fn) {
  try { return await fn(); } catch (e) {
    if (e.name === "AbortError") return;
    showError(e.message || String(e));
  }
}

// ---------------------------------------------------------------- opening files

async function openText(text, name) {
  const body = {name, text};
  if (S.mode === "doc" && S.doc) body.doc = S.doc.id;   // a review is added to the open game
  const summary = await api("/api/open", body);
  if (S.doc && summary.id === S.doc.id) {              // the review of the open document
    S.doc = summary;
    renderMoves(); renderGraph();
    return;
  }
  openDoc(summary, 0);
}

function openDoc(summary, node) {
  stopAnalysis(true);
  S.mode = "doc"; S.doc = summary; S.forward = {};
  $("#title").textContent = `${summary.name} · ${summary.kind === "record" ? "game record" : "position"} · ` +
    `${summary.players} players`;
  $("#moves-title").textContent = "Moves";
  return goto(node === undefined ? 0 : node);
}

// ---------------------------------------------------------------- the document tree

const nodeOf = (id) => S.doc.nodes[id];

function lineEnd(id) {           // follow the remembered (else the first) child to the end
  let n = nodeOf(id);
  while (n.children.length) n = nodeOf(S.forward[n.id] ?? n.children[0]);
  return n.id;
}

async function goto(id) {
  if (S.mode !== "doc" || !S.doc || id === null || id === undefined || !nodeOf(id)) return;
  const n = nodeOf(id);
  if (n.parent !== null) S.forward[n.parent] = id;
  S.node = id;
  const seq = ++S.seq;
  const key = `${S.doc.id}:${id}`;
  let view = S.views.get(key);
  if (!view) {
    try { view = await api(`/api/docs/${S.doc.id}/nodes/${id}`); } catch (e) { showError(e.message); return; }
    S.views.set(key, view);
    if (S.views.size > 300) S.views.delete(S.views.keys().next().value);
  }
  if (seq !== S.seq) return;     // a later navigation won
  S.view = view;
  clearErrors();
  remember({doc: S.doc.id, node: id});
  renderBoard(view);
  renderDecision();
  renderMoves();
  renderActions();
  renderGraph();
  renderScoring(view);
  if (S.analysing) startAnalysis(false);
  else clearCandidates(view);
}

function step(dir) {
  if (S.mode !== "doc" || !S.doc) return;
  const n = nodeOf(S.node);
  if (dir < 0 && n.parent !== null) goto(n.parent);
  if (dir > 0 && n.children.length) goto(S.forward[n.id] ?? n.children[0]);
}

async function playAction(action) {
  if (S.mode === "game") return decide(action, []);
  await guarded(async () => {
    const out = await api(`/api/docs/${S.doc.id}/nodes/${S.node}/play`, {action});
    S.doc = out.doc;
    await goto(out.node);
  });
}

async function playLine(moves) {
  if (S.mode !== "doc" || !moves || !moves.length) return;
  await guarded(async () => {
    const out = await api(`/api/docs/${S.doc.id}/nodes/${S.node}/play`, {moves});
    S.doc = out.doc;
    await goto(out.node);
  });
}

// ---------------------------------------------------------------- drawing

function renderBoard(view) {
  $("#board").innerHTML = view.svg;   // the server's SVG (kwsearch.svg): no scripts, drawn from an observation
  const svg = $("#board svg");
  if (svg) { svg.removeAttribute("width"); svg.removeAttribute("height"); }
  drawPlan();
  renderEvalBar();
}

function seatLabel(view, seat) {
  const names = view.names || [];
  return el("span", {class: "who-name"}, el("span", {class: "dot", style: `background:${S.colours[seat]}`}),
    " ", names[seat] || `seat ${seat}`);
}

function optionButtons(view, onChoose) {
  const wrap = el("div");
  const opts = el("div", {class: "options", id: "options"});
  for (const o of view.legal) {
    opts.append(el("button", {class: "option", type: "button", title: `${o.text} (action id ${o.action})`,
      "data-action": o.action, "data-text": o.text, onclick: () => onChoose(o.action)}, o.label || o.text));
  }
  if (view.legal.length > 14) {
    const filter = el("input", {class: "filter", placeholder: `filter ${view.legal.length} options…`,
      "aria-label": "filter the options"});
    filter.addEventListener("input", () => {
      const q = filter.value.trim().toLowerCase();
      for (const b of opts.children) b.hidden = q && !b.textContent.toLowerCase().includes(q);
    });
    wrap.append(filter);
  }
  wrap.append(opts);
  return wrap;
}

function resultLine(view) {
  const names = view.names || [];
  const order = view.money.map((m, s) => [m, s]).sort((a, b) => b[0] - a[0]);
  const win = view.winners.map((s) => names[s]).join(" and ");
  return `Game over — ${win} ${view.winners.length > 1 ? "share the win" : "wins"}. ` +
    order.map(([m, s]) => `${names[s]} ${m}`).join(" · ");
}

function renderDecision() {
  const box = $("#decision");
  box.replaceChildren();
  const view = S.view;
  if (!view) return;
  if (S.mode === "game") return renderGameDecision(box, view);
  if (view.terminal) {
    box.append(el("div", {class: "banner over"}, resultLine(view)));
    return;
  }
  box.append(el("div", {class: "who"}, seatLabel(view, view.to_move), `to decide: ${view.decision}`,
    el("span", {class: "muted", text: `round ${view.round}, ${view.phase} phase · a choice makes a variation`})));
  box.append(optionButtons(view, playAction));
}

function renderMoves() {
  const box = $("#moves");
  box.replaceChildren();
  if (S.mode === "game") return renderGameMoves(box);
  if (!S.doc) return;
  const marks = reviewMarks();
  const deltas = reviewDeltas();
  const root = el("div", {class: "root" + (S.node === 0 ? " current" : ""), onclick: () => goto(0)},
    S.doc.kind === "record" ? "set-up" : "the position");
  box.append(root);
  const names = S.doc.names;
  // The main line: each node a row; other children of a node follow it as variations.
  let n = nodeOf(0);
  let round = null;
  while (n.children.length) {
    const [first, ...others] = n.children;
    const c = nodeOf(first);
    if (c.round !== null && c.round !== round) {
      round = c.round;
      box.append(el("div", {class: "round-sep", text: `round ${round}`}));
    }
    box.append(moveRow(c, names, marks, deltas));
    for (const o of others) box.append(variation(o, names, 1));
    n = c;
  }
  const cur = box.querySelector(".current");
  if (cur) cur.scrollIntoView({block: "nearest"});
  $("#moves-note").textContent = `${S.doc.nodes.length - 1} decisions in the tree`;
}

function moveRow(n, names, marks, deltas = {}) {
  const mark = marks[n.id];
  const delta = deltas[n.id];
  return el("div", {class: "mv" + (n.id === S.node ? " current" : ""), "data-node": n.id, onclick: () => goto(n.id)},
    el("span", {class: "ply", text: plyOf(n), title: plyTitle(plyOf(n))}),
    el("span", {class: "dot", title: names[n.seat], style: `background:${S.colours[n.seat]}`}),
    el("span", {class: "txt"}, n.move, n.reveals.length ? el("span", {class: "rev", text: n.reveals.join("; ")}) : null),
    delta ? el("span", {class: `delta ${delta.cls}`, title: delta.title, text: delta.text}) : el("span"),
    mark ? el("span", {class: `mark ${mark.cls}`, title: mark.title, text: mark.glyph}) : el("span"));
}

function variation(id, names, depth) {
  // A variation: its line inline; a branch inside it opens a nested block.
  const box = el("div", {class: "var"});
  let n = nodeOf(id);
  while (true) {
    box.append(el("span", {class: "vm" + (n.id === S.node ? " current" : ""), "data-node": n.id,
      title: n.reveals.join("; ") || null, onclick: () => goto(n.id)},
      el("span", {class: "vn", text: `${plyOf(n)}.`}),
      el("span", {class: "dot", style: `background:${S.colours[n.seat]};width:8px;height:8px`}), " ", n.move), " ");
    if (!n.children.length) break;
    const [first, ...others] = n.children;
    for (const o of others) box.append(variation(o, names, depth + 1));
    n = nodeOf(first);
  }
  return box;
}

function renderActions() {
  const box = $("#actions");
  box.replaceChildren();
  if (S.mode === "doc" && S.doc) {
    const base = `/api/docs/${S.doc.id}/nodes/${S.node}`;
    box.append(el("a", {class: "btn", href: `${base}/position.json`, download: `position-${S.node}.json`,
      id: "save-position", title: "The position here (kwsearch-position/1)"}, "Save position"));
    if (S.view && S.view.can_save_record) {
      box.append(el("a", {class: "btn", href: `${base}/record.json`, download: `game-${S.node}.json`,
        id: "save-record", title: "The game up to here (kwsearch-game/1)"}, "Save record"));
    }
  } else if (S.mode === "game" && S.view) {
    const g = S.view;
    box.append(el("a", {class: "btn", href: `/api/games/${g.game}/record.json`, download: g.file, id: "save-record",
      title: "The record so far (without its seed while the game runs)"}, "Save record"));
    box.append(el("button", {class: "btn", id: "btn-undo", disabled: !g.can_undo || g.terminal || S.busy,
      title: "Take back your last decision (cards it turned up go back into the deck, which is shuffled again)",
      onclick: () => gameCall("undo")}, "Take back"));
    box.append(el("button", {class: "btn", id: "btn-hint", disabled: g.terminal || g.bot_to_move || S.busy,
      title: "A short search for your best plans, re-searched until the best is clear or they are equal (as play's ?)",
      onclick: hintGame}, "Hint"));
    box.append(el("button", {class: "btn", id: "btn-explore", onclick: exploreGame,
      title: "Step through this game's moves and try variations"}, "Explore"));
  }
  if (typeof renderReviewRun === "function") renderReviewRun();   // review-run.js: review from the page
}

// ---------------------------------------------------------------- scoring

function renderScoring(view) {
  // The last scoring on the way here (kwsearch.scoring): where every coin came from.
  const box = $("#scoring");
  const sc = view && view.scoring;
  if (!sc) { box.hidden = true; return; }
  box.hidden = false;
  const head = sc.final ? "The last scoring and the final score sheet" : `The last scoring (round ${sc.round})`;
  box.replaceChildren(el("div", {class: "panel-title"}, el("span", {text: head})),
    el("pre", {class: "scoring-text", text: sc.lines.join("\n")}));
}

// ---------------------------------------------------------------- review graph

function reviewMarks() {
  const out = {};
  const r = S.doc && S.doc.review;
  if (!r) return out;
  const glyph = {inaccuracy: "?!", mistake: "?", blunder: "??"};
  for (const p of r.points) {
    if (p.mark) out[p.node] = {cls: p.mark, glyph: glyph[p.mark] || "!",
      title: `ply ${p.ply - 1}, ${p.mark}: ${p.played} (win ${pct(p.win_played)}${p.win_played_half == null ? "" :
        ` ± ${(100 * p.win_played_half).toFixed(1)}`}${p.visits == null ? "" : `, ${p.visits} visits`}) — best ${p.best} ` +
        `(win ${pct(p.win_best)})${p.loss_half == null ? "" : `; loss ${(100 * p.loss).toFixed(1)} ± ${(100 * p.loss_half).toFixed(1)}`}`};
  }
  return out;
}

function reviewDeltas() {
  // Each reviewed move's win-% change: the played move's (verified) win minus the position's best, in
  // points of the mover's win probability ("−12.3"), coloured by the move's mark.
  const out = {};
  const r = S.doc && S.doc.review;
  if (!r) return out;
  for (const p of r.points) {
    const d = 100 * (p.win_played - p.win_best);
    const text = Math.abs(d) < 0.05 ? "0.0" : (d < 0 ? "\u2212" : "+") + Math.abs(d).toFixed(1);
    out[p.node] = {cls: p.mark || "none", text, d,
      title: `win ${pct(p.win_played)} played against ${pct(p.win_best)} for the best (${p.best})`};
  }
  return out;
}

// ---------------------------------------------------------------- evaluation bar

function reviewWinAt(nodeId) {
  // every seat's win probability at a node the review covers (after the reviewed move that led there)
  const r = S.mode === "doc" && S.doc && S.doc.review;
  if (!r) return null;
  const p = r.points.find((q) => q.node === nodeId);
  return p ? p.win : null;
}

function renderEvalBar() {
  // Beside the board, after lichess: the live analysis's value for the seat to move (its best option's win
  // probability; with two players the other seat has the rest), else the review's values for every seat.
  const bar = $("#evalbar");
  const view = S.view;
  const r = S.lastResult;
  const names = (view && view.names) || (S.doc && S.doc.names) || [];
  const n = names.length;
  let seats = null, source = null, mover = null;
  if (r && r.moveInfos.length && view && !view.terminal && n) {
    mover = r.rootInfo.currentPlayer;
    const best = ranked(r)[0];
    const w = best.estimate ? best.estimate.winrate : best.winrate;
    seats = new Array(n).fill(null);
    seats[mover] = w;
    if (n === 2) seats[1 - mover] = 1 - w;
    source = "analysis";
  } else if (view && n) {
    const w = reviewWinAt(S.node);
    if (w && w.length === n) {
      seats = w.slice();
      source = "review";
      mover = view.terminal ? null : view.to_move;
    }
  }
  if (!seats) { bar.hidden = true; bar.dataset.source = ""; return; }
  bar.hidden = false;
  bar.dataset.source = source;
  bar.dataset.seats = JSON.stringify(seats);
  bar.dataset.mover = mover === null || mover === undefined ? "" : mover;
  const order = [];
  if (mover !== null && mover !== undefined && mover >= 0) order.push(mover);   // the mover at the bottom
  for (let s = 0; s < n; s++) if (!order.includes(s)) order.push(s);
  const track = bar.querySelector(".ev-track");
  track.replaceChildren();
  let known = 0;
  for (const s of order) {
    if (seats[s] === null) continue;
    known += seats[s];
    track.append(el("div", {class: "ev-seg", "data-seat": s, title: `${names[s]}: ${pct(seats[s])}`,
      style: `height:${(100 * seats[s]).toFixed(2)}%;background:${S.colours[s]}`}));
  }
  if (seats.some((x) => x === null)) {
    track.append(el("div", {class: "ev-seg others", title: "the other seats: not in the live analysis",
      style: `height:${(100 * Math.max(0, 1 - known)).toFixed(2)}%`}));
  }
  const label = bar.querySelector(".ev-label");
  const lead = mover !== null && mover !== undefined && mover >= 0 ? mover :
    seats.indexOf(Math.max(...seats.filter((x) => x !== null)));
  label.textContent = (100 * seats[lead]).toFixed(0);
  label.style.background = S.colours[lead];
  bar.title = (source === "analysis" ? "live analysis: " : "review: ") +
    order.filter((s) => seats[s] !== null).map((s) => `${names[s]} ${pct(seats[s])}`).join(" · ") +
    (source === "analysis" && n > 2 ? " (the search reports the mover's win only)" : "");
}

// ---------------------------------------------------------------- the best plan on the board

function planPlaces(plan) {
  // The board places of a plan's steps (kwsearch/svg.py's data-kw keys), in the order first met; a place
  // taken by several steps (a car's body, engine, workers and price) is one place.
  const out = [];
  const add = (sel, step) => {
    let t = out.find((o) => o.sel === sel);
    if (!t) out.push(t = {sel, steps: []});
    t.steps.push(step);
  };
  for (const step of plan || []) {
    let m;
    if ((m = step.match(/^tile (\d+)$/))) add(`[data-kw="tile-${m[1]}"]`, step);
    else if ((m = step.match(/^tile special (\S+)$/))) add(`[data-kw="special-${m[1]}"]`, step);
    else if ((m = step.match(/^take research:(\S+)$/i))) add(`[data-kw="research-${m[1].toLowerCase()}"]`, step);
    else if ((m = step.match(/^daimler \+\d+ buyer (\d+)$/))) add(`[data-kw="buyer-${+m[1] - 1}"]`, step);
    else if (/^(benz )?buyer \w+$/.test(step)) add(`[data-kw^="buyer-"][data-next]`, step);
    else if (step.startsWith("market ") && step !== "market pass") add(`[data-kw^="market-"][data-next]`, step);
  }
  return out;
}

function drawPlan() {
  // The best option's plan (live analysis or hint) on the board: each place it uses outlined, with the
  // order of its steps in a numbered circle.
  const svg = $("#board svg");
  if (!svg) return;
  const old = svg.querySelector("#plan-overlay");
  if (old) old.remove();
  const r = S.lastResult;
  if (!r || !r.moveInfos.length || (S.view && S.view.terminal)) return;
  const best = ranked(r)[0];
  const NS = "http://www.w3.org/2000/svg";
  const g = document.createElementNS(NS, "g");
  g.setAttribute("id", "plan-overlay");
  g.dataset.plan = best.plan.join(" | ");
  const colour = "#1f6feb";
  let k = 0;
  for (const place of planPlaces(best.plan)) {
    const target = svg.querySelector(place.sel);
    if (!target) continue;
    k += 1;
    const x = +target.getAttribute("x"), y = +target.getAttribute("y");
    const w = +target.getAttribute("width"), h = +target.getAttribute("height");
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(NS, tag);
      for (const [a, v] of Object.entries(attrs)) e.setAttribute(a, v);
      if (text !== undefined) e.textContent = text;
      g.append(e);
      return e;
    };
    const box = add("rect", {x: x - 3, y: y - 3, width: w + 6, height: h + 6, rx: 7, fill: "rgba(31,111,235,.10)",
      stroke: colour, "stroke-width": 4, class: "plan-place", "data-step": k, "data-kw": target.dataset.kw});
    add("title", {}, `${k}. ${place.steps.join(", ")}`);
    box.append(g.lastChild);
    add("circle", {cx: x + w - 2, cy: y + 2, r: 12, fill: colour, stroke: "#fff", "stroke-width": 2, class: "plan-step"});
    add("text", {x: x + w - 2, y: y + 7, "font-size": 14, "font-weight": "bold", "text-anchor": "middle", fill: "#fff",
      class: "plan-num"}, String(k));
  }
  if (k) svg.append(g);
}

function renderGraph() {
  const panel = $("#graph-panel");
  const r = S.mode === "doc" && S.doc && S.doc.review;
  if (!r || !r.points.length) { panel.hidden = true; return; }
  panel.hidden = false;
  const box = $("#graph");
  const W = Math.max(400, box.clientWidth || 900), H = 190, L = 34, R = 10, T = 10, B = 22;
  const pts = r.points;
  const maxPly = Math.max(...pts.map((p) => p.ply), 1);
  const x = (ply) => L + (W - L - R) * ply / maxPly;
  const y = (p) => T + (H - T - B) * (1 - p);
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  add("rect", {x: L, y: T, width: W - L - R, height: H - T - B, fill: "#faf9f7", stroke: "#e2e0dc"});
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    add("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v === 0.5 ? "#c8c5c0" : "#ebe9e6",
      "stroke-dasharray": v === 0.5 ? "4 3" : ""});
    add("text", {x: L - 5, y: y(v) + 4, "font-size": 10, "text-anchor": "end", fill: "#888"}, `${100 * v}%`);
  }
  const rounds = r.rounds || [];
  for (const rd of rounds) {
    add("line", {x1: x(rd.ply), x2: x(rd.ply), y1: T, y2: H - B, stroke: "#d8d5d0"});
    add("text", {x: x(rd.ply) + 3, y: H - 8, "font-size": 10, fill: "#888"}, `round ${rd.round}`);
  }
  const n = S.doc.players;
  for (let s = 0; s < n; s++) {
    const d = pts.map((p, k) => `${k ? "L" : "M"}${x(p.ply).toFixed(1)},${y(p.win[s]).toFixed(1)}`).join(" ");
    add("path", {d, fill: "none", stroke: S.colours[s], "stroke-width": 2, "stroke-linejoin": "round"});
  }
  const cur = nodeOf(S.node);
  if (cur) add("line", {x1: x(cur.ply), x2: x(cur.ply), y1: T, y2: H - B, stroke: "#555", "stroke-width": 1.5,
    "stroke-dasharray": "5 3"});
  const colour = {inaccuracy: "#56b4e9", mistake: "#e69f00", blunder: "#d42a2a"};
  for (const p of pts) {
    if (!p.mark) continue;
    add("circle", {cx: x(p.ply), cy: y(p.win[p.seat]), r: 5, fill: colour[p.mark], stroke: "#fff", "stroke-width": 1.5,
      class: "pt"}).addEventListener("click", (ev) => { ev.stopPropagation(); goto(p.node); });
  }
  if (window.kwLuckGraph) window.kwLuckGraph(r, add, x, T, H - B);   // luck.js: the chance events
  svg.addEventListener("click", (ev) => {      // the decision nearest the click
    const rect = svg.getBoundingClientRect();
    const ply = (ev.clientX - rect.left) / rect.width * W;
    let best = pts[0];
    for (const p of pts) if (Math.abs(x(p.ply) - ply) < Math.abs(x(best.ply) - ply)) best = p;
    goto(best.node);
  });
  svg.style.cursor = "pointer";
  box.replaceChildren(svg, el("div", {class: "legend"},
    ...S.doc.names.map((nm, s) => el("span", {}, el("span", {class: "dot", style: `background:${S.colours[s]}`}),
      `${nm}: win probability`)),
    ...Object.entries(colour).map(([k, c]) => el("span", {}, el("span", {class: "dot", style: `background:${c}`}), k))));
  $("#graph-note").textContent = r.note || "";
  const sum = $("#review-summary");
  sum.replaceChildren();
  if (r.summary && r.summary.length) {
    const t = el("table", {}, el("tr", {}, ...["seat", "decisions", "mean loss", "inaccuracies", "mistakes",
      "blunders"].map((h) => el("th", {text: h}))));
    for (const row of r.summary) {
      t.append(el("tr", {}, el("td", {}, el("span", {class: "dot", style: `background:${S.colours[row.seat]}`}),
        " ", S.doc.names[row.seat]), el("td", {text: row.decisions}), el("td", {text: pct(row.mean_loss)}),
        el("td", {text: row.inaccuracy}), el("td", {text: row.mistake}), el("td", {text: row.blunder})));
    }
    sum.append(t);
  }
  if (window.kwLuckSummary) window.kwLuckSummary(r, sum);           // luck.js: luck, skill, accuracy
}

// ---------------------------------------------------------------- live analysis

function analysisTarget() {
  if (S.mode === "doc" && S.doc) return {doc: S.doc.id, node: S.node};
  if (S.mode === "game" && S.view) return {game: S.view.game};
  return null;
}

function setAnalyseButton() {
  const b = $("#btn-analyse");
  b.textContent = S.analysing ? "Stop" : "Analyse";
  b.classList.toggle("running", S.analysing);
}

function toggleAnalysis() {
  if (S.analysing) { stopAnalysis(false); return; }
  S.analysing = true;
  setAnalyseButton();
  startAnalysis(true);
}

function stopAnalysis(abort) {
  S.analysing = false;
  setAnalyseButton();
  const an = S.analysis;
  if (!an) return;
  if (abort || !an.id) { an.ctrl.abort(); S.analysis = null; return; }
  // Ask for the final statistics; the stream ends after them.
  api(`/api/analysis/${an.id}/stop`, {}).catch(() => an.ctrl.abort());
}

function clearVerdict() {
  const v = $("#verdict");
  v.replaceChildren(); v.className = "verdict"; v.dataset.verdict = ""; v.title = "";
}

function clearCandidates(view) {
  $("#candidates").replaceChildren();
  if (window.kwsOutlook) kwsOutlook.clear();
  clearVerdict();
  $("#btn-best").disabled = true;
  S.lastResult = null;
  drawPlan();
  renderEvalBar();
  if (view && view.terminal) $("#engine-status").textContent = "The game is over here.";
  else $("#engine-status").innerHTML = "Press <b>Analyse</b> (or <kbd>a</kbd>) to search this position from the " +
    "deciding seat's view.";
}

async function startAnalysis(clicked, retries = 6, hint = false) {
  // hint: the game's hint for the seat at the screen, as `kwsearch play`'s `?` (a short search whose
  // options are re-searched until the best is clear or they are equal); it ends by itself.
  if (S.analysis) { S.analysis.ctrl.abort(); S.analysis = null; }
  const base = analysisTarget();
  const target = base && hint && base.game ? {...base, hint: true} : base;
  if (!target) { S.analysing = false; setAnalyseButton(); return; }
  if (S.view && S.view.terminal) {
    S.analysing = false; setAnalyseButton(); clearCandidates(S.view);
    return;
  }
  const an = {id: null, ctrl: new AbortController(), t0: performance.now(), first: null, target, clicked,
    hint: !!target.hint};
  S.analysis = an;
  S.lastResult = null;     // the last result was of the position before: its plan and value go
  drawPlan();
  renderEvalBar();
  $("#engine-status").innerHTML = an.hint ? "searching for a hint…" : "starting the search…";
  $("#candidates").replaceChildren();
  clearVerdict();
  $("#latency").textContent = "";
  try {
    const res = await fetch("/api/analysis", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(target), signal: an.ctrl.signal});
    if (!res.ok) {
      let msg = `${res.status}`;
      try { msg = (await res.json()).error; } catch (e) { /* not JSON */ }
      if (res.status === 429 && retries > 0 && S.analysis === an) {   // a search we just left is still ending
        await new Promise((r) => setTimeout(r, 250));
        if (S.analysis === an) return startAnalysis(clicked, retries - 1, an.hint);
        return;
      }
      throw new ApiError(msg, res.status);
    }
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    while (true) {
      const {value, done} = await reader.read();
      if (done) break;
      buf += dec.decode(value, {stream: true});
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let event = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data += line.slice(5).trim();
        }
        if (S.analysis !== an) return;
        onAnalysisEvent(an, event, data ? JSON.parse(data) : null);
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") showError(e.message || String(e));
  } finally {
    if (S.analysis === an) {
      S.analysis = null;
      S.analysing = false;
      setAnalyseButton();
    }
  }
}

function onAnalysisEvent(an, event, data) {
  // Every update, the search's final statistics ("verifying") and the verified result ("done") are
  // kwsearch-analysis/1 objects, as `kwsearch suggest --json` prints (docs/formats.md).
  if (event === "start") { an.id = data.id; return; }
  if (event === "error") { showError(data.error); return; }
  if (event !== "update" && event !== "verifying" && event !== "done") return;
  if (an.first === null) {
    an.first = performance.now() - an.t0;
    if (an.clicked) {
      window.kwsLatencies.push(an.first);
      $("#latency").textContent = `first update after ${fmt(an.first)} ms`;
    }
  }
  renderCandidates(data, event, an.hint);
}

// The options best first: by the re-searched rank once verified, else in the search's order.
const ranked = (r) => r.moveInfos.slice().sort((a, b) => (a.rank ?? a.order) - (b.rank ?? b.order));

function planRest(m) {
  // What follows the option in its one-line plan (kwsearch.analysis.plan_text): the option's label
  // (a tile's actions), then the mover's other decisions this turn, the market's grouped in one.
  const legal = (S.view && S.view.legal) || [];
  const opt = legal.find((o) => o.action === m.action);
  let head = opt && opt.label && opt.label.startsWith(m.move) ? opt.label.slice(m.move.length) : "";
  const groups = [], inner = [];
  let market = [];
  for (const t of m.plan.slice(1)) {
    if (t.startsWith("market ")) { market.push(t.slice(7)); continue; }
    if (market.length) { groups.push("market " + market.join(" ")); market = []; }
    (groups.length ? groups : inner).push(t);
  }
  if (market.length) groups.push("market " + market.join(" "));
  if (inner.length) head += ": " + inner.join(", ");
  return [head, ...groups].join("; ");
}

function verdictText(conf) {
  const rounds = `${conf.rounds} round${conf.rounds === 1 ? "" : "s"}`;
  const n = conf.equal.length;
  if (conf.verdict === "clear") return `clear: the best is separated from the rest (${rounds})`;
  if (conf.verdict === "equal") return `equal: the best ${n} are within ${+(100 * conf.margin).toFixed(1)} points of win share (${rounds})`;
  return `open: ${n} options cannot be told apart yet (${rounds}${conf.capped ? "; the cap was reached" : ""})`;
}

function renderCandidates(r, event, hint) {
  S.lastResult = r;
  const info = r.rootInfo;
  const conf = info.confidence || null;
  const names = (S.view && S.view.names) || [];
  const colour = S.colours[info.currentPlayer] || "#3a7bd5";
  const cutoff = info.config.cutoff;
  const notes = [];
  if (hint) notes.push(`hint: ${fmt(info.iterations)} iterations, re-searched until clear`);
  if (event !== "update") notes.push(r.interrupted ? "stopped" : "finished");
  if (info.poolFull) notes.push("the node pool is full");
  $("#engine-status").innerHTML =
    `<b>${fmt(info.iterations)}</b> iterations · <b>${fmt(info.iterationsPerSecond)}</b>/s · ${info.elapsed.toFixed(1)} s · ` +
    `for <span class="dot" style="background:${colour}"></span> ${escapeHtml(names[info.currentPlayer] || "seat " + info.currentPlayer)}` +
    (notes.length ? ` · <i>${escapeHtml(notes.join(", "))}</i>` : "");
  const verdict = $("#verdict");
  verdict.className = "verdict " + (conf ? conf.verdict : "unverified");
  verdict.dataset.verdict = conf ? conf.verdict : "";
  if (conf) {
    const best = conf.equal.length > 1 ? conf.equal.slice(0, -1).join(", ") + ` or ${conf.equal[conf.equal.length - 1]}, ` +
      (conf.verdict === "equal" ? "equal" : "equal at this precision") : conf.best;
    verdict.replaceChildren(el("b", {class: "verdict-word", text: conf.verdict}),
      el("span", {text: verdictText(conf).slice(conf.verdict.length)}), el("span", {class: "hint-line", text: ` · hint: ${best}`}));
    verdict.title = `each option re-searched alone: ${fmt(conf.iterations)} iterations in all; ` +
      "the whisker is the 95% interval of its win probability; = equal to the best (docs/confidence.md)";
  } else {
    verdict.replaceChildren(el("b", {class: "verdict-word", text: "unverified"}),
      el("span", {text: event === "verifying" ? " · re-searching each option alone for its 95% interval…" :
        " · the search's own numbers; the 95% intervals and the equal band come when the analysis ends"}));
    verdict.title = "";
  }
  const moves = ranked(r);
  const band = conf ? conf.equal.length : 0;
  const box = $("#candidates");
  while (box.children.length > moves.length) box.lastChild.remove();
  moves.forEach((c, k) => {
    let row = box.children[k];
    if (!row) {
      row = el("div", {class: "cand"},
        el("div", {class: "plan"}),
        el("div", {class: "row2"},
          el("div", {class: "bar"}, el("div", {class: "fill"}), el("div", {class: "err"}), el("div", {class: "share"}),
            el("div", {class: "label"})),
          el("div", {class: "nums"}, el("div", {class: "money"}), el("div", {class: "visits"}))));
      row.addEventListener("click", () => { const cc = row._cand; if (cc && S.mode === "doc") playLine(cc.plan); });
      box.append(row);
    }
    row._cand = c;
    row.dataset.visits = c.visits;
    row.dataset.move = c.move;
    row.dataset.equal = conf && c.equal ? "true" : "false";
    row.title = S.mode === "doc" ? "play this plan as a variation" : "";
    const e = c.estimate || null;
    const plan = row.querySelector(".plan");
    const badge = conf && c.equal && band > 1 ?
      el("span", {class: "eq", title: conf.verdict === "equal" ? "equal to the best" : "cannot be told apart from the best yet",
        text: "="}) : null;
    plan.replaceChildren(...[el("span", {class: "rank", text: `${k + 1}.`}), badge, el("span", {class: "first", text: c.move}),
      planRest(c)].filter((x) => x !== null));
    const win = e ? e.winrate : c.winrate;
    const fill = row.querySelector(".fill");
    fill.style.width = `${Math.max(1.5, 100 * win)}%`;
    fill.style.background = colour;
    const err = row.querySelector(".err");
    row.classList.toggle("verified", !!e);
    err.hidden = !e;
    if (e) {
      err.style.left = `${100 * e.winrateLow}%`;
      err.style.width = `${100 * (e.winrateHigh - e.winrateLow)}%`;
      err.title = `95% interval ${pct(e.winrateLow)} – ${pct(e.winrateHigh)}`;
    }
    row.querySelector(".share").style.width = `${100 * c.share}%`;
    // verified: the re-searched win probability and its 95% interval (clipped to 0-100%, so not always ±)
    row.querySelector(".label").textContent = e ?
      `win ${pct(e.winrate)} · 95% ${(100 * e.winrateLow).toFixed(0)}–${(100 * e.winrateHigh).toFixed(0)}%` : `win ${pct(c.winrate)}`;
    const money = row.querySelector(".money");
    money.title = cutoff ? `the money where the playouts stopped, ${cutoff} decisions on (not at the game's end)` : "expected money at the game's end";
    money.innerHTML = `${cutoff ? "money@cut" : "money"} <b>${c.money.toFixed(1)}</b> ± ${c.moneyStdev.toFixed(1)}` +
      (c.availability < 0.999 ? ` · legal ${Math.round(100 * c.availability)}%` : "");
    row.querySelector(".visits").innerHTML = `<b>${fmt(c.visits)}</b> visits · ${pct(c.share)}`;
  });
  $("#btn-best").disabled = !(S.mode === "doc" && moves.length);
  if (window.kwsOutlook) kwsOutlook.render(r, names, S.colours);   // cards and places (outlook.js)
  drawPlan();
  renderEvalBar();
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

// ---------------------------------------------------------------- games

async function startGame(body) {
  await guarded(async () => enterGame(await api("/api/games", body)));
}

function enterGame(view) {
  stopAnalysis(true);
  S.mode = "game"; S.doc = null;
  showGame(view);
}

function showGame(view) {
  S.view = view;
  clearErrors();
  remember({game: view.game, file: view.file});
  $("#title").textContent = `${view.mirror ? "mirror game" : "game"} · ${view.file} · ` +
    view.seats.map((s, k) => `${view.names[k]}${s === "human" ? "" : " (" + s + ")"}`).join(" vs ");
  $("#moves-title").textContent = "Moves of the game";
  renderBoard(view);
  renderDecision();
  renderMoves();
  renderActions();
  renderGraph();
  renderScoring(view);
  if (S.analysis && S.analysis.hint) stopAnalysis(true);   // a hint is for the decision it was asked at
  if (S.analysing) startAnalysis(false); else clearCandidates(view);
  if (window.kwsTeach && window.kwsTeach.show(view)) return;   // teaching mode holds the bots (teach.js)
  if (view.bot_to_move) setTimeout(advanceBots, 30);
}

function renderGameDecision(box, view) {
  if (view.terminal) {
    box.append(el("div", {class: "banner over", id: "game-over"}, resultLine(view)));
    box.append(el("div", {class: "muted", text: `The record is saved as ${view.file} in the server's games folder.`}));
    return;
  }
  if (view.bot_to_move) {
    box.append(el("div", {class: "who"}, seatLabel(view, view.to_move),
      el("span", {class: "thinking", text: `(${view.seats[view.to_move]}) is deciding: ${view.decision}`})));
    return;
  }
  box.append(el("div", {class: "who", id: "your-turn"}, seatLabel(view, view.to_move),
    `to decide: ${view.decision}`, el("span", {class: "muted", text: `round ${view.round}, ${view.phase} phase`})));
  if (S.question) {
    const q = S.question;
    box.append(el("div", {class: "banner"}, `${q.text}: ${q.question}`));
    const opts = el("div", {class: "options", id: "answers"});
    for (const o of q.options) opts.append(el("button", {class: "option", type: "button",
      onclick: () => decide(q.action, q.answers.concat([o]))}, o));
    box.append(opts);
    return;
  }
  box.append(optionButtons(view, (a) => decide(a, [])));
}

function renderGameMoves(box) {
  const view = S.view;
  const moves = view.moves || [];
  box.append(el("div", {class: "root", text: "set-up"}));
  let round = null;
  moves.forEach((m, k) => {
    if (m.round !== round) { round = m.round; box.append(el("div", {class: "round-sep", text: `round ${round}`})); }
    box.append(el("div", {class: "mv" + (k === moves.length - 1 ? " current" : "")},
    el("span", {class: "ply", text: k, title: plyTitle(k)}),
    el("span", {class: "dot", style: `background:${S.colours[m.seat]}`}),
    el("span", {class: "txt"}, m.move, m.reveals.length ? el("span", {class: "rev", text: m.reveals.join("; ")}) : null),
    el("span")));
  });
  const last = box.lastChild;
  if (last) last.scrollIntoView({block: "nearest"});
  $("#moves-note").textContent = `${moves.length} decisions`;
}

async function decide(action, answers) {
  const view = S.view;
  if (S.busy || !view || view.terminal) return;
  S.busy = true;
  try {
    const out = await api(`/api/games/${view.game}/decide`, {seat: view.to_move, action, answers});
    if (out.need) {
      S.question = {...out.need, answers};
      renderDecision();
      return;
    }
    S.question = null;
    S.busy = false;      // before drawing: else Take back and Hint are drawn disabled for the rest of the turn
    showGame(out);
  } catch (e) {
    S.question = null;
    showError(e.message);
    renderDecision();
  } finally {
    S.busy = false;
  }
}

async function advanceBots() {
  if (S.busy || S.mode !== "game" || !S.view || !S.view.bot_to_move) return;
  S.busy = true;
  const gid = S.view.game;
  try {
    const out = await api(`/api/games/${gid}/advance`, {});
    S.busy = false;
    if (S.mode === "game" && S.view.game === gid) showGame(out);
  } catch (e) {
    S.busy = false;
    showError(e.message);
  }
}

async function gameCall(what) {
  if (S.busy) return;
  S.busy = true;
  try { const out = await api(`/api/games/${S.view.game}/${what}`, {}); S.busy = false; showGame(out); }
  catch (e) { S.busy = false; showError(e.message); }
}

function hintGame() {
  if (S.mode !== "game" || !S.view || S.view.terminal || S.view.bot_to_move) return;
  S.analysing = true;
  setAnalyseButton();
  startAnalysis(true, 6, true);
}

async function exploreGame() {
  await guarded(async () => openDoc(await api(`/api/games/${S.view.game}/explore`, {}), undefined));
  if (S.doc) goto(lineEnd(0));
}

async function showGames() {
  await guarded(async () => {
    const g = await api("/api/games");
    const box = $("#games-list");
    box.replaceChildren();
    const t = el("table", {class: "games-table"});
    for (const game of g.games) {
      t.append(el("tr", {}, el("td", {text: game.file}), el("td", {class: "muted", text: game.seats.join(", ")}),
        el("td", {text: game.over ? "finished" : "running"}),
        el("td", {}, el("button", {class: "btn", type: "button", onclick: async () => {
          $("#dlg-games").close(); await guarded(async () => enterGame(await api(`/api/games/${game.id}`)));
        }}, "Show"))));
    }
    for (const f of g.files.filter((f) => !f.game)) {
      t.append(el("tr", {}, el("td", {text: f.name}), el("td", {class: "muted", text: "saved game"}), el("td"),
        el("td", {}, el("button", {class: "btn", type: "button", onclick: async () => {
          $("#dlg-games").close(); await guarded(async () => enterGame(await api("/api/games/resume", {file: f.id})));
        }}, "Resume"))));
    }
    if (!t.children.length) box.append(el("p", {class: "muted", text: `No games yet in ${g.folder}.`}));
    else box.append(el("p", {class: "muted", text: `Games folder: ${g.folder}`}), t);
    $("#dlg-games").showModal();
  });
}

// ---------------------------------------------------------------- reloading the page

function remember(what) {
  // What is shown, in the URL's hash (#game=G&file=F or #doc=D&node=N): a reload opens it again.
  const hash = "#" + new URLSearchParams(what).toString();
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

async function restore() {
  // The game or document of the URL's hash: true when it is open again, false when the hash names none,
  // else why it could not be reopened.
  const h = new URLSearchParams(location.hash.slice(1));
  try {
    if (h.get("game")) {
      try {
        enterGame(await api(`/api/games/${encodeURIComponent(h.get("game"))}`));
      } catch (e) {
        // the server was restarted: the game's record file is still in its games folder
        const file = h.get("file");
        const f = file && (await api("/api/games")).files.find((x) => x.name === file);
        if (!f) throw e;
        enterGame(await api("/api/games/resume", {file: f.id}));
      }
      return true;
    }
    if (h.get("doc")) {
      const doc = await api(`/api/docs/${encodeURIComponent(h.get("doc"))}`);
      const node = parseInt(h.get("node"), 10) || 0;
      await openDoc(doc, doc.nodes[node] ? node : 0);
      return true;
    }
  } catch (e) {
    history.replaceState(null, "", location.pathname + location.search);
    return `The page could not reopen what it showed before the reload: ${e.message}`;
  }
  return false;
}

// ---------------------------------------------------------------- wiring

function dialogOpen() { return !!document.querySelector("dialog[open]"); }

document.addEventListener("keydown", (ev) => {
  if (dialogOpen() || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const tag = (ev.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "textarea") return;
  const k = ev.key;
  if (k === "ArrowLeft") step(-1);
  else if (k === "ArrowRight") step(1);
  else if ((k === "ArrowUp" || k === "Home") && S.mode === "doc") goto(0);
  else if ((k === "ArrowDown" || k === "End") && S.mode === "doc") goto(lineEnd(S.node));
  else if (k === "a" || k === " ") toggleAnalysis();
  else if (k === "b") playBest();
  else return;
  ev.preventDefault();
  if (tag === "button" || tag === "a") ev.target.blur();   // else space would also "click" the focused button
});

function playBest() {
  const r = S.lastResult;
  if (S.mode === "doc" && r && r.moveInfos.length) playLine(ranked(r)[0].plan);
}

$("#btn-analyse").addEventListener("click", toggleAnalysis);
$("#btn-best").addEventListener("click", playBest);
$("#nav-first").addEventListener("click", () => goto(0));
$("#nav-prev").addEventListener("click", () => step(-1));
$("#nav-next").addEventListener("click", () => step(1));
$("#nav-last").addEventListener("click", () => S.mode === "doc" && goto(lineEnd(S.node)));
$("#btn-help").addEventListener("click", () => $("#dlg-help").showModal());
$("#btn-games").addEventListener("click", showGames);
$("#btn-paste").addEventListener("click", () => { $("#paste-text").value = ""; $("#dlg-paste").showModal(); });
$("#paste-ok").addEventListener("click", (ev) => {
  const text = $("#paste-text").value;
  if (!text.trim()) { ev.preventDefault(); return; }
  guarded(() => openText(text, "pasted text"));
});
$("#file-input").addEventListener("change", async (ev) => {
  const f = ev.target.files[0];
  ev.target.value = "";
  if (f) await guarded(async () => openText(await f.text(), f.name));
});
$("#btn-new-game").addEventListener("click", () => $("#dlg-new").showModal());
$("#new-mirror").addEventListener("change", (ev) => {
  $("#mirror-setup").hidden = !ev.target.checked;
  if (ev.target.checked && !/^\s*human(\s*,\s*human)+\s*$/i.test($("#new-seats").value)) $("#new-seats").value = "human,human,human,human";
});
for (const b of document.querySelectorAll(".presets .chip")) {
  b.addEventListener("click", () => { $("#new-seats").value = b.dataset.seats; $("#new-mirror").checked = false;
    $("#mirror-setup").hidden = true; });
}
// The level picker (docs/strength.md, "Levels"): the human against one ismcts:level=K seat.
$("#new-level").addEventListener("change", (ev) => {
  if (!ev.target.value) return;
  $("#new-seats").value = `human,ismcts:level=${ev.target.value}`; $("#new-mirror").checked = false;
  $("#mirror-setup").hidden = true;
});
$("#new-ok").addEventListener("click", () => {
  const mirror = $("#new-mirror").checked;
  const body = {seats: $("#new-seats").value.trim(), v6: $("#new-v6").checked, mirror};
  const seed = $("#new-seed").value.trim();   // empty: the server picks an unpredictable seed
  if (seed) body.seed = parseInt(seed, 10) || 0;
  const names = $("#new-names").value.split(",").map((x) => x.trim()).filter((x) => x);
  if (names.length) body.names = names;
  if (mirror) body.setup = {chain: $("#mirror-chain").value, offered: $("#mirror-offered").value,
    display: $("#mirror-display").value};
  if (window.kwsTeach && !mirror) body.teach = window.kwsTeach.settings();   // teach.js: undefined when off
  startGame(body);
});
window.addEventListener("resize", () => { if (S.mode === "doc") renderGraph(); });

(async function init() {
  await guarded(async () => {
    const info = await api("/api/info");
    if (info.colours) S.colours = info.colours;
    const restored = await restore();
    if (restored === true) return;
    if (info.first) await openDoc(await api(`/api/docs/${info.first}`), 0);
    else clearCandidates(null);
    if (restored) showError(restored);
  });
})();
