"""A fitted rule model explained on one self-contained HTML page, for a domain expert.

:func:`report` writes the rule in plain words with the user's column names (each literal with
what it means, including what a missing value does to it), every term's support, precision and
coverage on the given data (the counts of :meth:`~logicrules.RuleClassifier.get_rules`), the
confusion matrix, the learner and its parameters, a summary of the data (rows, class balance,
missing values) and the learner's own figure where it has one: the validation path of the ideal
method, the TP-TN plane of the premise search, the regularization path of the LP. Figures are
inline PNG images (``data:`` URLs) and the style sheet is inline, so the page needs no file
beside it and no network. The command line gives the same page:
``logicrules report MODEL.json DATA --output report.html``.
"""

from __future__ import annotations

import base64
import html
import io
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from logicrules.export import _conditions_of
from logicrules.fca.condition import _format_category, format_value
from logicrules.formula import Literal
from logicrules.presentation import rule_parts

__all__ = ["literal_meaning", "report"]

# Plain words of each comparison, and of its negation (the negation of a binarized attribute is
# also true where the value is missing, unless missing values are rejected).
_WORDS = {
    ">": ("is greater than {v}", "is at most {v}"),
    "<=": ("is at most {v}", "is greater than {v}"),
    ">=": ("is at least {v}", "is less than {v}"),
    "<": ("is less than {v}", "is at least {v}"),
    "==": ("is {v}", "is not {v}"),
    "!=": ("is not {v} (any other value, also one not seen in training)", "is {v}"),
    "is true": ("is true (1)", "is false (0)"),
    "is missing": ("is missing", "is present (not missing)"),
}

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1d232a;
       max-width: 1000px; margin: 2em auto; padding: 0 1.5em; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.1em; } h2 { font-size: 1.2em; margin-top: 1.8em;
     border-bottom: 1px solid #d0d7de; padding-bottom: 0.2em; }
.subtitle { color: #57606a; margin-top: 0; }
.rule { background: #f3f6f9; border-left: 4px solid #2f6fb0; padding: 0.8em 1.1em; font-size: 1.05em; }
.rule ol, .rule ul { margin: 0.4em 0; } .rule li { margin: 0.25em 0; }
code, .formula { font-family: "SFMono-Regular", Consolas, "Liberation Mono", monospace; font-size: 0.92em; }
.formula { background: #f6f8fa; padding: 0.6em 0.8em; display: block; white-space: pre-wrap; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.93em; }
th, td { border: 1px solid #d0d7de; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #d0d7de; }
figcaption { color: #57606a; font-size: 0.9em; } .note { color: #57606a; font-size: 0.9em; }
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _missing_policy(model: Any) -> str | None:
    """The binarizer's ``missing`` policy; "error" for passthrough (0/1 data only), None if unknown."""
    binarizer = getattr(model, "binarizer_", None)
    if binarizer is None:
        return "error"
    return getattr(binarizer, "missing", None)


def literal_meaning(model: Any, literal: Literal) -> tuple[str, str]:
    """What a literal of a fitted model says about the original columns, in words.

    Parameters
    ----------
    model : fitted rule model
        A learner of logicrules (its binarizer maps attribute names to column conditions).
    literal : Literal
        An attribute of the model's binarization, possibly negated.

    Returns
    -------
    (str, str)
        When the literal is true (``"age is greater than 54.5"``), and what a missing value of
        its column does (``"false: a missing age never satisfies it"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from logicrules.fca.premise.estimator import OptimalPremiseClassifier
    >>> X = pd.DataFrame({"age": [30, 40, 60, 70]})
    >>> model = OptimalPremiseClassifier(max_size=1, binarizer="median").fit(X, [0, 0, 1, 1])
    >>> literal_meaning(model, model.formula_)
    ('age is greater than 50', 'false: a missing age never satisfies it')
    >>> literal_meaning(model, ~model.formula_)
    ('age is at most 50', 'true: a missing age satisfies it')
    """
    try:
        condition = _conditions_of(model).get(str(literal.attribute))
    except TypeError:  # a custom binarizer without conditions_
        condition = None
    if condition is None:
        name = str(literal.attribute)
        binarizer = type(getattr(model, "binarizer_", None)).__name__
        text = f"{'NOT ' if literal.negated else ''}{name} (an attribute made by {binarizer})"
        return text, f"as {binarizer} decides (it made this attribute)"
    column = condition.column
    if condition.op in ("==", "!="):
        value = _format_category(condition.value)
    else:
        value = "" if condition.value is None else format_value(condition.value)
    positive, negative = _WORDS[condition.op]
    meaning = f"{column} {(negative if literal.negated else positive).format(v=value)}"
    policy = _missing_policy(model)
    if policy == "error":
        return meaning, f"rejected: the model raises an error on a missing {column}"
    if policy is None:
        return meaning, f"as the model's {type(model.binarizer_).__name__} decides"
    if condition.op == "is missing":
        holds = not literal.negated
    else:  # every other attribute of a column is false on a missing value
        holds = literal.negated
    if holds:
        return meaning, f"true: a missing {column} satisfies it"
    return meaning, f"false: a missing {column} never satisfies it"


# ------------------------------------------------------------------------------ sections
def _literals_of(terms: list[list[Literal]]) -> list[Literal]:
    return list(dict.fromkeys(lit for term in terms for lit in term))


def _words(model: Any, literal: Literal) -> str:
    """A literal in words for the rule's sentence, saying "or missing" where a missing value counts."""
    meaning, missing = literal_meaning(model, literal)
    if missing.startswith("true") and not meaning.endswith("is missing"):
        meaning += " (or missing)"
    return _e(meaning)


def _checklist(formula: Any, kind: str, terms: list[list[Literal]]) -> tuple[list[Literal], int] | None:
    """(items, m) of an m-of-n rule (an ``AtLeast`` formula), None for any other rule.

    The words describe ``formula_``, the rule ``predict`` uses (domain simplification may have
    rewritten a checklist, e.g. "at least 1 of" into an OR).
    """
    if kind == "checklist":
        return terms[0], int(formula.m)
    return None


def _rule_words(model: Any, formula: Any, kind: str, terms: list[list[Literal]], then: str,
                otherwise: str) -> str:
    """A rule's formula (the model's, or one class's) in words, literals read through
    ``model``'s binarizer."""
    checklist = _checklist(formula, kind, terms)
    if checklist is not None:
        items, m = checklist
        listed = "".join(f"<li>{_words(model, lit)}</li>" for lit in items)
        return (f"<p>When <b>at least {m}</b> of these {len(items)} conditions hold, {then}</p>"
                f"<ul>{listed}</ul>")
    if kind == "dnf" and not terms:
        return f"<p>The rule is FALSE: it never holds; {otherwise}</p>"
    if kind == "dnf" and terms == [[]]:
        return f"<p>The rule is TRUE: it always holds; {then}</p>"
    joiner, lead = (" <i>and</i> ", "any one") if kind == "dnf" else (" <i>or</i> ", "every one")
    items = "".join(
        "<li>" + joiner.join(_words(model, lit) for lit in term) + "</li>" for term in terms
    )
    what = "terms" if kind == "dnf" else "clauses"
    if len(terms) == 1:
        return f"<p>When {joiner.join(_words(model, lit) for lit in terms[0])}, {then}</p>"
    return f"<p>When {lead} of these {len(terms)} {what} holds, {then}</p><ol>{items}</ol>"


def _table(frame: pd.DataFrame, numeric: Sequence[str] = (), formats: dict[str, str] | None = None) -> str:
    formats = formats or {}
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, row):
            text = format(value, formats[column]) if column in formats and pd.notna(value) else value
            css = ' class="num"' if column in numeric else ""
            cells.append(f"<td{css}>{_e(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _labels(model: Any) -> tuple[Any, Any]:
    """(negative class, positive class): the labels predicted where the rule fails / holds."""
    if hasattr(model, "_binary_labels"):
        negative, positive = model._binary_labels()
        return negative, positive
    return model.classes_[0], model.classes_[1]


def _is_multiclass(model: Any) -> bool:
    return isinstance(getattr(model, "formula_", None), dict)


def _confusion_multiclass(model: Any, predicted: np.ndarray, y: np.ndarray) -> str:
    classes = model.classes_.tolist()
    counts = (y[:, None] == model.classes_[None, :]).T.astype(np.int64) @ \
        (predicted[:, None] == model.classes_[None, :]).astype(np.int64)
    head = "<tr><th></th>" + "".join(f"<th>predicted {_e(c)}</th>" for c in classes) + "<th>rows</th></tr>"
    body = "".join(
        f"<tr><th>actual {_e(c)}</th>" + "".join(f'<td class="num">{int(v)}</td>' for v in row)
        + f'<td class="num">{int(row.sum())}</td></tr>' for c, row in zip(classes, counts))
    n = int(counts.sum())
    accuracy = f"{np.trace(counts) / n:.3f}" if n else "undefined"
    scores = pd.DataFrame({
        "class": [str(c) for c in classes],
        "precision": [counts[k, k] / counts[:, k].sum() if counts[:, k].sum() else float("nan")
                      for k in range(len(classes))],
        "recall": [counts[k, k] / counts[k].sum() if counts[k].sum() else float("nan")
                   for k in range(len(classes))],
    })
    return (f"<table>{head}{body}</table><p>{_e(f'accuracy {accuracy} on {n} rows')}.</p>"
            + _table(scores, numeric=("precision", "recall"), formats={"precision": ".3f", "recall": ".3f"}))


def _confusion(model: Any, X: Any, y: np.ndarray) -> str:
    predicted = model.predict(X)
    if _is_multiclass(model):
        return _confusion_multiclass(model, np.asarray(predicted), y)
    negative, positive = _labels(model)
    actual_pos, pred_pos = y == positive, predicted == positive
    tp = int(np.sum(actual_pos & pred_pos))
    fn = int(np.sum(actual_pos & ~pred_pos))
    fp = int(np.sum(~actual_pos & pred_pos))
    tn = int(np.sum(~actual_pos & ~pred_pos))
    n = tp + fn + fp + tn
    rows = [("", f"predicted {negative}", f"predicted {positive}", "rows"),
            (f"actual {negative}", f"{tn} (true negatives)", f"{fp} (false positives)", fp + tn),
            (f"actual {positive}", f"{fn} (false negatives)", f"{tp} (true positives)", tp + fn)]
    cells = "".join(
        "<tr>" + "".join(f"<th>{_e(c)}</th>" if i == 0 or r == 0 else f'<td class="num">{_e(c)}</td>'
                         for i, c in enumerate(row)) + "</tr>"
        for r, row in enumerate(rows)
    )

    def ratio(a: int, b: int) -> str:
        return f"{a / b:.3f}" if b else "undefined"

    scores = (f"accuracy {ratio(tp + tn, n)}, precision {ratio(tp, tp + fp)}, recall "
              f"{ratio(tp, tp + fn)}, F1 {ratio(2 * tp, 2 * tp + fp + fn)} on {n} rows")
    return f"<table>{cells}</table><p>{_e(scores)}.</p>"


def _data_summary(X: pd.DataFrame, y: np.ndarray, classes: Sequence[Any], positive: Any = None) -> str:
    counts = [(f"{label}" + (" (positive)" if positive is not None and label == positive else ""),
               int(np.sum(y == label)), f"{np.mean(y == label):.1%}") for label in classes]
    balance = _table(pd.DataFrame(counts, columns=["class", "rows", "share"]), numeric=("rows", "share"))
    missing = X.isna()
    per_column = missing.sum(axis=0)
    per_column = per_column[per_column > 0].sort_values(ascending=False)
    lines = [f"<p>{X.shape[0]} rows, {X.shape[1]} columns; {int(missing.to_numpy().sum())} missing "
             f"values in {int(missing.any(axis=1).sum())} rows.</p>", balance]
    if len(per_column):
        frame = pd.DataFrame({"column": per_column.index.astype(str), "missing values": per_column.to_numpy(),
                              "share of rows": per_column.to_numpy() / max(X.shape[0], 1)})
        lines.append(_table(frame, numeric=("missing values", "share of rows"), formats={"share of rows": ".1%"}))
    return "".join(lines)


def _parameters(model: Any) -> str:
    params = model.get_params(deep=False)
    frame = pd.DataFrame({"parameter": list(params), "value": [repr(v) for v in params.values()]})
    learned = []
    for name, what in (("n_selected_", "number of selected attributes"),
                       ("validation_accuracy_", "validation accuracy of that choice"),
                       ("score_", "objective on the training data"), ("lam_", "lambda used"),
                       ("class_prior_", "share of positive training rows")):
        if hasattr(model, name):
            value = getattr(model, name)
            learned.append((name, what, f"{value:.6g}" if isinstance(value, (float, np.floating)) else value))
    binarizer = model.binarizer_
    if binarizer is None:
        made_by = "passthrough: the input columns are 0/1"
    else:
        made_by = f"{type(binarizer).__name__}, missing={_missing_policy(model)!r}"
    parts = [f"<p>{_e(type(model).__module__)}.<b>{_e(type(model).__name__)}</b>, over "
             f"{len(model.attribute_names_)} binarized attributes ({_e(made_by)}).</p>", _table(frame)]
    if learned:
        parts.append(_table(pd.DataFrame(learned, columns=["fitted attribute", "meaning", "value"])))
    return "".join(parts)


# ------------------------------------------------------------------------------- figures
def _png(draw) -> str:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.0, 4.2), dpi=100)
    ax = figure.add_subplot()
    draw(ax)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _figures(rule: Any, X: Any, y: np.ndarray, lams: Sequence[float] | None,
             suffix: str = "") -> list[tuple[str, str, str]]:
    """(title, caption, base64 PNG) of a rule's own figure; ``y`` is its boolean or class target."""
    from logicrules import plot
    from logicrules.lp.estimator import LAM_GRID, LPRuleClassifier, regularization_path

    if hasattr(rule, "path_") and hasattr(rule, "n_selected_"):
        return [(f"Validation path{suffix}", "How the ideal method chose the number of attributes l on "
                 "its validation split of the training data (stored in the model).",
                 _png(lambda ax: plot.plot_validation_path(rule, ax=ax)))]
    if hasattr(rule, "pareto_") and rule.pareto_:
        return [(f"TP-TN plane{suffix}", "The non-dominated premises of each size found by the search on "
                 "the training data, with lines of equal F1; the chosen premise is highlighted.",
                 _png(lambda ax: rule.plot_tp_tn(ax=ax)))]
    if isinstance(rule, LPRuleClassifier):
        grid = tuple(LAM_GRID if lams is None else lams)
        path = regularization_path(rule, X, y, lams=grid)
        return [(f"Regularization path{suffix}", "The learner refitted on this page's data for each "
                 f"lambda ({', '.join(format(v, 'g') for v in grid)}): accuracy on the same data and "
                 "rule size; larger lambda, shorter rules.",
                 _png(lambda ax: plot.plot_regularization_path(path, ax=ax)))]
    return []


# ---------------------------------------------------------------------------------- page
def _as_frame(model: Any, X: Any) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X
    names = getattr(model, "feature_names_in_", None)
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"X must be 2-D (rows, columns), got shape {array.shape}")
    columns = [str(c) for c in names] if names is not None else [f"x{j}" for j in range(array.shape[1])]
    return pd.DataFrame(array, columns=columns)


def report(model: Any, X: Any, y: Any, *, title: str | None = None, description: str | None = None,
           figures: bool = True,
           lams: Sequence[float] | None = None, output: str | os.PathLike | None = None) -> str:
    """Describe a fitted rule model and its behaviour on data as one self-contained HTML page.

    Parameters
    ----------
    model : fitted RuleClassifier
        An :class:`~logicrules.IdealDNFClassifier`, :class:`~logicrules.OptimalPremiseClassifier`,
        :class:`~logicrules.LPRuleClassifier` (or any fitted learner of this library). A model
        fitted on more than two classes gets one section per class's rule, a confusion matrix
        over all classes and each class's figure.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Data to describe the rule on (training or held-out), with the columns the model was
        fitted on.
    y : array-like of shape (n_samples,)
        Its classes, labelled as in training (``model.classes_``).
    title : str, optional
        Heading of the page (default: the learner's name).
    description : str, optional
        What the data and the classes are (``"hepatitis; 1 = Class die"``), shown under the
        heading.
    figures : bool, default True
        Draw the learner's figure (needs matplotlib). For the LP learner this refits it on
        ``X, y`` for each lambda of ``lams``.
    lams : sequence of float, optional
        Lambdas of the LP's regularization path (default :data:`logicrules.lp.LAM_GRID`).
    output : str or path, optional
        Also write the page to this file (UTF-8).

    Returns
    -------
    str
        The HTML page.

    Examples
    --------
    >>> from logicrules import OptimalPremiseClassifier, load_dataset
    >>> X, y = load_dataset("congressional_voting")
    >>> model = OptimalPremiseClassifier(max_size=1).fit(X, y)
    >>> page = report(model, X, y, figures=False)
    >>> page.startswith("<!DOCTYPE html>"), "physician_fee_freeze" in page
    (True, True)
    """
    check_is_fitted(model, "formula_")
    frame = _as_frame(model, X)  # for the data summary; the model sees X as given
    if not isinstance(X, pd.DataFrame):
        X = frame.to_numpy()
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) != len(frame):
        raise ValueError(f"y must be 1-D with one class per row of X ({len(frame)} rows), got shape {labels.shape}")
    known = np.isin(labels, model.classes_)
    if not known.all():
        unknown = [repr(v.item() if hasattr(v, "item") else v) for v in pd.unique(labels[~known])[:10]]
        raise ValueError(f"y has classes the model does not know: {', '.join(unknown)}; the model's "
                         f"classes are {model.classes_.tolist()} (label y as in training)")
    multiclass = _is_multiclass(model)
    per_class = multiclass and hasattr(model, "estimators_")
    if multiclass:  # one rule per class
        rules_of = list(model.formula_.items())
        positive = None
        classes: Sequence[Any] = model.classes_.tolist()
    else:
        negative, positive = _labels(model)
        rules_of = [(positive, model.formula_)]
        classes = (negative, positive)
    words, literals, kinds = [], [], set()
    if per_class:
        words.append('<p class="note">One rule per class, each learned for that class against all the '
                     "others. The model predicts the most probable class: a rule that holds beats every "
                     "rule that does not, and ties go to the first class.</p>")
    elif multiclass:
        words.append('<p class="note">One rule per class: every combination of the selected attributes '
                     "predicts the class most frequent among its training rows, so exactly one rule "
                     "holds on every row.</p>")
    for label, formula in rules_of:
        kind, terms = rule_parts(formula)
        kinds.add(kind)
        checklist = _checklist(formula, kind, terms)
        literals += _literals_of(terms) if checklist is None else checklist[0]
        if multiclass:
            then = f"the rule speaks for class <b>{_e(label)}</b>."
            otherwise = f"no row is given class <b>{_e(label)}</b> by its rule."
            text = f"IF {formula} THEN {label}"
            words.append(f"<h3>Class {_e(label)}</h3>")
        else:
            then = f"predict <b>{_e(positive)}</b>; otherwise predict <b>{_e(negative)}</b>."
            otherwise = f"always predict <b>{_e(negative)}</b>."
            text = f"IF {formula} THEN {positive} ELSE {negative}"
        words.append(f'<div class="rule">{_rule_words(model, formula, kind, terms, then, otherwise)}</div>'
                     f'<p class="note">As a formula over the binarized attributes:</p>'
                     f'<code class="formula">{_e(text)}</code>')
    literals = list(dict.fromkeys(literals))
    meanings = pd.DataFrame([(str(lit), *literal_meaning(model, lit)) for lit in literals],
                            columns=["literal", "true when", "when the value is missing"])
    term_label = {"dnf": "term", "cnf": "clause"}.get(kinds.pop(), "rule") if len(kinds) == 1 else "rule"
    rules = model.get_rules(X, labels)
    columns = [c for c in ("class", "part", "rule", "support", "precision", "coverage") if c in rules.columns]
    shown = rules[columns]  # per rule, its terms then the whole rule (get_rules' rows)
    rules_table = _table(shown, numeric=("support", "precision", "coverage"),
                         formats={"precision": ".3f", "coverage": ".3f"})
    share = "its class" if multiclass else f"class {_e(positive)}"
    sections = [
        ("The rules" if multiclass else "The rule", "".join(words)),
        ("What each condition means", _table(meanings) if len(meanings) else "<p>The rule has no conditions.</p>"),
        (f"Each {term_label} on these data",
         f"<p>Support: rows where the {term_label} (or, in the row marked rule, the whole rule) holds; "
         f"precision: share of those in {share}; "
         f"coverage: support / rows.</p>{rules_table}"),
        ("Confusion matrix", _confusion(model, X, labels)),
    ]
    if figures:
        try:
            if per_class:
                Xb = model._binarized_frame(X)
                drawn = [figure for label, rule in model.estimators_.items()
                         for figure in _figures(rule, Xb, labels == label, lams, suffix=f", class {label}")]
            else:
                drawn = _figures(model, X, labels, lams)
        except ImportError:
            sections.append(("Figure", '<p class="note">matplotlib is not installed '
                                       "(pip install 'logicrules[plot]'): no figure.</p>"))
        else:
            for name, caption, png in drawn:
                sections.append((name, f'<figure><img alt="{_e(name)}" src="data:image/png;base64,{png}">'
                                       f"<figcaption>{_e(caption)}</figcaption></figure>"))
    sections += [("Learner and parameters", _parameters(model)),
                 ("Data", _data_summary(frame, labels, classes, positive))]
    from logicrules import __version__

    heading = title or f"{type(model).__name__} report"
    subtitle = description or (f"{len(frame)} rows; {len(classes)} classes" if multiclass
                               else f"{len(frame)} rows; positive class {positive}")
    body = "".join(f"<section><h2>{_e(name)}</h2>{content}</section>" for name, content in sections)
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_e(heading)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{_e(heading)}</h1>"
            f"<p class=\"subtitle\">{_e(subtitle)}; logicrules {_e(__version__)}</p>{body}</body></html>\n")
    if output is not None:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(page)
    return page
