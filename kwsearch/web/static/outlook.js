// kwsearch analysis board: what the cards bring and the finishing places (issue 30), under the
// candidates of the engine panel. Reads the kwsearch-analysis/1 fields moveInfos[].cards and
// moveInfos[].places (the hint's option: the first by rank once verified) (docs/formats.md, docs/cards-and-places.md); app.js calls kwsOutlook.render after
// every analysis update and kwsOutlook.clear when the candidates go. Uses app.js's el() and escapes
// nothing by hand: every text goes in as a text node.
"use strict";

window.kwsOutlook = (() => {
  const pc = (x) => `${Math.round(100 * x)}%`;
  const ord = (k) => ({1: "1st", 2: "2nd", 3: "3rd"})[k] || `${k}th`;
  // a margin in points: whole points, one decimal below 1 (as kwsearch.outlook.points)
  const pts = (x) => (100 * x >= 0.95 ? (100 * x).toFixed(0) : (100 * x).toFixed(1));

  function box() {
    let b = document.getElementById("outlook");
    if (!b) {
      b = el("div", {id: "outlook", class: "outlook"});
      const after = document.getElementById("candidates");
      after.parentNode.insertBefore(b, after.nextSibling);
    }
    return b;
  }

  function clear() {
    const b = document.getElementById("outlook");
    if (b) b.replaceChildren();
  }

  function cardsSection(moves) {
    const rows = moves.filter((m) => m.cards);
    if (!rows.length) return null;
    const sec = el("div", {class: "outlook-cards"},
      el("div", {class: "outlook-title", text: "What the cards bring",
        title: "each option's win % in the search's own samples, split by a card coming up next (one of the " +
          "next two research cards turned up, or the next specialty tile) or not; ± 95% margins"}));
    for (const m of rows) {
      const item = el("div", {class: "outlook-option", "data-move": m.move},
        el("div", {class: "outlook-head", text: `${m.move}: ${pc(m.cards.winrate)} over ${m.cards.samples.toLocaleString("en-US")} samples`}));
      if (!m.cards.split.length) item.append(el("div", {class: "muted", text: "too few samples to weigh a card (20 each way)"}));
      if (m.cards.split.length && !m.cards.split.some((c) => c.beyondMargin)) {
        item.append(el("div", {class: "muted", text: "no difference beyond its 95% margin: the cards hardly matter here"}));
      }
      for (const c of m.cards.split) {
        item.append(el("div", {class: "outlook-card" + (c.beyondMargin ? " sure" : ""), "data-card": c.card,
          text: `if ${c.card} comes up next (${pc(c.probability)}): ${pc(c.winrateIf)} ±${pts(c.marginIf)}, ` +
            `otherwise ${pc(c.winrateIfNot)} ±${pts(c.marginIfNot)}`}));
      }
      sec.append(item);
    }
    return sec;
  }

  function placesSection(places, names, colours) {
    if (!places) return null;
    const n = places.seats.length;
    const head = el("tr", {}, el("th", {text: "seat"}),
      ...Array.from({length: n}, (_, k) => el("th", {text: ord(k + 1)})), el("th", {text: "expected"}));
    const table = el("table", {class: "outlook-places"}, head);
    for (const s of places.seats) {
      table.append(el("tr", {"data-seat": String(s.seat)},
        el("td", {}, el("span", {class: "dot", style: `background:${colours[s.seat] || "#888"}`}),
          document.createTextNode(" " + (names[s.seat] || `seat ${s.seat}`))),
        ...s.probabilities.map((p, k) => el("td", {class: "num", title: `± ${pts(s.margins[k])} points (95%)`, text: pc(p)})),
        el("td", {class: "num", text: s.expected.toFixed(2)})));
    }
    return el("div", {class: "outlook-places-box"},
      el("div", {class: "outlook-title", text: `Finishing places after ${places.move}`,
        title: "every seat's chance of each place in the search's samples of this option; a playout cut off " +
          "early places the seats by the evaluation's win shares (docs/cards-and-places.md)"}),
      table, el("div", {class: "muted", text: `${places.samples.toLocaleString("en-US")} samples of the search ` +
        "(its own win %, not the re-searched one)"}));
  }

  function render(r, names, colours) {
    const b = box();
    if (!r || !r.moveInfos) { b.replaceChildren(); return; }
    const moves = r.moveInfos.slice().sort((a, c) => (a.rank ?? a.order) - (c.rank ?? c.order));
    // the places after the hint's option: the first by the re-searched rank once verified
    const best = moves.find((m) => m.places);
    const places = best ? Object.assign({move: best.move}, best.places) : null;
    const parts = [placesSection(places, names || [], colours || []), cardsSection(moves)]
      .filter((x) => x !== null);
    b.replaceChildren(...parts);
  }

  return {render, clear};
})();
