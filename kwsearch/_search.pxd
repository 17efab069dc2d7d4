# cython: language_level=3
# The search core's contract: the parameters of one search, as the C loop reads them.
#
# ``SearchParams`` is built once per search from a ``kwsearch.search.SearchConfig`` whose player-count
# defaults are filled in (``_search.Params``), and passed by pointer through ``run_slice`` ->
# ``iterate`` -> ``playout``. Every field has the name of its setting in the table of
# ``kwsearch/settings.py`` (docs/settings.md), which gives its range and default; a setting that only
# Python reads (``workers``, ``max_nodes``, ``root``) has no field. The root's forced option of
# sequential halving changes from slice to slice and is an argument of ``run_slice``, not a field.

from kwsearch._eval cimport EvalModel, PriorModel
from kwsearch._playout cimport PlayoutParams, RolloutKind


cdef struct SearchParams:
    double c_uct             # exploration constant c of UCB at the nodes where the root's mover chooses
                             # (mean + c * sqrt(ln(avail) / visits)); 0 .. 1000
    double c_opponents       # c at the nodes where another seat chooses; 0 .. 1000 (c_uct when the
                             # setting is None: one c everywhere)
    double money_weight      # share w of the reward from the money margin over the best other seat:
                             # (1 - w) * win + w * (0.5 + 0.5 * tanh(margin / 20)); 0 .. 1
    bint determinize         # redraw the hidden deck at every iteration (0: the true order, the cheat bot)
    bint closed_loop         # branch on the research cards an action reveals (chance-outcome nodes)
    RolloutKind rollout      # the playout policy
    PlayoutParams playout    # the smart policy's knobs (read only when rollout == ROLLOUT_SMART)
    int cutoff               # playout decisions before ``evaluation`` scores the state; 0: to the end
    const EvalModel* evaluation  # the evaluation that scores a playout stopped at the cut-off;
                                 # NULL exactly when cutoff == 0 (owned by Params' Evaluator)
    double prior             # weight W of the move prior's progressive bias W * P / (1 + visits) in
                             # selection, and the prior's draw of an untried option; 0 .. 1000 (0: unused)
    double prior_playout     # chance that a playout decision is the move prior's draw; 0 .. 1 (0: unguided)
    const PriorModel* prior_weights  # the move prior; NULL exactly when prior == 0 and prior_playout == 0
                                     # (owned by Params' Prior)
