"""The optimal premise learner: exhaustive, exact search for the best short premise.

:func:`find_best_premises` searches the premise space (:mod:`~logicrules.fca.premise.space`)
over a formal context's packed attributes, size by size (:mod:`~logicrules.fca.premise.search`
puts the sizes together), with compiled counting scans (:mod:`~logicrules.fca.premise.kernels`)
or matrix products on a GPU (:mod:`~logicrules.fca.premise.torch_backend`);
:func:`estimate_premise_search` gives its cost before it runs
(:mod:`~logicrules.fca.premise.cost`); :class:`OptimalPremiseClassifier` is the scikit-learn
estimator around it.
"""

from logicrules._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "find_best_premises": ".search",
        "estimate_premise_search": ".search",
        "find_best_premises_from_counts": ".from_counts",
        "PremiseResult": ".results",
        "SearchStatistics": ".results",
        "SizeStatistics": ".results",
        "PremiseSearchMemoryError": ".results",
        "pareto_indices": ".results",
        "SearchEstimate": ".cost",
        "TorchCounter": ".torch_counter",
        "gpu_available": ".torch_device",
        "OptimalPremiseClassifier": ".estimator",
    },
)
