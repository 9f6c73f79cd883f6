"""Formal concept analysis: contexts as packed bitsets, counts, scalings, concepts.

The optimal premise learner has its own subpackage, :mod:`logicrules.fca.premise`.
"""

from logicrules._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "FormalContext": ".context",
        "Counts": ".counts",
        "ContextCounts": ".counts",
        "ChunkedCounts": ".counts",
        "RowBlock": ".counts",
        "RowMultiset": ".counts",
        "TypeHistogram": ".counts",
        "DaskCounts": ".dask_counts",
        "RowSplit": ".dask_counts",
        "Concept": ".concepts",
        "enumerate_concepts": ".concepts",
        "concept_lattice": ".concepts",
        "find_best_premises": ".premise.search",
        "find_best_premises_from_counts": ".premise.from_counts",
        "PremiseResult": ".premise.results",
        "SearchStatistics": ".premise.results",
        "SizeStatistics": ".premise.results",
        "PremiseSearchMemoryError": ".premise.results",
        "pareto_indices": ".premise.results",
        "TorchCounter": ".premise.torch_backend",
        "gpu_available": ".premise.torch_backend",
        "OptimalPremiseClassifier": ".premise.estimator",
        "MedianBinarizer": ".scaling",
        "QuantileBinarizer": ".scaling",
        "ThresholdBinarizer": ".scaling",
        "Condition": ".scaling",
        "format_value": ".scaling",
    },
)
