"""A whole-game review (``kwsearch review --json``, ``kwsearch-review/1``) laid onto a document.

The page draws the review as a win-probability graph over the game and marks the
move list (``?!``, ``?``, ``??``). :func:`review_for_page` checks the review with
:func:`kwsearch.review.check_review` (the one checker of a review file: every key,
type and range) and that it belongs to the document's game — every reviewed
decision must be the record's move at that ply, its best option a legal move
there — and keeps what the page needs, by node.
"""

from __future__ import annotations

import json
from typing import Any

from ..review import check_review
from . import WebError

REVIEW_FORMAT = "kwsearch-review/1"
CLASSES = ("inaccuracy", "mistake", "blunder")


def _number(d: dict, key: str, where: str) -> float:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise WebError(f"{where}.{key}: expected a number, got {json.dumps(v)}")
    return float(v)


def review_for_page(obj: Any, doc, name: str) -> dict[str, Any]:
    """The review of ``doc`` (a record document) for the page; :class:`WebError` naming the file and
    the field when ``obj`` is no review or a review of another game."""
    if not isinstance(obj, dict) or obj.get("format") != REVIEW_FORMAT:
        got = obj.get("format") if isinstance(obj, dict) else None
        raise WebError(f"{name}: format: expected {REVIEW_FORMAT!r} (kwsearch review --json), got {json.dumps(got)}")
    if obj.get("players") != doc.players:
        raise WebError(f"{name}: players: the review is of a {json.dumps(obj.get('players'))[:20]}-player game, "
                       f"{doc.name} has {doc.players} players")
    main = {n.ply: n for n in doc.nodes if n.main and n.parent is not None}
    steps = []  # the state before each decision of the record and the move made: what the review must match
    for k in range(len(main)):
        node = main[k + 1]
        state = doc.state(node.parent)
        steps.append((state, state.parse_move(node.move)))
    # the one strict checker of a review file (kwsearch.review.check_review): every key, type, range and
    # move, so nothing below meets a value it does not expect
    check_review(obj, name, steps=steps, players=doc.players, game=doc.name, error=WebError)
    decisions = obj["decisions"]
    points = []
    for k, d in enumerate(decisions):
        where = f"{name}: decisions[{k}]"
        if not isinstance(d, dict):
            raise WebError(f"{where}: expected an object")
        ply = d.get("ply")
        if isinstance(ply, bool) or not isinstance(ply, int) or ply + 1 not in main:
            raise WebError(f"{where}.ply: expected a decision of {doc.name} (0 to {len(main) - 1}), "
                           f"got {json.dumps(ply)}")
        node = main[ply + 1]
        if d.get("played") != node.move or d.get("seat") != node.seat:
            raise WebError(f"{name}: the review is not of {doc.name}: at ply {ply} it has "
                           f"{d.get('played')!r} by seat {d.get('seat')}, the game {node.move!r} by seat {node.seat}")
        # the graph: every seat's win probability after the move played (a verified review), else at the best
        win = d.get("played_win_all", d.get("win_all"))
        if not isinstance(win, list) or len(win) != doc.players \
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 1 for x in win):
            raise WebError(f"{where}.win_all: expected {doc.players} win probabilities in 0..1")
        cls = d.get("cls")
        if cls is not None and cls not in CLASSES:
            raise WebError(f"{where}.cls: expected one of {', '.join(CLASSES)} or null, got {json.dumps(cls)}")
        points.append({
            "node": node.id, "ply": node.ply, "seat": node.seat, "round": d.get("round"),
            "win": [float(x) for x in win], "mark": cls,
            "played": node.move, "best": str(d.get("best_label") or d.get("best") or ""),
            "win_played": _number(d, "played_win", where), "win_best": _number(d, "best_win", where),
            "loss": _number(d, "loss", where),
            "visits": d.get("played_visits"), "win_played_half": d.get("played_win_half"),
            "loss_half": d.get("loss_half"), "equal": d.get("equal"),
        })
    points.sort(key=lambda p: p["ply"])
    rounds = []
    for p in points:
        if p["round"] is not None and (not rounds or rounds[-1]["round"] != p["round"]):
            rounds.append({"round": p["round"], "ply": p["ply"]})
    summary = []
    for s in obj.get("summary") or []:
        if isinstance(s, dict) and isinstance(s.get("seat"), int) and 0 <= s["seat"] < doc.players:
            counts = s.get("counts") if isinstance(s.get("counts"), dict) else {}
            summary.append({"seat": s["seat"], "decisions": s.get("decisions", 0),
                            "mean_loss": float(s.get("mean_loss") or 0.0),
                            **{c: counts.get(c, 0) for c in CLASSES}})
    settings = obj.get("settings") if isinstance(obj.get("settings"), dict) else {}
    per = (f"{settings['iterations']:,} iterations" if settings.get("iterations")
           else f"{settings.get('seconds')} s" if settings.get("seconds") else "")
    note = f"{name}: {len(points)} decisions reviewed" + (f", {per} each" if per else "")
    if obj.get("complete") is False:
        note += " (incomplete)"
    root = next(n.id for n in doc.nodes if n.parent is None)
    luck, figures = luck_for_page(obj, main, root)
    return {"name": name, "points": points, "rounds": rounds, "summary": summary, "note": note,
            "luck": luck, "figures": figures}


def luck_for_page(obj: dict[str, Any], main: dict, root: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The chance events (each placed at the node right after it) and every seat's line of luck against
    skill and accuracy (issue 30, :mod:`kwsearch.luck`), from a review ``check_review`` accepted."""
    from ..luck import event_title, figures_line
    names = obj["names"]
    events = []
    for e in (obj.get("luck") or {}).get("events", []):
        # the node after the decision that turned it up; the deal's is the game's start
        node = main[e["ply"] + 1].id if e["ply"] + 1 in main else root if e["ply"] < 0 else None
        events.append({"ply": e["ply"], "node": node, "forced": e["forced"],
                       "luck": e["luck"], "luck_half": e["luck_half"], "title": event_title(e, names)})
    figures = [{"seat": f["seat"], "line": figures_line(f), "accuracy": f["accuracy"], "luck": f["luck"],
                "skill_lost": f["skill_lost"]} for f in obj.get("figures") or []]
    return events, figures
