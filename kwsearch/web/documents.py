"""Documents opened for exploring: a game record or a position, kept as a tree of nodes.

A document is what the explore view of the page shows. Its root is the game's
set-up (a record) or the position; every node below is one decision. A record's
decisions form the main line; a decision made on the page at any node adds a
child there, a variation when the node already had one (lichess's model: the
move list is a tree, the first child of a node continues its line). Nodes are
addressed by small integers that the server issues; nothing the page sends is
ever used as a file name.

A record's nodes carry the record's events up to them, so every node of a
record document can be saved as a game record (``kwsearch-game/1``) and
replayed by every command; any node can be saved as a position
(``kwsearch-position/1``, the observation: the undrawn cards without their
order). A what-if decision that turns up research cards draws them from the
document's own deck: the record's seeded order, or for a position the order
drawn from the document's seed — a guess, like any future card.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import KwsearchError
from ..formats import POSITION_FORMAT, position_to_state
from ..jsonload import loads_json
from ..records import RECORD_FORMAT, REVEAL, Recorder, replay
from ..render import decision_text, menu_label
from ..scoring import record_scorings, reports_from_log
from . import WebError
from .engine_bridge import board_svg, visible_state
from .guard import refuse_lone_surrogates

#: A document holds at most this many nodes (what-if branches included).
MAX_NODES = 20_000
#: At most this many decisions are applied by one request (a plan or a line).
MAX_LINE = 200


def parse_upload(text: str, name: str) -> Any:
    """The JSON object of an uploaded or pasted file, read as strictly as a file given to a command
    (:func:`kwsearch.jsonload.loads_json`); errors name the upload."""
    obj = loads_json(text, name, error=WebError)
    refuse_lone_surrogates(obj, f"{name}: not valid JSON: ")
    return obj


def seat_names_of(obj: Any, players: int) -> list[str]:
    """Display names of the seats: a record's ``setup.names``, else short names of its ``setup.seats``
    (a bot spec becomes "ISMCTS"), else P1, P2, ..."""
    from ..render import seat_names
    setup = obj.get("setup") if isinstance(obj, dict) else None
    setup = setup if isinstance(setup, dict) else {}
    names, seats = setup.get("names"), setup.get("seats")

    def one_per_seat(v: Any) -> bool:
        return isinstance(v, list) and len(v) == players and all(isinstance(s, str) and s for s in v)

    if one_per_seat(names):
        return list(names)
    if one_per_seat(seats):
        return seat_names(seats)
    return [f"P{i + 1}" for i in range(players)]


def scoring_view(report, names: list[str]) -> dict[str, Any] | None:
    """A scoring's breakdown for the page (:class:`kwsearch.scoring.ScoringReport`): its lines of text,
    each seat's items and money change."""
    if report is None:
        return None
    n = len(report.money_before)
    return {
        "round": report.round,
        "final": report.final is not None,
        "lines": report.lines(names),
        "seats": [{"items": [[label, v] for label, v in report.items(s)], "before": report.money_before[s],
                   "after": report.money_after[s]} for s in range(n)],
    }


def state_view(state, names: list[str], seat: int | None = None, *, legal: bool = True) -> dict[str, Any]:
    """What the page shows of ``state``: the board drawn from ``seat``'s observation, the pending
    decision with its legal options (id and text), money and phase. Never the deck order."""
    seen = visible_state(state, seat)
    over = state.is_terminal()
    mover = None if over else state.current_player()
    kind = state.pending()
    view: dict[str, Any] = {
        "svg": board_svg(seen, seat_names=names, perspective=seat),
        "players": state.game.num_players,
        "names": names,
        "round": seen.round,  # seen: a reference state (the state itself may be a fast one)
        "phase": seen.phase,
        "terminal": over,
        "money": state.money(),
        "to_move": mover,
        "decision": None if over else decision_text(state),
        "pending": kind,
        "legal": [],
    }
    if over:
        money = state.money()
        best = max(money)
        view["winners"] = [s for s, m in enumerate(money) if m == best]
    elif legal:
        view["legal"] = [{"action": a, "text": state.action_to_text(a), "label": menu_label(state, a)}
                         for a in state.legal_actions()]
    return view


@dataclass
class Node:
    """One decision of a document (the root is the start: no move)."""

    id: int
    parent: int | None
    ply: int
    move: str | None = None          # the decision in text notation
    seat: int | None = None          # who made it
    reveals: list[str] = field(default_factory=list)  # the reveal events that followed it
    children: list[int] = field(default_factory=list)
    events: tuple[str, ...] = ()     # a record document: the record's events up to here
    main: bool = False               # on the record's own line
    round: int | None = None         # the round in which the decision was made
    log: list = field(default_factory=list)  # a position document: the scoring log still open here
    report: Any = None               # a position document: the scoring this decision finished

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "parent": self.parent, "ply": self.ply, "move": self.move, "seat": self.seat,
                "reveals": self.reveals, "children": self.children, "main": self.main, "round": self.round}


class Document:
    """A record or a position, its tree of nodes and the states reached (cached)."""

    def __init__(self, did: str, name: str, obj: dict[str, Any], seed: int = 0):
        self.id, self.name, self.seed = did, name, seed
        #: Whether a saved record keeps the ``seed``: not for a running game opened to explore,
        #: whose what-if seed is the server's (no answer about a live game carries a seed).
        self.save_seed = True
        #: The games-folder record file of a finished game of this server opened to explore (its review
        #: from the page then uses ``kwsearch review``'s cache of that file); None otherwise.
        self.game_file = None
        fmt = obj.get("format") if isinstance(obj, dict) else None
        self.review: dict[str, Any] | None = None
        self.nodes: list[Node] = []
        self._states: dict[int, Any] = {}
        self._scorings: dict[int, Any] = {}
        if fmt == RECORD_FORMAT:
            self.kind = "record"
            self.base = {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("events", "result")}
            self.base["events"] = []
            movers: list[int] = []
            steps: list = []  # (the state before each decision, its action): every main-line state at once
            final = replay(obj, source=name, movers=movers, steps=steps)  # checks the whole record first
            root = replay(self.base, source=name)
            self.players = root.game.num_players
            self._add(Node(0, None, 0, main=True), root)
            events = [e for e in obj.get("events", [])]
            prev, k, i = 0, 0, 0
            while i < len(events):
                j = i + 1
                while j < len(events) and events[j].strip().lower().startswith(REVEAL):
                    j += 1
                node = Node(len(self.nodes), prev, k + 1, events[i], movers[k], list(events[i + 1:j]),
                            events=tuple(events[:j]), main=True, round=steps[k][0].round)
                self._add(node, steps[k + 1][0] if k + 1 < len(steps) else final)
                prev, k, i = node.id, k + 1, j
        elif fmt == POSITION_FORMAT:
            self.kind = "position"
            self.base = copy.deepcopy(obj)
            root = position_to_state(obj, seed=seed, source=name)
            self.players = root.game.num_players
            self._add(Node(0, None, 0, main=True), root)
        else:
            raise WebError(f"{name}: format: expected {RECORD_FORMAT!r} (a game record) or {POSITION_FORMAT!r} "
                           f"(a position), got {json.dumps(fmt)}")
        self.names = seat_names_of(obj, self.players)

    def _add(self, node: Node, state) -> None:
        """Add ``node`` (reached in ``state``, which the document keeps) under its parent."""
        if len(self.nodes) >= MAX_NODES:
            raise WebError(f"{self.name}: the document has {MAX_NODES} nodes already; open it again to start afresh",
                           409)
        self.nodes.append(node)
        if node.parent is not None:
            self.nodes[node.parent].children.append(node.id)
        self._states[node.id] = state

    # -- reading ---------------------------------------------------------------
    def node(self, nid: Any) -> Node:
        if isinstance(nid, bool) or not isinstance(nid, int) or not 0 <= nid < len(self.nodes):
            raise WebError(f"{self.name}: no node {json.dumps(nid)} (expected 0 to {len(self.nodes) - 1})", 404)
        return self.nodes[nid]

    def state(self, nid: int):
        """A copy of the state at node ``nid`` (the caller may change it)."""
        node = self.node(nid)
        return self._states[node.id].copy()

    def main_end(self) -> int:
        """The last node of the main line (the record's moves)."""
        node = self.nodes[0]
        while True:
            nxt = next((c for c in node.children if self.nodes[c].main), None)
            if nxt is None:
                return node.id
            node = self.nodes[nxt]

    def path(self, nid: int) -> list[int]:
        """The node ids from the root to ``nid``."""
        out = []
        node: Node | None = self.node(nid)
        while node is not None:
            out.append(node.id)
            node = self.nodes[node.parent] if node.parent is not None else None
        return out[::-1]

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "kind": self.kind, "players": self.players, "names": self.names,
                "nodes": [n.to_json() for n in self.nodes], "review": self.review}

    def last_scoring(self, nid: int):
        """The last scoring finished on the way to node ``nid`` (a ScoringReport), or None."""
        node = self.node(nid)
        if node.id in self._scorings:
            return self._scorings[node.id]
        if self.kind == "record":
            reports = record_scorings({**self.base, "events": list(node.events)}, source=self.name)
            report = reports[-1] if reports else None
        else:
            report = next((self.nodes[k].report for k in reversed(self.path(nid)) if self.nodes[k].report), None)
        self._scorings[node.id] = report
        return report

    def view(self, nid: int) -> dict[str, Any]:
        st = self.state(nid)
        out = state_view(st, self.names, None)
        out["scoring"] = scoring_view(self.last_scoring(nid), self.names)
        node = self.nodes[nid]
        out.update({"doc": self.id, "node": nid, "ply": node.ply, "move": node.move, "seat": node.seat,
                    "reveals": node.reveals, "can_save_record": self.kind == "record"})
        return out

    # -- changing ----------------------------------------------------------------
    def play(self, nid: int, action: Any) -> int:
        """The child of ``nid`` reached by the legal action ``action`` (made when new); its id."""
        parent = self.node(nid)
        st = self.state(nid)
        if st.is_terminal():
            raise WebError(f"{self.name}: the game is over at this node: there is no decision to make", 409)
        if isinstance(action, bool) or not isinstance(action, int) or action not in st.legal_actions():
            legal = ", ".join(f"{a} ({st.action_to_text(a)})" for a in st.legal_actions())
            raise WebError(f"action: {json.dumps(action)} is not a legal decision here (legal: {legal})")
        text = st.action_to_text(action)
        for cid in parent.children:
            if self.nodes[cid].move == text:
                return cid
        seat, rnd = st.current_player(), st.round
        rec = {"events": list(parent.events)}
        log = st.score_log = list(parent.log)  # a scoring may span decisions (Benz's fifth buyer)
        money = st.money()
        Recorder(rec, st).apply(action)
        st.score_log = None
        reports = reports_from_log(log, money, st) if any(ev[0] == "end" for ev in log) else []
        new = rec["events"][len(parent.events):]
        node = Node(len(self.nodes), nid, parent.ply + 1, text, seat, new[1:],
                    events=tuple(rec["events"]) if self.kind == "record" else (),
                    log=[] if reports else log, report=reports[-1] if reports else None, round=rnd)
        self._add(node, st)
        return node.id

    def play_line(self, nid: int, moves: Any) -> int:
        """Apply a list of moves in text notation from ``nid`` (a plan, the engine's line); the last node's id.

        Every move is checked before the tree changes: an illegal one refuses the whole line.
        """
        if not isinstance(moves, list) or not moves or len(moves) > MAX_LINE \
                or not all(isinstance(m, str) and len(m) < 200 for m in moves):
            raise WebError(f"moves: expected a list of 1 to {MAX_LINE} moves in text notation")
        st = self.state(nid)
        actions = []
        for k, text in enumerate(moves):
            if st.is_terminal():
                raise WebError(f"moves[{k}]: {text!r}: the game is over before it")
            try:
                a = st.parse_move(text)
            except KwsearchError as exc:
                raise WebError(f"moves[{k}]: {exc}") from None
            actions.append(a)
            st.apply(a)
        for a in actions:
            nid = self.play(nid, a)
        return nid

    # -- saving ----------------------------------------------------------------
    def position_at(self, nid: int) -> dict[str, Any]:
        return self.state(nid).observation()

    def record_at(self, nid: int) -> dict[str, Any]:
        if self.kind != "record":
            raise WebError(f"{self.name}: a position has no set-up to write a game record from; "
                           "save it as a position instead", 409)
        node = self.node(nid)
        rec = copy.deepcopy(self.base)
        if not self.save_seed:
            rec.pop("seed", None)  # replayable without it: every card turned up is named by a reveal
        rec["events"] = list(node.events)
        st = self.state(nid)
        if st.is_terminal():
            rec["result"] = {"money": st.money()}
        return rec

    # -- the review ------------------------------------------------------------
    def attach_review(self, obj: Any, name: str) -> None:
        from .review import review_for_page
        if self.kind != "record":
            raise WebError(f"{name}: a review belongs to a game record; {self.name} is a position")
        self.review = review_for_page(obj, self, name)


class Library:
    """The documents this server has opened, by id (the oldest are dropped beyond ``limit``)."""

    def __init__(self, limit: int = 64):
        self.limit = limit
        self.docs: dict[str, Document] = {}
        self.pinned: set[str] = set()

    def add(self, doc: Document, pin: bool = False) -> Document:
        self.docs[doc.id] = doc
        if pin:
            self.pinned.add(doc.id)
        while len(self.docs) > self.limit:
            oldest = next((d for d in self.docs if d not in self.pinned), None)
            if oldest is None:
                break
            del self.docs[oldest]
        return doc

    def get(self, did: Any) -> Document:
        doc = self.docs.get(did) if isinstance(did, str) else None
        if doc is None:
            raise WebError(f"no open document {json.dumps(did)} (open the file again)", 404)
        return doc


__all__ = ["Document", "Library", "Node", "parse_upload", "state_view", "scoring_view", "seat_names_of"]
