"""Every teaching example runs (with --fast) and writes its outputs, so none of them rots."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

OUTPUTS = {
    "01_formal_context_and_lattice.py": ["concepts.csv", "lattice.png"],
    "02_ideal_dnf_breast_cancer.py": ["validation_path.csv", "validation_path.png"],
    "03_optimal_premise_myocard.py": ["search_statistics.csv", "tp_tn_plane.png"],
    "04_lp_rules_mushroom.py": ["regularization_path.csv", "regularization_path.png"],
    "05_compare_learners.py": ["results.csv", "summary.md", "accuracy.png", "formula_comparison.csv"],
}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("[0-9][0-9]_*.py")) == sorted(OUTPUTS)


@pytest.mark.parametrize("script", sorted(OUTPUTS))
def test_example_runs_and_writes_outputs(script, tmp_path, monkeypatch, capsys):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", [script, "--fast", "--out", str(out)])
    try:
        runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    finally:
        plt.close("all")
    printed = capsys.readouterr().out
    assert "wrote" in printed
    for name in OUTPUTS[script]:
        path = out / name
        assert path.is_file() and path.stat().st_size > 0, f"{script} did not write {name}"
