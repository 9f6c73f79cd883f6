"""Figures for the three learners and for formal concept analysis (matplotlib, optional).

Each function draws one figure of the papers the learners come from and returns the matplotlib
``Axes``, so figures compose (pass ``ax=`` to draw into a subplot) and can be saved or tested
headless. matplotlib is an optional dependency: install it with ``pip install logicrules[plot]``.

- :func:`plot_validation_path`: the ideal method's validation accuracy against the number of
  selected features ``l`` (how ``l`` is chosen).
- :func:`plot_tp_tn`: premises of each size on the true-positive / true-negative plane with F1
  iso-lines (the optimal short premise paper's figure).
- :func:`plot_regularization_path`: the group-testing LP's accuracy and rule size against the
  sparsity weight lambda.
- :func:`plot_lattice`: the Hasse diagram of a concept lattice, layered by intent size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["plot_lattice", "plot_regularization_path", "plot_tp_tn", "plot_validation_path"]

#: F1 values of the iso-lines drawn by :func:`plot_tp_tn`.
ISO_F1 = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def _axes(ax):
    """Return ``ax`` or a new Axes, with a clear message when matplotlib is missing."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "logicrules.plot needs matplotlib; install it with `pip install logicrules[plot]` "
            "(or `pip install matplotlib`)"
        ) from None
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4.5))
    return ax


def _require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{what} needs columns {list(columns)}; missing {missing} (got {list(frame.columns)})"
        )


# ------------------------------------------------------------------------- ideal method
def plot_validation_path(model_or_path_df: Any, ax=None):
    """Draw the ideal method's validation accuracy against the number of features ``l``.

    The ideal classifier method tries ``l = 1, 2, ...`` selected attributes and keeps the
    smallest ``l`` whose validation accuracy is within a tolerance (one percentage point) of the
    best. This figure shows that choice: the best validation accuracy per ``l``, the training
    accuracy of the same selection (dashed, when known), every scorer tried (faint points, for a
    fitted model) and the chosen ``l`` with its tolerance band.

    Parameters
    ----------
    model_or_path_df : IdealDNFClassifier or DataFrame
        A fitted :class:`~logicrules.ideal.method.IdealDNFClassifier` (its ``path_``,
        ``candidates_``, ``n_selected_`` and ``tolerance`` are used), or a DataFrame with
        columns ``n_features`` and ``validation_accuracy`` (optionally ``training_accuracy``).
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd
    >>> path = pd.DataFrame({"n_features": [1, 2, 3], "validation_accuracy": [0.8, 0.9, 0.91]})
    >>> ax = plot_validation_path(path)
    >>> ax.get_xlabel()
    'number of selected features l'
    """
    model = None
    if isinstance(model_or_path_df, pd.DataFrame):
        path = model_or_path_df
    elif hasattr(model_or_path_df, "path_"):
        model, path = model_or_path_df, model_or_path_df.path_
    elif hasattr(model_or_path_df, "fit"):
        raise ValueError(
            f"{type(model_or_path_df).__name__} has no path_: fit an IdealDNFClassifier first"
        )
    else:
        raise TypeError(
            "plot_validation_path needs a fitted IdealDNFClassifier or a DataFrame, "
            f"got {type(model_or_path_df).__name__}"
        )
    _require_columns(path, ["n_features", "validation_accuracy"], "plot_validation_path")
    ax = _axes(ax)
    if model is not None and hasattr(model, "candidates_"):
        for scorer, rows in model.candidates_.groupby("scorer", sort=False):
            ax.scatter(rows["n_features"], rows["validation_accuracy"], s=12, alpha=0.35,
                       label=f"{scorer}")
    ax.plot(path["n_features"], path["validation_accuracy"], marker="o", color="C3",
            label="validation accuracy (best scorer)")
    if "training_accuracy" in path.columns:
        ax.plot(path["n_features"], path["training_accuracy"], ls="--", color="0.4",
                label="training accuracy")
    if model is not None and hasattr(model, "n_selected_"):
        chosen = int(model.n_selected_)
        best = float(path["validation_accuracy"].max())
        ax.axhspan(best - float(model.tolerance), best, color="C3", alpha=0.08,
                   label=f"within {100 * float(model.tolerance):g} pct. points of the best")
        ax.axvline(chosen, color="black", lw=0.8, ls=":", label=f"chosen l = {chosen}")
    ax.set_xticks(path["n_features"].to_numpy())
    ax.set_xlabel("number of selected features l")
    ax.set_ylabel("accuracy")
    ax.set_title("Ideal DNF: choosing the number of features")
    ax.legend(fontsize=7, loc="lower right")
    return ax


# ------------------------------------------------------------------------ premise search
def _premise_frame(premises: Any) -> tuple[pd.DataFrame, int | None, int | None, Any]:
    """Premises as a DataFrame (formula, size, tp, tn, score?) plus P, N and the best premise."""
    if hasattr(premises, "pareto_"):
        fronts = premises.pareto_
        frame = pd.concat([f.assign(front=k) for k, f in sorted(fronts.items())], ignore_index=True) \
            if fronts else pd.DataFrame(columns=["formula", "size", "tp", "tn", "score"])
        best = premises.premises_[0]
        return frame, premises.n_positive_, premises.n_negative_, (best.tp, best.tn, str(best.formula))
    if hasattr(premises, "fit"):
        raise ValueError(f"{type(premises).__name__} has no pareto_: fit an OptimalPremiseClassifier first")
    if isinstance(premises, Mapping):
        frame = pd.concat([pd.DataFrame(f).assign(front=k) for k, f in sorted(premises.items())],
                          ignore_index=True)
    elif isinstance(premises, pd.DataFrame):
        frame = premises
    elif isinstance(premises, Sequence) and premises and all(hasattr(p, "tp") for p in premises):
        frame = pd.DataFrame([{"formula": p.formula, "size": p.size, "tp": p.tp, "fp": p.fp,
                               "fn": p.fn, "tn": p.tn, "score": p.score} for p in premises])
    else:
        raise TypeError(
            "plot_tp_tn needs a fitted OptimalPremiseClassifier, a list of PremiseResult, a "
            f"DataFrame or a dict of size -> DataFrame; got {type(premises).__name__}"
        )
    _require_columns(frame, ["size", "tp", "tn"], "plot_tp_tn")
    P = int(frame["tp"].iloc[0] + frame["fn"].iloc[0]) if "fn" in frame and len(frame) else None
    N = int(frame["tn"].iloc[0] + frame["fp"].iloc[0]) if "fp" in frame and len(frame) else None
    best = None
    if "score" in frame and len(frame):
        row = frame.loc[frame["score"].astype(float).idxmax()]
        best = (row["tp"], row["tn"], str(row["formula"]) if "formula" in frame else "best")
    return frame, P, N, best


def plot_tp_tn(premises: Any, ax=None, *, n_positive: int | None = None,
               n_negative: int | None = None, iso_f1: Sequence[float] = ISO_F1):
    """Draw premises of each size on the true-positive / true-negative plane with F1 iso-lines.

    This is the figure of the optimal short premise paper: each premise, used as a classifier,
    is a point ``(tp, tn)``; points up and to the right are better, and F1 is constant along the
    lines ``tn = P + N + tp - 2 tp / F1`` (``P`` positives, ``N`` negatives). One colour per
    premise size shows how much each extra literal buys; the chosen premise is circled.

    Parameters
    ----------
    premises : OptimalPremiseClassifier, list of PremiseResult, DataFrame or dict
        A fitted :class:`~logicrules.fca.premise.estimator.OptimalPremiseClassifier` (its ``pareto_``
        fronts and best premise), the result list of
        :func:`~logicrules.fca.premise.search.find_best_premises`, a DataFrame with columns ``size``,
        ``tp``, ``tn`` (optionally ``fp``, ``fn``, ``score``, ``formula``) or a dict of
        size -> such DataFrame (the estimator's ``pareto_``).
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure when None.
    n_positive, n_negative : int, optional
        Numbers of positive and negative rows (needed for the iso-lines when the premises carry
        no ``fp``/``fn`` counts and are not a fitted estimator).
    iso_f1 : sequence of float
        F1 values of the iso-lines.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> from logicrules.fca.premise.search import find_best_premises
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 3, dtype=bool)
    >>> premises = find_best_premises(X, X[:, 0], max_size=2, top_k=5)
    >>> ax = plot_tp_tn(premises)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('true positives', 'true negatives')
    """
    frame, P, N, best = _premise_frame(premises)
    P = P if n_positive is None else int(n_positive)
    N = N if n_negative is None else int(n_negative)
    ax = _axes(ax)
    if P is not None and N is not None:
        tp = np.linspace(0, P, 200)
        for f in iso_f1:
            tn = P + N + tp - 2 * tp / f
            ok = (tn >= 0) & (tn <= N)
            if ok.any():
                ax.plot(tp[ok], tn[ok], color="0.8", lw=0.8, zorder=0)
                ax.annotate(f"F1={f:g}", (tp[ok][-1], tn[ok][-1]), fontsize=7, color="0.5")
        ax.set_xlim(0, P * 1.02 + 1)
        ax.set_ylim(0, N * 1.02 + 1)
    group = "front" if "front" in frame else "size"
    for key, rows in frame.groupby(group, sort=True):
        label = f"premises of size <= {key}" if group == "front" else f"premise size {key}"
        ax.scatter(rows["tp"], rows["tn"], s=14, label=label)
    if best is not None:
        ax.scatter([best[0]], [best[1]], s=80, facecolors="none", edgecolors="black",
                   label=f"best: {best[2]}")
    ax.set_xlabel("true positives")
    ax.set_ylabel("true negatives")
    ax.set_title("Premises on the TP-TN plane")
    ax.legend(fontsize=7, loc="lower left")
    return ax


# ------------------------------------------------------------------------------ LP rules
def plot_regularization_path(path_df: pd.DataFrame, ax=None):
    """Draw the LP rule learner's accuracy and rule size against the sparsity weight lambda.

    Larger lambda makes every literal cost more, so rules get shorter; the figure shows what
    that costs in accuracy. Accuracy (training, and test when present) is on the left axis,
    the rule size (literals) on a twin right axis; lambda is on a log scale.

    Parameters
    ----------
    path_df : DataFrame
        The output of :func:`logicrules.lp.estimator.regularization_path`: columns ``lam``,
        ``size``, ``train_accuracy`` and optionally ``test_accuracy``.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib Axes
        The accuracy axes (the size axes is its twin, ``ax.right_ax``).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd
    >>> path = pd.DataFrame({"lam": [0.001, 0.01, 0.1], "size": [6, 3, 1],
    ...                      "train_accuracy": [0.97, 0.95, 0.88]})
    >>> ax = plot_regularization_path(path)
    >>> ax.right_ax.get_ylabel()
    'rule size (literals)'
    """
    if not isinstance(path_df, pd.DataFrame):
        raise TypeError(f"plot_regularization_path needs a DataFrame, got {type(path_df).__name__}")
    _require_columns(path_df, ["lam", "size", "train_accuracy"], "plot_regularization_path")
    if len(path_df) == 0:
        raise ValueError("plot_regularization_path got an empty path")
    path = path_df.sort_values("lam")
    ax = _axes(ax)
    ax.plot(path["lam"], path["train_accuracy"], marker="o", color="C0", label="training accuracy")
    if "test_accuracy" in path.columns:
        ax.plot(path["lam"], path["test_accuracy"], marker="s", color="C2", label="test accuracy")
    if (path["lam"] > 0).all():
        ax.set_xscale("log")
    ax.set_xlabel("lambda (cost of one literal, fraction of rows)")
    ax.set_ylabel("accuracy")
    right = ax.twinx()
    right.step(path["lam"], path["size"], where="mid", color="C1", label="rule size")
    right.set_ylabel("rule size (literals)")
    right.set_ylim(bottom=0)
    ax.right_ax = right
    lines = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize=7, loc="lower left")
    ax.set_title("LP rules: regularization path")
    return ax


# ---------------------------------------------------------------------------- lattices
def _lattice_layout(graph) -> dict[Any, tuple[float, float]]:
    """Layered positions: one row per intent size (top concept highest), barycentric order."""
    layers: dict[int, list] = {}
    for node, data in graph.nodes(data=True):
        layers.setdefault(len(data["intent"]), []).append(node)
    pos: dict[Any, tuple[float, float]] = {}

    def barycentre(node):
        xs = [pos[v][0] for v in graph.successors(node) if v in pos]
        return (float(np.mean(xs)) if xs else 0.0, node)

    for row, size in enumerate(sorted(layers)):
        # order each layer by the mean position of its upper covers, to limit crossings
        nodes = sorted(layers[size], key=barycentre)
        xs = np.arange(len(nodes)) - (len(nodes) - 1) / 2
        for node, x in zip(nodes, xs):
            pos[node] = (float(x), -float(row))
    return pos


def _own_labels(graph, node) -> tuple[list[str], list[str]]:
    """Reduced labelling: attributes first met at ``node``, objects last seen at ``node``."""
    data = graph.nodes[node]
    above = set().union(*(set(graph.nodes[v]["intent_names"]) for v in graph.successors(node)))
    below = set().union(*(set(graph.nodes[u]["extent_names"]) for u in graph.predecessors(node)))
    attrs = [str(a) for a in data["intent_names"] if a not in above]
    objs = [str(g) for g in data["extent_names"] if g not in below]
    return attrs, objs


def plot_lattice(context_or_graph: Any, ax=None, *, labels: str = "reduced", limit: int = 200):
    """Draw a concept lattice (Hasse diagram) with a layered layout by intent size.

    The top concept (all objects, their common attributes) is drawn highest and every row below
    holds the concepts with one more attribute-count in their intent. With the classic
    *reduced labelling* an attribute is written (above the node) at the most general concept
    that has it and an object (below the node) at the most specific concept that holds it: a
    concept's intent is then every attribute written on or above it, and its extent every object
    written on or below it.

    Parameters
    ----------
    context_or_graph : FormalContext or networkx.DiGraph
        A context (its :meth:`~logicrules.fca.context.FormalContext.lattice` is drawn) or a
        lattice graph as that method returns (nodes with ``intent``, ``extent``,
        ``intent_names``, ``extent_names``; edges from a concept to its upper covers).
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure when None.
    labels : {"reduced", "sizes", "none"}, default "reduced"
        Reduced labelling, extent/intent sizes per node, or no labels.
    limit : int, default 200
        Most concepts to draw (a larger lattice raises ValueError: it would be unreadable).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from logicrules.fca.context import FormalContext
    >>> ctx = FormalContext([[1, 1, 0], [0, 1, 1]], attributes=["a", "b", "c"], objects=["g", "h"])
    >>> ax = plot_lattice(ctx)
    >>> len(ax.collections) > 0
    True
    """
    import networkx as nx

    if labels not in ("reduced", "sizes", "none"):
        raise ValueError(f"labels must be 'reduced', 'sizes' or 'none', got {labels!r}")
    if isinstance(context_or_graph, nx.DiGraph):
        graph = context_or_graph
        if graph.number_of_nodes() > limit:
            raise ValueError(f"the lattice has {graph.number_of_nodes()} concepts, more than limit={limit}")
    elif hasattr(context_or_graph, "lattice"):
        graph = context_or_graph.lattice(limit=limit)
    else:
        raise TypeError(
            f"plot_lattice needs a FormalContext or a networkx.DiGraph, got {type(context_or_graph).__name__}"
        )
    missing = [n for n, d in graph.nodes(data=True)
               if not {"intent", "extent", "intent_names", "extent_names"} <= set(d)]
    if missing:
        raise ValueError(
            "lattice nodes need attributes intent, extent, intent_names and extent_names "
            f"(as FormalContext.lattice() sets them); nodes {missing[:5]} lack some"
        )
    ax = _axes(ax)
    pos = _lattice_layout(graph)
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=False, edge_color="0.5")
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_size=120, node_color="white", edgecolors="black")
    for node in graph.nodes:
        x, y = pos[node]
        if labels == "reduced":
            attrs, objs = _own_labels(graph, node)
            if attrs:
                ax.annotate(", ".join(attrs), (x, y), xytext=(0, 7), textcoords="offset points",
                            ha="center", va="bottom", fontsize=7, color="C0")
            if objs:
                ax.annotate("\n".join(objs), (x, y), xytext=(0, -7), textcoords="offset points",
                            ha="center", va="top", fontsize=7, color="C3")
        elif labels == "sizes":
            data = graph.nodes[node]
            ax.annotate(f"{len(data['extent'])}/{len(data['intent'])}", (x, y), xytext=(6, 0),
                        textcoords="offset points", ha="left", va="center", fontsize=7)
    ax.set_axis_off()
    ax.margins(0.15)
    ax.set_title(f"Concept lattice ({graph.number_of_nodes()} concepts)")
    return ax
