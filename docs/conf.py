"""Sphinx configuration of the logicrules documentation.

The API reference is written at build time from the public names of the package (the lazy export
tables of ``logicrules`` and of each subpackage, and the ``__all__`` of each public module; see
``_ext/logicrules_docs.py``), so a new public name appears in it without editing any page. The build needs no
network: intersphinx is not used.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE / "_ext"))

import logicrules_docs  # noqa: E402  (docs/_ext/logicrules_docs.py)

import logicrules  # noqa: E402

project = "logicrules"
author = "the logicrules authors"
copyright = "the logicrules authors"
release = version = logicrules.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "logicrules_docs",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.json", "auto_examples/*.md5"]
root_doc = "index"
html_theme = "alabaster"
html_theme_options = {"description": "Short, provably optimal Boolean classifiers", "fixed_sidebar": False,
                      "page_width": "1180px", "sidebar_width": "220px"}
# The pages of the API reference (one per public name, several hundred) show the search box and
# their place in the reference, not the whole site's table of contents: resolving that global
# toctree on every generated page was a third of the build.
html_sidebars = {"api/generated/*": ["about.html", "relations.html", "searchbox.html"]}
html_static_path = ["_static"]
html_css_files = ["logicrules.css"]
html_show_sourcelink = False

# autodoc / autosummary / numpydoc
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # numpydoc's Parameters sections already give the types
autodoc_mock_imports: list[str] = []
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# The build must work without network (mathjax is only loaded by a reader's browser).
intersphinx_mapping: dict = {}

# Examples gallery. The scripts are argparse programs (``main()`` under ``__main__``); each one
# is given ``--fast --out <temporary folder>``. Only the quick ones are executed by default (the
# others are rendered with their code and text); LOGICRULES_DOCS_RUN_EXAMPLES=all runs all,
# =none runs none (the test suite runs every example on its own, see tests/test_examples.py).
_RUN = {
    "default": r"(01|02)_[^/\\]*\.py$",
    "all": r"\.py$",
    "none": r"^$",
}[os.environ.get("LOGICRULES_DOCS_RUN_EXAMPLES", "default")]
_EXAMPLE_OUT = tempfile.mkdtemp(prefix="logicrules-docs-examples-")


sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": _RUN,
    "ignore_pattern": r"__init__\.py",
    "reset_argv": logicrules_docs.ExampleArgv(_EXAMPLE_OUT),
    "download_all_examples": False,
    "show_signature": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "capture_repr": (),
    "plot_gallery": "True",
    "write_computation_times": False,
}
