"""`LPRuleClassifier`: interpretable rules learned by the Boolean group-testing LP.

The estimator binarizes the data (quantile thresholds with negations by default), then learns
an OR-clause, an AND-clause (De Morgan), a DNF or CNF rule set (sequential covering) or an m-of-n
checklist (threshold group testing) with :mod:`logicrules.lp.rules`. The LP can be sped up by
safe column screening and row sampling, both exact (same optimum as the plain LP).

``lam`` is the cost of one literal **as a fraction of the training set**: a literal is worth
adding when it removes more than ``lam * n_samples`` (weighted) errors. The LP itself receives
``lam * n_samples`` (the paper's lambda, in units of one error).
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils._param_validation import RealNotInt, StrOptions

from logicrules.base import RuleClassifier
from logicrules.progress import progress_bar
from logicrules.formula import Formula
from logicrules.lp.colgen import learn_dnf_cg
from logicrules.lp.master import build_rule_set_problem
from logicrules.lp.colgen_rows import learn_dnf_cg_sampled, rule_set_problem_from_counts
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ContextCounts
from logicrules.lp.data import clause_problem, distinct_rows_bytes, merged_data
from logicrules.lp.mofn_rows import ChecklistRows, checklist_bytes
from logicrules.lp.rules import _sampling_fraction, learn_checklist, learn_cnf, learn_dnf, learn_m_of_n, solve_clause
from logicrules.lp.solvers import SOLVERS
from logicrules.memory import MemoryBudget
from logicrules.threads import thread_count
from logicrules.validation import Interval
from logicrules.lp.structure import _predict_structure, _structure_size, _to_formula

__all__ = ["LPRuleClassifier", "regularization_path", "RULE_KINDS", "LAM_GRID", "NEGATION_TIE_BREAK", "CG_MIP_NODES",
           "CG_MIP_SECONDS"]

#: Largest sample weights passed to the LP as they are; others are divided by the largest weight
#: (HiGHS reads coefficients above 1e20 as infinite and costs below its tolerances as zero).
_WEIGHT_RANGE = (1e-6, 1e6)
#: Extra cost of a negated category literal (``x != v``) in column generation, as a fraction of
#: the cost of one literal: a tie-break toward ``x == v`` between otherwise equal rule sets.
NEGATION_TIE_BREAK = 1e-3
#: Most branch-and-bound nodes of the integer master of column generation (1: the root node).
#: The master starts from the LP's rounding and HiGHS improves it in its root node; the proof that
#: follows is slow (the LP bound of these masters is weak), so it is cut short by this limit on
#: work, not on time: the rule set does not depend on the machine or its load, and its gap is
#: reported (``lp_result_["mip_gap"]``, ``"mip_status": "node_limit"``).
CG_MIP_NODES = 1
#: Seconds (wall clock) of the integer master of column generation when ``time_limit`` is None:
#: only a safety net for a root node that would take very long (:data:`CG_MIP_NODES` is the limit).
CG_MIP_SECONDS = 30.0
#: Values of the ``rule`` parameter.
RULE_KINDS = ("or", "and", "dnf", "cnf", "m_of_n")
#: Most rows counted at once from the packed data (fewer under a small ``memory_limit``).
_BLOCK_ROWS = 1 << 18
#: Candidate values of ``lam`` tried by ``lam="cv"`` (fractions of the training set).
LAM_GRID = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05)


class LPRuleClassifier(RuleClassifier):
    """Boolean rule classifier learned by the group-testing LP relaxation (Malioutov et al.).

    Parameters
    ----------
    rule : {"or", "and", "dnf", "cnf", "m_of_n"}, default "or"
        "or": one disjunction of literals; "and": one conjunction (learned by De Morgan as an
        OR-rule on complemented literals for the complemented label); "dnf"/"cnf": rule sets,
        by column generation or sequential covering (``method``); "m_of_n": a checklist that
        fires when at least m of n chosen literals hold.
    lam : float in [0, 1] or "cv", default 0.005
        Cost of one literal as a fraction of the training rows (see module notes; at lam = 1
        one literal costs as much as misclassifying every row, so larger values could only
        give the empty rule); ``"cv"``
        picks it from :data:`LAM_GRID` by 3-fold inner cross-validation (accuracy; ties go to
        the larger lam, i.e. the smaller rule); with ``method="cg"`` each fold walks the grid
        from the largest lam down, every fit warm-started with the previous one's pool, and the
        final fit starts from the pools generated at the chosen lam. On dask data the folds are
        :class:`~logicrules.dask_folds.PartitionFolds` drawn inside the partitions, not
        ``StratifiedKFold`` (:mod:`logicrules.lp.dask_cv`).
    method : {"cg", "covering"}, default "cg"
        How ``rule="dnf"``/``"cnf"`` is learned. "cg": column generation
        (:mod:`logicrules.lp.colgen`): the master LP over conjunctions, priced exactly over all
        terms of at most ``max_term_size`` literals, then the integer master; a term (clause) of
        s literals costs ``lam * n_samples * (1 + s)``. "covering": sequential covering, one
        LP-learned term at a time, at most ``max_clauses`` of them.
    max_term_size : int, default 3
        For ``method="cg"``: longest term (clause) of the exact pricing, 1 to 4.
    budget : float, optional
        For ``method="cg"``: complexity budget, an upper bound on the number of terms plus
        literals of the rule set (in the LP: ``sum_k (1 + |K_k|) w_k <= budget``).
    max_clauses : int, default 5
        For ``method="covering"``: largest number of terms (DNF) or clauses (CNF).
    binarizer : str or transformer, default "quantile"
        How raw columns become literals (see :func:`logicrules.base.make_binarizer`); the
        default is ``QuantileBinarizer(negations=True)``, so every threshold literal comes with
        its negation. "passthrough" when X is already 0/1.
    solver : {"highs", "pulp"}, default "highs"
        LP back end (SciPy HiGHS, or PuLP with HiGHS/CBC). The m-of-n program is always solved
        by SciPy's HiGHS (dual simplex, ``milp`` for ``rounding="exact"``), without screening.
    screening : bool, default True
        Safe column screening before each solve (never changes the optimum).
    row_sampling : None, "auto" or float, default None
        Solve through a sample of the constraint rows (exact): a fraction in (0, 1], or "auto"
        (10% when there are more than 5000 of them). Each clause LP ("or", "and",
        ``method="covering"``) is solved on the sample, its dual extended to screen the columns,
        and the full LP solved by row generation from the sample
        (:func:`~logicrules.lp.sampling.solve_with_row_sampling`). With ``method="cg"`` the
        master LP of column generation is solved on the sample, rows its solution leaves short
        of covered join it, and the LP bound is certified over all rows as without sampling
        (:func:`~logicrules.lp.colgen_rows.learn_dnf_cg_sampled`). With "m_of_n" (where "auto"
        means 10% when there are more than 5000 distinct rows) each threshold LP starts from a
        sample's solution and adds the rows on the wrong side of their kink until there are none
        (:func:`~logicrules.lp.mofn_rows.solve_threshold_lp`), over the packed rows. On
        dask data the clause LPs always go through a row sample drawn in the partitions: this
        fraction, or by default 10% of the rows, at most 100,000 (:mod:`logicrules.lp.dask_fit`).
    rounding : {"threshold", "exact"}, default "threshold"
        "threshold": best threshold of the LP solution (or greedy cover when better); "exact":
        solve the integer program.
    class_weight : None, "balanced" or dict, default None
        Error costs per class ({label: cost}, finite and > 0, 1 for a class not named);
        "balanced" weighs classes inversely to their size. Only the ratio of the two costs
        matters: they are scaled so that the larger is 1.
    max_m : int, default 3
        For ``rule="m_of_n"``: largest threshold m tried by the LP. The LPs of m = 1, ...,
        ``max_m`` are independent: with ``row_sampling`` they are solved side by side, one
        thread per available core (fewer when their working arrays would not fit
        ``memory_limit`` together); the result does not depend on the number of threads.
    time_limit : float, optional
        Seconds per LP/IP solve. An LP that hits it raises ``SolverError``; an integer program
        stopped with an incumbent warns (``SolverWarning``) and uses it. With ``method="cg"``:
        seconds for the column generation loop and for the integer master (which otherwise
        stops after :data:`CG_MIP_NODES` nodes, or :data:`CG_MIP_SECONDS` as a safety net),
        both of which keep their best solution and report their bounds.
    random_state : None or int, default None
        Seeds row sampling and the inner cross-validation of ``lam="cv"``.
    memory_limit : int, float, str or None, default 2 GiB
        Bytes (or "512MB", "2GB") that ``fit`` may allocate beyond the input X, y. It covers the
        data path (the binarizer's fit and the packed binarized data, built in chunks) and the
        rows the LP keeps, checked against it before they are unpacked
        (:class:`~logicrules.memory.MemoryLimitError`): the distinct rows of one class for
        "or"/"and" (the other class enters only through per-literal counts), of both classes
        for rule sets, one byte per cell, counted in blocks sized by the limit.
        Every LP handed to HiGHS (the reduced clause LP, the master LP of column generation) is
        estimated from its nonzeros before the solver builds its model
        (:func:`~logicrules.lp.solvers.model_bytes`) and refused when it would not fit, as
        is the explicit-row LP of m-of-n; checklists keep their distinct rows packed (one bit
        per cell, :func:`~logicrules.lp.mofn_rows.checklist_bytes`). PuLP's models are not
        estimated.
    pos_label : label, optional
        The class the rule describes (predicted where it fires); ``classes_[1]`` when None.
        ``class_weight`` keeps naming classes by their labels.
    categorical : list of str or int, optional
        Input columns (names or positions) the binarizer one-hot encodes whatever their dtype,
        e.g. integer-coded categories (see :mod:`logicrules.fca.scaling`).
    verbose : int, default 0
        0: silent. 1 or more: progress of the fit on stderr (a tqdm bar when tqdm is installed,
        else one line per step; see :mod:`logicrules.progress`): the LP fits of ``lam="cv"`` (folds x grid), or the classes of a multiclass target.

    Attributes
    ----------
    formula_ : Formula
        The learned rule over ``attribute_names_``. For m-of-n it is one threshold node,
        :class:`~logicrules.checklist.AtLeast` (``at least m of: ...``, size n; an OR for
        m = 1, an AND for m = n), which ``predict`` evaluates directly.
    lam_ : float
        The lam used (chosen by cross-validation with ``lam="cv"``).
    lp_result_ : dict
        ``objective`` (training objective of the rule, in units of one error of the class with
        the larger cost), ``lp_objective``,
        ``columns_screened``, ``rows_sampled``, ``seconds``, ``n_columns``, ``n_lp_solves``,
        ``solver`` and ``status``. With ``method="cg"`` also ``iterations``, ``pool_size``,
        ``lp_bound`` (lower bound of the LP over all terms of at most ``max_term_size``
        literals), ``certified``, ``mip_objective``, ``mip_gap``, ``mip_status``,
        ``pricing_seconds`` and ``mip_seconds`` (:meth:`ColumnGenerationFit.report`).
    checklist_ : tuple (list of str, int)
        For m-of-n: the chosen literal names and m.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 5)
    >>> y = np.array([1, 1, 0, 0] * 5)
    >>> clf = LPRuleClassifier(binarizer="passthrough").fit(X, y)
    >>> str(clf.formula_), clf.predict([[1, 0], [0, 1]]).tolist()
    ('x0', [1, 0])
    """

    _parameter_constraints: dict = {
        **RuleClassifier._parameter_constraints,
        "rule": [StrOptions(set(RULE_KINDS))],
        "lam": [Interval(Real, 0, 1, closed="both"), StrOptions({"cv"})],
        "method": [StrOptions({"cg", "covering"})],
        "max_term_size": [Interval(Integral, 1, 4, closed="both")],
        "budget": [Interval(Real, 0, None, closed="left"), None],
        "max_clauses": [Interval(Integral, 1, None, closed="left")],
        "solver": [StrOptions(set(SOLVERS))],
        "screening": ["boolean"],
        "row_sampling": [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"}), None],
        "rounding": [StrOptions({"threshold", "exact"})],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "max_m": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "random_state": ["random_state"],
        "memory_limit": [Interval(Integral, 1, None, closed="left"),
                         Interval(RealNotInt, 0, None, closed="neither"), str, None],
        "verbose": ["verbose"],
    }

    def __init__(self, *, rule="or", lam=0.005, method="cg", max_term_size=3, budget=None, max_clauses=5,
                 binarizer="quantile", solver="highs", screening=True, row_sampling=None, rounding="threshold",
                 class_weight=None, max_m=3, time_limit=None, random_state=None, pos_label=None, categorical=None,
                 memory_limit=None, verbose=0):
        self.rule = rule
        self.lam = lam
        self.method = method
        self.max_term_size = max_term_size
        self.budget = budget
        self.max_clauses = max_clauses
        self.binarizer = binarizer
        self.solver = solver
        self.screening = screening
        self.row_sampling = row_sampling
        self.rounding = rounding
        self.class_weight = class_weight
        self.max_m = max_m
        self.time_limit = time_limit
        self.random_state = random_state
        self.pos_label = pos_label
        self.categorical = categorical
        self.memory_limit = memory_limit
        self.verbose = verbose

    # ------------------------------------------------------------------ checks
    def _class_costs(self, y: np.ndarray, sw: np.ndarray | None = None) -> tuple[float, float]:
        cw = self.class_weight
        if cw is None:
            return 1.0, 1.0
        if cw == "balanced":
            sw = np.ones(len(y)) if sw is None else sw
            n, n_pos = float(sw.sum()), float(sw[y].sum())
            return n / (2.0 * max(n_pos, 1e-300)), n / (2.0 * max(n - n_pos, 1e-300))
        unknown = set(cw) - set(self.classes_.tolist())
        if unknown:
            raise ValueError(f"class_weight has labels not in y: {sorted(map(str, unknown))}; "
                             f"the classes are {self.classes_.tolist()}")
        bad = {label: cost for label, cost in cw.items()
               if isinstance(cost, (bool, np.bool_)) or not isinstance(cost, Real)
               or not np.isfinite(cost) or cost <= 0}
        if bad:
            raise ValueError(f"class_weight costs must be finite numbers > 0, got {bad}")
        negative, positive = self._binary_labels()
        costs = float(cw.get(positive, 1.0)), float(cw.get(negative, 1.0))
        # only the ratio matters (lam is a fraction of the weighted rows): scale to a largest
        # cost of 1, so that costs such as 1e300 cannot overflow the LP's coefficients
        return costs[0] / max(costs), costs[1] / max(costs)

    # ----------------------------------------------------------------- fitting
    def _fit_formula(self, Xb: np.ndarray, y: np.ndarray, names: list[str],
                     sample_weight: np.ndarray | None = None) -> Formula:
        """The base class's dense entry point: the same fit, on the rows packed first."""
        return self._fit_packed(FormalContext(np.asarray(Xb, dtype=bool), attributes=names), y, sample_weight)

    def _fit_packed(self, context: FormalContext, y: np.ndarray,
                    weights: np.ndarray | None = None) -> Formula:
        """Learn the rule from the packed binarized rows through their counts (no dense copy).

        The OR/AND clause reads the distinct rows of one class and the literal counts of the
        other (:mod:`logicrules.lp.data`); rule sets and checklists read the distinct rows of
        both classes, each checked against ``memory_limit`` before it is unpacked.
        """
        sw = weights
        if sw is not None and self._weight_divisor(float(sw.max())) != 1.0:
            sw = sw / sw.max()  # same rule (lam is a fraction of the weighted rows), sane LP coefficients
        costs = self._class_costs(y, sw)
        names = list(context.attributes)
        start = time.perf_counter()
        conditions = self._conditions()
        negated = np.array([getattr(conditions.get(name), "op", None) == "!=" for name in names], dtype=bool)
        budget = getattr(self, "_budget", None) or MemoryBudget(self.memory_limit)
        with budget.active():  # the solvers check their models against it
            warm = ()
            if isinstance(self.lam, str):
                self.lam_, warm = self._choose_lam(context, y, costs, sw, negated)
            else:
                self.lam_ = float(self.lam)
            structure, fits = self._learn(context, y, self.lam_, costs, sw, negated, initial_terms=warm)
        objective = self._training_objective(context, y, structure, costs, sw)
        return self._store_fit(structure, fits, objective, names, time.perf_counter() - start)

    def _store_fit(self, structure, fits, objective: float, names: list[str], seconds: float) -> Formula:
        """Set ``lp_result_`` (and ``m_``, ``checklist_`` for m-of-n) from the fits of the learned
        structure and return its formula over ``names``."""
        if self._column_generation():
            rows = [h["rows"] for h in fits[0].history if "rows" in h]  # the master's rows when sampled
            self.lp_result_ = {**fits[0].report(), "n_columns": len(names), "objective": objective,
                               "seconds": seconds, "rows_sampled": rows[-1] if rows else None}
            return _to_formula(self.rule, structure, names)
        results = [f.result for f in fits if hasattr(f, "result")]
        self.lp_result_ = {
            "objective": objective,
            "lp_objective": float(sum(r.objective for r in results)) if results else None,
            "columns_screened": int(sum(r.columns_screened for r in results)),
            "rows_sampled": (int(sum(r.rows_sampled for r in results))
                             if any(r.rows_sampled is not None for r in results) else
                             getattr(fits[0], "groups", None) if fits else None),
            "seconds": seconds,
            "n_columns": len(names),
            "n_lp_solves": len(fits[0].lp_objectives) if self.rule == "m_of_n" else len(results),
            "solver": results[0].solver if results else ("highs-milp" if self.rule == "m_of_n" else None),
            "status": "optimal" if all(getattr(f, "optimal", True) for f in fits)
            and all(r.optimal for r in results) else "time_limit",
        }
        if self.rule == "m_of_n":
            columns, m = structure
            self.m_ = m
            self.checklist_ = ([names[j] for j in columns], m)
        return _to_formula(self.rule, structure, names)

    def _solve_options(self) -> dict:
        return {"solver": self.solver, "screening": self.screening, "row_sampling": self.row_sampling,
                "rounding": self.rounding, "time_limit": self.time_limit, "random_state": self.random_state}

    def _learn(self, context: FormalContext, y: np.ndarray, lam: float, weights: tuple[float, float],
               sw: np.ndarray | None = None, negated: np.ndarray | None = None, initial_terms=()):
        """Learn the rule's structure (column indices, and m for m-of-n) from the rows' counts.

        Rows of weight 0 (``sw``) take no part. The LP sees identical (row, label) pairs merged
        into one row weighing their total, in bit order (:mod:`logicrules.lp.data`), so weights
        and repetition give the same program and so does any order of the rows.
        With column generation, a negated category literal (``x != v``, marked in ``negated``)
        costs :data:`NEGATION_TIE_BREAK` of a literal more: of rule sets otherwise equal on the
        training data the one saying ``x == v`` is chosen (tic-tac-toe's lines of three x,
        rather than "no o" on a line, which covers the same training rows). ``initial_terms``
        warm-starts column generation (terms over the same literals, e.g. from another lam).
        """
        counts = ContextCounts(context, y, sw, block_rows=self._block_rows(context.n_attributes))
        rows = np.bincount((y if sw is None else y[sw > 0]).astype(np.intp), minlength=2)  # rows per class
        totals = counts.class_totals()
        lam_abs = lam * (weights[0] * float(totals[1]) + weights[1] * float(totals[0]))
        options = self._solve_options()
        if self.rule in ("or", "and"):
            firing = 1 if self.rule == "or" else 0
            self._require_rows(rows[firing], context.n_attributes, "the LP's constraint rows (the distinct "
                               f"{'positive' if firing else 'negative'} rows)")
            costs = weights if self.rule == "or" else (weights[1], weights[0])
            fit = solve_clause(clause_problem(counts, lam_abs, costs, complement=self.rule == "and"), **options)
            return fit.columns, [fit]
        if self.rule == "m_of_n":
            n_lps = self._checklist_threads(rows.sum(), context.n_attributes)
            self._require_bytes(checklist_bytes(rows.sum(), context.n_attributes, n_lps), "the packed distinct "
                                f"rows of both classes, up to {rows.sum()} x {context.n_attributes} cells")
            fit = learn_checklist(ChecklistRows.from_multisets(counts.class_rows(0), counts.class_rows(1)), lam_abs,
                                  n_jobs=n_lps, **self._checklist_options(weights))
            return (fit.columns, fit.m), [fit]
        self._require_rows(rows.sum(), context.n_attributes, "the distinct rows of both classes")
        if self._column_generation():
            return self._learn_cg(self._rule_set_problem(counts, lam_abs, weights, negated), initial_terms)
        return self._learn_merged(*merged_data(counts), lam_abs, weights, negated, initial_terms)

    def _learn_merged(self, Xb: np.ndarray, y: np.ndarray, sw: np.ndarray, lam_abs: float, weights,
                      negated: np.ndarray | None = None, initial_terms=()):
        """A rule set or checklist from the distinct (row, label) pairs and their weights
        (:func:`~logicrules.lp.data.merged_data`); ``lam_abs`` the cost of one literal in errors."""
        options = self._solve_options()
        if self._column_generation():
            cnf = self.rule == "cnf"
            problem = build_rule_set_problem(~Xb if cnf else Xb, ~y if cnf else y, lam_abs, sample_weight=sw,
                                             weights=(weights[1], weights[0]) if cnf else weights,
                                             budget=self.budget, literal_cost=self._literal_cost(lam_abs, negated))
            return self._learn_cg(problem, initial_terms)
        if self.rule in ("dnf", "cnf"):
            learner = learn_dnf if self.rule == "dnf" else learn_cnf
            fit = learner(Xb, y, lam_abs, int(self.max_clauses), weights=weights, sample_weight=sw, **options)
            return fit.terms, fit.fits
        fit = learn_m_of_n(Xb, y, lam_abs, sample_weight=sw, **self._checklist_options(weights))
        return (fit.columns, fit.m), [fit]

    def _checklist_threads(self, n_rows: int, n_attributes: int) -> int:
        """The m-of-n LPs solved at once: one per core and m, fewer when their working arrays
        would not fit the fit's memory limit together (one always runs)."""
        n_lps = thread_count(min(int(self.max_m), n_attributes))
        budget = getattr(self, "_budget", None)
        room = float("inf") if budget is None else budget.limit - budget.held
        while n_lps > 1 and checklist_bytes(n_rows, n_attributes, n_lps) > room:
            n_lps -= 1
        return n_lps

    def _checklist_options(self, weights) -> dict:
        return {"max_m": int(self.max_m), "weights": weights, "rounding": self.rounding,
                "time_limit": self.time_limit, "row_sampling": self.row_sampling, "random_state": self.random_state}

    def _literal_cost(self, lam_abs: float, negated: np.ndarray | None) -> np.ndarray | None:
        return None if negated is None else NEGATION_TIE_BREAK * lam_abs * negated

    def _rule_set_problem(self, counts: ContextCounts, lam_abs: float, weights: tuple[float, float],
                          negated: np.ndarray | None):
        """Column generation's instance from the counts' distinct rows (a CNF: the DNF of the
        complemented literals for class 0)."""
        cnf = self.rule == "cnf"
        return rule_set_problem_from_counts(counts, lam_abs, weights=(weights[1], weights[0]) if cnf else weights,
                                            budget=self.budget, literal_cost=self._literal_cost(lam_abs, negated),
                                            complement=cnf)

    def _learn_cg(self, problem, initial_terms=()):
        """Column generation on an instance, its master on a row sample when ``row_sampling`` asks."""
        options = {"max_size": int(self.max_term_size), "solver": self.solver, "time_limit": self.time_limit,
                   **self._mip_limits(), "initial_terms": initial_terms}
        fraction = _sampling_fraction(self.row_sampling, problem.A_pos.shape[0])
        if fraction is not None and problem.A_pos.shape[0] > 1:
            fit = learn_dnf_cg_sampled(problem, row_sampling=fraction, random_state=self.random_state, **options)
        else:
            fit = learn_dnf_cg(None, None, problem.lam, problem=problem, **options)
        return fit.terms, [fit]

    @staticmethod
    def _weight_divisor(largest: float) -> float:
        """What the LP's weights are divided by: their largest when it lies outside
        ``_WEIGHT_RANGE`` (HiGHS's range), else 1."""
        return 1.0 if _WEIGHT_RANGE[0] <= largest <= _WEIGHT_RANGE[1] else largest

    def _mip_limits(self) -> dict:
        """Limits of the integer master of column generation: :data:`CG_MIP_NODES` nodes and
        ``time_limit`` seconds (:data:`CG_MIP_SECONDS` by default)."""
        return {"mip_node_limit": CG_MIP_NODES,
                "mip_time_limit": CG_MIP_SECONDS if self.time_limit is None else self.time_limit}

    @staticmethod
    def _lam_grid() -> tuple[float, ...]:
        """The candidates of ``lam="cv"`` (:data:`LAM_GRID`)."""
        return LAM_GRID

    def _block_rows(self, n_attributes: int) -> int:
        """Rows counted at once: about four bytes per cell are unpacked while a block's distinct
        rows are merged, kept within a quarter of what ``memory_limit`` leaves free."""
        budget = getattr(self, "_budget", None)
        if budget is None:
            return _BLOCK_ROWS
        room = max(budget.limit - budget.held, 0) / 4
        return int(min(max(room // (4 * n_attributes + 64), 64), _BLOCK_ROWS))

    def _require_rows(self, n_rows: int, n_attributes: int, what: str) -> None:
        """Check the LP's dense rows (at most ``n_rows`` distinct ones) against ``memory_limit``."""
        self._require_bytes(distinct_rows_bytes(n_rows, n_attributes), f"{what}, up to {n_rows} x {n_attributes} cells")

    def _require_bytes(self, nbytes: float, what: str) -> None:
        budget = getattr(self, "_budget", None)
        if budget is not None:
            budget.require(nbytes, what, "use fewer rows or a binarizer with fewer attributes")

    def _fit_dask(self, X, y, sample_weight=None):
        """``fit`` on a dask DataFrame / Array X and a dask y partitioned alike, without
        materializing X (:func:`~logicrules.lp.dask_fit.fit_lp_from_dask`)."""
        from logicrules.lp.dask_fit import fit_lp_from_dask

        return fit_lp_from_dask(self, X, y, sample_weight)

    def _column_generation(self) -> bool:
        return self.rule in ("dnf", "cnf") and self.method == "cg"

    def _training_objective(self, context: FormalContext, y, structure, weights, sw=None) -> float:
        pred = _predict_structure(self.rule, structure, context)
        size = _structure_size(self.rule, structure) + (len(structure) if self._column_generation() else 0)
        sw = np.ones(len(y)) if sw is None else sw
        lam_abs = self.lam_ * (weights[0] * sw[y].sum() + weights[1] * sw[~y].sum())
        return float(lam_abs * size + weights[0] * sw[y & ~pred].sum() + weights[1] * sw[~y & pred].sum())

    def _choose_lam(self, context: FormalContext, y: np.ndarray, weights, sw=None, negated=None):
        """Inner 3-fold cross-validation over :data:`LAM_GRID` (accuracy, weighted by the
        sample weights; ties to larger lam): ``(lam, warm start terms)``. A fold's training
        rows are the rows of nonzero weight of its fit, so no row subset of the data is copied.

        With column generation the grid is walked from the largest lam down, each fit
        warm-started with the pool of the previous one on its fold (same literals; the
        pricing still certifies every fit), and the terms generated at the chosen lam in all
        folds warm-start the final fit. Other rules return no warm start terms.
        """
        smallest = int(min(y.sum(), (~y).sum()))
        if smallest < 2:
            return LAM_GRID[len(LAM_GRID) // 2], ()
        folds = StratifiedKFold(n_splits=min(3, smallest), shuffle=True, random_state=self.random_state)
        scores = np.zeros(len(LAM_GRID))
        pools: list[dict] = [{} for _ in LAM_GRID]   # terms generated at each lam (ordered set)
        row_weight = np.ones(len(y)) if sw is None else sw
        with progress_bar(folds.get_n_splits() * len(LAM_GRID), "lam grid x folds", self.verbose) as bar:
            for train, test in folds.split(np.zeros((len(y), 1)), y):
                fold_weight = np.zeros(len(y))
                fold_weight[train] = row_weight[train]
                warm = ()
                for k in range(len(LAM_GRID) - 1, -1, -1):
                    structure, fits = self._learn(context, y, LAM_GRID[k], weights, fold_weight, negated,
                                                  initial_terms=warm)
                    if self._column_generation():
                        warm = fits[0].pool
                        pools[k].update(dict.fromkeys(warm))
                    pred = _predict_structure(self.rule, structure, context)[test]
                    scores[k] += np.average(pred == y[test], weights=None if sw is None else sw[test])
                    bar.update()
        best = int(np.flatnonzero(scores >= scores.max() - 1e-12)[-1])
        return float(LAM_GRID[best]), tuple(pools[best])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


def regularization_path(estimator: LPRuleClassifier, X, y, lams=LAM_GRID, X_test=None, y_test=None) -> pd.DataFrame:
    """Fit the estimator for each lam: rule size against accuracy.

    Parameters
    ----------
    estimator : LPRuleClassifier
        Template (cloned for every lam; not modified).
    X, y : training data
    lams : sequence of float
        Values of ``lam`` (fractions of the training rows).
    X_test, y_test : optional
        Held-out data for a ``test_accuracy`` column.

    Returns
    -------
    DataFrame
        One row per lam: ``lam``, ``rule`` (text), ``size`` (literals), ``train_accuracy``,
        ``test_accuracy`` (when test data is given), ``seconds``, and ``estimator`` (fitted).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 5); y = np.array([1, 1, 0, 0] * 5)
    >>> path = regularization_path(LPRuleClassifier(binarizer="passthrough"), X, y, lams=[0.01, 0.9])
    >>> path[["lam", "rule", "size"]].values.tolist()
    [[0.01, 'x0', 1], [0.9, 'FALSE', 0]]
    """
    if not isinstance(estimator, LPRuleClassifier):
        raise TypeError(f"regularization_path needs an LPRuleClassifier, got {type(estimator).__name__}")
    if (X_test is None) != (y_test is None):
        raise ValueError("give both X_test and y_test, or neither")
    rows = []
    for lam in lams:
        model = clone(estimator).set_params(lam=lam)
        start = time.perf_counter()
        model.fit(X, y)
        row = {"lam": lam, "rule": str(model.formula_), "size": model.formula_.size,
               "train_accuracy": float(model.score(X, y))}
        if X_test is not None:
            row["test_accuracy"] = float(model.score(X_test, y_test))
        row["seconds"] = time.perf_counter() - start
        row["estimator"] = model
        rows.append(row)
    return pd.DataFrame(rows)
