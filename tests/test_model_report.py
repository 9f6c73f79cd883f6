"""The model report: the rule, the counts of get_rules, the confusion matrix, the data and the
learner's figure on one self-contained page, checked on the page's text and in a real browser."""

from __future__ import annotations

import base64
import html
import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix

from logicrules import (IdealDNFClassifier, LPRuleClassifier, OptimalPremiseClassifier, load_dataset,
                        save_model)
from logicrules.cli import main
from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer, ThresholdBinarizer
from logicrules.formula import Literal
from logicrules.model_report import literal_meaning, report
from tests.headless_browser import Browser, find_browser

pytest.importorskip("matplotlib")

LEARNERS = {
    "ideal": lambda: IdealDNFClassifier(random_state=0),
    "premise": lambda: OptimalPremiseClassifier(max_size=2),
    "lp": lambda: LPRuleClassifier(rule="dnf"),
}
FIGURES = {"ideal": "Validation path", "premise": "TP-TN plane", "lp": "Regularization path"}
LAMS = (0.002, 0.01, 0.05)


@pytest.fixture(scope="module")
def hepatitis():
    """The bundled hepatitis data (it has missing values) and each learner fitted on it."""
    X, y = load_dataset("hepatitis")
    return X, y, {name: make().fit(X, y) for name, make in LEARNERS.items()}


@pytest.fixture(scope="module")
def pages(hepatitis):
    X, y, models = hepatitis
    return {name: report(model, X, y, lams=LAMS) for name, model in models.items()}


def _images(page: str) -> list[bytes]:
    return [base64.b64decode(data) for data in re.findall(r'src="data:image/png;base64,([^"]+)"', page)]


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_report_shows_the_rule_its_counts_and_the_data(hepatitis, pages, learner):
    X, y, models = hepatitis
    model, page = models[learner], pages[learner]
    assert page.startswith("<!DOCTYPE html>")
    assert html.escape(str(model.formula_)) in page
    # every term with exactly the counts get_rules gives on these data
    rules = model.get_rules(X, y)
    assert len(rules) >= 1
    for row in rules.itertuples():
        cells = (f"<td>{html.escape(row.rule)}</td><td class=\"num\">{row.support}</td>"
                 f"<td class=\"num\">{row.precision:.3f}</td><td class=\"num\">{row.coverage:.3f}</td>")
        assert cells in page, row
    # every literal of the rule in words, with what a missing value does to it
    for literal in {lit for term in model._terms()[1] for lit in term}:
        meaning, missing = literal_meaning(model, literal)
        assert f"<td>{html.escape(str(literal))}</td><td>{html.escape(meaning)}</td><td>{html.escape(missing)}</td>" in page
    tn, fp, fn, tp = confusion_matrix(y, model.predict(X)).ravel()
    for count, what in ((tp, "true positives"), (fp, "false positives"), (fn, "false negatives"),
                        (tn, "true negatives")):
        assert f"{count} ({what})" in page
    missing = X.isna()
    assert (f"{len(X)} rows, {X.shape[1]} columns; {int(missing.to_numpy().sum())} missing values in "
            f"{int(missing.any(axis=1).sum())} rows") in page
    assert f'<td class="num">{int((y == 1).sum())}</td>' in page
    for name, value in model.get_params(deep=False).items():
        assert f"<td>{html.escape(name)}</td><td>{html.escape(repr(value))}</td>" in page
    # the learner's own figure, inline; nothing loaded from elsewhere
    assert f"<h2>{FIGURES[learner]}</h2>" in page
    images = _images(page)
    assert len(images) == 1 and images[0].startswith(b"\x89PNG\r\n\x1a\n")
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<script" not in page and "<link" not in page


def test_report_writes_the_file_and_skips_figures_on_request(hepatitis, tmp_path):
    X, y, models = hepatitis
    path = tmp_path / "report.html"
    page = report(models["premise"], X, y, figures=False, title="Hepatitis <rule>", output=path)
    assert path.read_text(encoding="utf-8") == page
    assert "<h1>Hepatitis &lt;rule&gt;</h1>" in page and not _images(page)


def test_report_rejects_labels_the_model_does_not_know(hepatitis):
    X, y, models = hepatitis
    with pytest.raises(ValueError, match="classes the model does not know: 'live', 'die'"):
        report(models["premise"], X, np.where(y == 1, "die", "live"), figures=False)
    with pytest.raises(ValueError, match="one class per row"):
        report(models["premise"], X, y[:10], figures=False)


@pytest.mark.parametrize("binarizer", [MedianBinarizer(missing="false"), QuantileBinarizer(missing="indicator"),
                                       ThresholdBinarizer(missing="false")], ids=type)
def test_literal_missing_value_behaviour_is_what_the_binarizer_does(binarizer):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"age": rng.integers(20, 80, 60).astype(float),
                      "sex": rng.choice(["female", "male", "other"], 60).astype(object)})
    X.loc[::7, "age"] = np.nan
    X.loc[3::9, "sex"] = None
    y = (X["age"].fillna(0) > 50).astype(int)
    model = LPRuleClassifier(binarizer=binarizer).fit(X, y)
    blank = model.binarize(pd.DataFrame({"age": [np.nan], "sex": [None]}, dtype=object))[0]
    for j, name in enumerate(model.attribute_names_):
        for negated in (False, True):
            meaning, missing = literal_meaning(model, Literal(name, negated))
            column = "age" if name.startswith("age") else "sex"
            assert meaning.startswith(column)
            holds = bool(blank[j]) != negated
            assert missing.startswith("true" if holds else "false"), (name, negated, missing)
            assert f"missing {column}" in missing


def test_literal_words_per_operator():
    X = pd.DataFrame({"age": [30.0, 40.0, 60.0, 70.0], "sex": ["f", "m", "f", "m"]})
    model = OptimalPremiseClassifier(max_size=1, binarizer=QuantileBinarizer(n_thresholds=1)).fit(X, [0, 0, 1, 1])
    said = {(name, neg): literal_meaning(model, Literal(name, neg))[0]
            for name in model.attribute_names_ for neg in (False, True)}
    assert said["age <= 50", False] == "age is at most 50"
    assert said["age <= 50", True] == "age is greater than 50"
    assert said["age > 50", True] == "age is at most 50"
    assert said["sex == f", False] == "sex is f" and said["sex == f", True] == "sex is not f"
    assert said["sex != f", False].startswith("sex is not f (any other value")
    passthrough = OptimalPremiseClassifier(max_size=1, binarizer="passthrough").fit([[0], [1]], [0, 1])
    assert literal_meaning(passthrough, Literal("x0", True)) == (
        "x0 is false (0)", "rejected: the model raises an error on a missing x0")


def test_cli_report(tmp_path, capsys):
    X, y = load_dataset("congressional_voting")
    model_path = tmp_path / "model.json"
    save_model(OptimalPremiseClassifier(max_size=1).fit(X, y), model_path)
    out = tmp_path / "voting.html"
    assert main(["report", str(model_path), "congressional_voting", "--output", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "physician_fee_freeze" in page and "congressional_voting (435 rows" in page
    assert _images(page)
    capsys.readouterr()
    assert main(["report", str(model_path), "congressional_voting", "-o", "-", "--no-figures"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("<!DOCTYPE html>") and not _images(printed)
    assert main(["report", str(model_path), "mushroom"]) == 1
    assert "lacks column(s) the model was fitted on" in capsys.readouterr().err


# ------------------------------------------------------------------------------ browser
@pytest.fixture(scope="module")
def browser():
    executable = find_browser()
    if executable is None:
        pytest.skip("no Chromium to render the report in (Debian: apt-get install chromium; "
                    ".ci/run installs it where it can)")
    with Browser(executable) as driver:
        yield driver


def _blank(png: bytes) -> bool:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    histogram = image.histogram()
    return max(histogram) > 0.99 * sum(histogram)  # one shade covers (almost) everything


def test_browser_sees_a_broken_page(browser, tmp_path):
    """The checks below can fail: a console error, an exception and a missing image are seen."""
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><p>x</p><img src="nowhere.png">'
                    '<script>console.error("boom"); no_such_function();</script></body></html>')
    browser.open(page)
    problems = browser.problems()
    assert any("boom" in p for p in problems) and any("no_such_function" in p for p in problems)
    assert any("nowhere.png" in p for p in problems)
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    browser.open(blank)
    assert _blank(browser.screenshot())


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_report_renders_in_a_browser(browser, hepatitis, pages, learner, tmp_path):
    X, y, models = hepatitis
    model = models[learner]
    path = tmp_path / f"{learner}.html"
    path.write_text(pages[learner], encoding="utf-8")
    browser.open(path)
    assert browser.problems() == []
    text = browser.evaluate("document.body.innerText")
    assert "The rule" in text and "Confusion matrix" in text and FIGURES[learner] in text
    for literal in {lit for term in model._terms()[1] for lit in term}:
        assert literal_meaning(model, literal)[0] in text
    for row in model.get_rules(X, y).itertuples():
        assert row.rule in text
    images = browser.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
    assert len(images) == 1 and images[0][0] and images[0][1] > 300 and images[0][2] > 200
    shown = browser.evaluate("(() => { const r = document.images[0].getBoundingClientRect();"
                             " return [r.width, r.height]; })()")
    assert shown[0] > 300 and shown[1] > 200
    assert not _blank(browser.screenshot())


def test_report_follows_pos_label(hepatitis):
    """With pos_label the rule describes the other class: the page says so and counts for it."""
    X, y, _ = hepatitis
    model = OptimalPremiseClassifier(max_size=1, pos_label=0).fit(X, y)
    page = report(model, X, y, figures=False)
    assert "positive class 0" in page and "<td>0 (positive)</td>" in page
    assert f"IF {html.escape(str(model.formula_))} THEN 0 ELSE 1" in page
    tn, fp, fn, tp = confusion_matrix(y, model.predict(X), labels=[1, 0]).ravel()
    assert f"{tp} (true positives)" in page and f"{fp} (false positives)" in page
    for row in model.get_rules(X, y).itertuples():
        assert f'<td class="num">{row.support}</td><td class="num">{row.precision:.3f}</td>' in page


def test_report_of_a_checklist_on_a_numpy_matrix():
    """An m-of-n checklist reads "at least m of these n"; a model fitted on an array gets one."""
    rng = np.random.default_rng(3)
    X = rng.random((400, 5)) < 0.5
    y = (X[:, :3].sum(axis=1) >= 2).astype(int)
    model = LPRuleClassifier(rule="m_of_n", binarizer="passthrough").fit(X, y)
    names, m = model.checklist_
    assert m >= 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "fitted without feature names" warning
        page = report(model, X, y, lams=(0.01,))
    assert f"When <b>at least {m}</b> of these {len(names)} conditions hold" in page
    for name in names:
        assert f"<li>{name} is true (1)</li>" in page


def _three_classes(n=240):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((n, 4)), columns=["a", "b", "c", "d"])
    y = np.where(X.a > 0.6, "high", np.where(X.b > 0.5, "mid", "low"))
    X.loc[::17, "c"] = np.nan
    return X, y


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_report_of_a_multiclass_model(learner, request, tmp_path):
    """One rule per class: each in words, its counts, a confusion matrix over all classes, a
    figure per class (one-vs-rest) or of the model; and the page renders."""
    X, y = _three_classes()
    model = LEARNERS[learner]().fit(X, y)
    page = report(model, X, y, lams=(0.01,))
    for label, formula in model.formula_.items():
        assert f"<h3>Class {label}</h3>" in page and html.escape(f"IF {formula} THEN {label}") in page
    for row in model.get_rules(X, y).itertuples():
        assert (f"<td>{row[1]}</td><td>{row.part}</td><td>{html.escape(row.rule)}</td><td class=\"num\">{row.support}</td>"
                f"<td class=\"num\">{row.precision:.3f}</td>") in page
    counts = confusion_matrix(y, model.predict(X), labels=model.classes_)
    for label, row in zip(model.classes_, counts):
        assert (f"<tr><th>actual {label}</th>" + "".join(f'<td class="num">{v}</td>' for v in row)) in page
    if hasattr(model, "estimators_"):  # a figure per class's rule
        assert len(_images(page)) == len(model.classes_)
        assert f"<h2>{FIGURES[learner]}, class high</h2>" in page
    else:  # the native multiclass ideal classifier: one validation path
        assert len(_images(page)) == 1 and f"<h2>{FIGURES[learner]}</h2>" in page
        assert "exactly one rule holds on every row" in page
    path = tmp_path / "multiclass.html"
    path.write_text(page, encoding="utf-8")
    browser = request.getfixturevalue("browser")  # the checks above run even without a browser
    browser.open(path)
    assert browser.problems() == []
    assert browser.evaluate("Array.from(document.images).every(i => i.complete && i.naturalWidth > 300)")
