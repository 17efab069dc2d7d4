"""Common decks for a review's re-searches: do they make two options' chunks agree? (bench/RESULTS.md,
"Review trust: a loss on the line, and common decks"; tried and rejected.)

Needs the experimental ``Tree.decks`` of ``bench/results/review-trust/common-decks/tree-decks.patch``
(not in the package):

    git apply bench/results/review-trust/common-decks/tree-decks.patch && python setup.py build_ext --inplace
    python bench/tools/common_decks_probe.py 3 2 127 "tile 3" "tile 9" 30
    python bench/tools/common_decks_probe.py 4 0 129 "tile 5" "tile 6" 30

Arguments: players, game (``bench/results/review-trust/game-{players}p-{game}.json``), ply, two
options, chunks. Each option is re-searched alone in that many chunks of 800 iterations (the
review's chunk at 4,000 iterations, its settings), first with independent deals (``indep``), then
with chunk j of both options dealt from the same stream (``common``, seed ``derive_seed(7, "deck",
j)``); printed: each option's mean and spread of the mover's win share, the loss (their difference)
with its spread, and the correlation of the two options' chunk values.
"""

import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from review_trust import make_game  # noqa: E402
from kwsearch import _search  # noqa: E402
from kwsearch.engine import convert, reference  # noqa: E402
from kwsearch.outlook import places  # noqa: E402
from kwsearch.review import game_decisions, review_config  # noqa: E402
from kwsearch.search import search_params  # noqa: E402
from kwsearch.seeds import derive_seed  # noqa: E402


def chunk(fast, params, max_nodes, action, n, seed, deck):
    """Every seat's win share (share of first places) under ``action`` searched alone for ``n`` iterations."""
    tree = _search.Tree(max_nodes)
    tree.accounting = True
    if deck is not None:
        tree.decks = deck
    _search.run_slice(tree, fast, params, n, 0.0, seed, action)
    return [s.p[0] for s in places(tree.card_stats(), fast.game.num_players, action).seats]


def main() -> None:
    players, game, ply, a_txt, b_txt = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    m = int(sys.argv[6]) if len(sys.argv) > 6 else 30
    state, played = game_decisions(make_game(players, game))[ply]
    ref = reference(state)
    seat = ref.current_player()
    label = {ref.action_to_text(x): x for x in ref.legal_actions()}
    a, b = label[a_txt], label[b_txt]
    print("played", ref.action_to_text(played))
    config = review_config(None, ref.game.num_players)
    params = search_params(config, ref.game.num_players)
    fast = convert(state, "fast")
    for mode in ("indep", "common"):
        xs, ys = [], []
        for j in range(m):
            deck = derive_seed(7, "deck", j) if mode == "common" else None
            xs.append(chunk(fast, params, config.max_nodes, a, 800, derive_seed(7, "v", a, j), deck)[seat])
            ys.append(chunk(fast, params, config.max_nodes, b, 800, derive_seed(7, "v", b, j), deck)[seat])
        d = [y - x for x, y in zip(xs, ys)]
        print(mode, "meanA %.4f meanB %.4f sdA %.4f sdB %.4f loss %.4f sd(diff) %.4f rho %.3f" % (
            st.mean(xs), st.mean(ys), st.stdev(xs), st.stdev(ys), st.mean(d), st.stdev(d),
            st.correlation(xs, ys)), flush=True)


if __name__ == "__main__":
    main()
