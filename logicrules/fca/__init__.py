"""Formal concept analysis: contexts as packed bitsets, scalings, concepts, premise search."""

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
        "find_best_premises": ".search",
        "PremiseResult": ".search",
        "SearchStatistics": ".search",
        "SizeStatistics": ".search",
        "PremiseSearchMemoryError": ".search",
        "pareto_indices": ".search",
        "TorchCounter": ".search_torch",
        "gpu_available": ".search_torch",
        "OptimalPremiseClassifier": ".estimator",
        "MedianBinarizer": ".scaling",
        "QuantileBinarizer": ".scaling",
        "ThresholdBinarizer": ".scaling",
        "Condition": ".scaling",
        "format_value": ".scaling",
    },
)
