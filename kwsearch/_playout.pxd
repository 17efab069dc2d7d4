# cython: language_level=3
"""The rollout policies' C-level contract (kwsearch/_playout.pyx). The state, the components and
the loop are the engine's (``_fast.pxd``)."""

from libc.stdint cimport int16_t, uint64_t

from kwsearch._fast cimport Comp, GuideFn, KState

# The tunable knobs of the smart playout (ROLLOUTS "smart"; SearchConfig.playout).
ctypedef struct PlayoutParams:
    double rule       # chance that a decision other than the turn's tile follows the hand rule
    double tempo      # chance that a turn's tile is one that lets the fewest other workers past
    double sell       # chance that the hand rule offers a car at the market step when it can
    double develop    # worth of a useful research point (per round left, up to 2) at a research choice
    double engineer   # worth of an engineer card at a research choice (scaled by the time left)

# Each playout returns the number of decisions taken; ``max_decisions > 0`` stops it after that many
# decisions (the search's playout cut-off), ``<= 0`` plays to the end of the game; trace may be NULL.
# Playout with the cheap tempo policy (ROLLOUTS "tempo").
cdef int k_playout_tempo(KState* s, const Comp* c, uint64_t* rng, int16_t* trace, int cap,
                         int max_decisions) noexcept nogil
# Playout with the heuristic's cheap rules (ROLLOUTS "smart").
cdef int k_playout_smart(KState* s, const Comp* c, uint64_t* rng, int16_t* trace, int cap, int max_decisions,
                         const PlayoutParams* pp) noexcept nogil
# The rollout policies (SearchConfig.rollout; their names, in this order, are kwsearch.settings.ROLLOUTS,
# checked when _playout is imported).
cdef enum RolloutKind:
    ROLLOUT_RANDOM = 0  # uniformly random legal actions (_fast.k_playout: k_loop without a policy)
    ROLLOUT_TEMPO = 1   # the cheap policy that keeps tempo and sells (k_playout_tempo)
    ROLLOUT_SMART = 2   # the heuristic's cheap hand rules, tuned by PlayoutParams (k_playout_smart)
# The playout of a rollout policy, without a trace: the search's and the evaluation's training
# games' one dispatch. ``pp`` is read only by the smart policy.
cdef int k_rollout(KState* s, const Comp* c, uint64_t* rng, RolloutKind kind, int max_decisions,
                   const PlayoutParams* pp) noexcept nogil
# The engine's loop (_fast.k_loop) with rollout policy ``kind``, guided by ``guide`` (with chance
# ``share`` a decision is the guide's; none without a guide, so k_rollout is k_play with guide NULL).
cdef int k_play(KState* s, const Comp* c, uint64_t* rng, RolloutKind kind, int16_t* trace, int cap,
                int max_decisions, const PlayoutParams* pp, GuideFn guide, const void* ctx, double share) noexcept nogil
