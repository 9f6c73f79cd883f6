"""Figures of logicrules.plot, drawn headless (Agg): each returns an Axes with what it should show."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402

from logicrules import plot  # noqa: E402
from logicrules.fca.context import FormalContext  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 10, size=(150, 4)), columns=list("abcd"))
    y = ((X.a > 5) & (X.c > 3)).astype(int)
    return X, y


def scatter_sizes(ax) -> list[int]:
    return [len(c.get_offsets()) for c in ax.collections if isinstance(c, PathCollection)]


# -------------------------------------------------------------------------------- ideal
def test_validation_path_from_model(toy):
    from logicrules.ideal.method import IdealDNFClassifier

    model = IdealDNFClassifier(max_features=3, random_state=0).fit(*toy)
    ax = plot.plot_validation_path(model)
    assert isinstance(ax, Axes)
    lines = {line.get_label(): line for line in ax.get_lines()}
    curve = lines["validation accuracy (best scorer)"]
    np.testing.assert_array_equal(curve.get_xdata(), model.path_.n_features)
    np.testing.assert_allclose(curve.get_ydata(), model.path_.validation_accuracy)
    assert "training accuracy" in lines and f"chosen l = {model.n_selected_}" in lines
    # one faint scatter per scorer, with every (l, scorer) candidate
    assert sum(scatter_sizes(ax)) == len(model.candidates_)


def test_validation_path_from_frame_into_given_axes():
    _, given = plt.subplots()
    path = pd.DataFrame({"n_features": [1, 2, 3], "validation_accuracy": [0.7, 0.8, 0.79]})
    ax = plot.plot_validation_path(path, ax=given)
    assert ax is given and len(ax.get_lines()) == 1


def test_validation_path_bad_input():
    with pytest.raises(TypeError, match="IdealDNFClassifier or a DataFrame"):
        plot.plot_validation_path([1, 2, 3])
    with pytest.raises(ValueError, match="missing \\['validation_accuracy'\\]"):
        plot.plot_validation_path(pd.DataFrame({"n_features": [1]}))
    from logicrules.ideal.method import IdealDNFClassifier

    with pytest.raises(ValueError, match="fit an IdealDNFClassifier first"):
        plot.plot_validation_path(IdealDNFClassifier())


# ------------------------------------------------------------------------------ premises
def test_tp_tn_from_fitted_estimator(toy):
    from logicrules.fca.premise.estimator import OptimalPremiseClassifier

    model = OptimalPremiseClassifier(max_size=2, binarizer="median").fit(*toy)
    ax = plot.plot_tp_tn(model)
    sizes = scatter_sizes(ax)
    # one scatter per front (sizes <= 1, <= 2), then the circled best premise
    assert sizes == [len(model.pareto_[k]) for k in sorted(model.pareto_)] + [1]
    best = ax.collections[-1].get_offsets()[0]
    assert tuple(best) == (model.premises_[0].tp, model.premises_[0].tn)
    iso = [line for line in ax.get_lines()]
    assert iso, "F1 iso-lines are drawn"
    P, N = model.n_positive_, model.n_negative_
    for line in iso:  # every iso-line point has the same F1 = 2 tp / (P + tp + N - tn)
        tp, tn = line.get_xdata(), line.get_ydata()
        f1 = 2 * tp / (P + tp + N - tn)
        np.testing.assert_allclose(f1[tp > 0], f1[tp > 0][0])
    assert ax.get_xlabel() == "true positives" and ax.get_ylabel() == "true negatives"


def test_tp_tn_from_premise_list_and_frames():
    from logicrules.fca.premise.search import find_best_premises

    X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 0]] * 4, dtype=bool)
    y = X[:, 0] & ~X[:, 2]
    premises = find_best_premises(X, y, max_size=2, top_k=6)
    ax = plot.plot_tp_tn(premises)
    assert sum(scatter_sizes(ax)[:-1]) == len(premises) and ax.get_lines()
    frame = pd.DataFrame({"size": [1, 2], "tp": [3, 4], "tn": [10, 9]})
    ax = plot.plot_tp_tn(frame)  # no P, N: no iso-lines, no best
    assert scatter_sizes(ax) == [1, 1] and not ax.get_lines()
    ax = plot.plot_tp_tn(frame, n_positive=4, n_negative=12)
    assert ax.get_lines()
    ax = plot.plot_tp_tn({1: frame.iloc[:1], 2: frame})
    assert scatter_sizes(ax) == [1, 2]


def test_tp_tn_bad_input():
    with pytest.raises(TypeError, match="OptimalPremiseClassifier"):
        plot.plot_tp_tn("premises")
    with pytest.raises(ValueError, match="missing"):
        plot.plot_tp_tn(pd.DataFrame({"tp": [1]}))


# ------------------------------------------------------------------------------------ LP
def test_regularization_path(toy):
    from logicrules.lp.estimator import LPRuleClassifier, regularization_path

    X, y = toy
    path = regularization_path(LPRuleClassifier(), X[:100], y[:100], lams=[0.001, 0.05, 0.5],
                               X_test=X[100:], y_test=y[100:])
    ax = plot.plot_regularization_path(path)
    assert [line.get_label() for line in ax.get_lines()] == ["training accuracy", "test accuracy"]
    assert ax.get_xscale() == "log"
    size_line = ax.right_ax.get_lines()[0]
    np.testing.assert_array_equal(size_line.get_ydata(), path.sort_values("lam")["size"])
    with pytest.raises(ValueError, match="needs columns"):
        plot.plot_regularization_path(path.drop(columns="size"))
    with pytest.raises(TypeError):
        plot.plot_regularization_path([0.1, 0.2])


# ------------------------------------------------------------------------------ lattices
def random_context(seed: int) -> FormalContext:
    rng = np.random.default_rng(seed)
    n, m = rng.integers(1, 7), rng.integers(1, 6)
    return FormalContext(rng.random((n, m)) < 0.5, attributes=[f"m{j}" for j in range(m)],
                         objects=[f"g{i}" for i in range(n)])


@pytest.mark.parametrize("seed", range(12))
def test_lattice_layout_and_reduced_labels(seed):
    import networkx as nx

    context = random_context(seed)
    graph = context.lattice()
    pos = plot._lattice_layout(graph)
    sizes = sorted({len(d["intent"]) for _, d in graph.nodes(data=True)})
    for node, data in graph.nodes(data=True):  # one row per intent size, top concept highest
        assert pos[node][1] == -sizes.index(len(data["intent"]))
    for lower, upper in graph.edges:
        assert pos[upper][1] > pos[lower][1]
    assert len(set(pos.values())) == graph.number_of_nodes()
    # reduced labelling, against the definition: a concept's intent is every attribute written
    # at it or above it, its extent every object written at it or below it
    for node, data in graph.nodes(data=True):
        above = nx.descendants(graph, node) | {node}
        below = nx.ancestors(graph, node) | {node}
        attrs = {a for v in above for a in plot._own_labels(graph, v)[0]}
        objs = {g for u in below for g in plot._own_labels(graph, u)[1]}
        assert attrs == set(data["intent_names"])
        assert objs == {str(g) for g in data["extent_names"]}


def test_plot_lattice_draws_every_concept_and_label():
    context = FormalContext([[1, 1, 0], [0, 1, 1], [1, 0, 0]], attributes=["a", "b", "c"],
                            objects=["g", "h", "k"])
    ax = plot.plot_lattice(context)
    assert scatter_sizes(ax) == [len(context.concepts())]
    texts = " ".join(t.get_text() for t in ax.texts)
    for name in ("a", "b", "c", "g", "h", "k"):
        assert texts.split().count(name) == 1  # each label written exactly once
    ax = plot.plot_lattice(context.lattice(), labels="sizes")
    assert len(ax.texts) == len(context.concepts())
    with pytest.raises(ValueError, match="more than limit"):
        plot.plot_lattice(context.lattice(), limit=2)
    with pytest.raises(TypeError, match="FormalContext or a networkx.DiGraph"):
        plot.plot_lattice(np.eye(3))
    with pytest.raises(ValueError, match="labels must be"):
        plot.plot_lattice(context, labels="all")


def test_missing_matplotlib_gives_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install logicrules\[plot\]"):
        plot.plot_regularization_path(pd.DataFrame({"lam": [0.1], "size": [1], "train_accuracy": [0.9]}))
