"""Boolean group-testing LP relaxation for OR/AND rules, rule sets and checklists."""

from logicrules._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "solve_relaxation": ".solvers",
        "solve_problem": ".solvers",
        "LPResult": ".solvers",
        "SolverError": ".solvers",
        "SolverWarning": ".solvers",
        "SOLVERS": ".solvers",
        "build_problem": ".model",
        "GroupTestingProblem": ".model",
        "screen_columns": ".screening",
        "greedy_dual": ".screening",
        "greedy_cover": ".screening",
        "round_solution": ".screening",
        "upper_bound": ".screening",
        "solve_with_screening": ".screening",
        "extend_dual": ".sampling",
        "solve_with_row_sampling": ".sampling",
        "learn_or_rule": ".rules",
        "learn_and_rule": ".rules",
        "learn_dnf": ".rules",
        "learn_cnf": ".rules",
        "learn_m_of_n": ".rules",
        "m_of_n_predict": ".rules",
        "MAX_M_OF_N_TERMS": ".rules",
        "LPRuleClassifier": ".estimator",
        "regularization_path": ".estimator",
        "LAM_GRID": ".estimator",
    },
)
