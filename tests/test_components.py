"""Component data: the defaults of RULES.md §12, override files and their validation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kwsearch.components import (AWARDS, DEFAULTS, ENGINEERS, MARKS, components_from_dict,
                                 default_components, load_components)
from kwsearch.errors import ComponentError, KwsearchError

pytestmark = pytest.mark.one_engine  # engine-independent (see conftest.py)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def cards_with(**changes):
    """The default research cards with the named card types' fields changed."""
    cards = json.loads(json.dumps(DEFAULTS["research_cards"]))
    for card in cards:
        card.update(changes.get(card["name"], {}))
    return cards


# ---------------------------------------------------------------------------
# Defaults (RULES.md §12)
# ---------------------------------------------------------------------------


def test_tile_supply():
    c = default_components()
    assert c.body_tiles == (8, 7, 6, 6, 5, 5, 4)
    assert c.engine_tiles == (7, 7, 6, 6, 5, 4, 4)
    assert sum(c.body_tiles) == 41
    assert sum(c.engine_tiles) == 39


def test_research_deck():
    c = default_components()
    assert c.deck_size == 50
    assert sum(ct.count for ct in c.card_types) == 50
    by_kind = {k: sum(ct.count for ct in c.card_types if ct.kind == k)
               for k in ("engineer", "instant", "development")}
    assert by_kind == {"engineer": 9, "instant": 9, "development": 32}
    assert sorted(ct.engineer for ct in c.card_types if ct.kind == "engineer") == sorted(ENGINEERS)
    instants = {ct.effect: (ct.count, ct.amount) for ct in c.card_types if ct.kind == "instant"}
    assert instants == {"hire": (3, 3), "gp": (3, 5), "body_engine": (3, 1)}
    devs = sorted((ct.body, ct.engine, ct.tile or "", ct.count)
                  for ct in c.card_types if ct.kind == "development")
    assert devs == sorted([(1, 0, "", 6), (0, 1, "", 6), (1, 0, "body", 4), (0, 1, "engine", 4),
                           (2, 0, "", 4), (0, 2, "", 4), (1, 1, "", 4)])


def test_action_and_start_tiles():
    c = default_components()
    tiles = sorted(tuple(sorted(t.actions)) for t in c.action_tiles)
    assert [len(t) for t in tiles].count(1) == 5
    assert [len(t) for t in tiles].count(2) == 4
    assert [len(t) for t in tiles].count(3) == 1
    assert {t[0] for t in tiles if len(t) == 1} == {"hire", "body", "engine", "gp", "research"}
    assert {t.name: t.actions for t in c.start_tiles} == {
        "A": ("hire", "hire", "engine"),
        "B": ("hire", "hire", "body"),
        "C": ("gp_engine2", "hire"),
        "D": ("gp_start2", "research"),
    }
    assert (c.start_body, c.start_engine) == (1, 1)
    assert c.gp_start_tile_engine == 2 and c.gp_start_tile_space == 2


def test_prices_and_money():
    c = default_components()
    assert c.price_markers == ((1, 2, 3, 5, 6, 8, 9, 10),
                               (2, 3, 5, 6, 8, 9, 11, 12),
                               (3, 4, 6, 8, 10, 12, 14, 15))
    assert c.rounds == 3
    assert c.white_markers == (2, 1, 1, 1)  # body, engine, prestige, price
    assert c.gp_place_money == (7, 4, 2)
    assert [c.lap_money(n) for n in range(8)] == [0, 1, 3, 5, 6, 7, 8, 9]
    assert dict(zip(AWARDS, c.awards)) == {
        "gp1": 3, "gp2": 7, "buyer": 3, "market": 3, "body3": 3, "body6": 7,
        "engine4": 3, "engine7": 7, "worker": 7, "engineers": 7}
    assert (c.price_buyer_multiplier, c.opel_multiplier) == (2, 3)


def test_board_and_players():
    c = default_components()
    assert c.gp_lap_length == 12
    assert c.neutral_cars_2p == (3, 6)
    assert dict(c.buyer_track_start) == {2: 2, 3: 4, 4: 4}
    assert dict(c.market_size) == {2: 4, 3: 6, 4: 6}
    assert dict(c.active_buyer_spaces) == {2: 3, 3: 4, 4: 4}
    assert dict(c.start_tiles_offered) == {2: 2, 3: 4, 4: 4}
    assert c.buyers_per_preference == 2
    assert (c.workers_per_player, c.canteen_start) == (14, 4)
    assert (c.maybach_markers, c.horch_markers, c.daimler_markers) == ((1, 2), (1, 2), (2, 4))
    assert (c.diesel_markers, c.benz_markers, c.otto_workers) == (2, 1, 2)


def test_every_default_has_a_mark():
    assert set(MARKS) == set(DEFAULTS)
    for key, mark in MARKS.items():
        assert re.search(r"\[(book|assumed|decision)\b", mark), key


def test_assumed_rows_are_marked_assumed():
    # RULES.md §12 names these rows as (partly) assumed; a user must be told so.
    for key in ("action_tiles", "start_tiles", "research_cards", "body_tiles", "engine_tiles",
                "gp_lap_length"):
        assert "[assumed]" in MARKS[key], key


def test_default_components_is_cached_and_round_trips():
    c = default_components()
    assert default_components() is c
    assert components_from_dict(c.to_dict()) == c
    assert c.to_dict() == DEFAULTS
    assert c.to_dict() is not c.to_dict()


# ---------------------------------------------------------------------------
# Merging
# ---------------------------------------------------------------------------


def test_top_level_lists_replace_and_tables_merge():
    c = components_from_dict({"gp_lap_length": 14, "awards": {"gp2": 8},
                              "neutral_cars_2p": [4]})
    assert c.gp_lap_length == 14
    assert dict(zip(AWARDS, c.awards))["gp2"] == 8
    assert dict(zip(AWARDS, c.awards))["gp1"] == 3  # untouched keys keep their default
    assert c.neutral_cars_2p == (4,)


def test_comments_and_marks_are_ignored():
    c = components_from_dict({"_comment": "my copy of the game", "marks": {"x": "y"}})
    assert c == default_components()


def test_player_count_keys_may_be_ints():
    c = components_from_dict({"market_size": {2: 5}})
    assert dict(c.market_size) == {2: 5, 3: 6, 4: 6}


def test_overrides_do_not_touch_the_defaults():
    components_from_dict({"awards": {"gp1": 9}, "body_tiles": [1] * 7})
    assert DEFAULTS["awards"]["gp1"] == 3
    assert default_components().awards[0] == 3


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def test_load_json(tmp_path):
    p = tmp_path / "mine.json"
    p.write_text(json.dumps({"gp_lap_length": 10, "start_tiles": [
        {"name": "A", "actions": ["hire", "engine"]},
        {"name": "B", "actions": ["hire", "body"]},
        {"name": "C", "actions": ["gp_engine2"]},
        {"name": "D", "actions": ["research"]},
    ]}))
    c = load_components(p)
    assert c.gp_lap_length == 10
    assert [t.actions for t in c.start_tiles][2] == ("gp_engine2",)


def test_load_toml(tmp_path):
    p = tmp_path / "mine.toml"
    p.write_text('gp_lap_length = 16\n'
                 'body_tiles = [8, 7, 6, 6, 5, 5, 4]\n'
                 '[awards]\ngp1 = 4\n'
                 '[market_size]\n2 = 5\n')
    c = load_components(str(p))
    assert c.gp_lap_length == 16
    assert c.awards[AWARDS.index("gp1")] == 4
    assert c.market_size[2] == 5


def test_toml_research_cards_without_null_tile(tmp_path):
    # TOML has no null: a development without an immediate tile simply omits "tile".
    lines = []
    for card in DEFAULTS["research_cards"]:
        lines.append("[[research_cards]]")
        for k, v in card.items():
            if v is not None:
                lines.append(f"{k} = {json.dumps(v)}")
    p = tmp_path / "cards.toml"
    p.write_text("\n".join(lines) + "\n")
    assert load_components(p).card_types == default_components().card_types


@pytest.mark.parametrize("name", ["components-example.toml", "components-example.json"])
def test_shipped_examples_load(name):
    c = load_components(EXAMPLES / name)
    assert c != default_components()


def test_shipped_examples_agree():
    toml = load_components(EXAMPLES / "components-example.toml")
    js = load_components(EXAMPLES / "components-example.json")
    assert toml == js


# ---------------------------------------------------------------------------
# Bad input: ComponentError naming the field
# ---------------------------------------------------------------------------


def bad(overrides, *fragments):
    with pytest.raises(ComponentError) as info:
        components_from_dict(overrides)
    msg = str(info.value)
    for fragment in fragments:
        assert fragment in msg, msg
    return msg


def test_component_error_is_a_value_error():
    assert issubclass(ComponentError, KwsearchError)
    assert issubclass(ComponentError, ValueError)


def test_unknown_top_level_field():
    bad({"gp_lap_lenght": 12}, "gp_lap_lenght", "unknown field")


def test_unknown_table_key():
    bad({"awards": {"gp3": 9}}, "awards.gp3", "unknown key")
    bad({"market_size": {"5": 6}}, "market_size.5")


def test_top_level_must_be_a_table():
    bad([1, 2], "top level")


def test_unknown_action_name():
    tiles = json.loads(json.dumps(DEFAULTS["action_tiles"]))
    tiles[3]["actions"] = ["gp", "fly"]
    bad({"action_tiles": tiles}, "action_tiles[3].actions[1]", "'fly'")


def test_start_only_action_not_on_action_tiles():
    bad({"action_tiles": [{"actions": ["gp_start2"]}]}, "action_tiles[0].actions[0]")


def test_unknown_start_tile_action():
    starts = json.loads(json.dumps(DEFAULTS["start_tiles"]))
    starts[1]["actions"] = ["hire", "teleport"]
    bad({"start_tiles": starts}, "start_tiles[1].actions[1]", "'teleport'")


def test_duplicate_start_tile_name():
    starts = json.loads(json.dumps(DEFAULTS["start_tiles"]))
    starts[1]["name"] = "A"
    bad({"start_tiles": starts}, "start_tiles[1].name")


def test_negative_counts():
    bad({"body_tiles": [8, 7, -1, 6, 5, 5, 4]}, "body_tiles[2]", "negative")
    bad({"engine_tiles": [7, 7, 6, 6, 5, 4, -4]}, "engine_tiles[6]", "negative")
    bad({"research_cards": cards_with(hire3={"count": -3})}, "research_cards[0].count", "-3")
    bad({"awards": {"gp1": -3}}, "awards.gp1", "negative")
    bad({"white_markers": {"body": -1}}, "white_markers.body", "negative")


def test_wrong_types():
    bad({"gp_lap_length": "12"}, "gp_lap_length", "integer")
    bad({"gp_lap_length": True}, "gp_lap_length", "integer")
    bad({"body_tiles": 41}, "body_tiles", "list")
    bad({"body_tiles": [8, 7, 6, 6, 5, 5]}, "body_tiles", "7 entries")
    bad({"awards": 5}, "awards")
    bad({"market_size": [4, 6, 6]}, "market_size")


def test_deck_of_another_size_must_be_stated():
    cards = cards_with(hire3={"count": 4})  # 51 cards
    msg = bad({"research_cards": cards}, "research_cards", "51", "research_deck_size")
    assert "must be stated" in msg
    c = components_from_dict({"research_cards": cards, "research_deck_size": 51})
    assert c.deck_size == 51
    bad({"research_cards": cards, "research_deck_size": 52}, "research_cards", "51", "52")


def test_deck_size_stated_without_changing_the_cards():
    bad({"research_deck_size": 48}, "research_cards", "50", "48")


def test_duplicate_card_name():
    bad({"research_cards": cards_with(gp5={"name": "Hire3"})}, "research_cards[1].name", "twice")


def test_card_name_without_spaces():
    bad({"research_cards": cards_with(gp5={"name": "grand prix"})}, "research_cards[1].name")


def test_unknown_engineer():
    bad({"research_cards": cards_with(Opel={"engineer": "ford"})},
        "research_cards[10].engineer", "'ford'")


def test_engineer_twice():
    bad({"research_cards": cards_with(Opel={"engineer": "benz"})}, "engineer", "benz", "twice")


def test_engineer_card_is_unique():
    bad({"research_cards": cards_with(Opel={"count": 2}), "research_deck_size": 51},
        "research_cards[10].count")


def test_unknown_instant_effect():
    bad({"research_cards": cards_with(gp5={"effect": "teleport"})},
        "research_cards[1].effect", "'teleport'")


def test_unknown_card_kind():
    bad({"research_cards": cards_with(gp5={"kind": "joker"})}, "research_cards[1].kind", "'joker'")


def test_development_needs_points_and_a_known_tile():
    bad({"research_cards": cards_with(**{"dev:body1": {"body": 0}})}, "research_cards[3]")
    bad({"research_cards": cards_with(**{"dev:body1+tile": {"tile": "wheel"}})},
        "research_cards[5].tile", "'wheel'")


def test_price_markers_unique_within_a_round():
    bad({"price_markers": [[1, 2, 3, 5, 6, 8, 9, 9], [2, 3, 5, 6, 8, 9, 11, 12],
                           [3, 4, 6, 8, 10, 12, 14, 15]]},
        "price_markers[0]", "unique")


def test_price_markers_must_price_a_full_market():
    bad({"price_markers": [[1, 2, 3, 4, 5]]}, "price_markers[0]", "market")


def test_price_marker_range():
    bad({"price_markers": [[0, 1, 2, 3, 4, 5, 6]]}, "price_markers[0][0]")
    bad({"price_markers": [[1, 2, 3, 4, 5, 99]]}, "price_markers[0][5]")


def test_neutral_cars_on_one_space():
    bad({"neutral_cars_2p": [3, 3]}, "neutral_cars_2p")


def test_start_tiles_offered_within_reach():
    bad({"start_tiles_offered": {"2": 1}}, "start_tiles_offered.2")
    bad({"start_tiles_offered": {"4": 5}}, "start_tiles_offered")


def test_engineer_markers_distinct():
    bad({"engineer_markers": {"maybach": [2, 2]}}, "engineer_markers.maybach")


# ---------------------------------------------------------------------------
# Bad files: the message starts with the file path
# ---------------------------------------------------------------------------


def bad_file(path, *fragments):
    with pytest.raises(ComponentError) as info:
        load_components(path)
    msg = str(info.value)
    assert msg.startswith(str(path)), msg
    for fragment in fragments:
        assert fragment in msg, msg
    return msg


def test_file_errors_name_the_file_and_field(tmp_path):
    p = tmp_path / "mine.json"
    p.write_text(json.dumps({"body_tiles": [8, 7, 6, 6, 5, 5, -4]}))
    bad_file(p, "body_tiles[6]")
    q = tmp_path / "mine.toml"
    q.write_text("colour = 'red'\n")
    bad_file(q, "colour", "unknown field")


def test_malformed_json(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text('{"gp_lap_length": 12,}')
    bad_file(p, "JSON")


def test_malformed_toml(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text("gp_lap_length = = 12\n")
    bad_file(p, "TOML")


def test_not_utf8(tmp_path):
    p = tmp_path / "latin1.json"
    p.write_bytes(b'{"_comment": "caf\xe9"}')
    bad_file(p)


def test_json_top_level_not_an_object(tmp_path):
    p = tmp_path / "list.json"
    p.write_text("[1, 2, 3]")
    bad_file(p, "top level")


def test_missing_file(tmp_path):
    bad_file(tmp_path / "nowhere.toml", "no such file")


# Found by these tests: a misspelt key inside a list entry used to be ignored
# silently, so a card meant to give a body tile gave none.


def test_unknown_key_in_a_list_entry():
    cards = cards_with(**{"dev:body1+tile": {"tiles": "body"}})
    bad({"research_cards": cards}, "research_cards[5].tiles", "unknown key")
    bad({"research_cards": cards_with(gp5={"engineer": "opel"})}, "research_cards[1].engineer")
    bad({"action_tiles": [{"actions": ["gp"], "action": ["buyer"]}]}, "action_tiles[0].action")
    starts = json.loads(json.dumps(DEFAULTS["start_tiles"]))
    starts[0]["bonus"] = 1
    bad({"start_tiles": starts}, "start_tiles[0].bonus")


def test_comment_keys_in_list_entries_are_allowed():
    c = components_from_dict({"research_cards": cards_with(gp5={"_note": "my copy has 3"})})
    assert c.card_types == default_components().card_types


def test_unknown_kind_is_reported_before_its_keys():
    bad({"research_cards": cards_with(gp5={"kind": ["instant"]})}, "research_cards[1].kind")


def test_non_string_field_name():
    bad({12: 14}, "12", "field name")


# ---------------------------------------------------------------------------
# docs/components.md stays true to the code
# ---------------------------------------------------------------------------

DOC = Path(__file__).resolve().parent.parent / "docs" / "components.md"


def test_doc_names_every_field():
    text = DOC.read_text()
    for key in DEFAULTS:
        assert f"| `{key}` |" in text, key


@pytest.mark.parametrize("lang", ["json", "toml"])
def test_doc_examples_load_and_match_the_shipped_files(tmp_path, lang):
    blocks = re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1
    p = tmp_path / f"doc.{lang}"
    p.write_text(blocks[0])
    assert load_components(p) == load_components(EXAMPLES / f"components-example.{lang}")


# ---------------------------------------------------------------------------
# V6 specialty tiles (RULES.md §11)
# ---------------------------------------------------------------------------


def _tiles(**change):
    tiles = [dict(t) for t in DEFAULTS["specialty_tiles"]]
    tiles[0].update(change)
    return {"specialty_tiles": tiles}


def test_default_specialty_tiles():
    c = default_components()
    assert [t.name for t in c.specialty_tiles] == ["A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4",
                                                   "C1", "C2", "C3", "C4"]
    assert [(t.bonus, t.value) for t in c.specialty_stack(0)] == [
        ("engine", 3), ("gp_engine", 0), ("canteen_money", 1), ("remove_car", 3)]
    assert "[assumed]" in MARKS["specialty_tiles"] and "[book 9.0]" in MARKS["specialty_tiles"]


def test_specialty_tiles_are_overridable():
    c = components_from_dict(_tiles(action="hire", value=4))
    assert c.specialty_tiles[0].action == "hire" and c.specialty_tiles[0].value == 4


@pytest.mark.parametrize("change, field", [
    ({"stack": "Z"}, "specialty_tiles[0].stack"),
    ({"action": "fly"}, "specialty_tiles[0].action"),
    ({"bonus": "teleport"}, "specialty_tiles[0].bonus"),
    ({"value": 9}, "specialty_tiles[0].value"),
    ({"name": "A2"}, "specialty_tiles[1].name"),  # the second A2 is the repeat
    ({"values": 3}, "specialty_tiles[0].values"),
])
def test_bad_specialty_tiles_name_the_field(change, field):
    bad(_tiles(**change), field)


def test_a_bonus_without_value_refuses_one():
    tiles = [dict(t) for t in DEFAULTS["specialty_tiles"]]
    tiles[1]["value"] = 2  # A2: the GP engine upgrade takes no value
    bad({"specialty_tiles": tiles}, "specialty_tiles[1].value")
