// Teaching mode on the web board (kwsearch/teach.py, kwsearch/web/games.py; docs/web.md, "Teaching mode").
//
// The server checks each human decision in the background, as the review would; a game's view carries
// `teach`: {threshold, iterations, seed, checking, verdict, flagged}. This file draws the banner above the
// decision panel and decides whether the bots may move on:
//   - while a check is under way and a bot is to move, the bots wait (the page polls the game's view);
//   - a verdict that reaches the threshold ("flagged") holds the bots until the player takes the decision
//     back (the existing take-back route, once per human decision made after it) or plays on.
// It uses app.js's globals (S, el, api, showGame, showError, advanceBots).
"use strict";

(function () {
  const STORE = "kwsTeachDismissed";
  let poll = null;

  const dismissed = () => {
    try { return new Set(JSON.parse(sessionStorage.getItem(STORE) || "[]")); } catch (e) { return new Set(); }
  };
  const keyOf = (view, v) => `${view.game}:${v.ply}:${v.played}:${view.moves.length > v.ply ? view.moves[v.ply].move : ""}`;

  function dismiss(view, v) {
    const d = dismissed();
    d.add(keyOf(view, v));
    try { sessionStorage.setItem(STORE, JSON.stringify([...d].slice(-200))); } catch (e) { /* private mode */ }
  }

  // The new-game form's settings: undefined when teaching mode is off.
  function settings() {
    if (!document.getElementById("new-teach").checked) return undefined;
    const out = {threshold: document.getElementById("new-teach-threshold").value};
    const it = document.getElementById("new-teach-iterations").value.trim();
    if (it) out.iterations = Number(it);   // the server checks it (a one-line error names teach.iterations)
    return out;
  }

  const told = {inaccuracy: "inaccuracies and worse", mistake: "mistakes and blunders", blunder: "blunders"};

  // Draw the banner for `view`; true when the bots must wait (a check under way, or a flagged decision).
  function show(view) {
    const box = document.getElementById("teach-banner");
    clearTimeout(poll);
    poll = null;
    const t = view && view.teach;
    box.replaceChildren();
    if (!t) { box.hidden = true; return false; }
    box.hidden = false;
    const flagged = t.flagged && !dismissed().has(keyOf(view, t.flagged)) ? t.flagged : null;
    const about = `Teaching mode: ${told[t.threshold]} are pointed out (the review's check, ` +
      `${t.iterations.toLocaleString("en-US")} iterations, seed ${t.seed}).`;
    if (flagged) {
      const canUndo = view.can_undo && !view.terminal;
      const buttons = el("div", {class: "teach-buttons"});
      if (canUndo) buttons.append(el("button", {class: "btn primary", id: "teach-undo", type: "button",
        title: "Take back this decision and what came after it (cards it turned up go back into the deck, shuffled again)",
        onclick: () => takeBack(flagged)}, "Take back"));
      buttons.append(el("button", {class: "btn", id: "teach-dismiss", type: "button",
        onclick: () => { dismiss(view, flagged); if (!show(S.view) && S.view.bot_to_move) advanceBots(); }},
        canUndo ? "Play on" : "Dismiss"));
      box.append(el("div", {class: "banner teach", id: "teach-flag", role: "alert"},
        el("div", {id: "teach-message", text: `${flagged.message}${canUndo ? " Take back?" : ""}`}),
        el("div", {class: "muted", text: `ply ${flagged.ply}: you played ${flagged.played_label}; ` +
          `win ${(100 * flagged.played_win).toFixed(0)}% against ${(100 * flagged.best_win).toFixed(0)}% for the better option`}),
        buttons));
    } else if (t.checking) {
      box.append(el("div", {class: "muted", id: "teach-checking", text: "Teaching mode: checking your decision…"}));
    } else if (t.verdict && t.verdict.error) {
      box.append(el("div", {class: "muted", id: "teach-error", text: `Teaching mode: ply ${t.verdict.ply}: ${t.verdict.error}`}));
    } else if (t.verdict) {
      box.append(el("div", {class: "muted", id: "teach-ok",
        text: `Teaching mode: your last decision (ply ${t.verdict.ply}) passed the check` +
          (t.verdict.class ? ` (${t.verdict.class}, below the threshold).` : ".")}));
    } else {
      box.append(el("div", {class: "muted", id: "teach-about", text: about}));
    }
    if (flagged && !view.terminal) {
      const thinking = document.querySelector("#decision .thinking");
      if (thinking && view.bot_to_move) {
        thinking.classList.remove("thinking");   // no "deciding" dots: the bot is not searching
        thinking.textContent = `(${view.seats[view.to_move]}) waits: take your decision back or play on`;
      }
      return true;
    }
    if (t.checking && !view.terminal) {
      poll = setTimeout(() => refresh(view.game), 200);
      return view.bot_to_move;
    }
    return false;
  }

  // A check under way: fetch the game's view again and redraw the banner only (a hint keeps running).
  async function refresh(gid) {
    poll = null;
    let out;
    try { out = await api(`/api/games/${gid}`); } catch (e) { showError(e.message); return; }
    if (S.mode !== "game" || !S.view || S.view.game !== gid || S.busy) return;   // another request redraws
    if (out.moves.length !== S.view.moves.length) return;
    S.view.teach = out.teach;
    if (!show(S.view) && S.view.bot_to_move) advanceBots();
  }

  // Take back the flagged decision: the take-back route until the moves end before it.
  async function takeBack(v) {
    if (S.busy || !S.view) return;
    S.busy = true;
    const gid = S.view.game;
    let out = S.view;
    try {
      while (out.moves.length > v.ply && out.can_undo) out = await api(`/api/games/${gid}/undo`, {});
      S.busy = false;
      if (S.mode === "game" && S.view.game === gid) showGame(out);
    } catch (e) {
      S.busy = false;
      showError(e.message);
    }
  }

  window.kwsTeach = {settings, show};
})();
