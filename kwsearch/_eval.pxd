# cython: language_level=3
"""The learned evaluation's C-level contract (see kwsearch/_eval.pyx and docs/evaluation.md).

``k_features`` writes ``NFEAT`` numbers per seat (the order of ``kwsearch.features.FEATURES``);
``k_evaluate`` turns them into each seat's modelled win share (a softmax over the seats of the
scores ``w . f``, plus, with a hidden layer, ``W2 . relu(W1 . f + b1)``; the shares sum to 1).
"""

from libc.stdint cimport int16_t

from kwsearch._fast cimport MAXP, Comp, KState

cdef enum:
    NBASE = 14              # base features of a seat
    NFEAT = 28              # the base features, then each of them times the game's progress
    MAXH = 32               # hidden units at most (kwsearch.features.MAX_HIDDEN)

ctypedef struct EvalModel:
    int nplayers            # the player count the weights were fitted for
    double w[NFEAT]         # one weight per feature (the same for every seat)
    int hidden              # hidden units, 0 to MAXH (0: the linear model alone)
    double W1[NFEAT * MAXH] # a hidden unit's input weights: W1[k * MAXH + h], feature k to unit h
    double b1[MAXH]         # its bias
    double W2[MAXH]         # its output weight (the units are ReLUs: max(0, W1 . f + b1))

cdef void k_features(const KState* s, const Comp* c, double* out) noexcept nogil
cdef void k_evaluate(const KState* s, const Comp* c, const EvalModel* m, double* share) noexcept nogil
cdef void k_shares(const double* feats, int nplayers, const EvalModel* m, double* share) noexcept nogil


cdef class Evaluator:
    cdef EvalModel model
    cdef public object names        # feature names, as the weights file lists them
    cdef public object source       # where the weights came from (a path, for messages)
    cdef public object meta         # the file's training record and test prediction


# The learned move prior (kwsearch/prior.py, docs/evaluation.md "The move prior").
cdef enum:
    NPRIOR = 29             # features of one (state, option) pair (kwsearch.prior.PRIOR_FEATURES)

ctypedef struct PriorModel:
    int nplayers            # the player count the weights were fitted for
    double w[NPRIOR]        # logit of an option = w . phi(state, option)

cdef void k_prior_features(const KState* s, const Comp* c, const int16_t* buf, int n, double* out) noexcept nogil
cdef void k_policy(const KState* s, const Comp* c, const PriorModel* m, const int16_t* buf, int n,
                   double* prob) noexcept nogil


cdef class Prior:
    cdef PriorModel model
    cdef public object names        # feature names, as the weights file lists them
    cdef public object source       # where the weights came from (a path, for messages)
    cdef public object meta         # the file's training record and test prediction
