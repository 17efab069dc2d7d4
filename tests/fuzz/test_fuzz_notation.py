"""Fuzz targets for move notation and bot specs.

Move texts go to ``parse_move`` of both engines on random states: both refuse
with a clean KwsearchError, or both name the same action, after which they play
on in lockstep. Bot specs (random words, and ``name:key=value,...`` from every
option — the cut-off and its ``eval`` file, the prior and its ``priorw`` file, the
smart rollout's knobs — with values in and out of range and paths of weights
files good and bad) go to :meth:`kwsearch.bots.BotSpec.parse` and ``build``: a
clean refusal, or a bot whose spec reads back as itself and whose settings are
finite, its weights files loading.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from fuzzing import FUZZ, VOCAB, clean, lockstep, sample_states
from kwsearch import features as F
from kwsearch import prior as P
from kwsearch.bots import OPTIONS, BotSpec
from kwsearch.formats import position_to_state
from kwsearch.search import PLAYOUT_FIELDS
from kwsearch.engine import convert
from kwsearch.rules import State

pytestmark = pytest.mark.one_engine


@FUZZ
@given(data=st.data(), v6=st.booleans())
def test_fuzz_move_notation(data, v6):
    states = [s for s in sample_states(v6) if s["phase"] != "over"]
    ref = position_to_state(data.draw(st.sampled_from(states), label="state"))
    fast = convert(ref, "fast")
    legal = [ref.action_to_text(a) for a in ref.legal_actions()]
    text = data.draw(st.sampled_from(legal), label="legal move")
    how = data.draw(st.sampled_from(["as is", "upper", "insert", "delete", "other", "random"]), label="how")
    if how == "upper":
        text = text.upper()
    elif how == "insert":
        at = data.draw(st.integers(0, len(text)), label="at")
        text = text[:at] + data.draw(st.text(max_size=3) | st.sampled_from(VOCAB), label="insert") + text[at:]
    elif how == "delete" and text:
        at = data.draw(st.integers(0, len(text) - 1), label="at")
        text = text[:at] + text[at + 1:]
    elif how == "other":
        text = data.draw(st.sampled_from(VOCAB + ["market body@3", "take research:Diesel", "buyer price",
                                                  "do hire", "give up engine 2", "start B", "tile 3"]))
    elif how == "random":
        text = data.draw(st.text(max_size=30), label="text")
    outcomes = []
    for state in (ref, fast):
        try:
            outcomes.append(state.parse_move(text))
        except Exception as exc:  # noqa: BLE001
            clean(exc)
            outcomes.append(type(exc).__name__)
    assert outcomes[0] == outcomes[1], (text, outcomes)
    if isinstance(outcomes[0], int):
        assert outcomes[0] in ref.legal_actions()
        ref.apply(outcomes[0])
        lockstep(ref, seed=len(text))


#: Paths an ``eval=`` / ``priorw=`` option may name: the shipped weights of every player count (a prior
#: file given as ``eval`` is a wrong file too); the ``weights_paths`` fixture adds files that are not
#: weights, and SPEC_VALUES /dev/null and a directory.
SHIPPED = [str(F.shipped_path(n)) for n in (2, 3, 4)] + [str(P.shipped_path(n)) for n in (2, 3, 4)]

SPEC_WORDS = ["random", "heuristic", "ismcts", "pimc", "cheat", "openspiel-ismcts", "openspiel-mcts", ":", ",",
              "=", "iterations", "seconds", "c", "money", "workers", "worlds", "loop", "rollout", "reuse", "open",
              "closed", "tempo", "1", "0", "-1", "0.5", "nan", "inf", "-inf", "1e309", "99999999999999999999",
              "iterations=10", "seconds=0.1",
              # the newer options: the playout cut-off and its evaluation, the move prior, the smart rollout
              "cutoff", "eval", "prior", "priorw", "smart", "rule", "sell", "develop", "engineer", "cutoff=20",
              "rollout=smart", "prior=1.5", "rule=0.9", "tempo=0.75", "sell=0.875", "develop=0.7", "engineer=4",
              "engineer=21", "develop=11", "100001", "1001", "20", *(f"eval={p}" for p in SHIPPED[:3]),
              *(f"priorw={p}" for p in SHIPPED[3:])]

#: Option names and values for specs assembled as ``name:key=value,...``.
SPEC_KEYS = ["iterations", "seconds", "c", "money", "workers", "worlds", "loop", "rollout", "reuse", "cutoff",
             "eval", "prior", "priorw", "rule", "tempo", "sell", "develop", "engineer", "Cutoff", "EVAL", "colour"]
SPEC_VALUES = ["0", "1", "2", "10", "20", "0.5", "0.9", "4", "10.5", "21", "1000", "1001", "100000", "100001", "-1",
               "nan", "inf", "1e309", "99999999999999999999", "open", "closed", "tempo", "smart", "random", "SMART",
               " 3 ", "/dev/null", "/", "", *SHIPPED]


#: Values each option accepts, so that assembled specs often get through to a bot.
GOOD = {"iterations": ["8"], "seconds": ["0.1"], "c": ["0.5", "2"], "money": ["0.1"], "workers": ["1", "2"],
        "worlds": ["2"], "loop": ["open", "closed"], "rollout": ["smart", "smart", "tempo", "random"],
        "reuse": ["0", "1"], "cutoff": ["0", "20", "100000"], "eval": SHIPPED[:3], "prior": ["0", "1.5", "1000"],
        "priorw": SHIPPED[3:], "rule": ["0", "0.9", "1"], "tempo": ["0.75"], "sell": ["0.875"],
        "develop": ["0.7", "10"], "engineer": ["4", "20"]}


def _check_built(spec, bot) -> None:
    """An accepted spec reads back as itself and has budgets and settings the engine can count:
    finite, within 64 bits; a search bot's evaluation and prior files load."""
    assert BotSpec.parse(str(spec)) == spec, str(spec)
    newer = sorted({k for k, _ in spec.options} & {"cutoff", "eval", "prior", "priorw", "rollout", *PLAYOUT_FIELDS})
    event("accepted with " + (", ".join(newer) if len(newer) < 3 else "three or more newer options")
          if newer else "accepted, none of the newer options")
    for obj in (bot, getattr(bot, "limits", None), getattr(bot, "config", None)):
        for name, v in vars(obj).items() if obj is not None and hasattr(obj, "__dict__") else ():
            if isinstance(v, float):
                assert math.isfinite(v), (str(spec), name, v)
            if isinstance(v, int) and not isinstance(v, bool):
                assert abs(v) < 2 ** 63, (str(spec), name, v)
            if isinstance(v, tuple) and name == "playout":
                assert all(math.isfinite(x) for x in v), (str(spec), v)
    config = getattr(bot, "config", None)
    if spec.name in ("ismcts", "cheat", "pimc"):  # a search bot's config (the heuristic has its own)
        assert (config.cutoff is None or config.cutoff >= 0) and config.prior >= 0  # None: by player count
        if config.evaluation is not None:
            assert config.cutoff != 0 and F.load_evaluation(config.evaluation).nplayers in (2, 3, 4)
        if config.prior_weights is not None:
            assert config.prior > 0 and P.load_prior(config.prior_weights).nplayers in (2, 3, 4)


@FUZZ
@given(parts=st.lists(st.sampled_from(SPEC_WORDS) | st.text(max_size=4), min_size=1, max_size=8))
def test_fuzz_bot_spec(parts):
    spec = "".join(parts)
    try:
        parsed = BotSpec.parse(spec)
        bot = parsed.build(seed=1)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    _check_built(parsed, bot)


@pytest.fixture(scope="module")
def weights_paths(tmp_path_factory):
    """Paths that are not weights files: missing, a directory, a weights file that is wrong."""
    d = tmp_path_factory.mktemp("weights")
    bad = json.loads(F.shipped_path(2).read_text())
    bad["weights"][3] = 1e7  # beyond MAX_WEIGHT
    (d / "bad.json").write_text(json.dumps(bad))
    return [str(d / "missing.json"), str(d), str(d / "bad.json")]


@FUZZ
@given(data=st.data(), name=st.sampled_from(["ismcts", "ismcts", "pimc", "cheat", "heuristic", "openspiel-mcts"]))
def test_fuzz_bot_spec_options(data, name, weights_paths):
    anything = st.sampled_from(SPEC_VALUES + weights_paths) | st.text(max_size=6)
    good = st.sampled_from([True, True, True, True, False])  # mostly an option of the bot, a value it takes
    own = sorted(OPTIONS[name]) or ["colour"]
    keys = data.draw(st.lists(st.builds(lambda ok, mine, any_: mine if ok else any_, good, st.sampled_from(own),
                                        st.sampled_from(SPEC_KEYS)), max_size=5, unique_by=str.lower), label="keys")
    pairs = [(k, data.draw(st.sampled_from(GOOD.get(k, ["1"])) if data.draw(good, label="good") else anything,
                           label=k)) for k in keys]
    if data.draw(good, label="coherent"):  # what an option needs: a knob the smart rollout, eval a cut-off...
        have = {k for k, _ in pairs}
        for needs, (key, value) in (({"eval"}, ("cutoff", "20")), ({"priorw"}, ("prior", "1.5")),
                                    (set(PLAYOUT_FIELDS), ("rollout", "smart"))):
            if have & needs and key not in have:
                pairs.append((key, value))
    if pairs and data.draw(st.booleans(), label="a key twice"):
        pairs.append(data.draw(st.sampled_from(pairs), label="again"))
    if data.draw(st.booleans(), label="with a limit"):  # the limit first, as a user writes it
        pairs.insert(0, ("iterations", "8"))
    spec = name + ":" + ",".join(f"{k}={v}" for k, v in pairs)
    try:
        parsed = BotSpec.parse(spec)
        bot = parsed.build(seed=2)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    _check_built(parsed, bot)
    # A small search bot also makes one decision, on a position of any player count: weights of
    # another player count are a clean error there, never a crash.
    limits = getattr(bot, "limits", None)
    if limits is not None and limits.iterations is not None and limits.iterations <= 16 and bot.config.workers == 1 \
            and getattr(bot, "worlds", 1) <= 4:
        doc = data.draw(st.sampled_from([d for d in sample_states(False) if d["phase"] != "over"]), label="position")
        state = position_to_state(doc)
        try:
            action = bot.step(state)
        except Exception as exc:  # noqa: BLE001
            clean(exc)
            event("refused at its first decision")
            return
        assert action in state.legal_actions()
