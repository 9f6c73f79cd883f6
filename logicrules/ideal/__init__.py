"""The empirical ideal DNF and the ideal classifier method built around it."""

from logicrules._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "empirical_ideal_dnf": ".algorithm",
        "type_table": ".algorithm",
        "TypeTable": ".algorithm",
        "type_codes": ".algorithm",
        "TIES": ".algorithm",
        "IdealDNFClassifier": ".method",
        "select_n_features": ".selection",
        "compact_dnf": ".compact",
        "bounded_dnf": ".bounded",
        "validated_bounded_dnf": ".bounded",
        "BoundedDNF": ".bounded",
        "sample_size_bound": ".bounds",
        "separation_sample_size": ".bounds",
        "f_classif_boolean": ".scoring",
        "chi2_boolean": ".scoring",
        "mutual_info_boolean": ".scoring",
        "boolean_counts": ".scoring",
        "BooleanCounts": ".scoring",
        "rank_features": ".scoring",
        "get_scorer": ".scoring",
        "SCORERS": ".scoring",
    },
)
