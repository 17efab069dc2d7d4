// kwsearch analysis board: a review of the open game run from the page (kwsearch review in a worker).
//
// The panel "Review the game" under the move list: the budget (iterations per decision, seed: the
// defaults of `kwsearch review`), Start / Stop / Resume, the progress (decisions done of the total,
// the time left estimated from the decisions so far, with its spread) and, once it ends, the review
// in the page's review panel (marks, graph, win-% change) and its files to download. The server runs
// it (kwsearch/web/reviews.py); this page only asks and polls /api/docs/D/review/status.
// Uses app.js's globals: S, api, el, $, showError, fmt, renderMoves, renderGraph, renderEvalBar.
"use strict";

const RR = {
  doc: null,        // the document the panel shows (its id)
  status: null,     // the latest status of its review ({state: "none"} when none ran)
  timer: null,      // the poll
  defaults: {iterations: 5000, seed: 0},
};

function rrSeconds(s) {
  if (s < 60) return `${Math.max(1, Math.round(s))} s`;
  const m = Math.floor(s / 60), r = Math.round(s % 60);
  return m < 60 ? `${m} min ${r} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

function rrPanel() {
  let box = $("#review-run");
  if (!box) {   // the panel of index.html; built here when an older page lacks it
    box = el("section", {id: "review-run", class: "panel"});
    $("#side").append(box);
  }
  return box;
}

// Called by app.js whenever the board shows another node or game view.
function renderReviewRun() {
  const box = rrPanel();
  const doc = S.mode === "doc" && S.doc && S.doc.kind === "record" ? S.doc : null;
  const over = S.mode === "game" && S.view && S.view.terminal;
  if (!doc && !over) { box.hidden = true; rrStopPolling(); RR.doc = null; return; }
  box.hidden = false;
  if (doc && RR.doc !== doc.id) {
    RR.doc = doc.id; RR.status = null;
    rrStopPolling();
    rrDraw();
    rrPoll();
    return;
  }
  if (!doc) { RR.doc = null; RR.status = null; rrStopPolling(); }
  rrDraw();
}

function rrInputs() {
  const it = $("#rr-iterations"), sd = $("#rr-seed");
  return {iterations: it ? it.value : String(RR.defaults.iterations), seed: sd ? sd.value : String(RR.defaults.seed)};
}

function rrBudget() {
  // What the form asks for, as numbers; the server checks them again (and says why it refuses).
  const v = rrInputs(), body = {};
  for (const [k, text] of Object.entries(v)) {
    const t = text.trim();
    if (t === "") continue;                       // the default of kwsearch review
    if (!/^\d+$/.test(t)) throw new Error(`${k}: expected a whole number, got "${t}"`);
    body[k] = Number(t);
  }
  return body;
}

function rrForm() {
  // The budget's inputs: built once per document (what is typed stays while the page polls), filled with
  // the budget of the document's last review when there is one (so Resume continues it).
  const box = rrPanel();
  const key = `${S.mode}:${RR.doc}`;
  if (box.dataset.for !== key || !$("#rr-iterations")) {
    box.dataset.for = key;
    RR.fill = true;
    box.replaceChildren(
      el("div", {class: "panel-title"}, el("span", {text: "Review the game"}),
        el("span", {class: "muted", text: "kwsearch review"})),
      el("div", {class: "rr-form"},
        el("label", {}, "iterations / decision ",
          el("input", {id: "rr-iterations", type: "number", min: 1, max: 1000000, step: 1,
            value: RR.defaults.iterations,
            title: "Search iterations per decision (kwsearch review --iterations; default 5000)"})),
        el("label", {}, "seed ",
          el("input", {id: "rr-seed", type: "number", min: 0, step: 1, value: RR.defaults.seed,
            title: "Seed of the searches (kwsearch review --seed; default 0): the same seed gives the same review"}))),
      el("div", {class: "rr-buttons", id: "rr-buttons"}),
      el("div", {class: "rr-progress", id: "rr-progress"}));
  }
  const s = RR.status || {state: "none"};
  const running = s.state === "running" || s.state === "stopping";
  if ((RR.fill || running) && s.iterations !== undefined) {
    $("#rr-iterations").value = s.iterations;
    $("#rr-seed").value = s.seed;
    RR.fill = false;
  }
  $("#rr-iterations").disabled = running;
  $("#rr-seed").disabled = running;
}

function rrDraw() {
  rrForm();
  const s = RR.status || {state: "none"};
  const running = s.state === "running" || s.state === "stopping";
  // The button is replaced only when it changes: a button redrawn under the pointer by a poll loses the click.
  const buttons = $("#rr-buttons");
  let button;
  if (S.mode === "game") {
    button = ["rr-start", "Review this game", rrReviewGame, false, "Open this game's moves and review every decision"];
  } else if (running) {
    button = ["rr-stop", s.state === "stopping" ? "Stopping…" : "Stop", rrStop, s.state === "stopping",
      "Stop: what is done is kept (in the cache) and Resume continues"];
  } else {
    const resume = s.state === "stopped" && s.total > 0 || (s.state === "error" && s.done > 0);
    button = ["rr-start", resume ? "Resume" : s.state === "done" ? "Review again" : "Review", rrStart, false,
      resume ? "Continue from the decisions already reviewed (the same iterations and seed)"
             : "Review every decision of the game in the background"];
  }
  const [id, label, action, disabled, title] = button;
  const key = `${id}|${label}|${disabled}`;
  if (buttons.dataset.key !== key) {
    buttons.dataset.key = key;
    buttons.replaceChildren(el("button", {class: "btn primary" + (id === "rr-stop" ? " running" : ""), id,
      onclick: action, disabled, title}, label));
  }
  const progress = $("#rr-progress");
  progress.replaceChildren();
  if (s.state !== "none" && S.mode === "doc") {
    const bar = el("progress", {id: "rr-bar", max: Math.max(1, s.total), value: s.done});
    let text;
    if (s.state === "running" && !s.total) text = "starting…";
    else if ((s.state === "running" || s.state === "stopping") && s.luck) {
      // every decision is reviewed; the chance events' luck is being valued (docs/luck.md)
      text = `${s.done} / ${s.total} decisions · luck of ${s.luck.done} / ${s.luck.total} chance events`;
      if (s.state === "stopping") text += " · stopping";
    } else if (s.state === "running" || s.state === "stopping") {
      text = `${s.done} / ${s.total} decisions`;
      if (s.cached) text += ` (${s.cached} from the cache)`;
      if (s.eta !== null && s.eta !== undefined) {
        text += ` · about ${rrSeconds(s.eta)} left`;
        if (s.eta_half !== null && s.eta_half !== undefined) text += ` (± ${rrSeconds(s.eta_half)})`;
      } else text += " · time left: after the first decisions";
      if (s.state === "stopping") text += " · stopping";
    } else if (s.state === "done") {
      text = `Reviewed ${s.done} decisions, ${fmt(s.iterations)} iterations each (seed ${s.seed}): ` +
        "marks in the move list, the graph under the board.";
    } else if (s.state === "stopped" && !s.total) {
      text = "Stopped before its first decision: nothing was reviewed.";
    } else if (s.state === "stopped") {
      text = `Stopped after ${s.done} of ${s.total} decisions, kept in the games folder's review cache: ` +
        "Resume continues with the same iterations and seed.";
    } else {
      text = `The review failed: ${s.error || "unknown error"}`;
    }
    progress.append(bar, el("div", {class: "rr-text", id: "rr-text", "data-state": s.state, text,
      title: `the review cache: ${s.cache} in the server's games folder (kwsearch review reads it too)`}));
    if (s.files) {
      progress.append(el("div", {class: "rr-files"},
        el("a", {class: "btn", id: "rr-json", href: s.files.json, download: "",
          title: "The review (kwsearch-review/1), as kwsearch review --json prints it"}, "Review JSON"),
        el("a", {class: "btn", id: "rr-html", href: s.files.html, download: "",
          title: "The HTML report, as kwsearch review --html writes it"}, "HTML report")));
    }
  } else if (S.mode === "doc") {
    progress.append(el("div", {class: "muted rr-text", id: "rr-text", "data-state": "none",
      text: "Every decision searched from the deciding seat's view, compared with the best: " +
        "the same review, cache and output as kwsearch review."}));
  }
}

function rrStopPolling() {
  if (RR.timer) { clearTimeout(RR.timer); RR.timer = null; }
}

async function rrPoll() {
  rrStopPolling();
  const did = RR.doc;
  if (!did) return;
  let s;
  try { s = await api(`/api/docs/${did}/review/status`); } catch (e) { return; }
  if (RR.doc !== did) return;      // the page moved on
  const before = RR.status;
  RR.status = s;
  const ended = s.state !== "running" && s.state !== "stopping";
  if (ended && before && (before.state === "running" || before.state === "stopping")) await rrShowReview(did);
  rrDraw();
  if (!ended) RR.timer = setTimeout(rrPoll, 400);
}

async function rrShowReview(did) {
  // The review ended (done or stopped): the document now holds it; draw it in the review panel.
  const summary = await api(`/api/docs/${did}`);
  if (!S.doc || S.doc.id !== did) return;
  S.doc = summary;
  renderMoves(); renderGraph(); renderEvalBar();
}

async function rrStart() {
  let body;
  try { body = rrBudget(); } catch (e) { showError(e.message); return; }
  const did = RR.doc;
  try { RR.status = await api(`/api/docs/${did}/review/start`, body); } catch (e) { showError(e.message); return; }
  rrDraw();
  rrPoll();
}

async function rrStop() {
  try { RR.status = await api(`/api/docs/${RR.doc}/review/stop`, {}); } catch (e) { showError(e.message); }
  rrDraw();
  rrPoll();
}

async function rrReviewGame() {
  // A finished game: its moves opened as a document (Explore), then reviewed there.
  let body;
  try { body = rrBudget(); } catch (e) { showError(e.message); return; }
  try {
    const summary = await api(`/api/games/${S.view.game}/explore`, {});
    await openDoc(summary, undefined);
    RR.doc = summary.id;
    RR.status = await api(`/api/docs/${summary.id}/review/start`, body);
  } catch (e) { showError(e.message); return; }
  rrDraw();
  rrPoll();
}
