"""logicrules: short, human-readable, provably optimal Boolean classifiers for tabular data.

Public names are imported lazily from their modules (see ``logicrules._lazy``).
"""

from logicrules._lazy import lazy_exports

__version__ = "0.1.0"

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        # formulas
        "Formula": ".formula",
        "Literal": ".formula",
        "And": ".formula",
        "Or": ".formula",
        "Not": ".formula",
        "TRUE": ".formula",
        "FALSE": ".formula",
        "from_sympy": ".formula",
        "conjunction": ".formula",
        "disjunction": ".formula",
        "AtLeast": ".checklist",
        "at_least": ".checklist",
        "Domain": ".conditions",
        "equivalent": ".equivalence",
        "agreement": ".equivalence",
        # shared model
        "FormalContext": ".fca.context",
        "ContextCounts": ".fca.counts",
        "ChunkedCounts": ".fca.counts",
        "MemoryLimitError": ".memory",
        "Condition": ".fca.scaling",
        "MedianBinarizer": ".fca.scaling",
        "QuantileBinarizer": ".fca.scaling",
        "ThresholdBinarizer": ".fca.scaling",
        "RuleClassifier": ".base",
        # learners
        "find_best_premises": ".fca.premise.search",
        "find_best_premises_from_counts": ".fca.premise.from_counts",
        "OptimalPremiseClassifier": ".fca.premise.estimator",
        "IdealDNFClassifier": ".ideal.method",
        "LPRuleClassifier": ".lp.estimator",
        "SolverError": ".lp.solvers",
        "SolverWarning": ".lp.solvers",
        "empirical_ideal_dnf": ".ideal.algorithm",
        "sample_size_bound": ".ideal.bounds",
        "separation_sample_size": ".ideal.bounds",
        "get_objective": ".metrics",
        # studies, saved models and exports
        "compare_learners": ".compare",
        "PartitionFolds": ".dask_folds",
        "summarize": ".compare",
        "to_markdown": ".compare",
        "compare_formulas": ".compare",
        "restricted_ideal_dnf": ".compare",
        "save_model": ".persistence",
        "load_model": ".persistence",
        "export_formula": ".export",
        "to_latex": ".export",
        "to_query": ".export",
        "report": ".model_report",
        # data
        "load_dataset": ".datasets",
        "list_datasets": ".datasets",
        "load_csv": ".datasets",
    },
)
