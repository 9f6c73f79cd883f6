"""The documentation builds with warnings as errors, and its API reference lists every public name.

A broken docstring (an unknown numpydoc section, bad reStructuredText) or a new public name the
reference would miss fails here. The build runs without network; the gallery executes only its
quick examples (``tests/test_examples.py`` runs every example).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the docs extra is not installed: pip install -e '.[docs]'")
pytest.importorskip("numpydoc", reason="the docs extra is not installed: pip install -e '.[docs]'")
pytest.importorskip("sphinx_gallery", reason="the docs extra is not installed: pip install -e '.[docs]'")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def html(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
           "-d", str(out / "doctrees"), str(DOCS), str(out / "html")]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"sphinx-build -W failed:\n{done.stdout}\n{done.stderr}"
    return out / "html"


def _public_paths() -> list[tuple[str, str]]:
    """(package or module, name) for every name in the export tables and modules' ``__all__``."""
    import logicrules

    scopes = ["logicrules"] + [info.name for info in pkgutil.walk_packages(logicrules.__path__, "logicrules.")
                               if not any(p.startswith("_") for p in info.name.split("."))]
    paths = []
    for scope in scopes:
        module = importlib.import_module(scope)
        paths += [(scope, name) for name in getattr(module, "__all__", [])]
    return paths


def test_docs_build_without_warnings(html):
    for page in ["index.html", "install.html", "choosing.html", "guide/ideal.html", "guide/premise.html",
                 "guide/lp.html", "guide/fca.html", "guide/report.html", "api/index.html",
                 "auto_examples/index.html"]:
        assert (html / page).is_file(), page


def test_every_public_name_is_in_the_api_reference(html):
    paths = _public_paths()
    assert len(paths) > 100
    missing = []
    for scope, name in paths:
        page = (html / "api" / f"{scope}.html").read_text(encoding="utf-8")
        full = f"{scope}.{name}"
        if (html / "api" / "generated" / f"{full}.html").is_file():
            if not re.search(rf'href="generated/{re.escape(full)}\.html[#"]', page):
                missing.append(f"{full} (its entry is not linked from the {scope} page)")
            continue
        # Documented at another path: the scope's page names it and links to that entry.
        link = re.search(rf'<span class="pre">{re.escape(full)}</span></code>: '
                         rf'<a class="reference internal" href="generated/([^"#]+\.html)[#"]', page)
        if link is None or not (html / "api" / "generated" / link.group(1)).is_file():
            missing.append(full)
    assert not missing, f"public names missing from the API reference: {missing}"


def test_gallery_shows_the_examples(html):
    index = (html / "auto_examples" / "index.html").read_text(encoding="utf-8")
    for script in sorted((ROOT / "examples").glob("[0-9][0-9]_*.py")):
        assert f"{script.stem}.html" in index, script.name
        assert (html / "auto_examples" / f"{script.stem}.html").is_file()


def test_readme_ci_and_install_page_run_one_test_command():
    # the suite's command is written in three places; CI runs the one of .ci/run
    from tests.conftest import LONG_MODULES

    command = "python -m pytest -q -n auto --dist loadscope --no-loadscope-reorder"
    for path in ["README.md", ".ci/run", "docs/install.rst"]:
        lines = [line for line in (ROOT / path).read_text(encoding="utf-8").splitlines() if "pytest -q" in line]
        assert lines and all(command in line for line in lines), (path, lines)
    assert all((ROOT / module).is_file() for module in LONG_MODULES)
